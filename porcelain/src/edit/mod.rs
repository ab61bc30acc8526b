//! Editing: literal text replacement, line ranges and unified diffs. Every edit is a journaled
//! mutation like a write (blobs, pending record, atomic replacement, commit), so it returns a
//! real operation id and can be undone; it keeps the file's newline convention, BOM,
//! final-newline state and mode, and refuses binary files.

mod apply;
mod codex;
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

use crate::mutate::{
    MutationExtra, MutationOptions, MutationResult, Plan, no_such_file, not_a_file,
};
use crate::{Result, Workspace};
use doc::Editable;
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
        let expected = crate::mutate::parse_expected_hash(guards.expected_hash.as_deref(), path)?;
        let target = self.resolve_target(path, options)?;
        match target.kind {
            Some(Kind::File) => {}
            Some(Kind::Directory) => return Err(not_a_file(path)),
            None => return Err(no_such_file(path)),
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
