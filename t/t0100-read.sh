#!/bin/sh
test_description='keeper file read: exact bytes, honest metadata, strict ranges, bounded reads

Content goes to stdout byte for byte (CRLF, lone CR, mixed endings, no final newline, a UTF-8
BOM); metadata goes to stderr, or into one JSON object with --json (content, content_hash,
size_bytes, encoding, newline, bom, line_count, start_line, end_line, truncated,
truncation_reason, next_start_line). Line numbers are 1-based and inclusive; a range beyond the
end is INVALID_ARGUMENT naming the line count, never clamped. Binary content (a NUL in the first
8 KiB) is BINARY_CONTENT_REFUSED; undecodable bytes are refused unless --encoding names the
encoding. --max-bytes stops at a whole line and says where to continue; following
next_start_line reassembles the whole file. Reads are bounded by max_read_bytes. The
content_hash is what publish --expected-hash takes. Paths outside the root are refused, and a
read never creates .filekeeper/.'
. ./test-lib.sh

# sha256_of FILE: the content hash sha256sum computes for FILE, as sha256:<hex>.
sha256_of () {
	printf 'sha256:%s\n' "$(sha256sum <"$1" | cut -d" " -f1)"
}

# gen_lines N EOL: N numbered lines of varying length (0 to 180 filler characters, some of them
# multibyte), each ended by EOL: lf, crlf, or cycle (LF, CRLF and a lone CR in turn).
gen_lines () {
	awk -v n="$1" -v eol="$2" 'BEGIN {
		for (i = 1; i <= n; i++) {
			len = (i * 37) % 181
			s = sprintf("%d:", i)
			for (j = 0; j < len; j++) s = s ((j % 50 == 49) ? "é" : "x")
			if (eol == "lf") e = "\n"
			else if (eol == "crlf") e = "\r\n"
			else e = (i % 3 == 0) ? "\n" : ((i % 3 == 1) ? "\r\n" : "\r")
			printf "%s%s", s, e
		}
	}'
}

# read_in_chunks FILE MAX: follows next_start_line from line 1 with --max-bytes MAX, appending
# each chunk's content to FILE.joined; records the number of reads in FILE.reads. Every chunk
# must start where the previous one said to continue and hold at most MAX bytes.
read_in_chunks () {
	file=$1 max=$2 &&
	: >"$file.joined" &&
	from=1 reads=0 &&
	while test "$from" != null
	do
		reads=$((reads + 1)) &&
		test $reads -le 10000 &&
		keeper --json file read "$file" --from-line "$from" --max-bytes "$max" >chunk.json &&
		test "$(json_get .start_line chunk.json)" = "$from" &&
		jq -j .content chunk.json >chunk.bytes &&
		test "$(size_of chunk.bytes)" -le "$max" &&
		cat chunk.bytes >>"$file.joined" &&
		from=$(jq -r .next_start_line chunk.json) || return 1
	done &&
	test "$(json_get .truncated chunk.json)" = false &&
	echo $reads >"$file.reads"
}

test_expect_success 'setup: files with every newline convention, a BOM, and numbered lines' '
	printf "alpha\nbeta\ngamma\n" >lf.txt &&
	printf "one\r\ntwo\r\nthree\r\n" >crlf.txt &&
	printf "one\rtwo\rthree\r" >cr.txt &&
	printf "one\r\ntwo\nthree\rfour\n" >mixed.txt &&
	printf "no newline at all" >nonl.txt &&
	printf "first\nlast without newline" >lastnonl.txt &&
	printf "\357\273\277hello\nworld\n" >bom.txt &&
	: >empty.txt &&
	for i in 1 2 3 4 5 6 7 8 9 10
	do
		echo "line $i" || exit 1
	done >num.txt &&
	test "$(size_of num.txt)" = 71
'

test_expect_success 'read prints an LF file on stdout byte for byte' '
	keeper file read lf.txt >out 2>err &&
	cmp lf.txt out
'

test_expect_success 'read prints a CRLF file byte for byte, carriage returns kept' '
	keeper file read crlf.txt >out 2>err &&
	cmp crlf.txt out
'

test_expect_success 'read prints a CR-only file byte for byte' '
	keeper file read cr.txt >out 2>err &&
	cmp cr.txt out
'

test_expect_success 'read prints a file with mixed line endings byte for byte' '
	keeper file read mixed.txt >out 2>err &&
	cmp mixed.txt out
'

test_expect_success 'read adds no newline to a file without a final newline' '
	keeper file read lastnonl.txt >out 2>err &&
	cmp lastnonl.txt out &&
	keeper file read nonl.txt >out 2>err &&
	cmp nonl.txt out
'

test_expect_success 'read keeps the UTF-8 BOM on stdout' '
	keeper file read bom.txt >out 2>err &&
	cmp bom.txt out
