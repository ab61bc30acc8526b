#!/bin/sh
test_description='a fully journaled write performed with plumbing alone, and publish itself

The story: a shell script stores the old and the new bytes (hash-object -w), records a pending
operation (journal-begin), atomically replaces the file (publish --expected-hash), and marks the
operation committed (journal-commit). No porcelain command is used. Afterwards the old bytes are
still in the store, which is what undo relies on. Then publish on its own: modes, --create,
stale hashes, temp files, symlinks, and blobs that were never stored.'
. ./test-lib.sh

test_expect_success 'setup: a file with its first draft' '
	printf "first draft\nline two\n" >notes.txt &&
	chmod 644 notes.txt &&
	cp notes.txt draft.orig &&
	printf "second draft\nline two, revised\nline three\n" >draft.new
'

test_expect_success 'story 1: hash-object -w stores the file'"'"'s current bytes' '
	keeper hash-object -w notes.txt >old.id &&
	printf "sha256:%s\n" "$(sha256sum <draft.orig | cut -d" " -f1)" >expect &&
	test_cmp expect old.id
'

test_expect_success 'story 2: hash-object -w --stdin stores the new content' '
	keeper hash-object -w --stdin <draft.new >new.id &&
	printf "sha256:%s\n" "$(sha256sum <draft.new | cut -d" " -f1)" >expect &&
	test_cmp expect new.id
'

test_expect_success 'story 3: journal-begin records the pending write with before/after hash and mode' '
	keeper --actor script --task-id story journal-begin --kind write \
		--summary "Wrote notes.txt." \
		--item "{\"path\":\"notes.txt\",\"before_hash\":\"$(cat old.id)\",\"after_hash\":\"$(cat new.id)\",\"before_mode\":420,\"after_mode\":420}" \
		>story.op &&
	grep -E "^op_[0-9a-f]{16}$" story.op &&
	keeper --json journal-show "$(cat story.op)" >out &&
	test "$(json_get ".operation.status" out)" = pending
'

test_expect_success 'fsck lists the in-flight operation as pending without calling it damage' '
	keeper --json fsck >out &&
	json_get ".pending_operations[]" out >actual &&
	test_cmp story.op actual &&
	test "$(json_get ".damaged_objects | length" out)" = 0 &&
	keeper fsck >human &&
	grep "^pending operations" human &&
	grep -x "  $(cat story.op)" human
'

test_expect_success 'story 4: publish --blob NEW --expected-hash OLD replaces the file' '
	keeper --json publish notes.txt --blob "$(cat new.id)" --expected-hash "$(cat old.id)" >out &&
	json_get ".ok" out &&
	test "$(json_get ".path" out)" = notes.txt &&
	test "$(json_get ".before_hash" out)" = "$(cat old.id)" &&
	test "$(json_get ".after_hash" out)" = "$(cat new.id)" &&
	test "$(json_get ".mode" out)" = 420
'

test_expect_success 'story 5: journal-commit marks the write committed' '
	keeper --json journal-commit "$(cat story.op)" >out &&
	test "$(json_get ".operation.status" out)" = committed
'

test_expect_success 'the file holds exactly the new content' '
	test_cmp draft.new notes.txt
'

test_expect_success 'the file keeps its mode through the journaled write' '
	echo 644 >expect &&
	stat -c %a notes.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'journal-show shows the write committed, with its item, actor and task' '
	keeper --json journal-show "$(cat story.op)" >out &&
	test "$(json_get ".operation.status" out)" = committed &&
	test "$(json_get ".operation.kind" out)" = write &&
	test "$(json_get ".operation.actor" out)" = script &&
	test "$(json_get ".operation.task_id" out)" = story &&
	test "$(json_get ".operation.items[0].path" out)" = notes.txt &&
	test "$(json_get ".operation.items[0].before_hash" out)" = "$(cat old.id)" &&
	test "$(json_get ".operation.items[0].after_hash" out)" = "$(cat new.id)" &&
	keeper journal-show "$(cat story.op)" >human &&
	grep "^status: *committed$" human
'

