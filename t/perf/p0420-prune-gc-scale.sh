#!/bin/sh
# History retention at scale: `keeper history prune` and `keeper gc` of a store of 100,000
# objects, half of them collectable once the older half of a 1,000,000-operation journal is
# pruned, against the floor of the same work done by hand in the same run: listing the store
# with `find .filekeeper/objects -type f` and deleting the same collectable files with `rm`.
# Target: within 2x. Then the peak memory of prune and gc on this store against a store ten
# times smaller (target: within 1.5x, memory does not grow with what is kept), and the time
# of `keeper status`, which counts the undoable operations, against sqlite3 running the same
# count (for information: status also walks the store).
#
# The store is generated directly (a keeper write creates the workspace and its journal, then
# Python fills it, object_refs included, as keeper's own writes would): operation k overwrites one of 1,000 files, from object k/10 - 1 to object
# k/10, so each object is named by about ten operations. Object files are small stand-ins (gc
# reads names and times, never contents), dated 30 days back, as are the operations, so that
# the default one-day grace period protects none of them. Every timed run starts from a copy
# of the pristine state, made untimed, for both sides alike.
. "$(dirname "$0")/perf-lib.sh"
perf_need python3 sqlite3

operations=${PERF_OPERATIONS:-1000000}
objects=$((operations / 10))
PERF_RUNS=${PERF_SCALE_RUNS:-3}

# generate DIR OPERATIONS: a workspace at DIR with that many operations and a tenth as many
# objects, and DIR.collectable listing the objects pruning the older half releases.
generate () {
	mkdir -p "$1" && printf 'start\n' >"$1/f.txt" &&
	"$KEEPER" --root "$1" file write f.txt --content warm >/dev/null &&
	find "$1/.filekeeper/objects" -type f -delete &&
	sqlite3 "$1/.filekeeper/journal.sqlite3" "DELETE FROM operation_items; DELETE FROM operations;" &&
	python3 - "$1" "$2" <<'PY'
import hashlib, os, sqlite3, sys
root, count = sys.argv[1], int(sys.argv[2])
store = os.path.join(root, ".filekeeper", "objects")
objects = count // 10
old = 30 * 86400
then = __import__("time").time() - old
hexes = [hashlib.sha256(b"generated %d" % i).hexdigest() for i in range(objects)]
for h in hexes:
    d = os.path.join(store, h[:2])
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, h[2:])
    with open(p, "wb") as f:
        f.write(b"x" * 64)
    os.utime(p, (then, then))
db = sqlite3.connect(os.path.join(root, ".filekeeper", "journal.sqlite3"))
stamp = "2020-01-01T00:00:00.000Z"
def operations():
    for k in range(count):
        yield ("op_%016x" % k, "file.write", "committed", stamp, stamp, "f%d.txt" % (k % 1000))
