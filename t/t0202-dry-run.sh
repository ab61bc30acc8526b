#!/bin/sh
test_description='--dry-run of every mutating command: a preview, never a write

For file create, write, copy, move and delete and dir create, move and delete, --dry-run --json
reports the specification'"'"'s preview shape: dry_run true, changed false, operation_id and
after_hash null, each item'"'"'s after_hash and size_bytes null, predicted_after_hash (the
sha256 of the new content where there is one), would_change, and preview_diff (a unified diff
for content changes). The tree (names, types, modes, inodes, mtimes, bytes), the object store
and the journal are identical before and after, and a dry run in a fresh workspace creates no
.filekeeper/. A dry run still checks the guards a real run would.'
. ./test-lib.sh

DRY=$TRASH/dry

# dry_state FILE: everything a dry run must leave alone in the workspace "dry": every path with
# its type, mode, inode, size and mtime; every file's hash; the state directory's entries
# (SQLite's -wal and -shm aside); the journal file's bytes after a checkpoint; its rows.
dry_state () {
	(
		cd "$DRY" &&
		find . -path ./.filekeeper -prune -o -printf "%y %m %i %s %T@ %p\n" | LC_ALL=C sort &&
		find . -path ./.filekeeper -prune -o -type f -print | LC_ALL=C sort | xargs -r -d "\n" sha256sum &&
		find .filekeeper | grep -v "journal\.sqlite3-" | LC_ALL=C sort &&
		sqlite3 .filekeeper/journal.sqlite3 "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
		sha256sum .filekeeper/journal.sqlite3 &&
		sqlite3 .filekeeper/journal.sqlite3 "SELECT count(*), max(seq) FROM operations;
			SELECT count(*) FROM operation_items"
	) </dev/null >"$1"
}

# dry_run NAME ARGS...: records dry_state in NAME.before, runs `keeper --json --workspace dry
# ARGS...` into NAME.json, and records dry_state again in NAME.after.
dry_run () {
	name=$1
	shift
	dry_state "$name.before" &&
	keeper --json --workspace dry "$@" >"$name.json" &&
	dry_state "$name.after"
}

# test_dry_run_shape FILE: FILE is a dry run's success document: the documented fields in the
# documented order, a summary that says what would happen (never what did), dry_run true, changed false, operation_id and after_hash null, every
# item's after_hash and size_bytes null, a diff for each item in order, would_change a boolean
# and preview_diff a string.
test_dry_run_shape () {
	jq -e '
		(keys_unsorted[0:14] == ["ok", "workspace", "path", "changed", "before_hash",
			"after_hash", "summary", "operation_id", "undo_available", "dry_run", "warnings",
			"items", "diffs", "diff_truncated"]) and
		((keys_unsorted[14:] - ["source_path", "history_skipped", "predicted_after_hash",
			"would_change", "preview_diff"]) == []) and
		([.diffs[] | [.path, .change, .kind]] == [.items[] | [.path, .change, .kind]]) and
		(.diff_truncated | type == "boolean") and
		.ok == true and .workspace == "dry" and
		.dry_run == true and .changed == false and
		.operation_id == null and .after_hash == null and
		(.warnings | type == "array") and
		(.items | type == "array" and length > 0) and
		all(.items[]; keys_unsorted == ["path", "change", "kind", "before_hash", "after_hash",
			"size_bytes"]) and
		all(.items[]; .after_hash == null and .size_bytes == null) and
		(.would_change | type == "boolean") and
		(.preview_diff | type == "string") and
		(.summary | test("^Would ") or test(" already "))
	' "$1" >/dev/null || { echo >&2 "not a dry-run result in the spec's shape (a summary says what would happen):"; cat >&2 "$1"; return 1; }
}

# test_unified_diff FILE PATH OLD: FILE's preview_diff is a unified diff of PATH, from a/PATH
# (or /dev/null when OLD is "new") to b/PATH, with at least one hunk.
test_unified_diff () {
	json_get .preview_diff "$1" >preview &&
	if test "$3" = new
	then
		grep -x -e "--- /dev/null" preview
	else
		grep -x -e "--- a/$2" preview
	fi &&
	grep -x -e "+++ b/$2" preview &&
	grep "^@@ " preview || { echo >&2 "not a unified diff of $2:"; cat >&2 preview; return 1; }
}

