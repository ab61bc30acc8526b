#!/bin/sh
test_description='keeper dir create, move and delete: journaled directory changes

dir create refuses an existing directory and a missing parent (with a hint), and with --parents
creates and records every missing level. dir move renames a whole tree in one step (the
directory keeps its inode), records every entry on both sides with its file hash, and refuses
an existing destination, a destination inside the source, and the workspace root. dir delete
removes an empty directory; a non-empty one needs --recursive and --confirm-recursive together,
after which every deleted file'"'"'s bytes are still recoverable from the journal with cat-blob.
Trees holding a symlink are refused and left as they were.'
. ./test-lib.sh

# by_path: sorts path|... lines by their path.
by_path () {
	LC_ALL=C sort -t "|" -k1,1
}

# op_items OP: the journal items of operation OP as path|change|kind|before_hash|after_hash,
# sorted by path.
op_items () {
	journal "SELECT path, change, kind, ifnull(before_hash, 'null'), ifnull(after_hash, 'null')
		FROM operation_items WHERE op_id = '$1'" | by_path
}

# result_items FILE: the items of the result document FILE in the same form, sorted by path.
result_items () {
	jq -r '.items[] | [.path, .change, .kind, (.before_hash // "null"), (.after_hash // "null")] | join("|")' "$1" |
	by_path
}

# relative_tree DIR: DIR's entries relative to DIR, with types and file hashes (to compare a
# tree before and after a move).
relative_tree () {
	(cd "$1" && tree_content .)
}

# test_dir_result_shape FILE: FILE is a committed directory mutation's success document in the
# specification's shape, with a diff for each item, in order.
test_dir_result_shape () {
	jq -e '
		(keys_unsorted[0:14] == ["ok", "workspace", "path", "changed", "before_hash",
			"after_hash", "summary", "operation_id", "undo_available", "dry_run", "warnings",
			"items", "diffs", "diff_truncated"]) and
		((keys_unsorted[14:] - ["source_path", "history_skipped"]) == []) and
		([.diffs[] | [.path, .change, .kind]] == [.items[] | [.path, .change, .kind]]) and
		(.diff_truncated | type == "boolean") and
		.ok == true and .workspace == "test" and
		(.operation_id | type == "string" and test("^op_[0-9a-f]{16}$")) and
		.dry_run == false and (.warnings | type == "array") and
		(.summary | type == "string" and length > 0) and
		all(.items[]; keys_unsorted == ["path", "change", "kind", "before_hash", "after_hash",
			"size_bytes"])
	' "$1" >/dev/null || { echo >&2 "not a mutation result in the spec's shape:"; cat >&2 "$1"; return 1; }
}

# dir create

test_expect_success 'dir create makes a directory and records it as one created directory item' '
	keeper --json --actor builder --task-id T-dirs dir create made >out &&
	test_dir_result_shape out &&
	test -d made &&
	test "$(json_get .path out)" = made &&
	test "$(json_get .changed out)" = true &&
	echo "made|created|directory|null|null" >expect &&
	result_items out >actual &&
	test_cmp expect actual &&
	op_items "$(json_get .operation_id out)" >actual &&
	test_cmp expect actual
'

test_expect_success 'dir create records the actor and task id' '
	echo "dir_create|builder|T-dirs|committed" >expect &&
	journal "SELECT kind, actor, task_id, status FROM operations WHERE target_path = '"'"'made'"'"'" >actual &&
	test_cmp expect actual
'

