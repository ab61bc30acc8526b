#!/bin/sh
test_description='concurrent keeper processes on one workspace: no clobber, no torn read

Two races, each run through the CLI by background processes and joined with wait (no sleeps).
(Guarded read-modify-write increments racing on one counter, the lost-update case, are
t0710-counter.sh, through the CLI and through one MCP session.)

  - Two processes create the same new file at once, RACES times: one wins, the other gets
    ALREADY_EXISTS, and the file holds the winner'"'"'s content entirely.
  - Two writers replace a 1 MiB file with different complete versions while two readers (raw
    reads and keeper file hash) hash it in a loop: every observed hash is a known version'"'"'s.
  - Three first changes at once in new workspaces inside a git repository, RACES times: all
    succeed, though each makes the state directory, the journal and the .gitignore line; and
    a first change racing a write of .gitignore itself: both succeed, and the line is added
    under the lock, never beside the other write.
  - Four workspace registrations at once, RACES times: all succeed.
  - history show racing the prune that prunes the operation, RACES times: a pruned operation
    always says when it was pruned.
  - fsck racing a gc that removes the objects of pruned operations, RACES times: fsck finds
    no damage.

Afterwards nothing is pending, no .fk-tmp-* file is left and keeper fsck is clean.'
. ./test-lib.sh

RACES=20
WRITES=6
MAX_READS=3000
LOGS=$TRASH/logs
mkdir -p "$LOGS"

# rows SQL: a query on the workspace's journal.
rows () {
	sqlite3 .filekeeper/journal.sqlite3 "$1"
}

# committed_ops KIND [TARGET]: ids of the committed operations of KIND (on TARGET, an SQL LIKE
# pattern), oldest first.
committed_ops () {
	rows "SELECT id FROM operations WHERE kind = '$1' AND status = 'committed'
		AND target_path LIKE '${2:-%}' ORDER BY seq"
}

# uncommitted_count: how many operations are not committed (pending, rolled back or partial).
uncommitted_count () {
	rows "SELECT count(*) FROM operations WHERE status != 'committed'"
}

# sha256_of FILE: FILE's content hash, as keeper spells it.
sha256_of () {
	printf 'sha256:%s\n' "$(sha256sum <"$1" | cut -d" " -f1)"
}

# replace WRITER FIRST: WRITES unguarded replacements of big.txt, cycling through the four
# versions from FIRST; exit codes go to replace.WRITER.codes.
replace () {
	i=0
	v=$2
	while test $i -lt $WRITES; do
		keeper file write big.txt --input "$TRASH/version.$v" >/dev/null
		echo $? >>"$LOGS/replace.$1.codes"
		v=$((v % 4 + 1))
		i=$((i + 1))
	done
}

# observe HOW: hashes big.txt over and over, by raw reads (HOW raw) or with keeper file hash
# (HOW keeper), one line per read, until the writers are done (at most MAX_READS reads, at
# least one). A read that fails prints a line that is no hash.
observe () {
	n=0
	while :; do
		case $1 in
		raw) sha256_of big.txt || echo "raw read failed" ;;
		keeper) keeper file hash big.txt || echo "keeper file hash failed: exit $?" ;;
		esac
		n=$((n + 1))
		if test $n -ge $MAX_READS || test -f "$LOGS/writers.done"; then
			break
		fi
	done
}

test_expect_success 'setup: two contenders of 256 KiB each, differing on every line' '
	awk "BEGIN { for (i = 0; i < 4096; i++) printf \"%05d %-57s\n\", i, \"contender a, all of it\" }" \
		>"$TRASH/contender.a" &&
	awk "BEGIN { for (i = 0; i < 4096; i++) printf \"%05d %-57s\n\", i, \"contender b, every line\" }" \
		>"$TRASH/contender.b" &&
	test "$(wc -c <"$TRASH/contender.a")" = 262144 &&
	! cmp -s "$TRASH/contender.a" "$TRASH/contender.b"
'

test_expect_success "two processes create the same new file at once, $RACES times with different names" '
	r=1 &&
	while test $r -le $RACES; do
		for who in a b; do
			(
				keeper --json file create race-$r.txt --input "$TRASH/contender.$who" \
					>"$LOGS/race.$r.$who.json"
				echo $? >"$LOGS/race.$r.$who.code"
			) &
		done
		wait
		r=$((r + 1))
	done &&
	ls "$LOGS"/race.*.code >codes &&
	test_line_count = $((2 * RACES)) codes
