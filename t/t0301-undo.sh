#!/bin/sh
test_description='keeper history undo and undo-last: safe, not best-effort, and an honest ledger

Undo of every mutation kind (file create, write, copy, move, delete; dir create, move, delete)
puts back exactly the before state: bytes, mode and existence. The undo is itself an operation
(kind undo, undoes = its target) and undoing it goes forward again; an operation is never
undone twice. When a path has moved on since the operation, the undo is refused as a whole with
UNDO_CONFLICT (exit 12) naming the blocking paths, nothing changes, and the ledger gains an
undo_refused row without items that undo-last skips. undo-last walks back through history, only
in the selected workspace and, with --actor, only among that actor'"'"'s operations. A history-
skipped operation is HISTORY_UNAVAILABLE. Every recorded path is workspace-relative, so the
history travels with the tree: undo works after the workspace directory is moved. A dry run
records nothing, and fsck is clean at the end.'
. ./test-lib.sh

# op_of FILE: the operation id of the mutation result in FILE.
op_of () {
	jq -e -r .operation_id "$1"
}

# mode_of FILE: FILE's permission bits in octal, as stat prints them (644, 755, ...).
mode_of () {
	stat -c %a "$1"
}

# snapshot DIR: every entry below DIR, one a line, sorted: a file with its mode and the sha256
# of its bytes, anything else with its type and mode. Two equal snapshots are the same tree.
snapshot () {
	(
		cd "$1" &&
		find . | LC_ALL=C sort | while read -r p; do
			if test -f "$p"; then
				echo "$p file $(mode_of "$p") $(sha256sum <"$p" | cut -d" " -f1)"
			else
				echo "$p $(stat -c "%F %a" "$p")"
			fi
		done
	)
}

# undo_conflicts OP PATH...: `keeper history undo OP` is refused with UNDO_CONFLICT (exit 12)
# and details.blocking_paths names exactly the PATHs. The document is left in refusal.json.
undo_conflicts () {
	op=$1
	shift
	test_expect_code 12 keeper --json history undo "$op" >refusal.json &&
	test_error_code UNDO_CONFLICT refusal.json &&
	test_no_host_path refusal.json &&
	printf "%s\n" "$@" >expect.blocking &&
	jq -r ".error.details.blocking_paths[]" refusal.json >actual.blocking &&
	test_cmp expect.blocking actual.blocking
}

# Undo of each mutation kind.

test_expect_success 'undo of a file create removes the created file' '
	mkdir k-create &&
	keeper --json file create k-create/new.txt --content "brand new" >out &&
	op_of out >op.create &&
	test -f k-create/new.txt &&
	keeper --json history undo "$(cat op.create)" >undo.json &&
	op_of undo.json >undo.create &&
	test ! -e k-create/new.txt &&
	test -d k-create
'

test_expect_success 'the undo result is a mutation result with its own operation id and the item deleted' '
	json_get ".ok and .workspace == \"test\" and .dry_run == false and .changed == true" undo.json &&
	grep -E "^op_[0-9a-f]{16}$" undo.create &&
	test "$(cat undo.create)" != "$(cat op.create)" &&
	printf "k-create/new.txt deleted file %s null\n" "$(printf "brand new" | sha /dev/stdin)" >expect &&
	json_get ".items[] | \"\(.path) \(.change) \(.kind) \(.before_hash) \(.after_hash)\"" undo.json >actual &&
	test_cmp expect actual
'

test_expect_success 'setup: a file of mode 640, then a write of new bytes' '
	mkdir k-write &&
	printf "old bytes\nsecond line\n" >k-write/f.txt &&
	chmod 640 k-write/f.txt &&
	cp -p k-write/f.txt write.old &&
	printf "new bytes\n" >write.new &&
	keeper --json file write k-write/f.txt --input write.new >out &&
	op_of out >op.write &&
	test_cmp write.new k-write/f.txt
'

test_expect_success 'undo of a write puts the old bytes back' '
	keeper --json history undo "$(cat op.write)" >undo.json &&
	op_of undo.json >undo.write &&
	cmp write.old k-write/f.txt
'

test_expect_success 'undo of a write keeps the old mode' '
	echo 640 >expect &&
	mode_of k-write/f.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'the undo result swaps the hashes of the write' '
	test "$(json_get .before_hash undo.json)" = "$(sha write.new)" &&
	test "$(json_get .after_hash undo.json)" = "$(sha write.old)" &&
	test "$(json_get .path undo.json)" = k-write/f.txt
'

test_expect_success 'the undo result reports the restored file'"'"'s size' '
	wc -c <write.old | tr -d " " >expect &&
	jq -r ".items[0].size_bytes" undo.json >actual &&
	test_cmp expect actual
'

test_expect_success 'the undo is an operation of kind undo whose undoes names the write' '
	keeper --json history show "$(cat undo.write)" >out &&
	test "$(json_get .operation.kind out)" = undo &&
	test "$(json_get .operation.status out)" = committed &&
	test "$(json_get .operation.undoes out)" = "$(cat op.write)" &&
	test "$(json_get .operation.target_path out)" = k-write/f.txt
'

test_expect_success 'history list lists the undo, newest first, right after the write' '
	cat undo.write op.write >expect &&
	keeper --json history list --limit 2 >out &&
	json_get ".operations[].id" out >actual &&
	test_cmp expect actual
'

test_expect_success 'the undone write shows undone_by the undo and is no longer undoable' '
	keeper --json history show "$(cat op.write)" >out &&
	test "$(json_get .undone_by out)" = "$(cat undo.write)" &&
	test "$(json_get .undoable out)" = false &&
	keeper --json history list --path k-write/f.txt >out &&
	json_get ".operations[] | select(.id == \"$(cat op.write)\") | .undone_by == \"$(cat undo.write)\" and .undoable == false" out
'

test_expect_success 'the human history list marks the undone write' '
	keeper history list --limit 2 >table &&
	grep "^$(cat op.write) .*undone" table
'

test_expect_success 'undoing the write a second time is INVALID_ARGUMENT (exit 2) naming undone_by' '
	ops=$(op_count) &&
	test_expect_code 2 keeper --json history undo "$(cat op.write)" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.undone_by out)" = "$(cat undo.write)" &&
	test_no_host_path out &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'the refused second undo changed nothing' '
	cmp write.old k-write/f.txt &&
	echo 640 >expect &&
	mode_of k-write/f.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'undoing the undo goes forward again: the written bytes are back' '
	keeper --json history undo "$(cat undo.write)" >out &&
	op_of out >redo.write &&
	test_cmp write.new k-write/f.txt &&
	echo 640 >expect &&
	mode_of k-write/f.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'the undo of the undo is recorded as an undo of the undo' '
	keeper --json history show "$(cat redo.write)" >out &&
	test "$(json_get .operation.kind out)" = undo &&
	test "$(json_get .operation.undoes out)" = "$(cat undo.write)" &&
	keeper --json history show "$(cat undo.write)" >out &&
	test "$(json_get .undone_by out)" = "$(cat redo.write)"
'

test_expect_success 'the undo records the global --actor and --task-id' '
	printf "v1\n" >k-write/actor.txt &&
	keeper --json file write k-write/actor.txt --content "v2" >out &&
	keeper --json --actor undoer --task-id T-undo history undo "$(op_of out)" >undo.json &&
	keeper --json history show "$(op_of undo.json)" >out &&
	test "$(json_get .operation.actor out)" = undoer &&
	test "$(json_get .operation.task_id out)" = T-undo
'

test_expect_success 'undo of a copy to a new destination removes the destination' '
	mkdir k-copy &&
	printf "copied bytes\n" >k-copy/src.txt &&
	cp k-copy/src.txt copy.src &&
	keeper --json file copy k-copy/src.txt k-copy/dst.txt >out &&
	test -f k-copy/dst.txt &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	test ! -e k-copy/dst.txt &&
	cmp copy.src k-copy/src.txt
'

test_expect_success 'undo of a copy over an existing destination puts its old bytes and mode back' '
	printf "destination before\n" >k-copy/old-dst.txt &&
	chmod 600 k-copy/old-dst.txt &&
	cp -p k-copy/old-dst.txt copy.old-dst &&
	keeper --json file copy k-copy/src.txt k-copy/old-dst.txt \
		--expected-destination-hash "$(sha k-copy/old-dst.txt)" >out &&
	cmp copy.src k-copy/old-dst.txt &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	cmp copy.old-dst k-copy/old-dst.txt &&
	echo 600 >expect &&
	mode_of k-copy/old-dst.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'undo of a move puts the file back at its source with its mode' '
	mkdir k-move &&
	printf "moving bytes\n" >k-move/m.txt &&
	chmod 600 k-move/m.txt &&
	cp -p k-move/m.txt move.orig &&
	keeper --json file move k-move/m.txt k-move/moved.txt >out &&
	test ! -e k-move/m.txt &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	cmp move.orig k-move/m.txt &&
	echo 600 >expect &&
	mode_of k-move/m.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'undo of a move removes the destination' '
	test ! -e k-move/moved.txt