test_expect_success 'dir create of an existing directory is ALREADY_EXISTS (exit 14) and records nothing' '
	ops=$(op_count) &&
	stat -c %i made >before &&
	test_expect_code 14 keeper --json dir create made >out &&
	test_error_code ALREADY_EXISTS out &&
	test "$(json_get .error.details.path out)" = made &&
	test_no_host_path out &&
	stat -c %i made >after &&
	test_cmp before after &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'dir create under a missing parent is PATH_NOT_FOUND (exit 3) with a hint' '
	ops=$(op_count) &&
	test_expect_code 3 keeper --json dir create missing/child >out &&
	test_error_code PATH_NOT_FOUND out &&
	test "$(json_get .error.details.path out)" = missing/child &&
	json_get .error.details.recovery out | grep -e "--parents" &&
	test_no_host_path out &&
	test ! -e missing &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'dir create --parents creates every missing level and records one item per level' '
	keeper --json dir create --parents deep/er/est >out &&
	test_dir_result_shape out &&
	test -d deep/er/est &&
	test "$(json_get .changed out)" = true &&
	cat >expect <<-\EOF &&
	deep|created|directory|null|null
	deep/er|created|directory|null|null
	deep/er/est|created|directory|null|null
	EOF
	result_items out >actual &&
	test_cmp expect actual &&
	op_items "$(json_get .operation_id out)" >actual &&
	test_cmp expect actual
'

test_expect_success 'dir create --parents records only the levels it created' '
	keeper --json dir create --parents deep/er/side/leaf >out &&
	test -d deep/er/side/leaf &&
	cat >expect <<-\EOF &&
	deep/er/side|created|directory|null|null
	deep/er/side/leaf|created|directory|null|null
	EOF
	result_items out >actual &&
	test_cmp expect actual
'

test_expect_success 'dir create --parents of an existing directory succeeds with changed false' '
	stat -c %i deep/er/est >before &&
	keeper --json dir create --parents deep/er/est >out &&
	test_dir_result_shape out &&
	test "$(json_get .changed out)" = false &&
	json_get "[.items[].change] | all(. == \"unchanged\")" out &&
	test "$(json_get .summary out)" = "Directory deep/er/est already exists; nothing to create." &&
	stat -c %i deep/er/est >after &&
	test_cmp before after
'

test_expect_success 'dir create where a file stands is NOT_A_DIRECTORY (exit 7) and the file is kept' '
	printf "a file\n" >plain.txt &&
	test_expect_code 7 keeper --json dir create plain.txt >out &&
	test_error_code NOT_A_DIRECTORY out &&
	test_expect_code 7 keeper --json dir create --parents plain.txt/sub >out &&
	test_error_code NOT_A_DIRECTORY out &&
	test "$(json_get .error.details.path out)" = plain.txt/sub &&
	test -f plain.txt &&
	echo "a file" >expect &&
	test_cmp expect plain.txt
'

test_expect_success 'dir create is confined: .. (exit 4) and .filekeeper/ (exit 8) are refused' '
	test_expect_code 4 keeper --json dir create ../outside/made >out &&
	test_error_code PATH_OUTSIDE_WORKSPACE out &&
	test ! -e "$OUTSIDE/made" &&
	test_expect_code 8 keeper --json dir create .filekeeper/made >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test ! -e .filekeeper/made
'

test_expect_success 'a symlink to a directory is never a dir target: SYMLINK_WRITE_REFUSED (exit 9)' '
	mkdir -p real-dir &&
	ln -s real-dir dir-link &&
	ops=$(op_count) &&
	test_expect_code 9 keeper --json dir create dir-link >out &&
	test_error_code SYMLINK_WRITE_REFUSED out &&
	test_expect_code 9 keeper --json dir move dir-link moved-link >out &&
	test_error_code SYMLINK_WRITE_REFUSED out &&
	test_expect_code 9 keeper --json dir delete dir-link >out &&
	test_error_code SYMLINK_WRITE_REFUSED out &&
	test -h dir-link &&
	test -d real-dir &&
	test ! -e moved-link &&
	test "$(op_count)" = "$ops"
'

# dir move

test_expect_success 'setup: a tree to move, with text, binary, an empty file and an empty directory' '
	mkdir -p src/sub/empty-dir &&
	printf "top\r\nlevel" >src/top.txt &&
	printf "\000bin\377\000" >src/sub/data.bin &&
	: >src/sub/empty.txt &&
	relative_tree src >src.tree &&
	stat -c %i src >src.inode
'

