#!/bin/sh
test_description='keeper file apply-patch with Codex-style patches (*** Begin Patch)

A patch whose first non-empty line is "*** Begin Patch" is read as the apply_patch format of
OpenAI'"'"'s Codex models: *** Add File, *** Delete File, *** Update File with an optional
*** Move to, @@ hunks with an optional anchor line, *** End of File, *** End Patch. It is
checked whole before anything is written and is one operation: history undo-last restores
every file, and a second section that fails leaves the first file untouched. A hunk has no
line numbers, so it applies only where its lines occur exactly once after the previous hunk
(an @@ anchor line moves the start of the search); a hunk that matches twice is PATCH_FAILED
naming both lines, never applied at the first. CRLF files stay CRLF, a BOM stays, a file without a final
newline keeps none. Every break of the grammar is PATCH_FAILED naming the patch line; an
added file or a move never overwrites. A unified diff with bare @@ headers, and a Codex body
without its envelope, get a message about their format. The MCP tool file_apply_patch reads
the same patches.'
. ./test-lib.sh

# Patches, results and expected files live outside the workspace, so that "nothing was
# written" can compare the whole workspace tree; the project under test is in $WS.
SCRATCH=$TRASH/scratch
mkdir -p "$SCRATCH" && cd "$SCRATCH" || exit 1

# codex FILE: `keeper --json file apply-patch FILE` succeeds with a committed operation; the
# result is left in out.json.
codex () {
	keeper --json file apply-patch "$@" >out.json &&
	test "$(json_get .ok out.json)" = true &&
	json_get .operation_id out.json | grep -E "^op_[0-9a-f]{16}$" >/dev/null || {
		echo >&2 "apply-patch $* did not commit:"
		cat >&2 out.json
		return 1
	}
}

# rejected EXIT CODE REASON LINE PATCH: applying PATCH exits EXIT with CODE, details.reason
# REASON (unless REASON is -) and details.line LINE, and the tree and journal are as before.
rejected () {
	tree_state "$WS" >state.before &&
	refused "$1" "$2" file apply-patch "$5" &&
	if test "$3" != -; then
		test "$(jq -r .error.details.reason refusal.json)" = "$3" || {
			echo >&2 "reason is not $3:"
			cat >&2 refusal.json
			return 1
		}
	fi &&
	test "$(jq -r .error.details.line refusal.json)" = "$4" &&
	jq -r .error.message refusal.json | grep "^line $4: " &&
	tree_state "$WS" >state.after &&
	test_cmp state.before state.after
}

# project: what the workspace holds (paths, modes, hashes), however it got there.
project () {
	(cd "$WS" && tree_content)
}

test_expect_success 'setup: a small project' '
	mkdir -p "$WS/src" "$WS/docs" &&
	printf "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n" >"$WS/src/app.py" &&
	printf "# Title\n\nSome text.\n" >"$WS/docs/readme.md" &&
	printf "obsolete\n" >"$WS/docs/old.md" &&
	printf "[core]\nname = x\n" >"$WS/config.ini" &&
	project >tree.orig
'

test_expect_success 'a multi-file Codex patch updates, adds, deletes and moves' '
	cat >multi.patch <<-\EOF &&
	*** Begin Patch
	*** Update File: src/app.py
	@@ def b():
	     x = 1
	-    return x
	+    return x + 1
	*** Add File: src/new/util.py
	+def util():
	+    return 42
	*** Delete File: docs/old.md
	*** Update File: config.ini
	*** Move to: conf/app.ini
	@@ [core]
	-name = x
	+name = y
	*** End Patch
	EOF
	codex multi.patch &&
	printf "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x + 1\n" >expect &&
	test_cmp expect "$WS/src/app.py" &&
	printf "def util():\n    return 42\n" >expect &&
	test_cmp expect "$WS/src/new/util.py" &&
	test ! -e "$WS/docs/old.md" &&
	test ! -e "$WS/config.ini" &&
	printf "[core]\nname = y\n" >expect &&
	test_cmp expect "$WS/conf/app.ini"