'

test_expect_success 'undo of a move --overwrite puts back both the source and the old destination' '
	printf "the source\n" >k-move/s.txt &&
	printf "the old destination\n" >k-move/d.txt &&
	chmod 755 k-move/d.txt &&
	cp -p k-move/s.txt move.s &&
	cp -p k-move/d.txt move.d &&
	keeper --json file move --overwrite k-move/s.txt k-move/d.txt >out &&
	cmp move.s k-move/d.txt &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	cmp move.s k-move/s.txt &&
	cmp move.d k-move/d.txt &&
	echo 755 >expect &&
	mode_of k-move/d.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'undo of a delete brings the file back with its bytes and mode' '
	mkdir k-delete &&
	printf "\000binary\377\r\nno final newline" >k-delete/x.bin &&
	chmod 751 k-delete/x.bin &&
	cp -p k-delete/x.bin delete.orig &&
	keeper --json file delete k-delete/x.bin >out &&
	test ! -e k-delete/x.bin &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	cmp delete.orig k-delete/x.bin &&
	echo 751 >expect &&
	mode_of k-delete/x.bin >actual &&
	test_cmp expect actual
'

test_expect_success 'undo of dir create --parents removes every level it created' '
	mkdir k-dir &&
	keeper --json dir create --parents k-dir/a/b/c >out &&
	test -d k-dir/a/b/c &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	test ! -e k-dir/a &&
	test -d k-dir
'

test_expect_success 'undo of dir create --parents keeps the levels that existed before' '
	mkdir -p k-dir/kept &&
	keeper --json dir create --parents k-dir/kept/new/deeper >out &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	test ! -e k-dir/kept/new &&
	test -d k-dir/kept
'

test_expect_success 'setup: a tree with nested files of several modes and an empty directory' '
	mkdir -p k-dmove/src/sub/deep k-dmove/src/empty &&
	printf "top\n" >k-dmove/src/top.txt &&
	printf "\000bin\377" >k-dmove/src/sub/data.bin &&
	printf "#!/bin/sh\n" >k-dmove/src/sub/deep/run.sh &&
	: >k-dmove/src/sub/empty.txt &&
	chmod 600 k-dmove/src/top.txt &&
	chmod 755 k-dmove/src/sub/deep/run.sh &&
	chmod 444 k-dmove/src/sub/empty.txt &&
	chmod 700 k-dmove/src/sub/deep &&
	chmod 750 k-dmove/src/empty &&
	chmod 711 k-dmove/src &&
	cp -a k-dmove/src k-ddel-tree &&
	snapshot k-dmove/src >dmove.before
'

test_expect_success 'undo of a dir move puts the whole tree back at its source' '
	keeper --json dir move k-dmove/src k-dmove/dst >out &&
	test ! -e k-dmove/src &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	snapshot k-dmove/src >dmove.after &&
	test_cmp dmove.before dmove.after
'

test_expect_success 'undo of a dir move removes the destination' '
	test ! -e k-dmove/dst
'

test_expect_success 'a dir move records every directory'"'"'s mode on both ends' '
	keeper --json history show "$(op_of out)" >show.json &&
	json_get "[.operation.items[] | select(.path == \"k-dmove/src/sub/deep\") | .before_mode] == [448]" show.json &&
	json_get "[.operation.items[] | select(.path == \"k-dmove/dst/sub/deep\") | .after_mode] == [448]" show.json &&
	json_get "[.operation.items[] | select(.path == \"k-dmove/dst\") | .after_mode] == [457]" show.json
'

test_expect_success 'undoing the undo of a dir move puts the tree at the destination with its modes' '
	keeper --json history undo "$(op_of undo.json)" >redo.json &&
	snapshot k-dmove/dst >dmove.redo &&
	test_cmp dmove.before dmove.redo &&
	keeper --json history undo "$(op_of redo.json)" >/dev/null &&
	snapshot k-dmove/src >dmove.after &&
	test_cmp dmove.before dmove.after
'

test_expect_success 'undo of dir delete --recursive brings back every file with its bytes and mode' '
	mkdir k-ddel &&
	mv k-ddel-tree k-ddel/tree &&
	snapshot k-ddel/tree >ddel.before &&
	keeper --json dir delete --recursive --confirm-recursive k-ddel/tree >out &&
	test ! -e k-ddel/tree &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	snapshot k-ddel/tree >ddel.after &&
	test_cmp ddel.before ddel.after
'

test_expect_success 'undo of dir delete --recursive brings back a 700 subdirectory as 700' '
	mkdir -p k-dmode/t/u &&
	echo x >k-dmode/t/u/f &&
	chmod 700 k-dmode/t/u &&
	keeper --json dir delete k-dmode/t --recursive --confirm-recursive >out &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	test "$(mode_of k-dmode/t/u)" = 700
'

test_expect_success 'undo of a dir move whose destination directory changed mode since is UNDO_CONFLICT' '
	keeper --json dir move k-dmode/t k-dmode/t2 >out &&
	chmod 750 k-dmode/t2/u &&
	undo_conflicts "$(op_of out)" k-dmode/t2/u &&
	test "$(mode_of k-dmode/t2/u)" = 750
'

test_expect_success 'undo of an apply-patch that emptied a 700 directory brings it back as 700' '
	mkdir -p k-dpatch/only &&
	echo gone >k-dpatch/only/f.txt &&
	chmod 700 k-dpatch/only &&
	printf -- "--- a/k-dpatch/only/f.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n" >rm.patch &&
	keeper --json file apply-patch rm.patch >out &&
	test ! -e k-dpatch/only &&
	keeper --json history undo "$(op_of out)" >undo.json &&
	test "$(mode_of k-dpatch/only)" = 700 &&
	echo gone >expect &&
	test_cmp expect k-dpatch/only/f.txt
'

# A journal written before directory modes were recorded (the same schema, with null modes for
# every directory item) still undoes: the directories come back as a new directory would.

test_expect_success 'setup: a dir delete whose directory modes are nulled, as an older build wrote it' '
	mkdir -p k-dold/t/u &&
	echo x >k-dold/t/u/f &&
	keeper --json dir delete k-dold/t --recursive --confirm-recursive >out &&
	op_of out >op.dold &&
	journal "UPDATE operation_items SET before_mode = NULL, after_mode = NULL
		WHERE kind = '"'"'directory'"'"' AND op_id = '"'"'$(cat op.dold)'"'"'" &&
	test "$(journal "PRAGMA user_version")" = 4 &&
	keeper --json history show "$(cat op.dold)" >show.json &&
	json_get "[.operation.items[] | select(.kind == \"directory\") | .before_mode] == [null, null]" show.json
'

test_expect_success 'its undo puts the tree back, each directory with the default mode' '
	keeper --json history undo "$(cat op.dold)" >undo.json &&
	json_get ".ok and .changed" undo.json &&
	echo x >expect &&
	test_cmp expect k-dold/t/u/f &&
	mkdir k-dold/fresh &&
	test "$(mode_of k-dold/t/u)" = "$(mode_of k-dold/fresh)" &&
	rmdir k-dold/fresh
'

test_expect_success 'a directory recorded without a mode does not block undo whatever its mode' '
	chmod 701 k-dold/t/u &&
	keeper --json history undo "$(op_of undo.json)" >redo.json &&
	test ! -e k-dold/t
'

# Refusals: UNDO_CONFLICT changes nothing and names the blocking paths.

test_expect_success 'setup: a write, then the file edited by hand' '
	mkdir r-write &&
	printf "original\n" >r-write/f.txt &&
	keeper --json file write r-write/f.txt --content "written" >out &&
	op_of out >op.r-write &&
	printf "edited by hand\n" >r-write/f.txt &&
	snapshot r-write >r-write.before
'

test_expect_success 'undo of a write whose file was edited since is UNDO_CONFLICT naming it' '
	op_count >ops.before &&
	undo_conflicts "$(cat op.r-write)" r-write/f.txt &&
	json_get .error.details.refusal_id refusal.json >refusal.id
'

test_expect_success 'the refused undo of the edited write changed nothing' '
	snapshot r-write >r-write.after &&
	test_cmp r-write.before r-write.after &&
	echo "edited by hand" >expect &&
	test_cmp expect r-write/f.txt
'

test_expect_success 'a refused undo adds exactly one row: undo_refused, and no committed undo' '
	echo $(($(cat ops.before) + 1)) >expect &&
	op_count >actual &&
	test_cmp expect actual &&
	keeper --json history list --limit 1 >out &&
	test "$(json_get ".operations[0].id" out)" = "$(cat refusal.id)" &&
	test "$(json_get ".operations[0].status" out)" = undo_refused &&
	test "$(json_get ".operations[0].kind" out)" = undo &&
	test "$(json_get ".operations[0].undoes" out)" = "$(cat op.r-write)"
