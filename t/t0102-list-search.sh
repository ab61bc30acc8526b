#!/bin/sh
test_description='keeper file list and keeper file search: sorted, bounded, never leaving the root

list shows one directory (the root by default), sorted and stable, directories before their
contents with --recursive; --glob filters (`*` crosses `/`); --max-entries bounds it (1000 by
default, more is LIMIT_EXCEEDED) and a cut listing says truncated. .filekeeper/ is never listed.
Symlinks are reported as links with the kind of their target (file, directory, outside, broken)
and never followed. search finds paths by glob and honours git'"'"'s ignore rules: .gitignore files
(nested, with negation), .git/info/exclude and the global core.excludesFile; it skips .git/ and
says how many entries it ignored.'
. ./test-lib.sh

REPO=$TRASH/repo
HUGE=$TRASH/huge

# entries FILE: one line per entry of the listing in FILE: path, kind, and for a link its target.
entries () {
	jq -r '.entries[] | [.path, .kind, .target_kind // empty] | join(" ")' "$1"
}

# paths FILE: the paths of the listing in FILE, one per line.
paths () {
	jq -r '.entries[].path' "$1"
}

test_expect_success 'setup: a tree with nested directories, files, and links of every kind' '
	mkdir -p tree/a tree/b/c/d "$OUTSIDE/private" &&
	echo B >tree/B.txt &&
	echo z >tree/z.txt &&
	echo one >tree/a/one.md &&
	echo two >tree/a/two.txt &&
	echo deep >tree/b/c/deep.md &&
	echo deeper >tree/b/c/d/deeper.md &&
	echo secret >"$OUTSIDE/private/secret.txt" &&
	echo secret >"$OUTSIDE/private/other-secret.md" &&
	ln -s z.txt tree/link-file &&
	ln -s b tree/link-dir &&
	ln -s "$OUTSIDE/private" tree/link-out &&
	ln -s ../../outside/private tree/link-up &&
	ln -s no-such-target tree/link-broken
'

test_expect_success 'list is not recursive by default and sorted by name' '
	keeper --json file list tree >out &&
	json_get ".ok" out &&
	cat >expect <<-\EOF &&
	tree/B.txt file
	tree/a directory
	tree/b directory
	tree/link-broken symlink broken
	tree/link-dir symlink directory
	tree/link-file symlink file
	tree/link-out symlink outside
	tree/link-up symlink outside
	tree/z.txt file
	EOF
	entries out >actual &&
	test_cmp expect actual
'

test_expect_success 'list --recursive descends, each directory before its contents' '
	keeper --json file list tree --recursive >out &&
	cat >expect <<-\EOF &&
	tree/B.txt file
	tree/a directory
	tree/a/one.md file
	tree/a/two.txt file
	tree/b directory
	tree/b/c directory
	tree/b/c/d directory
	tree/b/c/d/deeper.md file
	tree/b/c/deep.md file
	tree/link-broken symlink broken
	tree/link-dir symlink directory
	tree/link-file symlink file
	tree/link-out symlink outside
	tree/link-up symlink outside
	tree/z.txt file
	EOF
	entries out >actual &&
	test_cmp expect actual
'

test_expect_success 'list -r is the short form of --recursive' '
	keeper --json file list tree --recursive >long &&
	keeper --json file list tree -r >short &&
	test_cmp long short
'

test_expect_success 'list is stable: the same tree lists the same twice' '
	keeper --json file list tree -r >first &&
	keeper --json file list tree -r >second &&
	test_cmp first second
'

test_expect_success 'list reports file sizes, and none for directories and links' '
	keeper --json file list tree >out &&
	test "$(json_get ".entries[] | select(.path == \"tree/B.txt\") | .size_bytes" out)" = 2 &&
	test "$(jq -r ".entries[] | select(.path == \"tree/a\") | .size_bytes" out)" = null &&
	test "$(jq -r ".entries[] | select(.path == \"tree/link-file\") | .target_kind" out)" = file