'

test_expect_success 'patch_files has one entry per section, with where each hunk applied' '
	jq -r ".patch_files[] | \"\(.path) \(.change) \(.status) \(.from // \"-\")\"" out.json >actual &&
	cat >expect <<-\EOF &&
	src/app.py modified applies -
	src/new/util.py created applies -
	docs/old.md deleted applies -
	conf/app.ini renamed applies config.ini
	EOF
	test_cmp expect actual &&
	json_get ".patch_files[0].hunks == [{\"hunk\": 1, \"old_start\": 6, \"old_lines\": 2,
		\"new_start\": 6, \"new_lines\": 2, \"status\": \"applies\", \"offset\": 0}]" out.json &&
	json_get ".patch_files[2].hunks == []" out.json
'

test_expect_success 'history undo-last undoes the whole patch as one operation' '
	ops=$(op_count) &&
	keeper --json history undo-last >undo.json &&
	test "$(json_get .ok undo.json)" = true &&
	test "$(op_count)" = $((ops + 1)) &&
	project >tree.now &&
	test_cmp tree.orig tree.now
'

test_expect_success 'a failing second file leaves the first untouched and writes nothing' '
	cat >second-fails.patch <<-\EOF &&
	*** Begin Patch
	*** Update File: docs/readme.md
	@@
	-Some text.
	+Other text.
	*** Update File: src/app.py
	@@
	-    return y
	+    return z
	*** End Patch
	EOF
	rejected 18 PATCH_FAILED failed 7 second-fails.patch &&
	test "$(jq -r .error.details.path refusal.json)" = src/app.py &&
	test "$(jq -r "[.error.details.patch_files[].status] | join(\" \")" refusal.json)" = \
		"applies failed" &&
	printf "# Title\n\nSome text.\n" >expect &&
	test_cmp expect "$WS/docs/readme.md"
'

test_expect_success 'a hunk that matches twice is refused with both line numbers' '
	cat >twice.patch <<-\EOF &&
	*** Begin Patch
	*** Update File: src/app.py
	@@
	     x = 1
	-    return x
	+    return 0
	*** End Patch
	EOF
	rejected 18 PATCH_FAILED ambiguous 3 twice.patch &&
	json_get ".error.details.matches == [2, 6]" refusal.json &&
	jq -r .error.message refusal.json | grep "lines 2 and 6" &&
	json_get ".error.details.patch_files[0].hunks[0].status == \"ambiguous\"" refusal.json
'

test_expect_success 'an @@ anchor line starts the search, and the lines after it must still be unique' '
	sed "s/^@@$/@@ def b():/" twice.patch >anchored.patch &&
	codex anchored.patch &&
	printf "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return 0\n" >expect &&
	test_cmp expect "$WS/src/app.py" &&
	keeper history undo-last >/dev/null &&
	sed "s/^@@$/@@ def a():/" twice.patch >first.patch &&
	rejected 18 PATCH_FAILED ambiguous 3 first.patch &&
	json_get ".error.details.matches == [2, 6]" refusal.json
'

test_expect_success 'a second hunk naming the function the first was in is not moved to a later one of that name' '
	printf "def f():\n    x = 0\n    c = 3\ndef f():\n    c = 3\n" >"$WS/same.py" &&
	cp "$WS/same.py" same.before &&
	printf "*** Begin Patch\n*** Update File: same.py\n@@ def f():\n-    x = 0\n+    x = 1\n@@ def f():\n-    c = 3\n+    c = 4\n*** End Patch\n" >same.patch &&
	rejected 18 PATCH_FAILED ambiguous 6 same.patch &&
	json_get ".error.details.matches == [3, 5]" refusal.json &&
	test_cmp same.before "$WS/same.py"
'

