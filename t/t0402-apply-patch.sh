#!/bin/sh
test_description='keeper file apply-patch: validated unified diffs, one operation per patch

Plain diff -u output and git diff output (a/ and b/ prefixes, /dev/null for created and deleted
files, "\ No newline at end of file", several files in one patch) apply. The whole patch is
parsed and every hunk checked before anything is written: a failed or ambiguous hunk rejects
the patch as a whole with PATCH_FAILED (exit 18), nothing written, and details.patch_files
giving every file'"'"'s and every hunk'"'"'s status. A hunk applies at its stated line or at one
unique offset, reported as applies_at_offset with the offset; context is never dropped. A
multi-file patch is one operation and history undo restores every file. A CRLF file patched
with an LF patch stays CRLF; the BOM and the mode stay. A hunk whose header and body disagree
is PATCH_FAILED with the declared and supplied counts in details and in the message, and the
patch text is never echoed. A patch over 1 MiB is LIMIT_EXCEEDED (exit 21). The patch comes from
a file or standard input; --dry-run reports every file and hunk and writes nothing; every path
in a patch is confined to the workspace.'
. ./test-lib.sh

SCRATCH=$TRASH/scratch
mkdir -p "$SCRATCH"

# patched ARGS...: `keeper --json file apply-patch ARGS...` succeeds with a committed operation;
# the result is left in out.json.
patched () {
	keeper --json file apply-patch "$@" >out.json &&
	test "$(json_get .ok out.json)" = true &&
	json_get .operation_id out.json | grep -E "^op_[0-9a-f]{16}$" >/dev/null || {
		echo >&2 "apply-patch $* did not commit:"
		cat >&2 out.json
		return 1
	}
}

# numbered N: the lines "line 1" to "line N".
numbered () {
	seq -f "line %g" "$1"
}

# edit_numbered: numbered lines on stdin with line 5 changed, line 12 deleted and a line added
# after line 18.
edit_numbered () {
	sed -e 's/^line 5$/line five/' -e '/^line 12$/d' -e '/^line 18$/a\
line 18.5'
}

# big_patch: a well-formed patch creating big.txt, over 1 MiB.
big_patch () {
	awk 'BEGIN {
		print "--- /dev/null"; print "+++ b/big.txt"; print "@@ -0,0 +1,20000 @@"
		for (i = 0; i < 20000; i++) printf "+%059d\n", i
	}'
}

# in_git DIR: runs git in DIR with a fixed identity.
in_git () {
	dir=$1
	shift
	git -C "$dir" -c user.name=t -c user.email=t@example.com -c core.autocrlf=false "$@"
}

# diff -u and git diff

test_expect_success 'a plain diff -u patch applies to the file it names' '
	numbered 20 >plain.txt &&
	numbered 20 >"$SCRATCH/plain.txt.orig" &&
	numbered 20 | edit_numbered >"$SCRATCH/plain.txt" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u plain.txt.orig plain.txt >plain.patch) &&
	patched "$SCRATCH/plain.patch" &&
	cmp "$SCRATCH/plain.txt" plain.txt
'

test_expect_success 'the result names every file and hunk with its status and the operation'"'"'s items' '
	test "$(json_get ".patch_files | length" out.json)" = 1 &&
	test "$(json_get ".patch_files[0].path" out.json)" = plain.txt &&
	test "$(json_get ".patch_files[0].change" out.json)" = modified &&
	test "$(json_get ".patch_files[0].status" out.json)" = applies &&
	json_get "[.patch_files[0].hunks[] | .status] | unique == [\"applies\"]" out.json &&
	json_get "[.patch_files[0].hunks[] | .offset] | unique == [0]" out.json &&
	test "$(json_get ".patch_files[0].hunks | length" out.json)" = \
		"$(grep -c "^@@ " "$SCRATCH/plain.patch")" &&
	test "$(json_get ".items[0].after_hash" out.json)" = "$(sha plain.txt)" &&
	test "$(json_get .dry_run out.json)" = false
'

test_expect_success 'a diff -u patch naming a file in a subdirectory applies there' '
	mkdir -p sub/dir "$SCRATCH/sub/dir" &&
	numbered 8 >sub/dir/deep.txt &&
	numbered 8 >"$SCRATCH/sub/dir/deep.txt.orig" &&
	numbered 8 | sed "s/^line 8$/LINE 8/" >"$SCRATCH/sub/dir/deep.txt" &&
	(cd "$SCRATCH" &&
		test_expect_code 1 diff -u sub/dir/deep.txt.orig sub/dir/deep.txt >deep.patch) &&
	patched "$SCRATCH/deep.patch" &&
	cmp "$SCRATCH/sub/dir/deep.txt" sub/dir/deep.txt
'

test_expect_success 'setup: a scratch git repository' '
	git init -q "$SCRATCH/repo" &&
	numbered 30 >"$SCRATCH/repo/gitted.txt" &&
	printf "keep\n" >"$SCRATCH/repo/other.txt" &&
	in_git "$SCRATCH/repo" add . &&
	in_git "$SCRATCH/repo" commit -q -m base &&
	cp "$SCRATCH/repo/gitted.txt" gitted.txt
'

test_expect_success 'a git diff patch with a/ and b/ prefixes applies' '
	numbered 30 | edit_numbered | sed "s/^line 29$/line twenty-nine/" \
		>"$SCRATCH/repo/gitted.txt" &&
	in_git "$SCRATCH/repo" diff >git.patch &&
	grep -e "^--- a/gitted.txt" git.patch &&
	patched git.patch &&
	cmp "$SCRATCH/repo/gitted.txt" gitted.txt &&
	test "$(json_get ".patch_files[0].path" out.json)" = gitted.txt
'

test_expect_success 'a git diff --no-index patch between trees a/ and b/ applies' '
	mkdir -p "$SCRATCH/noindex/a" "$SCRATCH/noindex/b" &&
	numbered 12 >noindex.txt &&
	numbered 12 >"$SCRATCH/noindex/a/noindex.txt" &&
	numbered 12 | sed -e "s/^line 1$/first/" -e "/^line 9$/d" >"$SCRATCH/noindex/b/noindex.txt" &&
	(cd "$SCRATCH/noindex" && test_expect_code 1 \
		git diff --no-index --no-prefix a/noindex.txt b/noindex.txt) >noindex.patch &&
	grep -x -e "diff --git a/noindex.txt b/noindex.txt" noindex.patch &&
	patched noindex.patch &&
	cmp "$SCRATCH/noindex/b/noindex.txt" noindex.txt
'

test_expect_success 'a git diff of a file with a non-ASCII name (quoted by git) applies' '
	printf "a\nb\n" >"$SCRATCH/repo/caf$(printf "\303\251").txt" &&
	in_git "$SCRATCH/repo" add . &&
	in_git "$SCRATCH/repo" commit -q -m cafe &&
	printf "a\nB\n" >"$SCRATCH/repo/caf$(printf "\303\251").txt" &&
	in_git "$SCRATCH/repo" diff >cafe.patch &&
	grep -F "\"a/caf\\303\\251.txt\"" cafe.patch &&
	printf "a\nb\n" >"caf$(printf "\303\251").txt" &&
	patched cafe.patch &&
	printf "a\nB\n" >expect &&
	cmp expect "caf$(printf "\303\251").txt"
'

