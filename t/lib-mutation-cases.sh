# lib-mutation-cases.sh: one small case per mutating command, for the scripts that interrupt
# keeper in the middle of a mutation (t0210 crashes it at named points, t0220 fails or kills
# it at every counted I/O call) and then check that nothing was lost.
#
# For each command CMD: before_CMD builds, in the current directory, the tree as it is before
# the command; after_CMD turns a copy of it into the tree as it must be after, with plain shell
# commands; run_CMD is the keeper command itself, run in the case directory; an optional
# prepare_CMD runs once the case workspace exists (to record history the command needs).
# The scripts need $TRASH/old.txt and $TRASH/new.txt: see make_versions.

# make_versions: an old and a new version, long enough that a torn file shows.
make_versions () {
	awk "BEGIN { for (i = 1; i <= 300; i++) printf \"old line %d of the first version\n\", i }" \
		>"$TRASH/old.txt" &&
	awk "BEGIN { for (i = 1; i <= 400; i++) printf \"new line %d, rewritten for the second version\n\", i }" \
		>"$TRASH/new.txt" &&
	! cmp -s "$TRASH/old.txt" "$TRASH/new.txt"
}

# in_case ARGS...: keeper on the current case's workspace, with the global options in
# IN_CASE_OPTIONS (say --json) if set.
in_case () {
	keeper --root "$PWD/ws" ${IN_CASE_OPTIONS:-} "$@"
}

# rows SQL: a query on the current case's journal.
rows () {
	sqlite3 ws/.filekeeper/journal.sqlite3 "$1"
}

before_file_create () { printf "bystander\n" >bystander.txt; }
after_file_create () { cp "$TRASH/new.txt" created.txt; }
run_file_create () { in_case file create created.txt --input "$TRASH/new.txt"; }

before_file_write () { printf "bystander\n" >bystander.txt && cp "$TRASH/old.txt" doc.txt; }
after_file_write () { cp "$TRASH/new.txt" doc.txt; }
run_file_write () { in_case file write doc.txt --input "$TRASH/new.txt"; }

before_file_copy () { printf "bystander\n" >bystander.txt && cp "$TRASH/new.txt" src.txt; }
after_file_copy () { cp src.txt copy.txt; }
run_file_copy () { in_case file copy src.txt copy.txt; }

before_file_move () {
	printf "bystander\n" >bystander.txt &&
	mkdir from to &&
	cp "$TRASH/old.txt" from/moving.txt
}
after_file_move () { mv from/moving.txt to/moved.txt; }
run_file_move () { in_case file move from/moving.txt to/moved.txt; }

before_file_move_overwrite () { before_file_move && printf "replaced\n" >to/moved.txt; }
after_file_move_overwrite () { after_file_move; }
run_file_move_overwrite () { in_case file move from/moving.txt to/moved.txt --overwrite; }

before_file_delete () { printf "bystander\n" >bystander.txt && cp "$TRASH/old.txt" doomed.txt; }
after_file_delete () { rm doomed.txt; }
run_file_delete () { in_case file delete doomed.txt; }

before_dir_create () { printf "bystander\n" >bystander.txt; }
after_dir_create () { mkdir -p a/b/c; }
run_dir_create () { in_case dir create a/b/c --parents; }

before_dir_move () {
	printf "bystander\n" >bystander.txt &&
	mkdir -p olddir/sub &&
	cp "$TRASH/old.txt" olddir/x.txt &&
	cp "$TRASH/new.txt" olddir/sub/y.txt
}
after_dir_move () { mv olddir newdir; }
run_dir_move () { in_case dir move olddir newdir; }

# Three files in two directories: five steps (three removals, then tree/sub, then tree).
before_dir_delete () {
	printf "bystander\n" >bystander.txt &&
	mkdir -p tree/sub &&
	cp "$TRASH/old.txt" tree/one.txt &&
	cp "$TRASH/new.txt" tree/sub/two.txt &&
	printf "three\n" >tree/sub/three.txt
}
after_dir_delete () { rm -r tree; }
run_dir_delete () { in_case dir delete tree --recursive --confirm-recursive; }

