#!/bin/sh
test_description='every change shows what it did: the diffs of a mutation'"'"'s result

Every successful mutation reports diffs, one per item in the items'"'"' order: a unified diff of a
text file'"'"'s content (--- a/PATH, +++ b/PATH, /dev/null for a side that does not exist, three
lines of context) with its counts of added and removed lines, or a diff_kind saying why there
is none (binary, directory, unchanged, moved, too_large, omitted). The diffs of a patch are
the patch; a diff applied with apply-patch makes the change again. The diffs of one result are
bounded by max_diff_bytes, and files by max_diff_file_bytes (config.toml): a cut diff ends
with a line saying so and sets diff_truncated, and the paths after it are omitted. Without
--json a line per changed path follows the summary (path | changes +added -removed), and
--verbose prints the whole diff after it on stdout.'
. ./test-lib.sh

# diff_of FILE [N]: the diff text of item N (default 0) of the result in FILE, exactly.
diff_of () {
	jq -j ".diffs[${2:-0}].diff" "$1"
}

test_expect_success 'setup: a text file, a CRLF file and a binary file' '
	printf "one\ntwo\nthree\nfour\nfive\n" >text.txt &&
	printf "alpha\r\nbeta\r\ngamma\r\n" >crlf.txt &&
	printf "\000\001\002" >blob.bin
'

test_expect_success 'an edit reports the diff of its change and its line counts' '
	keeper --json file replace-text text.txt --first --old "three" --new "3" >edit.json &&
	cat >expect <<-\EOF &&
	--- a/text.txt
	+++ b/text.txt
	@@ -1,5 +1,5 @@
	 one
	 two
	-three
	+3
	 four
	 five
	EOF
	diff_of edit.json >actual &&
	test_cmp expect actual &&
	json_get ".diffs[0] | .path == \"text.txt\" and .change == \"modified\" and .kind == \"file\" and
		.diff_kind == \"text\" and .lines_added == 1 and .lines_removed == 1" edit.json &&
	json_get ".diff_truncated == false" edit.json
'

test_expect_success 'the diff is a real patch: applied to the old content it makes the change again' '
	keeper --json history undo "$(json_get .operation_id edit.json)" >/dev/null &&
	diff_of edit.json >edit.patch &&
	keeper --json file apply-patch edit.patch >again.json &&
	printf "one\ntwo\n3\nfour\nfive\n" >expect &&
	test_cmp expect text.txt
'

test_expect_success 'the diff is the one history diff shows for the operation' '
	keeper --json history diff "$(json_get .operation_id again.json)" >history.json &&
	test "$(jq -j ".paths[0].diff" history.json)" = "$(diff_of again.json)"
'

test_expect_success 'a CRLF file'"'"'s diff keeps its CR line ends' '
	keeper --json file replace-lines crlf.txt --start 2 --end 2 --replacement "BETA" >crlf.json &&
	printf "%s\n" "--- a/crlf.txt" "+++ b/crlf.txt" "@@ -1,3 +1,3 @@" \
		" alpha$(printf "\r")" "-beta$(printf "\r")" "+BETA$(printf "\r")" " gamma$(printf "\r")" >expect &&
	diff_of crlf.json >actual &&
	test_cmp expect actual
'

test_expect_success 'a created file is diffed from /dev/null, a deleted one to /dev/null' '
	keeper --json file create new.txt --content "first
second
" >create.json &&
	printf "%s\n" "--- /dev/null" "+++ b/new.txt" "@@ -0,0 +1,2 @@" "+first" "+second" >expect &&
	diff_of create.json >actual &&
	test_cmp expect actual &&
	keeper --json file delete new.txt >delete.json &&
	printf "%s\n" "--- a/new.txt" "+++ /dev/null" "@@ -1,2 +0,0 @@" "-first" "-second" >expect &&
	diff_of delete.json >actual &&
	test_cmp expect actual &&
	json_get ".diffs[0] | .lines_added == 0 and .lines_removed == 2" delete.json
'

test_expect_success 'binary content is named, not diffed' '
	keeper --json file write blob.bin --input text.txt >binary.json &&
	json_get ".diffs[0] | .diff_kind == \"binary\" and .diff == null and .lines_added == null" binary.json
'

test_expect_success 'a write of the same content is unchanged; directories are named' '
	keeper --json file write text.txt --input text.txt >same.json &&
	json_get "[.diffs[] | .diff_kind] == [\"unchanged\"]" same.json &&
	keeper --json dir create --parents d/e >dirs.json &&
	json_get "[.diffs[] | [.path, .diff_kind]] == [[\"d\", \"directory\"], [\"d/e\", \"directory\"]]" dirs.json
'

