#!/bin/sh
test_description='crashing keeper at every step of every mutating command loses nothing

Each case builds a fresh workspace (a new directory, used through --root), runs one mutating
command with FILEKEEPER_TEST_CRASH_AT naming one crash point that command passes through, and
checks that keeper died on the spot (exit 134). Then:

  - every path holds exactly its complete old or its complete new state, compared with a
    before and an after snapshot built with plain shell commands; nothing else appeared;
  - a crash after the pending record was begun leaves exactly that one row pending, of the
    command'"'"'s kind; a crash while the blobs were stored recorded nothing at all;
  - keeper recover resolves the row honestly: committed when every path holds its after state,
    rolled_back when every path holds its before state, partial otherwise (PARTIAL_RECOVERY,
    exit 19), and names exactly the paths that changed;
  - afterwards recover has changed no path, nothing is pending, no .fk-tmp-* file is left, and
    keeper fsck is clean.

Finally the next mutation, instead of keeper recover, resolves a pending record the same way.'
. ./test-lib.sh
. "$TEST_DIRECTORY"/lib-mutation-cases.sh

CASES=$TRASH/crash

# crash POINT CMD...: runs CMD with the crash point armed; keeper must die of SIGABRT.
crash () {
	(
		FILEKEEPER_TEST_CRASH_AT=$1
		export FILEKEEPER_TEST_CRASH_AT
		shift
		"$@"
	)
	code=$?
	test $code -eq 134 || { echo >&2 "expected a crash at $1, got exit $code"; return 1; }
}

# journal_after_crash STATUS KIND: a crash before the record (STATUS none) recorded nothing;
# any later one left exactly one pending operation of KIND, whose id goes to the file "pending".
journal_after_crash () {
	if test "$1" = none; then
		# The first change of a workspace stores its old contents before the journal exists.
		! test -e ws/.filekeeper/journal.sqlite3 ||
			test "$(rows "SELECT count(*) FROM operations")" = 0
	else
		rows "SELECT id FROM operations WHERE status = 'pending'" >pending &&
		test_line_count = 1 pending &&
		test "$(rows "SELECT kind FROM operations WHERE id = '$(cat pending)'")" = "$2"
	fi
}

# recover_resolves STATUS: keeper recover resolves the pending operation as STATUS, names as
# changed exactly the paths the survey found changed, and the journal row says STATUS. With
# STATUS none there is nothing to resolve.
recover_resolves () {
	case $1 in
	none)
		in_case --json recover >recover.json &&
		json_get ".ok and .resolved == []" recover.json
		return
		;;
	partial)
		test_expect_code 19 in_case --json recover >recover.json &&
		test_error_code PARTIAL_RECOVERY recover.json &&
		jq ".error.details.resolved" recover.json >resolved.json
		;;
	*)
		in_case --json recover >recover.json &&
		json_get ".ok" recover.json &&
		jq ".resolved" recover.json >resolved.json
		;;
	esac &&
	json_get "length == 1" resolved.json &&
	test "$(json_get ".[0].operation_id" resolved.json)" = "$(cat pending)" &&
	test "$(json_get ".[0].status" resolved.json)" = "$1" &&
	json_get ".[0].changed_paths[]" resolved.json | sort >reported &&
	sort changed >expect-changed &&
	test_cmp expect-changed reported &&
	test "$(rows "SELECT status FROM operations WHERE id = '$(cat pending)'")" = "$1"
}

# undo_restores STATUS: after a committed or partial resolution, history undo of the operation
# brings every path back to its complete old state (nothing to undo otherwise).
undo_restores () {
	case $1 in
	committed|partial)
		in_case history undo "$(cat pending)" >/dev/null &&
		survey >state &&
		echo before >expect &&
		test_cmp expect state &&
		in_case fsck >/dev/null
		;;
	esac
}

