#!/bin/sh
test_description='keeper file replace-text: staged, literal, explicit text replacement

Matching is staged and the result names the stage. exact: the literal text occurs as given;
--first replaces the one occurrence and is refused with MATCH_COUNT_MISMATCH (exit 17) when
there are several, unless --expected-match-count confirms the count; --all replaces every one;
match_count reports what was found and --expected-match-count refuses a different count.
normalised: indentation and trailing whitespace are tolerated, the result carries a warning, the
lines the new text leaves alone stay as the file has them and changed lines take the file'"'"'s
indentation (t0405 covers the rules and their refusals). none: NO_MATCH (exit 16) with the nearest line
numbers and their text in details.candidates. --expected-content guards the single target region
and --expected-hash the whole file (CONTENT_CONFLICT, exit 15). Search and replacement are
literal: no regex, no $1, no escapes; --old-file and --new-file carry text a shell would mangle.
An edit keeps CRLF, the BOM, a missing final newline and the mode; binary content is refused
(BINARY_CONTENT_REFUSED, exit 20). Every applied edit is an operation that history undo reverts
to the exact old bytes; --dry-run prints a unified diff and writes nothing. A refused edit
changes neither the file nor the journal.'
. ./test-lib.sh

# replaced FILE ARGS...: `keeper --json file replace-text FILE ARGS...` succeeds; its result
# is left in out.json and must be a committed operation whose after_hash is FILE's new content.
replaced () {
	file=$1
	shift
	keeper --json file replace-text "$file" "$@" >out.json &&
	test "$(json_get .ok out.json)" = true &&
	json_get .operation_id out.json | grep -E "^op_[0-9a-f]{16}$" >/dev/null &&
	test "$(json_get .after_hash out.json)" = "$(sha "$file")" || {
		echo >&2 "replace-text $file $* did not commit:"
		cat >&2 out.json
		return 1
	}
}

# exact stage

test_expect_success 'an old text occurring once is replaced with --first at the exact stage' '
	printf "alpha\nbeta gamma\ndelta\n" >one.txt &&
	cp one.txt one.orig &&
	replaced one.txt --old "gamma" --new "GAMMA" --first &&
	printf "alpha\nbeta GAMMA\ndelta\n" >expect &&
	test_cmp expect one.txt &&
	test "$(json_get .match_stage out.json)" = exact
'

test_expect_success 'an exact match reports match_count 1, no warnings and the real before hash' '
	test "$(json_get .match_count out.json)" = 1 &&
	test "$(json_get ".warnings | length" out.json)" = 0 &&
	test "$(json_get .before_hash out.json)" = "$(sha one.orig)" &&
	test "$(json_get ".items[0].change" out.json)" = modified &&
	test "$(json_get .undo_available out.json)" = true
'

test_expect_success 'an exact old text may span several lines' '
	printf "a\nb\nc\nd\n" >span.txt &&
	replaced span.txt --old "b
c" --new "B1
B2
B3" --first &&
	printf "a\nB1\nB2\nB3\nd\n" >expect &&
	test_cmp expect span.txt &&
	test "$(json_get .match_stage out.json)" = exact
'

test_expect_success '--first is refused with MATCH_COUNT_MISMATCH when the old text occurs several times' '
	printf "x = 1\ny = 2\nx = 1\nx = 1\n" >many.txt &&
	save many.txt &&
	refused 17 MATCH_COUNT_MISMATCH file replace-text many.txt --old "x = 1" --new "x = 9" --first &&
	test "$(json_get .error.details.match_count refusal.json)" = 3 &&
	test "$(json_get .error.details.path refusal.json)" = many.txt
'

test_expect_success 'a refused --first leaves the file and the journal untouched' '
	untouched many.txt
'

test_expect_success '--first with --expected-match-count equal to the count replaces only the first occurrence' '
	cp many.txt many.copy &&
	replaced many.copy --old "x = 1" --new "x = 9" --first --expected-match-count 3 &&
	printf "x = 9\ny = 2\nx = 1\nx = 1\n" >expect &&
	test_cmp expect many.copy &&
	test "$(json_get .match_count out.json)" = 3
'

