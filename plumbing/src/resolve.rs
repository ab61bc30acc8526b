//! Confinement: the one resolver every path goes through.
//!
//! A path is walked component by component from an open handle on the workspace root, each
//! step an `openat(O_PATH | O_NOFOLLOW)` relative to the directory handle before it; the last
//! component, which needs no handle, only an `lstat` relative to its parent's. Symbolic
//! links are never followed by the kernel: the resolver reads each link itself and splices its
//! target into the walk, so it knows exactly when a link would leave the root and can refuse
//! with a precise code. Because every step is relative to a handle already proved to be inside
//! the root, swapping a directory for a symlink mid-walk can only make the walk see the
//! symlink (and refuse it), never follow it. Later opens, creates and renames happen relative
//! to the returned parent handle for the same reason.

use crate::error::{Code, Error, Result};
use crate::sensitive;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use std::ffi::OsStr;
use std::fs::{self, File};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// The name of Filekeeper's own state directory inside a workspace.
pub const STATE_DIR_NAME: &str = ".filekeeper";

/// Whether a path component names a state directory: the workspace's own at the root, or a
/// nested workspace's anywhere below it. Both are off limits (`decisions.md`): a write there
/// would damage that workspace's history, and a read or a walk would show its blobs as
/// content. Matched without regard to case, as credential-shaped names are: on a file system
/// that folds case, `.FILEKEEPER/` is the same directory.
pub fn is_state_dir_name(component: &[u8]) -> bool {
    component.eq_ignore_ascii_case(STATE_DIR_NAME.as_bytes())
}

/// The kernel's own limit on links in one resolution; a longer chain is a loop.
const MAX_LINKS: usize = 40;

/// An open workspace root.
pub struct Root {
    fd: OwnedFd,
    canonical: PathBuf,
    /// The directory's device and inode when it was opened: the path must still name it.
    identity: (u64, u64),
    /// Paths below the root that are Filekeeper's own (its home directory, when a
    /// workspace holds it), as components: never read or written as workspace content,
    /// like `.filekeeper/` (see [`Root::reserve_home`]).
    reserved: Vec<Vec<Vec<u8>>>,
}

/// Whether a path is to be read or written; it decides how a final symlink is treated and
/// whether credential-shaped names are refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intent {
    /// The path is to be read: links on it, the last one included, are followed while they
    /// stay inside the root.
    Read,
    /// The path is to be written: a link as its last component is refused (a write would
    /// replace the link, not its target), and so is a credential-shaped name unless allowed.
    Write {
        /// Accept a credential-shaped path instead of refusing it with SENSITIVE_PATH_REFUSED.
        allow_sensitive: bool,
    },
}

/// What is at a resolved path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
}

impl Kind {
    /// The kind as JSON and the journal spell it: `file` or `directory`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Directory => "directory",
        }
    }
}

/// A path proved to lie inside the root, with a handle on its parent directory.
#[derive(Debug)]
pub struct Resolved {
    /// The path as the caller gave it; the only path errors ever show.
    pub given: String,
    /// The real workspace-relative path after following links inside the root, `/`-separated;
    /// `.` for the root itself.
    pub rel: String,
    /// The parent directory (the root itself when the path is the root).
    parent: OwnedFd,
    /// The final component; `None` for the root.
    name: Option<Vec<u8>>,
    /// What exists there now; `None` when nothing does.
    pub kind: Option<Kind>,
}

impl Root {
    /// Opens a workspace root. The path must name an existing directory.
    pub fn open(path: &Path) -> Result<Root> {
        let missing = || {
            Error::new(
                Code::WorkspaceNotFound,
                "the workspace root does not exist or is not a directory",
            )
            .recovery("check the workspace root; a registered workspace whose root moved must be registered again")
        };
        let canonical = fs::canonicalize(path).map_err(|_| missing())?;
        refuse_root_in_state(&canonical)?;
        let fd = rustix::fs::open(
            &canonical,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|_| missing())?;
        let stat = rustix::fs::fstat(&fd).map_err(|_| missing())?;
        Ok(Root {
            fd,
            canonical,
            identity: (stat.st_dev, stat.st_ino),
            reserved: Vec::new(),
        })
    }

