#!/bin/sh
test_description='the test harness itself: a fresh home, a registered default workspace'
. ./test-lib.sh

test_expect_success 'the workspace is the current directory and the default' '
	test "$(pwd -P)" = "$(cd "$WS" && pwd -P)" &&
	keeper --json workspace list >out &&
	json_get ".workspaces[0].name" out >name &&
	echo test >expect &&
	test_cmp expect name &&
	json_get ".workspaces[0].default" out
'

test_expect_success 'test_must_fail accepts a failure and rejects a success' '
	test_must_fail false &&
	! test_must_fail true 2>/dev/null
'

test_expect_success 'test_expect_code checks the exact exit code' '
	test_expect_code 3 sh -c "exit 3" &&
	! test_expect_code 3 sh -c "exit 4" 2>/dev/null
'

test_expect_success 'a failing body is reported as not ok and fails the script' '
	cat >"$TRASH/inner.sh" <<-INNER &&
	test_description="inner"
	TEST_DIRECTORY="$TEST_DIRECTORY"
	. "$TEST_DIRECTORY/test-lib.sh"
	test_expect_success "passes" "true"
	test_expect_success "fails" "false"
	test_done
	INNER
	test_expect_code 1 sh "$TRASH/inner.sh" >inner.out &&
	grep "^ok 1 - passes" inner.out &&
	grep "^not ok 2 - fails" inner.out &&
	grep "^1..2" inner.out
'

test_done
	INNER
	cp "$TRASH/t9999-inner.sh" "$TEST_DIRECTORY/t9999-inner.sh" &&
	(cd "$TEST_DIRECTORY" && sh ./t9999-inner.sh >"$TRASH/inner.out"; echo $? >"$TRASH/inner.code"); rm -f "$TEST_DIRECTORY/t9999-inner.sh" &&
	grep "^ok 1 - passes" "$TRASH/inner.out" &&
	grep "^not ok 2 - fails" "$TRASH/inner.out" &&
	test "$(cat "$TRASH/inner.code")" = 1
'

test_done
