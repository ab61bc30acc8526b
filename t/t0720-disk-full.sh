#!/bin/sh
test_description='a really full disk: every mutation fails cleanly and retryably, and leaves nothing behind

The workspace lives on a small tmpfs, and with it its state directory .filekeeper/, so the
object store and the journal share the full disk with the tree (the Filekeeper home stays
elsewhere). A filler file, written with head -c outside keeper and outside the workspace,
takes all the space but L bytes, for L = 0, 4 KiB, 8 KiB, ...: each mutating command meets
ENOSPC at every stage in turn (storing an object, recording the pending operation, writing the
temp file beside the target, committing), and the identical request is retried with one page
more each time until it succeeds. Every failure must be STORAGE_ERROR, exit 26, retryable true
with a recovery hint; the tree must be exactly as before, every path and every byte; no
.fk-tmp-* or tmp_obj_* file may be left anywhere on the disk; the attempt is in the journal
only as rolled back, or as pending when even that could not be recorded, which keeper recover
then resolves as rolled back; fsck stays clean. A success is recorded committed, or, when
there was room for the change but not for its commit record, says so in a warning and keeper
recover records it committed.

Also: history prune on the full disk fails the same clean way until there is room for its one
transaction and then marks all it cuts, gc succeeds with no byte free, and after both fsck is
clean and the newest unpruned operation undoes. And: creating files until the disk is really full, then the identical failed request once
space is freed; the first mutation of a fresh workspace, which must create the journal; a
journal whose WAL and shared-memory files another SQLite client checkpointed away. At the end
every operation that committed on the nearly full disk can still be undone.

Needs root and a mountable tmpfs; the whole script is skipped otherwise. The outcome of every
probe is printed as a TAP comment after its sweep; KEEPER_DISK_FULL_STEP changes the 4 KiB
step, KEEPER_DISK_FULL_KEEP_GOING=1 lets a sweep go past a probe that failed uncleanly.'
. ./test-lib.sh

DISK=$TRASH/disk
D=$DISK/ws
# The root the probes work on: the registered workspace D unless a test sets it.
R=$D
# A command run just before each probe fills the disk, to re-create the condition a sweep is
# about.
before_probe=:
LOG=$TRASH/disk-log
P=$TRASH/probe
STEP=${KEEPER_DISK_FULL_STEP:-4096}
MAX_FREE=524288
mkdir -p "$DISK" "$LOG" "$P"

# A sweep of every mutation over the free space takes minutes: the long loop only (t/README).
test_require_prereq EXPENSIVE,TMPFS
mount -t tmpfs -o size=16m,mode=0755 tmpfs "$DISK" 2>"$TRASH/mount.err" ||
	error "cannot mount the disk: $(head -n 1 "$TRASH/mount.err")"
trap 'cd / && { umount "$DISK" || umount -l "$DISK"; }; test_cleanup' EXIT

# free_bytes: what the tmpfs has left.
free_bytes () {
	df -B1 --output=avail "$DISK" | tail -n 1 | tr -d " "
}

# fill L: the filler takes all the space but L bytes (a multiple of the 4 KiB page).
fill () {
	rm -f "$DISK/filler" &&
	n=$(($(free_bytes) - $1)) &&
	if test $n -gt 0; then
		head -c $n /dev/zero >"$DISK/filler"
	fi &&
	test "$(free_bytes)" -le "$1" || {
		echo >&2 "could not fill the disk to $1 bytes free"
		return 1
	}
}

unfill () {
	rm -f "$DISK/filler"
}

# disk_journal SQL: a read-only query on R's journal, nothing when there is none yet. Read-only, so
# that closing it never checkpoints and deletes the WAL and shared-memory files keeper keeps.
disk_journal () {
	if test -s "$R/.filekeeper/journal.sqlite3"; then
		sqlite3 -readonly "$R/.filekeeper/journal.sqlite3" "$1"
	fi
}

# leftovers: temp files of ours anywhere on the disk.
leftovers () {
	find "$DISK" \( -name ".fk-tmp-*" -o -name "tmp_obj_*" \) -print
}

