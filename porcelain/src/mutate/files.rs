//! The file commands, each a plan: create, write, copy, delete and move one file.

use super::items::{Change, deleted_file};
use super::target::{Seen, no_such_file, not_a_file, parse_expected_hash};
use super::{MutationOptions, MutationResult, Plan, Planned, Preview, PreviewPart, Sides, Step};
use crate::{Code, Error, ObjectId, Result, Workspace};
use filekeeper_plumbing::journal::Item;
use filekeeper_plumbing::publish::Expect;
use filekeeper_plumbing::resolve::{Intent, Kind, Resolved};
use filekeeper_plumbing::{Argument, Operation, words};
use std::collections::HashMap;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many UTF-8 byte-order marks the file at `target`, as `seen`, starts with: 0, 1, or 2
/// for two or more. Its bytes when `see` kept them, else its head read again (a file above
/// the history cap; the step checks the file still holds what was seen).
fn leading_boms(target: &Resolved, seen: &Seen) -> Result<usize> {
    let mut read = Vec::new();
    let head = match &seen.bytes {
        Some(bytes) => bytes.as_slice(),
        None => {
            target
                .open_file()?
                .take(2 * BOM.len() as u64)
                .read_to_end(&mut read)
                .map_err(|e| Error::storage("reading file", &e))?;
            &read
        }
    };
    Ok(head
        .chunks(BOM.len())
        .take(2)
        .take_while(|c| *c == BOM)
        .count())
}

/// Content starting with a BOM, for a file that starts with two: a read shows the file's text
/// after its first mark, so that text starts with a mark too, and the content could be either
/// that text (the file's mark belongs in front) or the whole file (it does not). Guessing
/// would write one mark too many or too few with `ok: true`, so the write is refused.
fn ambiguous_bom(path: &str) -> Error {
    Error::new(
        Code::InvalidArgument,
        "the file starts with two byte-order marks, so content that starts with one is \
         ambiguous: it could be the text a read shows (after the file's first mark, which would \
         be kept in front) or the file's whole bytes",
    )
    .path(path)
    .with("reason", "bom_ambiguous")
    .hint(words![
        "to write bytes exactly as given, use ",
        Operation::CreateFile,
        " with ",
        Argument::AllowExisting,
        " (put a byte-order mark in front of text a read showed)"
    ])
}

/// Whether `content` is text (no NUL in its first 8 KiB, valid UTF-8) without a BOM of its own.
fn is_text_without_bom(content: &[u8]) -> bool {
    let sniff = &content[..content.len().min(crate::text::BINARY_SNIFF_BYTES)];
    !content.starts_with(BOM) && !sniff.contains(&0) && std::str::from_utf8(content).is_ok()
}

