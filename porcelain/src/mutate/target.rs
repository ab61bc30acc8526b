//! What a command changes, found and looked at before it plans: the write target, the state
//! of the file there, and the checks every command makes on them.

use super::MutationOptions;
use crate::{Code, Error, ObjectId, Result, Workspace};
use filekeeper_plumbing::ignore::git_ignores;
use filekeeper_plumbing::resolve::{Intent, Kind, Resolved};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::sync::Arc;

/// A file as it is now.
#[derive(Clone)]
pub(crate) struct Seen {
    pub hash: ObjectId,
    pub mode: u32,
    pub size: u64,
    /// The bytes, when within the history cap (so they can be stored and diffed).
    pub bytes: Option<Arc<Vec<u8>>>,
    /// How many names the file has (hard links).
    pub links: u64,
    /// The user that owns it.
    pub owner: u32,
    /// Its group.
    pub group: u32,
    /// The group a new file in its directory gets from the directory, when the directory is
    /// setgid.
    pub inherited_group: Option<u32>,
    /// The mode a new file replacing it can have ([`Seen::kept_mode`]).
    kept_mode: u32,
}

impl Seen {
    fn new(
        meta: &std::fs::Metadata,
        hash: ObjectId,
        size: u64,
        bytes: Option<Arc<Vec<u8>>>,
    ) -> Seen {
        Seen {
            hash,
            mode: meta.permissions().mode() & 0o7777,
            size,
            bytes,
            links: meta.nlink(),
            owner: meta.uid(),
            group: meta.gid(),
            inherited_group: None,
            kept_mode: meta.permissions().mode() & 0o7777,
        }
    }

    /// What the file's directory gives a new file in its place: a group, and whether it can
    /// keep a setgid bit.
    fn beside(&mut self, target: &Resolved) {
        use filekeeper_plumbing::publish::{inherited_group, keepable_mode};
        self.inherited_group = inherited_group(target);
        self.kept_mode = keepable_mode(target, self.mode);
    }

    /// The mode a new file replacing this one can have: this one's, less a setgid bit the
    /// kernel would clear. It clears it when a file's owner who is not in the file's group
    /// sets it, and the new file's group is that of its setgid directory when this file's
    /// own cannot be given (`publish::keep_group_and_attributes`). Asking for the bit anyway
    /// made the change find its own file "changed by another process" (CONTENT_CONFLICT,
    /// recorded partial) after writing it.
    pub(crate) fn kept_mode(&self) -> u32 {
        self.kept_mode
    }

    /// The warning that a new file replacing this one cannot keep its setgid bit.
    pub(crate) fn setgid_warning(&self, rel: &str) -> Option<String> {
        (self.kept_mode != self.mode).then(|| {
            format!(
                "{rel} is setgid: the new file that replaces it belongs to its directory's group, which the writer is not in, so the bit cannot be kept (mode {:o} becomes {:o})",
                self.mode, self.kept_mode
            )
        })
    }

    /// What a change of content does to this file besides its bytes, said as warnings: it is
    /// replaced by a new file (that is what makes the change atomic), which keeps the mode
    /// but not the other names of a hard-linked file, nor an owner other than the writer.
    pub(crate) fn replacement_warnings(&self, rel: &str) -> Vec<String> {
        let mut warnings: Vec<String> = self
            .other_names_warning(rel, "a new file")
            .into_iter()
            .collect();
        let writer = filekeeper_plumbing::durable::new_file_owner();
        if self.owner != writer {
            warnings.push(format!(
                "{rel} belongs to user {}: a change of content replaces it with a new file, which belongs to user {writer}, the writer",
                self.owner
            ));
        }
        // The new file is given the old one's group where the writer may give it (publish).
        if self.inherited_group != Some(self.group)
            && !filekeeper_plumbing::durable::may_give_group(self.group)
        {
            warnings.push(format!(
                "{rel} belongs to group {}, which the writer is not in: a change of content replaces it with a new file, which cannot be given that group and belongs to the writer's (or its directory's)",
                self.group
            ));
        }
        warnings.extend(self.setgid_warning(rel));
        warnings
    }

    /// The warning that the other names of a hard-linked file keep the old content once
    /// `by` replaces this one.
    pub(crate) fn other_names_warning(&self, rel: &str, by: &str) -> Option<String> {
        let others = match self.links {
            0 | 1 => return None,
            2 => "the other name keeps".to_owned(),
            n => format!("the other {} names keep", n - 1),
        };
        Some(format!(
            "{rel} has {} names (hard links), and replacing it with {by} changes this one only: {others} the old content",
            self.links
        ))
    }
}

impl Workspace {
    fn write_intent(&self, options: &MutationOptions) -> Intent {
        Intent::Write {
            allow_sensitive: options.allow_sensitive_write,
        }
    }

    pub(crate) fn resolve_target(&self, path: &str, options: &MutationOptions) -> Result<Resolved> {
        self.inner.root.resolve(path, self.write_intent(options))
    }

