#!/bin/sh
test_description='the test harness itself: a fresh home, a registered default workspace'
. ./test-lib.sh

# The inner scripts below test skipping itself, so each must see KEEPER_TEST_NO_SKIP only where
# a test sets it, not whatever `make test` exported for the whole suite under CI. This script's
# own tests need no prerequisite, so it loses nothing by clearing it.
unset KEEPER_TEST_NO_SKIP

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

# inner NAME: writes the script NAME.sh from stdin, a test script sourcing this harness, for
# the tests below to run as prove would. What an inner script records goes to $RECORD.
inner () {
	{
		echo "test_description=inner" &&
		echo "TEST_DIRECTORY=\"$TEST_DIRECTORY\"" &&
		echo ". \"\$TEST_DIRECTORY/test-lib.sh\"" &&
		cat
	} >"$TRASH/$1.sh"
}

# kept_trash ERR: the trash directory an inner script said it kept, which must exist; removed.
kept_trash () {
	kept=$(sed -n "s/^# .*: trash directory kept in //p" "$1") &&
	test -n "$kept" && test -d "$kept" &&
	rm -rf "$kept"
}

test_expect_success 'a failing body is reported as not ok, fails the script and keeps its trash' '
	inner fails <<-\INNER &&
	test_expect_success "passes" "true"
	test_expect_success "fails" "false"
	test_done
	INNER
	test_expect_code 1 sh "$TRASH/fails.sh" >inner.out 2>inner.err &&
	grep "^ok 1 - passes" inner.out &&
	grep "^not ok 2 - fails" inner.out &&
	grep "^1..2" inner.out &&
	kept_trash inner.err
'

test_expect_success 'a passing script removes its trash, unless KEEPER_TEST_KEEP is set' '
	inner passes <<-\INNER &&
	echo "$TRASH" >"$RECORD"
	test_expect_success "passes" "true"
	test_done
	INNER
	RECORD=$TRASH/trash sh "$TRASH/passes.sh" >inner.out 2>inner.err &&
	! grep "trash directory kept" inner.err &&
	inner_trash=$(cat "$TRASH/trash") &&
	test -n "$inner_trash" &&
	test ! -e "$inner_trash" &&
	KEEPER_TEST_KEEP=1 sh "$TRASH/passes.sh" >inner.out 2>inner.err &&
	kept_trash inner.err
'

test_expect_success 'a test whose prerequisite is missing is skipped with the reason, its body never run' '
	inner prereqs <<-\INNER &&
	test_lazy_prereq NEVER "false"
	test_set_prereq ALWAYS
	test_expect_success NEVER "needs NEVER" "echo ran >\"\$RECORD\""
	test_expect_success ALWAYS,!NEVER "needs ALWAYS and not NEVER" "true"
	test_expect_success ALWAYS,NEVER "needs both" "true"
	test_expect_success "" "needs nothing" "true"
	test_done
	INNER
	RECORD=$TRASH/ran-never sh "$TRASH/prereqs.sh" >inner.out &&
	cat >expect <<-\EOF &&
	ok 1 # skip needs NEVER (missing NEVER)
	ok 2 - needs ALWAYS and not NEVER
	ok 3 # skip needs both (missing NEVER)
	ok 4 - needs nothing
	1..4
	# skipped 2 test(s) for a missing prerequisite
	EOF
	test_cmp expect inner.out &&
	test ! -e "$TRASH/ran-never"
'

test_expect_success 'under KEEPER_TEST_NO_SKIP a missing prerequisite fails the test instead' '
	KEEPER_TEST_NO_SKIP=1 test_expect_code 1 sh "$TRASH/prereqs.sh" >inner.out 2>inner.err &&
	grep "^not ok 1 - needs NEVER # missing NEVER, and KEEPER_TEST_NO_SKIP forbids skipping" inner.out &&
	grep "^ok 2 - needs ALWAYS and not NEVER" inner.out &&
	kept_trash inner.err
'

test_expect_success 'a negated prerequisite that fails is a skip even under KEEPER_TEST_NO_SKIP' '
	inner negated <<-\INNER &&
	test_set_prereq ALWAYS
	test_expect_success !ALWAYS "needs the machine to lack ALWAYS" "false"
	test_done
	INNER
	KEEPER_TEST_NO_SKIP=1 sh "$TRASH/negated.sh" >inner.out &&
	grep "^ok 1 # skip needs the machine to lack ALWAYS (missing !ALWAYS)" inner.out
'

test_expect_success 'test_require_prereq skips the whole script, or fails it under KEEPER_TEST_NO_SKIP' '
	inner requires <<-\INNER &&
	test_lazy_prereq NEVER "false"
	test_require_prereq NEVER
	test_expect_success "never reached" "true"
	test_done
	INNER
	sh "$TRASH/requires.sh" >inner.out &&
	echo "1..0 # SKIP missing NEVER" >expect &&
	test_cmp expect inner.out &&
	KEEPER_TEST_NO_SKIP=1 test_expect_code 1 sh "$TRASH/requires.sh" >inner.out 2>inner.err &&
	grep "^not ok 1 - " inner.out &&
	kept_trash inner.err
'

test_expect_success 'a lazy prerequisite is evaluated once, in a scratch directory' '
	test_lazy_prereq COUNTED "echo x >>\"$TRASH/counted\" && test \"\$(pwd)\" != \"$WS\"" &&
	test_have_prereq COUNTED &&
	test_have_prereq COUNTED,!NOT_DECLARED &&
	! test_have_prereq NOT_DECLARED &&
	test_line_count = 1 "$TRASH/counted"
'

test_expect_success 'test_when_finished runs after a passing and after a failing body, last first' '
	inner finished <<-\INNER &&
	test_expect_success "passes" "
		test_when_finished \"echo first >>\$RECORD\" &&
		test_when_finished \"echo second >>\$RECORD\" &&
		true
	"
	test_expect_success "fails" "
		test_when_finished \"echo after-failure >>\$RECORD\" &&
		false
	"
	test_expect_success "its cleanup fails" "
		test_when_finished false &&
		true
	"
	test_done
	INNER
	RECORD=$TRASH/order test_expect_code 1 sh "$TRASH/finished.sh" >inner.out 2>inner.err &&
	grep "^ok 1 - passes" inner.out &&
	grep "^not ok 2 - fails" inner.out &&
	grep "^not ok 3 - its cleanup fails" inner.out &&
	printf "second\nfirst\nafter-failure\n" >expect &&
	test_cmp expect "$TRASH/order" &&
	kept_trash inner.err
'

test_expect_success 'a script that cannot start fails with a "not ok", never a "Bail out!"' '
	inner nobinary <<-\INNER &&
	test_expect_success "never reached" "true"
	test_done
	INNER
	KEEPER_BUILD_DIR=$TRASH/nowhere test_expect_code 1 sh "$TRASH/nobinary.sh" >inner.out 2>inner.err &&
	grep "^not ok 1 - nobinary stopped: no keeper binary in $TRASH/nowhere" inner.out &&
	grep "^1..1$" inner.out &&
	! grep "Bail out" inner.out
'

test_done