test_expect_success 'a move names both ends as moved' '
	printf "moving\n" >d/m.txt &&
	keeper --json file move d/m.txt d/e/m.txt >move.json &&
	json_get "[.diffs[] | [.path, .change, .diff_kind]] ==
		[[\"d/m.txt\", \"deleted\", \"moved\"], [\"d/e/m.txt\", \"created\", \"moved\"]]" move.json
'

test_expect_success 'a move over an existing file names its source as moved' '
	printf "over\n" >d/o.txt &&
	printf "old\n" >d/e/o.txt &&
	keeper --json file move d/o.txt d/e/o.txt --overwrite >over.json &&
	json_get "[.diffs[] | [.path, .change, .diff_kind]] ==
		[[\"d/o.txt\", \"deleted\", \"moved\"], [\"d/e/o.txt\", \"modified\", \"text\"]]" over.json
'

test_expect_success 'a deletion is shown as one when another file comes to hold its content' '
	printf "same line\n" >gone.txt &&
	printf "other\n" >stays.txt &&
	cat >delete-and-copy.patch <<-\EOF &&
	--- a/gone.txt
	+++ /dev/null
	@@ -1 +0,0 @@
	-same line
	--- a/stays.txt
	+++ b/stays.txt
	@@ -1 +1 @@
	-other
	+same line
	EOF
	keeper --json file apply-patch delete-and-copy.patch >dc.json &&
	json_get "[.diffs[] | [.path, .change, .diff_kind]] ==
		[[\"gone.txt\", \"deleted\", \"text\"], [\"stays.txt\", \"modified\", \"text\"]]" dc.json &&
	json_get ".diffs[0].diff | contains(\"-same line\")" dc.json
'

test_expect_success 'setup: a two-file patch' '
	printf "a\nb\nc\n" >p1.txt &&
	printf "x\ny\n" >p2.txt &&
	cat >two.patch <<-\EOF
	--- a/p1.txt
	+++ b/p1.txt
	@@ -1,3 +1,3 @@
	 a
	-b
	+B
	 c
	--- a/p2.txt
	+++ b/p2.txt
	@@ -1,2 +1,3 @@
	 x
	 y
	+z
	EOF
'

test_expect_success 'a patch reports one diff per file; together they are the patch' '
	keeper --json file apply-patch two.patch >patch.json &&
	json_get "[.diffs[] | .path] == [\"p1.txt\", \"p2.txt\"]" patch.json &&
	jq -j "[.diffs[].diff] | join(\"\")" patch.json >actual &&
	test_cmp two.patch actual
'

test_expect_success 'undoing the patch shows each file going back' '
	keeper --json history undo "$(json_get .operation_id patch.json)" >undo.json &&
	printf "%s\n" "--- a/p2.txt" "+++ b/p2.txt" "@@ -1,3 +1,2 @@" " x" " y" "-z" >expect &&
	diff_of undo.json 1 >actual &&
	test_cmp expect actual
'

test_expect_success 'a dry run shows the same diffs a real run gives, beside its preview_diff' '
	keeper --json file write text.txt --content "only
" --dry-run >dry.json &&
	keeper --json file write text.txt --content "only
" >real.json &&
	test "$(jq -c .diffs dry.json)" = "$(jq -c .diffs real.json)" &&
	test "$(jq -j .preview_diff dry.json)" = "$(diff_of real.json)"
'

test_expect_success 'human output: the summary, then a line per changed path' '
	printf "a\nb\nc\n" >p1.txt &&
	printf "x\ny\n" >p2.txt &&
	keeper file apply-patch two.patch >out &&
	sed -n "1p" out | grep "^Applied a patch to 2 file(s): 2 modified\. \[op_[0-9a-f]\{16\}\]$" &&
	cat >expect <<-\EOF &&
	 p1.txt | 2 +1 -1
	 p2.txt | 1 +1 -0
	EOF
	tail -n 2 out >actual &&
	test_cmp expect actual
'

test_expect_success 'human output names what it does not diff' '
	printf "\001\000" >bin.in &&
	keeper file write blob.bin --input bin.in >out &&
	sed -n "2p" out >actual &&
	echo " blob.bin | binary" >expect &&
	test_cmp expect actual
'

test_expect_success 'human output aligns the paths and leaves out directories' '
	mkdir -p t/sub &&
	printf "1\n" >t/a.txt &&
	printf "2\n3\n" >t/sub/longer-name.txt &&
	keeper dir delete t --recursive --confirm-recursive >out &&
	cat >expect <<-\EOF &&
	 t/a.txt               | 1 +0 -1
	 t/sub/longer-name.txt | 2 +0 -2
	EOF
	tail -n +2 out >actual &&
	test_cmp expect actual
'

test_expect_success '--verbose prints the whole diff on stdout after the line per path' '
	printf "one\ntwo\n" >v.txt &&
	keeper --verbose file write v.txt --content "one
2
" >out 2>err &&
	cat >expect <<-\EOF &&
	 v.txt | 2 +1 -1
	--- a/v.txt
	+++ b/v.txt
	@@ -1,2 +1,2 @@
	 one
	-two
	+2
	EOF
	tail -n +2 out >actual &&
	test_cmp expect actual &&
	# The other fields are listed on stderr, the diffs not again.
	grep "^operation_id: op_" err &&
	grep "^diff_truncated: false$" err &&
	! grep "^diffs:" err
'

test_expect_success '--verbose --color always colours the diff' '
	printf "one\n" >c.txt &&
	keeper --verbose --color always file write c.txt --content "uno
" >out 2>/dev/null &&
	grep -F "$(printf "\033[31m-one\033[0m")" out &&
	grep -F "$(printf "\033[32m+uno\033[0m")" out
'

test_expect_success 'without --verbose the diff itself is not printed' '
	printf "one\n" >q.txt &&
	keeper file write q.txt --content "two
" >out &&
	test_line_count = 2 out &&
	! grep "^+two" out
'

test_expect_success 'setup: a home whose config.toml bounds the diffs tightly' '
	mkdir -p "$TRASH/tight-home" "$TRASH/tight" &&
	printf "[filekeeper]\nmax_diff_bytes = 120\nmax_diff_file_bytes = 64\n" >"$TRASH/tight-home/config.toml" &&
	for i in $(seq 1 30); do echo $((i % 10)); done >"$TRASH/tight/long.txt" &&
	test "$(wc -c <"$TRASH/tight/long.txt")" -eq 60 &&
	cp "$TRASH/tight/long.txt" "$TRASH/tight/also.txt" &&
	cp "$TRASH/tight/long.txt" "$TRASH/tight-long.txt" &&
	head -c 100 /dev/zero | tr "\\000" x >"$TRASH/tight/wide.txt"
'

tight () {
	keeper --home "$TRASH/tight-home" --root "$TRASH/tight" "$@"
}

test_expect_success 'a diff past max_diff_bytes is cut, says so, and the paths after it are omitted' '
	printf "%s\n" "--- a/long.txt" "+++ /dev/null" "@@ -1,30 +0,0 @@" >cut.patch &&
	sed "s/^/-/" "$TRASH/tight/long.txt" >>cut.patch &&
	printf "%s\n" "--- a/also.txt" "+++ /dev/null" "@@ -1,30 +0,0 @@" >>cut.patch &&
	sed "s/^/-/" "$TRASH/tight/also.txt" >>cut.patch &&
	tight --json file apply-patch cut.patch >cut.json &&
	json_get ".diff_truncated == true" cut.json &&
	diff_of cut.json >cut.diff &&
	# Whole lines of the diff, as many as fit the 120 bytes: a line cut in the middle would
	# read as another line.
	sed "\$d" cut.diff >kept &&
	test "$(wc -c <kept)" -le 120 &&
	head -n "$(wc -l <kept)" cut.patch >expect &&
	test_cmp expect kept &&
	test "$(head -n "$(($(wc -l <kept) + 1))" cut.patch | wc -c)" -gt 120 &&
	tail -n 1 cut.diff >note &&
	echo "... diff cut here: a result shows at most max_diff_bytes (120) of diff" >expect &&
	test_cmp expect note &&
	json_get ".diffs[0] | .lines_removed == 30 and .lines_added == 0" cut.json &&
	json_get ".diffs[1] | .path == \"also.txt\" and .diff_kind == \"omitted\" and .diff == null" cut.json
'

test_expect_success 'the human output says the diff was cut, on stderr' '
	tight file write small.txt --input "$TRASH/tight-long.txt" >out 2>err &&
	grep "^ small.txt | 30 +30 -0$" out &&
	op=$(sed -n "s/.*\[\(op_[0-9a-f]*\)\]$/\1/p" out) &&
	grep -F "the diff was cut at max_diff_bytes; \`keeper history diff $op\` shows the whole change" err &&
	tight file write wide.txt --content "x" >out 2>err &&
	grep "^ wide.txt | too large to diff$" out &&
	! grep "cut at max_diff_bytes" err
'

test_expect_success 'a file above max_diff_file_bytes is named too_large, not diffed' '
	head -c 100 /dev/zero | tr "\\000" y >"$TRASH/tight/wide2.txt" &&
	tight --json file write wide2.txt --content "short
" >wide.json &&
	json_get ".diffs[0] | .diff_kind == \"too_large\" and .diff == null" wide.json &&
	json_get ".diff_truncated == false" wide.json
'

test_done