test_expect_success 'this keeper is the test build, with crash points armed' '
	mkdir "$TRASH/probe" &&
	test_expect_code 134 env FILEKEEPER_TEST_CRASH_AT=mutation-after-begin \
		keeper --root "$TRASH/probe" file create probe.txt --content probe
'

test_expect_success 'setup: an old and a new version, long enough that a torn file shows' '
	make_versions
'

# One row per command: the command, its journal kind, whether it stores blobs before the record
# (old contents, which a rollback needs, so it passes object-before-rename first; a new
# content is stored alongside the record and the steps, see the tests after the loop), its
# number of steps, and the crash points inside its steps with the status recovery must find
# there. To these the loop adds object-before-rename (when
# blobs are stored: nothing recorded), mutation-after-begin (nothing applied: rolled_back), and
# mutation-after-step-1..N (partial until the last step, committed after it).
cases=0
while read -r cmd kind blobs steps inner; do
	points=
	if test "$blobs" = yes; then
		points="object-before-rename=none"
	fi
	points="$points mutation-after-begin=rolled_back $inner"
	n=1
	while test $n -le "$steps"; do
		if test $n -eq "$steps"; then
			points="$points mutation-after-step-$n=committed"
		else
			points="$points mutation-after-step-$n=partial"
		fi
		n=$((n + 1))
	done
	for pair in $points; do
		point=${pair%=*}
		status=${pair#*=}
		case $status in
		none) expect_tree=before outcome="nothing is recorded and every path keeps its old state" ;;
		rolled_back) expect_tree=before outcome="every path keeps its old state; recover says rolled_back" ;;
		committed) expect_tree=after outcome="every path holds its new state; recover says committed" ;;
		partial) expect_tree=mixed outcome="each path is old or new, none torn; recover says partial (exit 19)" ;;
		esac
		cases=$((cases + 1))
		test_expect_success "$(echo "$cmd" | tr _ " ") crashed at $point: $outcome" '
			make_case $cmd "$CASES/$cmd.$point" &&
			cd "$CASES/$cmd.$point" &&
			crash $point run_$cmd &&
			survey >state &&
			echo $expect_tree >expect &&
			test_cmp expect state &&
			journal_after_crash $status $kind &&
			recover_resolves $status &&
			survey >state &&
			test_cmp expect state &&
			test "$(pending_count)" = 0 &&
			no_temp_files ws &&
			in_case fsck >/dev/null &&
			undo_restores $status
		' </dev/null
	done
done <<EOF
file_create create     no  1 publish-before-rename=rolled_back publish-before-dir-sync=committed
file_write  write      yes 1 publish-before-rename=rolled_back publish-before-dir-sync=committed
file_copy   copy       no  1 publish-before-rename=rolled_back publish-before-dir-sync=committed
file_move   move       yes 1 rename-before-dir-sync=committed
file_delete delete     yes 1 remove-before-dir-sync=committed
dir_create  dir_create no  3 mkdir-before-dir-sync=partial
dir_move    dir_move   yes 1 rename-before-dir-sync=committed
dir_delete  dir_delete yes 5 remove-before-dir-sync=partial rmdir-before-dir-sync=partial
EOF

test_expect_success "the $cases crash cases covered 8 mutating commands and all 9 kinds of crash point" '
	ls "$CASES" >ran &&
	test_line_count = $cases ran &&
	sed "s/^[a-z_]*\.//; s/-[0-9]*\$//" ran | sort -u >kinds &&
	cat >expect <<-\EOF &&
	mkdir-before-dir-sync
	mutation-after-begin
	mutation-after-step
	object-before-rename
	publish-before-dir-sync
	publish-before-rename
	remove-before-dir-sync
	rename-before-dir-sync
	rmdir-before-dir-sync
	EOF
	test_cmp expect kinds &&
	sed "s/\..*//" ran | sort -u >commands &&
	test_line_count = 8 commands
'

