#!/bin/sh
test_description='the [history] retention policy is applied after each change

After a mutation commits, a cheap check compares the policy with the journal; when every rule
set lets go of an operation older than the grace period, a prune by the policy and a gc run.
With no rule set nothing is pruned however old; a dry run never prunes; operations within the
grace period are never pruned automatically; the mutation reports what it would without
the policy; and when the prune or the gc of the policy fails (FILEKEEPER_TEST_FAIL_AT, test build
only), the change stands, a warning says so, and every unpruned operation still undoes.'
. ./test-lib.sh

CONFIG=$FILEKEEPER_HOME/config.toml

# policy LINES: the home config as init wrote it, with LINES added under [history].
policy () {
	cp config.saved "$CONFIG" &&
	printf "$1" >>"$CONFIG"
}

# fresh N: a workspace state of N writes of a.txt ("version 1" to "version N"), none pruned.
fresh () {
	rm -rf .filekeeper &&
	i=1 &&
	while test $i -le $1; do
		keeper file write a.txt --content "version $i
" >/dev/null || return 1
		i=$((i + 1))
	done
}

# age_all: every operation recorded so far, and every object, as if from 30 days ago.
age_all () {
	journal "UPDATE operations SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-30 days'),
		updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-30 days')" &&
	find .filekeeper/objects -type f -exec touch -d "30 days ago" {} +
}

pruned () {
	journal "SELECT count(*) FROM $PRUNED_OPERATIONS"
}

objects () {
	find .filekeeper/objects -type f ! -name "tmp_obj_*" | LC_ALL=C sort
}

test_expect_success 'setup: the config as init wrote it' '
	cp "$CONFIG" config.saved &&
	grep "^\[history\]" config.saved
'

test_expect_success 'with the policy off nothing is pruned, however old' '
	policy "" &&
	fresh 5 && age_all && objects >before &&
	keeper file write a.txt --content "version 6
" >/dev/null &&
	test "$(pruned)" = 0 &&
	test "$(journal "SELECT count(*) FROM prunes")" = 0 &&
	objects >after &&
	test_line_count = 6 after &&
	comm -23 before after >gone &&
	test_line_count = 0 gone
'

test_expect_success 'keep_last = 3: a write leaves the newest three unpruned and gc removes the rest' '
	policy "keep_last = 3\n" &&
	fresh 5 && age_all &&
	printf "version 1\n" >v1 && printf "version 5\n" >v5 &&
	test -e "$(object_path "$(sha v1)")" &&
	keeper file write a.txt --content "version 6
" >/dev/null &&
	journal "SELECT id FROM operations WHERE id NOT IN (SELECT id FROM $PRUNED_OPERATIONS) ORDER BY seq" >unpruned &&
	journal "SELECT id FROM operations ORDER BY seq DESC LIMIT 3" | sort >newest &&
	sort unpruned >unpruned.sorted &&
	test_cmp newest unpruned.sorted &&
	keeper --json status >status.json &&
	jq -e ".journal.pruned == 3 and .journal.operations == 6" status.json &&
	journal "SELECT rule FROM prunes" >rule &&
	echo "policy keep_last 3" >expect &&
	test_cmp expect rule &&
	! test -e "$(object_path "$(sha v1)")" &&
	test -e "$(object_path "$(sha v5)")" &&
	keeper fsck >/dev/null
'

test_expect_success 'the newest operations still undo after the automatic prune' '
	keeper history undo-last >/dev/null &&
	printf "version 5\n" >expect &&
	test_cmp expect a.txt
'

test_expect_success 'a dry run prunes nothing' '
	policy "" && fresh 4 && age_all && policy "keep_last = 1\n" &&
	objects >before &&
	keeper file write a.txt --content "dry
" --dry-run >/dev/null &&
	test "$(pruned)" = 0 &&
	objects >after &&
	test_cmp before after &&
	keeper file write a.txt --content "real
" >/dev/null &&
	test "$(pruned)" = 4
'

test_expect_success 'operations within the grace period are never pruned automatically' '
	policy "keep_last = 1\n" &&
	fresh 5 &&
	keeper file write a.txt --content "version 6
" >/dev/null &&
	test "$(pruned)" = 0 &&
	test "$(journal "SELECT count(*) FROM prunes")" = 0
