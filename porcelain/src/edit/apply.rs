//! A parsed patch as one plan: which file each section changes, the new contents and modes,
//! the directories a created file needs, and the directories a deletion empties.
//!
//! Every section of the patch is accounted for in the plan and in `patch_files`, or the whole
//! patch is refused: nothing is skipped.

use super::codex;
use super::doc::Doc;
use super::patch::{self, Action, FilePatch, FileReport};
use crate::mutate::{
    Change, MutationExtra, MutationOptions, MutationResult, Plan, Planned, Preview, PreviewPart,
    Seen, Sides, Step, deleted_file, dir_item,
};
use crate::{Code, Error, ObjectId, Result, Workspace};
use filekeeper_plumbing::durable;
use filekeeper_plumbing::journal::Item;
use filekeeper_plumbing::publish::Expect;
use filekeeper_plumbing::resolve::{Intent, Kind, Resolved};
use filekeeper_plumbing::walk::{self, EntryKind, WalkOptions};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

impl Workspace {
    /// Applies a unified diff (`diff -u` or `git diff`, with git's creations, deletions,
    /// renames, copies and mode changes) or a Codex patch (`*** Begin Patch`, told apart by
    /// its first non-empty line): every hunk of every file is checked before anything is
    /// written, and the whole patch is one operation (undone as a whole).
    pub fn apply_patch(
        &self,
        patch_text: &str,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.apply_patch_on(patch_text, None, options)
    }

    /// [`Workspace::apply_patch`] made on the version `base_hash` of the one file the patch
    /// modifies: if that file changed since, the patch is applied to the stored version and
    /// merged into the file as it is now, as the other edits with a base are
    /// (`docs/editing.md`, "Edits on a snapshot").
    pub fn apply_patch_on(
        &self,
        patch_text: &str,
        base_hash: Option<&str>,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        let limit = self.inner.limits.max_patch_bytes;
        if patch_text.len() as u64 > limit {
            return Err(crate::too_large(
                "patch",
                patch_text.len() as u64,
                "max_patch_bytes",
                limit,
            ));
        }
        let files = parse(patch_text)?;
        let base = base_hash.map(|hash| patch_base(&files, hash)).transpose()?;
        self.mutate(options, |ws| ws.patch_plan(&files, base, options))
    }

    /// The section applied to version `base` of its file (from the store) and merged into
    /// the file as it is now (`seen`): the hunks as they applied to the version, and the
    /// merged bytes, or CONTENT_CONFLICT where the file changed in the lines they change.
    fn patched_on(
        &self,
        file: &FilePatch,
        path: &str,
        rel: &str,
        base: ObjectId,
        seen: &(Seen, Arc<Vec<u8>>),
        b: &mut Builder,
    ) -> Result<Patched> {
        let snapshot = self.snapshot(path, base)?;
        let on_snapshot = |err: Error| err.with("base_hash", base.to_string());
        let (hunks, edited) = b.patched(file, path, &snapshot).map_err(on_snapshot)?;
        let Some(edited) = edited else {
            // The hunks do not apply to the version either: refused like any failed hunk,
            // with the reports, which count lines of the version.
            return Ok((hunks, None));
        };
        let changed = hunk_ranges(&snapshot, &hunks);
        let merged = super::merged_into_live(
            path,
            base,
            &snapshot,
            &edited,
            &changed,
            seen.0.hash,
            &seen.1,
        )?;
        b.warnings.push(format!(
            "{rel} changed since the version this patch was made on; the patch was merged into \
             the file as it is now (see merged.landed for where each change went)"
        ));
        b.merged = Some(super::MergeReport {
            base_hash: base.to_string(),
            landed: merged.landed,
        });
        Ok((hunks, Some(Arc::new(merged.bytes))))
    }

    /// Which file a `diff -u` section edits, as GNU patch chooses: a creation names the new
    /// path; otherwise the named path that exists (the fewer components, then the shorter,
    /// when both do, as with `diff -u file.orig file`), else the old name.
    fn patch_target(&self, file: &FilePatch) -> String {
        let (Some(old), Some(new)) = (&file.old_path, &file.new_path) else {
            return file.path().to_owned();
        };
        if old == new {
            return old.clone();
        }
        let exists = |p: &str| {
            self.inner
                .root
                .resolve(p, Intent::Read)
                .is_ok_and(|r| r.kind == Some(Kind::File))
        };
        let mut found: Vec<&String> = [old, new].into_iter().filter(|p| exists(p)).collect();
        found.sort_by_key(|p| (p.matches('/').count(), p.len()));
        found.first().map_or_else(|| old.clone(), |p| (*p).clone())
    }

    fn patch_plan(
        &self,
        files: &[FilePatch],
        base: Option<ObjectId>,
        options: &MutationOptions,
    ) -> Result<Plan> {
        let mut b = Builder {
            cap: self.inner.limits.max_history_blob_bytes,
            ..Builder::default()
        };
        for file in files {
            self.plan_section(file, base, options, &mut b)
                .map_err(|e| at_directive(e, file))?;
        }
        if let Some(err) = b.failure() {
            return Err(err);
        }
        self.plan_emptied_dirs(&mut b)?;
        Ok(b.into_plan())
    }

