#!/bin/sh
test_description='keeper history list, show and diff: the journal read back

history list shows this workspace'"'"'s operations newest first (20 by default, at most 200 per
request, LIMIT_EXCEEDED above), filtered by --path (an item, the target or the source) and by
the global --actor and --task-id; another workspace'"'"'s operations never appear. history show
gives an operation with its status and every path'"'"'s hashes, modes and existence, and the
source_path of a copy or a move; an unknown id is OPERATION_NOT_FOUND. history diff is a unified
diff of just the change, from the stored blobs, with /dev/null for a missing side; binary and
history-skipped paths are said to be so, never dumped. The human list is a table.'
. ./test-lib.sh

# op_of FILE: the operation id of the mutation result in FILE.
op_of () {
	jq -e -r .operation_id "$1"
}

# listed_ids ARGS...: the ids `keeper --json ARGS... history list` returns, one a line, in order.
# Global options go before "history", so: listed_ids --actor bob -- --limit 3.
listed_ids () {
	globals=
	while test $# -gt 0 && test "$1" != --; do
		globals="$globals $1"
		shift
	done
	test $# -gt 0 && shift
	# shellcheck disable=SC2086
	keeper --json $globals history list "$@" >listed.json &&
	jq -e ".ok == true" listed.json >/dev/null &&
	jq -r ".operations[].id" listed.json
}

# The story: five operations by two actors under three task ids.

test_expect_success 'setup: create, write, copy, move and delete, by alice and bob' '
	printf "version one\n" >a.v1 &&
	printf "version two\n" >a.v2 &&
	keeper --json --actor alice --task-id t1 file create a.txt --input a.v1 >out &&
	op_of out >op.create &&
	stat -c %a a.txt >a.created-mode &&
	chmod 640 a.txt &&
	keeper --json --actor bob --task-id t2 file write a.txt --input a.v2 >out &&
	op_of out >op.write &&
	keeper --json --actor alice --task-id t1 file copy a.txt b.txt >out &&
	op_of out >op.copy &&
	keeper --json --actor bob --task-id t3 file move b.txt c.txt >out &&
	op_of out >op.move &&
	keeper --json file delete c.txt >out &&
	op_of out >op.delete &&
	test ! -e c.txt
'

test_expect_success 'history list shows the operations newest first' '
	cat op.delete op.move op.copy op.write op.create >expect &&
	listed_ids >actual &&
	test_cmp expect actual
'

test_expect_success 'history list orders by a strictly falling sequence number' '
	keeper --json history list >out &&
	json_get "[.operations[].seq] | . == (sort | reverse) and . == (unique | reverse)" out
'

test_expect_success 'history list --json gives every operation field plus undone_by and undoable' '
	keeper --json history list >out &&
	json_get ".ok and .workspace == \"test\"" out &&
	json_get "all(.operations[]; ([\"id\", \"seq\", \"kind\", \"status\", \"created_at\", \"actor\",
		\"task_id\", \"summary\", \"target_path\", \"source_path\", \"undoes\", \"metadata\", \"items\",
		\"undone_by\", \"undoable\"] - keys) == [])" out &&
	json_get ".operations[] | select(.id == \"$(cat op.write)\") |
		.kind == \"write\" and .status == \"committed\" and .undone_by == null and .undoable == true" out
'

test_expect_success 'history list records the kind of every mutation' '
	cat >expect <<-\EOF &&
	delete c.txt
	move c.txt
	copy b.txt
	write a.txt
	create a.txt
	EOF
	keeper --json history list >out &&
	json_get ".operations[] | \"\(.kind) \(.target_path)\"" out >actual &&
	test_cmp expect actual
'

# Filters.

test_expect_success 'history list --path finds an operation that touched the path as an item' '
	cat op.copy op.write op.create >expect &&
	listed_ids -- --path a.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'history list --path finds a move by its source and by its destination' '
	cat op.move op.copy >expect &&
	listed_ids -- --path b.txt >actual &&
	test_cmp expect actual &&
	cat op.delete op.move >expect &&
	listed_ids -- --path c.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'history list --path accepts ./a.txt and the absolute path for a.txt' '
	cat op.copy op.write op.create >expect &&
	listed_ids -- --path ./a.txt >actual &&
	test_cmp expect actual &&
	listed_ids -- --path "$WS/a.txt" >actual &&
	test_cmp expect actual
