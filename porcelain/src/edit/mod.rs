//! Editing: literal text replacement, line ranges and unified diffs. Every edit is a journaled
//! mutation like a write (blobs, pending record, atomic replacement, commit), so it returns a
//! real operation id and can be undone; it keeps the file's newline convention, BOM,
//! final-newline state and mode, and refuses binary files.

mod doc;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod lines;
mod patch;
mod replace;
#[cfg(test)]
mod replace_generated;

pub use lines::Position;
pub use patch::{FileReport, HunkReport};
pub use replace::Policy;

use crate::mutate::{MutationExtra, MutationOptions, MutationResult, Plan, Planned, Step};
use crate::{Code, Error, ObjectId, Result, Workspace};
use doc::{Doc, Editable};
use filekeeper_plumbing::journal::Item;
use filekeeper_plumbing::publish::Expect;
use filekeeper_plumbing::resolve::Kind;
use std::sync::Arc;

/// Guards every edit takes.
#[derive(Clone, Debug, Default)]
pub struct EditGuards {
    /// The whole file must hold exactly this content (`sha256:...`).
    pub expected_hash: Option<String>,
    /// The targeted region (the replaced text, or the line range) must hold exactly this text.
    pub expected_content: Option<String>,
}

impl Workspace {
    /// Reads a text file for editing, applies `edit` to it, and plans the write.
    fn edit_plan(
        &self,
        kind: &'static str,
        path: &str,
        guards: &EditGuards,
        options: &MutationOptions,
        edit: impl FnOnce(&mut Editable) -> Result<(MutationExtra, Vec<String>)>,
    ) -> Result<Plan> {
        let expected = guards
            .expected_hash
            .as_deref()
            .map(ObjectId::parse)
            .transpose()?;
        let target = self.resolve_target(path, options)?;
        match target.kind {
            Some(Kind::File) => {}
            Some(Kind::Directory) => {
                return Err(
                    Error::new(Code::NotAFile, "the path is a directory, not a file").path(path),
                );
            }
            None => {
                return Err(
                    Error::new(Code::PathNotFound, "no such file in the workspace").path(path),
                );
            }
        }
        let (bytes, seen) = self.see_for_edit(&target)?;
        if let Some(expected) = expected {
            crate::mutate::guard(path, expected, Some(seen.hash))?;
        }
        let mut editable = Editable::new(path, &bytes)?;
        let (extra, warnings) = edit(&mut editable)?;
        let new = editable.into_bytes();
        drop(bytes); // `seen` keeps the old bytes when they go to history; nothing else needs them
        self.check_size(path, new.len())?;
        let verb = format!("Edited ({kind})");
        let mut plan =
            self.content_plan(kind, &verb, path, &target, Some(seen), Arc::new(new), None)?;
        plan.summary = format!("Edited {} ({}).", target.rel, kind.replace('_', " "));
        plan.warnings.extend(warnings);
        plan.extra = extra;
        Ok(plan)
    }