# fsck_clean: keeper fsck of R finds no damage, nothing pending, no temp or unknown file.
fsck_clean () {
	keeper --json --root "$R" fsck >"$P/fsck.json" &&
	json_get ".ok and .pending_operations == [] and .damaged_objects == [] and
		.missing_objects == [] and .temporary_files == [] and .unknown_files == [] and
		.journal_problems == []" "$P/fsck.json" >/dev/null || {
		echo >&2 "fsck is not clean:"
		cat >&2 "$P/fsck.json"
		return 1
	}
}

# committed_or_owned: a success recorded its operation committed; or, when there was room for
# the change but not for its commit record, it said so in a warning, left the record pending,
# and keeper recover records it committed.
committed_or_owned () {
	test "$(cat "$P/records")" = "committed " && return
	test "$(cat "$P/records")" = "pending " &&
	json_get ".warnings[]" "$P/out" | grep -q "commit record could not be written" &&
	keeper --json --root "$R" recover >"$P/recover.json" &&
	json_get '.resolved[0].status == "committed"' "$P/recover.json" >/dev/null &&
	disk_journal "SELECT status FROM operations WHERE seq > ${seq0:-0} ORDER BY seq" | tr "\n" " " >"$P/records" &&
	test "$(cat "$P/records")" = "committed "
}

# probe NAME L CMD...: runs CMD (a keeper --json mutation of R) with L bytes free, frees the
# space, and checks the outcome; appends a line to LOG/NAME. A success creates P/done; a clean
# failure returns 0 too; anything else returns 1, saying why.
probe () {
	name=$1 L=$2
	shift 2
	(cd "$R" && tree_content) >"$P/before" &&
	seq0=$(disk_journal "SELECT coalesce(max(seq), 0) FROM operations") &&
	# The hook runs after that query, which would re-create the files checkpoint_away
	# removes; when the hook removed the journal itself, every record will be new.
	$before_probe &&
	{ test -e "$R/.filekeeper/journal.sqlite3" || seq0=0; } &&
	fill "$L" || return 1
	"$@" >"$P/out" 2>"$P/err"
	code=$?
	leftovers >"$P/leftovers"
	unfill
	disk_journal "SELECT status FROM operations WHERE seq > ${seq0:-0} ORDER BY seq" | tr "\n" " " >"$P/records"
	disk_journal "SELECT status FROM operations WHERE seq > ${seq0:-0}
		AND status NOT IN ('rolled_back', 'pending')" >"$P/unexpected-records"
	(cd "$R" && tree_content) >"$P/after"
	if cmp -s "$P/before" "$P/after"; then tree=unchanged; else tree=changed; fi
	outcome=$(jq -r 'if .ok then "succeeded" else "\(.error.code) retryable=\(.error.retryable): \(.error.message)" end' \
		"$P/out" 2>/dev/null) || outcome="no JSON document: $(head -c 200 "$P/out" "$P/err")"
	echo "$L|exit $code, $outcome, tree $tree, new records: $(cat "$P/records")" >>"$LOG/$name"

	if test $code -eq 0; then
		json_get ".ok == true" "$P/out" >/dev/null &&
		committed_or_owned &&
		test_line_count = 0 "$P/leftovers" &&
		fsck_clean &&
		: >"$P/done" || {
			echo >&2 "$name succeeded with $L bytes free, but not cleanly"
			return 1
		}
		return 0
	fi
	{ test $code -eq 26 || { echo >&2 "exit $code, wanted 26"; false; }; } &&
	test_error_code STORAGE_ERROR "$P/out" &&
	json_get ".error.retryable == true and (.error.details.recovery | type == \"string\")" "$P/out" >/dev/null &&
	test_no_host_path "$P/out" &&
	test_cmp "$P/before" "$P/after" &&
	test_line_count = 0 "$P/leftovers" &&
	test_line_count = 0 "$P/unexpected-records" &&
	if grep -q pending "$P/records"; then
		keeper --json --root "$R" recover >"$P/recover.json" &&
		disk_journal "SELECT status FROM operations WHERE seq > ${seq0:-0} AND status != 'rolled_back'" >"$P/unresolved" &&
		test_line_count = 0 "$P/unresolved" &&
		(cd "$R" && tree_content) >"$P/recovered" &&
		test_cmp "$P/before" "$P/recovered"
	fi &&
	fsck_clean || {
		echo >&2 "$name with $L bytes free did not fail cleanly; the request's output:"
		cat >&2 "$P/out"
		return 1
	}
}