'

test_expect_success 'history list --path of a path nothing touched is an empty list' '
	keeper --json history list --path never-touched.txt >out &&
	json_get ".ok and .operations == []" out
'

test_expect_success 'the global --actor filters history list to that actor'"'"'s operations' '
	cat op.move op.write >expect &&
	listed_ids --actor bob >actual &&
	test_cmp expect actual &&
	cat op.copy op.create >expect &&
	listed_ids --actor alice >actual &&
	test_cmp expect actual
'

test_expect_success 'the global --task-id filters history list to that task'"'"'s operations' '
	cat op.copy op.create >expect &&
	listed_ids --task-id t1 >actual &&
	test_cmp expect actual &&
	cat op.move >expect &&
	listed_ids --task-id t3 >actual &&
	test_cmp expect actual
'

test_expect_success '--actor, --task-id and --path combine (all must match)' '
	cat op.copy op.create >expect &&
	listed_ids --actor alice --task-id t1 -- --path a.txt --limit 5 >actual &&
	test_cmp expect actual &&
	cat op.copy >expect &&
	listed_ids --actor alice --task-id t1 -- --path a.txt --limit 1 >actual &&
	test_cmp expect actual &&
	listed_ids --actor alice --task-id t2 >actual &&
	test_must_fail test -s actual &&
	listed_ids --actor nobody >actual &&
	test_must_fail test -s actual
'

# This workspace only.

test_expect_success 'setup: a second workspace (by --root) with operations of its own' '
	mkdir "$TRASH/other" &&
	keeper --json --root "$TRASH/other" file create o.txt --content "other" >out &&
	op_of out >op.other &&
	keeper --json --root "$TRASH/other" --actor bob file write o.txt --content "other 2" >out &&
	op_of out >>op.other
'

test_expect_success 'history list never shows another workspace'"'"'s operations' '
	listed_ids >ours &&
	listed_ids --actor bob -- --limit 200 >>ours &&
	listed_ids -- --path o.txt >>ours &&
	for op in $(cat op.other); do
		test_must_fail grep "$op" ours || return 1
	done
'

test_expect_success 'the second workspace lists only its own operations' '
	tac op.other >expect &&
	listed_ids --root "$TRASH/other" -- --limit 200 >actual &&
	test_cmp expect actual
'

test_expect_success 'history show of another workspace'"'"'s operation is OPERATION_NOT_FOUND (exit 28)' '
	test_expect_code 28 keeper --json history show "$(head -n 1 op.other)" >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test_no_host_path out
'

test_expect_success 'history list of a workspace with no history is empty and creates no state' '
	mkdir "$TRASH/fresh" &&
	keeper --json --root "$TRASH/fresh" history list >out &&
	json_get ".ok and .operations == []" out &&
	test ! -e "$TRASH/fresh/.filekeeper"
'

# Limits.

test_expect_success 'setup: twenty more writes, 25 operations in all' '
	for i in $(seq 1 20); do
		keeper --json file write counter.txt --content "count $i" >out &&
		op_of out >>op.counter || return 1
	done &&
	keeper --json history list --limit 200 >out &&
	test "$(json_get ".operations | length" out)" = 25
'

test_expect_success 'history list returns 20 operations by default, the newest' '
	tac op.counter >expect &&
	listed_ids >actual &&
	test_cmp expect actual
'

test_expect_success 'history list --limit 3 returns the newest three' '
	tac op.counter | head -n 3 >expect &&
	listed_ids -- --limit 3 >actual &&
	test_cmp expect actual
'

test_expect_success 'history list --limit 200 (the ceiling) is accepted' '
	keeper --json history list --limit 200 >out &&
	test "$(json_get ".operations | length" out)" = 25
'