test_expect_success '--all replaces every occurrence and reports how many it found' '
	replaced many.txt --old "x = 1" --new "x = 9" --all &&
	printf "x = 9\ny = 2\nx = 9\nx = 9\n" >expect &&
	test_cmp expect many.txt &&
	test "$(json_get .match_stage out.json)" = exact &&
	test "$(json_get .match_count out.json)" = 3
'

test_expect_success '--all with a different --expected-match-count is refused and changes nothing' '
	printf "TODO a\nTODO b\n" >todo.txt &&
	save todo.txt &&
	refused 17 MATCH_COUNT_MISMATCH file replace-text todo.txt --old TODO --new DONE --all \
		--expected-match-count 3 &&
	test "$(json_get .error.details.match_count refusal.json)" = 2 &&
	test "$(json_get .error.details.expected_match_count refusal.json)" = 3 &&
	untouched todo.txt
'

test_expect_success '--first counts overlapping occurrences and refuses to pick one' '
	printf "a\nb\na\nb\na\n" >overlap.txt &&
	save overlap.txt &&
	refused 17 MATCH_COUNT_MISMATCH file replace-text overlap.txt --old "a
b
a" --new X --first &&
	test "$(json_get .error.details.match_count refusal.json)" = 2 &&
	test "$(json_get ".error.details.matches[0].line" refusal.json)" = 1 &&
	test "$(json_get ".error.details.matches[0].end_line" refusal.json)" = 3 &&
	test "$(json_get ".error.details.matches[1].line" refusal.json)" = 3 &&
	test "$(json_get ".error.details.matches[1].end_line" refusal.json)" = 5 &&
	untouched overlap.txt
'

test_expect_success '--all over overlapping occurrences is refused: replacing one destroys the other' '
	refused 17 MATCH_COUNT_MISMATCH file replace-text overlap.txt --old "a
b
a" --new X --all &&
	test "$(json_get ".error.details.overlapping_matches[0]" refusal.json)" = 1 &&
	test "$(json_get ".error.details.overlapping_matches[1]" refusal.json)" = 2 &&
	json_get .error.message refusal.json | grep -F "overlap" &&
	untouched overlap.txt
'

test_expect_success '--occurrence picks one of overlapping occurrences exactly' '
	replaced overlap.txt --old "a
b
a" --new X --occurrence 2 &&
	printf "a\nb\nX\n" >expect &&
	test_cmp expect overlap.txt &&
	test "$(json_get .match_count out.json)" = 2
'

test_expect_success '--first with --expected-match-count 2 on a single occurrence is refused' '
	save one.txt &&
	refused 17 MATCH_COUNT_MISMATCH file replace-text one.txt --old alpha --new ALPHA --first \
		--expected-match-count 2 &&
	test "$(json_get .error.details.match_count refusal.json)" = 1 &&
	untouched one.txt
'

test_expect_success '--all with a matching --expected-match-count applies' '
	replaced todo.txt --old TODO --new DONE --all --expected-match-count 2 &&
	printf "DONE a\nDONE b\n" >expect &&
	test_cmp expect todo.txt
'

test_expect_success 'the policy is explicit: neither --first nor --all is refused' '
	save one.txt &&
	refused 2 INVALID_ARGUMENT file replace-text one.txt --old alpha --new ALPHA &&
	untouched one.txt
'

test_expect_success 'the policy is explicit: --first and --all together are refused' '
	save one.txt &&
	refused 2 INVALID_ARGUMENT file replace-text one.txt --old alpha --new ALPHA --first --all &&
	untouched one.txt
'

test_expect_success 'an empty old text is refused' '
	save one.txt &&
	refused 2 INVALID_ARGUMENT file replace-text one.txt --old "" --new x --all &&
	untouched one.txt
'

# normalised stage

test_expect_success 'setup: a file whose indentation and trailing whitespace differ from the old text' '
	printf "fn main() {\n        let x = 1;   \n        call(x);\n}\n" >norm.rs &&
	printf "let x = 1;\ncall(x);\n" >norm.old &&
	printf "let y = 2;\ncall(y);\n" >norm.new
'

test_expect_success 'an old text differing in indentation and trailing whitespace matches at the normalised stage' '
	replaced norm.rs --old-file norm.old --new-file norm.new --first &&
	test "$(json_get .match_stage out.json)" = normalised &&
	test "$(json_get .match_count out.json)" = 1
