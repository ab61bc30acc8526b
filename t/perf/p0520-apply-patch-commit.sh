#!/bin/sh
# A real multi-file commit applied as a patch: `keeper file apply-patch` against `git apply` of
# the same `git diff`, on the same pre-image files, in the same run. For information (no
# target): keeper checks every hunk first, then writes each file atomically and durably and
# journals the change so it can be undone; git apply writes the files in place, unsynced. The
# rows that follow say where the difference goes: keeper's plan alone (--dry-run: parse,
# match, diff, no write) and the flushes each side makes.
#
# The commit (PERF_COMMIT, default f64d3de, which added the retention policy: 6 files, 369
# lines in, 20 out) is read from this checkout's history; the benchmark skips without it.
#
# Both sides are whole processes spawned directly by the driver exec-alternate.c (no shell
# between), taking turns. Every run applies the patch to a fresh copy of the pre-image,
# prepared before the clock starts: run N's copy is the directory run-N/ and its patch names
# run-N/ (git diff --src-prefix/--dst-prefix), in keeper's registered default workspace (the
# path a user who followed the README takes, its journal already open for business) and in a
# plain directory for git apply.
. "$(dirname "$0")/perf-lib.sh"
perf_need git strace

repo=$PERF_DIRECTORY/../..
commit=${PERF_COMMIT:-f64d3de}
if ! git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null ||
	! git -C "$repo" cat-file -e "$commit^^{commit}" 2>/dev/null; then
	echo "skip: $0 needs commit $commit and its parent in this checkout's history"
	exit 0
fi
pristine=$PERF_TRASH/pristine
mkdir -p "$pristine"
git -C "$repo" diff --name-only --diff-filter=MD "$commit^" "$commit" >"$PERF_TRASH/files"
# shellcheck disable=SC2046
git -C "$repo" archive "$commit^" $(cat "$PERF_TRASH/files") | tar -x -C "$pristine" || exit 1
files=$(git -C "$repo" diff --name-only "$commit^" "$commit" | wc -l)
echo "patch: $(git -C "$repo" diff --shortstat "$commit^" "$commit")"

ws=$PERF_TRASH/ws plain=$PERF_TRASH/plain
mkdir -p "$ws" "$plain" "$PERF_TRASH/patches"
"$KEEPER" init >/dev/null &&
	"$KEEPER" workspace create bench "$ws" >/dev/null &&
	"$KEEPER" workspace use bench >/dev/null &&
	"$KEEPER" file write warm.txt --content warm >/dev/null || exit 1
# prepare PREFIX LAST: for runs 0 to LAST, a copy of the pre-image under PREFIX-N/ on both
# sides and the patch that names it.
prepare () {
	n=0
	while test $n -le "$2"; do
		for side in "$ws" "$plain"; do
			mkdir -p "$side/$1-$n" && cp -a "$pristine/." "$side/$1-$n/" || return 1
		done
		git -C "$repo" diff --src-prefix="a/$1-$n/" --dst-prefix="b/$1-$n/" "$commit^" "$commit" \
			>"$PERF_TRASH/patches/$1-$n.patch" || return 1
		n=$((n + 1))
	done
}
# Run 0 is the driver's untimed round.
prepare plan "$PERF_RUNS" && prepare run "$PERF_RUNS" || exit 1

status=0
perf_compare_new "apply-patch --dry-run (the plan alone)" - \
	"'$KEEPER' file apply-patch --dry-run '$PERF_TRASH/patches/plan-{N}.patch'" \
	"'$(command -v git)' -C '$plain' apply --check '$PERF_TRASH/patches/plan-{N}.patch'" || status=1
perf_compare_new "apply-patch, a $files-file commit" - \
	"'$KEEPER' file apply-patch '$PERF_TRASH/patches/run-{N}.patch'" \
	"'$(command -v git)' -C '$plain' apply '$PERF_TRASH/patches/run-{N}.patch'" || status=1

# Every run's result is the same bytes on both sides.
if ! diff -r -x .filekeeper -x warm.txt "$ws" "$plain" >/dev/null; then
	echo "apply-patch and git apply disagree" >&2
	exit 1
fi
if diff -r "$pristine" "$ws/run-1" >/dev/null; then
	echo "the patch changed nothing" >&2
	exit 1
fi

# fsync-class calls of one application (strace -f).
flushes () {
	strace -f -qq -e trace=fsync,fdatasync,sync_file_range,syncfs -o "$PERF_TRASH/strace" "$@" \
		>/dev/null 2>&1
	grep -c -E '(fsync|fdatasync|sync_file_range|syncfs)\(' "$PERF_TRASH/strace"
}
prepare count 0 || exit 1
echo "fsync-class calls: keeper $(flushes "$KEEPER" file apply-patch "$PERF_TRASH/patches/count-0.patch")," \
	"git apply $(flushes git -C "$plain" apply "$PERF_TRASH/patches/count-0.patch")"
exit $status
