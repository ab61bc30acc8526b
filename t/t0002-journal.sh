#!/bin/sh
test_description='the operation journal: a plain SQLite file, pending records, verified commit and abort

journal-begin records a pending operation (blobs first, paths confined); journal-commit and
journal-abort move it to committed or rolled_back only when every path verifiably holds the
recorded after or before state. The journal is readable with the sqlite3 shell, and a newer or
foreign schema is refused with MIGRATION_ERROR and left alone.'
. ./test-lib.sh

JOURNAL=.filekeeper/journal.sqlite3

# sql QUERY: runs QUERY on this workspace's journal with the plain sqlite3 shell.
sql () {
	sqlite3 "$JOURNAL" "$1"
}

# item_json PATH BEFORE_ID_FILE AFTER_ID_FILE: an item for a modification with mode 644.
item_json () {
	printf '{"path":"%s","before_hash":"%s","after_hash":"%s","before_mode":420,"after_mode":420}' \
		"$1" "$(cat "$2")" "$(cat "$3")"
}

test_expect_success 'setup: a file and the content it will get' '
	printf "old a\n" >a.txt &&
	chmod 644 a.txt &&
	printf "new a\n" >a.new
'

test_expect_success 'journal-show of an unknown operation is OPERATION_NOT_FOUND and creates no .filekeeper/' '
	test_expect_code 28 keeper --json journal-show op_0123456789abcdef >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test "$(json_get ".error.details.operation_id" out)" = op_0123456789abcdef &&
	test_no_host_path out &&
	test ! -e .filekeeper
'

test_expect_success 'journal-commit and journal-abort of an unknown operation create no .filekeeper/' '
	test_expect_code 28 keeper --json journal-commit op_0123456789abcdef >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test_no_host_path out &&
	test_expect_code 28 keeper --json journal-abort op_0123456789abcdef >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test_no_host_path out &&
	test ! -e .filekeeper
'

test_expect_success 'resolve-path creates no .filekeeper/' '
	keeper --json resolve-path a.txt >out &&
	test "$(json_get ".resolved" out)" = a.txt &&
	keeper --json resolve-path --for-write not-yet.txt >out &&
	test "$(json_get ".exists" out)" = false &&
	test ! -e .filekeeper
'

test_expect_success 'hash-object without -w creates no .filekeeper/' '
	keeper hash-object a.txt >/dev/null &&
	keeper hash-object --stdin <a.new >/dev/null &&
	test ! -e .filekeeper
'

test_expect_success 'cat-blob in a workspace without state fails and creates no .filekeeper/' '
	id=$(keeper hash-object a.txt) &&
			test_must_fail keeper --json cat-blob "$id" >out &&
		test_error_code STORAGE_ERROR out &&
		test "$(json_get .error.details.object_id out)" = "$id" &&
	test_no_host_path out &&
	test ! -e .filekeeper
'

test_expect_success 'fsck of a workspace without state succeeds and creates no .filekeeper/' '
	keeper --json fsck >out &&
	json_get ".ok" out &&
	test ! -e .filekeeper
'

test_expect_success 'a refused journal-begin in a fresh workspace creates no .filekeeper/' '
	mkdir "$TRASH/fresh" &&
	cd "$TRASH/fresh" &&
	printf "fresh\n" >f.txt &&
	id=$(keeper --root . hash-object f.txt) &&
	test_expect_code 4 keeper --root . --json journal-begin --kind create \
		--item "{\"path\":\"../f.txt\",\"after_hash\":\"$id\"}" >out &&
	test_error_code PATH_OUTSIDE_WORKSPACE out &&
	test_no_host_path out &&
	test_expect_code 2 keeper --root . --json journal-begin --kind create \
		--item "{\"path\":\"g.txt\",\"after_hash\":\"$id\"}" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test_no_host_path out &&
	test ! -e .filekeeper
'

test_expect_success 'setup: store the before and after blobs' '
	keeper hash-object -w a.txt >a-old.id &&
	keeper hash-object -w --stdin <a.new >a-new.id &&
	test -d .filekeeper/objects &&
	test ! -e "$JOURNAL"
