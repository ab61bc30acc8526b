#!/bin/sh
test_description='keeper file replace-lines, insert-lines and delete-lines: 1-based inclusive ranges

Line numbers are 1-based and both ends are included. A range that leaves the file is rejected
with INVALID_ARGUMENT (exit 2, details.line_count), never clamped; line 0 and an end before the
start are rejected too. insert-lines goes before or after --line N, or with --position end after
the last line; end with a --line, and before or after without one, are refused. Edits at the
first and the last line work. New lines take the file'"'"'s newline convention (CRLF stays
CRLF), the byte-order mark stays, and a file without a final newline still has none after its
last line is replaced, appended to or deleted, unless the new last line is empty (it would
vanish without one). --expected-content guards the range and
--expected-hash the file (CONTENT_CONFLICT, exit 15); --dry-run prints a unified diff and
writes nothing; every edit is an operation that history undo reverts to the exact old bytes.'
. ./test-lib.sh

# edited COMMAND FILE ARGS...: `keeper --json file COMMAND FILE ARGS...` succeeds; its result,
# left in out.json, is a committed operation whose after_hash is FILE's new content.
edited () {
	cmd=$1 file=$2
	shift 2
	keeper --json file "$cmd" "$file" "$@" >out.json &&
	test "$(json_get .ok out.json)" = true &&
	json_get .operation_id out.json | grep -E "^op_[0-9a-f]{16}$" >/dev/null &&
	test "$(json_get .after_hash out.json)" = "$(sha "$file")" || {
		echo >&2 "$cmd $file $* did not commit:"
		cat >&2 out.json
		return 1
	}
}

# five FILE: writes the lines one to five, LF, with a final newline, to FILE.
five () {
	printf "one\ntwo\nthree\nfour\nfive\n" >"$1"
}

# replace-lines

test_expect_success 'replace-lines --start 2 --end 3 replaces lines 2 and 3, both included' '
	five r.txt &&
	edited replace-lines r.txt --start 2 --end 3 --replacement "TWO
THREE" &&
	printf "one\nTWO\nTHREE\nfour\nfive\n" >expect &&
	cmp expect r.txt
'

test_expect_success 'replace-lines may replace one line with several' '
	five r.txt &&
	edited replace-lines r.txt --start 3 --end 3 --replacement "3a
3b
3c" &&
	printf "one\ntwo\n3a\n3b\n3c\nfour\nfive\n" >expect &&
	cmp expect r.txt
'

test_expect_success 'a trailing newline in the replacement adds no empty line' '
	five r.txt &&
	edited replace-lines r.txt --start 2 --end 2 --replacement "TWO
" &&
	printf "one\nTWO\nthree\nfour\nfive\n" >expect &&
	cmp expect r.txt
'

test_expect_success 'replace-lines at the first line' '
	five r.txt &&
	edited replace-lines r.txt --start 1 --end 1 --replacement "ONE" &&
	printf "ONE\ntwo\nthree\nfour\nfive\n" >expect &&
	cmp expect r.txt
'

test_expect_success 'replace-lines at the last line keeps the final newline' '
	five r.txt &&
	edited replace-lines r.txt --start 5 --end 5 --replacement "FIVE" &&
	printf "one\ntwo\nthree\nfour\nFIVE\n" >expect &&
	cmp expect r.txt
'

test_expect_success 'replace-lines over the whole file' '
	five r.txt &&
	edited replace-lines r.txt --start 1 --end 5 --replacement "only" &&
	printf "only\n" >expect &&
	cmp expect r.txt
'

test_expect_success 'replace-lines with an empty replacement removes the range' '
	five r.txt &&
	edited replace-lines r.txt --start 2 --end 4 --replacement "" &&
	printf "one\nfive\n" >expect &&
	cmp expect r.txt
'

test_expect_success 'replacement text with CRLF endings is written in an LF file'"'"'s convention' '
	five r.txt &&
	cr=$(printf "\r") &&
	edited replace-lines r.txt --start 2 --end 2 --replacement "a$cr
