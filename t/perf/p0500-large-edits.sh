#!/bin/sh
# Edits of a large file: keeper file replace-text and keeper file apply-patch on a 20 MiB text
# file against `sed -i` making the same literal replacements, in the same run. Targets: time
# within 3x of sed, peak memory at most 4x the file size (80 MiB for 20 MiB).
#
# The file is exactly 20 MiB (the default max_write_bytes, so the largest file an edit
# accepts): about 345,000 numbered lines of words, deterministic. Three edits:
#   - one unique string in the middle of the file, --first. The everyday edit of an agent; both
#     sides must read the whole file (keeper to prove the string occurs once, sed to try every
#     line), so it measures the cost of the edit itself, not of an early exit.
#   - a string on every 350th line (about 1,000 occurrences), --all with the count confirmed,
#     against sed's s///g: many splices instead of one.
#   - a unified diff of three one-line hunks far apart, against sed with the same three
#     substitutions (and, for information, GNU patch).
#
# The fair baseline: the target names sed, so the gated ratio is against plain `sed -i`, which
# writes a temp file and renames it but never fsyncs. keeper's edit is durable and journaled
# (file fsynced before the rename, directory after, WAL record before), and verifies the file
# before and after; it does not keep the 20 MiB in history (above max_history_blob_bytes), as
# it says. An informational row times `sed -i` followed by `sync` of the file and its
# directory, the nearest durable equivalent.
#
# Every timed run starts from the original file: it is copied back and synced before each run,
# outside the timed region, for keeper and for sed alike (a restore left dirty would be
# flushed by keeper's fsync and charged to it). sed runs with LC_ALL=C, its fastest mode (the
# file is ASCII, so the result is the same). PERF_RUNS sets the runs (default 10).
. "$(dirname "$0")/perf-lib.sh"
perf_need sed diff awk sync cmp

size=$((20 * 1048576))
orig=$PERF_TRASH/orig.txt ws=$PERF_TRASH/ws base=$PERF_TRASH/base
mkdir -p "$ws" "$base"

# Deterministic text: numbered lines of 6 to 15 words; line 170000 holds the unique string,
# every 350th line the repeated one. Cut to the exact size, ending with a newline.
awk -v size=$size 'BEGIN {
	srand(9)
	n = split("the of and to in is that for it as with was on be by this are from at or an " \
		"which have not had but one were all their more when there can been has will would " \
		"other into some time could than then them these only new after also first made most " \
		"over such where through back years much before should well because any each just " \
		"those people how too little under might very still while own same last never " \
		"another ok read write file path line data value error result state config buffer index", w, " ")
	for (i = 1; total < size; i++) {
		s = sprintf("%6d:", i)
		k = 6 + int(rand() * 10)
		for (j = 0; j < k; j++) s = s " " w[1 + int(rand() * n)]
		if (i == 170000) s = s " const RETRY_BUDGET: u32 = 3;"
		if (i % 350 == 0) s = s " legacy_handler(ctx)"
		print s
		total += length(s) + 1
	}
}' | head -c $((size - 1)) >"$orig" && printf '\n' >>"$orig" || exit 1
test "$(wc -c <"$orig")" -eq $size || { echo "could not generate the file" >&2; exit 1; }
unique=$(grep -c 'RETRY_BUDGET' "$orig")
repeated=$(grep -o 'legacy_handler' "$orig" | wc -l)
test "$unique" -eq 1 && test "$repeated" -gt 900 || { echo "unexpected generated text" >&2; exit 1; }
echo "file: $(($(wc -c <"$orig") / 1048576)) MiB, $(wc -l <"$orig") lines; the repeated string occurs $repeated times"

# The patch: three one-line hunks far apart, as `diff -u` writes them: a line rewritten, a line
# extended, a line deleted. The same changes make the sed script (the lines hold only words,
# digits and colons, so they are literal as regular expressions too). Every edit keeps the
# file within 20 MiB, the most keeper accepts: the replacements are as long as the text they
# replace, and the patch removes more than it adds.
l1=$(sed -n 50000p "$orig") l2=$(sed -n 170001p "$orig") l3=$(sed -n 300000p "$orig")
sed_patch="s/$l1/ 50000: reviewed/; s/$l2/$l2 (checked)/; /^$l3\$/d"
LC_ALL=C sed -e "$sed_patch" "$orig" >"$PERF_TRASH/patched.txt" || exit 1
diff -u --label a/big.txt --label b/big.txt "$orig" "$PERF_TRASH/patched.txt" >"$PERF_TRASH/change.patch"
test $? -eq 1 || { echo "could not make the patch" >&2; exit 1; }

# restore DIR: the original file back in DIR, on disk, before a timed run.
restore () {
	cp "$orig" "$1/big.txt" && sync "$1/big.txt" "$1"
}