'

test_expect_success 'journal-begin refuses two items that name one path, and records nothing' '
	test_expect_code 2 keeper --json journal-begin --kind write \
		--item "$(item_json a.txt a-old.id a-new.id)" \
		--item "$(item_json ./a.txt a-new.id a-old.id)" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.path out)" = a.txt &&
	json_get .error.message out | grep "items 1 and 2 both name a.txt" &&
	test ! -e "$JOURNAL"
'

test_expect_success 'journal-begin prints the new operation id, op_ and 16 hex digits' '
	keeper --actor alice --task-id T-42 journal-begin --kind write \
		--summary "Wrote a.txt." \
		--item "$(item_json a.txt a-old.id a-new.id)" >a.op &&
	lines=$(wc -l <a.op) &&
	test "$lines" -eq 1 &&
	grep -E "^op_[0-9a-f]{16}$" a.op
'

test_expect_success 'journal-begin creates .filekeeper/journal.sqlite3' '
	test -f "$JOURNAL"
'

test_expect_success 'the sqlite3 shell reads the journal: PRAGMA user_version is 4' '
	echo 4 >expect &&
	sql "PRAGMA user_version" >actual &&
	test_cmp expect actual
'

test_expect_success 'the journal is in WAL mode' '
	echo wal >expect &&
	sql "PRAGMA journal_mode" >actual &&
	test_cmp expect actual
'

test_expect_success 'the operation row is pending, with its id, kind, summary and target' '
	printf "%s|write|pending|Wrote a.txt.|a.txt\n" "$(cat a.op)" >expect &&
	sql "SELECT id, kind, status, summary, target_path FROM operations" >actual &&
	test_cmp expect actual
'

test_expect_success 'the operation row carries creation and update timestamps' '
	sql "SELECT created_at FROM operations WHERE id = '\''$(cat a.op)'\''" >created &&
	grep -E "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$" created &&
	sql "SELECT updated_at FROM operations WHERE id = '\''$(cat a.op)'\''" >updated &&
	grep -E "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$" updated
'

test_expect_success 'the item row carries path, change, kind, existence, hashes and modes' '
	printf "a.txt|modified|file|1|1|%s|%s|420|420|0\n" "$(cat a-old.id)" "$(cat a-new.id)" >expect &&
	sql "SELECT path, change, kind, before_exists, after_exists, before_hash, after_hash,
		before_mode, after_mode, history_skipped
		FROM operation_items WHERE op_id = '\''$(cat a.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success '--actor and --task-id are recorded on the operation' '
	echo "alice|T-42" >expect &&
	sql "SELECT actor, task_id FROM operations WHERE id = '\''$(cat a.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success 'journal-show --json reports the pending operation with its item' '
	keeper --json journal-show "$(cat a.op)" >out &&
	json_get ".ok" out &&
	test "$(json_get ".operation.id" out)" = "$(cat a.op)" &&
	test "$(json_get ".operation.status" out)" = pending &&
	test "$(json_get ".operation.actor" out)" = alice &&
	test "$(json_get ".operation.task_id" out)" = T-42 &&
	test "$(json_get ".operation.items | length" out)" = 1 &&
	test "$(json_get ".operation.items[0].path" out)" = a.txt &&
	test "$(json_get ".operation.items[0].before_hash" out)" = "$(cat a-old.id)" &&
	test "$(json_get ".operation.items[0].after_hash" out)" = "$(cat a-new.id)" &&
	test "$(json_get ".operation.items[0].before_mode" out)" = 420 &&
	test "$(json_get ".operation.items[0].after_exists" out)" = true
'

test_expect_success 'journal-commit is CONTENT_CONFLICT while the file still holds its before state' '
	test_expect_code 15 keeper --json journal-commit "$(cat a.op)" >out &&
	test_error_code CONTENT_CONFLICT out &&
	test "$(json_get ".error.details.operation_id" out)" = "$(cat a.op)" &&
	json_get ".error.details.paths[]" out >actual &&
	echo a.txt >expect &&
	test_cmp expect actual &&
	test_no_host_path out
'

test_expect_success 'the refused commit leaves the operation pending' '
	echo pending >expect &&
	sql "SELECT status FROM operations WHERE id = '\''$(cat a.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success 'journal-commit is refused for a file holding some third content' '
	printf "neither old nor new\n" >a.txt &&
	test_expect_code 15 keeper --json journal-commit "$(cat a.op)" >out &&
	test_error_code CONTENT_CONFLICT out &&
	test_no_host_path out &&
	echo pending >expect &&
	sql "SELECT status FROM operations WHERE id = '\''$(cat a.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success 'journal-commit marks the operation committed once the file holds the after state' '
	cp a.new a.txt &&
	keeper --json journal-commit "$(cat a.op)" >out &&
	test "$(json_get ".operation.status" out)" = committed &&
	echo committed >expect &&
	sql "SELECT status FROM operations WHERE id = '\''$(cat a.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success 'committing the same operation twice is refused and changes nothing' '
	sql "SELECT status, updated_at FROM operations WHERE id = '\''$(cat a.op)'\''" >before &&
	test_expect_code 2 keeper --json journal-commit "$(cat a.op)" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get ".error.details.status" out)" = committed &&
	test_no_host_path out &&
	sql "SELECT status, updated_at FROM operations WHERE id = '\''$(cat a.op)'\''" >after &&
	test_cmp before after
