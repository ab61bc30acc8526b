# perf-lib.sh: the harness of the t/perf/pNNNN-*.sh benchmarks, in the spirit of git's t/perf.
#
# A benchmark compares keeper with a baseline doing the same work, in the same run, on the same
# machine: `perf_compare` times both alternately PERF_RUNS times and prints the medians and the
# ratio. Absolute numbers mean little across machines; the ratio is the figure we track.
#
# Environment:
#   KEEPER_BUILD_DIR  where keeper is (default: target/release of this checkout; build it with
#                     `make release`, as `make install` does, so the benchmarks time the
#                     binaries a user installs)
#   PERF_RUNS         timed runs of each side (default 10)

PERF_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
KEEPER_BUILD_DIR=${KEEPER_BUILD_DIR:-$PERF_DIRECTORY/../../target/release}
PERF_RUNS=${PERF_RUNS:-10}
KEEPER=$KEEPER_BUILD_DIR/keeper
if ! test -x "$KEEPER"; then
	echo "no keeper in $KEEPER_BUILD_DIR; run 'make release' first" >&2
	exit 1
fi
# A plain `cargo build --release` links the C library dynamically, which an installed keeper
# does not (Makefile, `release`): about 0.4 ms more for every command. Say so rather than
# report figures for a binary nobody installs.
if command -v readelf >/dev/null 2>&1 && readelf -l "$KEEPER" 2>/dev/null | grep -q 'INTERP'; then
	echo "note: $KEEPER is dynamically linked; 'make release' links it statically where the C toolchain can, as 'make install' does" >&2
fi

PERF_TRASH=$(mktemp -d "${TMPDIR:-/tmp}/keeper-perf.XXXXXX")
trap 'rm -rf "$PERF_TRASH"' EXIT
export FILEKEEPER_HOME=$PERF_TRASH/home
unset XDG_DATA_HOME

# perf_need TOOL...: stop with a clear message when a tool the benchmark compares with is missing.
perf_need () {
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "skip: $0 needs $tool" >&2; exit 0; }
	done
}

# now_ns: the wall clock in nanoseconds.
now_ns () {
	date +%s%N
}

# median FILE: the median of the numbers in FILE, one per line.
median () {
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

perf_header_printed=
perf_header () {
	test -n "$perf_header_printed" && return
	perf_header_printed=yes
	printf '%-44s %12s %12s %8s %8s\n' "benchmark ($PERF_RUNS runs, medians)" keeper baseline ratio target
}

# perf_compare NAME TARGET_RATIO KEEPER_CMD BASELINE_CMD: times both commands (output
# discarded), alternating, and prints one row. Exit status 1 when the ratio misses the target;
# TARGET_RATIO "-" prints the ratio for information only. PERF_BEFORE_OURS and
# PERF_BEFORE_THEIRS, when set, are shell commands run untimed before every run of each side
# (to restore a file an edit changed, say).
perf_compare () {
	name=$1 target=$2 ours=$3 theirs=$4
	: >"$PERF_TRASH/ours" && : >"$PERF_TRASH/theirs"
	# One untimed run of each warms the page cache for both alike.
	eval "${PERF_BEFORE_OURS:-:}" && sh -c "$ours" >/dev/null 2>&1
	eval "${PERF_BEFORE_THEIRS:-:}" && sh -c "$theirs" >/dev/null 2>&1
	i=0
	while test $i -lt "$PERF_RUNS"; do
		eval "${PERF_BEFORE_OURS:-:}" || return 1
		t0=$(now_ns); sh -c "$ours" >/dev/null 2>&1; t1=$(now_ns)
		echo $((t1 - t0)) >>"$PERF_TRASH/ours"
		eval "${PERF_BEFORE_THEIRS:-:}" || return 1
		t0=$(now_ns); sh -c "$theirs" >/dev/null 2>&1; t1=$(now_ns)
		echo $((t1 - t0)) >>"$PERF_TRASH/theirs"
		i=$((i + 1))
	done
	perf_row "$name" "$target" "$(median "$PERF_TRASH/ours")" "$(median "$PERF_TRASH/theirs")"
}

# perf_row NAME TARGET_RATIO OURS_NS THEIRS_NS: prints one row of medians and their ratio;
# exit status 1 when the ratio misses the target ("-": for information only).
perf_row () {
	perf_header
	awk -v n="$1" -v t="$2" -v a="$3" -v b="$4" 'BEGIN {
		r = a / b
		if (t == "-") { printf "%-44s %10.2fms %10.2fms %8.2f %7s\n", n, a / 1e6, b / 1e6, r, "(info)"; exit 0 }
		printf "%-44s %10.2fms %10.2fms %8.2f %7s%s\n", n, a / 1e6, b / 1e6, r, "<=" t, (r <= t ? "" : "  MISSED")
		exit (r <= t ? 0 : 1)
	}'
}

