#!/bin/sh
test_description='keeper file grep: literal by default, bounded, in walk order, honouring ignore rules

The query is literal text unless --regex is given (then Rust regex syntax; a bad one is
INVALID_PATTERN). Each result has the workspace-relative path, the 1-based line, the 1-based
column in characters of the first match, and the matching line without its terminator; a line
over 500 characters is shown as a 500-character window around the match (text_truncated, and
text_start_column says where the window starts). At most 200 results per request, with truncated
when more match; asking for more is LIMIT_EXCEEDED. Binary files, and files that are not valid
text in the encoding (UTF-8 unless --encoding names another), are skipped and counted, never
shown with replacement characters. .gitignore rules are honoured; .git/ and .filekeeper/ are
never searched; directories below max_recursion_depth are not searched, and depth_limited says
so. Results come in walk order: sorted paths, then line numbers. Without --json each result is
one line path:line:col:text.'
. ./test-lib.sh

CODE=$TRASH/code
BULK=$TRASH/bulk

# matches FILE: one line per result of the grep in FILE: path:line:column.
matches () {
	jq -r '.matches[] | "\(.path):\(.line):\(.column)"' "$1"
}

# repeat N CHAR: CHAR repeated N times, no newline.
repeat () {
	awk -v n="$1" -v c="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", c }'
}

test_expect_success 'setup: a workspace "code" with text, CRLF, CR, BOM, multibyte, long, binary and ignored files' '
	mkdir -p "$CODE/docs" "$CODE/sub" "$OUTSIDE/private" &&
	(
		cd "$CODE" &&
		git init -q . &&
		printf "*.log\n" >.gitignore &&
		printf "needle in an ignored log\n" >build.log &&
		printf "\357\273\277pin at the start\n" >bom.txt &&
		printf "Needle upper\nneedle lower\nNEEDLE caps\n" >case.txt &&
		printf "first\rsecond pin\rthird\r" >cr.txt &&
		printf "first needle\r\nsecond\r\n" >crlf.txt &&
		printf "# Readme\nthe needle in markdown\n" >docs/readme.md &&
		printf "xa.b(y\naxb(\nplain a.b( again\n" >lit.txt &&
		{ repeat 2000 x && printf " needle\n"; } >long.txt &&
		printf "h\303\251llo needle\n\360\237\230\200 needle twice needle\n" >multi.txt &&
		printf "no newline, needle" >nonl.txt &&
		printf "needle\000binary\n" >bin.dat &&
		printf "!keep.log\n" >sub/.gitignore &&
		printf "needle kept\n" >sub/keep.log &&
		printf "needle dropped\n" >sub/drop.log &&
		printf "needle in .git\n" >.git/needle.txt &&
		ln -s "$OUTSIDE/private" link-out &&
		ln -s "$OUTSIDE/private/secret.txt" link-secret
	) &&
	printf "needle outside\n" >"$OUTSIDE/private/secret.txt" &&
	keeper workspace create code "$CODE" >/dev/null
'

test_expect_success 'setup: the expected results of grep . needle, in walk order' '
	{
		echo "case.txt:2:1:needle lower" &&
		echo "crlf.txt:1:7:first needle" &&
		echo "docs/readme.md:2:5:the needle in markdown" &&
		printf "long.txt:1:2002:%s needle\n" "$(repeat 493 x)" &&
		printf "multi.txt:1:7:h\303\251llo needle\n" &&
		printf "multi.txt:2:3:\360\237\230\200 needle twice needle\n" &&
		echo "nonl.txt:1:13:no newline, needle" &&
		echo "sub/keep.log:1:1:needle kept"
	} >expect.needle
'

test_expect_success 'grep prints path:line:col:text, sorted by path then line' '
	keeper --workspace code file grep . needle >out 2>err &&
	test_cmp expect.needle out
'

