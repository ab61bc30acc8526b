#!/bin/sh
test_description='concurrent keeper processes on one workspace: no lost update, no clobber, no torn read

Three races, each run through the CLI by background processes and joined with wait (no sleeps):

  - WORKERS processes each make ROUNDS guarded read-modify-write increments of one counter file
    (file hash, cat, file write --expected-hash). Every attempt either commits or fails with
    CONTENT_CONFLICT; the counter ends at the number of successes; each value was written
    exactly once; the journal holds exactly the winners, chained one after another.
  - Two processes create the same new file at once, RACES times: one wins, the other gets
    ALREADY_EXISTS, and the file holds the winner'"'"'s content entirely.
  - Two writers replace a 1 MiB file with different complete versions while two readers (raw
    reads and keeper file hash) hash it in a loop: every observed hash is a known version'"'"'s.

Afterwards nothing is pending, no .fk-tmp-* file is left and keeper fsck is clean.'
. ./test-lib.sh

WORKERS=8
ROUNDS=25
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

# write_chain: before and after hash of every committed write of counter, oldest first.
write_chain () {
	rows "SELECT i.before_hash, i.after_hash FROM operations o
		JOIN operation_items i ON i.op_id = o.id
		WHERE o.kind = 'write' AND o.target_path = 'counter' AND o.status = 'committed'
		ORDER BY o.seq"
}

# sha256_of FILE: FILE's content hash, as keeper spells it.
sha256_of () {
	printf 'sha256:%s\n' "$(sha256sum <"$1" | cut -d" " -f1)"
}

# increment WORKER: ROUNDS guarded read-modify-write increments of counter. Each attempt's JSON
# document is appended to rmw.WORKER.json and its exit code to rmw.WORKER.codes.
increment () {
	i=0
	while test $i -lt $ROUNDS; do
		h=$(keeper file hash counter) &&
		v=$(cat counter) &&
		keeper --json file write counter --content "$((v + 1))" --expected-hash "$h" \
			>>"$LOGS/rmw.$1.json"
		echo $? >>"$LOGS/rmw.$1.codes"
		i=$((i + 1))
	done
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

test_expect_success 'setup: a counter file holding 0' '
	keeper file create counter --content 0 >/dev/null &&
	test "$(cat counter)" = 0
'

test_expect_success "$WORKERS processes race $ROUNDS guarded increments each on one counter" '
	w=1 &&
	while test $w -le $WORKERS; do
		increment $w &
		w=$((w + 1))
	done &&
	wait &&
	cat "$LOGS"/rmw.*.codes >"$LOGS/codes" &&
	cat "$LOGS"/rmw.*.json >"$LOGS/docs" &&
	test_line_count = $((WORKERS * ROUNDS)) "$LOGS/codes" &&
	test_line_count = $((WORKERS * ROUNDS)) "$LOGS/docs"
'

test_expect_success 'every attempt either committed (exit 0) or was refused with exit 15, nothing else' '
	! grep -v -x -e 0 -e 15 "$LOGS/codes" &&
	grep -c -x 0 "$LOGS/codes" >"$LOGS/successes" &&
	test "$(cat "$LOGS/successes")" -gt 0
'

test_expect_success 'every refusal is CONTENT_CONFLICT, not retryable, saying to re-read' '
	jq -c "select(.ok == false)" "$LOGS/docs" >failures &&
	test_line_count = $(grep -c -x 15 "$LOGS/codes") failures &&
	jq -e -s "all(.[]; keys_unsorted == [\"ok\", \"error\"] and .error.code == \"CONTENT_CONFLICT\"
		and .error.retryable == false and (.error.details.recovery | test(\"re-read\")))" failures
'

test_expect_success 'the counter ends at the number of successful increments: no update was lost' '
	test "$(cat counter)" = "$(cat "$LOGS/successes")"
'

test_expect_success 'each value from 1 to the number of successes was written exactly once' '
	jq -r "select(.ok) | .after_hash" "$LOGS/docs" | sort >written &&
	: >values &&
	i=1 &&
	while test $i -le "$(cat "$LOGS/successes")"; do
		printf %s $i >value &&
		sha256_of value >>values || return 1
		i=$((i + 1))
	done &&
	sort values >expect &&
	test_cmp expect written
'

test_expect_success 'the journal holds exactly the successful writes, under the operation ids they reported' '
	jq -r "select(.ok) | .operation_id" "$LOGS/docs" | sort >reported &&
	committed_ops write counter | sort >recorded &&
	test_cmp reported recorded
'

test_expect_success 'the committed writes form one chain: each started from what the previous one left' '
	write_chain >chain &&
	test_line_count = "$(cat "$LOGS/successes")" chain &&
	printf 0 >zero &&
	awk -F"|" -v start="$(sha256_of zero)" "
		(NR == 1 && \$1 != start) || (NR > 1 && \$1 != prev) { print \"broken at \" NR; bad = 1 }
		{ prev = \$2 }
		END { exit bad }
	" chain
'

test_expect_success 'the refused attempts recorded nothing: only the create and the winners are in the journal' '
	rows "SELECT status, count(*) FROM operations GROUP BY status" >actual &&
	echo "committed|$(($(cat "$LOGS/successes") + 1))" >expect &&
	test_cmp expect actual
'

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