test_expect_success 'a git diff of a name holding a CR (quoted \\r) changes that file, not one named with an r' '
	printf "a\n" >"$SCRATCH/repo/n$(printf "\r")x" &&
	in_git "$SCRATCH/repo" add . &&
	in_git "$SCRATCH/repo" commit -q -m cr &&
	printf "CHANGED\n" >"$SCRATCH/repo/n$(printf "\r")x" &&
	in_git "$SCRATCH/repo" diff >cr-name.patch &&
	grep -F "\"a/n\\rx\"" cr-name.patch &&
	printf "a\n" >"n$(printf "\r")x" &&
	printf "a\n" >nrx &&
	patched cr-name.patch &&
	printf "CHANGED\n" >expect &&
	cmp expect "n$(printf "\r")x" &&
	printf "a\n" >expect &&
	cmp expect nrx
'

test_expect_success 'a hunk header with line numbers past 2^32 is a malformed header, not an internal error' '
	printf "a\nb\n" >huge-range.txt &&
	save huge-range.txt &&
	printf -- "--- a/huge-range.txt\n+++ b/huge-range.txt\n@@ -18446744073709551615,2 +1,2 @@\n a\n-b\n+B\n" >huge-range.patch &&
	refused 18 PATCH_FAILED file apply-patch huge-range.patch &&
	test "$(json_get .error.details.reason refusal.json)" = bad_hunk_header &&
	untouched huge-range.txt
'

test_expect_success 'a quoted name git could not have written is PATCH_FAILED bad_quoted_name, nothing applied' '
	printf "a\n" >"$(printf "\357\277\275").txt" &&
	save "$(printf "\357\277\275").txt" &&
	for name in "\\351.txt" "x\\q" "x\\1" "x\\"
	do
		printf "diff --git \"a/%s\" \"b/%s\"\n--- \"a/%s\"\n+++ \"b/%s\"\n@@ -1 +1 @@\n-a\n+b\n" \
			"$name" "$name" "$name" "$name" >bad-name.patch &&
		refused 18 PATCH_FAILED file apply-patch bad-name.patch &&
		test "$(json_get .error.details.reason refusal.json)" = bad_quoted_name || return 1
	done &&
	printf -- "--- \"a/x\n+++ \"b/x\n@@ -1 +1 @@\n-a\n+b\n" >open-quote.patch &&
	refused 18 PATCH_FAILED file apply-patch open-quote.patch &&
	test "$(json_get .error.details.reason refusal.json)" = bad_quoted_name &&
	test ! -e "\"b" &&
	untouched "$(printf "\357\277\275").txt"
'

test_expect_success 'a git diff of a name ending in a space changes that file, not the one without the space' '
	printf "one\n" >"$SCRATCH/repo/sp " &&
	printf "one\n" >"$SCRATCH/repo/sp" &&
	in_git "$SCRATCH/repo" add . &&
	in_git "$SCRATCH/repo" commit -q -m spaces &&
	printf "two\n" >"$SCRATCH/repo/sp " &&
	in_git "$SCRATCH/repo" diff >space.patch &&
	grep -x -e "--- a/sp $(printf "\t")" space.patch &&
	printf "one\n" >"sp " &&
	printf "one\n" >sp &&
	patched space.patch &&
	test "$(json_get ".patch_files[0].path" out.json)" = "sp " &&
	printf "two\n" >expect &&
	cmp expect "sp " &&
	printf "one\n" >expect &&
	cmp expect sp
'

test_expect_success 'a git diff with diff.mnemonicPrefix changes the file it names, not one under i/' '
	mkdir -p "$SCRATCH/repo/i" i &&
	printf "one\ntwo\n" >"$SCRATCH/repo/mn.txt" &&
	printf "one\ntwo\n" >"$SCRATCH/repo/i/mn.txt" &&
	in_git "$SCRATCH/repo" add . &&
	in_git "$SCRATCH/repo" commit -q -m mnemonic &&
	printf "one\nTWO\n" >"$SCRATCH/repo/mn.txt" &&
	in_git "$SCRATCH/repo" -c diff.mnemonicPrefix=true diff >mnemonic.patch &&
	grep -x -e "--- i/mn.txt" mnemonic.patch &&
	printf "one\ntwo\n" >mn.txt &&
	printf "one\ntwo\n" >i/mn.txt &&
	patched mnemonic.patch &&
	printf "one\nTWO\n" >expect &&
	cmp expect mn.txt &&
	printf "one\ntwo\n" >expect &&
	cmp expect i/mn.txt
'

test_expect_success 'a git section whose headers name different files is refused' '
	printf "one\n" >hx.txt &&
	printf "one\n" >hy.txt &&
	printf "diff --git a/hx.txt b/hx.txt\n--- a/hy.txt\n+++ b/hy.txt\n@@ -1 +1 @@\n-one\n+two\n" >mixed.patch &&
	save hx.txt hy.txt &&
	refused 18 PATCH_FAILED file apply-patch mixed.patch &&
	test "$(json_get .error.details.reason refusal.json)" = inconsistent_names &&
	untouched hx.txt hy.txt
'

test_expect_success 'diff -N: a file dated the epoch on the new side is deleted, on the old side created' '
	mkdir -p "$SCRATCH/n-old" "$SCRATCH/n-new" &&
	printf "gone\n" >"$SCRATCH/n-old/gone.txt" &&
	printf "born\n" >"$SCRATCH/n-new/born.txt" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -ruN n-old n-new) >n.patch &&
	grep "^+++ n-new/gone.txt	1970-01-01" n.patch &&
	mkdir -p n-old &&
	printf "gone\n" >n-old/gone.txt &&
	patched n.patch &&
	test ! -e n-old/gone.txt &&
	test "$(json_get ".patch_files | map(.change) | sort | join(\",\")" out.json)" = created,deleted
'

test_expect_success 'a patch read from standard input applies' '
	numbered 6 >stdin.txt &&
	printf -- "--- a/stdin.txt\n+++ b/stdin.txt\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+line three\n line 4\n" |
		keeper --json file apply-patch >out.json &&
	test "$(json_get .ok out.json)" = true &&
	numbered 6 | sed "s/^line 3$/line three/" >expect &&
	cmp expect stdin.txt
'

test_expect_success 'history undo of a one-file patch restores the exact old bytes' '
	numbered 6 >expect &&
	keeper --json history undo "$(json_get .operation_id out.json)" >undo.json &&
	test "$(json_get .ok undo.json)" = true &&
	cmp expect stdin.txt
'

# several files in one patch

test_expect_success 'setup: a git patch that modifies one file, deletes another and creates a third' '
	git init -q "$SCRATCH/multi" &&
	numbered 10 >"$SCRATCH/multi/a1.txt" &&
	printf "doomed\nfile\n" >"$SCRATCH/multi/b2.txt" &&
	in_git "$SCRATCH/multi" add . &&
	in_git "$SCRATCH/multi" commit -q -m base &&
	cp "$SCRATCH/multi/a1.txt" "$SCRATCH/multi/b2.txt" . &&
	cp a1.txt a1.orig && cp b2.txt b2.orig &&
	numbered 10 | sed "s/^line 3$/line III/" >"$SCRATCH/multi/a1.txt" &&
	rm "$SCRATCH/multi/b2.txt" &&
	printf "brand\nnew\n" >"$SCRATCH/multi/c3.txt" &&
	in_git "$SCRATCH/multi" add -A &&
	in_git "$SCRATCH/multi" diff --cached >multi.patch &&
	grep -x -e "--- /dev/null" multi.patch &&
	grep -x -e "+++ /dev/null" multi.patch
'

test_expect_success 'a multi-file patch applies every file: modified, deleted and created' '
	op_count >ops.before &&
	patched multi.patch &&
	cmp "$SCRATCH/multi/a1.txt" a1.txt &&
	test ! -e b2.txt &&
	cmp "$SCRATCH/multi/c3.txt" c3.txt