test_expect_success 'with one function of that name, both hunks land in it' '
	printf "def f():\n    x = 0\n    c = 3\n" >"$WS/one.py" &&
	sed "s/same.py/one.py/" same.patch >one.patch &&
	codex one.patch &&
	printf "def f():\n    x = 1\n    c = 4\n" >expect &&
	test_cmp expect "$WS/one.py"
'

test_expect_success 'a second hunk naming the class and another method of it is found in that class' '
	printf "class A:\n    def f(self):\n        a = 1\n\n    def g(self):\n        c = 3\n" >"$WS/cls.py" &&
	printf "*** Begin Patch\n*** Update File: cls.py\n@@ class A:\n@@     def f(self):\n-        a = 1\n+        a = 10\n@@ class A:\n@@     def g(self):\n-        c = 3\n+        c = 30\n*** End Patch\n" >cls.patch &&
	codex cls.patch &&
	printf "class A:\n    def f(self):\n        a = 10\n\n    def g(self):\n        c = 30\n" >expect &&
	test_cmp expect "$WS/cls.py"
'

test_expect_success 'a second hunk of the same class and method whose lines are only in the next class is refused' '
	printf "class A:\n    def f(self):\n        a = 1\nclass B:\n    def f(self):\n        c = 3\n" >"$WS/two.py" &&
	cp "$WS/two.py" two.before &&
	printf "*** Begin Patch\n*** Update File: two.py\n@@ class A:\n@@     def f(self):\n-        a = 1\n+        a = 10\n@@ class A:\n@@     def f(self):\n-        c = 3\n+        c = 30\n*** End Patch\n" >two.patch &&
	rejected 18 PATCH_FAILED failed 7 two.patch &&
	test_cmp two.before "$WS/two.py"
'

test_expect_success 'context that repeats the anchors above the last one is looked for from the first' '
	printf "# Tool\n## Usage\ntext\n# Tool\n## Usage\ntext\n" >"$WS/doc.md" &&
	cp "$WS/doc.md" doc.before &&
	printf "*** Begin Patch\n*** Update File: doc.md\n@@ # Tool\n@@ ## Usage\n # Tool\n ## Usage\n-text\n+new\n*** End Patch\n" >stacked.patch &&
	rejected 18 PATCH_FAILED ambiguous 3 stacked.patch &&
	json_get ".error.details.matches == [1, 4]" refusal.json &&
	test_cmp doc.before "$WS/doc.md" &&
	printf "# Tool\n## Usage\ntext\n" >"$WS/doc.md" &&
	codex stacked.patch &&
	printf "# Tool\n## Usage\nnew\n" >expect &&
	test_cmp expect "$WS/doc.md"
'

test_expect_success 'a hunk sent out of order is refused when its lines also occur before the previous one' '
	printf "x = 1\nf()\ny = 2\nx = 1\nf()\n" >"$WS/order.py" &&
	cp "$WS/order.py" order.before &&
	printf "*** Begin Patch\n*** Update File: order.py\n@@\n-y = 2\n+y = 3\n@@\n x = 1\n-f()\n+g()\n*** End Patch\n" >order.patch &&
	rejected 18 PATCH_FAILED ambiguous 6 order.patch &&
	json_get ".error.details.matches == [1, 4]" refusal.json &&
	test_cmp order.before "$WS/order.py"
'

test_expect_success 'two nearby hunks may share context lines; one that changes the other'"'"'s context is refused' '
	printf "a\nb\nc\nd\ne\n" >"$WS/near.txt" &&
	printf "*** Begin Patch\n*** Update File: near.txt\n@@\n a\n-b\n+B\n c\n d\n@@\n c\n d\n-e\n+E\n*** End Patch\n" >near.patch &&
	codex near.patch &&
	printf "a\nB\nc\nd\nE\n" >expect &&
	test_cmp expect "$WS/near.txt" &&
	cp "$WS/near.txt" near.before &&
	printf "*** Begin Patch\n*** Update File: near.txt\n@@\n-B\n+b\n c\n@@\n-c\n+C\n*** End Patch\n" >clash.patch &&
	rejected 18 PATCH_FAILED overlaps 7 clash.patch &&
	json_get ".error.details.matches == [3]" refusal.json &&
	test_cmp near.before "$WS/near.txt"
