#!/bin/sh
test_description='the object store: sha256 ids, loose zstd objects a person can recover, verified reads, fsck

A blob is named sha256:<64 hex> of its exact bytes and stored at
.filekeeper/objects/<2 hex>/<62 hex> as one plain zstd frame. Every read verifies the hash;
a damaged object is a STORAGE_ERROR naming the id and never yields wrong bytes.'
. ./test-lib.sh

# sha256_id FILE: the id sha256sum computes for FILE.
sha256_id () {
	printf 'sha256:%s\n' "$(sha256sum <"$1" | cut -d" " -f1)"
}

INPUTS="text.txt binary.bin empty.txt big.bin"

test_expect_success 'setup: text, binary with NUL bytes, empty and multi-MB inputs' '
	printf "hello, keeper\nsecond line\n" >text.txt &&
	printf "\000\001\002binary\000\377\376 with NULs\000" >binary.bin &&
	: >empty.txt &&
	head -c 5242880 /dev/urandom >big.bin &&
	test "$(wc -c <big.bin)" -eq 5242880 &&
	tr -d "\000" <binary.bin >nonul &&
	! cmp -s binary.bin nonul
'

test_expect_success 'hash-object FILE prints the id sha256sum computes' '
	for f in $INPUTS
	do
		sha256_id $f >expect &&
		keeper hash-object $f >actual &&
		test_cmp expect actual || exit 1
	done
'

test_expect_success 'the id of empty content is the well-known sha256 of nothing' '
	echo sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 >expect &&
	keeper hash-object empty.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'hash-object --stdin prints the id sha256sum computes' '
	for f in $INPUTS
	do
		sha256_id $f >expect &&
		keeper hash-object --stdin <$f >actual &&
		test_cmp expect actual || exit 1
	done
'

test_expect_success 'hash-object --json reports the id, the size and written false' '
	keeper --json hash-object binary.bin >out &&
	json_get ".ok" out &&
	test "$(json_get ".object_id" out)" = "$(sha256_id binary.bin)" &&
	test "$(json_get ".size" out)" = "$(wc -c <binary.bin | tr -d " ")" &&
	test "$(json_get ".written" out)" = false
'

test_expect_success 'hash-object without -w stores nothing and creates no .filekeeper/' '
	keeper hash-object text.txt >/dev/null &&
	keeper hash-object --stdin <big.bin >/dev/null &&
	keeper --json hash-object binary.bin >/dev/null &&
	test ! -e .filekeeper
'

test_expect_success 'hash-object -w stores a file at objects/<2 hex>/<62 hex>' '
	keeper --json hash-object -w text.txt >out &&
	test "$(json_get ".written" out)" = true &&
	id=$(json_get ".object_id" out) &&
	test "$id" = "$(sha256_id text.txt)" &&
	obj=$(object_path "$id") &&
	test -f "$obj" &&
	basename "$obj" | grep -E "^[0-9a-f]{62}$" &&
	basename "$(dirname "$obj")" | grep -E "^[0-9a-f]{2}$"
'

test_expect_success 'hash-object -w stores the binary, empty and multi-MB inputs too' '
	for f in binary.bin empty.txt big.bin
	do
		keeper hash-object -w $f >id &&
		sha256_id $f >expect &&
		test_cmp expect id &&
		test -f "$(object_path "$(cat id)")" || exit 1
	done
'

test_expect_success 'hash-object -w --stdin stores content read from standard input' '
	printf "only on stdin\n" >stdin.txt &&
	keeper hash-object -w --stdin <stdin.txt >id &&
	sha256_id stdin.txt >expect &&
	test_cmp expect id &&
	test -f "$(object_path "$(cat id)")"
'

test_expect_success 'every object is recovered byte for byte by zstd -dc alone' '
	for f in $INPUTS stdin.txt
	do
		obj=$(object_path "$(sha256_id $f)") &&
		zstd -dc "$obj" >recovered &&
		cmp $f recovered || exit 1
	done
'

test_expect_success 'every object file is exactly one zstd frame' '
	for f in $INPUTS stdin.txt
	do
		obj=$(object_path "$(sha256_id $f)") &&
		zstd -lv "$obj" >info 2>&1 &&
		grep -E "^# Zstandard Frames: 1$" info || { cat info; exit 1; }
	done
'

test_expect_success 'the store holds exactly one object per distinct content and nothing else' '
	find .filekeeper/objects -type f | sort >actual &&
	for f in $INPUTS stdin.txt
	do
		object_path "$(sha256_id $f)" || exit 1
	done | sort >expect &&
	test_cmp expect actual
'

test_expect_success 'writing the same content twice leaves one object and does not rewrite it' '
	obj=$(object_path "$(sha256_id big.bin)") &&
	stat -c "%i %s" "$obj" >before &&
	sha256sum <"$obj" >>before &&
	find .filekeeper/objects -type f | sort >files-before &&
	keeper hash-object -w big.bin >/dev/null &&
	keeper hash-object -w --stdin <big.bin >/dev/null &&
	cp big.bin big-copy.bin &&
	keeper hash-object -w big-copy.bin >/dev/null &&
	stat -c "%i %s" "$obj" >after &&
	sha256sum <"$obj" >>after &&
	test_cmp before after &&
	find .filekeeper/objects -type f | sort >files-after &&
	test_cmp files-before files-after
