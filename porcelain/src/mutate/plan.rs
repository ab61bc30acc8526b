//! A described change, not yet made: the journal items it records and the steps that make it.

use super::MutationExtra;
use super::diffs::Sides;
use super::items::item_changes;
use super::preview::Preview;
use filekeeper_plumbing::ObjectId;
use filekeeper_plumbing::journal::Item;
use filekeeper_plumbing::publish::Expect;
use std::collections::HashMap;
use std::sync::Arc;

/// An effect, in terms of workspace-relative paths resolved again when applied.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    Publish {
        path: String,
        expect: Expect,
        mode: Option<u32>,
        content: Arc<Vec<u8>>,
    },
    /// A file removed, if it still holds `hash` (the content recorded as its before state).
    Remove {
        path: String,
        hash: ObjectId,
    },
    MakeDir {
        path: String,
    },
    /// A directory put back with its recorded permission bits.
    RestoreDir {
        path: String,
        mode: u32,
    },
    RemoveDir {
        path: String,
    },
    /// A file or directory renamed. A file source must still hold `from_hash`; the
    /// destination must be absent, or with `replaces` a file holding that content.
    Rename {
        from: String,
        to: String,
        from_hash: Option<ObjectId>,
        replaces: Option<ObjectId>,
    },
}

impl Step {
    /// The step as a line of a dry run's preview (`delete notes.md`), its paths quoted as
    /// [`crate::quote::path`] writes them, so that a name cannot break the line. A
    /// publication is shown by its diff, not by this line, except where an undo restores.
    pub fn preview_line(&self) -> String {
        let q = |p: &str| crate::quote::path(p).into_owned();
        match self {
            Step::Publish { path, .. } => format!("restore {}\n", q(path)),
            Step::Remove { path, .. } => format!("delete {}\n", q(path)),
            Step::MakeDir { path } => format!("mkdir {}\n", q(path)),
            Step::RestoreDir { path, mode } => format!("mkdir {} (mode {mode:o})\n", q(path)),
            Step::RemoveDir { path } => format!("rmdir {}\n", q(path)),
            Step::Rename { from, to, .. } => format!("rename {} -> {}\n", q(from), q(to)),
        }
    }

    /// The paths the step changes: a rename's two, every other step's one.
    pub fn paths(&self) -> Vec<&str> {
        match self {
            Step::Rename { from, to, .. } => vec![from, to],
            step => vec![step.path()],
        }
    }

    /// The path the step changes (a rename's source).
    pub fn path(&self) -> &str {
        match self {
            Step::Publish { path, .. }
            | Step::Remove { path, .. }
            | Step::MakeDir { path }
            | Step::RestoreDir { path, .. }
            | Step::RemoveDir { path } => path,
            Step::Rename { from, .. } => from,
        }
    }
}

/// One journal item and what the result reports of it.
pub(crate) struct Planned {
    pub item: Item,
    pub after_size: Option<u64>,
}

/// A described change, not yet made.
pub(crate) struct Plan {
    pub kind: &'static str,
    pub summary: String,
    /// The path the caller named (the result's `path`).
    pub given: String,
    /// The workspace-relative path the operation targets.
    pub target: String,
    pub source: Option<String>,
    /// The operation an undo reverses.
    pub undoes: Option<String>,
    pub items: Vec<Planned>,
    pub steps: Vec<Step>,
    /// Contents a rollback needs (the paths' before states): stored before the operation is
    /// recorded.
    pub blobs: Vec<Arc<Vec<u8>>>,
    /// Contents that exist only once the change is made (the new bytes of a write or edit):
    /// stored while the operation is recorded, and durable before the first step.
    pub after_blobs: Vec<Arc<Vec<u8>>>,
    pub warnings: Vec<String>,
    /// What a dry run shows; diffs are only computed when a dry run asks.
    pub preview: Preview,
    /// What each file item's diff in the result is made from, by path. An item without an
    /// entry has no bytes at hand (it is named, not diffed, unless it moved).
    pub sides: HashMap<String, Sides>,
    /// Command-specific result fields (match_stage, match_count, patch_files).
    pub extra: MutationExtra,
    /// A directory the steps rename into place whole (a directory move's destination). What
    /// a rename carries is whatever the source held at that instant, so after the steps every
    /// entry below it must be one the items name.
    pub renamed_tree: Option<String>,
}

impl Plan {
    /// An empty plan of `kind` for the path the caller named (`given`), targeting the
    /// workspace-relative `target`. A command fills in what its change has, beside this in
    /// struct update syntax, and leaves the rest empty.
    pub fn new(kind: &'static str, given: &str, target: &str) -> Plan {
        Plan {
            kind,
            summary: String::new(),
            given: given.to_owned(),
            target: target.to_owned(),
            source: None,
            undoes: None,
            items: Vec::new(),
            steps: Vec::new(),
            blobs: Vec::new(),
            after_blobs: Vec::new(),
            warnings: Vec::new(),
            preview: Preview::default(),
            sides: HashMap::new(),
            extra: MutationExtra::default(),
            renamed_tree: None,
        }
    }

    /// The item of the targeted path, whose hashes the result reports; none when the plan
    /// does not change it (an undo of a partial operation that left it as it was): another
    /// item's hashes would be reported as the target's.
    pub(super) fn target_item(&self) -> Option<&Item> {
        self.items
            .iter()
            .map(|p| &p.item)
            .find(|i| i.path == self.target)
    }

    pub(super) fn history_skipped(&self) -> Vec<String> {
        self.items
            .iter()
            .filter(|p| p.item.history_skipped)
            .map(|p| p.item.path.clone())
            .collect()
    }

    pub(super) fn changes_anything(&self) -> bool {
        self.items.iter().any(|p| item_changes(&p.item))
    }
}
