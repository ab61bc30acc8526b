"""Parity: the same request through the Python API, `keeper --json` and `filekeeper-mcp`.

Every request of the tables below runs once through each surface. Reads run on one shared
workspace (whose history was made through all three surfaces) and must agree exactly; each
mutation runs on three fresh, identical workspaces, one per surface, and must agree once
operation ids and timestamps are set aside, and must leave the three trees and histories the
same. For a failure the code, `retryable` and `details` must agree; only the message may
differ, and then only where it names the surface's own spelling of an argument.

The CLI is driven with subprocess; every spelling it is given (subcommands and flags) is checked
against `keeper ... --help` before it runs, so a renamed command fails here as a missing
spelling rather than as a confusing usage error. The MCP server is driven over its stdin and
stdout with newline-delimited JSON-RPC 2.0, without an SDK.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp_client import TIMEOUT, McpServer

from filekeeper import Filekeeper, FilekeeperError, ReadResult, Workspace

Doc = dict[str, Any]

WORKSPACE = "notes"
ZERO_HASH = "sha256:" + "0" * 64

NOTES = "alpha\nbeta\ngamma\n"
MAIN_RS = 'fn main() {\n    println!("hi");\n}\n'
README = "# Read me\n"
STORY = "one\ntwo\nthree\nfour\n"
STORY_HASH = "sha256:" + hashlib.sha256(STORY.encode()).hexdigest()
# MAIN_RS's lines with two spaces of indentation where the file has four: no exact match.
MAIN_RS_OLD = 'fn main() {\n  println!("hi");\n}\n'
MAIN_RS_NEW = 'fn main() {\n  println!("hello");\n}\n'

PATCH = """\
--- a/notes.txt
+++ b/notes.txt
@@ -1,3 +1,3 @@
 alpha
-beta
+BETA
 gamma
--- a/src/main.rs
+++ b/src/main.rs
@@ -1,3 +1,3 @@
 fn main() {
-    println!("hi");
+    println!("hello");
 }
"""
# The same patch, with a context line that is not in notes.txt.
STALE_PATCH = PATCH.replace("-beta", "-BETA")
# The same change as a Codex patch, and one whose lines occur nowhere.
CODEX_PATCH = """\
*** Begin Patch
*** Update File: notes.txt
@@
 alpha
