//! Atomic, durable replacement of one workspace file.
//!
//! The new bytes go to a temp file created beside the target (relative to the resolved parent
//! handle, `O_EXCL | O_NOFOLLOW`), are fsynced, take the old file's permission bits, and are
//! renamed over the target; then the directory is fsynced. A reader sees the complete old file
//! or the complete new one, never a mix. Creation uses `RENAME_NOREPLACE`, so a file another
//! process created first is never clobbered.

use crate::durable::counted;
use crate::error::{Code, Error, Result};
use crate::oid::{Hasher, ObjectId};
use crate::resolve::{Kind, Resolved, io_error};
use rustix::fs::{Mode, OFlags, RenameFlags};
use rustix::io::Errno;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::PermissionsExt;

/// Temp files of ours in workspace directories start with this, so they can be recognised.
pub const TEMP_PREFIX: &str = ".fk-tmp-";

/// What the target must hold just before it is replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Whatever is there (or nothing).
    Any,
    /// Nothing: create without clobbering.
    Absent,
    /// A file with exactly this content.
    Hash(ObjectId),
}

/// What a publication observed and did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Published {
    /// The previous file's id, when the expectation required hashing it.
    pub before_hash: Option<ObjectId>,
    pub before_mode: Option<u32>,
    pub after_hash: ObjectId,
    pub after_mode: u32,
    pub size: u64,
}

/// Hashes and stats the current file at a resolved path (`None` when absent).
pub fn current_state(target: &Resolved) -> Result<Option<(ObjectId, u32)>> {
    match target.kind {
        None => Ok(None),
        Some(Kind::Directory) => Err(not_a_file(target)),
        Some(Kind::File) => {
            let mut file = target.open_file()?;
            let mode = file
                .metadata()
                .map_err(|e| Error::storage("inspecting file", &e))?
                .permissions()
                .mode()
                & 0o7777;
            let (id, _) =
                ObjectId::of_reader(&mut file).map_err(|e| Error::storage("reading file", &e))?;
            Ok(Some((id, mode)))
        }
    }
}

fn not_a_file(target: &Resolved) -> Error {
    Error::new(Code::NotAFile, "the path is a directory, not a file").path(&target.given)
}

