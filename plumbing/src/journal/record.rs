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
    /// What the operation did: `write`, `create`, `replace_text`, `undo`, ... (an operation a
    /// script recorded through the plumbing names its own).
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
    /// The paths a partial operation did not change (`metadata.unchanged_paths`, recorded when
    /// it was marked partial): an undo leaves them alone. None for any other operation.
    pub fn unchanged_paths(&self) -> Vec<&str> {
        match self.status {
            Status::Partial => self.metadata["unchanged_paths"]
                .as_array()
                .map(|paths| paths.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// The paths a partial operation had brought to their after state when it was marked
    /// partial (`done_paths` in its metadata); `None` for a record without them (one marked
    /// before 2026-12-04, or not partial), whose done paths are unknown.
    pub fn done_paths(&self) -> Option<Vec<&str>> {
        match self.status {
            Status::Partial => self.metadata["done_paths"]
                .as_array()
                .map(|paths| paths.iter().filter_map(Value::as_str).collect()),
            _ => None,
        }
    }

    /// The paths whose contents an undo of this operation needs and were never stored
    /// ([`missing_for_undo`], its unchanged paths aside): none when it can be undone.
    pub fn missing_for_undo(&self) -> Vec<&str> {
        missing_for_undo(&self.items, &self.unchanged_paths())
    }

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

/// The files an operation moved, as pairs of indexes into `items` (the path it left, the path
/// it came to): the one file the operation removed and the one file it created with a given
/// content and mode, in directories the operation neither made nor removed. An undo renames
/// such a file back instead of removing it and writing the old path again from the store: the
/// file keeps its inode, its other links and its times, and one above the history cap, whose
/// bytes were never stored, can be moved back too. Two files removed, or two created, with
/// the same content and mode pair with none: which went where is not recorded, and renaming
/// the wrong one back would give a path another file's inode, and its other links with it.
pub fn moved_files(items: &[Item]) -> Vec<(usize, usize)> {
    use std::collections::{HashMap, HashSet};
    let dirs_made_or_removed: HashSet<&str> = items
        .iter()
        .filter(|i| i.kind == Kind::Directory && i.before_exists != i.after_exists)
        .map(|i| i.path.as_str())
        .collect();
    let in_kept_dirs = |path: &str| {
        !path
            .match_indices('/')
            .any(|(at, _)| dirs_made_or_removed.contains(&path[..at]))
    };
    type Ends = (Vec<usize>, Vec<usize>);
    let mut by_content: HashMap<(ObjectId, Option<u32>), Ends> = HashMap::new();
    for (at, i) in items.iter().enumerate() {
        if i.kind != Kind::File || !in_kept_dirs(&i.path) {
            continue;
        }
        match (i.before_exists, i.after_exists, i.before_hash, i.after_hash) {
            (true, false, Some(hash), _) => {
                by_content
                    .entry((hash, i.before_mode))
                    .or_default()
                    .0
                    .push(at);
            }
            (false, true, _, Some(hash)) => {
                by_content
                    .entry((hash, i.after_mode))
                    .or_default()
                    .1
                    .push(at);
            }
            _ => {}
        }
    }
    let mut pairs: Vec<(usize, usize)> = by_content
        .into_values()
        .filter_map(|(left, came)| match (left.as_slice(), came.as_slice()) {
            (&[from], &[to]) => Some((from, to)),
            _ => None,
        })
        .collect();
    pairs.sort_unstable();
    pairs
}

/// The paths of `items` whose contents an undo needs and were never stored: the files whose
/// bytes were not stored (above the history cap), except the ends of a move, which an undo
/// renames back, and the paths the operation left `unchanged` (a partial one's, which an
/// undo leaves alone). A move one of whose ends is unchanged is no move to rename back. An
/// operation with none can be undone as far as its contents go.
pub fn missing_for_undo<'a>(items: &'a [Item], unchanged: &[&str]) -> Vec<&'a str> {
    let untouched = |at: usize| unchanged.contains(&items[at].path.as_str());
    let moved: Vec<usize> = moved_files(items)
        .into_iter()
        .filter(|&(from, to)| !untouched(from) && !untouched(to))
        .flat_map(|(from, to)| [from, to])
        .collect();
    items
        .iter()
        .enumerate()
        .filter(|&(at, i)| i.history_skipped && !untouched(at) && !moved.contains(&at))
        .map(|(_, i)| i.path.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, before: Option<u8>, after: Option<u8>, skipped: bool) -> Item {
        let id = |b: u8| ObjectId::of(&[b]);
        Item {
            path: path.into(),
            change: "modified".into(),
            kind: Kind::File,
            before_exists: before.is_some(),
            after_exists: after.is_some(),
            before_hash: before.map(id),
            after_hash: after.map(id),
            before_mode: before.map(|_| 0o644),
            after_mode: after.map(|_| 0o644),
            history_skipped: skipped,
        }
    }

    fn dir(path: &str, before: bool, after: bool) -> Item {
        Item {
            kind: Kind::Directory,
            before_hash: None,
            after_hash: None,
            before_mode: None,
            after_mode: None,
            ..file(path, before.then_some(0), after.then_some(0), false)
        }
    }

    #[test]
    fn a_file_that_left_one_path_and_came_to_another_is_moved() {
        let items = [
            file("a", Some(1), None, true),
            file("b", None, Some(1), true),
        ];
        assert_eq!(moved_files(&items), [(0, 1)]);
        assert!(missing_for_undo(&items, &[]).is_empty());
        // Left partial with the new path never made: the old one's bytes are gone; with the
        // old path never removed, the new one is not a move to rename back either.
        assert!(!missing_for_undo(&items, &["b"]).is_empty());
        assert!(!missing_for_undo(&items, &["a"]).is_empty());
        // Other content, another mode, or a destination that existed before: no move.
        let other = [
            file("a", Some(1), None, true),
            file("b", None, Some(2), true),
        ];
        assert!(moved_files(&other).is_empty());
        assert!(!missing_for_undo(&other, &[]).is_empty());
        let mut chmod = other.clone();
        chmod[1] = file("b", None, Some(1), true);
        chmod[1].after_mode = Some(0o755);
        assert!(moved_files(&chmod).is_empty());
        let over = [
            file("a", Some(1), None, true),
            file("b", Some(3), Some(1), true),
        ];
        assert!(moved_files(&over).is_empty());
        assert!(!missing_for_undo(&over, &[]).is_empty());
    }

    #[test]
    fn equal_files_moved_together_and_made_or_removed_directories_are_left_out() {
        // Which of two equal files went where is not recorded: no pair, for either.
        let items = [
            file("a", Some(1), None, false),
            file("c", Some(1), None, false),
            file("b", None, Some(1), false),
        ];
        assert!(moved_files(&items).is_empty());
        let items = [
            file("a", Some(1), None, false),
            file("c", Some(1), None, false),
            file("b", None, Some(1), false),
            file("d", None, Some(1), false),
            file("e", Some(2), None, false),
            file("f", None, Some(2), false),
        ];
        assert_eq!(moved_files(&items), [(4, 5)]);
        let moved_dir = [
            dir("d", true, false),
            file("d/x", Some(1), None, true),
            dir("e", false, true),
            file("e/x", None, Some(1), true),
        ];
        assert!(moved_files(&moved_dir).is_empty());
        assert!(!missing_for_undo(&moved_dir, &[]).is_empty());
        // A directory whose name only starts like the file's is not its directory.
        let beside = [
            dir("d", false, true),
            file("dx", Some(1), None, true),
            file("e", None, Some(1), true),
        ];
        assert_eq!(moved_files(&beside), [(1, 2)]);
    }
}
