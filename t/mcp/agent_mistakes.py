"""A corpus of the mistakes agents make when they edit, run through filekeeper-mcp.

usage: agent_mistakes.py WORK_DIR SOURCE_FILE... > results.jsonl

Each case is one edit an agent means to make to a real source file, made the way agents get it
wrong: from a stale view, with old text that is there twice, re-indented, with trailing
whitespace, with line numbers copied from a numbered read, with a line misremembered, with a
line range off by one, with a patch whose context, numbers or counts are wrong, with LF text
for a CRLF file, at a mistyped path, or at a path another writer moved since the read. Each
case knows the exact bytes the agent intended.

The scripted agent makes its first call, mistake included. If the reply is ok, the file must
be exactly the intended one: an ok with any other file is the worst defect, and the case is
marked `silent_wrong`. If the reply is a refusal, the agent makes one second call built only
from that reply and what it already knew (its read, its intention), never from a new read,
and the case records whether the file is then exactly the intended one. Every case runs in a
fresh workspace with history (a first write through the server), served by its own server.

Each output line: {"case", "family", "first": "ok"|CODE, "second": null|"ok"|CODE,
"silent_wrong": bool, "reached": bool (the intended file after at most two calls)}.
"""

import asyncio
import difflib
import json
import os
import random
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fkmcp  # noqa: E402

SEED = int(os.environ.get("MISTAKES_SEED", "20261201"))


# ---------------------------------------------------------------------------------------------
# The agent's tools: what it computes from its own view, the way agents do.


