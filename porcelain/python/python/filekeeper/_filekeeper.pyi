# Types of the native module. A result class's attributes are the fields of the JSON document
# the CLI and the MCP server print for the same request, without the envelope's `ok` and
# `workspace`; tests/test_stubs.py checks every class here against docs/schemas/.
import os
from collections.abc import Iterator
from typing import Any, Literal, final

__version__: str
__commit__: str

StrPath = str | os.PathLike[str]
Json = dict[str, Any]

class FilekeeperError(Exception):
    """A refused or failed request, exactly as the JSON envelope's `error`."""

    code: str
    """A stable code such as "CONTENT_CONFLICT" (docs/errors.md)."""
    message: str
    """For people; not a contract. Names this API's keywords, never a CLI flag."""
    retryable: bool
    """Whether the identical request could succeed if retried."""
    details: Json
    """Structured facts: `path` as given, `recovery` when a changed request can succeed."""

class Record:
    """A result: a JSON document's fields, read as attributes."""

    def to_dict(self) -> Json: ...
    def __eq__(self, other: object) -> bool: ...

@final
class InitReport(Record):
    home: str
    config_written: bool

@final
class WorkspaceRecord(Record):
    name: str
    root: str
    default: bool
    created_at: str

@final
class WorkspaceInfo(Record):
    name: str | None
    state: Literal["project", "home"] | None
    limits: Json

@final
class OldestUndoable(Record):
    operation_id: str
    created_at: str

@final
class JournalStatus(Record):
    schema_version: int | None
    operations: int
    pending: int
    undoable: int
    undone: int
    pruned: int
    oldest_undoable: OldestUndoable | None

@final
class StoreStatus(Record):
    objects: int
    compressed_bytes: int
    uncompressed_bytes: int
    objects_of_unknown_size: int
    stray_files: int

@final
class RetentionStatus(Record):
    enabled: bool
    keep_days: int | None
    keep_last: int | None
    max_store_bytes: int | None

@final
class WorkspaceStatus(Record):
    state: Literal["project", "home"] | None
    journal: JournalStatus
    store: StoreStatus
    retention: RetentionStatus

@final
class ReadResult(Record):
    path: str
    content: str
    content_hash: str
    size_bytes: int
    encoding: str
    newline: str
    bom: bool
    line_count: int
    start_line: int | None
    end_line: int | None
    truncated: bool
    truncation_reason: str | None
    next_start_line: int | None
    # Only when the read asked for snapshot=True; None otherwise.
    snapshot_stored: bool | None
    def numbered(self) -> str:
        """The returned lines, each after its number right-aligned to six columns and a tab
        (as `cat -n`), every line ending in a newline. A rendering for reading: `content` is
        the file's text."""

@final
class ErrorBody(Record):
    code: str
    message: str
    retryable: bool
    details: Json

@final
class FailedPath(Record):
    path: str
    error: ErrorBody

@final
class ListEntry(Record):
    path: str
    kind: str
    size_bytes: int | None
    target_kind: str | None

@final
class Listing(Record):
    path: str
    entries: list[ListEntry]
    truncated: bool
    next_cursor: str | None
    entries_seen: int
    ignored: int
    depth_limited: bool
    unreadable: list[str]
    non_utf8_names: list[str]

@final
class FileInfo(Record):
    path: str
    kind: str
    size_bytes: int | None
    mode: int
    modified: str
    is_text: bool | None
    encoding: str | None
    newline: str | None
    bom: bool | None
    line_count: int | None
    hash: str | None

@final
class FileHash(Record):
    path: str
    hash: str
    size_bytes: int

@final
class Existence(Record):
    path: str
    exists: bool
    kind: str | None
    target_kind: str | None
    target: str | None

@final
class GrepMatch(Record):
    path: str
    line: int
    column: int
    text: str
    text_start_column: int
    text_truncated: bool

@final
class GrepResult(Record):
    path: str
    query: str
    encoding: str
    matches: list[GrepMatch]
    truncated: bool
    next_cursor: str | None
    files_searched: int
    files_skipped: int
    files_undecodable: int
    ignored: int
    depth_limited: bool
    unreadable: list[str]
    non_utf8_names: list[str]

@final
class MutationItem(Record):
    path: str
    change: str
    kind: str
    before_hash: str | None
    after_hash: str | None
    size_bytes: int | None

