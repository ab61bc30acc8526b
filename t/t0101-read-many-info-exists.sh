#!/bin/sh
test_description='keeper file read-many, info, hash and exists

read-many returns one result per path, in the order given, each with its own ok and error, so one
failing path hides none of the others; more than 32 paths is LIMIT_EXCEEDED. info reports kind,
size, mode, modification time and, for files, the text facts and the hash. hash prints the
sha256: id sha256sum agrees with. exists is a shell predicate: exit 0 when the path exists,
3 when it does not, and still a refusal for paths outside the root. Nothing creates .filekeeper/.'
. ./test-lib.sh

# sha256_of FILE: the content hash sha256sum computes for FILE, as sha256:<hex>.
sha256_of () {
	printf 'sha256:%s\n' "$(sha256sum <"$1" | cut -d" " -f1)"
}

test_expect_success 'setup: text files, a binary file, a directory, links and 40 small files' '
	printf "alpha\nbeta\ngamma\n" >lf.txt &&
	printf "one\r\ntwo\r\nthree" >crlf.txt &&
	printf "\357\273\277bom line\n" >bom.txt &&
	printf "head\000tail\n" >blob.bin &&
	: >empty.txt &&
	mkdir -p docs/deep &&
	echo "nested" >docs/deep/note.md &&
	chmod 640 lf.txt &&
	mkdir many &&
	for i in $(seq 1 40)
	do
		printf "file %d\nsecond line of %d\n" $i $i >many/f$i.txt || exit 1
	done &&
	printf "outside secret\n" >"$OUTSIDE/secret.txt" &&
	ln -s "$OUTSIDE/secret.txt" escape-link &&
	ln -s "$OUTSIDE" outside-dir &&
	ln -s lf.txt inside-link
'

test_expect_success 'read-many returns one result per path, in the order given' '
	keeper --json file read-many crlf.txt lf.txt docs/deep/note.md >out &&
	json_get ".ok" out &&
	printf "crlf.txt\nlf.txt\ndocs/deep/note.md\n" >expect &&
	json_get ".results[].path" out >actual &&
	test_cmp expect actual
'

test_expect_success 'read-many results carry each file'"'"'s content, hash and text facts' '
	keeper --json file read-many crlf.txt lf.txt >out &&
	test "$(json_get ".results[0].ok" out)" = true &&
	jq -j ".results[0].content" out >content &&
	cmp crlf.txt content &&
	test "$(json_get ".results[0].content_hash" out)" = "$(sha256_of crlf.txt)" &&
	test "$(json_get ".results[0].newline" out)" = crlf &&
	test "$(json_get ".results[0].line_count" out)" = 3 &&
	test "$(json_get ".results[1].content_hash" out)" = "$(sha256_of lf.txt)" &&
	test "$(json_get ".results[1].newline" out)" = lf
'

test_expect_success 'a missing path in the middle fails on its own; the others are read' '
	keeper --json file read-many lf.txt missing.txt crlf.txt >out &&
	test "$(json_get ".results | length" out)" = 3 &&
	test "$(json_get ".results[0].ok" out)" = true &&
	test "$(json_get ".results[1].ok" out)" = false &&
	test "$(json_get ".results[1].error.code" out)" = PATH_NOT_FOUND &&
	test "$(json_get ".results[1].error.details.path" out)" = missing.txt &&
	test "$(json_get ".results[2].ok" out)" = true &&
	jq -j ".results[2].content" out >content &&
	cmp crlf.txt content
'

test_expect_success 'a binary path in the middle fails with its own code; the others are read' '
	keeper --json file read-many lf.txt blob.bin bom.txt >out &&
	test "$(json_get ".results[0].ok" out)" = true &&
	test "$(json_get ".results[1].ok" out)" = false &&
	test "$(json_get ".results[1].error.code" out)" = BINARY_CONTENT_REFUSED &&
	test "$(json_get ".results[1].error.details.path" out)" = blob.bin &&
	test "$(json_get ".results[2].ok" out)" = true &&
	test "$(json_get ".results[2].bom" out)" = true
'

test_expect_success 'a per-path error has code, message, retryable and details' '
	keeper --json file read-many missing.txt >out &&
	jq -e ".results[0].error | keys_unsorted == [\"code\", \"message\", \"retryable\", \"details\"]" out &&
	test_no_host_path out
'

