//! Walking a directory tree inside a workspace: sorted, lazy, never following a link, never
//! leaving the root.
//!
//! Every directory is opened relative to its parent's handle with `O_NOFOLLOW`, so the walk
//! cannot be redirected by a directory swapped for a link. Memory holds one sorted name list
//! per directory on the current path, not the tree.

mod ahead;

use crate::error::{Error, Result};
use crate::ignore::IgnoreRules;
use crate::resolve::{Kind, Resolved, Root, io_error, is_state_dir_name};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::fs::File;
use std::os::fd::OwnedFd;
use std::sync::Arc;

/// The buffer each directory is read into: 32 KiB holds about a thousand short names, so
/// most directories take one `getdents64` and the one that says the end.
const DIR_BUF_BYTES: usize = 32 * 1024;

/// How far a walk goes and what it skips.
#[derive(Clone, Copy, Debug)]
pub struct WalkOptions {
    /// Descend into subdirectories.
    pub recursive: bool,
    /// The deepest level yielded; the start directory's children are level 1.
    pub max_depth: usize,
    /// Apply git's ignore rules and skip `.git` (search and grep); a listing shows everything.
    pub respect_ignore: bool,
}

/// What an entry is, as `lstat` sees it: a link is never followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link, wherever it points.
    Symlink,
    /// A device, socket or FIFO.
    Special,
}

impl EntryKind {
    /// The kind as listings show it: `file`, `directory`, `symlink` or `special`.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Directory => "directory",
            EntryKind::Symlink => "symlink",
            EntryKind::Special => "special",
        }
    }

    fn of(file_type: FileType) -> EntryKind {
        match file_type {
            FileType::RegularFile => EntryKind::File,
            FileType::Directory => EntryKind::Directory,
            FileType::Symlink => EntryKind::Symlink,
            _ => EntryKind::Special,
        }
    }
}

/// One entry met by a walk.
pub struct Entry {
    /// Workspace-relative path.
    pub rel: String,
    /// Level below the start directory, from 1.
    pub depth: usize,
    /// What the entry is; a link is reported as one, not as its target.
    pub kind: EntryKind,
    dir: Arc<OwnedFd>,
    name: Vec<u8>,
}

/// What `lstat` says of an entry.
#[derive(Clone, Copy, Debug)]
pub struct EntryStat {
    /// Length in bytes (of the link text, for a symbolic link).
    pub size: u64,
    /// Permission bits (`mode & 0o7777`).
    pub mode: u32,
    /// Seconds since the Unix epoch.
    pub modified: i64,
}

impl Entry {
    /// Stats the entry now, relative to its directory and without following a link.
    pub fn stat(&self) -> Result<EntryStat> {
        let stat = rustix::fs::statat(&*self.dir, self.name.as_slice(), AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|e| io_error("inspecting a directory entry", e))?;
        Ok(EntryStat {
            size: stat.st_size as u64,
            mode: stat.st_mode & 0o7777,
            modified: stat.st_mtime,
        })
    }

    /// Opens a regular file entry for reading, relative to its directory, never through a link.
    pub fn open(&self) -> Result<File> {
        let fd = rustix::fs::openat(
            &*self.dir,
            self.name.as_slice(),
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| match e {
            // Removed since the walk listed it: there is nothing left to open.
            rustix::io::Errno::NOENT => {
                Error::new(crate::Code::PathNotFound, "the entry is gone").path(&self.rel)
            }
            e => io_error("opening a file", e).path(&self.rel),
        })?;
        let stat = rustix::fs::fstat(&fd).map_err(|e| io_error("opening a file", e))?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return Err(
                Error::new(crate::Code::NotAFile, "the entry changed while walking")
                    .path(&self.rel),
            );
        }
        Ok(File::from(fd))
    }
}

struct Frame {
    dir: Arc<OwnedFd>,
    rel: String,
    depth: usize,
    names: std::vec::IntoIter<(Vec<u8>, Option<EntryKind>)>,
    ignore_mark: Option<crate::ignore::Mark>,
}

/// A directory as read: its handle, its entries sorted by name, and its `.gitignore` when
/// the walk applies ignore rules and it has one.
pub(crate) struct Listing {
    dir: Arc<OwnedFd>,
    names: Vec<(Vec<u8>, Option<EntryKind>)>,
    gitignore: Option<Vec<u8>>,
    /// Why the directory's `.gitignore` could not be read, when it exists and could not.
    gitignore_error: Option<rustix::io::Errno>,
}

