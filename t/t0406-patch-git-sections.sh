#!/bin/sh
test_description='keeper file apply-patch: every section kind git diff writes, against git apply

Each patch here is real git diff output: a repository is made with git init, committed, changed
and diffed. The same patch is applied with keeper to a copy of the tree and with git apply to
another, and the two trees must be identical, byte for byte and executable bit for executable
bit; then history undo must bring the keeper copy back to the base tree exactly. Covered: new
files in directories that do not exist yet, new and deleted empty files, mode changes, renames
and copies with and without hunks, directories a patch empties. Binary, symbolic-link and
submodule sections refuse the whole patch, and so does a hunk that runs past its header or a
stray line after one: nothing is ever skipped in silence. A seeded generator (SECTIONS_SEED)
mixes all of these in random trees.'
. ./test-lib.sh

# git is the reference; python3 generates the sections.
test_require_prereq GIT,PYTHON

REPO=$TRASH/repo
PATCH=$TRASH/p.diff
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com \
	GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

# base CMDS: a new repository at REPO whose first commit is what CMDS (run inside it) make.
base () {
	rm -rf "$REPO" &&
	git init -q "$REPO" &&
	(cd "$REPO" && git config core.fileMode true && eval "$1" && git add -A &&
		git commit -q -m base)
}

# change CMDS [DIFF-OPTIONS]: runs CMDS in REPO, writes the staged diff to PATCH (renames and
# copies detected), then puts REPO back to its base commit.
change () {
	(cd "$REPO" && eval "$1" && git add -A && shift &&
		git diff --cached -M -C "$@" >"$PATCH" &&
		git reset -q --hard HEAD && git clean -q -f -d -x) &&
	test -s "$PATCH"
}

# same_tree A B: A and B hold the same paths with the same bytes and the same executable bits
# (git's and keeper's own state left out).
same_tree () {
	diff -r --exclude=.git --exclude=.filekeeper "$1" "$2" &&
	(cd "$1" && find . -name .git -prune -o -name .filekeeper -prune -o -type f -perm -u+x -print | sort) >"$TRASH/x1" &&
	(cd "$2" && find . -name .git -prune -o -name .filekeeper -prune -o -type f -perm -u+x -print | sort) >"$TRASH/x2" &&
	test_cmp "$TRASH/x1" "$TRASH/x2"
}

# copies: the base tree at BASE (for comparing), W (keeper's workspace, by --root) and G (a
# clone for git apply).
BASE=$TRASH/base W=$TRASH/w G=$TRASH/g
copies () {
	rm -rf "$BASE" "$W" "$G" &&
	cp -a "$REPO" "$G" &&
	cp -a "$REPO" "$BASE" && rm -rf "$BASE/.git" &&
	cp -a "$BASE" "$W"
}

# applies_like_git: git apply and keeper file apply-patch (result in out.json) turn the base
# tree into the same tree.
applies_like_git () {
	copies &&
	(cd "$G" && git apply "$PATCH") &&
	keeper --root "$W" --json file apply-patch "$PATCH" >out.json &&
	test "$(json_get .ok out.json)" = true &&
	same_tree "$G" "$W"
}

# undoes_exactly: history undo-last brings W back to the base tree.
undoes_exactly () {
	keeper --root "$W" --json history undo-last >undo.json &&
	test "$(json_get .ok undo.json)" = true &&
	same_tree "$BASE" "$W"
}

# refused_whole EXIT CODE: keeper refuses PATCH with EXIT and CODE and W is still the base tree.
refused_whole () {
	copies &&
	test_expect_code "$1" keeper --root "$W" --json file apply-patch "$PATCH" >refusal.json &&
	test_error_code "$2" refusal.json &&
	test_no_host_path refusal.json &&
	same_tree "$BASE" "$W" &&
	! test -e "$W/.filekeeper/journal.sqlite3" || test "$(sqlite3 "$W/.filekeeper/journal.sqlite3" "SELECT count(*) FROM operations")" = 0
}