    fn plan_section(
        &self,
        file: &FilePatch,
        base: Option<ObjectId>,
        options: &MutationOptions,
        b: &mut Builder,
    ) -> Result<()> {
        let mode_word = file
            .executable()
            .map(|x| if x { "100755" } else { "100644" });
        match file.action {
            Action::Modify | Action::Delete => {
                let path = self.patch_target(file);
                // A file an earlier section creates or moves here is not there while the
                // patch is checked: the patch changes it twice, which is what to say.
                let twice = |b: &mut Builder, rel: &str| -> Result<()> {
                    if b.claimed.contains(rel) {
                        b.claim(rel, &path)?;
                    }
                    Ok(())
                };
                let target = match self.resolve_target(&path, options) {
                    Err(e) if e.code == Code::PathNotFound => {
                        if let Ok(rel) = self.inner.root.relative(&path) {
                            twice(b, &rel)?;
                        }
                        return Err(e);
                    }
                    found => found?,
                };
                if target.kind.is_none() {
                    twice(b, &target.rel)?;
                }
                let deleting = file.action == Action::Delete;
                // With a base, the hunks are applied to the version the caller named.
                let based;
                let file = match base {
                    Some(_) => {
                        based = file.on_its_base();
                        &based
                    }
                    None => file,
                };
                // A deletion without hunks (git's, of an empty file, or a Codex patch's of any
                // file) needs only the size.
                let seen = self.existing_file(&target, &path, !deleting || file.has_hunks())?;
                b.claim(&target.rel, &path)?;
                let (hunks, new) = match base {
                    Some(base) if base != seen.0.hash => {
                        self.patched_on(file, &path, &target.rel, base, &seen, b)?
                    }
                    _ => b.patched(file, &path, &seen.1)?,
                };
                // Hunks whose lines are already as they ask leave the bytes as they were: the
                // file is unchanged, as a write of the same content is, unless its mode changes.
                let same = new.as_ref().is_some_and(|n| **n == *seen.1);
                let change = match (deleting, file.has_hunks()) {
                    (true, _) => Change::Deleted,
                    (false, true) if !same => Change::Modified,
                    (false, _) if file.executable().is_some() => Change::ModeChanged,
                    (false, _) => Change::Unchanged,
                };
                // A deletion must leave nothing: its hunks remove every line, or the file was
                // empty to begin with. A Codex `*** Delete File` deletes the file as it is.
                let whole = file.codex.is_some();
                let fits = new.as_ref().filter(|n| {
                    !deleting || (n.is_empty() && (file.has_hunks() || seen.0.size == 0 || whole))
                });
                b.report(&target.rel, change, None, mode_word, hunks, fits.is_some());
                let Some(new) = fits.cloned() else {
                    return Ok(());
                };
                b.warnings.extend(self.ignored_warning(&target.rel));
                if deleting {
                    b.removed_as(&path, &target.rel);
                    b.remove(&target.rel, &seen.0);
                } else {
                    if change == Change::Modified {
                        b.warnings.extend(seen.0.replacement_warnings(&target.rel));
                    }
                    // Whatever else changes, the file is written anew (a mode change too).
                    let kept = match change {
                        Change::Unchanged => seen.0.mode,
                        _ => seen.0.kept_mode(),
                    };
                    if change != Change::Modified {
                        b.warnings.extend(seen.0.setgid_warning(&target.rel));
                    }
                    let mode = with_executable(kept, file.executable());
                    b.write(&target.rel, Some(&seen), new, Some(mode), true);
                }
            }
            Action::Create => {
                let path = file.new_path.clone().unwrap_or_default();
                let (rel, dirs) = match self.new_file_target(&path, options) {
                    // A file an earlier section deletes is still there while the patch is
                    // checked: the patch changes it twice, which is what to say.
                    Err(e) if e.code == Code::AlreadyExists => {
                        if let Ok(there) = self.resolve_target(&path, options) {
                            b.claim(&there.rel, &path)?;
                        }
                        return Err(e);
                    }
                    found => found?,
                };
                b.make_dirs(&rel, dirs, &path)?;
                b.claim(&rel, &path)?;
                let (hunks, new) = b.patched(file, &path, &[])?;
                b.report(&rel, Change::Created, None, mode_word, hunks, new.is_some());
                let Some(new) = new else {
                    return Ok(());
                };
                b.warnings.extend(self.ignored_warning(&rel));
                // The mode is decided here, so the journal records exactly what is written: an
                // executable gets 0777 less the umask, as git apply gives it.
                let mode = match file.executable() {
                    Some(true) => 0o777 & !durable::umask(),
                    _ => durable::new_file_mode(),
                };
                b.write(&rel, None, new, Some(mode), true);
            }
            Action::Rename | Action::Copy => {
                let renaming = file.action == Action::Rename;
                let from_path = file.old_path.clone().unwrap_or_default();
                let to_path = file.new_path.clone().unwrap_or_default();
                let from = self.resolve_target(&from_path, options)?;
                // A rename that changes neither content nor mode moves the file as it is, so
                // it needs no bytes (and no size limit); anything else writes the new file.
                let whole = renaming && !file.has_hunks() && file.executable().is_none();
                let seen = self.existing_file(&from, &from_path, !whole)?;
                let (rel, dirs) = self.new_file_target(&to_path, options)?;
                b.make_dirs(&rel, dirs, &to_path)?;
                if renaming {
                    b.claim(&from.rel, &from_path)?;
                }
                b.claim(&rel, &to_path)?;
                let (hunks, new) = b.patched(file, &from_path, &seen.1)?;
                let change = if renaming {
                    Change::Renamed
                } else {
                    Change::Copied
                };
                b.report(
                    &rel,
                    change,
                    Some(from.rel.clone()),
                    mode_word,
                    hunks,
                    new.is_some(),
                );
                let Some(new) = new else {
                    return Ok(());
                };
                b.warnings.extend(self.ignored_warning(&rel));
                let mode = with_executable(seen.0.mode, file.executable());
                if whole {
                    b.removed_as(&from_path, &from.rel);
                    b.rename(&from.rel, &rel, &seen.0);
                } else {
                    b.preview.0.push(PreviewPart::Text(format!(
                        "{} {} -> {rel}\n",
                        if renaming { "rename" } else { "copy" },
                        from.rel
                    )));
                    b.preview.0.push(PreviewPart::Diff {
                        rel: rel.clone(),
                        existed: true,
                        before: Some(Arc::clone(&seen.1)),
                        after: Some(Arc::clone(&new)),
                    });
                    // The new file's mode, less a setgid bit it could not keep (a setgid
                    // directory of a group the writer is not in; a directory the patch makes
                    // is not there yet to ask, and gives what the nearest one there gives).
                    let kept = match self.resolve_target(&rel, options) {
                        Ok(to) => filekeeper_plumbing::publish::keepable_mode(&to, mode),
                        Err(_) => self.keepable_mode_below_nearest(&rel, mode),
                    };
                    if kept != mode {
                        b.warnings.push(format!(
                            "{rel} would be setgid, but belongs to its directory's group, which the writer is not in, so the bit cannot be given (mode {mode:o} becomes {kept:o})"
                        ));
                    }
                    b.write(&rel, None, new, Some(kept), false);
                    // The new file's diff is against its source, as git shows a rename or
                    // copy with changes.
                    if let Some(sides) = b.sides.get_mut(&rel) {
                        sides.before = seen.0.bytes.clone().map(crate::mutate::Held::Bytes);
                        sides.from = Some(from.rel.clone());
                    }
                    if renaming {
                        b.removed_as(&from_path, &from.rel);
                        b.remove(&from.rel, &seen.0);
                    }
                }
            }
        }
        Ok(())
    }

