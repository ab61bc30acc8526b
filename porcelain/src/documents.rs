//! The results the surfaces print that are not one library call's return value: what
//! `keeper --json` and the MCP server assemble around the library's results. They are types so
//! that each document is serialized from, and its schema generated from, one definition.

use crate::envelope::{Always, Document, ErrorBody, False};
use crate::history::HistoryOperation;
use crate::plumbing::config::Limits;
use crate::{Error, HistoryEntry, ManyItem, ReadResult};
use schemars::JsonSchema;
use serde::Serialize;

/// `keeper --version --json`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Version {
    /// The release.
    pub version: String,
    /// The journal schema this build writes.
    pub journal_schema_version: i64,
    /// The commit this build was made from (12 hex digits), or `unknown` outside a checkout.
    pub commit: String,
}

/// `keeper completions SHELL --json`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Completions {
    /// The shell the script is for (bash, zsh, fish, elvish, powershell).
    pub shell: String,
    /// The completion script, as `keeper completions SHELL` prints it.
    pub script: String,
}

/// `keeper man --json`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Manual {
    /// The manual page in roff, as `keeper man` prints it.
    pub manual: String,
}

/// `keeper init`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Initialised {
    /// The home directory (a host path: the one a person asked about).
    pub home: String,
    /// Whether `config.toml` was written now (it is never overwritten).
    pub config_written: bool,
}

/// A registered workspace as the `workspace` commands print it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WorkspaceRecord {
    /// The registered name.
    pub name: String,
    /// The workspace root (a host path: the one a person registered).
    pub root: String,
    /// Whether it is the default workspace.
    pub default: bool,
    /// When it was registered (RFC 3339, UTC).
    pub created_at: String,
}

impl From<&crate::WorkspaceEntry> for WorkspaceRecord {
    fn from(entry: &crate::WorkspaceEntry) -> WorkspaceRecord {
        WorkspaceRecord {
            name: entry.registration.name.clone(),
            root: entry.registration.root.display().to_string(),
            default: entry.is_default,
            created_at: entry.registration.created_at.clone(),
        }
    }
}

/// `keeper workspace create|show|use`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WorkspaceShown {
    /// The workspace created, shown, or made the default.
    pub workspace: WorkspaceRecord,
}

/// `keeper workspace remove`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WorkspaceRemoved {
    /// The registration that was removed (`default` is false: it is no longer registered).
    pub workspace: WorkspaceRecord,
    /// Sentences for people: that the workspace's files and history were left in place.
    pub warnings: Vec<String>,
}

/// `keeper workspace list`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WorkspaceList {
    /// Every registered workspace, sorted by name; empty when the home has none.
    pub workspaces: Vec<WorkspaceRecord>,
}

/// `keeper file hash`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FileHash {
    /// The path as given.
    pub path: String,
    /// `sha256:` and 64 hex digits of the exact bytes.
    pub hash: String,
    /// The file's size in bytes.
    pub size_bytes: u64,
}

/// `keeper cat-blob --json`: the blob's facts and its text (a blob that is not UTF-8 is
/// BINARY_CONTENT_REFUSED with `--json`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CatBlobText {
    /// The blob's id, size and warnings, as `cat-blob` reports them without `--json`.
    #[serde(flatten)]
    pub blob: crate::plumbing::commands::CatBlob,
    /// The blob's bytes, which are UTF-8 text.
    pub content: String,
}

/// A plumbing document whose `workspace` is there only when a workspace was opened:
/// `hash-object` needs none for standard input without `-w`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WorkspaceIfOpened<T> {
    /// The workspace's registered name, or null for a workspace named by its root alone;
    /// absent when no workspace was opened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<Option<String>>,
    /// The plumbing command's own result, its fields flat beside `workspace`.
    #[serde(flatten)]
    pub result: T,
}

/// `file read-many` and `file_read_many`: one document per path, in order.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ReadMany {
    /// One document per requested path, in the order the paths were given.
    pub results: Vec<ReadManyItem>,
}

/// One path of a read of several files: the read's own success document (without
/// `workspace`), or its own failure document with the path as given.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum ReadManyItem {
    /// The path was read: `ok` true, then the read's fields.
    Read(Document<ReadResult>),
    /// The path could not be read; the other paths are not affected.
    Failed(FailedPath),
}

/// A failure document for one path of a read of several files.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FailedPath {
    /// Always false.
    pub ok: False,
    /// Why this path failed, worded for the surface that asked.
    pub error: ErrorBody,
    /// The path as given.
    pub path: String,
}

impl ReadManyItem {
    /// The document of one path; `name_argument` words a refusal's message for the surface.
    pub fn new(item: ManyItem, name_argument: impl Fn(Error) -> Error) -> ReadManyItem {
        match item {
            ManyItem::Read(read) => ReadManyItem::Read(Document {
                ok: Always,
                result: read,
            }),
            ManyItem::Failed { path, error } => ReadManyItem::Failed(FailedPath {
                ok: Always,
                error: (&name_argument(error)).into(),
                path,
            }),
        }
    }
}

/// `history list` and `history_list`: newest first, a page at a time.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HistoryList {
    /// The operations that pass the filter, at most its limit.
    pub operations: Vec<HistoryEntry>,
    /// Older operations pass the filter too.
    pub truncated: bool,
    /// When truncated: the cursor that continues with the operations older than the last one
    /// returned (pass it back with the same filter); null on the last page, or when no key to
    /// sign it could be kept.
    pub next_cursor: Option<String>,
}

/// `history show` and `history_get`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HistoryShow {
    /// The operation, with its items and metadata.
    pub operation: HistoryOperation,
    /// The undo that reversed it, if any.
    pub undone_by: Option<String>,
    /// Whether an undo of it would be tried (it may still be refused on a conflict).
    pub undoable: bool,
}

impl From<HistoryEntry> for HistoryShow {
    fn from(entry: HistoryEntry) -> HistoryShow {
        HistoryShow {
            operation: entry.operation,
            undone_by: entry.undone_by,
            undoable: entry.undoable,
        }
    }
}

/// The MCP server's `workspace_list`: the one workspace it serves.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ServedWorkspaces {
    /// Exactly one entry: the workspace the server was started on.
    pub workspaces: Vec<ServedWorkspace>,
}

/// The workspace an MCP server is bound to, as its `workspace_list` shows it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ServedWorkspace {
    /// The registered name, or null for a workspace named by its root alone.
    pub name: Option<String>,
    /// Always true: the server is bound to this workspace.
    pub served: bool,
}

/// The MCP server's `workspace_info`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WorkspaceInfo {
    /// The registered name, or null for a workspace named by its root alone.
    pub name: Option<String>,
    /// Where the state lives, `project` (in the tree) or `home` (under the Filekeeper home);
    /// null while the workspace has none yet.
    #[schemars(extend("enum" = ["project", "home", null]))]
    pub state: Option<&'static str>,
    /// The bounds in force, from the home's `config.toml` (the default for each one it does
    /// not set).
    pub limits: Limits,
}