@final
class MutationDiff(Record):
    path: str
    change: str
    kind: str
    diff_kind: Literal[
        "text", "binary", "directory", "unchanged", "moved", "too_large", "omitted", "never_stored"
    ]
    diff: str | None
    lines_added: int | None
    lines_removed: int | None

@final
class HunkReport(Record):
    hunk: int
    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    status: str
    offset: int

@final
class FileReport(Record):
    path: str
    change: str
    status: str
    hunks: list[HunkReport]
    # Only for renames and copies, and for mode changes.
    from_: str | None
    mode: str | None

@final
class PassedOver(Record):
    operation_id: str
    summary: str
    reason: str

@final
class Landed(Record):
    snapshot_start_line: int
    snapshot_line_count: int
    start_line: int
    line_count: int

@final
class MergeReport(Record):
    base_hash: str
    landed: list[Landed]

@final
class MutationResult(Record):
    path: str
    changed: bool
    before_hash: str | None
    after_hash: str | None
    summary: str
    operation_id: str | None
    undo_available: bool
    dry_run: bool
    warnings: list[str]
    items: list[MutationItem]
    diffs: list[MutationDiff]
    diff_truncated: bool
    # Present only where they apply; None otherwise.
    source_path: str | None
    history_skipped: list[str] | None
    predicted_after_hash: str | None
    would_change: bool | None
    preview_diff: str | None
    match_stage: Literal["exact", "normalised"] | None
    match_count: int | None
    patch_files: list[FileReport] | None
    bom_kept: bool | None
    skipped_operations: list[PassedOver] | None
    merged: MergeReport | None

@final
class OperationItem(Record):
    path: str
    change: str
    kind: str
    before_exists: bool
    after_exists: bool
    before_hash: str | None
    after_hash: str | None
    before_mode: int | None
    after_mode: int | None
    history_skipped: bool

@final
class HistoryOperation(Record):
    id: str
    seq: int
    kind: str
    status: str
    created_at: str
    updated_at: str
    actor: str | None
    task_id: str | None
    summary: str
    target_path: str | None
    source_path: str | None
    undoes: str | None
    pruned_at: str | None
    pruned_by: str | None
    items: list[OperationItem]
    metadata: Json | None

@final
class HistoryList(Record):
    operations: list[HistoryEntry]
    truncated: bool
    next_cursor: str | None
    # Reads like its operations: iterating, len() and indexing go to `operations`.
    def __iter__(self) -> Iterator[HistoryEntry]: ...
    def __len__(self) -> int: ...
    def __getitem__(self, index: int) -> HistoryEntry: ...

@final
class HistoryEntry(Record):
    id: str
    seq: int
    kind: str
    status: str
    created_at: str
    updated_at: str
    actor: str | None
    task_id: str | None
    summary: str
    target_path: str | None
    source_path: str | None
    undoes: str | None
    pruned_at: str | None
    pruned_by: str | None
    items: list[OperationItem]
    metadata: Json | None
    undone_by: str | None
    undoable: bool

@final
class OperationRecord(Record):
    operation: HistoryOperation
    undone_by: str | None
    undoable: bool

@final
class PathDiff(Record):
    path: str
    change: str
    kind: str
    diff_kind: str
    diff: str | None
    truncated: bool

@final
class HistoryDiff(Record):
    operation_id: str
    summary: str
    paths: list[PathDiff]

@final
class FoundUp(Record):
    path: str
    name: str
    found: bool
    found_path: str | None
    kind: Literal["file", "directory", "symlink", "special"] | None
    searched: list[str]

@final
class FileDiff(Record):
    path: str
    other: str
    identical: bool
    diff: str
    lines_added: int
    lines_removed: int
    truncated: bool
    path_hash: str
    other_hash: str

@final
class ByteRange(Record):
    path: str
    # The document's base64, decoded: to_dict() keeps the base64 text.
    content: bytes
    offset: int
    length: int
    size_bytes: int
    next_offset: int | None
    content_hash: str

@final
class Filekeeper:
    """A handle on one Filekeeper home: the workspace registry."""

    def __init__(self, home: StrPath | None = None) -> None: ...
    def init(self) -> InitReport: ...
    def create_workspace(self, name: str, root: StrPath) -> WorkspaceRecord: ...
    def list_workspaces(self) -> list[WorkspaceRecord]: ...
    def show_workspace(self, name: str) -> WorkspaceRecord: ...
    def use_workspace(self, name: str) -> WorkspaceRecord: ...
    def remove_workspace(self, name: str) -> WorkspaceRecord: ...
    def workspace(self, name: str | None = None, root: StrPath | None = None) -> Workspace: ...

