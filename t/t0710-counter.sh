#!/bin/sh
test_description='a counter raced by many writers through the CLI and through one MCP session loses no update

The lost-update guard at scale, on both surfaces:

  - CLI: WORKERS background processes each make ROUNDS guarded read-modify-write increments of
    one counter file: keeper --json file read (content and content_hash from one read), add
    one, keeper --json file write --expected-hash. Meanwhile a loop prunes all but the newest
    20 operations and runs gc, both with no grace period: every one succeeds, gc removes
    objects while the writers run, and the writers lose nothing.
  - MCP: ONE filekeeper-mcp server, driven by WORKERS concurrent asyncio tasks on one SDK
    session, each making ROUNDS attempts of file_read then file_write with expected_hash.

For each surface: every attempt either commits or is refused with CONTENT_CONFLICT (no other
code, no crash, no protocol error); the counter ends at the number of successes, each value
was written exactly once; the journal holds exactly the successful writes under the ids they
reported, chained before to after from the initial 0; nothing is pending or rolled back, no
.fk-tmp-* file is left, and keeper fsck is clean.

KEEPER_COUNTER_WORKERS and KEEPER_COUNTER_ROUNDS override the 8 x 200 default.'
. ./test-lib.sh

# 1,600 racing attempts per surface take minutes: the long loop only (make test; t/README).
test_require_prereq EXPENSIVE

WORKERS=${KEEPER_COUNTER_WORKERS:-8}
ROUNDS=${KEEPER_COUNTER_ROUNDS:-200}
ATTEMPTS=$((WORKERS * ROUNDS))
LOGS=$TRASH/logs
M=$TRASH/mcp-ws
mkdir -p "$LOGS" "$M"

# root SURFACE: the workspace root the surface (cli or mcp) raced on.
root () {
	case $1 in
	cli) echo "$WS" ;;
	mcp) echo "$M" ;;
	esac
}

# rows SURFACE SQL: a query on the journal of SURFACE's workspace.
rows () {
	sqlite3 "$(root "$1")/.filekeeper/journal.sqlite3" "$2"
}

# write_chain SURFACE: before and after hash of every committed write of counter, oldest first.
write_chain () {
	rows "$1" "SELECT i.before_hash, i.after_hash FROM operations o
		JOIN operation_items i ON i.op_id = o.id
		WHERE o.kind = 'write' AND o.target_path = 'counter' AND o.status = 'committed'
		ORDER BY o.seq"
}

# hash_of_text TEXT: the content id of the bytes of TEXT (no newline added).
hash_of_text () {
	printf 'sha256:%s\n' "$(printf %s "$1" | sha256sum | cut -d" " -f1)"
}

# increment WORKER: ROUNDS guarded increments through the CLI. Each attempt appends the write's
# JSON document to rmw.WORKER.json and its exit code to rmw.WORKER.codes; a read that fails
# appends "read-failed:CODE" to the codes instead, so it counts as a failure of another kind.
increment () {
	i=0
	while test $i -lt $ROUNDS; do
		if keeper --json file read counter >"$LOGS/read.$1.json"; then
			r=$(jq -r '"\(.content) \(.content_hash)"' "$LOGS/read.$1.json")
			keeper --json file write counter --content "$((${r% *} + 1))" --expected-hash "${r#* }" \
				>>"$LOGS/rmw.$1.json"
			echo $? >>"$LOGS/rmw.$1.codes"
		else
			echo "read-failed:$?" >>"$LOGS/rmw.$1.codes"
		fi
		i=$((i + 1))
	done
}

# gc_loop: while the CLI race runs, prunes all but the newest 20 operations and collects
# garbage, both with no grace period, again and again until LOGS/stop-gc appears; each exit
# code goes to gc.codes and each gc document to gc.docs.
gc_loop () {
	while test ! -e "$LOGS/stop-gc"; do
		keeper --json history prune --keep-last 20 --grace-period 0 >/dev/null
		echo "prune $?" >>"$LOGS/gc.codes"
		keeper --json gc --grace-period 0 >>"$LOGS/gc.docs"
		echo "gc $?" >>"$LOGS/gc.codes"
	done
}

