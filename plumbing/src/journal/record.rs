//! The journal's records: an operation, its items, and the views the commands print.

use crate::error::{Error, Result};
use crate::oid::ObjectId;
use crate::resolve::Kind;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// Where an operation stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Recorded, and the tree may be partly changed: not yet resolved.
    Pending,
    /// Applied and verified.
    Committed,
    /// Abandoned with the tree at its before state.
    RolledBack,
    /// Resolved after a failure with some paths changed and others not.
    Partial,
    /// A refused undo: a ledger entry that changed nothing.
    UndoRefused,
}

impl Status {
    /// The status as the journal stores it and JSON shows it, e.g. `rolled_back`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Committed => "committed",
            Status::RolledBack => "rolled_back",
            Status::Partial => "partial",
            Status::UndoRefused => "undo_refused",
        }
    }

    /// The status stored as `text`; `None` for a word the journal does not know.
    pub(crate) fn parse(text: &str) -> Option<Status> {
        [
            Status::Pending,
            Status::Committed,
            Status::RolledBack,
            Status::Partial,
            Status::UndoRefused,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

/// One path of an operation: its state before and after.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Item {
    /// Workspace-relative path.
    pub path: String,
    /// `created`, `modified`, `deleted`, or another word a command documents.
    pub change: String,
    /// Whether the path is a file or a directory; a directory item carries no content hashes.
    pub kind: Kind,
    /// Whether anything was at the path before the operation.
    pub before_exists: bool,
    /// Whether anything is at the path after the operation.
    pub after_exists: bool,
    /// The object id of the content before (`sha256:` and 64 hex digits), null for none.
    pub before_hash: Option<ObjectId>,
    /// The object id of the content after, null for none.
    pub after_hash: Option<ObjectId>,
    /// Permission bits before, as a plain integer (0644 is 420).
    pub before_mode: Option<u32>,
    /// Permission bits after.
    pub after_mode: Option<u32>,
    /// The file was above the history size cap: its bytes were deliberately not stored.
    pub history_skipped: bool,
}

/// An operation passed over on the way to the newest undoable one.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PassedOver {
    /// The id of the operation passed over.
    pub operation_id: String,
    /// Its one-line summary, as recorded.
    pub summary: String,
    /// Why it cannot be undone: `history_skipped` (some path's bytes were above
    /// `max_history_blob_bytes` and were not stored).
    #[schemars(extend("enum" = ["history_skipped"]))]
    pub reason: &'static str,
}

/// What `begin` records.
#[derive(Clone, Debug, Default)]
pub struct NewOperation {
    /// What the operation does: `write`, `create`, `undo`, ..., or a script's own word. Must
    /// not be blank.
    pub kind: String,
    /// Who asked for it, as the caller named itself; `None` when it did not.
    pub actor: Option<String>,
    /// The caller's task it belongs to, for filtering history; `None` when not given.
    pub task_id: Option<String>,
    /// One sentence for people saying what was done.
    pub summary: String,
    /// The workspace-relative path the operation is about (the destination of a copy or
    /// move); `None` for none.
    pub target_path: Option<String>,
    /// The workspace-relative path a copy or move started from; `None` for other operations.
    pub source_path: Option<String>,
    /// For an undo, the id of the operation it reverses, which must be in the journal.
    pub undoes: Option<String>,
    /// Recorded by a process holding the workspace lock for the operation's whole life, so
    /// if it is still pending when the lock is free, its process died: recovery may resolve it.
    pub under_lock: bool,
    /// Free-form JSON the caller attaches, recorded and shown as given.
    pub metadata: Map<String, Value>,
    /// One per path the operation changes, in the order they are recorded.
    pub items: Vec<Item>,
}

/// A recorded operation with its items.
#[derive(Clone, Debug)]
pub struct Operation {
    /// The journal's sequence number: later operations have larger numbers.
    pub seq: i64,
    /// `op_` and 16 lowercase hex digits.
    pub id: String,
    /// What the operation did (see [`NewOperation::kind`]).
    pub kind: String,
    /// Where the operation stands now.
    pub status: Status,
    /// When it was recorded (RFC 3339, UTC).
    pub created_at: String,
    /// When its status last changed (RFC 3339, UTC).
    pub updated_at: String,
    /// Who asked for it, as recorded; `None` when the caller did not say.
    pub actor: Option<String>,
    /// The caller's task it belongs to, as recorded; `None` when not given.
    pub task_id: Option<String>,
    /// One sentence for people saying what was done.
    pub summary: String,
    /// The workspace-relative path the operation is about; `None` for none.
    pub target_path: Option<String>,
    /// The path a copy or move started from; `None` for other operations.
    pub source_path: Option<String>,
    /// For an undo, the operation it reverses.
    pub undoes: Option<String>,
    /// Recorded by a process holding the workspace lock for the operation's whole life: left
    /// pending while the lock is free, it is a dead process's, which recovery may resolve.
    pub under_lock: bool,
    /// The metadata recorded: a JSON object, or null when the stored text could not be read
    /// back.
    pub metadata: Value,
    /// Its items, in recorded order.
    pub items: Vec<Item>,
    /// When a prune cut it from the undoable history (RFC 3339, UTC); `None` while it is not
    /// pruned.
    pub pruned_at: Option<String>,
    /// The prune that cut it (`prune_` and 16 hex digits, a row of the `prunes` table).
    pub pruned_by: Option<String>,
}

