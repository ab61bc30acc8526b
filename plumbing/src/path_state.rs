//! What a workspace path holds now, and whether that is the state a journal item recorded.
//!
//! Committing or aborting a plumbing operation, verifying a mutation, recovering after a
//! crash and undoing all ask the same question of each path, so they ask it here.

use crate::error::{Code, Result};
use crate::journal::Item;
use crate::oid::ObjectId;
use crate::resolve::{Intent, Kind};
use crate::workspace::Workspace;

/// What a workspace path holds right now, observed without following a final link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observed {
    /// Nothing is there.
    Absent,
    /// A regular file: its content's object id and its permission bits.
    File {
        /// The object id of its content now.
        hash: ObjectId,
        /// Its permission bits (`mode & 0o7777`).
        mode: u32,
    },
    /// A directory and its permission bits.
    Directory {
        /// Its permission bits (`mode & 0o7777`).
        mode: u32,
    },
    /// A link, device or anything else a recorded state cannot match.
    Other,
}

/// What `path` holds now. A path that cannot hold any recorded state (a link, a path through
/// a file or through a link) is [`Observed::Other`], not an error: the caller is comparing,
/// not writing. So is a path inside a nested workspace's `.filekeeper/`, which releases
/// before 2026-12-04 recorded as content: it is never touched now, so an operation that
/// recorded one is recovered as partial and its undo is refused, instead of every later
/// change failing on it.
pub fn observe(ws: &Workspace, path: &str) -> Result<Observed> {
    let resolved = match ws.root.resolve(
        path,
        Intent::Write {
            allow_sensitive: true,
        },
    ) {
        Ok(r) => r,
        Err(e)
            if matches!(
                e.code,
                Code::SymlinkWriteRefused
                    | Code::SymlinkEscapeRefused
                    | Code::SpecialFileRefused
                    | Code::NotADirectory
                    | Code::PathIsStatePath
            ) =>
        {
            return Ok(Observed::Other);
        }
        Err(e) if e.code == Code::PathNotFound => return Ok(Observed::Absent),
        Err(e) => return Err(e),
    };
    // A link that replaced a directory on the path leads to another path's state.
    if !crate::resolve::is_real_path(&resolved, path) {
        return Ok(Observed::Other);
    }
    Ok(match resolved.kind {
        None => Observed::Absent,
        Some(Kind::Directory) => {
            let dir = resolved.open_dir()?;
            let stat = rustix::fs::fstat(&dir)
                .map_err(|e| crate::resolve::io_error("inspecting a directory", e))?;
            Observed::Directory {
                mode: stat.st_mode & 0o7777,
            }
        }
        Some(Kind::File) => match crate::publish::current_state(&resolved)? {
            Some((hash, mode)) => Observed::File { hash, mode },
            None => Observed::Absent,
        },
    })
}

/// One of the two states a journal item records for its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The path as it was before the operation.
    Before,
    /// The path as the operation leaves it.
    After,
}

impl Side {
    /// The word error messages use for it: `before` or `after`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Before => "before",
            Side::After => "after",
        }
    }
}

/// Whether `observed` is `item`'s recorded `side`: existence, kind, and the content hash and
/// mode where they were recorded (a directory's mode too; a journal that recorded none, as
/// every one before directory modes were kept, matches any).
pub fn matches_side(item: &Item, observed: Observed, side: Side) -> bool {
    let (exists, hash, mode) = match side {
        Side::After => (item.after_exists, item.after_hash, item.after_mode),
        Side::Before => (item.before_exists, item.before_hash, item.before_mode),
    };
    match (exists, item.kind, observed) {
        (false, _, Observed::Absent) => true,
        (true, Kind::Directory, Observed::Directory { mode: actual }) => {
            mode.is_none_or(|m| m == actual)
        }
        (
            true,
            Kind::File,
            Observed::File {
                hash: actual,
                mode: actual_mode,
            },
        ) => hash.is_none_or(|h| h == actual) && mode.is_none_or(|m| m == actual_mode),
        _ => false,
    }
}

/// The paths of `items` that do not hold their recorded `side` now.
pub fn mismatched_paths(ws: &Workspace, items: &[Item], side: Side) -> Result<Vec<String>> {
    split_by_side(ws, items, side).map(|(_, bad)| bad)
}

/// The paths of `items`, in order, split by whether they hold their recorded `side` now:
/// those that do, then those that do not.
pub fn split_by_side(
    ws: &Workspace,
    items: &[Item],
    side: Side,
) -> Result<(Vec<String>, Vec<String>)> {
    Ok(split_observed(items, &observe_items(ws, items)?, side))
}

/// What each of `items`' paths holds now, in the items' order: observed once, and matched
/// against both recorded sides with [`split_observed`] where a caller needs both (recovery).
pub fn observe_items(ws: &Workspace, items: &[Item]) -> Result<Vec<Observed>> {
    items.iter().map(|item| observe(ws, &item.path)).collect()
}

/// The paths of `items` split as [`split_by_side`] does, from `observed`, what
/// [`observe_items`] found at each.
pub fn split_observed(
    items: &[Item],
    observed: &[Observed],
    side: Side,
) -> (Vec<String>, Vec<String>) {
    let (mut held, mut bad) = (Vec::new(), Vec::new());
    for (item, &now) in items.iter().zip(observed) {
        match matches_side(item, now, side) {
            true => held.push(item.path.clone()),
            false => bad.push(item.path.clone()),
        }
    }
    (held, bad)
}