'

test_expect_success 'a listing that fits says truncated false' '
	keeper --json file list tree -r >out &&
	test "$(json_get ".truncated" out)" = false &&
	test "$(json_get ".entries | length" out)" = 15
'

test_expect_success 'list without --json prints paths, / after directories and @ after links' '
	keeper file list tree >out 2>err &&
	cat >expect <<-\EOF &&
	tree/B.txt
	tree/a/
	tree/b/
	tree/link-broken@
	tree/link-dir@
	tree/link-file@
	tree/link-out@
	tree/link-up@
	tree/z.txt
	EOF
	test_cmp expect out
'

test_expect_success 'list -r never follows a link to an outside directory' '
	keeper --json file list tree -r >out &&
	! grep secret out &&
	keeper --json file list tree -r --glob "*secret*" >out &&
	test "$(json_get ".entries | length" out)" = 0
'

test_expect_success 'list -r never follows a link to a directory inside either' '
	keeper --json file list tree -r >out &&
	! grep "tree/link-dir/" out
'

test_expect_success 'listing a link to an outside directory is SYMLINK_ESCAPE_REFUSED (exit 11)' '
	test_expect_code 11 keeper --json file list tree/link-out >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	! grep secret out &&
	test_no_host_path out
'

test_expect_success 'listing ../ is PATH_OUTSIDE_WORKSPACE (exit 4)' '
	test_expect_code 4 keeper --json file list ../outside >out &&
	test_error_code PATH_OUTSIDE_WORKSPACE out &&
	! grep secret out
'

test_expect_success 'listing an absolute path outside is ABSOLUTE_PATH_OUTSIDE_WORKSPACE (exit 6)' '
	test_expect_code 6 keeper --json file list "$OUTSIDE/private" >out &&
	test_error_code ABSOLUTE_PATH_OUTSIDE_WORKSPACE out &&
	! grep secret out
'

test_expect_success 'listing a file is NOT_A_DIRECTORY' '
	test_must_fail keeper --json file list tree/z.txt >out &&
	test_error_code NOT_A_DIRECTORY out &&
	test "$(json_get ".error.details.path" out)" = tree/z.txt
'

test_expect_success 'listing a missing directory is PATH_NOT_FOUND (exit 3)' '
	test_expect_code 3 keeper --json file list no-such-dir >out &&
	test_error_code PATH_NOT_FOUND out
'

test_expect_success 'list --glob "*.md" -r matches nested files at every depth' '
	keeper --json file list tree -r --glob "*.md" >out &&
	cat >expect <<-\EOF &&
	tree/a/one.md
	tree/b/c/d/deeper.md
	tree/b/c/deep.md
	EOF
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'list --glob without -r filters the directory'"'"'s own entries only' '
	keeper --json file list tree --glob "*.txt" >out &&
	printf "tree/B.txt\ntree/z.txt\n" >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'list --glob with a slash matches the path below the listed directory' '
	keeper --json file list tree -r --glob "a/*.md" >out &&
	echo tree/a/one.md >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'list --glob that matches nothing is an empty, successful listing' '
	keeper --json file list tree -r --glob "*.nothing" >out &&
	test "$(json_get ".entries | length" out)" = 0 &&
	test "$(json_get ".truncated" out)" = false
'

test_expect_success 'an invalid glob is INVALID_PATTERN (exit 22)' '
	test_expect_code 22 keeper --json file list tree --glob "[unclosed" >out &&
	test_error_code INVALID_PATTERN out &&
	test_expect_code 22 keeper --json file list tree --glob "{a,b" >out &&
	test_error_code INVALID_PATTERN out
'

test_expect_success 'list --max-entries N returns N entries and says truncated' '
	keeper --json file list tree -r --max-entries 4 >out &&
	test "$(json_get ".entries | length" out)" = 4 &&
	test "$(json_get ".truncated" out)" = true &&
	cat >expect <<-\EOF &&
	tree/B.txt
	tree/a
	tree/a/one.md
	tree/a/two.txt
	EOF
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'a truncated list says so on stderr even with --quiet' '
	keeper --quiet file list tree -r --max-entries 4 >out 2>err &&
	test_line_count = 4 out &&
	grep "^truncated after 4 entries; continue with --cursor " err &&
	test_line_count = 1 err
