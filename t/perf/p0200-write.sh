#!/bin/sh
# A durable single-file overwrite: keeper file write against a minimal C program that does only
# temp file, fsync, rename, directory fsync (durable-write.c), in the same run. Targets: at most
# 5 fsync-class calls (6 when the new object's fan-out directory is created) and at most 3x the
# baseline's time. Every keeper write stores the new bytes, records the operation before and
# after, and can be undone; the baseline does none of that.
#
# Both sides are whole processes spawned directly by the driver exec-alternate.c (no shell in
# between, which used to add about 3 ms to each side and halve the ratio), and each run writes
# new content, as real edits do; the previous bytes are always stored already. keeper writes
# in the registered default workspace, the path a user who followed the README takes, and
# with --root.
. "$(dirname "$0")/perf-lib.sh"
perf_need cc strace

cc -O2 -o "$PERF_TRASH/durable-write" "$PERF_DIRECTORY/durable-write.c" || exit 1
ws=$PERF_TRASH/ws base=$PERF_TRASH/base
mkdir -p "$ws" "$base"
printf 'first\n' >"$ws/f.txt"
"$KEEPER" init >/dev/null &&
	"$KEEPER" workspace create bench "$ws" >/dev/null &&
	"$KEEPER" workspace use bench >/dev/null &&
	"$KEEPER" file write f.txt --content "warm" >/dev/null || exit 1

status=0
perf_compare_new "file write, durable overwrite" 3 \
	"'$KEEPER' file write f.txt --content 'default {N}'" \
	"'$PERF_TRASH/durable-write' '$base' f.txt 'default {N}'" || status=1
perf_compare_new "file write --root, durable overwrite" 3 \
	"'$KEEPER' --root '$ws' file write f.txt --content 'root {N}'" \
	"'$PERF_TRASH/durable-write' '$base' f.txt 'root {N}'" || status=1

# fsync-class calls of one overwrite, counted with strace. A write whose new object needs a
# new fan-out directory pays one more (for objects/), so the content is chosen by the first
# two hex digits of its sha256 (the object id): steady-state writes land in an existing
# fan-out directory, one write in a new one. Only calls are counted, not strace's
# "<... fsync resumed>" lines: keeper stores the new blob on a second thread, so strace -f
# often splits a call in two.
perf_need sha256sum
# content_for N yes|no: a content whose fan-out directory exists already (yes) or not (no).
content_for () {
	j=0
	while :; do
		c="counted $1 $j $$"
		fan=$(printf '%s' "$c" | sha256sum | cut -c1-2)
		if test -d "$ws/.filekeeper/objects/$fan"; then has=yes; else has=no; fi
		test "$has" = "$2" && break
		j=$((j + 1))
	done
	printf '%s' "$c"
}
# fsyncs_of_write CONTENT: the fsync-class calls of one overwrite, then "checkpoint" when this
# write was the one that checkpointed the journal's WAL (about one in seven: the commit that
# takes the WAL past 128 pages copies it into journal.sqlite3 and syncs both, see
# durability.md); strace -y names each call's file, so the database's own sync shows it.
fsyncs_of_write () {
	strace -f -qq -y -e trace=fsync,fdatasync,sync_file_range,syncfs -o "$PERF_TRASH/strace" \
		"$KEEPER" --root "$ws" file write f.txt --content "$1" >/dev/null &&
	printf '%s' "$(grep -c -E '(fsync|fdatasync|sync_file_range|syncfs)\(' "$PERF_TRASH/strace")" &&
	if grep -q -E 'sync\([0-9]+</[^>]*/journal\.sqlite3>' "$PERF_TRASH/strace"; then
		echo " checkpoint"
	else
		echo
	fi
}
# Fifteen writes, so that two or more checkpoint: the target is for the others.
steady=0 checkpointing=0 checkpoints=0
i=0
while test $i -lt 15; do
	set -- $(fsyncs_of_write "$(content_for $i yes)")
	if test "${2-}" = checkpoint; then
		checkpoints=$((checkpoints + 1))
		test "$1" -gt "$checkpointing" && checkpointing=$1
	else
		test "$1" -gt "$steady" && steady=$1
	fi
	i=$((i + 1))
done
# A write into a new fan-out directory, tried again (with other content) while it happens to
# be one that checkpoints.
j=0
while :; do
	set -- $(fsyncs_of_write "$(content_for "new $j" no)")
	fresh=$1
	test "${2-}" = checkpoint && test $j -lt 3 || break
	j=$((j + 1))
done
base_count=$(strace -f -qq -e trace=fsync,fdatasync -o /dev/stdout "$PERF_TRASH/durable-write" "$base" f.txt x | grep -c fsync)
echo "fsync-class calls per overwrite: keeper $steady (with a new fan-out directory: $fresh); baseline $base_count"
echo "writes that checkpointed the WAL: $checkpoints of 15, $checkpointing calls each"
test "$steady" -le 5 && test "$fresh" -le 6 || { echo "fsync target MISSED"; status=1; }
exit $status