def unified_diff(path, old, new, context=3):
    """A unified diff the way `diff -u` (and an agent copying it) writes it."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="a/" + path,
        tofile="b/" + path,
        n=context,
    )
    return "".join(lines)


def hunk_ranges(patch):
    """Rewrites every `@@ -a,b +c,d @@` header with the counts its body really has."""
    out, header, body = [], None, []

    def flush():
        if header is None:
            return
        old = sum(1 for line in body if line[:1] in (" ", "-"))
        new = sum(1 for line in body if line[:1] in (" ", "+"))
        m = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)", header)
        out.append(f"@@ -{m.group(1)},{old} +{m.group(2)},{new} @@{m.group(3)}\n")
        out.extend(body)

    for line in patch.splitlines(keepends=True):
        if line.startswith("@@"):
            flush()
            header, body = line.rstrip("\n"), []
        elif header is None:
            out.append(line)
        else:
            body.append(line)
    flush()
    return "".join(out)


PREFIX_FORMS = {
    "tab": re.compile(r"^\s*\d+\t"),
    "arrow": re.compile(r"^\s*\d+→"),
    "pipe": re.compile(r"^\s*\d+ \| ?"),
    "colon": re.compile(r"^\s*\d+: ?"),
    "l_colon": re.compile(r"^L\d+: ?"),
}


def strip_prefixes(text, form):
    pattern = PREFIX_FORMS[form]
    return "".join(pattern.sub("", line, count=1) for line in text.splitlines(keepends=True))


def recover(call, reply, memory):
    """The agent's second call, from its first call, the refusal and what it knew.

    Returns (tool, arguments) or None when the refusal leaves it nothing to try without a
    new read.
    """
    tool, args = call
    error = reply["structured"]["error"]
    code, details = error["code"], error["details"]
    args = dict(args)
    if code == "CONTENT_CONFLICT" and "expected_found_at" in details:
        # The region it guarded has moved: edit it where it is now.
        places = details["expected_found_at"]
        if len(places) != 1:
            return None
        shift = places[0]["line"] - args["start"]
        args["start"] += shift
        args["end"] += shift
        return tool, args
    if code == "CONTENT_CONFLICT" and details.get("expected_hash") is not None:
        # Stale view: make the same change on the version it read, and let it merge.
        base = details["expected_hash"]
        if tool == "file_write":
            patch = unified_diff(args["path"], memory["view"], args["content"])
            return "file_apply_patch", {"patch": patch}
        args.pop("expected_hash")
        args["base_hash"] = base
        return tool, args
    if code == "MATCH_COUNT_MISMATCH" and details.get("matches"):
        # It knows the line it saw the text at.
        for number, match in enumerate(details["matches"], start=1):
            if match["line"] == memory["line"]:
                args["occurrence"] = number
                args.pop("expected_match_count", None)
                return tool, args
        return None
    if code == "NO_MATCH" and details.get("line_number_prefixes"):
        form = details["line_number_prefixes"]["form"]
        args["old"] = strip_prefixes(args["old"], form)
        args["new"] = strip_prefixes(args["new"], form)
        return tool, args
    if code == "NO_MATCH" and details.get("line_candidates"):
        # Take the file's line for each line of the old text it misremembered.
        old = args["old"].splitlines(keepends=True)
        for candidate in details["line_candidates"]:
            i = candidate["old_line"] - 1
            if 0 <= i < len(old) and old[i].rstrip("\r\n") != candidate["text"]:
                end = old[i][len(old[i].rstrip("\r\n")) :]
                old[i] = candidate["text"] + end
        args["old"] = "".join(old)
        return tool, args
    if code == "PATCH_FAILED" and details.get("mismatch"):
        mismatch = details["mismatch"]
        place = mismatch.get("best") or mismatch.get("stated")
        first = place and place.get("first_difference")
        if not first or first.get("actual") is None:
            return None
        expected, actual = first["expected"], first["actual"]
        lines = args["patch"].splitlines(keepends=True)
        for i, line in enumerate(lines):
            if line[:1] in (" ", "-") and line[1:].rstrip("\n") == expected:
                lines[i] = line[0] + actual + "\n"
                break
        else:
            return None
        args["patch"] = "".join(lines)
        return tool, args
    if code == "PATCH_FAILED":
        # Counts that do not match the body: count them again.
        fixed = hunk_ranges(args["patch"])
        if fixed == args["patch"]:
            return None
        args["patch"] = fixed
        return tool, args
    if code == "PATH_NOT_FOUND":
        moved = details.get("removed_by") or {}
        if moved.get("destination"):
            new_path = moved["destination"]
        elif details.get("similar_paths"):
            new_path = details["similar_paths"][0]
        elif details.get("same_name_elsewhere"):
            new_path = details["same_name_elsewhere"][0]
        else:
            return None
        key = "path" if "path" in args else None
        if key is None:
            return None
        args[key] = new_path
        return tool, args
    return None


# ---------------------------------------------------------------------------------------------
# The cases. Each family builds cases from a source file's lines and a random generator.


class Case:
    def __init__(self, name, family, files, call, intended, memory=None, world=None):
        self.name = name
        self.family = family
        self.files = files  # {path: bytes} before the agent reads
        self.call = call  # view -> (tool, arguments)
        self.intended = intended  # {path: bytes} the agent meant
        self.memory = memory or {}
        self.world = world  # async (session, root) -> None: another writer, after the read


def pick_line(rng, lines, avoid=()):
    """A line index of a distinctive (non-blank, unique, not too short) line."""
    counts = {}
    for line in lines:
        counts[line] = counts.get(line, 0) + 1
    choices = [
        i
        for i, line in enumerate(lines)
        if counts[line] == 1 and len(line.strip()) > 8 and i not in avoid
    ]
    return rng.choice(choices)


def join(lines):
    return "".join(lines).encode()


def families(rng, name, text):
    lines = text.splitlines(keepends=True)
    path = os.path.basename(name)
    files = {path: text.encode()}
    out = []

    # 1. Stale view before a whole-file write: lines were added at the top since the read.
    i = pick_line(rng, lines, avoid=range(3))
    mine = lines[:i] + ["# changed by the agent\n"] + lines[i + 1 :]
    theirs_top = ["# added by someone else\n"]

    async def world_top(s, root, path=path, top=theirs_top):
        with open(os.path.join(root, path), "rb") as f:
            now = f.read()
        with open(os.path.join(root, path), "wb") as f:
            f.write("".join(top).encode() + now)

    out.append(
        Case(
            f"{path}: stale whole-file write",
            "stale_write",
            files,
            lambda v, p=path, m="".join(mine): (
                "file_write",
                {"path": p, "content": m, "expected_hash": v["content_hash"]},
            ),
            {path: join(theirs_top + mine)},
            world=world_top,
        )
    )

    # 2. Stale view before a replace-text guarded by the file's hash.
    i = pick_line(rng, lines, avoid=range(3))
    old = lines[i].rstrip("\n")
    new = old + "  # edited"
    out.append(
        Case(
            f"{path}: stale guarded replace",
            "stale_replace",
            files,
            lambda v, p=path, o=old, n=new: (
                "file_replace_text",
                {"path": p, "old": o, "new": n, "policy": "first", "expected_hash": v["content_hash"]},
            ),
            {path: join(theirs_top + lines[:i] + [new + "\n"] + lines[i + 1 :])},
            world=world_top,
        )
    )

    # 3. Stale view before a line edit guarded by the file's hash.
    i = pick_line(rng, lines, avoid=range(3))
    out.append(
        Case(
            f"{path}: stale guarded line edit",
            "stale_line_edit",
            files,
            lambda v, p=path, n=i + 1: (
                "file_replace_lines",
                {"path": p, "start": n, "end": n, "replacement": "REPLACED\n", "expected_hash": v["content_hash"]},
            ),
            {path: join(theirs_top + lines[:i] + ["REPLACED\n"] + lines[i + 1 :])},
            world=world_top,
        )
    )

    # 4. Old text that is there twice, meant at the later occurrence.
    i = pick_line(rng, lines, avoid=range(2))
    dup = lines[:]
    dup.insert(i + 1, lines[i])  # the same line twice, as in repeated code
    target = i + 2  # the agent means the second one (1-based line i+2)
    files_dup = {path: join(dup)}
    old = lines[i].rstrip("\n")
    out.append(
        Case(
            f"{path}: ambiguous old text, later occurrence",
            "ambiguous",
            files_dup,
            lambda v, p=path, o=old: (
                "file_replace_text",
                {"path": p, "old": o, "new": o + " // second", "policy": "first"},
            ),
            {path: join(dup[: i + 1] + [old + " // second\n"] + dup[i + 2 :])},
            memory={"line": target},
        )
    )

    # 5. Wrong indentation: the agent's old and new text lost their indentation.
    indented = [k for k, line in enumerate(lines) if line.startswith(("    ", "\t")) and len(line.strip()) > 8]
    indented = [k for k in indented if lines.count(lines[k]) == 1 and k + 1 < len(lines) and lines[k + 1].strip()]
    if indented:
        k = rng.choice(indented)
        block = lines[k : k + 2]
        old = "".join(line.lstrip(" \t") for line in block)
        indent = block[0][: len(block[0]) - len(block[0].lstrip(" \t"))]
        new_first = block[0].lstrip(" \t").rstrip("\n") + "  # reindented\n"
        new = new_first + block[1].lstrip(" \t")
        intended_block = [indent + new_first] + [block[1]]
        out.append(
            Case(
                f"{path}: old text without its indentation",
                "indentation",
                files,
                lambda v, p=path, o=old, n=new: (
                    "file_replace_text",
                    {"path": p, "old": o, "new": n, "policy": "first"},
                ),
                {path: join(lines[:k] + intended_block + lines[k + 2 :])},
            )
        )

    # 6. Trailing whitespace the file does not have.
    i = pick_line(rng, lines)
    old = lines[i].rstrip("\n") + "   "
    new = lines[i].rstrip("\n") + " # ws"
    out.append(
        Case(
            f"{path}: trailing whitespace in the old text",
            "trailing_whitespace",
            files,
            lambda v, p=path, o=old, n=new: (
                "file_replace_text",
                {"path": p, "old": o, "new": n, "policy": "first"},
            ),
            {path: join(lines[:i] + [new + "\n"] + lines[i + 1 :])},
        )
    )

    # 7. Line-number prefixes copied from a numbered read.
    i = pick_line(rng, lines, avoid=range(1))
    form = rng.choice(["tab", "colon", "pipe"])
    fmt = {"tab": "{:>6}\t{}", "colon": "{}: {}", "pipe": "{:>4} | {}"}[form]
    old = fmt.format(i + 1, lines[i].rstrip("\n")) + "\n" + fmt.format(i + 2, lines[i + 1].rstrip("\n"))
    new = fmt.format(i + 1, lines[i].rstrip("\n") + " # numbered") + "\n" + fmt.format(
        i + 2, lines[i + 1].rstrip("\n")
    )
    out.append(
        Case(
            f"{path}: line-number prefixes in the old text ({form})",
            "line_prefixes",
            files,
            lambda v, p=path, o=old, n=new: (
                "file_replace_text",
                {"path": p, "old": o, "new": n, "policy": "first"},
            ),
            {path: join(lines[:i] + [lines[i].rstrip("\n") + " # numbered\n"] + lines[i + 1 :])},
        )
    )

    # 8. A misremembered line: the second of three old lines has a typo.
    i = pick_line(rng, lines, avoid=range(1))
    if i + 2 < len(lines) and len(lines[i + 1].strip()) > 3:
        block = lines[i : i + 3]
        wrong = block[1].rstrip("\n")
        wrong = wrong[:-1] + ("X" if not wrong.endswith("X") else "Y")
        old = block[0] + wrong + "\n" + block[2].rstrip("\n")
        new_block = [block[0].rstrip("\n") + " # remembered\n", block[1], block[2]]
        # Ends as old does: without the third line's newline only (a blank third line keeps
        # the second's).
        new = "".join(new_block[:2]) + block[2].rstrip("\n")
        out.append(
            Case(
                f"{path}: a misremembered line in the old text",
                "misremembered",
                files,
                lambda v, p=path, o=old, n=new: (
                    "file_replace_text",
                    {"path": p, "old": o, "new": n, "policy": "first"},
                ),
                {path: join(lines[:i] + new_block + lines[i + 3 :])},
            )
        )

    # 9. A line range off by one, guarded by its expected content.
    i = pick_line(rng, lines, avoid=range(2))
    out.append(
        Case(
            f"{path}: line range off by one, with a content guard",
            "off_by_one",
            files,
            lambda v, p=path, n=i + 1, e=lines[i]: (
                "file_replace_lines",
                {"path": p, "start": n + 1, "end": n + 1, "replacement": "FIXED\n", "expected_content": e},
            ),
            {path: join(lines[:i] + ["FIXED\n"] + lines[i + 1 :])},
        )
    )

    # 10. A patch with a wrong context line.
    i = pick_line(rng, lines, avoid=range(4))
    changed = lines[:i] + [lines[i].rstrip("\n") + " # patched\n"] + lines[i + 1 :]
    patch = unified_diff(path, text, "".join(changed))
    plines = patch.splitlines(keepends=True)
    contexts = [k for k, line in enumerate(plines) if line.startswith(" ") and len(line.strip()) > 3]
    if contexts:
        k = contexts[0]
        plines[k] = " " + plines[k][1:].rstrip("\n") + " (misremembered)\n"
        out.append(
            Case(
                f"{path}: a patch with a wrong context line",
                "patch_context",
                files,
                lambda v, pt="".join(plines): ("file_apply_patch", {"patch": pt}),
                {path: join(changed)},
            )
        )

    # 11. A patch with wrong @@ line numbers (the hunk is found nearby).
    i = pick_line(rng, lines, avoid=range(12))
    changed = lines[:i] + [lines[i].rstrip("\n") + " # renumbered\n"] + lines[i + 1 :]
    patch = unified_diff(path, text, "".join(changed))
    patch = re.sub(r"@@ -(\d+)", lambda m: "@@ -" + str(max(1, int(m.group(1)) - 7)), patch, count=1)
    patch = re.sub(r"\+(\d+)(,\d+)? @@", lambda m: "+" + str(max(1, int(m.group(1)) - 7)) + (m.group(2) or "") + " @@", patch, count=1)
    out.append(
        Case(
            f"{path}: a patch with wrong @@ numbers",
            "patch_numbers",
            files,
            lambda v, pt=patch: ("file_apply_patch", {"patch": pt}),
            {path: join(changed)},
        )
    )

    # 12. A patch whose hunk header miscounts its lines.
    i = pick_line(rng, lines, avoid=range(4))
    changed = lines[:i] + [lines[i], "# one more line\n"] + lines[i + 1 :]
    patch = unified_diff(path, text, "".join(changed))
    patch = re.sub(r"\+(\d+),(\d+) @@", lambda m: f"+{m.group(1)},{int(m.group(2)) - 1} @@", patch, count=1)
    out.append(
        Case(
            f"{path}: a hunk header that miscounts",
            "patch_counts",
            files,
            lambda v, pt=patch: ("file_apply_patch", {"patch": pt}),
            {path: join(changed)},
        )
    )

    # 13. LF text for a CRLF file.
    crlf = [line.rstrip("\n") + "\r\n" for line in lines]
    i = pick_line(rng, lines)
    old = lines[i].rstrip("\n") + "\n" + lines[i + 1].rstrip("\n") if i + 1 < len(lines) else lines[i].rstrip("\n")
    new = old.replace(lines[i].rstrip("\n"), lines[i].rstrip("\n") + " # crlf", 1)
    intended = crlf[:i] + [lines[i].rstrip("\n") + " # crlf\r\n"] + crlf[i + 1 :]
    out.append(
        Case(
            f"{path}: LF text for a CRLF file",
            "crlf",
            {path: join(crlf)},
            lambda v, p=path, o=old, n=new: (
                "file_replace_text",
                {"path": p, "old": o, "new": n, "policy": "first"},
            ),
            {path: join(intended)},
        )
    )

    # 14. A mistyped path.
    stem, ext = os.path.splitext(path)
    typo = stem[:-1] + stem[-1] * 2 + ext if len(stem) > 2 else "x" + path
    i = pick_line(rng, lines)
    out.append(
        Case(
            f"{path}: a mistyped path",
            "typo_path",
            files,
            lambda v, t=typo, o=lines[i].rstrip("\n"): (
                "file_replace_text",
                {"path": t, "old": o, "new": o + " # found", "policy": "first"},
            ),
            {path: join(lines[:i] + [lines[i].rstrip("\n") + " # found\n"] + lines[i + 1 :])},
        )
    )

    # 15. The file was moved (through Filekeeper) since the read.
    moved = "moved/" + path
    i = pick_line(rng, lines)

    async def world_move(s, root, path=path, moved=moved):
        reply = await fkmcp.call(s, "directory_create", {"path": "moved"})
        assert not reply["is_error"], reply
        reply = await fkmcp.call(s, "file_move", {"source": path, "destination": moved})
        assert not reply["is_error"], reply

    out.append(
        Case(
            f"{path}: moved since the read",
            "moved",
            files,
            lambda v, p=path, o=lines[i].rstrip("\n"): (
                "file_replace_text",
                {"path": p, "old": o, "new": o + " # followed", "policy": "first"},
            ),
            {moved: join(lines[:i] + [lines[i].rstrip("\n") + " # followed\n"] + lines[i + 1 :])},
            world=world_move,
        )
    )
    return out


# ---------------------------------------------------------------------------------------------
# Running a case.


def snapshot_of(root, paths):
    out = {}
    for p in paths:
        full = os.path.join(root, p)
        out[p] = open(full, "rb").read() if os.path.exists(full) else None
    return out


async def run(case, root):
    os.makedirs(root)
    for p, data in case.files.items():
        full = os.path.join(root, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
    async with fkmcp.session(root) as s:
        # A workspace in use has history: one write through the server first.
        seeded = await fkmcp.call(s, "file_create", {"path": "NOTES.txt", "content": "in use\n"})
        assert not seeded["is_error"], seeded
        source = next(iter(case.files))
        view = (await fkmcp.call(s, "file_read", {"path": source}))["structured"]
        assert view["ok"], view
        case.memory["view"] = view["content"]
        if case.world:
            await case.world(s, root)
        call = case.call(view)
        first = await fkmcp.call(s, call[0], call[1])
        result = {"case": case.name, "family": case.family, "second": None}
        paths = list(case.intended)
        if not first["is_error"]:
            result["first"] = "ok"
            reached = snapshot_of(root, paths) == case.intended
            result["silent_wrong"] = not reached
            result["reached"] = reached
            return result
        result["first"] = first["structured"]["error"]["code"]
        result["silent_wrong"] = False
        second_call = recover(call, first, case.memory)
        if second_call is None:
            result["reached"] = False
            return result
        second = await fkmcp.call(s, second_call[0], second_call[1])
        result["second"] = "ok" if not second["is_error"] else second["structured"]["error"]["code"]
        result["reached"] = (not second["is_error"]) and snapshot_of(root, paths) == case.intended
        if not second["is_error"] and not result["reached"]:
            # A second call that answers ok with another file is as wrong as a first.
            result["silent_wrong"] = True
            print(f"{case.name}: first call {json.dumps(call[1])[:2000]}", file=sys.stderr)
            print(f"refusal details {json.dumps(first['structured']['error']['details'])[:3000]}", file=sys.stderr)
            print(f"second call {json.dumps(second_call[1])[:2000]}", file=sys.stderr)
        return result


async def main():
    work, sources = sys.argv[1], sys.argv[2:]
    rng = random.Random(SEED)
    cases = []
    for source in sources:
        with open(source, encoding="utf-8") as f:
            cases.extend(families(rng, source, f.read()))
    for n, case in enumerate(cases):
        result = await run(case, os.path.join(work, f"case-{n:03d}"))
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
