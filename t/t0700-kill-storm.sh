#!/bin/sh
test_description='a storm of SIGKILLs at random moments loses nothing

Mutating commands are started and killed with SIGKILL after a random delay, again and again.
A clean run of each command is timed first (the median of a few), and each delay is drawn from
zero to a quarter past that time, so the kills land anywhere: before keeper has started, while
it stores blobs, while an operation is pending in the journal, after its commit, or after it
has exited.

Part one writes one file again and again in one workspace, each write killed; the next write
resolves whatever the last one left pending. After every kill the file must hash to one complete
version it was given, never a torn mix; at the end nothing is pending, no temp file of ours is
left, fsck is clean, and undoing what committed walks back through complete versions.

Part two rotates through every mutating command (file write, create, copy, move, delete; dir
create, move, recursive delete; replace-text; apply-patch across three files; undo), each round
on a fresh case from lib-mutation-cases.sh. After each kill:

  - every path holds exactly its complete old or complete new state, and nothing else appeared;
  - a fresh start (keeper recover) exits 0, or 19 for a partly applied operation, and resolves
    what it finds honestly: committed when every path holds its after state, rolled_back when
    every path holds its before state, partial otherwise, naming exactly the changed paths;
    without a pending record the tree is all before (nothing recorded) or all after (committed);
  - recovery changed no path, nothing is pending, no .fk-tmp-* file is left, fsck is clean;
  - undo of the operation, when it is committed or partial, restores every old byte.

Each round records where its kill landed, and the counts are printed as TAP comments. Some
kills must have landed mid-operation (a pending record that the next process had to resolve:
in part two, keeper recover; in part one, the next write, which rolled it back), or the storm
proved nothing.

Part three kills history prune and gc (each round: three writes, a prune and a gc, each
killed at random): after every round fsck finds nothing missing or damaged, every prune marked
all of its operations or none, and undo of the newest write restores the version before it.

KEEPER_KILL_STORM=N sets the rounds of each part (a third of them for part three) (66 by default, six per command; a release
check runs 1700, see docs/reliability.md). KEEPER_KILL_STORM_SEED=S repeats the delays of a run.'
. ./test-lib.sh
. "$TEST_DIRECTORY"/lib-mutation-cases.sh

rounds=${KEEPER_KILL_STORM:-66}
seed=${KEEPER_KILL_STORM_SEED:-$(date +%s)}
STORM=$TRASH/storm
COMMANDS="file_write file_create file_copy file_move file_delete dir_create dir_move
dir_delete replace_text apply_patch history_undo"

# The kills are timed by a tiny C helper, not by `sleep` and `kill`: starting a sleep process on
# a busy machine can take longer than a whole keeper run, and the kills would bunch up after
# the end. `storm-kill REPORT MS COMMAND...` starts COMMAND, waits at most MS milliseconds for
# it to exit, SIGKILLs it if it has not, and reaps it; it writes "STATUS ELAPSED" to REPORT: the
# exit status as the shell gives it (137 after SIGKILL) and the milliseconds from starting the
# command to reaping it. With MS below zero it never kills: a clean run, timed.
# Rounds of kills for every command take over a minute: the long loop only (t/README).
test_require_prereq EXPENSIVE,CC
cat >"$TRASH/storm-kill.c" <<\EOF
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: storm-kill REPORT MS COMMAND [ARG...]\n");
		return 2;
	}
	long ms = atol(argv[2]);
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	signal(SIGCHLD, SIG_DFL);
	/* Blocked before the fork, so that the child's exit waits for sigtimedwait. */
	sigprocmask(SIG_BLOCK, &chld, NULL);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		_exit(127);
	}
	if (ms >= 0) {
		struct timespec left = { ms / 1000, (ms % 1000) * 1000000L };
		if (sigtimedwait(&chld, NULL, &left) < 0 && errno == EAGAIN)
			kill(pid, SIGKILL);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("waitpid");
			return 2;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long elapsed = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	FILE *report = fopen(argv[1], "w");
	if (!report) {
		perror(argv[1]);
		return 2;
	}
	fprintf(report, "%d %ld\n",
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), elapsed);
	return fclose(report) ? 2 : 0;
}
EOF
STORM_KILL=$TRASH/storm-kill
cc -O2 -o "$STORM_KILL" "$TRASH/storm-kill.c" >"$TRASH/cc.out" 2>&1
echo "# kill storm: $rounds rounds per part, seed $seed"

# The random fractions of the whole storm, from its seed: the first $rounds for part one, the
# next $rounds for part two.
awk -v seed="$seed" -v n=$((2 * rounds)) 'BEGIN { srand(seed); for (i = 1; i <= n; i++) print rand() }' \
	>"$TRASH/fractions"