test_expect_success 'dir move moves the whole tree, and the directory keeps its inode' '
	keeper --json --actor mover --task-id T-move dir move src dst >move.json &&
	test_dir_result_shape move.json &&
	test ! -e src &&
	relative_tree dst >dst.tree &&
	test_cmp src.tree dst.tree &&
	stat -c %i dst >dst.inode &&
	test_cmp src.inode dst.inode
'

test_expect_success 'dir move records one item per entry on both sides, with file hashes' '
	cat >expect <<-EOF &&
	dst|created|directory|null|null
	dst/sub|created|directory|null|null
	dst/sub/data.bin|created|file|null|$(sha dst/sub/data.bin)
	dst/sub/empty-dir|created|directory|null|null
	dst/sub/empty.txt|created|file|null|$(sha dst/sub/empty.txt)
	dst/top.txt|created|file|null|$(sha dst/top.txt)
	src|deleted|directory|null|null
	src/sub|deleted|directory|null|null
	src/sub/data.bin|deleted|file|$(sha dst/sub/data.bin)|null
	src/sub/empty-dir|deleted|directory|null|null
	src/sub/empty.txt|deleted|file|$(sha dst/sub/empty.txt)|null
	src/top.txt|deleted|file|$(sha dst/top.txt)|null
	EOF
	by_path <expect >expect.sorted &&
	result_items move.json >actual &&
	test_cmp expect.sorted actual &&
	op_items "$(json_get .operation_id move.json)" >actual &&
	test_cmp expect.sorted actual
'

test_expect_success 'dir move reports the destination, source_path, and both ends in its summary' '
	test "$(json_get .path move.json)" = dst &&
	test "$(json_get .source_path move.json)" = src &&
	test "$(json_get .changed move.json)" = true &&
	json_get .summary move.json >summary &&
	grep -F src summary &&
	grep -F dst summary &&
	echo "dir_move|mover|T-move|committed|src|dst" >expect &&
	journal "SELECT kind, actor, task_id, status, source_path, target_path FROM operations
		WHERE id = '"'"'$(json_get .operation_id move.json)'"'"'" >actual &&
	test_cmp expect actual
'

test_expect_success 'dir move onto an existing directory is ALREADY_EXISTS (exit 14); nothing moves' '
	mkdir -p taken &&
	printf "occupant\n" >taken/occupant.txt &&
	tree_content dst taken >before &&
	ops=$(op_count) &&
	test_expect_code 14 keeper --json dir move dst taken >out &&
	test_error_code ALREADY_EXISTS out &&
	test "$(json_get .error.details.path out)" = taken &&
	test_no_host_path out &&
	tree_content dst taken >after &&
	test_cmp before after &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'dir move onto an existing file is refused; nothing moves' '
	printf "a file\n" >taken.txt &&
	tree_content dst taken.txt >before &&
	test_expect_code 14 keeper --json dir move dst taken.txt >out &&
	test_error_code ALREADY_EXISTS out &&
	tree_content dst taken.txt >after &&
	test_cmp before after
'

test_expect_success 'dir move into itself is refused; nothing moves' '
	tree_content dst >before &&
	ops=$(op_count) &&
	test_must_fail keeper --json dir move dst dst/inside >out &&
	test "$(json_get .ok out)" = false &&
	test_no_host_path out &&
	test_must_fail keeper --json dir move dst dst/sub/deeper >out &&
	test "$(json_get .ok out)" = false &&
	tree_content dst >after &&
	test_cmp before after &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'dir move of the workspace root is refused; nothing moves' '
	ops=$(op_count) &&
	test_must_fail keeper --json dir move . moved-root >out &&
	test "$(json_get .ok out)" = false &&
	test_no_host_path out &&
	test_must_fail keeper --json dir move "$WS" moved-root >out &&
	test "$(json_get .ok out)" = false &&
	test ! -e moved-root &&
	test -f .filekeeper/journal.sqlite3 &&
	test -f plain.txt &&
	test -d dst/sub &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'dir move of a file is refused with NOT_A_DIRECTORY' '
	test_must_fail keeper --json dir move plain.txt elsewhere >out &&
	test_error_code NOT_A_DIRECTORY out &&
	test -f plain.txt &&
	test ! -e elsewhere