def items():
    for k in range(count):
        before = "sha256:" + hexes[k // 10 - 1] if k >= 10 else None
        yield ("op_%016x" % k, 0, "f%d.txt" % (k % 1000), "modified",
               1 if before else 0, 1, before, "sha256:" + hexes[k // 10])
with db:
    db.executemany("INSERT INTO operations (id, kind, status, created_at, updated_at, target_path)"
                   " VALUES (?, ?, ?, ?, ?, ?)", operations())
    db.executemany("INSERT INTO operation_items (op_id, ordinal, path, change, before_exists,"
                   " after_exists, before_hash, after_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", items())
    # What keeper writes with each item (schema 4): each object's newest naming operation.
    db.execute("DELETE FROM object_refs")
    db.execute("INSERT INTO object_refs (hash, last_seq)"
               " SELECT h, max(seq) FROM (SELECT i.before_hash AS h, o.seq FROM operation_items i"
               " JOIN operations o ON o.id = i.op_id UNION ALL SELECT i.after_hash, o.seq"
               " FROM operation_items i JOIN operations o ON o.id = i.op_id)"
               " WHERE h IS NOT NULL GROUP BY h")
db.close()
# Pruning all but the newest half leaves objects from (count/2)/10 - 1 on named. The paths
# are relative to the workspace, so that the baseline removes them from the copy it is timed
# on and never from the pristine state.
with open(root + ".collectable", "w") as f:
    for h in hexes[: count // 2 // 10 - 1]:
        f.write(os.path.join(".filekeeper", "objects", h[:2], h[2:]) + "\n")
PY
}

big=$PERF_TRASH/big small=$PERF_TRASH/small
generate "$big.pristine" "$operations" || exit 1
generate "$small.pristine" $((operations / 10)) || exit 1
echo "store: $(find "$big.pristine/.filekeeper/objects" -type f | wc -l) objects," \
	"$(sqlite3 "$big.pristine/.filekeeper/journal.sqlite3" 'SELECT count(*) FROM operations') operations," \
	"$(wc -l <"$big.pristine.collectable") collectable"

# restore NAME: NAME's state as generated, untimed, written back to disk so that no side
# pays for the copy's writeback.
restore () {
	rm -rf "$1" && cp -a "$1.pristine" "$1" && sync
}
keep=$((operations / 2))
PERF_BEFORE_OURS="restore '$big'"
PERF_BEFORE_THEIRS="restore '$big'"
perf_compare "history prune + gc, $objects objects" 2 \
	"'$KEEPER' --root '$big' history prune --keep-last $keep && '$KEEPER' --root '$big' gc" \
	"cd '$big' && find .filekeeper/objects -type f >/dev/null && xargs rm <'$big.pristine.collectable'" ||
	status=1

# The removals really happened on both sides, and never to the pristine state every run starts
# from: the last run's store holds the other half (the baseline's `rm` without -f fails on a
# file already gone).
left=$(find "$big/.filekeeper/objects" -type f | wc -l)
expected=$((objects - $(wc -l <"$big.pristine.collectable")))
pristine=$(find "$big.pristine/.filekeeper/objects" -type f | wc -l)
if test "$left" -ne "$expected" || test "$pristine" -ne "$objects"; then
	echo "gc left $left objects, expected $expected; the pristine state has $pristine" >&2
	exit 1
fi

# peak_kb CMD: the peak resident memory of CMD, in KB (GNU time).
peak_kb () {
	/usr/bin/time -f %M sh -c "exec $1" 2>&1 >/dev/null | tail -n 1
}
if test -x /usr/bin/time; then
	unset PERF_BEFORE_OURS PERF_BEFORE_THEIRS
	for side in big small; do
		eval "dir=\$$side"
		restore "$dir"
		n=$(sqlite3 "$dir/.filekeeper/journal.sqlite3" 'SELECT count(*) FROM operations')
		eval "prune_$side=\$(peak_kb \"'$KEEPER' --root '$dir' history prune --keep-last $((n / 2))\")"
		eval "gc_$side=\$(peak_kb \"'$KEEPER' --root '$dir' gc\")"
	done
	perf_header
	for step in prune gc; do
		eval "a=\$${step}_big b=\$${step}_small"
		awk -v n="$step peak RSS, 10x the store" -v a="$a" -v b="$b" 'BEGIN {
			r = a / b
			printf "%-44s %10sKB %10sKB %8.2f %7s%s\n", n, a, b, r, "<=1.5", (r <= 1.5 ? "" : "  MISSED")
			exit (r <= 1.5 ? 0 : 1)
		}' || status=1
	done
else
	echo "skip: the memory figures need GNU time (/usr/bin/time)"
fi

# status counts the undoable operations of the 1,000,000 (and walks the store): against
# sqlite3 running the same count, the query of plumbing/src/status.rs, alone.
restore "$big"
"$KEEPER" --root "$big" history prune --keep-last $keep >/dev/null || exit 1
unpruned_undoable="+o.status IN ('committed', 'partial')
	AND NOT EXISTS (SELECT 1 FROM operations u WHERE u.undoes = o.id AND u.kind = 'undo'
	AND u.status IN ('committed', 'partial'))
	AND NOT EXISTS (SELECT 1 FROM operation_items i WHERE i.op_id = o.id AND i.history_skipped = 1)"
undoable="SELECT (SELECT count(*) FROM operations o
	WHERE o.seq > (SELECT coalesce(max(cut_seq), 0) FROM prunes) AND $unpruned_undoable)
	+ (SELECT count(*) FROM prune_exceptions e CROSS JOIN operations o
	WHERE e.pruned_by IS NULL AND o.id = e.op_id AND $unpruned_undoable)"
perf_compare "status, $operations operations" - \
	"'$KEEPER' --root '$big' status" \
	"sqlite3 '$big/.filekeeper/journal.sqlite3' \"$undoable\"" || status=1
exit ${status:-0}