b$cr
" &&
	printf "one\na\nb\nthree\nfour\nfive\n" >expect &&
	cmp expect r.txt
'

# insert-lines

test_expect_success 'insert-lines --position before --line 1 inserts at the start of the file' '
	five i.txt &&
	edited insert-lines i.txt --position before --line 1 --content "zero" &&
	printf "zero\none\ntwo\nthree\nfour\nfive\n" >expect &&
	cmp expect i.txt
'

test_expect_success 'insert-lines --position before --line 3 puts the lines above line 3' '
	five i.txt &&
	edited insert-lines i.txt --position before --line 3 --content "2.5a
2.5b" &&
	printf "one\ntwo\n2.5a\n2.5b\nthree\nfour\nfive\n" >expect &&
	cmp expect i.txt
'

test_expect_success 'insert-lines --position after --line 3 puts the lines below line 3' '
	five i.txt &&
	edited insert-lines i.txt --position after --line 3 --content "3.5" &&
	printf "one\ntwo\nthree\n3.5\nfour\nfive\n" >expect &&
	cmp expect i.txt
'

test_expect_success 'insert-lines --position after the last line appends' '
	five i.txt &&
	edited insert-lines i.txt --position after --line 5 --content "six" &&
	printf "one\ntwo\nthree\nfour\nfive\nsix\n" >expect &&
	cmp expect i.txt
'

test_expect_success 'insert-lines --position end without --line appends after the last line' '
	five i.txt &&
	edited insert-lines i.txt --position end --content "six
seven" &&
	printf "one\ntwo\nthree\nfour\nfive\nsix\nseven\n" >expect &&
	cmp expect i.txt
'

test_expect_success 'insert-lines --position end into an empty file' '
	: >empty.txt &&
	edited insert-lines empty.txt --position end --content "first" &&
	printf "first\n" >expect &&
	cmp expect empty.txt
'

test_expect_success 'insert-lines --position end with a --line is refused' '
	five i.txt &&
	save i.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines i.txt --position end --line 5 --content x &&
	untouched i.txt
'

test_expect_success 'insert-lines --position before without --line is refused' '
	save i.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines i.txt --position before --content x &&
	untouched i.txt
'

test_expect_success 'insert-lines --position after without --line is refused' '
	save i.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines i.txt --position after --content x &&
	untouched i.txt
'

test_expect_success 'insert-lines after line N+1 is out of range, not a synonym for the end' '
	save i.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines i.txt --position after --line 6 --content x &&
	test "$(json_get .error.details.line_count refusal.json)" = 5 &&
	untouched i.txt
'

test_expect_success 'the refusal names the anchor as a line, not as the start of a range' '
	json_get .error.message refusal.json >message &&
	grep "^line 6 is outside the file, which has 5 lines" message &&
	! grep -w start message
'

test_expect_success 'insert-lines before line N+1 is out of range too' '
	save i.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines i.txt --position before --line 6 --content x &&
	test "$(json_get .error.details.line_count refusal.json)" = 5 &&
	untouched i.txt
'

test_expect_success 'insert-lines --line 0 is refused' '
	save i.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines i.txt --position before --line 0 --content x &&
	untouched i.txt
'

test_expect_success 'insert-lines before line 1 of an empty file is out of range' '
	: >empty2.txt &&
	save empty2.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines empty2.txt --position before --line 1 --content x &&
	test "$(json_get .error.details.line_count refusal.json)" = 0 &&
	untouched empty2.txt
'

test_expect_success 'insert-lines with empty content is refused; one line end is an empty line' '
	save i.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines i.txt --position end --content "" &&
	test "$(json_get .error.details.reason refusal.json)" = nothing_to_insert &&
	untouched i.txt &&
	printf "a\nb\n" >one-empty.txt &&
	edited insert-lines one-empty.txt --position end --content "
" &&
	printf "a\nb\n\n" >expect &&
	cmp expect one-empty.txt
'

# delete-lines