'

test_expect_success 'in every round exactly one creation succeeded and the other got ALREADY_EXISTS (exit 14)' '
	r=1 &&
	while test $r -le $RACES; do
		cat "$LOGS/race.$r.a.code" "$LOGS/race.$r.b.code" | sort -n >codes &&
		printf "0\n14\n" >expect &&
		test_cmp expect codes || return 1
		for who in a b; do
			if test "$(cat "$LOGS/race.$r.$who.code")" = 14; then
				test_error_code ALREADY_EXISTS "$LOGS/race.$r.$who.json" || return 1
			fi
		done
		r=$((r + 1))
	done
'

test_expect_success 'every raced file holds the winner'"'"'s content entirely' '
	r=1 &&
	while test $r -le $RACES; do
		for who in a b; do
			if test "$(cat "$LOGS/race.$r.$who.code")" = 0; then
				cmp "$TRASH/contender.$who" race-$r.txt &&
				test "$(json_get .after_hash "$LOGS/race.$r.$who.json")" = "$(sha256_of race-$r.txt)" ||
				return 1
			fi
		done
		r=$((r + 1))
	done
'

test_expect_success 'the journal records one committed create per round, the winner'"'"'s' '
	cat "$LOGS"/race.*.json | jq -r "select(.ok) | .operation_id" | sort >winners &&
	test_line_count = $RACES winners &&
	committed_ops create "race-%" | sort >recorded &&
	test_cmp winners recorded
'

