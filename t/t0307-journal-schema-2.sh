#!/bin/sh
test_description='a journal written by the previous release (schema 2) is read, then migrated

t0307/schema-2-workspace.tar.gz is a workspace made by the release that wrote journal schema 2
(keeper 0.1.0 at b3366e3), where a prune marked each pruned row: a.txt written four times,
b.txt once, a pending operation left by journal-begin, c.txt, then a prune (--keep-last 1
--grace-period 2s) that pruned the four writes of a.txt and kept b.txt (within its grace
period) and the pending operation, a second prune three seconds later (--keep-last 2) that
pruned b.txt, d.txt, and a gc. status reads it as it is; the first command that opens it
to write migrates it to schema 3, where a prune is a cut with exceptions, and on to the
current schema, and every answer about what was pruned, by which prune and when, stays what
it was.'
. ./test-lib.sh

OLD=$TRASH/old

test_expect_success 'setup: unpack the workspace and list what schema 2 says was pruned' '
	mkdir "$OLD" &&
	gzip -dc "$TEST_DIRECTORY/t0307/schema-2-workspace.tar.gz" | tar -xf - -C "$OLD" &&
	test "$(journal "PRAGMA user_version" "$OLD")" = 2 &&
	journal "SELECT seq, id, pruned_by, pruned_at FROM operations ORDER BY seq" "$OLD" >marks &&
	test_line_count = 8 marks &&
	journal "SELECT id FROM operations WHERE pruned_by IS NOT NULL ORDER BY seq" "$OLD" >pruned &&
	test_line_count = 5 pruned
'

test_expect_success 'status reads the schema 2 journal as it is and changes nothing' '
	cp "$OLD/.filekeeper/journal.sqlite3" journal.before &&
	keeper --root "$OLD" --json status >status.json &&
	json_get ".journal.schema_version == 2 and .journal.pruned == 5 and .journal.operations == 8" status.json &&
	cmp journal.before "$OLD/.filekeeper/journal.sqlite3"
'

test_expect_success 'history list migrates it to the current schema and shows the same operations' '
	keeper --root "$OLD" --json history list --limit 20 >list.json &&
	test "$(journal "PRAGMA user_version" "$OLD")" = 4 &&
	json_get ".operations | length == 8" list.json
'

test_expect_success 'the documented query says what the dropped columns said, row for row' '
	journal "SELECT o.seq, o.id, v.pruned_by, v.pruned_at FROM operations o
		LEFT JOIN $PRUNED_OPERATIONS v ON v.id = o.id ORDER BY o.seq" "$OLD" >views &&
	test_cmp marks views &&
	test_must_fail journal "SELECT pruned_by FROM operations" "$OLD" 2>err &&
	grep "no such column" err
'

test_expect_success 'the second prune, which cut inside the first one'"'"'s range, owns no range' '
	journal "SELECT rule, cut_seq, first_seq, operations FROM prunes ORDER BY created_at" "$OLD" >actual &&
	printf "%s\n" "keep_last 1|6|1|4" "keep_last 2|5||1" >expect &&
	test_cmp expect actual
'

test_expect_success 'a pruned write of a.txt and the pruned write of b.txt are HISTORY_UNAVAILABLE, naming their prunes' '
	for seq in 3 5; do
		op=$(journal "SELECT id FROM operations WHERE seq = $seq" "$OLD") &&
		test_expect_code 29 keeper --root "$OLD" --json history undo "$op" >out &&
		test_error_code HISTORY_UNAVAILABLE out &&
		grep "^$seq|" marks | cut -d"|" -f3 >expect &&
		jq -r ".error.details.pruned_by" out >actual &&
		test_cmp expect actual || return 1
	done
'

test_expect_success 'fsck is clean: no object an unpruned operation names is missing' '
	keeper --root "$OLD" --json fsck >fsck.json &&
	json_get ".ok and .missing_objects == [] and .damaged_objects == []" fsck.json
'

test_expect_success 'undo-last undoes d.txt, then c.txt: the unpruned writes still undo' '
	keeper --root "$OLD" history undo-last >/dev/null &&
	! test -e "$OLD/d.txt" &&
	keeper --root "$OLD" history undo-last >/dev/null &&
	! test -e "$OLD/c.txt"
'

test_expect_success 'a prune by this build extends the cut; status counts every prune once' '
	keeper --root "$OLD" --json history prune --keep-last 1 --grace-period 0 >prune.json &&
	json_get ".ok and .pruned_operations > 0" prune.json &&
	journal "SELECT count(*) FROM $PRUNED_OPERATIONS" "$OLD" >expect &&
	keeper --root "$OLD" --json status >status.json &&
	jq .journal.pruned status.json >actual &&
	test_cmp expect actual &&
	journal "SELECT sum(operations) FROM prunes" "$OLD" >actual &&
	test_cmp expect actual
'

test_expect_success 'gc then leaves a store fsck finds whole' '
	keeper --root "$OLD" --json gc --grace-period 0 >gc.json &&
	json_get ".ok" gc.json &&
	keeper --root "$OLD" --json fsck >fsck.json &&
	json_get ".ok and .missing_objects == [] and .damaged_objects == []" fsck.json
'

test_done