test_expect_success 'delete-lines --start 2 --end 3 removes lines 2 and 3, both included' '
	five d.txt &&
	edited delete-lines d.txt --start 2 --end 3 &&
	printf "one\nfour\nfive\n" >expect &&
	cmp expect d.txt
'

test_expect_success 'delete-lines at the first line' '
	five d.txt &&
	edited delete-lines d.txt --start 1 --end 1 &&
	printf "two\nthree\nfour\nfive\n" >expect &&
	cmp expect d.txt
'

test_expect_success 'delete-lines at the last line keeps the final newline' '
	five d.txt &&
	edited delete-lines d.txt --start 5 --end 5 &&
	printf "one\ntwo\nthree\nfour\n" >expect &&
	cmp expect d.txt
'

test_expect_success 'delete-lines of every line leaves an empty file' '
	five d.txt &&
	edited delete-lines d.txt --start 1 --end 5 &&
	test -f d.txt &&
	test ! -s d.txt
'

# ranges are checked, never clamped

test_expect_success 'replace-lines with an end beyond the file is INVALID_ARGUMENT with line_count, not clamped' '
	five range.txt &&
	save range.txt &&
	refused 2 INVALID_ARGUMENT file replace-lines range.txt --start 4 --end 6 --replacement X &&
	test "$(json_get .error.details.line_count refusal.json)" = 5 &&
	test "$(json_get .error.details.path refusal.json)" = range.txt &&
	untouched range.txt
'

test_expect_success 'replace-lines with a start beyond the file is refused with line_count' '
	save range.txt &&
	refused 2 INVALID_ARGUMENT file replace-lines range.txt --start 6 --end 6 --replacement X &&
	test "$(json_get .error.details.line_count refusal.json)" = 5 &&
	untouched range.txt
'

test_expect_success 'replace-lines --start 0 is refused: lines are 1-based' '
	save range.txt &&
	refused 2 INVALID_ARGUMENT file replace-lines range.txt --start 0 --end 1 --replacement X &&
	untouched range.txt
'

test_expect_success 'replace-lines with an end before the start is refused' '
	save range.txt &&
	refused 2 INVALID_ARGUMENT file replace-lines range.txt --start 3 --end 2 --replacement X &&
	untouched range.txt
'

test_expect_success 'delete-lines with an end beyond the file is refused with line_count, not clamped' '
	save range.txt &&
	refused 2 INVALID_ARGUMENT file delete-lines range.txt --start 5 --end 9 &&
	test "$(json_get .error.details.line_count refusal.json)" = 5 &&
	untouched range.txt
'

test_expect_success 'delete-lines --start 0 and an end before the start are refused' '
	save range.txt &&
	refused 2 INVALID_ARGUMENT file delete-lines range.txt --start 0 --end 2 &&
	refused 2 INVALID_ARGUMENT file delete-lines range.txt --start 2 --end 1 &&
	untouched range.txt
'

test_expect_success 'the line count of a file without a final newline counts its last line' '
	printf "a\nb\nc" >count.txt &&
	save count.txt &&
	refused 2 INVALID_ARGUMENT file delete-lines count.txt --start 4 --end 4 &&
	test "$(json_get .error.details.line_count refusal.json)" = 3 &&
	untouched count.txt
'

# CRLF

test_expect_success 'replace-lines in a CRLF file writes the new lines with CRLF' '
	printf "a\r\nb\r\nc\r\n" >crlf.txt &&
	edited replace-lines crlf.txt --start 2 --end 2 --replacement "B1
B2" &&
	printf "a\r\nB1\r\nB2\r\nc\r\n" >expect &&
	cmp expect crlf.txt
'

test_expect_success 'insert-lines in a CRLF file writes the inserted lines with CRLF' '
	printf "a\r\nb\r\n" >crlf.txt &&
	edited insert-lines crlf.txt --position after --line 1 --content "mid1
mid2" &&
	edited insert-lines crlf.txt --position end --content "last" &&
	printf "a\r\nmid1\r\nmid2\r\nb\r\nlast\r\n" >expect &&
	cmp expect crlf.txt
