//! The mutating commands, each a plan: create, write, copy, move and delete files; create,
//! move and delete directories.

use super::{MutationOptions, MutationResult, Plan, Planned, Preview, PreviewPart, Step};
use crate::{Code, Error, ObjectId, Result, Workspace};
use filekeeper_plumbing::ignore::git_ignores;
use filekeeper_plumbing::journal::Item;
use filekeeper_plumbing::path_state::{Observed, observe};
use filekeeper_plumbing::publish::Expect;
use filekeeper_plumbing::resolve::{Intent, Kind, Resolved};
use filekeeper_plumbing::walk::{self, EntryKind, WalkOptions};
use filekeeper_plumbing::{Argument, Operation, words};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Whether the file at `target` starts with a UTF-8 byte-order mark.
fn starts_with_bom(target: &Resolved) -> Result<bool> {
    let mut head = Vec::with_capacity(BOM.len());
    target
        .open_file()?
        .take(BOM.len() as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::storage("reading file", &e))?;
    Ok(head == BOM)
}

/// Whether `content` is text (no NUL in its first 8 KiB, valid UTF-8) without a BOM of its own.
fn is_text_without_bom(content: &[u8]) -> bool {
    let sniff = &content[..content.len().min(crate::text::BINARY_SNIFF_BYTES)];
    !content.starts_with(BOM) && !sniff.contains(&0) && std::str::from_utf8(content).is_ok()
}

/// A preview diff longer than this is cut (it is a preview, never a file body dump).
const MAX_PREVIEW_BYTES: usize = 64 * 1024;