test_expect_success 'setup: four complete 1 MiB versions of one file, differing every 2 KiB' '
	for v in 1 2 3 4; do
		awk -v v=$v "BEGIN { for (i = 0; i < 16384; i++) printf \"%05d %-57s\n\", i,
			(i % 32 == 0 ? \"version \" v \" marker line\" : \"shared filler line\") }" \
			>"$TRASH/version.$v" &&
		test "$(wc -c <"$TRASH/version.$v")" = 1048576 &&
		sha256_of "$TRASH/version.$v" >>"$LOGS/known" || return 1
	done &&
	sort -u "$LOGS/known" >unique &&
	test_line_count = 4 unique &&
	keeper file create big.txt --input "$TRASH/version.1" >/dev/null
'

test_expect_success 'two writers replace the 1 MiB file while two readers hash it' '
	(
		replace 1 2 &
		replace 2 3 &
		wait
		: >"$LOGS/writers.done"
	) &
	observe raw >"$LOGS/observed.raw" &
	observe keeper >"$LOGS/observed.keeper" &
	wait &&
	cat "$LOGS"/replace.*.codes >codes &&
	test_line_count = $((2 * WRITES)) codes
'

test_expect_success 'every replacement of the 1 MiB file succeeded' '
	cat "$LOGS"/replace.*.codes | sort -u >codes &&
	echo 0 >expect &&
	test_cmp expect codes
'

test_expect_success 'raw reads never saw a partial file: every observed hash is a known version'"'"'s' '
	test -s "$LOGS/observed.raw" &&
	! grep -v -x -F -f "$LOGS/known" "$LOGS/observed.raw"
'

test_expect_success 'keeper file hash never saw a partial file: every observed hash is a known version'"'"'s' '
	test -s "$LOGS/observed.keeper" &&
	! grep -v -x -F -f "$LOGS/known" "$LOGS/observed.keeper"
'

test_expect_success 'the 1 MiB file ends as a complete version, and each replacement is one committed write' '
	sha256_of big.txt >final &&
	grep -x -F -f final "$LOGS/known" &&
	committed_ops write big.txt >replacements &&
	test_line_count = $((2 * WRITES)) replacements
'

test_expect_success "three first changes at once in a new git workspace all succeed, $RACES times" '
	mkdir first &&
	git -C first init -q &&
	for round in $(seq 1 $RACES)
	do
		mkdir "first/w$round" &&
		w=first/w$round &&
		{
			keeper --root "$w" --json file write a.txt --content a >"$LOGS/first-$round-a" 2>&1 &
			keeper --root "$w" --json file write b.txt --content b >"$LOGS/first-$round-b" 2>&1 &
			keeper --root "$w" --json file write a.txt --content c >"$LOGS/first-$round-c" 2>&1 &
			wait
		}
	done &&
	for log in "$LOGS"/first-*
	do
		json_get ".ok" "$log" || return 1
	done &&
	for round in $(seq 1 $RACES)
	do
		(
			cd "first/w$round" &&
			test "$(rows "SELECT count(*) FROM operations WHERE kind = '"'"'write'"'"' AND status = '"'"'committed'"'"'")" = 3 &&
			grep -x ".filekeeper/" .gitignore
		) || return 1
	done
'

test_expect_success "a first change racing a write of .gitignore: both succeed, $RACES times" '
	for round in $(seq 1 $RACES)
	do
		w=first/g$round &&
		mkdir "$w" &&
		{
			keeper --root "$w" --json file write .gitignore --content "build/" >"$LOGS/gi-$round-g" 2>&1 &
			keeper --root "$w" --json file write a.txt --content a >"$LOGS/gi-$round-a" 2>&1 &
			wait
		} &&
		json_get ".ok" "$LOGS/gi-$round-g" &&
		json_get ".ok" "$LOGS/gi-$round-a" &&
		(
			cd "$w" &&
			test "$(rows "SELECT count(*) FROM operations WHERE status != '"'"'committed'"'"'")" = 0 &&
			test "$(rows "SELECT count(*) FROM operations WHERE kind = '"'"'ignore_state'"'"'")" = 1
		) || return 1
	done
'

test_expect_success "four workspaces registered at once all succeed, $RACES times" '
	for round in $(seq 1 $RACES)
	do
		for i in 1 2 3 4
		do
			mkdir -p "$TRASH/reg/w$round-$i" || return 1
		done &&
		{
			for i in 1 2 3 4
			do
				keeper --json workspace create "w$round-$i" "$TRASH/reg/w$round-$i" >"$LOGS/reg-$round-$i" 2>&1 &
			done
			wait
		} &&
		for i in 1 2 3 4
		do
			json_get ".ok" "$LOGS/reg-$round-$i" || return 1
		done
	done &&
	keeper --json workspace list >out &&
	test "$(json_get "[.workspaces[] | select(.name | startswith(\"w\"))] | length" out)" = $((RACES * 4))
'

test_expect_success "history show racing a prune: a pruned operation always has pruned_at, $RACES times" '
	mkdir pr &&
	for round in $(seq 1 $RACES)
	do
		keeper --root pr --json file write "p$round.txt" --content "$round" >"$LOGS/pr-$round" &&
		op=$(json_get .operation_id "$LOGS/pr-$round") &&
		{
			keeper --root pr --json history prune --older-than 0s --grace-period 0s >/dev/null 2>&1 &
			for i in 1 2 3
			do
				keeper --root pr --json history show "$op" >"$LOGS/pr-$round-$i" 2>&1 &
			done
			wait
		} &&
		for i in 1 2 3
		do
			json_get ".ok and (.operation.pruned_by == null or .operation.pruned_at != null)" "$LOGS/pr-$round-$i" ||
			return 1
		done
	done
'

test_expect_success "fsck racing a gc finds no damage, $RACES times" '
	mkdir fg &&
	for round in $(seq 1 $RACES)
	do
		for i in 1 2 3 4 5
		do
			keeper --root fg file write f.txt --content "$round $i" >/dev/null || return 1
		done &&
		keeper --root fg history prune --keep-last 1 --grace-period 0s >/dev/null &&
		{
			keeper --root fg --json gc --grace-period 0s >"$LOGS/fg-$round-gc" 2>&1 &
			keeper --root fg --json fsck >"$LOGS/fg-$round-fsck" 2>&1 &
			wait
		} &&
		json_get ".ok" "$LOGS/fg-$round-gc" &&
		json_get ".ok" "$LOGS/fg-$round-fsck" || return 1
	done
'

test_expect_success 'after all the races nothing is pending and no temp file is left' '
	test "$(uncommitted_count)" = 0 &&
	find . -name ".fk-tmp-*" >leftovers &&
	test ! -s leftovers
'

test_expect_success 'keeper fsck is clean after all the races' '
	keeper --json fsck >out &&
	json_get ".ok and .pending_operations == [] and .damaged_objects == [] and .missing_objects == []" out
'

test_done