'

test_expect_success 'dir move of a missing directory is PATH_NOT_FOUND (exit 3)' '
	test_expect_code 3 keeper --json dir move no-such-dir elsewhere >out &&
	test_error_code PATH_NOT_FOUND out &&
	test ! -e elsewhere
'

test_expect_success 'dir move of a tree holding a symlink is refused and nothing changes' '
	mkdir -p linked/inner &&
	printf "real\n" >linked/inner/real.txt &&
	ln -s real.txt linked/inner/alias &&
	tree_content linked >before &&
	ops=$(op_count) &&
	test_expect_code 9 keeper --json dir move linked linked-moved >out &&
	test_error_code SYMLINK_WRITE_REFUSED out &&
	test "$(json_get .error.details.entry out)" = linked/inner/alias &&
	test_no_host_path out &&
	test ! -e linked-moved &&
	tree_content linked >after &&
	test_cmp before after &&
	test -h linked/inner/alias &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'setup: a tree holding a file whose name is not UTF-8' '
	mkdir -p oddnames/deep &&
	printf "kept\n" >oddnames/a.txt &&
	printf "odd\n" >"oddnames/deep/$(printf "bad\377.txt")"
'

test_expect_success 'dir move of a tree holding a name that is not UTF-8 is refused up front, naming it' '
	tree_content oddnames >before &&
	ops=$(op_count) &&
	test_expect_code 2 keeper --json dir move oddnames oddnames-moved >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.entry out)" = "oddnames/deep/bad\\xff.txt" &&
	test "$(json_get .error.details.path out)" = oddnames &&
	test_no_host_path out &&
	test ! -e oddnames-moved &&
	tree_content oddnames >after &&
	test_cmp before after &&
	test "$(op_count)" = "$ops"
'

# dir delete

test_expect_success 'dir delete removes an empty directory and records it' '
	mkdir hollow &&
	keeper --json dir delete hollow >out &&
	test_dir_result_shape out &&
	test ! -e hollow &&
	echo "hollow|deleted|directory|null|null" >expect &&
	result_items out >actual &&
	test_cmp expect actual &&
	op_items "$(json_get .operation_id out)" >actual &&
	test_cmp expect actual
'

test_expect_success 'setup: a tree to delete, and a copy of every file in it' '
	mkdir -p doomed/a/b doomed/empty &&
	printf "first\n" >doomed/one.txt &&
	printf "crlf\r\nno newline" >doomed/a/two.txt &&
	printf "\000\001\002binary\377" >doomed/a/b/three.bin &&
	printf "duplicate\n" >doomed/a/b/dup1.txt &&
	printf "duplicate\n" >doomed/dup2.txt &&
	rm -rf doomed.orig &&
	cp -a doomed doomed.orig &&
	tree_content doomed >doomed.before
'

test_expect_success 'dir delete of a non-empty directory without flags is refused; nothing is deleted' '
	ops=$(op_count) &&
	test_must_fail keeper --json dir delete doomed >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.path out)" = doomed &&
	json_get .error.details.recovery out | grep -e "--recursive" &&
	test_no_host_path out &&
	tree_content doomed >after &&
	test_cmp doomed.before after &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'dir delete --recursive without --confirm-recursive is a usage error (exit 2)' '
	ops=$(op_count) &&
	test_expect_code 2 keeper --json dir delete doomed --recursive >out &&
	test_error_code INVALID_ARGUMENT out &&
	json_get .error.message out | grep -e "--confirm-recursive" &&
	tree_content doomed >after &&
	test_cmp doomed.before after &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'dir delete --confirm-recursive without --recursive is a usage error (exit 2)' '
	test_expect_code 2 keeper --json dir delete doomed --confirm-recursive >out &&
	test_error_code INVALID_ARGUMENT out &&
	tree_content doomed >after &&
	test_cmp doomed.before after
