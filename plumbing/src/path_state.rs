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
    Absent,
    File {
        hash: ObjectId,
        mode: u32,
    },
    Directory {
        mode: u32,
    },
    /// A link, device or anything else a recorded state cannot match.
    Other,
}

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
            ) =>
        {
            return Ok(Observed::Other);
        }
        Err(e) if e.code == Code::PathNotFound => return Ok(Observed::Absent),
        Err(e) => return Err(e),
    };
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

/// Whether `observed` is the recorded side (`after` true: after state) of `item`: existence,
/// kind, and the content hash and mode where they were recorded (a directory's mode too; a
/// journal that recorded none, as every one before directory modes were kept, matches any).
pub fn matches_side(item: &Item, observed: Observed, after: bool) -> bool {
    let (exists, hash, mode) = if after {
        (item.after_exists, item.after_hash, item.after_mode)
    } else {
        (item.before_exists, item.before_hash, item.before_mode)
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

/// Paths of `op` whose current state is not its recorded side.
pub fn mismatched_paths(ws: &Workspace, items: &[Item], after: bool) -> Result<Vec<String>> {
    let mut bad = Vec::new();
    for item in items {
        if !matches_side(item, observe(ws, &item.path)?, after) {
            bad.push(item.path.clone());
        }
    }
    Ok(bad)
}
