//! Editing: literal text replacement, line ranges and unified diffs. Every edit is a journaled
//! mutation like a write (blobs, pending record, atomic replacement, commit), so it returns a
//! real operation id and can be undone; it keeps the file's newline convention, BOM,
//! final-newline state and mode, and refuses binary files.

mod apply;
mod codex;
mod doc;
mod exact;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod lines;
mod locate;
mod merge;
#[cfg(test)]
mod merge_generated;
mod patch;
mod replace;
#[cfg(test)]
mod replace_generated;

pub use lines::Position;
pub use merge::{Landed, MergeReport};
pub use patch::{FileReport, HunkReport};
pub use replace::Policy;

use crate::mutate::{
    MutationExtra, MutationOptions, MutationResult, Plan, no_such_file, not_a_file,
};
use crate::{Code, Error, ObjectId, Result, Workspace};
use doc::Editable;
use filekeeper_plumbing::resolve::Kind;
use filekeeper_plumbing::{Argument, words};
use std::sync::Arc;

/// Guards every edit takes.
#[derive(Clone, Debug, Default)]
pub struct EditGuards {
    /// The whole file must hold exactly this content (`sha256:...`).
    pub expected_hash: Option<String>,
    /// The targeted region (the replaced text, or the line range) must hold exactly this text.
    pub expected_content: Option<String>,
    /// The version (`sha256:...`, a read's `content_hash`) the edit's line numbers and text
    /// refer to. If the file holds another version now, the edit is made on this one and
    /// merged into the file as it is, or refused as a conflict.
    pub base_hash: Option<String>,
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
        let expected = crate::mutate::parse_expected_hash(guards.expected_hash.as_deref(), path)?;
        let base = crate::mutate::parse_expected_hash(guards.base_hash.as_deref(), path)?;
        let target = self.resolve_target(path, options)?;
        match target.kind {
            Some(Kind::File) => {}
            Some(Kind::Directory) => return Err(not_a_file(path)),
            None => return Err(no_such_file(path)),
        }
        let (bytes, seen) = self.see_for_edit(&target)?;
        if let Some(expected) = expected {
            self.guard_version(path, &target.rel, expected, Some(&seen))?;
        }
        let (new, extra, warnings) = match base {
            Some(base) if base != seen.hash => {
                self.edit_snapshot(path, &target.rel, base, seen.hash, &bytes, edit)?
            }
            _ => {
                let mut editable = Editable::new(path, &bytes)?;
                let (extra, warnings) = edit(&mut editable)?;
                (editable.into_bytes(), extra, warnings)
            }
        };
        doc::no_new_bom(path, &bytes, &new)?;
        doc::stays_text(path, &bytes, &new)?;
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

    /// Makes `edit` on the version `base` (from the store) and merges the result into `live`,
    /// the bytes the file holds now (`live_hash`): the new bytes, or CONTENT_CONFLICT with
    /// the regions both changed.
    fn edit_snapshot(
        &self,
        path: &str,
        rel: &str,
        base: ObjectId,
        live_hash: ObjectId,
        live: &[u8],
        edit: impl FnOnce(&mut Editable) -> Result<(MutationExtra, Vec<String>)>,
    ) -> Result<(Vec<u8>, MutationExtra, Vec<String>)> {
        let snapshot = self.snapshot(path, base)?;
        let on_snapshot = |err: Error| err.with("base_hash", base.to_string());
        // Said of the version, not of the file as it is now, which may well be text.
        let mut editable = Editable::new(path, &snapshot).map_err(|mut err| {
            err.message = format!("in the version the edit is based on: {}", err.message);
            on_snapshot(err)
        })?;
        let (mut extra, mut warnings) = edit(&mut editable).map_err(on_snapshot)?;
        let changed = editable.changed();
        let edited = editable.into_bytes();
        let merged = merged_into_live(path, base, &snapshot, &edited, &changed, live_hash, live)?;
        warnings.push(format!(
            "{rel} changed since the version this edit was made on; the edit was merged into \
             the file as it is now (see merged.landed for where each change went)"
        ));
        extra.merged = Some(MergeReport {
            base_hash: base.to_string(),
            landed: merged.landed,
        });
        Ok((merged.bytes, extra, warnings))
    }