'

test_expect_success 'a multi-file patch is one operation with an item per file' '
	test $(op_count) = $(($(cat ops.before) + 1)) &&
	json_get ".operation_id" out.json >multi.op &&
	keeper --json history show "$(cat multi.op)" >show.json &&
	test "$(json_get .operation.kind show.json)" = apply_patch &&
	jq -r ".operation.items[] | \"\(.path) \(.change)\"" show.json | sort >actual &&
	printf "a1.txt modified\nb2.txt deleted\nc3.txt created\n" >expect &&
	test_cmp expect actual &&
	jq -r ".patch_files[] | \"\(.path) \(.change) \(.status)\"" out.json | sort >actual &&
	printf "a1.txt modified applies\nb2.txt deleted applies\nc3.txt created applies\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'history undo of a multi-file patch restores every file and removes the created one' '
	keeper --json history undo "$(cat multi.op)" >undo.json &&
	test "$(json_get .ok undo.json)" = true &&
	cmp a1.orig a1.txt &&
	cmp b2.orig b2.txt &&
	test ! -e c3.txt
'

test_expect_success 'setup: a three-file patch and a tree where its second file has moved on' '
	numbered 10 >x1.txt &&
	numbered 10 >x2.txt &&
	mkdir -p "$SCRATCH/three/a" "$SCRATCH/three/b" &&
	cp x1.txt x2.txt "$SCRATCH/three/a/" &&
	sed "s/^line 2$/line two/" x1.txt >"$SCRATCH/three/b/x1.txt" &&
	sed "s/^line 7$/line seven/" x2.txt >"$SCRATCH/three/b/x2.txt" &&
	printf "created\n" >"$SCRATCH/three/b/x3.txt" &&
	(cd "$SCRATCH/three" &&
		test_expect_code 1 diff -u a/x1.txt b/x1.txt &&
		test_expect_code 1 diff -u a/x2.txt b/x2.txt &&
		test_expect_code 1 diff -u --label /dev/null --label b/x3.txt /dev/null b/x3.txt
	) >three.patch &&
	numbered 10 | sed "s/^line 6$/line 6 edited meanwhile/" >x2.txt &&
	paths_state x1.txt x2.txt x3.txt >"$TRASH/three.before"
'

test_expect_success 'a patch whose second file does not apply is PATCH_FAILED (exit 18) as a whole' '
	refused 18 PATCH_FAILED file apply-patch three.patch &&
	test "$(json_get .error.details.path refusal.json)" = x2.txt &&
	test "$(json_get .error.details.reason refusal.json)" = failed
'

test_expect_success 'a rejected patch writes nothing: all three files as they were, no operation recorded' '
	paths_state x1.txt x2.txt x3.txt >"$TRASH/three.after" &&
	test_cmp "$TRASH/three.before" "$TRASH/three.after" &&
	test ! -e x3.txt
'

test_expect_success 'a rejected patch reports every file'"'"'s and every hunk'"'"'s status' '
	jq -r ".error.details.patch_files[] |
		\"\(.path) \(.change) \(.status) \([.hunks[].status] | join(\",\"))\"" \
		refusal.json >actual &&
	cat >expect <<-\EOF &&
	x1.txt modified applies applies
	x2.txt modified failed failed
	x3.txt created applies applies
	EOF
	test_cmp expect actual
'

# positions: stated, offset, ambiguous

test_expect_success 'setup: a patch made against ten lines' '
	numbered 10 >"$SCRATCH/ten.txt" &&
	numbered 10 | sed "s/^line 7$/line seven/" >"$SCRATCH/ten.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/shift.txt --label b/shift.txt \
		ten.txt ten.new >shift.patch) &&
	grep -x -e "@@ -4,7 +4,7 @@" "$SCRATCH/shift.patch"
'

test_expect_success 'a hunk two lines further down applies at offset 2, reported' '
	{ printf "new header 1\nnew header 2\n" && numbered 10; } >shift.txt &&
	patched "$SCRATCH/shift.patch" &&
	{ printf "new header 1\nnew header 2\n" && cat "$SCRATCH/ten.new"; } >expect &&
	cmp expect shift.txt &&
	test "$(json_get ".patch_files[0].hunks[0].status" out.json)" = applies_at_offset &&
	test "$(json_get ".patch_files[0].hunks[0].offset" out.json)" = 2
'

test_expect_success 'a hunk two lines further up applies at offset -2, reported' '
	numbered 10 | sed 1,2d >shift.txt &&
	patched "$SCRATCH/shift.patch" &&
	sed 1,2d "$SCRATCH/ten.new" >expect &&
	cmp expect shift.txt &&
	test "$(json_get ".patch_files[0].hunks[0].status" out.json)" = applies_at_offset &&
	test "$(json_get ".patch_files[0].hunks[0].offset" out.json)" = -2
'

test_expect_success 'setup: a file holding the same block twice' '
	printf "head\nblock a\nblock b\nblock c\nmiddle\nblock a\nblock b\nblock c\ntail\n" >twice.txt &&
	cp twice.txt twice.orig
'

test_expect_success 'a hunk whose context occurs twice is refused as ambiguous when its stated position is wrong' '
	printf -- "--- a/twice.txt\n+++ b/twice.txt\n@@ -1,3 +1,3 @@\n block a\n-block b\n+BLOCK B\n block c\n" \
		>ambiguous.patch &&
	refused 18 PATCH_FAILED file apply-patch ambiguous.patch &&
	test "$(json_get .error.details.reason refusal.json)" = ambiguous &&
	test "$(json_get ".error.details.patch_files[0].hunks[0].status" refusal.json)" = ambiguous &&
	cmp twice.orig twice.txt
'

test_expect_success 'a hunk whose context occurs twice applies at its stated position when that matches' '
	printf -- "--- a/twice.txt\n+++ b/twice.txt\n@@ -6,3 +6,3 @@\n block a\n-block b\n+BLOCK B\n block c\n" \
		>stated.patch &&
	patched stated.patch &&
	test "$(json_get ".patch_files[0].hunks[0].status" out.json)" = applies &&
	printf "head\nblock a\nblock b\nblock c\nmiddle\nblock a\nBLOCK B\nblock c\ntail\n" >expect &&
	cmp expect twice.txt
'

test_expect_success 'a hunk whose context is nowhere in the file is PATCH_FAILED with status failed' '
	cp twice.txt twice.now &&
	printf -- "--- a/twice.txt\n+++ b/twice.txt\n@@ -2,3 +2,3 @@\n block a\n-block x\n+block y\n block c\n" \
		>nowhere.patch &&
	refused 18 PATCH_FAILED file apply-patch nowhere.patch &&
	test "$(json_get ".error.details.patch_files[0].hunks[0].status" refusal.json)" = failed &&
	cmp twice.now twice.txt
'

test_expect_success 'a hunk is never applied with fuzz: one changed context line refuses it' '
	numbered 10 | sed "s/^line 4$/line 4 changed/" >fuzz.txt &&
	cp fuzz.txt fuzz.orig &&
	sed "s/shift.txt/fuzz.txt/" "$SCRATCH/shift.patch" >fuzz.patch &&
	refused 18 PATCH_FAILED file apply-patch fuzz.patch &&
	cmp fuzz.orig fuzz.txt
'

# hunks tied to an edge of the file

