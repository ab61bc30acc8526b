#!/bin/sh
test_description='what reads do with what this user may not read

A directory that cannot be listed, or a file that cannot be opened, is never passed over in
silence: grep names it in unreadable (and on stderr, even with -q), as list and search do; an
error names the path that failed, so a diff says which side; info describes a directory it
may not list, since that needs only a stat; and exists answers for a link that loops, as list
shows it, instead of failing.

File modes do not bind root, so under root keeper runs as nobody (setpriv), in a workspace and
a home of its own.'
. ./test-lib.sh

test_lazy_prereq UNPRIVILEGED '
	test "$(id -u)" != 0 || setpriv --reuid=65534 --regid=65534 --clear-groups true
'

# kp ARGS: keeper as a user that file modes bind, with the workspace below as --root.
kp () {
	if test "$(id -u)" = 0; then
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env HOME="$PW_HOME" FILEKEEPER_HOME="$PW_HOME" keeper --root "$PW" "$@"
	else
		keeper --root "$PW" "$@"
	fi
}

PW=$TRASH/pw
PW_HOME=$TRASH/pw-home

test_expect_success UNPRIVILEGED 'setup: a workspace holding a closed directory and a closed file' '
	mkdir -p "$PW/open" "$PW/closed" "$PW_HOME" &&
	echo "needle here" >"$PW/open/a.txt" &&
	echo "needle hidden" >"$PW/closed/b.txt" &&
	echo "needle secret" >"$PW/secret.txt" &&
	if test "$(id -u)" = 0
	then
		chmod o+x "$TRASH" &&
		chown -R nobody "$PW" "$PW_HOME" &&
		chown root "$PW/closed" "$PW/secret.txt"
	fi &&
	chmod 700 "$PW/closed" &&
	chmod 600 "$PW/secret.txt" &&
	if test "$(id -u)" != 0
	then
		chmod 000 "$PW/closed" "$PW/secret.txt"
	fi
'

test_expect_success UNPRIVILEGED 'grep names the directory and the file it could not read' '
	kp --json file grep . needle >out &&
	test "$(json_get ".matches | map(.path) | join(\",\")" out)" = open/a.txt &&
	test "$(json_get ".unreadable | join(\",\")" out)" = closed,secret.txt
'

test_expect_success UNPRIVILEGED 'grep counts the unreadable file as skipped, the directory not as a file' '
	test "$(json_get .files_searched out)" = 2 &&
	test "$(json_get .files_skipped out)" = 1
'

test_expect_success UNPRIVILEGED 'grep -q still says on stderr what it could not read' '
	kp file grep . needle -q >out 2>err &&
	grep -Fx "could not read closed, not searched" err &&
	grep -Fx "could not read secret.txt, not searched" err
'

test_expect_success UNPRIVILEGED 'list and search name the closed directory, as before' '
	kp --json file list . --recursive >out &&
	test "$(json_get ".unreadable | join(\",\")" out)" = closed &&
	kp --json file search . "*.txt" >out &&
	test "$(json_get ".unreadable | join(\",\")" out)" = closed
'

test_expect_success UNPRIVILEGED 'a file that cannot be opened: STORAGE_ERROR naming it' '
	test_expect_code 26 kp --json file read secret.txt >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get .error.details.path out)" = secret.txt
'

test_expect_success UNPRIVILEGED 'a path through a directory that cannot be searched: the error names the path' '
	test_expect_code 26 kp --json file read closed/b.txt >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get .error.details.path out)" = closed/b.txt &&
	test_expect_code 26 kp --json file exists closed/b.txt >out &&
	test "$(json_get .error.details.path out)" = closed/b.txt
'

test_expect_success UNPRIVILEGED 'a diff says which side could not be read' '
	test_expect_code 26 kp --json file diff open/a.txt secret.txt >out &&
	test "$(json_get .error.details.path out)" = secret.txt &&
	test_expect_code 26 kp --json file diff secret.txt open/a.txt >out &&
	test "$(json_get .error.details.path out)" = secret.txt
'

test_expect_success UNPRIVILEGED 'info describes a directory it may not list' '
	kp --json file info closed >out &&
	test "$(json_get .kind out)" = directory &&
	test "$(json_get .mode out)" = "$(printf %d "0$(stat -c %a "$PW/closed")")"
'

test_expect_success 'exists answers for a link that loops: there, a symlink leading nowhere' '
	ln -s loop-b loop-a &&
	ln -s loop-a loop-b &&
	keeper --json file exists loop-a >out &&
	json_get ".exists == true and .kind == \"symlink\" and .target_kind == \"broken\"" out &&
	test "$(json_get .target out)" = loop-b
'

test_expect_success 'below a looping link nothing can be: absent, exit 3' '
	test_expect_code 3 keeper --json file exists loop-a/x >out &&
	test "$(json_get .exists out)" = false
'

test_expect_success 'reading through the loop is still refused, naming the reason' '
	test_expect_code 2 keeper --json file read loop-a >out &&
	test "$(json_get .error.details.reason out)" = symlink_loop
'