'

test_expect_success 'an existing read-only object is not rewritten by a second write' '
	obj=$(object_path "$(sha256_id text.txt)") &&
	chmod 400 "$obj" &&
	stat -c "%i %a" "$obj" >before &&
	sha256sum <"$obj" >>before &&
	keeper hash-object -w text.txt >/dev/null &&
	stat -c "%i %a" "$obj" >after &&
	sha256sum <"$obj" >>after &&
	test_cmp before after &&
	chmod 644 "$obj"
'

test_expect_success 'storing an existing object again renews its modification time (gc counts its grace period from it)' '
	obj=$(object_path "$(sha256_id text.txt)") &&
	touch -d "2 days ago" "$obj" &&
	old=$(stat -c %Y "$obj") &&
	keeper hash-object -w text.txt >/dev/null &&
	test "$(stat -c %Y "$obj")" -gt $((old + 86400)) &&
	touch -d "2 days ago" "$obj" &&
	keeper hash-object -w --stdin <text.txt >/dev/null &&
	test "$(stat -c %Y "$obj")" -gt $((old + 86400))
'

test_expect_success 'cat-blob prints the exact bytes of every stored blob' '
	for f in $INPUTS stdin.txt
	do
		keeper cat-blob "$(sha256_id $f)" >out &&
		cmp $f out || exit 1
	done
'

test_expect_success 'cat-blob accepts the id in upper-case hex' '
	id=$(sha256_id text.txt) &&
	upper="sha256:$(printf %s "${id#sha256:}" | tr a-f A-F)" &&
	keeper cat-blob "$upper" >out &&
	cmp text.txt out
'

test_expect_success 'cat-blob --json carries a text blob as content with its id and size' '
	keeper --json cat-blob "$(sha256_id text.txt)" >out &&
	json_get ".ok" out &&
	test "$(json_get ".object_id" out)" = "$(sha256_id text.txt)" &&
	test "$(json_get ".size" out)" = "$(wc -c <text.txt | tr -d " ")" &&
	jq -j ".content" out >content &&
	printf "hello, keeper\nsecond line\n" >expect &&
	test_cmp expect content
'

test_expect_success 'cat-blob --json refuses a binary blob with BINARY_CONTENT_REFUSED and no content' '
	id=$(sha256_id binary.bin) &&
	test_expect_code 20 keeper --json cat-blob "$id" >out &&
	test_error_code BINARY_CONTENT_REFUSED out &&
	test "$(json_get ".error.details.object_id" out)" = "$id" &&
	test_no_host_path out
'

test_expect_success 'cat-blob of a well-formed id that was never stored is STORAGE_ERROR' '
	id=$(printf "never stored\n" | keeper hash-object --stdin) &&
	test_expect_code 26 keeper --json cat-blob "$id" >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get ".error.details.object_id" out)" = "$id" &&
	test_no_host_path out
'

test_expect_success 'a malformed id is INVALID_ARGUMENT with exit code 2' '
	good=$(sha256_id text.txt) &&
	hex=${good#sha256:} &&
	for bad in "sha256:xyz" "$hex" "sha1:$hex" "sha256:${hex%?}" "sha256:${hex}0" \
		"sha256:g${hex#?}" "sha256:" ""
	do
		test_expect_code 2 keeper --json cat-blob "$bad" >out &&
		test_error_code INVALID_ARGUMENT out &&
		test_no_host_path out || exit 1
	done
'

test_expect_success 'a malformed id prints nothing on stdout without --json' '
	test_expect_code 2 keeper cat-blob sha256:xyz >out 2>err &&
	test ! -s out &&
	test -s err
'

test_expect_success 'fsck on a clean store exits 0 and reports no damage' '
	keeper --json fsck >out &&
	json_get ".ok" out &&
	test "$(json_get ".objects" out)" = 5 &&
	test "$(json_get ".damaged_objects | length" out)" = 0 &&
	test "$(json_get ".missing_objects | length" out)" = 0 &&
	test "$(json_get ".unknown_files | length" out)" = 0 &&
	test "$(json_get ".temporary_files | length" out)" = 0 &&
	keeper fsck >human &&
	grep "5 objects" human
'

test_expect_success 'a leftover tmp_obj_ temp file is reported by fsck but is not damage' '
	id=$(sha256_id text.txt) &&
	fan=$(dirname "$(object_path "$id")") &&
	printf "half-written" >.filekeeper/objects/tmp_obj_0123456789abcdef &&
	printf "half-written" >"$fan/tmp_obj_fedcba9876543210" &&
	keeper --json fsck >out &&
	json_get ".ok" out &&
	test "$(json_get ".damaged_objects | length" out)" = 0 &&
	json_get ".temporary_files[]" out | sort >actual &&
	printf "%s\n" "$(basename "$fan")/tmp_obj_fedcba9876543210" tmp_obj_0123456789abcdef | sort >expect &&
	test_cmp expect actual &&
	test "$(json_get ".objects" out)" = 5 &&
	keeper fsck >human &&
	grep -x "  tmp_obj_0123456789abcdef" human
'

test_expect_success 'setup: a precious blob, then its object overwritten by a zstd frame of other bytes' '
	printf "precious bytes\n" >precious.txt &&
	keeper hash-object -w precious.txt >precious.id &&
	obj=$(object_path "$(cat precious.id)") &&
	keeper fsck &&
	printf "tampered bytes\n" | zstd -q -c >frame &&
	chmod u+w "$obj" &&
	cat frame >"$obj" &&
	zstd -dc "$obj" >decoded &&
	printf "tampered bytes\n" >expect &&
	test_cmp expect decoded
'

test_expect_success 'cat-blob of the re-framed object is STORAGE_ERROR naming the id' '
	id=$(cat precious.id) &&
	test_expect_code 26 keeper --json cat-blob "$id" >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get ".error.details.object_id" out)" = "$id" &&
	test_no_host_path out