'

test_expect_success 'read of an empty file prints nothing and succeeds' '
	keeper file read empty.txt >out 2>err &&
	test ! -s out
'

test_expect_success 'read puts metadata on stderr: the newline convention and the hash' '
	keeper file read crlf.txt >out 2>err &&
	cmp crlf.txt out &&
	grep "$(sha256_of crlf.txt)" err &&
	grep "crlf" err
'

test_expect_success 'read --quiet prints the content and nothing on stderr' '
	keeper --quiet file read lf.txt >out 2>err &&
	cmp lf.txt out &&
	test ! -s err
'

test_expect_success 'read --json reports every field of a whole-file read' '
	keeper --json file read lf.txt >out 2>err &&
	test ! -s err &&
	cat >expect.json <<-EOF &&
	{
		"ok": true,
		"workspace": "test",
		"path": "lf.txt",
		"content": "alpha\nbeta\ngamma\n",
		"content_hash": "$(sha256_of lf.txt)",
		"size_bytes": 17,
		"encoding": "utf-8",
		"newline": "lf",
		"bom": false,
		"line_count": 3,
		"start_line": 1,
		"end_line": 3,
		"truncated": false,
		"truncation_reason": null,
		"next_start_line": null
	}
	EOF
	jq -S . expect.json >expect &&
	jq -S . out >actual &&
	test_cmp expect actual
'

test_expect_success 'read --json content_hash is the sha256 of the exact bytes and size_bytes their count' '
	for f in lf.txt crlf.txt cr.txt mixed.txt nonl.txt bom.txt empty.txt
	do
		keeper --json file read $f >out &&
		test "$(json_get .content_hash out)" = "$(sha256_of $f)" &&
		test "$(json_get .size_bytes out)" = "$(size_of $f)" || exit 1
	done
'

test_expect_success 'read --json of a CRLF file: content keeps CRLF, newline is crlf' '
	keeper --json file read crlf.txt >out &&
	jq -j .content out >content &&
	cmp crlf.txt content &&
	test "$(json_get .newline out)" = crlf &&
	test "$(json_get .line_count out)" = 3
'

test_expect_success 'read --json of a CR-only file: newline is cr, each CR ends a line' '
	keeper --json file read cr.txt >out &&
	jq -j .content out >content &&
	cmp cr.txt content &&
	test "$(json_get .newline out)" = cr &&
	test "$(json_get .line_count out)" = 3
'

test_expect_success 'read --json of mixed endings: newline is mixed, every kind ends a line' '
	keeper --json file read mixed.txt >out &&
	test "$(json_get .newline out)" = mixed &&
	test "$(json_get .line_count out)" = 4
'

test_expect_success 'read --json of a single unterminated line: newline is none, one line' '
	keeper --json file read nonl.txt >out &&
	test "$(json_get .newline out)" = none &&
	test "$(json_get .line_count out)" = 1 &&
	test "$(json_get .content out)" = "no newline at all"
'

test_expect_success 'read --json counts an unterminated last line' '
	keeper --json file read lastnonl.txt >out &&
	test "$(json_get .newline out)" = lf &&
	test "$(json_get .line_count out)" = 2
'

test_expect_success 'read --json of an empty file: no lines, newline none, empty content' '
	keeper --json file read empty.txt >out &&
	test "$(json_get .line_count out)" = 0 &&
	test "$(json_get .newline out)" = none &&
	test "$(json_get .content out)" = "" &&
	test "$(json_get .size_bytes out)" = 0 &&
	test "$(json_get .truncated out)" = false
'

test_expect_success 'read --json of a BOM file: bom true, content without the BOM, hash with it' '
	keeper --json file read bom.txt >out &&
	test "$(json_get .bom out)" = true &&
	printf "hello\nworld\n" >expect &&
	jq -j .content out >actual &&
	test_cmp expect actual &&
	test "$(json_get .content_hash out)" = "$(sha256_of bom.txt)" &&
	test "$(json_get .size_bytes out)" = 15 &&
	test "$(json_get .line_count out)" = 2
'

test_expect_success 'a file that is only a BOM has no line, as an empty file has none' '
	printf "\357\273\277" >only-bom.txt &&
	keeper --json file read only-bom.txt >out &&
	test "$(json_get .bom out)" = true &&
	test "$(json_get .line_count out)" = 0 &&
	test "$(jq -r .start_line out)" = null &&
	keeper --json file info only-bom.txt >info &&
	test "$(json_get .line_count info)" = 0
'

test_expect_success 'read --json of a file without BOM says bom false' '
	keeper --json file read crlf.txt >out &&
	test "$(json_get .bom out)" = false
'

test_expect_success 'read --from-line 2 of a BOM file prints no BOM' '
	keeper file read bom.txt --from-line 2 >out 2>err &&
	printf "world\n" >expect &&
	cmp expect out