# object_of HASH: the loose object file of a journal hash (sha256:HEX or HEX).
object_of () {
	hex=${1#sha256:} &&
	echo "ws/.filekeeper/objects/$(echo "$hex" | cut -c1-2)/$(echo "$hex" | cut -c3-)"
}

# crash_beside_record CMD POINT: crashes CMD at POINT, which it passes while its record is being
# written (storing a new content, staging a new file). Whether the record was made before the
# crash is a race; either way no step ran: every path keeps its old state, no temp file is left
# (a staged file is unnamed), and recovery finds nothing or rolls the operation back.
crash_beside_record () {
	make_case $1 "$TRASH/beside/$1.$2" &&
	cd "$TRASH/beside/$1.$2" &&
	crash $2 run_$1 &&
	echo before >expect &&
	survey >state &&
	test_cmp expect state &&
	no_temp_files ws &&
	in_case --json recover >recover.json &&
	json_get "[.resolved[].status] | . == [] or . == [\"rolled_back\"]" recover.json &&
	test "$(pending_count)" = 0 &&
	survey >state &&
	test_cmp expect state &&
	in_case fsck >/dev/null
}

test_expect_success 'a crash while a new content is stored, beside the record, changes nothing' '
	crash_beside_record file_create object-before-rename
'

test_expect_success 'a crash while a new file is staged, beside the record, changes nothing and leaves no temp file' '
	crash_beside_record file_write publish-staged
'

test_expect_success 'a crash while a new file is staged for a creation leaves no file and no temp file' '
	crash_beside_record file_create publish-staged
'

test_expect_success 'an operation pending or rolled back before its new content was stored: fsck is clean, history diff says never_stored' '
	make_case file_write "$TRASH/after-blob/rolled-back" &&
	cd "$TRASH/after-blob/rolled-back" &&
	crash mutation-after-begin run_file_write &&
	rows "SELECT id FROM operations WHERE status = '"'"'pending'"'"'" >pending &&
	# The new content is stored beside the record, so a crash can come before it is: take
	# it away to be sure of the case.
	rm -f "$(object_of "$(rows "SELECT after_hash FROM operation_items")")" &&
	in_case --json fsck >fsck.json &&
	json_get ".missing_objects == [] and .pending_operations == [\"$(cat pending)\"]" fsck.json &&
	in_case --json recover >recover.json &&
	json_get "[.resolved[].status] == [\"rolled_back\"]" recover.json &&
	cmp "$TRASH/old.txt" ws/doc.txt &&
	in_case --json fsck >fsck.json &&
	json_get ".missing_objects == []" fsck.json &&
	in_case --json history diff "$(cat pending)" >diff.json &&
	json_get ".paths[0].diff_kind == \"never_stored\"" diff.json
'

# next_mutation_resolves CMD POINT STATUS: after a crash, a mutation of another path (not keeper
# recover) resolves the pending record as STATUS and says so in its warnings.
next_mutation_resolves () {
	make_case $1 "$TRASH/next/$1.$2" &&
	cd "$TRASH/next/$1.$2" &&
	crash $2 run_$1 &&
	survey >/dev/null &&
	rows "SELECT id FROM operations WHERE status = 'pending'" >pending &&
	test_line_count = 1 pending &&
	in_case --json file create unrelated.txt --content "next\n" >out &&
	json_get ".ok" out &&
	json_get ".warnings[]" out >warnings &&
	grep -F "recovered $(cat pending) " warnings &&
	test "$(rows "SELECT status FROM operations WHERE id = '$(cat pending)'")" = "$3" &&
	test "$(pending_count)" = 0 &&
	no_temp_files ws &&
	in_case fsck >/dev/null
}

test_expect_success 'the next mutation, not only keeper recover, rolls back a write crashed before its rename' '
	next_mutation_resolves file_write publish-before-rename rolled_back &&
	grep -F "left by an interrupted process: rolled_back" warnings
'

test_expect_success 'the next mutation commits a write crashed after its last step' '
	next_mutation_resolves file_write mutation-after-step-1 committed &&
	grep -F "left by an interrupted process: committed" warnings
'

test_expect_success 'the next mutation records a half-done recursive delete as partial and names its changed paths' '
	next_mutation_resolves dir_delete mutation-after-step-2 partial &&
	grep -F "as partial: 2 path(s) changed" warnings
'

test_expect_success 'undo of a partial operation leaves alone a path it never changed, whatever a later operation made of it' '
	mkdir -p "$TRASH/partial-undo/ws" &&
	cd "$TRASH/partial-undo" &&
	printf "X\n" >ws/g && printf "A\n" >ws/f &&
	printf -- "--- a/g\n+++ b/g\n@@ -1 +1 @@\n-X\n+Y\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-A\n+B\n" >two.diff &&
	crash mutation-after-step-1 in_case file apply-patch "$PWD/two.diff" &&
	printf "stray\n" >ws/.fk-tmp-00000000000000ff &&
	test_expect_code 19 in_case --json recover >recovered.json &&
	json_get ".error.details.resolved[0].changed_paths == [\"g\"]" recovered.json &&
	json_get ".error.details.removed_temp_files == [\".fk-tmp-00000000000000ff\"]" recovered.json &&
	patch_op=$(json_get ".error.details.resolved[0].operation_id" recovered.json) &&
	test "$(rows "SELECT json_extract(metadata, '"'"'$.unchanged_paths'"'"') FROM operations WHERE id = '"'"'$patch_op'"'"'")" = "[\"f\"]" &&
	in_case --json file write f --content "B
" >finished.json &&
	in_case --json history undo "$patch_op" >undo.json &&
	json_get "[.items[].path] == [\"g\"]" undo.json &&
	test "$(cat ws/g)" = X &&
	test "$(cat ws/f)" = B
'

test_expect_success 'recovery removes only our temp files, not a file whose name merely starts like one' '
	mkdir -p "$TRASH/lookalike/ws" &&
	cd "$TRASH/lookalike" &&
	printf "old\n" >ws/doc.txt &&
	in_case --json file write .fk-tmp-keep.txt --content important >kept.json &&
	json_get .ok kept.json &&
	printf "stray\n" >ws/.fk-tmp-0123456789abcdef &&
	crash publish-before-rename in_case file write doc.txt --content new &&
	in_case --json recover >recovered.json &&
	test "$(cat ws/.fk-tmp-keep.txt)" = important &&
	test ! -e ws/.fk-tmp-0123456789abcdef &&
	find ws -name ".fk-tmp-*" ! -name .fk-tmp-keep.txt >left &&
	test_must_be_empty left
'

test_expect_success 'recovery names every temp file it removed' '
	cd "$TRASH/lookalike" &&
	json_get ".warnings[] | select(startswith(\"removed 2 temp file(s) an interrupted process left\"))" recovered.json >warning &&
	grep -F ".fk-tmp-0123456789abcdef" warning
'

test_expect_success 'no write may give a file the name of our temp files' '
	cd "$TRASH/lookalike" &&
	test_expect_code 8 in_case --json file write .fk-tmp-0123456789abcdef --content x >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test_expect_code 8 in_case --json file move doc.txt .fk-tmp-aaaaaaaaaaaaaaaa >out &&
	test_error_code PATH_IS_STATE_PATH out &&
	test ! -e ws/.fk-tmp-0123456789abcdef
'

test_expect_success 'a leftover temp file no recovery reaches can still be deleted, alone or with its directory' '
	cd "$TRASH/lookalike" &&
	mkdir -p ws/left ws/tree &&
	printf "stray\n" >ws/left/.fk-tmp-00000000000000aa &&
	printf "stray\n" >ws/tree/.fk-tmp-00000000000000bb &&
	in_case --json file delete left/.fk-tmp-00000000000000aa >out &&
	json_get .ok out &&
	test ! -e ws/left/.fk-tmp-00000000000000aa &&
	in_case --json dir delete tree --recursive --confirm-recursive >out &&
	json_get .ok out &&
	test ! -e ws/tree
'

test_done