    /// Makes the directory `home` (Filekeeper's home: its configuration, the registry, the
    /// global state) out of bounds when it lies inside the root, as `.filekeeper/` always is:
    /// a workspace that holds the home (one registered at `~`, say, with the home in
    /// `~/.local/share/filekeeper`) must not let its files rewrite Filekeeper's own
    /// configuration or delete a journal. When the home is the root itself, its own entries
    /// are what is reserved.
    pub fn reserve_home(&mut self, home: &Path) {
        let Ok(home) = fs::canonicalize(home) else {
            return;
        };
        let Ok(inside) = home.strip_prefix(&self.canonical) else {
            return;
        };
        let prefix: Vec<Vec<u8>> = inside
            .components()
            .map(|c| c.as_os_str().as_bytes().to_vec())
            .collect();
        if prefix.is_empty() {
            self.reserved.extend(
                HOME_ENTRIES
                    .iter()
                    .map(|name| vec![name.as_bytes().to_vec()]),
            );
        } else {
            self.reserved.push(prefix);
        }
    }

    /// The reserved paths ([`Root::reserve_home`]) as workspace-relative, `/`-separated
    /// paths, for walks that pass over them.
    pub fn reserved_paths(&self) -> Vec<String> {
        self.reserved
            .iter()
            .map(|parts| {
                let parts: Vec<String> = parts
                    .iter()
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .collect();
                parts.join("/")
            })
            .collect()
    }

    fn check_rules(&self, given: &str, components: &[Vec<u8>], intent: Intent) -> Result<()> {
        if self
            .reserved
            .iter()
            .any(|prefix| components.starts_with(prefix))
        {
            return Err(Error::new(
                Code::PathIsStatePath,
                "the path is inside Filekeeper's home directory (its configuration, registry and state), which is never read or changed as workspace content",
            )
            .path(given));
        }
        check_write_rules(given, components, intent)
    }

    /// The rules a write to the workspace-relative path `rel` must pass before anything is
    /// resolved: not inside `.filekeeper/`, nor inside Filekeeper's home when the root holds
    /// it ([`Root::reserve_home`]); and not credential-shaped unless `intent` allows it. A
    /// mutation checks every path it will change with this while it plans, so that a tree
    /// holding a credential is refused before anything is recorded, not at the step that
    /// reaches it.
    pub fn check_write_path(&self, rel: &str, intent: Intent) -> Result<()> {
        let components: Vec<Vec<u8>> = parts(rel).map(|c| c.as_bytes().to_vec()).collect();
        self.check_rules(rel, &components, intent)
    }

    /// Checks that the root's path still names the directory opened. Files are reached
    /// through the directory's descriptor and the state (journal, objects, lock) through its
    /// path, so a process that keeps a root open (the MCP server, a Python `Workspace`) would
    /// otherwise, once the directory is renamed and another made in its place, change the
    /// files of one and record them in the other, under a lock that excludes nobody.
    pub fn check_still_here(&self) -> Result<()> {
        match rustix::fs::stat(&self.canonical) {
            Ok(stat) if (stat.st_dev, stat.st_ino) == self.identity => Ok(()),
            _ => Err(Error::new(
                Code::WorkspaceNotFound,
                "the workspace root was moved, removed or replaced since this session opened it; nothing was done",
            )
            .recovery("open the workspace again; a registered workspace whose root moved must be registered again")),
        }
    }

    /// The canonical host path of the root. Never shown to callers.
    pub fn host_path(&self) -> &Path {
        &self.canonical
    }