'

test_expect_success 'delete-lines in a CRLF file leaves the other lines'"'"' CRLF untouched' '
	printf "a\r\nb\r\nc\r\n" >crlf.txt &&
	edited delete-lines crlf.txt --start 2 --end 2 &&
	printf "a\r\nc\r\n" >expect &&
	cmp expect crlf.txt
'

# BOM

test_expect_success 'replace-lines of line 1 keeps the byte-order mark' '
	printf "\357\273\277first\nsecond\n" >bom.txt &&
	edited replace-lines bom.txt --start 1 --end 1 --replacement "FIRST" &&
	printf "\357\273\277FIRST\nsecond\n" >expect &&
	cmp expect bom.txt
'

test_expect_success 'insert-lines before line 1 keeps the byte-order mark at the start of the file' '
	printf "\357\273\277first\nsecond\n" >bom.txt &&
	edited insert-lines bom.txt --position before --line 1 --content "zeroth" &&
	printf "\357\273\277zeroth\nfirst\nsecond\n" >expect &&
	cmp expect bom.txt
'

test_expect_success 'delete-lines of line 1 keeps the byte-order mark' '
	printf "\357\273\277first\nsecond\n" >bom.txt &&
	edited delete-lines bom.txt --start 1 --end 1 &&
	printf "\357\273\277second\n" >expect &&
	cmp expect bom.txt
'

# final-newline state

test_expect_success 'replacing the last line of a file without a final newline adds none' '
	printf "l1\nl2\nl3" >nf.txt &&
	edited replace-lines nf.txt --start 3 --end 3 --replacement "L3
" &&
	printf "l1\nl2\nL3" >expect &&
	cmp expect nf.txt
'

test_expect_success 'insert-lines --position end on a file without a final newline: the new last line has none' '
	printf "l1\nl2\nl3" >nf.txt &&
	edited insert-lines nf.txt --position end --content "l4" &&
	printf "l1\nl2\nl3\nl4" >expect &&
	cmp expect nf.txt
'

test_expect_success 'deleting the last line of a file without a final newline leaves none' '
	printf "l1\nl2\nl3" >nf.txt &&
	edited delete-lines nf.txt --start 3 --end 3 &&
	printf "l1\nl2" >expect &&
	cmp expect nf.txt
'

test_expect_success 'inserting before the last line of a file without a final newline keeps it without one' '
	printf "l1\nl2\nl3" >nf.txt &&
	edited insert-lines nf.txt --position before --line 3 --content "l2.5" &&
	printf "l1\nl2\nl2.5\nl3" >expect &&
	cmp expect nf.txt
'

test_expect_success 'a CRLF file without a final newline keeps both through an append and a delete' '
	printf "a\r\nb\r\nc" >crlfnf.txt &&
	edited insert-lines crlfnf.txt --position end --content "d" &&
	printf "a\r\nb\r\nc\r\nd" >expect &&
	cmp expect crlfnf.txt &&
	edited delete-lines crlfnf.txt --start 4 --end 4 &&
	printf "a\r\nb\r\nc" >expect &&
	cmp expect crlfnf.txt
'

# An empty line without a newline is no bytes: an empty new last line keeps its newline.

test_expect_success 'deleting the last line after an empty line of a file without a final newline keeps the empty line' '
	printf "a\n\nb" >nf.txt &&
	edited delete-lines nf.txt --start 3 --end 3 &&
	printf "a\n\n" >expect &&
	cmp expect nf.txt &&
	test "$(json_get ".diffs[0].lines_added" out.json)" = 0 &&
	test "$(json_get ".diffs[0].lines_removed" out.json)" = 1
'

test_expect_success 'appending an empty line to a file without a final newline keeps the empty line' '
	printf "a" >nf.txt &&
	edited insert-lines nf.txt --position end --content "
" &&
	printf "a\n\n" >expect &&
	cmp expect nf.txt
'

test_expect_success 'replacing the last line of a file without a final newline with an empty line keeps it' '
	printf "a\nb" >nf.txt &&
	edited replace-lines nf.txt --start 2 --end 2 --replacement "