'

test_expect_success 'a normalised match is never silent: the result carries a warning naming the lines' '
	test "$(json_get ".warnings | length" out.json)" = 1 &&
	json_get ".warnings[0]" out.json >warning &&
	grep "2-3" warning
'

test_expect_success 'the normalised replacement takes the indentation of the lines it replaces' '
	printf "fn main() {\n        let y = 2;\n        call(y);\n}\n" >expect &&
	test_cmp expect norm.rs
'

test_expect_success 'a normalised replacement in a tab-indented file is indented with tabs' '
	printf "if a {\n\tfoo();\n\tbar();\n}\n" >tabs.c &&
	replaced tabs.c --old "    foo();
    bar();" --new "    foo2();
    bar2();" --first &&
	test "$(json_get .match_stage out.json)" = normalised &&
	printf "if a {\n\tfoo2();\n\tbar2();\n}\n" >expect &&
	test_cmp expect tabs.c
'

test_expect_success 'several normalised matches are refused with --first like exact ones' '
	printf "  k();\nz\n\tk();  \n" >twice.c &&
	save twice.c &&
	refused 17 MATCH_COUNT_MISMATCH file replace-text twice.c --old "    k();" --new "m();" --first &&
	test "$(json_get .error.details.match_count refusal.json)" = 2 &&
	untouched twice.c
'

test_expect_success '--all at the normalised stage replaces every occurrence, each with its own indentation' '
	printf "  k();\nz\n\tk();  \n" >both.c &&
	replaced both.c --old "    k();" --new "    m();" --all &&
	test "$(json_get .match_stage out.json)" = normalised &&
	test "$(json_get .match_count out.json)" = 2 &&
	printf "  m();\nz\n\tm();\n" >expect &&
	test_cmp expect both.c
'

test_expect_success 'a normalised replacement ending in an empty line, at the end of a file without a final newline, keeps that line' '
	printf "x\n    a\n    b" >nf.txt &&
	replaced nf.txt --old "a
b" --new "A
B

" --first &&
	test "$(json_get .match_stage out.json)" = normalised &&
	printf "x\n    A\n    B\n\n" >expect &&
	cmp expect nf.txt &&
	json_get ".warnings[0]" out.json | grep "1 line written exactly as given" &&
	test "$(json_get ".diffs[0].lines_added" out.json)" = 3
'

# none

test_expect_success 'an old text found nowhere is NO_MATCH (exit 16) and changes nothing' '
	printf "alpha\nbeta gamma\ndelta\n" >near.txt &&
	save near.txt &&
	refused 16 NO_MATCH file replace-text near.txt --old "beta gamme" --new x --first &&
	test "$(json_get .error.details.path refusal.json)" = near.txt &&
	untouched near.txt
'

test_expect_success 'NO_MATCH names the nearest line first, with its number and text' '
	test "$(json_get ".error.details.candidates[0].line" refusal.json)" = 2 &&
	test "$(json_get ".error.details.candidates[0].text" refusal.json)" = "beta gamma"
'

test_expect_success 'every NO_MATCH candidate is a real line of the file with its 1-based number' '
	json_get ".error.details.candidates | length > 0" refusal.json &&
	jq -r ".error.details.candidates[] | \"\(.line)\t\(.text)\"" refusal.json >candidates &&
	while IFS="	" read -r n text
	do
		test "$(sed -n "${n}p" near.txt)" = "$text" || exit 1
	done <candidates
'

# guards

test_expect_success '--expected-content equal to the target region lets the replacement apply' '
	printf "one two three\n" >guard.txt &&
	replaced guard.txt --old two --new 2 --first --expected-content two &&
	printf "one 2 three\n" >expect &&
	test_cmp expect guard.txt
'

test_expect_success '--expected-content is the whole region: its line ends count, not only its text' '
	printf "a\n\nb\n" >guard-ends.txt &&
	printf "a\n\n" >guard-ends.old &&
	save guard-ends.txt &&
	refused 15 CONTENT_CONFLICT file replace-text guard-ends.txt --old-file guard-ends.old --new X \
		--first --expected-content a &&
	untouched guard-ends.txt &&
	nl="