'

test_expect_success 'keep_days = 7: a write prunes the operations older than a week' '
	policy "keep_days = 7\n" &&
	fresh 4 && age_all &&
	keeper file write a.txt --content "version 5
" >/dev/null &&
	test "$(pruned)" = 4 &&
	journal "SELECT count(*) FROM operations WHERE id NOT IN (SELECT id FROM $PRUNED_OPERATIONS)" >n &&
	echo 1 >expect &&
	test_cmp expect n &&
	printf "version 2\n" >v2 &&
	! test -e "$(object_path "$(sha v2)")"
'

test_expect_success 'keep_days keeps recent operations: nothing newer than a week is pruned' '
	policy "keep_days = 7\n" &&
	fresh 4 &&
	journal "UPDATE operations SET created_at = strftime(\"%Y-%m-%dT%H:%M:%fZ\", \"now\", \"-3 days\"),
		updated_at = strftime(\"%Y-%m-%dT%H:%M:%fZ\", \"now\", \"-3 days\")" &&
	keeper file write a.txt --content "version 5
" >/dev/null &&
	test "$(pruned)" = 0
'

test_expect_success 'the rules combine: keep_last keeps what keep_days would let go' '
	policy "keep_days = 7\nkeep_last = 3\n" &&
	fresh 5 && age_all &&
	keeper file write a.txt --content "version 6
" >/dev/null &&
	test "$(pruned)" = 3
'

test_expect_success 'the result of the write that triggers the policy is the one it has without it' '
	policy "" &&
	fresh 5 && age_all &&
	keeper --json file write a.txt --content "version 6
" >off.json &&
	policy "keep_last = 3\n" &&
	fresh 5 && age_all &&
	keeper --json file write a.txt --content "version 6
" >on.json &&
	test "$(pruned)" = 3 &&
	jq -S "del(.operation_id)" off.json >expect &&
	jq -S "del(.operation_id)" on.json >actual &&
	test_cmp expect actual
'

test_expect_success 'a policy prune that fails leaves the change made, says so, and prunes nothing' '
	policy "keep_last = 3\n" &&
	fresh 5 && age_all && objects >before &&
	FILEKEEPER_TEST_FAIL_AT="journal: prune operations" keeper --json file write a.txt --content "version 6
" >out.json &&
	jq -e ".ok == true" out.json &&
	jq -r ".warnings[]" out.json >warnings &&
	grep "the change is made, but applying the history retention policy after it failed" warnings &&
	printf "version 6\n" >expect &&
	test_cmp expect a.txt &&
	test "$(pruned)" = 0 &&
	test "$(journal "SELECT count(*) FROM prunes")" = 0 &&
	objects >after &&
	comm -23 before after >gone &&
	test_line_count = 0 gone &&
	keeper fsck >/dev/null &&
	keeper history undo-last >/dev/null &&
	printf "version 5\n" >expect &&
	test_cmp expect a.txt
'

test_expect_success 'the next change applies the policy the failed one could not' '
	keeper file write a.txt --content "version 7
" >/dev/null &&
	test "$(pruned)" -gt 0 &&
	keeper fsck >/dev/null
'

test_expect_success 'a policy gc that fails after the prune leaves every unpruned operation undoable' '
	policy "keep_last = 3\n" &&
	fresh 5 && age_all &&
	FILEKEEPER_TEST_FAIL_AT="remove object" keeper --json file write a.txt --content "version 6
" >out.json &&
	jq -e ".ok == true" out.json &&
	jq -r ".warnings[]" out.json >warnings &&
	grep "the history retention policy pruned history, but removing the objects the pruned operations released failed" warnings &&
	test "$(pruned)" = 3 &&
	printf "version 1\n" >v1 &&
	test -e "$(object_path "$(sha v1)")" &&
	keeper fsck >/dev/null &&
	keeper history undo-last >/dev/null &&
	printf "version 5\n" >expect &&
	test_cmp expect a.txt &&
	keeper gc >/dev/null &&
	! test -e "$(object_path "$(sha v1)")" &&
	keeper fsck >/dev/null
'

test_expect_success 'restore the config' '
	policy ""
'

test_done