" &&
	printf "a\n\n" >expect &&
	cmp expect nf.txt &&
	test "$(json_get ".diffs[0].lines_added" out.json)" = 1 &&
	test "$(json_get ".diffs[0].lines_removed" out.json)" = 1
'

test_expect_success 'inserting two empty lines after the only line of a file without a final newline keeps both' '
	printf "a" >nf.txt &&
	edited insert-lines nf.txt --position after --line 1 --content "

" &&
	printf "a\n\n\n" >expect &&
	cmp expect nf.txt
'

test_expect_success 'in a lone-CR file, deleting the last line after an empty line keeps the empty line' '
	printf "a\r\rb" >nf.txt &&
	edited delete-lines nf.txt --start 3 --end 3 &&
	printf "a\r\r" >expect &&
	cmp expect nf.txt
'

test_expect_success 'a file that is only a BOM has no line 1 to edit, and an append keeps the BOM' '
	printf "\357\273\277" >only-bom.txt &&
	keeper --json file info only-bom.txt >info.json &&
	test "$(json_get .line_count info.json)" = 0 &&
	refused 2 INVALID_ARGUMENT file delete-lines only-bom.txt --start 1 --end 1 &&
	edited insert-lines only-bom.txt --position end --content X &&
	printf "\357\273\277X\n" >expect &&
	cmp expect only-bom.txt
'

# guards

test_expect_success 'replace-lines --expected-content equal to the range lets the edit apply' '
	five g.txt &&
	edited replace-lines g.txt --start 2 --end 3 --expected-content "two
three" --replacement "2-3" &&
	printf "one\n2-3\nfour\nfive\n" >expect &&
	cmp expect g.txt
'

test_expect_success 'replace-lines --expected-content differing from the range is CONTENT_CONFLICT (exit 15)' '
	five g.txt &&
	save g.txt &&
	refused 15 CONTENT_CONFLICT file replace-lines g.txt --start 2 --end 3 --expected-content "two
four" --replacement X &&
	test "$(json_get .error.details.path refusal.json)" = g.txt &&
	untouched g.txt
'

test_expect_success '--expected-content must cover the whole range, not a prefix of it' '
	save g.txt &&
	refused 15 CONTENT_CONFLICT file delete-lines g.txt --start 2 --end 3 --expected-content "two" &&
	untouched g.txt
'

test_expect_success 'delete-lines --expected-content guards the deleted lines' '
	edited delete-lines g.txt --start 4 --end 5 --expected-content "four
five
" &&
	printf "one\ntwo\nthree\n" >expect &&
	cmp expect g.txt
'

test_expect_success '--expected-content with an empty line more than the range is CONTENT_CONFLICT' '
	five g.txt &&
	save g.txt &&
	refused 15 CONTENT_CONFLICT file delete-lines g.txt --start 2 --end 2 --expected-content "two


" &&
	test "$(json_get .error.details.actual_content refusal.json)" = two &&
	untouched g.txt
'

test_expect_success 'a range ending in an empty line is guarded by the text a read of it gives' '
	printf "one\ntwo\n\nthree\n" >e.txt &&
	keeper --json file read e.txt --from-line 2 --to-line 3 >read.json &&
	range=$(jq -j .content read.json; echo .) &&
	test "$range" = "$(printf "two\n\n.")" &&
	range=${range%.} &&
	edited replace-lines e.txt --start 2 --end 3 --expected-content "$range" --replacement X &&
	printf "one\nX\nthree\n" >expect &&
	cmp expect e.txt
'

test_expect_success 'insert-lines --expected-content guards the line it inserts next to' '
	five g.txt &&
	save g.txt &&
	refused 15 CONTENT_CONFLICT file insert-lines g.txt --position after --line 2 \
		--expected-content "three" --content X &&
	untouched g.txt &&
	edited insert-lines g.txt --position after --line 2 --expected-content "two" --content X &&
	printf "one\ntwo\nX\nthree\nfour\nfive\n" >expect &&
	cmp expect g.txt
