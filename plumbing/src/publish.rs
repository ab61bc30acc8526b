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
use rustix::fs::{AtFlags, Mode, OFlags, RenameFlags};
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
/// before the rename, so wrong bytes are never published. Nothing is written when the
/// expectation fails.
pub fn publish(
    target: &Resolved,
    expect: Expect,
    mode: Option<u32>,
    content: Option<ObjectId>,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<Published> {
    let before = check(target, expect)?;
    let staged = write_temp(target, mode.or(before.1), content, fill, TempKind::Any)?
        .ok_or_else(|| Error::internal("a named temporary file is always possible"))?;
    staged.finish_checked(target, expect, mode, before)
}

/// New bytes for one file, written and fsynced beside it but not yet visible: the first half
/// of [`publish`], which [`Staged::finish`] completes. A mutation stages its new files while
/// its journal record is written, so their fsyncs overlap.
///
/// The file is unnamed (`O_TMPFILE`): a crash before [`Staged::finish`] names it leaves
/// nothing behind, which matters because no journal record may yet say where to look.
#[derive(Debug)]
pub struct Staged {
    file: File,
    /// The directory it is in, for removing a named temp file that is never finished.
    parent: std::os::fd::OwnedFd,
    /// `None` while unnamed.
    name: Option<String>,
    /// The permission bits given to it.
    mode: u32,
    after_hash: ObjectId,
    size: u64,
}

/// Whether a temp file may have a name from the start.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TempKind {
    /// Unnamed, or nothing (`Ok(None)`) where the filesystem or `/proc` cannot name one later.
    Unnamed,
    /// Unnamed where possible, else named `.fk-tmp-*`.
    Any,
}

/// Stages `fill`'s bytes for `target` in an unnamed temp file in its directory, fsynced, with
/// the permission bits `mode` or, by default, those of the file there now. `Ok(None)` where the
/// filesystem cannot make unnamed files (or `/proc` is not mounted to name them): publish at
/// the step instead.
pub fn stage(
    target: &Resolved,
    mode: Option<u32>,
    content: Option<ObjectId>,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<Option<Staged>> {
    let mode = match (mode, target.kind) {
        (Some(bits), _) => Some(bits),
        (None, Some(Kind::File)) => Some(file_mode(target)?),
        (None, Some(Kind::Directory)) => return Err(not_a_file(target)),
        (None, None) => None,
    };
    let staged = write_temp(target, mode, content, fill, TempKind::Unnamed)?;
    crate::durable::crash_point("publish-staged");
    Ok(staged)
}

fn file_mode(target: &Resolved) -> Result<u32> {
    Ok(target
        .open_file()?
        .metadata()
        .map_err(|e| Error::storage("inspecting file", &e))?
        .permissions()
        .mode()
        & 0o7777)
}

/// Checks `expect` against the file at `target` now: the previous file's id (when the
/// expectation required hashing it) and permission bits.
fn check(target: &Resolved, expect: Expect) -> Result<(Option<ObjectId>, Option<u32>)> {
    match (expect, target.kind) {
        (_, Some(Kind::Directory)) => Err(not_a_file(target)),
        (Expect::Absent, Some(Kind::File)) => Err(already_exists(target)),
        (Expect::Hash(expected), None) => Err(conflict(target, expected, None)),
        (Expect::Hash(expected), Some(Kind::File)) => {
            let (actual, mode) =
                current_state(target)?.ok_or_else(|| conflict(target, expected, None))?;
            if actual != expected {
                return Err(conflict(target, expected, Some(actual)));
            }
            Ok((Some(actual), Some(mode)))
        }
        (_, Some(Kind::File)) => Ok((None, Some(file_mode(target)?))),
        (_, None) => Ok((None, None)),
    }
}

/// Whether unnamed temp files can be named later: `linkat` of `/proc/self/fd/N` needs `/proc`.
fn proc_fd_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| std::path::Path::new("/proc/self/fd").is_dir())
}