" &&
	replaced guard-ends.txt --old-file guard-ends.old --new X --first --expected-content "a$nl$nl" &&
	printf "Xb\n" >expect &&
	cmp expect guard-ends.txt
'

test_expect_success 'a byte-order mark that starts --old-file or --new-file is the editor'"'"'s, not text' '
	printf "a\nb\n" >plain.txt &&
	printf "\357\273\277b" >marked.new &&
	replaced plain.txt --old b --new-file marked.new --first &&
	printf "a\nb\n" >expect &&
	test_cmp expect plain.txt &&
	printf "\357\273\277one\ntwo\n" >bom.txt &&
	keeper file read bom.txt | head -n 1 >bom.old &&
	printf "\357\273\277uno\n" >bom.new &&
	replaced bom.txt --old-file bom.old --new-file bom.new --first &&
	printf "\357\273\277uno\ntwo\n" >expect &&
	test_cmp expect bom.txt
'

test_expect_success 'inline text keeps a U+FEFF it starts with' '
	printf "a\nb\n" >inline.txt &&
	replaced inline.txt --old b --new "$(printf "\357\273\277b")" --first &&
	printf "a\n\357\273\277b\n" >expect &&
	test_cmp expect inline.txt
'

test_expect_success '--expected-content differing from the target region is CONTENT_CONFLICT (exit 15)' '
	save guard.txt &&
	refused 15 CONTENT_CONFLICT file replace-text guard.txt --old three --new 3 --first \
		--expected-content thr33 &&
	untouched guard.txt
'

test_expect_success '--expected-content of a normalised match is compared with the file'"'"'s own lines' '
	printf "{\n    let x = 1;  \n    call(x);\n}\n" >region.rs &&
	save region.rs &&
	refused 15 CONTENT_CONFLICT file replace-text region.rs --old-file norm.old --new-file norm.new \
		--first --expected-content "    let x = 7;
    call(x);" &&
	untouched region.rs &&
	replaced region.rs --old-file norm.old --new-file norm.new --first \
		--expected-content "    let x = 1;  
    call(x);" &&
	printf "{\n    let y = 2;\n    call(y);\n}\n" >expect &&
	test_cmp expect region.rs
'

test_expect_success '--expected-content with --all over several occurrences is refused: it guards one region' '
	printf "x y x\n" >tworegions.txt &&
	save tworegions.txt &&
	refused 2 INVALID_ARGUMENT file replace-text tworegions.txt --old x --new z --all \
		--expected-content x &&
	untouched tworegions.txt
'

test_expect_success '--expected-hash equal to the file'"'"'s hash lets the replacement apply' '
	printf "hash guarded\n" >hashed.txt &&
	replaced hashed.txt --old guarded --new checked --first --expected-hash "$(sha hashed.txt)" &&
	printf "hash checked\n" >expect &&
	test_cmp expect hashed.txt
'

test_expect_success 'a stale --expected-hash is CONTENT_CONFLICT naming both hashes, and changes nothing' '
	sha one.orig >stale &&
	save hashed.txt &&
	refused 15 CONTENT_CONFLICT file replace-text hashed.txt --old checked --new x --first \
		--expected-hash "$(cat stale)" &&
	test "$(json_get .error.details.expected_hash refusal.json)" = "$(cat stale)" &&
	test "$(json_get .error.details.actual_hash refusal.json)" = "$(sha hashed.txt)" &&
	test "$(json_get .error.retryable refusal.json)" = false &&
	untouched hashed.txt
'

# literal

test_expect_success 'the old text is not a regex: "a.c" does not match "abc"' '
	printf "abc\n" >dot.txt &&
	save dot.txt &&
	refused 16 NO_MATCH file replace-text dot.txt --old "a.c" --new X --first &&
	untouched dot.txt
'

test_expect_success 'regex metacharacters and backslashes in the old text match themselves' '
	cat >meta.txt <<-\EOF &&
	pattern: ^[a-z]+(x|y)*\d{2}$ end
	EOF
	replaced meta.txt --old "^[a-z]+(x|y)*\\d{2}\$" --new SIMPLE --first &&
	echo "pattern: SIMPLE end" >expect &&
	test_cmp expect meta.txt