'

test_expect_success 'insert-lines --position end does not silently ignore a wrong --expected-content' '
	five g.txt &&
	save g.txt &&
	test_must_fail keeper --json file insert-lines g.txt --position end \
		--expected-content "not the last line" --content X >refusal.json &&
	jq -e ".error.code == \"CONTENT_CONFLICT\" or .error.code == \"INVALID_ARGUMENT\"" \
		refusal.json &&
	untouched g.txt
'

test_expect_success '--expected-content in a CRLF file is compared line by line, whatever the caller'"'"'s newlines' '
	printf "a\r\nb\r\nc\r\n" >gcrlf.txt &&
	edited replace-lines gcrlf.txt --start 1 --end 2 --expected-content "a
b" --replacement "ab" &&
	printf "ab\r\nc\r\n" >expect &&
	cmp expect gcrlf.txt
'

test_expect_success '--expected-hash equal to the file'"'"'s hash lets the edit apply' '
	five h.txt &&
	edited delete-lines h.txt --start 1 --end 1 --expected-hash "$(sha h.txt)" &&
	printf "two\nthree\nfour\nfive\n" >expect &&
	cmp expect h.txt
'

test_expect_success 'a stale --expected-hash is CONTENT_CONFLICT for every line command, which change nothing' '
	five stale.txt &&
	sha stale.txt >stale.hash &&
	edited replace-lines h.txt --start 1 --end 1 --replacement TWO &&
	save h.txt &&
	refused 15 CONTENT_CONFLICT file replace-lines h.txt --start 1 --end 1 --replacement x \
		--expected-hash "$(cat stale.hash)" &&
	test "$(json_get .error.details.expected_hash refusal.json)" = "$(cat stale.hash)" &&
	test "$(json_get .error.details.actual_hash refusal.json)" = "$(sha h.txt)" &&
	refused 15 CONTENT_CONFLICT file insert-lines h.txt --position end --content x \
		--expected-hash "$(cat stale.hash)" &&
	refused 15 CONTENT_CONFLICT file delete-lines h.txt --start 1 --end 1 \
		--expected-hash "$(cat stale.hash)" &&
	untouched h.txt
'

# other fidelity

test_expect_success 'line edits keep the file mode' '
	printf "#!/bin/sh\necho a\n" >mode.sh &&
	chmod 705 mode.sh &&
	edited insert-lines mode.sh --position end --content "echo b" &&
	edited replace-lines mode.sh --start 2 --end 2 --replacement "echo A" &&
	edited delete-lines mode.sh --start 3 --end 3 &&
	test "$(stat -c %a mode.sh)" = 705 &&
	printf "#!/bin/sh\necho A\n" >expect &&
	cmp expect mode.sh
'

test_expect_success 'a binary file is BINARY_CONTENT_REFUSED (exit 20) for every line command' '
	printf "a\nb\000\nc\n" >blob.bin &&
	save blob.bin &&
	refused 20 BINARY_CONTENT_REFUSED file replace-lines blob.bin --start 1 --end 1 --replacement x &&
	refused 20 BINARY_CONTENT_REFUSED file insert-lines blob.bin --position end --content x &&
	refused 20 BINARY_CONTENT_REFUSED file delete-lines blob.bin --start 1 --end 1 &&
	untouched blob.bin
'

# dry run

test_expect_success 'replace-lines --dry-run prints a unified diff and writes nothing' '
	five dry.txt &&
	tree_state >"$TRASH/before" &&
	keeper file replace-lines dry.txt --start 2 --end 2 --replacement TWO --dry-run \
		>"$TRASH/diff" &&
	tree_state >"$TRASH/after" &&
	test_cmp "$TRASH/before" "$TRASH/after" &&
	cat >expect <<-\EOF &&
	--- a/dry.txt
	+++ b/dry.txt
	@@ -1,5 +1,5 @@
	 one
	-two
	+TWO
	 three
	 four
	 five
	EOF
	test_cmp expect "$TRASH/diff"
