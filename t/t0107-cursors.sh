#!/bin/sh
test_description='cursors: list, search and grep continue page by page with --cursor

A bounded list, search or grep that stops early gives next_cursor, an opaque token that
continues exactly after the last entry it returned. Followed to the end, the pages are the
unpaged answer; an entry added or removed between pages shifts nothing else, because the cursor
names a place in the walk order, not an offset. A cursor from another query or another
workspace, or one that was changed or cut, is INVALID_CURSOR (exit 31) with a reason and a
recovery. Reading through cursors never creates a workspace'"'"'s .filekeeper/: a workspace without
state signs with a key in the home. (History'"'"'s cursors are in t0302.)'
. ./test-lib.sh

# cursor_of ARGS...: the next_cursor of `keeper --json ARGS...`, which must have one.
cursor_of () {
	keeper --json "$@" >first.json &&
	jq -e -r .next_cursor first.json
}

test_expect_success 'setup: a few hundred entries, with names whose walk order is not their text order' '
	mkdir -p big &&
	for d in a a-b a.b b c; do
		mkdir -p big/$d/sub &&
		i=0 &&
		while test $i -lt 30; do
			printf "needle %s\nhay\nneedle again\n" "$d$i" >big/$d/f$i.txt &&
			i=$((i + 1))
		done &&
		echo needle >big/$d/sub/deep.md || return 1
	done &&
	printf "target/\n" >big/.gitignore &&
	mkdir -p big/target && echo needle >big/target/ignored.txt &&
	keeper --json file list big --recursive >whole.json &&
	test "$(jq ".entries | length" whole.json)" -gt 150 &&
	jq -e ".truncated == false and .next_cursor == null" whole.json
'

test_expect_success 'a recursive list read page by page is exactly the unpaged list' '
	jq -r ".entries[] | [.path, .kind, .size_bytes] | @tsv" whole.json >expect &&
	pages ".entries[] | [.path, .kind, .size_bytes] | @tsv" \
		file list big --recursive --max-entries 7 >actual &&
	test_cmp expect actual &&
	test "$(cat pages.count)" -gt 20
'

test_expect_success 'a directory of its own entries only, page by page' '
	keeper --json file list big/a >one.json &&
	jq -r ".entries[].path" one.json >expect &&
	pages ".entries[].path" file list big/a --max-entries 4 >actual &&
	test_cmp expect actual
'

test_expect_success 'a search read page by page is exactly the unpaged search' '
	keeper --json file search big "*.txt" >whole-search.json &&
	jq -r ".entries[].path" whole-search.json >expect &&
	test_line_count = 150 expect &&
	pages ".entries[].path" file search big "*.txt" --max-results 11 >actual &&
	test_cmp expect actual
'

test_expect_success 'a grep read page by page is exactly the unpaged grep, pages ending inside a file' '
	# Two matches in each of 55 files: within the unpaged bound, max_search_results (200).
	keeper --json file grep big needle --glob "f1*.txt" >whole-grep.json &&
	jq -r ".matches[] | [.path, .line, .column, .text] | @tsv" whole-grep.json >expect &&
	test_line_count = 110 expect &&
	pages ".matches[] | [.path, .line, .column, .text] | @tsv" \
		file grep big needle --glob "f1*.txt" --max-results 3 >actual &&
	test_cmp expect actual &&
	test "$(cat pages.count)" = 37
'

test_expect_success 'grep of one file continues inside it' '
	i=1 &&
	while test $i -le 25; do echo "x $i" || return 1; i=$((i + 1)); done >lines.txt &&
	pages ".matches[].line" file grep lines.txt x --max-results 4 >actual &&
	seq 1 25 >expect &&
	test_cmp expect actual
'

test_expect_success 'the page size may change from one page to the next' '
	c=$(cursor_of file list big --recursive --max-entries 3) &&
	keeper --json file list big --recursive --max-entries 500 --cursor "$c" >rest.json &&
	{ jq -r ".entries[].path" first.json && jq -r ".entries[].path" rest.json; } >actual &&
	jq -r ".entries[].path" whole.json >expect &&
	test_cmp expect actual
'

test_expect_success 'entries added or removed between pages are neither repeated nor skipped' '
	mkdir -p moving/m moving/p &&
	for f in m/1 m/3 m/5 n p/1 p/3 q; do echo x >moving/$f || return 1; done &&
	c=$(cursor_of file list moving --recursive --max-entries 3) &&
	jq -r ".entries[].path" first.json >seen &&
	printf "moving/m\nmoving/m/1\nmoving/m/3\n" >expect &&
	test_cmp expect seen &&
	# Before the cursor: one added, one removed. After it: one added, one removed, and the
	# file the cursor names removed too.
	echo x >moving/m/2 && rm moving/m/1 &&
	echo x >moving/p/2 && rm moving/n && rm moving/m/3 &&
	pages --from "$c" ".entries[].path" file list moving --recursive --max-entries 2 >rest &&
	printf "moving/m/5\nmoving/p\nmoving/p/1\nmoving/p/2\nmoving/p/3\nmoving/q\n" >expect &&
	test_cmp expect rest
'

test_expect_success 'files added or removed between grep pages shift nothing else' '
	mkdir -p g &&
	for f in b d f; do printf "hit 1\nhit 2\n" >g/$f || return 1; done &&
	c=$(cursor_of file grep g hit --max-results 3) &&
	jq -r ".matches[] | \"\(.path):\(.line)\"" first.json >seen &&
	printf "g/b:1\ng/b:2\ng/d:1\n" >expect &&
	test_cmp expect seen &&
	printf "hit 1\n" >g/a && rm g/f && printf "hit 1\n" >g/e &&
	pages --from "$c" ".matches[] | \"\(.path):\(.line)\"" file grep g hit --max-results 3 >rest &&
	printf "g/d:2\ng/e:1\n" >expect &&
	test_cmp expect rest
'

test_expect_success 'a line inserted above a grep cursor in its file is INVALID_CURSOR (changed)' '
	mkdir -p shift &&
	printf "hit 1\nhit 2\nhit 3\nhit 4\n" >shift/a &&
	c=$(cursor_of file grep shift hit --max-results 2) &&
	printf "hit 0\nhit 1\nhit 2\nhit 3\nhit 4\n" >shift/a &&
	refused 31 INVALID_CURSOR --naming shift/a file grep shift hit --max-results 2 --cursor "$c" &&
	test "$(jq -r .error.details.reason refusal.json)" = changed
'

test_expect_success 'a grep cursor whose file changed only below its line goes on' '
	printf "hit 1\nhit 2\nhit 3\nhit 4\n" >shift/a &&
	c=$(cursor_of file grep shift hit --max-results 2) &&
	printf "hit 1\nhit 2\nhit three\nhit 4\nhit 5\n" >shift/a &&
	pages --from "$c" ".matches[].text" file grep shift hit --max-results 2 >rest &&
	printf "hit three\nhit 4\nhit 5\n" >expect &&
	test_cmp expect rest
'

test_expect_success 'a grep cursor whose line itself changed is refused, and one whose file is gone goes on' '
	printf "hit 1\nhit 2\nhit 3\n" >shift/a && printf "hit b\n" >shift/b &&
	c=$(cursor_of file grep shift hit --max-results 2) &&
	printf "hit 1\nhit 2 changed\nhit 3\n" >shift/a &&
	refused 31 INVALID_CURSOR file grep shift hit --max-results 2 --cursor "$c" &&
	rm shift/a &&
	pages --from "$c" ".matches[].text" file grep shift hit --max-results 2 >rest &&
	echo "hit b" >expect &&
	test_cmp expect rest
'

test_expect_success 'the human output names the cursor that continues' '
	keeper file list big --max-entries 2 >out 2>err &&
	c=$(keeper --json file list big --max-entries 2 | jq -r .next_cursor) &&
	grep -F -e "--cursor $c" err
'

test_expect_success 'reading through cursors creates no state in the workspace; the key is in the home' '
	test ! -e .filekeeper &&
	test -f "$FILEKEEPER_HOME/cursor.key" &&
	test "$(stat -c %s "$FILEKEEPER_HOME/cursor.key")" = 32 &&
	test "$(stat -c %a "$FILEKEEPER_HOME/cursor.key")" = 600 &&
	no_temp_files
'

test_expect_success 'a list cursor given to another command is INVALID_CURSOR (exit 31)' '
	c=$(cursor_of file list big --recursive --max-entries 3) &&
	refused 31 INVALID_CURSOR file search big "*" --cursor "$c" &&
	json_get ".error.details.reason == \"other_query\"" refusal.json &&
	refused 31 INVALID_CURSOR file grep big needle --cursor "$c" &&
	json_get ".error.details.reason == \"other_query\"" refusal.json
'

test_expect_success 'a cursor given with another path, glob or option is INVALID_CURSOR' '
	c=$(cursor_of file list big --recursive --max-entries 3) &&
	refused 31 INVALID_CURSOR file list big/a --recursive --cursor "$c" &&
	refused 31 INVALID_CURSOR file list big --cursor "$c" &&
	refused 31 INVALID_CURSOR file list big --recursive --glob "*.txt" --cursor "$c" &&
	json_get ".error.details.reason == \"other_query\"" refusal.json &&
	c=$(cursor_of file grep big needle --max-results 2) &&
	refused 31 INVALID_CURSOR file grep big needle --ignore-case --cursor "$c" &&
	refused 31 INVALID_CURSOR file grep big needle --regex --cursor "$c" &&
	refused 31 INVALID_CURSOR file grep big Needle --cursor "$c" &&
	c=$(cursor_of file search big "*.txt" --max-results 2) &&
	refused 31 INVALID_CURSOR file search big "*.md" --cursor "$c"
'

test_expect_success 'the same directory spelt another way is the same query' '
	c=$(cursor_of file list big --max-entries 2) &&
	keeper --json file list big/ --max-entries 2 --cursor "$c" >out &&
	json_get ".ok" out
'

test_expect_success 'a cursor from another workspace is INVALID_CURSOR' '
	mkdir -p "$TRASH/other/big" &&
	cp -R big/a "$TRASH/other/big/" &&
	c=$(cursor_of file list big --recursive --max-entries 3) &&
	refused 31 INVALID_CURSOR --root "$TRASH/other" file list big --recursive --cursor "$c" &&
	json_get ".error.details.reason == \"other_workspace\"" refusal.json
'

test_expect_success 'a cursor with a changed byte is INVALID_CURSOR' '
	c=$(cursor_of file list big --recursive --max-entries 3) &&
	# Change one character in the middle: still base64url, but not what was signed.
	n=$((${#c} / 2)) &&
	head=$(printf %s "$c" | cut -c1-$((n - 1))) &&
	tail=$(printf %s "$c" | cut -c$((n + 1))-) &&
	mid=$(printf %s "$c" | cut -c$n) &&
	if test "$mid" = A; then new=B; else new=A; fi &&
	refused 31 INVALID_CURSOR file list big --recursive --cursor "$head$new$tail" &&
	json_get ".error.details.reason == \"signature\"" refusal.json
'

test_expect_success 'a cut or garbled cursor is INVALID_CURSOR' '
	c=$(cursor_of file list big --recursive --max-entries 3) &&
	refused 31 INVALID_CURSOR file list big --recursive --cursor "$(printf %s "$c" | cut -c1-20)" &&
	refused 31 INVALID_CURSOR file list big --recursive --cursor "$(printf %s "$c" | cut -c1-$((${#c} - 2)))" &&
	refused 31 INVALID_CURSOR file list big --recursive --cursor "not a cursor!" &&
	json_get ".error.details.reason == \"malformed\"" refusal.json &&
	refused 31 INVALID_CURSOR file list big --recursive --cursor "" &&
	json_get ".error.details.reason == \"malformed\"" refusal.json
'

test_expect_success 'the refusal says how to recover: the same query without --cursor' '
	refused 31 INVALID_CURSOR file grep big needle --cursor AAAA &&
	json_get ".error.details.recovery" refusal.json >hint &&
	grep -F -e "without --cursor" hint &&
	json_get ".error.retryable == false" refusal.json &&
	test_expect_code 31 keeper file grep big needle --cursor AAAA 2>err &&
	grep "^error\[INVALID_CURSOR\]" err
'

test_expect_success 'once the workspace has state, cursors are signed with its own key' '
	keeper file write made.txt --content x >/dev/null &&
	c=$(cursor_of file list big --max-entries 2) &&
	test -f .filekeeper/cursor.key &&
	keeper --json file list big --max-entries 2 --cursor "$c" >out &&
	json_get ".ok" out &&
	# A cursor whose key is gone cannot be checked: refused, never trusted.
	rm .filekeeper/cursor.key &&
	refused 31 INVALID_CURSOR file list big --max-entries 2 --cursor "$c" &&
	json_get ".error.details.reason == \"signature\"" refusal.json
'

test_expect_success 'a damaged key is STORAGE_ERROR on a page that needs a cursor, and says to delete it' '
	test_when_finished "rm -f .filekeeper/cursor.key" &&
	keeper file write made.txt --content y >/dev/null &&
	head -c 16 /dev/zero >.filekeeper/cursor.key &&
	keeper --json file list big --max-entries 100 >out &&
	json_get ".truncated == false" out &&
	set -f &&
	for query in "file list big --max-entries 2" "file search big * --max-results 2" \
		"file grep big needle --max-results 1" "history list --limit 1"
	do
		refused 26 STORAGE_ERROR $query &&
		json_get ".error.details.recovery | test(\"delete cursor.key\")" refusal.json ||
		return 1
	done &&
	rm .filekeeper/cursor.key &&
	keeper --json file list big --max-entries 2 >out &&
	json_get ".next_cursor | type == \"string\"" out
'

test_done