'

test_expect_success 'cat-blob of the re-framed object prints no content bytes' '
	test_expect_code 26 keeper cat-blob "$(cat precious.id)" >out 2>err &&
	test ! -s out &&
	grep STORAGE_ERROR err &&
	! grep -F "$TRASH" err
'

test_expect_success 'fsck exits 26 and lists the re-framed object under damaged_objects' '
	test_expect_code 26 keeper --json fsck >out &&
	test_error_code STORAGE_ERROR out &&
	json_get ".error.details.damaged_objects[]" out >actual &&
	test_cmp precious.id actual &&
	test_no_host_path out
'

test_expect_success 'the fsck damage report says how to recover' '
	test_must_fail keeper --json fsck >out &&
	json_get ".error.details.recovery" out
'

test_expect_success 'fsck without --json also fails on damage, naming the damaged object' '
	test_must_fail keeper fsck >out 2>err &&
	grep STORAGE_ERROR err &&
	grep -F "$(cat precious.id)" err
'

test_expect_success 'setup: the precious object overwritten with garbage' '
	obj=$(object_path "$(cat precious.id)") &&
	printf "this is not a zstd frame at all" >"$obj" &&
	test_must_fail zstd -dc "$obj" >/dev/null 2>&1
'

test_expect_success 'cat-blob of a garbage object is STORAGE_ERROR naming the id' '
	id=$(cat precious.id) &&
	test_expect_code 26 keeper --json cat-blob "$id" >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get ".error.details.object_id" out)" = "$id" &&
	test_no_host_path out
'

test_expect_success 'cat-blob of a garbage object prints no content bytes' '
	test_expect_code 26 keeper cat-blob "$(cat precious.id)" >out 2>/dev/null &&
	test ! -s out
'

test_expect_success 'fsck exits 26 and lists the garbage object under damaged_objects' '
	test_expect_code 26 keeper --json fsck >out &&
	test_error_code STORAGE_ERROR out &&
	json_get ".error.details.damaged_objects[]" out >actual &&
	test_cmp precious.id actual &&
	test_no_host_path out
'

test_expect_success 'the damaged object does not hide the healthy ones from cat-blob' '
	keeper cat-blob "$(sha256_id binary.bin)" >out &&
	cmp binary.bin out
'

test_expect_success 'setup: the multi-MB object replaced by a frame of its bytes plus one more' '
	obj=$(object_path "$(sha256_id big.bin)") &&
	{ cat big.bin && printf X; } >almost.bin &&
	cmp big.bin almost.bin 2>&1 | grep EOF &&
	chmod u+w "$obj" &&
	zstd -q -c almost.bin >"$obj"
'

test_expect_success 'cat-blob of the large damaged object prints not one byte of it' '
	id=$(sha256_id big.bin) &&
	test_expect_code 26 keeper cat-blob "$id" >out 2>/dev/null &&
	test ! -s out &&
	test_expect_code 26 keeper --json cat-blob "$id" >out.json &&
	test_error_code STORAGE_ERROR out.json &&
	test "$(json_get ".error.details.object_id" out.json)" = "$id"
'

test_expect_success 'fsck lists both damaged objects' '
	test_expect_code 26 keeper --json fsck >out &&
	json_get ".error.details.damaged_objects[]" out | sort >actual &&
	{ cat precious.id && sha256_id big.bin; } | sort >expect &&
	test_cmp expect actual &&
	test "$(json_get ".error.details.temporary_files | length" out)" = 2
'

test_expect_success 'removing the damaged objects and storing the bytes again makes fsck clean' '
	rm -f "$(object_path "$(cat precious.id)")" "$(object_path "$(sha256_id big.bin)")" &&
	keeper hash-object -w precious.txt >/dev/null &&
	keeper hash-object -w big.bin >/dev/null &&
	keeper --json fsck >out &&
	test "$(json_get ".damaged_objects | length" out)" = 0 &&
	keeper cat-blob "$(sha256_id big.bin)" >recovered &&
	cmp big.bin recovered
'

test_done