'

test_expect_success 'insert-lines --dry-run prints a unified diff and writes nothing' '
	tree_state >"$TRASH/before" &&
	keeper file insert-lines dry.txt --position end --content six --dry-run >"$TRASH/diff" &&
	tree_state >"$TRASH/after" &&
	test_cmp "$TRASH/before" "$TRASH/after" &&
	grep -x "+six" "$TRASH/diff" &&
	grep -x -e "--- a/dry.txt" "$TRASH/diff"
'

test_expect_success 'delete-lines --dry-run prints a unified diff and writes nothing' '
	tree_state >"$TRASH/before" &&
	keeper file delete-lines dry.txt --start 1 --end 2 --dry-run >"$TRASH/diff" &&
	tree_state >"$TRASH/after" &&
	test_cmp "$TRASH/before" "$TRASH/after" &&
	grep -x -e "-one" "$TRASH/diff" &&
	grep -x -e "-two" "$TRASH/diff" &&
	! grep "^+[^+]" "$TRASH/diff"
'

test_expect_success '--dry-run --json predicts the hash a real run then produces' '
	printf "x\r\ny\r\nz" >drypred.txt &&
	keeper --json file insert-lines drypred.txt --position end --content w --dry-run >dry.json &&
	test "$(json_get .dry_run dry.json)" = true &&
	test "$(json_get .operation_id dry.json)" = null &&
	json_get .predicted_after_hash dry.json >predicted &&
	edited insert-lines drypred.txt --position end --content w &&
	test "$(cat predicted)" = "$(sha drypred.txt)"
'

test_expect_success 'a dry run still rejects an out-of-range line' '
	save dry.txt &&
	refused 2 INVALID_ARGUMENT file delete-lines dry.txt --start 6 --end 6 --dry-run &&
	untouched dry.txt
'

test_expect_success 'deleting lines that would bring a NUL the file holds into its first 8 KiB is refused, and says so' '
	awk "BEGIN { for (i = 0; i < 9000; i++) printf \"L\"; printf \"\\n\" }" >far-nul.txt &&
	printf "b\000c\nd\n" >>far-nul.txt &&
	save far-nul.txt &&
	refused 2 INVALID_ARGUMENT file delete-lines far-nul.txt --start 1 --end 1 &&
	json_get ".error.details.reason == \"would_become_binary\" and .error.details.byte == 1" refusal.json &&
	json_get ".error.message | contains(\"the file holds further on\")" refusal.json &&
	json_get ".error.details.recovery | contains(\"remove fewer lines\")" refusal.json &&
	untouched far-nul.txt
'

test_expect_success 'an edit that would start a file without a BOM with U+FEFF is refused, writing nothing' '
	printf "a\n\357\273\277b\n" >feff.txt &&
	save feff.txt &&
	refused 2 INVALID_ARGUMENT file delete-lines feff.txt --start 1 --end 1 &&
	test "$(json_get .error.details.reason refusal.json)" = bom_would_appear &&
	untouched feff.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines feff.txt --position before --line 1 --content "$(printf "\357\273\277x")" &&
	untouched feff.txt &&
	refused 2 INVALID_ARGUMENT file replace-text feff.txt --old a --new "$(printf "\357\273\277a")" --first &&
	untouched feff.txt
'

test_expect_success 'a file with a BOM may start its text with U+FEFF: the BOM stays and the character is text' '
	printf "\357\273\277a\n\357\273\277b\n" >feff2.txt &&
	edited delete-lines feff2.txt --start 1 --end 1 &&
	printf "\357\273\277\357\273\277b\n" >expect &&
	cmp expect feff2.txt
'

test_expect_success 'new text that would give a file with a BOM a second one is refused, writing nothing' '
	printf "\357\273\277one\ntwo\n" >bom2.txt &&
	save bom2.txt &&
	refused 2 INVALID_ARGUMENT file replace-lines bom2.txt --start 1 --end 1 --replacement "$(printf "\357\273\277ONE")" &&
	test "$(json_get .error.details.reason refusal.json)" = bom_would_double &&
	untouched bom2.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines bom2.txt --position before --line 1 --content "$(printf "\357\273\277zero")" &&
	untouched bom2.txt &&
	edited replace-lines bom2.txt --start 1 --end 1 --replacement ONE &&
	printf "\357\273\277ONE\ntwo\n" >expect &&
	cmp expect bom2.txt