# sweep NAME CMD...: probes CMD with 0, STEP, 2 STEP, ... bytes free until it succeeds; fails
# at the first probe that does not fail cleanly, or when it never succeeds. With
# KEEPER_DISK_FULL_KEEP_GOING set, it goes on after a probe that failed uncleanly but left the
# tree as it was, to show every stage that misbehaves (the test still fails).
sweep () {
	name=$1
	shift
	rm -f "$P/done" &&
	: >"$LOG/$name" &&
	bad=0 &&
	L=0 &&
	while test $L -le $MAX_FREE; do
		if ! probe "$name" $L "$@"; then
			bad=1
			keeper --root "$R" recover >/dev/null 2>&1
			test -n "${KEEPER_DISK_FULL_KEEP_GOING:-}" &&
			! tail -n 1 "$LOG/$name" | grep -q ", tree changed," || return 1
		fi
		test -f "$P/done" && return $bad
		L=$((L + STEP))
	done
	echo >&2 "$name never succeeded with up to $MAX_FREE bytes free"
	return 1
}

# failures NAME: how many probes of the sweep NAME failed.
failures () {
	grep -c -v "|exit 0," "$LOG/$1"
}

# report NAME: the sweep's outcomes as TAP comments, consecutive equal outcomes folded.
report () {
	test -f "$LOG/$1" || return 0
	awk -F"|" -v name="$1" '
		$2 != prev { if (NR > 1) print "# " name ": " first "-" last " B free: " prev; first = $1; prev = $2 }
		{ last = $1 }
		END { if (NR) print "# " name ": " first "-" last " B free: " prev }
	' "$LOG/$1"
}

# text BYTES: BYTES of random data as base64 text, which compresses little.
text () {
	head -c "$1" /dev/urandom | base64 -w 76
}

test_expect_success 'setup: a workspace on the tmpfs, selected as the default' '
	mkdir "$D" &&
	keeper workspace create disk "$D" >/dev/null &&
	keeper workspace use disk >/dev/null &&
	test "$(stat -f -c %T "$D")" = tmpfs
'
cd "$D" || exit 1

test_expect_success 'setup: the files every sweep works on, written outside keeper' '
	text 24576 >big.txt &&
	cp big.txt "$TRASH/big.orig" &&
	text 24576 >"$TRASH/new.txt" &&
	text 24576 >original.txt &&
	text 24576 >mover.txt &&
	text 24576 >doomed.txt &&
	mkdir -p olddir/sub tree/sub &&
	text 8192 >olddir/a.txt &&
	text 8192 >olddir/sub/b.txt &&
	text 8192 >tree/a.txt &&
	text 8192 >tree/sub/b.txt &&
	{ text 24576 && echo NEEDLE && text 4096; } >edit.txt &&
	text 12288 | tr -d "\n" >"$TRASH/needle.new" &&
	text 24576 >p1.txt &&
	text 24576 >p2.txt &&
	for f in p1 p2; do
		{ cat $f.txt && text 12288 | tr -d "\n" && echo; } >"$TRASH/$f.expect" || return 1
		# diff exits 1 when the files differ, as they must.
		diff -u --label a/$f.txt --label b/$f.txt $f.txt "$TRASH/$f.expect" >>"$TRASH/two.patch"
		test $? = 1 || return 1
	done &&
	grep -c "^@@" "$TRASH/two.patch" >"$P/hunks" &&
	test "$(cat "$P/hunks")" = 2 &&
	head -c 1048576 /dev/zero >"$DISK/reserve"
'