'

test_expect_success 'the replacement is not a template: dollar references, backslash escapes and & are written verbatim' '
	printf "cost: 10 units\n" >template.txt &&
	replaced template.txt --old "10" --new "\$1 \${0} \\1 & \\n \$&" --first &&
	cat >expect <<-\EOF &&
	cost: $1 ${0} \1 & \n $& units
	EOF
	test_cmp expect template.txt
'

test_expect_success '--old-file and --new-file carry quotes, $(...), backticks and newlines verbatim' '
	cat >shell.txt <<-\EOF &&
	echo "$(whoami)" `date` '"'"'q'"'"'
	tail
	EOF
	cat >shell.old <<-\EOF &&
	echo "$(whoami)" `date` '"'"'q'"'"'
	EOF
	cat >shell.new <<-\EOF &&
	printf "%s\n" "${USER:-x}" \\ '"'"'q'"'"'
	EOF
	replaced shell.txt --old-file shell.old --new-file shell.new --first &&
	test "$(json_get .match_stage out.json)" = exact &&
	cat shell.new >expect &&
	echo tail >>expect &&
	test_cmp expect shell.txt
'

test_expect_success 'an old text beginning with a hyphen (a markdown list item) is accepted by --old' '
	printf "# List\n- item one\n- item two\n" >list.md &&
	replaced list.md --old "- item one" --new "- item 1" --first &&
	printf "# List\n- item 1\n- item two\n" >expect &&
	test_cmp expect list.md
'

# fidelity

test_expect_success 'a CRLF file matches old text typed with LF and stays CRLF' '
	printf "one\r\ntwo\r\nthree\r\n" >crlf.txt &&
	replaced crlf.txt --old "one
two
" --new "1
2
2b
" --first &&
	test "$(json_get .match_stage out.json)" = exact &&
	printf "1\r\n2\r\n2b\r\nthree\r\n" >expect &&
	cmp expect crlf.txt
'

test_expect_success 'a normalised match in a CRLF file writes CRLF lines' '
	printf "{\r\n    a();  \r\n    b();\r\n}\r\n" >crlfnorm.c &&
	replaced crlfnorm.c --old "a();
b();" --new "c();
d();
e();" --first &&
	test "$(json_get .match_stage out.json)" = normalised &&
	printf "{\r\n    c();\r\n    d();\r\n    e();\r\n}\r\n" >expect &&
	cmp expect crlfnorm.c
'

test_expect_success 'in a file that mixes line ends, --all replaces the occurrences of either ending' '
	printf "x\ny\r\nx\r\ny\r\nz\r\n" >mixed-all.txt &&
	replaced mixed-all.txt --old "x
y" --new Q --all &&
	test "$(json_get .match_stage out.json)" = exact &&
	test "$(json_get .match_count out.json)" = 2 &&
	printf "Q\r\nQ\r\nz\r\n" >expect &&
	cmp expect mixed-all.txt
'

test_expect_success 'in a file that mixes line ends, old text that occurs with both is refused with --first' '
	printf "x\r\ny\nfoo\nx\ny\nbar\n" >mixed-first.txt &&
	save mixed-first.txt &&
	refused 17 MATCH_COUNT_MISMATCH file replace-text mixed-first.txt --old "$(printf "x\r\ny")" \
		--new Q --first &&
	test "$(json_get .error.details.match_count refusal.json)" = 2 &&
	untouched mixed-first.txt &&
	replaced mixed-first.txt --old "$(printf "x\r\ny")" --new Q --occurrence 1 &&
	printf "Q\nfoo\nx\ny\nbar\n" >expect &&
	cmp expect mixed-first.txt
'

test_expect_success 'a replaced line keeps its own line end in a file that mixes them' '
	printf "a\r\nb\nc\r\nd\r\n" >mixed-keep.txt &&
	replaced mixed-keep.txt --old "b
c" --new "b
C" --first &&
	test "$(json_get .match_stage out.json)" = exact &&
	test "$(json_get ".warnings | length" out.json)" = 0 &&
	printf "a\r\nb\nC\r\nd\r\n" >expect &&
	cmp expect mixed-keep.txt
