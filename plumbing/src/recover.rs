//! Crash recovery: resolving what a dead process left pending.
//!
//! Every mutation that holds the workspace lock records its operation with `under_lock`. If
//! such an operation is still pending when another process holds the lock, its process died
//! mid-way. Recovery looks at the tree and says honestly what happened: `committed` when every
//! path holds its after state, `rolled_back` when every path still holds its before state, and
//! `partial` otherwise (still undoable path by path). Temp files of ours left beside the
//! operation's paths are removed. Operations begun by plumbing scripts (not under the lock)
//! are left to their script, or to `journal-commit` / `journal-abort` by hand.

use crate::error::Result;
use crate::journal::{Journal, Status};
use crate::lock::WorkspaceLock;
use crate::path_state::{Side, observe_items, split_observed};
use crate::publish::is_temp_name;
use crate::resolve::Intent;
use crate::walk::{self, EntryKind, WalkOptions};
use crate::workspace::Workspace;
use std::collections::BTreeSet;

/// How one pending operation was resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolution {
    /// The id of the operation resolved.
    pub operation_id: String,
    /// What the journal now records it as: committed, rolled back or partial.
    pub status: Status,
    /// The paths that no longer hold their before state: those the interrupted operation
    /// changed (or another process did).
    pub changed_paths: Vec<String>,
}

/// What one recovery did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// The operations resolved, oldest first.
    pub resolved: Vec<Resolution>,
    /// The temp files removed from the resolved operations' directories (workspace-relative):
    /// a dead process's half-written contents, named so a reader of the report knows.
    pub removed_temp_files: Vec<String>,
}

impl Recovery {
    /// The warning that names the temp files removed, when there were any.
    pub fn temp_files_warning(&self) -> Option<String> {
        let files = &self.removed_temp_files;
        (!files.is_empty()).then(|| {
            format!(
                "removed {} temp file(s) an interrupted process left beside the paths it was changing: {}",
                files.len(),
                files.join(", ")
            )
        })
    }
}

/// Resolves every pending operation recorded under the lock. The caller proves it holds the
/// lock by passing it.
pub fn recover(ws: &Workspace, journal: &mut Journal, _lock: &WorkspaceLock) -> Result<Recovery> {
    // Each resolution with the paths still at their before state: a partial operation did
    // not change them.
    let mut resolved: Vec<(Resolution, Vec<String>, Vec<String>)> = Vec::new();
    let mut dirs = BTreeSet::new();
    for op in journal.pending()? {
        if !op.under_lock {
            continue;
        }
        // One look at each path, matched against both of its recorded states.
        let observed = observe_items(ws, &op.items)?;
        let (at_after, not_after) = split_observed(&op.items, &observed, Side::After);
        let (at_before, changed_paths) = split_observed(&op.items, &observed, Side::Before);
        let status = if not_after.is_empty() {
            Status::Committed
        } else if changed_paths.is_empty() {
            Status::RolledBack
        } else {
            Status::Partial
        };
        for item in &op.items {
            dirs.insert(parent_of(&item.path).to_owned());
        }
        let resolution = Resolution {
            operation_id: op.id,
            status,
            changed_paths,
        };
        resolved.push((resolution, at_before, at_after));
    }
    // Temp files first, statuses after: a recovery that is itself killed in between finds the
    // operations still pending next time and cleans again; the other order could leave a temp
    // file that no later recovery would look for.
    let mut removed_temp_files = Vec::new();
    for dir in dirs {
        removed_temp_files.extend(remove_temp_files(ws, &dir)?);
    }
    for (r, at_before, at_after) in &resolved {
        match r.status {
            Status::Partial => journal.mark_partial(&r.operation_id, at_before, at_after)?,
            status => journal.set_status(&r.operation_id, &[Status::Pending], status)?,
        }
    }
    Ok(Recovery {
        resolved: resolved.into_iter().map(|(r, _, _)| r).collect(),
        removed_temp_files,
    })
}

fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or(".", |(dir, _)| dir)
}

/// Removes our temp files (`.fk-tmp-` and 16 hex digits) from a workspace directory, and
/// returns their paths. Call only with the workspace lock held: every publication holds it,
/// so any such file is a dead process's leftover.
pub fn remove_temp_files(ws: &Workspace, dir: &str) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    let Ok(start) = ws.root.resolve_recorded(dir, Intent::Read) else {
        return Ok(removed); // the directory is gone: nothing to clean
    };
    let Ok(entries) = walk::walk(
        &ws.root,
        &start,
        WalkOptions {
            recursive: false,
            max_depth: 1,
            respect_ignore: false,
        },
    ) else {
        return Ok(removed);
    };
    for entry in entries.flatten() {
        let name = entry.rel.rsplit('/').next().unwrap_or_default();
        if entry.kind == EntryKind::File
            && is_temp_name(name.as_bytes())
            // The same name, not a link's target, is what goes.
            && let Ok(target) = ws.root.resolve(&entry.rel, Intent::Read)
            && crate::resolve::is_real_path(&target, &entry.rel)
        {
            crate::fs_ops::remove_file(&target)?;
            removed.push(entry.rel);
        }
    }
    Ok(removed)
}