    /// Resolves `given`, relative to the root or absolute inside it, for `intent`, by the
    /// confined walk the module describes.
    ///
    /// A path that ends with `/` names a directory, as it does for the kernel: where a file
    /// stands instead, the answer is NOT_A_DIRECTORY (so `notes.md/` never reads or writes
    /// `notes.md`). Whether a missing path may become a file is the caller's to judge, with
    /// [`names_directory`].
    pub fn resolve(&self, given: &str, intent: Intent) -> Result<Resolved> {
        self.check_still_here()?;
        // A failure deep in the walk (a directory on the way that cannot be searched) still
        // names the path the caller gave.
        let resolved = resolve(self, given, intent).map_err(|e| e.or_path(given))?;
        if names_directory(given) && resolved.kind == Some(Kind::File) {
            return Err(Error::new(
                Code::NotADirectory,
                "the path ends with /, so it names a directory, but a file is there",
            )
            .path(given));
        }
        Ok(resolved)
    }

    /// Resolves a path that was recorded as a real workspace path (a plan's step, a journal
    /// item), which must still be one: reached through no link. A directory on it that a
    /// link has replaced since would take the change to another path than the one recorded
    /// (an undo would delete or overwrite a file no operation names), so that is
    /// CONTENT_CONFLICT.
    pub fn resolve_recorded(&self, recorded: &str, intent: Intent) -> Result<Resolved> {
        let resolved = self.resolve(recorded, intent)?;
        if !is_real_path(&resolved, recorded) {
            return Err(Error::new(
                Code::ContentConflict,
                "a directory on this path has been replaced by a symbolic link since the path was recorded, so the path now leads elsewhere",
            )
            .path(recorded));
        }
        Ok(resolved)
    }

    /// Whether the last component of `given` is itself a symbolic link, looked at without
    /// following it; the directories above it are resolved as for any read.
    pub fn is_symlink(&self, given: &str) -> bool {
        self.last_component(given).is_some_and(|(dir, _, name)| {
            kind_at(dir.as_fd(), OsStr::from_bytes(&name))
                .ok()
                .flatten()
                == Some(FileType::Symlink)
        })
    }

    /// Where the symbolic link `given` points, as a workspace-relative path worked out from
    /// the link's text alone (`..` and `.` taken lexically, no further link followed); `None`
    /// when it is not a link or its text leads out of the workspace.
    pub fn link_text_target(&self, given: &str) -> Option<String> {
        let (dir, mut real, name) = self.last_component(given)?;
        let target = rustix::fs::readlinkat(&dir, name.as_slice(), Vec::new()).ok()?;
        let target = target.as_bytes();
        if target.starts_with(b"/") {
            let inside = Path::new(OsStr::from_bytes(target))
                .strip_prefix(&self.canonical)
                .ok()?;
            real = Vec::new();
            return lexical(&mut real, inside.as_os_str().as_bytes());
        }
        lexical(&mut real, target)
    }

    /// The last component of `given`, unresolved, with a handle on the directory that holds
    /// it and that directory's real workspace-relative components (the directories above are
    /// resolved as for any read).
    fn last_component(&self, given: &str) -> Option<(OwnedFd, Vec<Vec<u8>>, Vec<u8>)> {
        let mut parts = relative_components(self, given).ok()?;
        let name = parts.pop()?;
        if parts.is_empty() {
            let root = rustix::io::fcntl_dupfd_cloexec(&self.fd, 0).ok()?;
            return Some((root, Vec::new(), name));
        }
        let path = parts.iter().map(|c| text(c)).collect::<Vec<_>>().join("/");
        let dir = self
            .resolve(&path, Intent::Read)
            .ok()
            .filter(|r| r.kind == Some(Kind::Directory))?;
        let real = dir.rel.split('/').map(|c| c.as_bytes().to_vec()).collect();
        Some((dir.open_dir().ok()?, real, name))
    }

    /// The workspace-relative spelling of a path, by its letters alone (no filesystem access):
    /// `..` and absolute paths outside the root are refused as by [`Root::resolve`].
    pub fn relative(&self, given: &str) -> Result<String> {
        let parts = relative_components(self, given)?;
        if parts.is_empty() {
            return Err(Error::invalid("the path names the workspace root").path(given));
        }
        Ok(parts.iter().map(|c| text(c)).collect::<Vec<_>>().join("/"))
    }
}