/// Replaces the file at `target` with the bytes `fill` writes, after checking `expect`.
/// `mode` sets the permission bits; by default an existing file keeps its own and a new file
/// gets 0666 less the umask. With `content`, the written bytes must hash to it, checked
/// before the rename, so wrong bytes are never published.
pub fn publish(
    target: &Resolved,
    expect: Expect,
    mode: Option<u32>,
    content: Option<ObjectId>,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<Published> {
    let name = target.name().ok_or_else(|| not_a_file(target))?;
    let (before_hash, before_mode) = match (expect, target.kind) {
        (_, Some(Kind::Directory)) => return Err(not_a_file(target)),
        (Expect::Absent, Some(Kind::File)) => return Err(already_exists(target)),
        (Expect::Hash(expected), None) => {
            return Err(conflict(target, expected, None));
        }
        (Expect::Hash(expected), Some(Kind::File)) => {
            let (actual, mode) =
                current_state(target)?.ok_or_else(|| conflict(target, expected, None))?;
            if actual != expected {
                return Err(conflict(target, expected, Some(actual)));
            }
            (Some(actual), Some(mode))
        }
        (_, Some(Kind::File)) => {
            let meta = target
                .open_file()?
                .metadata()
                .map_err(|e| Error::storage("inspecting file", &e))?;
            (None, Some(meta.permissions().mode() & 0o7777))
        }
        (_, None) => (None, None),
    };

    let tmp_name = format!("{TEMP_PREFIX}{}", crate::durable::random_hex16());
    let parent = target.parent();
    let fd = counted("create temporary file", || {
        rustix::fs::openat(
            parent,
            tmp_name.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
    })
    .map_err(|e| io_error("creating temporary file", e))?;
    let remove_tmp = || {
        let _ = rustix::fs::unlinkat(parent, tmp_name.as_str(), rustix::fs::AtFlags::empty());
    };
    let mut file = HashingWriter {
        file: File::from(fd),
        hasher: Hasher::default(),
    };
    let written = (|| -> Result<u32> {
        counted("write file data", || fill(&mut file))?;
        let keep = mode.or(before_mode);
        if let Some(bits) = keep {
            counted("set file mode", || {
                file.file
                    .set_permissions(std::fs::Permissions::from_mode(bits))
            })
            .map_err(|e| Error::storage("setting file mode", &e))?;
        }
        counted("sync file", || file.file.sync_all())
            .map_err(|e| Error::storage("syncing file", &e))?;
        let final_mode = file
            .file
            .metadata()
            .map_err(|e| Error::storage("inspecting file", &e))?
            .permissions()
            .mode()
            & 0o7777;
        Ok(final_mode)
    })();
    let after_mode = match written {
        Ok(m) => m,
        Err(e) => {
            remove_tmp();
            return Err(e);
        }
    };
    let (after_hash, size) = file.hasher.finish();
    if content.is_some_and(|want| want != after_hash) {
        remove_tmp();
        return Err(Error::new(
            Code::StorageError,
            "the bytes written differ from the content's id; nothing was published",
        )
        .path(&target.given));
    }
    crate::durable::crash_point("publish-before-rename");

    let renamed = counted("rename into place", || {
        if expect == Expect::Absent {
            rename_noreplace(parent, &tmp_name, name)
        } else {
            rustix::fs::renameat(parent, tmp_name.as_str(), parent, name)
        }
    });
    if let Err(errno) = renamed {
        remove_tmp();
        return Err(match errno {
            Errno::EXIST => already_exists(target),
            Errno::ISDIR => not_a_file(target),
            e => io_error("replacing file", e),
        });
    }
    crate::durable::crash_point("publish-before-dir-sync");
    let dir = target.parent_for_sync()?;
    counted("sync directory", || dir.sync_all())
        .map_err(|e| Error::storage("syncing directory", &e))?;
    Ok(Published {
        before_hash,
        before_mode,
        after_hash,
        after_mode,
        size,
    })
}

/// `renameat2(RENAME_NOREPLACE)`, or link-then-unlink on filesystems without it: both fail
/// with EEXIST rather than replace an existing name.
fn rename_noreplace(
    dir: std::os::fd::BorrowedFd<'_>,
    from: &str,
    to: &std::ffi::OsStr,
) -> rustix::io::Result<()> {
    match rustix::fs::renameat_with(dir, from, dir, to, RenameFlags::NOREPLACE) {
        Err(Errno::INVAL | Errno::NOSYS) => {
            rustix::fs::linkat(dir, from, dir, to, rustix::fs::AtFlags::empty())?;
            rustix::fs::unlinkat(dir, from, rustix::fs::AtFlags::empty())
        }
        other => other,
    }
}

fn already_exists(target: &Resolved) -> Error {
    Error::new(
        Code::AlreadyExists,
        "the path already exists; refusing to overwrite it",
    )
    .path(&target.given)
    .recovery("read the existing file and write against its hash instead")
}

fn conflict(target: &Resolved, expected: ObjectId, actual: Option<ObjectId>) -> Error {
    Error::new(
        Code::ContentConflict,
        "file content changed since it was read; refusing to overwrite",
    )
    .path(&target.given)
    .with("expected_hash", expected.to_string())
    .with("actual_hash", actual.map(|a| a.to_string()))
    .recovery("re-read the target, then retry against its current hash")
}

struct HashingWriter {
    file: File,
    hasher: Hasher,
}

impl Write for HashingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Copies a reader into a publication, mapping errors.
pub fn copy_into(reader: &mut impl Read, out: &mut dyn Write) -> Result<()> {
    io::copy(reader, out)
        .map(|_| ())
        .map_err(|e| Error::storage("writing file", &e))
}