# perf_compare_new NAME TARGET_RATIO OURS THEIRS: like perf_compare_exec, for commands that
# must see new content on every run, such as a write: the driver exec-alternate.c spawns each
# command directly (no shell), taking turns, after one untimed round, and replaces {N} in any
# word by the run's number before starting the clock. OURS and THEIRS are words as the shell
# splits them (quotes are honoured), the first an absolute path.
perf_compare_new () {
	name=$1 target=$2
	if ! test -x "$PERF_TRASH/exec-alternate"; then
		cc -O2 -o "$PERF_TRASH/exec-alternate" "$PERF_DIRECTORY/exec-alternate.c" || return 1
	fi
	eval "set -- $3 --- $4"
	"$PERF_TRASH/exec-alternate" "$PERF_RUNS" "$PERF_TRASH/ours" "$PERF_TRASH/theirs" "$@" ||
		return 1
	perf_row "$name" "$target" "$(median "$PERF_TRASH/ours")" "$(median "$PERF_TRASH/theirs")"
}

# perf_compare_exec NAME TARGET_RATIO KEEPER_CMD BASELINE_CMD: like perf_compare, for commands
# that take about a millisecond, where a shell's own start-up would drown the difference:
# hyperfine runs each command directly (no shell, so the commands are plain words), PERF_RUNS
# times after 20 warm-up runs, and the medians are compared.
perf_compare_exec () {
	name=$1 target=$2 ours=$3 theirs=$4
	hyperfine -N --style none --warmup 20 --runs "$PERF_RUNS" \
		--export-json "$PERF_TRASH/exec.json" "$ours" "$theirs" >/dev/null 2>&1 || return 1
	perf_row "$name" "$target" "$(jq '.results[0].median * 1e9' "$PERF_TRASH/exec.json")" \
		"$(jq '.results[1].median * 1e9' "$PERF_TRASH/exec.json")"
}

# perf_memory NAME KEEPER_CMD BASELINE_CMD: peak resident memory of one run of each (GNU time).
perf_memory () {
	test -x /usr/bin/time || { echo "skip: $1 needs GNU time (/usr/bin/time)"; return 0; }
	a=$(/usr/bin/time -f %M sh -c "exec $2" 2>&1 >/dev/null | tail -n 1)
	b=$(/usr/bin/time -f %M sh -c "exec $3" 2>&1 >/dev/null | tail -n 1)
	perf_header
	printf '%-44s %10sKB %10sKB %8s\n' "$1 (peak RSS)" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
}

# reference_server WHAT: installs the reference MCP filesystem server
# (@modelcontextprotocol/server-filesystem, from the npm registry) once, into a directory outside
# the checkout (PERF_REFERENCE_DIR, default ~/.cache/filekeeper-perf/server-filesystem; version
# PERF_REFERENCE_VERSION, default latest), and sets REFERENCE_JS to its entry point. Without
# node or npm, or when the install fails, REFERENCE_JS is empty and a line says that only WHAT
# ("our rates", "our times") is printed.
reference_server () {
	REFERENCE_JS=
	refdir=${PERF_REFERENCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/filekeeper-perf/server-filesystem}
	refpkg=$refdir/node_modules/@modelcontextprotocol/server-filesystem
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		echo "skip: the comparison needs node and npm for @modelcontextprotocol/server-filesystem; $1 only"
		return 0
	fi
	if ! test -f "$refpkg/dist/index.js"; then
		echo "installing @modelcontextprotocol/server-filesystem into $refdir"
		mkdir -p "$refdir" &&
			npm install --prefix "$refdir" --no-audit --no-fund --loglevel=error \
				"@modelcontextprotocol/server-filesystem@${PERF_REFERENCE_VERSION:-latest}" >&2 ||
			echo "npm install failed" >&2
	fi
	if test -f "$refpkg/dist/index.js"; then
		echo "reference: @modelcontextprotocol/server-filesystem $(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$refpkg/package.json"), node $(node --version)"
		REFERENCE_JS=$refpkg/dist/index.js
	else
		echo "skip: the comparison needs @modelcontextprotocol/server-filesystem, which did not install; $1 only"
	fi
}