# edit_compare NAME TARGET KEEPER_CMD BASELINE_CMD [EXPECTED]: like perf_compare, but both
# commands edit big.txt (keeper in $ws, the baseline in $base), each run on a freshly restored
# file, the restore outside the timing. TARGET "-" prints the ratio without a target. When
# EXPECTED is given, both results must equal it (the benchmark times the same edit).
edit_compare () {
	expected=$5
	# One untimed run of each, and a check that both made the same edit.
	restore "$ws" && sh -c "$3" >/dev/null 2>&1 || { echo "$1: keeper failed: $3" >&2; return 1; }
	restore "$base" && sh -c "$4" >/dev/null 2>&1 || { echo "$1: baseline failed" >&2; return 1; }
	if test -n "$expected"; then
		cmp -s "$ws/big.txt" "$expected" && cmp -s "$base/big.txt" "$expected" ||
			{ echo "$1: the two sides did not make the expected edit" >&2; return 1; }
	fi
	PERF_BEFORE_OURS='restore "$ws"'
	PERF_BEFORE_THEIRS='restore "$base"'
	perf_compare "$1" "$2" "$3" "$4"
	status=$?
	unset PERF_BEFORE_OURS PERF_BEFORE_THEIRS
	return $status
}

# peak_rss NAME KEEPER_CMD BASELINE_CMD: peak resident memory (GNU time, KiB) of one run of
# each on a restored file, keeper's against 4x the file size.
peak_memory_rows=
peak_rss () {
	restore "$ws" && a=$(/usr/bin/time -f %M sh -c "exec $2" 2>&1 >/dev/null | tail -n 1)
	restore "$base" && b=$(/usr/bin/time -f %M sh -c "exec $3" 2>&1 >/dev/null | tail -n 1)
	peak_memory_rows="$peak_memory_rows$1|$a|$b
"
}

# The edits' commands. Both sides produce the same bytes (checked once, before timing).
sed_first="LC_ALL=C sed -i 's/RETRY_BUDGET: u32 = 3;/RETRY_BUDGET: u32 = 5;/' '$base/big.txt'"
keeper_first="$KEEPER --root '$ws' file replace-text big.txt --first --old 'RETRY_BUDGET: u32 = 3;' --new 'RETRY_BUDGET: u32 = 5;'"
sed_all="LC_ALL=C sed -i 's/legacy_handler(ctx)/modern_handler(ctx)/g' '$base/big.txt'"
keeper_all="$KEEPER --root '$ws' file replace-text big.txt --all --expected-match-count $repeated --old 'legacy_handler(ctx)' --new 'modern_handler(ctx)'"
sed_patch_cmd="LC_ALL=C sed -i -e '$sed_patch' '$base/big.txt'"
keeper_patch="$KEEPER --root '$ws' file apply-patch '$PERF_TRASH/change.patch'"

LC_ALL=C sed 's/RETRY_BUDGET: u32 = 3;/RETRY_BUDGET: u32 = 5;/' "$orig" >"$PERF_TRASH/first.txt"
LC_ALL=C sed 's/legacy_handler(ctx)/modern_handler(ctx)/g' "$orig" >"$PERF_TRASH/all.txt"

status=0
edit_compare "replace-text --first, 1 match" 3 "$keeper_first" "$sed_first" "$PERF_TRASH/first.txt" || status=1
edit_compare "replace-text --all, $repeated matches" 3 "$keeper_all" "$sed_all" "$PERF_TRASH/all.txt" || status=1
edit_compare "apply-patch, 3 hunks" 3 "$keeper_patch" "$sed_patch_cmd" "$PERF_TRASH/patched.txt" || status=1
edit_compare "replace-text --first vs sed -i + sync" - "$keeper_first" "$sed_first && sync '$base/big.txt' '$base'" || status=1
if command -v patch >/dev/null; then
	edit_compare "apply-patch vs GNU patch" - "$keeper_patch" \
		"patch -s -p1 -d '$base' -i '$PERF_TRASH/change.patch'" "$PERF_TRASH/patched.txt" || status=1
fi

# Peak memory against 4x the file size.
if test -x /usr/bin/time; then
	peak_rss "replace-text --first" "$keeper_first" "$sed_first"
	peak_rss "replace-text --all" "$keeper_all" "$sed_all"
	peak_rss "apply-patch" "$keeper_patch" "$sed_patch_cmd"
	bound=$((4 * size / 1024))
	printf '\n%-44s %12s %12s %8s %8s\n' "peak RSS (GNU time, one run)" keeper sed "x file" target
	echo "$peak_memory_rows" | while IFS='|' read -r name a b; do
		test -n "$name" || continue
		awk -v n="$name" -v a="$a" -v b="$b" -v bound=$bound -v kib=$((size / 1024)) 'BEGIN {
			printf "%-44s %9.1fMiB %9.1fMiB %8.2f %7s%s\n", n, a / 1024, b / 1024, a / kib, "<=4", (a <= bound ? "" : "  MISSED")
		}'
	done
	echo "$peak_memory_rows" | awk -F'|' -v bound=$bound '$2 > bound { missed = 1 } END { exit missed }' || status=1
else
	echo "skip: peak memory needs GNU time (/usr/bin/time; apt-get install time)"
fi
exit $status
