#!/bin/sh
test_description='keeper file apply-patch against diff -u, git diff and GNU patch: a differential test

A seeded generator (PATCH_SEED, fixed unless set) takes real text files of this repository
(docs/*.md, porcelain/src/*.rs) and makes about 150 pairs OLD/NEW by random insertions,
deletions and changes: in the middle, at the start and at the end of the file, with a final
newline missing on either side, in CRLF files, with narrow diff contexts, and in files with a
byte-order mark. For each pair, `diff -u OLD NEW` (and `git diff` for a subset) is applied to a
copy of OLD in the workspace with keeper file apply-patch, and the result must be exactly NEW,
byte for byte; GNU patch --dry-run --fuzz=0 must agree that the same patch applies cleanly.
Then stale patches (OLD changed after the diff, breaking one hunk'"'"'s lines so that they occur
nowhere) must be refused by both keeper (PATCH_FAILED, file untouched) and GNU patch. Every
failing case is named with its id and kind.'
. ./test-lib.sh

PATCH_SEED=${PATCH_SEED:-20261130}
SRC=$TRASH/sources
CASES=$TRASH/cases
GNU=$TRASH/gnu
mkdir -p "$SRC" "$CASES" "$GNU"

# GNU patch and git are the references; python3 generates the cases. Hundreds of generated
# cases take the better part of a minute: the long loop only (make test; t/README).
test_require_prereq EXPENSIVE,PYTHON,PATCH,GIT

# The generator: python3 gen.py SOURCE_DIR CASE_DIR SEED. Every case is a directory
# CASE_DIR/<id> holding name (the file name), kind, old and new (the bytes), and for a stale case
# also stale (OLD after the diff was taken). The ids list is CASE_DIR/<kind>.list.
cat >"$TRASH/gen.py" <<\EOF
import os
import random
import re
import subprocess
import sys

src_dir, out_dir, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(seed)

sources = []
for name in sorted(os.listdir(src_dir)):
    with open(os.path.join(src_dir, name), encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) >= 12:
        sources.append((name, lines))
if not sources:
    sys.exit("no source files")
pool = [line for _, lines in sources for line in lines if line.strip()]
# Lines that look like patch syntax once prefixed, or that whitespace handling could damage.
tricky = ["-- two dashes", "--- three dashes", "++ two pluses", "+++ three pluses",
          "@@ -1,2 +1,2 @@", "\\ No newline at end of file", "\\backslash", " ", "\t\ttabs",
          "trailing blanks   ", "---", "+++", "-", "+", "@@"]

def window(lo=12, hi=90):
    name, lines = rng.choice(sources)
    size = min(len(lines), rng.randint(lo, hi))
    start = rng.randint(0, len(lines) - size)
    return name, list(lines[start:start + size])

def new_line(old=None):
    choice = rng.random()
    if old is not None and old.strip() and choice < 0.4:
        variants = [old.upper(), old + " // edited", old.replace(" ", "  ", 1),
                    " ".join(reversed(old.split())), "    " + old.strip()]
        cand = rng.choice(variants)
        if cand != old:
            return cand
    if choice < 0.5:
        return ""
    if choice < 0.6:
        return rng.choice(tricky)
    return rng.choice(pool)

def new_lines(n, olds=()):
    olds = list(olds)
    return [new_line(olds[i] if i < len(olds) else None) for i in range(n)]

def edit(lines, where="any"):
    lines = list(lines)
    ops = rng.randint(1, 4) if where == "any" else 1
    for _ in range(ops):
        n = len(lines)
        op = rng.choice(["insert", "delete", "change"])
        if n == 0:
            op = "insert"
        span = rng.randint(1, min(4, n)) if n else 0
        if where == "start":
            at = 0
        elif where == "end":
            at = n if op == "insert" else n - span
        else:
            at = rng.randint(0, n if op == "insert" else n - span)
        if op == "insert":
            lines[at:at] = new_lines(rng.randint(1, 4))
        elif op == "delete":
            del lines[at:at + span]
        else:
            lines[at:at + span] = new_lines(rng.randint(1, 3), lines[at:at + span])
    return lines

def render(lines, eol="\n", final=True, bom=False):
    text = eol.join(lines)
    if lines and final:
        text += eol
    return ("\ufeff" if bom else "") + text

cases = []

def add(kind, name, old, new, **extra):
    if old == new:
        return False
    ident = "c%03d" % (len(cases) + 1)
    ext = os.path.splitext(name)[1] or ".txt"
    cases.append(dict(id=ident, kind=kind, name="%s-%s%s" % (ident, kind, ext),
                      old=old, new=new, **extra))
    return True

def fill(kind, count, make):
    made = 0
    while made < count:
        if make():
            made += 1

def random_case():
    name, lines = window()
    return add("random", name, render(lines), render(edit(lines)))

def start_end_case():
    name, lines = window(12, 40)
    made = sum(1 for c in cases if c["kind"] == "start_end")
    if made in (0, 12):
        return add("start_end", name, "", render(lines))
    if made in (1, 13):
        return add("start_end", name, render(lines), "")
    where = rng.choice(["start", "end", "both"])
    new = lines
    if where in ("start", "both"):
        new = edit(new, "start")
    if where in ("end", "both"):
        new = edit(new, "end")
    return add("start_end", name, render(lines), render(new))

def no_eol_case():
    name, lines = window(12, 60)
    old_final, new_final = rng.choice([(False, True), (True, False), (False, False)])
    new = edit(lines, rng.choice(["any", "end", "end"]))
    return add("no_eol", name, render(lines, final=old_final), render(new, final=new_final))

def crlf_case():
    name, lines = window(12, 60)
    old_final = rng.random() < 0.8
    new_final = old_final if rng.random() < 0.8 else not old_final
    new = edit(lines, rng.choice(["any", "any", "start", "end"]))
    return add("crlf", name, render(lines, "\r\n", old_final),
               render(new, "\r\n", new_final))

def narrow_case():
    # diff -U0 cases are a kind of their own ("zero"): keeper refuses some of them.
    name, lines = window(20, 80)
    new = render(edit(lines))
    context = rng.choice([0, 1, 2])
    return add("zero" if context == 0 else "narrow", name, render(lines), new,
               context=context)

def bom_case():
    name, lines = window(12, 40)
    new = edit(lines, "start")
    return add("bom", name, render(lines, bom=True), render(new, bom=True))

def offset_case():
    # Edits away from both ends; the patch is applied to OLD with lines added above every
    # hunk, so each hunk is found at an offset; the result must be NEW with the same lines.
    name, lines = window(30, 90)
    new = lines[:5] + edit(lines[5:-5]) + lines[-5:]
    extra = new_lines(rng.randint(1, 6))
    return add("offset", name, render(lines), render(new),
               target=render(extra + lines), want=render(extra + new))

def stray_cr_case():
    # A line holding a carriage return that is not a line end (terminal progress output):
    # diff -u and GNU patch see one line; the edit next to it puts it into the hunk.
    name, lines = window(12, 40)
    at = rng.randrange(1, len(lines) - 1)
    lines[at] = "progress 10%\rprogress 100%"
    new = list(lines)
    near = at + rng.choice([-1, 1])
    new[near] = new_line(new[near]) + " (edited)"
    return add("stray_cr", name, render(lines), render(new))

def hunks_of(patch):
    """(old_start, old_lines) of every hunk, and the old side's lines of each."""
    out = []
    for m in re.finditer(r"^@@ -(\d+)(?:,(\d+))? \+", patch, re.M):
        out.append((int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)))
    return out

def occurs(seq, lines):
    k = len(seq)
    return any(lines[i:i + k] == seq for i in range(len(lines) - k + 1))

def stale_case():
    name, lines = window(20, 80)
    new = edit(lines)
    old_text, new_text = render(lines), render(new)
    if old_text == new_text:
        return False
    tmp = os.path.join(out_dir, "tmp")
    os.makedirs(tmp, exist_ok=True)
    with open(os.path.join(tmp, "old"), "w", encoding="utf-8", newline="") as f:
        f.write(old_text)
    with open(os.path.join(tmp, "new"), "w", encoding="utf-8", newline="") as f:
        f.write(new_text)
    patch = subprocess.run(["diff", "-u", "old", "new"], cwd=tmp, capture_output=True,
                           text=True).stdout
    hunks = [h for h in hunks_of(patch) if h[1] > 0]
    if not hunks:
        return False
    start, count = rng.choice(hunks)
    old_side = lines[start - 1:start - 1 + count]
    at = start - 1 + rng.randrange(count)
    stale = list(lines)
    stale[at] = stale[at] + " /* changed after the diff */"
    if occurs(old_side, stale):
        return False
    return add("stale", name, old_text, new_text, stale=render(stale))

fill("random", 50, random_case)
fill("start_end", 25, start_end_case)
fill("no_eol", 25, no_eol_case)
fill("crlf", 25, crlf_case)
fill("narrow", 15, narrow_case)
fill("bom", 10, bom_case)
fill("offset", 10, offset_case)
fill("stray_cr", 5, stray_cr_case)
fill("stale", 20, stale_case)
# More diff -U0 cases, made last so that the cases above stay as they were: half of them only
# change lines in place, which -U0 hunks apply by (the other half mostly add lines too).
def zero_case():
    name, lines = window(20, 80)
    new = list(lines)
    if rng.random() < 0.5:
        for i in rng.sample(range(len(new)), rng.randint(1, 3)):
            new[i] += " // changed"
    else:
        new = edit(lines)
    return add("zero", name, render(lines), render(new), context=0)

fill("zero", 10, zero_case)

lists = {}
for i, case in enumerate(cases):
    d = os.path.join(out_dir, case["id"])
    os.makedirs(d)
    for key in ("name", "kind"):
        with open(os.path.join(d, key), "w") as f:
            f.write(case[key] + "\n")
    for key in ("old", "new", "stale", "target", "want"):
        if key in case:
            with open(os.path.join(d, key), "w", encoding="utf-8", newline="") as f:
                f.write(case[key])
    # diff -u style: -p1 (a/NAME b/NAME) or -p0 (NAME.orig NAME); every third case also git.
    with open(os.path.join(d, "strip"), "w") as f:
        f.write("%d\n" % (1 if i % 2 == 0 else 0))
    with open(os.path.join(d, "context"), "w") as f:
        f.write("%d\n" % case.get("context", 3))
    if i % 3 == 0 and case["kind"] not in ("stale", "narrow", "zero", "offset"):
        open(os.path.join(d, "git"), "w").close()
    lists.setdefault(case["kind"], []).append(case["id"])
for kind, ids in lists.items():
    with open(os.path.join(out_dir, kind + ".list"), "w") as f:
        f.write("\n".join(ids) + "\n")
EOF

# make_patch ID: writes CASES/ID/patch, `diff -u` (or -U<context>) of old and new, in the
# case's style: "--- a/NAME +++ b/NAME" (strip 1) or "--- NAME.orig +++ NAME" (strip 0).
make_patch () {
	dir=$CASES/$1
	name=$(cat "$dir/name")
	ctx=$(cat "$dir/context")
	if test "$(cat "$dir/strip")" = 1
	then
		mkdir -p "$dir/p/a" "$dir/p/b" &&
		cp "$dir/old" "$dir/p/a/$name" &&
		cp "$dir/new" "$dir/p/b/$name" &&
		(cd "$dir/p" && diff -U "$ctx" "a/$name" "b/$name" >"$dir/patch")
	else
		mkdir -p "$dir/p" &&
		cp "$dir/old" "$dir/p/$name.orig" &&
		cp "$dir/new" "$dir/p/$name" &&
		(cd "$dir/p" && diff -U "$ctx" "$name.orig" "$name" >"$dir/patch")
	fi
	test $? = 1 || { echo >&2 "case $1: diff did not report a difference"; return 1; }
}

# gnu_patch ID PATCH STRIP FILE: GNU patch --dry-run --fuzz=0, forced and never reversing,
# applies PATCH to a copy of FILE named as in the case without fuzz, and without an offset
# unless the case is one whose hunks are meant to move (it then needs one). Its output is left
# in GNU/ID.out.
gnu_patch () {
	rm -rf "$GNU/$1" &&
	mkdir -p "$GNU/$1" &&
	cp "$4" "$GNU/$1/$(cat "$CASES/$1/name")" &&
	patch -f --dry-run --fuzz=0 -p"$3" -d "$GNU/$1" -i "$2" </dev/null >"$GNU/$1.out" 2>&1 &&
	! grep -E -i "fuzz|failed|reject|reversed" "$GNU/$1.out" &&
	if test -f "$CASES/$1/target"
	then
		grep -i "offset" "$GNU/$1.out" >/dev/null
	else
		! grep -i "offset" "$GNU/$1.out"
	fi
}

# gnu_refuses ID PATCH STRIP FILE: GNU patch --dry-run --fuzz=0, forced and never reversing,
# finds that PATCH does not apply to a copy of FILE (exit 1: a hunk failed). Its output is left
# in GNU/ID.out.
gnu_refuses () {
	rm -rf "$GNU/$1" &&
	mkdir -p "$GNU/$1" &&
	cp "$4" "$GNU/$1/$(cat "$CASES/$1/name")" &&
	{
		patch -f --dry-run --fuzz=0 -p"$3" -d "$GNU/$1" -i "$2" </dev/null >"$GNU/$1.out" 2>&1
		test $? = 1
	}
}

# keeper_applies ID PATCH: copies the case's old bytes (its target, when it has one) into the
# workspace under its name, applies PATCH with keeper file apply-patch, and checks the result is
# exactly the new bytes (its want, when it has one).
keeper_applies () {
	dir=$CASES/$1
	name=$(cat "$dir/name")
	from=$dir/old want=$dir/new
	if test -f "$dir/target"
	then
		from=$dir/target want=$dir/want
	fi
	cp "$from" "$WS/$name" &&
	keeper --json file apply-patch "$2" >"$dir/keeper.json" 2>&1 || {
		echo >&2 "case $1 ($(cat "$dir/kind")): keeper refused the patch:"
		cat >&2 "$dir/keeper.json"
		return 1
	}
	cmp "$want" "$WS/$name" || {
		echo >&2 "case $1 ($(cat "$dir/kind")): keeper's result differs from NEW"
		return 1
	}
}

# run_kind KIND: for every case of KIND, diff -u applies with keeper to exactly NEW and GNU
# patch applies it cleanly; cases in the git subset are also applied as git diff output. Each
# success is one line in TRASH/passed.KIND (and TRASH/passed-git.KIND); every failure names
# its case, and the function fails if any case failed.
run_kind () {
	failed=0
	: >"$TRASH/passed.$1" &&
	: >"$TRASH/passed-git.$1" &&
	for id in $(cat "$CASES/$1.list")
	do
		dir=$CASES/$id
		if ! make_patch "$id"
		then
			failed=$((failed + 1))
			continue
		fi
		from=$dir/old
		test -f "$dir/target" && from=$dir/target
		if ! gnu_patch "$id" "$dir/patch" "$(cat "$dir/strip")" "$from"
		then
			echo >&2 "case $id ($1): GNU patch does not apply diff -u cleanly:"
			cat >&2 "$GNU/$id.out"
			failed=$((failed + 1))
			continue
		fi
		if ! keeper_applies "$id" "$dir/patch"
		then
			failed=$((failed + 1))
			continue
		fi
		echo "$id" >>"$TRASH/passed.$1"
		test -f "$dir/git" || continue
		if ! gnu_patch "$id" "$dir/git.patch" 1 "$dir/old"
		then
			echo >&2 "case $id ($1): GNU patch does not apply git diff cleanly:"
			cat >&2 "$GNU/$id.out"
			failed=$((failed + 1))
			continue
		fi
		if ! keeper_applies "$id" "$dir/git.patch"
		then
			echo >&2 "case $id ($1): (the git diff patch)"
			failed=$((failed + 1))
			continue
		fi
		echo "$id" >>"$TRASH/passed-git.$1"
	done
	if test $failed -gt 0
	then
		echo >&2 "$failed case(s) of kind $1 failed"
		return 1
	fi
}

test_expect_success 'setup: real text files of this repository as sources' '
	cp "$TEST_DIRECTORY"/../docs/*.md "$TEST_DIRECTORY"/../porcelain/src/*.rs "$SRC/" &&
	test $(ls "$SRC" | wc -l) -ge 5
'

test_expect_success "setup: the generator makes its cases from seed $PATCH_SEED" '
	python3 "$TRASH/gen.py" "$SRC" "$CASES" "$PATCH_SEED" &&
	cat "$CASES"/*.list >all.ids &&
	test_line_count -ge 150 all.ids
'

test_expect_success 'the generator is deterministic: the same seed gives the same cases' '
	python3 "$TRASH/gen.py" "$SRC" "$TRASH/cases-again" "$PATCH_SEED" &&
	(cd "$CASES" && find . -path ./tmp -prune -o -type f -print | LC_ALL=C sort |
		xargs sha256sum) >first &&
	(cd "$TRASH/cases-again" && find . -path ./tmp -prune -o -type f -print | LC_ALL=C sort |
		xargs sha256sum) >second &&
	test_cmp first second
'

test_expect_success 'setup: git diff patches for the git subset, from one repository' '
	git init -q "$TRASH/gitrepo" &&
	for id in $(cat all.ids)
	do
		test -f "$CASES/$id/git" || continue
		cp "$CASES/$id/old" "$TRASH/gitrepo/$(cat "$CASES/$id/name")" || exit 1
	done &&
	git -C "$TRASH/gitrepo" -c core.autocrlf=false add . &&
	git -C "$TRASH/gitrepo" -c user.name=t -c user.email=t@example.com commit -q -m old &&
	for id in $(cat all.ids)
	do
		test -f "$CASES/$id/git" || continue
		name=$(cat "$CASES/$id/name") &&
		cp "$CASES/$id/new" "$TRASH/gitrepo/$name" &&
		git -C "$TRASH/gitrepo" -c core.autocrlf=false diff -- "$name" \
			>"$CASES/$id/git.patch" &&
		grep -q -x -e "+++ b/$name" "$CASES/$id/git.patch" || exit 1
	done
'

test_expect_success 'random insertions, deletions and changes: diff -u and git diff apply to exactly NEW' '
	run_kind random
'

test_expect_success 'edits at the start and the end of the file, and to and from an empty file' '
	run_kind start_end
'

test_expect_success 'a final newline missing on the old side, the new side or both' '
	run_kind no_eol
'

test_expect_success 'CRLF files, some without a final newline, stay byte-identical to NEW' '
	run_kind crlf
'

test_expect_success 'narrow contexts (diff -U1, -U2) apply like GNU patch' '
	run_kind narrow
'

# middle_insertion ID: whether the case's patch has a hunk that only adds lines (`@@ -N,0`)
# after a line N that is neither the start nor the end of the old file.
middle_insertion () {
	last=$(wc -l <"$CASES/$1/old") &&
	sed -n "s/^@@ -\([0-9]*\),0 .*/\1/p" "$CASES/$1/patch" | {
		while read -r n
		do
			test "$n" -gt 0 && test "$n" -lt "$last" && exit 0
		done
		exit 1
	}
}