test_expect_success 'a diff -u hunk with context before its change and none after applies where the file ends' '
	printf "a\nb\nc\n" >end1.txt &&
	printf "a\nb\nC\n" >end1.want &&
	printf -- "--- a/end1.txt\n+++ b/end1.txt\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n" >end1.patch &&
	patched end1.patch &&
	cmp end1.want end1.txt
'

test_expect_success 'the same hunk against a file that has grown past it is PATCH_FAILED (end_of_file)' '
	printf "a\nb\nc\nd\n" >end2.txt &&
	save end2.txt &&
	sed "s/end1.txt/end2.txt/" end1.patch >end2.patch &&
	refused 18 PATCH_FAILED file apply-patch end2.patch &&
	test "$(json_get .error.details.reason refusal.json)" = end_of_file &&
	test "$(json_get .error.details.edge refusal.json)" = end &&
	test "$(json_get .error.details.hunk refusal.json)" = 1 &&
	grep "file line 2, and the file goes on to line 4" refusal.json &&
	untouched end2.txt
'

test_expect_success 'a diff -u hunk with context after its change and none before applies only at line 1' '
	printf "a\nb\nc\n" >start1.txt &&
	printf "new\na\nb\nc\n" >start1.want &&
	printf -- "--- a/start1.txt\n+++ b/start1.txt\n@@ -1,2 +1,3 @@\n+new\n a\n b\n" >start1.patch &&
	patched start1.patch &&
	cmp start1.want start1.txt &&
	printf "x\na\nb\nc\n" >start2.txt &&
	save start2.txt &&
	sed "s/start1.txt/start2.txt/" start1.patch >start2.patch &&
	refused 18 PATCH_FAILED file apply-patch start2.patch &&
	test "$(json_get .error.details.reason refusal.json)" = start_of_file &&
	untouched start2.txt
'

test_expect_success 'a hunk held to the end whose lines are at the end and at its stated line too is PATCH_FAILED (ambiguous)' '
	printf "a\nb\na\nb\n" >edge2.txt &&
	save edge2.txt &&
	printf -- "--- a/edge2.txt\n+++ b/edge2.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n" >edge2.patch &&
	refused 18 PATCH_FAILED file apply-patch edge2.patch &&
	test "$(json_get .error.details.reason refusal.json)" = ambiguous &&
	test "$(json_get .error.details.edge refusal.json)" = end &&
	test "$(json_get ".error.details.matches_at | join(\",\")" refusal.json)" = 1,3 &&
	untouched edge2.txt
'

test_expect_success 'a diff -U0 hunk, with no context at all, is tied to no edge' '
	printf "a\nb\nc\n" >u0.txt &&
	printf "a\nB\nc\n" >u0.want &&
	printf -- "--- a/u0.txt\n+++ b/u0.txt\n@@ -2 +2 @@\n-b\n+B\n" >u0.patch &&
	patched u0.patch &&
	cmp u0.want u0.txt
'

test_expect_success 'a diff -U0 hunk that only adds lines between two lines of the file is PATCH_FAILED (placed_by_number): only its number places it' '
	printf "X\na\nb\nc\nd\n" >u0b.txt &&
	save u0b.txt &&
	printf -- "--- a/u0b.txt\n+++ b/u0b.txt\n@@ -2,0 +3 @@\n+NEW\n" >u0b.patch &&
	refused 18 PATCH_FAILED file apply-patch u0b.patch &&
	test "$(json_get .error.details.reason refusal.json)" = placed_by_number &&
	test "$(json_get .error.details.hunk refusal.json)" = 1 &&
	untouched u0b.txt
'

test_expect_success 'a diff -U0 hunk that only adds lines between two lines applies with --base naming the version it was made on' '
	printf "a\nb\nc\n" >u0base.txt &&
	printf -- "--- a/u0base.txt\n+++ b/u0base.txt\n@@ -1,0 +2 @@\n+NEW\n" >u0base.patch &&
	refused 18 PATCH_FAILED file apply-patch u0base.patch &&
	base=$(keeper --json file read u0base.txt | jq -r .content_hash) &&
	patched --base "$base" u0base.patch &&
	test "$(cat u0base.txt)" = "$(printf "a\nNEW\nb\nc")"
'

test_expect_success 'a diff -U0 hunk that only adds lines at the end, placed by the edge, is PATCH_FAILED (placed_by_number) once another hunk moved' '
	printf "new\na\nb\nc\nd\n" >u0e.txt &&
	save u0e.txt &&
	printf -- "--- a/u0e.txt\n+++ b/u0e.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -5,0 +6 @@\n+END\n" >u0e.patch &&
	refused 18 PATCH_FAILED file apply-patch u0e.patch &&
	test "$(json_get .error.details.reason refusal.json)" = placed_by_number &&
	test "$(json_get .error.details.hunk refusal.json)" = 2 &&
	test "$(json_get .error.details.moved_hunk refusal.json)" = 1 &&
	test "$(json_get .error.details.offset refusal.json)" = 1 &&
	untouched u0e.txt
'

test_expect_success 'a diff -U0 hunk whose old lines are not at its stated line but elsewhere is PATCH_FAILED (no_context)' '
	printf "a\nx\nc\nb\n" >u0c.txt &&
	save u0c.txt &&
	printf -- "--- a/u0c.txt\n+++ b/u0c.txt\n@@ -2 +2 @@\n-b\n+B\n" >u0c.patch &&
	refused 18 PATCH_FAILED file apply-patch u0c.patch &&
	test "$(json_get .error.details.reason refusal.json)" = no_context &&
	test "$(json_get ".error.details.found_at | join(\",\")" refusal.json)" = 4 &&
	untouched u0c.txt
'

test_expect_success 'a patch applied a second time is PATCH_FAILED (already_applied), not applied to a twin function' '
	printf "f() {\n    n++;\n    return n;\n}\ng() {\n    n++;\n    return n;\n}\n" >twin.c &&
	printf -- "--- a/twin.c\n+++ b/twin.c\n@@ -1,3 +1,3 @@\n f() {\n-    n++;\n+    n += 2;\n     return n;\n" >twin.patch &&
	patched twin.patch &&
	save twin.c &&
	refused 18 PATCH_FAILED file apply-patch twin.patch &&
	test "$(json_get .error.details.reason refusal.json)" = already_applied &&
	test "$(json_get .error.details.new_lines_at refusal.json)" = 1 &&
	untouched twin.c &&
	test "$(grep -c "n += 2" twin.c)" = 1
'

test_expect_success 'a hunk whose lines fit at its stated line and elsewhere is PATCH_FAILED (ambiguous) once another hunk moved' '
	printf "N\nh\nT\nq\n\n\n\n\n\n\nE\n" >blank.txt &&
	save blank.txt &&
	printf -- "--- a/blank.txt\n+++ b/blank.txt\n@@ -1,3 +1,3 @@\n h\n-T\n+t\n q\n@@ -6,3 +6,3 @@\n \n-\n+M\n \n" >blank.patch &&
	refused 18 PATCH_FAILED file apply-patch blank.patch &&
	test "$(json_get .error.details.reason refusal.json)" = ambiguous &&
	test "$(json_get .error.details.hunk refusal.json)" = 2 &&
	test "$(json_get .error.details.moved_hunk refusal.json)" = 1 &&
	test "$(jq -c .error.details.matches_at refusal.json)" = "[6,5]" &&
	untouched blank.txt
'

# hunk order

test_expect_success 'setup: a file whose first three lines occur again at its end' '
	printf "p\nq\nr\n1\n2\ns\nt\nu\n3\np\nq\nr\n" >order.txt &&
	save order.txt