    /// The state of a file a section reads, with its bytes when `content` (which limits it to
    /// `max_write_bytes`).
    fn existing_file(
        &self,
        target: &Resolved,
        path: &str,
        content: bool,
    ) -> Result<(Seen, Arc<Vec<u8>>)> {
        match target.kind {
            Some(Kind::File) if content => {
                let (bytes, seen) = self.see_for_edit(target)?;
                Ok((seen, bytes))
            }
            Some(Kind::File) => Ok((self.see(target)?, Arc::default())),
            Some(Kind::Directory) => {
                Err(Error::new(Code::NotAFile, "the path is a directory").path(path))
            }
            None => Err(Error::new(
                Code::PathNotFound,
                "the patch changes a file that does not exist",
            )
            .path(path)),
        }
    }

    /// Where a file the patch creates goes: its real workspace-relative path, and the
    /// directories to create first (outermost first). An existing path is ALREADY_EXISTS.
    fn new_file_target(
        &self,
        path: &str,
        options: &MutationOptions,
    ) -> Result<(String, Vec<String>)> {
        if filekeeper_plumbing::resolve::names_directory(path) {
            return Err(Error::new(
                Code::NotAFile,
                "the patch creates a file at a path spelt as a directory (ending with / or /.)",
            )
            .path(path)
            .recovery(
                "name the file without the trailing slash (for a move, the file's full new path)",
            ));
        }
        match self.resolve_target(path, options) {
            Ok(t) if t.kind.is_none() => Ok((t.rel, Vec::new())),
            Ok(t) => {
                let directory = t.kind == Some(Kind::Directory);
                Err(Error::new(
                    Code::AlreadyExists,
                    if directory {
                        "the patch creates a file where a directory is"
                    } else {
                        "the patch creates a file that already exists"
                    },
                )
                .path(path)
                .with("existing", if directory { "directory" } else { "file" }))
            }
            Err(e) if e.code == Code::PathNotFound => {
                let rel = self.inner.root.relative(path)?;
                let Some((parent, name)) = rel.rsplit_once('/') else {
                    return Err(e);
                };
                let dirs = self.dirs_to_create(parent, true, path, options)?;
                let Some(real_parent) = dirs.last() else {
                    return Err(e);
                };
                Ok((format!("{real_parent}/{name}"), dirs))
            }
            Err(e) => Err(e),
        }
    }

    /// Directories that hold nothing once the patch's deletions and renames are done are
    /// removed too, deepest first, as `git apply` removes them; the workspace root never is.
    fn plan_emptied_dirs(&self, b: &mut Builder) -> Result<()> {
        let mut candidates: Vec<String> = b
            .gone
            .iter()
            .flat_map(|p| ancestors(p))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        candidates.sort_by(|a, b| {
            b.matches('/')
                .count()
                .cmp(&a.matches('/').count())
                .then(a.cmp(b))
        });
        for dir in candidates {
            let inside = format!("{dir}/");
            if b.kept.contains(&dir) || b.written.iter().any(|p| p.starts_with(&inside)) {
                continue;
            }
            if self.holds_only(&dir, &b.gone)? {
                b.gone.insert(dir.clone());
                b.items.push(Planned {
                    item: self.removed_dir_item(&dir)?,
                    after_size: None,
                });
                b.removed_dirs.push(dir);
            }
        }
        Ok(())
    }

    /// The mode a new file at `rel`, in directories the patch makes, can have: what the
    /// nearest existing directory above it gives ([`publish::keepable_mode_below`]).
    ///
    /// [`publish::keepable_mode_below`]: filekeeper_plumbing::publish::keepable_mode_below
    fn keepable_mode_below_nearest(&self, rel: &str, mode: u32) -> u32 {
        let mut dir = rel;
        while let Some((up, _)) = dir.rsplit_once('/') {
            dir = up;
            if let Ok(found) = self.inner.root.resolve(dir, Intent::Read)
                && found.kind == Some(Kind::Directory)
            {
                return filekeeper_plumbing::publish::keepable_mode_below(&found, mode);
            }
        }
        let root = self.inner.root.resolve(".", Intent::Read);
        root.map_or(mode, |root| {
            filekeeper_plumbing::publish::keepable_mode_below(&root, mode)
        })
    }