test_expect_success 'diff -U0 applies like GNU patch where its hunks change lines in place, and is refused (placed_by_number) where a hunk only adds lines between two lines of the file' '
	failed=0 &&
	: >"$TRASH/passed.zero" && : >"$TRASH/refused.zero" &&
	for id in $(cat "$CASES/zero.list")
	do
		dir=$CASES/$id
		make_patch "$id" &&
		gnu_patch "$id" "$dir/patch" "$(cat "$dir/strip")" "$dir/old" || {
			failed=$((failed + 1))
			continue
		}
		if middle_insertion "$id"
		then
			name=$(cat "$dir/name") &&
			cp "$dir/old" "$WS/$name" &&
			test_expect_code 18 keeper --json file apply-patch "$dir/patch" >"$dir/keeper.json" &&
			test "$(json_get .error.details.reason "$dir/keeper.json")" = placed_by_number &&
			cmp "$dir/old" "$WS/$name" &&
			echo "$id" >>"$TRASH/refused.zero" || {
				echo >&2 "case $id (zero): not refused as placed_by_number, or the file changed"
				failed=$((failed + 1))
			}
		else
			keeper_applies "$id" "$dir/patch" &&
			echo "$id" >>"$TRASH/passed.zero" || failed=$((failed + 1))
		fi
	done &&
	test $failed = 0