'

test_expect_success 'a committed operation cannot be aborted' '
	test_must_fail keeper --json journal-abort "$(cat a.op)" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test_no_host_path out &&
	echo committed >expect &&
	sql "SELECT status FROM operations WHERE id = '\''$(cat a.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success 'setup: a pending operation on b.txt' '
	printf "old b\n" >b.txt &&
	chmod 644 b.txt &&
	printf "new b\n" >b.new &&
	keeper hash-object -w b.txt >b-old.id &&
	keeper hash-object -w b.new >b-new.id &&
	keeper journal-begin --kind write --item "$(item_json b.txt b-old.id b-new.id)" >b.op
'

test_expect_success 'journal-abort is CONTENT_CONFLICT while the file holds its after state' '
	cp b.new b.txt &&
	test_expect_code 15 keeper --json journal-abort "$(cat b.op)" >out &&
	test_error_code CONTENT_CONFLICT out &&
	json_get ".error.details.paths[]" out >actual &&
	echo b.txt >expect &&
	test_cmp expect actual &&
	test_no_host_path out &&
	echo pending >expect &&
	sql "SELECT status FROM operations WHERE id = '\''$(cat b.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success 'journal-abort marks the operation rolled_back once the file is back at its before state' '
	printf "old b\n" >b.txt &&
	keeper --json journal-abort "$(cat b.op)" >out &&
	test "$(json_get ".operation.status" out)" = rolled_back &&
	echo rolled_back >expect &&
	sql "SELECT status FROM operations WHERE id = '\''$(cat b.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success 'a rolled-back operation cannot be committed' '
	cp b.new b.txt &&
	test_must_fail keeper --json journal-commit "$(cat b.op)" >out &&
	test_error_code INVALID_ARGUMENT out &&
	echo rolled_back >expect &&
	sql "SELECT status FROM operations WHERE id = '\''$(cat b.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success 'a create item is recorded as absent before and present after' '
	printf "created c\n" >c.new &&
	keeper hash-object -w c.new >c-new.id &&
	keeper journal-begin --kind create \
		--item "{\"path\":\"c.txt\",\"after_hash\":\"$(cat c-new.id)\"}" >c.op &&
	printf "c.txt|created|0|1||%s\n" "$(cat c-new.id)" >expect &&
	sql "SELECT path, change, before_exists, after_exists, before_hash, after_hash
		FROM operation_items WHERE op_id = '\''$(cat c.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success 'a create item cannot be committed while the file is absent' '
	test ! -e c.txt &&
	test_expect_code 15 keeper --json journal-commit "$(cat c.op)" >out &&
	test_error_code CONTENT_CONFLICT out &&
	test_no_host_path out
'

test_expect_success 'a create item commits once the file exists with the after bytes' '
	cp c.new c.txt &&
	keeper --json journal-commit "$(cat c.op)" >out &&
	test "$(json_get ".operation.status" out)" = committed
'

test_expect_success 'a delete item commits only once the file is gone' '
	printf "doomed\n" >d.txt &&
	keeper hash-object -w d.txt >d-old.id &&
	keeper journal-begin --kind delete \
		--item "{\"path\":\"d.txt\",\"before_hash\":\"$(cat d-old.id)\"}" >d.op &&
	test "$(sql "SELECT change FROM operation_items WHERE op_id = '\''$(cat d.op)'\''")" = deleted &&
	test_expect_code 15 keeper --json journal-commit "$(cat d.op)" >out &&
	test_error_code CONTENT_CONFLICT out &&
	rm d.txt &&
	keeper --json journal-commit "$(cat d.op)" >out &&
	test "$(json_get ".operation.status" out)" = committed
'

test_expect_success 'operations get a monotonic sequence in the order they began' '
	cat a.op b.op c.op d.op >expect &&
	sql "SELECT id FROM operations ORDER BY seq" >actual &&
	test_cmp expect actual
'

test_expect_success 'an unknown operation id is OPERATION_NOT_FOUND (exit 28) when a journal exists' '
	for cmd in journal-show journal-commit journal-abort
	do
		test_expect_code 28 keeper --json $cmd op_ffffffffffffffff >out &&
		test_error_code OPERATION_NOT_FOUND out &&
		test "$(json_get ".error.details.operation_id" out)" = op_ffffffffffffffff &&
		test_no_host_path out || exit 1
	done
'

test_expect_success 'journal-begin refuses an item whose after blob is not stored' '
	op_count >before &&
	missing=$(printf "never stored\n" | keeper hash-object --stdin) &&
	test_expect_code 2 keeper --json journal-begin --kind write \
		--item "{\"path\":\"a.txt\",\"before_hash\":\"$(cat a-new.id)\",\"after_hash\":\"$missing\"}" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get ".error.details.path" out)" = a.txt &&
	test_no_host_path out &&
	op_count >after &&
	test_cmp before after