'

test_expect_success 'list --max-entries equal to the number of entries is not truncated' '
	keeper --json file list tree -r --max-entries 15 >out &&
	test "$(json_get ".entries | length" out)" = 15 &&
	test "$(json_get ".truncated" out)" = false
'

test_expect_success 'a truncated listing without --json says so on stderr' '
	keeper file list tree -r --max-entries 4 >out 2>err &&
	test_line_count = 4 out &&
	grep -i truncated err
'

test_expect_success 'list --max-entries 1001 is LIMIT_EXCEEDED (exit 21)' '
	test_expect_code 21 keeper --json file list tree --max-entries 1001 >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get ".error.details.limit" out)" = 1000
'

test_expect_success 'list --max-entries 1000 is accepted' '
	keeper --json file list tree --max-entries 1000 >out &&
	test "$(json_get ".truncated" out)" = false
'

test_expect_success 'list --max-entries 0 is INVALID_ARGUMENT' '
	test_expect_code 2 keeper --json file list tree --max-entries 0 >out &&
	test_error_code INVALID_ARGUMENT out
'

test_expect_success 'setup: a transient workspace holding 1100 files' '
	mkdir "$HUGE" &&
	(cd "$HUGE" && seq -f "f%04g.txt" 1 1100 | xargs touch) &&
	test "$(ls "$HUGE" | wc -l)" = 1100
'

test_expect_success 'listing 1100 entries returns the first 1000 in order, truncated' '
	keeper --root "$HUGE" --json file list >out &&
	test "$(json_get ".entries | length" out)" = 1000 &&
	test "$(json_get ".truncated" out)" = true &&
	(cd "$HUGE" && ls | LC_ALL=C sort | head -n 1000) >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'a listing that fits exactly in 1000 is not truncated' '
	keeper --root "$HUGE" --json file list --glob "f0*" >out &&
	test "$(json_get ".entries | length" out)" = 999 &&
	test "$(json_get ".truncated" out)" = false
'

test_expect_success 'setup: a home whose config.toml sets max_recursion_depth = 2' '
	mkdir "$TRASH/shallow-home" &&
	printf "[filekeeper]\nmax_recursion_depth = 2\n" >"$TRASH/shallow-home/config.toml"
'

test_expect_success 'list -r stops at max_recursion_depth and says so' '
	FILEKEEPER_HOME=$TRASH/shallow-home keeper --root "$WS" --json file list tree -r >out &&
	test "$(json_get ".depth_limited" out)" = true &&
	json_get ".entries[] | select(.path == \"tree/b/c\") | .kind" out &&
	! grep "tree/b/c/deep.md" out
'

test_expect_success 'search stops at max_recursion_depth and says so' '
	FILEKEEPER_HOME=$TRASH/shallow-home keeper --root "$WS" --json file search tree "*.md" >out &&
	test "$(json_get ".depth_limited" out)" = true &&
	! grep "tree/b/c/deep.md" out
'

test_expect_success 'search within max_recursion_depth is not depth_limited' '
	keeper --root "$WS" --json file search tree "*.md" >out &&
	test "$(json_get ".depth_limited" out)" = false &&
	json_get ".entries[] | select(.path == \"tree/b/c/deep.md\")" out
'

test_expect_success 'setup: a tree "names" holding names that are not UTF-8, and one with a backslash' '
	mkdir -p "$TRASH/names/sub" "$TRASH/names/$(printf "dir\376")" &&
	printf "x\n" >"$TRASH/names/$(printf "bad\377.txt")" &&
	printf "x\n" >"$TRASH/names/$(printf "dir\376")/inside.txt" &&
	printf "x\n" >"$TRASH/names/sub/ok.txt" &&
	printf "x\n" >"$TRASH/names/back\\xff.txt"