'

test_expect_success 'read --to-line 1 of a BOM file keeps the BOM on stdout' '
	keeper file read bom.txt --to-line 1 >out 2>err &&
	printf "\357\273\277hello\n" >expect &&
	cmp expect out
'

test_expect_success 'read --from-line 1 --to-line 1 returns the first line only' '
	keeper file read num.txt --from-line 1 --to-line 1 >out 2>err &&
	echo "line 1" >expect &&
	test_cmp expect out &&
	keeper --json file read num.txt --from-line 1 --to-line 1 >out &&
	test "$(json_get .start_line out)" = 1 &&
	test "$(json_get .end_line out)" = 1 &&
	test "$(json_get .line_count out)" = 10 &&
	test "$(json_get .truncated out)" = false
'

test_expect_success 'read --from-line 10 --to-line 10 returns the last line only' '
	keeper file read num.txt --from-line 10 --to-line 10 >out 2>err &&
	echo "line 10" >expect &&
	test_cmp expect out &&
	keeper --json file read num.txt --from-line 10 --to-line 10 >out &&
	test "$(json_get .start_line out)" = 10 &&
	test "$(json_get .end_line out)" = 10
'

test_expect_success 'read of a single line in the middle returns exactly that line' '
	keeper file read num.txt --from-line 5 --to-line 5 >out 2>err &&
	echo "line 5" >expect &&
	test_cmp expect out
'

test_expect_success 'read --from-line alone reads to the end of the file' '
	keeper file read num.txt --from-line 8 >out 2>err &&
	printf "line 8\nline 9\nline 10\n" >expect &&
	test_cmp expect out &&
	keeper --json file read num.txt --from-line 8 >out &&
	test "$(json_get .start_line out)" = 8 &&
	test "$(json_get .end_line out)" = 10
'

test_expect_success 'read --to-line alone reads from the first line' '
	keeper file read num.txt --to-line 3 >out 2>err &&
	printf "line 1\nline 2\nline 3\n" >expect &&
	test_cmp expect out &&
	keeper --json file read num.txt --to-line 3 >out &&
	test "$(json_get .start_line out)" = 1 &&
	test "$(json_get .end_line out)" = 3
'

test_expect_success 'read --from-line 1 --to-line LAST is the whole file' '
	keeper file read num.txt --from-line 1 --to-line 10 >out 2>err &&
	cmp num.txt out
'

test_expect_success 'a range of a CRLF file keeps its CRLF terminators' '
	keeper file read crlf.txt --from-line 2 --to-line 2 >out 2>err &&
	printf "two\r\n" >expect &&
	cmp expect out
'

test_expect_success 'a range of a CR-only file splits lines at each lone CR' '
	keeper file read cr.txt --from-line 2 --to-line 3 >out 2>err &&
	printf "two\rthree\r" >expect &&
	cmp expect out
'

test_expect_success 'a range of a mixed file returns each line with its own terminator' '
	keeper file read mixed.txt --from-line 2 --to-line 3 >out 2>err &&
	printf "two\nthree\r" >expect &&
	cmp expect out
'

test_expect_success 'the unterminated last line is returned as is' '
	keeper file read lastnonl.txt --from-line 2 >out 2>err &&
	printf "last without newline" >expect &&
	cmp expect out
'

test_expect_success 'the content_hash of a partial read is the hash of the whole file' '
	keeper --json file read crlf.txt --from-line 2 --to-line 2 >out &&
	test "$(json_get .content_hash out)" = "$(sha256_of crlf.txt)" &&
	test "$(json_get .size_bytes out)" = "$(size_of crlf.txt)" &&
	test "$(json_get .line_count out)" = 3
'

test_expect_success '--from-line past the end is INVALID_ARGUMENT naming the line count' '
	test_expect_code 2 keeper --json file read num.txt --from-line 11 >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.line_count out)" = 10 &&
	test "$(json_get .error.details.path out)" = num.txt &&
	test_no_host_path out
'

test_expect_success '--to-line past the end is INVALID_ARGUMENT naming the line count, not clamped' '
	test_expect_code 2 keeper --json file read num.txt --to-line 11 >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.line_count out)" = 10 &&
	test "$(json_get .error.details.path out)" = num.txt
'

test_expect_success 'a range starting inside the file but ending past it is refused, not clamped' '
	test_expect_code 2 keeper --json file read num.txt --from-line 9 --to-line 12 >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.line_count out)" = 10
'

test_expect_success 'a range wholly past the end is refused' '
	test_expect_code 2 keeper --json file read num.txt --from-line 20 --to-line 30 >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.line_count out)" = 10
'

test_expect_success 'an out-of-range read prints no content and says why on stderr' '
	test_expect_code 2 keeper file read num.txt --from-line 11 >out 2>err &&
	test ! -s out &&
	grep "^error\[INVALID_ARGUMENT\]" err &&
	grep "10" err