test_expect_success 'creating 256 KiB files until the disk is full ends in a retryable STORAGE_ERROR, exit 26' '
	yes "filler line of a file that fills the disk" | head -c 262144 >"$TRASH/quarter" &&
	keeper dir create fill >/dev/null &&
	i=1 &&
	while test $i -le 100; do
		keeper --json file create fill/f$i.txt --input "$TRASH/quarter" >"$P/out"
		code=$?
		test $code = 0 || break
		i=$((i + 1))
	done &&
	echo $i >"$TRASH/full-at" &&
	test $i -gt 1 && test $i -le 100 &&
	test $code = 26 &&
	test_error_code STORAGE_ERROR "$P/out" &&
	json_get ".error.retryable == true" "$P/out" &&
	cp "$P/out" "$TRASH/full.json"
'

test_expect_success 'the full disk damaged nothing: every created file is complete, the failed one absent, no temp file, nothing partial' '
	n=$(cat "$TRASH/full-at") &&
	test ! -e fill/f$n.txt &&
	i=1 &&
	while test $i -lt $n; do
		cmp "$TRASH/quarter" fill/f$i.txt || return 1
		i=$((i + 1))
	done &&
	leftovers >"$P/temps" &&
	test_line_count = 0 "$P/temps" &&
	disk_journal "SELECT count(*) FROM operations WHERE status NOT IN ('\''committed'\'', '\''rolled_back'\'', '\''pending'\'')" >"$P/unresolved" &&
	test "$(cat "$P/unresolved")" = 0
'

test_expect_success 'once space is freed outside keeper, the identical request succeeds; nothing is left pending' '
	n=$(cat "$TRASH/full-at") &&
	rm "$DISK/reserve" &&
	keeper --json file create fill/f$n.txt --input "$TRASH/quarter" >"$P/out" &&
	cmp "$TRASH/quarter" fill/f$n.txt &&
	op=$(json_get .operation_id "$P/out") &&
	test "$(disk_journal "SELECT status FROM operations WHERE id = '\''$op'\''")" = committed &&
	disk_journal "SELECT count(*) FROM operations WHERE status NOT IN ('\''committed'\'', '\''rolled_back'\'')" >"$P/unresolved" &&
	test "$(cat "$P/unresolved")" = 0 &&
	fsck_clean
'

test_expect_success 'keeper frees the space again by deleting the files it created' '
	keeper --json dir delete fill --recursive --confirm-recursive >"$P/out" &&
	test ! -e fill &&
	test "$(free_bytes)" -gt $((8 * 1048576)) &&
	disk_journal "SELECT max(seq) FROM operations" >"$TRASH/sweeps-start" &&
	(cd "$R" && tree_content) >"$TRASH/tree-before-sweeps"
'

# Each sweep: one mutating command against a disk full at every stage, until it succeeds;
# then what its success must have done.

test_expect_success 'file write fails cleanly at every stage of a full disk, then succeeds' '
	sweep write keeper --json file write big.txt --input "$TRASH/new.txt" &&
	test "$(failures write)" -gt 0 &&
	cmp "$TRASH/new.txt" big.txt &&
	json_get .operation_id "$P/out" >"$TRASH/write.op"
'
report write

test_expect_success 'file create fails cleanly at every stage of a full disk, then succeeds' '
	sweep create keeper --json file create created.txt --input "$TRASH/new.txt" &&
	test "$(failures create)" -gt 0 &&
	cmp "$TRASH/new.txt" created.txt
'
report create

test_expect_success 'file copy fails cleanly at every stage of a full disk, then succeeds' '
	sweep copy keeper --json file copy original.txt copy.txt &&
	test "$(failures copy)" -gt 0 &&
	cmp original.txt copy.txt
'
report copy

test_expect_success 'file move fails cleanly at every stage of a full disk, then succeeds' '
	sha mover.txt >"$P/expect" &&
	sweep move keeper --json file move mover.txt moved.txt &&
	test "$(failures move)" -gt 0 &&
	test ! -e mover.txt &&
	sha moved.txt >"$P/actual" &&
	test_cmp "$P/expect" "$P/actual"