'

test_expect_success 'list never shows a name that does not exist: no replacement character' '
	keeper --root "$TRASH/names" --json file list -r >out &&
	! grep "$(printf "\357\277\275")" out &&
	! grep -i "\\\\ufffd" out &&
	json_get ".entries[].path" out >actual &&
	printf "%s\n" "back\\xff.txt" sub sub/ok.txt >expect &&
	test_cmp expect actual
'

test_expect_success 'list names the left-out entries in non_utf8_names, bytes as \xHH, a backslash doubled' '
	keeper --root "$TRASH/names" --json file list -r >out &&
	json_get ".non_utf8_names[]" out >actual &&
	printf "%s\n" "bad\\xff.txt" "dir\\xfe" >expect &&
	test_cmp expect actual
'

test_expect_success 'without --json, list prints the left-out names on stderr only' '
	keeper --root "$TRASH/names" file list >out 2>err &&
	! grep bad out &&
	grep "not UTF-8: bad\\\\xff.txt" err
'

test_expect_success 'the backslash name list shows is addressable as shown' '
	keeper --root "$TRASH/names" --json file read "back\\xff.txt" >out &&
	test "$(json_get .content out)" = x
'

test_expect_success 'search leaves out names that are not UTF-8 and names them' '
	keeper --root "$TRASH/names" --json file search . "*.txt" >out &&
	json_get ".entries[].path" out >actual &&
	printf "%s\n" "back\\xff.txt" sub/ok.txt >expect &&
	test_cmp expect actual &&
	json_get ".non_utf8_names[]" out >actual &&
	printf "%s\n" "bad\\xff.txt" "dir\\xfe" >expect &&
	test_cmp expect actual
'

test_expect_success 'setup: state in .filekeeper/ (hash-object -w)' '
	test ! -e .filekeeper &&
	echo "stored" >stored.txt &&
	keeper hash-object -w stored.txt >stored.id &&
	test -d .filekeeper
'

test_expect_success 'list of the root never shows .filekeeper/' '
	keeper --json file list >out &&
	json_get ".entries[] | select(.path == \"stored.txt\")" out &&
	! grep "\.filekeeper" out
'

test_expect_success 'list -r of the root never shows .filekeeper/ or anything in it' '
	keeper --json file list -r >out &&
	json_get ".entries[] | select(.path == \"tree/z.txt\")" out &&
	! grep "\.filekeeper" out &&
	keeper --json file list -r --glob "*objects*" >out &&
	test "$(json_get ".entries | length" out)" = 0
'

test_expect_success 'listing .filekeeper/ itself is PATH_IS_STATE_PATH' '
	test_must_fail keeper --json file list .filekeeper >out &&
	test_error_code PATH_IS_STATE_PATH out
'

test_expect_success 'search never finds anything in .filekeeper/' '
	keeper --json file search . "*" >out &&
	! grep "\.filekeeper" out
'

test_expect_success 'setup: a workspace nested in this one, with state of its own' '
	mkdir -p nest/inner &&
	echo inner >nest/inner/inner.txt &&
	keeper --root "$WS/nest/inner" hash-object -w inner.txt >/dev/null &&
	test -d nest/inner/.filekeeper/objects
'

test_expect_success 'list and search pass over a nested workspace'"'"'s .filekeeper/ as over the root'"'"'s' '
	keeper --json file list -r nest >out &&
	json_get ".entries[] | select(.path == \"nest/inner/inner.txt\")" out &&
	! grep "\.filekeeper" out &&
	keeper --json file list nest/inner >out &&
	test "$(json_get "[.entries[].path] | join(\",\")" out)" = nest/inner/inner.txt &&
	keeper --json file search . "*" >out &&
	json_get ".entries[] | select(.path == \"nest/inner/inner.txt\")" out &&
	! grep "\.filekeeper" out
'