'

test_expect_success '--from-line 2 of an empty file is INVALID_ARGUMENT with line_count 0' '
	test_expect_code 2 keeper --json file read empty.txt --from-line 2 >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.line_count out)" = 0
'

test_expect_success '--from-line 0 is refused: line numbers are 1-based' '
	test_expect_code 2 keeper --json file read num.txt --from-line 0 >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success '--to-line 0 is refused' '
	test_expect_code 2 keeper --json file read num.txt --to-line 0 >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success '--to-line before --from-line is refused' '
	test_expect_code 2 keeper --json file read num.txt --from-line 5 --to-line 4 >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success 'setup: binary files, NUL at the edge of the first 8 KiB and past it' '
	printf "text\000more text\n" >nul.bin &&
	{ head -c 8191 /dev/zero | tr "\000" x && printf "\000\n"; } >edge.bin &&
	test "$(size_of edge.bin)" = 8193 &&
	{ head -c 8192 /dev/zero | tr "\000" y && printf "\n\000after\n"; } >late-nul.txt &&
	test "$(size_of late-nul.txt)" = 8200
'

test_expect_success 'a NUL byte in the first 8 KiB is BINARY_CONTENT_REFUSED (exit 20)' '
	test_expect_code 20 keeper --json file read nul.bin >out &&
	test_error_code BINARY_CONTENT_REFUSED out &&
	test "$(json_get .error.details.path out)" = nul.bin &&
	test_no_host_path out
'

test_expect_success 'a refused binary read prints nothing on stdout' '
	test_expect_code 20 keeper file read nul.bin >out 2>err &&
	test ! -s out &&
	grep "^error\[BINARY_CONTENT_REFUSED\]" err
'

test_expect_success 'a NUL as the last byte of the first 8 KiB makes the file binary' '
	test_expect_code 20 keeper --json file read edge.bin >out &&
	test_error_code BINARY_CONTENT_REFUSED out
'

test_expect_success 'a NUL after the first 8 KiB does not make the file binary' '
	keeper file read late-nul.txt >out 2>err &&
	cmp late-nul.txt out &&
	keeper --json file read late-nul.txt >out &&
	test "$(json_get .line_count out)" = 2
'

test_expect_success 'setup: invalid UTF-8 on line 3, and past the first 64 KiB' '
	printf "fine\nstill fine\nbad \377 byte\nlast\n" >bad-utf8.txt &&
	{ gen_lines 2000 lf && printf "broken \303\050 here\n" && echo tail; } >late-bad.txt &&
	test "$(size_of late-bad.txt)" -gt 65536 &&
	printf "ends mid-character \303" >cut-utf8.txt
'

test_expect_success 'invalid UTF-8 is refused (BINARY_CONTENT_REFUSED), naming the line' '
	test_expect_code 20 keeper --json file read bad-utf8.txt >out &&
	test_error_code BINARY_CONTENT_REFUSED out &&
	json_get .error.message out >message &&
	grep "line 3" message &&
	test_no_host_path out
'

test_expect_success 'a refused undecodable read prints no mojibake on stdout' '
	test_expect_code 20 keeper file read bad-utf8.txt >out 2>err &&
	test ! -s out
'

test_expect_success 'invalid UTF-8 far into a file names the right line' '
	test_expect_code 20 keeper --json file read late-bad.txt >out &&
	test_error_code BINARY_CONTENT_REFUSED out &&
	json_get .error.message out >message &&
	grep "line 2001" message
'

test_expect_success 'a UTF-8 sequence cut off at the end of the file is refused' '
	test_expect_code 20 keeper --json file read cut-utf8.txt >out &&
	test_error_code BINARY_CONTENT_REFUSED out
'

test_expect_success 'a range of valid lines in a file with invalid UTF-8 elsewhere is still refused' '
	test_expect_code 20 keeper --json file read bad-utf8.txt --from-line 1 --to-line 1 >out &&
	test_error_code BINARY_CONTENT_REFUSED out
'

test_expect_success 'the undecodable refusal points to the CLI flag --encoding and no other surface' '
	test_expect_code 20 keeper --json file read bad-utf8.txt >out &&
	jq -r ".error.message, .error.details.recovery" out >said &&
	grep -e "--encoding" said &&
	! grep -i "mcp" said
'

test_expect_success 'setup: a Latin-1 file' '
	printf "caf\351\nna\357ve\n" >latin1.txt
'

test_expect_success 'a Latin-1 file is refused as UTF-8' '
	test_expect_code 20 keeper --json file read latin1.txt >out &&
	test_error_code BINARY_CONTENT_REFUSED out
'