test_expect_success UNPRIVILEGED 'a truncated grep page names only what it passed: the closed directory on the page that reaches it' '
	mkdir "$PW/a" "$PW/zc" &&
	for i in 1 2 3; do echo needle >"$PW/a/$i.txt" || return 1; done &&
	if test "$(id -u)" = 0; then chown -R nobody "$PW/a"; fi &&
	chmod 000 "$PW/zc" &&
	kp --json file grep . needle --max-results 1 >page1 &&
	json_get ".truncated == true and .matches[0].path == \"a/1.txt\" and .unreadable == []" page1 &&
	cursor=$(json_get .next_cursor page1) &&
	kp --json file grep . needle --max-results 1 --cursor "$cursor" >page2 &&
	json_get ".matches[0].path == \"a/2.txt\" and .unreadable == []" page2 &&
	kp --json file grep . needle >all &&
	test "$(json_get ".unreadable | join(\",\")" all)" = closed,secret.txt,zc
'

test_expect_success UNPRIVILEGED 'fsck checks a state this user may only read, and writes nothing there' '
	RO=$TRASH/ro &&
	mkdir -p "$RO" &&
	keeper --root "$RO" file write a.txt --content x >/dev/null &&
	keeper --root "$RO" file write a.txt --content y >/dev/null &&
	test_when_finished "chmod -R u+w \"$RO\"" &&
	chmod -R a-w "$RO" &&
	ls -la "$RO/.filekeeper" >before &&
	if test "$(id -u)" = 0
	then
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env HOME="$PW_HOME" FILEKEEPER_HOME="$PW_HOME" keeper --root "$RO" --json fsck >out
	else
		keeper --root "$RO" --json fsck >out
	fi &&
	json_get ".ok and .operations == 2 and .damaged_objects == []" out &&
	ls -la "$RO/.filekeeper" >after &&
	test_cmp before after
'

IG=$TRASH/ig

# kig ARGS: keeper as kp runs it, in the workspace $IG.
kig () {
	(PW=$IG && kp "$@")
}

# close FILE...: makes FILEs unreadable to kig.
close () {
	if test "$(id -u)" = 0
	then
		chown root "$@" && chmod 600 "$@"
	else
		chmod 000 "$@"
	fi
}

test_expect_success UNPRIVILEGED 'setup: a repository whose ignore files hide x.log, sub/z.txt and notes.md' '
	mkdir -p "$IG/sub" &&
	git init -q "$IG" &&
	echo "*.log" >"$IG/.gitignore" &&
	echo "*.txt" >"$IG/sub/.gitignore" &&
	echo "*.md" >"$IG/.git/info/exclude" &&
	for f in x.log y.txt sub/z.txt notes.md
	do
		echo needle >"$IG/$f" || return 1
	done &&
	if test "$(id -u)" = 0
	then
		chown -R nobody "$IG"
	fi &&
	kig --json file search . "*" >out &&
	test "$(json_get "[.entries[].path] | join(\",\")" out)" = ".gitignore,sub,sub/.gitignore,y.txt"
'

test_expect_success UNPRIVILEGED 'a .gitignore that cannot be read stops search and grep, named, instead of showing what it ignores' '
	close "$IG/.gitignore" &&
	test_expect_code 26 kig --json file search . "*" >out &&
	test_error_code STORAGE_ERROR out &&
	test "$(json_get .error.details.reason out)" = ignore_file_unreadable &&
	test "$(json_get .error.details.ignore_file out)" = .gitignore &&
	test_expect_code 26 kig --json file grep . needle >out &&
	test "$(json_get .error.details.ignore_file out)" = .gitignore &&
	test_no_host_path out &&
	chmod 644 "$IG/.gitignore" &&
	close "$IG/sub/.gitignore" &&
	test_expect_code 26 kig --json file grep . needle >out &&
	test "$(json_get .error.details.ignore_file out)" = sub/.gitignore &&
	test_expect_code 26 kig --json file search sub "*" >out &&
	test "$(json_get .error.details.ignore_file out)" = sub/.gitignore &&
	chmod 644 "$IG/sub/.gitignore"
'

test_expect_success UNPRIVILEGED 'so does the repository'"'"'s info/exclude, named without its host path' '
	close "$IG/.git/info/exclude" &&
	test_expect_code 26 kig --json file search . "*" >out &&
	test "$(json_get .error.details.ignore_file out)" = "the repository'"'"'s .git/info/exclude" &&
	test_no_host_path out &&
	chmod 644 "$IG/.git/info/exclude" &&
	kig --json file grep . needle >out &&
	test "$(json_get "[.matches[].path] | join(\",\")" out)" = y.txt
'

test_expect_success UNPRIVILEGED 'list, which honours no ignore file, lists as before' '
	close "$IG/.gitignore" &&
	kig --json file list >out &&
	json_get ".entries[] | select(.path == \"x.log\")" out &&
	chmod 644 "$IG/.gitignore"
'

test_expect_success UNPRIVILEGED 'cleanup: the modes back, so the trash can be removed' '
	chmod 755 "$PW/closed" "$PW/zc" &&
	chmod 644 "$PW/secret.txt"
'

test_done