test_expect_success 'grep never looks into a nested workspace'"'"'s state' '
	echo "inner, planted" >nest/inner/.filekeeper/planted.txt &&
	keeper --json file grep nest inner >out &&
	test "$(json_get "[.matches[].path] | unique | join(\",\")" out)" = nest/inner/inner.txt
'

test_expect_success 'listing a nested workspace'"'"'s .filekeeper/ is PATH_IS_STATE_PATH' '
	test_must_fail keeper --json file list nest/inner/.filekeeper >out &&
	test_error_code PATH_IS_STATE_PATH out
'

test_expect_success 'setup: a git repository with nested .gitignore files, info/exclude and global excludes' '
	mkdir -p "$REPO" &&
	(
		cd "$REPO" &&
		git init -q . &&
		mkdir -p src/gen src/build build gen logs docs &&
		printf "*.log\n/build/\n" >.gitignore &&
		printf "gen/\n" >src/.gitignore &&
		printf "!keep.log\n" >logs/.gitignore &&
		echo a >src/a.rs &&
		echo b >src/gen/b.rs &&
		echo k >src/build/kept.rs &&
		echo o >build/out.rs &&
		echo t >gen/top.rs &&
		echo x >logs/x.log &&
		echo k >logs/keep.log &&
		echo d >debug.log &&
		echo e >excluded.rs &&
		echo g >global.rs &&
		echo r >docs/README.md &&
		echo excluded.rs >>.git/info/exclude
	) &&
	printf "[core]\n\texcludesFile = ~/.gitignore_global\n" >"$HOME/.gitconfig" &&
	echo global.rs >"$HOME/.gitignore_global" &&
	keeper workspace create repo "$REPO" >/dev/null
'

test_expect_success 'search finds files by glob, nested ones included, in sorted order' '
	keeper --workspace repo --json file search . "*.rs" >out &&
	cat >expect <<-\EOF &&
	gen/top.rs
	src/a.rs
	src/build/kept.rs
	EOF
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'a relative core.excludesFile is read from the repository top, wherever keeper runs' '
	test_when_finished "printf \"[core]\\n\\texcludesFile = ~/.gitignore_global\\n\" >\"\$HOME/.gitconfig\"" &&
	printf "[core]\n\texcludesFile = rel-ignore\n" >"$HOME/.gitconfig" &&
	echo global.rs >"$REPO/rel-ignore" &&
	echo "*.rs" >"$TRASH/rel-ignore" &&
	(cd "$TRASH" && keeper --workspace repo --json file search . "*.rs") >out &&
	cat >expect <<-\EOF &&
	gen/top.rs
	src/a.rs
	src/build/kept.rs
	EOF
	paths out >actual &&
	test_cmp expect actual &&
	rm "$REPO/rel-ignore"
'

test_expect_success 'search honours a .gitignore pattern in every directory (*.log)' '
	keeper --workspace repo --json file search . "*.log" >out &&
	echo logs/keep.log >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'search honours a nested negation (!keep.log re-includes it)' '
	keeper --workspace repo --json file search logs "keep.log" >out &&
	echo logs/keep.log >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'search honours an anchored directory pattern only at its own level' '
	keeper --workspace repo --json file search . "*out.rs" >out &&
	test "$(json_get ".entries | length" out)" = 0 &&
	keeper --workspace repo --json file search . "*kept.rs" >out &&
	echo src/build/kept.rs >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'a nested .gitignore applies below its directory only' '
	keeper --workspace repo --json file search . "gen" >out &&
	echo gen >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'search honours .git/info/exclude' '
	keeper --workspace repo --json file search . "excluded.rs" >out &&
	test "$(json_get ".entries | length" out)" = 0
'

test_expect_success 'search honours the global excludes file named by core.excludesFile' '
	keeper --workspace repo --json file search . "global.rs" >out &&
	test "$(json_get ".entries | length" out)" = 0
'