'

test_expect_success 'the undo_refused row names the target path, the conflict code and the blocking paths' '
	keeper --json history show "$(cat refusal.id)" >out &&
	test "$(json_get .operation.target_path out)" = r-write/f.txt &&
	test "$(json_get .operation.metadata.conflict_code out)" = UNDO_CONFLICT &&
	echo r-write/f.txt >expect &&
	json_get ".operation.metadata.blocking_paths[]" out >actual &&
	test_cmp expect actual
'

test_expect_success 'the journal holds the undo_refused row with its target path and no items' '
	id=$(cat refusal.id) &&
	echo "undo|undo_refused|r-write/f.txt|$(cat op.r-write)" >expect &&
	journal "SELECT kind, status, target_path, undoes FROM operations WHERE id = '"'"'$id'"'"'" >actual &&
	test_cmp expect actual &&
	echo 0 >expect &&
	journal "SELECT count(*) FROM operation_items WHERE op_id = '"'"'$id'"'"'" >actual &&
	test_cmp expect actual
'

test_expect_success 'a refused undo is recorded in one transaction: killed as it records, it leaves no pending row' '
	mkdir -p "$TRASH/refused-dies" &&
	printf "one\n" >"$TRASH/refused-dies/f.txt" &&
	keeper --json --root "$TRASH/refused-dies" file write f.txt --content "two
" >out &&
	op=$(op_of out) &&
	printf "by hand\n" >"$TRASH/refused-dies/f.txt" &&
	test_expect_code 12 env FILEKEEPER_TEST_FAULT_LOG="$TRASH/refusal-calls" \
		keeper --json --root "$TRASH/refused-dies" history undo "$op" >out &&
	n=$(sed -n "s/ journal: record operation\$//p" "$TRASH/refusal-calls" | tail -n 1) &&
	test -n "$n" &&
	test_expect_code 134 env FILEKEEPER_TEST_FAULT=$n:die \
		keeper --json --root "$TRASH/refused-dies" history undo "$op" >out &&
	keeper --json --root "$TRASH/refused-dies" recover >out &&
	test "$(journal "SELECT count(*) FROM operations WHERE status = '"'"'pending'"'"'" "$TRASH/refused-dies")" = 0 &&
	test "$(journal "SELECT count(*) FROM operations WHERE status = '"'"'undo_refused'"'"'" "$TRASH/refused-dies")" = 2
'

test_expect_success 'the undo_refused row has no items and is not undoable' '
	keeper --json history show "$(cat refusal.id)" >out &&
	json_get ".operation.items == [] and .undoable == false and .undone_by == null" out
'

test_expect_success 'undoing the undo_refused row is refused and changes nothing' '
	ops=$(op_count) &&
	test_expect_code 2 keeper --json history undo "$(cat refusal.id)" >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(op_count)" = "$ops" &&
	snapshot r-write >r-write.after &&
	test_cmp r-write.before r-write.after
'

test_expect_success 'the refused target is not marked undone and stays undoable' '
	keeper --json history show "$(cat op.r-write)" >out &&
	json_get ".undone_by == null and .undoable == true" out
'

test_expect_success 'a file whose mode changed since the write blocks its undo' '
	printf "mode original\n" >r-write/mode.txt &&
	chmod 644 r-write/mode.txt &&
	keeper --json file write r-write/mode.txt --content "mode written" >out &&
	chmod 600 r-write/mode.txt &&
	snapshot r-write >before &&
	undo_conflicts "$(op_of out)" r-write/mode.txt &&
	snapshot r-write >after &&
	test_cmp before after
'

test_expect_success 'undo of a create whose file was edited since is UNDO_CONFLICT and keeps the edit' '
	mkdir r-create &&
	keeper --json file create r-create/c.txt --content "created" >out &&
	printf "edited after create\n" >r-create/c.txt &&
	snapshot r-create >before &&
	undo_conflicts "$(op_of out)" r-create/c.txt &&
	snapshot r-create >after &&
	test_cmp before after
'

test_expect_success 'undo of a delete whose path was re-created is UNDO_CONFLICT and keeps the new file' '
	mkdir r-delete &&
	printf "to be deleted\n" >r-delete/d.txt &&
	keeper --json file delete r-delete/d.txt >out &&
	printf "someone else'"'"'s new file\n" >r-delete/d.txt &&
	snapshot r-delete >before &&
	undo_conflicts "$(op_of out)" r-delete/d.txt &&
	snapshot r-delete >after &&
	test_cmp before after
'

test_expect_success 'undo of a move whose destination was edited is UNDO_CONFLICT and changes nothing' '
	mkdir r-move &&
	printf "moved content\n" >r-move/from.txt &&
	keeper --json file move r-move/from.txt r-move/to.txt >out &&
	printf "edited at the destination\n" >r-move/to.txt &&
	snapshot r-move >before &&
	undo_conflicts "$(op_of out)" r-move/to.txt &&
	snapshot r-move >after &&
	test_cmp before after &&
	test ! -e r-move/from.txt
'

test_expect_success 'undo of a move whose source was re-created is UNDO_CONFLICT: both ends are checked' '
	printf "moved again\n" >r-move/src2.txt &&
	keeper --json file move r-move/src2.txt r-move/dst2.txt >out &&
	printf "a new file at the old name\n" >r-move/src2.txt &&
	snapshot r-move >before &&
	undo_conflicts "$(op_of out)" r-move/src2.txt &&
	snapshot r-move >after &&
	test_cmp before after
'

test_expect_success 'undo of a delete whose directory was removed since is UNDO_CONFLICT naming it, dry run too' '
	mkdir -p r-parent/d &&
	printf "in d\n" >r-parent/d/x.txt &&
	keeper --json file delete r-parent/d/x.txt >out &&
	deleted=$(op_of out) &&
	keeper --json dir delete r-parent/d >out &&
	removed=$(op_of out) &&
	snapshot r-parent >before &&
	test_expect_code 12 keeper --json history undo "$deleted" --dry-run >dry.json &&
	test_error_code UNDO_CONFLICT dry.json &&
	test "$(jq -c .error.details.blocking_paths dry.json)" = "[\"r-parent/d\"]" &&
	undo_conflicts "$deleted" r-parent/d &&
	snapshot r-parent >after &&
	test_cmp before after &&
	keeper --json history undo "$removed" >/dev/null &&
	keeper --json history undo "$deleted" >/dev/null &&
	printf "in d\n" >expect &&
	test_cmp expect r-parent/d/x.txt
'

test_expect_success 'undo of a recursive dir delete with one file re-created is UNDO_CONFLICT naming that file' '
	mkdir -p r-ddel/tree/sub &&
	printf "one\n" >r-ddel/tree/one.txt &&
	printf "two\n" >r-ddel/tree/sub/two.txt &&
	printf "three\n" >r-ddel/tree/sub/three.txt &&
	keeper --json dir delete --recursive --confirm-recursive r-ddel/tree >out &&
	mkdir -p r-ddel/tree/sub &&
	printf "a different two\n" >r-ddel/tree/sub/two.txt &&
	snapshot r-ddel >before &&
	test_expect_code 12 keeper --json history undo "$(op_of out)" >refusal.json &&
	test_error_code UNDO_CONFLICT refusal.json &&
	json_get ".error.details.blocking_paths | index(\"r-ddel/tree/sub/two.txt\") != null" refusal.json &&
	json_get ".error.details.blocking_paths | all(.[]; . != \"r-ddel/tree/one.txt\" and . != \"r-ddel/tree/sub/three.txt\")" refusal.json &&
	snapshot r-ddel >after &&
	test_cmp before after &&
	test ! -e r-ddel/tree/one.txt &&
	test ! -e r-ddel/tree/sub/three.txt
'

test_expect_success 'undo of a dir move with a file edited inside the moved tree is UNDO_CONFLICT' '
	mkdir -p r-dmove/src/sub &&
	printf "a\n" >r-dmove/src/a.txt &&
	printf "b\n" >r-dmove/src/sub/b.txt &&
	keeper --json dir move r-dmove/src r-dmove/dst >out &&
	printf "b, edited\n" >r-dmove/dst/sub/b.txt &&
	snapshot r-dmove >before &&
	undo_conflicts "$(op_of out)" r-dmove/dst/sub/b.txt &&
	snapshot r-dmove >after &&
	test_cmp before after &&
	test ! -e r-dmove/src
'

