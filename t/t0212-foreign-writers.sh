#!/bin/sh
test_description='another program changes a path while an operation runs: its change is kept

Another program (an editor, a build, a second agent) does not take keeper'"'"'s lock, so it
can change a path after keeper planned an operation on it and before the step that changes
it. FILEKEEPER_TEST_INTERFERE_AT names the moment (a crash point of the test build) and
FILEKEEPER_TEST_INTERFERE the shell command that makes that change, run and waited for at that
moment: a race played exactly, without timing.

Every step checks that its path still holds what the plan read before it destroys anything:
a write or a move over a file, a deletion, a move of a file. When it does not, the operation
is refused and rolled back, and the rollback puts back only what the operation itself
changed: the other program'"'"'s file, created, rewritten or kept, is never removed or
overwritten. A path an applied step changed and the other program changed again after it
is left as it is and named (PARTIAL_RECOVERY).'
. ./test-lib.sh

# interfering AT COMMAND KEEPER-ARGS...: keeper --json KEEPER-ARGS... with COMMAND run at the
# crash point AT; its output goes to out, its exit code is printed.
interfering () {
	at=$1 &&
	command=$2 &&
	shift 2 &&
	FILEKEEPER_TEST_INTERFERE_AT=$at FILEKEEPER_TEST_INTERFERE=$command \
		keeper --json "$@" >out
	echo $?
}

# status_of: the journal status of the operation out names.
status_of () {
	journal "SELECT status FROM operations WHERE id = '$(json_get .error.details.operation_id out)'"
}

test_expect_success 'the interference hook runs its command at the named point' '
	printf "one\n" >hook.txt &&
	test "$(interfering mutation-after-begin "printf ran >hook-ran" \
		file write hook.txt --content "two")" = 0 &&
	test "$(cat hook-ran)" = ran &&
	test "$(cat hook.txt)" = two
'

test_expect_success 'a file rewritten before a guarded write keeps the other program'"'"'s bytes' '
	printf "v1\n" >w.txt &&
	h=$(sha w.txt) &&
	test "$(interfering mutation-after-begin "printf \"theirs\n\" >w.txt" \
		file write w.txt --content "mine" --expected-hash "$h")" = 15 &&
	test_error_code CONTENT_CONFLICT out &&
	test "$(cat w.txt)" = theirs &&
	test "$(status_of)" = rolled_back
'

test_expect_success 'a file created where keeper creates one is kept, not removed by the rollback' '
	test "$(interfering mutation-after-begin "printf \"theirs\n\" >c.txt" \
		file create c.txt --content "mine")" = 14 &&
	test_error_code ALREADY_EXISTS out &&
	test "$(cat c.txt)" = theirs &&
	test "$(status_of)" = rolled_back
'

test_expect_success 'a file rewritten before its deletion is not deleted' '
	printf "v1\n" >d.txt &&
	test "$(interfering mutation-after-begin "printf \"theirs\n\" >d.txt" \
		file delete d.txt)" = 15 &&
	test_error_code CONTENT_CONFLICT out &&
	grep "refusing to delete it" out &&
	test "$(cat d.txt)" = theirs &&
	test "$(status_of)" = rolled_back
'

test_expect_success 'a destination rewritten before a move over it is not replaced' '
	printf "source\n" >m-from.txt &&
	printf "dest v1\n" >m-to.txt &&
	test "$(interfering mutation-after-begin "printf \"theirs\n\" >m-to.txt" \
		file move m-from.txt m-to.txt --overwrite)" = 15 &&
	test_error_code CONTENT_CONFLICT out &&
	grep "refusing to replace it" out &&
	test "$(cat m-to.txt)" = theirs &&
	test "$(cat m-from.txt)" = source
'

test_expect_success 'a source rewritten before its move is not moved with bytes the plan never read' '
	printf "source\n" >s-from.txt &&
	test "$(interfering mutation-after-begin "printf \"theirs\n\" >s-from.txt" \
		file move s-from.txt s-to.txt)" = 15 &&
	test_error_code CONTENT_CONFLICT out &&
	test "$(cat s-from.txt)" = theirs &&
	test ! -e s-to.txt
'

