#!/bin/sh
test_description='crashing keeper on purpose between durable steps loses nothing

FILEKEEPER_TEST_CRASH_AT names a point where keeper aborts on the spot, as a power cut or a
SIGKILL could stop it. After each crash a fresh keeper must find every file complete, old or new.'
. ./test-lib.sh

# crash POINT CMD...: runs keeper with the crash point set; it must die of SIGABRT.
crash () {
	point=$1
	shift
	FILEKEEPER_TEST_CRASH_AT=$point "$@"
	code=$?
	test $code -eq 134 || { echo >&2 "expected a crash at $point, got exit $code"; return 1; }
}

test_expect_success 'this keeper is the test build, with crash points armed' '
	printf x >probe.txt &&
	test_expect_code 134 env FILEKEEPER_TEST_CRASH_AT=object-before-rename keeper hash-object -w probe.txt &&
	rm -f .filekeeper/objects/tmp_obj_*
'

test_expect_success 'setup: a file and the blob of its next version' '
	printf "old contents\n" >doc.txt &&
	keeper hash-object -w doc.txt >old-id &&
	printf "new contents\n" | keeper hash-object -w --stdin >new-id
'

test_expect_success 'a crash before the rename leaves the complete old file' '
	crash publish-before-rename keeper publish doc.txt --blob "$(cat new-id)" &&
	printf "old contents\n" >expect &&
	test_cmp expect doc.txt
'

test_expect_success 'the interrupted temp file is ours and holds the complete new bytes' '
	ls -a | grep "^\.fk-tmp-" >temps &&
	test_line_count = 1 temps &&
	printf "new contents\n" >expect &&
	test_cmp expect "$(cat temps)" &&
	rm "$(cat temps)"
'

test_expect_success 'a crash after the rename, before the directory sync, shows the complete new file' '
	crash publish-before-dir-sync keeper publish doc.txt --blob "$(cat new-id)" &&
	printf "new contents\n" >expect &&
	test_cmp expect doc.txt &&
	! ls -a | grep "^\.fk-tmp-"
'

test_expect_success 'a crash while storing an object leaves no object under its name' '
	printf "never stored\n" >fresh.txt &&
	crash object-before-rename keeper hash-object -w fresh.txt &&
	id=$(keeper hash-object fresh.txt) &&
	test_must_fail keeper cat-blob "$id" 2>err &&
	grep STORAGE_ERROR err
'

test_expect_success 'fsck reports the interrupted temp object but finds no damage' '
	keeper --json fsck >out &&
	json_get ".temporary_files | length == 1" out &&
	json_get ".damaged_objects | length == 0" out
'

test_expect_success 'storing the same bytes again succeeds after the crash' '
	keeper hash-object -w fresh.txt >id &&
	keeper cat-blob "$(cat id)" >actual &&
	test_cmp fresh.txt actual
'

test_expect_success 'a script stopped after journal-begin leaves a pending operation that fsck lists' '
	old=$(keeper hash-object doc.txt) &&
	new=$(printf "third\n" | keeper hash-object -w --stdin) &&
	keeper journal-begin --kind write \
		--item "{\"path\":\"doc.txt\",\"before_hash\":\"$old\",\"after_hash\":\"$new\"}" >op &&
	keeper --json fsck >out &&
	json_get ".pending_operations[0]" out >pending &&
	test_cmp op pending
'

test_expect_success 'the untouched file lets the pending operation be rolled back' '
	keeper journal-abort "$(cat op)" &&
	keeper --json journal-show "$(cat op)" >out &&
	json_get ".operation.status" out >status &&
	echo rolled_back >expect &&
	test_cmp expect status
'

test_done
