//! Removing what no unpruned operation needs from a workspace's state directory: objects no
//! unpruned operation names, and temp files that interrupted writes left behind, once they
//! are older than a grace period.
//!
//! The caller holds the workspace lock, which every writer of a journal record holds too
//! (mutations, undo, recovery, `journal-begin`), so no operation naming an object can be
//! recorded between the moment the named objects are read and the last removal. The store is
//! walked one fan-out directory entry at a time and each object is asked about in the journal
//! ([`crate::journal::Live`]: one index probe), so memory stays flat however many objects are
//! kept.
//! Nothing is journaled: a removal interrupted by a crash leaves only unnamed objects behind,
//! which the next gc removes.

use crate::error::{Error, Result};
use crate::fault::counted;
use crate::journal::{Journal, is_young};
use crate::odb::TEMP_PREFIX;
use crate::oid::ObjectId;
use crate::workspace::State;
use std::fs;
use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// What gc removed (or, on a dry run, would remove) and kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Collected {
    /// Objects no unpruned operation names, older than the grace period.
    pub objects: u64,
    /// Their bytes on disk (compressed).
    pub bytes: u64,
    /// Temp files of interrupted writes older than the grace period.
    pub temporary_files: u64,
    /// Their bytes.
    pub temporary_bytes: u64,
    /// Objects kept because an unpruned operation names them.
    pub kept_objects: u64,
    /// Objects no unpruned operation names, kept because they are younger than the grace
    /// period (snapshots, blobs a script stored and has not recorded yet, blobs of recently
    /// pruned operations).
    pub young_objects: u64,
    /// The bytes of every object kept.
    pub kept_bytes: u64,
}

/// Removes (unless `dry_run`) every object of `state` that no unpruned operation in `journal`
/// names and every leftover temp file, each only when last modified at least `grace` ago.
/// The caller must hold the workspace lock.
pub fn collect(
    state: &State,
    journal: Option<&mut Journal>,
    grace: Duration,
    dry_run: bool,
) -> Result<Collected> {
    let now = SystemTime::now();
    let mut out = Collected::default();
    let live = match journal {
        Some(journal) => Some(journal.live_objects()?),
        None => None,
    };
    let store = state.store();
    let listing = |e: io::Error| Error::storage("listing the object store", &e);
    let removing = |e: io::Error| Error::storage("removing an object", &e);
    let top = match fs::read_dir(store.dir()) {
        Ok(top) => Some(top),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(listing(e)),
    };
    for fan in top.into_iter().flatten() {
        let fan = fan.map_err(listing)?;
        let fan_name = fan.file_name().to_string_lossy().into_owned();
        let kind = fan.file_type().map_err(listing)?;
        if !kind.is_dir() {
            // A streamed write's temp file sits at the top of the store.
            if kind.is_file() && fan_name.starts_with(TEMP_PREFIX) {
                temporary(&fan.path(), now, grace, dry_run, &mut out)?;
            }
            continue;
        }
        for entry in fs::read_dir(fan.path()).map_err(listing)? {
            let entry = entry.map_err(listing)?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if name.starts_with(TEMP_PREFIX) {
                temporary(&path, now, grace, dry_run, &mut out)?;
                continue;
            }
            let hex = format!("{fan_name}{name}");
            let Ok(id) = ObjectId::parse(&format!("sha256:{hex}")) else {
                continue; // not ours: fsck reports it, gc leaves it alone
            };
            if id.hex() != hex {
                continue;
            }
            let Some((size, modified)) = metadata(&path).map_err(listing)? else {
                continue; // removed meanwhile
            };
            if live.as_ref().map(|l| l.contains(&id)).transpose()? == Some(true) {
                out.kept_objects += 1;
                out.kept_bytes += size;
            } else if is_young(modified, now, grace) {
                out.young_objects += 1;
                out.kept_bytes += size;
            } else {
                if !dry_run {
                    match counted("remove object", || fs::remove_file(&path)) {
                        Ok(()) => {}
                        Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                        Err(e) => return Err(removing(e)),
                    }
                }
                out.objects += 1;
                out.bytes += size;
            }
        }
    }
    // `cursor.key` is written under `.fk-tmp-<16 hex>` in the state directory itself.
    for entry in fs::read_dir(&state.dir).map_err(listing)? {
        let entry = entry.map_err(listing)?;
        if entry.file_name().to_string_lossy().starts_with(".fk-tmp-")
            && entry.file_type().map_err(listing)?.is_file()
        {
            temporary(&entry.path(), now, grace, dry_run, &mut out)?;
        }
    }
    Ok(out)
}

/// How recently a temp file may have been written and still be removed, whatever the grace
/// period: one written within it may be a live writer's (a read storing its snapshot takes no
/// lock), and removing it fails that read or write, where a dead process's leftover waits
/// harmlessly for the next gc.
const TEMP_FILE_MIN_AGE: Duration = Duration::from_secs(10 * 60);

/// Removes one leftover temp file when it is older than the grace period, and than
/// [`TEMP_FILE_MIN_AGE`]: a live writer keeps writing to its file, so an old one is a dead
/// process's.
fn temporary(
    path: &Path,
    now: SystemTime,
    grace: Duration,
    dry_run: bool,
    out: &mut Collected,
) -> Result<()> {
    let Some((size, modified)) =
        metadata(path).map_err(|e| Error::storage("listing the object store", &e))?
    else {
        return Ok(());
    };
    if is_young(modified, now, grace.max(TEMP_FILE_MIN_AGE)) {
        return Ok(());
    }
    if !dry_run {
        match counted("remove temporary file", || fs::remove_file(path)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::storage("removing a temporary file", &e)),
        }
    }
    out.temporary_files += 1;
    out.temporary_bytes += size;
    Ok(())
}

fn metadata(path: &Path) -> io::Result<Option<(u64, SystemTime)>> {
    match fs::symlink_metadata(path) {
        Ok(meta) => Ok(Some((meta.len(), meta.modified()?))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}