'

test_expect_success 'journal-begin refuses an item whose before blob is not stored' '
	op_count >before &&
	missing=$(printf "never stored either\n" | keeper hash-object --stdin) &&
	test_expect_code 2 keeper --json journal-begin --kind write \
		--item "{\"path\":\"a.txt\",\"before_hash\":\"$missing\",\"after_hash\":\"$(cat a-new.id)\"}" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test_no_host_path out &&
	op_count >after &&
	test_cmp before after
'

test_expect_success 'journal-begin refuses an item path with .. (PATH_OUTSIDE_WORKSPACE, exit 4)' '
	op_count >before &&
	for p in ../escape.txt sub/../../escape.txt sub/../a.txt
	do
		test_expect_code 4 keeper --json journal-begin --kind create \
			--item "{\"path\":\"$p\",\"after_hash\":\"$(cat a-new.id)\"}" >out &&
		test_error_code PATH_OUTSIDE_WORKSPACE out &&
		test "$(json_get ".error.details.path" out)" = "$p" &&
		test_no_host_path out || exit 1
	done &&
	op_count >after &&
	test_cmp before after
'

test_expect_success 'journal-begin refuses an item path inside .filekeeper/, a nested one too (PATH_IS_STATE_PATH)' '
	op_count >before &&
	for p in .filekeeper/journal.sqlite3 .filekeeper/objects/x ./.filekeeper/new .filekeeper sub/.filekeeper/lock
	do
		test_expect_code 8 keeper --json journal-begin --kind create \
			--item "{\"path\":\"$p\",\"after_hash\":\"$(cat a-new.id)\"}" >out &&
		test_error_code PATH_IS_STATE_PATH out &&
		test "$(json_get ".error.details.path" out)" = "$p" &&
		test_no_host_path out || exit 1
	done &&
	op_count >after &&
	test_cmp before after