    /// Replaces literal text: exact first, then with indentation and trailing whitespace
    /// normalised (with a warning), else NO_MATCH with the nearest lines. The policy is
    /// explicit; an old text found more than once is never applied to just the first
    /// occurrence unless `expected_match_count` confirms the count.
    #[allow(clippy::too_many_arguments)]
    pub fn replace_text(
        &self,
        path: &str,
        old: &str,
        new: &str,
        policy: Policy,
        expected_match_count: Option<u64>,
        guards: &EditGuards,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            ws.edit_plan("replace_text", path, guards, options, |ed| {
                let r = replace::replace(
                    ed,
                    path,
                    old,
                    new,
                    policy,
                    expected_match_count,
                    guards.expected_content.as_deref(),
                )?;
                let extra = MutationExtra {
                    match_stage: Some(r.stage),
                    match_count: Some(r.count),
                    patch_files: None,
                };
                Ok((extra, r.warnings))
            })
        })
    }

    /// Replaces lines `start..=end` (1-based) with `replacement`.
    pub fn replace_lines(
        &self,
        path: &str,
        start: u64,
        end: u64,
        replacement: &str,
        guards: &EditGuards,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            ws.edit_plan("replace_lines", path, guards, options, |ed| {
                lines::replace_lines(
                    ed.doc(),
                    path,
                    start,
                    end,
                    replacement,
                    guards.expected_content.as_deref(),
                )?;
                Ok(Default::default())
            })
        })
    }

    /// Inserts lines before or after line `line`, or at the end (`Position::End`, no line).
    pub fn insert_lines(
        &self,
        path: &str,
        position: Position,
        line: Option<u64>,
        content: &str,
        guards: &EditGuards,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            ws.edit_plan("insert_lines", path, guards, options, |ed| {
                lines::insert_lines(
                    ed.doc(),
                    path,
                    position,
                    line,
                    content,
                    guards.expected_content.as_deref(),
                )?;
                Ok(Default::default())
            })
        })
    }

    /// Deletes lines `start..=end` (1-based).
    pub fn delete_lines(
        &self,
        path: &str,
        start: u64,
        end: u64,
        guards: &EditGuards,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        self.mutate(options, |ws| {
            ws.edit_plan("delete_lines", path, guards, options, |ed| {
                lines::delete_lines(
                    ed.doc(),
                    path,
                    start,
                    end,
                    guards.expected_content.as_deref(),
                )?;
                Ok(Default::default())
            })
        })
    }

    /// Applies a unified diff: every hunk of every file is checked before anything is written,
    /// and the whole patch is one operation (undone as a whole).
    pub fn apply_patch(
        &self,
        patch_text: &str,
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
        let files = patch::parse(patch_text)?;
        self.mutate(options, |ws| ws.patch_plan(&files, options))
    }

    /// Which file a patch section edits, as GNU patch chooses: a creation names the new path;
    /// otherwise the named path that exists (the fewer components, then the shorter, when
    /// both do, as with `diff -u file.orig file`), else the old name.
    fn patch_target(&self, file: &patch::FilePatch) -> String {
        let (Some(old), Some(new)) = (&file.old_path, &file.new_path) else {
            return file.path().to_owned();
        };
        if old == new {
            return old.clone();
        }
        let exists = |p: &str| {
            self.inner
                .root
                .resolve(p, filekeeper_plumbing::resolve::Intent::Read)
                .is_ok_and(|r| r.kind == Some(Kind::File))
        };
        let mut found: Vec<&String> = [old, new].into_iter().filter(|p| exists(p)).collect();
        found.sort_by_key(|p| (p.matches('/').count(), p.len()));
        found.first().map_or_else(|| old.clone(), |p| (*p).clone())
    }

    fn patch_plan(&self, files: &[patch::FilePatch], options: &MutationOptions) -> Result<Plan> {
        let cap = self.inner.limits.max_history_blob_bytes;
        let mut items = Vec::new();
        let mut steps = Vec::new();
        let mut blobs = Vec::new();
        let mut after_blobs = Vec::new();
        let mut reports = Vec::new();
        let mut failed = false;
        let mut preview = crate::mutate::Preview::default();
        for file in files {
            let path = self.patch_target(file);
            let path = path.as_str();
            let target = self.resolve_target(path, options)?;
            if items.iter().any(|p: &Planned| p.item.path == target.rel) {
                return Err(Error::new(
                    Code::PatchFailed,
                    format!("the patch changes {} twice", target.rel),
                )
                .path(path)
                .with("reason", "duplicate_file"));
            }
            let (old_bytes, before) = match (file.old_path.is_some(), target.kind) {
                (true, Some(Kind::File)) => {
                    let (bytes, seen) = self.see_for_edit(&target)?;
                    (bytes, Some(seen))
                }
                (false, None) => (Arc::default(), None),
                (false, Some(_)) => {
                    return Err(Error::new(
                        Code::AlreadyExists,
                        "the patch creates a file that already exists",
                    )
                    .path(path));
                }
                (true, Some(Kind::Directory)) => {
                    return Err(Error::new(Code::NotAFile, "the path is a directory").path(path));
                }
                (true, None) => {
                    return Err(Error::new(
                        Code::PathNotFound,
                        "the patch changes a file that does not exist",
                    )
                    .path(path));
                }
            };
            let mut doc = Doc::parse_for_patch(path, &old_bytes)?;
            let (ok, hunks) = patch::apply(file, &mut doc);
            let change = match (file.old_path.is_some(), file.new_path.is_some()) {
                (false, _) => "created",
                (_, false) => "deleted",
                _ => "modified",
            };
            if ok && change == "deleted" && !doc.lines.is_empty() {
                failed = true;
                reports.push(patch::FileReport {
                    path: target.rel.clone(),
                    change,
                    status: "failed",
                    hunks,
                });
                continue;
            }
            failed |= !ok;
            reports.push(patch::FileReport {
                path: target.rel.clone(),
                change,
                status: if ok { "applies" } else { "failed" },
                hunks,
            });
            if !ok {
                continue;
            }
            let new = doc.to_bytes();
            let new = Arc::new(new);
            preview.0.push(crate::mutate::PreviewPart::Diff {
                rel: target.rel.clone(),
                existed: before.is_some(),
                before: before.is_some().then(|| Arc::clone(&old_bytes)),
                after: (change != "deleted").then(|| Arc::clone(&new)),
            });
            if let Some(bytes) = before.as_ref().and_then(|b| b.bytes.clone()) {
                blobs.push(bytes);
            }
            if change != "deleted" && new.len() as u64 <= cap {
                after_blobs.push(Arc::clone(&new));
            }
            let skipped =
                before.as_ref().is_some_and(|b| b.bytes.is_none()) || new.len() as u64 > cap;
            let item = Item {
                path: target.rel.clone(),
                change: change.to_owned(),
                kind: Kind::File,
                before_exists: before.is_some(),
                after_exists: change != "deleted",
                before_hash: before.as_ref().map(|b| b.hash),
                after_hash: (change != "deleted").then(|| ObjectId::of(&new)),
                before_mode: before.as_ref().map(|b| b.mode),
                after_mode: if change == "deleted" {
                    None
                } else {
                    before.as_ref().map(|b| b.mode)
                },
                history_skipped: skipped,
            };
            steps.push(match change {
                "deleted" => Step::Remove {
                    path: target.rel.clone(),
                },
                _ => Step::Publish {
                    path: target.rel.clone(),
                    expect: before
                        .as_ref()
                        .map_or(Expect::Absent, |b| Expect::Hash(b.hash)),
                    mode: None,
                    content: Arc::clone(&new),
                },
            });
            items.push(Planned {
                item,
                after_size: (change != "deleted").then_some(new.len() as u64),
            });
        }
        if failed {
            let first = reports.iter().find(|r| r.status == "failed");
            let bad_hunk = first.and_then(|r| {
                r.hunks
                    .iter()
                    .find(|h| h.status != "applies" && h.status != "applies_at_offset")
            });
            let message = match (first, bad_hunk) {
                (Some(f), Some(h)) => format!(
                    "hunk {} of {} does not apply ({}); nothing was written",
                    h.hunk, f.path, h.status
                ),
                (Some(f), None) => format!(
                    "{} does not end empty after its deletion hunks; nothing was written",
                    f.path
                ),
                _ => "the patch does not apply; nothing was written".to_owned(),
            };
            return Err(Error::new(Code::PatchFailed, message)
                .with("path", first.map(|f| f.path.clone()))
                .with(
                    "reason",
                    bad_hunk.map_or("not_empty_after_delete", |h| h.status),
                )
                .with(
                    "patch_files",
                    serde_json::to_value(&reports).unwrap_or_default(),
                )
                .recovery("regenerate the patch against the files' current content"));
        }
        let target = items
            .first()
            .map(|p| p.item.path.clone())
            .unwrap_or_default();
        let extra = MutationExtra {
            patch_files: Some(reports),
            ..MutationExtra::default()
        };
        Ok(Plan {
            kind: "apply_patch",
            summary: format!("Applied a patch to {} file(s).", items.len()),
            given: target.clone(),
            target,
            source: None,
            undoes: None,
            items,
            steps,
            blobs,
            after_blobs,
            warnings: Vec::new(),
            preview,
            extra,
        })
    }
}
