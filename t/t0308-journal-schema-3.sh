#!/bin/sh
test_description='a journal written by the previous release (schema 3) is read, then migrated

t0308/schema-3-workspace.tar.gz is a workspace made by the release that wrote journal schema 3
(keeper 0.1.0 at 8ab3c95), where triggers kept object_refs and the view pruned_operations said
which prune pruned each operation: a.txt written three times, b.txt once, a pending operation
left by journal-begin (p.txt), c.txt, a prune (--keep-last 1 --grace-period 0) that pruned the
four writes before it and kept the pending one, a fourth write of a.txt, a second prune that
pruned c.txt, and a gc. status reads it as it is; the first command that opens it to write
migrates it to schema 4, which drops the triggers and the view (keeper writes object_refs with
each item, and gc holds what a row written by hand names) and makes four indexes partial.'
. ./test-lib.sh

OLD=$TRASH/old

test_expect_success 'setup: unpack the workspace and keep what schema 3 answered' '
	mkdir "$OLD" &&
	gzip -dc "$TEST_DIRECTORY/t0308/schema-3-workspace.tar.gz" | tar -xf - -C "$OLD" &&
	test "$(journal "PRAGMA user_version" "$OLD")" = 3 &&
	journal "SELECT o.seq, o.id, v.pruned_by, v.pruned_at FROM operations o
		LEFT JOIN pruned_operations v ON v.id = o.id ORDER BY o.seq" "$OLD" >view &&
	test_line_count = 7 view &&
	grep -c "|prune_" view >pruned &&
	echo 5 >expect &&
	test_cmp expect pruned &&
	journal "SELECT hash, last_seq FROM object_refs ORDER BY hash" "$OLD" >refs.before &&
	test_line_count = 7 refs.before
'

test_expect_success 'status reads the schema 3 journal as it is and changes nothing' '
	cp "$OLD/.filekeeper/journal.sqlite3" journal.before &&
	keeper --root "$OLD" --json status >status.json &&
	json_get ".journal.schema_version == 3 and .journal.pruned == 5 and .journal.operations == 7" status.json &&
	cmp journal.before "$OLD/.filekeeper/journal.sqlite3"
'

test_expect_success 'a write migrates it to schema 4: no trigger and no view are left' '
	keeper --root "$OLD" file write d.txt --content "d" >/dev/null &&
	test "$(journal "PRAGMA user_version" "$OLD")" = 4 &&
	journal "SELECT count(*) FROM sqlite_schema WHERE type IN ('"'"'trigger'"'"', '"'"'view'"'"')" "$OLD" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

test_expect_success 'the indexes of the columns most operations leave NULL hold only the rows that have one' '
	journal "SELECT name FROM sqlite_schema WHERE type = '"'"'index'"'"'
		AND tbl_name = '"'"'operations'"'"' AND sql LIKE '"'"'% WHERE % IS NOT NULL'"'"' ORDER BY name" "$OLD" >actual &&
	printf "%s\n" operations_by_actor operations_by_source operations_by_task operations_by_undoes >expect &&
	test_cmp expect actual &&
	journal "EXPLAIN QUERY PLAN SELECT seq FROM operations WHERE actor = '"'"'a'"'"'" "$OLD" >plan &&
	grep "INDEX operations_by_actor" plan
'

test_expect_success 'object_refs keeps every row it had, and the write added its object with its operation' '
	journal "SELECT hash, last_seq FROM object_refs ORDER BY hash" "$OLD" >refs.after &&
	comm -23 refs.before refs.after >lost &&
	test_must_be_empty lost &&
	d=$(keeper --root "$OLD" file hash d.txt) &&
	seq=$(journal "SELECT max(seq) FROM operations" "$OLD") &&
	grep "^$d|$seq\$" refs.after
'

test_expect_success 'the documented query says what the view said, row for row' '
	journal "SELECT o.seq, o.id, v.pruned_by, v.pruned_at FROM operations o
		LEFT JOIN $PRUNED_OPERATIONS v ON v.id = o.id ORDER BY o.seq" "$OLD" >actual &&
	sed "\$d" actual >without-new &&
	test_cmp view without-new
'

test_expect_success 'a pruned write is HISTORY_UNAVAILABLE, naming the prune the view named' '
	op=$(journal "SELECT id FROM operations WHERE seq = 6" "$OLD") &&
	test_expect_code 29 keeper --root "$OLD" --json history undo "$op" >out &&
	test_error_code HISTORY_UNAVAILABLE out &&
	grep "^6|" view | cut -d"|" -f3 >expect &&
	jq -r ".error.details.pruned_by" out >actual &&
	test_cmp expect actual
'

test_expect_success 'gc keeps an object that only a row written by hand names' '
	h=$(printf "kept by hand\n" | keeper hash-object -w --stdin --root "$OLD") &&
	journal "INSERT INTO operations (id, kind, status, summary, target_path)
		     VALUES ('"'"'op_00000000000000e1'"'"', '"'"'write'"'"', '"'"'committed'"'"', '"'"'By hand.'"'"', '"'"'h.txt'"'"');
		 INSERT INTO operation_items (op_id, ordinal, path, change, before_exists, after_exists, after_hash)
		     VALUES ('"'"'op_00000000000000e1'"'"', 0, '"'"'h.txt'"'"', '"'"'added'"'"', 0, 1, '"'"'$h'"'"');" "$OLD" &&
	journal "SELECT count(*) FROM object_refs WHERE hash = '"'"'$h'"'"'" "$OLD" >actual &&
	echo 0 >expect &&
	test_cmp expect actual &&
	keeper --root "$OLD" --json gc --grace-period 0 >gc.json &&
	json_get ".ok" gc.json &&
	keeper --root "$OLD" cat-blob "$h" >blob &&
	printf "kept by hand\n" >expect &&
	test_cmp expect blob
'

test_expect_success 'fsck is clean and the unpruned writes still undo' '
	keeper --root "$OLD" --json fsck >fsck.json &&
	json_get ".ok and .missing_objects == [] and .damaged_objects == []" fsck.json &&
	op=$(journal "SELECT id FROM operations WHERE seq = 7" "$OLD") &&
	keeper --root "$OLD" history undo "$op" >/dev/null &&
	printf "a version 3\n" >expect &&
	test_cmp expect "$OLD/a.txt"
'

test_done
