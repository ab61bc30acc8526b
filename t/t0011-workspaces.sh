#!/bin/sh
test_description='the home, the workspace registry, workspace selection, and where state lives

keeper init creates the home, registry.sqlite3 and a config.toml documenting every limit;
workspaces are created, listed, shown, made default and removed; selection is --workspace,
then --root, then the default, and NO_WORKSPACE_SELECTED otherwise. A workspace keeps its
state in .filekeeper/, created lazily, ignored by git inside a repository, and kept under the
home instead when the root cannot hold it or when state_location = "global".'
. ./test-lib.sh

# state_object_path ID: where the loose object for ID lives below a state directory.
state_object_path () {
	hex=${1#sha256:}
	printf 'objects/%s/%s\n' "$(printf %s "$hex" | cut -c1-2)" "$(printf %s "$hex" | cut -c3-)"
}

# store TEXT [OPTION...]: stores TEXT as a blob with hash-object -w, its id in blob.id and the
# JSON result in store.json.
store () {
	text=$1 &&
	shift &&
	printf "%s" "$text" | keeper --json "$@" hash-object -w --stdin >store.json &&
	json_get .object_id store.json >blob.id
}

# home_objects HOME ID: the copies of ID stored under HOME's global state stores.
home_objects () {
	find "$1/state" -path "*/$(state_object_path "$2")" -type f 2>/dev/null
}

# root_is_writable DIR: whether this process can in fact create an entry in DIR (root can
# write into a chmod 555 directory, so the mode bits alone do not say).
root_is_writable () {
	if mkdir "$1/.probe" 2>/dev/null
	then
		rmdir "$1/.probe"
		return 0
	fi
	return 1
}

# The home.

test_expect_success 'init creates the home, registry.sqlite3 and config.toml' '
	H=$TRASH/fresh-home &&
	test ! -e "$H" &&
	keeper --json --home "$H" init >out &&
	json_get .ok out &&
	test "$(json_get .config_written out)" = true &&
	test -d "$H" &&
	test -f "$H/config.toml" &&
	test -f "$H/registry.sqlite3" &&
	echo 0 >expect &&
	sqlite3 "$H/registry.sqlite3" "SELECT count(*) FROM workspaces" >actual &&
	test_cmp expect actual
'

test_expect_success 'config.toml sets every limit under [filekeeper] with the documented default' '
	cat >expect <<-\EOF &&
	max_read_bytes = 5242880
	max_write_bytes = 20971520
	max_history_blob_bytes = 4194304
	max_search_results = 200
	max_directory_entries = 1000
	max_history_entries = 200
	max_read_many_paths = 32
	max_patch_bytes = 1048576
	max_recursion_depth = 64
	max_diff_bytes = 32768
	max_diff_file_bytes = 262144
	EOF
	awk "/^\[/ { section = \$0; next } section == \"[filekeeper]\" && /^[a-z_]+ *=/" \
		"$TRASH/fresh-home/config.toml" >actual &&
	test_cmp expect actual
'

test_expect_success 'config.toml ends with a newline' '
	test "$(tail -c 1 "$TRASH/fresh-home/config.toml" | od -An -c | tr -d " ")" = "\n"
'

test_expect_success 'a limit of 0 in config.toml is refused when the home is loaded, naming the key' '
	mkdir -p "$TRASH/zero-home" &&
	printf "[filekeeper]\nmax_read_bytes = 0\n" >"$TRASH/zero-home/config.toml" &&
	printf "x\n" >"$TRASH/zero.txt" &&
	test_expect_code 2 keeper --json --home "$TRASH/zero-home" --root "$TRASH" file read zero.txt >out &&
	test_error_code INVALID_ARGUMENT out &&
	test "$(json_get .error.details.key out)" = max_read_bytes
'

test_expect_success 'config.toml explains each limit with a comment line above it' '
	for key in max_read_bytes max_write_bytes max_history_blob_bytes max_search_results \
		max_directory_entries max_history_entries max_read_many_paths max_patch_bytes \
		max_recursion_depth max_diff_bytes max_diff_file_bytes
	do
		grep -B1 "^$key = " "$TRASH/fresh-home/config.toml" | head -n 1 | grep "^# ." || exit 1
	done
'

test_expect_success 'config.toml has state_location only as a commented example' '
	grep "^# *state_location *= *\"project\"" "$TRASH/fresh-home/config.toml" &&
	! grep "^[[:space:]]*state_location" "$TRASH/fresh-home/config.toml"
'

test_expect_success 'the config.toml init writes is accepted as it stands' '
	keeper --json --home "$TRASH/fresh-home" --root "$WS" resolve-path . >out &&
	json_get .ok out
'

test_expect_success 'a second init does not overwrite an edited config.toml' '
	H=$TRASH/fresh-home &&
	printf "[filekeeper]\nmax_read_bytes = 7\n# edited by hand\n" >"$H/config.toml" &&
	cp "$H/config.toml" expect &&
	keeper --json --home "$H" init >out &&
	test "$(json_get .config_written out)" = false &&
	test_cmp expect "$H/config.toml"
'

test_expect_success 'a second init keeps the registered workspaces' '
	H=$TRASH/fresh-home &&
	mkdir "$TRASH/kept" &&
	keeper --home "$H" workspace create kept "$TRASH/kept" &&
	keeper --home "$H" init &&
	keeper --json --home "$H" workspace show kept >out &&
	test "$(json_get .workspace.name out)" = kept
'

test_expect_success '--home overrides FILEKEEPER_HOME' '
	H=$TRASH/fresh-home &&
	keeper --json --home "$H" workspace list >out &&
	json_get ".workspaces[] | select(.name == \"kept\")" out &&
	keeper --json workspace list >out &&
	! json_get ".workspaces[] | select(.name == \"kept\")" out &&
	own=$FILEKEEPER_HOME &&
	env FILEKEEPER_HOME="$H" keeper --json --home "$own" workspace list >out &&
	! json_get ".workspaces[] | select(.name == \"kept\")" out
'

test_expect_success 'a command other than init does not create a missing home' '
	H=$TRASH/never-initialised &&
	test_expect_code 25 keeper --json --home "$H" resolve-path x >out &&
	test_error_code NO_WORKSPACE_SELECTED out &&
	keeper --json --home "$H" workspace list >out &&
	test "$(json_get ".workspaces | length" out)" = 0 &&
	test ! -e "$H"
'

# The registry.

test_expect_success 'setup: two more directories to register' '
	mkdir "$TRASH/second" "$TRASH/third"
'

test_expect_success 'workspace create --json reports the name, the canonical root and default false' '
	keeper --json workspace create second "$TRASH/second/." >out &&
	echo "second $(cd "$TRASH/second" && pwd -P) false" >expect &&
	jq -r "\"\(.workspace.name) \(.workspace.root) \(.workspace.default)\"" out >actual &&
	test_cmp expect actual
'

test_expect_success 'workspace list --json lists every workspace by name with its root and default' '
	keeper --json workspace list >out &&
	cat >expect <<-EOF &&
	second $(cd "$TRASH/second" && pwd -P) false
	test $(cd "$WS" && pwd -P) true
	EOF
	jq -r ".workspaces[] | \"\(.name) \(.root) \(.default)\"" out >actual &&
	test_cmp expect actual
'

test_expect_success 'workspace show --json shows one workspace' '
	keeper --json workspace show second >out &&
	echo "second $(cd "$TRASH/second" && pwd -P) false" >expect &&
	jq -r "\"\(.workspace.name) \(.workspace.root) \(.workspace.default)\"" out >actual &&
	test_cmp expect actual &&
	json_get .workspace.created_at out
'

test_expect_success 'workspace use makes a workspace the only default' '
	keeper --json workspace use second >out &&
	test "$(json_get .workspace.default out)" = true &&
	keeper --json workspace list >out &&
	echo second >expect &&
	json_get ".workspaces[] | select(.default) | .name" out >actual &&
	test_cmp expect actual &&
	keeper workspace use test &&
	keeper --json workspace list >out &&
	echo test >expect &&
	json_get ".workspaces[] | select(.default) | .name" out >actual &&
	test_cmp expect actual
'

test_expect_success 'a duplicate name is WORKSPACE_EXISTS, exit 24, and changes nothing' '
	keeper --json workspace list >before &&
	test_expect_code 24 keeper --json workspace create second "$TRASH/third" >out &&
	test_error_code WORKSPACE_EXISTS out &&
	keeper --json workspace list >after &&
	test_cmp before after
'

test_expect_success 'a duplicate root is WORKSPACE_EXISTS, exit 24, however it is spelled' '
	keeper --json workspace list >before &&
	test_expect_code 24 keeper --json workspace create again "$TRASH/second" >out &&
	test_error_code WORKSPACE_EXISTS out &&
	ln -s second "$TRASH/second-link" &&
	test_expect_code 24 keeper --json workspace create again "$TRASH/second-link" >out &&
	test_error_code WORKSPACE_EXISTS out &&
	test_expect_code 24 keeper --json workspace create again "$TRASH/second/" >out &&
	test_error_code WORKSPACE_EXISTS out &&
	keeper --json workspace list >after &&
	test_cmp before after
'

test_expect_success 'an unknown name is WORKSPACE_NOT_FOUND, exit 23, for show, use, remove and --workspace' '
	test_expect_code 23 keeper --json workspace show nope >out &&
	test_error_code WORKSPACE_NOT_FOUND out &&
	test_expect_code 23 keeper --json workspace use nope >out &&
	test_error_code WORKSPACE_NOT_FOUND out &&
	test_expect_code 23 keeper --json workspace remove nope >out &&
	test_error_code WORKSPACE_NOT_FOUND out &&
	test_expect_code 23 keeper --json --workspace nope resolve-path x >out &&
	test_error_code WORKSPACE_NOT_FOUND out
'

test_expect_success 'a bad workspace name is INVALID_ARGUMENT, exit 2, and registers nothing' '
	keeper --json workspace list >before &&
	for name in "a b" .hidden _under a/b "-dash" "$(printf "x%.0s" $(seq 65))" ""
	do
		test_expect_code 2 keeper --json workspace create -- "$name" "$TRASH/third" >out &&
		test_error_code INVALID_ARGUMENT out || exit 1
	done &&
	keeper --json workspace list >after &&
	test_cmp before after
'

test_expect_success 'a name of 64 allowed characters is accepted' '
	name=$(printf "a%.0s" $(seq 64)) &&
	keeper --json workspace create "$name" "$TRASH/third" >out &&
	test "$(json_get .workspace.name out)" = "$name" &&
	keeper workspace remove "$name"
'

test_expect_success 'a root that is not an existing directory cannot be registered' '
	test_must_fail keeper --json workspace create ghost "$TRASH/no-such-dir" >out &&
	json_get ".ok == false" out &&
	echo file >"$TRASH/a-file" &&
	test_must_fail keeper --json workspace create ghost "$TRASH/a-file" >out &&
	json_get ".ok == false" out &&
	test_expect_code 23 keeper workspace show ghost
'

# Selection.

test_expect_success 'selection: --workspace beats --root' '
	store "by-name beats root" --workspace second --root "$TRASH/third" &&
	test "$(json_get .workspace store.json)" = second &&
	test -f "$TRASH/second/.filekeeper/$(state_object_path "$(cat blob.id)")" &&
	test ! -e "$TRASH/third/.filekeeper" &&
	test ! -e "$WS/.filekeeper"
'

test_expect_success 'selection: --root beats the default' '
	store "root beats default" --root "$TRASH/third" &&
	test "$(json_get .workspace store.json)" = null &&
	test -f "$TRASH/third/.filekeeper/$(state_object_path "$(cat blob.id)")" &&
	test ! -e "$WS/.filekeeper"
'

test_expect_success 'selection: the default is used when neither flag is given' '
	(cd "$TRASH/third" && store "the default") &&
	test "$(json_get .workspace "$TRASH/third/store.json")" = test &&
	test -f "$WS/.filekeeper/$(state_object_path "$(cat "$TRASH/third/blob.id")")" &&
	test ! -e "$TRASH/third/.filekeeper/$(state_object_path "$(cat "$TRASH/third/blob.id")")"
'

test_expect_success 'with no default and no flags: NO_WORKSPACE_SELECTED, exit 25, never a guess' '
	H=$TRASH/no-default-home &&
	keeper --home "$H" init &&
	keeper --home "$H" workspace create only "$TRASH/third" &&
	(
		cd "$TRASH/third" &&
		test_expect_code 25 keeper --json --home "$H" hash-object -w --stdin </dev/null >"$TRASH/out" &&
		test_expect_code 25 env FILEKEEPER_HOME="$H" keeper --json resolve-path x >"$TRASH/out2"
	) &&
	test_error_code NO_WORKSPACE_SELECTED "$TRASH/out" &&
	test_error_code NO_WORKSPACE_SELECTED "$TRASH/out2"
'

test_expect_success 'the home given by --home supplies its own default workspace' '
	H=$TRASH/no-default-home &&
	keeper --home "$H" workspace use only &&
	keeper --json --home "$H" resolve-path x >out &&
	test "$(json_get .workspace out)" = only
'

test_expect_success 'workspace use writes default-workspace.json, the copy a lookup reads first' '
	H=$TRASH/no-default-home &&
	test "$(jq -r .default.name "$H/default-workspace.json")" = only &&
	test "$(jq -r .default.root "$H/default-workspace.json")" = "$(cd "$TRASH/third" && pwd -P)"
'

test_expect_success 'a default changed with sqlite3 is honoured at once: the copy no longer matches' '
	H=$TRASH/no-default-home &&
	keeper --home "$H" workspace create other "$TRASH/second" &&
	keeper --home "$H" workspace use only &&
	sqlite3 "$H/registry.sqlite3" \
		"UPDATE settings SET value = '"'other'"' WHERE key = '"'default_workspace'"'" &&
	test "$(jq -r .default.name "$H/default-workspace.json")" = only &&
	keeper --json --home "$H" resolve-path x >out &&
	test "$(json_get .workspace out)" = other
'

test_expect_success 'a default removed with sqlite3 leaves no workspace selected' '
	H=$TRASH/no-default-home &&
	sqlite3 "$H/registry.sqlite3" "DELETE FROM settings" &&
	(
		cd "$TRASH/third" &&
		test_expect_code 25 keeper --json --home "$H" resolve-path x >"$TRASH/out"
	) &&
	test_error_code NO_WORKSPACE_SELECTED "$TRASH/out"
'

test_expect_success 'a damaged copy is ignored: the registry answers' '
	H=$TRASH/no-default-home &&
	keeper --home "$H" workspace use only &&
	printf "{not json" >"$H/default-workspace.json" &&
	keeper --json --home "$H" resolve-path x >out &&
	test "$(json_get .workspace out)" = only &&
	rm "$H/default-workspace.json" &&
	keeper --json --home "$H" resolve-path x >out &&
	test "$(json_get .workspace out)" = only
'

# State: lazily created, git-ignored in a repository, and kept under the home when it must be.

test_expect_success 'setup: a fresh workspace with a file' '
	mkdir "$TRASH/lazy" &&
	echo content >"$TRASH/lazy/f"
'

test_expect_success '.filekeeper/ is not created by workspace create, list, show or use' '
	keeper workspace create lazy "$TRASH/lazy" &&
	keeper workspace list &&
	keeper workspace show lazy &&
	keeper workspace use lazy &&
	keeper workspace use test &&
	test ! -e "$TRASH/lazy/.filekeeper"
'

test_expect_success '.filekeeper/ is not created by init' '
	keeper --json init >out &&
	test "$(json_get .config_written out)" = false &&
	test ! -e "$TRASH/lazy/.filekeeper"
'

test_expect_success '.filekeeper/ is not created by resolve-path, even --for-write' '
	keeper --workspace lazy resolve-path f &&
	keeper --workspace lazy resolve-path --for-write new &&
	test ! -e "$TRASH/lazy/.filekeeper"
'

test_expect_success '.filekeeper/ is not created by hash-object without -w' '
	keeper --workspace lazy hash-object f &&
	echo data | keeper --workspace lazy hash-object --stdin &&
	test ! -e "$TRASH/lazy/.filekeeper"
'

test_expect_success '.filekeeper/ is created by hash-object -w, holding the object' '
	store "first state" --workspace lazy &&
	test -d "$TRASH/lazy/.filekeeper" &&
	test -f "$TRASH/lazy/.filekeeper/$(state_object_path "$(cat blob.id)")"
'

test_expect_success 'outside a git repository no .gitignore is written' '
	! git -C "$TRASH/lazy" rev-parse --git-dir 2>/dev/null &&
	test ! -e "$TRASH/lazy/.gitignore" &&
	json_get ".warnings | length == 0" store.json
'

test_expect_success 'in a git repository .filekeeper/ is added to .gitignore, and git ignores it' '
	mkdir "$TRASH/repo" &&
	git init -q "$TRASH/repo" &&
	store "in a repo" --root "$TRASH/repo" &&
	echo ".filekeeper/" >expect &&
	test_cmp expect "$TRASH/repo/.gitignore" &&
	json_get ".warnings[]" store.json | grep -F .gitignore &&
	git -C "$TRASH/repo" check-ignore -q .filekeeper/ &&
	git -C "$TRASH/repo" status --porcelain --untracked-files=all >status &&
	! grep -F .filekeeper/ status
'

test_expect_success 'a later state creation does not add .filekeeper/ to .gitignore again' '
	rm -rf "$TRASH/repo/.filekeeper" &&
	store "again in a repo" --root "$TRASH/repo" &&
	store "and once more" --root "$TRASH/repo" &&
	echo ".filekeeper/" >expect &&
	test_cmp expect "$TRASH/repo/.gitignore"
'

test_expect_success 'an existing .filekeeper/ line in .gitignore is not duplicated' '
	mkdir "$TRASH/repo2" &&
	git init -q "$TRASH/repo2" &&
	printf "target/\n/.filekeeper\n*.log\n" >"$TRASH/repo2/.gitignore" &&
	cp "$TRASH/repo2/.gitignore" expect &&
	store "already ignored" --root "$TRASH/repo2" &&
	test -d "$TRASH/repo2/.filekeeper" &&
	test_cmp expect "$TRASH/repo2/.gitignore"
'

test_expect_success 'a .gitignore without a final newline gets .filekeeper/ on a line of its own' '
	mkdir "$TRASH/repo3" &&
	git init -q "$TRASH/repo3" &&
	printf "target/" >"$TRASH/repo3/.gitignore" &&
	store "no newline" --root "$TRASH/repo3" &&
	printf "target/\n.filekeeper/\n" >expect &&
	test_cmp expect "$TRASH/repo3/.gitignore"
'

test_expect_success 'a workspace in a subdirectory of a git repository gets its state ignored' '
	mkdir -p "$TRASH/repo4/sub" &&
	git init -q "$TRASH/repo4" &&
	store "in a subdirectory" --root "$TRASH/repo4/sub" &&
	test -d "$TRASH/repo4/sub/.filekeeper" &&
	git -C "$TRASH/repo4/sub" check-ignore -q .filekeeper/
'

test_expect_success 'a workspace where a .gitignore above ignores .filekeeper/ writes none; info/exclude, which no clone shares, does not count' '
	mkdir -p "$TRASH/repo-above/sub" "$TRASH/repo-above/excl" &&
	git init -q "$TRASH/repo-above" &&
	echo ".filekeeper/" >"$TRASH/repo-above/.gitignore" &&
	keeper --json --root "$TRASH/repo-above/sub" file write a.txt --content a >out &&
	json_get ".warnings | length == 0" out &&
	test ! -e "$TRASH/repo-above/sub/.gitignore" &&
	git -C "$TRASH/repo-above/sub" check-ignore -q .filekeeper/ &&
	echo ".filekeeper" >>"$TRASH/repo-above/.git/info/exclude" &&
	rm "$TRASH/repo-above/.gitignore" &&
	keeper --json --root "$TRASH/repo-above/excl" file write b.txt --content b >out &&
	echo ".filekeeper/" >expect &&
	test_cmp expect "$TRASH/repo-above/excl/.gitignore"
'

test_expect_success 'the .gitignore edit is an operation of its own, recorded before the change that made the state' '
	mkdir "$TRASH/repo5" &&
	git init -q "$TRASH/repo5" &&
	keeper --json --root "$TRASH/repo5" file write notes.md --content "n" >out &&
	json_get ".warnings[]" out | grep -E "added .filekeeper/ to .gitignore \(op_[0-9a-f]{16}\)" &&
	keeper --json --root "$TRASH/repo5" history list >list.json &&
	test "$(json_get "[.operations[].kind] | join(\" \")" list.json)" = "write ignore_state" &&
	jq -e ".operations[1] | .status == \"committed\" and .summary == \"Added .filekeeper/ to .gitignore.\" and
		(.items | length == 1) and .items[0].path == \".gitignore\" and .items[0].change == \"created\"" \
		list.json >/dev/null
'

test_expect_success 'a first change that creates .gitignore itself is made as asked, and the line added after it' '
	mkdir "$TRASH/repo-create" &&
	git init -q "$TRASH/repo-create" &&
	keeper --json --root "$TRASH/repo-create" file create .gitignore --content "dist/" >out &&
	test "$(json_get .after_hash out)" = "sha256:$(printf "dist/" | sha256sum | cut -d" " -f1)" &&
	json_get ".warnings[]" out | grep -E "added .filekeeper/ to .gitignore \(op_[0-9a-f]{16}\)" &&
	printf "dist/\n.filekeeper/\n" >expect &&
	test_cmp expect "$TRASH/repo-create/.gitignore" &&
	keeper --json --root "$TRASH/repo-create" history list >list-create.json &&
	test "$(json_get "[.operations[].kind] | join(\" \")" list-create.json)" = "ignore_state create"
'

test_expect_success 'a first guarded write of an existing .gitignore is checked against the file as it was' '
	mkdir "$TRASH/repo-guarded" &&
	git init -q "$TRASH/repo-guarded" &&
	printf "target/\n" >"$TRASH/repo-guarded/.gitignore" &&
	h=$(sha "$TRASH/repo-guarded/.gitignore") &&
	keeper --json --root "$TRASH/repo-guarded" file write .gitignore --content "build/" --expected-hash "$h" >out &&
	json_get .ok out &&
	printf "build/\n.filekeeper/\n" >expect &&
	test_cmp expect "$TRASH/repo-guarded/.gitignore" &&
	git -C "$TRASH/repo-guarded" check-ignore -q .filekeeper/
'

test_expect_success 'history diff of the .gitignore operation shows the added line' '
	op=$(json_get ".operations[1].id" list.json) &&
	keeper --root "$TRASH/repo5" history diff "$op" >diff.out &&
	grep "^+.filekeeper/$" diff.out
'

test_expect_success 'undoing the .gitignore operation takes the line back out, byte for byte' '
	op=$(json_get ".operations[1].id" list.json) &&
	keeper --json --root "$TRASH/repo5" history undo "$op" >out &&
	test "$(json_get .ok out)" = true &&
	test ! -e "$TRASH/repo5/.gitignore" &&
	keeper --json --root "$TRASH/repo3" history list >list3.json &&
	op3=$(jq -r ".operations[] | select(.kind == \"ignore_state\") | .id" list3.json) &&
	keeper --json --root "$TRASH/repo3" history undo "$op3" >out &&
	printf "target/" >expect &&
	test_cmp expect "$TRASH/repo3/.gitignore"
'

test_expect_success 'a .gitignore that is a symbolic link is left alone, and no operation is recorded for it' '
	mkdir "$TRASH/repo6" &&
	git init -q "$TRASH/repo6" &&
	printf "other\n" >"$TRASH/repo6/real-ignore" &&
	ln -s real-ignore "$TRASH/repo6/.gitignore" &&
	keeper --json --root "$TRASH/repo6" file write a.txt --content a >out &&
	test -h "$TRASH/repo6/.gitignore" &&
	echo other >expect &&
	test_cmp expect "$TRASH/repo6/real-ignore" &&
	keeper --json --root "$TRASH/repo6" history list >list.json &&
	test "$(json_get "[.operations[].kind] | join(\" \")" list.json)" = write
'

test_expect_success 'a chmod 555 root: state falls back to the home with a warning when writes fail, else stays local' '
	mkdir "$TRASH/ro" &&
	chmod 555 "$TRASH/ro" &&
	store "read-only root" --root "$TRASH/ro" &&
	if root_is_writable "$TRASH/ro"
	then
		test -f "$TRASH/ro/.filekeeper/$(state_object_path "$(cat blob.id)")" &&
		json_get ".warnings | length == 0" store.json
	else
		test ! -e "$TRASH/ro/.filekeeper" &&
		test -n "$(home_objects "$FILEKEEPER_HOME" "$(cat blob.id)")" &&
		json_get ".warnings[]" store.json | grep -i home
	fi
'

test_expect_success 'a root at / keeps state under the home and the warnings say so' '
	test ! -e /.filekeeper &&
	store "root at slash" --root / &&
	test ! -e /.filekeeper &&
	test -n "$(home_objects "$FILEKEEPER_HOME" "$(cat blob.id)")" &&
	json_get ".warnings[]" store.json >warnings &&
	grep -i "home" warnings &&
	grep -F ".filekeeper" warnings
'

test_expect_success 'cat-blob reads back from the fallback store of a root at /' '
	cp blob.id slash.id &&
	keeper --json --root / cat-blob "$(cat slash.id)" >out &&
	test "$(json_get .content out)" = "root at slash" &&
	test ! -e /.filekeeper
'

test_expect_success 'reading from the fallback store says so in the warnings too' '
	keeper --json --root / cat-blob "$(cat slash.id)" >out &&
	json_get ".warnings[]" out | grep -i home
'

test_expect_success 'without --json the fallback is reported on stderr as a warning' '
	printf "human fallback" | keeper --root / hash-object -w --stdin >out 2>err &&
	grep -E "^sha256:[0-9a-f]{64}$" out &&
	grep "^warning: .*home" err
'

test_expect_success 'state_location = "global" keeps state under the home for a writable root' '
	H=$TRASH/global-home &&
	keeper --home "$H" init &&
	printf "[filekeeper]\nstate_location = \"global\"\n" >"$H/config.toml" &&
	mkdir "$TRASH/global-ws" &&
	store "pinned global" --home "$H" --root "$TRASH/global-ws" &&
	test ! -e "$TRASH/global-ws/.filekeeper" &&
	test -n "$(home_objects "$H" "$(cat blob.id)")" &&
	keeper --json --home "$H" --root "$TRASH/global-ws" cat-blob "$(cat blob.id)" >out &&
	test "$(json_get .content out)" = "pinned global"
'

test_expect_success 'a pinned state_location = "project" fails loudly when .filekeeper cannot be a directory' '
	H=$TRASH/project-home &&
	keeper --home "$H" init &&
	printf "[filekeeper]\nstate_location = \"project\"\n" >"$H/config.toml" &&
	mkdir "$TRASH/blocked" &&
	echo "not a directory" >"$TRASH/blocked/.filekeeper" &&
	cp "$TRASH/blocked/.filekeeper" expect &&
	test_expect_code 26 keeper --json --home "$H" --root "$TRASH/blocked" hash-object -w --stdin </dev/null >out &&
	test_error_code STORAGE_ERROR out &&
	test_cmp expect "$TRASH/blocked/.filekeeper" &&
	test ! -e "$H/state"
'

test_expect_success 'a pinned state_location = "project" is never redirected for a read-only root' '
	H=$TRASH/project-home &&
	mkdir "$TRASH/ro-pinned" &&
	chmod 555 "$TRASH/ro-pinned" &&
	if root_is_writable "$TRASH/ro-pinned"
	then
		store "pinned project" --home "$H" --root "$TRASH/ro-pinned" &&
		test -f "$TRASH/ro-pinned/.filekeeper/$(state_object_path "$(cat blob.id)")"
	else
		test_expect_code 26 keeper --json --home "$H" --root "$TRASH/ro-pinned" hash-object -w --stdin </dev/null >out &&
		test_error_code STORAGE_ERROR out &&
		test ! -e "$TRASH/ro-pinned/.filekeeper"
	fi &&
	test ! -e "$H/state"
'

test_expect_success 'an unknown key in config.toml is INVALID_ARGUMENT naming the key' '
	H=$TRASH/typo-home &&
	keeper --home "$H" init &&
	printf "[filekeeper]\nmax_reed_bytes = 10\n" >"$H/config.toml" &&
	test_expect_code 2 keeper --json --home "$H" --root "$WS" resolve-path . >out &&
	test_error_code INVALID_ARGUMENT out &&
	json_get .error.message out | grep -F max_reed_bytes
'

test_expect_success 'an unknown section in config.toml is INVALID_ARGUMENT too' '
	H=$TRASH/typo-home &&
	printf "[filekeepr]\nmax_read_bytes = 10\n" >"$H/config.toml" &&
	test_expect_code 2 keeper --json --home "$H" --root "$WS" resolve-path . >out &&
	test_error_code INVALID_ARGUMENT out &&
	json_get .error.message out | grep -F filekeepr
'

test_expect_success '--root naming a file is WORKSPACE_NOT_FOUND with the caller'"'"'s own path' '
	printf "x\n" >"$TRASH/not-a-dir" &&
	test_expect_code 23 keeper --json --root "$TRASH/not-a-dir" file read x >out &&
	test_error_code WORKSPACE_NOT_FOUND out &&
	test "$(json_get .error.details.path out)" = "$TRASH/not-a-dir"
'

test_expect_success 'a registered workspace whose root is gone does not print that root' '
	mkdir "$TRASH/vanishing" &&
	keeper workspace create vanishing "$TRASH/vanishing" >/dev/null &&
	rmdir "$TRASH/vanishing" &&
	test_expect_code 23 keeper --json --workspace vanishing file read x >out &&
	test_error_code WORKSPACE_NOT_FOUND out &&
	test_no_host_path out
'

# Removal.

test_expect_success 'workspace remove forgets the registration and says the files were left' '
	keeper --json workspace remove lazy >out &&
	test "$(json_get .workspace.name out)" = lazy &&
	json_get ".warnings | length > 0" out &&
	test_expect_code 23 keeper --json workspace show lazy >out &&
	test_error_code WORKSPACE_NOT_FOUND out
'

test_expect_success 'workspace remove leaves the files and .filekeeper/ in place' '
	echo content >expect &&
	test_cmp expect "$TRASH/lazy/f" &&
	test -d "$TRASH/lazy/.filekeeper" &&
	find "$TRASH/lazy/.filekeeper/objects" -type f >objects &&
	test -s objects
'

test_expect_success 'a removed workspace registered again finds its history' '
	id=$(printf "first state" | keeper hash-object --stdin) &&
	keeper workspace create lazy "$TRASH/lazy" &&
	keeper --json --workspace lazy cat-blob "$id" >out &&
	test "$(json_get .content out)" = "first state"
'

test_expect_success 'removing the default workspace leaves no default: NO_WORKSPACE_SELECTED' '
	H=$TRASH/no-default-home &&
	keeper --home "$H" workspace remove only &&
	test_expect_code 25 keeper --json --home "$H" resolve-path x >out &&
	test_error_code NO_WORKSPACE_SELECTED out &&
	test -d "$TRASH/third"
'

test_done