/// Refuses a workspace root (canonical) inside a `.filekeeper/` directory: such a workspace
/// would read and write another workspace's state as its files.
pub fn refuse_root_in_state(canonical: &Path) -> Result<()> {
    if canonical
        .components()
        .any(|c| is_state_dir_name(c.as_os_str().as_bytes()))
    {
        return Err(Error::new(
            Code::PathIsStatePath,
            "the workspace root lies inside a .filekeeper/ directory, a workspace's state",
        )
        .recovery("choose a root outside every .filekeeper/ directory"));
    }
    Ok(())
}

/// `base` with the `/`-separated `path` applied to it lexically; `None` if it climbs above the
/// root or lands in a state directory.
fn lexical(base: &mut Vec<Vec<u8>>, path: &[u8]) -> Option<String> {
    for component in path.split(|&b| b == b'/') {
        match component {
            b"" | b"." => {}
            b".." => {
                base.pop()?;
            }
            other => base.push(other.to_vec()),
        }
    }
    if base.iter().any(|c| is_state_dir_name(c)) {
        return None;
    }
    Some(base.iter().map(|c| text(c)).collect::<Vec<_>>().join("/"))
}

/// Whether `given` is spelt as a directory: it ends with `/` (or `/.`), and is not the root.
pub fn names_directory(given: &str) -> bool {
    let trimmed = given.trim_end_matches("/.");
    trimmed.len() > 1 && (trimmed.ends_with('/') || trimmed.len() < given.len())
}

impl Resolved {
    /// The parent directory handle (an `O_PATH` handle: usable as a base for `*at` calls).
    pub fn parent(&self) -> BorrowedFd<'_> {
        self.parent.as_fd()
    }

    /// The final component, or `None` for the root.
    pub fn name(&self) -> Option<&OsStr> {
        self.name.as_deref().map(OsStr::from_bytes)
    }

    /// Whether the path is the workspace root itself (`rel` is `.`).
    pub fn is_root(&self) -> bool {
        self.name.is_none()
    }

    /// Opens the resolved regular file for reading, relative to its parent and without
    /// following a link, so a swap after resolution is refused rather than followed.
    pub fn open_file(&self) -> Result<File> {
        let name = match (&self.name, self.kind) {
            (Some(name), Some(Kind::File)) => name,
            (_, Some(Kind::Directory)) => {
                return Err(
                    Error::new(Code::NotAFile, "the path is a directory, not a file")
                        .path(&self.given),
                );
            }
            _ => return Err(not_found(&self.given)),
        };
        let fd = rustix::fs::openat(
            &self.parent,
            name.as_slice(),
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| self.open_error(e))?;
        let stat = rustix::fs::fstat(&fd).map_err(|e| io_error("inspecting file", e))?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Err(Error::new(
                Code::NotAFile,
                "the path changed to something other than a file",
            )
            .path(&self.given));
        }
        Ok(File::from(fd))
    }

    /// Opens the resolved directory for listing, relative to its parent and without following
    /// a link.
    pub fn open_dir(&self) -> Result<OwnedFd> {
        self.open_dir_as(OFlags::RDONLY)
    }

    /// A handle on the resolved directory that can be inspected (`fstat`) but not listed:
    /// it needs only search permission on the way, not read permission on the directory,
    /// so a directory this user cannot list can still be described.
    pub fn open_dir_to_inspect(&self) -> Result<OwnedFd> {
        self.open_dir_as(OFlags::PATH)
    }

    fn open_dir_as(&self, access: OFlags) -> Result<OwnedFd> {
        let name: &[u8] = match (&self.name, self.kind) {
            (_, Some(Kind::File)) => {
                return Err(
                    Error::new(Code::NotADirectory, "the path is a file, not a directory")
                        .path(&self.given),
                );
            }
            (None, _) => b".",
            (Some(name), Some(Kind::Directory)) => name,
            (Some(_), None) => return Err(not_found(&self.given)),
        };
        rustix::fs::openat(
            &self.parent,
            name,
            access | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| match e {
            // Resolved as a directory, and something else (a file, a link) since.
            Errno::NOTDIR => Error::new(
                Code::NotADirectory,
                "the path changed to something other than a directory while in use",
            )
            .path(&self.given),
            e => self.open_error(e),
        })
    }

    /// A readable handle on the parent directory, for `fsync` after a rename in it.
    pub fn parent_for_sync(&self) -> Result<File> {
        rustix::fs::openat(
            &self.parent,
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map(File::from)
        .map_err(|e| io_error("opening directory", e))
    }

    fn open_error(&self, errno: Errno) -> Error {
        match errno {
            Errno::NOENT => not_found(&self.given),
            Errno::LOOP => Error::new(
                Code::SymlinkWriteRefused,
                "the path was replaced by a symbolic link while in use",
            )
            .path(&self.given),
            e => io_error("opening file", e).path(&self.given),
        }
    }
}