/// Opens the directory `name` in `parent` (never through a link) and reads it.
fn read_listing(parent: &OwnedFd, name: &[u8], gitignore: bool) -> Result<Listing> {
    let fd = rustix::fs::openat(
        parent,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| io_error("opening a directory", e))?;
    list(fd, gitignore)
}

/// Reads the directory open as `dir`.
fn list(dir: OwnedFd, gitignore: bool) -> Result<Listing> {
    let mut names = Vec::new();
    // Read straight from the descriptor just opened (its offset is 0, and nothing else
    // reads it), into a buffer large enough for a few hundred entries a call: `Dir`
    // would first open the directory a second time, and read it in smaller pieces.
    let mut buf = Vec::<u8>::with_capacity(DIR_BUF_BYTES);
    let mut reader = rustix::fs::RawDir::new(&dir, buf.spare_capacity_mut());
    while let Some(entry) = reader.next() {
        let entry = entry.map_err(|e| io_error("listing a directory", e))?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => None,
            known => Some(EntryKind::of(known)),
        };
        names.push((name.to_vec(), kind));
    }
    names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let read = (gitignore
        && names
            .iter()
            .any(|(n, k)| n == b".gitignore" && *k != Some(EntryKind::Directory)))
    .then(|| crate::ignore::read_regular(&dir, ".gitignore", false));
    let gitignore_error = read.as_ref().and_then(|r| r.as_ref().err().copied());
    let gitignore = read.and_then(|r| r.ok()).flatten();
    Ok(Listing {
        dir: Arc::new(dir),
        names,
        gitignore,
        gitignore_error,
    })
}

/// A lazy, sorted, pre-order walk.
pub struct Walk {
    options: WalkOptions,
    rules: Option<IgnoreRules>,
    stack: Vec<Frame>,
    descend: Option<(Arc<OwnedFd>, Vec<u8>, String, usize)>,
    /// Entries skipped by ignore rules (not counting what is inside ignored directories).
    pub ignored: u64,
    /// Directories that could not be read (permissions), by workspace-relative path.
    pub unreadable: Vec<String>,
    /// Whether a directory was left unvisited because of `max_depth`.
    pub depth_limited: bool,
    /// State directories of workspaces nested below the root, passed over as the root's own
    /// `.filekeeper/` is, by workspace-relative path: a walk that acts on a whole tree must
    /// not act as if the tree held nothing more.
    pub nested_state_dirs: Vec<String>,
    /// Entries passed over because their names are not UTF-8, in [`escape_name`] form, when
    /// the walk reports them (see [`Walk::report_non_utf8_names`]); otherwise such an entry
    /// ends the walk with an error.
    pub non_utf8_names: Vec<String>,
    report_non_utf8: bool,
    /// Filekeeper's home when the root holds it ([`Root::reserved_paths`]), and whether the
    /// walk passes over it (see [`Walk::pass_over_reserved`]).
    reserved: Vec<String>,
    hide_reserved: bool,
    /// Where a resumed walk picks up: entries up to this path are passed over (see
    /// [`Walk::resume_after`]); cleared once the walk is past it.
    resume: Option<Resume>,
    /// The start directory as the caller gave it, for errors.
    given: String,
    /// The error the walk ends with at its next step: an ignore file met that could not be
    /// read ([`crate::ignore::Unreadable`]).
    failed: Option<Error>,
    /// Helpers reading directories ahead (see [`Walk::read_ahead`]).
    ahead: Option<ahead::ReadAhead>,
}

struct Resume {
    /// The path's components, compared one by one as the walk orders names.
    parts: Vec<String>,
    /// Whether the entry at the path itself is yielded again.
    inclusive: bool,
}

/// Where an entry stands against a resume point, in the walk's order.
#[derive(Debug, PartialEq, Eq)]
enum Against {
    /// Before it and not above it: it and everything below it were walked already.
    Before,
    /// The resume point itself, or a directory above it: walked already, but what is below
    /// may not be.
    Holds { itself: bool },
    /// After it.
    After,
}

fn against(rel: &str, resume: &[String]) -> Against {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts.len() <= resume.len() && parts.iter().zip(resume).all(|(a, b)| *a == b.as_str()) {
        return Against::Holds {
            itself: parts.len() == resume.len(),
        };
    }
    // Sorted names, a directory before its contents: the walk's order is the order of the
    // component lists, each component compared as bytes.
    let ours = parts.iter().map(|p| p.as_bytes());
    let theirs = resume.iter().map(|p| p.as_bytes());
    if ours.lt(theirs) {
        Against::Before
    } else {
        Against::After
    }
}