    /// Whether every entry of directory `dir` is in `gone` (a link, a special file or an
    /// unreadable entry never is).
    fn holds_only(&self, dir: &str, gone: &HashSet<String>) -> Result<bool> {
        let Ok(resolved) = self.inner.root.resolve(dir, Intent::Read) else {
            return Ok(false);
        };
        if resolved.kind != Some(Kind::Directory) {
            return Ok(false);
        }
        let mut walk = walk::walk(
            &self.inner.root,
            &resolved,
            WalkOptions {
                recursive: false,
                max_depth: 1,
                respect_ignore: false,
            },
        )?;
        for entry in walk.by_ref() {
            let entry = entry?;
            let removable = matches!(entry.kind, EntryKind::File | EntryKind::Directory);
            if !removable || !gone.contains(&entry.rel) {
                return Ok(false);
            }
        }
        Ok(walk.unreadable.is_empty() && walk.nested_state_dirs.is_empty())
    }
}

/// Parses a patch in either format: a Codex patch when its first non-empty line is
/// `*** Begin Patch`, else a unified diff.
pub(crate) fn parse(text: &str) -> Result<Vec<FilePatch>> {
    // A byte-order mark before the first line is the saving editor's, not the patch's: the
    // first line is a header or commentary, never a file's content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if codex::is_codex(text) {
        return codex::parse(text);
    }
    // A text that is no unified diff but has Codex directives gets a message about those.
    patch::parse(text).map_err(|e| codex::diagnose(text).unwrap_or(e))
}

/// A section's per-hunk report, and the new bytes (`None` when a hunk does not apply).
type Patched = (Vec<patch::HunkReport>, Option<Arc<Vec<u8>>>);

/// The section's hunks applied to a file's bytes, with the warnings of a Codex hunk matched
/// with trailing whitespace ignored and, when a Codex hunk does not apply, why. A section
/// without hunks keeps the bytes as they are.
pub(crate) fn patched(
    file: &FilePatch,
    path: &str,
    bytes: &[u8],
) -> Result<(Patched, Vec<String>, Option<Error>)> {
    if !file.has_hunks() {
        return Ok((
            (Vec::new(), Some(Arc::new(bytes.to_vec()))),
            Vec::new(),
            None,
        ));
    }
    if file.codex.is_some() {
        let mut doc = Doc::parse_for_codex(path, bytes)?;
        let applied = codex::apply(file, path, &mut doc);
        let new = applied.ok.then(|| Arc::new(doc.to_bytes()));
        // A Codex patch sees an existing file's text without its BOM, as a read shows it, so
        // it cannot mean to add one (a unified diff's line 1 holds the BOM, so it adds or
        // removes one only by saying so; a new file's content is written as given, as by
        // `create`).
        if let Some(new) = new
            .as_ref()
            .filter(|_| file.action != patch::Action::Create)
        {
            super::doc::no_new_bom(path, bytes, new)?;
            super::doc::stays_text(path, bytes, new)?;
        }
        return Ok(((applied.reports, new), applied.warnings, applied.problem));
    }
    let mut doc = Doc::parse_for_patch(path, bytes)?;
    let (ok, hunks) = patch::apply(file, &mut doc);
    let new = ok.then(|| Arc::new(doc.to_bytes()));
    // A new file's content is written as given, as by `create`; an existing text file stays
    // text.
    if let Some(new) = new
        .as_ref()
        .filter(|_| file.action != patch::Action::Create)
    {
        super::doc::stays_text(path, bytes, new)?;
    }
    Ok(((hunks, new), Vec::new(), None))
}

/// The byte ranges of `bytes` (the version a patch applied to) that the hunks' old lines
/// cover, context lines included: its changed lines lie within them. (A hunk that also ends
/// the line before it, or changes the file's last line end, is widened by the merge.)
fn hunk_ranges(bytes: &[u8], hunks: &[patch::HunkReport]) -> Vec<std::ops::Range<usize>> {
    let mut starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1))
        .filter(|&at| at < bytes.len())
        .collect();
    starts.push(bytes.len());
    let last = starts.len() - 1;
    hunks
        .iter()
        .map(|h| {
            // The first old line, 0-based; a hunk without old lines states the line after
            // which it inserts. A header that states line 0 for old lines (`@@ -0,3 +0,3 @@`,
            // which git apply and GNU patch take for line 1) is taken so too.
            let first = if h.old_lines == 0 {
                h.old_start
            } else {
                h.old_start.saturating_sub(1)
            };
            let first = first.saturating_add_signed(h.offset as isize);
            let from = first.min(last);
            let to = (first + h.old_lines).min(last);
            starts[from]..starts[to]
        })
        .collect()
}