'

test_expect_success 'dir delete --recursive --confirm-recursive removes the whole tree' '
	keeper --json --actor cleaner --task-id T-rm dir delete doomed --recursive --confirm-recursive >rm.json &&
	test_dir_result_shape rm.json &&
	json_get .operation_id rm.json >rm.op &&
	test ! -e doomed &&
	test "$(json_get .changed rm.json)" = true
'

test_expect_success 'the recursive delete records every entry with its file hash' '
	(cd doomed.orig && find . -mindepth 1 -type d) | sed "s|^\./|doomed/|" |
		sed "s/\$/|deleted|directory|null|null/" >expect.unsorted &&
	(cd doomed.orig && find . -type f) | sed "s|^\./||" | while read -r f
	do
		echo "doomed/$f|deleted|file|$(sha "doomed.orig/$f")|null"
	done >>expect.unsorted &&
	echo "doomed|deleted|directory|null|null" >>expect.unsorted &&
	by_path <expect.unsorted >expect &&
	result_items rm.json >actual &&
	test_cmp expect actual &&
	op_items "$(cat rm.op)" >actual &&
	test_cmp expect actual
'

test_expect_success 'every deleted file'"'"'s bytes are recoverable with cat-blob from the journal items' '
	journal "SELECT path, before_hash FROM operation_items
		WHERE op_id = '"'"'$(cat rm.op)'"'"'
		AND kind = '"'"'file'"'"'" >files &&
	test_line_count = 5 files &&
	while IFS="|" read -r path id
	do
		keeper cat-blob "$id" >recovered &&
		cmp "doomed.orig/${path#doomed/}" recovered || exit 1
	done <files
'

test_expect_success 'the recursive delete is recorded with actor, task id and status' '
	echo "dir_delete|cleaner|T-rm|committed|doomed" >expect &&
	journal "SELECT kind, actor, task_id, status, target_path FROM operations
		WHERE id = '"'"'$(cat rm.op)'"'"'" >actual &&
	test_cmp expect actual
'

test_expect_success 'dir delete --recursive of a tree holding a symlink is refused; nothing is deleted' '
	tree_content linked >before &&
	ops=$(op_count) &&
	test_expect_code 9 keeper --json dir delete linked --recursive --confirm-recursive >out &&
	test_error_code SYMLINK_WRITE_REFUSED out &&
	test_no_host_path out &&
	tree_content linked >after &&
	test_cmp before after &&
	test -h linked/inner/alias &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'dir delete --recursive of a tree holding a FIFO is SPECIAL_FILE_REFUSED naming it' '
	mkdir -p piped/sub &&
	mkfifo piped/sub/fifo &&
	ops=$(op_count) &&
	test_expect_code 13 keeper --json dir delete piped --recursive --confirm-recursive >out &&
	test_error_code SPECIAL_FILE_REFUSED out &&
	test "$(json_get .error.details.entry out)" = piped/sub/fifo &&
	json_get .error.message out | grep -F "piped/sub/fifo is a device, socket or FIFO" &&
	test -p piped/sub/fifo &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'dir delete --recursive of a tree holding a name that is not UTF-8 is refused up front' '
	tree_content oddnames >before &&
	ops=$(op_count) &&
	test_expect_code 2 keeper --json dir delete oddnames --recursive --confirm-recursive >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.entry out)" = "oddnames/deep/bad\\xff.txt" &&
	grep "not UTF-8" out &&
	tree_content oddnames >after &&
	test_cmp before after &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'dir delete --recursive of a tree holding a symlink to outside leaves the outside alone' '
	mkdir -p escaping &&
	printf "keep\n" >escaping/keep.txt &&
	printf "outside victim\n" >"$OUTSIDE/victim.txt" &&
	ln -s "$OUTSIDE" escaping/out &&
	tree_content escaping "$OUTSIDE" >before &&
	test_must_fail keeper --json dir delete escaping --recursive --confirm-recursive >out &&
	test "$(json_get .ok out)" = false &&
	tree_content escaping "$OUTSIDE" >after &&
	test_cmp before after