'

test_expect_success 'a normalised match keeps each kept line'"'"'s own line end in a file that mixes them' '
	printf "a\r\n    b\n    c\r\nd\r\n" >mixed-norm.txt &&
	replaced mixed-norm.txt --old "b
c" --new "b
C" --first &&
	test "$(json_get .match_stage out.json)" = normalised &&
	printf "a\r\n    b\n    C\r\nd\r\n" >expect &&
	cmp expect mixed-norm.txt
'

test_expect_success 'mixed line ends replaced by another number of lines take the file'"'"'s convention, with a warning' '
	printf "a\nb\r\nc\nd\ne\n" >mixed-count.txt &&
	replaced mixed-count.txt --old "b
c
d" --new "B
D" --first &&
	test "$(json_get ".warnings | length" out.json)" = 1 &&
	json_get ".warnings[0]" out.json | grep "mixed line ends" &&
	printf "a\nB\nD\ne\n" >expect &&
	cmp expect mixed-count.txt
'

test_expect_success 'deleting the line after a lone CR line end keeps the empty line that follows' '
	printf "a\rX\n\nz\n" >lone-cr.txt &&
	replaced lone-cr.txt --old "X
" --new "" --first &&
	printf "a\r\n\nz\n" >expect &&
	cmp expect lone-cr.txt
'

test_expect_success 'a UTF-8 byte-order mark is kept when the first line is edited' '
	printf "\357\273\277hello world\nsecond\n" >bom.txt &&
	replaced bom.txt --old hello --new bye --first &&
	printf "\357\273\277bye world\nsecond\n" >expect &&
	cmp expect bom.txt
'

test_expect_success 'a file without a final newline still has none after its last line is edited' '
	printf "first\nlast line" >nofinal.txt &&
	replaced nofinal.txt --old "last" --new "final" --first &&
	printf "first\nfinal line" >expect &&
	cmp expect nofinal.txt
'

test_expect_success 'a normalised edit reaching the last line of a file without a final newline adds none' '
	printf "{\n    a();\n    tail();  " >nofinalnorm.c &&
	replaced nofinalnorm.c --old "a();
tail();" --new "b();
end();" --first &&
	test "$(json_get .match_stage out.json)" = normalised &&
	printf "{\n    b();\n    end();" >expect &&
	cmp expect nofinalnorm.c
'

test_expect_success 'the file mode is kept' '
	printf "#!/bin/sh\necho old\n" >script.sh &&
	chmod 751 script.sh &&
	replaced script.sh --old "echo old" --new "echo new" --first &&
	test "$(stat -c %a script.sh)" = 751 &&
	grep -x "echo new" script.sh
'

test_expect_success 'a binary file (NUL in the first 8 KiB) is BINARY_CONTENT_REFUSED (exit 20)' '
	printf "text\000more text\n" >blob.bin &&
	save blob.bin &&
	refused 20 BINARY_CONTENT_REFUSED file replace-text blob.bin --old text --new TEXT --all &&
	test "$(json_get .error.details.path refusal.json)" = blob.bin &&
	untouched blob.bin
'

test_expect_success 'a file that is not valid UTF-8 is refused rather than rewritten as mojibake' '
	printf "caf\351 au lait\n" >latin1.txt &&
	save latin1.txt &&
	refused 20 BINARY_CONTENT_REFUSED file replace-text latin1.txt --old lait --new milk --first &&
	untouched latin1.txt
'

test_expect_success 'a missing file is PATH_NOT_FOUND and a path leaving the workspace is refused' '
	refused 3 PATH_NOT_FOUND file replace-text absent.txt --old a --new b --first &&
	refused 4 PATH_OUTSIDE_WORKSPACE file replace-text ../outside/x.txt --old a --new b --first
'

# history and undo

test_expect_success 'an applied replacement is recorded as a replace_text operation' '
	printf "keep\r\nchange me\r\nkeep" >undo.txt &&
	cp undo.txt undo.orig &&
	replaced undo.txt --old "change me" --new "changed" --first &&
	json_get .operation_id out.json >undo.op &&
	keeper --json history show "$(cat undo.op)" >show.json &&
	test "$(json_get .operation.kind show.json)" = replace_text &&
	test "$(json_get .operation.status show.json)" = committed &&
	test "$(json_get ".operation.items[0].path" show.json)" = undo.txt
