#!/bin/sh
test_description='an I/O fault at any call of any mutating command loses nothing

The test build counts every call that changes durable state (creating, writing, syncing,
renaming and removing files and directories, taking the lock, and each journal transaction)
in the order a command makes them. FILEKEEPER_TEST_FAULT=N:eio or N:enospc makes the Nth call
fail without running; N:die runs it and kills the process on the spot, as a power cut right
after it would. For each mutating command, a first clean run counts its calls (C); then the
sweep runs the command once for every N in 1..C and every fault, each time on a fresh copy of
the case (see lib-mutation-cases.sh). After each:

  - an injected error is reported as STORAGE_ERROR (retryable for ENOSPC), never a crash,
    except at the commit record, when the change is already made: then the command succeeds
    and warns that the record will be completed by the next process; a death exits 134;
  - every path holds exactly its complete old or its complete new state (after an error, all
    of one or all of the other);
  - after a fresh start (keeper recover) nothing is pending, no .fk-tmp-* file is left, and
    keeper fsck is clean;
  - undo of the operation, when it ended committed or partial, restores every old byte.

The last test checks how many cases ran, so a sweep that silently stopped short fails.'
. ./test-lib.sh

# Minutes of sweeping: the long loop only (make test; t/README).
test_require_prereq EXPENSIVE
. "$TEST_DIRECTORY"/lib-mutation-cases.sh

SWEEP=$TRASH/sweep
COMMANDS="file_create file_write file_copy file_move file_move_overwrite file_delete dir_create
dir_move dir_delete replace_text apply_patch history_undo"

test_expect_success 'setup: an old and a new version, long enough that a torn file shows' '
	make_versions
'

test_expect_success 'the calls are numbered the same in every run, and a plan fails exactly the named one' '
	mkdir logged faulted &&
	FILEKEEPER_TEST_FAULT_LOG=$PWD/calls keeper --root "$PWD/logged" file create p.txt --content x &&
	n=$(sed -n "s/ take workspace lock\$//p" calls) &&
	test -n "$n" &&
	test_expect_code 26 env FILEKEEPER_TEST_FAULT=$n:eio \
		keeper --json --root "$PWD/faulted" file create p.txt --content x >out &&
	test_error_code STORAGE_ERROR out &&
	grep "taking the workspace lock" out &&
	! test -e faulted/p.txt &&
	keeper --root "$PWD/faulted" file create p.txt --content x >/dev/null &&
	test -f faulted/p.txt
'

# calls_of CMD: how many counted calls CMD makes on a fresh case, from a clean logged run.
calls_of () {
	rm -rf "$SWEEP/count" &&
	make_case $1 "$SWEEP/count" &&
	(
		cd "$SWEEP/count" &&
		FILEKEEPER_TEST_FAULT_LOG=$SWEEP/count/log "run_$1" >/dev/null &&
		survey >state && test "$(cat state)" = after &&
		wc -l <log | tr -d " "
	)
}

# ops_of_case: every operation id of the current case, oldest first.
ops_of_case () {
	if test -f ws/.filekeeper/journal.sqlite3; then
		rows "SELECT id FROM operations ORDER BY seq"
	fi
}

# injected CMD FAULT: runs CMD with FAULT armed and checks how it ended.
injected () {
	(FILEKEEPER_TEST_FAULT=$2 IN_CASE_OPTIONS=--json && export FILEKEEPER_TEST_FAULT &&
		"run_$1") >result
	code=$?
	case $2 in
	*:die)
		test $code -eq 134 || { echo >&2 "expected death, got exit $code"; return 1; }
		;;
	*:eio|*:enospc)
		if test $code -eq 0; then
			# Only the commit record may fail after the change is made: success, said plainly.
			json_get ".warnings[]" result | grep "commit record could not be written" &&
			return
		fi
		test $code -eq 26 || { echo >&2 "expected exit 26, got $code"; cat >&2 result; return 1; }
		test_error_code STORAGE_ERROR result &&
		case $2 in
		*:enospc) json_get ".error.retryable == true" result ;;
		esac &&
		test_no_host_path result
		;;
	esac
}

# fresh_start: what the next process finds: recover resolves whatever is pending (exit 19 when
# an operation was only partly applied), then nothing is pending or left over and fsck is clean.
fresh_start () {
	in_case --json recover >recover.json
	code=$?
	test $code -eq 0 || test $code -eq 19 || { cat >&2 recover.json; return 1; }
	if test -f ws/.filekeeper/journal.sqlite3; then
		test "$(pending_count)" = 0
	fi &&
	no_temp_files ws &&
	in_case fsck >/dev/null
}

# undo_new_ops: undoes every operation the faulted command left committed or partial (newest
# first); then every path must hold its old state again.
undo_new_ops () {
	ops_of_case | grep -vxF -f ops-before >new-ops
	for op in $(tac new-ops); do
		status=$(rows "SELECT status FROM operations WHERE id = '$op'")
		case $status in
		committed|partial) in_case history undo "$op" >/dev/null || return 1 ;;
		esac
	done &&
	survey >state &&
	test "$(cat state)" = before &&
	in_case fsck >/dev/null
}

# sweep CMD FAULT CALLS: one case per call; prints the number of cases run.
sweep_cases () {
	n=1
	while test $n -le $3; do
		dir=$SWEEP/$1.$2.$n
		make_case $1 "$dir" &&
		(
			cd "$dir" &&
			{ ops_of_case >ops-before && echo none >>ops-before; } &&
			injected $1 "$n:$2" &&
			survey >state &&
			case $2 in
			die) grep -qx "before\|after\|mixed" state ;;
			*) grep -qx "before\|after" state ;;
			esac &&
			fresh_start &&
			survey >state-recovered &&
			test_cmp state state-recovered &&
			undo_new_ops
		) || { echo >&2 "failed at $1 with fault $n:$2"; return 1; }
		rm -rf "$dir"
		echo "$1 $2 $n" >>"$SWEEP/ran"
		n=$((n + 1))
	done
}