test_expect_success 'grep --json carries path, line, column, text and text_truncated per result' '
	keeper --workspace code --json file grep . needle >out &&
	json_get ".ok" out &&
	test "$(json_get ".matches | length" out)" = 8 &&
	test "$(json_get ".matches[1] | keys_unsorted | sort | join(\",\")" out)" = column,line,path,text,text_start_column,text_truncated &&
	test "$(json_get ".matches[2].path" out)" = docs/readme.md &&
	test "$(json_get ".matches[2].line" out)" = 2 &&
	test "$(json_get ".matches[2].column" out)" = 5 &&
	test "$(json_get ".matches[2].text" out)" = "the needle in markdown" &&
	test "$(json_get ".matches[2].text_truncated" out)" = false &&
	test "$(json_get ".truncated" out)" = false &&
	test "$(json_get ".query" out)" = needle
'

test_expect_success 'grep --json and the human output agree' '
	keeper --workspace code --json file grep . needle >out &&
	jq -r ".matches[] | \"\(.path):\(.line):\(.column):\(.text)\"" out >actual &&
	test_cmp expect.needle actual
'

test_expect_success 'grep counts files searched, skipped (binary) and ignored' '
	keeper --workspace code --json file grep . needle >out &&
	test "$(json_get ".files_searched" out)" = 13 &&
	test "$(json_get ".files_skipped" out)" = 1 &&
	test "$(json_get ".ignored" out)" = 2
'

test_expect_success 'grep is literal by default: regex metacharacters match themselves' '
	keeper --workspace code --json file grep lit.txt "a.b(" >out &&
	printf "lit.txt:1:2\nlit.txt:3:7\n" >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'grep --regex interprets the query as a regular expression' '
	keeper --workspace code --json file grep lit.txt "a.b\(" --regex >out &&
	printf "lit.txt:1:2\nlit.txt:2:1\nlit.txt:3:7\n" >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'grep --regex: ^ anchors at the start of every line, not only the file' '
	keeper --workspace code --json file grep docs/readme.md "^the" --regex >out &&
	echo docs/readme.md:2:1 >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'grep --regex: $ anchors at the end of every line' '
	keeper --workspace code --json file grep case.txt "lower$" --regex >out &&
	echo case.txt:2:8 >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'grep --regex never matches across a line break' '
	keeper --workspace code --json file grep docs/readme.md "Readme\s+the" --regex >out &&
	test "$(json_get ".matches | length" out)" = 0
'

test_expect_success 'grep --regex reports every matching line, even for a pattern that could span lines' '
	keeper --workspace code --json file grep docs/readme.md "[^#]+" --regex >out &&
	printf "docs/readme.md:1:2\ndocs/readme.md:2:1\n" >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'an invalid regular expression is INVALID_PATTERN (exit 22)' '
	test_expect_code 22 keeper --workspace code --json file grep . "a.b(" --regex >out &&
	test_error_code INVALID_PATTERN out &&
	test_no_host_path out
'

test_expect_success 'the same text without --regex is not an error' '
	keeper --workspace code --json file grep . "a.b(" >out &&
	json_get ".ok" out
'

test_expect_success 'an empty query is INVALID_ARGUMENT naming the searched path' '
	test_expect_code 2 keeper --workspace code --json file grep . "" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.path out)" = .
'

test_expect_success 'a query holding a line end is INVALID_ARGUMENT, not a search that finds nothing' '
	test_when_finished "rm -f \"\$CODE/two-lines.txt\"" &&
	printf "one\ntwo\n" >"$CODE/two-lines.txt" &&
	nl="$(printf "\nx")" && nl="${nl%x}" &&
	test_expect_code 2 keeper --workspace code --json file grep two-lines.txt "one${nl}two" >out &&
	test_error_code INVALID_ARGUMENT out &&
	grep "line end" out &&
	test_expect_code 2 keeper --workspace code --json file grep two-lines.txt "$(printf "one\rtwo")" >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success 'grep is case-sensitive by default' '
	keeper --workspace code --json file grep case.txt needle >out &&
	echo case.txt:2:1 >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'grep --ignore-case matches every case' '
	keeper --workspace code --json file grep case.txt needle --ignore-case >out &&
	printf "case.txt:1:1\ncase.txt:2:1\ncase.txt:3:1\n" >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'grep -i is the short form of --ignore-case' '
	keeper --workspace code --json file grep case.txt NEEDLE -i >out &&
	test "$(json_get ".matches | length" out)" = 3