# change_of PATH: the change patch_files reports for PATH in out.json.
change_of () {
	jq -r --arg p "$1" '.patch_files[] | select(.path == $p) | .change' out.json
}

test_expect_success 'a new file in directories that do not exist yet is created with them' '
	base "echo keep >top.txt" &&
	change "mkdir -p src/deep/er && echo new >src/deep/er/f.txt" &&
	grep -q "^new file mode" "$PATCH" &&
	applies_like_git &&
	test "$(change_of src/deep/er/f.txt)" = created &&
	test "$(jq -r "[.items[] | select(.kind == \"directory\" and .change == \"created\") | .path] | join(\" \")" out.json)" = "src src/deep src/deep/er"
'

test_expect_success 'undo removes exactly the directories the patch created' '
	undoes_exactly &&
	! test -e "$W/src"
'

test_expect_success 'a directory that existed before the patch is kept by the undo' '
	base "mkdir -p src && echo a >src/a.txt" &&
	change "mkdir -p src/new && echo b >src/new/b.txt" &&
	applies_like_git &&
	undoes_exactly &&
	test -d "$W/src" && ! test -e "$W/src/new"
'

test_expect_success 'a patch holding only new empty files creates them' '
	base "echo x >x.txt" &&
	change ": >empty.txt && mkdir -p d && : >d/also-empty" &&
	! grep -q "^@@" "$PATCH" &&
	applies_like_git &&
	test "$(json_get ".patch_files | length" out.json)" = 2 &&
	test "$(change_of empty.txt)" = created &&
	test -f "$W/empty.txt" && ! test -s "$W/empty.txt"
'

test_expect_success 'the new empty files are undone' '
	undoes_exactly
'

test_expect_success 'the deletion of an empty file is applied and counted' '
	base "echo x >x.txt && : >empty.txt" &&
	change "git rm -q empty.txt && echo y >>x.txt" &&
	applies_like_git &&
	test "$(json_get ".patch_files | length" out.json)" = 2 &&
	test "$(change_of empty.txt)" = deleted &&
	! test -e "$W/empty.txt" &&
	undoes_exactly
'

test_expect_success 'a deletion without hunks refuses a file that is not empty' '
	base ": >empty.txt" &&
	change "git rm -q empty.txt" &&
	copies &&
	echo "written since" >"$W/empty.txt" &&
	test_expect_code 18 keeper --root "$W" --json file apply-patch "$PATCH" >refusal.json &&
	test_error_code PATCH_FAILED refusal.json &&
	test "$(json_get .error.details.reason refusal.json)" = not_empty_after_delete &&
	test "$(cat "$W/empty.txt")" = "written since"
'

test_expect_success 'a deletion whose hunks leave a line added since is refused, and says so' '
	base "printf \"a\\nb\\n\" >del.txt" &&
	change "git rm -q del.txt" &&
	copies &&
	printf "x\na\nb\n" >"$W/del.txt" &&
	test_expect_code 18 keeper --root "$W" --json file apply-patch "$PATCH" >refusal.json &&
	test "$(json_get .error.details.reason refusal.json)" = not_empty_after_delete &&
	json_get .error.message refusal.json | grep "keeps lines its hunks do not remove" &&
	test "$(cat "$W/del.txt")" = "$(printf "x\na\nb")"
'

test_expect_success 'a hunk at its stated line in a file that is not the one the index line names, whose lines fit elsewhere too, is ambiguous' '
	base "printf \"f() {\\n    b();\\n}\\n\" >twin.c" &&
	change "printf \"f() {\\n    B();\\n}\\n\" >twin.c" &&
	grep -q "^index " "$PATCH" &&
	copies &&
	printf "f() {\n    b();\n}\nf() {\n    b();\n}\n" >"$W/twin.c" &&
	cp "$W/twin.c" twin.before &&
	test_expect_code 18 keeper --root "$W" --json file apply-patch "$PATCH" >refusal.json &&
	test "$(json_get .error.details.reason refusal.json)" = ambiguous &&
	test "$(json_get .error.details.old_blob refusal.json)" = "$(git -C "$REPO" rev-parse --short=7 HEAD:twin.c)" &&
	test "$(json_get .error.details.file_blob refusal.json)" = "$(git hash-object "$W/twin.c" | cut -c1-7)" &&
	cmp twin.before "$W/twin.c"
'

test_expect_success 'git diff -U0 adds lines between two lines of the very file its index line names' '
	base "printf \"a\\nb\\nc\\n\" >u0.txt" &&
	change "printf \"a\\nNEW\\nb\\nc\\n\" >u0.txt" -U0 &&
	copies &&
	keeper --root "$W" --json file apply-patch "$PATCH" >out.json &&
	test "$(cat "$W/u0.txt")" = "$(printf "a\nNEW\nb\nc")" &&
	printf "x\na\nb\nc\n" >"$W/u0.txt" &&
	test_expect_code 18 keeper --root "$W" --json file apply-patch "$PATCH" >refusal.json &&
	test "$(json_get .error.details.reason refusal.json)" = placed_by_number
'

test_expect_success 'a mode change sets the executable bit' '
	base "printf \"#!/bin/sh\\necho hi\\n\" >run.sh" &&
	change "chmod +x run.sh" &&
	grep -q "^new mode 100755" "$PATCH" &&
	applies_like_git &&
	test -x "$W/run.sh" &&
	test "$(change_of run.sh)" = mode_changed &&
	test "$(json_get ".patch_files[0].mode" out.json)" = 100755
'

test_expect_success 'the mode change is journaled and undone' '
	op=$(json_get .operation_id out.json) &&
	keeper --root "$W" --json history show "$op" >show.json &&
	# The executable bits are added where the file is readable (0644 becomes 0755).
	jq -e ".operation.items[0] | .after_mode == .before_mode + 73" show.json >/dev/null &&
	undoes_exactly &&
	! test -x "$W/run.sh"
'

test_expect_success 'a mode change with hunks edits and sets the bit in one operation' '
	base "printf \"one\\n\" >tool && chmod +x tool" &&
	change "chmod -x tool && echo two >>tool" &&
	applies_like_git &&
	! test -x "$W/tool" &&
	test "$(change_of tool)" = modified &&
	test "$(json_get ".patch_files[0].mode" out.json)" = 100644 &&
	undoes_exactly
'

test_expect_success 'a new executable file is created executable' '
	base "echo x >x.txt" &&
	change "mkdir bin && printf \"#!/bin/sh\\n\" >bin/go && chmod +x bin/go" &&
	grep -q "^new file mode 100755" "$PATCH" &&
	applies_like_git &&
	test -x "$W/bin/go" &&
	undoes_exactly
'

test_expect_success 'a rename without hunks moves the file' '
	base "seq 1 40 >old-name.txt" &&
	change "git mv old-name.txt new-name.txt" &&
	grep -q "^rename from old-name.txt" "$PATCH" && ! grep -q "^@@" "$PATCH" &&
	applies_like_git &&
	test "$(change_of new-name.txt)" = renamed &&
	test "$(json_get ".patch_files[0].from" out.json)" = old-name.txt
'

test_expect_success 'the rename is undone as one operation' '
	undoes_exactly
'

test_expect_success 'a rename with hunks moves and edits the file in one operation' '
	base "seq 1 40 >a.txt" &&
	change "mkdir -p moved && git mv a.txt moved/b.txt && sed -i s/^20\$/twenty/ moved/b.txt" &&
	grep -q "^rename to moved/b.txt" "$PATCH" && grep -q "^@@" "$PATCH" &&
	applies_like_git &&
	test "$(change_of moved/b.txt)" = renamed &&
	test "$(json_get ".patch_files[0].hunks | length" out.json)" = 1 &&
	undoes_exactly &&
	! test -e "$W/moved"
'

test_expect_success 'a copy with hunks writes the edited copy and leaves the source' '
	base "seq 1 60 >orig.txt" &&
	change "cp orig.txt copy.txt && sed -i s/^30\$/thirty/ copy.txt && echo tail >>orig.txt" --find-copies-harder &&
	grep -q "^copy from orig.txt" "$PATCH" &&
	applies_like_git &&
	test "$(change_of copy.txt)" = copied &&
	test "$(change_of orig.txt)" = modified &&
	undoes_exactly
'

test_expect_success 'a copy without hunks writes an identical copy' '
	base "seq 1 60 >orig.txt" &&
	change "cp orig.txt same.txt" --find-copies-harder &&
	grep -q "^copy to same.txt" "$PATCH" &&
	applies_like_git &&
	cmp "$W/orig.txt" "$W/same.txt" &&
	undoes_exactly
'

test_expect_success 'a section whose headers say copy and rename is refused, the source kept' '
	base "printf \"a\\n\" >x.txt" &&
	change "cp x.txt z.txt && printf \"a\\nb\\n\" >z.txt" --find-copies-harder &&
	grep "^copy to z.txt" "$PATCH" &&
	sed "s/^copy to z.txt/rename to z.txt/" "$PATCH" >"$TRASH/mixed.diff" && cp "$TRASH/mixed.diff" "$PATCH" &&
	refused_whole 18 PATCH_FAILED &&
	test "$(json_get .error.details.reason refusal.json)" = inconsistent_headers
'

test_expect_success 'a patch that deletes every file of a directory removes the directory' '
	base "mkdir -p gone/inner && echo 1 >gone/a && echo 2 >gone/inner/b && echo 3 >stay.txt" &&
	change "git rm -q -r gone" &&
	applies_like_git &&
	! test -e "$W/gone" &&
	test "$(jq -r "[.items[] | select(.kind == \"directory\") | .path] | join(\" \")" out.json)" = "gone/inner gone"
'

test_expect_success 'the emptied directories come back with the undo' '
	undoes_exactly &&
	test -d "$W/gone/inner"
'

test_expect_success 'a directory that still holds a file the patch does not touch is kept' '
	base "mkdir -p d && echo 1 >d/tracked" &&
	change "git rm -q d/tracked" &&
	copies &&
	echo untracked >"$W/d/other" &&
	keeper --root "$W" --json file apply-patch "$PATCH" >out.json &&
	test "$(cat "$W/d/other")" = untracked &&
	test "$(jq "[.items[] | select(.kind == \"directory\")] | length" out.json)" = 0
'

test_expect_success 'a directory that still holds a nested workspace'"'"'s state is kept, and so is the state' '
	base "mkdir -p d && echo 1 >d/tracked" &&
	change "git rm -q d/tracked" &&
	copies &&
	echo inner >"$W/d/inner.txt" &&
	keeper --root "$W/d" file delete inner.txt >/dev/null &&
	test -f "$W/d/.filekeeper/journal.sqlite3" &&
	keeper --root "$W" --json file apply-patch "$PATCH" >out.json &&
	test ! -e "$W/d/tracked" &&
	test -f "$W/d/.filekeeper/journal.sqlite3" &&
	test "$(jq "[.items[] | select(.kind == \"directory\")] | length" out.json)" = 0
'

test_expect_success 'a file deleted through a link to a directory leaves that directory, which the patch never named' '
	base "mkdir real && echo 1 >real/f" &&
	change "git rm -q real/f" &&
	copies &&
	ln -s real "$W/ln" &&
	sed "s|real/f|ln/f|g" "$PATCH" >linked.patch &&
	keeper --root "$W" --json file apply-patch linked.patch >out.json &&
	test ! -e "$W/real/f" &&
	test -d "$W/real" &&
	test "$(jq "[.items[] | select(.kind == \"directory\")] | length" out.json)" = 0
'

test_expect_success 'a "Binary files differ" section refuses the whole patch, text sections included' '
	base "echo text >a.txt && printf \"\\000\\001\" >blob.bin" &&
	change "echo more >>a.txt && printf \"\\000\\002\" >blob.bin" &&
	grep -q "^Binary files" "$PATCH" &&
	refused_whole 20 BINARY_CONTENT_REFUSED &&
	test "$(json_get .error.details.reason refusal.json)" = binary_patch
'

test_expect_success 'a GIT binary patch section refuses the whole patch' '
	change "echo more >>a.txt && printf \"\\000\\003\" >blob.bin" --binary &&
	grep -q "^GIT binary patch" "$PATCH" &&
	refused_whole 20 BINARY_CONTENT_REFUSED
'

test_expect_success 'a symbolic link section refuses the whole patch' '
	base "echo text >a.txt" &&
	change "echo more >>a.txt && ln -s a.txt link" &&
	grep -q "^new file mode 120000" "$PATCH" &&
	refused_whole 9 SYMLINK_WRITE_REFUSED
'

test_expect_success 'a submodule section refuses the whole patch' '
	base "echo text >a.txt" &&
	# git add -A would drop a gitlink with no directory behind it: stage it by hand.
	(cd "$REPO" && echo more >>a.txt && git add -A &&
		git update-index --add --cacheinfo "160000,$(printf %040d 1),sub" &&
		git diff --cached >"$PATCH" && git reset -q --hard HEAD) &&
	grep -q "^new file mode 160000" "$PATCH" &&
	refused_whole 18 PATCH_FAILED &&
	test "$(json_get .error.details.reason refusal.json)" = submodule_patch
'

test_expect_success 'a hunk whose body runs past its header is PATCH_FAILED, naming the line' '
	base "printf \"a\\nb\\nc\\nd\\ne\\n\" >f.txt" &&
	change "printf \"a\\nB\\nc\\nD\\ne\\n\" >f.txt" -U0 &&
	# Two one-line hunks become one hunk that declares one change and holds two.
	sed -e "/^@@ -4 +4 @@/d" "$PATCH" >"$TRASH/long.diff" && cp "$TRASH/long.diff" "$PATCH" &&
	refused_whole 18 PATCH_FAILED &&
	test "$(json_get .error.details.reason refusal.json)" = hunk_body_too_long &&
	test "$(json_get .error.details.line refusal.json)" = "$(grep -n "^-d" "$PATCH" | cut -d: -f1)" &&
	test "$(json_get .error.details.expected_old_lines refusal.json)" = 1
'

test_expect_success 'a stray line after a hunk is PATCH_FAILED, naming the line' '
	change "printf \"a\\nB\\nc\\nd\\ne\\n\" >f.txt" &&
	printf "this line belongs to nothing\n" >>"$PATCH" &&
	refused_whole 18 PATCH_FAILED &&
	test "$(json_get .error.details.reason refusal.json)" = unexpected_line &&
	test "$(json_get .error.details.line refusal.json)" = "$(wc -l <"$PATCH")"
'

test_expect_success 'git format-patch output applies: its message and signature are not changes' '
	base "printf \"a\\nb\\n\" >f.txt" &&
	(cd "$REPO" && echo c >>f.txt && git commit -q -a -m "add c" &&
		git format-patch -q -1 --stdout >"$PATCH" && git reset -q --hard HEAD~1) &&
	grep -q "^-- \$" "$PATCH" &&
	applies_like_git
'

test_expect_success 'a signature file that starts with a blank line is a signature too' '
	base "printf \"a\\nb\\n\" >f.txt" &&
	printf "\nJoe\n" >"$TRASH/sig" &&
	(cd "$REPO" && echo c >>f.txt && git commit -q -a -m "add c" &&
		git format-patch -q -1 --stdout --signature-file="$TRASH/sig" >"$PATCH" &&
		git reset -q --hard HEAD~1) &&
	grep -A1 "^-- \$" "$PATCH" >dashes &&
	test_line_count = 2 dashes &&
	test "$(tail -n 1 dashes)" = "" &&
	applies_like_git
'

test_expect_success 'a line "-- " that is not followed by git'"'"'s version is a hunk line, never a signature' '
	base "printf \"x\\n- \\n\\nq\\nr\\n\" >f.txt" &&
	# The header undercounts the hunk, which goes on with "-- " (the removal of "- ") and
	# an empty context line, as a mailer that strips trailing blanks leaves it. Taken for a
	# signature, "-- " would end the patch after x -> X and skip r -> R in silence.
	printf "%s\n" "--- a/f.txt" "+++ b/f.txt" "@@ -1 +1 @@" "-x" "+X" "-- " "" " q" "-r" "+R" >"$PATCH" &&
	refused_whole 18 PATCH_FAILED &&
	test "$(json_get .error.details.reason refusal.json)" = hunk_body_too_long &&
	test "$(json_get .error.details.line refusal.json)" = 6 &&
	# The same as the patch'"'"'s last line, or followed by blank lines only.
	printf "%s\n" "--- a/f.txt" "+++ b/f.txt" "@@ -1 +1 @@" "-x" "+X" "-- " >"$PATCH" &&
	refused_whole 18 PATCH_FAILED &&
	test "$(json_get .error.details.reason refusal.json)" = hunk_body_too_long &&
	printf "%s\n" "--- a/f.txt" "+++ b/f.txt" "@@ -1 +1 @@" "-x" "+X" "-- " "" "" >"$PATCH" &&
	refused_whole 18 PATCH_FAILED &&
	test "$(json_get .error.details.reason refusal.json)" = hunk_body_too_long
'

test_expect_success 'patch_files has one entry per section and names what happened to each' '
	base "echo m >mod.txt && echo d >del.txt && seq 1 30 >ren.txt && echo x >exe" &&
	change "echo more >>mod.txt && git rm -q del.txt && git mv ren.txt renamed.txt && chmod +x exe && mkdir n && echo new >n/new.txt" &&
	applies_like_git &&
	test "$(grep -c "^diff --git" "$PATCH")" = "$(json_get ".patch_files | length" out.json)" &&
	jq -r ".patch_files[] | \"\(.path) \(.change)\"" out.json | sort >actual &&
	printf "%s\n" "del.txt deleted" "exe mode_changed" "mod.txt modified" "n/new.txt created" "renamed.txt renamed" >expect &&
	test_cmp expect actual
'

test_expect_success 'the human output names each file and what happened to it' '
	copies &&
	keeper --root "$W" file apply-patch "$PATCH" >human.out &&
	grep -q "^  renamed ren.txt -> renamed.txt" human.out &&
	grep -q "^  mode changed exe (100755)" human.out &&
	grep -q "^  created n/new.txt" human.out &&
	grep -q "^  deleted del.txt" human.out &&
	grep -q "^  modified mod.txt (1 hunk)" human.out
'

test_expect_success 'the human dry run prints the diff on stdout and each file on stderr' '
	copies &&
	keeper --root "$W" file apply-patch --dry-run "$PATCH" >dry.out 2>dry.err &&
	grep -q "^+++ b/mod.txt" dry.out &&
	! grep -q "would be" dry.out &&
	grep -q "would be renamed ren.txt -> renamed.txt" dry.err &&
	grep -q "would be deleted del.txt" dry.err &&
	same_tree "$BASE" "$W"
'

test_expect_success 'the dry run reports every section and changes nothing' '
	copies &&
	keeper --root "$W" --json file apply-patch --dry-run "$PATCH" >dry.json &&
	test "$(json_get ".patch_files | length" dry.json)" = 5 &&
	test "$(json_get .would_change dry.json)" = true &&
	json_get .preview_diff dry.json | grep -q "^rename ren.txt -> renamed.txt" &&
	same_tree "$BASE" "$W"
'

# The generator: python3 gen.py DIR SEED COUNT makes COUNT repositories DIR/<n>/repo, each with a
# random base tree committed, and DIR/<n>/p.diff, git's diff of a random mix of changes.
cat >"$TRASH/gen.py" <<\EOF
import os, random, subprocess, sys

out, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)

def git(repo, *args):
    subprocess.run(["git", "-C", repo, *args], check=True, stdout=subprocess.DEVNULL)

def text(n):
    return "".join(f"line {rng.randint(0, 999)} of {rng.choice('abcdef')}\n" for _ in range(n))

for case in range(count):
    repo = os.path.join(out, str(case), "repo")
    os.makedirs(repo)
    git(repo, "init", "-q")
    git(repo, "config", "core.fileMode", "true")
    files = []
    for i in range(rng.randint(3, 9)):
        d = rng.choice(["", "a/", "a/b/", "c/"])
        path = f"{d}f{i}.txt"
        os.makedirs(os.path.join(repo, d), exist_ok=True)
        with open(os.path.join(repo, path), "w") as f:
            f.write("" if rng.random() < 0.15 else text(rng.randint(1, 30)))
        if rng.random() < 0.2:
            os.chmod(os.path.join(repo, path), 0o755)
        files.append(path)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    for path in rng.sample(files, rng.randint(1, len(files))):
        full = os.path.join(repo, path)
        op = rng.choice(["edit", "delete", "chmod", "rename", "rename-edit", "copy", "create"])
        if op == "edit":
            with open(full, "a") as f:
                f.write(text(rng.randint(1, 3)))
        elif op == "delete":
            os.remove(full)
        elif op == "chmod":
            os.chmod(full, os.stat(full).st_mode ^ 0o111)
        elif op in ("rename", "rename-edit", "copy"):
            d = rng.choice(["", "a/", "new/", "new/deeper/"])
            dest = os.path.join(repo, d, "moved-" + os.path.basename(path))
            if os.path.exists(dest):
                continue
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(full) as f:
                body = f.read()
            if op == "rename-edit" and body.count("\n") > 8:
                lines = body.splitlines(True)
                lines[rng.randrange(len(lines))] = "changed\n"
                body = "".join(lines)
            with open(dest, "w") as f:
                f.write(body)
            os.chmod(dest, os.stat(full).st_mode)
            if op != "copy":
                os.remove(full)
        else:
            d = rng.choice(["", "a/", "z/", "z/y/"])
            os.makedirs(os.path.join(repo, d), exist_ok=True)
            new = os.path.join(repo, d, f"n{rng.randint(0, 99)}.txt")
            if not os.path.exists(new):
                with open(new, "w") as f:
                    f.write("" if rng.random() < 0.3 else text(rng.randint(1, 5)))
    git(repo, "add", "-A")
    with open(os.path.join(out, str(case), "p.diff"), "w") as f:
        subprocess.run(["git", "-C", repo, "diff", "--cached", "-M", "-C", "--find-copies-harder"],
                       check=True, stdout=f)
    git(repo, "reset", "-q", "--hard", "HEAD")
    git(repo, "clean", "-q", "-f", "-d", "-x")
EOF

SECTIONS_SEED=${SECTIONS_SEED:-20261201}
CASES=$TRASH/cases

# The 40 random trees take most of this script's time: the long loop only (t/README).
test_expect_success EXPENSIVE "seeded git diffs of random trees apply like git apply and undo exactly (seed $SECTIONS_SEED)" '
	python3 "$TRASH/gen.py" "$CASES" "$SECTIONS_SEED" 40 &&
	: >failures &&
	for n in $(ls "$CASES" | sort -n)
	do
		REPO=$CASES/$n/repo PATCH=$CASES/$n/p.diff
		test -s "$PATCH" || continue
		{ applies_like_git && undoes_exactly; } >/dev/null 2>&1 || echo "case $n" >>failures
	done &&
	test_must_be_empty failures
'

test_expect_success EXPENSIVE 'the seeded cases cover every section kind' '
	cat "$CASES"/*/p.diff >all.diff &&
	for header in "^new file mode" "^deleted file mode" "^new mode" "^rename from" "^copy from"
	do
		grep -q "$header" all.diff || { echo >&2 "no case has $header"; return 1; }
	done
'

test_done