/// A file as it is now.
#[derive(Clone)]
pub(crate) struct Seen {
    pub hash: ObjectId,
    pub mode: u32,
    pub size: u64,
    /// The bytes, when within the history cap (so they can be stored and diffed).
    pub bytes: Option<Arc<Vec<u8>>>,
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
        let seen = Seen {
            hash: ObjectId::of(&bytes),
            mode: meta.permissions().mode() & 0o7777,
            size: bytes.len() as u64,
            bytes: stored.then(|| Arc::clone(&bytes)),
        };
        Ok((bytes, seen))
    }

    /// Reads a file's current state: hash, mode and size always; the bytes only when they are
    /// within the history cap.
    pub(crate) fn see(&self, target: &Resolved) -> Result<Seen> {
        let mut file = target.open_file()?;
        let meta = file
            .metadata()
            .map_err(|e| Error::storage("inspecting file", &e))?;
        let mode = meta.permissions().mode() & 0o7777;
        let cap = self.inner.limits.max_history_blob_bytes;
        if meta.len() <= cap {
            let mut bytes = Vec::with_capacity(meta.len() as usize);
            file.read_to_end(&mut bytes)
                .map_err(|e| Error::storage("reading file", &e))?;
            Ok(Seen {
                hash: ObjectId::of(&bytes),
                mode,
                size: bytes.len() as u64,
                bytes: Some(Arc::new(bytes)),
            })
        } else {
            let (hash, size) =
                ObjectId::of_reader(file).map_err(|e| Error::storage("reading file", &e))?;
            Ok(Seen {
                hash,
                mode,
                size,
                bytes: None,
            })
        }
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

    /// Creates a file. An existing file is ALREADY_EXISTS, unless `allow_existing`, which
    /// replaces it (a no-op when the content is the same). Never clobbers a file created
    /// concurrently by another process.
    pub fn create_file(
        &self,
        path: &str,
        content: &[u8],
        allow_existing: bool,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            ws.check_size(path, content.len())?;
            let target = ws.file_target(path, options)?;
            let before = match target.kind {
                Some(Kind::Directory) => return Err(not_a_file(path)),
                Some(Kind::File) if !allow_existing => {
                    return Err(Error::new(Code::AlreadyExists, "the file already exists")
                        .path(path)
                        .hint(words![
                            "replace it with ",
                            Operation::WriteFile,
                            ", or create it with ",
                            Argument::AllowExisting
                        ]));
                }
                Some(Kind::File) => Some(ws.see(&target)?),
                None => None,
            };
            let verb = if before.is_some() {
                "Replaced"
            } else {
                "Created"
            };
            let content = Arc::new(content.to_vec());
            ws.content_plan("create", verb, path, &target, before, content, None)
        })
    }

    /// Replaces a file's content (creating it when absent). With `expected_hash`, the file
    /// must still hold exactly that content: otherwise CONTENT_CONFLICT and nothing changes.
    ///
    /// A file that starts with a UTF-8 byte-order mark keeps it when the new content is text
    /// without one (a read reports the text without its BOM, so writing it back must not
    /// drop it); the result then says `bom_kept`. `remove_bom` writes the content as given
    /// instead, which is how a caller drops the mark on purpose.
    pub fn write_file(
        &self,
        path: &str,
        content: &[u8],
        expected_hash: Option<&str>,
        remove_bom: bool,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        let expected = expected_hash
            .map(ObjectId::parse)
            .transpose()
            .map_err(|e| e.path(path))?;
        if remove_bom && content.starts_with(BOM) {
            return Err(Error::invalid(
                "the content starts with a byte-order mark, but removing the mark was asked",
            )
            .path(path));
        }
        self.mutate(options, |ws| {
            let target = ws.file_target(path, options)?;
            let before = match target.kind {
                Some(Kind::Directory) => return Err(not_a_file(path)),
                Some(Kind::File) => Some(ws.see(&target)?),
                None => None,
            };
            if let Some(expected) = expected {
                guard(path, expected, before.as_ref().map(|b| b.hash))?;
            }
            let keep_bom = !remove_bom
                && before.is_some()
                && starts_with_bom(&target)?
                && is_text_without_bom(content);
            let content = if keep_bom {
                [BOM, content].concat()
            } else {
                content.to_vec()
            };
            ws.check_size(path, content.len())?;
            let mut plan = ws.content_plan(
                "write",
                "Wrote",
                path,
                &target,
                before,
                Arc::new(content),
                None,
            )?;
            if keep_bom {
                plan.warnings.push(format!(
                    "kept the UTF-8 byte-order mark {} starts with, since the new content has none",
                    target.rel
                ));
                plan.extra.bom_kept = Some(true);
            }
            Ok(plan)
        })
    }

    /// Copies a file. An existing destination is replaced only when `expected_destination_hash`
    /// names its current content.
    pub fn copy_file(
        &self,
        source: &str,
        destination: &str,
        expected_destination_hash: Option<&str>,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        let expected = expected_destination_hash
            .map(ObjectId::parse)
            .transpose()
            .map_err(|e| e.path(destination))?;
        self.mutate(options, |ws| {
            let from = ws.inner.root.resolve(source, Intent::Read)?;
            let mut file = from.open_file()?;
            let meta = file
                .metadata()
                .map_err(|e| Error::storage("inspecting file", &e))?;
            ws.check_size(source, meta.len() as usize)?;
            let mut bytes = Vec::with_capacity(meta.len() as usize);
            file.read_to_end(&mut bytes)
                .map_err(|e| Error::storage("reading file", &e))?;
            let target = ws.file_target(destination, options)?;
            if target.rel == from.rel {
                return Err(
                    Error::invalid("source and destination are the same file").path(destination)
                );
            }
            let before = match target.kind {
                Some(Kind::Directory) => return Err(not_a_file(destination)),
                Some(Kind::File) => Some(ws.see(&target)?),
                None => None,
            };
            match (expected, &before) {
                (Some(expected), _) => {
                    guard(destination, expected, before.as_ref().map(|b| b.hash))?
                }
                (None, Some(_)) => {
                    return Err(
                        Error::new(Code::AlreadyExists, "the destination already exists")
                            .path(destination)
                            .hint(words![
                                "name its current content hash with ",
                                Argument::ExpectedDestinationHash,
                                " to replace it"
                            ]),
                    );
                }
                (None, None) => {}
            }
            let mode = before.is_none().then(|| meta.permissions().mode() & 0o7777);
            let summary = format!("Copied {} to {}.", from.rel, target.rel);
            let mut plan = ws.content_plan(
                "copy",
                "",
                destination,
                &target,
                before,
                Arc::new(bytes),
                mode,
            )?;
            plan.summary = summary;
            plan.source = Some(from.rel.clone());
            Ok(plan)
        })
    }

    /// The plan of a single-file content change.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn content_plan(
        &self,
        kind: &'static str,
        verb: &str,
        given: &str,
        target: &Resolved,
        before: Option<Seen>,
        content: Arc<Vec<u8>>,
        new_mode: Option<u32>,
    ) -> Result<Plan> {
        let cap = self.inner.limits.max_history_blob_bytes;
        let after_hash = ObjectId::of(&content);
        // A new file's mode is decided here, so the journal records exactly what is written.
        let new_mode = new_mode.or_else(|| {
            before
                .is_none()
                .then(filekeeper_plumbing::durable::new_file_mode)
        });
        let after_mode = before.as_ref().map(|b| b.mode).or(new_mode);
        let blobs = before
            .as_ref()
            .and_then(|b| b.bytes.clone())
            .into_iter()
            .collect();
        let after_stored = content.len() as u64 <= cap;
        let after_blobs = if after_stored {
            vec![Arc::clone(&content)]
        } else {
            Vec::new()
        };
        let change = match &before {
            None => "created",
            Some(b) if b.hash == after_hash => "unchanged",
            Some(_) => "modified",
        };
        let item = Item {
            path: target.rel.clone(),
            change: change.to_owned(),
            kind: Kind::File,
            before_exists: before.is_some(),
            after_exists: true,
            before_hash: before.as_ref().map(|b| b.hash),
            after_hash: Some(after_hash),
            before_mode: before.as_ref().map(|b| b.mode),
            after_mode,
            history_skipped: before.as_ref().is_some_and(|b| b.bytes.is_none()) || !after_stored,
        };
        let expect = match &before {
            Some(b) => Expect::Hash(b.hash),
            None => Expect::Absent,
        };
        let preview = Preview(vec![PreviewPart::Diff {
            rel: target.rel.clone(),
            existed: before.is_some(),
            before: before.as_ref().and_then(|b| b.bytes.clone()),
            after: Some(Arc::clone(&content)),
        }]);
        Ok(Plan {
            kind,
            summary: if change == "unchanged" {
                format!(
                    "{} already holds this content; nothing to write.",
                    target.rel
                )
            } else {
                format!("{verb} {}.", target.rel)
            },
            given: given.to_owned(),
            target: target.rel.clone(),
            source: None,
            undoes: None,
            items: vec![Planned {
                item,
                after_size: Some(content.len() as u64),
            }],
            steps: vec![Step::Publish {
                path: target.rel.clone(),
                expect,
                mode: new_mode,
                content,
            }],
            blobs,
            after_blobs,
            warnings: self.ignored_warning(&target.rel),
            preview,
            extra: Default::default(),
        })
    }

    /// Deletes a file; with `expected_hash`, only while it holds exactly that content.
    pub fn delete_file(
        &self,
        path: &str,
        expected_hash: Option<&str>,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        let expected = expected_hash
            .map(ObjectId::parse)
            .transpose()
            .map_err(|e| e.path(path))?;
        self.mutate(options, |ws| {
            let target = ws.resolve_target(path, options)?;
            let before = match target.kind {
                Some(Kind::Directory) => {
                    return Err(not_a_file(path)
                        .hint(words!["delete directories with ", Operation::DeleteDir]));
                }
                Some(Kind::File) => ws.see(&target)?,
                None => {
                    return Err(
                        Error::new(Code::PathNotFound, "no such file in the workspace").path(path),
                    );
                }
            };
            if let Some(expected) = expected {
                guard(path, expected, Some(before.hash))?;
            }
            let item = deleted_file(&target.rel, &before);
            Ok(Plan {
                kind: "delete",
                summary: format!("Deleted {}.", target.rel),
                given: path.to_owned(),
                target: target.rel.clone(),
                source: None,
                undoes: None,
                preview: Preview(vec![PreviewPart::Diff {
                    rel: target.rel.clone(),
                    existed: true,
                    before: before.bytes.clone(),
                    after: None,
                }]),
                items: vec![Planned {
                    item,
                    after_size: None,
                }],
                steps: vec![Step::Remove {
                    path: target.rel.clone(),
                }],
                blobs: before.bytes.into_iter().collect(),
                after_blobs: Vec::new(),
                warnings: ws.ignored_warning(&target.rel),
                extra: Default::default(),
            })
        })
    }

    /// Moves (renames) a file, atomically. An existing destination is replaced only with
    /// `overwrite`.
    pub fn move_file(
        &self,
        source: &str,
        destination: &str,
        overwrite: bool,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            let from = ws.resolve_target(source, options)?;
            let moved = match from.kind {
                Some(Kind::Directory) => {
                    return Err(not_a_file(source)
                        .hint(words!["move directories with ", Operation::MoveDir]));
                }
                Some(Kind::File) => ws.see(&from)?,
                None => {
                    return Err(
                        Error::new(Code::PathNotFound, "no such file in the workspace")
                            .path(source),
                    );
                }
            };
            let to = ws.file_target(destination, options)?;
            if to.rel == from.rel {
                return Err(
                    Error::invalid("source and destination are the same path").path(destination)
                );
            }
            let before = match to.kind {
                Some(Kind::Directory) => return Err(not_a_file(destination)),
                Some(Kind::File) if !overwrite => {
                    return Err(
                        Error::new(Code::AlreadyExists, "the destination already exists")
                            .path(destination)
                            .hint(words!["pass ", Argument::Overwrite, " to replace it"]),
                    );
                }
                Some(Kind::File) => Some(ws.see(&to)?),
                None => None,
            };
            let skipped =
                moved.bytes.is_none() || before.as_ref().is_some_and(|b| b.bytes.is_none());
            let mut removed = deleted_file(&from.rel, &moved);
            removed.history_skipped = skipped;
            let placed = Item {
                path: to.rel.clone(),
                change: if before.is_some() {
                    "modified"
                } else {
                    "created"
                }
                .to_owned(),
                kind: Kind::File,
                before_exists: before.is_some(),
                after_exists: true,
                before_hash: before.as_ref().map(|b| b.hash),
                after_hash: Some(moved.hash),
                before_mode: before.as_ref().map(|b| b.mode),
                after_mode: Some(moved.mode),
                history_skipped: skipped,
            };
            let blobs = moved
                .bytes
                .clone()
                .into_iter()
                .chain(before.and_then(|b| b.bytes))
                .collect();
            let mut warnings = ws.ignored_warning(&to.rel);
            warnings.extend(ws.ignored_warning(&from.rel));
            Ok(Plan {
                kind: "move",
                summary: format!("Moved {} to {}.", from.rel, to.rel),
                given: destination.to_owned(),
                target: to.rel.clone(),
                source: Some(from.rel.clone()),
                undoes: None,
                preview: format!("rename {} -> {}\n", from.rel, to.rel).into(),
                items: vec![
                    Planned {
                        item: removed,
                        after_size: None,
                    },
                    Planned {
                        item: placed,
                        after_size: Some(moved.size),
                    },
                ],
                steps: vec![Step::Rename {
                    from: from.rel.clone(),
                    to: to.rel.clone(),
                    replace: overwrite,
                }],
                blobs,
                after_blobs: Vec::new(),
                warnings,
                extra: Default::default(),
            })
        })
    }

    /// Creates a directory; with `parents`, also its missing ancestors (and an existing
    /// directory is then not an error).
    pub fn create_dir(
        &self,
        path: &str,
        parents: bool,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            let rel = ws.inner.root.relative(path)?;
            let missing = ws.dirs_to_create(&rel, parents, path, options)?;
            let items: Vec<Planned> = if missing.is_empty() {
                vec![Planned {
                    item: dir_item(&rel, "unchanged", true, true),
                    after_size: None,
                }]
            } else {
                missing
                    .iter()
                    .map(|p| Planned {
                        item: dir_item(p, "created", false, true),
                        after_size: None,
                    })
                    .collect()
            };
            Ok(Plan {
                kind: "dir_create",
                summary: if missing.is_empty() {
                    format!("Directory {rel} already exists; nothing to create.")
                } else {
                    format!("Created directory {rel}.")
                },
                given: path.to_owned(),
                target: rel.clone(),
                source: None,
                undoes: None,
                preview: missing
                    .iter()
                    .map(|p| format!("mkdir {p}\n"))
                    .collect::<String>()
                    .into(),
                steps: missing
                    .iter()
                    .map(|p| Step::MakeDir { path: p.clone() })
                    .collect(),
                items,
                blobs: Vec::new(),
                after_blobs: Vec::new(),
                warnings: ws.ignored_warning_as(&rel, true),
                extra: Default::default(),
            })
        })
    }

    /// The directories to create so that the workspace-relative `rel` is a directory: real
    /// workspace-relative paths, outermost first (empty when it is one already). Without
    /// `parents`, an existing `rel` is ALREADY_EXISTS and a missing ancestor PATH_NOT_FOUND.
    /// Every name is judged by the write rules; `path` is the caller's name, for errors.
    pub(crate) fn dirs_to_create(
        &self,
        rel: &str,
        parents: bool,
        path: &str,
        options: &MutationOptions,
    ) -> Result<Vec<String>> {
        // Real workspace-relative paths of the directories to create, outermost first.
        let mut missing: Vec<String> = Vec::new();
        // The real path of the deepest ancestor found (or planned) so far.
        let mut real = String::new();
        let mut prefix = String::new();
        let parts: Vec<&str> = rel.split('/').collect();
        for (i, part) in parts.iter().enumerate() {
            prefix = if prefix.is_empty() {
                (*part).to_owned()
            } else {
                format!("{prefix}/{part}")
            };
            let last = i + 1 == parts.len();
            // Existing ancestors are followed as any read would (a link to a directory
            // inside is fine); the target itself, and what will be created, are judged
            // as write targets.
            let found = if last {
                self.resolve_target(&prefix, options)
            } else if missing.is_empty() {
                self.inner.root.resolve(&prefix, Intent::Read)
            } else {
                Err(Error::new(Code::PathNotFound, "not created yet"))
            };
            let created = match found {
                Ok(r) if r.kind == Some(Kind::Directory) => {
                    if last && !parents {
                        return Err(Error::new(
                            Code::AlreadyExists,
                            "the directory already exists",
                        )
                        .path(path));
                    }
                    real = r.rel;
                    continue;
                }
                Ok(r) if r.kind == Some(Kind::File) => {
                    return Err(
                        Error::new(Code::NotADirectory, format!("{} is a file", r.rel)).path(path),
                    );
                }
                Ok(_) => self.resolve_target(&prefix, options).map(|r| r.rel),
                Err(e) if e.code == Code::PathNotFound && parents => {
                    // Its parent is planned, not there: the write rules are still judged
                    // on the name (they are checked before the walk needs the parent).
                    match self.resolve_target(&prefix, options) {
                        Err(e) if e.code == Code::PathNotFound => Ok(if real.is_empty() {
                            (*part).to_owned()
                        } else {
                            format!("{real}/{part}")
                        }),
                        other => other.map(|r| r.rel),
                    }
                }
                Err(e) => Err(e),
            };
            let created = created.map_err(|e| e.path(path))?;
            real.clone_from(&created);
            missing.push(created);
            if !last && !parents {
                return Err(Error::new(
                    Code::PathNotFound,
                    format!("the parent directory {prefix} does not exist"),
                )
                .path(path)
                .hint(words![
                    "pass ",
                    Argument::Parents,
                    " to create missing parents"
                ]));
            }
        }
        Ok(missing)
    }

    /// Moves (renames) a directory and everything in it, atomically, to a path that does not
    /// exist yet. Every file in it is recorded, so the move can be undone.
    pub fn move_dir(
        &self,
        source: &str,
        destination: &str,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            let from = ws.resolve_target(source, options)?;
            if from.is_root() {
                return Err(Error::invalid("the workspace root cannot be moved").path(source));
            }
            if from.kind != Some(Kind::Directory) {
                return Err(not_a_directory(source, from.kind));
            }
            let to = ws.resolve_target(destination, options)?;
            if to.kind.is_some() {
                return Err(
                    Error::new(Code::AlreadyExists, "the destination already exists")
                        .path(destination),
                );
            }
            if to.rel.starts_with(&format!("{}/", from.rel)) {
                return Err(
                    Error::invalid("a directory cannot be moved into itself").path(destination)
                );
            }
            let tree = ws.tree_below(&from)?;
            // A rename keeps every mode, so each directory's is recorded on both ends.
            let mode = ws.dir_mode(&from.rel)?;
            let mut items = vec![Planned {
                item: removed_item(&from.rel, None, mode),
                after_size: None,
            }];
            let mut blobs = Vec::new();
            for (rel, seen, mode) in &tree {
                items.push(Planned {
                    item: removed_item(rel, seen.as_ref(), *mode),
                    after_size: None,
                });
            }
            let mut placed = dir_item(&to.rel, "created", false, true);
            placed.after_mode = mode;
            items.push(Planned {
                item: placed,
                after_size: None,
            });
            for (rel, seen, mode) in &tree {
                let moved_to = format!("{}{}", to.rel, &rel[from.rel.len()..]);
                let mut item = removed_item(&moved_to, seen.as_ref(), *mode);
                item.change = "created".into();
                std::mem::swap(&mut item.before_exists, &mut item.after_exists);
                std::mem::swap(&mut item.before_hash, &mut item.after_hash);
                std::mem::swap(&mut item.before_mode, &mut item.after_mode);
                let size = seen.as_ref().map(|s| s.size);
                items.push(Planned {
                    item,
                    after_size: size,
                });
                if let Some(bytes) = seen.as_ref().and_then(|s| s.bytes.clone()) {
                    blobs.push(bytes);
                }
            }
            Ok(Plan {
                kind: "dir_move",
                summary: format!("Moved directory {} to {}.", from.rel, to.rel),
                given: destination.to_owned(),
                target: to.rel.clone(),
                source: Some(from.rel.clone()),
                undoes: None,
                preview: format!(
                    "rename {}/ -> {}/ ({} entries)\n",
                    from.rel,
                    to.rel,
                    tree.len()
                )
                .into(),
                steps: vec![Step::Rename {
                    from: from.rel.clone(),
                    to: to.rel.clone(),
                    replace: false,
                }],
                items,
                blobs,
                after_blobs: Vec::new(),
                warnings: [
                    ws.ignored_warning_as(&to.rel, true),
                    ws.ignored_warning_as(&from.rel, true),
                ]
                .concat(),
                extra: Default::default(),
            })
        })
    }

    /// Deletes a directory: an empty one, or with `recursive` everything in it, file by file
    /// (each file's bytes are stored first, so the deletion can be undone).
    pub fn delete_dir(
        &self,
        path: &str,
        recursive: bool,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            let target = ws.resolve_target(path, options)?;
            if target.is_root() {
                return Err(Error::invalid("the workspace root cannot be deleted").path(path));
            }
            if target.kind != Some(Kind::Directory) {
                return Err(not_a_directory(path, target.kind));
            }
            let tree = ws.tree_below(&target)?;
            if !recursive && !tree.is_empty() {
                return Err(Error::invalid("the directory is not empty")
                    .path(path)
                    .with("entries", tree.len())
                    .hint(words![
                        "delete it and everything in it with ",
                        Argument::Recursive
                    ]));
            }
            let mut items = Vec::new();
            let mut steps = Vec::new();
            let mut blobs = Vec::new();
            for (rel, seen, mode) in &tree {
                items.push(Planned {
                    item: removed_item(rel, seen.as_ref(), *mode),
                    after_size: None,
                });
                if let Some(seen) = seen {
                    steps.push(Step::Remove { path: rel.clone() });
                    blobs.extend(seen.bytes.clone());
                }
            }
            // Directories go after their contents: deepest first.
            let mut dirs: Vec<&String> = tree
                .iter()
                .filter(|(_, s, _)| s.is_none())
                .map(|(r, _, _)| r)
                .collect();
            dirs.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
            steps.extend(
                dirs.into_iter()
                    .map(|d| Step::RemoveDir { path: d.clone() }),
            );
            steps.push(Step::RemoveDir {
                path: target.rel.clone(),
            });
            items.push(Planned {
                item: removed_item(&target.rel, None, ws.dir_mode(&target.rel)?),
                after_size: None,
            });
            let files = tree.iter().filter(|(_, s, _)| s.is_some()).count();
            Ok(Plan {
                kind: "dir_delete",
                summary: format!("Deleted directory {} ({files} files).", target.rel),
                given: path.to_owned(),
                target: target.rel.clone(),
                source: None,
                undoes: None,
                preview: steps
                    .iter()
                    .map(|s| match s {
                        Step::Remove { path } => format!("delete {path}\n"),
                        Step::RemoveDir { path } => format!("rmdir {path}\n"),
                        _ => String::new(),
                    })
                    .collect::<String>()
                    .into(),
                items,
                steps,
                blobs,
                after_blobs: Vec::new(),
                warnings: ws.ignored_warning_as(&target.rel, true),
                extra: Default::default(),
            })
        })
    }

    /// Every entry below a directory, in walk order: files with their state, directories as
    /// `None` with their mode. Links and special files cannot be recorded for undo, so they
    /// are refused.
    fn tree_below(&self, dir: &Resolved) -> Result<Vec<Below>> {
        let max_depth = self.inner.limits.max_recursion_depth as usize;
        let mut walk = walk::walk(
            &self.inner.root,
            dir,
            WalkOptions {
                recursive: true,
                max_depth,
                respect_ignore: false,
            },
        )?;
        let mut out = Vec::new();
        for entry in walk.by_ref() {
            let entry = entry?;
            match entry.kind {
                EntryKind::Directory => {
                    let mode = entry.stat()?.mode;
                    out.push((entry.rel, None, Some(mode)));
                }
                EntryKind::File => {
                    let resolved = self.inner.root.resolve(
                        &entry.rel,
                        Intent::Write {
                            allow_sensitive: true,
                        },
                    )?;
                    out.push((entry.rel.clone(), Some(self.see(&resolved)?), None));
                }
                EntryKind::Symlink | EntryKind::Special => {
                    let (code, what) = if entry.kind == EntryKind::Symlink {
                        (Code::SymlinkWriteRefused, "a symbolic link")
                    } else {
                        (Code::SpecialFileRefused, "a device, socket or FIFO")
                    };
                    return Err(Error::new(
                        code,
                        format!(
                            "{} is {what}; a tree holding one cannot be recorded for undo, so it is not changed",
                            entry.rel
                        ),
                    )
                    .path(&dir.given)
                    .with("entry", entry.rel.clone()));
                }
            }
        }
        if walk.depth_limited {
            // The walk stops at the limit, so how deep the tree goes is unknown: at least one
            // level more than allowed.
            return Err(Error::new(
                Code::LimitExceeded,
                format!("the tree is deeper than max_recursion_depth {max_depth}"),
            )
            .path(&dir.given)
            .with("limit", max_depth)
            .with("requested", max_depth + 1));
        }
        if !walk.unreadable.is_empty() {
            return Err(Error::new(
                Code::StorageError,
                format!(
                    "{} entries of the tree cannot be read, so it cannot be recorded for undo",
                    walk.unreadable.len()
                ),
            )
            .path(&dir.given)
            .with(
                "unreadable",
                walk.unreadable.iter().take(20).cloned().collect::<Vec<_>>(),
            ));
        }
        Ok(out)
    }
}