'

test_expect_success 'setup: a tree holding a credential-shaped file' '
	mkdir -p secrets/deep &&
	printf "TOKEN=1\n" >secrets/deep/.env &&
	printf "note\n" >secrets/readme
'

test_expect_success 'dir delete --recursive of a tree holding a credential is refused while planning, dry run alike: nothing recorded or stored' '
	tree_content secrets >before &&
	ops=$(op_count) &&
	find .filekeeper/objects -type f | sort >objects.before &&
	test_expect_code 10 keeper --json dir delete secrets --recursive --confirm-recursive --dry-run >out &&
	test_error_code SENSITIVE_PATH_REFUSED out &&
	test "$(json_get .error.details.path out)" = secrets/deep/.env &&
	test_expect_code 10 keeper --json dir delete secrets --recursive --confirm-recursive >out &&
	test_error_code SENSITIVE_PATH_REFUSED out &&
	jq -e ".error.details | has(\"operation_id\") | not" out &&
	test "$(op_count)" = "$ops" &&
	find .filekeeper/objects -type f | sort >objects.after &&
	test_cmp objects.before objects.after &&
	tree_content secrets >after &&
	test_cmp before after
'

test_expect_success 'dir move of a tree holding a credential needs the override, and so does its undo' '
	test_expect_code 10 keeper --json dir move secrets secrets2 >out &&
	test_error_code SENSITIVE_PATH_REFUSED out &&
	test -f secrets/deep/.env && test ! -e secrets2 &&
	keeper --json dir move secrets secrets2 --i-accept-secret-write-risk >out &&
	json_get .operation_id out >op.secrets &&
	test -f secrets2/deep/.env &&
	test_expect_code 10 keeper --json history undo "$(cat op.secrets)" >out &&
	test_error_code SENSITIVE_PATH_REFUSED out &&
	test -f secrets2/deep/.env &&
	keeper --json history undo "$(cat op.secrets)" --i-accept-secret-write-risk >out &&
	test -f secrets/deep/.env && test ! -e secrets2
'

test_expect_success 'dir delete of the workspace root is refused' '
	test_must_fail keeper --json dir delete . --recursive --confirm-recursive >out &&
	test "$(json_get .ok out)" = false &&
	test -d .filekeeper &&
	test -f plain.txt
'

test_expect_success 'dir delete of a file is NOT_A_DIRECTORY and keeps the file' '
	test_must_fail keeper --json dir delete plain.txt >out &&
	test_error_code NOT_A_DIRECTORY out &&
	test -f plain.txt
'

test_expect_success 'dir delete of .filekeeper is PATH_IS_STATE_PATH (exit 8)' '
	test_expect_code 8 keeper --json dir delete .filekeeper --recursive --confirm-recursive >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test -f .filekeeper/journal.sqlite3
'

test_expect_success 'setup: a project holding a workspace of its own, with history' '
	mkdir -p project/sub &&
	echo top >project/top.txt &&
	keeper --root "$WS/project/sub" file write inner.txt --content inner >/dev/null &&
	test -f project/sub/.filekeeper/journal.sqlite3 &&
	find project | sort >project.before
'

test_expect_success 'dir delete of a tree holding a nested workspace'"'"'s state is refused, naming it; nothing is deleted or recorded' '
	keeper --json history list >ops.before &&
	test_expect_code 8 keeper --json dir delete project --recursive --confirm-recursive >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test "$(json_get .error.details.entry out)" = project/sub/.filekeeper &&
	find project | sort >project.after &&
	test_cmp project.before project.after &&
	keeper --json history list >ops.after &&
	test_cmp ops.before ops.after
'

test_expect_success 'dir move of such a tree is refused the same way, dry run alike; nothing moves' '
	test_expect_code 8 keeper --json dir move project elsewhere >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_expect_code 8 keeper --json dir move project elsewhere --dry-run >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test ! -e elsewhere &&
	find project | sort >project.after &&
	test_cmp project.before project.after