'

test_expect_success 'journal-begin refuses an absolute item path outside the root' '
	op_count >before &&
	test_expect_code 6 keeper --json journal-begin --kind create \
		--item "{\"path\":\"$OUTSIDE/x.txt\",\"after_hash\":\"$(cat a-new.id)\"}" >out &&
	test_error_code ABSOLUTE_PATH_OUTSIDE_WORKSPACE out &&
	json_get ".error.message" out >message &&
	! grep -F "$TRASH" message &&
	op_count >after &&
	test_cmp before after
'

test_expect_success 'an absolute item path inside the root is recorded workspace-relative' '
	keeper journal-begin --kind write \
		--item "{\"path\":\"$WS/a.txt\",\"before_hash\":\"$(cat a-new.id)\",\"after_hash\":\"$(cat a-old.id)\"}" >abs.op &&
	echo a.txt >expect &&
	sql "SELECT path FROM operation_items WHERE op_id = '\''$(cat abs.op)'\''" >actual &&
	test_cmp expect actual &&
	sql "SELECT target_path FROM operations WHERE id = '\''$(cat abs.op)'\''" >actual &&
	test_cmp expect actual &&
	keeper journal-abort "$(cat abs.op)"
'

test_expect_success 'journal-begin refuses credential-shaped item paths (SENSITIVE_PATH_REFUSED, exit 10)' '
	op_count >before &&
	for p in .env .env.local certs/server.pem deploy.key id_rsa .ssh/config \
		home/.aws/credentials .netrc bundle.p12 authorized_keys
	do
		test_expect_code 10 keeper --json journal-begin --kind create \
			--item "{\"path\":\"$p\",\"after_hash\":\"$(cat a-new.id)\"}" >out &&
		test_error_code SENSITIVE_PATH_REFUSED out &&
		test "$(json_get ".error.details.path" out)" = "$p" &&
		test_no_host_path out || exit 1
	done &&
	op_count >after &&
	test_cmp before after
'

test_expect_success 'the sensitive-path refusal names the CLI flag that overrides it' '
	test_expect_code 10 keeper --json journal-begin --kind create \
		--item "{\"path\":\".env\",\"after_hash\":\"$(cat a-new.id)\"}" >out &&
	json_get ".error.message" out >message &&
	grep -e "--i-accept-secret-write-risk" message &&
	! grep -e allow_sensitive_write -e i_accept_secret_write_risk message
'

test_expect_success 'journal-begin --i-accept-secret-write-risk records a credential-shaped item' '
	keeper journal-begin --kind create --i-accept-secret-write-risk \
		--item "{\"path\":\".env\",\"after_hash\":\"$(cat a-new.id)\"}" >env.op &&
	grep -E "^op_[0-9a-f]{16}$" env.op &&
	echo ".env|pending" >expect &&
	sql "SELECT i.path, o.status FROM operation_items i JOIN operations o ON o.id = i.op_id
		WHERE o.id = '\''$(cat env.op)'\''" >actual &&
	test_cmp expect actual
'

test_expect_success 'journal-begin without any item is INVALID_ARGUMENT' '
	op_count >before &&
	test_expect_code 2 keeper --json journal-begin --kind write >out &&
	test_error_code INVALID_ARGUMENT out &&
	test_no_host_path out &&
	op_count >after &&
	test_cmp before after
'

test_expect_success 'journal-begin --stdin takes the whole operation as JSON' '
	cat >op.json <<-EOF &&
	{
		"kind": "copy",
		"summary": "Copied a.txt to e.txt.",
		"target_path": "e.txt",
		"source_path": "a.txt",
		"metadata": {"reason": "test", "n": 3},
		"items": [
			{"path": "e.txt", "change": "created", "after_hash": "$(cat a-new.id)", "after_mode": 384},
			{"path": "b.txt", "before_hash": "$(cat b-new.id)", "after_hash": "$(cat b-old.id)", "before_mode": 420, "after_mode": 420}
		]
	}
	EOF
	keeper --json --actor bob --task-id T-7 journal-begin --stdin <op.json >out &&
	json_get ".operation_id" out >stdin.op &&
	grep -E "^op_[0-9a-f]{16}$" stdin.op &&
	test "$(json_get ".status" out)" = pending