impl Workspace {
    /// The permission bits of the directory at the workspace-relative `rel`; `None` when it
    /// is not a directory.
    pub(crate) fn dir_mode(&self, rel: &str) -> Result<Option<u32>> {
        Ok(match observe(&self.inner, rel)? {
            Observed::Directory { mode } => Some(mode),
            _ => None,
        })
    }

    /// The item of an existing directory an operation removes, with its mode.
    pub(crate) fn removed_dir_item(&self, rel: &str) -> Result<Item> {
        Ok(removed_item(rel, None, self.dir_mode(rel)?))
    }
}

/// An entry below a directory: its path, a file's state (`None` for a directory), and a
/// directory's mode (`None` for a file, whose mode is in its state).
type Below = (String, Option<Seen>, Option<u32>);

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

fn not_a_file(path: &str) -> Error {
    Error::new(Code::NotAFile, "the path is a directory, not a file").path(path)
}

fn not_a_directory(path: &str, kind: Option<Kind>) -> Error {
    match kind {
        None => Error::new(Code::PathNotFound, "no such directory in the workspace").path(path),
        _ => Error::new(Code::NotADirectory, "the path is a file, not a directory").path(path),
    }
}

pub(crate) fn deleted_file(rel: &str, before: &Seen) -> Item {
    Item {
        path: rel.to_owned(),
        change: "deleted".into(),
        kind: Kind::File,
        before_exists: true,
        after_exists: false,
        before_hash: Some(before.hash),
        after_hash: None,
        before_mode: Some(before.mode),
        after_mode: None,
        history_skipped: before.bytes.is_none(),
    }
}