# delay_of FRACTION MS: FRACTION of a quarter past MS, in whole milliseconds.
delay_of () {
	awk -v f="$1" -v ms="$2" 'BEGIN { printf "%d\n", f * ms * 5 / 4 }'
}

# median: the middle one of the numbers on stdin, one a line. (Not the mean: one run slowed
# down by a busy machine would stretch every delay past the end of the command.)
median () {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# status: keeper's exit status in the report "killed": 0 when it finished, 137 when killed.
status () {
	cut -d" " -f1 killed
}

test_expect_success 'setup: the kill helper kills when told, and lets a quick command finish' '
	cat "$TRASH/cc.out" &&
	"$STORM_KILL" "$TRASH/report" 10 sleep 5 &&
	grep -x "137 [0-9]*" "$TRASH/report" &&
	test "$(cut -d" " -f2 "$TRASH/report")" -lt 1000 &&
	"$STORM_KILL" "$TRASH/report" 5000 true &&
	grep -x "0 [0-9]*" "$TRASH/report" &&
	test "$(cut -d" " -f2 "$TRASH/report")" -lt 1000 &&
	"$STORM_KILL" "$TRASH/report" -1 sh -c "exit 3" &&
	grep -x "3 [0-9]*" "$TRASH/report"
'

test_expect_success 'setup: an old and a new version, long enough that a torn file shows' '
	make_versions
'

# Part one: one file, written again and again in one workspace.

# version N: the Nth complete content of the file, long enough that a torn write would show.
version () {
	awk -v n="$1" 'BEGIN { for (i = 1; i <= 2000; i++) printf "version %d line %d\n", n, i }'
}

version 0 >"$TRASH/version-0"
keeper file write doc.txt --input "$TRASH/version-0" >/dev/null 2>&1
# A clean write of the next version, timed five times (each one undone again).
version 1 >"$TRASH/next"
for i in 1 2 3 4 5; do
	"$STORM_KILL" "$TRASH/killed" -1 keeper file write doc.txt --input "$TRASH/next" >/dev/null 2>&1 &&
	cut -d" " -f2 "$TRASH/killed"
	keeper history undo-last >/dev/null 2>&1
done >"$TRASH/write-times"
write_ms=$(median <"$TRASH/write-times")
sqlite3 .filekeeper/journal.sqlite3 "SELECT max(seq) FROM operations" >"$TRASH/setup-seq"

test_expect_success "setup: the file at version 0; a clean write takes about ${write_ms:-?} ms" '
	cmp "$TRASH/version-0" doc.txt &&
	test "$(sqlite3 .filekeeper/journal.sqlite3 "SELECT count(*) FROM operations WHERE status = '\''pending'\''")" = 0 &&
	test_line_count = 5 "$TRASH/write-times" &&
	test "$write_ms" -gt 0 &&
	: >"$TRASH/known" &&
	i=0 &&
	while test $i -le $rounds; do
		version $i | sha256sum | cut -d" " -f1 >>"$TRASH/known" &&
		i=$((i + 1))
	done
'

test_expect_success "$rounds writes, each killed after 0 to $((write_ms * 5 / 4)) ms, never tear the file" '
	head -n $rounds "$TRASH/fractions" >"$TRASH/write-fractions" &&
	i=1 &&
	while read -r f; do
		version $i >"$TRASH/next" &&
		"$STORM_KILL" "$TRASH/killed" $(delay_of $f $write_ms) \
			keeper file write doc.txt --input "$TRASH/next" >/dev/null 2>&1 &&
		grep -qx "\(0\|137\) [0-9]*" "$TRASH/killed" || {
			echo "write $i ended with $(cat "$TRASH/killed")"; return 1;
		}
		sha256sum <doc.txt | cut -d" " -f1 >"$TRASH/now" &&
		grep -qxf "$TRASH/now" "$TRASH/known" || { echo "torn after round $i"; return 1; }
		i=$((i + 1))
	done <"$TRASH/write-fractions"
'

test_expect_success 'recovery resolves every interrupted write; nothing stays pending' '
	keeper --json recover >"$TRASH/out";
	code=$? &&
	test $code -eq 0 -o $code -eq 19 &&
	test "$(sqlite3 .filekeeper/journal.sqlite3 "SELECT count(*) FROM operations WHERE status = '\''pending'\''")" = 0
'
# What became of the killed writes. Each one killed while pending was rolled back or committed
# by the next write, so the rolled-back ones are kills that landed mid-operation (a floor: the
# ones killed after their rename were committed, like the ones that finished).
storm_ops () {
	sqlite3 .filekeeper/journal.sqlite3 "SELECT count(*) FROM operations
		WHERE seq > $(cat "$TRASH/setup-seq") $1"
}
storm_ops "AND status = 'rolled_back'" >"$TRASH/part-one-mid"
echo "# part one: of the $rounds writes, $(storm_ops "AND status = 'committed'") committed," \
	"$(cat "$TRASH/part-one-mid") were rolled back (killed mid-operation), and" \
	"$((rounds - $(storm_ops ""))) recorded nothing (killed before their record)"

test_expect_success 'no temp file of ours is left, and fsck is clean' '
	find . -name ".fk-tmp-*" >"$TRASH/temps" &&
	test_line_count = 0 "$TRASH/temps" &&
	keeper fsck >/dev/null
'

test_expect_success 'undoing the committed writes walks back through complete versions' '
	storm=$(sqlite3 .filekeeper/journal.sqlite3 "SELECT count(*) FROM operations
		WHERE seq > $(cat "$TRASH/setup-seq") AND status = '\''committed'\''") &&
	sha256sum <doc.txt | cut -d" " -f1 >"$TRASH/now" &&
	last=$(grep -nxf "$TRASH/now" "$TRASH/known" | cut -d: -f1) &&
	n=0 &&
	while test $n -lt $storm && test $n -lt 10; do
		keeper history undo-last >/dev/null &&
		sha256sum <doc.txt | cut -d" " -f1 >"$TRASH/now" &&
		v=$(grep -nxf "$TRASH/now" "$TRASH/known" | cut -d: -f1) &&
		test -n "$v" || { echo "torn after undo $n"; return 1; }
		test "$v" -lt "$last" || { echo "undo $n went forward: $last to $v"; return 1; }
		last=$v &&
		n=$((n + 1))
	done
'

# Part two: every mutating command in turn, each round on a fresh case.

# launch CMD MS: runs run_CMD of the current case under storm-kill, killed after MS milliseconds
# (never, when MS is -1); the report goes to the file "killed", keeper's output to "run.out".
# Inside, keeper is a function that hands the real one (found on PATH) to storm-kill.
launch () {
	(
		delay=$2
		keeper () { exec "$STORM_KILL" "$PWD/killed" "$delay" keeper "$@"; }
		"run_$1"
	) >run.out 2>&1 </dev/null
}

# clean_ms CMD: how long a clean run of CMD takes, as the storm runs it: the median of three runs
# on fresh cases, in milliseconds; fails unless each run ends with the after tree.
clean_ms () {
	for i in 1 2 3; do
		dir=$STORM/clean/$1.$i
		make_case $1 "$dir" &&
		(
			cd "$dir" &&
			launch $1 -1 &&
			test "$(status)" = 0 &&
			test "$(survey)" = after &&
			cut -d" " -f2 killed
		) || return 1
	done >"$STORM/times.$1" &&
	median <"$STORM/times.$1"
}

# ops_of_case: every operation id of the current case, oldest first.
ops_of_case () {
	if test -f ws/.filekeeper/journal.sqlite3; then
		rows "SELECT id FROM operations ORDER BY seq"
	fi
}

# fresh_start: what the next process finds. keeper recover exits 0, or 19 for a partly applied
# operation, and resolves at most one operation, the command's own; its id and status go to
# the files "pending" and "resolved-status" (both empty when nothing was pending).
fresh_start () {
	in_case --json recover >recover.json
	code=$?
	case $code in
	0) jq ".resolved" recover.json >resolved.json ;;
	19) test_error_code PARTIAL_RECOVERY recover.json &&
		jq ".error.details.resolved" recover.json >resolved.json ;;
	*) echo >&2 "recover exited $code" && cat >&2 recover.json && return 1 ;;
	esac &&
	json_get "length <= 1" resolved.json >/dev/null &&
	jq -r ".[].operation_id" resolved.json >pending &&
	jq -r ".[].status" resolved.json >resolved-status &&
	if test $code -eq 19; then
		test "$(cat resolved-status)" = partial
	fi
}