-beta
+BETA
*** Update File: src/main.rs
@@ fn main() {
-    println!("hi");
+    println!("hello");
*** End Patch
"""
CODEX_STALE_PATCH = CODEX_PATCH.replace("-beta", "-BETA")
# A patch of story.txt made on the version in the store, before "zero" was added on top.
STORY_PATCH = """\
--- a/story.txt
+++ b/story.txt
@@ -2,3 +2,3 @@
 two
-three
+THREE
 four
"""

# Each surface's spelling of the override of a credential-shaped write.
OVERRIDE = {
    "python": "allow_sensitive_write=True",
    "cli": "--i-accept-secret-write-risk",
    "mcp": "i_accept_secret_write_risk",
}


# ---------------------------------------------------------------------------------------------
# The CLI, its spellings checked against its own --help.


@functools.cache
def keeper_help(keeper: str, words: tuple[str, ...]) -> tuple[frozenset[str], dict[str, bool]]:
    """The subcommands `keeper WORDS --help` lists, and its option flags, each with whether
    it takes a value."""
    shown = subprocess.run(
        [keeper, *words, "--help"], capture_output=True, text=True, timeout=TIMEOUT, check=True
    ).stdout
    commands: set[str] = set()
    flags: dict[str, bool] = {}
    section = ""
    for line in shown.splitlines():
        if re.match(r"^[A-Z][A-Za-z ]*:$", line):
            section = line[:-1]
            continue
        if section == "Commands":
            command = re.match(r"^  ([a-z][a-z0-9-]*)(?:\s|$)", line)
            if command:
                commands.add(command.group(1))
        elif section == "Options":
            flag = re.match(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)( <)?", line)
            if flag:
                flags[flag.group(1)] = flag.group(2) is not None
    return frozenset(commands), flags


def check_spelling(keeper: Path, argv: list[str]) -> None:
    """Fails unless every subcommand and flag of `argv` appears in the --help of the command
    it belongs to, so every spelling used here is one the CLI itself documents."""
    words: list[str] = []
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        commands, flags = keeper_help(str(keeper), tuple(words))
        where = " ".join(["keeper", *words, "--help"])
        if word.startswith("--"):
            assert word in flags, f"`{where}` lists no {word}"
            if flags[word]:
                rest.pop(0)
        elif commands:
            assert word in commands, f"`{where}` lists no command {word!r}"
            words.append(word)
    assert not keeper_help(str(keeper), tuple(words))[0], f"no command after {words}"


def run_keeper(bin_dir: Path, selection: list[str], argv: list[str]) -> Doc:
    """`keeper --json SELECTION ARGV`: the one JSON document it prints, checked against its
    exit status (0 exactly when ok, but for find-up's 3 when nothing was found)."""
    keeper = bin_dir / "keeper"
    check_spelling(keeper, [*selection, *argv])
    env = {k: v for k, v in os.environ.items() if k != "FILEKEEPER_HOME"}
    done = subprocess.run(
        [str(keeper), "--json", *selection, *argv],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env=env,
        check=False,
    )
    assert done.stdout.count("\n") == 1, f"not one document: {done.stdout!r} {done.stderr!r}"
    document: Doc = json.loads(done.stdout)
    assert isinstance(document.get("ok"), bool), document
    # find-up is a shell predicate, as file exists is: exit 3 when nothing was found.
    not_found = document["ok"] and document.get("found") is False and done.returncode == 3
    assert (done.returncode == 0) == document["ok"] or not_found, (done.returncode, document)
    return document


# ---------------------------------------------------------------------------------------------
# The MCP server, spoken to directly.


@contextmanager
def mcp_server(bin_dir: Path, home: Path, *extra: str) -> Iterator[McpServer]:
    """`filekeeper-mcp --home HOME --workspace notes EXTRA`, initialized."""
    argv = [str(bin_dir / "filekeeper-mcp"), "--home", str(home), "--workspace", WORKSPACE]
    server = McpServer([*argv, *extra], stderr=home.parent / "mcp-stderr.log")
    try:
        server.initialize()
        yield server
    finally:
        server.close()


# ---------------------------------------------------------------------------------------------
# The three surfaces' documents, side by side.


def python_document(call: Callable[[], Doc]) -> Doc:
    """A Python call as the envelope the other surfaces print, `workspace` left out."""
    try:
        fields = call()
    except FilekeeperError as error:
        body: Doc = {
            "code": error.code,
            "message": error.message,
            "retryable": error.retryable,
            "details": error.details,
        }
    else:
        assert "ok" not in fields
        assert "workspace" not in fields
        return {"ok": True, **fields}
    assert isinstance(body["code"], str)
    assert isinstance(body["message"], str)
    assert isinstance(body["retryable"], bool)
    assert isinstance(body["details"], dict)
    return {"ok": False, "error": body}


def without_workspace(document: Doc, expected: str | None = WORKSPACE) -> Doc:
    """The document without `workspace`, which a success must carry (as the selection)."""
    if not document["ok"]:
        assert set(document) == {"ok", "error"}, document
        assert set(document["error"]) == {"code", "message", "retryable", "details"}, document
        return document
    assert document["workspace"] == expected, document
    return {k: v for k, v in document.items() if k != "workspace"}


def outcome(document: Doc) -> str:
    return "ok" if document["ok"] else str(document["error"]["code"])


def error_core(document: Doc) -> Doc:
    """A failure's facts that every surface must share: all but the message."""
    error: Doc = document["error"]
    return {"code": error["code"], "retryable": error["retryable"], "details": error["details"]}


OP_ID = re.compile(r"op_[0-9a-f]{16}")
VOLATILE = frozenset({"created_at", "updated_at", "modified"})


def masked(value: Any, sequence: dict[str, int]) -> Any:
    """VALUE with every operation id replaced by its sequence number in its own workspace
    (ids are new per workspace) and every timestamp by a placeholder."""
    if isinstance(value, dict):
        return {
            key: ("<time>" if key in VOLATILE and item is not None else masked(item, sequence))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [masked(item, sequence) for item in value]
    if isinstance(value, str):
        return OP_ID.sub(lambda m: f"op_<seq {sequence.get(m.group(0), '?')}>", value)
    return value


def assert_same(documents: dict[str, Doc], compare: Callable[[Doc], Any]) -> None:
    """Every surface's COMPARE(document) equals the Python surface's, surface by surface."""
    python = compare(documents["python"])
    for surface in ("cli", "mcp"):
        assert compare(documents[surface]) == python, f"{surface} differs from python"


# ---------------------------------------------------------------------------------------------
# Workspaces.


@dataclass
class Tree:
    """A home with the workspace `notes` registered on a template tree, with history."""

    base: Path
    home: Path
    root: Path
    workspace: Workspace
    seed_op: str

    def history(self) -> list[Doc]:
        return [entry.to_dict() for entry in self.workspace.list_history(limit=200)]

    def sequence(self) -> dict[str, int]:
        return {entry["id"]: entry["seq"] for entry in self.history()}

    def files(self) -> dict[str, bytes]:
        """Every file below the root but the state directory, by relative path."""
        found: dict[str, bytes] = {}
        for path in sorted(self.root.rglob("*")):
            relative = path.relative_to(self.root)
            if relative.parts[0] == ".filekeeper" or not path.is_file():
                continue
            found[relative.as_posix()] = path.read_bytes()
        return found


def make_tree(base: Path, home: Path | None = None, root: Path | None = None) -> Tree:
    home = home or base / "home"
    root = root or base / WORKSPACE
    root.mkdir(parents=True, exist_ok=True)
    (root / "src").mkdir()
    (root / "docs").mkdir()
    (root / "notes.txt").write_text(NOTES)
    (root / "src" / "main.rs").write_text(MAIN_RS)
    (root / "docs" / "readme.md").write_text(README)
    app = Filekeeper(home=home)
    app.init()
    if WORKSPACE not in [record.name for record in app.list_workspaces()]:
        app.create_workspace(WORKSPACE, root)
    workspace = app.workspace(name=WORKSPACE)
    # A version in the store, and the file changed on disk since: for edits on a snapshot.
    workspace.write_file("story.txt", STORY, actor="py-seed")
    (root / "story.txt").write_text("zero\n" + STORY)
    seeded = workspace.write_file("log.txt", "v1\n", actor="py-seed", task_id="T-1")
    assert seeded.operation_id is not None
    return Tree(base, home, root, workspace, seeded.operation_id)


@pytest.fixture
def shared(tmp_path: Path, home: Path, root: Path, ws: Workspace, bin_dir: Path) -> Tree:
    """The conftest workspace, filled with the template and a history made by all three
    surfaces: one write each, under its own actor."""
    tree = make_tree(tmp_path, home, root)
    assert tree.workspace.name == ws.name == WORKSPACE
    by_cli = run_keeper(
        bin_dir,
        ["--home", str(home), "--workspace", WORKSPACE, "--actor", "cli-seed"],
        ["file", "write", "log.txt", "--content", "v2\n"],
    )
    assert by_cli["ok"], by_cli
    with mcp_server(bin_dir, home, "--actor", "mcp-seed", "--task-id", "T-2") as server:
        by_mcp = server.call("file_write", {"path": "docs/readme.md", "content": "# Read\n"})
    assert by_mcp["ok"], by_mcp
    return tree


# ---------------------------------------------------------------------------------------------
# The requests.


@dataclass(frozen=True)
class Request:
    """One request in each surface's words. EXPECT is "ok" or the error code."""

    name: str
    expect: str
    python: Callable[[Workspace, Tree], Doc]
    cli: Callable[[Tree], list[str]]
    tool: str
    arguments: Callable[[Tree], Doc]


def cursor(page: Any) -> str:
    """A truncated page's next_cursor."""
    token = page.next_cursor
    assert isinstance(token, str), page
    return token


def list_cursor(t: Tree) -> str:
    return cursor(t.workspace.list_directory(".", recursive=True, max_entries=2))


def search_cursor(t: Tree) -> str:
    return cursor(t.workspace.search_files(".", "*", max_results=2))


def grep_cursor(t: Tree) -> str:
    return cursor(t.workspace.search_content(".", "a", max_results=1))


def history_cursor(t: Tree) -> str:
    return cursor(t.workspace.list_history(limit=1))


def operations(page: Any) -> Doc:
    """Python's history page, as the other surfaces' document."""
    return dict(page.to_dict())


def newest(tree: Tree, actor: str) -> str:
    """The id of ACTOR's newest operation in TREE."""
    return str(tree.workspace.list_history(actor=actor, limit=1)[0].id)


def read_many(ws: Workspace, paths: list[str]) -> Doc:
    """Python's list of reads and failures, as the `results` of the other surfaces' document,
    where each item carries its own `ok`."""
    results = ws.read_many(paths, start_line=1, end_line=2)
    return {"results": [{"ok": isinstance(r, ReadResult), **r.to_dict()} for r in results]}


READS = [
    Request(
        "read many, one missing, one outside",
        "ok",
        lambda ws, t: read_many(ws, ["notes.txt", "missing.txt", "../x"]),
        lambda t: [
            "file",
            "read-many",
            "notes.txt",
            "missing.txt",
            "../x",
            "--from-line",
            "1",
            "--to-line",
            "2",
        ],
        "file_read_many",
        lambda t: {"paths": ["notes.txt", "missing.txt", "../x"], "from_line": 1, "to_line": 2},
    ),
    Request(
        "read a line range",
        "ok",
        lambda ws, t: ws.read_file("notes.txt", start_line=2, end_line=3).to_dict(),
        lambda t: ["file", "read", "notes.txt", "--from-line", "2", "--to-line", "3"],
        "file_read",
        lambda t: {"path": "notes.txt", "from_line": 2, "to_line": 3, "snapshot": False},
    ),
    # The MCP server snapshots reads by default in a workspace with history (docs/decisions.md);
    # the rows above ask every surface for the same thing explicitly.
    Request(
        "read with a snapshot",
        "ok",
        lambda ws, t: ws.read_file("notes.txt", snapshot=True).to_dict(),
        lambda t: ["file", "read", "notes.txt", "--snapshot"],
        "file_read",
        lambda t: {"path": "notes.txt", "snapshot": True},
    ),
    Request(
        "read with a line bound",
        "ok",
        lambda ws, t: ws.read_file("src/main.rs", max_lines=1).to_dict(),
        lambda t: ["file", "read", "src/main.rs", "--max-lines", "1"],
        "file_read",
        lambda t: {"path": "src/main.rs", "max_lines": 1, "snapshot": False},
    ),
    Request(
        "read a whole file",
        "ok",
        lambda ws, t: ws.read_file("src/main.rs").to_dict(),
        lambda t: ["file", "read", "src/main.rs"],
        "file_read",
        lambda t: {"path": "src/main.rs", "snapshot": False},
    ),
    Request(
        "read a missing file",
        "PATH_NOT_FOUND",
        lambda ws, t: ws.read_file("missing.txt").to_dict(),
        lambda t: ["file", "read", "missing.txt"],
        "file_read",
        lambda t: {"path": "missing.txt", "snapshot": False},
    ),
    Request(
        "read a range beyond the end",
        "INVALID_ARGUMENT",
        lambda ws, t: ws.read_file("notes.txt", start_line=2, end_line=9).to_dict(),
        lambda t: ["file", "read", "notes.txt", "--from-line", "2", "--to-line", "9"],
        "file_read",
        lambda t: {"path": "notes.txt", "from_line": 2, "to_line": 9, "snapshot": False},
    ),
    Request(
        "read outside the workspace",
        "PATH_OUTSIDE_WORKSPACE",
        lambda ws, t: ws.read_file("src/../../x.txt").to_dict(),
        lambda t: ["file", "read", "src/../../x.txt"],
        "file_read",
        lambda t: {"path": "src/../../x.txt", "snapshot": False},
    ),
    Request(
        "list the root",
        "ok",
        lambda ws, t: ws.list_directory().to_dict(),
        lambda t: ["file", "list"],
        "directory_list",
        lambda t: {},
    ),
    Request(
        "list recursively with a glob",
        "ok",
        lambda ws, t: ws.list_directory(".", recursive=True, glob="*.md").to_dict(),
        lambda t: ["file", "list", ".", "--recursive", "--glob", "*.md"],
        "directory_list",
        lambda t: {"path": ".", "recursive": True, "glob": "*.md"},
    ),
    Request(
        "list a file",
        "NOT_A_DIRECTORY",
        lambda ws, t: ws.list_directory("notes.txt").to_dict(),
        lambda t: ["file", "list", "notes.txt"],
        "directory_list",
        lambda t: {"path": "notes.txt"},
    ),
    Request(
        "file info",
        "ok",
        lambda ws, t: ws.file_info("notes.txt").to_dict(),
        lambda t: ["file", "info", "notes.txt"],
        "file_info",
        lambda t: {"path": "notes.txt"},
    ),
    Request(
        "search content",
        "ok",
        lambda ws, t: ws.search_content(".", "BETA", ignore_case=True).to_dict(),
        lambda t: ["file", "grep", ".", "BETA", "--ignore-case"],
        "content_search",
        lambda t: {"path": ".", "query": "BETA", "ignore_case": True},
    ),
    Request(
        "history list",
        "ok",
        lambda ws, t: operations(ws.list_history()),
        lambda t: ["history", "list"],
        "history_list",
        lambda t: {},
    ),
    Request(
        "workspace status",
        "ok",
        lambda ws, t: ws.status().to_dict(),
        lambda t: ["status"],
        "workspace_status",
        lambda t: {},
    ),
    Request(
        "history list, limited, by path",
        "ok",
        lambda ws, t: operations(ws.list_history(path="log.txt", limit=1)),
        lambda t: ["history", "list", "--path", "log.txt", "--limit", "1"],
        "history_list",
        lambda t: {"path": "log.txt", "limit": 1},
    ),
    Request(
        "history list by task id",
        "ok",
        lambda ws, t: operations(ws.list_history(task_id="T-2")),
        lambda t: ["--task-id", "T-2", "history", "list"],
        "history_list",
        lambda t: {"task_id": "T-2"},
    ),
    Request(
        "list, the next page through a cursor",
        "ok",
        lambda ws, t: ws.list_directory(
            ".", recursive=True, max_entries=2, cursor=list_cursor(t)
        ).to_dict(),
        lambda t: [
            *["file", "list", ".", "--recursive", "--max-entries", "2"],
            *["--cursor", list_cursor(t)],
        ],
        "directory_list",
        lambda t: {"path": ".", "recursive": True, "max_entries": 2, "cursor": list_cursor(t)},
    ),
    Request(
        "search files, the next page through a cursor",
        "ok",
        lambda ws, t: ws.search_files(".", "*", max_results=2, cursor=search_cursor(t)).to_dict(),
        lambda t: ["file", "search", ".", "*", "--max-results", "2", "--cursor", search_cursor(t)],
        "file_search",
        lambda t: {"path": ".", "pattern": "*", "max_results": 2, "cursor": search_cursor(t)},
    ),
    Request(
        "search content, the next page through a cursor",
        "ok",
        lambda ws, t: ws.search_content(".", "a", max_results=1, cursor=grep_cursor(t)).to_dict(),
        lambda t: ["file", "grep", ".", "a", "--max-results", "1", "--cursor", grep_cursor(t)],
        "content_search",
        lambda t: {"path": ".", "query": "a", "max_results": 1, "cursor": grep_cursor(t)},
    ),
    Request(
        "history list, the next page through a cursor",
        "ok",
        lambda ws, t: operations(ws.list_history(limit=1, cursor=history_cursor(t))),
        lambda t: ["history", "list", "--limit", "1", "--cursor", history_cursor(t)],
        "history_list",
        lambda t: {"limit": 1, "cursor": history_cursor(t)},
    ),
    Request(
        "history get of the Python write",
        "ok",
        lambda ws, t: ws.get_operation(t.seed_op).to_dict(),
        lambda t: ["history", "show", t.seed_op],
        "history_get",
        lambda t: {"operation_id": t.seed_op},
    ),
    Request(
        "history get of the CLI write",
        "ok",
        lambda ws, t: ws.get_operation(newest(t, "cli-seed")).to_dict(),
        lambda t: ["history", "show", newest(t, "cli-seed")],
        "history_get",
        lambda t: {"operation_id": newest(t, "cli-seed")},
    ),
    Request(
        "history diff of the CLI write",
        "ok",
        lambda ws, t: ws.diff_operation(newest(t, "cli-seed")).to_dict(),
        lambda t: ["history", "diff", newest(t, "cli-seed")],
        "history_diff",
        lambda t: {"operation_id": newest(t, "cli-seed")},
    ),
    Request(
        "history diff of the MCP write",
        "ok",
        lambda ws, t: ws.diff_operation(newest(t, "mcp-seed")).to_dict(),
        lambda t: ["history", "diff", newest(t, "mcp-seed")],
        "history_diff",
        lambda t: {"operation_id": newest(t, "mcp-seed")},
    ),
    Request(
        "find up a file",
        "ok",
        lambda ws, t: ws.find_up("src/main.rs", "notes.txt").to_dict(),
        lambda t: ["file", "find-up", "src/main.rs", "notes.txt"],
        "file_find_up",
        lambda t: {"path": "src/main.rs", "name": "notes.txt"},
    ),
    Request(
        "find up, nothing found",
        "ok",
        lambda ws, t: ws.find_up("docs", "absent.cfg").to_dict(),
        lambda t: ["file", "find-up", "docs", "absent.cfg"],
        "file_find_up",
        lambda t: {"path": "docs", "name": "absent.cfg"},
    ),
    Request(
        "find up a name with a /",
        "INVALID_ARGUMENT",
        lambda ws, t: ws.find_up("docs", "src/main.rs").to_dict(),
        lambda t: ["file", "find-up", "docs", "src/main.rs"],
        "file_find_up",
        lambda t: {"path": "docs", "name": "src/main.rs"},
    ),
    Request(
        "diff two files",
        "ok",
        lambda ws, t: ws.diff_files("notes.txt", "story.txt").to_dict(),
        lambda t: ["file", "diff", "notes.txt", "story.txt"],
        "file_diff",
        lambda t: {"path": "notes.txt", "other": "story.txt"},
    ),
    Request(
        "diff cut at max_bytes",
        "ok",
        lambda ws, t: ws.diff_files("notes.txt", "story.txt", max_bytes=50).to_dict(),
        lambda t: ["file", "diff", "notes.txt", "story.txt", "--max-bytes", "50"],
        "file_diff",
        lambda t: {"path": "notes.txt", "other": "story.txt", "max_bytes": 50},
    ),
    Request(
        "diff a directory",
        "NOT_A_FILE",
        lambda ws, t: ws.diff_files("docs", "notes.txt").to_dict(),
        lambda t: ["file", "diff", "docs", "notes.txt"],
        "file_diff",
        lambda t: {"path": "docs", "other": "notes.txt"},
    ),
    Request(
        "read bytes",
        "ok",
        lambda ws, t: ws.read_bytes("notes.txt", offset=2, length=5).to_dict(),
        lambda t: ["file", "read-bytes", "notes.txt", "--offset", "2", "--length", "5"],
        "file_read_bytes",
        lambda t: {"path": "notes.txt", "offset": 2, "length": 5},
    ),
    Request(
        "read bytes beyond the end",
        "INVALID_ARGUMENT",
        lambda ws, t: ws.read_bytes("notes.txt", offset=99).to_dict(),
        lambda t: ["file", "read-bytes", "notes.txt", "--offset", "99"],
        "file_read_bytes",
        lambda t: {"path": "notes.txt", "offset": 99},
    ),
    Request(
        "history get of an unknown operation",
        "OPERATION_NOT_FOUND",
        lambda ws, t: ws.get_operation("op_0123456789abcdef").to_dict(),
        lambda t: ["history", "show", "op_0123456789abcdef"],
        "history_get",
        lambda t: {"operation_id": "op_0123456789abcdef"},
    ),
]


def patch_file(tree: Tree, patch: str) -> str:
    """PATCH in a file beside (not inside) the workspace, for the CLI."""
    path = tree.base / "change.patch"
    path.write_text(patch)
    return str(path)


def notes_hash(tree: Tree) -> str:
    return tree.workspace.hash_file("notes.txt").hash


MUTATIONS = [
    Request(
        "replace lines on a snapshot, merged below a line inserted since",
        "ok",
        lambda ws, t: ws.replace_lines(
            "story.txt", 3, 3, "THREE\n", base_hash=STORY_HASH
        ).to_dict(),
        lambda t: [
            "file",
            "replace-lines",
            "story.txt",
            "--start",
            "3",
            "--end",
            "3",
            "--replacement",
            "THREE\n",
            "--base",
            STORY_HASH,
        ],
        "file_replace_lines",
        lambda t: {
            "path": "story.txt",
            "start": 3,
            "end": 3,
            "replacement": "THREE\n",
            "base_hash": STORY_HASH,
        },
    ),
    Request(
        "delete lines on a snapshot, next to a line inserted since",
        "CONTENT_CONFLICT",
        lambda ws, t: ws.delete_lines("story.txt", 1, 1, base_hash=STORY_HASH).to_dict(),
        lambda t: [
            "file",
            "delete-lines",
            "story.txt",
            "--start",
            "1",
            "--end",
            "1",
            "--base",
            STORY_HASH,
        ],
        "file_delete_lines",
        lambda t: {"path": "story.txt", "start": 1, "end": 1, "base_hash": STORY_HASH},
    ),
    Request(
        "write guarded by the current hash",
        "ok",
        lambda ws, t: ws.write_file("notes.txt", "v2\n", expected_hash=notes_hash(t)).to_dict(),
        lambda t: [
            "file",
            "write",
            "notes.txt",
            "--content",
            "v2\n",
            "--expected-hash",
            notes_hash(t),
        ],
        "file_write",
        lambda t: {"path": "notes.txt", "content": "v2\n", "expected_hash": notes_hash(t)},
    ),
    Request(
        "write guarded by a stale hash",
        "CONTENT_CONFLICT",
        lambda ws, t: ws.write_file("notes.txt", "x\n", expected_hash=ZERO_HASH).to_dict(),
        lambda t: ["file", "write", "notes.txt", "--content", "x\n", "--expected-hash", ZERO_HASH],
        "file_write",
        lambda t: {"path": "notes.txt", "content": "x\n", "expected_hash": ZERO_HASH},
    ),
    Request(
        "write a credential-shaped path",
        "SENSITIVE_PATH_REFUSED",
        lambda ws, t: ws.write_file(".ssh/id_rsa", "k\n").to_dict(),
        lambda t: ["file", "write", ".ssh/id_rsa", "--content", "k\n"],
        "file_write",
        lambda t: {"path": ".ssh/id_rsa", "content": "k\n"},
    ),
    Request(
        "write a credential-shaped path with the override",
        "ok",
        lambda ws, t: ws.write_file(".env", "K=1\n", allow_sensitive_write=True).to_dict(),
        lambda t: ["file", "write", ".env", "--content", "K=1\n", "--i-accept-secret-write-risk"],
        "file_write",
        lambda t: {"path": ".env", "content": "K=1\n", "i_accept_secret_write_risk": True},
    ),
    Request(
        "dry run of a write",
        "ok",
        lambda ws, t: ws.write_file("notes.txt", "dry\n", dry_run=True).to_dict(),
        lambda t: ["file", "write", "notes.txt", "--content", "dry\n", "--dry-run"],
        "file_write",
        lambda t: {"path": "notes.txt", "content": "dry\n", "dry_run": True},
    ),
    Request(
        "replace text, exact",
        "ok",
        lambda ws, t: ws.replace_text("notes.txt", "beta", "BETA").to_dict(),
        lambda t: [
            "file",
            "replace-text",
            "notes.txt",
            "--old",
            "beta",
            "--new",
            "BETA",
            "--first",
        ],
        "file_replace_text",
        lambda t: {"path": "notes.txt", "old": "beta", "new": "BETA", "policy": "first"},
    ),
    Request(
        "replace text, indentation normalised",
        "ok",
        lambda ws, t: ws.replace_text("src/main.rs", MAIN_RS_OLD, MAIN_RS_NEW).to_dict(),
        lambda t: [
            "file",
            "replace-text",
            "src/main.rs",
            "--old",
            MAIN_RS_OLD,
            "--new",
            MAIN_RS_NEW,
            "--first",
        ],
        "file_replace_text",
        lambda t: {
            "path": "src/main.rs",
            "old": MAIN_RS_OLD,
            "new": MAIN_RS_NEW,
            "policy": "first",
        },
    ),
    Request(
        "replace text, one chosen occurrence",
        "ok",
        lambda ws, t: ws.replace_text("notes.txt", "a", "A", occurrence=3).to_dict(),
        lambda t: [
            "file",
            "replace-text",
            "notes.txt",
            "--old",
            "a",
            "--new",
            "A",
            "--occurrence",
            "3",
        ],
        "file_replace_text",
        lambda t: {
            "path": "notes.txt",
            "old": "a",
            "new": "A",
            "policy": "first",
            "occurrence": 3,
        },
    ),
    Request(
        "replace text, all, with the expected count",
        "ok",
        lambda ws, t: ws.replace_text(
            "notes.txt", "a", "A", policy="all", expected_match_count=5
        ).to_dict(),
        lambda t: [
            "file",
            "replace-text",
            "notes.txt",
            "--old",
            "a",
            "--new",
            "A",
            "--all",
            "--expected-match-count",
            "5",
        ],
        "file_replace_text",
        lambda t: {
            "path": "notes.txt",
            "old": "a",
            "new": "A",
            "policy": "all",
            "expected_match_count": 5,
        },
    ),
    Request(
        "replace text with no match",
        "NO_MATCH",
        lambda ws, t: ws.replace_text("notes.txt", "zeta", "x").to_dict(),
        lambda t: ["file", "replace-text", "notes.txt", "--old", "zeta", "--new", "x", "--first"],
        "file_replace_text",
        lambda t: {"path": "notes.txt", "old": "zeta", "new": "x", "policy": "first"},
    ),
    Request(
        "apply a patch to two files",
        "ok",
        lambda ws, t: ws.apply_patch(PATCH).to_dict(),
        lambda t: ["file", "apply-patch", patch_file(t, PATCH)],
        "file_apply_patch",
        lambda t: {"patch": PATCH},
    ),
    Request(
        "apply a Codex patch to two files",
        "ok",
        lambda ws, t: ws.apply_patch(CODEX_PATCH).to_dict(),
        lambda t: ["file", "apply-patch", patch_file(t, CODEX_PATCH)],
        "file_apply_patch",
        lambda t: {"patch": CODEX_PATCH},
    ),
    Request(
        "apply a Codex patch whose lines occur nowhere",
        "PATCH_FAILED",
        lambda ws, t: ws.apply_patch(CODEX_STALE_PATCH).to_dict(),
        lambda t: ["file", "apply-patch", patch_file(t, CODEX_STALE_PATCH)],
        "file_apply_patch",
        lambda t: {"patch": CODEX_STALE_PATCH},
    ),
    Request(
        "apply a patch on a snapshot, merged below a line inserted since",
        "ok",
        lambda ws, t: ws.apply_patch(STORY_PATCH, base_hash=STORY_HASH).to_dict(),
        lambda t: ["file", "apply-patch", patch_file(t, STORY_PATCH), "--base", STORY_HASH],
        "file_apply_patch",
        lambda t: {"patch": STORY_PATCH, "base_hash": STORY_HASH},
    ),
    Request(
        "apply a patch whose context does not match",
        "PATCH_FAILED",
        lambda ws, t: ws.apply_patch(STALE_PATCH).to_dict(),
        lambda t: ["file", "apply-patch", patch_file(t, STALE_PATCH)],
        "file_apply_patch",
        lambda t: {"patch": STALE_PATCH},
    ),
    Request(
        "undo an operation",
        "ok",
        lambda ws, t: ws.undo(t.seed_op).to_dict(),
        lambda t: ["history", "undo", t.seed_op],
        "undo_operation",
        lambda t: {"operation_id": t.seed_op},
    ),
    Request(
        "undo the last operation",
        "ok",
        lambda ws, t: ws.undo_last().to_dict(),
        lambda t: ["history", "undo-last"],
        "undo_last",
        lambda t: {},
    ),
    Request(
        "undo of an unknown operation",
        "OPERATION_NOT_FOUND",
        lambda ws, t: ws.undo("op_0123456789abcdef").to_dict(),
        lambda t: ["history", "undo", "op_0123456789abcdef"],
        "undo_operation",
        lambda t: {"operation_id": "op_0123456789abcdef"},
    ),
]


@pytest.fixture
def trees(tmp_path: Path) -> dict[str, Tree]:
    """Three fresh, identical workspaces, one for each surface."""
    return {surface: make_tree(tmp_path / surface) for surface in ("python", "cli", "mcp")}


def run_on_surfaces(request: Request, trees: dict[str, Tree], bin_dir: Path) -> dict[str, Doc]:
    """REQUEST through each surface, each on its own tree; the documents without workspace."""
    python, cli, mcp = trees["python"], trees["cli"], trees["mcp"]
    documents = {"python": python_document(lambda: request.python(python.workspace, python))}
    selection = ["--home", str(cli.home), "--workspace", WORKSPACE]
    documents["cli"] = without_workspace(run_keeper(bin_dir, selection, request.cli(cli)))
    with mcp_server(bin_dir, mcp.home) as server:
        documents["mcp"] = without_workspace(server.call(request.tool, request.arguments(mcp)))
    return documents


@pytest.mark.parametrize("request_", READS, ids=[r.name for r in READS])
def test_reads_agree_exactly(request_: Request, shared: Tree, bin_dir: Path) -> None:
    documents = {"python": python_document(lambda: request_.python(shared.workspace, shared))}
    selection = ["--home", str(shared.home), "--workspace", WORKSPACE]
    documents["cli"] = without_workspace(run_keeper(bin_dir, selection, request_.cli(shared)))
    with mcp_server(bin_dir, shared.home) as server:
        documents["mcp"] = without_workspace(server.call(request_.tool, request_.arguments(shared)))

    assert {s: outcome(d) for s, d in documents.items()} == dict.fromkeys(
        documents, request_.expect
    )
    if request_.expect == "ok":
        assert_same(documents, lambda document: document)
    else:
        assert_same(documents, error_core)


@pytest.mark.parametrize("request_", MUTATIONS, ids=[r.name for r in MUTATIONS])
def test_mutations_agree(request_: Request, trees: dict[str, Tree], bin_dir: Path) -> None:
    before = trees["python"].files()
    documents = run_on_surfaces(request_, trees, bin_dir)

    assert {s: outcome(d) for s, d in documents.items()} == dict.fromkeys(
        documents, request_.expect
    )
    if request_.expect == "ok":
        assert_same(
            {s: masked(d, trees[s].sequence()) for s, d in documents.items()},
            lambda document: document,
        )
    else:
        assert_same(documents, error_core)
    # The same change (or none) on disk, and the same record of it.
    assert_same({s: {"files": t.files()} for s, t in trees.items()}, lambda files: files)
    assert_same(
        {s: {"history": masked(t.history(), t.sequence())} for s, t in trees.items()},
        lambda history: history,
    )
    if request_.expect != "ok" or documents["python"].get("dry_run"):
        assert trees["python"].files() == before


def test_mutation_results_carry_their_fields(trees: dict[str, Tree], bin_dir: Path) -> None:
    """The fields each kind of change reports, through every surface, in one session of
    changes: a patch, the undo of it, then a replacement."""
    by_name = {request.name: request for request in MUTATIONS}

    patched = run_on_surfaces(by_name["apply a patch to two files"], trees, bin_dir)
    for surface, document in patched.items():
        files = document["patch_files"]
        assert [f["path"] for f in files] == ["notes.txt", "src/main.rs"], surface
        assert [len(f["hunks"]) for f in files] == [1, 1], surface
        assert trees[surface].workspace.read_file("notes.txt").content == "alpha\nBETA\ngamma\n"

    undone = run_on_surfaces(by_name["undo the last operation"], trees, bin_dir)
    for surface, document in undone.items():
        tree = trees[surface]
        entry = tree.workspace.list_history(limit=1)[0]
        assert document["operation_id"] == entry.id, surface
        assert entry.kind == "undo", surface
        assert entry.undoes == patched[surface]["operation_id"], surface
        assert tree.workspace.read_file("notes.txt").content == NOTES, surface
        assert tree.workspace.read_file("src/main.rs").content == MAIN_RS, surface

    replaced = run_on_surfaces(by_name["replace text, exact"], trees, bin_dir)
    for surface, document in replaced.items():
        assert (document["match_stage"], document["match_count"]) == ("exact", 1), surface
        assert document["after_hash"] != document["before_hash"], surface

    normalised = run_on_surfaces(by_name["replace text, indentation normalised"], trees, bin_dir)
    for surface, document in normalised.items():
        assert (document["match_stage"], document["match_count"]) == ("normalised", 1), surface
        assert document["warnings"], surface
        assert trees[surface].workspace.read_file("src/main.rs").content == MAIN_RS.replace(
            "hi", "hello"
        ), surface

    assert_same({s: {"files": t.files()} for s, t in trees.items()}, lambda files: files)
    assert_same(
        {s: {"history": masked(t.history(), t.sequence())} for s, t in trees.items()},
        lambda history: history,
    )


def test_stale_hash_conflicts_alike(trees: dict[str, Tree], bin_dir: Path) -> None:
    by_name = {request.name: request for request in MUTATIONS}
    documents = run_on_surfaces(by_name["write guarded by a stale hash"], trees, bin_dir)
    current = notes_hash(trees["python"])
    for document in documents.values():
        error = document["error"]
        assert error["code"] == "CONTENT_CONFLICT"
        assert error["retryable"] is False
        assert error["details"]["path"] == "notes.txt"
        assert error["details"]["expected_hash"] == ZERO_HASH
        assert error["details"]["actual_hash"] == current
    assert_same(documents, lambda document: document["error"]["details"])
    for tree in trees.values():
        assert tree.workspace.read_file("notes.txt").content == NOTES


def test_sensitive_refusal_names_only_its_own_override(
    trees: dict[str, Tree], bin_dir: Path
) -> None:
    by_name = {request.name: request for request in MUTATIONS}
    documents = run_on_surfaces(by_name["write a credential-shaped path"], trees, bin_dir)
    assert_same(documents, error_core)
    for surface, document in documents.items():
        message: str = document["error"]["message"]
        assert OVERRIDE[surface] in message, (surface, message)
        for other, spelling in OVERRIDE.items():
            if other != surface:
                assert spelling not in message, (surface, other, message)
        # Nor the other spellings' stems: a flag's dashes, an argument's underscores.
        if surface != "cli":
            assert "i-accept-secret-write-risk" not in message, message
        if surface != "mcp":
            assert "i_accept_secret_write_risk" not in message, message
        assert not (trees[surface].root / ".ssh").exists()


# A refusal whose recovery hint names an operation and an argument: each surface words it.
CREATE_EXISTING = Request(
    "create an existing file",
    "ALREADY_EXISTS",
    lambda ws, t: ws.create_file("notes.txt", "x\n").to_dict(),
    lambda t: ["file", "create", "notes.txt", "--content", "x\n"],
    "file_create",
    lambda t: {"path": "notes.txt", "content": "x\n"},
)
HINT_WORDS = {
    "python": ("Workspace.write_file()", "allow_existing=True"),
    "cli": ("keeper file write", "--allow-existing"),
    "mcp": ("file_write", "allow_existing: true"),
}

UNSTORED_BASE = Request(
    "replace text on a version that is not stored",
    "HISTORY_UNAVAILABLE",
    lambda ws, t: ws.replace_text("story.txt", "two", "2", base_hash=ZERO_HASH).to_dict(),
    lambda t: [
        "file",
        "replace-text",
        "story.txt",
        "--first",
        "--old",
        "two",
        "--new",
        "2",
        "--base",
        ZERO_HASH,
    ],
    "file_replace_text",
    lambda t: {
        "path": "story.txt",
        "old": "two",
        "new": "2",
        "policy": "first",
        "base_hash": ZERO_HASH,
    },
)

SNAPSHOT_WORDS = {
    "python": ("snapshot=True",),
    "cli": ("--snapshot",),
    "mcp": ("snapshot: true",),
}

HINTS = [
    (CREATE_EXISTING, "ALREADY_EXISTS", HINT_WORDS),
    (UNSTORED_BASE, "HISTORY_UNAVAILABLE", SNAPSHOT_WORDS),
]


@pytest.mark.parametrize(("request_", "code", "hint_words"), HINTS, ids=[h[1] for h in HINTS])
def test_recovery_hints_name_each_surfaces_own_words(
    request_: Request,
    code: str,
    hint_words: dict[str, tuple[str, ...]],
    trees: dict[str, Tree],
    bin_dir: Path,
) -> None:
    before = trees["python"].files()
    documents = run_on_surfaces(request_, trees, bin_dir)
    assert {s: outcome(d) for s, d in documents.items()} == dict.fromkeys(documents, code)

    def without_recovery(document: Doc) -> Doc:
        core = error_core(document)
        details = {k: v for k, v in core["details"].items() if k != "recovery"}
        return {**core, "details": details}

    assert_same(documents, without_recovery)
    for surface, document in documents.items():
        recovery: str = document["error"]["details"]["recovery"]
        for word in hint_words[surface]:
            assert word in recovery, (surface, recovery)
        for other, words in hint_words.items():
            if other != surface:
                for word in words:
                    assert word not in recovery, (surface, other, recovery)
    for tree in trees.values():
        assert tree.files() == before


def test_root_selection_agrees(tmp_path: Path, bin_dir: Path) -> None:
    """A transient workspace (`root=` / `--root`) reads alike, and is named by no surface."""
    tree = make_tree(tmp_path / "registered")
    transient = Filekeeper(home=tree.home).workspace(root=tree.root)
    assert transient.name is None
    python = python_document(lambda: transient.read_file("notes.txt", start_line=1).to_dict())
    cli = run_keeper(
        bin_dir,
        ["--home", str(tree.home), "--root", str(tree.root)],
        ["file", "read", "notes.txt", "--from-line", "1"],
    )
    server = McpServer(
        [str(bin_dir / "filekeeper-mcp"), "--home", str(tree.home), "--root", str(tree.root)],
        stderr=tmp_path / "mcp-stderr.log",
    )
    try:
        server.initialize()
        mcp = server.call("file_read", {"path": "notes.txt", "from_line": 1, "snapshot": False})
    finally:
        server.close()
    documents = {
        "python": python,
        "cli": without_workspace(cli, expected=None),
        "mcp": without_workspace(mcp, expected=None),
    }
    assert_same(documents, lambda document: document)
    assert python["content"] == NOTES


# A cursor issued for another query: INVALID_CURSOR with the same details everywhere, and a
# recovery that names the surface's own cursor argument.
FOREIGN_CURSOR = Request(
    "a list cursor given to a content search",
    "INVALID_CURSOR",
    lambda ws, t: ws.search_content(".", "a", cursor=list_cursor(t)).to_dict(),
    lambda t: ["file", "grep", ".", "a", "--cursor", list_cursor(t)],
    "content_search",
    lambda t: {"path": ".", "query": "a", "cursor": list_cursor(t)},
)


def test_a_cursor_for_another_query_is_refused_alike(trees: dict[str, Tree], bin_dir: Path) -> None:
    documents = run_on_surfaces(FOREIGN_CURSOR, trees, bin_dir)
    assert {s: outcome(d) for s, d in documents.items()} == dict.fromkeys(
        documents, "INVALID_CURSOR"
    )

    def without_recovery(document: Doc) -> Doc:
        core = error_core(document)
        details = {k: v for k, v in core["details"].items() if k != "recovery"}
        return {**core, "details": details}

    assert_same(documents, without_recovery)
    assert documents["python"]["error"]["details"]["reason"] == "other_query"
    recoveries = {s: d["error"]["details"]["recovery"] for s, d in documents.items()}
    assert "without --cursor" in recoveries["cli"]
    assert "without cursor" in recoveries["python"]
    assert "without cursor" in recoveries["mcp"]