'

test_expect_success 'a CRLF file stays CRLF and its BOM stays' '
	printf "\357\273\277first\r\nsecond\r\nthird\r\n" >"$WS/win.txt" &&
	printf "*** Begin Patch\n*** Update File: win.txt\n@@\n-first\n+FIRST\n second\n+inserted\n*** End Patch\n" >crlf.patch &&
	codex crlf.patch &&
	printf "\357\273\277FIRST\r\nsecond\r\ninserted\r\nthird\r\n" >expect &&
	cmp expect "$WS/win.txt"
'

test_expect_success 'a patch that would start a file without a BOM with U+FEFF is refused; a new file takes it as given' '
	printf "first\nsecond\n" >"$WS/plain.txt" &&
	printf "*** Begin Patch\n*** Update File: plain.txt\n@@\n-first\n+\357\273\277first\n second\n*** End Patch\n" >feff.patch &&
	tree_state "$WS" >state.before &&
	refused 2 INVALID_ARGUMENT file apply-patch feff.patch &&
	test "$(jq -r .error.details.reason refusal.json)" = bom_would_appear &&
	tree_state "$WS" >state.after &&
	test_cmp state.before state.after &&
	printf "*** Begin Patch\n*** Add File: feff-new.txt\n+\357\273\277new\n*** End Patch\n" >feff-new.patch &&
	codex feff-new.patch &&
	printf "\357\273\277new\n" >expect &&
	cmp expect "$WS/feff-new.txt"
'

test_expect_success 'End of File anchors a hunk at the last lines; a file without final newline keeps none' '
	printf "end\nmiddle\nend" >"$WS/tail.txt" &&
	cat >tail.patch <<-\EOF &&
	*** Begin Patch
	*** Update File: tail.txt
	@@
	-end
	+END
	+after
	*** End of File
	*** End Patch
	EOF
	codex tail.patch &&
	printf "end\nmiddle\nEND\nafter" >expect &&
	cmp expect "$WS/tail.txt"
'

test_expect_success 'a line of one space at the end of a hunk is an empty context line, not a separator' '
	printf "foo\nbar\n\nbaz\n" >"$WS/space.txt" &&
	printf "*** Begin Patch\n*** Update File: space.txt\n@@ foo\n+new\n \n*** End Patch\n" >space.patch &&
	codex space.patch &&
	printf "foo\nbar\nnew\n\nbaz\n" >expect &&
	cmp expect "$WS/space.txt"
'

test_expect_success 'a match found only with trailing whitespace ignored applies with a warning' '
	printf "alpha  \nbeta\n" >"$WS/spaces.txt" &&
	printf "*** Begin Patch\n*** Update File: spaces.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch\n" >spaces.patch &&
	codex spaces.patch &&
	printf "alpha  \nBETA\n" >expect &&
	cmp expect "$WS/spaces.txt" &&
	json_get ".warnings | map(select(test(\"trailing whitespace\"))) | length == 1" out.json
'

test_expect_success 'indentation is never ignored' '
	printf "*** Begin Patch\n*** Update File: src/app.py\n@@ def b():\nx = 1\n-return x\n+return 2\n*** End Patch\n" >indent.patch &&
	rejected 18 PATCH_FAILED unexpected_line 4 indent.patch &&
	printf "*** Begin Patch\n*** Update File: src/app.py\n@@ def b():\n  x = 1\n- return x\n+ return 2\n*** End Patch\n" >indent.patch &&
	rejected 18 PATCH_FAILED failed 3 indent.patch
'