'

test_expect_success 'hunks out of order are PATCH_FAILED (misordered), not applied where their lines occur again' '
	printf -- "--- a/order.txt\n+++ b/order.txt\n@@ -6,3 +6,3 @@\n s\n-t\n+T\n u\n@@ -1,3 +1,3 @@\n p\n-q\n+Q\n r\n" \
		>misordered.patch &&
	refused 18 PATCH_FAILED file apply-patch misordered.patch &&
	test "$(json_get .error.details.reason refusal.json)" = misordered &&
	test "$(json_get .error.details.hunk refusal.json)" = 2 &&
	test "$(json_get .error.details.previous_hunk refusal.json)" = 1 &&
	json_get .error.message refusal.json | grep "hunk 2 of order.txt is out of order" &&
	json_get .error.message refusal.json | grep "hunk 1" &&
	json_get .error.details.recovery refusal.json | grep "separate patches" &&
	untouched order.txt
'

test_expect_success 'hunks whose stated lines overlap are PATCH_FAILED (misordered)' '
	printf -- "--- a/order.txt\n+++ b/order.txt\n@@ -1,3 +1,3 @@\n p\n-q\n+Q\n r\n@@ -3,2 +3,2 @@\n r\n-1\n+one\n" \
		>overlap.patch &&
	refused 18 PATCH_FAILED file apply-patch overlap.patch &&
	test "$(json_get .error.details.reason refusal.json)" = misordered &&
	untouched order.txt
'

test_expect_success 'a hunk whose lines are at its stated line, before where the previous hunk applied, is misordered' '
	printf "a\nb\nc\nk\nl\nm\nn\no\np\nx\ny\nz\nq\nk\nl\nr\n" >moved.txt &&
	save moved.txt &&
	printf -- "--- a/moved.txt\n+++ b/moved.txt\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n@@ -4,2 +4,2 @@\n-k\n+K\n l\n" \
		>moved.patch &&
	refused 18 PATCH_FAILED file apply-patch moved.patch &&
	test "$(json_get .error.details.reason refusal.json)" = misordered &&
	untouched moved.txt
'

test_expect_success 'the same hunks in order apply' '
	printf -- "--- a/order.txt\n+++ b/order.txt\n@@ -1,3 +1,3 @@\n p\n-q\n+Q\n r\n@@ -6,3 +6,3 @@\n s\n-t\n+T\n u\n" \
		>ordered.patch &&
	patched ordered.patch &&
	printf "p\nQ\nr\n1\n2\ns\nT\nu\n3\np\nq\nr\n" >expect &&
	cmp expect order.txt
'

# final newline, CRLF, BOM, mode

test_expect_success 'a patch adding the final newline ("\ No newline" on the old side) applies' '
	printf "a\nb\nc" >eol1.txt &&
	printf "a\nb\nc" >"$SCRATCH/eol1.old" &&
	printf "a\nb\nc\n" >"$SCRATCH/eol1.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/eol1.txt --label b/eol1.txt \
		eol1.old eol1.new >eol1.patch) &&
	grep -x -e "\\\\ No newline at end of file" "$SCRATCH/eol1.patch" &&
	patched "$SCRATCH/eol1.patch" &&
	cmp "$SCRATCH/eol1.new" eol1.txt
'

test_expect_success 'a patch removing the final newline ("\ No newline" on the new side) applies' '
	printf "a\nb\nc\n" >eol2.txt &&
	cp eol2.txt "$SCRATCH/eol2.old" &&
	printf "a\nb\nC" >"$SCRATCH/eol2.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/eol2.txt --label b/eol2.txt \
		eol2.old eol2.new >eol2.patch) &&
	patched "$SCRATCH/eol2.patch" &&
	cmp "$SCRATCH/eol2.new" eol2.txt
'

test_expect_success 'a patch changing the last line of a file without a final newline keeps it without one' '
	printf "a\nb\nc" >eol3.txt &&
	cp eol3.txt "$SCRATCH/eol3.old" &&
	printf "a\nb\nC" >"$SCRATCH/eol3.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/eol3.txt --label b/eol3.txt \
		eol3.old eol3.new >eol3.patch) &&
	test "$(grep -c "No newline at end of file" "$SCRATCH/eol3.patch")" = 2 &&
	patched "$SCRATCH/eol3.patch" &&
	cmp "$SCRATCH/eol3.new" eol3.txt
'

test_expect_success 'a patch away from the end of a file without a final newline leaves its end alone' '
	numbered 12 | head -c -1 >eol4.txt &&
	numbered 12 | head -c -1 >"$SCRATCH/eol4.old" &&
	numbered 12 | head -c -1 | sed "s/^line 2$/line two/" >"$SCRATCH/eol4.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/eol4.txt --label b/eol4.txt \
		eol4.old eol4.new >eol4.patch) &&
	patched "$SCRATCH/eol4.patch" &&
	cmp "$SCRATCH/eol4.new" eol4.txt
'

test_expect_success 'a CRLF file patched with an LF patch stays CRLF' '
	numbered 8 | sed "s/\$/$(printf "\r")/" >crlf.txt &&
	numbered 8 >"$SCRATCH/crlf.lf" &&
	numbered 8 | sed -e "s/^line 4$/line four/" -e "/^line 6$/a\\
line 6.5" >"$SCRATCH/crlf.lf.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/crlf.txt --label b/crlf.txt \
		crlf.lf crlf.lf.new >crlf.patch) &&
	! grep "$(printf "\r")" "$SCRATCH/crlf.patch" &&
	patched "$SCRATCH/crlf.patch" &&
	sed "s/\$/$(printf "\r")/" "$SCRATCH/crlf.lf.new" >expect &&
	cmp expect crlf.txt
'

test_expect_success 'a CRLF file patched with a CRLF patch (diff -u of CRLF files) is byte-identical' '
	numbered 8 | sed "s/\$/$(printf "\r")/" >crlf2.txt &&
	cp crlf2.txt "$SCRATCH/crlf2.old" &&
	sed -e "s/^line 1/line one/" -e "s/^line 8/line eight/" "$SCRATCH/crlf2.old" \
		>"$SCRATCH/crlf2.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/crlf2.txt --label b/crlf2.txt \
		crlf2.old crlf2.new >crlf2.patch) &&
	patched "$SCRATCH/crlf2.patch" &&
	cmp "$SCRATCH/crlf2.new" crlf2.txt
'

test_expect_success 'an old side marked "\ No newline" against a file that ends with one is PATCH_FAILED (final_newline)' '
	printf "a\nb\n" >nl1.txt &&
	save nl1.txt &&
	printf -- "--- a/nl1.txt\n+++ b/nl1.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\\\ No newline at end of file\n+B\n\\\\ No newline at end of file\n" \
		>nl1.patch &&
	refused 18 PATCH_FAILED file apply-patch nl1.patch &&
	test "$(json_get .error.details.reason refusal.json)" = final_newline &&
	test "$(json_get .error.details.final_newline.file_has_newline refusal.json)" = true &&
	test "$(json_get .error.details.final_newline.hunk_has_newline refusal.json)" = false &&
	test "$(json_get .error.details.mismatch.hunk refusal.json)" = 1 &&
	untouched nl1.txt
'

test_expect_success 'a context line marked "\ No newline" against a file that ends with one is PATCH_FAILED (final_newline)' '
	printf "a\nb\n" >nl2.txt &&
	save nl2.txt &&
	printf -- "--- a/nl2.txt\n+++ b/nl2.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\\\ No newline at end of file\n" \
		>nl2.patch &&
	refused 18 PATCH_FAILED file apply-patch nl2.patch &&
	test "$(json_get .error.details.reason refusal.json)" = final_newline &&
	untouched nl2.txt