impl Item {
    /// Refuses items that describe no change a journal could hold.
    pub fn check_shape(&self) -> Result<()> {
        if !self.before_exists && !self.after_exists {
            return Err(Error::invalid(format!(
                "item {} must exist before or after the operation",
                self.path
            )));
        }
        if self.kind == Kind::Directory && (self.before_hash.is_some() || self.after_hash.is_some())
        {
            return Err(Error::invalid(format!(
                "directory item {} cannot carry content hashes",
                self.path
            )));
        }
        Ok(())
    }
}

/// What every view of an operation shows first.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OperationHead {
    /// `op_` and 16 lowercase hex digits.
    pub id: String,
    /// The journal's sequence number: later operations have larger numbers.
    pub seq: i64,
    /// What the operation did: `write`, `create`, `replace_text`, `undo`, ... (a script's
    /// `journal-begin` names its own).
    pub kind: String,
    /// Where the operation stands now.
    pub status: Status,
    /// When it was recorded (RFC 3339, UTC).
    pub created_at: String,
    /// When its status last changed (RFC 3339, UTC).
    pub updated_at: String,
    /// Who asked for it, as the caller named itself; null when it did not.
    pub actor: Option<String>,
    /// The caller's task it belongs to; null when not given.
    pub task_id: Option<String>,
    /// One sentence for people saying what was done.
    pub summary: String,
    /// The workspace-relative path the operation is about (the destination of a copy or
    /// move); null for none.
    pub target_path: Option<String>,
    /// The workspace-relative path a copy or move started from; null for other operations.
    pub source_path: Option<String>,
    /// The operation this one undoes, for an undo.
    pub undoes: Option<String>,
    /// When a prune cut it from the undoable history (its row stays, its blobs may be
    /// collected, and it can no longer be undone); null while it is not pruned.
    pub pruned_at: Option<String>,
    /// The prune that cut it, `prune_` and 16 hex digits; null while it is not pruned.
    pub pruned_by: Option<String>,
}

/// A journal record as the plumbing commands print it.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OperationRecord {
    /// What every view shows first; its fields sit directly in the record.
    #[serde(flatten)]
    pub head: OperationHead,
    /// Recorded by a process holding the workspace lock for the operation's whole life.
    pub under_lock: bool,
    /// Free-form metadata given at `journal-begin`: an object (null only when the stored
    /// text could not be read back).
    #[schemars(with = "Option<Map<String, Value>>")]
    pub metadata: Value,
    /// One per path the operation changes, in recorded order.
    pub items: Vec<Item>,
}

impl Operation {
    /// Whether every after blob of this operation must be stored. A mutation stores its new
    /// contents while it records the operation, and only its first step waits for them: one
    /// rolled back before any step may lack them, and one still pending under the lock (in
    /// flight, or left by a crash for recovery) may not have them yet. Before blobs are
    /// stored before any operation is recorded, so they are always required.
    pub fn after_blobs_required(&self) -> bool {
        match self.status {
            Status::RolledBack => false,
            Status::Pending => !self.under_lock,
            _ => true,
        }
    }

    /// The fields every view of the operation shows first.
    pub(crate) fn head(&self) -> OperationHead {
        OperationHead {
            id: self.id.clone(),
            seq: self.seq,
            kind: self.kind.clone(),
            status: self.status,
            created_at: self.created_at.clone(),
            updated_at: self.updated_at.clone(),
            actor: self.actor.clone(),
            task_id: self.task_id.clone(),
            summary: self.summary.clone(),
            target_path: self.target_path.clone(),
            source_path: self.source_path.clone(),
            undoes: self.undoes.clone(),
            pruned_at: self.pruned_at.clone(),
            pruned_by: self.pruned_by.clone(),
        }
    }

    /// The operation as the plumbing commands print it.
    pub fn record(&self) -> OperationRecord {
        OperationRecord {
            head: self.head(),
            under_lock: self.under_lock,
            metadata: self.metadata.clone(),
            items: self.items.clone(),
        }
    }
}