test_expect_success 'a dry run reports the sections and writes nothing' '
	tree_state "$WS" >state.before &&
	keeper --json file apply-patch --dry-run anchored.patch >dry.json &&
	json_get ".ok and .dry_run and .would_change" dry.json &&
	json_get ".patch_files[0].status == \"applies\"" dry.json &&
	tree_state "$WS" >state.after &&
	test_cmp state.before state.after
'

# what is refused

test_expect_success 'a patch without *** End Patch is refused' '
	printf "*** Begin Patch\n*** Add File: cut.txt\n+half\n" >cut.patch &&
	rejected 18 PATCH_FAILED missing_end 4 cut.patch &&
	test ! -e "$WS/cut.txt"
'

test_expect_success 'an unknown *** directive is refused' '
	printf "*** Begin Patch\n*** Rename File: a\n*** End Patch\n" >unknown.patch &&
	rejected 18 PATCH_FAILED unknown_directive 2 unknown.patch
'

test_expect_success 'a line outside the grammar is refused' '
	printf "*** Begin Patch\n*** Add File: x.txt\n+ok\nnot added\n*** End Patch\n" >stray.patch &&
	rejected 18 PATCH_FAILED unexpected_line 4 stray.patch &&
	printf "*** Begin Patch\n*** Update File: win.txt\n@@ -1,2 +1,2 @@\n-second\n+2\n*** End Patch\n" >ranges.patch &&
	rejected 18 PATCH_FAILED unified_header_in_codex_patch 3 ranges.patch
'

test_expect_success 'an added file never overwrites, and a move never lands on an existing path' '
	printf "*** Begin Patch\n*** Add File: win.txt\n+x\n*** End Patch\n" >over.patch &&
	rejected 14 ALREADY_EXISTS - 2 over.patch &&
	printf "*** Begin Patch\n*** Update File: tail.txt\n*** Move to: win.txt\n*** End Patch\n" >onto.patch &&
	rejected 14 ALREADY_EXISTS - 3 onto.patch
'

test_expect_success 'deleting a file and adding it again in one patch is one file changed twice' '
	printf "*** Begin Patch\n*** Delete File: win.txt\n*** Add File: win.txt\n+y\n*** End Patch\n" >twice.patch &&
	rejected 18 PATCH_FAILED duplicate_file 3 twice.patch
'

test_expect_success 'an empty line right after *** Update File: separates, as Codex reads it, and a hunk it leaves matching twice is refused' '
	printf "X\nb\n" >"$WS/sep.txt" &&
	printf "*** Begin Patch\n*** Update File: sep.txt\n\n X\n+new\n*** End Patch\n" >sep.patch &&
	codex sep.patch &&
	printf "X\nnew\nb\n" >sep.want && cmp sep.want "$WS/sep.txt" &&
	printf "X\nq\n\nX\nb\n" >"$WS/sep2.txt" &&
	sed "s/sep.txt/sep2.txt/" sep.patch >sep2.patch &&
	rejected 18 PATCH_FAILED ambiguous 4 sep2.patch
'

test_expect_success 'updating a file an earlier section adds or moves there is one file changed twice, not a missing file' '
	printf "*** Begin Patch\n*** Add File: twice.txt\n+x\n*** Update File: twice.txt\n@@\n-x\n+y\n*** End Patch\n" >add-update.patch &&
	rejected 18 PATCH_FAILED duplicate_file 4 add-update.patch &&
	printf "*** Begin Patch\n*** Add File: nd/twice.txt\n+x\n*** Delete File: nd/twice.txt\n*** End Patch\n" >add-delete.patch &&
	rejected 18 PATCH_FAILED duplicate_file 4 add-delete.patch &&
	printf "*** Begin Patch\n*** Update File: win.txt\n*** Move to: moved.txt\n*** Update File: moved.txt\n@@\n-x\n+z\n*** End Patch\n" >move-update.patch &&
	rejected 18 PATCH_FAILED duplicate_file 4 move-update.patch &&
	test ! -e "$WS/twice.txt" && test ! -e "$WS/nd" && test ! -e "$WS/moved.txt"
