#!/bin/sh
test_description='keeper file read-bytes

read-bytes returns a range of any file'"'"'s bytes, binary included: as they are on stdout, base64
in the JSON document. The result says the offset, the length returned, the file'"'"'s size, where
the next range starts (null at the end) and the hash of the whole file. The length is bounded
by max_read_bytes; an offset at the end of the file returns no bytes, one beyond it is
INVALID_ARGUMENT. Directories, special files and paths out of the workspace are refused.'
. ./test-lib.sh

# sha256_of FILE: the content hash sha256sum computes for FILE, as sha256:<hex>.
sha256_of () {
	printf 'sha256:%s\n' "$(sha256sum <"$1" | cut -d" " -f1)"
}

# slice FILE OFFSET LENGTH: the bytes dd reads from FILE at OFFSET, at most LENGTH of them.
slice () {
	dd if="$1" iflag=skip_bytes,count_bytes skip="$2" count="$3" bs=65536 2>/dev/null
}

test_expect_success 'setup: every byte value, many times over, and other kinds of paths' '
	for i in $(seq 0 255)
	do
		printf "\\$(printf %03o "$i")" || exit 1
	done >bytes256 &&
	test "$(wc -c <bytes256)" = 256 &&
	for i in $(seq 1 400)
	do
		cat bytes256 || exit 1
	done >all.bin &&
	rm bytes256 &&
	test "$(wc -c <all.bin)" = 102400 &&
	printf "short\n" >short.txt &&
	: >empty &&
	mkdir adir &&
	echo "top secret content" >"$OUTSIDE/secret.bin" &&
	ln -s "$OUTSIDE/secret.bin" escape-link &&
	ln -s all.bin inside-link
'

test_expect_success 'a range of a binary file comes out on stdout byte for byte' '
	keeper file read-bytes all.bin --offset 1000 --length 5000 >out 2>err &&
	slice all.bin 1000 5000 >expect &&
	cmp expect out &&
	grep "^bytes 1000-5999 of 102400, $(sha256_of all.bin)$" err &&
	grep "^more follows; continue with --offset 6000$" err
'

test_expect_success 'without a range the whole file is read (it is under max_read_bytes)' '
	keeper file read-bytes all.bin >out 2>err &&
	cmp all.bin out &&
	! grep "more follows" err
'

test_expect_success 'the JSON document carries the bytes as base64, and the range facts' '
	keeper --json file read-bytes all.bin --offset 250 --length 300 >out &&
	jq -r .content out | base64 -d >bytes &&
	slice all.bin 250 300 >expect &&
	cmp expect bytes &&
	test "$(json_get .offset out)" = 250 &&
	test "$(json_get .length out)" = 300 &&
	test "$(json_get .size_bytes out)" = 102400 &&
	test "$(json_get .next_offset out)" = 550 &&
	test "$(json_get .content_hash out)" = "$(sha256_of all.bin)" &&
	test "$(json_get .path out)" = all.bin
'

test_expect_success 'reading never creates the workspace state' '
	test ! -e .filekeeper
'

test_expect_success 'following next_offset reassembles the file exactly' '
	: >joined &&
	offset=0 pages=0 &&
	while test "$offset" != null
	do
		keeper --json file read-bytes all.bin --offset "$offset" --length 7777 >page &&
		jq -r .content page | base64 -d >>joined &&
		offset=$(jq -r .next_offset page) &&
		pages=$((pages + 1)) || exit 1
	done &&
	test "$pages" = 14 &&
	cmp all.bin joined
'

test_expect_success 'a range past the end returns the rest, with next_offset null' '
	keeper --json file read-bytes all.bin --offset 102000 --length 1000 >out &&
	test "$(json_get .length out)" = 400 &&
	test "$(jq -r .next_offset out)" = null &&
	jq -r .content out | base64 -d >bytes &&
	slice all.bin 102000 400 | cmp - bytes
'