/// An error about a Codex patch's section names the line of its directive, and says which
/// directive when the file is in the way.
fn at_directive(mut e: Error, file: &FilePatch) -> Error {
    let Some(mut line) = file.codex else {
        return e;
    };
    if e.details.contains_key("line") {
        return e;
    }
    // A move's `*** Move to:` is the line after its `*** Update File:`, and an error about
    // the new path names it.
    let new_path = e.details.get("path").and_then(|v| v.as_str());
    if file.action == Action::Rename
        && (e.code == Code::AlreadyExists || new_path == file.new_path.as_deref())
    {
        line += 1;
    }
    let directory = e.details.get("existing").and_then(|v| v.as_str()) == Some("directory");
    let what = match (e.code, file.action) {
        (Code::AlreadyExists, Action::Create) if directory => {
            Some("`*** Add File:` names a directory; a patch adds files only")
        }
        (Code::AlreadyExists, Action::Rename) if directory => {
            Some("`*** Move to:` names a directory; name the file's full new path")
        }
        (Code::AlreadyExists, Action::Create) => {
            Some("`*** Add File:` names a file that already exists; a patch never overwrites one")
        }
        (Code::AlreadyExists, Action::Rename) => {
            Some("`*** Move to:` names a path that already exists; a move never overwrites one")
        }
        (Code::PathNotFound, Action::Delete) => {
            Some("`*** Delete File:` names a file that does not exist")
        }
        (Code::PathNotFound, _) => Some("`*** Update File:` names a file that does not exist"),
        _ => None,
    };
    let own_words = e.wording.as_ref().is_none_or(|w| w.message.is_none());
    if own_words {
        e.message = match what {
            Some(what) => format!("line {line}: {what}; nothing was written"),
            None => format!("line {line}: {}", e.message),
        };
    }
    e.with("line", line)
}

/// `mode` with the executable bits set where it is readable, or cleared, as a patch's mode
/// change asks; the other bits are kept.
fn with_executable(mode: u32, executable: Option<bool>) -> u32 {
    match executable {
        Some(true) => mode | ((mode & 0o444) >> 2),
        Some(false) => mode & !0o111,
        None => mode,
    }
}

/// The directories above a workspace-relative path, deepest first, without the root.
fn ancestors(path: &str) -> impl Iterator<Item = String> + '_ {
    let mut rest = path;
    std::iter::from_fn(move || {
        let (parent, _) = rest.rsplit_once('/')?;
        rest = parent;
        Some(parent.to_owned())
    })
}

/// The plan being built, section by section.
#[derive(Default)]
struct Builder {
    items: Vec<Planned>,
    /// Directories to create, outermost first.
    made_dirs: Vec<String>,
    /// Publications and renames, in the patch's order.
    writes: Vec<Step>,
    /// Files deleted or renamed away.
    removals: Vec<Step>,
    /// Emptied directories, deepest first.
    removed_dirs: Vec<String>,
    blobs: Vec<Arc<Vec<u8>>>,
    after_blobs: Vec<Arc<Vec<u8>>>,
    reports: Vec<FileReport>,
    preview: Preview,
    /// What each written or removed file's diff in the result is made from.
    sides: HashMap<String, Sides>,
    warnings: Vec<String>,
    /// Every path a section changes: a second change to one is refused.
    claimed: HashSet<String>,
    /// Paths that exist afterwards because the patch writes them, and directories it makes.
    written: HashSet<String>,
    /// Paths that no longer exist afterwards.
    gone: HashSet<String>,
    /// Directories above a file the patch removed by another name (through a link to a
    /// directory): the patch named none of them, so none is removed as emptied.
    kept: HashSet<String>,
    /// `max_history_blob_bytes`: a content above it is not stored.
    cap: u64,
    /// A patch made on an older version of its file: how it was merged.
    merged: Option<super::MergeReport>,
    /// Why a Codex section's hunk does not apply, by the index of the section's report.
    problems: Vec<(usize, Error)>,
}

impl Builder {
    /// [`patched`], keeping its warnings and its problem for the section's report, which
    /// comes next.
    fn patched(&mut self, file: &FilePatch, path: &str, bytes: &[u8]) -> Result<Patched> {
        let (patched, warnings, problem) = patched(file, path, bytes)?;
        self.warnings.extend(warnings);
        if let Some(problem) = problem {
            self.problems.push((self.reports.len(), problem));
        }
        Ok(patched)
    }

    fn claim(&mut self, rel: &str, path: &str) -> Result<()> {
        let clash = self.made_dirs.iter().any(|d| d == rel);
        if clash || !self.claimed.insert(rel.to_owned()) {
            return Err(
                Error::new(Code::PatchFailed, format!("the patch changes {rel} twice"))
                    .path(path)
                    .with("reason", "duplicate_file"),
            );
        }
        Ok(())
    }

    fn make_dirs(&mut self, rel: &str, dirs: Vec<String>, path: &str) -> Result<()> {
        for dir in dirs {
            if self.made_dirs.contains(&dir) {
                continue;
            }
            if self.claimed.contains(&dir) {
                return Err(Error::new(
                    Code::PatchFailed,
                    format!(
                        "the patch writes {dir} as a file and needs it as a directory for {rel}"
                    ),
                )
                .path(path)
                .with("reason", "duplicate_file"));
            }
            self.preview.0.push(PreviewPart::Text(
                Step::MakeDir { path: dir.clone() }.preview_line(),
            ));
            self.items.push(Planned {
                item: dir_item(&dir, Change::Created, false, true),
                after_size: None,
            });
            self.written.insert(dir.clone());
            self.made_dirs.push(dir);
        }
        Ok(())
    }

    fn report(
        &mut self,
        rel: &str,
        change: Change,
        from: Option<String>,
        mode: Option<&'static str>,
        hunks: Vec<patch::HunkReport>,
        applies: bool,
    ) {
        self.reports.push(FileReport {
            path: rel.to_owned(),
            change,
            from,
            mode,
            status: if applies { "applies" } else { "failed" },
            hunks,
        });
    }