test_expect_success 'a path outside the root in read-many is refused for that path only' '
	keeper --json file read-many ../outside/secret.txt escape-link lf.txt >out &&
	test "$(json_get ".results[0].error.code" out)" = PATH_OUTSIDE_WORKSPACE &&
	test "$(json_get ".results[1].error.code" out)" = SYMLINK_ESCAPE_REFUSED &&
	test "$(json_get ".results[2].ok" out)" = true &&
	! grep "outside secret" out &&
	test_no_host_path out
'

test_expect_success 'the same path twice gives two results' '
	keeper --json file read-many lf.txt lf.txt >out &&
	test "$(json_get ".results | length" out)" = 2 &&
	test "$(json_get ".results[0].content_hash" out)" = "$(json_get ".results[1].content_hash" out)"
'

test_expect_success 'read-many prints each file under a ==> path <== header' '
	keeper file read-many lf.txt docs/deep/note.md >out 2>err &&
	{
		echo "==> lf.txt <==" &&
		cat lf.txt &&
		echo "==> docs/deep/note.md <==" &&
		cat docs/deep/note.md
	} >expect &&
	test_cmp expect out
'

test_expect_success 'read-many keeps each file'"'"'s bytes under its header, CRLF included' '
	keeper file read-many crlf.txt lf.txt >out 2>err &&
	sed -n 2,4p out >body &&
	printf "one\r\ntwo\r\nthree\n" >expect &&
	cmp expect body
'

test_expect_success 'read-many puts each header on a line of its own after a file without a final newline, and says so' '
	printf "no end" >noend.txt &&
	printf "cr end\r" >crend.txt &&
	keeper file read-many noend.txt crend.txt lf.txt >out 2>err &&
	{
		echo "==> noend.txt <==" &&
		echo "no end" &&
		echo "==> crend.txt <==" &&
		printf "cr end\r\n" &&
		echo "==> lf.txt <==" &&
		cat lf.txt
	} >expect &&
	test_cmp expect out &&
	grep -F "noend.txt: the shown text ends without a newline" err &&
	grep -F "crend.txt: the shown text ends without a newline" err &&
	! grep -F "lf.txt: the shown" err
'

test_expect_success 'read-many without --json reports a failing path on stderr, not stdout' '
	keeper file read-many lf.txt missing.txt >out 2>err &&
	{ echo "==> lf.txt <==" && cat lf.txt; } >expect &&
	test_cmp expect out &&
	grep "missing.txt" err &&
	grep "PATH_NOT_FOUND" err
'

test_expect_success 'read-many of 32 paths is accepted' '
	(cd many && ls f*.txt | sort -V | head -n 32) >paths32 &&
	test_line_count = 32 paths32 &&
	keeper --json file read-many $(sed "s|^|many/|" paths32) >out &&
	test "$(json_get ".results | length" out)" = 32 &&
	test "$(json_get "[.results[] | select(.ok)] | length" out)" = 32
'

test_expect_success 'read-many of 33 paths is LIMIT_EXCEEDED (exit 21) and reads nothing' '
	(cd many && ls f*.txt | sort -V | head -n 33) >paths33 &&
	test_line_count = 33 paths33 &&
	test_expect_code 21 keeper --json file read-many $(sed "s|^|many/|" paths33) >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get ".error.details.limit" out)" = 32 &&
	! grep "file 1" out
'

test_expect_success 'read-many of 33 paths without --json prints no content' '
	test_expect_code 21 keeper file read-many $(sed "s|^|many/|" paths33) >out 2>err &&
	test ! -s out &&
	grep "^error\[LIMIT_EXCEEDED\]" err
'

test_expect_success 'read-many bounds no file could meet refuse the request, naming the per-file option' '
	test_expect_code 2 keeper --json file read-many lf.txt crlf.txt --max-bytes-per-file 0 >out &&
	test_error_code INVALID_ARGUMENT out &&
	json_get .error.message out | grep -e "^--max-bytes-per-file must be at least 1" &&
	test_expect_code 2 keeper --json file read-many lf.txt --max-lines-per-file 0 >out &&
	json_get .error.message out | grep -e "^--max-lines-per-file must be at least 1" &&
	test_expect_code 21 keeper --json file read-many lf.txt --max-bytes-per-file 99999999999 >out &&
	test_error_code LIMIT_EXCEEDED out &&
	json_get .error.message out | grep -e "^--max-bytes-per-file 99999999999 is above" &&
	test_expect_code 2 keeper --json file read-many lf.txt crlf.txt --encoding bogus >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.encoding out)" = bogus &&
	test_expect_code 2 keeper --json file read-many lf.txt crlf.txt --encoding utf-16le >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success 'read-many --max-bytes-per-file truncates each file on its own' '
	printf "aaaaaaaa\nbbbbbbbb\ncccccccc\n" >nine1.txt &&
	printf "dddddddd\neeeeeeee\n" >nine2.txt &&
	printf "ff\n" >short.txt &&
	keeper --json file read-many nine1.txt nine2.txt short.txt --max-bytes-per-file 18 >out &&
	test "$(json_get ".results[0].truncated" out)" = true &&
	test "$(json_get ".results[0].next_start_line" out)" = 3 &&
	test "$(json_get ".results[0].content" out)" = "$(printf "aaaaaaaa\nbbbbbbbb")" &&
	test "$(json_get ".results[1].truncated" out)" = false &&
	jq -j ".results[1].content" out >content &&
	cmp nine2.txt content &&
	test "$(json_get ".results[2].truncated" out)" = false