impl Workspace {
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
        let expected = parse_expected_hash(expected_hash, path)?;
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
                ws.guard_version(path, &target.rel, expected, before.as_ref())?;
            }
            let boms = match &before {
                Some(seen) if !remove_bom => leading_boms(&target, seen)?,
                _ => 0,
            };
            if boms > 1 && content.starts_with(BOM) {
                return Err(ambiguous_bom(path));
            }
            let keep_bom = boms > 0 && is_text_without_bom(content);
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
        let expected = parse_expected_hash(expected_destination_hash, destination)?;
        self.mutate(options, |ws| {
            let from = ws.inner.root.resolve(source, Intent::Read)?;
            let file = from.open_file()?;
            let meta = file
                .metadata()
                .map_err(|e| Error::storage("inspecting file", &e))?;
            ws.check_size(source, meta.len() as usize)?;
            // A source another program writes meanwhile would be copied as a mix of two
            // versions, recorded as if it had existed.
            let bytes = crate::read::read_steadily(&file, source, |mut f| {
                let mut bytes = Vec::with_capacity(meta.len() as usize);
                f.read_to_end(&mut bytes)
                    .map_err(|e| Error::storage("reading file", &e))?;
                Ok(bytes)
            })?;
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
                    ws.guard_version(destination, &target.rel, expected, before.as_ref())?
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
            if plan.changes_anything() {
                plan.summary = summary;
            }
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
        let asked_mode = new_mode;
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
            None => Change::Created,
            Some(b) if b.hash == after_hash => Change::Unchanged,
            Some(_) => Change::Modified,
        };
        // A file left as it is keeps its mode; a new one gets what the kernel will let it
        // have (a copy's setgid mode in a setgid directory of a group the writer is not in
        // loses the bit, as a replacement's does: `Seen::kept_mode`).
        let kept_new_mode =
            new_mode.map(|mode| filekeeper_plumbing::publish::keepable_mode(target, mode));
        let after_mode = match (&before, change) {
            (Some(b), Change::Unchanged) => Some(b.mode),
            (Some(b), _) => Some(b.kept_mode()),
            (None, _) => kept_new_mode,
        };
        let new_mode = match before {
            Some(_) => new_mode,
            None => kept_new_mode,
        };
        let item = Item {
            path: target.rel.clone(),
            change: change.into(),
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
        let sides = Sides::bytes(
            before.as_ref().and_then(|b| b.bytes.clone()),
            Some(Arc::clone(&content)),
        );
        Ok(Plan {
            summary: if change == Change::Unchanged {
                format!(
                    "{} already holds this content; nothing to write.",
                    target.rel
                )
            } else {
                format!("{verb} {}.", target.rel)
            },
            items: vec![Planned {
                item,
                after_size: Some(content.len() as u64),
            }],
            // A file that already holds the content is left as it is: rewriting it would
            // change its inode and mtime (and split its hard links) for no change.
            steps: (change != Change::Unchanged)
                .then(|| Step::Publish {
                    path: target.rel.clone(),
                    expect,
                    // Asked for as recorded: a setgid bit the file cannot keep is not asked
                    // for (`Seen::kept_mode`).
                    mode: match &before {
                        Some(b) if b.kept_mode() != b.mode => Some(b.kept_mode()),
                        _ => new_mode,
                    },
                    content,
                })
                .into_iter()
                .collect(),
            blobs,
            after_blobs,
            warnings: {
                let mut warnings = self.ignored_warning(&target.rel);
                if let (Some(before), Change::Modified) = (&before, change) {
                    warnings.extend(before.replacement_warnings(&target.rel));
                }
                if let (None, Some(asked), Some(kept)) = (&before, asked_mode, new_mode)
                    && asked != kept
                {
                    warnings.push(format!(
                        "{} would be setgid, but belongs to its directory's group, which the writer is not in, so the bit cannot be given (mode {asked:o} becomes {kept:o})",
                        target.rel
                    ));
                }
                warnings
            },
            preview,
            sides: HashMap::from([(target.rel.clone(), sides)]),
            ..Plan::new(kind, given, &target.rel)
        })
    }

    /// Deletes a file; with `expected_hash`, only while it holds exactly that content.
    pub fn delete_file(
        &self,
        path: &str,
        expected_hash: Option<&str>,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        let expected = parse_expected_hash(expected_hash, path)?;
        self.mutate(options, |ws| {
            let target = ws.resolve_target(path, options)?;
            let before = match target.kind {
                Some(Kind::Directory) => {
                    return Err(not_a_file(path)
                        .hint(words!["delete directories with ", Operation::DeleteDir]));
                }
                Some(Kind::File) => ws.see(&target)?,
                None => return Err(no_such_file(path)),
            };
            if let Some(expected) = expected {
                ws.guard_version(path, &target.rel, expected, Some(&before))?;
            }
            let item = deleted_file(&target.rel, &before);
            let sides = Sides::bytes(before.bytes.clone(), None);
            Ok(Plan {
                summary: format!("Deleted {}.", target.rel),
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
                    hash: before.hash,
                }],
                blobs: before.bytes.into_iter().collect(),
                warnings: ws.ignored_warning(&target.rel),
                sides: HashMap::from([(target.rel.clone(), sides)]),
                ..Plan::new("delete", path, &target.rel)
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
                None => return Err(no_such_file(source)),
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
            // A rename onto another name of the same file does nothing and succeeds (POSIX):
            // the source would stay, and the move would be found undone after its step.
            if before.is_some() && same_file(&from, &to)? {
                return Err(Error::invalid(
                    "the source and the destination are hard links to one file, and renaming one onto the other changes nothing, so the source would stay; delete the source to keep the file under the destination's name alone",
                )
                .path(source));
            }
            let before_hash = before.as_ref().map(|b| b.hash);
            let skipped =
                moved.bytes.is_none() || before.as_ref().is_some_and(|b| b.bytes.is_none());
            let mut removed = deleted_file(&from.rel, &moved);
            removed.history_skipped = skipped;
            let placed = Item {
                path: to.rel.clone(),
                change: if before.is_some() {
                    Change::Modified
                } else {
                    Change::Created
                }
                .into(),
                kind: Kind::File,
                before_exists: before.is_some(),
                after_exists: true,
                before_hash: before.as_ref().map(|b| b.hash),
                after_hash: Some(moved.hash),
                before_mode: before.as_ref().map(|b| b.mode),
                after_mode: Some(moved.mode),
                history_skipped: skipped,
            };
            // A replaced destination's old content is diffed against what moved over it; the
            // source, whose content moved, is named only.
            let sides = before.as_ref().map(|b| {
                let sides = Sides::bytes(b.bytes.clone(), moved.bytes.clone());
                (to.rel.clone(), sides)
            });
            let mut warnings = ws.ignored_warning(&to.rel);
            warnings.extend(ws.ignored_warning(&from.rel));
            warnings.extend(
                before
                    .as_ref()
                    .and_then(|b| b.other_names_warning(&to.rel, "the moved file")),
            );
            let blobs = moved
                .bytes
                .clone()
                .into_iter()
                .chain(before.and_then(|b| b.bytes))
                .collect();
            Ok(Plan {
                summary: format!("Moved {} to {}.", from.rel, to.rel),
                source: Some(from.rel.clone()),
                preview: format!(
                    "rename {} -> {}\n",
                    crate::quote::path(&from.rel),
                    crate::quote::path(&to.rel)
                )
                .into(),
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
                    from_hash: Some(moved.hash),
                    replaces: before_hash,
                }],
                blobs,
                warnings,
                sides: sides.into_iter().collect(),
                ..Plan::new("move", destination, &to.rel)
            })
        })
    }
}

/// Whether two resolved files are one file under two names (hard links): the same device and
/// inode.
fn same_file(a: &Resolved, b: &Resolved) -> Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let identity = |r: &Resolved| -> Result<(u64, u64)> {
        let meta = r
            .open_file()?
            .metadata()
            .map_err(|e| Error::storage("inspecting file", &e))?;
        Ok((meta.dev(), meta.ino()))
    };
    Ok(identity(a)? == identity(b)?)
}