'

test_expect_success 'grep --ignore-case works with --regex' '
	keeper --workspace code --json file grep case.txt "ne+dle (upper|caps)" --regex -i >out &&
	printf "case.txt:1:1\ncase.txt:3:1\n" >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'the column counts characters, not bytes, before the match' '
	keeper --workspace code --json file grep multi.txt needle >out &&
	printf "multi.txt:1:7\nmulti.txt:2:3\n" >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'one result per matching line, at the first match' '
	keeper --workspace code --json file grep multi.txt "needle" >out &&
	test "$(json_get "[.matches[] | select(.line == 2)] | length" out)" = 1 &&
	test "$(json_get ".matches[1].column" out)" = 3
'

test_expect_success 'the text of a CRLF line has no carriage return' '
	keeper --workspace code --json file grep crlf.txt needle >out &&
	test "$(json_get ".matches[0].text" out)" = "first needle" &&
	! json_get ".matches[0].text | test(\"\r\")" out
'

test_expect_success 'grep line numbers in a CR-only file are the lines read counts' '
	keeper --workspace code --json file grep cr.txt pin >out &&
	echo cr.txt:2:8 >expect &&
	matches out >actual &&
	test_cmp expect actual &&
	test "$(json_get ".matches[0].text" out)" = "second pin" &&
	keeper --workspace code file read cr.txt --from-line 2 --to-line 2 >line 2>err &&
	printf "second pin\r" >expect &&
	cmp expect line
'

test_expect_success 'a UTF-8 BOM is not part of the first line: column 1, text without it' '
	keeper --workspace code --json file grep bom.txt pin >out &&
	echo bom.txt:1:1 >expect &&
	matches out >actual &&
	test_cmp expect actual &&
	test "$(json_get ".matches[0].text" out)" = "pin at the start"
'

test_expect_success 'a match on an unterminated last line is found' '
	keeper --workspace code --json file grep nonl.txt needle >out &&
	test "$(json_get ".matches[0].line" out)" = 1 &&
	test "$(json_get ".matches[0].text" out)" = "no newline, needle"
'

test_expect_success 'a short line'"'"'s text is the whole line, starting at column 1' '
	keeper --workspace code --json file grep case.txt needle >out &&
	test "$(json_get ".matches[0].text_start_column" out)" = 1 &&
	test "$(json_get ".matches[0].text_truncated" out)" = false
'

test_expect_success 'a long line'"'"'s text is a 500-character window that holds the match' '
	keeper --workspace code --json file grep long.txt needle >out &&
	test "$(json_get ".matches[0].text_truncated" out)" = true &&
	test "$(json_get ".matches[0].text | length" out)" = 500 &&
	test "$(json_get ".matches[0].column" out)" = 2002 &&
	test "$(json_get ".matches[0].text_start_column" out)" = 1508 &&
	test "$(json_get ".matches[0].text" out)" = "$(repeat 493 x) needle"
'

test_expect_success 'a match at column 100001 is shown, 100 characters after the window start' '
	{ repeat 100000 x && printf "needle" && repeat 1000 y && printf "\n"; } >"$CODE/far.txt" &&
	keeper --workspace code --json file grep far.txt needle >out &&
	rm "$CODE/far.txt" &&
	test "$(json_get ".matches[0].column" out)" = 100001 &&
	test "$(json_get ".matches[0].text_start_column" out)" = 99901 &&
	test "$(json_get ".matches[0].text" out)" = "$(repeat 100 x)needle$(repeat 394 y)"
'

