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

test_done