# holds SNAPSHOT PATH: ws/PATH is what SNAPSHOT/PATH is: the same bytes, a directory, or absent.
holds () {
	if test -d "$1/$2"; then
		test -d "ws/$2" && ! test -h "ws/$2"
	elif test -f "$1/$2"; then
		test -f "ws/$2" && ! test -h "ws/$2" && cmp -s "$1/$2" "ws/$2"
	else
		! test -e "ws/$2" && ! test -h "ws/$2"
	fi
}

# survey: compares every path of both snapshots with the workspace. Fails, naming them, when a
# path holds neither its complete old nor its complete new state, or when the workspace holds a
# path neither snapshot has (our own .filekeeper/ and .fk-tmp-* aside). Otherwise prints
# "before" when every path holds its before state, "after" when every path holds its after
# state, and "mixed" otherwise; the file "changed" lists the paths that differ from before.
survey () {
	(cd before && find . -mindepth 1 && cd ../after && find . -mindepth 1) |
		sed "s|^\./||" | sort -u >paths &&
	(cd ws && find . -mindepth 1 \( -name .filekeeper -prune -o -name ".fk-tmp-*" -prune -o -print \)) |
		sed "s|^\./||" | sort >present &&
	comm -13 paths present >strays &&
	if test -s strays; then
		echo >&2 "paths neither snapshot has:" && cat >&2 strays && return 1
	fi &&
	: >changed && : >not-after && : >torn &&
	while read -r p; do
		old=yes new=yes
		holds before "$p" || old=no
		holds after "$p" || new=no
		if test $old = no; then echo "$p" >>changed; fi
		if test $new = no; then echo "$p" >>not-after; fi
		if test $old$new = nono; then echo "$p" >>torn; fi
	done <paths &&
	if test -s torn; then
		echo >&2 "torn: neither the complete old nor the complete new state:" &&
		cat >&2 torn && return 1
	fi &&
	if ! test -s not-after; then
		echo after
	elif ! test -s changed; then
		echo before
	else
		echo mixed
	fi
}

before_replace_text () { printf "bystander\n" >bystander.txt && cp "$TRASH/old.txt" doc.txt; }
after_replace_text () { sed "s/old line 150 of/new line 150 of/" doc.txt >doc.new && mv doc.new doc.txt; }
run_replace_text () {
	in_case file replace-text doc.txt --old "old line 150 of" --new "new line 150 of" --first
}

# One patch changing three files in two directories: three publish steps.
before_apply_patch () {
	printf "bystander\n" >bystander.txt &&
	mkdir -p src &&
	cp "$TRASH/old.txt" one.txt &&
	cp "$TRASH/old.txt" src/two.txt &&
	cp "$TRASH/new.txt" src/three.txt
}
after_apply_patch () {
	for f in one.txt src/two.txt src/three.txt; do
		sed "s/line 7\([ ,]\)/line seven\1/" "$f" >"$f.new" && mv "$f.new" "$f" || return 1
	done
}
run_apply_patch () { in_case file apply-patch "$PWD/change.patch"; }
prepare_apply_patch () {
	for f in one.txt src/two.txt src/three.txt; do
		diff -u --label "a/$f" --label "b/$f" "before/$f" "after/$f"
	done >change.patch
	test -s change.patch
}

# Undo of a write: the workspace holds the new version, written through keeper, and undo
# brings the old one back.
before_history_undo () { printf "bystander\n" >bystander.txt && cp "$TRASH/new.txt" doc.txt; }
after_history_undo () { cp "$TRASH/old.txt" doc.txt; }
run_history_undo () { in_case history undo-last; }
prepare_history_undo () {
	cp "$TRASH/old.txt" ws/doc.txt &&
	in_case file write doc.txt --input "$TRASH/new.txt" >/dev/null
}

# make_case CMD DIR: DIR/before and DIR/after are the snapshots, DIR/ws the workspace (a copy
# of before, with no Filekeeper state yet unless prepare_CMD recorded some).
make_case () {
	mkdir -p "$2/before" &&
	(cd "$2/before" && "before_$1") &&
	cp -a "$2/before" "$2/after" &&
	(cd "$2/after" && "after_$1") &&
	cp -a "$2/before" "$2/ws" &&
	if command -v "prepare_$1" >/dev/null; then
		(cd "$2" && "prepare_$1")
	fi
}

# pending_count: how many operations of the current case are pending.
pending_count () {
	rows "SELECT count(*) FROM operations WHERE status = 'pending'"
}