test_expect_success 'a long multibyte line is windowed in characters, not bytes' '
	{ repeat 600 "é" && printf " needle\n"; } >"$CODE/wide.txt" &&
	keeper --workspace code --json file grep wide.txt needle >out &&
	rm "$CODE/wide.txt" &&
	test "$(json_get ".matches[0].text_truncated" out)" = true &&
	test "$(json_get ".matches[0].text | length" out)" = 500 &&
	test "$(json_get ".matches[0].text" out)" = "$(repeat 493 "é") needle" &&
	test "$(json_get ".matches[0].text_start_column" out)" = 108 &&
	test "$(json_get ".matches[0].column" out)" = 602
'

test_expect_success 'setup: a workspace "enc" with a Latin-1 file, a UTF-8 file and a bad byte late in a file' '
	mkdir "$TRASH/enc" &&
	printf "caf\351 au lait\n" >"$TRASH/enc/latin1.txt" &&
	printf "caf\303\251 cr\303\250me\n" >"$TRASH/enc/utf8.txt" &&
	{ printf "caf 1\ncaf 2\n" && repeat 300000 z && printf "\n\377\n"; } >"$TRASH/enc/late.txt" &&
	keeper workspace create enc "$TRASH/enc" >/dev/null
'

test_expect_success 'grep skips a file that is not valid UTF-8 and counts it undecodable' '
	keeper --workspace enc --json file grep . caf >out &&
	echo utf8.txt:1:1 >expect &&
	matches out >actual &&
	test_cmp expect actual &&
	test "$(json_get ".encoding" out)" = utf-8 &&
	test "$(json_get ".files_searched" out)" = 3 &&
	test "$(json_get ".files_skipped" out)" = 2 &&
	test "$(json_get ".files_undecodable" out)" = 2
'

test_expect_success 'grep never prints a replacement character for an undecodable file' '
	keeper --workspace enc --json file grep latin1.txt caf >out &&
	test "$(json_get ".matches | length" out)" = 0 &&
	test "$(json_get ".files_undecodable" out)" = 1 &&
	! grep "\\ufffd" out &&
	! grep "$(printf "\357\277\275")" out
'

test_expect_success 'a bad byte after the matches still skips the whole file' '
	keeper --workspace enc --json file grep late.txt caf >out &&
	test "$(json_get ".matches | length" out)" = 0 &&
	test "$(json_get ".files_undecodable" out)" = 1
'

test_expect_success 'without --json, grep names the undecodable files'"'"' count and --encoding on stderr' '
	keeper --workspace enc file grep . caf >out 2>err &&
	printf "utf8.txt:1:1:caf\303\251 cr\303\250me\n" >expect &&
	test_cmp expect out &&
	grep "2 of the skipped files are not valid utf-8" err &&
	grep -e "--encoding" err
'

test_expect_success 'grep --encoding latin1 decodes the file and shows its text' '
	keeper --workspace enc --json file grep latin1.txt caf --encoding latin1 >out &&
	test "$(json_get ".encoding" out)" = windows-1252 &&
	test "$(json_get ".matches[0].text" out)" = "$(printf "caf\303\251 au lait")" &&
	test "$(json_get ".files_undecodable" out)" = 0
'

test_expect_success 'grep --encoding matches decoded characters, with columns in characters' '
	keeper --workspace enc --json file grep latin1.txt "$(printf "\303\251 au")" --encoding latin1 >out &&
	test "$(json_get ".matches[0].column" out)" = 4
'

test_expect_success 'grep --encoding of an unknown encoding is INVALID_ARGUMENT' '
	test_expect_code 2 keeper --workspace enc --json file grep . caf --encoding klingon >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get ".error.details.encoding" out)" = klingon
'

test_expect_success 'grep --encoding utf-16le is refused as INVALID_ARGUMENT, as read refuses it' '
	test_expect_code 2 keeper --workspace enc --json file grep . caf --encoding utf-16le >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success 'grep does not search a file whose name is not UTF-8, and names it' '
	mkdir "$TRASH/names" &&
	printf "needle\n" >"$TRASH/names/$(printf "bad\377.txt")" &&
	printf "needle\n" >"$TRASH/names/ok.txt" &&
	keeper --root "$TRASH/names" --json file grep . needle >out &&
	echo ok.txt:1:1 >expect &&
	matches out >actual &&
	test_cmp expect actual &&
	! grep "$(printf "\357\277\275")" out &&
	test "$(json_get ".non_utf8_names[]" out)" = "bad\\xff.txt"
