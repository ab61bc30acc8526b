//! `status`: what a workspace's history holds and costs, and the retention policy in force.
//! A read: it takes no lock, records nothing, and never creates the state it reports on.

use crate::{Result, Workspace};
use filekeeper_plumbing::config::{Retention, StateLocation};
use filekeeper_plumbing::status::{JournalCounts, StoreCounts, journal_counts, store_counts};
use schemars::JsonSchema;
use serde::Serialize;

/// A workspace's status: where its state lives, its journal, its object store and the
/// retention policy. A workspace that has recorded nothing reports zeros.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct WorkspaceStatus {
    /// Where the state lives, `project` (in the tree) or `home` (under the Filekeeper home);
    /// null while the workspace has none yet.
    #[schemars(extend("enum" = ["project", "home", null]))]
    pub state: Option<&'static str>,
    /// The operations in the journal.
    pub journal: JournalStatus,
    /// The objects in the object store.
    pub store: StoreStatus,
    /// The history retention policy in force (`[history]` in the home's `config.toml`).
    pub retention: RetentionStatus,
}

/// The journal's operations, counted by what can still be done with them.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct JournalStatus {
    /// The journal's schema version as stored; null while there is no journal.
    pub schema_version: Option<i64>,
    /// Every operation recorded, whatever its status.
    pub operations: u64,
    /// Operations still pending: one in progress now, or one a process that died left for
    /// the next change to recover.
    pub pending: u64,
    /// Operations that undo would try: committed or partial, not undone, not pruned, with
    /// their contents stored.
    pub undoable: u64,
    /// Operations reversed by an undo.
    pub undone: u64,
    /// Operations pruned: still listed in history, no longer undoable.
    pub pruned: u64,
    /// The oldest undoable operation: how far back undo can go. Null when none is undoable.
    pub oldest_undoable: Option<OldestUndoable>,
}

/// The oldest operation that can still be undone.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OldestUndoable {
    /// Its id.
    pub operation_id: String,
    /// When it was recorded (RFC 3339, UTC).
    pub created_at: String,
}

/// The object store, counted by walking it.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct StoreStatus {
    /// Objects stored.
    pub objects: u64,
    /// Their size on disk, compressed, in bytes.
    pub compressed_bytes: u64,
    /// Their size uncompressed, in bytes, over the objects whose size is recorded in their
    /// header (all but `objects_of_unknown_size`).
    pub uncompressed_bytes: u64,
    /// Objects whose uncompressed size is not recorded (blobs the plumbing stored as a
    /// stream, from standard input), left out of `uncompressed_bytes`.
    pub objects_of_unknown_size: u64,
    /// Files in the store that are not objects: temp files of interrupted writes, which gc
    /// removes.
    pub stray_files: u64,
}

/// The retention policy: its rules, and whether any is set.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RetentionStatus {
    /// Whether any rule is set. When false, history is kept in full and only a person
    /// pruning by hand removes any of it.
    pub enabled: bool,
    /// The rules, each null when not set.
    #[serde(flatten)]
    pub rules: Retention,
}

impl From<&Retention> for RetentionStatus {
    fn from(rules: &Retention) -> RetentionStatus {
        RetentionStatus {
            enabled: rules.enabled(),
            rules: rules.clone(),
        }
    }
}

impl From<JournalCounts> for JournalStatus {
    fn from(counts: JournalCounts) -> JournalStatus {
        JournalStatus {
            schema_version: Some(counts.schema_version),
            operations: counts.operations,
            pending: counts.pending,
            undoable: counts.undoable,
            undone: counts.undone,
            pruned: counts.pruned,
            oldest_undoable: counts.oldest_undoable.map(|(operation_id, created_at)| {
                OldestUndoable {
                    operation_id,
                    created_at,
                }
            }),
        }
    }
}

impl From<StoreCounts> for StoreStatus {
    fn from(counts: StoreCounts) -> StoreStatus {
        StoreStatus {
            objects: counts.objects,
            compressed_bytes: counts.compressed_bytes,
            uncompressed_bytes: counts.uncompressed_bytes,
            objects_of_unknown_size: counts.objects_of_unknown_size,
            stray_files: counts.stray_files,
        }
    }
}

/// How every surface names a state location: `project`, or `home` for state kept under the
/// Filekeeper home. Never a host path.
pub fn state_word(location: StateLocation) -> &'static str {
    match location {
        StateLocation::Project => "project",
        StateLocation::Global => "home",
    }
}

impl Workspace {
    /// The workspace's status. Cheap: the journal's counts are indexed queries, and the
    /// store's are one `stat` and one 18-byte read per object.
    pub fn status(&self) -> Result<WorkspaceStatus> {
        let retention = RetentionStatus::from(&self.inner.retention);
        let Some(state) = self.inner.state(false)? else {
            return Ok(WorkspaceStatus {
                state: None,
                journal: JournalStatus::default(),
                store: StoreStatus::default(),
                retention,
            });
        };
        let journal = journal_counts(&state.dir.join(filekeeper_plumbing::journal::FILE_NAME))?
            .map(JournalStatus::from)
            .unwrap_or_default();
        Ok(WorkspaceStatus {
            state: Some(state_word(state.location)),
            journal,
            store: store_counts(&state.dir.join("objects"))?.into(),
            retention,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{Filekeeper, MutationOptions};

    #[test]
    fn a_workspace_with_no_state_reports_zeros_and_creates_nothing() {
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let keeper = Filekeeper::new(Some(&home.path().join("home"))).unwrap();
        let ws = keeper.workspace(None, Some(root.path())).unwrap();
        let status = ws.status().unwrap();
        assert_eq!(status.state, None);
        assert_eq!(status.journal.operations, 0);
        assert_eq!(status.journal.schema_version, None);
        assert_eq!(status.store.objects, 0);
        assert!(!status.retention.enabled);
        assert!(!root.path().join(".filekeeper").exists());
        assert!(!home.path().join("home").exists());
    }

    #[test]
    fn writes_and_an_undo_are_counted() {
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let keeper = Filekeeper::new(Some(home.path())).unwrap();
        let ws = keeper.workspace(None, Some(root.path())).unwrap();
        let options = MutationOptions::default();
        let first = ws
            .write_file("a.txt", b"one\n", None, false, &options)
            .unwrap();
        ws.write_file("a.txt", b"two\n", None, false, &options)
            .unwrap();
        ws.undo_last(None, &options).unwrap();
        let status = ws.status().unwrap();
        assert_eq!(status.state, Some("project"));
        assert_eq!(status.journal.operations, 3);
        assert_eq!(status.journal.undone, 1);
        assert_eq!(status.journal.undoable, 2, "the first write and the undo");
        assert_eq!(
            status.journal.oldest_undoable.unwrap().operation_id,
            first.operation_id.unwrap()
        );
        // "one\n" and "two\n": the undo stored nothing new.
        assert_eq!(status.store.objects, 2);
        assert_eq!(status.store.uncompressed_bytes, 8);
    }
}