test_expect_success 'history list --limit 201 is LIMIT_EXCEEDED (exit 21)' '
	test_expect_code 21 keeper --json history list --limit 201 >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test_no_host_path out
'

# The human table.

test_expect_success 'the human history list is a table with the header ID WHEN KIND PATH ACTOR STATUS' '
	keeper history list --limit 3 >table &&
	test_line_count = 4 table &&
	head -n 1 table >header &&
	grep -E "^ID +WHEN( \(UTC\))? +KIND +PATH +ACTOR +STATUS$" header
'

test_expect_success 'the human history list has one row per operation, starting with its id' '
	keeper history list --limit 3 >table &&
	sed 1d table | cut -d" " -f1 >actual &&
	tac op.counter | head -n 3 >expect &&
	test_cmp expect actual
'

test_expect_success 'the human history list rows give kind, path, actor and status' '
	keeper --actor bob history list >table &&
	printf "%s move c.txt bob committed\n%s write a.txt bob committed\n" \
		"$(cat op.move)" "$(cat op.write)" >expect &&
	sed 1d table | awk "{ print \$1, \$(NF-3), \$(NF-2), \$(NF-1), \$NF }" >actual &&
	test_cmp expect actual
'

# show

test_expect_success 'history show gives the operation, its status, undone_by and undoable' '
	keeper --json history show "$(cat op.write)" >out &&
	json_get ".ok and .workspace == \"test\"" out &&
	test "$(json_get .operation.id out)" = "$(cat op.write)" &&
	test "$(json_get .operation.status out)" = committed &&
	test "$(json_get .operation.kind out)" = write &&
	test "$(json_get .operation.actor out)" = bob &&
	test "$(json_get .operation.task_id out)" = t2 &&
	json_get ".undone_by == null and .undoable == true" out
'

test_expect_success 'history show of a write gives before and after hashes, modes and existence' '
	keeper --json history show "$(cat op.write)" >out &&
	echo "a.txt modified file true true $(sha a.v1) $(sha a.v2) 416 416" >expect &&
	json_get ".operation.items[] | \"\(.path) \(.change) \(.kind) \(.before_exists) \(.after_exists) \(.before_hash) \(.after_hash) \(.before_mode) \(.after_mode)\"" out >actual &&
	test_cmp expect actual
'

test_expect_success 'history show of a create records the path absent before and its mode after' '
	keeper --json history show "$(cat op.create)" >out &&
	echo "a.txt created false true null $(sha a.v1) null $(cat a.created-mode)" >expect &&
	json_get ".operation.items[] | \"\(.path) \(.change) \(.before_exists) \(.after_exists) \(.before_hash) \(.after_hash) \(.before_mode) \(.after_mode // \"null\" |
		if type == \"number\" then [(. / 64 | floor), ((. / 8 | floor) % 8), (. % 8)] | map(tostring) | add else . end)\"" out >actual &&
	test_cmp expect actual
'

test_expect_success 'history show of a delete records the path absent after, with its old hash and mode' '
	keeper --json history show "$(cat op.delete)" >out &&
	echo "c.txt deleted true false $(sha a.v2) null 416 null" >expect &&
	json_get ".operation.items[] | \"\(.path) \(.change) \(.before_exists) \(.after_exists) \(.before_hash) \(.after_hash) \(.before_mode) \(.after_mode)\"" out >actual &&
	test_cmp expect actual
'

test_expect_success 'history show of a copy names its source_path, and its target keeps its meaning' '
	keeper --json history show "$(cat op.copy)" >out &&
	test "$(json_get .operation.source_path out)" = a.txt &&
	test "$(json_get .operation.metadata.source_path out)" = a.txt &&
	test "$(json_get .operation.target_path out)" = b.txt &&
	echo "b.txt created false true $(sha a.v2) 416" >expect &&
	json_get ".operation.items[] | \"\(.path) \(.change) \(.before_exists) \(.after_exists) \(.after_hash) \(.after_mode)\"" out >actual &&
	test_cmp expect actual &&
	json_get ".operation.summary" out >summary &&
	grep a.txt summary &&
	grep b.txt summary