# honest STATE: the pending operation, the command's own, was resolved as the tree's STATE says
# (after: committed, before: rolled_back, mixed: partial), naming as changed exactly the paths
# the survey found changed, and the journal row says so.
honest () {
	! grep -qxF "$(cat pending)" ops-before &&
	case $1 in
	after) want=committed ;;
	before) want=rolled_back ;;
	mixed) want=partial ;;
	esac &&
	test "$(cat resolved-status)" = $want &&
	json_get ".[0].changed_paths[]" resolved.json | sort >reported &&
	sort changed >expect-changed &&
	test_cmp expect-changed reported &&
	test "$(rows "SELECT status FROM operations WHERE id = '$(cat pending)'")" = $want
}

# landed STATE: where the kill landed when nothing was pending, printed: "before" the operation
# was recorded (nothing new in the journal, every path old), or after it committed (every path
# new), with keeper killed before it could exit ("after-commit") or exited already ("exited").
landed () {
	ops_of_case | grep -vxF -f ops-before >new-ops
	if ! test -s new-ops; then
		test $1 = before && test "$(status)" = 137 && echo before
	else
		test_line_count = 1 new-ops >&2 &&
		test "$(rows "SELECT status FROM operations WHERE id = '$(cat new-ops)'")" = committed &&
		test $1 = after &&
		case $(status) in
		137) echo after-commit ;;
		0) echo exited ;;
		*) false ;;
		esac
	fi
}

