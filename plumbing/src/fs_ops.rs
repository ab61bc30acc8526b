//! Changes to a workspace's files and directories other than replacing a file's content:
//! removing a file, creating and removing a directory, renaming. Each is one system call
//! relative to resolved parent handles, followed by an fsync of every directory whose entries
//! changed.

use crate::error::{Code, Error, Result};
use crate::fault::{counted, crash_point};
use crate::resolve::{Kind, Resolved, io_error};
use rustix::fs::{AtFlags, Mode, RenameFlags};
use rustix::io::Errno;

fn name_of(target: &Resolved) -> Result<&std::ffi::OsStr> {
    target.name().ok_or_else(|| {
        Error::invalid("the workspace root itself cannot be changed").path(&target.given)
    })
}

fn sync_parent(target: &Resolved) -> Result<()> {
    let dir = target.parent_for_sync()?;
    counted("sync directory", || dir.sync_all())
        .map_err(|e| Error::storage("syncing directory", &e))
}

/// Removes the file at `target`.
pub fn remove_file(target: &Resolved) -> Result<()> {
    if target.kind != Some(Kind::File) {
        return Err(Error::new(Code::NotAFile, "the path is not a file").path(&target.given));
    }
    let name = name_of(target)?;
    // The file is freed after this returns, not inside the unlink.
    let _removed = crate::retire::hold(target.parent(), name);
    counted("remove file", || {
        rustix::fs::unlinkat(target.parent(), name, AtFlags::empty())
    })
    .map_err(|e| match e {
        Errno::NOENT => Error::new(Code::PathNotFound, "the file vanished").path(&target.given),
        e => io_error("removing file", e),
    })?;
    crash_point("remove-before-dir-sync");
    sync_parent(target)
}

/// Creates the directory at `target` (its parent must exist).
pub fn make_dir(target: &Resolved) -> Result<()> {
    let name = name_of(target)?;
    counted("create directory", || {
        rustix::fs::mkdirat(target.parent(), name, Mode::from_raw_mode(0o777))
    })
    .map_err(|e| match e {
        Errno::EXIST => {
            Error::new(Code::AlreadyExists, "the path already exists").path(&target.given)
        }
        e => io_error("creating directory", e),
    })?;
    crash_point("mkdir-before-dir-sync");
    sync_parent(target)
}

/// Creates the directory at `target` with exactly the permission bits `mode` (the umask and
/// inherited bits do not apply): how a directory is put back from its recorded state.
pub fn make_dir_with_mode(target: &Resolved, mode: u32) -> Result<()> {
    let name = name_of(target)?;
    counted("create directory", || {
        rustix::fs::mkdirat(target.parent(), name, Mode::from_raw_mode(mode & 0o777))
    })
    .map_err(|e| match e {
        Errno::EXIST => {
            Error::new(Code::AlreadyExists, "the path already exists").path(&target.given)
        }
        e => io_error("creating directory", e),
    })?;
    // The new directory itself, never a link put in its place since.
    let dir = rustix::fs::openat(
        target.parent(),
        name,
        rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::DIRECTORY
            | rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| io_error("opening directory", e))?;
    rustix::fs::fchmod(&dir, Mode::from_raw_mode(mode))
        .map_err(|e| io_error("setting a directory's mode", e))?;
    // A setgid bit the kernel cleared (see `publish::set_mode_and_sync`): the directory is
    // taken back, still empty, rather than left with a mode the operation does not record.
    let got = rustix::fs::fstat(&dir)
        .map_err(|e| io_error("inspecting directory", e))?
        .st_mode
        & 0o7777;
    if got != mode & 0o7777 {
        let mut refused = crate::publish::mode_not_kept(mode & 0o7777, got).path(&target.given);
        if let Err(e) = rustix::fs::unlinkat(target.parent(), name, AtFlags::REMOVEDIR) {
            // Another process put an entry in it already: it stays, and the caller is told.
            refused.message = format!(
                "the new directory did not keep the mode {:o} (it has {got:o}), and could not be \
                 removed again ({e}): it is left with that mode",
                mode & 0o7777
            );
        }
        return Err(refused);
    }
    counted("sync directory", || rustix::fs::fsync(&dir))
        .map_err(|e| io_error("syncing directory", e))?;
    crash_point("mkdir-before-dir-sync");
    sync_parent(target)
}

/// Removes the empty directory at `target`.
pub fn remove_dir(target: &Resolved) -> Result<()> {
    let name = name_of(target)?;
    counted("remove directory", || {
        rustix::fs::unlinkat(target.parent(), name, AtFlags::REMOVEDIR)
    })
    .map_err(|e| match e {
        Errno::NOTEMPTY | Errno::EXIST => {
            Error::new(Code::InvalidArgument, "the directory is not empty")
                .path(&target.given)
                .hint(crate::words![
                    "delete it and everything in it with ",
                    crate::Argument::Recursive
                ])
        }
        Errno::NOENT => {
            Error::new(Code::PathNotFound, "the directory vanished").path(&target.given)
        }
        e => io_error("removing directory", e),
    })?;
    crash_point("rmdir-before-dir-sync");
    sync_parent(target)
}

/// Renames `from` to `to`, atomically. With `replace` false an existing destination is never
/// replaced (`RENAME_NOREPLACE`, or link-then-unlink for files where it is unsupported).
pub fn rename(from: &Resolved, to: &Resolved, replace: bool) -> Result<()> {
    let (from_name, to_name) = (name_of(from)?, name_of(to)?);
    // A file the rename replaces is freed after this returns, not inside the rename.
    let _replaced =
        (replace && to.kind == Some(Kind::File)).then(|| crate::retire::hold(to.parent(), to_name));
    let result = counted("rename", || {
        if replace {
            rustix::fs::renameat(from.parent(), from_name, to.parent(), to_name)
        } else {
            match rustix::fs::renameat_with(
                from.parent(),
                from_name,
                to.parent(),
                to_name,
                RenameFlags::NOREPLACE,
            ) {
                Err(Errno::INVAL | Errno::NOSYS) if from.kind == Some(Kind::File) => {
                    rustix::fs::linkat(
                        from.parent(),
                        from_name,
                        to.parent(),
                        to_name,
                        AtFlags::empty(),
                    )
                    .and_then(|()| rustix::fs::unlinkat(from.parent(), from_name, AtFlags::empty()))
                }
                other => other,
            }
        }
    });
    result.map_err(|e| match e {
        Errno::EXIST | Errno::NOTEMPTY => {
            Error::new(Code::AlreadyExists, "the destination already exists").path(&to.given)
        }
        Errno::XDEV => {
            Error::invalid("source and destination are on different filesystems").path(&to.given)
        }
        e => io_error("renaming", e),
    })?;
    crash_point("rename-before-dir-sync");
    sync_parent(to)?;
    sync_parent(from)
}
