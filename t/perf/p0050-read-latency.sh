#!/bin/sh
# Command latency: the whole process of `keeper file read` of a small file against `cat` of the
# same file, each spawned directly (no shell in between) by the driver exec-alternate.c, taking
# turns, so that a machine that slows down or speeds up during the run weighs on both sides
# alike (hyperfine runs one command's runs, then the other's). Target: within 2x, both in the
# registered default workspace (the path a user who followed the README takes: the workspace
# is found through the home's registry) and with --root. A read opens no journal, and parses
# its arguments against a tree of only the global options and `file read` (see `cli::parse`),
# so what remains is mostly starting a larger program than cat.
. "$(dirname "$0")/perf-lib.sh"
perf_need cc
PERF_RUNS=${PERF_RUNS_EXEC:-400}

ws=$PERF_TRASH/ws
mkdir -p "$ws"
printf 'a small file\nof three\nlines\n' >"$ws/small.txt"
"$KEEPER" init >/dev/null &&
	"$KEEPER" workspace create bench "$ws" >/dev/null &&
	"$KEEPER" workspace use bench >/dev/null &&
	"$KEEPER" file read small.txt >/dev/null 2>&1 || exit 1

status=0
cat=$(command -v cat)
perf_compare_new "file read, registered default workspace" 2 \
	"$KEEPER file read small.txt" "$cat $ws/small.txt" || status=1
perf_compare_new "file read --json, registered default" 2 \
	"$KEEPER --json file read small.txt" "$cat $ws/small.txt" || status=1
perf_compare_new "file read --root, small file" 2 \
	"$KEEPER --root $ws file read small.txt" "$cat $ws/small.txt" || status=1
exit $status