'

test_expect_success 'the --stdin operation is recorded with its fields, metadata and items' '
	keeper --json journal-show "$(cat stdin.op)" >out &&
	test "$(json_get ".operation.kind" out)" = copy &&
	test "$(json_get ".operation.summary" out)" = "Copied a.txt to e.txt." &&
	test "$(json_get ".operation.target_path" out)" = e.txt &&
	test "$(json_get ".operation.source_path" out)" = a.txt &&
	test "$(json_get ".operation.metadata.reason" out)" = test &&
	test "$(json_get ".operation.metadata.n" out)" = 3 &&
	test "$(json_get ".operation.actor" out)" = bob &&
	test "$(json_get ".operation.task_id" out)" = T-7 &&
	printf "e.txt|created|0|1||%s||384\nb.txt|modified|1|1|%s|%s|420|420\n" \
		"$(cat a-new.id)" "$(cat b-new.id)" "$(cat b-old.id)" >expect &&
	sql "SELECT path, change, before_exists, after_exists, before_hash, after_hash, before_mode, after_mode
		FROM operation_items WHERE op_id = '\''$(cat stdin.op)'\'' ORDER BY ordinal" >actual &&
	test_cmp expect actual
'

test_expect_success 'journal-begin --stdin with malformed JSON is INVALID_ARGUMENT and records nothing' '
	op_count >before &&
	echo "{\"kind\": \"write\", \"items\": [" | test_expect_code 2 keeper --json journal-begin --stdin >out &&
	test_error_code INVALID_ARGUMENT out &&
	test_no_host_path out &&
	op_count >after &&
	test_cmp before after
'

test_expect_success 'journal-begin --stdin with an unknown field is INVALID_ARGUMENT' '
	echo "{\"kind\": \"write\", \"surprise\": 1, \"items\": []}" |
		test_expect_code 2 keeper --json journal-begin --stdin >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success 'journal-begin refuses a field given twice, never taking the last' '
	op_count >before &&
	test_expect_code 2 keeper --json journal-begin --kind create \
		--item "{\"path\": \"a.txt\", \"path\": \"b.txt\", \"after_hash\": \"$(cat a-new.id)\"}" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.field out)" = path &&
	json_get .error.message out | grep "names \"path\" twice" &&
	echo "{\"kind\": \"write\", \"items\": [{\"path\": \"a.txt\"}], \"kind\": \"delete\"}" |
		test_expect_code 2 keeper --json journal-begin --stdin >out &&
	test_error_code INVALID_ARGUMENT out &&
	op_count >after &&
	test_cmp before after
'

test_expect_success 'setup: a second workspace whose journal says schema version 99' '
	mkdir "$TRASH/newer" &&
	(
		cd "$TRASH/newer" &&
		printf "x\n" >f.txt &&
		keeper --root . hash-object -w f.txt >f.id &&
		keeper --root . journal-begin --kind write \
			--item "{\"path\":\"f.txt\",\"before_hash\":\"$(cat f.id)\",\"after_hash\":\"$(cat f.id)\"}" >f.op &&
		sqlite3 "$JOURNAL" "PRAGMA user_version = 99" &&
		test "$(sqlite3 "$JOURNAL" "PRAGMA user_version")" = 99 &&
		sha256sum <"$JOURNAL" >journal.sum
	)
'

test_expect_success 'a journal with a newer schema is MIGRATION_ERROR (exit 27)' '
	cd "$TRASH/newer" &&
	test_expect_code 27 keeper --root . --json journal-show "$(cat f.op)" >out &&
	test_error_code MIGRATION_ERROR out &&
	test_no_host_path out
'