'

test_expect_success 'an unmarked old side reaching the last line of a file without a final newline is PATCH_FAILED (final_newline)' '
	printf "a\nb" >nl3.txt &&
	save nl3.txt &&
	printf -- "--- a/nl3.txt\n+++ b/nl3.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n" >nl3.patch &&
	refused 18 PATCH_FAILED file apply-patch nl3.patch &&
	test "$(json_get .error.details.reason refusal.json)" = final_newline &&
	test "$(json_get .error.details.final_newline.file_has_newline refusal.json)" = false &&
	untouched nl3.txt
'

test_expect_success 'a new side marked "\ No newline" on a hunk that ends before the file does is PATCH_FAILED (final_newline)' '
	printf "a\nb\nc\n" >nl4.txt &&
	save nl4.txt &&
	printf -- "--- a/nl4.txt\n+++ b/nl4.txt\n@@ -2 +2 @@\n-b\n+B\n\\\\ No newline at end of file\n" >nl4.patch &&
	refused 18 PATCH_FAILED file apply-patch nl4.patch &&
	test "$(json_get .error.details.reason refusal.json)" = final_newline &&
	untouched nl4.txt
'

test_expect_success 'a "\ No newline" marker followed by more lines of its side is PATCH_FAILED (misplaced_no_newline_marker)' '
	printf "a\nb\nc\n" >nl5.txt &&
	save nl5.txt &&
	printf -- "--- a/nl5.txt\n+++ b/nl5.txt\n@@ -2,2 +2,2 @@\n-b\n+B\n\\\\ No newline at end of file\n c\n" >nl5.patch &&
	refused 18 PATCH_FAILED file apply-patch nl5.patch &&
	test "$(json_get .error.details.reason refusal.json)" = misplaced_no_newline_marker &&
	untouched nl5.txt
'

test_expect_success 'a diff -u giving a file a last line that ends in a lone CR writes that CR' '
	printf "a\nb\n" >cr1.txt &&
	printf "a\nx\r" >cr1.want &&
	printf -- "--- a/cr1.txt\n+++ b/cr1.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+x\r\n\\\\ No newline at end of file\n" >cr1.patch &&
	patched cr1.patch &&
	cmp cr1.want cr1.txt
'

test_expect_success 'a diff -u that shows a CRLF file as it is and converts it to LF is PATCH_FAILED (line_ends)' '
	printf "a\r\nb\r\n" >d2u.txt &&
	save d2u.txt &&
	printf -- "--- a/d2u.txt\n+++ b/d2u.txt\n@@ -1,2 +1,2 @@\n-a\r\n-b\r\n+a\n+b\n" >d2u.patch &&
	refused 18 PATCH_FAILED file apply-patch d2u.patch &&
	test "$(json_get .error.details.reason refusal.json)" = line_ends &&
	test "$(json_get .error.details.hunk refusal.json)" = 1 &&
	json_get .error.message refusal.json | grep "changes line ends from CRLF to LF" &&
	json_get .error.details.recovery refusal.json | grep "keeper file write" &&
	untouched d2u.txt
'

test_expect_success 'a diff -u that shows an LF file as it is and converts it to CRLF is PATCH_FAILED (line_ends)' '
	printf "a\nb\n" >u2d.txt &&
	save u2d.txt &&
	printf -- "--- a/u2d.txt\n+++ b/u2d.txt\n@@ -1,2 +1,2 @@\n-a\n-b\n+a\r\n+b\r\n" >u2d.patch &&
	refused 18 PATCH_FAILED file apply-patch u2d.patch &&
	test "$(json_get .error.details.reason refusal.json)" = line_ends &&
	json_get .error.message refusal.json | grep "changes line ends from LF to CRLF" &&
	untouched u2d.txt
'

test_expect_success 'a CRLF patch against an LF file (mangled in transport) applies and keeps LF' '
	printf "a\nb\nc\n" >mangled.txt &&
	printf -- "--- a/mangled.txt\n+++ b/mangled.txt\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n" >mangled.patch &&
	patched mangled.patch &&
	printf "a\nB\nc\n" >expect &&
	cmp expect mangled.txt
'

test_expect_success 'a patch whose only change is mangled line ends reports the file unchanged' '
	printf "a\r\nb\r\n" >same.txt &&
	cp same.txt same.orig &&
	printf -- "--- a/same.txt\n+++ b/same.txt\n@@ -1,2 +1,2 @@\n-a\n-b\n+a\n+b\n" >same.patch &&
	patched same.patch &&
	cmp same.orig same.txt &&
	test "$(json_get .changed out.json)" = false &&
	test "$(json_get ".items[0].change" out.json)" = unchanged &&
	test "$(json_get ".patch_files[0].change" out.json)" = unchanged &&
	json_get .summary out.json >summary &&
	! grep modified summary &&
	grep "1 unchanged" summary
'

# new_file_patch NAME NEW: diff -u of /dev/null against NEW, creating NAME (b/NAME).
new_file_patch () {
	diff -u --label /dev/null --label "b/$1" /dev/null "$2"
	test $? = 1
}

test_expect_success 'a file created from /dev/null with CRLF lines is written CRLF' '
	printf "one\r\ntwo\r\n" >"$SCRATCH/made-crlf.txt" &&
	new_file_patch made-crlf.txt "$SCRATCH/made-crlf.txt" >made-crlf.patch &&
	patched made-crlf.patch &&
	test "$(json_get ".patch_files[0].change" out.json)" = created &&
	cmp "$SCRATCH/made-crlf.txt" made-crlf.txt
'

test_expect_success 'a file created from /dev/null without a final newline has none' '
	printf "one\ntwo" >"$SCRATCH/made-nf.txt" &&
	new_file_patch made-nf.txt "$SCRATCH/made-nf.txt" >made-nf.patch &&
	patched made-nf.patch &&
	cmp "$SCRATCH/made-nf.txt" made-nf.txt
'

test_expect_success 'a CRLF file created from /dev/null without a final newline is still CRLF' '
	printf "one\r\ntwo\r\nthree" >"$SCRATCH/made-crlf-nf.txt" &&
	new_file_patch made-crlf-nf.txt "$SCRATCH/made-crlf-nf.txt" >made-crlf-nf.patch &&
	patched made-crlf-nf.patch &&
	cmp "$SCRATCH/made-crlf-nf.txt" made-crlf-nf.txt
'

test_expect_success 'an empty file patched with the CRLF lines of diff -u gives exactly NEW' '
	: >empty-crlf.txt &&
	: >"$SCRATCH/empty-crlf.old" &&
	printf "one\r\ntwo\r\n" >"$SCRATCH/empty-crlf.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/empty-crlf.txt \
		--label b/empty-crlf.txt empty-crlf.old empty-crlf.new >empty-crlf.patch) &&
	patched "$SCRATCH/empty-crlf.patch" &&
	cmp "$SCRATCH/empty-crlf.new" empty-crlf.txt
'

test_expect_success 'a carriage return inside a line is part of that line, as diff -u sees it' '
	printf "one\nprogress 10%%\rprogress 100%%\nthree\nfour\n" >stray.txt &&
	cp stray.txt "$SCRATCH/stray.old" &&
	sed "s/^three$/THREE/" "$SCRATCH/stray.old" >"$SCRATCH/stray.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/stray.txt --label b/stray.txt \
		stray.old stray.new >stray.patch) &&
	patched "$SCRATCH/stray.patch" &&
	cmp "$SCRATCH/stray.new" stray.txt