test_expect_success 'setup: a counter file holding 0 in each workspace, created through keeper' '
	keeper file create counter --content 0 >/dev/null &&
	keeper --root "$M" file create counter --content 0 >/dev/null &&
	test "$(cat "$WS/counter")" = 0 &&
	test "$(cat "$M/counter")" = 0
'

test_expect_success "CLI: $WORKERS processes race $ROUNDS guarded increments each, while prune and gc loop" '
	start=$(date +%s) &&
	{ gc_loop & } &&
	w=1 &&
	pids= &&
	while test $w -le $WORKERS; do
		increment $w &
		pids="$pids $!"
		w=$((w + 1))
	done &&
	wait $pids &&
	: >"$LOGS/stop-gc" &&
	wait &&
	echo $(($(date +%s) - start)) >"$LOGS/cli.seconds" &&
	cat "$LOGS"/rmw.*.codes >"$LOGS/cli.codes" &&
	cat "$LOGS"/rmw.*.json >"$LOGS/cli.docs" &&
	test_line_count = $ATTEMPTS "$LOGS/cli.codes"
'

test_expect_success 'CLI: every attempt committed (exit 0) or was refused with exit 15; no crash, no other code' '
	! grep -v -x -e 0 -e 15 "$LOGS/cli.codes" &&
	grep -c -x 0 "$LOGS/cli.codes" >"$LOGS/cli.successes" &&
	test "$(cat "$LOGS/cli.successes")" -gt 0
'

test_expect_success 'CLI: every attempt printed one document, a success exactly when it exited 0' '
	test_line_count = $ATTEMPTS "$LOGS/cli.docs" &&
	test "$(jq -c "select(.ok == true)" "$LOGS/cli.docs" | wc -l)" = "$(cat "$LOGS/cli.successes")"
'
test_expect_success 'CLI: every prune and gc of the loop succeeded, and gc removed objects while the writers ran' '
	grep -c "^gc " "$LOGS/gc.codes" >gc.runs &&
	test "$(cat gc.runs)" -gt 1 &&
	! grep -v " 0$" "$LOGS/gc.codes" &&
	jq -c "select(.ok and .removed_objects > 0)" "$LOGS/gc.docs" >removing &&
	test "$(wc -l <removing)" -gt 0
'
echo "# CLI: $ATTEMPTS attempts, $(cat "$LOGS/cli.successes" 2>/dev/null) succeeded, in $(cat "$LOGS/cli.seconds" 2>/dev/null) s"
echo "# CLI: prune and gc ran $(grep -c "^gc " "$LOGS/gc.codes" 2>/dev/null) times beside the writers"

test_expect_success MCP_SDK "MCP: one server, $WORKERS concurrent tasks race $ROUNDS guarded increments each" '
	start=$(date +%s) &&
	timeout 900 "$PY" "$TEST_DIRECTORY/mcp/counter.py" "$M" counter $WORKERS $ROUNDS "$LOGS/mcp.attempts" &&
	echo $(($(date +%s) - start)) >"$LOGS/mcp.seconds" &&
	test_line_count = $ATTEMPTS "$LOGS/mcp.attempts"
'

test_expect_success MCP_SDK 'MCP: every read succeeded, and no request got a protocol error' '
	jq -c "select(.read.is_error != false or .read.structured.ok != true or .write == null or
		.write.protocol_error != null)" "$LOGS/mcp.attempts" >bad &&
	test_line_count = 0 bad
'

test_expect_success MCP_SDK 'MCP: every write succeeded or was a tool error, and isError matches ok' '
	jq -c ".write | select(.is_error != (.structured.ok == false))" "$LOGS/mcp.attempts" >bad &&
	test_line_count = 0 bad &&
	jq -c ".write.structured" "$LOGS/mcp.attempts" >"$LOGS/mcp.docs" &&
	jq -c "select(.ok == true)" "$LOGS/mcp.docs" | wc -l >"$LOGS/mcp.successes" &&
	test "$(cat "$LOGS/mcp.successes")" -gt 0
