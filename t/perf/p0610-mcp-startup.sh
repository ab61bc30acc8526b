#!/bin/sh
# MCP start-up: the time from spawning a server to reading its answer to `initialize`, what a
# host waits for before it can list the tools. filekeeper-mcp serving a registered workspace
# (`--workspace NAME`, with a Filekeeper home) and a directory (`--root DIR`), against the
# reference MCP filesystem server (@modelcontextprotocol/server-filesystem, from the npm
# registry, run with node on a directory of its own), in the same run. The driver,
# mcp-startup.c, starts once and then spawns each server directly (no shell between), writes
# the initialize request at once and stops the clock at the newline ending the answer; the
# servers take turns, PERF_STARTUP_RUNS timed rounds after 5 untimed ones; medians and 90th
# percentiles. Target: ours, either way, at most a tenth of the reference's median.
#
# The reference server is installed as p0600 installs it (once, with npm, into
# PERF_REFERENCE_DIR, default ~/.cache/filekeeper-perf/server-filesystem, outside the
# checkout). Without npm or node, or when the install fails, only our times are printed.
#
# Environment: PERF_STARTUP_RUNS (timed rounds, default 100), PERF_REFERENCE_VERSION (npm
# version or tag of the reference server, default latest).
. "$(dirname "$0")/perf-lib.sh"

MCP_SERVER=$KEEPER_BUILD_DIR/filekeeper-mcp
test -x "$MCP_SERVER" || { echo "no filekeeper-mcp in $KEEPER_BUILD_DIR; run 'make release' first" >&2; exit 1; }
perf_need cc
cc -O2 -o "$PERF_TRASH/mcp-startup" "$PERF_DIRECTORY/mcp-startup.c" || exit 1
runs=${PERF_STARTUP_RUNS:-100}

# The same small tree for every server: what a server reads at start-up is its own state, not
# the files, but a realistic workspace costs nothing here.
for dir in registered rooted reference; do
	mkdir -p "$PERF_TRASH/$dir/src" &&
	printf "# Notes\n" >"$PERF_TRASH/$dir/notes.md" &&
	printf "def main():\n    return 1\n" >"$PERF_TRASH/$dir/src/app.py" || exit 1
done
"$KEEPER" init >/dev/null &&
"$KEEPER" workspace create bench "$PERF_TRASH/registered" >/dev/null || exit 1
set -- -- "ours --workspace" "$MCP_SERVER" --workspace bench \
	-- "ours --root" "$MCP_SERVER" --root "$PERF_TRASH/rooted"

# The reference server, installed once and reused.
reference_server "our times"
if test -n "$REFERENCE_JS"
then
	set -- "$@" -- reference "$(command -v node)" "$REFERENCE_JS" "$PERF_TRASH/reference"
fi

"$PERF_TRASH/mcp-startup" "$runs" 5 "$@" >"$PERF_TRASH/times" || {
	echo "the start-up driver failed" >&2
	exit 1
}

# One row per server: median and 90th percentile (nearest rank), and the ratio of medians to
# the reference's with the target. Exit 1 when a ratio misses it.
awk -v runs="$runs" '
	{ name = $1; for (i = 2; i < NF; i++) name = name " " $i; t[name, ++n[name]] = $NF / 1e6 }
	function sort_of(name,   i, j, v) {
		for (i = 1; i <= n[name]; i++) s[i] = t[name, i]
		for (i = 2; i <= n[name]; i++) { v = s[i]; for (j = i - 1; j >= 1 && s[j] > v; j--) s[j + 1] = s[j]; s[j + 1] = v }
	}
	function median(name) { sort_of(name); k = n[name]; return k % 2 ? s[(k + 1) / 2] : (s[k / 2] + s[k / 2 + 1]) / 2 }
	function p90(name) { sort_of(name); k = int(n[name] * 0.9 + 0.999999); return s[k] }
	END {
		printf "%-36s %10s %10s %8s %8s\n", "start-up to initialize (" runs " runs)", "median", "p90", "ratio", "target"
		ref = ("reference" in n) ? median("reference") : 0
		status = 0
		split("ours --workspace|ours --root|reference", order, "|")
		for (o = 1; o <= 3; o++) {
			name = order[o]
			if (!(name in n)) continue
			m = median(name)
			if (name == "reference" || ref == 0) { printf "%-36s %8.1fms %8.1fms\n", name, m, p90(name); continue }
			r = m / ref
			printf "%-36s %8.1fms %8.1fms %8.3f %8s%s\n", name, m, p90(name), r, "<=0.1", (r <= 0.1 ? "" : "  MISSED")
			if (r > 0.1) status = 1
		}
		exit status
	}' "$PERF_TRASH/times"