'

test_expect_success 'history show of a move names its source_path and records both ends' '
	keeper --json history show "$(cat op.move)" >out &&
	test "$(json_get .operation.source_path out)" = b.txt &&
	test "$(json_get .operation.metadata.source_path out)" = b.txt &&
	test "$(json_get .operation.target_path out)" = c.txt &&
	cat >expect <<-EOF &&
	b.txt deleted true false $(sha a.v2) null
	c.txt created false true null $(sha a.v2)
	EOF
	json_get ".operation.items[] | \"\(.path) \(.change) \(.before_exists) \(.after_exists) \(.before_hash) \(.after_hash)\"" out >actual &&
	test_cmp expect actual
'

test_expect_success 'history show in human form gives the status, the source and each side'"'"'s hash and mode' '
	keeper history show "$(cat op.copy)" >human &&
	grep "^status: *committed$" human &&
	grep "^source: *a.txt$" human &&
	grep -E "^ +before +absent$" human &&
	grep -E "^ +after +$(sha a.v2) mode 640$" human
'

test_expect_success 'history show of an unknown id is OPERATION_NOT_FOUND (exit 28)' '
	test_expect_code 28 keeper --json history show op_0123456789abcdef >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test "$(json_get .error.details.operation_id out)" = op_0123456789abcdef &&
	test_no_host_path out
'

test_expect_success 'history show in a workspace with no journal is OPERATION_NOT_FOUND (exit 28)' '
	test_expect_code 28 keeper --json --root "$TRASH/fresh" history show "$(cat op.write)" >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test ! -e "$TRASH/fresh/.filekeeper"
'

# diff

test_expect_success 'setup: a 200-line file, then one line of it changed' '
	seq 1 200 | sed "s/^/line /" >long.v1 &&
	sed "s/^line 100$/LINE 100/" long.v1 >long.v2 &&
	keeper --json file create long.txt --input long.v1 >out &&
	op_of out >op.long-create &&
	keeper --json file write long.txt --input long.v2 >out &&
	op_of out >op.long-write &&
	test_cmp long.v2 long.txt
'

test_expect_success 'history diff of a write is a unified diff of just the changed line' '
	cat >expect <<-\EOF &&
	--- a/long.txt
	+++ b/long.txt
	@@ -97,7 +97,7 @@
	 line 97
	 line 98
	 line 99
	-line 100
	+LINE 100
	 line 101
	 line 102
	 line 103
	EOF
	keeper --json history diff "$(cat op.long-write)" >out &&
	jq -e -j ".paths[0].diff" out >actual &&
	test_cmp expect actual
'

test_expect_success 'history diff of a write never dumps the whole file' '
	keeper --json history diff "$(cat op.long-write)" >out &&
	jq -e -j ".paths[0].diff" out >diff &&
	test_line_count = 200 long.txt &&
	test_line_count -lt 20 diff &&
	test_must_fail grep "line 50$" diff
'

test_expect_success 'history diff --json gives operation_id, summary and one entry per path' '
	keeper --json history diff "$(cat op.long-write)" >out &&
	test "$(json_get .operation_id out)" = "$(cat op.long-write)" &&
	test "$(json_get .summary out)" = "Wrote long.txt." &&
	echo "long.txt modified file text" >expect &&
	json_get ".paths[] | \"\(.path) \(.change) \(.kind) \(.diff_kind)\"" out >actual &&
	test_cmp expect actual
'

test_expect_success 'history diff in human form prints the same unified diff' '
	keeper --json history diff "$(cat op.long-write)" >out &&
	jq -e -j ".paths[0].diff" out >expect &&
	keeper history diff "$(cat op.long-write)" >actual &&
	test_cmp expect actual
'

test_expect_success 'history diff of a create has /dev/null on the old side' '
	cat >expect <<-\EOF &&
	--- /dev/null
	+++ b/a.txt
	@@ -0,0 +1 @@
	+version one
	EOF
	keeper --json history diff "$(cat op.create)" >out &&
	jq -e -j ".paths[0].diff" out >actual &&
	test_cmp expect actual &&
	test "$(json_get .paths[0].diff_kind out)" = text
