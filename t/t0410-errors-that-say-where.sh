#!/bin/sh
test_description='refusals of edits and paths say where things are

An ambiguous replace-text lists every match (line numbers and the lines around them, at most
10) and names --occurrence, which then replaces exactly the Nth match; past the last match it
is MATCH_COUNT_MISMATCH, with --all or 0 INVALID_ARGUMENT. NO_MATCH gives a candidate for
every line of the old text and recognises old text copied with line-number prefixes, without
ever stripping them. A failed --expected-content shows the region and where the expected text
is now. A hunk that does not apply names its first differing line and where it fits best. A
stale --expected-hash shows the diff from the expected version when the store holds it, and
a guarded write to a file that is gone says so. PATH_NOT_FOUND suggests near names, the same
name elsewhere and the operation that moved the file. Every refusal writes nothing.'
. ./test-lib.sh

# compact FILTER FILE: a jq filter's result on FILE as one line of JSON.
compact () {
	test -s "$2" && jq -c "$1" "$2"
}

# replace-text --occurrence

test_expect_success 'an ambiguous --first lists every match with its lines and names --occurrence' '
	printf "top\nx = 1\nmid\nx = 1\nend\n" >many.txt &&
	save many.txt &&
	refused 17 MATCH_COUNT_MISMATCH --naming many.txt \
		file replace-text many.txt --old "x = 1" --new "x = 9" --first &&
	test "$(json_get .error.details.match_count refusal.json)" = 2 &&
	test "$(compact .error.details.matches refusal.json)" = \
		"[{\"line\":2,\"end_line\":2,\"before\":\"top\",\"text\":\"x = 1\",\"after\":\"mid\"},{\"line\":4,\"end_line\":4,\"before\":\"mid\",\"text\":\"x = 1\",\"after\":\"end\"}]" &&
	test "$(json_get .error.details.matches_truncated refusal.json)" = false &&
	json_get .error.details.recovery refusal.json >hint &&
	grep -F -e "--occurrence N" hint &&
	! grep -F "confirm the count" hint &&
	untouched many.txt
'

test_expect_success '--occurrence 2 replaces exactly the second listed match' '
	keeper --json file replace-text many.txt --old "x = 1" --new "x = 9" --occurrence 2 >out.json &&
	test "$(json_get .ok out.json)" = true &&
	test "$(json_get .match_count out.json)" = 2 &&
	printf "top\nx = 1\nmid\nx = 9\nend\n" >expect &&
	test_cmp expect many.txt
'

test_expect_success 'an --occurrence past the last match, with --all, or 0 is refused and writes nothing' '
	save many.txt &&
	refused 17 MATCH_COUNT_MISMATCH file replace-text many.txt --old "x" --new "y" --occurrence 3 &&
	test "$(json_get .error.details.occurrence refusal.json)" = 3 &&
	test "$(json_get .error.details.match_count refusal.json)" = 2 &&
	test "$(json_get ".error.details.matches | length" refusal.json)" = 2 &&
	refused 2 INVALID_ARGUMENT file replace-text many.txt --old "x" --new "y" --all --occurrence 1 &&
	json_get .error.message refusal.json | grep -F -e "--occurrence chooses one match" &&
	refused 2 INVALID_ARGUMENT file replace-text many.txt --old "x" --new "y" --occurrence 0 &&
	refused 17 MATCH_COUNT_MISMATCH file replace-text many.txt --old "x" --new "y" \
		--occurrence 1 --expected-match-count 3 &&
	untouched many.txt
'

test_expect_success '--occurrence counts the normalised matches that match_count counts' '
	printf "  k();\n  k();\n  k();\n  k();\n" >norm.txt &&
	refused 17 MATCH_COUNT_MISMATCH file replace-text norm.txt --old "k();
k();" --new "m();" --first &&
	test "$(compact "[.error.details.matches[] | [.line, .end_line]]" refusal.json)" = "[[1,2],[2,3],[3,4]]" &&
	keeper --json file replace-text norm.txt --old "k();