test_expect_success 'undo of a dir create whose tree gained a file is UNDO_CONFLICT and changes nothing' '
	mkdir r-dir &&
	keeper --json dir create --parents r-dir/x/y >out &&
	printf "new\n" >r-dir/x/added.txt &&
	snapshot r-dir >before &&
	ops=$(op_count) &&
	test_expect_code 12 keeper --json history undo "$(op_of out)" >refusal.json &&
	test_error_code UNDO_CONFLICT refusal.json &&
	json_get ".error.details.blocking_paths | length > 0 and all(.[]; startswith(\"r-dir/x\"))" refusal.json &&
	snapshot r-dir >after &&
	test_cmp before after &&
	journal "SELECT count(*) FROM operations WHERE kind = '"'"'undo'"'"' AND status NOT IN ('"'"'undo_refused'"'"') AND seq > $ops" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

test_expect_success 'undo of a dir move whose moved tree gained a file is UNDO_CONFLICT and changes nothing' '
	mkdir -p r-dmove2/src &&
	printf "kept\n" >r-dmove2/src/kept.txt &&
	keeper --json dir move r-dmove2/src r-dmove2/dst >out &&
	printf "new\n" >r-dmove2/dst/added.txt &&
	snapshot r-dmove2 >before &&
	ops=$(op_count) &&
	test_expect_code 12 keeper --json history undo "$(op_of out)" >refusal.json &&
	test_error_code UNDO_CONFLICT refusal.json &&
	json_get ".error.details.blocking_paths | length > 0 and all(.[]; startswith(\"r-dmove2/dst\"))" refusal.json &&
	snapshot r-dmove2 >after &&
	test_cmp before after &&
	journal "SELECT count(*) FROM operations WHERE kind = '"'"'undo'"'"' AND status NOT IN ('"'"'undo_refused'"'"') AND seq > $ops" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