# test_predicted_null FILE: FILE carries predicted_after_hash, and it is null (the command leaves
# no content at its target to predict).
test_predicted_null () {
	jq -e 'has("predicted_after_hash") and .predicted_after_hash == null' "$1" >/dev/null || {
		echo >&2 "no predicted_after_hash: null in:"
		cat >&2 "$1"
		return 1
	}
}

test_expect_success 'setup: a workspace "dry" with files, trees and a journal holding operations' '
	mkdir -p "$DRY/tree/sub" "$DRY/emptydir" "$DRY/deltree/inner" "$DRY/existing-dir" &&
	printf "old line\nkept line\n" >"$DRY/existing.txt" &&
	printf "copy me\r\nplease" >"$DRY/src.txt" &&
	printf "move me\n" >"$DRY/move-me.txt" &&
	printf "delete me\000\n" >"$DRY/delete-me.txt" &&
	printf "in tree\n" >"$DRY/tree/a.txt" &&
	printf "\000\001bin" >"$DRY/tree/sub/b.bin" &&
	printf "deleted tree file\n" >"$DRY/deltree/one.txt" &&
	printf "deeper\r\n" >"$DRY/deltree/inner/two.txt" &&
	chmod 640 "$DRY/existing.txt" &&
	keeper workspace create dry "$DRY" >/dev/null &&
	keeper --json --workspace dry file write seed.txt --content "seed
" >out &&
	keeper --json --workspace dry file write seed.txt --content "seed, again
" >out &&
	test -f "$DRY/.filekeeper/journal.sqlite3" &&
	printf "new line\nkept line\n" >write.new &&
	printf "brand new\n" >create.new &&
	printf "piped\r\nno newline" >stdin.new &&
	cp "$DRY/existing.txt" identical.new
'

test_expect_success 'the state snapshot notices a real change (so the comparisons below can fail)' '
	dry_state probe.before &&
	keeper --workspace dry file write probe.txt --content probe >/dev/null &&
	dry_state probe.after &&
	! cmp -s probe.before probe.after &&
	keeper --workspace dry file delete probe.txt >/dev/null
'

# file create

test_expect_success 'file create --dry-run leaves the tree and the journal byte-identical' '
	dry_run create file create new.txt --content "brand new
" --dry-run &&
	test_cmp create.before create.after &&
	test ! -e "$DRY/new.txt"
'

test_expect_success 'file create --dry-run reports the preview shape' '
	test_dry_run_shape create.json &&
	test "$(json_get .path create.json)" = new.txt &&
	test "$(json_get .before_hash create.json)" = null
'

test_expect_success 'file create --dry-run predicts the sha256 of the new content and would change' '
	test "$(json_get .predicted_after_hash create.json)" = "$(sha create.new)" &&
	test "$(json_get .would_change create.json)" = true
'

test_expect_success 'file create --dry-run previews a unified diff from /dev/null' '
	test_unified_diff create.json new.txt new &&
	grep -x "+brand new" preview
'

# file write

test_expect_success 'file write --dry-run leaves the tree and the journal byte-identical' '
	dry_run write file write existing.txt --content "new line
kept line
" --dry-run &&
	test_cmp write.before write.after
'

test_expect_success 'file write --dry-run reports the preview shape against the current hash' '
	test_dry_run_shape write.json &&
	test "$(json_get .before_hash write.json)" = "$(sha "$DRY/existing.txt")" &&
	test "$(json_get ".items[0].before_hash" write.json)" = "$(sha "$DRY/existing.txt")"
'

test_expect_success 'file write --dry-run predicts the sha256 of the new content and would change' '
	test "$(json_get .predicted_after_hash write.json)" = "$(sha write.new)" &&
	test "$(json_get .would_change write.json)" = true
'