fn not_found(given: &str) -> Error {
    Error::new(
        Code::PathNotFound,
        "no such file or directory in the workspace",
    )
    .path(given)
}

pub(crate) fn io_error(what: &str, errno: Errno) -> Error {
    Error::storage(what, &std::io::Error::from(errno))
}

/// Splits `given` into workspace-relative components, refusing `..` and absolute paths that
/// do not land inside the root.
fn relative_components(root: &Root, given: &str) -> Result<Vec<Vec<u8>>> {
    if given.is_empty() {
        return Err(Error::invalid("the path is empty").path(given));
    }
    if given.contains('\0') {
        return Err(Error::invalid("the path contains a NUL byte").path(given));
    }
    if given.len() > 4096 {
        // Never echo a huge argument back: name its size, not its text.
        return Err(Error::invalid(format!(
            "the path is {} bytes long; paths are at most 4096",
            given.len()
        ))
        .with("path_bytes", given.len())
        .with("max_path_bytes", 4096));
    }
    let path = Path::new(given);
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(Error::new(
            Code::PathOutsideWorkspace,
            "paths may not contain `..`; name the file relative to the workspace root",
        )
        .path(given));
    }
    let relative: PathBuf = if path.is_absolute() {
        inside_root(root, path).ok_or_else(|| {
            Error::new(
                Code::AbsolutePathOutsideWorkspace,
                "the absolute path does not lie inside the workspace root",
            )
            .path(given)
        })?
    } else {
        path.to_path_buf()
    };
    Ok(relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.as_bytes().to_vec()),
            _ => None,
        })
        .collect())
}

/// The part of an absolute path below the root: lexically first, then through the canonical
/// form of its longest existing ancestor (so `/tmp/ws/x` matches a root of `/private/tmp/ws`).
fn inside_root(root: &Root, path: &Path) -> Option<PathBuf> {
    if let Ok(rest) = path.strip_prefix(&root.canonical) {
        return Some(rest.to_path_buf());
    }
    let mut ancestor = path;
    let mut tail = Vec::new();
    loop {
        if let Ok(canonical) = fs::canonicalize(ancestor) {
            let rest = canonical.strip_prefix(&root.canonical).ok()?;
            let mut out = rest.to_path_buf();
            out.extend(tail.iter().rev());
            return Some(out);
        }
        tail.push(ancestor.file_name()?.to_owned());
        ancestor = ancestor.parent()?;
    }
}

fn text(component: &[u8]) -> String {
    String::from_utf8_lossy(component).into_owned()
}

/// The components of a workspace-relative path, without the empty and `.` ones that
/// `a//./b` spells: the names a resolved path ([`Resolved::rel`]) is made of.
pub fn parts(rel: &str) -> impl Iterator<Item = &str> {
    rel.split('/').filter(|c| !c.is_empty() && *c != ".")
}

