#!/bin/sh
test_description='keeper status: the journal and the object store counted, and the retention policy

status reports where the state lives (project or home, never a host path), the journal'"'"'s
operations (total, pending, undoable, undone, pruned) and the oldest undoable one, the object
store'"'"'s objects and bytes (compressed on disk, uncompressed from each object'"'"'s header), the
retention policy of [history] in config.toml, and the journal'"'"'s schema version. It is a read:
a workspace with no state reports zeros and nothing is created. The counts are checked
against sqlite3 on the journal, find and zstd on the objects, and history list.'
. ./test-lib.sh

CONFIG=$FILEKEEPER_HOME/config.toml

# everything_below DIR: every path below DIR with its size, sorted (for "nothing was created").
everything_below () {
	find "$1" -printf "%p %s\n" | LC_ALL=C sort
}

test_expect_success 'a workspace with no state reports zeros, null state and the policy off' '
	everything_below "$FILEKEEPER_HOME" >before &&
	keeper --json status >out &&
	everything_below "$FILEKEEPER_HOME" >after &&
	jq -e ".ok == true and .workspace == \"test\" and .state == null" out &&
	jq -e ".journal == {schema_version: null, operations: 0, pending: 0, undoable: 0,
		undone: 0, pruned: 0, oldest_undoable: null}" out &&
	jq -e ".store == {objects: 0, compressed_bytes: 0, uncompressed_bytes: 0,
		objects_of_unknown_size: 0, stray_files: 0}" out &&
	jq -e ".retention == {enabled: false, keep_days: null, keep_last: null,
		max_store_bytes: null}" out &&
	test_cmp before after &&
	test ! -e .filekeeper
'

test_expect_success 'a --root workspace is shown as one, with no name' '
	mkdir "$TRASH/other" &&
	keeper --json --root "$TRASH/other" status >out &&
	jq -e ".workspace == null and .state == null" out &&
	keeper --root "$TRASH/other" status >human &&
	grep "^workspace: (a --root workspace)$" human &&
	test ! -e "$TRASH/other/.filekeeper"
'

test_expect_success 'setup: writes, an undo, a snapshot read, a stored stream, a pending operation' '
	printf "one\n" >one && printf "two\n" >two && printf "three\n" >three &&
	keeper --json file create a.txt --input one >out &&
	jq -r .operation_id out >op.first &&
	keeper --json file write a.txt --input two >out &&
	keeper --json file create b.txt --input three >out &&
	keeper --json history undo-last >out &&
	jq -e ".ok == true" out &&
	printf "read by a person\n" >c.txt &&
	keeper --json file read c.txt --snapshot >out &&
	printf "streamed blob\n" | keeper --json hash-object -w --stdin >out &&
	streamed=$(jq -r .object_id out) &&
	keeper journal-begin --kind create --summary "left pending" \
		--item "{\"path\": \"p.txt\", \"after_hash\": \"$streamed\", \"after_mode\": 420}" >op.pending
'

test_expect_success 'the journal counts are exact, checked against sqlite3' '
	keeper --json status >status.json &&
	jq -e ".state == \"project\"" status.json &&
	journal "SELECT count(*) FROM operations" >expect &&
	jq .journal.operations status.json >actual &&
	test_cmp expect actual &&
	journal "SELECT count(*) FROM operations WHERE status = '"'"'pending'"'"'" >expect &&
	echo 1 >one_pending && test_cmp one_pending expect &&
	jq .journal.pending status.json >actual &&
	test_cmp expect actual &&
	journal "SELECT count(DISTINCT undoes) FROM operations WHERE kind = '"'"'undo'"'"'
		AND status IN ('"'"'committed'"'"', '"'"'partial'"'"')" >expect &&
	jq .journal.undone status.json >actual &&
	test_cmp expect actual &&
	journal "PRAGMA user_version" >expect &&
	jq .journal.schema_version status.json >actual &&
	test_cmp expect actual &&
	jq -e ".journal.pruned == 0" status.json
'

test_expect_success 'undoable and the oldest undoable agree with history list' '
	keeper --json history list --limit 200 >list.json &&
	jq "[.operations[] | select(.undoable)] | length" list.json >expect &&
	jq .journal.undoable status.json >actual &&
	test_cmp expect actual &&
	test "$(cat expect)" -eq 3 &&
	jq -r "[.operations[] | select(.undoable)] | last | .id, .created_at" list.json >expect &&
	jq -r ".journal.oldest_undoable | .operation_id, .created_at" status.json >actual &&
	test_cmp expect actual &&
	test "$(head -n 1 actual)" = "$(cat op.first)"
'