test_expect_success 'core.excludesFile is read as git reads it: a comment after it, [include] files, the repository config last' '
	test_when_finished "printf \"[core]\\n\\texcludesFile = ~/.gitignore_global\\n\" >\"\$HOME/.gitconfig\"" &&
	echo "*.rs" >"$HOME/every-rs" &&
	printf "[core]\n\texcludesFile = ~/every-rs ; no Rust today\n" >"$HOME/.gitconfig" &&
	keeper --workspace repo --json file search . "*.rs" >out &&
	test "$(json_get ".entries | length" out)" = 0 &&
	printf "[include]\n\tpath = included-config\n" >"$HOME/.gitconfig" &&
	printf "[core]\n\texcludesFile = \"~/every-rs\"\n" >"$HOME/included-config" &&
	keeper --workspace repo --json file search . "*.rs" >out &&
	test "$(json_get ".entries | length" out)" = 0 &&
	printf "[core]\n\texcludesFile = ~/.gitignore_global\n" >"$HOME/.gitconfig" &&
	test_when_finished "git -C \"\$REPO\" config --unset core.excludesFile" &&
	git -C "$REPO" config core.excludesFile "$HOME/every-rs" &&
	keeper --workspace repo --json file search . "*.rs" >out &&
	test "$(json_get ".entries | length" out)" = 0 &&
	git -C "$REPO" status --porcelain --untracked-files=all >git-status &&
	! grep "\.rs$" git-status
'