    /// The target of a command that writes a file: as [`Workspace::resolve_target`], and a
    /// path spelt as a directory (`notes/`) is NOT_A_FILE even where nothing exists yet, so a
    /// file is never created under a name the caller wrote as a directory's.
    pub(crate) fn file_target(&self, path: &str, options: &MutationOptions) -> Result<Resolved> {
        let target = self.resolve_target(path, options)?;
        if filekeeper_plumbing::resolve::names_directory(path) {
            return Err(Error::new(
                Code::NotAFile,
                "the path ends with /, so it names a directory; a file cannot be written there",
            )
            .path(path)
            .recovery("name the file without the trailing slash"));
        }
        Ok(target)
    }

    /// A text file's whole content for editing (at most `max_write_bytes`), with its state.
    /// The bytes are shared with the returned state, not copied: a large file is held once.
    pub(crate) fn see_for_edit(&self, target: &Resolved) -> Result<(Arc<Vec<u8>>, Seen)> {
        let mut file = target.open_file()?;
        let meta = file
            .metadata()
            .map_err(|e| Error::storage("inspecting file", &e))?;
        self.check_size(&target.given, meta.len() as usize)?;
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.read_to_end(&mut bytes)
            .map_err(|e| Error::storage("reading file", &e))?;
        let stored = bytes.len() as u64 <= self.inner.limits.max_history_blob_bytes;
        let bytes = Arc::new(bytes);
        let mut seen = Seen::new(
            &meta,
            ObjectId::of(&bytes),
            bytes.len() as u64,
            stored.then(|| Arc::clone(&bytes)),
        );
        seen.beside(target);
        Ok((bytes, seen))
    }

    /// Reads a file's current state: hash, mode and size always; the bytes only when they are
    /// within the history cap.
    pub(crate) fn see(&self, target: &Resolved) -> Result<Seen> {
        let mut file = target.open_file()?;
        let meta = file
            .metadata()
            .map_err(|e| Error::storage("inspecting file", &e))?;
        let cap = self.inner.limits.max_history_blob_bytes;
        let mut seen = if meta.len() <= cap {
            let mut bytes = Vec::with_capacity(meta.len() as usize);
            file.read_to_end(&mut bytes)
                .map_err(|e| Error::storage("reading file", &e))?;
            let hash = ObjectId::of(&bytes);
            Seen::new(&meta, hash, bytes.len() as u64, Some(Arc::new(bytes)))
        } else {
            let (hash, size) =
                ObjectId::of_reader(file).map_err(|e| Error::storage("reading file", &e))?;
            Seen::new(&meta, hash, size, None)
        };
        seen.beside(target);
        Ok(seen)
    }

    pub(crate) fn check_size(&self, path: &str, len: usize) -> Result<()> {
        let max = self.inner.limits.max_write_bytes;
        if len as u64 > max {
            return Err(crate::too_large("content", len as u64, "max_write_bytes", max).path(path));
        }
        Ok(())
    }

    pub(crate) fn ignored_warning(&self, rel: &str) -> Vec<String> {
        self.ignored_warning_as(rel, false)
    }

    /// [`Workspace::ignored_warning`] for a path that is a directory when `is_dir`.
    pub(crate) fn ignored_warning_as(&self, rel: &str, is_dir: bool) -> Vec<String> {
        if git_ignores(&self.inner.root, rel, is_dir) {
            vec![format!(
                "{rel} is ignored by git: this change will not be committed"
            )]
        } else {
            Vec::new()
        }
    }
}

/// A caller's expected hash, parsed; a malformed one is INVALID_ARGUMENT naming the `path`
/// it guards.
pub(crate) fn parse_expected_hash(hash: Option<&str>, path: &str) -> Result<Option<ObjectId>> {
    hash.map(ObjectId::parse)
        .transpose()
        .map_err(|e| e.path(path))
}

pub(crate) fn guard(path: &str, expected: ObjectId, actual: Option<ObjectId>) -> Result<()> {
    if actual == Some(expected) {
        return Ok(());
    }
    Err(Error::new(
        Code::ContentConflict,
        "file content changed since it was read; refusing to overwrite",
    )
    .path(path)
    .with("expected_hash", expected.to_string())
    .with("actual_hash", actual.map(|a| a.to_string()))
    .recovery("re-read the target, then retry against its current hash"))
}

pub(crate) fn not_a_file(path: &str) -> Error {
    Error::new(Code::NotAFile, "the path is a directory, not a file").path(path)
}

pub(crate) fn no_such_file(path: &str) -> Error {
    Error::new(Code::PathNotFound, "no such file in the workspace").path(path)
}

pub(super) fn not_a_directory(path: &str, kind: Option<Kind>) -> Error {
    match kind {
        None => Error::new(Code::PathNotFound, "no such directory in the workspace").path(path),
        _ => Error::new(Code::NotADirectory, "the path is a file, not a directory").path(path),
    }
}