test_expect_success 'fsck is clean after the journaled write' '
	keeper --json fsck >out &&
	json_get ".ok" out &&
	test "$(json_get ".operations" out)" = 1 &&
	test "$(json_get ".pending_operations | length" out)" = 0 &&
	test "$(json_get ".damaged_objects | length" out)" = 0 &&
	test "$(json_get ".missing_objects | length" out)" = 0
'

test_expect_success 'the old bytes are recoverable with cat-blob of the recorded before hash' '
	keeper --json journal-show "$(cat story.op)" >out &&
	json_get ".operation.items[0].before_hash" out >before.id &&
	keeper cat-blob "$(cat before.id)" >recovered &&
	test_cmp draft.orig recovered
'

test_expect_success 'the journaled write left no .fk-tmp- files behind' '
	no_temp_files
'

test_expect_success 'the same plumbing undoes the write, journaled as its own operation' '
	keeper journal-begin --kind undo \
		--item "{\"path\":\"notes.txt\",\"before_hash\":\"$(cat new.id)\",\"after_hash\":\"$(cat old.id)\",\"before_mode\":420,\"after_mode\":420}" \
		>undo.op &&
	keeper publish notes.txt --blob "$(cat old.id)" --expected-hash "$(cat new.id)" >/dev/null &&
	keeper journal-commit "$(cat undo.op)" >/dev/null &&
	test_cmp draft.orig notes.txt &&
	keeper --json fsck >out &&
	test "$(json_get ".operations" out)" = 2
'

test_expect_success 'fsck reports a blob the journal names but the store lost, and exits 26' '
	hex=$(sed "s/^sha256://" old.id) &&
	obj=.filekeeper/objects/$(echo "$hex" | cut -c1-2)/$(echo "$hex" | cut -c3-) &&
	mv "$obj" lost-object &&
	test_expect_code 26 keeper --json fsck >out &&
	test_error_code STORAGE_ERROR out &&
	test_no_host_path out &&
	json_get ".error.details.missing_objects[] | select(.operation_id == \"$(cat story.op)\") | .object_id" out >actual &&
	test_cmp old.id actual &&
	json_get ".error.details.missing_objects[] | select(.operation_id == \"$(cat story.op)\") | .path" out >actual &&
	echo notes.txt >expect &&
	test_cmp expect actual
'

test_expect_success 'storing the same bytes again repairs the store and fsck is clean' '
	rm lost-object &&
	keeper hash-object -w draft.orig >id &&
	test_cmp old.id id &&
	keeper --json fsck >out &&
	test "$(json_get ".missing_objects | length" out)" = 0
'

test_expect_success 'setup: a file with mode 640 and a stored blob of new bytes' '
	printf "secretive\n" >private.txt &&
	chmod 640 private.txt &&
	printf "replacement bytes\n" | keeper hash-object -w --stdin >repl.id
'

test_expect_success 'publish preserves the mode of the file it replaces' '
	keeper --json publish private.txt --blob "$(cat repl.id)" >out &&
	test "$(json_get ".mode" out)" = 416 &&
	echo 640 >expect &&
	stat -c %a private.txt >actual &&
	test_cmp expect actual &&
	printf "replacement bytes\n" >expect &&
	test_cmp expect private.txt
'

test_expect_success 'publish --mode 600 sets the mode' '
	keeper --json publish private.txt --blob "$(cat repl.id)" --mode 600 >out &&
	test "$(json_get ".mode" out)" = 384 &&
	echo 600 >expect &&
	stat -c %a private.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'publish --mode with a non-octal value is INVALID_ARGUMENT and changes nothing' '
	stat -c "%i %a %y" private.txt >before &&
	test_expect_code 2 keeper --json publish private.txt --blob "$(cat repl.id)" --mode 999 >out &&
	test_error_code INVALID_ARGUMENT out &&
	test_no_host_path out &&
	stat -c "%i %a %y" private.txt >after &&
	test_cmp before after
'

test_expect_success 'publish of the empty blob leaves an empty file' '
	: | keeper hash-object -w --stdin >empty.id &&
	printf "not empty yet\n" >to-empty.txt &&
	keeper publish to-empty.txt --blob "$(cat empty.id)" >/dev/null &&
	test -f to-empty.txt &&
	test ! -s to-empty.txt
