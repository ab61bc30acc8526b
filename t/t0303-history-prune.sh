#!/bin/sh
test_description='keeper history prune: cut the undoable history at a point, keep the ledger

A prune cuts the operations before its cut from the undoable history (a row of the prunes
table, and the documented query says which prune pruned each, and when); their rows stay,
they are no longer undoable (HISTORY_UNAVAILABLE with reason pruned), history show and diff
say so, undo-last never reaches them, and fsck does not count
their objects as missing. Pending operations and those committed within the grace period are
never pruned. --older-than, --keep-last and --max-store-size each cut where documented; a dry
run marks nothing and reports the same counts as the real run; the result says how much gc can
then free.'
. ./test-lib.sh

# age_all: moves every operation recorded so far back two days, as if recorded then.
age_all () {
	journal "UPDATE operations SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-2 days'),
		updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-2 days')"
}

# ops: every operation id, oldest first.
ops () {
	journal "SELECT id FROM operations ORDER BY seq"
}

test_expect_success 'setup: five writes of one file, recorded two days ago' '
	for i in 1 2 3 4 5; do
		keeper file write a.txt --content "version $i
" >/dev/null || return 1
	done &&
	age_all &&
	ops >all-ops &&
	test_line_count = 5 all-ops
'

test_expect_success 'prune needs exactly one cut' '
	test_expect_code 2 keeper history prune 2>err &&
	test_expect_code 2 keeper history prune --keep-last 1 --older-than 1d 2>err
'

test_expect_success 'a malformed duration or size is INVALID_ARGUMENT and prunes nothing' '
	test_expect_code 2 keeper --json history prune --older-than 30 >out &&
	test_error_code INVALID_ARGUMENT out &&
	json_get ".error.details.value == \"30\"" out &&
	test_expect_code 2 keeper --json history prune --max-store-size 1.5G >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(journal "SELECT count(*) FROM $PRUNED_OPERATIONS")" = 0
'

test_expect_success 'a dry run reports the cut and marks nothing' '
	keeper --json history prune --keep-last 2 --dry-run >dry.json &&
	json_get ".dry_run == true and .prune_id == null and .pruned_operations == 3 and .rule == \"keep_last 2\"" dry.json &&
	test "$(journal "SELECT count(*) FROM $PRUNED_OPERATIONS")" = 0 &&
	test "$(journal "SELECT count(*) FROM prunes")" = 0
'

test_expect_success '--keep-last 2 prunes the three oldest, as the dry run said' '
	keeper --json history prune --keep-last 2 >prune.json &&
	json_get ".dry_run == false and .pruned_operations == 3 and .protected_operations == 0" prune.json &&
	jq "del(.dry_run, .prune_id)" dry.json >expect &&
	jq "del(.dry_run, .prune_id)" prune.json >actual &&
	test_cmp expect actual &&
	json_get .prune_id prune.json | grep -E "^prune_[0-9a-f]{16}$" >prune.id &&
	journal "SELECT id FROM $PRUNED_OPERATIONS WHERE pruned_by = '\''$(cat prune.id)'\'' ORDER BY seq" >actual &&
	head -n 3 all-ops >expect &&
	test_cmp expect actual
'

test_expect_success 'the prune is recorded with its rule, its cut and its count, readable with sqlite3' '
	journal "SELECT rule, cut_seq, operations FROM prunes" >actual &&
	echo "keep_last 2|3|3" >expect &&
	test_cmp expect actual &&
	journal "SELECT count(*) FROM $PRUNED_OPERATIONS WHERE pruned_at IS NOT NULL" >actual &&
	echo 3 >expect &&
	test_cmp expect actual
'

test_expect_success 'it released the two versions only the pruned writes named (the first write created the file), held for the grace period' '
	json_get ".collectable_objects == 0 and .held_objects == 2 and .held_bytes > 0" prune.json
'

test_expect_success 'undo of a pruned operation is HISTORY_UNAVAILABLE with reason pruned, and changes nothing' '
	cp a.txt before &&
	op=$(sed -n 2p all-ops) &&
	test_expect_code 29 keeper --json history undo $op >out &&
	test_error_code HISTORY_UNAVAILABLE out &&
	json_get ".error.details.reason == \"pruned\" and .error.details.pruned_by == \"$(cat prune.id)\" and (.error.details.pruned_at | type == \"string\")" out &&
	test_cmp before a.txt
'

test_expect_success 'history show and list say the operation is pruned and not undoable' '
	op=$(sed -n 1p all-ops) &&
	keeper --json history show $op >show.json &&
	json_get ".undoable == false and .operation.pruned_by == \"$(cat prune.id)\"" show.json &&
	keeper history show $op >show.txt &&
	grep "pruned at .* by $(cat prune.id)" show.txt &&
	keeper --json history list >list.json &&
	json_get "[.operations[] | .undoable] == [true, true, false, false, false]" list.json