'

test_expect_success 'new text of U+FEFF in front of the old text is refused too: the file'"'"'s own mark is no U+FEFF of its text' '
	printf "\357\273\277a\n" >bom4.txt &&
	save bom4.txt &&
	refused 2 INVALID_ARGUMENT file replace-lines bom4.txt --start 1 --end 1 --replacement "$(printf "\357\273\277a")" &&
	test "$(json_get .error.details.reason refusal.json)" = bom_would_double &&
	untouched bom4.txt &&
	refused 2 INVALID_ARGUMENT file replace-text bom4.txt --old a --new "$(printf "\357\273\277a")" --first &&
	untouched bom4.txt &&
	printf "\357\273\277\357\273\277b" >bom5.txt &&
	save bom5.txt &&
	refused 2 INVALID_ARGUMENT file replace-lines bom5.txt --start 1 --end 1 --replacement "$(printf "\357\273\277\357\273\277b")" &&
	test "$(json_get .error.details.reason refusal.json)" = bom_would_double &&
	untouched bom5.txt
'

test_expect_success 'in a file that starts with two marks, new text that starts line 1 with U+FEFF is refused; other lines are edited' '
	printf "\357\273\277\357\273\277a\nb\n" >bom3.txt &&
	save bom3.txt &&
	refused 2 INVALID_ARGUMENT file insert-lines bom3.txt --position before --line 1 --content "$(printf "\357\273\277Q")" &&
	test "$(json_get .error.details.reason refusal.json)" = bom_would_double &&
	untouched bom3.txt &&
	refused 2 INVALID_ARGUMENT file replace-lines bom3.txt --start 1 --end 1 --replacement "$(printf "\357\273\277z")" &&
	untouched bom3.txt &&
	refused 2 INVALID_ARGUMENT file replace-text bom3.txt --old a --new "$(printf "\357\273\277Q\n\357\273\277a")" --first &&
	untouched bom3.txt &&
	edited replace-lines bom3.txt --start 2 --end 2 --replacement c &&
	printf "\357\273\277\357\273\277a\nc\n" >expect &&
	cmp expect bom3.txt
'

# undo

test_expect_success 'history undo of replace-lines restores the exact old bytes' '
	printf "\357\273\277a\r\nb\r\nc" >u.txt &&
	cp u.txt u.orig &&
	edited replace-lines u.txt --start 3 --end 3 --replacement "C1
C2" &&
	printf "\357\273\277a\r\nb\r\nC1\r\nC2" >expect &&
	cmp expect u.txt &&
	keeper --json history undo "$(json_get .operation_id out.json)" >undo.json &&
	test "$(json_get .ok undo.json)" = true &&
	cmp u.orig u.txt
'

test_expect_success 'history undo of insert-lines restores the exact old bytes' '
	edited insert-lines u.txt --position end --content "d" &&
	keeper --json history undo "$(json_get .operation_id out.json)" >undo.json &&
	cmp u.orig u.txt
'

test_expect_success 'history undo of delete-lines restores the exact old bytes' '
	edited delete-lines u.txt --start 2 --end 3 &&
	printf "\357\273\277a" >expect &&
	cmp expect u.txt &&
	keeper --json history undo "$(json_get .operation_id out.json)" >undo.json &&
	cmp u.orig u.txt
'

test_expect_success 'each line edit is recorded with its own kind' '
	keeper --json history list --path u.txt --limit 10 >list.json &&
	jq -r ".. | objects | select(has(\"kind\")) | .kind" list.json | sort -u >kinds &&
	grep -x replace_lines kinds &&
	grep -x insert_lines kinds &&
	grep -x delete_lines kinds
'

test_done