test_expect_success 'file write --dry-run previews a unified diff of the change' '
	test_unified_diff write.json existing.txt old &&
	grep -x -e "-old line" preview &&
	grep -x "+new line" preview
'

test_expect_success 'file write --dry-run of identical content: would_change false, prediction = current hash' '
	dry_run same file write existing.txt --input identical.new --dry-run &&
	test_cmp same.before same.after &&
	test_dry_run_shape same.json &&
	test "$(json_get .would_change same.json)" = false &&
	test "$(json_get .predicted_after_hash same.json)" = "$(sha identical.new)" &&
	test "$(json_get .before_hash same.json)" = "$(sha identical.new)"
'

test_expect_success 'file write --dry-run reads stdin and predicts its hash, changing nothing' '
	printf "piped\r\nno newline" | dry_run stdin file write existing.txt --dry-run &&
	test_cmp stdin.before stdin.after &&
	test_dry_run_shape stdin.json &&
	test "$(json_get .predicted_after_hash stdin.json)" = "$(sha stdin.new)"
'

test_expect_success 'file write --dry-run with a stale --expected-hash is CONTENT_CONFLICT, as a real run' '
	dry_state stale.before &&
	test_expect_code 15 keeper --json --workspace dry file write existing.txt --dry-run \
		--expected-hash "$(sha write.new)" --content x >out &&
	test_error_code CONTENT_CONFLICT out &&
	dry_state stale.after &&
	test_cmp stale.before stale.after
'

test_expect_success 'file create --dry-run of an existing file is ALREADY_EXISTS, as a real run' '
	dry_state exists.before &&
	test_expect_code 14 keeper --json --workspace dry file create existing.txt --dry-run --content x >out &&
	test_error_code ALREADY_EXISTS out &&
	dry_state exists.after &&
	test_cmp exists.before exists.after
'

# file copy

test_expect_success 'file copy --dry-run leaves the tree and the journal byte-identical' '
	dry_run copy file copy src.txt copy.txt --dry-run &&
	test_cmp copy.before copy.after &&
	test ! -e "$DRY/copy.txt"
'

test_expect_success 'file copy --dry-run reports the preview shape with source_path' '
	test_dry_run_shape copy.json &&
	test "$(json_get .path copy.json)" = copy.txt &&
	test "$(json_get .source_path copy.json)" = src.txt
'

test_expect_success 'file copy --dry-run predicts the sha256 of the source bytes and would change' '
	test "$(json_get .predicted_after_hash copy.json)" = "$(sha "$DRY/src.txt")" &&
	test "$(json_get .would_change copy.json)" = true
'

test_expect_success 'file copy --dry-run previews a unified diff of the new file' '
	test_unified_diff copy.json copy.txt new
'

# file move

test_expect_success 'file move --dry-run leaves the tree and the journal byte-identical' '
	dry_run move file move move-me.txt moved.txt --dry-run &&
	test_cmp move.before move.after &&
	test -f "$DRY/move-me.txt" &&
	test ! -e "$DRY/moved.txt"
'

test_expect_success 'file move --dry-run reports the preview shape with source_path' '
	test_dry_run_shape move.json &&
	test "$(json_get .path move.json)" = moved.txt &&
	test "$(json_get .source_path move.json)" = move-me.txt
'

test_expect_success 'file move --dry-run predicts the moved bytes at the destination and would change' '
	test "$(json_get .predicted_after_hash move.json)" = "$(sha "$DRY/move-me.txt")" &&
	test "$(json_get .would_change move.json)" = true &&
	json_get .preview_diff move.json | grep .
'

# file delete

test_expect_success 'file delete --dry-run leaves the tree and the journal byte-identical' '
	dry_run delete file delete delete-me.txt --dry-run &&
	test_cmp delete.before delete.after &&
	test -f "$DRY/delete-me.txt"
'

test_expect_success 'file delete --dry-run reports the preview shape against the current hash' '
	test_dry_run_shape delete.json &&
	test "$(json_get .before_hash delete.json)" = "$(sha "$DRY/delete-me.txt")" &&
	test "$(json_get .would_change delete.json)" = true &&
	json_get .preview_diff delete.json | grep .