test_expect_success 'every refusal above left an undo_refused row with its blocking paths and no items' '
	keeper --json history list --limit 200 >out &&
	json_get "[.operations[] | select(.status == \"undo_refused\")] | length >= 8" out &&
	json_get "all(.operations[] | select(.status == \"undo_refused\");
		.kind == \"undo\" and .items == [] and .undoable == false and
		.metadata.conflict_code == \"UNDO_CONFLICT\" and (.metadata.blocking_paths | length > 0) and
		(.target_path | type == \"string\"))" out
'

# --dry-run

test_expect_success 'setup: a write to preview the undo of' '
	mkdir k-dry &&
	printf "dry before\n" >k-dry/f.txt &&
	keeper --json file write k-dry/f.txt --content "dry after" >out &&
	op_of out >op.dry
'

test_expect_success 'undo --dry-run reports a preview and changes nothing' '
	ops=$(op_count) &&
	keeper --json history undo "$(cat op.dry)" --dry-run >out &&
	json_get ".ok and .dry_run == true and .changed == false and .operation_id == null" out &&
	printf "dry after" >expect &&
	test_cmp expect k-dry/f.txt &&
	test "$(op_count)" = "$ops"
'

test_expect_success 'after undo --dry-run the operation is still not undone' '
	keeper --json history show "$(cat op.dry)" >out &&
	json_get ".undone_by == null and .undoable == true" out
'

test_expect_success 'undo --dry-run of a conflicting undo records no undo_refused row' '
	printf "dry edited\n" >k-dry/f.txt &&
	ops=$(op_count) &&
	test_expect_code 12 keeper --json history undo "$(cat op.dry)" --dry-run >out &&
	test_error_code UNDO_CONFLICT out &&
	test "$(op_count)" = "$ops" &&
	echo "dry edited" >expect &&
	test_cmp expect k-dry/f.txt
'

# undo-last, in its own workspace so its history is known exactly.

test_expect_success 'setup: workspace "last": create l.txt, then write it twice' '
	mkdir "$TRASH/last" &&
	keeper workspace create last "$TRASH/last" >/dev/null &&
	printf "v1\n" >l.v1 && printf "v2\n" >l.v2 && printf "v3\n" >l.v3 &&
	keeper --json --workspace last file create l.txt --input "$WS/l.v1" >out &&
	op_of out >op.l1 &&
	keeper --json --workspace last file write l.txt --input "$WS/l.v2" >out &&
	op_of out >op.l2 &&
	keeper --json --workspace last file write l.txt --input "$WS/l.v3" >out &&
	op_of out >op.l3
'

test_expect_success 'undo-last undoes the newest operation' '
	keeper --json --workspace last history undo-last >out &&
	cmp l.v2 "$TRASH/last/l.txt" &&
	keeper --json --workspace last history show "$(op_of out)" >show.json &&
	test "$(json_get .operation.undoes show.json)" = "$(cat op.l3)"
'

test_expect_success 'undo-last again walks back to the operation before, not undoing its own undo' '
	keeper --json --workspace last history undo-last >out &&
	cmp l.v1 "$TRASH/last/l.txt" &&
	keeper --json --workspace last history show "$(op_of out)" >show.json &&
	test "$(json_get .operation.undoes show.json)" = "$(cat op.l2)"
'

test_expect_success 'undo-last a third time undoes the create: the file is gone' '
	keeper --json --workspace last history undo-last >out &&
	test ! -e "$TRASH/last/l.txt" &&
	keeper --json --workspace last history show "$(op_of out)" >show.json &&
	test "$(json_get .operation.undoes show.json)" = "$(cat op.l1)"
'

test_expect_success 'undo-last with everything undone is OPERATION_NOT_FOUND (exit 28) and records nothing' '
	ops=$(op_count "$TRASH/last") &&
	test_expect_code 28 keeper --json --workspace last history undo-last >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test_no_host_path out &&
	test "$(op_count "$TRASH/last")" = "$ops" &&
	test ! -e "$TRASH/last/l.txt"
'

test_expect_success 'setup: in "last", a write of n.txt whose undo was refused' '
	printf "n before\n" >"$TRASH/last/n.txt" &&
	printf "n after\n" >n.after &&
	keeper --json --workspace last file write n.txt --input "$WS/n.after" >out &&
	op_of out >op.n &&
	printf "n edited\n" >"$TRASH/last/n.txt" &&
	test_expect_code 12 keeper --json --workspace last history undo "$(cat op.n)" >out &&
	json_get .error.details.refusal_id out >refusal.n &&
	keeper --json --workspace last history list --limit 1 >out &&
	test "$(json_get ".operations[0].status" out)" = undo_refused
'

test_expect_success 'undo-last skips the undo_refused row and undoes the operation before it' '
	cp n.after "$TRASH/last/n.txt" &&
	keeper --json --workspace last history undo-last >out &&
	keeper --json --workspace last history show "$(op_of out)" >show.json &&
	test "$(json_get .operation.undoes show.json)" = "$(cat op.n)" &&
	echo "n before" >expect &&
	test_cmp expect "$TRASH/last/n.txt"
'

test_expect_success 'setup: in "last", alice creates alice.txt, then bob creates bob.txt' '
	keeper --json --workspace last --actor alice file create alice.txt --content "alice" >out &&
	op_of out >op.alice &&
	keeper --json --workspace last --actor bob file create bob.txt --content "bob" >out &&
	op_of out >op.bob
'

test_expect_success 'undo-last with --actor alice undoes alice'"'"'s newest operation, not bob'"'"'s newer one' '
	keeper --json --workspace last --actor alice history undo-last >out &&
	test ! -e "$TRASH/last/alice.txt" &&
	test -f "$TRASH/last/bob.txt" &&
	keeper --json --workspace last history show "$(op_of out)" >show.json &&
	test "$(json_get .operation.undoes show.json)" = "$(cat op.alice)" &&
	test "$(json_get .operation.actor show.json)" = alice
'

test_expect_success 'undo-last with --actor of someone with nothing to undo is OPERATION_NOT_FOUND (exit 28)' '
	ops=$(op_count "$TRASH/last") &&
	test_expect_code 28 keeper --json --workspace last --actor carol history undo-last >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test "$(op_count "$TRASH/last")" = "$ops" &&
	test -f "$TRASH/last/bob.txt"
'

test_expect_success 'undo-last in a workspace whose only operations are elsewhere is OPERATION_NOT_FOUND (exit 28)' '
	mkdir "$TRASH/quiet" &&
	keeper workspace create quiet "$TRASH/quiet" >/dev/null &&
	ops_ws=$(op_count) &&
	ops_last=$(op_count "$TRASH/last") &&
	test_expect_code 28 keeper --json --workspace quiet history undo-last >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test_no_host_path out &&
	test "$(op_count)" = "$ops_ws" &&
	test "$(op_count "$TRASH/last")" = "$ops_last" &&
	test -f "$TRASH/last/bob.txt"
'

test_expect_success 'undo-last with --root of a directory inside this workspace never reaches the outer history' '
	mkdir nested &&
	ops_ws=$(op_count) &&
	test_expect_code 28 keeper --json --root "$WS/nested" history undo-last >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	test "$(op_count)" = "$ops_ws" &&
	echo "dry edited" >expect &&
	test_cmp expect k-dry/f.txt
'

test_expect_success 'undo-last in this workspace undoes this workspace'"'"'s newest and leaves "last" alone' '
	printf "ours before\n" >ours.txt &&
	keeper --json file write ours.txt --content "ours after" >out &&
	op_of out >op.ours &&
	ops_last=$(op_count "$TRASH/last") &&
	keeper --json history undo-last >out &&
	keeper --json history show "$(op_of out)" >show.json &&
	test "$(json_get .operation.undoes show.json)" = "$(cat op.ours)" &&
	echo "ours before" >expect &&
	test_cmp expect ours.txt &&
	test "$(op_count "$TRASH/last")" = "$ops_last" &&
	test -f "$TRASH/last/bob.txt"
'

# HISTORY_UNAVAILABLE

test_expect_success 'setup: a home with max_history_blob_bytes = 100 and a write above the cap' '
	H2=$TRASH/home2 &&
	keeper --home "$H2" init >/dev/null &&
	printf "[filekeeper]\nmax_history_blob_bytes = 100\n" >"$H2/config.toml" &&
	mkdir "$TRASH/capped" &&
	keeper --home "$H2" workspace create capped "$TRASH/capped" >/dev/null &&
	seq 1 50 | sed "s/^/big line /" >"$TRASH/capped/big.txt" &&
	seq 1 50 | sed "s/^/BIG LINE /" >big.new &&
	keeper --json --home "$H2" --workspace capped file write big.txt --input "$WS/big.new" >out &&
	op_of out >op.big &&
	json_get ".undo_available == false and .history_skipped == [\"big.txt\"]" out
'

test_expect_success 'undo of a history-skipped write is HISTORY_UNAVAILABLE (exit 29)' '
	test_expect_code 29 keeper --json --home "$TRASH/home2" --workspace capped \
		history undo "$(cat op.big)" >out &&
	test_error_code HISTORY_UNAVAILABLE out &&
	test_no_host_path out
'

test_expect_success 'a history-skipped creation and deletion are HISTORY_UNAVAILABLE too, and the message fits each' '
	mkdir "$TRASH/capped2" &&
	keeper --home "$TRASH/home2" workspace create capped2 "$TRASH/capped2" >/dev/null &&
	seq 1 50 | sed "s/^/new line /" >big2.new &&
	keeper --json --home "$TRASH/home2" --workspace capped2 file create big2.txt --input "$WS/big2.new" >created &&
	keeper --json --home "$TRASH/home2" --workspace capped2 file delete big2.txt >deleted &&
	for change in created deleted
	do
		test_expect_code 29 keeper --json --home "$TRASH/home2" --workspace capped2 \
			history undo "$(op_of $change)" >out &&
		test_error_code HISTORY_UNAVAILABLE out &&
		json_get ".error.details.paths == [\"big2.txt\"]" out &&
		json_get ".error.message | contains(\"created, replaced or deleted a file above the history cap\")" out || return 1
	done &&
	! test -e "$TRASH/capped2/big2.txt"
'

test_expect_success 'the refused history-skipped undo changed nothing' '
	cmp big.new "$TRASH/capped/big.txt" &&
	keeper --json --home "$TRASH/home2" --workspace capped history show "$(cat op.big)" >out &&
	json_get ".undone_by == null" out
'

# A move above the cap is undone by renaming the file back: no stored bytes are needed.

# capped3 ARGS...: keeper --json in the workspace "capped3" of the second home.
capped3 () {
	keeper --json --home "$TRASH/home2" --workspace capped3 "$@"
}

test_expect_success 'setup: in "capped3", a file above the cap moved' '
	mkdir "$TRASH/capped3" &&
	keeper --home "$TRASH/home2" workspace create capped3 "$TRASH/capped3" >/dev/null &&
	seq 1 50 | sed "s/^/moving line /" >big3.in &&
	cp big3.in "$TRASH/capped3/big3.txt" &&
	capped3 file move big3.txt moved3.txt >moved &&
	json_get ".undo_available == true and .history_skipped == [\"big3.txt\", \"moved3.txt\"]" moved &&
	capped3 history list --limit 1 >out &&
	json_get ".operations[0].undoable == true" out
'

test_expect_success 'undo of a move above the cap renames the file back, and undo-last finds it' '
	capped3 history undo-last --dry-run >dry &&
	json_get ".summary | contains(\"$(op_of moved)\")" dry &&
	json_get ".skipped_operations == []" dry &&
	json_get ".preview_diff | contains(\"rename moved3.txt -> big3.txt\")" dry &&
	capped3 history undo "$(op_of moved)" >undone &&
	cmp big3.in "$TRASH/capped3/big3.txt" &&
	test ! -e "$TRASH/capped3/moved3.txt" &&
	json_get "[.diffs[] | .path, .diff_kind] == [\"moved3.txt\", \"moved\", \"big3.txt\", \"moved\"]" undone &&
	json_get ".undo_available == true" undone
'

test_expect_success 'undoing that undo moves it again' '
	capped3 history undo "$(op_of undone)" >redone &&
	cmp big3.in "$TRASH/capped3/moved3.txt" &&
	test ! -e "$TRASH/capped3/big3.txt"
'

test_expect_success 'a move above the cap that replaced a file stays not undoable: the replaced bytes were not stored' '
	cp big3.in "$TRASH/capped3/other3.txt" &&
	capped3 file move moved3.txt other3.txt --overwrite >over &&
	json_get ".undo_available == false" over &&
	test_expect_code 29 capped3 history undo "$(op_of over)" >out &&
	test_error_code HISTORY_UNAVAILABLE out &&
	cmp big3.in "$TRASH/capped3/other3.txt"
'

test_expect_success 'a refused undo names only the paths whose bytes it lacks, not a move it would rename back' '
	seq 1 40 | sed "s/^/walking line /" >"$TRASH/capped3/walk3.txt" &&
	seq 1 40 | sed "s/^/kept line /" >"$TRASH/capped3/edit3.txt" &&
	cat >both.diff <<-\EOF &&
	diff --git a/walk3.txt b/walked3.txt
	similarity index 100%
	rename from walk3.txt
	rename to walked3.txt
	diff --git a/edit3.txt b/edit3.txt
	--- a/edit3.txt
	+++ b/edit3.txt
	@@ -1 +1 @@
	-kept line 1
	+changed line 1
	EOF
	capped3 file apply-patch both.diff >both &&
	json_get ".undo_available == false" both &&
	test_expect_code 29 capped3 history undo "$(op_of both)" >out &&
	test_error_code HISTORY_UNAVAILABLE out &&
	json_get ".error.details.paths == [\"edit3.txt\"]" out &&
	test -f "$TRASH/capped3/walked3.txt"
'

test_expect_success 'an undone move puts back the file itself: its inode and its other links' '
	mkdir -p inode &&
	printf "linked\n" >inode/a.txt &&
	ln inode/a.txt inode/a-link.txt &&
	stat -c %i inode/a.txt >expect &&
	keeper --json file move inode/a.txt inode/b.txt >out &&
	keeper --json history undo "$(op_of out)" >undone &&
	stat -c %i inode/a.txt >actual &&
	test_cmp expect actual &&
	test "$(stat -c %h inode/a.txt)" = 2
'

test_expect_success 'two equal files moved in one patch are put back from the store, never one renamed to the other'"'"'s place' '
	mkdir -p twins &&
	printf "same\n" >twins/a &&
	printf "same\n" >twins/c &&
	ln twins/c twins/hc &&
	cat >twins.diff <<-\EOF &&
	diff --git a/twins/a b/twins/a
	deleted file mode 100644
	--- a/twins/a
	+++ /dev/null
	@@ -1 +0,0 @@
	-same
	diff --git a/twins/c b/twins/b
	similarity index 100%
	rename from twins/c
	rename to twins/b
	diff --git a/twins/d b/twins/d
	new file mode 100644
	--- /dev/null
	+++ b/twins/d
	@@ -0,0 +1 @@
	+same
	EOF
	keeper --json file apply-patch twins.diff >out &&
	keeper --json history undo "$(op_of out)" >undone &&
	test "$(cat twins/a)" = same &&
	test "$(cat twins/c)" = same &&
	test ! -e twins/b && test ! -e twins/d &&
	test "$(stat -c %h twins/a)" = 1
'

# undo-last passes over operations whose history was skipped, and says so.

# capped ARGS...: keeper --json in the workspace "capped" of the second home.
capped () {
	keeper --json --home "$TRASH/home2" --workspace capped "$@"
}

test_expect_success 'undo-last with only a history-skipped operation is OPERATION_NOT_FOUND naming it' '
	ops=$(op_count "$TRASH/capped") &&
	test_expect_code 28 capped history undo-last >out &&
	test_error_code OPERATION_NOT_FOUND out &&
	json_get "[.error.details.skipped_operations[] | .operation_id, .reason] == [\"$(cat op.big)\", \"history_skipped\"]" out &&
	test "$(op_count "$TRASH/capped")" = "$ops"
'

test_expect_success 'setup: in "capped", small.txt created, then big.txt written again above the cap' '
	capped file create small.txt --content "small" >out &&
	op_of out >op.small &&
	seq 1 50 | sed "s/^/AGAIN /" >big.again &&
	capped file write big.txt --input "$WS/big.again" >out &&
	op_of out >op.big2 &&
	json_get ".undo_available == false" out
'

test_expect_success 'undo-last passes over the history-skipped write and undoes the create before it' '
	capped history undo-last >out &&
	json_get ".ok and .changed" out &&
	test "$(json_get .operation_id out)" != "$(cat op.small)" &&
	capped history show "$(cat op.small)" >show.json &&
	test "$(json_get .undone_by show.json)" = "$(json_get .operation_id out)" &&
	test ! -e "$TRASH/capped/small.txt" &&
	cmp big.again "$TRASH/capped/big.txt"
'

test_expect_success 'the undo-last result names the passed-over operation, its summary and why' '
	json_get "(.skipped_operations | length) == 1" out &&
	json_get ".skipped_operations[0] == {operation_id: \"$(cat op.big2)\", summary: \"Wrote big.txt.\", reason: \"history_skipped\"}" out
'

test_expect_success 'undo-last that passes over nothing reports an empty skipped_operations' '
	keeper --json file create skipless.txt --content x >/dev/null &&
	keeper --json history undo-last >out &&
	json_get ".skipped_operations == []" out
'

test_expect_success 'the human undo-last mentions the passed-over operation on stderr' '
	capped file create small2.txt --content "small" >/dev/null &&
	capped file write big.txt --content "$(seq 1 60 | sed "s/^/THIRD /")" >out &&
	op_of out >op.big3 &&
	keeper --home "$TRASH/home2" --workspace capped history undo-last >stdout 2>stderr &&
	grep "^Undid op_" stdout &&
	grep "skipped 1 newer operation" stderr &&
	grep -F "$(cat op.big3) (Wrote big.txt)" stderr
'

# An operation recorded without a summary (plumbing) is undone with a readable one.

test_expect_success 'setup: a plumbing write recorded without a summary' '
	printf "plumbed before\n" >plumbed.txt &&
	keeper hash-object -w plumbed.txt >old.id &&
	printf "plumbed after\n" >plumbed.new &&
	keeper hash-object -w --stdin <plumbed.new >new.id &&
	keeper journal-begin --kind write --target plumbed.txt \
		--item "{\"path\":\"plumbed.txt\",\"before_hash\":\"$(cat old.id)\",\"after_hash\":\"$(cat new.id)\"}" >plumb.op &&
	keeper publish plumbed.txt --blob "$(cat new.id)" --expected-hash "$(cat old.id)" >/dev/null &&
	keeper journal-commit "$(cat plumb.op)" >/dev/null &&
	keeper --json history show "$(cat plumb.op)" >show.json &&
	test "$(json_get .operation.summary show.json)" = ""
'

test_expect_success 'its undo is summarised with the kind and target, never empty brackets' '
	keeper history undo "$(cat plumb.op)" >out &&
	grep -x "Undid $(cat plumb.op) (write of plumbed.txt). \[op_[0-9a-f]*\]" out &&
	echo "plumbed before" >expect &&
	test_cmp expect plumbed.txt
'

# Large trees: the bound on what a listing shows (max_directory_entries, 1000) never decides
# whether a tree is unchanged. The workspace "wide" is used through --root.

# wide ARGS...: keeper --json with the workspace at $TRASH/wide.
wide () {
	keeper --json --root "$TRASH/wide" "$@"
}

test_expect_success 'setup: a directory of 1,001 files, moved' '
	mkdir -p "$TRASH/wide/d" &&
	(cd "$TRASH/wide/d" && seq 1001 | sed "s/^/f/" | xargs touch) &&
	wide dir move d d2 >out &&
	op_of out >op.wide-move &&
	test "$(ls "$TRASH/wide/d2" | wc -l)" = 1001
'

test_expect_success 'undo-last of the move of 1,001 files puts them back, with no refusal recorded' '
	wide history undo-last >undo.json &&
	json_get ".ok and .changed" undo.json &&
	test ! -e "$TRASH/wide/d2" &&
	test "$(ls "$TRASH/wide/d" | wc -l)" = 1001 &&
	test "$(journal "SELECT count(*) FROM operations WHERE status = '"'"'undo_refused'"'"'" "$TRASH/wide")" = 0
'

test_expect_success 'setup: the 1,001 files deleted recursively, and the delete undone' '
	wide dir delete d --recursive --confirm-recursive >out &&
	wide history undo "$(op_of out)" >undo.json &&
	op_of undo.json >op.wide-undo &&
	test "$(ls "$TRASH/wide/d" | wc -l)" = 1001
'

test_expect_success 'a file added among 1,001 after the undo blocks undoing the undo, even past the 1000th name' '
	: >"$TRASH/wide/d/zz-late.txt" &&
	test_expect_code 12 wide history undo "$(cat op.wide-undo)" >refusal.json &&
	test_error_code UNDO_CONFLICT refusal.json &&
	echo d/zz-late.txt >expect &&
	jq -r ".error.details.blocking_paths[]" refusal.json >actual &&
	test_cmp expect actual &&
	rm "$TRASH/wide/d/zz-late.txt"
'

test_expect_success 'undoing the undo of a 1,001-file dir delete deletes the tree again' '
	wide history undo "$(cat op.wide-undo)" >undo.json &&
	json_get ".ok and .changed" undo.json &&
	test ! -e "$TRASH/wide/d"
'

# 50,000 files take most of this script's time: the long loop only (t/README).
test_expect_success EXPENSIVE 'setup: a directory of 50,000 files, moved' '
	mkdir -p "$TRASH/wide/big" &&
	(cd "$TRASH/wide/big" && seq 50000 | sed "s/^/f/" | xargs touch) &&
	wide dir move big big2 >out &&
	op_of out >op.wide-big
'

test_expect_success EXPENSIVE 'the undo of the move of 50,000 files is planned without a conflict (dry run)' '
	ops=$(op_count "$TRASH/wide") &&
	wide history undo "$(cat op.wide-big)" --dry-run >undo.json &&
	json_get ".ok and .dry_run and .would_change and (.items | length) == 100002" undo.json &&
	test "$(op_count "$TRASH/wide")" = "$ops"
'

test_expect_success EXPENSIVE 'a file added among the 50,000 blocks that undo and only it' '
	: >"$TRASH/wide/big2/zz-late.txt" &&
	test_expect_code 12 wide history undo "$(cat op.wide-big)" --dry-run >refusal.json &&
	echo big2/zz-late.txt >expect &&
	jq -r ".error.details.blocking_paths[]" refusal.json >actual &&
	test_cmp expect actual
'

# A recorded path that now leads through a link, and directory modes going forward again.

test_expect_success 'setup: workspace "linked"' '
	mkdir "$TRASH/linked" &&
	keeper workspace create linked "$TRASH/linked" >/dev/null
'

test_expect_success 'undo is UNDO_CONFLICT when a directory on a recorded path became a link; the linked-to directory is kept' '
	L=$TRASH/linked &&
	mkdir -p "$L/p" "$L/q" &&
	keeper --json --workspace linked dir create p/nd >out &&
	op_of out >op.nd &&
	rm -r "$L/p" && ln -s q "$L/p" && mkdir "$L/q/nd" &&
	test_expect_code 12 keeper --json --workspace linked history undo "$(cat op.nd)" --dry-run >out &&
	test_error_code UNDO_CONFLICT out &&
	test "$(json_get ".error.details.blocking_paths[0]" out)" = p/nd &&
	test_expect_code 12 keeper --json --workspace linked history undo "$(cat op.nd)" >out &&
	test_error_code UNDO_CONFLICT out &&
	test -d "$L/q/nd"
'

test_expect_success 'undo does not overwrite a file the link leads to in place of the recorded one' '
	L=$TRASH/linked &&
	mkdir -p "$L/d1" "$L/d3" &&
	printf "one\n" >"$L/d1/e.txt" &&
	printf "two\n" >two &&
	keeper --json --workspace linked file write d1/e.txt --input "$WS/two" >out &&
	op_of out >op.e &&
	mv "$L/d1" "$L/d1.real" && ln -s d3 "$L/d1" &&
	printf "two\n" >"$L/d3/e.txt" &&
	test_expect_code 12 keeper --json --workspace linked history undo "$(cat op.e)" >out &&
	test_error_code UNDO_CONFLICT out &&
	test "$(json_get ".error.details.blocking_paths[0]" out)" = d1/e.txt &&
	cmp two "$L/d3/e.txt" &&
	cmp two "$L/d1.real/e.txt"
'

test_expect_success 'undoing the undo of dir create puts the directory back with the mode it had' '
	L=$TRASH/linked &&
	keeper --json --workspace linked dir create private >out &&
	chmod 700 "$L/private" &&
	keeper --json --workspace linked history undo-last >out &&
	test ! -e "$L/private" &&
	op_of out >op.u &&
	keeper --json --workspace linked history show "$(cat op.u)" >out &&
	test "$(json_get ".operation.items[0].before_mode" out)" = 448 &&
	keeper --json --workspace linked history undo "$(cat op.u)" >out &&
	test "$(mode_of "$L/private")" = 700
'

# Workspace-relative paths, and travel.

test_expect_success 'no host path is recorded anywhere in the journal' '
	sqlite3 .filekeeper/journal.sqlite3 .dump >dump &&
	test_must_fail grep -F "$TRASH" dump &&
	sqlite3 "$TRASH/last/.filekeeper/journal.sqlite3" .dump >dump &&
	test_must_fail grep -F "$TRASH" dump &&
	sqlite3 "$TRASH/capped/.filekeeper/journal.sqlite3" .dump >dump &&
	test_must_fail grep -F "$TRASH" dump
'

test_expect_success 'every recorded item path is workspace-relative' '
	journal "SELECT path FROM operation_items UNION SELECT target_path FROM operations
		WHERE target_path IS NOT NULL UNION SELECT source_path FROM operations WHERE source_path IS NOT NULL" >paths &&
	test -s paths &&
	test_must_fail grep -E "^/|(^|/)\.\.(/|$)" paths
'

test_expect_success 'setup: workspace "travel" with a file created and then written' '
	mkdir "$TRASH/travel-a" &&
	keeper workspace create travel "$TRASH/travel-a" >/dev/null &&
	printf "travel v1\n" >travel.v1 &&
	printf "travel v2\n" >travel.v2 &&
	keeper --json --workspace travel file create t.txt --input "$WS/travel.v1" >out &&
	op_of out >op.t1 &&
	keeper --json --workspace travel file write t.txt --input "$WS/travel.v2" >out &&
	op_of out >op.t2
'

test_expect_success 'setup: the workspace directory moved elsewhere and registered again' '
	mv "$TRASH/travel-a" "$TRASH/travel-b" &&
	keeper workspace create travel-moved "$TRASH/travel-b" >/dev/null &&
	test -f "$TRASH/travel-b/.filekeeper/journal.sqlite3"
'

test_expect_success 'the moved workspace keeps its history' '
	cat op.t2 op.t1 >expect &&
	keeper --json --workspace travel-moved history list >out &&
	json_get ".operations[].id" out >actual &&
	test_cmp expect actual
'

test_expect_success 'history undo of an operation recorded before the move works after it' '
	keeper --json --workspace travel-moved history undo "$(cat op.t2)" >out &&
	json_get ".ok" out &&
	cmp travel.v1 "$TRASH/travel-b/t.txt"
'

test_expect_success 'history undo of the create recorded before the move removes the file' '
	keeper --json --workspace travel-moved history undo "$(cat op.t1)" >out &&
	test ! -e "$TRASH/travel-b/t.txt"
'

test_expect_success 'the travelled journal names no host path, old or new' '
	sqlite3 "$TRASH/travel-b/.filekeeper/journal.sqlite3" .dump >dump &&
	test_must_fail grep -F "$TRASH" dump
'

# The end.

test_expect_success 'fsck is clean at the end' '
	keeper --json fsck >out &&
	json_get ".ok" out &&
	test "$(json_get ".pending_operations | length" out)" = 0 &&
	test "$(json_get ".damaged_objects | length" out)" = 0 &&
	test "$(json_get ".missing_objects | length" out)" = 0
'

test_expect_success 'fsck is clean in the other workspaces too' '
	keeper --json --workspace last fsck >out &&
	json_get ".ok" out &&
	keeper --json --workspace travel-moved fsck >out &&
	json_get ".ok" out &&
	test "$(json_get ".missing_objects | length" out)" = 0
'

# undo-last after an interrupted operation, in a workspace of its own.

test_expect_success 'setup: workspace "cut": a write, then a recursive delete killed after its first step' '
	mkdir -p "$TRASH/cut/tree" &&
	keeper workspace create cut "$TRASH/cut" >/dev/null &&
	printf "one\n" >"$TRASH/cut/tree/one.txt" &&
	printf "two\n" >"$TRASH/cut/tree/two.txt" &&
	keeper --json --workspace cut file create w.txt --content "w1" >out &&
	keeper --json --workspace cut file write w.txt --content "w2" >out &&
	op_of out >op.w2 &&
	test_expect_code 134 env FILEKEEPER_TEST_CRASH_AT=mutation-after-step-1 \
		keeper --json --workspace cut dir delete tree --recursive --confirm-recursive >out &&
	test "$(journal "SELECT kind || '"'"' '"'"' || status FROM operations ORDER BY seq DESC LIMIT 1" "$TRASH/cut")" = "dir_delete pending"
'

test_expect_success 'a dry run of undo-last, which recovers nothing, says the real run may choose the interrupted operation' '
	keeper --json --workspace cut history undo-last --dry-run >dry.json &&
	json_get ".warnings[]" dry.json | grep "left pending is recovered before the real undo chooses" &&
	test "$(journal "SELECT status FROM operations ORDER BY seq DESC LIMIT 1" "$TRASH/cut")" = pending
'

test_expect_success 'undo-last recovers the interrupted delete first, and undoes it, the newest, not the write before it' '
	keeper --json --workspace cut history undo-last >out &&
	json_get ".warnings[]" out >warnings &&
	grep "as partial" warnings &&
	keeper --json --workspace cut history show "$(op_of out)" >show.json &&
	test "$(json_get .operation.undoes show.json)" = \
		"$(journal "SELECT id FROM operations WHERE kind = '"'"'dir_delete'"'"'" "$TRASH/cut")" &&
	test "$(cat "$TRASH/cut/tree/one.txt")" = one &&
	test "$(cat "$TRASH/cut/tree/two.txt")" = two &&
	test "$(cat "$TRASH/cut/w.txt")" = w2
'

test_expect_success 'undo-last with only an interrupted operation in the journal recovers and undoes it' '
	mkdir -p "$TRASH/only/tree" &&
	printf "one\n" >"$TRASH/only/tree/one.txt" &&
	printf "two\n" >"$TRASH/only/tree/two.txt" &&
	test_expect_code 134 env FILEKEEPER_TEST_CRASH_AT=mutation-after-step-1 \
		keeper --json --root "$TRASH/only" dir delete tree --recursive --confirm-recursive >out &&
	pending=$(journal "SELECT id FROM operations" "$TRASH/only") &&
	test_expect_code 28 keeper --json --root "$TRASH/only" history undo-last --dry-run >dry.json &&
	test_error_code OPERATION_NOT_FOUND dry.json &&
	json_get ".error.details.pending" dry.json >pending.flag &&
	test "$(cat pending.flag)" = true &&
	json_get ".error.message" dry.json | grep "the real undo takes it" &&
	test_expect_code 2 keeper --json --root "$TRASH/only" history undo "$pending" --dry-run >dry.json &&
	json_get ".error.message" dry.json | grep "recovers $pending first" &&
	json_get ".error.details.recovery" dry.json | grep "without a dry run" &&
	keeper --json --root "$TRASH/only" history undo-last >out &&
	test "$(cat "$TRASH/only/tree/one.txt")" = one &&
	test "$(journal "SELECT count(*) FROM operations WHERE status = '"'"'pending'"'"'" "$TRASH/only")" = 0
'

test_expect_success 'setup: workspace "half": a recursive delete, and its undo killed after its second step' '
	mkdir -p "$TRASH/half/tree" &&
	keeper workspace create half "$TRASH/half" >/dev/null &&
	for n in 1 2 3 4
	do
		printf "file $n\n" >"$TRASH/half/tree/f$n.txt" || return 1
	done &&
	keeper --json --workspace half dir delete tree --recursive --confirm-recursive >out &&
	op_of out >op.half &&
	test_expect_code 134 env FILEKEEPER_TEST_CRASH_AT=mutation-after-step-2 \
		keeper --json --workspace half history undo "$(cat op.half)" >out &&
	test_expect_code 19 keeper --json --workspace half recover >out &&
	test_error_code PARTIAL_RECOVERY out &&
	ls "$TRASH/half/tree" >restored &&
	test_line_count = 1 restored
'

test_expect_success 'an operation undone only in part can be undone again, which puts back the rest' '
	keeper --json --workspace half history list --limit 2 >list.json &&
	test "$(json_get ".operations[1].undoable" list.json)" = true &&
	keeper --json --workspace half history undo "$(cat op.half)" >out &&
	for n in 1 2 3 4
	do
		test "$(cat "$TRASH/half/tree/f$n.txt")" = "file $n" || return 1
	done &&
	keeper --json --workspace half history list --limit 3 >list.json &&
	test "$(json_get ".operations[2].undone_by" list.json)" = "$(op_of out)" &&
	test "$(json_get ".operations[2].undoable" list.json)" = false &&
	test_expect_code 2 keeper --json --workspace half history undo "$(cat op.half)" >again &&
	test "$(json_get .error.details.undone_by again)" = "$(op_of out)"
'

test_expect_success 'the partial undo cannot take back the directory the later undo filled' '
	partial=$(journal "SELECT id FROM operations WHERE kind = '"'"'undo'"'"' AND status = '"'"'partial'"'"'" "$TRASH/half") &&
	test_expect_code 12 keeper --json --workspace half history undo "$partial" >refused &&
	test_error_code UNDO_CONFLICT refused &&
	for n in 1 2 3 4
	do
		test "$(cat "$TRASH/half/tree/f$n.txt")" = "file $n" || return 1
	done
'

# xy_undone_in_part DIR: DIR holds x and y, patched to X and Y (op.DIR), and the patch'"'"'s undo
# was killed after putting x back, then recovered (partial).
xy_undone_in_part () {
	mkdir -p "$TRASH/$1" &&
	printf "a\n" >"$TRASH/$1/x" &&
	printf "b\n" >"$TRASH/$1/y" &&
	keeper --json --root "$TRASH/$1" file apply-patch xy.patch >out &&
	op_of out >"op.$1" &&
	test_expect_code 134 env FILEKEEPER_TEST_CRASH_AT=mutation-after-step-1 \
		keeper --json --root "$TRASH/$1" history undo "$(cat "op.$1")" >out &&
	eval "${2:-true}" &&
	test_expect_code 19 keeper --json --root "$TRASH/$1" recover >out
}

test_expect_success 'setup: workspace "again": a patch of x and y, its undo killed after putting x back, then x edited to the patch'"'"'s content' '
	mkdir -p "$TRASH/again" &&
	printf "a\n" >"$TRASH/again/x" &&
	printf "b\n" >"$TRASH/again/y" &&
	printf -- "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+A\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-b\n+B\n" >xy.patch &&
	keeper --json --root "$TRASH/again" file apply-patch xy.patch >out &&
	op_of out >op.xy &&
	test_expect_code 134 env FILEKEEPER_TEST_CRASH_AT=mutation-after-step-1 \
		keeper --json --root "$TRASH/again" history undo "$(cat op.xy)" >out &&
	test_expect_code 19 keeper --json --root "$TRASH/again" recover >out &&
	test "$(cat "$TRASH/again/x")" = a &&
	test "$(cat "$TRASH/again/y")" = B &&
	keeper --json --root "$TRASH/again" file write x --content "A
" >out &&
	op_of out >op.later
'

test_expect_success 'finishing the undo puts back only what the partial undo did not: a later change to a path it put back stays' '
	keeper --json --root "$TRASH/again" history undo "$(cat op.xy)" --dry-run >dry.json &&
	test "$(json_get "[.items[].path] | join(\",\")" dry.json)" = y &&
	keeper --json --root "$TRASH/again" history undo "$(cat op.xy)" >out &&
	test "$(json_get "[.items[].path] | join(\",\")" out)" = y &&
	test "$(cat "$TRASH/again/x")" = A &&
	test "$(cat "$TRASH/again/y")" = b &&
	keeper --json --root "$TRASH/again" history list >list.json &&
	test "$(json_get ".operations[] | select(.id == \"$(cat op.later)\") | .undoable" list.json)" = true
'

test_expect_success 'a partial undo of an older release, finished by a later undo, is refused and listed as not undoable' '
	partial=$(journal "SELECT id FROM operations WHERE kind = '"'"'undo'"'"' AND status = '"'"'partial'"'"'" "$TRASH/again") &&
	journal "UPDATE operations SET metadata = json_remove(metadata, '"'"'$.done_paths'"'"') WHERE id = '"'"'$partial'"'"'" "$TRASH/again" &&
	keeper --json --root "$TRASH/again" history list >list.json &&
	test "$(json_get ".operations[] | select(.id == \"$partial\") | .undoable" list.json)" = false &&
	test_expect_code 2 keeper --json --root "$TRASH/again" history undo "$partial" >refused &&
	test_error_code INVALID_ARGUMENT refused
'

test_expect_success 'after the finishing undo is undone, undoing the partial undo takes its paths forward too' '
	xy_undone_in_part forward &&
	keeper --json --root "$TRASH/forward" history undo "$(cat op.forward)" >out &&
	test "$(cat "$TRASH/forward/y")" = b &&
	keeper --json --root "$TRASH/forward" history undo "$(op_of out)" >out &&
	test "$(cat "$TRASH/forward/y")" = B &&
	partial=$(journal "SELECT id FROM operations WHERE kind = '"'"'undo'"'"' AND status = '"'"'partial'"'"'" "$TRASH/forward") &&
	keeper --json --root "$TRASH/forward" history list >list.json &&
	test "$(json_get ".operations[] | select(.id == \"$partial\") | .undoable" list.json)" = true &&
	keeper --json --root "$TRASH/forward" history undo "$partial" >out &&
	test "$(json_get "[.items[].path] | join(\",\")" out)" = x &&
	test "$(cat "$TRASH/forward/x")" = A &&
	test "$(cat "$TRASH/forward/y")" = B
'


test_expect_success 'a partial undo that was undone in turn leaves its paths to the finishing undo' '
	xy_undone_in_part undone-again &&
	partial=$(journal "SELECT id FROM operations WHERE kind = '"'"'undo'"'"' AND status = '"'"'partial'"'"'" "$TRASH/undone-again") &&
	keeper --json --root "$TRASH/undone-again" history undo "$partial" >out &&
	test "$(cat "$TRASH/undone-again/x")" = A &&
	keeper --json --root "$TRASH/undone-again" history undo "$(cat op.undone-again)" >out &&
	test "$(cat "$TRASH/undone-again/x")" = a &&
	test "$(cat "$TRASH/undone-again/y")" = b
'

test_expect_success 'a path the partial undo put back, set since to what it found by a later write, blocks undoing the partial undo' '
	xy_undone_in_part rewritten &&
	partial=$(journal "SELECT id FROM operations WHERE kind = '"'"'undo'"'"' AND status = '"'"'partial'"'"'" "$TRASH/rewritten") &&
	keeper --json --root "$TRASH/rewritten" file write x --content "A
" >out &&
	later=$(op_of out) &&
	test_expect_code 12 keeper --json --root "$TRASH/rewritten" history undo "$partial" --dry-run >out &&
	test "$(json_get "[.error.details.blocking_paths[]] | join(\",\")" out)" = x &&
	test_expect_code 12 keeper --json --root "$TRASH/rewritten" history undo "$partial" >out &&
	test_error_code UNDO_CONFLICT out &&
	keeper --json --root "$TRASH/rewritten" history undo "$(cat op.rewritten)" >out &&
	test "$(json_get "[.items[].path] | join(\",\")" out)" = y &&
	test "$(cat "$TRASH/rewritten/x")" = A &&
	keeper --json --root "$TRASH/rewritten" history undo "$later" >out &&
	test "$(cat "$TRASH/rewritten/x")" = a
'

test_expect_success 'a path another process changed before the partial undo was recorded blocks the finishing undo' '
	xy_undone_in_part meddled "echo zzz >\"\$TRASH/meddled/y\"" &&
	test "$(cat "$TRASH/meddled/y")" = zzz &&
	test_expect_code 12 keeper --json --root "$TRASH/meddled" history undo "$(cat op.meddled)" --dry-run >out &&
	test "$(json_get "[.error.details.blocking_paths[]] | join(\",\")" out)" = y &&
	test_expect_code 12 keeper --json --root "$TRASH/meddled" history undo "$(cat op.meddled)" >out &&
	test "$(cat "$TRASH/meddled/y")" = zzz
'

test_expect_success 'a directory on the path replaced by a link (to a directory without it, or to nothing) blocks the undo, dry run alike' '
	mkdir -p "$TRASH/linked/a/b" "$TRASH/linked/d2" &&
	echo one >"$TRASH/linked/a/b/r.txt" &&
	keeper --json --root "$TRASH/linked" file delete a/b/r.txt >out &&
	op=$(op_of out) &&
	rm -r "$TRASH/linked/a" &&
	for target in d2 nowhere
	do
		ln -sfn $target "$TRASH/linked/a" &&
		test_expect_code 12 keeper --json --root "$TRASH/linked" history undo "$op" --dry-run >out &&
		test "$(json_get "[.error.details.blocking_paths[]] | join(\",\")" out)" = a &&
		test_expect_code 12 keeper --json --root "$TRASH/linked" history undo "$op" >out &&
		test_error_code UNDO_CONFLICT out || return 1
	done &&
	test ! -e "$TRASH/linked/d2/b"
'

test_done