'

test_expect_success 'history undo restores the exact old bytes (CRLF, no final newline)' '
	keeper --json history undo "$(cat undo.op)" >undo.json &&
	test "$(json_get .ok undo.json)" = true &&
	cmp undo.orig undo.txt
'

test_expect_success 'history undo of a normalised replacement restores the old indentation and whitespace' '
	printf "fn main() {\n        let x = 1;   \n        call(x);\n}\n" >renorm.rs &&
	cp renorm.rs renorm.orig &&
	replaced renorm.rs --old-file norm.old --new-file norm.new --first &&
	test "$(json_get .match_stage out.json)" = normalised &&
	keeper --json history undo "$(json_get .operation_id out.json)" >undo.json &&
	cmp renorm.orig renorm.rs
'

# dry run

test_expect_success '--dry-run prints a unified diff of the replacement' '
	printf "a\nb\nc\n" >dry.txt &&
	tree_state >"$TRASH/dry.before" &&
	keeper file replace-text dry.txt --old b --new B --first --dry-run >"$TRASH/dry.diff" &&
	tree_state >"$TRASH/dry.after" &&
	cat >expect <<-\EOF &&
	--- a/dry.txt
	+++ b/dry.txt
	@@ -1,3 +1,3 @@
	 a
	-b
	+B
	 c
	EOF
	test_cmp expect "$TRASH/dry.diff"
'

test_expect_success '--dry-run writes nothing: the tree and the journal are unchanged' '
	test_cmp "$TRASH/dry.before" "$TRASH/dry.after"
'

test_expect_success '--dry-run --json is a preview naming the stage, with no operation id' '
	keeper --json file replace-text dry.txt --old b --new B --first --dry-run >dry.json &&
	test "$(json_get .dry_run dry.json)" = true &&
	test "$(json_get .changed dry.json)" = false &&
	test "$(json_get .operation_id dry.json)" = null &&
	test "$(json_get .would_change dry.json)" = true &&
	test "$(json_get .match_stage dry.json)" = exact &&
	test "$(json_get .match_count dry.json)" = 1 &&
	printf "a\nB\nc\n" >dry.expect &&
	test "$(json_get .predicted_after_hash dry.json)" = "$(sha dry.expect)" &&
	printf "a\nb\nc\n" >expect &&
	cmp expect dry.txt
'

test_expect_success 'the dry-run diff of a normalised match, applied with patch, gives what the real run writes' '
	printf "fn main() {\n        let x = 1;   \n        call(x);\n}\n" >drynorm.rs &&
	keeper --json file replace-text drynorm.rs --old-file norm.old --new-file norm.new --first \
		--dry-run >drynorm.json &&
	test "$(json_get .match_stage drynorm.json)" = normalised &&
	test "$(json_get ".warnings | length" drynorm.json)" = 1 &&
	mkdir -p "$TRASH/drypatch" &&
	cp drynorm.rs "$TRASH/drypatch/" &&
	json_get .preview_diff drynorm.json | patch -s -p1 -d "$TRASH/drypatch" &&
	replaced drynorm.rs --old-file norm.old --new-file norm.new --first &&
	cmp "$TRASH/drypatch/drynorm.rs" drynorm.rs
'

test_expect_success 'a dry run checks the same rules: several matches with --first are still refused' '
	printf "dup\ndup\n" >dup.txt &&
	save dup.txt &&
	refused 17 MATCH_COUNT_MISMATCH file replace-text dup.txt --old dup --new x --first --dry-run &&
	untouched dup.txt
'

test_expect_success 'new text with a NUL that would make the file binary is refused, and writes nothing' '
	printf "first\nsecond\n" >nul.txt &&
	save nul.txt &&
	printf "fir\000st" >nul.new &&
	refused 2 INVALID_ARGUMENT file replace-text nul.txt --old first --new-file nul.new --first &&
	json_get ".error.details.reason == \"would_become_binary\"" refusal.json &&
	untouched nul.txt &&
	keeper --json file read nul.txt >out &&
	json_get ".ok" out
'

test_done