test_expect_success 'a file that the named encoding cannot decode asks for another one' '
	test_expect_code 20 keeper --json file read latin1.txt --encoding shift_jis >out &&
	test_error_code BINARY_CONTENT_REFUSED out &&
	jq -r .error.message out >said &&
	grep "not valid Shift_JIS" said &&
	! grep -e "name the encoding" said &&
	test "$(jq -r .error.details.recovery out)" = \
		"if the file is text in another encoding, name that one with --encoding"
'

test_expect_success 'read --encoding latin1 prints the raw bytes unchanged' '
	keeper file read latin1.txt --encoding latin1 >out 2>err &&
	cmp latin1.txt out
'

test_expect_success 'read --json --encoding latin1 decodes the content to UTF-8' '
	keeper --json file read latin1.txt --encoding latin1 >out &&
	test "$(json_get .content out)" = "$(printf "caf\303\251\nna\303\257ve")" &&
	test "$(json_get .encoding out)" != utf-8 &&
	test "$(json_get .line_count out)" = 2 &&
	test "$(json_get .content_hash out)" = "$(sha256_of latin1.txt)"
'

test_expect_success 'read --encoding latin1 --from-line 1 --to-line 1 decodes that line' '
	keeper --json file read latin1.txt --encoding latin1 --from-line 1 --to-line 1 >out &&
	test "$(json_get .content out)" = "café"
'

test_expect_success 'read --encoding utf-8 on a UTF-8 file is the default read' '
	keeper --json file read bom.txt --encoding utf-8 >out &&
	test "$(json_get .encoding out)" = utf-8 &&
	test "$(json_get .bom out)" = true
'

test_expect_success 'an unknown encoding is INVALID_ARGUMENT naming the encoding and the path' '
	test_expect_code 2 keeper --json file read latin1.txt --encoding klingon >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.encoding out)" = klingon &&
	test "$(json_get .error.details.path out)" = latin1.txt
'

test_expect_success '--encoding utf-16 is INVALID_ARGUMENT' '
	test_expect_code 2 keeper --json file read latin1.txt --encoding utf-16 >out &&
	test_error_code INVALID_ARGUMENT out &&
	test_expect_code 2 keeper --json file read latin1.txt --encoding utf-16le >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success '--max-bytes stops at a whole line and says where to continue' '
	keeper --json file read num.txt --max-bytes 20 >out &&
	printf "line 1\nline 2\n" >expect &&
	jq -j .content out >actual &&
	test_cmp expect actual &&
	test "$(json_get .truncated out)" = true &&
	test "$(json_get .truncation_reason out)" = max_bytes &&
	test "$(json_get .next_start_line out)" = 3 &&
	test "$(json_get .start_line out)" = 1 &&
	test "$(json_get .end_line out)" = 2 &&
	test "$(json_get .line_count out)" = 10 &&
	test "$(json_get .content_hash out)" = "$(sha256_of num.txt)"
'

test_expect_success '--max-bytes on stdout prints the whole lines that fit, nothing more' '
	keeper file read num.txt --max-bytes 20 >out 2>err &&
	printf "line 1\nline 2\n" >expect &&
	cmp expect out &&
	grep -e "--from-line 3" err
'

test_expect_success '--max-bytes equal to the bytes of whole lines keeps them all' '
	keeper --json file read num.txt --max-bytes 21 >out &&
	test "$(json_get .end_line out)" = 3 &&
	test "$(json_get .next_start_line out)" = 4
'

test_expect_success '--max-bytes equal to the file size is not truncated' '
	keeper --json file read num.txt --max-bytes 71 >out &&
	test "$(json_get .truncated out)" = false &&
	test "$(json_get .truncation_reason out)" = null &&
	test "$(json_get .next_start_line out)" = null &&
	jq -j .content out >actual &&
	cmp num.txt actual
'

test_expect_success '--max-bytes one short of the file size truncates before the last line' '
	keeper --json file read num.txt --max-bytes 70 >out &&
	test "$(json_get .truncated out)" = true &&
	test "$(json_get .end_line out)" = 9 &&
	test "$(json_get .next_start_line out)" = 10
'

test_expect_success '--max-bytes with --from-line continues from that line' '
	keeper --json file read num.txt --from-line 5 --max-bytes 14 >out &&
	printf "line 5\nline 6\n" >expect &&
	jq -j .content out >actual &&
	test_cmp expect actual &&
	test "$(json_get .next_start_line out)" = 7
'

test_expect_success 'a range that fits in --max-bytes is not truncated' '
	keeper --json file read num.txt --from-line 2 --to-line 3 --max-bytes 14 >out &&
	test "$(json_get .truncated out)" = false &&
	test "$(json_get .next_start_line out)" = null
'

