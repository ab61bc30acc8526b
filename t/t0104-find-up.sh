#!/bin/sh
test_description='keeper file find-up

find-up walks from a directory (or a file'"'"'s directory) towards the workspace root and reports
the nearest entry of an exact name: file, directory, or link. It never leaves the workspace:
the walk stops at the root, a start reached through a link that leads out is refused, and so is
a match that is a link leading out. Not found is a success with found=false and exit 3, a shell
predicate as file exists is. NAME is one plain name: empty, /, ., .. and .filekeeper are
refused.'
. ./test-lib.sh

test_expect_success 'setup: a tree with markers at several levels, links in and out' '
	mkdir -p .git a/b/c docs &&
	echo "[root]" >pyproject.toml &&
	echo "[a]" >a/pyproject.toml &&
	echo leaf >a/b/c/leaf.txt &&
	echo "outside make" >"$OUTSIDE/Makefile" &&
	echo "outside marker" >"$OUTSIDE/only-outside" &&
	echo "above the root" >"$TRASH/above-root" &&
	ln -s a/b/c shortcut &&
	ln -s "$OUTSIDE" outdir &&
	ln -s "$OUTSIDE/Makefile" a/b/Makefile &&
	ln -s ../../pyproject.toml a/b/c/config &&
	ln -s nowhere a/b/dangling
'

test_expect_success 'from a file deep inside, the nearest entry is found and printed' '
	keeper file find-up a/b/c/leaf.txt pyproject.toml >out &&
	echo a/pyproject.toml >expect &&
	test_cmp expect out
'

test_expect_success 'the result names the match, its kind and the directories looked in' '
	keeper --json file find-up a/b/c/leaf.txt pyproject.toml >out &&
	test "$(json_get .found out)" = true &&
	test "$(json_get .found_path out)" = a/pyproject.toml &&
	test "$(json_get .kind out)" = file &&
	test "$(json_get .name out)" = pyproject.toml &&
	test "$(json_get .path out)" = a/b/c/leaf.txt &&
	printf "a/b/c\na/b\na\n" >expect &&
	json_get ".searched[]" out >actual &&
	test_cmp expect actual
'

test_expect_success 'reading never creates the workspace state' '
	test ! -e .filekeeper
'

test_expect_success 'a directory start looks in the directory itself first' '
	keeper --json file find-up a pyproject.toml >out &&
	test "$(json_get .found_path out)" = a/pyproject.toml &&
	test "$(json_get ".searched | length" out)" = 1
'

test_expect_success 'a directory is a match too: .git at the root' '
	keeper --json file find-up a/b/c .git >out &&
	test "$(json_get .found_path out)" = .git &&
	test "$(json_get .kind out)" = directory &&
	test "$(json_get ".searched[-1]" out)" = .
'

test_expect_success 'the root itself is a start, and an absolute path inside is accepted' '
	keeper --json file find-up . pyproject.toml >out &&
	test "$(json_get .found_path out)" = pyproject.toml &&
	keeper --json file find-up "$WS/a/b" pyproject.toml >out &&
	test "$(json_get .found_path out)" = a/pyproject.toml
'

test_expect_success 'not found is a success with found=false, exit 3 and nothing on stdout' '
	test_expect_code 3 keeper --json file find-up a/b/c absent.cfg >out &&
	test "$(json_get .ok out)" = true &&
	test "$(json_get .found out)" = false &&
	test "$(jq -r .found_path out)" = null &&
	test "$(jq -r .kind out)" = null &&
	printf "a/b/c\na/b\na\n.\n" >expect &&
	json_get ".searched[]" out >actual &&
	test_cmp expect actual &&
	test_expect_code 3 keeper file find-up a/b/c absent.cfg >out 2>err &&
	test_must_be_empty out &&
	grep "no absent.cfg in a/b/c or above it" err
'

test_expect_success 'the walk stops at the workspace root: an entry above it is not found' '
	test -f "$WS/../above-root" &&
	test_expect_code 3 keeper --json file find-up a/b above-root >out &&
	test "$(json_get .found out)" = false &&
	test "$(json_get ".searched[-1]" out)" = .
'

test_expect_success 'a start through a link inside walks up from where the link leads' '
	keeper --json file find-up shortcut pyproject.toml >out &&
	test "$(json_get .found_path out)" = a/pyproject.toml &&
	test "$(json_get ".searched[0]" out)" = a/b/c
'

test_expect_success 'a start through a link that leads outside is refused' '
	refused 11 SYMLINK_ESCAPE_REFUSED --naming outdir file find-up outdir only-outside &&
	refused 11 SYMLINK_ESCAPE_REFUSED --naming outdir/x file find-up outdir/x only-outside
'

test_expect_success 'a match that is a link leading outside is refused, not followed or skipped' '
	refused 11 SYMLINK_ESCAPE_REFUSED --naming a/b/c file find-up a/b/c Makefile &&
	test "$(json_get .error.details.found_path refusal.json)" = a/b/Makefile &&
	! grep "outside make" refusal.json
'

test_expect_success 'a match that is a link inside is what it leads to' '
	keeper --json file find-up a/b/c/leaf.txt config >out &&
	test "$(json_get .found_path out)" = a/b/c/config &&
	test "$(json_get .kind out)" = file
'

test_expect_success 'a match that is a link leading nowhere is found as a symlink' '
	keeper --json file find-up a/b/c dangling >out &&
	test "$(json_get .found_path out)" = a/b/dangling &&
	test "$(json_get .kind out)" = symlink
'

test_expect_success 'a NAME that is not one plain name is refused, naming NAME' '
	for name in "" a/b x/ / . .. "../pyproject.toml"
	do
		refused 2 INVALID_ARGUMENT file find-up a "$name" &&
		json_get .error.message refusal.json | grep "^NAME " || {
			echo >&2 "name: [$name]"
			exit 1
		}
	done
'

test_expect_success 'a NAME longer than a file name can be is refused' '
	long=$(printf "%0300d" 0) &&
	refused 2 INVALID_ARGUMENT file find-up a "$long" &&
	test "$(json_get ".error.details.name | length" refusal.json)" -le 70
'

test_expect_success '.filekeeper is never looked for, even where it exists' '
	keeper file write made.txt --content x >/dev/null &&
	test -d .filekeeper &&
	refused 8 PATH_IS_STATE_PATH file find-up a .filekeeper
'

test_expect_success 'a start outside the workspace or in its state is refused' '
	refused 4 PATH_OUTSIDE_WORKSPACE --naming ../x file find-up ../x pyproject.toml &&
	refused 6 ABSOLUTE_PATH_OUTSIDE_WORKSPACE --naming "$OUTSIDE" file find-up "$OUTSIDE" Makefile &&
	refused 8 PATH_IS_STATE_PATH --naming .filekeeper file find-up .filekeeper pyproject.toml
'

test_expect_success 'a missing start is PATH_NOT_FOUND with the nearest names' '
	refused 3 PATH_NOT_FOUND --naming a/b/cc file find-up a/b/cc pyproject.toml &&
	test "$(json_get ".error.details.similar_paths[0]" refusal.json)" = a/b/c
'

test_done
