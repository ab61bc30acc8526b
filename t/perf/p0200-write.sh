#!/bin/sh
# A durable single-file overwrite: keeper file write against a minimal C program that does only
# temp file, fsync, rename, directory fsync (durable-write.c), in the same run. Targets: at most
# 5 fsync-class calls (6 when the new object's fan-out directory is created) and at most 3x the
# baseline's time. Every keeper write stores the new bytes, records the operation before and
# after, and can be undone; the baseline does none of that.
. "$(dirname "$0")/perf-lib.sh"
perf_need cc strace

cc -O2 -o "$PERF_TRASH/durable-write" "$PERF_DIRECTORY/durable-write.c" || exit 1
ws=$PERF_TRASH/ws base=$PERF_TRASH/base
mkdir -p "$ws" "$base"
printf 'first\n' >"$ws/f.txt"
"$KEEPER" --root "$ws" file write f.txt --content "warm" >/dev/null || exit 1

# Each run writes new content, as real edits do; the previous bytes are always stored already.
counter=$PERF_TRASH/counter
echo 0 >"$counter"
write_keeper="n=\$((\$(cat $counter) + 1)); echo \$n >$counter; $KEEPER --root '$ws' file write f.txt --content \"version \$n\""
write_base="n=\$((\$(cat $counter) + 1)); echo \$n >$counter; $PERF_TRASH/durable-write '$base' f.txt \"version \$n\""

status=0
perf_compare "file write, durable overwrite" 3 "$write_keeper" "$write_base" || status=1

# fsync-class calls of one overwrite, counted with strace (new fan-out directories vary, so the
# best of several writes is the steady state and the worst the new-fan-out case). Only calls
# are counted, not strace's "<... fsync resumed>" lines: keeper stores the new blob on a
# second thread, so strace -f often splits a call in two.
counts=
i=0
while test $i -lt 8; do
	strace -f -qq -e trace=fsync,fdatasync,sync_file_range,syncfs -o "$PERF_TRASH/strace" \
		"$KEEPER" --root "$ws" file write f.txt --content "counted $i $$" >/dev/null
	counts="$counts $(grep -c -E '(fsync|fdatasync|sync_file_range|syncfs)\(' "$PERF_TRASH/strace")"
	i=$((i + 1))
done
min=$(echo $counts | tr ' ' '\n' | sort -n | head -n 1)
max=$(echo $counts | tr ' ' '\n' | sort -n | tail -n 1)
base_count=$(strace -f -qq -e trace=fsync,fdatasync -o /dev/stdout "$PERF_TRASH/durable-write" "$base" f.txt x | grep -c fsync)
echo "fsync-class calls per overwrite: keeper $min (with a new fan-out directory: $max); baseline $base_count"
test "$min" -le 5 && test "$max" -le 6 || { echo "fsync target MISSED"; status=1; }
exit $status