'

test_expect_success 'dir create inside a nested workspace'"'"'s state is PATH_IS_STATE_PATH' '
	test_expect_code 8 keeper --json dir create project/sub/.filekeeper/made >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test ! -e project/sub/.filekeeper/made
'

test_expect_success 'the nested workspace'"'"'s history is intact' '
	keeper --root "$WS/project/sub" --json history list >out &&
	test "$(json_get ".operations | length" out)" = 1
'

test_expect_success 'the undo of a dir create is refused up front when a workspace made its state in the directory since' '
	keeper --json dir create later >out &&
	op=$(json_get .operation_id out) &&
	keeper --root "$WS/later" --json file write x.txt --content x >/dev/null &&
	keeper --root "$WS/later" --json history undo-last >/dev/null &&
	test ! -e later/x.txt &&
	test -d later/.filekeeper &&
	test_expect_code 12 keeper --json history undo "$op" --dry-run >out &&
	test_error_code UNDO_CONFLICT out &&
	json_get ".error.details.blocking_paths | index(\"later/.filekeeper\") != null" out &&
	test_expect_code 12 keeper --json history undo "$op" >out &&
	test_error_code UNDO_CONFLICT out &&
	test -f later/.filekeeper/journal.sqlite3
'

test_expect_success 'an operation an older release recorded with a nested workspace'"'"'s state is refused by undo and recovered as partial, never in the way' '
	keeper --json file write old-rec.txt --content old >out &&
	op=$(json_get .operation_id out) &&
	sqlite3 .filekeeper/journal.sqlite3 "UPDATE operation_items SET path = '"'"'n/.filekeeper/x'"'"' WHERE op_id = '"'"'$op'"'"'" &&
	test_expect_code 12 keeper --json history undo "$op" >out &&
	test_error_code UNDO_CONFLICT out &&
	sqlite3 .filekeeper/journal.sqlite3 "UPDATE operations SET status = '"'"'pending'"'"', under_lock = 1 WHERE id = '"'"'$op'"'"'" &&
	keeper --json file write after-old-rec.txt --content new >out &&
	json_get .ok out &&
	keeper --json history show "$op" >show &&
	test "$(json_get .operation.status show)" = partial
'

test_expect_success 'entries added while a directory is deleted are CONTENT_CONFLICT, retryable, and nothing is deleted' '
	for d in race-log race-run
	do
		mkdir -p $d/gone/sub && printf "a\n" >$d/gone/a.txt && printf "b\n" >$d/gone/sub/b.txt || return 1
	done &&
	FILEKEEPER_TEST_FAULT_LOG=$PWD/race-calls \
		keeper --root "$PWD/race-log" dir delete gone --recursive --confirm-recursive >/dev/null &&
	n=$(sed -n "s/ remove directory\$//p" race-calls | head -n 1) &&
	test -n "$n" &&
	# The directory found not empty at its removal, as when another process adds a file.
	test_expect_code 15 env FILEKEEPER_TEST_FAULT=$n:enotempty \
		keeper --json --root "$PWD/race-run" dir delete gone --recursive --confirm-recursive >race.json &&
	test_error_code CONTENT_CONFLICT race.json &&
	test "$(jq .error.retryable race.json)" = true &&
	! grep -e "--recursive" race.json &&
	test "$(cat race-run/gone/a.txt)" = a &&
	test "$(cat race-run/gone/sub/b.txt)" = b
'

test_expect_success 'no .fk-tmp- file is left anywhere' '
	no_temp_files
'

test_expect_success 'keeper fsck is clean after every directory change above' '
	keeper --json fsck >out &&
	test "$(json_get .ok out)" = true &&
	test "$(json_get ".pending_operations | length" out)" = 0 &&
	test "$(json_get ".damaged_objects | length" out)" = 0 &&
	test "$(json_get ".missing_objects | length" out)" = 0
'

test_done