'

test_expect_success 'history diff of a delete has /dev/null on the new side' '
	cat >expect <<-\EOF &&
	--- a/c.txt
	+++ /dev/null
	@@ -1 +0,0 @@
	-version two
	EOF
	keeper --json history diff "$(cat op.delete)" >out &&
	jq -e -j ".paths[0].diff" out >actual &&
	test_cmp expect actual
'

test_expect_success 'history diff of an empty file created or deleted has the two header lines, as its result had' '
	: >empty.in &&
	nl="$(printf "\nx")" && nl="${nl%x}" &&
	tab="$(printf "\t")" &&
	keeper --json file create e.txt --input empty.in >created &&
	keeper --json file delete e.txt >deleted &&
	# Quoted as every diff header quotes a name.
	keeper --json file create "sp ace.txt" --input empty.in >space &&
	keeper --json file create "n${nl}l.txt" --input empty.in >newline &&
	printf "%s\n" "--- /dev/null" "+++ b/e.txt" >expect.created &&
	printf "%s\n" "--- a/e.txt" "+++ /dev/null" >expect.deleted &&
	printf "%s\n" "--- /dev/null" "+++ b/sp ace.txt${tab}" >expect.space &&
	printf "%s\n" "--- /dev/null" "+++ \"b/n\\nl.txt\"" >expect.newline &&
	for change in created deleted space newline
	do
		jq -e -j ".diffs[0].diff" $change >result &&
		test_cmp expect.$change result &&
		keeper --json history diff "$(op_of $change)" >out &&
		jq -e -j ".paths[0].diff" out >actual &&
		test_cmp expect.$change actual &&
		test "$(json_get .paths[0].truncated out)" = false &&
		keeper history diff "$(op_of $change)" >human &&
		test_cmp expect.$change human || return 1
	done
'

test_expect_success 'a history diff over 256 KiB is cut to whole lines, says so, and is truncated' '
	awk "BEGIN { for (i = 0; i < 30000; i++) printf \"line %06d\\n\", i }" >big.v1 &&
	awk "BEGIN { for (i = 0; i < 30000; i++) printf (i % 2 ? \"LINE %06d\\n\" : \"line %06d\\n\"), i }" >big.v2 &&
	keeper --json file create big.txt --input big.v1 >out &&
	keeper --json file write big.txt --input big.v2 >out &&
	keeper --json history diff "$(op_of out)" >diff.json &&
	test "$(json_get .paths[0].truncated diff.json)" = true &&
	jq -e -j ".paths[0].diff" diff.json >diff &&
	test "$(wc -c <diff)" -lt 270000 &&
	# Every line but the note is a whole line of the diff: a header, a hunk header, or a
	# context, removed or added line of the two versions.
	tail -n 1 diff | grep "^\.\.\. diff cut at 256 KiB" &&
	{ sed "\$d" diff | grep -v -E "^(--- a/|\+\+\+ b/|@@ -[0-9]+,[0-9]+ \+[0-9]+,[0-9]+ @@$|[-+ ](line|LINE) [0-9]{6}$)" >odd; true; } &&
	test_must_be_empty odd &&
	keeper history diff "$(op_of out)" >human 2>err &&
	test_cmp diff human &&
	grep "truncated: the diff of big.txt is only its start" err
'

test_expect_success 'history diff of a binary file says binary and has no body' '
	printf "\000\001binary one\377" >bin.v1 &&
	printf "\000\002binary two\377" >bin.v2 &&
	keeper --json file create bin.dat --input bin.v1 >out &&
	keeper --json file write bin.dat --input bin.v2 >out &&
	keeper --json history diff "$(op_of out)" >diff.json &&
	echo "bin.dat modified binary null" >expect &&
	json_get ".paths[] | \"\(.path) \(.change) \(.diff_kind) \(.diff)\"" diff.json >actual &&
	test_cmp expect actual &&
	keeper history diff "$(op_of out)" >human &&
	grep -i "binary" human &&
	test_must_fail grep "binary one" human