/// Creates a temp file in `target`'s directory, writes `fill`'s bytes, sets `mode` and fsyncs.
fn write_temp(
    target: &Resolved,
    mode: Option<u32>,
    content: Option<ObjectId>,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
    kind: TempKind,
) -> Result<Option<Staged>> {
    if target.name().is_none() {
        return Err(not_a_file(target));
    }
    let parent = target.parent();
    let unnamed = if proc_fd_available() {
        counted("create temporary file", || {
            rustix::fs::openat(
                parent,
                ".",
                OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o666),
            )
        })
        .map(Some)
        .or_else(|errno| match errno {
            // No O_TMPFILE on this filesystem or kernel.
            Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL => Ok(None),
            e => Err(io_error("creating temporary file", e)),
        })?
    } else {
        None
    };
    let (fd, name) = match (unnamed, kind) {
        (Some(fd), _) => (fd, None),
        (None, TempKind::Unnamed) => return Ok(None),
        (None, TempKind::Any) => {
            let name = format!("{TEMP_PREFIX}{}", crate::durable::random_hex16());
            let fd = counted("create temporary file", || {
                rustix::fs::openat(
                    parent,
                    name.as_str(),
                    OFlags::WRONLY
                        | OFlags::CREATE
                        | OFlags::EXCL
                        | OFlags::NOFOLLOW
                        | OFlags::CLOEXEC,
                    Mode::from_raw_mode(0o666),
                )
            })
            .map_err(|e| io_error("creating temporary file", e))?;
            (fd, Some(name))
        }
    };
    let parent =
        rustix::io::fcntl_dupfd_cloexec(parent, 0).map_err(|e| io_error("opening directory", e));
    let mut out = HashingWriter {
        file: File::from(fd),
        hasher: Hasher::default(),
    };
    // From here on, a named temp file is removed when the `Staged` is dropped unfinished.
    let parent = match parent {
        Ok(parent) => parent,
        Err(e) => {
            if let Some(name) = &name {
                let _ = rustix::fs::unlinkat(target.parent(), name.as_str(), AtFlags::empty());
            }
            return Err(e);
        }
    };
    counted("write file data", || fill(&mut out))?;
    if let Some(bits) = mode {
        counted("set file mode", || {
            out.file
                .set_permissions(std::fs::Permissions::from_mode(bits))
        })
        .map_err(|e| Error::storage("setting file mode", &e))?;
    }
    counted("sync file", || out.file.sync_all()).map_err(|e| Error::storage("syncing file", &e))?;
    let mode = out
        .file
        .metadata()
        .map_err(|e| Error::storage("inspecting file", &e))?
        .permissions()
        .mode()
        & 0o7777;
    let (after_hash, size) = out.hasher.finish();
    let staged = Staged {
        file: out.file,
        parent,
        name,
        mode,
        after_hash,
        size,
    };
    if content.is_some_and(|want| want != after_hash) {
        return Err(Error::new(
            Code::StorageError,
            "the bytes written differ from the content's id; nothing was published",
        )
        .path(&target.given));
    }
    Ok(Some(staged))
}

impl Staged {
    /// The id of the staged bytes.
    pub fn after_hash(&self) -> ObjectId {
        self.after_hash
    }

    /// Completes the publication at `target` (the path the bytes were staged for): checks
    /// `expect`, gives the file the mode an existing target has now (unless `mode` was given
    /// when staging), renames it into place and fsyncs the directory.
    pub fn finish(self, target: &Resolved, expect: Expect, mode: Option<u32>) -> Result<Published> {
        let before = check(target, expect)?;
        self.finish_checked(target, expect, mode, before)
    }

    fn finish_checked(
        mut self,
        target: &Resolved,
        expect: Expect,
        mode: Option<u32>,
        (before_hash, before_mode): (Option<ObjectId>, Option<u32>),
    ) -> Result<Published> {
        let name = target.name().ok_or_else(|| not_a_file(target))?;
        let parent = target.parent();
        // The target's mode changed since staging (rare): give the file the new one, durably.
        if let Some(bits) = mode.or(before_mode)
            && bits != self.mode
        {
            counted("set file mode", || {
                self.file
                    .set_permissions(std::fs::Permissions::from_mode(bits))
            })
            .map_err(|e| Error::storage("setting file mode", &e))?;
            counted("sync file", || self.file.sync_all())
                .map_err(|e| Error::storage("syncing file", &e))?;
            self.mode = bits;
        }
        if self.name.is_none() {
            use std::os::fd::AsRawFd;
            let tmp_name = format!("{TEMP_PREFIX}{}", crate::durable::random_hex16());
            let link = format!("/proc/self/fd/{}", self.file.as_raw_fd());
            counted("name temporary file", || {
                rustix::fs::linkat(
                    rustix::fs::CWD,
                    link.as_str(),
                    parent,
                    tmp_name.as_str(),
                    AtFlags::SYMLINK_FOLLOW,
                )
            })
            .map_err(|e| io_error("naming temporary file", e))?;
            self.name = Some(tmp_name);
        }
        let tmp_name = self.name.clone().unwrap_or_default();
        crate::durable::crash_point("publish-before-rename");

        let renamed = counted("rename into place", || {
            if expect == Expect::Absent {
                rename_noreplace(parent, &tmp_name, name)
            } else {
                rustix::fs::renameat(parent, tmp_name.as_str(), parent, name)
            }
        });
        if let Err(errno) = renamed {
            return Err(match errno {
                Errno::EXIST => already_exists(target),
                Errno::ISDIR => not_a_file(target),
                e => io_error("replacing file", e),
            });
        }
        // Renamed: nothing is left to remove.
        self.name = None;
        crate::durable::crash_point("publish-before-dir-sync");
        let dir = target.parent_for_sync()?;
        counted("sync directory", || dir.sync_all())
            .map_err(|e| Error::storage("syncing directory", &e))?;
        Ok(Published {
            before_hash,
            before_mode,
            after_hash: self.after_hash,
            after_mode: self.mode,
            size: self.size,
        })
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        // An unnamed file goes away with its descriptor; a named one is removed.
        if let Some(name) = self.name.take() {
            let _ = rustix::fs::unlinkat(&self.parent, name.as_str(), AtFlags::empty());
        }
    }
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