    /// Publishes `new` at `rel` (over the file `before`, or where nothing is), with the
    /// permission bits `mode` (by default an existing file's own, a new file's by the umask).
    fn write(
        &mut self,
        rel: &str,
        before: Option<&(Seen, Arc<Vec<u8>>)>,
        new: Arc<Vec<u8>>,
        mode: Option<u32>,
        preview: bool,
    ) {
        let seen = before.map(|b| &b.0);
        if preview {
            self.preview.0.push(PreviewPart::Diff {
                rel: rel.to_owned(),
                existed: seen.is_some(),
                before: before.map(|b| Arc::clone(&b.1)),
                after: Some(Arc::clone(&new)),
            });
        }
        if let Some(bytes) = seen.and_then(|s| s.bytes.clone()) {
            self.blobs.push(bytes);
        }
        self.sides.insert(
            rel.to_owned(),
            Sides::bytes(seen.and_then(|s| s.bytes.clone()), Some(Arc::clone(&new))),
        );
        if new.len() as u64 <= self.cap {
            self.after_blobs.push(Arc::clone(&new));
        }
        let after_hash = ObjectId::of(&new);
        let change = match seen {
            None => Change::Created,
            Some(s) if s.hash == after_hash && mode.is_none_or(|m| m == s.mode) => {
                Change::Unchanged
            }
            Some(_) => Change::Modified,
        };
        let item = Item {
            path: rel.to_owned(),
            change: change.into(),
            kind: Kind::File,
            before_exists: seen.is_some(),
            after_exists: true,
            before_hash: seen.map(|s| s.hash),
            after_hash: Some(after_hash),
            before_mode: seen.map(|s| s.mode),
            after_mode: mode.or(seen.map(|s| s.mode)),
            history_skipped: seen.is_some_and(|s| s.bytes.is_none()) || new.len() as u64 > self.cap,
        };
        self.items.push(Planned {
            item,
            after_size: Some(new.len() as u64),
        });
        // A file that already holds the result is left as it is: rewriting it would change
        // its inode and mtime (and split its hard links) for a change reported as none.
        if change != Change::Unchanged {
            self.writes.push(Step::Publish {
                path: rel.to_owned(),
                expect: seen.map_or(Expect::Absent, |s| Expect::Hash(s.hash)),
                mode: mode.filter(|m| seen.is_none_or(|s| s.mode != *m)),
                content: new,
            });
        }
        self.written.insert(rel.to_owned());
    }

    /// Deletes the file `rel`, whose state is `seen`.
    fn remove(&mut self, rel: &str, seen: &Seen) {
        self.preview.0.push(PreviewPart::Text(
            Step::Remove {
                path: rel.to_owned(),
                hash: seen.hash,
            }
            .preview_line(),
        ));
        if let Some(bytes) = &seen.bytes {
            self.blobs.push(Arc::clone(bytes));
        }
        self.sides
            .insert(rel.to_owned(), Sides::bytes(seen.bytes.clone(), None));
        self.items.push(Planned {
            item: deleted_file(rel, seen),
            after_size: None,
        });
        self.removals.push(Step::Remove {
            path: rel.to_owned(),
            hash: seen.hash,
        });
        self.gone.insert(rel.to_owned());
    }

    /// Notes that the patch names by `given` the file it removes at `rel`: when the two differ
    /// (a link to a directory on the way), the directories above `rel` are kept.
    fn removed_as(&mut self, given: &str, rel: &str) {
        if given.trim_start_matches("./") != rel {
            self.kept.extend(ancestors(rel));
        }
    }

    /// Moves the file `from` (state `seen`) to `to` as it is.
    fn rename(&mut self, from: &str, to: &str, seen: &Seen) {
        self.preview.0.push(PreviewPart::Text(
            Step::Rename {
                from: from.to_owned(),
                to: to.to_owned(),
                from_hash: Some(seen.hash),
                replaces: None,
            }
            .preview_line(),
        ));
        if let Some(bytes) = &seen.bytes {
            self.blobs.push(Arc::clone(bytes));
        }
        self.items.push(Planned {
            item: deleted_file(from, seen),
            after_size: None,
        });
        self.items.push(Planned {
            item: Item {
                path: to.to_owned(),
                change: Change::Created.into(),
                kind: Kind::File,
                before_exists: false,
                after_exists: true,
                before_hash: None,
                after_hash: Some(seen.hash),
                before_mode: None,
                after_mode: Some(seen.mode),
                history_skipped: seen.bytes.is_none(),
            },
            after_size: Some(seen.size),
        });
        self.writes.push(Step::Rename {
            from: from.to_owned(),
            to: to.to_owned(),
            from_hash: Some(seen.hash),
            replaces: None,
        });
        self.written.insert(to.to_owned());
        self.gone.insert(from.to_owned());
    }

    /// PATCH_FAILED naming the first section that does not apply, with every report.
    fn failure(&self) -> Option<Error> {
        let (index, first) = self
            .reports
            .iter()
            .enumerate()
            .find(|(_, r)| r.status == "failed")?;
        if let Some((_, problem)) = self.problems.iter().find(|(i, _)| *i == index) {
            return Some(self.codex_failure(first, problem.clone()));
        }
        let bad_hunk = first
            .hunks
            .iter()
            .find(|h| h.status != "applies" && h.status != "applies_at_offset");
        if let Some(h) = bad_hunk
            && let Some(refusal) = &h.refusal
        {
            return Some(self.refusal_failure(first, h, refusal));
        }
        let message = match bad_hunk {
            Some(h) => format!(
                "hunk {} of {} does not apply ({}){}; nothing was written",
                h.hunk,
                first.path,
                h.status,
                h.mismatch
                    .as_ref()
                    .map(|m| format!(": {}", m.describe(h.old_lines)))
                    .unwrap_or_default()
            ),
            None if first.hunks.is_empty() => format!(
                "{} is not empty, so the patch cannot delete it as an empty file; nothing was written",
                first.path
            ),
            None => format!(
                "{} keeps lines its hunks do not remove (the file has lines the patch was not made with), so the patch cannot delete it; nothing was written",
                first.path
            ),
        };
        let mut error = Error::new(Code::PatchFailed, message);
        if let Some(h) = bad_hunk
            && let Some(mismatch) = &h.mismatch
        {
            error = error.with("mismatch", mismatch.to_json(h.hunk));
        }
        Some(
            error
                .with("path", first.path.clone())
                .with(
                    "reason",
                    bad_hunk.map_or("not_empty_after_delete", |h| h.status),
                )
                .with(
                    "patch_files",
                    serde_json::to_value(&self.reports).unwrap_or_default(),
                )
                .recovery("regenerate the patch against the files' current content"),
        )
    }