test_expect_success 'with --overwrite and no destination, one created meanwhile is not replaced' '
	printf "source\n" >o-from.txt &&
	test "$(interfering mutation-after-begin "printf \"theirs\n\" >o-to.txt" \
		file move o-from.txt o-to.txt --overwrite)" = 14 &&
	test_error_code ALREADY_EXISTS out &&
	test "$(cat o-to.txt)" = theirs &&
	test "$(cat o-from.txt)" = source
'

test_expect_success 'a patch rolls back its own change and keeps another program'"'"'s' '
	printf "a1\n" >pa.txt &&
	printf "b1\n" >pb.txt &&
	cat >two.diff <<-\EOF &&
	--- a/pa.txt
	+++ b/pa.txt
	@@ -1 +1 @@
	-a1
	+a2
	--- a/pb.txt
	+++ b/pb.txt
	@@ -1 +1 @@
	-b1
	+b2
	EOF
	test "$(interfering mutation-after-step-1 "printf \"theirs\n\" >pb.txt" \
		file apply-patch two.diff)" = 15 &&
	test_error_code CONTENT_CONFLICT out &&
	test "$(cat pa.txt)" = a1 &&
	test "$(cat pb.txt)" = theirs &&
	test "$(json_get ".error.details.restored | join(\",\")" out)" = pa.txt &&
	test "$(status_of)" = rolled_back
'

test_expect_success 'a path changed again after its step is left as it is, and named' '
	printf "a1\n" >pa.txt &&
	printf "b1\n" >pb.txt &&
	test "$(FILEKEEPER_TEST_FAIL_AT=mutation-step-2 \
		interfering mutation-after-step-1 "printf \"theirs\n\" >pa.txt" \
		file apply-patch two.diff)" = 19 &&
	test_error_code PARTIAL_RECOVERY out &&
	test "$(cat pa.txt)" = theirs &&
	test "$(cat pb.txt)" = b1 &&
	test "$(json_get ".error.details.not_restored | join(\",\")" out)" = pa.txt &&
	test "$(status_of)" = partial
'

test_expect_success 'that partial operation records the path it never changed, and an undo leaves it alone' '
	test "$(journal "SELECT json_extract(metadata, '"'"'\$.unchanged_paths'"'"') FROM operations WHERE id = '"'"'$(json_get .error.details.operation_id out)'"'"'")" = "[\"pb.txt\"]" &&
	partial_op=$(json_get .error.details.operation_id out) &&
	printf "a2\n" >pa.txt &&
	keeper --json file write pb.txt --content "b2
" >later.json &&
	keeper --json history undo "$partial_op" >undo.json &&
	json_get "[.items[].path] == [\"pa.txt\"]" undo.json &&
	test "$(cat pa.txt)" = a1 &&
	test "$(cat pb.txt)" = b2
'

test_expect_success 'a path put back by another program during the steps is recorded unchanged, and an undo leaves it alone' '
	printf "a1\n" >pa.txt &&
	printf "b1\n" >pb.txt &&
	test "$(interfering mutation-after-step-2 "printf \"a1\n\" >pa.txt" \
		file apply-patch two.diff)" = 15 &&
	test_error_code CONTENT_CONFLICT out &&
	test "$(json_get ".error.details.paths | join(\",\")" out)" = pa.txt &&
	test "$(status_of)" = partial &&
	partial_op=$(json_get .error.details.operation_id out) &&
	test "$(journal "SELECT json_extract(metadata, '"'"'\$.unchanged_paths'"'"') FROM operations WHERE id = '"'"'$partial_op'"'"'")" = "[\"pa.txt\"]" &&
	keeper --json file write pa.txt --content "a2
" >later.json &&
	keeper --json history undo "$partial_op" >undo.json &&
	json_get "[.items[].path] == [\"pb.txt\"]" undo.json &&
	test "$(cat pa.txt)" = a2 &&
	test "$(cat pb.txt)" = b1
'

test_expect_success 'an undo does not remove a created file rewritten since its plan' '
	keeper --json file create u.txt --content "created" >created &&
	test "$(interfering mutation-after-begin "printf \"theirs\n\" >u.txt" \
		history undo "$(json_get .operation_id created)")" = 15 &&
	test_error_code CONTENT_CONFLICT out &&
	test "$(cat u.txt)" = theirs
'

