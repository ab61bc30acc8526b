"""The Python API of the specification: its examples, guards, conflicts, undo, errors with
codes and details, and bounded reads."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

import filekeeper
from filekeeper import (
    ByteRange,
    FailedPath,
    FileDiff,
    Filekeeper,
    FilekeeperError,
    FoundUp,
    MutationDiff,
    MutationResult,
    ReadResult,
    Workspace,
)


def test_the_specification_example(home: Path, root: Path) -> None:
    (root / "todo.md").write_text("".join(f"- item {n}\n" for n in range(30)))
    app = Filekeeper(home=home)
    assert app.init().config_written
    workspace = app.create_workspace("notes", root)
    assert workspace.name == "notes"
    assert workspace.default is False
    service = app.workspace(name="notes")

    read = service.read_file("todo.md", start_line=1, end_line=20)
    written = service.write_file("todo.md", "# Todo\n", expected_hash=read.content_hash)

    assert isinstance(written, MutationResult)
    assert (root / "todo.md").read_text() == "# Todo\n"
    assert written.before_hash == read.content_hash
    assert written.after_hash is not None
    assert written.after_hash != read.content_hash
    assert written.undo_available
    assert written.operation_id is not None
    assert written.operation_id.startswith("op_")
    assert written.summary
    assert written.warnings == []
    assert [(i.path, i.change) for i in written.items] == [("todo.md", "modified")]


def test_the_specification_history_example(ws: Workspace, root: Path) -> None:
    ws.create_file("todo.md", "one\n", actor="editor")
    changed = ws.write_file("todo.md", "two\n", actor="editor")
    assert changed.operation_id is not None
    operation_id = changed.operation_id

    record = ws.get_operation(operation_id)
    assert record.operation.id == operation_id
    assert record.operation.actor == "editor"
    assert record.undoable
    assert record.undone_by is None

    recent = ws.list_history(path="todo.md", actor="editor", limit=10)
    assert next(entry.id for entry in recent) == operation_id
    assert [entry.kind for entry in recent] == ["write", "create"]

    diff = ws.diff_operation(operation_id)
    assert diff.paths[0].diff is not None
    assert "-one" in diff.paths[0].diff
    assert "+two" in diff.paths[0].diff

    undone = ws.undo(operation_id, actor="editor")
    assert (root / "todo.md").read_text() == "one\n"
    assert ws.get_operation(operation_id).undone_by == undone.operation_id

    last = ws.undo_last(actor="editor")
    assert last.changed
    assert not (root / "todo.md").exists()


def test_a_transient_workspace_by_root(app: Filekeeper, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    service = app.workspace(root=root)
    assert service.name is None
    assert service.read_file("a.txt").content == "a\n"


def test_a_root_renamed_and_made_again_is_refused(app: Filekeeper, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    service = app.workspace(root=root)
    service.write_file("a.txt", "one\n")
    root.rename(root.with_name("moved"))
    root.mkdir()
    # The handle reaches files through the moved directory and the journal by the path:
    # a write would change one and record it in the other.
    with pytest.raises(FilekeeperError) as raised:
        service.write_file("a.txt", "two\n")
    assert raised.value.code == "WORKSPACE_NOT_FOUND"
    assert (root.with_name("moved") / "a.txt").read_text() == "one\n"
    assert list(root.iterdir()) == []
    with pytest.raises(FilekeeperError):
        service.list_history()


def test_no_workspace_selected_is_a_coded_error(app: Filekeeper) -> None:
    with pytest.raises(FilekeeperError) as raised:
        app.workspace()
    assert raised.value.code == "NO_WORKSPACE_SELECTED"
    # In this API's words, never the command line's.
    recovery = raised.value.details["recovery"]
    assert "name=" in recovery
    assert "Filekeeper.use_workspace()" in recovery
    assert "--" not in recovery
    assert "keeper " not in recovery


def test_an_unknown_workspace_names_itself(app: Filekeeper) -> None:
    with pytest.raises(FilekeeperError) as raised:
        app.workspace(name="nowhere")
    assert raised.value.code == "WORKSPACE_NOT_FOUND"
    assert raised.value.details["name"] == "nowhere"
    assert "Filekeeper.list_workspaces()" in raised.value.details["recovery"]


def test_an_empty_home_or_root_is_refused_not_the_current_directory(
    app: Filekeeper, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FilekeeperError) as raised:
        Filekeeper(home="")
    assert raised.value.code == "INVALID_ARGUMENT"
    assert "home=" in raised.value.message
    with pytest.raises(FilekeeperError) as raised:
        app.workspace(root="")
    assert raised.value.code == "INVALID_ARGUMENT"
    with pytest.raises(FilekeeperError) as raised:
        app.create_workspace("w", "")
    assert raised.value.code == "INVALID_ARGUMENT"
    assert list(tmp_path.iterdir()) == [tmp_path / "home"]


def test_a_home_or_root_holding_a_nul_byte_is_an_invalid_argument(app: Filekeeper) -> None:
    with pytest.raises(FilekeeperError) as raised:
        Filekeeper(home="a\0b")
    assert raised.value.code == "INVALID_ARGUMENT"
    assert "home=" in raised.value.message
    assert "NUL" in raised.value.message
    with pytest.raises(FilekeeperError) as raised:
        app.workspace(root="a\0b")
    assert raised.value.code == "INVALID_ARGUMENT"
    assert "root=" in raised.value.message
    with pytest.raises(FilekeeperError) as raised:
        app.create_workspace("w", "a\0b")
    assert raised.value.code == "INVALID_ARGUMENT"
    assert "NUL" in raised.value.message


def test_the_registry(app: Filekeeper, root: Path) -> None:
    app.create_workspace("notes", root)
    assert app.use_workspace("notes").default
    assert [w.name for w in app.list_workspaces()] == ["notes"]
    assert app.show_workspace("notes").root == str(root)
    assert app.workspace().name == "notes"
    with pytest.raises(FilekeeperError) as raised:
        app.create_workspace("notes", root)
    assert raised.value.code == "WORKSPACE_EXISTS"
    app.remove_workspace("notes")
    assert app.list_workspaces() == []


def test_a_stale_guard_is_a_conflict_that_writes_nothing(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("first\n")
    read = ws.read_file("a.txt")
    ws.write_file("a.txt", "second\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.write_file("a.txt", "lost\n", expected_hash=read.content_hash)
    error = raised.value
    assert error.code == "CONTENT_CONFLICT"
    assert error.retryable is False
    assert error.details["path"] == "a.txt"
    assert error.details["expected_hash"] == read.content_hash
    assert error.details["actual_hash"] == ws.hash_file("a.txt").hash
    assert str(error).startswith("CONTENT_CONFLICT: ")
    assert (root / "a.txt").read_text() == "second\n"


def test_a_credential_target_names_the_python_keyword(ws: Workspace, root: Path) -> None:
    with pytest.raises(FilekeeperError) as raised:
        ws.create_file(".env", "TOKEN=1\n")
    error = raised.value
    assert error.code == "SENSITIVE_PATH_REFUSED"
    assert "allow_sensitive_write=True" in error.message
    assert "--i-accept" not in error.message
    assert "i_accept_secret_write_risk" not in error.message
    assert not (root / ".env").exists()

    ws.create_file(".env", "TOKEN=1\n", allow_sensitive_write=True)
    assert (root / ".env").read_text() == "TOKEN=1\n"


def test_an_override_hint_names_the_python_keyword(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.move_file("a.txt", "b.txt")
    assert raised.value.code == "ALREADY_EXISTS"
    assert raised.value.details["recovery"] == "pass overwrite=True to replace it"
    assert ws.move_file("a.txt", "b.txt", overwrite=True).changed


def test_paths_stay_inside_the_workspace(ws: Workspace) -> None:
    with pytest.raises(FilekeeperError) as raised:
        ws.read_file("../outside.txt")
    assert raised.value.code == "PATH_OUTSIDE_WORKSPACE"
    assert raised.value.details["path"] == "../outside.txt"


def test_bounded_reads_say_where_to_go_on(ws: Workspace, root: Path) -> None:
    (root / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 101)))
    first = ws.read_file("long.txt", max_bytes=64)
    assert first.truncated
    assert first.truncation_reason is not None
    assert first.next_start_line is not None
    rest = ws.read_file("long.txt", start_line=first.next_start_line)
    assert not rest.truncated
    assert first.content + rest.content == (root / "long.txt").read_text()


def test_a_range_beyond_the_end_is_an_error(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.read_file("a.txt", start_line=1, end_line=5)
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.message.startswith("end_line 5 is beyond the end")


def test_binary_content_is_refused(ws: Workspace, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\x00\x01\x02")
    with pytest.raises(FilekeeperError) as raised:
        ws.read_file("blob.bin")
    assert raised.value.code == "BINARY_CONTENT_REFUSED"


def test_bytes_content_is_written_as_it_is(ws: Workspace, root: Path) -> None:
    ws.create_file("data.bin", b"\x00\xff\x10")
    assert (root / "data.bin").read_bytes() == b"\x00\xff\x10"


@pytest.mark.parametrize("dry_run", [True, False])
def test_an_actor_or_task_id_holding_a_nul_byte_is_refused(
    ws: Workspace, root: Path, dry_run: bool
) -> None:
    with pytest.raises(FilekeeperError) as raised:
        ws.create_file("n.txt", "x", dry_run=dry_run, actor="a\0b")
    assert raised.value.code == "INVALID_ARGUMENT"
    assert "NUL" in raised.value.message
    with pytest.raises(FilekeeperError) as raised:
        ws.create_file("n.txt", "x", dry_run=dry_run, task_id="T\0")
    assert raised.value.code == "INVALID_ARGUMENT"
    assert "NUL" in raised.value.message
    assert not (root / "n.txt").exists()


def test_a_handle_goes_on_after_its_state_directory_is_removed(ws: Workspace, root: Path) -> None:
    # As after `git clean -fdx`: the handle made changes, so it knew where its state was.
    ws.write_file("a.txt", "one\n")
    ws.write_file("a.txt", "two\n")
    shutil.rmtree(root / ".filekeeper")
    written = ws.write_file("a.txt", "three\n")
    assert (root / "a.txt").read_text() == "three\n"
    assert [op.id for op in ws.list_history().operations] == [written.operation_id]


def test_a_file_with_two_byte_order_marks_is_not_guessed_at(ws: Workspace, root: Path) -> None:
    (root / "two.txt").write_bytes(b"\xef\xbb\xbf\xef\xbb\xbfQ\n")
    text = ws.read_file("two.txt").content
    assert text == "\ufeffQ\n"
    with pytest.raises(FilekeeperError) as raised:
        ws.write_file("two.txt", text)
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.details["reason"] == "bom_ambiguous"
    assert "Workspace.create_file()" in raised.value.details["recovery"]
    assert (root / "two.txt").read_bytes() == b"\xef\xbb\xbf\xef\xbb\xbfQ\n"


def test_a_byte_order_mark_is_kept(ws: Workspace, root: Path) -> None:
    (root / "bom.txt").write_bytes(b"\xef\xbb\xbfold\n")
    written = ws.write_file("bom.txt", "new\n")
    assert written.bom_kept is True
    assert (root / "bom.txt").read_bytes() == b"\xef\xbb\xbfnew\n"


def test_replace_text_reports_its_match(ws: Workspace, root: Path) -> None:
    (root / "a.py").write_text("def f():\n    return 1\n")
    replaced = ws.replace_text("a.py", "return 1", "return 2")
    assert replaced.match_stage == "exact"
    assert replaced.match_count == 1
    assert (root / "a.py").read_text() == "def f():\n    return 2\n"


def test_a_mutation_shows_its_diff(ws: Workspace, root: Path) -> None:
    (root / "a.py").write_text("def f():\n    return 1\n")
    replaced = ws.replace_text("a.py", "return 1", "return 2")
    [diff] = replaced.diffs
    assert isinstance(diff, MutationDiff)
    assert (diff.path, diff.change, diff.diff_kind) == ("a.py", "modified", "text")
    assert diff.diff == (
        "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
    )
    assert (diff.lines_added, diff.lines_removed) == (1, 1)
    assert replaced.diff_truncated is False
    binary = ws.write_file("b.bin", b"\x00\x01")
    assert [(d.diff_kind, d.diff) for d in binary.diffs] == [("binary", None)]


def test_replace_text_without_a_match_writes_nothing(ws: Workspace, root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.replace_text("a.py", "y = 1", "y = 2")
    assert raised.value.code == "NO_MATCH"
    assert (root / "a.py").read_text() == "x = 1\n"


def test_an_ambiguous_replacement_needs_a_count(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("x\nx\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.replace_text("a.txt", "x", "y")
    assert raised.value.code == "MATCH_COUNT_MISMATCH"
    assert ws.replace_text("a.txt", "x", "y", policy="all").match_count == 2
    assert (root / "a.txt").read_text() == "y\ny\n"


def test_an_occurrence_replaces_exactly_the_listed_match(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("x = 1\ny = 2\nx = 1\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.replace_text("a.txt", "x = 1", "x = 9")
    details = raised.value.details
    assert [m["line"] for m in details["matches"]] == [1, 3]
    assert details["matches"][1]["before"] == "y = 2"
    assert details["matches_truncated"] is False
    assert "occurrence N" in details["recovery"]
    replaced = ws.replace_text("a.txt", "x = 1", "x = 9", occurrence=2)
    assert replaced.match_count == 2
    assert (root / "a.txt").read_text() == "x = 1\ny = 2\nx = 9\n"


def test_a_bad_occurrence_is_refused_and_writes_nothing(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("x\ny\nx\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.replace_text("a.txt", "x", "X", occurrence=3)
    assert raised.value.code == "MATCH_COUNT_MISMATCH"
    assert raised.value.details["occurrence"] == 3
    assert raised.value.details["match_count"] == 2
    with pytest.raises(FilekeeperError) as raised:
        ws.replace_text("a.txt", "x", "X", policy="all", occurrence=1)
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.message.startswith("occurrence chooses one match")
    for bad in (0, -1):
        with pytest.raises(FilekeeperError) as raised:
            ws.replace_text("a.txt", "x", "X", occurrence=bad)
        assert raised.value.code == "INVALID_ARGUMENT"
        assert "occurrence" in raised.value.message
    with pytest.raises(FilekeeperError) as raised:
        ws.replace_text("a.txt", "x", "X", occurrence=1, expected_match_count=3)
    assert raised.value.code == "MATCH_COUNT_MISMATCH"
    assert (root / "a.txt").read_text() == "x\ny\nx\n"


def test_a_bad_policy_is_an_invalid_argument(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("x\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.replace_text("a.txt", "x", "y", policy="most")  # type: ignore[arg-type]
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.details["argument"] == "policy"
    # Where the keywords are described, as every surface's refused argument says.
    assert "help()" in raised.value.details["recovery"]
    with pytest.raises(FilekeeperError) as raised:
        ws.insert_lines("a.txt", "z\n", position="END")  # type: ignore[arg-type]
    assert raised.value.details["argument"] == "position"
    assert "help()" in raised.value.details["recovery"]


def test_line_edits(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\r\ntwo\r\nthree\r\n")
    ws.replace_lines("a.txt", 2, 2, "TWO\n", expected_content="two\r\n")
    ws.insert_lines("a.txt", "zero\n", position="before", line=1)
    ws.insert_lines("a.txt", "four\n", position="end")
    ws.delete_lines("a.txt", 4, 4)
    # The file's CRLF convention is kept for the caller's lines.
    assert (root / "a.txt").read_bytes() == b"zero\r\none\r\nTWO\r\nfour\r\n"


def test_a_dry_run_previews_and_changes_nothing(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("old\n")
    preview = ws.write_file("a.txt", "new\n", dry_run=True)
    assert preview.dry_run
    assert not preview.changed
    assert preview.would_change is True
    assert preview.operation_id is None
    assert preview.preview_diff is not None
    assert "+new" in preview.preview_diff
    assert (root / "a.txt").read_text() == "old\n"


def test_apply_patch_reports_every_file(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+patched\n"
    applied = ws.apply_patch(patch)
    assert applied.patch_files is not None
    [report] = applied.patch_files
    assert report.path == "a.txt"
    assert report.change == "modified"
    assert report.from_ is None
    assert [h.status for h in report.hunks] == ["applies"]
    assert (root / "a.txt").read_text() == "patched\n"


def test_a_failing_patch_writes_nothing(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.apply_patch("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-goodbye\n+patched\n")
    assert raised.value.code == "PATCH_FAILED"
    assert (root / "a.txt").read_text() == "hello\n"


CODEX_PATCH = """*** Begin Patch
*** Update File: a.txt
@@ def b():
-    return 1
+    return 2
*** Add File: sub/new.txt
+fresh
*** Delete File: gone.txt
*** End Patch
"""


def test_apply_patch_reads_a_codex_patch_as_one_operation(ws: Workspace, root: Path) -> None:
    original = "def a():\n    return 1\n\ndef b():\n    return 1\n"
    (root / "a.txt").write_text(original)
    (root / "gone.txt").write_text("bye\n")
    applied = ws.apply_patch(CODEX_PATCH)
    assert applied.patch_files is not None
    assert [(f.path, f.change) for f in applied.patch_files] == [
        ("a.txt", "modified"),
        ("sub/new.txt", "created"),
        ("gone.txt", "deleted"),
    ]
    assert [(h.old_start, h.status) for h in applied.patch_files[0].hunks] == [(5, "applies")]
    assert (root / "a.txt").read_text() == "def a():\n    return 1\n\ndef b():\n    return 2\n"
    assert (root / "sub/new.txt").read_text() == "fresh\n"
    assert not (root / "gone.txt").exists()
    ws.undo_last()
    assert (root / "a.txt").read_text() == original
    assert (root / "gone.txt").read_text() == "bye\n"
    assert not (root / "sub").exists()


def test_an_ambiguous_codex_hunk_names_both_lines_and_writes_nothing(
    ws: Workspace, root: Path
) -> None:
    (root / "a.txt").write_text("x\ny\nx\ny\n")
    (root / "b.txt").write_text("b\n")
    patch = (
        "*** Begin Patch\n*** Update File: b.txt\n@@\n-b\n+B\n"
        "*** Update File: a.txt\n@@\n x\n-y\n+Y\n*** End Patch\n"
    )
    with pytest.raises(FilekeeperError) as raised:
        ws.apply_patch(patch)
    assert raised.value.code == "PATCH_FAILED"
    assert raised.value.details["reason"] == "ambiguous"
    assert raised.value.details["matches"] == [1, 3]
    assert raised.value.details["line"] == 7
    assert (root / "a.txt").read_text() == "x\ny\nx\ny\n"
    assert (root / "b.txt").read_text() == "b\n"


def test_undo_refuses_when_the_file_changed_since(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    written = ws.write_file("a.txt", "two\n")
    assert written.operation_id is not None
    (root / "a.txt").write_text("three\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.undo(written.operation_id)
    assert raised.value.code == "UNDO_CONFLICT"
    assert (root / "a.txt").read_text() == "three\n"


def test_an_unknown_operation(ws: Workspace) -> None:
    with pytest.raises(FilekeeperError) as raised:
        ws.get_operation("op_0000000000000000")
    assert raised.value.code == "OPERATION_NOT_FOUND"


def test_files_and_directories(ws: Workspace, root: Path) -> None:
    ws.create_dir("a/b", parents=True)
    ws.create_file("a/b/c.txt", "c\n")
    ws.copy_file("a/b/c.txt", "a/d.txt")
    ws.move_dir("a/b", "e")
    assert (root / "e" / "c.txt").read_text() == "c\n"
    with pytest.raises(FilekeeperError) as raised:
        ws.delete_dir("e")
    assert "recursive=True" in raised.value.details["recovery"]
    ws.delete_dir("e", recursive=True)
    ws.delete_file("a/d.txt", expected_hash=ws.hash_file("a/d.txt").hash)
    assert [entry.path for entry in ws.list_directory(recursive=True).entries] == ["a"]


def test_reads_and_searches(ws: Workspace, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.rs").write_text("fn main() {}\n")
    (root / "notes.md").write_text("main idea\n")
    assert ws.exists("src/a.rs").kind == "file"
    assert ws.exists("missing").exists is False
    assert ws.file_info("notes.md").line_count == 1
    assert [e.path for e in ws.search_files(".", "*.rs").entries] == ["src/a.rs"]
    found = ws.search_content(".", "main")
    assert sorted(m.path for m in found.matches) == ["notes.md", "src/a.rs"]
    listing = ws.list_directory("src")
    assert [(e.path, e.kind) for e in listing.entries] == [("src/a.rs", "file")]


def test_read_many_reports_each_path(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    results = ws.read_many(["a.txt", "missing.txt"])
    assert isinstance(results[0], ReadResult)
    assert results[0].content == "a\n"
    assert isinstance(results[1], FailedPath)
    assert results[1].path == "missing.txt"
    assert results[1].error.code == "PATH_NOT_FOUND"
    with pytest.raises(FilekeeperError) as raised:
        ws.read_many(["a.txt", "missing.txt"], max_bytes_per_file=0)
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.message == "max_bytes_per_file must be at least 1"


def test_read_many_decodes_in_the_encoding_asked(ws: Workspace, root: Path) -> None:
    (root / "l1.txt").write_bytes(b"caf\xe9\n")
    [failed] = ws.read_many(["l1.txt"])
    assert isinstance(failed, FailedPath)
    assert failed.error.code == "BINARY_CONTENT_REFUSED"
    [read] = ws.read_many(["l1.txt"], encoding="latin1")
    assert isinstance(read, ReadResult)
    assert read.content == "café\n"
    assert read.encoding == "windows-1252"


def test_a_read_numbers_its_lines_on_request_and_takes_a_line_bound(
    ws: Workspace, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"one\r\ntwo\n\tthree\nfour\n")
    read = ws.read_file("a.txt", start_line=2, max_lines=2)
    assert read.content == "two\n\tthree\n"
    assert (read.end_line, read.truncation_reason, read.next_start_line) == (3, "max_lines", 4)
    assert read.numbered() == "     2\ttwo\n     3\t\tthree\n"
    assert "numbered" not in read.to_dict()
    assert ws.read_file("a.txt").numbered().startswith("     1\tone\n     2\ttwo\n")
    results = ws.read_many(["a.txt"], max_lines_per_file=1)
    assert isinstance(results[0], ReadResult)
    assert results[0].numbered() == "     1\tone\n"
    with pytest.raises(FilekeeperError) as raised:
        ws.read_file("a.txt", max_lines=0)
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.message == "max_lines must be at least 1"


def test_find_up_finds_the_nearest_entry_and_says_where_it_looked(
    ws: Workspace, root: Path
) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[root]\n")
    (root / "a" / "pyproject.toml").write_text("[a]\n")
    (root / "a" / "b" / "leaf.py").write_text("x = 1\n")
    found = ws.find_up("a/b/leaf.py", "pyproject.toml")
    assert isinstance(found, FoundUp)
    assert found.found is True
    assert found.found_path == "a/pyproject.toml"
    assert found.kind == "file"
    assert found.searched == ["a/b", "a"]
    missing = ws.find_up("a/b", "setup.cfg")
    assert missing.found is False
    assert missing.found_path is None
    assert missing.kind is None
    assert missing.searched == ["a/b", "a", "."]


def test_find_up_refuses_a_name_that_is_a_path(ws: Workspace, root: Path) -> None:
    for name in ["", "a/b", "..", "."]:
        with pytest.raises(FilekeeperError) as raised:
            ws.find_up(".", name)
        assert raised.value.code == "INVALID_ARGUMENT"
        assert raised.value.message.startswith("name ")
    with pytest.raises(FilekeeperError) as raised:
        ws.find_up(".", ".filekeeper")
    assert raised.value.code == "PATH_IS_STATE_PATH"


def test_diff_files_gives_a_unified_diff(ws: Workspace, root: Path) -> None:
    (root / "old.txt").write_text("a\nb\nc\n")
    (root / "new.txt").write_text("a\nB\nc\n")
    diff = ws.diff_files("old.txt", "new.txt")
    assert isinstance(diff, FileDiff)
    assert diff.diff == "--- a/old.txt\n+++ b/new.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    assert (diff.lines_added, diff.lines_removed) == (1, 1)
    assert diff.identical is False
    assert diff.truncated is False
    assert diff.path_hash == ws.hash_file("old.txt").hash
    same = ws.diff_files("old.txt", "old.txt")
    assert same.identical is True
    assert same.diff == ""
    # Whole lines within the bound, and at least one line of a hunk's body: the headers
    # alone would read as a change without lines.
    cut = ws.diff_files("old.txt", "new.txt", max_bytes=48)
    assert cut.truncated is True
    assert cut.diff == "--- a/old.txt\n+++ b/new.txt\n@@ -1,3 +1,3 @@\n a\n"
    cut = ws.diff_files("old.txt", "new.txt", max_bytes=40)
    assert cut.truncated is True
    assert cut.diff == ""


def test_diff_files_refuses_binary_files_and_directories(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "blob.bin").write_bytes(b"\x00\x01")
    (root / "d").mkdir()
    with pytest.raises(FilekeeperError) as raised:
        ws.diff_files("a.txt", "blob.bin")
    assert raised.value.code == "BINARY_CONTENT_REFUSED"
    assert raised.value.details["path"] == "blob.bin"
    with pytest.raises(FilekeeperError) as raised:
        ws.diff_files("d", "a.txt")
    assert raised.value.code == "NOT_A_FILE"
    with pytest.raises(FilekeeperError) as raised:
        ws.diff_files("a.txt", "a.txt", max_bytes=-1)
    assert raised.value.details["argument"] == "max_bytes"


def test_read_bytes_gives_python_bytes(ws: Workspace, root: Path) -> None:
    data = bytes(range(256)) * 4
    (root / "all.bin").write_bytes(data)
    head = ws.read_bytes("all.bin", offset=250, length=10)
    assert isinstance(head, ByteRange)
    assert isinstance(head.content, bytes)
    assert head.content == data[250:260]
    assert (head.offset, head.length, head.size_bytes) == (250, 10, 1024)
    assert head.next_offset == 260
    assert head.content_hash == ws.hash_file("all.bin").hash
    # The document keeps the base64 the other surfaces print.
    assert base64.b64decode(head.to_dict()["content"]) == data[250:260]
    whole = b""
    offset: int | None = 0
    while offset is not None:
        page = ws.read_bytes("all.bin", offset=offset, length=300)
        whole += page.content
        offset = page.next_offset
    assert whole == data
    end = ws.read_bytes("all.bin", offset=1024)
    assert (end.content, end.length, end.next_offset) == (b"", 0, None)


def test_read_bytes_refuses_an_offset_beyond_the_end(ws: Workspace, root: Path) -> None:
    (root / "a.bin").write_bytes(b"abc")
    with pytest.raises(FilekeeperError) as raised:
        ws.read_bytes("a.bin", offset=4)
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.message.startswith("offset 4 ")
    assert raised.value.details["size_bytes"] == 3
    with pytest.raises(FilekeeperError) as raised:
        ws.read_bytes("a.bin", length=0)
    assert raised.value.message.startswith("length ")
    with pytest.raises(FilekeeperError) as raised:
        ws.read_bytes("a.bin", length=5 * 1024 * 1024 + 1)
    assert raised.value.code == "LIMIT_EXCEEDED"


def test_workspace_info(ws: Workspace) -> None:
    info = ws.workspace_info()
    assert info.name == "notes"
    assert info.limits["max_read_bytes"] == 5 * 1024 * 1024


def test_status_counts_history_and_creates_nothing(ws: Workspace, root: Path) -> None:
    fresh = ws.status()
    assert fresh.state is None
    assert fresh.journal.operations == 0
    assert fresh.journal.oldest_undoable is None
    assert fresh.store.objects == 0
    assert not fresh.retention.enabled
    assert fresh.retention.keep_days is None
    assert not (root / ".filekeeper").exists()
    first = ws.write_file("a.txt", "one\n")
    ws.write_file("a.txt", "two\n")
    status = ws.status()
    assert status.state == "project"
    assert (status.journal.operations, status.journal.undoable) == (2, 2)
    assert status.journal.oldest_undoable is not None
    assert status.journal.oldest_undoable.operation_id == first.operation_id
    assert status.store.objects == 2
    assert status.store.uncompressed_bytes == 8


def test_results_are_their_json_documents(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    read = ws.read_file("a.txt")
    document = read.to_dict()
    assert document["content"] == "a\n"
    assert "ok" not in document
    assert "workspace" not in document
    assert read == ws.read_file("a.txt")
    assert repr(read).startswith('ReadResult(path="a.txt"')
    with pytest.raises(AttributeError):
        _ = read.no_such_field  # type: ignore[attr-defined]


def test_the_version_is_the_release() -> None:
    assert filekeeper.__version__ == "0.1.0"


def test_a_negative_number_is_an_invalid_argument_naming_its_keyword(
    ws: Workspace, root: Path
) -> None:
    (root / "a.txt").write_text("a\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.read_file("a.txt", start_line=-1)
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.details["argument"] == "start_line"
    with pytest.raises(FilekeeperError) as raised:
        ws.delete_lines("a.txt", 1, -2)
    assert raised.value.details["argument"] == "end"
    assert (root / "a.txt").read_text() == "a\n"


def test_a_wrong_type_is_pythons_type_error(ws: Workspace, root: Path) -> None:
    with pytest.raises(TypeError):
        ws.read_file(7)  # type: ignore[arg-type]
    # Content is str or bytes: a list of ints is no byte string.
    with pytest.raises(TypeError, match="content must be str or bytes, not list"):
        ws.write_file("d.txt", [104, 105])  # type: ignore[arg-type]
    assert not (root / "d.txt").exists()
    # A bool is an int to Python, but True is no line number: line 1 was rewritten.
    (root / "e.txt").write_text("one\none\n")
    with pytest.raises(TypeError, match="not a bool"):
        ws.replace_lines("e.txt", True, True, "X")
    with pytest.raises(TypeError, match="not a bool"):
        ws.replace_text("e.txt", "one", "X", occurrence=True)
    assert (root / "e.txt").read_text() == "one\none\n"


def test_an_int_past_64_bits_is_refused_like_a_negative_one(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.read_file("a.txt", max_bytes=2**64)
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.details["argument"] == "max_bytes"
    with pytest.raises(FilekeeperError) as raised:
        ws.read_file("a.txt", start_line=2**200)
    assert raised.value.details["argument"] == "start_line"
    # Within 64 bits a count reaches the library, which judges it as for the CLI.
    with pytest.raises(FilekeeperError) as raised:
        ws.read_file("a.txt", max_bytes=2**63)
    assert raised.value.code == "LIMIT_EXCEEDED"


def test_text_content_without_utf8_is_refused_and_writes_nothing(ws: Workspace, root: Path) -> None:
    with pytest.raises(FilekeeperError) as raised:
        ws.write_file("s.txt", "x\ud800y")
    assert raised.value.code == "INVALID_ARGUMENT"
    assert raised.value.details["argument"] == "content"
    assert "Content" not in raised.value.message
    assert not (root / "s.txt").exists()


def test_an_edit_on_a_snapshot_lands_below_lines_inserted_since(ws: Workspace, root: Path) -> None:
    (root / "f.txt").write_text("a\nb\nc\nd\n")
    read = ws.read_file("f.txt", snapshot=True)
    assert read.snapshot_stored is True
    (root / "f.txt").write_text("new 1\nnew 2\na\nb\nc\nd\n")

    edited = ws.replace_lines("f.txt", 3, 3, "C\n", base_hash=read.content_hash)

    assert (root / "f.txt").read_text() == "new 1\nnew 2\na\nb\nC\nd\n"
    assert edited.merged is not None
    assert edited.merged.base_hash == read.content_hash
    [landed] = edited.merged.landed
    assert (landed.snapshot_start_line, landed.start_line, landed.line_count) == (3, 5, 1)
    assert edited.warnings
    # The merge is one operation, and undo gives back the file as it was before it.
    assert edited.operation_id is not None
    ws.undo(edited.operation_id)
    assert (root / "f.txt").read_text() == "new 1\nnew 2\na\nb\nc\nd\n"


def test_an_edit_on_a_snapshot_that_overlaps_a_change_is_a_conflict(
    ws: Workspace, root: Path
) -> None:
    (root / "f.txt").write_text("a\nb\nc\n")
    read = ws.read_file("f.txt", snapshot=True)
    (root / "f.txt").write_text("a\nLIVE\nc\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.replace_text("f.txt", "b", "EDIT", base_hash=read.content_hash)
    error = raised.value
    assert error.code == "CONTENT_CONFLICT"
    assert error.details["reason"] == "merge_conflict"
    [conflict] = error.details["conflicts"]
    assert conflict["snapshot"]["text"] == "b\n"
    assert conflict["edit"]["text"] == "EDIT\n"
    assert conflict["live"]["text"] == "LIVE\n"
    assert conflict["live_start_line"] == 2
    assert (root / "f.txt").read_text() == "a\nLIVE\nc\n"


def test_an_edit_on_a_version_not_stored_says_how_to_recover(ws: Workspace, root: Path) -> None:
    (root / "f.txt").write_text("a\n")
    read = ws.read_file("f.txt")
    assert read.snapshot_stored is None
    (root / "f.txt").write_text("b\n")
    with pytest.raises(FilekeeperError) as raised:
        ws.delete_lines("f.txt", 1, 1, base_hash=read.content_hash)
    assert raised.value.code == "HISTORY_UNAVAILABLE"
    assert "base_hash" in raised.value.message
    assert "snapshot=True" in raised.value.details["recovery"]
    assert (root / "f.txt").read_text() == "b\n"


def test_a_patch_on_a_snapshot_is_merged(ws: Workspace, root: Path) -> None:
    (root / "f.txt").write_text("a\nb\nc\nd\ne\n")
    read = ws.read_file("f.txt", snapshot=True)
    (root / "f.txt").write_text("top\na\nb\nc\nd\ne\n")
    patch = "*** Begin Patch\n*** Update File: f.txt\n@@\n d\n-e\n+E\n*** End Patch\n"
    applied = ws.apply_patch(patch, base_hash=read.content_hash)
    assert (root / "f.txt").read_text() == "top\na\nb\nc\nd\nE\n"
    assert applied.merged is not None
    assert applied.merged.landed[0].start_line == 6


def test_a_listing_read_through_cursors_is_the_whole_listing(ws: Workspace, root: Path) -> None:
    for i in range(25):
        (root / f"f{i:02}.txt").write_text(f"needle {i}\nneedle again\n")
    whole = [entry.path for entry in ws.list_directory().entries]
    paged: list[str] = []
    cursor: str | None = None
    while True:
        page = ws.list_directory(max_entries=4, cursor=cursor)
        paged += [entry.path for entry in page.entries]
        assert page.truncated == (page.next_cursor is not None)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert paged == whole

    lines: list[tuple[str, int]] = []
    cursor = None
    while True:
        found = ws.search_content(".", "needle", max_results=3, cursor=cursor)
        lines += [(match.path, match.line) for match in found.matches]
        cursor = found.next_cursor
        if cursor is None:
            break
    assert len(lines) == 50
    assert lines == sorted(lines)
    assert not (root / ".filekeeper").exists()


def test_history_pages_reach_the_oldest_operation(ws: Workspace) -> None:
    for i in range(5):
        ws.write_file("log.txt", f"{i}\n")
    first = ws.list_history(limit=2)
    assert len(first) == 2
    assert first.truncated
    assert first[0].seq > first[1].seq
    seqs = [entry.seq for entry in first]
    cursor = first.next_cursor
    while cursor is not None:
        page = ws.list_history(limit=2, cursor=cursor)
        seqs += [entry.seq for entry in page.operations]
        cursor = page.next_cursor
    assert seqs == sorted(seqs, reverse=True)
    assert len(seqs) == 5


def test_a_cursor_for_another_query_is_refused(ws: Workspace, root: Path) -> None:
    for name in "abc":
        (root / name).write_text("x\n")
    token = ws.list_directory(max_entries=1).next_cursor
    assert token is not None
    with pytest.raises(FilekeeperError) as refused:
        ws.search_files(".", "*", cursor=token)
    assert refused.value.code == "INVALID_CURSOR"
    assert refused.value.details["reason"] == "other_query"
    assert "without cursor" in refused.value.details["recovery"]
    with pytest.raises(FilekeeperError) as garbled:
        ws.list_directory(max_entries=1, cursor=token[:-3])
    assert garbled.value.code == "INVALID_CURSOR"