k();" --new "m();" --occurrence 2 >out.json &&
	test "$(json_get .match_stage out.json)" = normalised &&
	printf "  k();\n  m();\n  k();\n" >expect &&
	test_cmp expect norm.txt
'

# NO_MATCH

test_expect_success 'NO_MATCH shows the file line beside each line of the old text' '
	printf "fn f() {\n    let a = 1;\n    let b = 2;\n    call(a, b);\n}\n" >f.rs &&
	save f.rs &&
	refused 16 NO_MATCH file replace-text f.rs --old "let a = 1;
let b = 2;
call(b, a);" --new "x" --first &&
	test "$(compact "[.error.details.line_candidates[] | [.old_line, .line]]" refusal.json)" = "[[1,2],[2,3],[3,4]]" &&
	test "$(json_get ".error.details.line_candidates[2].text" refusal.json)" = "    call(a, b);" &&
	test "$(json_get ".error.details.line_candidates[0].similarity" refusal.json)" = 1 &&
	untouched f.rs
'

test_expect_success 'old text copied from cat -n is recognised, refused, and not stripped' '
	cat -n f.rs | sed -n "2,3p" >numbered &&
	refused 16 NO_MATCH file replace-text f.rs --old-file numbered --new "x" --first &&
	test "$(json_get .error.details.line_number_prefixes.form refusal.json)" = tab &&
	test "$(json_get .error.details.line_number_prefixes.first_number refusal.json)" = 2 &&
	test "$(json_get .error.details.line_number_prefixes.stripped_match_count refusal.json)" = 1 &&
	test "$(json_get .error.details.line_number_prefixes.stripped_match_stage refusal.json)" = exact &&
	json_get .error.details.recovery refusal.json | grep -F "without them" &&
	untouched f.rs
'

# --expected-content

test_expect_success 'a failed --expected-content shows the lines and where the expected text went' '
	printf "new\none\ntwo\n" >moved.txt &&
	save moved.txt &&
	refused 15 CONTENT_CONFLICT file replace-lines moved.txt --start 1 --end 2 \
		--replacement x --expected-content "one
two" &&
	test "$(json_get .error.details.actual_content refusal.json)" = "new
one" &&
	test "$(compact .error.details.expected_found_at refusal.json)" = "[{\"line\":2,\"end_line\":3}]" &&
	test "$(json_get .error.details.expected_found_count refusal.json)" = 1 &&
	untouched moved.txt
'

test_expect_success 'the human form prints a text of several lines under its key' '
	test_expect_code 15 keeper file replace-lines moved.txt --start 1 --end 2 \
		--replacement x --expected-content "one" 2>err &&
	grep -x "  actual_content:" err &&
	grep -x "    new" err &&
	grep -x "    one" err
'

# apply-patch

test_expect_success 'a hunk that does not apply names its first differing line and where it fits best' '
	printf "added1\nadded2\na\nb\nc changed\nd\n" >p.txt &&
	save p.txt &&
	printf -- "--- a/p.txt\n+++ b/p.txt\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n" >stale.patch &&
	refused 18 PATCH_FAILED file apply-patch stale.patch &&
	test "$(compact .error.details.mismatch refusal.json)" = "{\"hunk\":1,\"stated\":{\"line\":1,\"differing_lines\":4,\"first_difference\":{\"line\":1,\"hunk_line\":1,\"expected\":\"a\",\"actual\":\"added1\"}},\"best\":{\"line\":3,\"differing_lines\":1,\"first_difference\":{\"line\":5,\"hunk_line\":3,\"expected\":\"c\",\"actual\":\"c changed\"}},\"matches_at\":[]}" &&
	json_get .error.message refusal.json | grep -F "it fits best at line 3, where 1 of its 4 old lines differ" &&
	! json_get .error.message refusal.json | grep -F "changed" &&
	untouched p.txt