/// A path for people to read, never to pass back: each byte that is not part of valid UTF-8
/// is written `\xHH`, and a backslash `\\`, so two different names never look the same.
pub fn escape_name(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// Starts a walk of the directory `start` resolved inside `root`.
pub fn walk(root: &Root, start: &Resolved, options: WalkOptions) -> Result<Walk> {
    match start.kind {
        Some(Kind::Directory) => {}
        None => {
            return Err(Error::new(
                crate::Code::PathNotFound,
                "no such directory in the workspace",
            )
            .path(&start.given));
        }
        Some(Kind::File) => {
            return Err(Error::new(
                crate::Code::NotADirectory,
                "the path is a file, not a directory",
            )
            .path(&start.given));
        }
    }
    let fd = start.open_dir()?;
    let mut rules = options
        .respect_ignore
        .then(|| IgnoreRules::for_root(root.host_path()));
    if let Some(unreadable) = rules.as_mut().and_then(|r| r.unreadable.take()) {
        return Err(unreadable.error(&start.given));
    }
    let base = if start.rel == "." {
        String::new()
    } else {
        start.rel.clone()
    };
    if let Some(rules) = rules.as_mut() {
        // The .gitignore files of the start directory's ancestors inside the workspace apply.
        for above in crate::ignore::gitignores_above(root, &base) {
            if let Some(e) = above.gitignore_error {
                let file = join(&above.dir, ".gitignore");
                return Err(crate::ignore::Unreadable::new(file, e).error(&start.given));
            }
            // Marks are not kept: these rules stay for the whole walk.
            let _ = rules.push_dir(&above.dir, above.gitignore.as_deref(), above.repository);
            if let Some(unreadable) = rules.unreadable.take() {
                return Err(unreadable.error(&start.given));
            }
        }
    }
    let mut walk = Walk {
        options,
        rules,
        stack: Vec::new(),
        descend: None,
        ignored: 0,
        unreadable: Vec::new(),
        depth_limited: false,
        nested_state_dirs: Vec::new(),
        non_utf8_names: Vec::new(),
        report_non_utf8: false,
        reserved: root.reserved_paths(),
        hide_reserved: false,
        resume: None,
        given: start.given.clone(),
        ahead: None,
        failed: None,
    };
    let listing = list(fd, walk.rules.is_some())?;
    walk.enter(listing, base, 0);
    Ok(walk)
}

/// The key the read-ahead knows a subdirectory by: its workspace-relative path, as bytes.
fn queue_key(dir: &str, name: &[u8]) -> Vec<u8> {
    if dir.is_empty() {
        name.to_vec()
    } else {
        [dir.as_bytes(), b"/", name].concat()
    }
}

/// Tells the read-ahead, if any, that the walk passed over the entry `name` of `dir`
/// without entering it, so a directory read for it is let go at once.
fn passed_over(ahead: Option<&ahead::ReadAhead>, kind: Option<EntryKind>, dir: &str, name: &[u8]) {
    if let Some(ahead) = ahead
        && kind == Some(EntryKind::Directory)
    {
        ahead.forget(queue_key(dir, name));
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

impl Walk {
    /// Passes over entries whose names are not UTF-8 (and what is below them), recording them
    /// in `non_utf8_names`, instead of ending the walk with an error. For walks that only show
    /// what they find (list, search, grep); a walk that acts on the whole tree must not miss
    /// an entry, so by default such a name is INVALID_ARGUMENT with `details.entry`.
    pub fn report_non_utf8_names(&mut self) {
        self.report_non_utf8 = true;
    }

    /// Passes over Filekeeper's home when the root holds it, as `.filekeeper/` always is:
    /// for walks that only show what they find, since reading there is refused. A walk that
    /// acts on the whole tree must meet it, so that the change is refused while it is planned.
    pub fn pass_over_reserved(&mut self) {
        self.hide_reserved = true;
    }

    /// Passes over every entry up to the workspace-relative path `rel` in walk order (and the
    /// entry at `rel` too unless `inclusive`), so a walk that stopped after `rel` goes on
    /// exactly after it, whatever was added or removed before it meanwhile. Directories that
    /// lie wholly before it are not descended, and what is passed over is not counted in
    /// `ignored`, `unreadable` or `depth_limited`.
    pub fn resume_after(&mut self, rel: &str, inclusive: bool) {
        self.resume = Some(Resume {
            parts: rel.split('/').map(str::to_owned).collect(),
            inclusive,
        });
    }

    /// Reads the directories the walk will enter on other threads, ahead of it (`ahead`):
    /// for walks of a whole tree that only look at names (list, search). Nothing about the
    /// walk's order or results changes.
    pub fn read_ahead(&mut self) {
        if !self.options.recursive || self.ahead.is_some() {
            return;
        }
        self.ahead = ahead::ReadAhead::start(self.rules.is_some());
        if let Some(frame) = self.stack.last() {
            self.queue_children(&frame.dir, &frame.rel, frame.depth, frame.names.as_slice());
        }
    }

    fn enter(&mut self, listing: Listing, rel: String, depth: usize) {
        let ignore_mark = self.rules.as_mut().map(|rules| {
            let repository = listing.names.iter().any(|(name, _)| name == b".git");
            rules.push_dir(&rel, listing.gitignore.as_deref(), repository)
        });
        if let Some(rules) = self.rules.as_mut() {
            let unreadable = match listing.gitignore_error {
                Some(e) => Some(crate::ignore::Unreadable::new(join(&rel, ".gitignore"), e)),
                None => rules.unreadable.take(),
            };
            if let Some(unreadable) = unreadable {
                self.failed = Some(unreadable.error(&self.given));
            }
        }
        self.queue_children(&listing.dir, &rel, depth, &listing.names);
        self.stack.push(Frame {
            dir: listing.dir,
            rel,
            depth,
            names: listing.names.into_iter(),
            ignore_mark,
        });
    }

    /// Gives the read-ahead, if any, the subdirectories of a directory just entered that the
    /// walk may enter next (not below the depth bound, not `.git` or a state directory).
    fn queue_children(
        &self,
        dir: &Arc<OwnedFd>,
        rel: &str,
        depth: usize,
        names: &[(Vec<u8>, Option<EntryKind>)],
    ) {
        let Some(ahead) = &self.ahead else {
            return;
        };
        if depth + 1 >= self.options.max_depth {
            return;
        }
        let children = names
            .iter()
            .filter(|(name, kind)| {
                *kind == Some(EntryKind::Directory)
                    && !(self.options.respect_ignore && name == b".git")
                    && !is_state_dir_name(name)
            })
            .map(|(name, _)| (name.clone(), queue_key(rel, name)))
            .collect();
        ahead.queue(dir, children);
    }

    fn descend_pending(&mut self) {
        let Some((parent, name, rel, depth)) = self.descend.take() else {
            return;
        };
        let gitignore = self.rules.is_some();
        let listing = match &self.ahead {
            Some(ahead) => ahead.take(rel.as_bytes(), &parent, &name),
            None => read_listing(&parent, &name, gitignore).ok(),
        };
        match listing {
            Some(listing) => self.enter(listing, rel, depth),
            None => self.unreadable.push(rel),
        }
    }
}

impl Iterator for Walk {
    type Item = Result<Entry>;

    fn next(&mut self) -> Option<Result<Entry>> {
        loop {
            self.descend_pending();
            if let Some(failed) = self.failed.take() {
                self.stack.clear();
                return Some(Err(failed));
            }
            let frame = self.stack.last_mut()?;
            let Some((name, kind)) = frame.names.next() else {
                let frame = self.stack.pop()?;
                if let (Some(rules), Some(mark)) = (self.rules.as_mut(), frame.ignore_mark) {
                    rules.pop_to(mark);
                }
                continue;
            };
            let position = match &self.resume {
                // A name that is not UTF-8 is placed by its lossy form: it is only reported,
                // never returned, so no resume point names it.
                Some(resume) => match against(
                    &join(&frame.rel, &String::from_utf8_lossy(&name)),
                    &resume.parts,
                ) {
                    Against::Before => {
                        passed_over(self.ahead.as_ref(), kind, &frame.rel, &name);
                        continue;
                    }
                    Against::Holds { itself } => Some(itself && resume.inclusive),
                    Against::After => {
                        self.resume = None;
                        None
                    }
                },
                None => None,
            };
            let kind = match kind {
                Some(kind) => kind,
                None => match rustix::fs::statat(
                    &*frame.dir,
                    name.as_slice(),
                    AtFlags::SYMLINK_NOFOLLOW,
                ) {
                    Ok(stat) => EntryKind::of(FileType::from_raw_mode(stat.st_mode)),
                    Err(_) => continue, // vanished while walking
                },
            };
            let text = match String::from_utf8(name) {
                Ok(text) => text,
                Err(e) => {
                    let shown =
                        escape_name(join(&frame.rel, "").as_bytes()) + &escape_name(e.as_bytes());
                    if self.report_non_utf8 {
                        self.non_utf8_names.push(shown);
                        passed_over(self.ahead.as_ref(), Some(kind), &frame.rel, e.as_bytes());
                        continue;
                    }
                    self.stack.clear();
                    return Some(Err(Error::new(
                        crate::Code::InvalidArgument,
                        format!(
                            "{shown} has a name that is not UTF-8, which no command can address; \
                             rename it outside Filekeeper first"
                        ),
                    )
                    .path(&self.given)
                    .with("entry", shown)));
                }
            };
            let name = text.as_bytes().to_vec();
            if is_state_dir_name(&name) {
                if !frame.rel.is_empty() {
                    self.nested_state_dirs.push(join(&frame.rel, &text));
                }
                continue;
            }
            let rel = join(&frame.rel, &text);
            if self.hide_reserved && self.reserved.contains(&rel) {
                passed_over(self.ahead.as_ref(), Some(kind), &frame.rel, &name);
                continue;
            }
            let depth = frame.depth + 1;
            if self.options.respect_ignore {
                if text == ".git" {
                    continue;
                }
                let is_dir = kind == EntryKind::Directory;
                if self
                    .rules
                    .as_ref()
                    .is_some_and(|r| r.is_ignored(&rel, is_dir))
                {
                    self.ignored += 1;
                    passed_over(self.ahead.as_ref(), Some(kind), &frame.rel, &name);
                    continue;
                }
            }
            let descend = kind == EntryKind::Directory && self.options.recursive;
            if let Some(yield_it) = position {
                // Walked already (or the resume point itself): go below it if it is a
                // directory the walk enters, and yield it only when asked to.
                if descend && depth < self.options.max_depth {
                    self.descend = Some((Arc::clone(&frame.dir), name.clone(), rel.clone(), depth));
                }
                if !yield_it {
                    continue;
                }
            } else if descend {
                if depth < self.options.max_depth {
                    self.descend = Some((Arc::clone(&frame.dir), name.clone(), rel.clone(), depth));
                } else {
                    self.depth_limited = true;
                }
            }
            return Some(Ok(Entry {
                rel,
                depth,
                kind,
                dir: Arc::clone(&frame.dir),
                name,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::Intent;

    /// Directories the walk passes over (ignored ones, hundreds of them, more than the
    /// read-ahead keeps; ones before a resume point; one whose name is not UTF-8) are let go
    /// as it passes them, and a finished walk leaves nothing queued, waiting or known.
    #[test]
    fn a_walk_reading_ahead_lets_go_of_what_it_passes_over() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        for n in 0..300 {
            std::fs::create_dir_all(ws.join(format!("b{n:03}/inner"))).unwrap();
        }
        for n in 0..50 {
            std::fs::create_dir_all(ws.join(format!("zz/n{n:02}/x"))).unwrap();
            std::fs::write(ws.join(format!("zz/n{n:02}/x/needle.txt")), "x").unwrap();
        }
        std::fs::create_dir_all(ws.join(std::ffi::OsStr::from_bytes(b"c\xff/inner"))).unwrap();
        std::fs::write(ws.join(".gitignore"), "b*/\n").unwrap();
        let root = Root::open(&ws).unwrap();
        let start = root.resolve(".", Intent::Read).unwrap();
        let options = WalkOptions {
            recursive: true,
            max_depth: 64,
            respect_ignore: true,
        };
        for (resume, needles_after) in [(None, 50), (Some("zz/n10/x/needle.txt"), 39)] {
            let mut walk = walk(&root, &start, options).unwrap();
            walk.report_non_utf8_names();
            if let Some(rel) = resume {
                walk.resume_after(rel, false);
            }
            walk.read_ahead();
            let mut needles = 0;
            while let Some(entry) = walk.next() {
                if entry.unwrap().rel.ends_with("needle.txt") {
                    needles += 1;
                }
                if let Some(ahead) = &walk.ahead {
                    let (_, _, waiting) = ahead.settled();
                    assert!(waiting <= 128, "{waiting} listings wait");
                }
            }
            assert_eq!(needles, needles_after, "after {resume:?}");
            assert!(walk.unreadable.is_empty());
            if resume.is_none() {
                assert_eq!(walk.ignored, 300);
                assert_eq!(walk.non_utf8_names.len(), 1);
            }
            if let Some(ahead) = &walk.ahead {
                assert_eq!(ahead.settled(), (0, 0, 0), "nothing left after {resume:?}");
            }
        }
    }
}