test_expect_success 'journal-begin on a newer journal is MIGRATION_ERROR too' '
	cd "$TRASH/newer" &&
	test_expect_code 27 keeper --root . --json journal-begin --kind write \
		--item "{\"path\":\"f.txt\",\"before_hash\":\"$(cat f.id)\",\"after_hash\":\"$(cat f.id)\"}" >out &&
	test_error_code MIGRATION_ERROR out &&
	test_no_host_path out
'

test_expect_success 'the newer journal is left unmodified' '
	cd "$TRASH/newer" &&
	echo 99 >expect &&
	sqlite3 "$JOURNAL" "PRAGMA user_version" >actual &&
	test_cmp expect actual &&
	echo 1 >expect &&
	sqlite3 "$JOURNAL" "SELECT count(*) FROM operations" >actual &&
	test_cmp expect actual &&
	sha256sum <"$JOURNAL" >actual.sum &&
	test_cmp journal.sum actual.sum
'

test_expect_success 'setup: a third workspace whose journal file is some other application'"'"'s database' '
	mkdir -p "$TRASH/foreign/.filekeeper" &&
	(
		cd "$TRASH/foreign" &&
		sqlite3 "$JOURNAL" "CREATE TABLE t (x); INSERT INTO t VALUES (1);" &&
		printf "y\n" >g.txt &&
		keeper --root . hash-object -w g.txt >g.id &&
		cp "$JOURNAL" "$TRASH/foreign.orig"
	)
'

test_expect_success 'a sqlite file with a foreign table is MIGRATION_ERROR for journal-show' '
	cd "$TRASH/foreign" &&
	test_expect_code 27 keeper --root . --json journal-show op_0123456789abcdef >out &&
	test_error_code MIGRATION_ERROR out &&
	test_no_host_path out
'

test_expect_success 'a sqlite file with a foreign table is MIGRATION_ERROR for journal-begin, and stays foreign' '
	cd "$TRASH/foreign" &&
	test_expect_code 27 keeper --root . --json journal-begin --kind write \
		--item "{\"path\":\"g.txt\",\"before_hash\":\"$(cat g.id)\",\"after_hash\":\"$(cat g.id)\"}" >out &&
	test_error_code MIGRATION_ERROR out &&
	test_no_host_path out &&
	echo t >expect &&
	sqlite3 "$JOURNAL" "SELECT name FROM sqlite_schema WHERE type = '\''table'\''" >actual &&
	test_cmp expect actual &&
	echo 0 >expect &&
	sqlite3 "$JOURNAL" "PRAGMA user_version" >actual &&
	test_cmp expect actual
'

test_expect_success 'the refused foreign database is left byte-for-byte as it was' '
	cd "$TRASH/foreign" &&
	cmp "$TRASH/foreign.orig" "$JOURNAL"
'

test_expect_success 'journal-begin checks --target and --source like item paths' '
	old=$(keeper hash-object -w a.txt) &&
	test_expect_code 4 keeper --json journal-begin --kind write --target ../x \
		--item "{\"path\":\"a.txt\",\"before_hash\":\"$old\",\"after_hash\":\"$old\"}" >out &&
	test_error_code PATH_OUTSIDE_WORKSPACE out &&
	test_expect_code 8 keeper --json journal-begin --kind copy --source .filekeeper/x \
		--item "{\"path\":\"a.txt\",\"before_hash\":\"$old\",\"after_hash\":\"$old\"}" >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_expect_code 8 keeper --json journal-begin --kind copy --target sub/.filekeeper/x \
		--item "{\"path\":\"a.txt\",\"before_hash\":\"$old\",\"after_hash\":\"$old\"}" >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test "$(json_get .error.message out)" = "recorded paths may not be inside a .filekeeper/ directory"
'

test_expect_success 'an item that exists on neither side is refused' '
	test_expect_code 2 keeper --json journal-begin --kind write \
		--item "{\"path\":\"ghost.txt\",\"before_exists\":false,\"after_exists\":false}" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.path out)" = ghost.txt
'

test_done
