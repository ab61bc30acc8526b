//! Atomic, durable replacement of one workspace file.
//!
//! The new bytes go to a temp file created beside the target (relative to the resolved parent
//! handle, `O_EXCL | O_NOFOLLOW`), are fsynced, take the old file's permission bits, and are
//! renamed over the target; then the directory is fsynced. A reader sees the complete old file
//! or the complete new one, never a mix. Creation uses `RENAME_NOREPLACE`, so a file another
//! process created first is never clobbered.

use crate::error::{Code, Error, Result};
use crate::fault::counted;
use crate::oid::{Hasher, ObjectId};
use crate::resolve::{Kind, Resolved, io_error};
use rustix::fs::{AtFlags, Mode, OFlags, RenameFlags};
use rustix::io::Errno;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::BorrowedFd;
use std::os::unix::fs::PermissionsExt;

/// Temp files of ours in workspace directories are named this prefix and 16 hex digits.
pub const TEMP_PREFIX: &str = ".fk-tmp-";

/// Whether `name` is one of our temp files' names: [`TEMP_PREFIX`] and exactly 16 lowercase
/// hex digits. Recovery removes such files beside an interrupted operation's paths, so no
/// change may give a file such a name ([`refuse_temp_name`]); any other name that
/// merely starts with the prefix is an ordinary file of the workspace.
pub fn is_temp_name(name: &[u8]) -> bool {
    name.strip_prefix(TEMP_PREFIX.as_bytes())
        .is_some_and(|hex| {
            hex.len() == 16
                && hex
                    .iter()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
        })
}

/// Refuses to give a file at `rel` content when its name is one of our temp files' names
/// ([`is_temp_name`]): recovery would take it for a leftover and remove it. Removing such a
/// file, or moving it away, is allowed: a leftover that no recovery reaches (an interrupted
/// `keeper publish`) must remain deletable.
pub fn refuse_temp_name(rel: &str) -> Result<()> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if is_temp_name(name.as_bytes()) {
        return Err(Error::new(
            Code::PathIsStatePath,
            "names of the form .fk-tmp-<16 hex digits> are Filekeeper's temp files, which recovery removes beside an interrupted write; choose another name",
        )
        .path(rel));
    }
    Ok(())
}

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
    /// The previous file's permission bits; `None` when there was no file.
    pub before_mode: Option<u32>,
    /// The id of the bytes published.
    pub after_hash: ObjectId,
    /// The permission bits the published file has.
    pub after_mode: u32,
    /// The length of the published file in bytes.
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
    /// The directory it was written in (device, inode): the only one it can be renamed into.
    dir: (u64, u64),
    /// A file named from the start (see [`publish`]): the directory and the name, removed
    /// when the `Staged` is dropped unfinished.
    named: Option<(std::os::fd::OwnedFd, String)>,
    /// The permission bits given to it.
    mode: u32,
    after_hash: ObjectId,
    size: u64,
}

/// Whether a temp file may have a name from the start.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TempKind {
    /// Unnamed, or nothing (`Ok(None)`) where unnamed files cannot be made or named here.
    Unnamed,
    /// Unnamed where possible, else named `.fk-tmp-*`.
    Any,
    /// Named from the start, as where unnamed files cannot be made: for tests of that path.
    #[cfg(test)]
    Named,
}

impl TempKind {
    fn may_be_unnamed(self) -> bool {
        match self {
            TempKind::Unnamed | TempKind::Any => true,
            #[cfg(test)]
            TempKind::Named => false,
        }
    }
}

/// Stages `fill`'s bytes for `target` in an unnamed temp file in its directory, fsynced, with
/// the permission bits `mode` or, by default, those of the file there now. `Ok(None)` where the
/// filesystem cannot make unnamed files (or they cannot be named here): publish at the step
/// instead.
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
    crate::fault::crash_point("publish-staged");
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
/// Checks that `target` holds what `expect` says, as a publication does just before its
/// rename: how a step that removes a file, or renames over one, makes sure that it destroys
/// only the bytes the operation recorded, not what another process wrote since the plan was
/// made. `doing` completes the refusal ("refusing to delete it").
pub fn check_holds(target: &Resolved, expect: Expect, doing: &str) -> Result<()> {
    check(target, expect).map(|_| ()).map_err(|mut e| {
        if e.code == Code::ContentConflict {
            e.message = format!("file content changed since it was read; refusing to {doing}");
        }
        e
    })
}

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