test_expect_success 'a range cut by --max-bytes continues inside the range' '
	keeper --json file read num.txt --from-line 2 --to-line 6 --max-bytes 14 >out &&
	test "$(json_get .end_line out)" = 3 &&
	test "$(json_get .next_start_line out)" = 4
'

test_expect_success '--max-bytes counts CRLF terminators as bytes' '
	keeper --json file read crlf.txt --max-bytes 10 >out &&
	printf "one\r\ntwo\r\n" >expect &&
	jq -j .content out >actual &&
	cmp expect actual &&
	test "$(json_get .next_start_line out)" = 3
'

test_expect_success 'a first line longer than --max-bytes is LIMIT_EXCEEDED (exit 21), naming the line' '
	test_expect_code 21 keeper --json file read num.txt --max-bytes 5 >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get .error.details.line out)" = 1 &&
	test "$(json_get .error.details.path out)" = num.txt &&
	test_no_host_path out
'

test_expect_success 'a line longer than --max-bytes at --from-line is LIMIT_EXCEEDED for that line' '
	test_expect_code 21 keeper --json file read num.txt --from-line 10 --max-bytes 7 >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get .error.details.line out)" = 10
'

test_expect_success 'a long line after short ones truncates before it, then is refused alone' '
	{ echo short && head -c 100 /dev/zero | tr "\000" L && echo; } >longline.txt &&
	keeper --json file read longline.txt --max-bytes 50 >out &&
	test "$(json_get .end_line out)" = 1 &&
	test "$(json_get .next_start_line out)" = 2 &&
	test_expect_code 21 keeper --json file read longline.txt --from-line 2 --max-bytes 50 >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get .error.details.line out)" = 2
'

test_expect_success '--max-bytes 0 is INVALID_ARGUMENT' '
	test_expect_code 2 keeper --json file read num.txt --max-bytes 0 >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success '--max-bytes above the default max_read_bytes is LIMIT_EXCEEDED (exit 21)' '
	test_expect_code 21 keeper --json file read num.txt --max-bytes 5242881 >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get .error.details.limit out)" = 5242880
'

test_expect_success '--max-bytes equal to the default max_read_bytes is accepted' '
	keeper --json file read num.txt --max-bytes 5242880 >out &&
	test "$(json_get .truncated out)" = false
'

test_expect_success 'a read without --max-bytes stops at the default 5 MiB, at a whole line' '
	awk "BEGIN { for (i = 1; i <= 70000; i++) printf \"%079d\n\", i }" >five-mib.txt &&
	test "$(size_of five-mib.txt)" = 5600000 &&
	keeper --json file read five-mib.txt >out &&
	test "$(json_get .truncated out)" = true &&
	test "$(json_get .truncation_reason out)" = max_bytes &&
	test "$(json_get .end_line out)" = 65536 &&
	test "$(json_get .next_start_line out)" = 65537 &&
	test "$(json_get .line_count out)" = 70000 &&
	jq -j .content out >content &&
	test "$(size_of content)" = 5242880 &&
	head -c 5242880 five-mib.txt | cmp - content
'

test_expect_success 'setup: a 20,000-line LF file, a CRLF one and a mixed one' '
	gen_lines 20000 lf >big-lf.txt &&
	gen_lines 20000 crlf >big-crlf.txt &&
	gen_lines 20000 cycle >big-mixed.txt &&
	test "$(size_of big-lf.txt)" -gt 1000000
'

test_expect_success 'following next_start_line through a large LF file reassembles it exactly' '
	read_in_chunks big-lf.txt 131072 &&
	cmp big-lf.txt big-lf.txt.joined &&
	test "$(cat big-lf.txt.reads)" -gt 10
'

test_expect_success 'following next_start_line through a large CRLF file reassembles it exactly' '
	read_in_chunks big-crlf.txt 262144 &&
	cmp big-crlf.txt big-crlf.txt.joined &&
	test "$(cat big-crlf.txt.reads)" -gt 5
'

test_expect_success 'following next_start_line through a large mixed file, in odd-sized chunks' '
	read_in_chunks big-mixed.txt 199999 &&
	cmp big-mixed.txt big-mixed.txt.joined &&
	keeper --json file read big-mixed.txt --to-line 1 >out &&
	test "$(json_get .newline out)" = mixed &&
	test "$(json_get .line_count out)" = 20000
'

test_expect_success 'the last line of the large file is addressable by number' '
	keeper file read big-crlf.txt --from-line 20000 >out 2>err &&
	tail -n 1 big-crlf.txt >expect &&
	cmp expect out
'

test_expect_success 'setup: a home whose config.toml sets max_read_bytes = 64' '
	mkdir "$TRASH/small-home" &&
	printf "[filekeeper]\nmax_read_bytes = 64\n" >"$TRASH/small-home/config.toml"
'