fn check_write_rules(given: &str, components: &[Vec<u8>], intent: Intent) -> Result<()> {
    if components.iter().any(|c| is_state_dir_name(c)) {
        return Err(Error::new(
            Code::PathIsStatePath,
            "paths inside a .filekeeper/ directory belong to Filekeeper's state (this \
             workspace's, or a workspace's nested in it) and are never touched",
        )
        .path(given));
    }
    if let Intent::Write {
        allow_sensitive: false,
    } = intent
    {
        let names: Vec<String> = components.iter().map(|c| text(c)).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        if let Some(why) = sensitive::reason(&refs) {
            return Err(Error::new(
                Code::SensitivePathRefused,
                format!("refusing to write a credential-shaped path: {why}"),
            )
            .path(given)
            .recovery("write elsewhere; override only if you accept the risk of writing a secret")
            .argument(crate::Argument::AllowSensitiveWrite));
        }
    }
    Ok(())
}

/// What Filekeeper keeps in its home directory, reserved when the home is a workspace's root
/// itself.
const HOME_ENTRIES: &[&str] = &[
    "config.toml",
    "registry.sqlite3",
    "registry.sqlite3-journal",
    "registry.sqlite3-wal",
    "registry.sqlite3-shm",
    "default-workspace.json",
    "state",
];