'

test_expect_success 'file delete --dry-run reports predicted_after_hash, null: nothing will remain' '
	test_predicted_null delete.json
'

# dir create

test_expect_success 'dir create --dry-run leaves the tree and the journal byte-identical' '
	dry_run mkdir dir create --parents newdir/sub --dry-run &&
	test_cmp mkdir.before mkdir.after &&
	test ! -e "$DRY/newdir"
'

test_expect_success 'dir create --dry-run reports the preview shape, one item per level, would change' '
	test_dry_run_shape mkdir.json &&
	test "$(json_get .would_change mkdir.json)" = true &&
	printf "newdir\nnewdir/sub\n" >expect &&
	json_get ".items[].path" mkdir.json >actual &&
	test_cmp expect actual &&
	json_get .preview_diff mkdir.json | grep .
'

test_expect_success 'dir create --dry-run reports predicted_after_hash, null: a directory has no content' '
	test_predicted_null mkdir.json
'

test_expect_success 'dir create --parents --dry-run of an existing directory would change nothing' '
	dry_run mkdir-same dir create --parents existing-dir --dry-run &&
	test_cmp mkdir-same.before mkdir-same.after &&
	test_dry_run_shape mkdir-same.json &&
	test "$(json_get .would_change mkdir-same.json)" = false
'

# dir move

test_expect_success 'dir move --dry-run leaves the tree and the journal byte-identical' '
	dry_run mvdir dir move tree tree-moved --dry-run &&
	test_cmp mvdir.before mvdir.after &&
	test -d "$DRY/tree" &&
	test ! -e "$DRY/tree-moved"
'

test_expect_success 'dir move --dry-run reports the preview shape with both sides and would change' '
	test_dry_run_shape mvdir.json &&
	test "$(json_get .would_change mvdir.json)" = true &&
	test "$(json_get .source_path mvdir.json)" = tree &&
	json_get "[.items[].path] | index(\"tree/sub/b.bin\") != null" mvdir.json &&
	json_get "[.items[].path] | index(\"tree-moved/sub/b.bin\") != null" mvdir.json &&
	json_get .preview_diff mvdir.json | grep .
'

test_expect_success 'dir move --dry-run reports predicted_after_hash, null: a directory has no content' '
	test_predicted_null mvdir.json
'

# dir delete

test_expect_success 'dir delete --dry-run of an empty directory leaves the tree and the journal byte-identical' '
	dry_run rmdir dir delete emptydir --dry-run &&
	test_cmp rmdir.before rmdir.after &&
	test -d "$DRY/emptydir"
'

test_expect_success 'dir delete --dry-run of an empty directory reports the preview shape, would change' '
	test_dry_run_shape rmdir.json &&
	test "$(json_get .would_change rmdir.json)" = true
'

test_expect_success 'dir delete --recursive --dry-run leaves the tree and the journal byte-identical' '
	dry_run rmtree dir delete deltree --recursive --confirm-recursive --dry-run &&
	test_cmp rmtree.before rmtree.after &&
	test -f "$DRY/deltree/inner/two.txt"
'

test_expect_success 'dir delete --recursive --dry-run reports every entry, with file hashes before' '
	test_dry_run_shape rmtree.json &&
	test "$(json_get .would_change rmtree.json)" = true &&
	test "$(json_get ".items[] | select(.path == \"deltree/inner/two.txt\") | .before_hash" rmtree.json)" = \
		"$(sha "$DRY/deltree/inner/two.txt")" &&
	test "$(json_get ".items | length" rmtree.json)" = 4 &&
	json_get .preview_diff rmtree.json | grep .
'

test_expect_success 'dir delete --dry-run reports predicted_after_hash, null: nothing will remain' '
	test_predicted_null rmtree.json &&
	test_predicted_null rmdir.json
'

# a fresh workspace