'

test_expect_success 'a file added or moved to a path ending with / is NOT_A_FILE, never a file of that name' '
	printf "*** Begin Patch\n*** Add File: newdir/\n+x\n*** End Patch\n" >slash-add.patch &&
	rejected 5 NOT_A_FILE - 2 slash-add.patch &&
	printf "*** Begin Patch\n*** Update File: tail.txt\n*** Move to: sub/\n*** End Patch\n" >slash-move.patch &&
	rejected 5 NOT_A_FILE - 3 slash-move.patch &&
	test ! -e "$WS/newdir" && test ! -e "$WS/sub"
'

test_expect_success 'deleting or updating a missing file is refused' '
	printf "*** Begin Patch\n*** Add File: fine.txt\n+x\n*** Delete File: nowhere.txt\n*** End Patch\n" >missing.patch &&
	rejected 3 PATH_NOT_FOUND - 4 missing.patch &&
	test ! -e "$WS/fine.txt" &&
	printf "*** Begin Patch\n*** Update File: nowhere.txt\n@@\n-a\n+b\n*** End Patch\n" >missing.patch &&
	rejected 3 PATH_NOT_FOUND - 2 missing.patch
'

# messages about the format

test_expect_success 'a unified diff with bare @@ headers is refused with a message about ranges' '
	printf -- "--- a/win.txt\n+++ b/win.txt\n@@\n-second\n+2\n" >bare.patch &&
	rejected 18 PATCH_FAILED bare_hunk_header 3 bare.patch &&
	jq -r .error.message refusal.json | grep -F "@@ -a,b +c,d @@"
'

test_expect_success 'a Codex body without its envelope is told so' '
	printf "*** Update File: win.txt\n@@\n-second\n+2\n" >bare-codex.patch &&
	rejected 18 PATCH_FAILED codex_without_envelope 1 bare-codex.patch &&
	jq -r .error.message refusal.json | grep -F "*** Begin Patch"
'

test_expect_success 'text that is no patch names the formats that are read' '
	printf "please change line 2\n" >prose.patch &&
	rejected 18 PATCH_FAILED not_a_patch 1 prose.patch &&
	! jq -r .error.message refusal.json | grep "holds no file changes"
'

# the MCP tool

# mcp_calls OUTFILE: runs the requests on stdin through one MCP session serving the workspace.
mcp_calls () {
	timeout 60 "$PY" "$MCP/call.py" "$WS" >"$1"
}

test_expect_success MCP_SDK 'file_apply_patch refuses an ambiguous Codex patch and applies an anchored one' '
	printf "one\ntwo\none\ntwo\n" >"$WS/mcp.txt" &&
	bad=$(printf "*** Begin Patch\n*** Update File: mcp.txt\n@@\n one\n-two\n+2\n*** End Patch\n") &&
	good=$(printf "*** Begin Patch\n*** Update File: mcp.txt\n@@\n-one\n-two\n+1\n+2\n*** End of File\n*** End Patch\n") &&
	{
		jq -nc --arg p "$bad" "{tool: \"file_apply_patch\", arguments: {patch: \$p}}" &&
		jq -nc --arg p "$good" "{tool: \"file_apply_patch\", arguments: {patch: \$p}}"
	} | mcp_calls mcp.out &&
	sed -n 1p mcp.out >first.json &&
	json_get ".is_error == true and .structured.error.code == \"PATCH_FAILED\"" first.json &&
	json_get ".structured.error.details.matches == [1, 3]" first.json &&
	sed -n 2p mcp.out >second.json &&
	json_get ".is_error == false and .structured.ok == true" second.json &&
	json_get ".structured.patch_files[0].hunks[0].old_start == 3" second.json &&
	printf "one\ntwo\n1\n2\n" >expect &&
	test_cmp expect "$WS/mcp.txt"
'

test_done