fn resolve(root: &Root, given: &str, intent: Intent) -> Result<Resolved> {
    let components = relative_components(root, given)?;
    root.check_rules(given, &components, intent)?;

    // `stack` holds the real directories entered below the root, with their handles.
    let mut stack: Vec<(OwnedFd, Vec<u8>)> = Vec::new();
    let mut pending: std::collections::VecDeque<Vec<u8>> = components.into();
    let mut links = 0usize;
    let escape = || {
        Error::new(
            Code::SymlinkEscapeRefused,
            "a symbolic link on this path leads outside the workspace",
        )
        .path(given)
    };

    while let Some(component) = pending.pop_front() {
        if component == b"." || component.is_empty() {
            continue;
        }
        if component == b".." {
            // Only a link target can bring `..` here; leaving the root that way is an escape.
            stack.pop().ok_or_else(escape)?;
            continue;
        }
        if is_state_dir_name(&component) {
            return Err(Error::new(
                Code::PathIsStatePath,
                "the path leads into a .filekeeper/ directory, Filekeeper's state",
            )
            .path(given));
        }
        let is_last = pending.is_empty();
        let dir: BorrowedFd<'_> = stack.last().map_or(root.fd.as_fd(), |(fd, _)| fd.as_fd());
        if is_last {
            // The last component needs no handle of its own, only its type: one `lstat`
            // instead of an open, an `fstat` and a close. A link still takes the walk below,
            // which reads it through a handle on the very link whose type was checked.
            match rustix::fs::statat(dir, component.as_slice(), AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => match FileType::from_raw_mode(stat.st_mode) {
                    FileType::RegularFile => {
                        return finish(root, stack, given, intent, component, Some(Kind::File));
                    }
                    FileType::Directory => {
                        return finish(
                            root,
                            stack,
                            given,
                            intent,
                            component,
                            Some(Kind::Directory),
                        );
                    }
                    FileType::Symlink => {}
                    _ => {
                        return Err(Error::new(
                            Code::SpecialFileRefused,
                            "devices, sockets and FIFOs are refused",
                        )
                        .path(given));
                    }
                },
                Err(Errno::NOENT) => return finish(root, stack, given, intent, component, None),
                // Anything else is reported by the walk below, as for any component.
                Err(_) => {}
            }
        } else if let Ok(fd) = rustix::fs::openat(
            dir,
            component.as_slice(),
            OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            // A directory, by far the most common component before the last, is entered with
            // one `openat`: `O_DIRECTORY` with `O_NOFOLLOW` fails on anything else, a link to
            // a directory included (ENOTDIR), and that takes the walk below, which tells them
            // apart with an `fstat`; so does any other failure, reported there as before.
            stack.push((fd, component));
            continue;
        }
        let fd = match rustix::fs::openat(
            dir,
            component.as_slice(),
            OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            Err(Errno::NOENT) if is_last => {
                return finish(root, stack, given, intent, component, None);
            }
            Err(Errno::NOENT) => {
                return Err(Error::new(
                    Code::PathNotFound,
                    format!("the parent directory {} does not exist", text(&component)),
                )
                .path(given));
            }
            Err(Errno::NAMETOOLONG) => {
                return Err(Error::invalid(format!(
                    "the name {} is longer than the filesystem allows",
                    text(&component[..component.len().min(64)])
                ))
                .path(given));
            }
            Err(e) => return Err(io_error("resolving path", e)),
        };
        let stat = rustix::fs::fstat(&fd).map_err(|e| io_error("resolving path", e))?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory => stack.push((fd, component)),
            FileType::Symlink => {
                // The link is read through the handle just opened, so it is the same link
                // whose type was checked, even if the name is swapped meanwhile.
                let target = rustix::fs::readlinkat(&fd, "", Vec::new())
                    .map_err(|e| io_error("reading symbolic link", e))?;
                let target = target.as_bytes();
                let escapes = link_escapes(root, &stack, target);
                if is_last && matches!(intent, Intent::Write { .. }) {
                    // The first hop may stay inside while a later one leaves: follow the
                    // whole chain to say which refusal this is.
                    let leaves = escapes || chain_escapes(root, &stack, &component);
                    return Err(if leaves {
                        escape()
                    } else {
                        Error::new(
                            Code::SymlinkWriteRefused,
                            "the path is a symbolic link; a write would replace the link, not its target",
                        )
                        .path(given)
                        .recovery("write to the link's target path instead")
                    });
                }
                if escapes {
                    return Err(escape());
                }
                links += 1;
                if links > MAX_LINKS {
                    return Err(Error::invalid("too many levels of symbolic links")
                        .path(given)
                        .with("reason", "symlink_loop"));
                }
                let target_path = Path::new(OsStr::from_bytes(target));
                let spliced: Vec<Vec<u8>> = if target_path.is_absolute() {
                    stack.clear();
                    let inside = inside_root(root, target_path).ok_or_else(escape)?;
                    inside
                        .components()
                        .map(|c| c.as_os_str().as_bytes().to_vec())
                        .collect()
                } else {
                    target.split(|b| *b == b'/').map(<[u8]>::to_vec).collect()
                };
                for part in spliced.into_iter().rev() {
                    pending.push_front(part);
                }
            }
            FileType::RegularFile if is_last => {
                return finish(root, stack, given, intent, component, Some(Kind::File));
            }
            FileType::RegularFile => {
                return Err(Error::new(
                    Code::NotADirectory,
                    format!("{} is a file, not a directory", text(&component)),
                )
                .path(given));
            }
            _ if is_last => {
                return Err(Error::new(
                    Code::SpecialFileRefused,
                    "devices, sockets and FIFOs are refused",
                )
                .path(given));
            }
            _ => {
                return Err(Error::new(
                    Code::NotADirectory,
                    format!("{} is not a directory", text(&component)),
                )
                .path(given));
            }
        }
    }
    // The walk ended on a directory (or on the root itself).
    match stack.pop() {
        None => {
            let parent = rustix::io::fcntl_dupfd_cloexec(&root.fd, 0)
                .map_err(|e| io_error("resolving path", e))?;
            Ok(Resolved {
                given: given.to_owned(),
                rel: ".".to_owned(),
                parent,
                name: None,
                kind: Some(Kind::Directory),
            })
        }
        Some((_, name)) => finish(root, stack, given, intent, name, Some(Kind::Directory)),
    }
}