'

test_expect_success 'setup: a match 70 directories down, below max_recursion_depth (64)' '
	deep=$TRASH/deep/$(seq 70 | sed "s/.*/d/" | tr "\n" / ) &&
	mkdir -p "$deep" &&
	echo needle >"$deep/f.txt" &&
	echo needle >"$TRASH/deep/top.txt"
'

test_expect_success 'grep says depth_limited when directories below the depth bound were not searched' '
	keeper --root "$TRASH/deep" --json file grep . needle >out &&
	echo top.txt:1:1 >expect &&
	matches out >actual &&
	test_cmp expect actual &&
	test "$(json_get ".depth_limited" out)" = true
'

test_expect_success 'grep within the depth bound is not depth_limited' '
	keeper --workspace code --json file grep . needle >out &&
	test "$(json_get ".depth_limited" out)" = false
'

test_expect_success 'without --json, a depth-limited grep says so on stderr' '
	keeper --root "$TRASH/deep" file grep . needle >out 2>err &&
	grep max_recursion_depth err
'

test_expect_success 'grep --glob "*.md" searches only matching files, nested ones included' '
	keeper --workspace code --json file grep . needle --glob "*.md" >out &&
	echo docs/readme.md:2:5 >expect &&
	matches out >actual &&
	test_cmp expect actual &&
	test "$(json_get ".files_searched" out)" = 1
'

test_expect_success 'grep with an invalid --glob is INVALID_PATTERN (exit 22)' '
	test_expect_code 22 keeper --workspace code --json file grep . needle --glob "[x" >out &&
	test_error_code INVALID_PATTERN out
'

test_expect_success 'grep skips binary files and counts them in files_skipped' '
	keeper --workspace code --json file grep . binary >out &&
	test "$(json_get ".matches | length" out)" = 0 &&
	test "$(json_get ".files_skipped" out)" = 1
'

test_expect_success 'grep of a single binary file finds nothing and counts it skipped' '
	keeper --workspace code --json file grep bin.dat needle >out &&
	test "$(json_get ".matches | length" out)" = 0 &&
	test "$(json_get ".files_skipped" out)" = 1
'

test_expect_success 'grep honours .gitignore: ignored files are not searched' '
	keeper --workspace code --json file grep . "ignored log" >out &&
	test "$(json_get ".matches | length" out)" = 0 &&
	keeper --workspace code --json file grep . "dropped" >out &&
	test "$(json_get ".matches | length" out)" = 0
'

test_expect_success 'grep honours a nested negation (!keep.log)' '
	keeper --workspace code --json file grep sub needle >out &&
	echo sub/keep.log:1:1 >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'a .gitignore over 1 MiB is read whole: its last rule holds, not cut short' '
	mkdir -p "$TRASH/bigignore" &&
	(
		cd "$TRASH/bigignore" &&
		git init -q . &&
		{ printf "#" && repeat 1048567 x && printf "\nfoo.txt.bak\n"; } >.gitignore &&
		test "$(wc -c <.gitignore)" -gt 1048576 &&
		echo hello >foo.txt && echo hello >foo.txt.bak
	) &&
	keeper --root "$TRASH/bigignore" --json file grep . hello >out &&
	test "$(json_get "[.matches[].path]" out | jq -c .)" = "[\"foo.txt\"]"
'

test_expect_success 'a linked .gitignore is never followed, whichever directory grep starts from' '
	mkdir -p "$TRASH/linked/sub" &&
	(
		cd "$TRASH/linked" &&
		git init -q . &&
		echo secret.txt >rules &&
		ln -s rules .gitignore &&
		echo hello >sub/secret.txt
	) &&
	keeper --root "$TRASH/linked" --json file grep . hello >from-root &&
	keeper --root "$TRASH/linked" --json file grep sub hello >from-sub &&
	test "$(json_get ".matches | length" from-root)" = 1 &&
	test "$(json_get ".matches | length" from-sub)" = 1