test_expect_success 'config max_read_bytes bounds a read without --max-bytes' '
	FILEKEEPER_HOME=$TRASH/small-home keeper --root "$WS" --json file read num.txt >out &&
	test "$(json_get .truncated out)" = true &&
	test "$(json_get .truncation_reason out)" = max_bytes &&
	test "$(json_get .end_line out)" = 9 &&
	test "$(json_get .next_start_line out)" = 10
'

test_expect_success '--max-bytes above the configured max_read_bytes is LIMIT_EXCEEDED naming it' '
	test_expect_code 21 env FILEKEEPER_HOME="$TRASH/small-home" \
		keeper --root "$WS" --json file read num.txt --max-bytes 65 >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get .error.details.limit out)" = 64
'

test_expect_success 'setup: secrets outside the root, links out of it, and a directory' '
	printf "outside secret\n" >"$OUTSIDE/secret.txt" &&
	ln -s "$OUTSIDE/secret.txt" escape-link &&
	ln -s "$OUTSIDE" outside-dir &&
	ln -s lf.txt inside-link &&
	mkdir adir
'

test_expect_success 'read ../ is PATH_OUTSIDE_WORKSPACE (exit 4) and shows no content' '
	test_expect_code 4 keeper --json file read ../outside/secret.txt >out &&
	test_error_code PATH_OUTSIDE_WORKSPACE out &&
	! grep "outside secret" out &&
	test_no_host_path out
'

test_expect_success 'read of an absolute path outside is ABSOLUTE_PATH_OUTSIDE_WORKSPACE (exit 6)' '
	test_expect_code 6 keeper --json file read "$OUTSIDE/secret.txt" >out &&
	test_error_code ABSOLUTE_PATH_OUTSIDE_WORKSPACE out &&
	! grep "outside secret" out
'

test_expect_success 'read through a symlink leaving the root is SYMLINK_ESCAPE_REFUSED (exit 11)' '
	test_expect_code 11 keeper --json file read escape-link >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	! grep "outside secret" out &&
	test_no_host_path out
'

test_expect_success 'read through a symlinked directory leaving the root is SYMLINK_ESCAPE_REFUSED' '
	test_expect_code 11 keeper --json file read outside-dir/secret.txt >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	! grep "outside secret" out
'

test_expect_success 'a refused outside read prints nothing on stdout' '
	test_expect_code 11 keeper file read escape-link >out 2>err &&
	test ! -s out
'

test_expect_success 'read of an absolute path inside the root works' '
	keeper file read "$WS/lf.txt" >out 2>err &&
	cmp lf.txt out
'

test_expect_success 'read through a symlink to a file inside the root works' '
	keeper file read inside-link >out 2>err &&
	cmp lf.txt out
'

test_expect_success 'read of a directory is NOT_A_FILE' '
	test_must_fail keeper --json file read adir >out &&
	test_error_code NOT_A_FILE out &&
	test "$(json_get .error.details.path out)" = adir
'

test_expect_success 'read of a missing file is PATH_NOT_FOUND (exit 3)' '
	test_expect_code 3 keeper --json file read no-such.txt >out &&
	test_error_code PATH_NOT_FOUND out &&
	test "$(json_get .error.details.path out)" = no-such.txt
'

test_expect_success 'read of a FIFO is SPECIAL_FILE_REFUSED and does not block' '
	mkfifo fifo &&
	test_expect_code 13 timeout 10 keeper --json file read fifo >out &&
	test_error_code SPECIAL_FILE_REFUSED out
'

test_expect_success 'read of a name that is not UTF-8 is INVALID_ARGUMENT, never a lossy name' '
	printf "x\n" >"$(printf "bad\377.txt")" &&
	test_expect_code 2 keeper --json file read "$(printf "bad\377.txt")" >out &&
	test_error_code INVALID_ARGUMENT out &&
	! grep "$(printf "\357\277\275")" out
'

test_expect_success 'read of the name with a replacement character is PATH_NOT_FOUND: no such file' '
	test_expect_code 3 keeper --json file read "$(printf "bad\357\277\275.txt")" >out &&
	test_error_code PATH_NOT_FOUND out &&
	rm "$(printf "bad\377.txt")"
'

test_expect_success 'read --numbered prints each line after its number and a tab, as cat -n does' '
	keeper file read num.txt --numbered --from-line 9 2>/dev/null >actual &&
	printf "     9\tline 9\n    10\tline 10\n" >expect &&
	test_cmp expect actual &&
	cat -n num.txt | tail -n 2 >cat-n &&
	test_cmp cat-n actual
'

test_expect_success 'read --numbered numbers lines as every line number counts them, each ending in LF' '
	keeper file read mixed.txt --numbered 2>/dev/null >actual &&
	printf "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n" >expect &&
	test_cmp expect actual &&
	keeper file read lastnonl.txt --numbered 2>/dev/null >actual &&
	printf "     1\tfirst\n     2\tlast without newline\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'read --numbered --json is the same document as without: content is the file text' '
	keeper --json file read crlf.txt --numbered >numbered.json &&
	keeper --json file read crlf.txt >plain.json &&
	test_cmp plain.json numbered.json