# nothing_pending: the case's journal, if the command got as far as creating it, has no
# pending operation.
nothing_pending () {
	! test -f ws/.filekeeper/journal.sqlite3 || test "$(pending_count)" = 0
}

# undo_new_ops: undoes the command's operation when it is committed or partial; then every
# path holds its old state again and fsck is clean.
undo_new_ops () {
	ops_of_case | grep -vxF -f ops-before >new-ops
	for op in $(cat new-ops); do
		case $(rows "SELECT status FROM operations WHERE id = '$op'") in
		committed|partial) in_case history undo "$op" >/dev/null || return 1 ;;
		esac
	done &&
	test "$(survey)" = before &&
	in_case fsck >/dev/null
}

# storm_round N CMD MS: round N, CMD on a fresh case, killed after MS milliseconds. Appends
# "CMD WHERE" to the tally, WHERE being before, mid-STATUS, after-commit or exited.
storm_round () {
	dir=$STORM/$1.$2
	make_case $2 "$dir" &&
	cd "$dir" &&
	{ ops_of_case >ops-before && echo none >>ops-before; } &&
	launch $2 $3 &&
	case $(status) in
	0|137) ;;
	*) echo >&2 "keeper ended with $(cat killed):" && cat >&2 run.out && return 1 ;;
	esac &&
	survey >state &&
	fresh_start &&
	if test -s pending; then
		honest "$(cat state)" &&
		where=mid-$(cat resolved-status)
	else
		where=$(landed "$(cat state)")
	fi &&
	survey >state-recovered &&
	test_cmp state state-recovered &&
	nothing_pending &&
	no_temp_files ws &&
	in_case fsck >/dev/null &&
	undo_new_ops &&
	echo "$2 $where" >>"$STORM/tally" &&
	cd "$STORM" &&
	rm -rf "$dir"
}

mkdir -p "$STORM"
: >"$STORM/tally"
for cmd in $COMMANDS; do
	ms=$(clean_ms $cmd) || ms=0
	echo "$ms" >"$STORM/ms.$cmd"
	test_expect_success "$(echo $cmd | tr _ " "): a clean run takes about $ms ms" '
		test "$ms" -gt 0
	'
done

# The plan: round N runs the Nth command in turn, killed at the Nth random fraction of a quarter
# past its clean run time.
tail -n +$((rounds + 1)) "$TRASH/fractions" | awk -v commands="$COMMANDS" '
	BEGIN { n = split(commands, cmd) }
	{ print NR, cmd[(NR - 1) % n + 1], $1 }
' >"$STORM/plan"

while read -r n cmd f; do
	ms=$(cat "$STORM/ms.$cmd")
	delay=$(delay_of $f $ms)
	test_expect_success "round $n: $(echo $cmd | tr _ " ") killed after $delay ms (a clean run: $ms) loses nothing" '
		storm_round $n $cmd $delay
	' </dev/null
done <"$STORM/plan"

# The tally, as TAP comments: for each command, where its kills landed.
echo "# where the kills landed: before (nothing recorded yet), mid-STATUS (a fresh start found"
echo "# the operation pending and resolved it as STATUS), after-commit (killed after the commit"
echo "# record), exited (the command had finished):"
tally_line () {
	printf "#   %-12s %5d rounds:%s\n" "$1" "$(wc -l <"$2")" \
		"$(cut -d" " -f2 "$2" | sort | uniq -c | awk '{ printf " %s %d", $2, $1 }')"
}
for cmd in $COMMANDS; do
	grep "^$cmd " "$STORM/tally" >"$STORM/tally.$cmd"
	tally_line "$cmd" "$STORM/tally.$cmd"