'

test_expect_success 'files with a byte-order mark, edited near the start, apply like GNU patch' '
	run_kind bom
'

test_expect_success 'hunks found at an offset (lines added above them) apply where GNU patch finds them' '
	run_kind offset &&
	for id in $(cat "$CASES/offset.list")
	do
		jq -e "[.patch_files[].hunks[].status] | all(. == \"applies_at_offset\")" \
			"$CASES/$id/keeper.json" >/dev/null || {
			echo >&2 "case $id (offset): not every hunk reported applies_at_offset"
			exit 1
		}
	done
'

test_expect_success 'a carriage return inside a line is part of the line, as diff -u and GNU patch see it' '
	run_kind stray_cr
'

test_expect_success 'stale patches are refused by both keeper (PATCH_FAILED, file untouched) and GNU patch' '
	failed=0 &&
	: >"$TRASH/passed.stale" &&
	for id in $(cat "$CASES/stale.list")
	do
		dir=$CASES/$id &&
		name=$(cat "$dir/name") &&
		make_patch "$id" || exit 1
		if ! gnu_refuses "$id" "$dir/patch" "$(cat "$dir/strip")" "$dir/stale"
		then
			echo >&2 "case $id (stale): GNU patch applies the stale patch:"
			cat >&2 "$GNU/$id.out"
			failed=$((failed + 1))
			continue
		fi
		cp "$dir/stale" "$WS/$name" &&
		keeper --json file apply-patch "$dir/patch" >"$dir/keeper.json"
		code=$?
		if test $code != 18 ||
			! test_error_code PATCH_FAILED "$dir/keeper.json" 2>/dev/null ||
			! cmp -s "$dir/stale" "$WS/$name"
		then
			echo >&2 "case $id (stale): keeper did not refuse it with PATCH_FAILED (exit $code):"
			cat >&2 "$dir/keeper.json"
			failed=$((failed + 1))
			continue
		fi
		echo "$id" >>"$TRASH/passed.stale"
	done &&
	test $failed = 0