test_expect_success 'an offset at the end of the file returns no bytes' '
	keeper --json file read-bytes all.bin --offset 102400 >out &&
	test "$(json_get .length out)" = 0 &&
	test "$(jq -r .content out)" = "" &&
	test "$(jq -r .next_offset out)" = null &&
	keeper file read-bytes all.bin --offset 102400 >out 2>err &&
	test_must_be_empty out &&
	grep "^no bytes: offset 102400 is the end of the file" err
'

test_expect_success 'an empty file is read as no bytes' '
	keeper --json file read-bytes empty >out &&
	test "$(json_get .size_bytes out)" = 0 &&
	test "$(json_get .length out)" = 0 &&
	test "$(json_get .content_hash out)" = "$(sha256_of empty)"
'

test_expect_success 'an offset beyond the end is INVALID_ARGUMENT naming --offset and the size' '
	refused 2 INVALID_ARGUMENT --naming short.txt file read-bytes short.txt --offset 7 &&
	json_get .error.message refusal.json | grep -e "^--offset 7 " &&
	test "$(json_get .error.details.size_bytes refusal.json)" = 6
'

test_expect_success '--length 0 is INVALID_ARGUMENT naming --length' '
	refused 2 INVALID_ARGUMENT --naming short.txt file read-bytes short.txt --length 0 &&
	json_get .error.message refusal.json | grep -e "^--length "
'

test_expect_success '--length above max_read_bytes is LIMIT_EXCEEDED' '
	refused 21 LIMIT_EXCEEDED file read-bytes short.txt --length 5242881 &&
	test "$(json_get .error.details.limit refusal.json)" = 5242880 &&
	test "$(json_get .error.details.requested refusal.json)" = 5242881
'

test_expect_success 'a configured max_read_bytes bounds a read without --length' '
	mkdir "$TRASH/small-home" &&
	printf "[filekeeper]\nmax_read_bytes = 64\n" >"$TRASH/small-home/config.toml" &&
	FILEKEEPER_HOME=$TRASH/small-home keeper --root "$WS" --json file read-bytes all.bin >out &&
	test "$(json_get .length out)" = 64 &&
	test "$(json_get .next_offset out)" = 64 &&
	test_expect_code 21 env FILEKEEPER_HOME="$TRASH/small-home" \
		keeper --root "$WS" --json file read-bytes all.bin --length 65 >out &&
	test_error_code LIMIT_EXCEEDED out
'

test_expect_success 'what a text read refuses, read-bytes reads' '
	test_expect_code 20 keeper --json file read all.bin >out &&
	test_error_code BINARY_CONTENT_REFUSED out &&
	keeper file read-bytes all.bin --length 16 >out &&
	slice all.bin 0 16 | cmp - out
'

test_expect_success 'a link inside the workspace is read as its target' '
	keeper file read-bytes inside-link --offset 5 --length 10 >out &&
	slice all.bin 5 10 | cmp - out
'

test_expect_success 'a directory is NOT_A_FILE, a missing file PATH_NOT_FOUND' '
	refused 5 NOT_A_FILE --naming adir file read-bytes adir &&
	refused 3 PATH_NOT_FOUND --naming all.bn file read-bytes all.bn &&
	json_get ".error.details.similar_paths[]" refusal.json | grep -x all.bin
'

test_expect_success 'a FIFO is SPECIAL_FILE_REFUSED, without waiting for a writer' '
	mkfifo pipe &&
	refused 13 SPECIAL_FILE_REFUSED --naming pipe file read-bytes pipe &&
	rm pipe
'

test_expect_success 'paths that leave the workspace are refused and show none of its bytes' '
	refused 11 SYMLINK_ESCAPE_REFUSED --naming escape-link file read-bytes escape-link &&
	! grep "top secret" refusal.json &&
	refused 4 PATH_OUTSIDE_WORKSPACE --naming ../outside/secret.bin file read-bytes ../outside/secret.bin &&
	refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE --naming "$OUTSIDE/secret.bin" file read-bytes "$OUTSIDE/secret.bin"
'

test_expect_success 'the state directory is never read' '
	keeper file write made.txt --content x >/dev/null &&
	test -d .filekeeper &&
	refused 8 PATH_IS_STATE_PATH file read-bytes .filekeeper/config
'

test_done