'

test_expect_success 'status counts the pruned operations and undo goes back to the oldest unpruned one' '
	keeper --json status >status.json &&
	json_get ".journal.pruned == 3 and .journal.undoable == 2" status.json &&
	json_get ".journal.oldest_undoable.operation_id == \"$(sed -n 4p all-ops)\"" status.json
'

test_expect_success 'history diff of a pruned operation shows no contents, diff_kind pruned' '
	op=$(sed -n 2p all-ops) &&
	keeper --json history diff $op >diff.json &&
	json_get ".paths[0].diff_kind == \"pruned\" and .paths[0].diff == null" diff.json
'

test_expect_success 'undo-last walks back through the unpruned operations only' '
	keeper history undo-last >/dev/null &&
	keeper history undo-last >/dev/null &&
	printf "version 3\n" >expect &&
	test_cmp expect a.txt &&
	test_expect_code 28 keeper --json history undo-last >out &&
	test_error_code OPERATION_NOT_FOUND out
'

test_expect_success 'fsck is clean' '
	keeper fsck >/dev/null
'

test_expect_success 'operations committed within the grace period are protected' '
	keeper file write b.txt --content "fresh
" >/dev/null &&
	keeper --json history prune --keep-last 0 >out &&
	json_get ".protected_operations > 0" out &&
	op=$(journal "SELECT id FROM operations WHERE target_path = '\''b.txt'\''") &&
	test "$(journal "SELECT id NOT IN (SELECT id FROM $PRUNED_OPERATIONS) FROM operations WHERE id = '\''$op'\''")" = 1
'

test_expect_success 'a pending operation is never pruned, however old' '
	blob=$(keeper --json hash-object -w a.txt | jq -r .object_id) &&
	keeper --json journal-begin --kind write --item "{\"path\": \"c.txt\", \"after_hash\": \"$blob\"}" >begun.json &&
	op=$(json_get .operation_id begun.json) &&
	age_all &&
	keeper --json history prune --keep-last 0 --grace-period 0 >out &&
	test "$(journal "SELECT status, id NOT IN (SELECT id FROM $PRUNED_OPERATIONS) FROM operations WHERE id = '\''$op'\''")" = "pending|1" &&
	keeper journal-abort $op >/dev/null
'

test_expect_success 'setup: a second workspace, three writes a day apart' '
	mkdir w2 &&
	for d in 3 2 1; do
		keeper --root w2 file write f.txt --content "$d days ago" >/dev/null &&
		journal "UPDATE operations SET created_at = strftime('\''%Y-%m-%dT%H:%M:%fZ'\'', '\''now'\'', '\''-$d days'\''),
			updated_at = strftime('\''%Y-%m-%dT%H:%M:%fZ'\'', '\''now'\'', '\''-$d days'\'')
			WHERE seq = (SELECT max(seq) FROM operations)" "$WS/w2" || return 1
	done
'

test_expect_success '--older-than 36h prunes the operations recorded before then' '
	keeper --root w2 --json history prune --older-than 36h >out &&
	json_get ".pruned_operations == 2 and .rule == \"older_than 36h\"" out &&
	journal "SELECT seq FROM operations WHERE id NOT IN (SELECT id FROM $PRUNED_OPERATIONS)" "$WS/w2" >actual &&
	echo 3 >expect &&
	test_cmp expect actual
'

test_expect_success 'setup: a third workspace, four writes of 64 KiB of noise' '
	mkdir w3 &&
	for i in 1 2 3 4; do
		head -c 65536 /dev/urandom >noise.$i &&
		keeper --root w3 file write n.bin --input noise.$i >/dev/null || return 1
	done &&
	journal "UPDATE operations SET updated_at = strftime('\''%Y-%m-%dT%H:%M:%fZ'\'', '\''now'\'', '\''-2 days'\'')" "$WS/w3"
'

test_expect_success '--max-store-size keeps the newest operations whose objects fit' '
	keeper --root w3 --json history prune --max-store-size 200K >out &&
	json_get ".pruned_operations == 2" out &&
	journal "SELECT seq FROM operations WHERE id NOT IN (SELECT id FROM $PRUNED_OPERATIONS) ORDER BY seq" "$WS/w3" >actual &&
	printf "3\n4\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a workspace without history prunes nothing and creates no state' '
	mkdir w4 &&
	keeper --root w4 --json history prune --keep-last 0 >out &&
	json_get ".pruned_operations == 0 and .cut_seq == null" out &&
	test ! -e w4/.filekeeper
'

test_done