test_expect_success 'the store counts are exact, checked against find and zstd' '
	find .filekeeper/objects -mindepth 2 -type f | wc -l >expect &&
	jq .store.objects status.json >actual &&
	test_cmp expect actual &&
	find .filekeeper/objects -mindepth 2 -type f -printf "%s\n" |
		awk "{ s += \$1 } END { print s }" >expect &&
	jq .store.compressed_bytes status.json >actual &&
	test_cmp expect actual &&
	find .filekeeper/objects -mindepth 2 -type f -exec zstd -dcq {} + | wc -c >all &&
	printf "streamed blob\n" | wc -c >streamed &&
	echo $(( $(cat all) - $(cat streamed) )) >expect &&
	jq .store.uncompressed_bytes status.json >actual &&
	test_cmp expect actual &&
	jq -e ".store.objects_of_unknown_size == 1 and .store.stray_files == 0" status.json
'

test_expect_success 'status records nothing and never leaks a host path' '
	journal_rows >before &&
	find .filekeeper -type f -printf "%p %s\n" | grep -v "sqlite3-" | LC_ALL=C sort >files.before &&
	keeper --json status >again.json &&
	journal_rows >after &&
	find .filekeeper -type f -printf "%p %s\n" | grep -v "sqlite3-" | LC_ALL=C sort >files.after &&
	test_cmp before after &&
	test_cmp files.before files.after &&
	test_no_host_path again.json &&
	keeper status >human &&
	test_no_host_path human
'

test_expect_success 'a leftover temp file in the store is a stray, not an object' '
	touch .filekeeper/objects/tmp_obj_0123456789abcdef &&
	test_when_finished "rm -f .filekeeper/objects/tmp_obj_0123456789abcdef" &&
	keeper --json status >out &&
	jq -e ".store.stray_files == 1" out &&
	jq -e --slurpfile was status.json ".store.objects == \$was[0].store.objects" out
'

test_expect_success 'the policy shown is the one [history] in config.toml sets' '
	cp "$CONFIG" config.saved &&
	test_when_finished "cp config.saved \"$CONFIG\"" &&
	printf "keep_days = 30\nkeep_last = 500\n" >>"$CONFIG" &&
	keeper --json status >out &&
	jq -e ".retention == {enabled: true, keep_days: 30, keep_last: 500,
		max_store_bytes: null}" out &&
	keeper status >human &&
	grep "^retention: keep_days = 30, keep_last = 500$" human
'

test_expect_success 'the human form says the policy is off when no rule is set' '
	keeper status >human &&
	grep "^retention: off (history is kept in full)$" human &&
	grep "^state:     project" human &&
	jq -r ".journal | \"journal:   \(.operations) operations: \(.pending) pending, \(.undoable) undoable, \(.undone) undone, \(.pruned) pruned (schema \(.schema_version))\"" status.json >expect &&
	grep "^journal:" human >actual &&
	test_cmp expect actual &&
	grep "^journal:   5 operations: 1 pending, 3 undoable, 1 undone, 0 pruned (schema 4)$" human
'

test_expect_success 'a bad [history] value is INVALID_ARGUMENT naming the key, and nothing is read' '
	cp "$CONFIG" config.saved &&
	test_when_finished "cp config.saved \"$CONFIG\"" &&
	printf "keep_days = \"ten\"\n" >>"$CONFIG" &&
	test_expect_code 2 keeper --json status >out &&
	test_error_code INVALID_ARGUMENT out &&
	jq -e ".error.details.key == \"history.keep_days\"" out &&
	jq -e ".error.message | contains(\"history.keep_days\")" out &&
	cp config.saved "$CONFIG" &&
	printf "max_store_bytes = 0\n" >>"$CONFIG" &&
	test_expect_code 2 keeper --json status >out &&
	jq -e ".error.details.key == \"history.max_store_bytes\"" out &&
	cp config.saved "$CONFIG" &&
	printf "keep_forever = true\n" >>"$CONFIG" &&
	test_expect_code 2 keeper --json file read a.txt >out &&
	jq -e ".error.details.key == \"history.keep_forever\"" out
'

test_expect_success 'state kept under the home is shown as home' '
	mkdir "$TRASH/pinned-home" "$TRASH/pinned-ws" &&
	printf "[filekeeper]\nstate_location = \"global\"\n" >"$TRASH/pinned-home/config.toml" &&
	printf "x\n" >x &&
	keeper --home "$TRASH/pinned-home" --root "$TRASH/pinned-ws" --json file create x.txt --input x >out &&
	keeper --home "$TRASH/pinned-home" --root "$TRASH/pinned-ws" --json status >out &&
	jq -e ".state == \"home\" and .journal.operations == 1 and .store.objects == 1" out &&
	test_no_host_path out
'

test_done