/// Whether the link `name` in the directory at the top of `stack`, followed to its end, leads
/// outside the root. Only asked to choose a refusal's code, so a name that is not text, or any
/// other failure, counts as not leaving.
fn chain_escapes(root: &Root, stack: &[(OwnedFd, Vec<u8>)], name: &[u8]) -> bool {
    let parts: Option<Vec<&str>> = stack
        .iter()
        .map(|(_, n)| n.as_slice())
        .chain([name])
        .map(|c| std::str::from_utf8(c).ok())
        .collect();
    parts.is_some_and(|parts| {
        resolve(root, &parts.join("/"), Intent::Read)
            .is_err_and(|e| e.code == Code::SymlinkEscapeRefused)
    })
}

/// Whether following `target` from the directory at the top of `stack` leaves the root.
/// Only the lexical shape is judged here; links inside the target are judged when walked.
fn link_escapes(root: &Root, stack: &[(OwnedFd, Vec<u8>)], target: &[u8]) -> bool {
    let target_path = Path::new(OsStr::from_bytes(target));
    if target_path.is_absolute() {
        return inside_root(root, target_path).is_none();
    }
    let mut depth = stack.len() as isize;
    for part in target.split(|b| *b == b'/') {
        match part {
            b".." => depth -= 1,
            b"" | b"." => {}
            _ => depth += 1,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

/// The resolution of `name` in the directory at the top of `stack` (the root when it is
/// empty), which becomes the result's parent handle.
fn finish(
    root: &Root,
    mut stack: Vec<(OwnedFd, Vec<u8>)>,
    given: &str,
    intent: Intent,
    name: Vec<u8>,
    kind: Option<Kind>,
) -> Result<Resolved> {
    let mut real: Vec<Vec<u8>> = stack.iter().map(|(_, n)| n.clone()).collect();
    real.push(name.clone());
    // The real path may differ from the given one when links were followed: judge it too.
    root.check_rules(given, &real, intent)?;
    if matches!(intent, Intent::Write { .. })
        && real.iter().any(|c| std::str::from_utf8(c).is_err())
    {
        // The journal records paths as text: a name that is not UTF-8 could only be recorded
        // lossily, and a lossy path names another file when it is resolved again.
        return Err(Error::invalid(
            "the path passes through a name that is not valid UTF-8; Filekeeper can only change files whose path is text",
        )
        .path(given));
    }
    let rel = real.iter().map(|c| text(c)).collect::<Vec<_>>().join("/");
    let parent = match stack.pop() {
        Some((fd, _)) => fd,
        None => rustix::io::fcntl_dupfd_cloexec(&root.fd, 0)
            .map_err(|e| io_error("resolving path", e))?,
    };
    Ok(Resolved {
        given: given.to_owned(),
        rel,
        parent,
        name: Some(name),
        kind,
    })
}

/// Whether `resolved` is where `recorded` names, with no link followed: its real path is the
/// recorded one, written without empty or `.` components.
pub fn is_real_path(resolved: &Resolved, recorded: &str) -> bool {
    parts(recorded).eq(parts(&resolved.rel))
}

/// Checks that a workspace-relative path recorded elsewhere (a journal item) is well formed:
/// relative, no `..`, not inside `.filekeeper/`.
pub fn check_recorded_path(path: &str) -> Result<()> {
    let p = Path::new(path);
    if path.is_empty() || p.is_absolute() || path.contains('\0') {
        return Err(
            Error::invalid("recorded paths must be non-empty and workspace-relative").path(path),
        );
    }
    if p.components().any(|c| c == Component::ParentDir) {
        return Err(Error::new(
            Code::PathOutsideWorkspace,
            "recorded paths may not contain `..`",
        )
        .path(path));
    }
    if p.components()
        .any(|c| is_state_dir_name(c.as_os_str().as_bytes()))
    {
        return Err(Error::new(
            Code::PathIsStatePath,
            "recorded paths may not be inside a .filekeeper/ directory",
        )
        .path(path));
    }
    Ok(())
}

/// `lstat` of a name relative to a directory handle, without following links.
pub fn kind_at(dir: BorrowedFd<'_>, name: &OsStr) -> Result<Option<FileType>> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => Ok(Some(FileType::from_raw_mode(stat.st_mode))),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(io_error("inspecting path", e)),
    }
}