test_expect_success 'a dry run of every command in a fresh workspace creates no .filekeeper/' '
	F=$TRASH/fresh &&
	mkdir -p "$F/tree/sub" "$F/emptydir" &&
	printf "old\n" >"$F/existing.txt" &&
	printf "in tree\n" >"$F/tree/sub/a.txt" &&
	keeper workspace create fresh "$F" >/dev/null &&
	keeper --json --workspace fresh file create new.txt --content x --dry-run >out &&
	test ! -e "$F/.filekeeper" &&
	keeper --json --workspace fresh file write existing.txt --content x --dry-run >out &&
	test ! -e "$F/.filekeeper" &&
	keeper --json --workspace fresh file copy existing.txt copy.txt --dry-run >out &&
	test ! -e "$F/.filekeeper" &&
	keeper --json --workspace fresh file move existing.txt moved.txt --dry-run >out &&
	test ! -e "$F/.filekeeper" &&
	keeper --json --workspace fresh file delete existing.txt --dry-run >out &&
	test ! -e "$F/.filekeeper" &&
	keeper --json --workspace fresh dir create --parents a/b --dry-run >out &&
	test ! -e "$F/.filekeeper" &&
	keeper --json --workspace fresh dir move tree tree2 --dry-run >out &&
	test ! -e "$F/.filekeeper" &&
	keeper --json --workspace fresh dir delete tree --recursive --confirm-recursive --dry-run >out &&
	test ! -e "$F/.filekeeper" &&
	keeper --json --workspace fresh dir delete emptydir --dry-run >out &&
	test ! -e "$F/.filekeeper" &&
	printf "old\n" >expect &&
	test_cmp expect "$F/existing.txt" &&
	test ! -e "$F/new.txt" &&
	test ! -e "$F/a" &&
	test -d "$F/tree/sub"
'

# the prediction is honest

test_expect_success 'the real write afterwards produces exactly the predicted hash' '
	keeper --json --workspace dry file write existing.txt --content "new line
kept line
" >real.json &&
	test "$(json_get .after_hash real.json)" = "$(json_get .predicted_after_hash write.json)" &&
	test "$(json_get .before_hash real.json)" = "$(json_get .before_hash write.json)" &&
	test_cmp write.new "$DRY/existing.txt"
'

test_expect_success 'the real copy afterwards produces exactly the predicted hash' '
	keeper --json --workspace dry file copy src.txt copy.txt >real.json &&
	test "$(json_get .after_hash real.json)" = "$(json_get .predicted_after_hash copy.json)"
'

test_expect_success 'a dry run answers undo_available as the real run does' '
	G=$TRASH/capped &&
	mkdir -p "$G/home" "$G/ws" &&
	printf "[filekeeper]\nmax_history_blob_bytes = 10\n" >"$G/home/config.toml" &&
	printf "small\n" >"$G/ws/small.txt" &&
	printf "a line longer than ten bytes\n" >"$G/ws/big.txt" &&
	keeper --home "$G/home" --root "$G/ws" --json file write small.txt --content "x" --dry-run >dry.json &&
	json_get ".undo_available == true" dry.json &&
	keeper --home "$G/home" --root "$G/ws" --json file delete big.txt --dry-run >dry.json &&
	json_get ".undo_available == false" dry.json &&
	keeper --home "$G/home" --root "$G/ws" --json file delete big.txt >real.json &&
	json_get ".undo_available == false" real.json
'

test_expect_success GIT 'the dry run of a first change in a git repository says the real run also edits .gitignore' '
	R=$TRASH/repo &&
	mkdir -p "$R" &&
	git -C "$R" init -q &&
	keeper --root "$R" --json file write a.txt --content x --dry-run >dry.json &&
	json_get ".warnings | any(test(\"adds .filekeeper/ to .gitignore\"))" dry.json &&
	test ! -e "$R/.gitignore" &&
	keeper --root "$R" --json file write a.txt --content x >real.json &&
	json_get ".warnings | any(test(\"added .filekeeper/ to .gitignore\"))" real.json &&
	keeper --root "$R" --json file write b.txt --content x --dry-run >dry.json &&
	json_get ".warnings == []" dry.json
'

test_done
