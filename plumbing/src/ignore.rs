//! Git's ignore rules, for search and grep: `.gitignore` files (those above the workspace root
//! up to the repository's top, and every one met while walking), `.git/info/exclude`, and the
//! user's global excludes file. Matching is gix-ignore's, which follows git's precedence:
//! deeper files override shallower ones, later lines override earlier ones, `!` re-includes.

use bstr::ByteSlice;
use gix_ignore::glob::pattern::Case;
use gix_ignore::search::Ignore;
use std::path::{Path, PathBuf};

/// The ignore rules in force at some point of a walk.
pub(crate) struct IgnoreRules {
    search: gix_ignore::Search,
    /// The workspace root's path relative to the repository's top, with a trailing `/`, or empty.
    prefix: Vec<u8>,
    /// The workspace path of the repository the walk is in when it is one inside the
    /// workspace, with a trailing `/` (cut off a path to make it the repository's), or empty.
    inner: String,
    /// The workspace root's host path, to find a repository's `info/exclude`.
    root: PathBuf,
    /// An ignore file met so far that exists but could not be read: the walk takes it
    /// ([`Option::take`]) and stops.
    pub unreadable: Option<Unreadable>,
}

/// What [`IgnoreRules::pop_to`] restores as the walk leaves a directory.
pub(crate) enum Mark {
    /// The patterns before the directory's `.gitignore`.
    Patterns(usize),
    /// The rules of the repository around one found inside the workspace.
    Repository(Box<(gix_ignore::Search, Vec<u8>, String)>),
}

/// The rules every repository starts from: the user's global excludes file, and the
/// repository's own `info/exclude` (`dot_git` is its `.git`); and whether `info/exclude`
/// exists but could not be read, in words that name no host path. An excludes file that
/// cannot be read is passed over, as git passes it with a warning: it is looked for under
/// `$HOME` (or `$XDG_CONFIG_HOME`), which a process run for another user (`sudo -u`, a
/// service) may not enter, and refusing every walk there would make search unusable.
fn base_rules(dot_git: Option<&Path>) -> (gix_ignore::Search, Option<Unreadable>) {
    let mut search = gix_ignore::Search::default();
    let mut unreadable = None;
    let git_dir = dot_git.map(git_dir);
    let top = dot_git.and_then(Path::parent);
    if let Some(file) = crate::git_config::excludes_file(top, git_dir.as_deref())
        && let Ok(Some(bytes)) = read_host(&file, true)
    {
        search.add_patterns_buffer(&bytes, file, None, Ignore::default());
    }
    if let Some(git_dir) = git_dir {
        let exclude = git_dir.join("info/exclude");
        match read_host(&exclude, true) {
            Ok(Some(bytes)) => search.add_patterns_buffer(&bytes, exclude, None, Ignore::default()),
            Ok(None) => {}
            Err(e) => unreadable = Some(Unreadable::new("the repository's .git/info/exclude", e)),
        }
    }
    (search, unreadable)
}

/// An ignore file that exists but could not be read (a permission, an I/O error): its rules
/// are unknown, so a walk that honours them cannot say which files they ignore, and stops
/// instead of answering as if it had none (`Walk`).
#[derive(Debug, Clone)]
pub struct Unreadable {
    /// The file, in words: a workspace path (`docs/.gitignore`) or a description that names
    /// no host path.
    pub file: String,
    /// The operating system's reason.
    pub reason: String,
}

impl Unreadable {
    pub(crate) fn new(file: impl Into<String>, errno: rustix::io::Errno) -> Unreadable {
        Unreadable {
            file: file.into(),
            reason: std::io::Error::from(errno).kind().to_string(),
        }
    }

    /// The walk's refusal, for the walk of `given`.
    pub fn error(&self, given: &str) -> crate::Error {
        crate::Error::new(
            crate::Code::StorageError,
            format!(
                "{} cannot be read ({}): which files its rules ignore cannot be told, and an answer without them could show files they ignore; make it readable",
                self.file, self.reason
            ),
        )
        .path(given)
        .with("reason", "ignore_file_unreadable")
        .with("ignore_file", self.file.clone())
    }
}

impl IgnoreRules {
    /// The rules that apply to the workspace rooted at `root` before any of its own
    /// `.gitignore` files are read.
    pub fn for_root(root: &Path) -> IgnoreRules {
        let top = root.ancestors().find(|dir| dir.join(".git").exists());
        let (mut search, mut unreadable) = base_rules(top.map(|top| top.join(".git")).as_deref());
        let mut prefix = Vec::new();
        if let Some(top) = top {
            // .gitignore files between the repository's top and the root (exclusive) apply too.
            let inside = root.strip_prefix(top).unwrap_or(Path::new(""));
            if let Some(e) = read_down(&mut search, top, inside, false) {
                unreadable = Some(Unreadable::new("a .gitignore above the workspace root", e));
            }
            if !inside.as_os_str().is_empty() {
                use std::os::unix::ffi::OsStrExt;
                prefix.extend_from_slice(inside.as_os_str().as_bytes());
                prefix.push(b'/');
            }
        }
        IgnoreRules {
            search,
            prefix,
            inner: String::new(),
            root: root.to_path_buf(),
            unreadable,
        }
    }