'

test_expect_success 'read-many --max-bytes-per-file: a file whose first line is too long fails alone' '
	printf "a line far longer than ten bytes\n" >wide.txt &&
	keeper --json file read-many short.txt wide.txt --max-bytes-per-file 10 >out &&
	test "$(json_get ".results[0].ok" out)" = true &&
	test "$(json_get ".results[1].error.code" out)" = LIMIT_EXCEEDED
'

test_expect_success 'read-many --from-line --to-line applies the range to every file' '
	keeper --json file read-many lf.txt crlf.txt --from-line 2 --to-line 2 >out &&
	test "$(json_get ".results[0].content" out)" = beta &&
	jq -j ".results[1].content" out >content &&
	printf "two\r\n" >expect &&
	cmp expect content
'

test_expect_success 'read-many: a range past the end of one file fails for that file only' '
	keeper --json file read-many lf.txt bom.txt --from-line 3 >out &&
	test "$(json_get ".results[0].ok" out)" = true &&
	test "$(json_get ".results[0].content" out)" = gamma &&
	test "$(json_get ".results[1].error.code" out)" = INVALID_ARGUMENT &&
	test "$(json_get ".results[1].error.details.line_count" out)" = 1
'

test_expect_success 'info of a text file reports every fact' '
	keeper --json file info lf.txt >out &&
	test "$(json_get ".path" out)" = lf.txt &&
	test "$(json_get ".kind" out)" = file &&
	test "$(json_get ".size_bytes" out)" = 17 &&
	test "$(json_get ".mode" out)" = 416 &&
	test "$(json_get ".is_text" out)" = true &&
	test "$(json_get ".encoding" out)" = utf-8 &&
	test "$(json_get ".newline" out)" = lf &&
	test "$(json_get ".bom" out)" = false &&
	test "$(json_get ".line_count" out)" = 3 &&
	test "$(json_get ".hash" out)" = "$(sha256_of lf.txt)"
'

test_expect_success 'info mode is an integer of the permission bits' '
	keeper --json file info lf.txt >out &&
	test "$(json_get ".mode | type" out)" = number &&
	printf "%d\n" "0$(stat -c %a lf.txt)" >expect &&
	json_get ".mode" out >actual &&
	test_cmp expect actual
'

test_expect_success 'info modified is the file'"'"'s mtime in RFC 3339' '
	touch -d "2021-03-04 05:06:07 UTC" lf.txt &&
	keeper --json file info lf.txt >out &&
	echo "2021-03-04T05:06:07Z" >expect &&
	json_get ".modified" out >actual &&
	test_cmp expect actual
'

test_expect_success 'info of a CRLF file with an unterminated last line reports crlf and every line' '
	keeper --json file info crlf.txt >out &&
	test "$(json_get ".newline" out)" = crlf &&
	test "$(json_get ".line_count" out)" = 3
'

test_expect_success 'info of a BOM file says bom true' '
	keeper --json file info bom.txt >out &&
	test "$(json_get ".bom" out)" = true &&
	test "$(json_get ".hash" out)" = "$(sha256_of bom.txt)"
'

test_expect_success 'info of an empty file: size 0, text, no lines' '
	keeper --json file info empty.txt >out &&
	test "$(json_get ".size_bytes" out)" = 0 &&
	test "$(json_get ".is_text" out)" = true &&
	test "$(json_get ".line_count" out)" = 0
'