'

test_expect_success 'a patch away from line 1 keeps the byte-order mark' '
	{ printf "\357\273\277" && numbered 10; } >bom.txt &&
	cp bom.txt "$SCRATCH/bom.old" &&
	sed "s/^line 8$/line eight/" "$SCRATCH/bom.old" >"$SCRATCH/bom.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/bom.txt --label b/bom.txt \
		bom.old bom.new >bom.patch) &&
	patched "$SCRATCH/bom.patch" &&
	cmp "$SCRATCH/bom.new" bom.txt
'

test_expect_success 'a diff -u patch whose hunk covers line 1 of a file with a BOM applies (as GNU patch does)' '
	{ printf "\357\273\277" && numbered 6; } >bom1.txt &&
	cp bom1.txt "$SCRATCH/bom1.old" &&
	sed "s/^line 2$/line two/" "$SCRATCH/bom1.old" >"$SCRATCH/bom1.new" &&
	(cd "$SCRATCH" && test_expect_code 1 diff -u --label a/bom1.txt --label b/bom1.txt \
		bom1.old bom1.new >bom1.patch) &&
	cp bom1.txt "$SCRATCH/bom1.gnu" &&
	patch -s --dry-run --fuzz=0 "$SCRATCH/bom1.gnu" <"$SCRATCH/bom1.patch" &&
	patched "$SCRATCH/bom1.patch" &&
	cmp "$SCRATCH/bom1.new" bom1.txt
'

test_expect_success 'a patched file keeps its mode' '
	numbered 5 >mode.sh &&
	chmod 750 mode.sh &&
	printf -- "--- a/mode.sh\n+++ b/mode.sh\n@@ -5 +5 @@\n-line 5\n+line V\n" >mode.patch &&
	patched mode.patch &&
	test "$(stat -c %a mode.sh)" = 750 &&
	numbered 5 | sed "s/^line 5$/line V/" >expect &&
	cmp expect mode.sh
'

test_expect_success 'a patch to a binary file is BINARY_CONTENT_REFUSED and writes nothing' '
	printf "a\000\nb\n" >blob.bin &&
	cp blob.bin blob.orig &&
	printf -- "--- a/blob.bin\n+++ b/blob.bin\n@@ -2 +2 @@\n-b\n+c\n" >blob.patch &&
	refused 20 BINARY_CONTENT_REFUSED file apply-patch blob.patch &&
	cmp blob.orig blob.bin
'

# malformed patches

test_expect_success 'setup: a hunk whose header declares more lines than its body supplies' '
	printf "SECRET-CONTEXT-ALPHA\nSECRET-OLD-BETA\n" >short.txt &&
	cp short.txt short.orig &&
	cat >short.patch <<-\EOF
	diff --git a/short.txt b/short.txt
	index 1111111..2222222 100644
	--- a/short.txt
	+++ b/short.txt
	@@ -1,7 +1,9 @@
	 SECRET-CONTEXT-ALPHA
	-SECRET-OLD-BETA
	+SECRET-NEW-GAMMA
	+SECRET-NEW-DELTA
	EOF
'

test_expect_success 'a hunk cut short is PATCH_FAILED with the declared and supplied counts in details' '
	refused 18 PATCH_FAILED file apply-patch short.patch &&
	test "$(json_get .error.details.expected_old_lines refusal.json)" = 7 &&
	test "$(json_get .error.details.expected_new_lines refusal.json)" = 9 &&
	test "$(json_get .error.details.actual_old_lines refusal.json)" = 2 &&
	test "$(json_get .error.details.actual_new_lines refusal.json)" = 3 &&
	test "$(json_get .error.details.line refusal.json)" = 5 &&
	json_get .error.details.reason refusal.json >reason &&
	test -s reason &&
	cmp short.orig short.txt
'

test_expect_success 'the message of a cut-short hunk states both counts and the line' '
	json_get .error.message refusal.json >message &&
	for n in 7 9 2 3 5
	do
		grep -w "$n" message || exit 1
	done
'

test_expect_success 'the patch text is never echoed into the error' '
	! grep -F SECRET refusal.json
'

test_expect_success 'a line whose prefix is not space, + or - cuts the hunk short: PATCH_FAILED with counts' '
	printf -- "--- a/short.txt\n+++ b/short.txt\n@@ -1,2 +1,2 @@\n SECRET-CONTEXT-ALPHA\n*SECRET-OLD-BETA\n+x\n" \
		>prefix.patch &&
	refused 18 PATCH_FAILED file apply-patch prefix.patch &&
	test "$(json_get .error.details.expected_old_lines refusal.json)" = 2 &&
	test "$(json_get .error.details.actual_old_lines refusal.json)" = 1 &&
	test "$(json_get .error.details.line refusal.json)" = 3 &&
	! grep -F SECRET refusal.json &&
	cmp short.orig short.txt
'

test_expect_success 'text holding no file change is PATCH_FAILED' '
	echo "this is not a patch" >garbage.patch &&
	refused 18 PATCH_FAILED file apply-patch garbage.patch
'

test_expect_success 'a normal diff section before a unified one refuses the whole patch' '
	printf "q\n" >ny.txt && printf "a\n" >nx.txt &&
	save nx.txt && save ny.txt &&
	(cd "$SCRATCH" && printf "q\n" >ny.old && printf "Q\n" >ny.new && ! diff ny.old ny.new) >normal.patch &&
	printf -- "--- a/nx.txt\n+++ b/nx.txt\n@@ -1 +1 @@\n-a\n+A\n" >>normal.patch &&
	refused 18 PATCH_FAILED file apply-patch normal.patch &&
	test "$(json_get .error.details.reason refusal.json)" = normal_diff &&
	test "$(json_get .error.details.line refusal.json)" = 1 &&
	untouched nx.txt && untouched ny.txt
'

test_expect_success 'a context diff section before a unified one refuses the whole patch' '
	printf "a\n" >cx.txt && printf "a\n" >cy.txt &&
	save cx.txt && save cy.txt &&
	cat >mixed.patch <<-\EOF &&
	*** cx.txt
	--- cx.txt
	***************
	*** 1 ****
	! a
	--- 1 ----
	! b
	--- cy.txt
	+++ cy.txt
	@@ -1 +1 @@
	-a
	+b
	EOF
	refused 18 PATCH_FAILED file apply-patch mixed.patch &&
	test "$(jq -r .error.details.reason refusal.json)" = context_diff &&
	test "$(jq -r .error.details.line refusal.json)" = 3 &&
	untouched cx.txt && untouched cy.txt
'

test_expect_success 'a patch over 1 MiB is LIMIT_EXCEEDED (exit 21) and creates nothing' '
	big_patch >big.patch &&
	test $(wc -c <big.patch) -gt 1048576 &&
	refused 21 LIMIT_EXCEEDED file apply-patch big.patch &&
	test ! -e big.txt
'

test_expect_success 'a patch over 1 MiB on standard input is LIMIT_EXCEEDED too' '
	big_patch | test_expect_code 21 keeper --json file apply-patch >refusal.json &&
	test_error_code LIMIT_EXCEEDED refusal.json &&
	test ! -e big.txt
'

test_expect_success 'a patch creating a file that exists is ALREADY_EXISTS and writes nothing' '
	printf "there\n" >exists.txt &&
	printf -- "--- /dev/null\n+++ b/exists.txt\n@@ -0,0 +1 @@\n+other\n" >exists.patch &&
	refused 14 ALREADY_EXISTS file apply-patch exists.patch &&
	printf "there\n" >expect &&
	cmp expect exists.txt
