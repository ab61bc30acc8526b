#!/bin/sh
# MCP throughput: tool calls per second over stdio, filekeeper-mcp against the reference MCP
# filesystem server (@modelcontextprotocol/server-filesystem, from the npm registry), both
# driven by the official Python MCP SDK client in the same run (mcp-throughput.py). Workload
# per server and round: 200 reads, 200 writes of new small content, 200 single replacements,
# over 200 small text files (about 1.5 KiB each), one sequential call after another through
# one session. The servers take turns kind by kind (the first alternating between rounds);
# the first round is a warm-up; medians of the rest. Targets: reads at least 2.5x the
# reference server's rate; writes and replacements at least on par (1.0x), although ours are
# durable (fsynced blob, file, directory and journal) and journaled with an undoable record,
# and the reference server's are neither. Where a C compiler is found, a third server takes
# its turn at the reads: mcp-replay.c, answering at once with our server's own recorded
# response, which shows the most this client allows a server sending our bytes, and then
# again spinning 50 us before each answer, which shows what a microsecond of server time costs
# the client's rate: from the two, the server time a read may take for 2.5x the reference, and
# the server time our rate amounts to.
#
# The reference server is installed once with npm into a private directory outside the
# checkout (PERF_REFERENCE_DIR, default ~/.cache/filekeeper-perf/server-filesystem) and run
# with node on its own copy of the same files. Without npm or node, or when the install
# fails, the comparison is skipped with a message and only our rates are printed.
#
# Environment: PERF_MCP_ROUNDS (timed rounds, default 5), PERF_MCP_FILES (default 200),
# PERF_PYTHON (a Python with the `mcp` SDK; default the checkout's .venv, `make venv`),
# PERF_REFERENCE_VERSION (npm version or tag of the reference server, default latest),
# PERF_MCP_JSON (a file to write every round's rates to).
. "$(dirname "$0")/perf-lib.sh"

MCP_SERVER=$KEEPER_BUILD_DIR/filekeeper-mcp
test -x "$MCP_SERVER" || { echo "no filekeeper-mcp in $KEEPER_BUILD_DIR; run 'make release' first" >&2; exit 1; }
PY=${PERF_PYTHON:-$PERF_DIRECTORY/../../.venv/bin/python}
if ! test -x "$PY" || ! "$PY" -c "import mcp" 2>/dev/null; then
	echo "skip: $0 needs a Python with the MCP SDK at $PY (run 'make venv' or set PERF_PYTHON)" >&2
	exit 0
fi

ours=$PERF_TRASH/ours ref=$PERF_TRASH/reference
mkdir -p "$ours" "$ref"
set -- --ours "$MCP_SERVER" --ours-root "$ours" \
	--files "${PERF_MCP_FILES:-200}" --rounds "${PERF_MCP_ROUNDS:-5}"

# The reference server, installed once and reused.
reference_server "our rates"
if test -n "$REFERENCE_JS"
then
	set -- "$@" --ref-js "$REFERENCE_JS" --ref-root "$ref" --node "$(command -v node)"
fi

if command -v cc >/dev/null && cc -O2 -o "$PERF_TRASH/mcp-replay" "$PERF_DIRECTORY/mcp-replay.c"; then
	set -- "$@" --replay "$PERF_TRASH/mcp-replay"
fi
test -n "$PERF_MCP_JSON" && set -- "$@" --json "$PERF_MCP_JSON"
"$PY" "$PERF_DIRECTORY/mcp-throughput.py" "$@" --errlog "$PERF_TRASH/servers.log"
status=$?
# Exit 2: the workload itself failed (a server did not start, a call failed); show why.
test $status -eq 2 && tail -n 20 "$PERF_TRASH/servers.log" >&2
exit $status