    /// Adds the patterns of the `.gitignore` in workspace directory `dir_rel` (`""` for the
    /// root). A directory below the root that holds a `.git` (`repository`) is a repository of
    /// its own: as in git and ripgrep, the rules around it stop there, and its own
    /// `info/exclude` starts its rules. Returns a mark to pass to [`IgnoreRules::pop_to`]
    /// when the walk leaves it.
    pub fn push_dir(&mut self, dir_rel: &str, gitignore: Option<&[u8]>, repository: bool) -> Mark {
        let mark = if repository && !dir_rel.is_empty() {
            let (fresh, unreadable) = base_rules(Some(&self.root.join(dir_rel).join(".git")));
            if let Some(mut unreadable) = unreadable {
                // Named as the nested repository's, not the one around the workspace.
                unreadable.file = format!("{} (the repository at {dir_rel})", unreadable.file);
                self.unreadable = Some(unreadable);
            }
            let saved = (
                std::mem::replace(&mut self.search, fresh),
                std::mem::take(&mut self.prefix),
                std::mem::replace(&mut self.inner, format!("{dir_rel}/")),
            );
            Mark::Repository(Box::new(saved))
        } else {
            Mark::Patterns(self.search.patterns.len())
        };
        if let Some(bytes) = gitignore {
            let base = String::from_utf8_lossy(&self.repository_path(dir_rel)).into_owned();
            let source = Path::new(&base).join(".gitignore");
            self.search
                .add_patterns_buffer(bytes, source, Some(Path::new("")), Ignore::default());
        }
        mark
    }

    /// Drops the patterns added since [`IgnoreRules::push_dir`] returned `mark`, as the walk
    /// leaves that directory.
    pub fn pop_to(&mut self, mark: Mark) {
        match mark {
            Mark::Patterns(len) => self.search.patterns.truncate(len),
            Mark::Repository(saved) => (self.search, self.prefix, self.inner) = *saved,
        }
    }

    /// A workspace-relative path as a path of the repository the rules are of.
    fn repository_path(&self, rel: &str) -> Vec<u8> {
        let rest = match rel.strip_prefix(&self.inner) {
            Some(rest) => rest,
            None if self.inner.strip_suffix('/') == Some(rel) => "",
            None => rel,
        };
        let mut path = self.prefix.clone();
        path.extend_from_slice(rest.as_bytes());
        path
    }

    /// Whether the workspace-relative path is ignored.
    pub fn is_ignored(&self, rel: &str, is_dir: bool) -> bool {
        let path = self.repository_path(rel);
        self.search
            .pattern_matching_relative_path(path.as_bstr(), Some(is_dir), Case::Sensitive)
            .is_some_and(|m| !m.pattern.is_negative())
    }
}

/// The directory that holds a repository's `info/exclude`, from its `.git`: the directory
/// itself, or for a worktree or submodule, whose `.git` is a file saying `gitdir: PATH`, that
/// git directory, or the common one its `commondir` names (a worktree shares the main
/// repository's `info/exclude`).
fn git_dir(dot_git: &Path) -> PathBuf {
    if dot_git.is_dir() {
        return dot_git.to_path_buf();
    }
    let base = dot_git.parent().unwrap_or(Path::new("/"));
    let text = |path: &Path| {
        read_host(path, true)
            .ok()
            .flatten()
            .and_then(|b| String::from_utf8(b).ok())
    };
    let Some(gitdir) = text(dot_git)
        .and_then(|t| Some(base.join(t.lines().next()?.strip_prefix("gitdir:")?.trim())))
    else {
        return dot_git.to_path_buf();
    };
    match text(&gitdir.join("commondir")) {
        Some(common) => gitdir.join(common.trim()),
        None => gitdir,
    }
}