'

test_expect_success 'history diff of a directory operation says directory' '
	keeper --json dir create --parents tree/leaf >out &&
	keeper --json history diff "$(op_of out)" >diff.json &&
	cat >expect <<-\EOF &&
	tree created directory null
	tree/leaf created directory null
	EOF
	json_get ".paths[] | \"\(.path) \(.change) \(.diff_kind) \(.diff)\"" diff.json >actual &&
	test_cmp expect actual
'

test_expect_success 'setup: a second home with max_history_blob_bytes = 100' '
	H2=$TRASH/home2 &&
	keeper --home "$H2" init >/dev/null &&
	printf "[filekeeper]\nmax_history_blob_bytes = 100\n" >"$H2/config.toml" &&
	mkdir "$TRASH/capped" &&
	keeper --home "$H2" workspace create capped "$TRASH/capped" >/dev/null
'

test_expect_success 'history diff of a history-skipped file says history_skipped and has no body' '
	seq 1 60 | sed "s/^/big line /" >big.v1 &&
	sed "s/^big line 30$/BIG LINE 30/" big.v1 >big.v2 &&
	keeper --json --home "$TRASH/home2" --workspace capped file create big.txt --input big.v1 >out &&
	keeper --json --home "$TRASH/home2" --workspace capped file write big.txt --input big.v2 >out &&
	json_get ".history_skipped == [\"big.txt\"]" out &&
	keeper --json --home "$TRASH/home2" --workspace capped history diff "$(op_of out)" >diff.json &&
	echo "big.txt modified history_skipped null" >expect &&
	json_get ".paths[] | \"\(.path) \(.change) \(.diff_kind) \(.diff)\"" diff.json >actual &&
	test_cmp expect actual &&
	keeper --home "$TRASH/home2" --workspace capped history diff "$(op_of out)" >human &&
	grep "big.txt" human &&
	test_must_fail grep "big line" human
'

test_expect_success 'history show of a history-skipped operation says it is not undoable' '
	keeper --json --home "$TRASH/home2" --workspace capped history list --limit 1 >out &&
	json_get ".operations[0].items[0].history_skipped == true and .operations[0].undoable == false" out
'

test_expect_success 'a name holding a newline is quoted in a diff header, as git quotes it, and the diff applies back' '
	nl="$(printf "\nx")" && nl="${nl%x}" &&
	printf "one\n" >"x${nl}y.txt" &&
	keeper --json file write "x${nl}y.txt" --content "two
" >out &&
	op=$(json_get .operation_id out) &&
	keeper history diff "$op" >diff &&
	head -n 2 diff >actual &&
	printf "%s\n" "--- \"a/x\\ny.txt\"" "+++ \"b/x\\ny.txt\"" >expect &&
	test_cmp expect actual &&
	printf "one\n" >"x${nl}y.txt" &&
	keeper --json file apply-patch diff >out &&
	test "$(cat "x${nl}y.txt")" = two &&
	keeper file list . >list &&
	grep -Fx "\"x\\ny.txt\"" list &&
	rm "x${nl}y.txt"
'

test_expect_success 'history diff of an unknown id is OPERATION_NOT_FOUND (exit 28)' '
	test_expect_code 28 keeper --json history diff op_0123456789abcdef >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test_no_host_path out
'

test_expect_success 'no history output names a host path' '
	keeper --json history list --limit 200 >out &&
	test_no_host_path out &&
	keeper --json history show "$(cat op.move)" >out &&
	test_no_host_path out &&
	keeper --json history diff "$(cat op.long-write)" >out &&
	test_no_host_path out
'

test_expect_success 'reading history changed nothing: fsck is clean' '
	keeper --json fsck >out &&
	json_get ".ok" out &&
	test "$(json_get ".pending_operations | length" out)" = 0 &&
	test "$(json_get ".damaged_objects | length" out)" = 0 &&
	test "$(json_get ".missing_objects | length" out)" = 0
'

test_done