'

# --expected-hash

test_expect_success 'a stale --expected-hash shows what changed since that version' '
	keeper --json file write h.txt --content "one
two
" >out.json &&
	v1=$(json_get .after_hash out.json) &&
	printf "one\nTWO\n" >h.txt &&
	save h.txt &&
	refused 15 CONTENT_CONFLICT file write h.txt --content x --expected-hash "$v1" &&
	test "$(json_get .error.details.expected_in_store refusal.json)" = true &&
	printf -- "--- a/h.txt\n+++ b/h.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n" >expect &&
	jq -j .error.details.diff_since_expected refusal.json >actual &&
	test_cmp expect actual &&
	refused 15 CONTENT_CONFLICT file replace-lines h.txt --start 1 --end 1 --replacement 1 \
		--expected-hash "$v1" &&
	jq -j .error.details.diff_since_expected refusal.json >actual &&
	test_cmp expect actual &&
	untouched h.txt
'

test_expect_success 'a version the store never held is said to be missing' '
	printf "never stored\n" >never &&
	refused 15 CONTENT_CONFLICT file write h.txt --content x --expected-hash "$(sha never)" &&
	test "$(json_get .error.details.expected_in_store refusal.json)" = false &&
	test "$(json_get ".error.details | has(\"diff_since_expected\")" refusal.json)" = false &&
	json_get .error.details.recovery refusal.json | grep -F "not in the store"
'

test_expect_success 'a guarded write to a file that was moved says it is gone and where it went' '
	v=$(sha h.txt) &&
	keeper --json file move h.txt h2.txt >out.json &&
	op=$(json_get .operation_id out.json) &&
	refused 15 CONTENT_CONFLICT file write h.txt --content x --expected-hash "$v" &&
	test "$(json_get .error.details.actual_hash refusal.json)" = null &&
	json_get .error.message refusal.json | grep -F "no longer exists" &&
	test "$(json_get .error.details.removed_by.operation_id refusal.json)" = "$op" &&
	test "$(json_get .error.details.removed_by.destination refusal.json)" = h2.txt &&
	test ! -e h.txt
'

# PATH_NOT_FOUND

test_expect_success 'a read of a misspelt path suggests the near name and the same name elsewhere' '
	mkdir -p src docs/old &&
	echo lib >src/lib.rs &&
	echo notes >docs/old/notes.md &&
	refused 3 PATH_NOT_FOUND --naming src/lbi.rs file read src/lbi.rs &&
	test "$(compact .error.details.similar_paths refusal.json)" = "[\"src/lib.rs\"]" &&
	json_get .error.details.recovery refusal.json | grep -F "src/lib.rs" &&
	refused 3 PATH_NOT_FOUND file info notes.md &&
	test "$(compact .error.details.same_name_elsewhere refusal.json)" = "[\"docs/old/notes.md\"]" &&
	test "$(json_get .error.details.same_name_search_complete refusal.json)" = true
'

test_expect_success 'an edit of a moved file names the move and its destination' '
	keeper --json file move src/lib.rs src/core.rs >out.json &&
	op=$(json_get .operation_id out.json) &&
	refused 3 PATH_NOT_FOUND file replace-text src/lib.rs --old lib --new LIB --first &&
	test "$(json_get .error.details.removed_by.operation_id refusal.json)" = "$op" &&
	test "$(json_get .error.details.removed_by.kind refusal.json)" = move &&
	test "$(json_get .error.details.removed_by.destination refusal.json)" = src/core.rs &&
	json_get .error.details.recovery refusal.json | grep -F "src/core.rs"
'

test_expect_success 'file exists on a missing path stays a plain answer' '
	test_expect_code 3 keeper --json file exists src/lib.rs >out.json &&
	test "$(compact . out.json)" = "{\"ok\":true,\"workspace\":\"test\",\"path\":\"src/lib.rs\",\"exists\":false,\"kind\":null}"
'

test_done