'

test_expect_success 'a FIFO named .gitignore above the workspace root does not stall grep' '
	git init -q "$TRASH/fifo" &&
	mkdir "$TRASH/fifo/ws" &&
	echo hello >"$TRASH/fifo/ws/a.txt" &&
	mkfifo "$TRASH/fifo/.gitignore" &&
	timeout 20 keeper --root "$TRASH/fifo/ws" --json file grep . hello >out &&
	test "$(json_get ".matches | length" out)" = 1
'

test_expect_success 'grep never searches .git/' '
	keeper --workspace code --json file grep . "needle in .git" >out &&
	test "$(json_get ".matches | length" out)" = 0 &&
	! grep "\.git/" out
'

test_expect_success 'grep never follows links out of the root' '
	keeper --workspace code --json file grep . "needle outside" >out &&
	test "$(json_get ".matches | length" out)" = 0
'

test_expect_success 'grep with ../ is PATH_OUTSIDE_WORKSPACE (exit 4)' '
	test_expect_code 4 keeper --workspace code --json file grep ../outside needle >out &&
	test_error_code PATH_OUTSIDE_WORKSPACE out &&
	! grep "needle outside" out
'

test_expect_success 'grep of an absolute path outside is ABSOLUTE_PATH_OUTSIDE_WORKSPACE (exit 6)' '
	test_expect_code 6 keeper --workspace code --json file grep "$OUTSIDE/private" needle >out &&
	test_error_code ABSOLUTE_PATH_OUTSIDE_WORKSPACE out
'

test_expect_success 'grep through a link leaving the root is SYMLINK_ESCAPE_REFUSED (exit 11)' '
	test_expect_code 11 keeper --workspace code --json file grep link-out needle >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	test_expect_code 11 keeper --workspace code --json file grep link-secret needle >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	! grep "needle outside" out &&
	test_no_host_path out
'

test_expect_success 'grep of a missing path is PATH_NOT_FOUND (exit 3)' '
	test_expect_code 3 keeper --workspace code --json file grep no-such-dir needle >out &&
	test_error_code PATH_NOT_FOUND out
'

test_expect_success 'grep --regex ^$ finds no line after the last line end' '
	printf "x\n" >anchors.txt &&
	keeper --json file grep anchors.txt "^\$" --regex >out &&
	test "$(json_get ".matches | length" out)" = 0
'

test_expect_success 'grep --regex \\A and \\z hold at every line, LF and CRLF alike' '
	printf "ne\nne\nne\n" >lf.txt &&
	printf "ne\r\nne\r\nne\r\n" >crlf.txt &&
	for f in lf.txt crlf.txt
	do
		keeper --json file grep $f "\\An" --regex >out &&
		test "$(jq -c "[.matches[].line]" out)" = "[1,2,3]" &&
		keeper --json file grep $f "e\\z" --regex >out &&
		test "$(jq -c "[.matches[].line]" out)" = "[1,2,3]" || return 1
	done
'

test_expect_success 'grep on a single file searches that file only' '
	keeper --workspace code --json file grep docs/readme.md needle >out &&
	echo docs/readme.md:2:5 >expect &&
	matches out >actual &&
	test_cmp expect actual &&
	test "$(json_get ".files_searched" out)" = 1
'

test_expect_success 'grep of a subdirectory reports workspace-relative paths' '
	keeper --workspace code file grep docs needle >out 2>err &&
	echo "docs/readme.md:2:5:the needle in markdown" >expect &&
	test_cmp expect out
'

test_expect_success 'grep without --json summarises the counts on stderr, not stdout' '
	keeper --workspace code file grep . needle >out 2>err &&
	test_cmp expect.needle out &&
	grep "13" err
'

test_expect_success 'grep created no .filekeeper/' '
	test ! -e "$CODE/.filekeeper" &&
	test ! -e "$OUTSIDE/.filekeeper"