/// Whether unnamed temp files can be named here: `linkat` of `/proc/self/fd/N` needs `/proc`,
/// and a sandbox may refuse it, which turns this off for the rest of the process.
static NAMING_WORKS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

fn naming_works() -> bool {
    static PROC: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PROC.get_or_init(|| std::path::Path::new("/proc/self/fd").is_dir())
        && NAMING_WORKS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The identity (device, inode) of a directory.
fn dir_identity(dir: BorrowedFd<'_>) -> Result<(u64, u64)> {
    let stat = rustix::fs::fstat(dir).map_err(|e| io_error("inspecting directory", e))?;
    Ok((stat.st_dev, stat.st_ino))
}

/// A temp file's name in a directory, removed when dropped unless handed on.
struct TempName<'a> {
    dir: BorrowedFd<'a>,
    name: Option<String>,
}

impl Drop for TempName<'_> {
    fn drop(&mut self) {
        if let Some(name) = self.name.take() {
            let _ = rustix::fs::unlinkat(self.dir, name.as_str(), AtFlags::empty());
        }
    }
}

/// Creates `.fk-tmp-<16 hex>` in `dir`, never following or replacing anything.
fn create_named(dir: BorrowedFd<'_>) -> Result<(File, String)> {
    let name = format!("{TEMP_PREFIX}{}", crate::durable::random_hex16());
    let fd = counted("create temporary file", || {
        rustix::fs::openat(
            dir,
            name.as_str(),
            OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
    })
    .map_err(|e| io_error("creating temporary file", e))?;
    Ok((File::from(fd), name))
}

/// Creates an unnamed file in `dir`; `None` where the filesystem or kernel has no `O_TMPFILE`.
fn create_unnamed(dir: BorrowedFd<'_>) -> Result<Option<File>> {
    counted("create temporary file", || {
        rustix::fs::openat(
            dir,
            ".",
            OFlags::RDWR | OFlags::TMPFILE | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
    })
    .map(|fd| Some(File::from(fd)))
    .or_else(|errno| match errno {
        Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL => Ok(None),
        e => Err(io_error("creating temporary file", e)),
    })
}

/// The group a new file in `target`'s directory gets from the directory, when it is setgid.
pub fn inherited_group(target: &Resolved) -> Option<u32> {
    let dir = rustix::fs::fstat(target.parent()).ok()?;
    (dir.st_mode & 0o2000 != 0).then_some(dir.st_gid)
}

/// `mode` less its setgid bit when a new file at `target` could not keep it: the kernel
/// clears the bit when a file's owner outside the file's group sets it, and the new file's
/// group is the old file's where this process may give it (`keep_group_and_attributes`),
/// else its setgid directory's, else this process's own.
pub fn keepable_mode(target: &Resolved, mode: u32) -> u32 {
    use crate::durable::may_give_group;
    use std::os::unix::fs::MetadataExt;
    if mode & 0o2000 == 0 {
        return mode;
    }
    let carried = match target.kind {
        Some(Kind::File) => target
            .open_file()
            .ok()
            .and_then(|f| f.metadata().ok())
            .map(|m| m.gid()),
        _ => None,
    };
    let keeps =
        carried.is_some_and(may_give_group) || inherited_group(target).is_none_or(may_give_group);
    if keeps { mode } else { mode & !0o2000 }
}

/// `mode` less its setgid bit when a new file in directories made below the existing directory
/// `dir` could not keep it: a directory made in a setgid directory takes that directory's
/// group and bit, and so does the file made in it (see [`keepable_mode`]).
pub fn keepable_mode_below(dir: &Resolved, mode: u32) -> u32 {
    if mode & 0o2000 == 0 {
        return mode;
    }
    let Ok(handle) = dir.open_dir_to_inspect() else {
        return mode;
    };
    match rustix::fs::fstat(&handle) {
        Ok(st) if st.st_mode & 0o2000 != 0 && !crate::durable::may_give_group(st.st_gid) => {
            mode & !0o2000
        }
        _ => mode,
    }
}

/// Gives the new `file` what of the file at `target` it replaces a rename would lose and the
/// writer may give: its group, where this process may give that group (a change of content
/// replaces the file with a new one, which would otherwise belong to the writer's group, or
/// its setgid directory's, and a file a team shares through its group would leave the team
/// at the first edit), and its user extended attributes and POSIX access ACL (a file shared
/// with `setfacl` would lose that access). Best effort: what cannot be given is left, and
/// the plan has said so for the group (a warning). `security.*` attributes are never copied:
/// file capabilities, which the kernel takes off a file whose content changes, must not come
/// back on new content. Before the mode is set: a change of group clears the setgid bit.
fn keep_group_and_attributes(file: &File, target: &Resolved) {
    let Some(Kind::File) = target.kind else {
        return;
    };
    let Ok(old) = target.open_file() else {
        return;
    };
    carry_group_and_attributes(&old, file);
}

/// Gives `to` the group of `from`, where this process may give it, and copies its user
/// extended attributes and POSIX access ACL ([`copy_attributes`]).
fn carry_group_and_attributes(from: &File, to: &File) {
    use std::os::unix::fs::MetadataExt;
    if let Ok(group) = from.metadata().map(|m| m.gid())
        && to.metadata().is_ok_and(|m| m.gid() != group)
        && crate::durable::may_give_group(group)
    {
        let _ = rustix::fs::fchown(to, None, Some(rustix::fs::Gid::from_raw(group)));
    }
    copy_attributes(from, to);
}

/// Copies the user extended attributes and the POSIX access ACL of `from` to `to`. A `from`
/// without an access ACL leaves `to` without one: a new file in a directory with a default ACL
/// is given an ACL from it, and an edit must not grant a file access it did not give.
fn copy_attributes(from: &File, to: &File) {
    use rustix::fs::{XattrFlags, fgetxattr, fgetxattr_query, flistxattr, flistxattr_query};
    const ACCESS_ACL: &[u8] = b"system.posix_acl_access";
    let mut names = vec![0u8; flistxattr_query(from).unwrap_or(0)];
    let Ok(listed) = flistxattr(from, &mut names[..]) else {
        return;
    };
    let mut had_acl = false;
    let carried = |name: &&[u8]| name.starts_with(b"user.") || *name == ACCESS_ACL;
    for name in names[..listed].split(|b| *b == 0).filter(carried) {
        had_acl |= name == ACCESS_ACL;
        let mut value = vec![0u8; fgetxattr_query(from, name).unwrap_or(0)];
        if let Ok(len) = fgetxattr(from, name, &mut value[..]) {
            let _ = rustix::fs::fsetxattr(to, name, &value[..len], XattrFlags::empty());
        }
    }
    if !had_acl {
        // Nothing to remove (ENODATA) is the common case.
        let _ = rustix::fs::fremovexattr(to, ACCESS_ACL);
    }
}

/// Gives `file` the permission bits `mode` (when given), fsyncs it, and returns the bits it
/// has. Bits the file did not get are STORAGE_ERROR (`details.reason` `mode_not_kept`), before
/// anything is published: the kernel clears a setgid bit that the writer may not set without
/// failing the call (not in the file's group, or root without `CAP_FSETID`, which
/// [`keepable_mode`] cannot see), and some file systems fix every file's mode. Published, such
/// a file would not hold the mode the operation recorded, and the operation would find its own
/// change "changed by another process" after making it.
fn set_mode_and_sync(file: &File, mode: Option<u32>) -> Result<u32> {
    if let Some(bits) = mode {
        counted("set file mode", || {
            file.set_permissions(std::fs::Permissions::from_mode(bits))
        })
        .map_err(|e| Error::storage("setting file mode", &e))?;
    }
    counted("sync file", || file.sync_all()).map_err(|e| Error::storage("syncing file", &e))?;
    let got = file
        .metadata()
        .map_err(|e| Error::storage("inspecting file", &e))?
        .permissions()
        .mode()
        & 0o7777;
    match mode {
        Some(asked) if asked != got => Err(mode_not_kept(asked, got)),
        _ => Ok(got),
    }
}

/// The refusal of a new file or directory that did not get the permission bits asked for
/// (see [`set_mode_and_sync`]); the caller adds the path.
pub(crate) fn mode_not_kept(asked: u32, got: u32) -> Error {
    Error::new(
        Code::StorageError,
        format!(
            "the new entry did not keep the mode {asked:o} (it has {got:o}), so it could not \
             hold what the operation records; nothing was written"
        ),
    )
    .with("reason", "mode_not_kept")
    .with("mode", format!("{asked:o}"))
    .with("kept_mode", format!("{got:o}"))
    .recovery(
        "a setgid bit is kept only for a writer in the file's group (or with CAP_FSETID); \
         give the file a mode this writer can keep, or write as such a user",
    )
}

/// Creates a temp file in `target`'s directory, writes `fill`'s bytes, sets `mode` and fsyncs.
/// A named temp file is removed on every error.
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
    let dir = dir_identity(parent)?;
    let unnamed = if kind.may_be_unnamed() && naming_works() {
        create_unnamed(parent)?
    } else {
        None
    };
    let (file, name) = match (unnamed, kind) {
        (Some(file), _) => (file, None),
        (None, TempKind::Unnamed) => return Ok(None),
        (None, _) => {
            let (file, name) = create_named(parent)?;
            (file, Some(name))
        }
    };
    let mut temp = TempName { dir: parent, name };
    let mut out = HashingWriter {
        file,
        hasher: Hasher::default(),
    };
    counted("write file data", || fill(&mut out))?;
    keep_group_and_attributes(&out.file, target);
    let mode = set_mode_and_sync(&out.file, mode).map_err(|e| e.path(&target.given))?;
    let (after_hash, size) = out.hasher.finish();
    if content.is_some_and(|want| want != after_hash) {
        return Err(Error::new(
            Code::StorageError,
            "the bytes written differ from the content's id; nothing was published",
        )
        .path(&target.given));
    }
    // A named file outlives this call: the `Staged` removes it if it is never finished.
    let named = if temp.name.is_some() {
        let owned = rustix::io::fcntl_dupfd_cloexec(parent, 0)
            .map_err(|e| io_error("opening directory", e))?;
        temp.name.take().map(|name| (owned, name))
    } else {
        None
    };
    Ok(Some(Staged {
        file: out.file,
        dir,
        named,
        mode,
        after_hash,
        size,
    }))
}

impl Staged {
    /// Whether `target` is in the directory the file was staged in, the only one it can be
    /// renamed into (its group and default ACL came from there). A directory replaced since
    /// staging is another one: publish afresh there.
    pub fn is_beside(&self, target: &Resolved) -> bool {
        dir_identity(target.parent()).is_ok_and(|dir| dir == self.dir)
    }

    /// Completes the publication at `target`, which must be [beside](Self::is_beside) the
    /// staged file: checks `expect`, gives the file the mode an existing target has now
    /// (unless `mode` was given when staging), renames it into place and fsyncs the directory.
    pub fn finish(self, target: &Resolved, expect: Expect, mode: Option<u32>) -> Result<Published> {
        if !self.is_beside(target) {
            return Err(Error::internal(
                "a staged file can only be published in the directory it was written in",
            ));
        }
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
        // From here on the temp name is removed on every error, through `temp`.
        let mut temp = TempName {
            dir: parent,
            name: self.named.take().map(|(_, name)| name),
        };
        // The target's mode changed since staging (rare): give the file the new one, durably.
        if let Some(bits) = mode.or(before_mode)
            && bits != self.mode
        {
            self.mode =
                set_mode_and_sync(&self.file, Some(bits)).map_err(|e| e.path(&target.given))?;
        }
        if temp.name.is_none() {
            temp.name = Some(self.name_it(parent).map_err(|e| e.path(&target.given))?);
        }
        let tmp_name = temp.name.clone().unwrap_or_default();
        // The file being replaced is freed after this returns, not inside the rename.
        let _replaced = (target.kind == Some(Kind::File) && expect != Expect::Absent)
            .then(|| crate::retire::hold(parent, name));
        crate::fault::crash_point("publish-before-rename");

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
        // Renamed: the name is the target's now, not ours to remove.
        temp.name = None;
        crate::fault::crash_point("publish-before-dir-sync");
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

    /// Names the unnamed file `.fk-tmp-<16 hex>` in `dir` (`linkat` of `/proc/self/fd/N`).
    /// Where that is refused (a sandbox, a `/proc` without our descriptors), copies it into a
    /// named temp file instead, and stops staging unnamed files in this process.
    fn name_it(&self, dir: BorrowedFd<'_>) -> Result<String> {
        use std::os::fd::AsRawFd;
        let name = format!("{TEMP_PREFIX}{}", crate::durable::random_hex16());
        let link = format!("/proc/self/fd/{}", self.file.as_raw_fd());
        let linked = counted("name temporary file", || {
            rustix::fs::linkat(
                rustix::fs::CWD,
                link.as_str(),
                dir,
                name.as_str(),
                AtFlags::SYMLINK_FOLLOW,
            )
        });
        match linked {
            Ok(()) => Ok(name),
            Err(Errno::PERM | Errno::ACCESS | Errno::NOENT | Errno::XDEV) => {
                NAMING_WORKS.store(false, std::sync::atomic::Ordering::Relaxed);
                self.copy_to_named(dir)
            }
            Err(e) => Err(io_error("naming temporary file", e)),
        }
    }

    fn copy_to_named(&self, dir: BorrowedFd<'_>) -> Result<String> {
        use std::io::{Seek, SeekFrom};
        let (mut copy, name) = create_named(dir)?;
        let mut temp = TempName {
            dir,
            name: Some(name),
        };
        let mut source = &self.file;
        counted("write file data", || {
            source.seek(SeekFrom::Start(0))?;
            io::copy(&mut source, &mut copy)
        })
        .map_err(|e| Error::storage("writing file", &e))?;
        // The copy is a new file again: it gets what the staged one was given.
        carry_group_and_attributes(&self.file, &copy);
        set_mode_and_sync(&copy, Some(self.mode))?;
        Ok(temp.name.take().unwrap_or_default())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        // An unnamed file goes away with its descriptor; a named one is removed.
        if let Some((dir, name)) = self.named.take() {
            let _ = rustix::fs::unlinkat(&dir, name.as_str(), AtFlags::empty());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::{Intent, Root};

    const WRITE: Intent = Intent::Write {
        allow_sensitive: false,
    };

    /// A workspace with `file.txt` holding "old".
    fn workspace() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file.txt"), "old").unwrap();
        let root = Root::open(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn only_the_prefix_and_sixteen_hex_digits_are_a_temp_name() {
        assert!(is_temp_name(b".fk-tmp-0123456789abcdef"));
        assert!(is_temp_name(
            format!("{TEMP_PREFIX}{}", crate::durable::random_hex16()).as_bytes()
        ));
        for name in [
            ".fk-tmp-keep.txt",
            ".fk-tmp-0123456789ABCDEF",
            ".fk-tmp-0123456789abcde",
            ".fk-tmp-0123456789abcdef0",
            ".fk-tmp-",
            "x.fk-tmp-0123456789abcdef",
        ] {
            assert!(!is_temp_name(name.as_bytes()), "{name}");
        }
    }

    fn names(dir: &tempfile::TempDir) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Stages for `file.txt` in a temp file named from the start.
    fn named(root: &Root, fill: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<Staged> {
        let target = root.resolve("file.txt", WRITE).unwrap();
        write_temp(&target, None, None, fill, TempKind::Named).map(|s| s.unwrap())
    }

    fn write_new(out: &mut dyn Write) -> Result<()> {
        out.write_all(b"new")
            .map_err(|e| Error::storage("writing", &e))
    }

    #[test]
    fn a_named_temp_file_is_removed_when_writing_it_fails() {
        let (dir, root) = workspace();
        let full =
            |_: &mut dyn Write| Err(Error::storage("writing", &io::Error::from_raw_os_error(28)));
        assert_eq!(named(&root, full).unwrap_err().code, Code::StorageError);
        assert_eq!(names(&dir), ["file.txt"]);
    }

    #[test]
    fn a_named_staged_file_is_there_until_dropped_unfinished() {
        let (dir, root) = workspace();
        let staged = named(&root, write_new).unwrap();
        assert_eq!(names(&dir).len(), 2, "the temp file has a name");
        drop(staged);
        assert_eq!(names(&dir), ["file.txt"]);
    }

    #[test]
    fn a_named_staged_file_is_published_like_an_unnamed_one() {
        let (dir, root) = workspace();
        let staged = named(&root, write_new).unwrap();
        let target = root.resolve("file.txt", WRITE).unwrap();
        staged
            .finish(&target, Expect::Hash(ObjectId::of(b"old")), None)
            .unwrap();
        assert_eq!(std::fs::read(dir.path().join("file.txt")).unwrap(), b"new");
        assert_eq!(names(&dir), ["file.txt"]);
    }

    #[test]
    fn a_named_staged_file_refused_at_the_check_is_removed() {
        let (dir, root) = workspace();
        let staged = named(&root, write_new).unwrap();
        let target = root.resolve("file.txt", WRITE).unwrap();
        let err = staged
            .finish(&target, Expect::Hash(ObjectId::of(b"other")), None)
            .unwrap_err();
        assert_eq!(err.code, Code::ContentConflict);
        assert_eq!(names(&dir), ["file.txt"]);
        assert_eq!(std::fs::read(dir.path().join("file.txt")).unwrap(), b"old");
    }
}