'

test_expect_success 'publish of a multi-MB binary blob writes it byte for byte' '
	head -c 3145728 /dev/urandom >big.src &&
	printf "\000tail\000" >>big.src &&
	keeper hash-object -w big.src >big.id &&
	keeper --json publish big.out --blob "$(cat big.id)" --create >out &&
	test "$(json_get ".size" out)" = 3145734 &&
	cmp big.src big.out
'

test_expect_success 'publish replaces the file by rename: a hard link keeps the old bytes' '
	printf "linked original\n" >linked.txt &&
	ln linked.txt linked.alias &&
	keeper publish linked.txt --blob "$(cat repl.id)" >/dev/null &&
	printf "replacement bytes\n" >expect &&
	test_cmp expect linked.txt &&
	printf "linked original\n" >expect &&
	test_cmp expect linked.alias
'

test_expect_success 'publish --create refuses an existing file with ALREADY_EXISTS (exit 14)' '
	printf "already here\n" >exists.txt &&
	cp exists.txt exists.orig &&
	stat -c "%i %a %y" exists.txt >before &&
	test_expect_code 14 keeper --json publish exists.txt --blob "$(cat repl.id)" --create >out &&
	test_error_code ALREADY_EXISTS out &&
	test "$(json_get ".error.details.path" out)" = exists.txt &&
	test_no_host_path out &&
	test_cmp exists.orig exists.txt &&
	stat -c "%i %a %y" exists.txt >after &&
	test_cmp before after &&
	no_temp_files
'

test_expect_success 'publish --create creates a new file with the blob'"'"'s bytes' '
	test ! -e fresh.txt &&
	keeper --json publish fresh.txt --blob "$(cat repl.id)" --create >out &&
	json_get ".ok" out &&
	test "$(json_get ".before_hash" out)" = null &&
	printf "replacement bytes\n" >expect &&
	test_cmp expect fresh.txt
'

test_expect_success 'publish --create --mode 600 creates the file with that mode' '
	keeper publish fresh600.txt --blob "$(cat repl.id)" --create --mode 600 >/dev/null &&
	echo 600 >expect &&
	stat -c %a fresh600.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'publish creates a file in an existing subdirectory' '
	mkdir -p sub/dir &&
	keeper publish sub/dir/deep.txt --blob "$(cat repl.id)" --create >/dev/null &&
	printf "replacement bytes\n" >expect &&
	test_cmp expect sub/dir/deep.txt
'

test_expect_success 'publish into a missing directory is PATH_NOT_FOUND and creates nothing' '
	test_expect_code 3 keeper --json publish nowhere/x.txt --blob "$(cat repl.id)" >out &&
	test_error_code PATH_NOT_FOUND out &&
	test_no_host_path out &&
	test ! -e nowhere
'

test_expect_success 'publish --expected-hash with a stale hash is CONTENT_CONFLICT (exit 15)' '
	printf "current bytes\n" >guarded.txt &&
	cp guarded.txt guarded.orig &&
	keeper hash-object guarded.txt >current.id &&
	stale=$(printf "what I read earlier\n" | keeper hash-object --stdin) &&
	echo "$stale" >stale.id &&
	stat -c "%i %a %y" guarded.txt >before &&
	test_expect_code 15 keeper --json publish guarded.txt --blob "$(cat repl.id)" \
		--expected-hash "$stale" >out &&
	test_error_code CONTENT_CONFLICT out &&
	test_no_host_path out &&
	cp out conflict.json
'

test_expect_success 'the stale-hash conflict names the path, the expected and the actual hash' '
	test "$(json_get ".error.details.path" conflict.json)" = guarded.txt &&
	test "$(json_get ".error.details.expected_hash" conflict.json)" = "$(cat stale.id)" &&
	test "$(json_get ".error.details.actual_hash" conflict.json)" = "$(cat current.id)" &&
	test "$(json_get ".error.retryable" conflict.json)" = false &&
	json_get ".error.details.recovery" conflict.json
