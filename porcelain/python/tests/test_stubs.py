"""The type stubs promise exactly the fields the JSON documents have: every result class of
`_filekeeper.pyi` is checked against the published schema of the same result, and against the
runtime module."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

import filekeeper

# The installed package: the wheel must ship its stubs and py.typed.
PACKAGE = Path(filekeeper.__file__).parent
SCHEMAS = Path(__file__).resolve().parents[3] / "docs" / "schemas"

# Each result class, and the schema that describes it: a document or one of a document's
# `$defs`. A document's `ok` and `workspace` are the envelope's, not the result's.
SCHEMA_OF: dict[str, tuple[str, str | None]] = {
    "InitReport": ("cli/init.json", None),
    "WorkspaceRecord": ("cli/workspace-show.json", "WorkspaceRecord"),
    "WorkspaceInfo": ("mcp/workspace_info.json", None),
    "ReadResult": ("mcp/file_read.json", None),
    "FailedPath": ("mcp/file_read_many.json", "FailedPath"),
    "ErrorBody": ("mcp/file_read_many.json", "ErrorBody"),
    "Listing": ("mcp/directory_list.json", None),
    "ListEntry": ("mcp/directory_list.json", "ListEntry"),
    "FileInfo": ("mcp/file_info.json", None),
    "FileHash": ("cli/file-hash.json", None),
    "Existence": ("cli/file-exists.json", None),
    "GrepResult": ("mcp/content_search.json", None),
    "GrepMatch": ("mcp/content_search.json", "GrepMatch"),
    "MutationItem": ("mcp/file_write.json", "MutationItem"),
    "MutationDiff": ("mcp/file_write.json", "MutationDiff"),
    "FileReport": ("mcp/file_apply_patch.json", "FileReport"),
    "HunkReport": ("mcp/file_apply_patch.json", "HunkReport"),
    "PassedOver": ("mcp/undo_last.json", "PassedOver"),
    "MergeReport": ("mcp/file_replace_lines.json", "MergeReport"),
    "Landed": ("mcp/file_replace_lines.json", "Landed"),
    "HistoryList": ("mcp/history_list.json", None),
    "HistoryEntry": ("mcp/history_list.json", "HistoryEntry"),
    "OperationRecord": ("mcp/history_get.json", None),
    "HistoryOperation": ("mcp/history_get.json", "HistoryOperation"),
    "OperationItem": ("mcp/history_get.json", "Item"),
    "HistoryDiff": ("mcp/history_diff.json", None),
    "PathDiff": ("mcp/history_diff.json", "PathDiff"),
    "FoundUp": ("mcp/file_find_up.json", None),
    "FileDiff": ("mcp/file_diff.json", None),
    "ByteRange": ("mcp/file_read_bytes.json", None),
    "WorkspaceStatus": ("mcp/workspace_status.json", None),
    "JournalStatus": ("mcp/workspace_status.json", "JournalStatus"),
    "OldestUndoable": ("mcp/workspace_status.json", "OldestUndoable"),
    "StoreStatus": ("mcp/workspace_status.json", "StoreStatus"),
    "RetentionStatus": ("mcp/workspace_status.json", "RetentionStatus"),
}

# A mutation's fields: every mutation tool's document together (each carries the extras of
# its own command).
MUTATION_SCHEMAS = [
    "mcp/file_write.json",
    "mcp/file_replace_text.json",
    "mcp/file_replace_lines.json",
    "mcp/file_apply_patch.json",
    "mcp/undo_last.json",
]


def stub_classes() -> dict[str, list[str]]:
    """Every class of the stub that derives from Record, with its annotated fields."""
    tree = ast.parse((PACKAGE / "_filekeeper.pyi").read_text())
    classes: dict[str, list[str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        if not any(isinstance(b, ast.Name) and b.id == "Record" for b in node.bases):
            continue
        fields = [
            statement.target.id
            for statement in node.body
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
        ]
        classes[node.name] = fields
    return classes


def schema_properties(file: str, definition: str | None) -> set[str]:
    schema: dict[str, Any] = json.loads((SCHEMAS / file).read_text())
    if definition is not None:
        schema = schema["$defs"][definition]
    elif "anyOf" in schema:
        # A tool's schema admits its success document or the error document: the result is
        # the success.
        (schema,) = [b for b in schema["anyOf"] if b["properties"]["ok"].get("const") is True]
    return set(schema["properties"]) - {"ok", "workspace"}


def field_name(attribute: str) -> str:
    """A stub attribute's JSON field: `from_` is `from`, a Python keyword."""
    return attribute[:-1] if attribute.endswith("_") else attribute


def test_every_result_class_has_a_schema() -> None:
    assert set(stub_classes()) == set(SCHEMA_OF) | {"MutationResult"}


@pytest.mark.parametrize("name", sorted(SCHEMA_OF))
def test_a_result_class_has_its_schemas_fields(name: str) -> None:
    declared = {field_name(a) for a in stub_classes()[name]}
    assert declared == schema_properties(*SCHEMA_OF[name])


def test_a_mutation_has_every_mutations_fields() -> None:
    declared = {field_name(a) for a in stub_classes()["MutationResult"]}
    expected: set[str] = set()
    for file in MUTATION_SCHEMAS:
        expected |= schema_properties(file, None)
    assert declared == expected


def test_the_runtime_module_has_every_stub_class() -> None:
    for name in stub_classes():
        runtime = getattr(filekeeper, name)
        assert issubclass(runtime, filekeeper.Record), name
    assert set(stub_classes()) <= set(filekeeper.__all__)


def test_the_package_is_typed() -> None:
    assert (PACKAGE / "py.typed").exists()
