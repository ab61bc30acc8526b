//! The journal items a plan records: one per path, with its before and after state and the
//! word for what changed.

use super::target::Seen;
use crate::{Result, Workspace};
use filekeeper_plumbing::journal::Item;
use filekeeper_plumbing::path_state::{Observed, observe};
use filekeeper_plumbing::resolve::Kind;
use serde::Serialize;
use std::fmt;

/// What a change does to one path, as the journal records it and results report it. The
/// journal keeps the word as text (its plumbing commands accept words of their own), so the
/// library decides with this type and writes [`Change::as_str`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The path did not exist before.
    Created,
    /// The path's content or mode changed.
    Modified,
    /// The path no longer exists.
    Deleted,
    /// The path already holds what the change would put there.
    Unchanged,
    /// A patch section that renames a file (its content may change too).
    Renamed,
    /// A patch section that copies a file (its content may change too).
    Copied,
    /// A patch section that changes a file's mode and nothing else.
    ModeChanged,
}

impl Change {
    /// The word as the journal and the JSON output spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Created => "created",
            Change::Modified => "modified",
            Change::Deleted => "deleted",
            Change::Unchanged => "unchanged",
            Change::Renamed => "renamed",
            Change::Copied => "copied",
            Change::ModeChanged => "mode_changed",
        }
    }
}

/// The journal item's text.
impl From<Change> for String {
    fn from(change: Change) -> String {
        change.as_str().to_owned()
    }
}

impl Serialize for Change {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Workspace {
    /// The permission bits of the directory at the workspace-relative `rel`; `None` when it
    /// is not a directory.
    pub(crate) fn dir_mode(&self, rel: &str) -> Result<Option<u32>> {
        Ok(match observe(&self.inner, rel)? {
            Observed::Directory { mode } => Some(mode),
            _ => None,
        })
    }

    /// The item of an existing directory an operation removes, with its mode.
    pub(crate) fn removed_dir_item(&self, rel: &str) -> Result<Item> {
        Ok(removed_item(rel, None, self.dir_mode(rel)?))
    }
}

pub(crate) fn deleted_file(rel: &str, before: &Seen) -> Item {
    Item {
        path: rel.to_owned(),
        change: Change::Deleted.into(),
        kind: Kind::File,
        before_exists: true,
        after_exists: false,
        before_hash: Some(before.hash),
        after_hash: None,
        before_mode: Some(before.mode),
        after_mode: None,
        history_skipped: before.bytes.is_none(),
    }
}

/// A path removed: a file with its state, or a directory with its mode (`dir_mode`).
pub(super) fn removed_item(rel: &str, seen: Option<&Seen>, dir_mode: Option<u32>) -> Item {
    match seen {
        Some(seen) => deleted_file(rel, seen),
        None => Item {
            before_mode: dir_mode,
            ..dir_item(rel, Change::Deleted, true, false)
        },
    }
}

pub(crate) fn dir_item(rel: &str, change: Change, before: bool, after: bool) -> Item {
    Item {
        path: rel.to_owned(),
        change: change.into(),
        kind: Kind::Directory,
        before_exists: before,
        after_exists: after,
        before_hash: None,
        after_hash: None,
        before_mode: None,
        after_mode: None,
        history_skipped: false,
    }
}

pub(crate) fn item_changes(item: &Item) -> bool {
    item.before_exists != item.after_exists
        || item.before_hash != item.after_hash
        || (item.after_mode.is_some() && item.before_mode != item.after_mode)
}