done
tally_line all "$STORM/tally"

test_expect_success "every one of the $rounds rounds ran all its checks" '
	test_line_count = $rounds "$STORM/tally"
'

test_expect_success 'some kills landed mid-operation: a fresh start found a record pending' '
	grep " mid-" "$STORM/tally" >"$STORM/mid";
	test $(($(wc -l <"$STORM/mid") + $(cat "$TRASH/part-one-mid"))) -gt 0
'

# Part three: history prune and gc, killed. One workspace: each round writes three versions of
# a file, then a prune (keeping the two newest, no grace period) and a gc (no grace period) are
# each killed at a random moment. After every round fsck finds nothing missing or damaged, the
# prune marked whole or nothing, and undo of the newest write restores the version before it.
# The delays reuse the part-two fractions, scaled to the clean run times of prune and gc.
R3=$TRASH/retention
mkdir -p "$R3"
printf "version 0\n" >"$R3/doc.txt"
keeper --root "$R3" file write doc.txt --content "version 0
" >/dev/null 2>&1
for i in 1 2 3; do
	for v in a b c; do
		keeper --root "$R3" file write doc.txt --content "clean $i$v" >/dev/null 2>&1
	done
	"$STORM_KILL" "$TRASH/killed" -1 keeper --root "$R3" history prune --keep-last 2 --grace-period 0 >/dev/null 2>&1 &&
	cut -d" " -f2 "$TRASH/killed" >>"$TRASH/prune-times"
	"$STORM_KILL" "$TRASH/killed" -1 keeper --root "$R3" gc --grace-period 0 >/dev/null 2>&1 &&
	cut -d" " -f2 "$TRASH/killed" >>"$TRASH/gc-times"
done
prune_ms=$(median <"$TRASH/prune-times")
gc_ms=$(median <"$TRASH/gc-times")
retention_rounds=$(( (rounds + 2) / 3 ))

test_expect_success "setup: a clean prune takes about ${prune_ms:-?} ms, a clean gc ${gc_ms:-?} ms" '
	test "$prune_ms" -gt 0 && test "$gc_ms" -gt 0 &&
	keeper --root "$R3" fsck >/dev/null
'

# retention_round N F: the Nth round, with the random fraction F.
retention_round () {
	for v in a b c; do
		keeper --root "$R3" file write doc.txt --content "round $1 version $v" >/dev/null || return 1
	done &&
	"$STORM_KILL" "$TRASH/killed" $(delay_of $2 $prune_ms) \
		keeper --root "$R3" history prune --keep-last 2 --grace-period 0 >/dev/null 2>&1 &&
	grep -qx "\(0\|137\) [0-9]*" "$TRASH/killed" &&
	"$STORM_KILL" "$TRASH/killed" $(delay_of $2 $gc_ms) \
		keeper --root "$R3" gc --grace-period 0 >/dev/null 2>&1 &&
	grep -qx "\(0\|137\) [0-9]*" "$TRASH/killed" &&
	keeper --root "$R3" --json fsck >"$TRASH/fsck.json" &&
	json_get ".missing_objects == [] and .damaged_objects == []" "$TRASH/fsck.json" >/dev/null &&
	sqlite3 "$R3/.filekeeper/journal.sqlite3" "SELECT p.operations = (SELECT count(*) FROM $PRUNED_OPERATIONS v
		WHERE v.pruned_by = p.id) FROM prunes p" | grep -vx 1 >"$TRASH/torn-prunes";
	test_line_count = 0 "$TRASH/torn-prunes" &&
	keeper --root "$R3" history undo-last >/dev/null &&
	test "$(cat "$R3/doc.txt")" = "round $1 version b" &&
	echo "$1" >>"$TRASH/retention-ran"
}

: >"$TRASH/retention-ran"
n=1
while test $n -le $retention_rounds; do
	f=$(sed -n "${n}p" "$TRASH/fractions")
	test_expect_success "retention round $n: prune and gc killed after $(delay_of $f ${prune_ms:-0}) and $(delay_of $f ${gc_ms:-0}) ms lose nothing" '
		retention_round $n $f
	'
	n=$((n + 1))
done

test_expect_success "every one of the $retention_rounds retention rounds ran all its checks, and gc then finds it clean" '
	test_line_count = $retention_rounds "$TRASH/retention-ran" &&
	keeper --root "$R3" gc --grace-period 0 >/dev/null &&
	keeper --root "$R3" --json fsck >"$TRASH/fsck.json" &&
	json_get ".temporary_files == []" "$TRASH/fsck.json"
'

test_done