'

test_expect_success 'the stale-hash conflict leaves the file untouched' '
	test_cmp guarded.orig guarded.txt &&
	stat -c "%i %a %y" guarded.txt >after &&
	test_cmp before after
'

test_expect_success 'publish --expected-hash onto a missing file is CONTENT_CONFLICT and creates nothing' '
	test_expect_code 15 keeper --json publish ghost.txt --blob "$(cat repl.id)" \
		--expected-hash "$(cat current.id)" >out &&
	test_error_code CONTENT_CONFLICT out &&
	test_no_host_path out &&
	test ! -e ghost.txt
'

test_expect_success 'publish --expected-hash with a malformed hash is INVALID_ARGUMENT' '
	test_expect_code 2 keeper --json publish guarded.txt --blob "$(cat repl.id)" \
		--expected-hash deadbeef >out &&
	test_error_code INVALID_ARGUMENT out &&
	test_no_host_path out &&
	test_cmp guarded.orig guarded.txt
'

test_expect_success 'publish with the current hash succeeds' '
	keeper publish guarded.txt --blob "$(cat repl.id)" --expected-hash "$(cat current.id)" >/dev/null &&
	printf "replacement bytes\n" >expect &&
	test_cmp expect guarded.txt
'

test_expect_success 'publish leaves no .fk-tmp- files behind' '
	no_temp_files
'

test_expect_success 'setup: a symlink to a file inside, and one to a file outside' '
	printf "link target inside\n" >target.txt &&
	cp target.txt target.orig &&
	ln -s target.txt inside-link &&
	printf "outside secret\n" >"$OUTSIDE/victim.txt" &&
	cp "$OUTSIDE/victim.txt" victim.orig &&
	ln -s "$OUTSIDE/victim.txt" outside-link &&
	ln -s "$OUTSIDE" outside-dir
'

test_expect_success 'publish onto a symlink is SYMLINK_WRITE_REFUSED (exit 9)' '
	test_expect_code 9 keeper --json publish inside-link --blob "$(cat repl.id)" >out &&
	test_error_code SYMLINK_WRITE_REFUSED out &&
	test "$(json_get ".error.details.path" out)" = inside-link &&
	test_no_host_path out
'

test_expect_success 'the refused symlink and its target are untouched' '
	test -h inside-link &&
	echo target.txt >expect &&
	readlink inside-link >actual &&
	test_cmp expect actual &&
	test_cmp target.orig target.txt
'

test_expect_success 'publish onto a symlink pointing outside is SYMLINK_ESCAPE_REFUSED (exit 11)' '
	test_expect_code 11 keeper --json publish outside-link --blob "$(cat repl.id)" >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	test "$(json_get ".error.details.path" out)" = outside-link &&
	test_no_host_path out &&
	test -h outside-link &&
	test_cmp victim.orig "$OUTSIDE/victim.txt"
'

test_expect_success 'publish through a symlinked directory pointing outside is SYMLINK_ESCAPE_REFUSED' '
	test_expect_code 11 keeper --json publish outside-dir/planted.txt --blob "$(cat repl.id)" >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	test_no_host_path out &&
	test ! -e "$OUTSIDE/planted.txt" &&
	test_cmp victim.orig "$OUTSIDE/victim.txt"
'

test_expect_success 'publish --create onto a symlink is refused too' '
	test_must_fail keeper --json publish inside-link --blob "$(cat repl.id)" --create >out &&
	test_error_code SYMLINK_WRITE_REFUSED out &&
	test_no_host_path out &&
	test_cmp target.orig target.txt
'

test_expect_success 'publish with ../ is PATH_OUTSIDE_WORKSPACE (exit 4) and writes nothing outside' '
	test_expect_code 4 keeper --json publish ../outside/escaped.txt --blob "$(cat repl.id)" >out &&
	test_error_code PATH_OUTSIDE_WORKSPACE out &&
	test_no_host_path out &&
	test ! -e "$OUTSIDE/escaped.txt"
'