/// The bytes of the ignore file `name` in directory `dir` (`rustix::fs::CWD` for a host
/// path), when it is a regular file: opened without blocking (a FIFO named `.gitignore` must
/// not stall a search), read whole (a file cut short would drop rules, or shorten the pattern
/// it cut in), and through a link only where git follows one (`follow`: the excludes files,
/// never a `.gitignore` of the work tree, as git 2.32 and later).
pub(crate) fn read_regular<P: rustix::path::Arg>(
    dir: impl rustix::fd::AsFd,
    name: P,
    follow: bool,
) -> Result<Option<Vec<u8>>, rustix::io::Errno> {
    use rustix::fs::{FileType, Mode, OFlags};
    use rustix::io::Errno;
    use std::io::Read;
    let nofollow = if follow {
        OFlags::empty()
    } else {
        OFlags::NOFOLLOW
    };
    // Absent, a link where none is followed (git reads no `.gitignore` through one), or a
    // socket or a device without a driver, which no open reaches (ENXIO) and which would be
    // passed over below as no regular file: no rules. Anything else that fails is rules that
    // exist and are unknown.
    let fd = match rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | nofollow,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(Errno::NOENT | Errno::NOTDIR | Errno::LOOP | Errno::NAMETOOLONG | Errno::NXIO) => {
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let regular = rustix::fs::fstat(&fd)?.st_mode;
    if FileType::from_raw_mode(regular) != FileType::RegularFile {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    std::fs::File::from(fd)
        .read_to_end(&mut bytes)
        .map_err(|e| Errno::from_io_error(&e).unwrap_or(Errno::IO))?;
    Ok(Some(bytes))
}

/// The ignore file at host path `path`.
fn read_host(path: &Path, follow: bool) -> Result<Option<Vec<u8>>, rustix::io::Errno> {
    read_regular(rustix::fs::CWD, path, follow)
}

fn read_into(
    search: &mut gix_ignore::Search,
    file: &Path,
    base: &Path,
) -> Result<(), rustix::io::Errno> {
    if let Some(bytes) = read_host(file, false)? {
        let source = base.join(".gitignore");
        search.add_patterns_buffer(&bytes, source, Some(Path::new("")), Ignore::default());
    }
    Ok(())
}

/// Reads into `search` the `.gitignore` of the repository's `top` and of each directory below
/// it on the way to `inside` (a path relative to `top`), `inside`'s own only with `through`.
/// Returns why the last one that exists could not be read, if one could not.
fn read_down(
    search: &mut gix_ignore::Search,
    top: &Path,
    inside: &Path,
    through: bool,
) -> Option<rustix::io::Errno> {
    let mut failed = None;
    let mut read = |dir: &Path| {
        if let Err(e) = read_into(search, &top.join(dir).join(".gitignore"), dir) {
            failed = Some(e);
        }
    };
    let mut dir = PathBuf::new();
    for part in inside.components() {
        read(&dir);
        dir.push(part);
    }
    if through {
        read(&dir);
    }
    failed
}

/// Whether the `.gitignore` files of the repository around `root`, from its top down to
/// `root` itself, ignore the directory `name` at the root: the rules every clone shares, not
/// the user's excludes file or `info/exclude`, which stay on one machine. False outside a
/// repository.
pub fn shared_rules_ignore_dir(root: &Path, name: &str) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Some(top) = root.ancestors().find(|dir| dir.join(".git").exists()) else {
        return false;
    };
    let inside = root.strip_prefix(top).unwrap_or(Path::new(""));
    let mut search = gix_ignore::Search::default();
    // One that cannot be read counts as not ignoring: the line is added, as where no rule is.
    let _ = read_down(&mut search, top, inside, true);
    let path = inside.join(name);
    search
        .pattern_matching_relative_path(
            path.as_os_str().as_bytes().as_bstr(),
            Some(true),
            Case::Sensitive,
        )
        .is_some_and(|m| !m.pattern.is_negative())
}

/// Whether git would ignore the workspace path `rel` (only inside a git repository): the
/// rules of every `.gitignore` from the repository's top down to the path's directory apply,
/// and a path inside an ignored directory is ignored.
pub fn git_ignores(root: &crate::resolve::Root, rel: &str, is_dir: bool) -> bool {
    let parts: Vec<&str> = crate::resolve::parts(rel).collect();
    let mut in_repository = root
        .host_path()
        .ancestors()
        .any(|dir| dir.join(".git").exists());
    // A repository inside the workspace, on the way to the path (a stat each: a write
    // outside any repository reads no ignore file).
    let mut dir = root.host_path().to_path_buf();
    let inside = parts[..parts.len().saturating_sub(1)].iter().any(|part| {
        dir.push(part);
        dir.join(".git").exists()
    });
    if !in_repository && !inside {
        return false;
    }
    let mut rules = IgnoreRules::for_root(root.host_path());
    let above = gitignores_above(root, rel);
    for (i, (part, above)) in parts.iter().zip(above).enumerate() {
        let dir = above.dir;
        // Outside every repository a `.gitignore` is nobody's rule.
        in_repository |= above.repository;
        rules.push_dir(&dir, above.gitignore.as_deref(), above.repository);
        let path = if dir.is_empty() {
            (*part).to_owned()
        } else {
            format!("{dir}/{part}")
        };
        if in_repository && rules.is_ignored(&path, i + 1 < parts.len() || is_dir) {
            return true;
        }
    }
    false
}

/// A directory on the way down to a path: its workspace path, its `.gitignore`, and whether
/// it holds a `.git` (is a repository's top).
pub(crate) struct Above {
    pub dir: String,
    pub gitignore: Option<Vec<u8>>,
    /// Why its `.gitignore` could not be read, when it exists and could not.
    pub gitignore_error: Option<rustix::io::Errno>,
    pub repository: bool,
}

/// The `.gitignore` of the workspace root and of each directory below it on the way to the
/// workspace path `rel` (`rel` itself excluded), each with its workspace-relative directory
/// (`""` for the root), read as a walk reads the ones it meets, so that a path's rules are
/// the same whichever directory a walk starts from. `rel` is a resolved path: the way down
/// holds one directory handle at a time and follows no link; past a directory that cannot
/// be entered, there are no more files to read.
pub(crate) fn gitignores_above(root: &crate::resolve::Root, rel: &str) -> Vec<Above> {
    use rustix::fs::{Mode, OFlags};
    let parts: Vec<&str> = crate::resolve::parts(rel).collect();
    let mut dir = root
        .resolve(".", crate::resolve::Intent::Read)
        .and_then(|r| r.open_dir())
        .ok();
    let mut rel_dir = String::new();
    let mut found = Vec::with_capacity(parts.len());
    for part in parts {
        let read = dir
            .as_ref()
            .map_or(Ok(None), |fd| read_regular(fd, ".gitignore", false));
        let gitignore_error = read.as_ref().err().copied();
        let bytes = read.ok().flatten();
        let repository = dir.as_ref().is_some_and(|fd| {
            rustix::fs::statat(fd, ".git", rustix::fs::AtFlags::SYMLINK_NOFOLLOW).is_ok()
        });
        found.push(Above {
            dir: rel_dir.clone(),
            gitignore: bytes,
            gitignore_error,
            repository,
        });
        dir = dir.and_then(|fd| {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            rustix::fs::openat(&fd, part, flags, Mode::empty()).ok()
        });
        if !rel_dir.is_empty() {
            rel_dir.push('/');
        }
        rel_dir.push_str(part);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_files_and_negation_follow_git() {
        let dir = tempfile::tempdir().unwrap();
        let mut rules = IgnoreRules::for_root(dir.path());
        let top = rules.push_dir("", Some(b"*.log\n/build/\n"), false);
        assert!(rules.is_ignored("a.log", false));
        assert!(rules.is_ignored("sub/a.log", false));
        assert!(rules.is_ignored("build", true));
        assert!(!rules.is_ignored("sub/build", true), "anchored to the root");
        let sub = rules.push_dir("sub", Some(b"!keep.log\n"), false);
        assert!(!rules.is_ignored("sub/keep.log", false));
        assert!(rules.is_ignored("sub/other.log", false));
        rules.pop_to(sub);
        assert!(rules.is_ignored("sub/keep.log", false));
        rules.pop_to(top);
        assert!(!rules.is_ignored("a.log", false));
    }

    #[test]
    fn an_ignore_file_that_is_no_regular_file_holds_no_rules() {
        let dir = tempfile::tempdir().unwrap();
        let fd = rustix::fs::open(dir.path(), rustix::fs::OFlags::DIRECTORY, 0.into()).unwrap();
        // A socket cannot be opened at all (ENXIO), a FIFO can but is no regular file.
        let _socket = std::os::unix::net::UnixListener::bind(dir.path().join(".gitignore"));
        assert_eq!(read_regular(&fd, ".gitignore", false), Ok(None));
        rustix::fs::mknodat(&fd, "fifo", rustix::fs::FileType::Fifo, 0o644.into(), 0).unwrap();
        assert_eq!(read_regular(&fd, "fifo", false), Ok(None));
        std::fs::write(dir.path().join("plain"), "*.log\n").unwrap();
        assert_eq!(
            read_regular(&fd, "plain", false),
            Ok(Some(b"*.log\n".to_vec()))
        );
    }

    #[test]
    fn the_gitignores_from_the_top_down_are_read_to_the_root_or_through_it() {
        let top = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(top.path().join("a/b")).unwrap();
        for (dir, rule) in [("", "top.x"), ("a", "a.x"), ("a/b", "b.x")] {
            std::fs::write(top.path().join(dir).join(".gitignore"), rule).unwrap();
        }
        let read = |through| {
            let mut search = gix_ignore::Search::default();
            assert_eq!(
                read_down(&mut search, top.path(), Path::new("a/b"), through),
                None
            );
            ["top.x", "a/b/a.x", "a/b/b.x"].map(|path| {
                search
                    .pattern_matching_relative_path(path.into(), Some(false), Case::Sensitive)
                    .is_some()
            })
        };
        assert_eq!(
            read(false),
            [true, true, false],
            "the root's own is the walk's to read"
        );
        assert_eq!(read(true), [true, true, true]);
    }
}