    /// The bytes of version `id` of `path`, from this workspace's store.
    pub(crate) fn snapshot(&self, path: &str, id: ObjectId) -> Result<Vec<u8>> {
        let store = self.inner.state(false)?.map(|state| state.store());
        match store {
            Some(store) if store.contains(&id) => store.read(&id),
            _ => Err(Error::worded(
                Code::HistoryUnavailable,
                words![
                    "the version named by ",
                    Argument::BaseHash,
                    " is not in this workspace's store, so the edit cannot be merged into the changed file"
                ],
            )
            .path(path)
            .with("base_hash", id.to_string())
            .hint(words![
                "read the file again (",
                Argument::Snapshot,
                " stores what a read returns) and redo the edit on what it holds now"
            ])),
        }
    }

    /// Replaces literal text: exact first, then with indentation and trailing whitespace
    /// normalised (with a warning), else NO_MATCH with the nearest lines. The policy is
    /// explicit; an old text found more than once is never applied to just one occurrence
    /// unless the caller names it (`Policy::Occurrence`) or `expected_match_count` confirms
    /// the count.
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
                    ..MutationExtra::default()
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
}

/// `edited` (version `base`, `snapshot`, with an edit that replaced its byte ranges
/// `changed`) merged into `live`, the bytes the file holds now (`live_hash`), or
/// CONTENT_CONFLICT with the regions both changed.
///
/// The file as it is now is edited too, so what refuses an edit of it refuses the merge:
/// a file that became binary or lost its UTF-8 since the version is BINARY_CONTENT_REFUSED,
/// as the same edit without a base is (the merge is of bytes, and once merged the version's
/// text would sit in a file that is not text).
pub(crate) fn merged_into_live(
    path: &str,
    base: ObjectId,
    snapshot: &[u8],
    edited: &[u8],
    changed: &[std::ops::Range<usize>],
    live_hash: ObjectId,
    live: &[u8],
) -> Result<merge::Merged> {
    doc::text_of(path, live)?;
    merge::merge(snapshot, live, edited, changed)
        .map_err(|conflicts| merge_conflict(path, base, live_hash, &conflicts))
}

/// The most conflicting regions one error shows, and the most bytes of each text in them.
const MAX_CONFLICTS: usize = 5;
const MAX_CONFLICT_TEXT: usize = 2048;

/// CONTENT_CONFLICT for an edit on version `base` that overlaps what changed since.
pub(crate) fn merge_conflict(
    path: &str,
    base: ObjectId,
    live: ObjectId,
    conflicts: &[merge::Conflict],
) -> Error {
    let text = |bytes: &[u8]| -> serde_json::Value {
        let cut = bytes.len() > MAX_CONFLICT_TEXT;
        let mut end = bytes.len().min(MAX_CONFLICT_TEXT);
        let text = String::from_utf8_lossy(&bytes[..end]);
        // A cut inside a character would end in a replacement character: cut before it.
        let mut text = text.into_owned();
        if cut {
            while text.ends_with('\u{fffd}') && end > 0 {
                end -= 1;
                text = String::from_utf8_lossy(&bytes[..end]).into_owned();
            }
        }
        serde_json::json!({ "text": text, "truncated": cut })
    };
    let regions: Vec<serde_json::Value> = conflicts
        .iter()
        .take(MAX_CONFLICTS)
        .map(|c| {
            serde_json::json!({
                "snapshot_start_line": c.snapshot_start_line,
                "snapshot": text(&c.snapshot),
                "edit": text(&c.edit),
                "live_start_line": c.live_start_line,
                "live": text(&c.live),
            })
        })
        .collect();
    let first = &conflicts[0];
    Error::new(
        Code::ContentConflict,
        format!(
            "the file changed since the version this edit was made on, in the lines the edit \
             changes (snapshot line {}, now line {}); nothing was written",
            first.snapshot_start_line, first.live_start_line
        ),
    )
    .path(path)
    .with("reason", "merge_conflict")
    .with("base_hash", base.to_string())
    .with("actual_hash", live.to_string())
    .with("conflicts", regions)
    .with("conflicts_truncated", conflicts.len() > MAX_CONFLICTS)
    .recovery("read the file again and redo the edit on what it holds now")
}
