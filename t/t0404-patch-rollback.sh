#!/bin/sh
test_description='a multi-file patch whose later file fails is rolled back as a whole

FILEKEEPER_TEST_FAIL_AT=mutation-step-N (test build only) makes the Nth step of a mutation
fail with an injected I/O error after the earlier steps were written.'
. ./test-lib.sh

test_expect_success 'setup: three files and a patch changing all three' '
	for f in a b c; do printf "%s1\n%s2\n" $f $f >$f.txt; done &&
	mkdir old && cp a.txt b.txt c.txt old/ &&
	for f in a b c; do printf "%s1\n%sX\n" $f $f >new-$f.txt; done &&
	for f in a b c; do
		diff -u old/$f.txt new-$f.txt | sed "s#^--- old/$f.txt#--- $f.txt#; s#^+++ new-$f.txt#+++ $f.txt#"
	done >three.patch &&
	test "$(grep -c "^@@" three.patch)" = 3
'

test_expect_success 'a failure at the second file restores the first and changes nothing' '
	test_expect_code 26 env FILEKEEPER_TEST_FAIL_AT=mutation-step-2 \
		keeper --json file apply-patch three.patch >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get .error.details.steps_applied out)" = 1 &&
	test "$(json_get ".error.details.restored[]" out)" = a.txt &&
	for f in a b c; do cmp old/$f.txt $f.txt || return 1; done
'

test_expect_success 'the failure names the file whose step failed, not the first' '
	test "$(json_get .error.details.path out)" = b.txt
'

test_expect_success 'the operation is recorded as rolled back, nothing pending' '
	op=$(json_get .error.details.operation_id out) &&
	keeper --json history show "$op" >show &&
	test "$(json_get .operation.status show)" = rolled_back &&
	test "$(sqlite3 .filekeeper/journal.sqlite3 "SELECT count(*) FROM operations WHERE status = '\''pending'\''")" = 0 &&
	keeper fsck >/dev/null
'

test_expect_success 'the same patch applies cleanly afterwards' '
	keeper --json file apply-patch three.patch >ok &&
	json_get .ok ok &&
	for f in a b c; do cmp new-$f.txt $f.txt || return 1; done
'

test_done
