//! The workspace lock: one mutation at a time per workspace, across processes.
//!
//! An exclusive advisory lock (`flock`) on `.filekeeper/lock`, held from the first read of a
//! guarded mutation to its commit, so a guard check and its write can never interleave with
//! another process's. It is released when the holder exits, however it exits, which is what
//! makes a pending operation recorded under the lock safe to resolve once the lock is free.

use crate::error::{Error, Result};
use crate::workspace::{State, Workspace};
use std::fs::{File, OpenOptions};

/// The lock file's name inside the state directory.
pub(crate) const LOCK_FILE: &str = "lock";

/// Held while alive; dropping it releases the lock.
pub struct WorkspaceLock {
    _file: File,
}

impl Workspace {
    /// Takes the workspace lock if it is free, without waiting: `None` when another process
    /// holds it. The state directory must exist already; this never creates it.
    pub fn try_lock(&self) -> Result<Option<(State, WorkspaceLock)>> {
        let Some(state) = self.state(false)? else {
            return Ok(None);
        };
        let file = open_lock(&state)?;
        match file.try_lock() {
            Ok(()) => Ok(Some((state, WorkspaceLock { _file: file }))),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => {
                Err(Error::storage("taking the workspace lock", &e))
            }
        }
    }

    /// Creates the state directory if needed and takes the workspace lock, waiting for the
    /// current holder to finish.
    pub fn lock(&self) -> Result<(State, WorkspaceLock)> {
        let state = self
            .state(true)?
            .ok_or_else(|| Error::internal("state was not created"))?;
        let lock = lock_state(&state)?;
        Ok((state, lock))
    }
}

/// Takes the lock of `state`, waiting for the current holder to finish. Never while this
/// process holds it already: a second lock on the same file waits for the first forever.
pub(crate) fn lock_state(state: &State) -> Result<WorkspaceLock> {
    take(open_lock(state)?)
}

/// Takes the lock of `state` for a reader that must not run beside a change (fsck), when it
/// can: the lock file is opened read-only (`flock` needs no more) and never created, so a
/// user who may only read the state, or a read-only mount, checks without it (`None`), as
/// does a state whose lock file is missing, which no change has locked.
pub(crate) fn lock_state_to_read(state: &State) -> Result<Option<WorkspaceLock>> {
    let file = match File::open(state.dir.join(LOCK_FILE)) {
        Ok(file) => file,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(Error::storage("opening the workspace lock", &e)),
    };
    take(file).map(Some)
}

/// Takes the exclusive `flock` on an open lock file, waiting for the holder.
fn take(file: File) -> Result<WorkspaceLock> {
    crate::fault::counted("take workspace lock", || file.lock())
        .map_err(|e| Error::storage("taking the workspace lock", &e))?;
    Ok(WorkspaceLock { _file: file })
}

/// Opens (creating it if needed) the lock file of `state`; the lock is taken on the open file.
fn open_lock(state: &State) -> Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(state.dir.join(LOCK_FILE))
        .map_err(|e| Error::storage("opening the workspace lock", &e))
}