'
report move

test_expect_success 'file delete fails cleanly at every stage of a full disk, then succeeds' '
	sweep delete keeper --json file delete doomed.txt &&
	test "$(failures delete)" -gt 0 &&
	test ! -e doomed.txt
'
report delete

test_expect_success 'dir create fails cleanly at every stage of a full disk, then succeeds' '
	sweep dir-create keeper --json dir create newdir &&
	test -d newdir
'
report dir-create

test_expect_success 'dir move fails cleanly at every stage of a full disk, then succeeds' '
	(cd olddir && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$P/expect" &&
	sweep dir-move keeper --json dir move olddir newplace &&
	test ! -e olddir &&
	(cd newplace && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$P/actual" &&
	test_cmp "$P/expect" "$P/actual"
'
report dir-move

test_expect_success 'dir delete --recursive fails cleanly at every stage of a full disk, then succeeds' '
	sweep dir-delete keeper --json dir delete tree --recursive --confirm-recursive &&
	test "$(failures dir-delete)" -gt 0 &&
	test ! -e tree
'
report dir-delete

test_expect_success 'replace-text fails cleanly at every stage of a full disk, then succeeds' '
	sweep replace-text keeper --json file replace-text edit.txt --first --old NEEDLE --new-file "$TRASH/needle.new" &&
	test "$(failures replace-text)" -gt 0 &&
	! grep NEEDLE edit.txt &&
	grep -F -f "$TRASH/needle.new" edit.txt >/dev/null
'
report replace-text

test_expect_success 'apply-patch of two files fails cleanly at every stage of a full disk, then succeeds' '
	sweep apply-patch keeper --json file apply-patch "$TRASH/two.patch" &&
	test "$(failures apply-patch)" -gt 0 &&
	cmp "$TRASH/p1.expect" p1.txt &&
	cmp "$TRASH/p2.expect" p2.txt
'
report apply-patch

test_expect_success 'undo of the write fails cleanly at every stage of a full disk, then succeeds' '
	sweep undo keeper --json history undo "$(cat "$TRASH/write.op")" &&
	test "$(failures undo)" -gt 0 &&
	cmp "$TRASH/big.orig" big.txt
'
report undo

test_expect_success 'after the sweeps nothing is pending or partial, no temp file is left, fsck is clean' '
	disk_journal "SELECT count(*) FROM operations WHERE status NOT IN ('\''committed'\'', '\''rolled_back'\'')" >"$P/unresolved" &&
	test "$(cat "$P/unresolved")" = 0 &&
	leftovers >"$P/temps" &&
	test_line_count = 0 "$P/temps" &&
	fsck_clean
'

test_expect_success 'every operation that committed on the nearly full disk can be undone, newest first' '
	disk_journal "SELECT id FROM operations o WHERE seq > $(cat "$TRASH/sweeps-start")
		AND status = '\''committed'\'' AND kind != '\''undo'\''
		AND NOT EXISTS (SELECT 1 FROM operations u WHERE u.undoes = o.id AND u.status = '\''committed'\'')
		ORDER BY seq DESC" >"$P/undoable" &&
	test "$(wc -l <"$P/undoable")" -ge 9 &&
	while read op; do
		keeper --json history undo $op >"$P/out" || { cat "$P/out"; return 1; }
	done <"$P/undoable" &&
	(cd "$R" && tree_content) >"$P/after" &&
	test_cmp "$TRASH/tree-before-sweeps" "$P/after"
'

# Retention on the full disk: a prune, which writes one journal transaction, fails cleanly
# (STORAGE_ERROR, retryable, nothing marked) until there is room, then marks all it cuts; gc,
# which only removes, succeeds with no byte free. Afterwards fsck is clean and the newest
# unpruned operation still undoes.

test_expect_success 'history prune fails cleanly at every stage of a full disk, then prunes all it cuts' '
	journal_path=$D/.filekeeper/journal.sqlite3 &&
	L=0 && done= failed= &&
	while test $L -le $MAX_FREE && test -z "$done"; do
		# An empty WAL, so the prune'"'"'s transaction needs new blocks: SQLite reuses a WAL
		# file'"'"'s space, and a prune into a WAL long enough already needs no free byte.
		sqlite3 "$journal_path" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
		fill $L &&
		keeper --json history prune --keep-last 4 --grace-period 0 >"$P/out"
		code=$?
		unfill
		pruned=$(disk_journal "SELECT count(*) FROM $PRUNED_OPERATIONS") &&
		leftovers >"$P/leftovers" &&
		test_line_count = 0 "$P/leftovers" &&
		fsck_clean &&
		if test $code -eq 0; then
			json_get ".pruned_operations > 0" "$P/out" >/dev/null &&
			test "$pruned" = "$(json_get .pruned_operations "$P/out")" &&
			done=yes
		else
			test $code -eq 26 &&
			test_error_code STORAGE_ERROR "$P/out" &&
			json_get ".error.retryable == true" "$P/out" >/dev/null &&
			test "$pruned" = 0 &&
			failed=yes
		fi || { echo >&2 "prune with $L bytes free: exit $code"; cat >&2 "$P/out"; return 1; }
		L=$((L + STEP))
	done &&
	echo "prune: failed on the full disk: ${failed:-never}; succeeded at $((L - STEP)) bytes free" &&
	test -n "$done" && test -n "$failed"
'

test_expect_success 'gc succeeds with no byte free and frees space' '
	fill 0 &&
	before=$(free_bytes) &&
	keeper --json gc --grace-period 0 >"$P/out" &&
	json_get ".removed_objects > 0" "$P/out" >/dev/null &&
	test "$(free_bytes)" -gt "$before" &&
	unfill &&
	fsck_clean
'

test_expect_success 'the newest unpruned operation still undoes after the prune and gc' '
	op=$(disk_journal "SELECT id FROM operations WHERE id NOT IN (SELECT id FROM $PRUNED_OPERATIONS) AND status = '\''committed'\''
		ORDER BY seq DESC LIMIT 1") &&
	keeper --json history undo $op >"$P/out" &&
	json_get ".ok" "$P/out" >/dev/null &&
	fsck_clean
'

# Beyond a journal that keeper itself left ready.

test_expect_success 'setup: a second workspace whose journal another SQLite client checkpointed away' '
	mkdir "$DISK/other" &&
	text 24576 >"$DISK/other/a.txt" &&
	keeper --root "$DISK/other" file write a.txt --content "first version
" >/dev/null &&
	sqlite3 "$DISK/other/.filekeeper/journal.sqlite3" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	test ! -e "$DISK/other/.filekeeper/journal.sqlite3-shm" &&
	test ! -e "$DISK/other/.filekeeper/journal.sqlite3-wal"
'

# checkpoint_away: what the sqlite3 shell does when it closes the journal last: checkpoint
# the WAL into the database and delete the WAL and shared-memory files.
checkpoint_away () {
	sqlite3 "$R/.filekeeper/journal.sqlite3" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	test ! -e "$R/.filekeeper/journal.sqlite3-shm"
}

test_expect_success 'a journal without its WAL and shared memory fails cleanly at every stage of a full disk' '
	R=$DISK/other &&
	before_probe=checkpoint_away &&
	sweep no-shm keeper --json --root "$R" file write a.txt --content "second version" &&
	test "$(cat "$R/a.txt")" = "second version"
'
report no-shm

# fresh_workspace: a workspace that no keeper has used yet.
fresh_workspace () {
	rm -rf "$R/.filekeeper"
}

test_expect_success 'the first mutation of a fresh workspace fails cleanly at every stage of a full disk' '
	mkdir "$DISK/fresh" &&
	printf "hello\n" >"$DISK/fresh/a.txt" &&
	R=$DISK/fresh &&
	before_probe=fresh_workspace &&
	sweep fresh keeper --json --root "$R" file write a.txt --content "bye
" &&
	test "$(cat "$R/a.txt")" = bye
'
report fresh

test_done