test_expect_success 'search skips .git/' '
	keeper --workspace repo --json file search . "*" >out &&
	test "$(json_get "[.entries[] | select(.path == \".git\" or (.path | startswith(\".git/\")))] | length" out)" = 0 &&
	keeper --workspace repo --json file search . "HEAD" >out &&
	test "$(json_get ".entries | length" out)" = 0
'

test_expect_success 'search reports how many entries the ignore rules passed over' '
	keeper --workspace repo --json file search . "*" >out &&
	test "$(json_get ".ignored" out)" = 6
'

test_expect_success 'search finds exactly the untracked files git does not ignore' '
	(cd "$REPO" && git ls-files --others --exclude-standard) | LC_ALL=C sort >expect &&
	keeper --workspace repo --json file search . "*" >out &&
	jq -r ".entries[] | select(.kind == \"file\") | .path" out | LC_ALL=C sort >actual &&
	test_cmp expect actual
'

test_expect_success 'search of a subdirectory still honours the .gitignore files above it' '
	keeper --workspace repo --json file search logs "*" >out &&
	printf "logs/.gitignore\nlogs/keep.log\n" >expect &&
	paths out >actual &&
	test_cmp expect actual &&
	keeper --workspace repo --json file search src "*.rs" >out &&
	printf "src/a.rs\nsrc/build/kept.rs\n" >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'a workspace inside a repository honours the rules above its root' '
	mkdir -p "$REPO/pkg/sub" &&
	echo "sub/generated.rs" >"$REPO/pkg/.gitignore" &&
	echo g >"$REPO/pkg/sub/generated.rs" &&
	echo m >"$REPO/pkg/sub/main.rs" &&
	echo l >"$REPO/pkg/sub/trace.log" &&
	echo e >"$REPO/pkg/excluded.rs" &&
	keeper --root "$REPO/pkg/sub" --json file search . "*" >out &&
	echo main.rs >expect &&
	paths out >actual &&
	test_cmp expect actual &&
	keeper --root "$REPO/pkg" --json file search . "*.rs" >out &&
	echo sub/main.rs >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'list, unlike search, shows ignored files' '
	keeper --workspace repo --json file list -r >out &&
	json_get ".entries[] | select(.path == \"debug.log\")" out &&
	json_get ".entries[] | select(.path == \"src/gen/b.rs\")" out
'

test_expect_success 'search --max-results N returns N and says truncated' '
	keeper --workspace repo --json file search . "*" --max-results 2 >out &&
	test "$(json_get ".entries | length" out)" = 2 &&
	test "$(json_get ".truncated" out)" = true
'

test_expect_success 'search --max-results 201 is LIMIT_EXCEEDED (exit 21)' '
	test_expect_code 21 keeper --workspace repo --json file search . "*" --max-results 201 >out &&
	test_error_code LIMIT_EXCEEDED out &&
	test "$(json_get ".error.details.limit" out)" = 200
'

test_expect_success 'search stops at 200 results by default, truncated' '
	keeper --root "$HUGE" --json file search . "*.txt" >out &&
	test "$(json_get ".entries | length" out)" = 200 &&
	test "$(json_get ".truncated" out)" = true &&
	(cd "$HUGE" && ls | LC_ALL=C sort | head -n 200) >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_expect_success 'search of a missing directory is PATH_NOT_FOUND (exit 3)' '
	test_expect_code 3 keeper --json file search no-such-dir "*" >out &&
	test_error_code PATH_NOT_FOUND out &&
	test "$(json_get ".error.details.path" out)" = no-such-dir
'

test_expect_success 'search with an invalid glob is INVALID_PATTERN (exit 22)' '
	test_expect_code 22 keeper --json file search . "[unclosed" >out &&
	test_error_code INVALID_PATTERN out
'

test_expect_success 'search never follows links out of the root' '
	keeper --json file search tree "*secret*" >out &&
	test "$(json_get ".entries | length" out)" = 0 &&
	! grep secret out
'

test_expect_success 'search refuses paths outside the root (exit 4, 6, 11)' '
	test_expect_code 4 keeper --json file search ../outside "*" >out &&
	test_error_code PATH_OUTSIDE_WORKSPACE out &&
	test_expect_code 6 keeper --json file search "$OUTSIDE" "*" >out &&
	test_error_code ABSOLUTE_PATH_OUTSIDE_WORKSPACE out &&
	test_expect_code 11 keeper --json file search tree/link-out "*" >out &&
	test_error_code SYMLINK_ESCAPE_REFUSED out &&
	! grep secret out
'

test_expect_success 'search without --json prints one path per line' '
	keeper --workspace repo file search . "*.rs" >out 2>err &&
	printf "gen/top.rs\npkg/sub/main.rs\nsrc/a.rs\nsrc/build/kept.rs\n" >expect &&
	test_cmp expect out
'

test_expect_success 'neither list nor search created .filekeeper/ in the repository' '
	test ! -e "$REPO/.filekeeper" &&
	test ! -e "$HUGE/.filekeeper" &&
	test ! -e "$OUTSIDE/.filekeeper"
'

test_expect_success 'in a git worktree, the main repository'"'"'s info/exclude applies' '
	git init -q "$TRASH/wt-main" &&
	(
		cd "$TRASH/wt-main" &&
		echo x >f &&
		git add f &&
		git -c user.email=t@example.com -c user.name=t commit -q -m init &&
		echo "secret*" >>.git/info/exclude &&
		git worktree add -q "$TRASH/wt-linked"
	) &&
	touch "$TRASH/wt-linked/secret1" "$TRASH/wt-linked/ok.txt" &&
	keeper --root "$TRASH/wt-linked" --json file search . "*" >out &&
	jq -r ".. | .path? // empty" out | sort >actual &&
	printf ".\nf\nok.txt\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a repository inside the workspace has its own rules, not those around it (as git and ripgrep)' '
	mkdir -p nested/inner &&
	git init -q nested &&
	git init -q nested/inner &&
	printf "*.log\n" >nested/.gitignore &&
	echo needle >nested/outer.log &&
	echo needle >nested/inner/x.log &&
	echo needle >nested/inner/excluded.txt &&
	echo excluded.txt >>nested/inner/.git/info/exclude &&
	keeper --root nested --json file grep . needle >out &&
	echo inner/x.log >expect &&
	jq -r ".matches[].path" out >actual &&
	test_cmp expect actual &&
	keeper --root nested --json file search inner "*" >out &&
	echo inner/x.log >expect &&
	paths out >actual &&
	test_cmp expect actual
'

test_done