test_expect_success 'info of a binary file: is_text false, no text facts, hash present' '
	keeper --json file info blob.bin >out &&
	test "$(json_get ".kind" out)" = file &&
	test "$(json_get ".is_text" out)" = false &&
	test "$(json_get ".size_bytes" out)" = 10 &&
	test "$(json_get ".hash" out)" = "$(sha256_of blob.bin)" &&
	test "$(jq -r ".line_count" out)" = null &&
	test "$(jq -r ".newline" out)" = null
'

test_expect_success 'info of a directory: kind directory, mode and time, no file facts' '
	chmod 750 docs &&
	touch -d "2022-01-02 03:04:05 UTC" docs &&
	keeper --json file info docs >out &&
	test "$(json_get ".kind" out)" = directory &&
	test "$(json_get ".mode" out)" = 488 &&
	test "$(json_get ".modified" out)" = 2022-01-02T03:04:05Z &&
	test "$(jq -r ".hash" out)" = null &&
	test "$(jq -r ".is_text" out)" = null &&
	test "$(jq -r ".line_count" out)" = null
'

test_expect_success 'info of the workspace root is a directory' '
	keeper --json file info . >out &&
	test "$(json_get ".kind" out)" = directory
'

test_expect_success 'info without --json prints one "key value" line per fact on stdout' '
	keeper file info lf.txt >out 2>err &&
	grep "^kind  *file$" out &&
	grep "^size_bytes  *17$" out &&
	grep "^hash  *$(sha256_of lf.txt)$" out
'

test_expect_success 'info of a missing path is PATH_NOT_FOUND (exit 3)' '
	test_expect_code 3 keeper --json file info missing.txt >out &&
	test_error_code PATH_NOT_FOUND out &&
	test "$(json_get ".error.details.path" out)" = missing.txt
'

test_expect_success 'info refuses paths outside the root (exit 4, 6, 11)' '
	test_expect_code 4 keeper --json file info ../outside/secret.txt >out &&
	test_error_code PATH_OUTSIDE_WORKSPACE out &&
	test_expect_code 6 keeper --json file info "$OUTSIDE/secret.txt" >out &&
	test_error_code ABSOLUTE_PATH_OUTSIDE_WORKSPACE out &&
	test_expect_code 11 keeper --json file info escape-link >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	test_no_host_path out
'

test_expect_success 'hash prints the sha256: id that sha256sum agrees with' '
	for f in lf.txt crlf.txt bom.txt blob.bin empty.txt docs/deep/note.md
	do
		sha256_of $f >expect &&
		keeper file hash $f >actual &&
		test_cmp expect actual || exit 1
	done
'

test_expect_success 'hash --json reports the path, the hash and the size' '
	keeper --json file hash blob.bin >out &&
	test "$(json_get ".path" out)" = blob.bin &&
	test "$(json_get ".hash" out)" = "$(sha256_of blob.bin)" &&
	test "$(json_get ".size_bytes" out)" = 10
'

test_expect_success 'hash of a multi-MB file matches sha256sum' '
	head -c 3000000 /dev/urandom >big.bin &&
	sha256_of big.bin >expect &&
	keeper file hash big.bin >actual &&
	test_cmp expect actual
'

test_expect_success 'hash agrees with read'"'"'s content_hash and info'"'"'s hash' '
	keeper file hash crlf.txt >hash &&
	keeper --json file read crlf.txt >read.json &&
	keeper --json file info crlf.txt >info.json &&
	test "$(cat hash)" = "$(json_get .content_hash read.json)" &&
	test "$(cat hash)" = "$(json_get .hash info.json)"
'

test_expect_success 'hash of a directory is NOT_A_FILE' '
	test_must_fail keeper --json file hash docs >out &&
	test_error_code NOT_A_FILE out
'

test_expect_success 'hash of a missing file is PATH_NOT_FOUND (exit 3)' '
	test_expect_code 3 keeper --json file hash missing.txt >out &&
	test_error_code PATH_NOT_FOUND out
'

test_expect_success 'hash refuses a symlink leaving the root (exit 11)' '
	test_expect_code 11 keeper --json file hash escape-link >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out
'

test_expect_success 'exists exits 0 for a file' '
	keeper file exists lf.txt >out &&
	echo file >expect &&
	test_cmp expect out
'

test_expect_success 'exists exits 0 for a directory' '
	keeper file exists docs/deep >out &&
	echo directory >expect &&
	test_cmp expect out
'

test_expect_success 'exists exits 3 for an absent path' '
	test_expect_code 3 keeper file exists missing.txt >out
'

