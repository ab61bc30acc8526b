#!/bin/sh
# History at scale: the same commands against a journal of 10 operations and one of 100,000.
# Target: within 1.5x (indexes on sequence, path, actor and task; no full scans).
. "$(dirname "$0")/perf-lib.sh"
perf_need sqlite3

# make_workspace DIR SYNTHETIC: a workspace whose journal holds SYNTHETIC generated operations
# (inserted with sqlite3, as old history), followed by 10 real writes through keeper.
make_workspace () {
	dir=$1 synthetic=$2
	mkdir -p "$dir" && cd "$dir" || exit 1
	printf 'start\n' >f.txt
	"$KEEPER" --root . file write f.txt --content "first" >/dev/null || exit 1
	if test "$synthetic" -gt 0; then
		sqlite3 .filekeeper/journal.sqlite3 "
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $synthetic)
			INSERT INTO operations (id, kind, status, summary, target_path, actor, task_id)
			SELECT printf('op_%016x', i), 'write', 'committed', 'Wrote old' || (i % 1000) || '.txt.',
			       'old' || (i % 1000) || '.txt', 'actor' || (i % 10), 'task' || (i % 100) FROM n;
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $synthetic)
			INSERT INTO operation_items (op_id, ordinal, path, change, before_exists, after_exists)
			SELECT printf('op_%016x', i), 0, 'old' || (i % 1000) || '.txt', 'modified', 1, 1 FROM n;" || exit 1
	fi
	i=0
	while test $i -lt 10; do
		"$KEEPER" --root . --actor bench file write f.txt --content "version $i" >/dev/null || exit 1
		i=$((i + 1))
	done
	cd - >/dev/null || exit 1
}

small=$PERF_TRASH/small big=$PERF_TRASH/big
make_workspace "$small" 0
make_workspace "$big" 100000
echo "journals: $(sqlite3 "$small/.filekeeper/journal.sqlite3" 'SELECT count(*) FROM operations') and $(sqlite3 "$big/.filekeeper/journal.sqlite3" 'SELECT count(*) FROM operations') operations"
op_small=$("$KEEPER" --root "$small" --json history list --limit 1 | sed -n 's/.*"id":"\(op_[0-9a-f]*\)".*/\1/p')
op_big=$("$KEEPER" --root "$big" --json history list --limit 1 | sed -n 's/.*"id":"\(op_[0-9a-f]*\)".*/\1/p')

status=0
perf_compare "history list --limit 20" 1.5 \
	"$KEEPER --root '$big' --json history list --limit 20" \
	"$KEEPER --root '$small' --json history list --limit 20" || status=1
perf_compare "history list --path f.txt" 1.5 \
	"$KEEPER --root '$big' --json history list --path f.txt" \
	"$KEEPER --root '$small' --json history list --path f.txt" || status=1
perf_compare "history list --actor bench" 1.5 \
	"$KEEPER --root '$big' --actor bench --json history list" \
	"$KEEPER --root '$small' --actor bench --json history list" || status=1
perf_compare "history show (newest)" 1.5 \
	"$KEEPER --root '$big' --json history show $op_big" \
	"$KEEPER --root '$small' --json history show $op_small" || status=1
perf_compare "history undo-last --dry-run" 1.5 \
	"$KEEPER --root '$big' --json history undo-last --dry-run" \
	"$KEEPER --root '$small' --json history undo-last --dry-run" || status=1
exit $status