'
test_have_prereq MCP_SDK &&
echo "# MCP: $ATTEMPTS attempts, $(cat "$LOGS/mcp.successes" 2>/dev/null) succeeded, in $(cat "$LOGS/mcp.seconds" 2>/dev/null) s"

for surface in cli mcp
do
	S=$(echo $surface | tr a-z A-Z)
	# The MCP race runs through the Python SDK; the CLI race needs nothing more.
	needs=
	test $surface = cli || needs=MCP_SDK

	test_expect_success "$needs" "$S: every refusal is CONTENT_CONFLICT, not retryable, saying to re-read" '
		jq -c "select(.ok != true)" "$LOGS/'$surface'.docs" >failures &&
		test_line_count = $((ATTEMPTS - $(cat "$LOGS/'$surface'.successes"))) failures &&
		jq -e -s "all(.[]; keys_unsorted == [\"ok\", \"error\"] and .error.code == \"CONTENT_CONFLICT\"
			and .error.retryable == false and .error.details.path == \"counter\"
			and .error.details.expected_hash != .error.details.actual_hash
			and (.error.details.recovery | test(\"re-read\")))" failures
	'

	test_expect_success "$needs" "$S: the counter ends at the number of successful increments" '
		test "$(cat "$(root '$surface')/counter")" = "$(cat "$LOGS/'$surface'.successes")"
	'

	test_expect_success "$needs" "$S: each value from 1 to the number of successes was written exactly once" '
		jq -r "select(.ok) | .after_hash" "$LOGS/'$surface'.docs" | sort >written &&
		n=$(cat "$LOGS/'$surface'.successes") &&
		seq 1 $n | while read v; do hash_of_text $v || exit 1; done | sort >expect &&
		test_line_count = $n expect &&
		test_cmp expect written
	'

	test_expect_success "$needs" "$S: the journal holds exactly the successful writes, under the ids they reported" '
		jq -r "select(.ok) | .operation_id" "$LOGS/'$surface'.docs" | sort >reported &&
		rows '$surface' "SELECT id FROM operations WHERE kind = '\''write'\''
			AND target_path = '\''counter'\'' AND status = '\''committed'\''" | sort >recorded &&
		test_cmp reported recorded
	'

	test_expect_success "$needs" "$S: the committed writes form one chain from 0, each starting from what the previous left" '
		write_chain '$surface' >chain &&
		test_line_count = "$(cat "$LOGS/'$surface'.successes")" chain &&
		awk -F"|" -v start="$(hash_of_text 0)" "
			(NR == 1 && \$1 != start) || (NR > 1 && \$1 != prev) { print \"broken at \" NR; bad = 1 }
			{ prev = \$2 }
			END { exit bad }
		" chain &&
		test "$(tail -n 1 chain | cut -d"|" -f2)" = "$(hash_of_text "$(cat "$LOGS/'$surface'.successes")")"
	'

	test_expect_success "$needs" "$S: the refusals recorded nothing: the journal is the create and the winners, all committed" '
		rows '$surface' "SELECT kind, status, count(*) FROM operations GROUP BY kind, status" >actual &&
		printf "%s\n" "create|committed|1" "write|committed|$(cat "$LOGS/'$surface'.successes")" >expect &&
		test_cmp expect actual
	'

	test_expect_success "$needs" "$S: no temp file of ours is left and keeper fsck is clean" '
		find "$(root '$surface')" -name ".fk-tmp-*" -o -name "tmp_obj_*" >leftovers &&
		test_line_count = 0 leftovers &&
		keeper --json --root "$(root '$surface')" fsck >out &&
		json_get ".ok and .pending_operations == [] and .damaged_objects == [] and .missing_objects == []" out
	'
done

test_done
