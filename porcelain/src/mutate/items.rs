//! The journal items a plan records: one per path, with its before and after state.

use super::target::Seen;
use crate::{Result, Workspace};
use filekeeper_plumbing::commands::{Observed, observe};
use filekeeper_plumbing::journal::Item;
use filekeeper_plumbing::resolve::Kind;

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
        change: "deleted".into(),
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
            ..dir_item(rel, "deleted", true, false)
        },
    }
}

pub(crate) fn dir_item(rel: &str, change: &str, before: bool, after: bool) -> Item {
    Item {
        path: rel.to_owned(),
        change: change.to_owned(),
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
