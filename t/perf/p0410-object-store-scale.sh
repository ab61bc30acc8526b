#!/bin/sh
# A single write into a store holding 100,000 loose objects against the same write into an
# almost empty store, in the same run. Target: no measurable cost (within 1.15x). The objects
# are generated directly as files (their content does not matter to a write), 256 fan-out
# directories of about 390 each, as 100,000 real blobs would spread.
. "$(dirname "$0")/perf-lib.sh"
perf_need python3

objects=${PERF_OBJECTS:-100000}
small=$PERF_TRASH/small big=$PERF_TRASH/big
for ws in "$small" "$big"; do
	mkdir -p "$ws" && printf 'start\n' >"$ws/f.txt" &&
	"$KEEPER" --root "$ws" file write f.txt --content warm >/dev/null || exit 1
done
python3 - "$big/.filekeeper/objects" "$objects" <<'PY' || exit 1
import hashlib, os, sys
store, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    h = hashlib.sha256(b"generated %d" % i).hexdigest()
    os.makedirs(os.path.join(store, h[:2]), exist_ok=True)
    with open(os.path.join(store, h[:2], h[2:]), "wb") as f:
        f.write(b"x")
PY
echo "stores: $(find "$small/.filekeeper/objects" -type f | wc -l) and $(find "$big/.filekeeper/objects" -type f | wc -l) objects"

counter=$PERF_TRASH/counter
echo 0 >"$counter"
write () {
	echo "n=\$((\$(cat $counter) + 1)); echo \$n >$counter; $KEEPER --root '$1' file write f.txt --content \"version \$n\""
}
perf_compare "file write, 100,000 loose objects" 1.15 "$(write "$big")" "$(write "$small")"