'

test_expect_success 'a patch creating a file at a path ending with / is NOT_A_FILE and writes nothing' '
	printf -- "--- /dev/null\n+++ b/nd/\n@@ -0,0 +1 @@\n+x\n" >slash.patch &&
	refused 5 NOT_A_FILE file apply-patch slash.patch &&
	test ! -e nd
'

test_expect_success 'a patch modifying a missing file is PATH_NOT_FOUND' '
	printf -- "--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n" >missing.patch &&
	refused 3 PATH_NOT_FOUND file apply-patch missing.patch &&
	test ! -e missing.txt
'

# dry run

test_expect_success 'apply-patch --dry-run reports every file and hunk, offsets included' '
	numbered 10 >dry1.txt &&
	{ printf "extra\n" && numbered 10; } >dry2.txt &&
	sed "s/shift.txt/dry1.txt/" "$SCRATCH/shift.patch" >dry.patch &&
	sed "s/shift.txt/dry2.txt/" "$SCRATCH/shift.patch" >>dry.patch &&
	paths_state dry1.txt dry2.txt >"$TRASH/dry.before" &&
	keeper --json file apply-patch --dry-run dry.patch >dry.json &&
	paths_state dry1.txt dry2.txt >"$TRASH/dry.after" &&
	test "$(json_get .dry_run dry.json)" = true &&
	test "$(json_get .operation_id dry.json)" = null &&
	jq -r ".patch_files[] | \"\(.path) \(.status) \(.hunks[0].status) \(.hunks[0].offset)\"" \
		dry.json >actual &&
	printf "dry1.txt applies applies 0\ndry2.txt applies applies_at_offset 1\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'apply-patch --dry-run writes nothing' '
	test_cmp "$TRASH/dry.before" "$TRASH/dry.after"
'

test_expect_success 'apply-patch --dry-run prints a unified diff of what would change' '
	keeper file apply-patch --dry-run dry.patch >"$TRASH/dry.diff" &&
	grep -x -e "--- a/dry1.txt" "$TRASH/dry.diff" &&
	grep -x -e "+++ b/dry2.txt" "$TRASH/dry.diff" &&
	test "$(grep -c -x -e "+line seven" "$TRASH/dry.diff")" = 2 &&
	numbered 10 >expect &&
	cmp expect dry1.txt
'

test_expect_success 'apply-patch --dry-run of a failing patch is PATCH_FAILED with the same statuses' '
	paths_state x1.txt x2.txt x3.txt >"$TRASH/dry.before" &&
	refused 18 PATCH_FAILED file apply-patch --dry-run three.patch &&
	paths_state x1.txt x2.txt x3.txt >"$TRASH/dry.after" &&
	test_cmp "$TRASH/dry.before" "$TRASH/dry.after" &&
	jq -r ".error.details.patch_files[] | .status" refusal.json >actual &&
	printf "applies\nfailed\napplies\n" >expect &&
	test_cmp expect actual
'

# confinement

test_expect_success 'a patch touching ../x is PATH_OUTSIDE_WORKSPACE (exit 4) and writes nothing' '
	printf "outside\n" >"$OUTSIDE/x" &&
	paths_state ../outside/x >"$TRASH/conf.before" &&
	printf -- "--- a/../outside/x\n+++ b/../outside/x\n@@ -1 +1 @@\n-outside\n+owned\n" \
		>escape.patch &&
	refused 4 PATH_OUTSIDE_WORKSPACE file apply-patch escape.patch &&
	paths_state ../outside/x >"$TRASH/conf.after" &&
	test_cmp "$TRASH/conf.before" "$TRASH/conf.after"
'

test_expect_success 'a patch whose later file leaves the workspace writes none of its files' '
	numbered 3 >inside.txt &&
	paths_state inside.txt >"$TRASH/conf.before" &&
	{
		printf -- "--- a/inside.txt\n+++ b/inside.txt\n@@ -1 +1 @@\n-line 1\n+LINE 1\n" &&
		printf -- "--- /dev/null\n+++ b/../outside/new\n@@ -0,0 +1 @@\n+planted\n"
	} >escape2.patch &&
	refused 4 PATH_OUTSIDE_WORKSPACE file apply-patch escape2.patch &&
	paths_state inside.txt >"$TRASH/conf.after" &&
	test_cmp "$TRASH/conf.before" "$TRASH/conf.after" &&
	test ! -e "$OUTSIDE/new"
'

test_expect_success 'a patch naming an absolute path outside the workspace is refused (exit 6)' '
	paths_state >"$TRASH/conf.before" &&
	printf -- "--- %s\n+++ %s\n@@ -1 +1 @@\n-outside\n+owned\n" "$OUTSIDE/x" "$OUTSIDE/x" \
		>absolute.patch &&
	test_expect_code 6 keeper --json file apply-patch absolute.patch >refusal.json &&
	test_error_code ABSOLUTE_PATH_OUTSIDE_WORKSPACE refusal.json &&
	paths_state >"$TRASH/conf.after" &&
	test_cmp "$TRASH/conf.before" "$TRASH/conf.after"
'

test_expect_success 'a patch into .filekeeper/ is PATH_IS_STATE_PATH (exit 8)' '
	printf -- "--- /dev/null\n+++ b/.filekeeper/planted\n@@ -0,0 +1 @@\n+x\n" >state.patch &&
	refused 8 PATH_IS_STATE_PATH file apply-patch state.patch &&
	test ! -e .filekeeper/planted
'

test_expect_success 'a patch creating .env is SENSITIVE_PATH_REFUSED (exit 10)' '
	printf -- "--- /dev/null\n+++ b/.env\n@@ -0,0 +1 @@\n+TOKEN=x\n" >env.patch &&
	refused 10 SENSITIVE_PATH_REFUSED file apply-patch env.patch &&
	test ! -e .env
'

test_expect_success 'a patch file that cannot be read is INVALID_ARGUMENT naming the patch file' '
	test_expect_code 2 keeper --json file apply-patch no-such.patch >out &&
	test_error_code INVALID_ARGUMENT out &&
	json_get ".error.message" out | grep "cannot read the patch file: no such file" &&
	mkdir -p patchdir &&
	test_expect_code 2 keeper --json file apply-patch patchdir >out &&
	json_get ".error.message" out | grep "it is a directory"
'

test_expect_success 'a patch adding a NUL to a text file is refused whole: the file would become binary' '
	printf "one\ntwo\n" >nul-a.txt &&
	printf "three\n" >nul-b.txt &&
	save nul-a.txt &&
	save nul-b.txt &&
	{
		printf -- "--- a/nul-b.txt\n+++ b/nul-b.txt\n@@ -1 +1 @@\n-three\n+3\n" &&
		printf -- "--- a/nul-a.txt\n+++ b/nul-a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+t\000wo\n"
	} >nul.patch &&
	refused 2 INVALID_ARGUMENT file apply-patch nul.patch &&
	json_get ".error.details.reason == \"would_become_binary\" and .error.details.path == \"nul-a.txt\"" refusal.json &&
	untouched nul-a.txt &&
	untouched nul-b.txt
'

test_expect_success TTY 'with no patch file and a terminal on stdin, the hint names what apply-patch takes' '
	script -qec "keeper file apply-patch" /dev/null >screen 2>&1 </dev/null;
	grep -a "no patch: name a patch file, or pipe the patch on stdin" screen &&
	! grep -a -- "--input" screen
'

test_done