mkdir -p "$SWEEP"
expected_cases=0
for cmd in $COMMANDS; do
	calls=$(calls_of $cmd) || calls=0
	test_expect_success "$(echo $cmd | tr _ " "): a clean run makes counted calls ($calls)" '
		test "$calls" -gt 0
	'
	for fault in eio enospc die; do
		expected_cases=$((expected_cases + calls))
		test_expect_success "$(echo $cmd | tr _ " "): $fault at each of its $calls calls loses nothing" '
			sweep_cases $cmd $fault $calls
		'
	done
done

# Retention: history prune and gc, swept the same way on their own case. They change no
# workspace file, so what must hold is about the state directory: the prune marks all its
# operations or none (one transaction); whatever gc removed, every object an unpruned operation
# names is there and verifies (fsck clean), and every unpruned operation still undoes; a clean
# run afterwards completes the work.

# retention_case DIR: five writes of doc.txt (version 1 to 5), a stray blob and a leftover temp
# file of a dead writer; with the second argument "pruned", the three oldest writes pruned.
retention_case () {
	mkdir -p "$1/ws" &&
	(
		cd "$1" &&
		for v in 1 2 3 4 5; do
			in_case file write doc.txt --content "version $v
" >/dev/null || exit 1
		done &&
		printf "stray\n" | in_case hash-object -w --stdin >/dev/null &&
		printf x >ws/.filekeeper/objects/tmp_obj_0123456789abcdef &&
		touch -d "2 days ago" ws/.filekeeper/objects/tmp_obj_0123456789abcdef &&
		if test "${2:-}" = pruned; then
			in_case history prune --keep-last 2 --grace-period 0 >/dev/null
		fi
	)
}

run_history_prune () { in_case history prune --keep-last 2 --grace-period 0; }
run_gc () { in_case gc --grace-period 0; }

# retention_intact: fsck finds nothing missing or damaged, and undo-last walks back through the
# two unpruned writes to version 3; the prune is all or nothing.
retention_intact () {
	in_case --json fsck >fsck.json &&
	json_get ".missing_objects == [] and .damaged_objects == []" fsck.json >/dev/null &&
	pruned=$(rows "SELECT count(*) FROM $PRUNED_OPERATIONS") &&
	{ test "$pruned" = 0 || test "$pruned" = 3; } &&
	in_case history undo-last >/dev/null &&
	in_case history undo-last >/dev/null &&
	test "$(cat ws/doc.txt)" = "version 3"
}

# retention_sweep CMD FAULT CALLS
retention_sweep () {
	n=1
	while test $n -le $3; do
		dir=$SWEEP/$1.$2.$n
		case $1 in
		gc) retention_case "$dir" pruned ;;
		*) retention_case "$dir" ;;
		esac &&
		(
			cd "$dir" &&
			(FILEKEEPER_TEST_FAULT=$n:$2 IN_CASE_OPTIONS=--json && export FILEKEEPER_TEST_FAULT &&
				"run_$1") >result
			code=$?
			case $2 in
			die) test $code -eq 134 ;;
			*) test $code -eq 0 || { test $code -eq 26 && test_error_code STORAGE_ERROR result; } ;;
			esac || { echo >&2 "unexpected exit $code"; cat >&2 result; exit 1; }
			# A clean run then finishes the work, and everything still holds.
			"run_$1" >/dev/null &&
			test "$(rows "SELECT count(*) FROM $PRUNED_OPERATIONS")" = 3 || {
				test $1 = gc || exit 1
			}
			retention_intact
		) || { echo >&2 "failed at $1 with fault $n:$2"; return 1; }
		rm -rf "$dir"
		echo "$1 $2 $n" >>"$SWEEP/ran-retention"
		n=$((n + 1))
	done
}

# retention_calls CMD: the counted calls of a clean run of CMD on its case.
retention_calls () {
	rm -rf "$SWEEP/rcount" &&
	case $1 in
	gc) retention_case "$SWEEP/rcount" pruned ;;
	*) retention_case "$SWEEP/rcount" ;;
	esac &&
	(cd "$SWEEP/rcount" && FILEKEEPER_TEST_FAULT_LOG=$SWEEP/rcount/log "run_$1" >/dev/null &&
		wc -l <log | tr -d " ")
}

retention_expected=0
for cmd in history_prune gc; do
	calls=$(retention_calls $cmd) || calls=0
	test_expect_success "$(echo $cmd | tr _ " "): a clean run makes counted calls ($calls)" '
		test "$calls" -gt 0
	'
	for fault in eio enospc die; do
		retention_expected=$((retention_expected + calls))
		test_expect_success "$(echo $cmd | tr _ " "): $fault at each of its $calls calls loses nothing" '
			retention_sweep $cmd $fault $calls
		'
	done
done

test_expect_success "the retention sweep ran every case ($retention_expected)" '
	test_line_count = $retention_expected "$SWEEP/ran-retention"
'

test_expect_success "the sweep ran every case ($expected_cases)" '
	test_line_count = $expected_cases "$SWEEP/ran" &&
	cut -d" " -f1 "$SWEEP/ran" | sort -u >commands &&
	test_line_count = $(echo $COMMANDS | wc -w) commands
'

test_done