test_expect_success 'exists exits 3 for a path under a missing directory' '
	test_expect_code 3 keeper file exists no/such/dir/file.txt >out
'

test_expect_success 'exists works as a shell predicate' '
	if keeper --quiet file exists missing.txt
	then
		echo >&2 "missing.txt reported present"
		exit 1
	fi &&
	keeper --quiet file exists lf.txt
'

test_expect_success 'exists --json for a file: ok true, exists true, kind file' '
	keeper --json file exists lf.txt >out &&
	test "$(json_get ".ok" out)" = true &&
	test "$(json_get ".exists" out)" = true &&
	test "$(json_get ".kind" out)" = file &&
	test "$(json_get ".path" out)" = lf.txt
'

test_expect_success 'exists --json for an absent path: ok true, exists false, exit 3' '
	test_expect_code 3 keeper --json file exists missing.txt >out &&
	test "$(json_get ".ok" out)" = true &&
	test "$(jq -r ".exists" out)" = false &&
	test "$(json_get ".path" out)" = missing.txt
'

test_expect_success 'exists --json under a missing directory: ok true, exists false, exit 3' '
	test_expect_code 3 keeper --json file exists no/such/file >out &&
	test "$(json_get ".ok" out)" = true &&
	test "$(jq -r ".exists" out)" = false
'

test_expect_success 'exists of a link to a file inside the root is true' '
	keeper --json file exists inside-link >out &&
	test "$(json_get ".exists" out)" = true
'

test_expect_success 'exists with ../ is PATH_OUTSIDE_WORKSPACE (exit 4), not a "no"' '
	test_expect_code 4 keeper --json file exists ../outside/secret.txt >out &&
	test_error_code PATH_OUTSIDE_WORKSPACE out &&
	test_no_host_path out
'

test_expect_success 'exists of an absolute path outside is ABSOLUTE_PATH_OUTSIDE_WORKSPACE (exit 6)' '
	test_expect_code 6 keeper --json file exists "$OUTSIDE/secret.txt" >out &&
	test_error_code ABSOLUTE_PATH_OUTSIDE_WORKSPACE out
'

test_expect_success 'exists of an absolute path outside that does not exist is still exit 6' '
	test_expect_code 6 keeper --json file exists "$OUTSIDE/nothing-here" >out &&
	test_error_code ABSOLUTE_PATH_OUTSIDE_WORKSPACE out
'

test_expect_success 'exists through a symlink leaving the root is SYMLINK_ESCAPE_REFUSED (exit 11)' '
	test_expect_code 11 keeper --json file exists escape-link >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	test_expect_code 11 keeper --json file exists outside-dir/secret.txt >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	test_no_host_path out
'

test_expect_success 'exists of a link that leads nowhere reports the link and where it points' '
	mkdir -p dangle &&
	ln -s ../no/such/file.txt dangle/broken-link &&
	keeper --json file exists dangle/broken-link >out &&
	test "$(json_get .exists out)" = true &&
	test "$(json_get .kind out)" = symlink &&
	test "$(json_get .target_kind out)" = broken &&
	test "$(json_get .target out)" = no/such/file.txt
'

test_expect_success 'the human answer names the link, and list agrees it is there' '
	keeper file exists dangle/broken-link >out &&
	echo "symlink (broken: no/such/file.txt)" >expect &&
	test_cmp expect out &&
	keeper --json file list dangle >list.json &&
	test "$(json_get ".entries[0].kind" list.json)" = symlink
'

test_expect_success 'reading a link that leads nowhere says so and where it points, suggesting no other name' '
	test_expect_code 3 keeper --json file read dangle/broken-link >out &&
	test_error_code PATH_NOT_FOUND out &&
	json_get .error.message out | grep "symbolic link whose target does not exist" &&
	test "$(json_get .error.details.target out)" = no/such/file.txt &&
	jq -e ".error.details | has(\"similar_paths\") | not" out
'

test_expect_success 'a dangling link whose text leaves the workspace is still an escape' '
	ln -s ../../nowhere-at-all dangle/far &&
	test_expect_code 11 keeper --json file exists dangle/far >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out
'

test_expect_success 'exists of an absolute path inside the root is true' '
	keeper --json file exists "$WS/docs/deep/note.md" >out &&
	test "$(json_get ".exists" out)" = true
'

test_expect_success 'none of these commands created .filekeeper/' '
	test ! -e .filekeeper &&
	test ! -e "$OUTSIDE/.filekeeper"
'

test_done