test_expect_success 'publish into .filekeeper/ is PATH_IS_STATE_PATH' '
	test_must_fail keeper --json publish .filekeeper/planted --blob "$(cat repl.id)" >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_no_host_path out &&
	test ! -e .filekeeper/planted
'

test_expect_success 'publish onto a credential-shaped path is SENSITIVE_PATH_REFUSED (exit 10)' '
	test_expect_code 10 keeper --json publish .env --blob "$(cat repl.id)" >out &&
	test_error_code SENSITIVE_PATH_REFUSED out &&
	test_no_host_path out &&
	test ! -e .env
'

test_expect_success 'publish --i-accept-secret-write-risk writes a credential-shaped path' '
	keeper publish .env --blob "$(cat repl.id)" --i-accept-secret-write-risk >/dev/null &&
	printf "replacement bytes\n" >expect &&
	test_cmp expect .env
'

test_expect_success 'publish onto a directory is NOT_A_FILE and leaves it a directory' '
	mkdir adir &&
	test_must_fail keeper --json publish adir --blob "$(cat repl.id)" >out &&
	test_error_code NOT_A_FILE out &&
	test_no_host_path out &&
	test -d adir
'

test_expect_success 'publish of a blob that is not stored fails without creating the file' '
	missing=$(printf "never stored\n" | keeper hash-object --stdin) &&
	test_must_fail keeper --json publish unstored.txt --blob "$missing" >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get ".error.details.object_id" out)" = "$missing" &&
	test_no_host_path out &&
	test ! -e unstored.txt
'

test_expect_success 'publish of a blob that is not stored leaves an existing file untouched' '
	missing=$(printf "never stored\n" | keeper hash-object --stdin) &&
	test_must_fail keeper --json publish guarded.txt --blob "$missing" >out &&
	test_error_code STORAGE_ERROR out &&
	test_no_host_path out &&
	printf "replacement bytes\n" >expect &&
	test_cmp expect guarded.txt
'

test_expect_success 'publish of a damaged blob fails and leaves the file untouched' '
	printf "soon damaged\n" | keeper hash-object -w --stdin >damaged.id &&
	hex=$(sed "s/^sha256://" damaged.id) &&
	obj=.filekeeper/objects/$(echo "$hex" | cut -c1-2)/$(echo "$hex" | cut -c3-) &&
	printf "other bytes\n" | zstd -q -c >"$obj" &&
	test_expect_code 26 keeper --json publish guarded.txt --blob "$(cat damaged.id)" >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get ".error.details.object_id" out)" = "$(cat damaged.id)" &&
	test_no_host_path out &&
	printf "replacement bytes\n" >expect &&
	test_cmp expect guarded.txt &&
	rm -f "$obj"
'

test_expect_success 'publish with a malformed blob id is INVALID_ARGUMENT and creates nothing' '
	test_expect_code 2 keeper --json publish made-up.txt --blob sha256:nothex >out &&
	test_error_code INVALID_ARGUMENT out &&
	test_no_host_path out &&
	test ! -e made-up.txt
'

test_expect_success 'publish resolves its path once it holds the lock: a directory moved while it waited is not followed' '
	mkdir -p waited &&
	printf "before\n" >waited/f.txt &&
	blob=$(printf "after\n" | keeper hash-object -w --stdin) &&
	test_expect_code 3 env FILEKEEPER_TEST_INTERFERE_AT=publish-waiting-for-lock \
		FILEKEEPER_TEST_INTERFERE="mv waited moved" \
		keeper --json publish waited/f.txt --blob "$blob" --expected-hash "$(sha waited/f.txt)" >out &&
	test_error_code PATH_NOT_FOUND out &&
	test "$(cat moved/f.txt)" = before &&
	test ! -e waited
'

test_expect_success 'publish refuses to give a file the name of our temp files' '
	blob=$(printf "x\n" | keeper hash-object -w --stdin) &&
	test_expect_code 8 keeper --json publish .fk-tmp-0123456789abcdef --blob "$blob" >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test ! -e .fk-tmp-0123456789abcdef
'

test_expect_success 'no refused publish left a .fk-tmp- file behind' '
	no_temp_files
'

test_done