    /// PATCH_FAILED for a hunk refused for a reason of its own: hunks out of order, line ends
    /// the file would not get, a final newline the file does not have.
    fn refusal_failure(
        &self,
        first: &FileReport,
        hunk: &patch::HunkReport,
        refusal: &patch::Refusal,
    ) -> Error {
        let mut error = Error::new(
            Code::PatchFailed,
            format!(
                "hunk {} of {} {}; nothing was written",
                hunk.hunk, first.path, refusal.clause
            ),
        )
        .with("path", first.path.clone())
        .with("reason", refusal.reason)
        .with("hunk", hunk.hunk);
        for (key, value) in &refusal.details {
            error = error.with(key, value.clone());
        }
        if let Some(mismatch) = &hunk.mismatch {
            error = error.with("mismatch", mismatch.to_json(hunk.hunk));
        }
        error = error.with(
            "patch_files",
            serde_json::to_value(&self.reports).unwrap_or_default(),
        );
        match refusal.reason {
            "misordered" => error.recovery(
                "order the hunks by line, each after the lines of the one before it, or send them as separate patches",
            ),
            "line_ends" => error.hint(filekeeper_plumbing::words![
                "to convert a file's line ends, write its whole converted content with ",
                filekeeper_plumbing::Operation::WriteFile,
                "; a patch's added lines always take the file's convention"
            ]),
            "ambiguous" => error.recovery(
                "give the hunk more context lines, so that its lines occur at one place, or regenerate the patch against the file's current content",
            ),
            "placed_by_number" => error.recovery(
                "regenerate the patch with context lines (diff -u, git diff) against the file's current content",
            ),
            "no_context" => error.recovery(
                "regenerate the patch against the file's current content, with context lines (diff -u, git diff)",
            ),
            "already_applied" => error.recovery(
                "re-read the file: the patch's change is there already; to make it again elsewhere, regenerate the patch against the file's current content",
            ),
            "start_of_file" | "end_of_file" => error.recovery(
                "re-read the file; give the hunk context lines on both sides of its change where it belongs in the middle of the file, or regenerate the patch against the file's current content",
            ),
            _ => error.recovery(
                "regenerate the patch against the file's current content: a hunk that reaches the end of the file marks its last old line with `\\ No newline at end of file` exactly when the file does not end with a newline",
            ),
        }
    }

    /// PATCH_FAILED for a Codex section, whose hunk says where in the patch it is and why it
    /// does not apply.
    fn codex_failure(&self, first: &FileReport, problem: Error) -> Error {
        let hunk = first
            .hunks
            .iter()
            .find(|h| h.status != "applies")
            .map_or(0, |h| h.hunk);
        let recovery = match problem.details.get("reason").and_then(|r| r.as_str()) {
            Some("ambiguous") => {
                "give the hunk more context lines, or an `@@` line naming the function or class it is in, so that it matches at one place"
            }
            Some("overlaps") => {
                "send the two changes as one hunk, whose lines run from the first change's context to the second's"
            }
            _ => {
                "re-read the file and send its current lines as the hunk's context and removed lines"
            }
        };
        problem
            .with("path", first.path.clone())
            .with("hunk", hunk)
            .with(
                "patch_files",
                serde_json::to_value(&self.reports).unwrap_or_default(),
            )
            .recovery(recovery)
    }

    fn into_plan(self) -> Plan {
        let target = self
            .reports
            .first()
            .map(|r| r.path.clone())
            .unwrap_or_default();
        let mut counts: Vec<(Change, usize)> = Vec::new();
        for r in &self.reports {
            match counts.iter_mut().find(|(c, _)| *c == r.change) {
                Some((_, n)) => *n += 1,
                None => counts.push((r.change, 1)),
            }
        }
        let tally = counts
            .iter()
            .map(|(c, n)| format!("{n} {}", c.as_str().replace('_', " ")))
            .collect::<Vec<_>>()
            .join(", ");
        let dirs = match self.removed_dirs.len() {
            0 => String::new(),
            n => format!(
                "; {n} emptied director{} removed",
                if n == 1 { "y" } else { "ies" }
            ),
        };
        let mut preview = self.preview;
        preview.0.extend(
            self.removed_dirs
                .iter()
                .map(|d| PreviewPart::Text(Step::RemoveDir { path: d.clone() }.preview_line())),
        );
        let steps = self
            .made_dirs
            .iter()
            .map(|d| Step::MakeDir { path: d.clone() })
            .chain(self.writes)
            .chain(self.removals)
            .chain(
                self.removed_dirs
                    .iter()
                    .map(|d| Step::RemoveDir { path: d.clone() }),
            )
            .collect();
        Plan {
            summary: format!(
                "Applied a patch to {} file(s): {tally}{dirs}.",
                self.reports.len()
            ),
            items: self.items,
            steps,
            blobs: self.blobs,
            after_blobs: self.after_blobs,
            warnings: self.warnings,
            preview,
            sides: self.sides,
            extra: MutationExtra {
                patch_files: Some(self.reports),
                merged: self.merged,
                ..MutationExtra::default()
            },
            ..Plan::new("apply_patch", &target, &target)
        }
    }
}