'

test_expect_success 'grep never searches .filekeeper/, even with state and a planted match' '
	keeper --workspace code hash-object -w case.txt >/dev/null &&
	test -d "$CODE/.filekeeper" &&
	printf "needle planted in state\n" >"$CODE/.filekeeper/planted.txt" &&
	keeper --workspace code --json file grep . needle >out &&
	! grep "\.filekeeper" out &&
	keeper --workspace code file grep . needle >actual 2>err &&
	test_cmp expect.needle actual
'

test_expect_success 'setup: bulk files: 300 matching lines in one file, 300 matching files, a big file' '
	mkdir -p "$BULK/files" &&
	(
		cd "$BULK" &&
		for i in $(seq 1 300)
		do
			echo "needle $i" || exit 1
		done >lines300.txt &&
		head -n 200 lines300.txt >lines200.txt &&
		for i in $(seq -w 1 300)
		do
			echo "needle in file $i" >files/f$i.txt || exit 1
		done &&
		awk "BEGIN { for (i = 1; i <= 20000; i++) printf \"%06d %s\n\", i, (i == 15000 || i == 20000) ? \"needle here\" : \"filler filler filler filler filler\" }" >big.txt
	) &&
	test "$(wc -c <"$BULK/big.txt")" -gt 600000
'

test_expect_success 'grep stops at 200 results by default and says truncated' '
	keeper --root "$BULK" --json file grep lines300.txt needle >out &&
	test "$(json_get ".matches | length" out)" = 200 &&
	test "$(json_get ".truncated" out)" = true &&
	seq 1 200 >expect &&
	json_get ".matches[].line" out >actual &&
	test_cmp expect actual
'

test_expect_success 'exactly 200 matching lines fit: not truncated' '
	keeper --root "$BULK" --json file grep lines200.txt needle >out &&
	test "$(json_get ".matches | length" out)" = 200 &&
	test "$(json_get ".truncated" out)" = false
'

test_expect_success 'a truncated grep without --json says so on stderr' '
	keeper --root "$BULK" file grep lines300.txt needle >out 2>err &&
	test_line_count = 200 out &&
	grep -i truncated err
'

test_expect_success 'across 300 files, the first 200 results are the first 200 paths in order' '
	keeper --root "$BULK" --json file grep files needle >out &&
	test "$(json_get ".truncated" out)" = true &&
	(cd "$BULK" && ls files | LC_ALL=C sort | head -n 200 | sed "s|^|files/|; s|$|:1:1|") >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'grep across many files gives the same results every run' '
	keeper --root "$BULK" --json file grep files needle --max-results 150 >first &&
	keeper --root "$BULK" --json file grep files needle --max-results 150 >second &&
	test_cmp first second
'

test_expect_success 'grep --max-results N returns the first N and says truncated' '
	keeper --root "$BULK" --json file grep files needle --max-results 5 >out &&
	test "$(json_get ".truncated" out)" = true &&
	printf "files/f%s.txt:1:1\n" 001 002 003 004 005 >expect &&
	matches out >actual &&
	test_cmp expect actual
'

test_expect_success 'grep --max-results 201 is LIMIT_EXCEEDED (exit 21)' '
	test_expect_code 21 keeper --root "$BULK" --json file grep files needle --max-results 201 >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get ".error.details.limit" out)" = 200
'

test_expect_success 'grep --max-results 0 is INVALID_ARGUMENT' '
	test_expect_code 2 keeper --root "$BULK" --json file grep files needle --max-results 0 >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success 'line numbers stay right deep into a large file' '
	keeper --root "$BULK" --json file grep big.txt needle >out &&
	printf "big.txt:15000:8\nbig.txt:20000:8\n" >expect &&
	matches out >actual &&
	test_cmp expect actual &&
	test "$(json_get ".matches[1].text" out)" = "020000 needle here"
'

test_expect_success 'grep created no .filekeeper/ in the bulk tree' '
	test ! -e "$BULK/.filekeeper"
'

test_done
