"""Filekeeper: safe, predictable filesystem operations.

Every operation is confined to a registered workspace, replaces whole files atomically and
durably, refuses credential-shaped targets, and is recorded in a journal from which it can be
undone. This package is the Python surface of the same Rust library that the ``keeper``
command and the ``filekeeper-mcp`` server run::

    from filekeeper import Filekeeper

    app = Filekeeper()
    app.init()
    app.create_workspace("notes", "/home/me/notes")
    service = app.workspace(name="notes")
    read = service.read_file("todo.md", start_line=1, end_line=20)
    service.write_file("todo.md", "# Todo\\n", expected_hash=read.content_hash)

Failures raise :class:`FilekeeperError`, whose ``code``, ``message``, ``retryable`` and
``details`` are the JSON envelope's.
"""

from ._filekeeper import (
    ByteRange,
    ErrorBody,
    Existence,
    FailedPath,
    FileDiff,
    FileHash,
    FileInfo,
    Filekeeper,
    FilekeeperError,
    FileReport,
    FoundUp,
    GrepMatch,
    GrepResult,
    HistoryDiff,
    HistoryEntry,
    HistoryList,
    HistoryOperation,
    HunkReport,
    InitReport,
    JournalStatus,
    Landed,
    ListEntry,
    Listing,
    MergeReport,
    MutationDiff,
    MutationItem,
    MutationResult,
    OldestUndoable,
    OperationItem,
    OperationRecord,
    PassedOver,
    PathDiff,
    ReadResult,
    Record,
    RetentionStatus,
    StoreStatus,
    Workspace,
    WorkspaceInfo,
    WorkspaceRecord,
    WorkspaceStatus,
    __commit__,
    __version__,
)

__all__ = [
    "ByteRange",
    "ErrorBody",
    "Existence",
    "FailedPath",
    "FileDiff",
    "FileHash",
    "FileInfo",
    "FileReport",
    "Filekeeper",
    "FilekeeperError",
    "FoundUp",
    "GrepMatch",
    "GrepResult",
    "HistoryDiff",
    "HistoryEntry",
    "HistoryList",
    "HistoryOperation",
    "HunkReport",
    "InitReport",
    "JournalStatus",
    "Landed",
    "ListEntry",
    "Listing",
    "MergeReport",
    "MutationDiff",
    "MutationItem",
    "MutationResult",
    "OldestUndoable",
    "OperationItem",
    "OperationRecord",
    "PassedOver",
    "PathDiff",
    "ReadResult",
    "Record",
    "RetentionStatus",
    "StoreStatus",
    "Workspace",
    "WorkspaceInfo",
    "WorkspaceRecord",
    "WorkspaceStatus",
    "__commit__",
    "__version__",
]