/// A path removed: a file with its state, or a directory with its mode (`dir_mode`).
fn removed_item(rel: &str, seen: Option<&Seen>, dir_mode: Option<u32>) -> Item {
    match seen {
        Some(seen) => deleted_file(rel, seen),
        None => Item {
            before_mode: dir_mode,
            ..dir_item(rel, "deleted", true, false)
        },
    }
}

pub(crate) fn dir_item(rel: &str, change: &str, before: bool, after: bool) -> Item {
    Item {
        path: rel.to_owned(),
        change: change.to_owned(),
        kind: Kind::Directory,
        before_exists: before,
        after_exists: after,
        before_hash: None,
        after_hash: None,
        before_mode: None,
        after_mode: None,
        history_skipped: false,
    }
}

/// A unified diff of a content change, or a note when the content is not text or too large.
/// The diff gives up after two seconds (showing what it has), so a huge rewrite cannot stall
/// a dry run.
pub(crate) fn diff_preview(
    rel: &str,
    before: Option<&[u8]>,
    existed: bool,
    after: Option<&[u8]>,
) -> String {
    let (old, new) = match (
        before.map(std::str::from_utf8),
        after.map(std::str::from_utf8),
    ) {
        (Some(Err(_)), _) | (_, Some(Err(_))) => {
            return format!("binary content of {rel} changes\n");
        }
        (None, _) if existed => return format!("{rel} is above the history cap; no preview\n"),
        (old, new) => (
            old.and_then(Result::ok).unwrap_or(""),
            new.and_then(Result::ok).unwrap_or(""),
        ),
    };
    let from = if existed {
        format!("a/{rel}")
    } else {
        "/dev/null".to_owned()
    };
    let to = if after.is_some() {
        format!("b/{rel}")
    } else {
        "/dev/null".to_owned()
    };
    crate::diff::unified(
        &from,
        &to,
        old,
        new,
        3,
        Some(std::time::Duration::from_secs(2)),
        MAX_PREVIEW_BYTES,
    )
}