'

test_expect_success 'lines of a numbered read sent back as old text are NO_MATCH naming their prefixes' '
	cp num.txt edited.txt &&
	keeper file read edited.txt --numbered --from-line 3 --to-line 4 2>/dev/null >old &&
	test_expect_code 16 keeper --json file replace-text edited.txt --old "$(cat old)" --new x --first >out &&
	test_error_code NO_MATCH out &&
	json_get ".error.details.line_number_prefixes | .form == \"tab\" and .first_number == 3 and
		.last_number == 4 and .stripped_match_count == 1" out &&
	cmp num.txt edited.txt &&
	rm edited.txt
'

test_expect_success '--max-lines stops after that many lines and says where to continue' '
	keeper --json file read num.txt --from-line 2 --max-lines 3 >out &&
	json_get ".start_line == 2 and .end_line == 4 and .truncated == true and
		.truncation_reason == \"max_lines\" and .next_start_line == 5" out &&
	test "$(json_get .content out)" = "$(printf "line 2\nline 3\nline 4")" &&
	keeper file read num.txt --max-lines 3 2>err >/dev/null &&
	grep -e "cut at the --max-lines bound; continue with --from-line 4" err
'

test_expect_success 'a cut read says so on stderr even with --quiet, and only that' '
	keeper --quiet file read num.txt --max-lines 3 2>err >out &&
	test_line_count = 3 out &&
	echo "cut at the --max-lines bound; continue with --from-line 4" >expect &&
	test_cmp expect err &&
	keeper --quiet file read-many num.txt lf.txt --max-lines-per-file 3 2>err >/dev/null &&
	echo "num.txt: cut at the --max-lines-per-file bound; continue with --from-line 4" >expect &&
	test_cmp expect err &&
	keeper --quiet file read-many lf.txt missing.txt 2>err >out &&
	grep "^missing.txt: error\[PATH_NOT_FOUND\]" err &&
	test_line_count = 1 err
'

test_expect_success '--max-lines at or above the lines asked for is no cut' '
	keeper --json file read num.txt --max-lines 10 >out &&
	json_get ".end_line == 10 and .truncated == false and .truncation_reason == null" out &&
	keeper --json file read num.txt --from-line 3 --to-line 5 --max-lines 3 >out &&
	json_get ".end_line == 5 and .truncated == false" out
'

test_expect_success 'whichever of --max-lines and --max-bytes comes first cuts the read' '
	keeper --json file read num.txt --max-lines 5 --max-bytes 14 >out &&
	json_get ".end_line == 2 and .truncation_reason == \"max_bytes\"" out &&
	keeper --json file read num.txt --max-lines 2 --max-bytes 70 >out &&
	json_get ".end_line == 2 and .truncation_reason == \"max_lines\"" out
'

test_expect_success '--max-lines 0 is INVALID_ARGUMENT naming the flag' '
	test_expect_code 2 keeper --json file read num.txt --max-lines 0 >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.message out)" = "--max-lines must be at least 1"
'

test_expect_success 'read-many --max-lines-per-file and --numbered apply to each file' '
	keeper --json file read-many num.txt lf.txt --max-lines-per-file 2 >out &&
	json_get "[.results[] | .end_line] == [2, 2]" out &&
	keeper file read-many num.txt lf.txt --max-lines-per-file 1 --numbered 2>/dev/null >actual &&
	printf "==> num.txt <==\n     1\tline 1\n==> lf.txt <==\n     1\talpha\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'none of the reads above created .filekeeper/' '
	test ! -e .filekeeper &&
	test ! -e "$OUTSIDE/.filekeeper"
'

test_expect_success 'the content_hash of a read is accepted by publish --expected-hash' '
	keeper --json file read crlf.txt --from-line 1 --to-line 1 >out &&
	json_get .content_hash out >read.hash &&
	printf "one\r\nTWO\r\nthree\r\n" >crlf.new &&
	keeper hash-object -w crlf.new >new.id &&
	keeper publish crlf.txt --blob "$(cat new.id)" --expected-hash "$(cat read.hash)" >/dev/null &&
	cmp crlf.new crlf.txt
'

test_expect_success 'after the write, the stale content_hash is refused with CONTENT_CONFLICT' '
	test_expect_code 15 keeper --json publish crlf.txt --blob "$(cat new.id)" \
		--expected-hash "$(cat read.hash)" >out &&
	test_error_code CONTENT_CONFLICT out &&
	keeper --json file read crlf.txt >out &&
	test "$(json_get .content_hash out)" = "$(cat new.id)"
'

test_done
