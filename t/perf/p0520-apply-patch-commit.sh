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
# Each run starts from an untimed copy of the pre-image. Both sides run under `sh -c`, which
# adds the same millisecond or so to each.
. "$(dirname "$0")/perf-lib.sh"
perf_need git strace

repo=$PERF_DIRECTORY/../..
commit=${PERF_COMMIT:-f64d3de}
if ! git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null ||
	! git -C "$repo" cat-file -e "$commit^^{commit}" 2>/dev/null; then
	echo "skip: $0 needs commit $commit and its parent in this checkout's history"
	exit 0
fi
patch=$PERF_TRASH/change.patch
git -C "$repo" diff "$commit^" "$commit" >"$patch" || exit 1
pristine=$PERF_TRASH/pristine
mkdir -p "$pristine"
git -C "$repo" diff --name-only --diff-filter=MD "$commit^" "$commit" >"$PERF_TRASH/files"
# shellcheck disable=SC2046
git -C "$repo" archive "$commit^" $(cat "$PERF_TRASH/files") | tar -x -C "$pristine" || exit 1
echo "patch: $(git -C "$repo" diff --shortstat "$commit^" "$commit")"

ws=$PERF_TRASH/ws plain=$PERF_TRASH/plain
mkdir -p "$ws" "$plain"
# restore DIR: DIR's files as the pre-image has them, keeper's state left alone.
restore () {
	find "$1" -mindepth 1 -maxdepth 1 ! -name .filekeeper -exec rm -rf {} + &&
	cp -a "$pristine/." "$1/"
}
restore "$ws" && restore "$plain" || exit 1

status=0
PERF_BEFORE_OURS="restore '$ws'" PERF_BEFORE_THEIRS="restore '$plain'"
perf_compare "apply-patch, a $(git -C "$repo" diff --name-only "$commit^" "$commit" | wc -l)-file commit" - \
	"'$KEEPER' --root '$ws' file apply-patch '$patch'" \
	"git -C '$plain' apply '$patch'" || status=1
perf_compare "apply-patch --dry-run (the plan alone)" - \
	"'$KEEPER' --root '$ws' file apply-patch --dry-run '$patch'" \
	"git -C '$plain' apply --check '$patch'" || status=1
unset PERF_BEFORE_OURS PERF_BEFORE_THEIRS

# The results are the same bytes on both sides.
restore "$ws" && restore "$plain" &&
	"$KEEPER" --root "$ws" file apply-patch "$patch" >/dev/null &&
	git -C "$plain" apply "$patch" || exit 1
if ! diff -r -x .filekeeper "$ws" "$plain" >/dev/null; then
	echo "apply-patch and git apply disagree" >&2
	exit 1
fi

# fsync-class calls of one application (strace -f).
flushes () {
	strace -f -qq -e trace=fsync,fdatasync,sync_file_range,syncfs -o "$PERF_TRASH/strace" "$@" \
		>/dev/null 2>&1
	grep -c -E '(fsync|fdatasync|sync_file_range|syncfs)\(' "$PERF_TRASH/strace"
}
restore "$ws" && restore "$plain" || exit 1
echo "fsync-class calls: keeper $(flushes "$KEEPER" --root "$ws" file apply-patch "$patch")," \
	"git apply $(flushes git -C "$plain" apply "$patch")"
exit $status