'

# lines_in FILE...: how many lines the files of TRASH hold together (missing ones count 0).
lines_in () {
	(cd "$TRASH" && cat "$@" 2>/dev/null) | wc -l | tr -d " "
}
kinds="random start_end no_eol crlf narrow offset bom stray_cr"
generated=$(lines_in $(for k in $kinds stale; do echo "cases/$k.list"; done))
fresh=$(lines_in $(for k in $kinds; do echo "cases/$k.list"; done))
applied=$(lines_in $(for k in $kinds; do echo "passed.$k"; done))
git_applied=$(lines_in $(for k in $kinds; do echo "passed-git.$k"; done))
git_total=$(ls "$CASES"/*/git 2>/dev/null | wc -l | tr -d " ")
stale_total=$(lines_in cases/stale.list)
refused_both=$(lines_in passed.stale)
zero_total=$(lines_in cases/zero.list)
zero_applied=$(lines_in passed.zero)
zero_refused=$(lines_in refused.zero)

test_expect_success "summary (seed $PATCH_SEED): $applied of $fresh diff -u patches and $git_applied of $git_total git diff patches gave exactly NEW, $refused_both of $stale_total stale patches refused by keeper and GNU patch; of $zero_total diff -U0 patches $zero_applied gave exactly NEW and $zero_refused were refused" '
	test "$generated" -ge 150 &&
	test $((zero_applied + zero_refused)) = "$zero_total" &&
	test "$applied" = "$fresh" &&
	test "$git_applied" = "$git_total" &&
	test "$refused_both" = "$stale_total"
'

test_done