/// The version a patch with a base was made on. A base names one file's version, so the patch
/// must be one section that changes the content of one existing file.
fn patch_base(files: &[FilePatch], hash: &str) -> Result<ObjectId> {
    let one_modification =
        matches!(files, [file] if file.action == Action::Modify && file.has_hunks());
    if !one_modification {
        return Err(Error::worded(
            Code::InvalidArgument,
            filekeeper_plumbing::words![
                filekeeper_plumbing::Argument::BaseHash,
                " names one file's version: it takes a patch that changes the content of one existing file, and this one has ",
                format!(
                    "{} section(s) or creates, deletes, renames or only changes a mode",
                    files.len()
                )
            ],
        ));
    }
    ObjectId::parse(hash).map_err(|e| e.path(files[0].path()))
}

#[cfg(test)]
mod tests {
    use crate::{Code, Filekeeper, MutationOptions, Workspace};
    use std::fs;

    fn workspace(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        fs::create_dir(&root).unwrap();
        for (path, bytes) in files {
            fs::write(root.join(path), bytes).unwrap();
        }
        let keeper = Filekeeper::new(Some(&dir.path().join("home"))).unwrap();
        let ws = keeper.workspace(None, Some(&root)).unwrap();
        (dir, ws)
    }

    #[test]
    fn a_byte_order_mark_before_the_patch_is_the_editors() {
        let codex = "\u{feff}*** Begin Patch\n*** Delete File: a\n*** End Patch\n";
        assert_eq!(super::parse(codex).unwrap()[0].path(), "a");
        let unified = "\u{feff}--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(super::parse(unified).unwrap()[0].path(), "x");
    }

    #[test]
    fn a_patch_that_leaves_the_bytes_as_they_were_reports_the_file_unchanged() {
        // An LF patch whose only change is line ends, against a CRLF file: it applies (its
        // line ends were mangled, the file's convention wins) and changes nothing.
        let (dir, ws) = workspace(&[("p.txt", b"a\r\nb\r\n")]);
        let patch = "--- a/p.txt\n+++ b/p.txt\n@@ -1,2 +1,2 @@\n-a\n-b\n+a\n+b\n";
        let result = ws.apply_patch(patch, &MutationOptions::default()).unwrap();
        assert!(!result.changed);
        assert_eq!(result.items[0].change, "unchanged");
        let files = result.extra.patch_files.as_ref().unwrap();
        assert_eq!(files[0].change.as_str(), "unchanged");
        assert!(!result.summary.contains("modified"), "{}", result.summary);
        assert!(result.summary.contains("1 unchanged"), "{}", result.summary);
        assert_eq!(
            fs::read(dir.path().join("ws/p.txt")).unwrap(),
            b"a\r\nb\r\n"
        );
    }

    /// The PATCH_FAILED error of `patch` against the files, which stay as they were.
    fn refused(files: &[(&str, &[u8])], patch: &str) -> crate::Error {
        let (dir, ws) = workspace(files);
        let err = ws
            .apply_patch(patch, &MutationOptions::default())
            .unwrap_err();
        assert_eq!(err.code, Code::PatchFailed, "{err:?}");
        for (path, bytes) in files {
            assert_eq!(&fs::read(dir.path().join("ws").join(path)).unwrap(), bytes);
        }
        err
    }

    #[test]
    fn refusals_of_their_own_name_their_reason_hunk_and_recovery() {
        let err = refused(
            &[("o.txt", b"p\nq\nr\n1\n2\ns\nt\nu\n3\np\nq\nr\n")],
            "--- a/o.txt\n+++ b/o.txt\n@@ -6,3 +6,3 @@\n s\n-t\n+T\n u\n@@ -1,3 +1,3 @@\n p\n-q\n+Q\n r\n",
        );
        assert_eq!(err.details["reason"], "misordered");
        assert_eq!(err.details["hunk"], 2);
        assert_eq!(err.details["previous_hunk"], 1);
        assert!(
            err.message.starts_with("hunk 2 of o.txt is out of order")
                && err.message.contains("hunk 1")
                && err.message.ends_with("nothing was written"),
            "{}",
            err.message
        );
        assert!(
            err.details["recovery"]
                .as_str()
                .unwrap()
                .contains("separate patches")
        );
        let statuses: Vec<_> = err.details["patch_files"][0]["hunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["status"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["applies", "failed"]);

        let err = refused(
            &[("p.txt", b"a\r\nb\r\n")],
            "--- a/p.txt\n+++ b/p.txt\n@@ -1,2 +1,2 @@\n-a\r\n-b\r\n+a\n+b\n",
        );
        assert_eq!(err.details["reason"], "line_ends");
        assert_eq!(err.details["hunk"], 1);
        assert_eq!(err.details["patch_line_end"], "LF");
        assert_eq!(err.details["file_line_end"], "CRLF");
        assert_eq!(
            err.message,
            "hunk 1 of p.txt changes line ends from CRLF to LF; added lines take the file's convention (CRLF), so this patch cannot be applied exactly; nothing was written"
        );
        assert!(
            err.details["recovery"]
                .as_str()
                .unwrap()
                .contains("write_file"),
            "{:?}",
            err.details["recovery"]
        );

        let err = refused(
            &[("q.txt", b"a\nb\n")],
            "--- a/q.txt\n+++ b/q.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n",
        );
        assert_eq!(err.details["reason"], "final_newline");
        assert_eq!(err.details["final_newline"]["line"], 2);
        assert_eq!(err.details["final_newline"]["file_has_newline"], true);
        assert_eq!(err.details["final_newline"]["hunk_has_newline"], false);
        assert_eq!(err.details["mismatch"]["hunk"], 1);
    }
}