@final
class Workspace:
    """One open workspace: reads, mutations, edits and history."""

    @property
    def name(self) -> str | None: ...
    def workspace_info(self) -> WorkspaceInfo: ...
    def status(self) -> WorkspaceStatus: ...

    # Reads.
    def read_file(
        self,
        path: str,
        *,
        start_line: int | None = None,
        end_line: int | None = None,
        max_bytes: int | None = None,
        max_lines: int | None = None,
        encoding: str | None = None,
        snapshot: bool = False,
    ) -> ReadResult: ...
    def read_many(
        self,
        paths: list[str],
        *,
        start_line: int | None = None,
        end_line: int | None = None,
        max_bytes_per_file: int | None = None,
        max_lines_per_file: int | None = None,
        encoding: str | None = None,
    ) -> list[ReadResult | FailedPath]: ...
    def list_directory(
        self,
        path: str | None = None,
        *,
        recursive: bool = False,
        glob: str | None = None,
        max_entries: int | None = None,
        cursor: str | None = None,
    ) -> Listing: ...
    def file_info(self, path: str) -> FileInfo: ...
    def hash_file(self, path: str) -> FileHash: ...
    def exists(self, path: str) -> Existence: ...
    def find_up(self, path: str, name: str) -> FoundUp: ...
    def diff_files(self, path: str, other: str, *, max_bytes: int | None = None) -> FileDiff: ...
    def read_bytes(
        self, path: str, *, offset: int | None = None, length: int | None = None
    ) -> ByteRange: ...
    def search_files(
        self,
        path: str,
        pattern: str,
        *,
        max_results: int | None = None,
        cursor: str | None = None,
    ) -> Listing: ...
    def search_content(
        self,
        path: str,
        query: str,
        *,
        regex: bool = False,
        glob: str | None = None,
        ignore_case: bool = False,
        max_results: int | None = None,
        encoding: str | None = None,
        cursor: str | None = None,
    ) -> GrepResult: ...

    # Whole files and directories.
    def create_file(
        self,
        path: str,
        content: str | bytes,
        *,
        allow_existing: bool = False,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def write_file(
        self,
        path: str,
        content: str | bytes,
        *,
        expected_hash: str | None = None,
        remove_bom: bool = False,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def copy_file(
        self,
        source: str,
        destination: str,
        *,
        expected_destination_hash: str | None = None,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def move_file(
        self,
        source: str,
        destination: str,
        *,
        overwrite: bool = False,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def delete_file(
        self,
        path: str,
        *,
        expected_hash: str | None = None,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def create_dir(
        self,
        path: str,
        *,
        parents: bool = False,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def move_dir(
        self,
        source: str,
        destination: str,
        *,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def delete_dir(
        self,
        path: str,
        *,
        recursive: bool = False,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...

    # Edits.
    def replace_text(
        self,
        path: str,
        old: str,
        new: str,
        *,
        policy: Literal["first", "all"] = "first",
        expected_match_count: int | None = None,
        occurrence: int | None = None,
        expected_content: str | None = None,
        expected_hash: str | None = None,
        base_hash: str | None = None,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def replace_lines(
        self,
        path: str,
        start: int,
        end: int,
        replacement: str,
        *,
        expected_content: str | None = None,
        expected_hash: str | None = None,
        base_hash: str | None = None,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def insert_lines(
        self,
        path: str,
        content: str,
        *,
        position: Literal["before", "after", "end"],
        line: int | None = None,
        expected_content: str | None = None,
        expected_hash: str | None = None,
        base_hash: str | None = None,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def delete_lines(
        self,
        path: str,
        start: int,
        end: int,
        *,
        expected_content: str | None = None,
        expected_hash: str | None = None,
        base_hash: str | None = None,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def apply_patch(
        self,
        patch: str,
        *,
        base_hash: str | None = None,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...

    # History.
    def get_operation(self, operation_id: str) -> OperationRecord: ...
    def list_history(
        self,
        *,
        path: str | None = None,
        actor: str | None = None,
        task_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> HistoryList: ...
    def diff_operation(self, operation_id: str) -> HistoryDiff: ...
    def undo(
        self,
        operation_id: str,
        *,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
    def undo_last(
        self,
        *,
        dry_run: bool = False,
        actor: str | None = None,
        task_id: str | None = None,
        allow_sensitive_write: bool = False,
    ) -> MutationResult: ...