test_expect_success 'a recursive delete stops at a file rewritten meanwhile and puts the rest back' '
	mkdir -p tree/sub &&
	printf "one\n" >tree/one.txt &&
	printf "two\n" >tree/sub/two.txt &&
	test "$(interfering mutation-after-begin "printf \"theirs\n\" >tree/sub/two.txt" \
		dir delete tree --recursive --confirm-recursive)" = 15 &&
	test_error_code CONTENT_CONFLICT out &&
	test "$(cat tree/one.txt)" = one &&
	test "$(cat tree/sub/two.txt)" = theirs &&
	test "$(status_of)" = rolled_back
'

test_expect_success 'a rollback names as not restored only what it made, not a file created in its directory' '
	printf "q1\n" >q.txt &&
	cat >make-dir.diff <<-\EOF &&
	--- /dev/null
	+++ b/newdir/x.txt
	@@ -0,0 +1 @@
	+mine
	--- a/q.txt
	+++ b/q.txt
	@@ -1 +1 @@
	-q1
	+q2
	EOF
	test "$(interfering mutation-after-step-1 "printf \"theirs\n\" >newdir/x.txt" \
		file apply-patch make-dir.diff)" = 19 &&
	test_error_code PARTIAL_RECOVERY out &&
	test "$(json_get ".error.details.not_restored | join(\",\")" out)" = newdir &&
	test "$(cat newdir/x.txt)" = theirs &&
	test "$(cat q.txt)" = q1
'

test_expect_success 'a rolled-back rename of a file above the history cap is renamed back, not lost' '
	mkdir -p "$TRASH/cap/ws" &&
	cap="--home $TRASH/cap/home --root $TRASH/cap/ws" &&
	mkdir -p "$TRASH/cap/home" &&
	printf "[filekeeper]\nmax_history_blob_bytes = 1000\n" >"$TRASH/cap/home/config.toml" &&
	keeper $cap init >/dev/null &&
	head -c 5000 /dev/zero | tr "\\0" x >"$TRASH/cap/ws/big.txt" &&
	cp "$TRASH/cap/ws/big.txt" big.expect &&
	printf "c1\n" >"$TRASH/cap/ws/c.txt" &&
	cat >rename-and-edit.diff <<-\EOF &&
	diff --git a/big.txt b/moved.txt
	similarity index 100%
	rename from big.txt
	rename to moved.txt
	diff --git a/c.txt b/c.txt
	--- a/c.txt
	+++ b/c.txt
	@@ -1 +1 @@
	-c1
	+c2
	EOF
	FILEKEEPER_TEST_INTERFERE_AT=mutation-after-step-1 \
	FILEKEEPER_TEST_INTERFERE="printf \"theirs\\n\" >$TRASH/cap/ws/c.txt" \
		keeper $cap --json file apply-patch "$PWD/rename-and-edit.diff" >out
	test $? = 15 &&
	test_error_code CONTENT_CONFLICT out &&
	test_cmp big.expect "$TRASH/cap/ws/big.txt" &&
	test ! -e "$TRASH/cap/ws/moved.txt" &&
	test "$(cat "$TRASH/cap/ws/c.txt")" = theirs
'

test_expect_success 'a moved tree that cannot be checked after its rename says the move was made and is pending' '
	mkdir -p mv-from &&
	printf "a\n" >mv-from/a.txt &&
	test "$(interfering mutation-after-step-1 "touch mv-to/\$(printf bad\\\\377)" \
		dir move mv-from mv-to)" = 2 &&
	test_error_code INVALID_ARGUMENT out &&
	json_get .error.details.recovery out | grep "the change was made but could not be checked" &&
	test "$(status_of)" = pending &&
	test "$(cat mv-to/a.txt)" = a &&
	rm mv-to/bad* &&
	keeper --json file write after-move.txt --content "next" >next.json &&
	json_get ".warnings[]" next.json | grep "recovered $(json_get .error.details.operation_id out)" &&
	test "$(status_of)" = committed
'

test_expect_success 'nothing is pending, no temp file is left, and fsck is clean' '
	test "$(journal "SELECT count(*) FROM operations WHERE status = '"'"'pending'"'"'")" = 0 &&
	no_temp_files &&
	keeper fsck >/dev/null
'

test_done
