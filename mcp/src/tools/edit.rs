//! Edits inside files: text, line ranges and patches.

use super::{Context, Effect, Guards, Mutation, PATH, Tool};
use filekeeper::envelope::Success;
use filekeeper::{MutationResult, Policy, Position, Result, schemas};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// `policy` of `file_replace_text`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
enum PolicyWord {
    First,
    All,
}

impl From<PolicyWord> for Policy {
    fn from(word: PolicyWord) -> Policy {
        match word {
            PolicyWord::First => Policy::First,
            PolicyWord::All => Policy::All,
        }
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileReplaceText {
    #[schemars(description = PATH)]
    path: String,
    /// The exact text to find (literal, never a regex).
    old: String,
    /// The replacement (literal, no templates).
    new: String,
    /// "first" (the one occurrence; refused when there are several unless occurrence names one or expected_match_count confirms the count) or "all".
    policy: PolicyWord,
    /// Refuse with MATCH_COUNT_MISMATCH unless the old text occurs exactly this many times.
    expected_match_count: Option<u64>,
    /// With policy "first": replace exactly the Nth match (1-based, in file order), as MATCH_COUNT_MISMATCH lists them in details.matches. Refused with policy "all".
    occurrence: Option<u64>,
    #[serde(flatten)]
    guards: Guards,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileReplaceText {
    const NAME: &str = "file_replace_text";
    const DESCRIPTION: &str = "Replace literal text. Matching is staged and reported in match_stage: exact; then normalised (indentation and trailing whitespace ignored, with a warning: lines the new text leaves unchanged stay as the file has them, changed lines take the file's indentation, and NO_MATCH with details.reason when a line's indentation cannot be inferred); else NO_MATCH with the nearest candidate lines, for each line of the old text too. match_count says how many occurrences were found; when there are several, MATCH_COUNT_MISMATCH lists them in details.matches and occurrence chooses one. Keeps newline convention, BOM and mode. Undoable.";
    const EFFECT: Effect = Effect::Change;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&["match_stage", "match_count"], &["merged"])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let replaced = cx.workspace.replace_text(
            &self.path,
            &self.old,
            &self.new,
            Policy::from(self.policy).with_occurrence(self.occurrence, &self.path)?,
            self.expected_match_count,
            &self.guards.into(),
            &options,
        )?;
        Ok(cx.success(replaced))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileReplaceLines {
    #[schemars(description = PATH)]
    path: String,
    /// First line to replace, 1-based.
    start: u64,
    /// Last line to replace, inclusive.
    end: u64,
    /// The new lines (empty deletes the range).
    replacement: String,
    #[serde(flatten)]
    guards: Guards,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileReplaceLines {
    const NAME: &str = "file_replace_lines";
    const DESCRIPTION: &str = "Replace a 1-based inclusive line range. Out-of-range is INVALID_ARGUMENT with line_count, never clamped. New lines take the file's newline convention. Undoable.";
    const EFFECT: Effect = Effect::Change;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &["merged"])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let replaced = cx.workspace.replace_lines(
            &self.path,
            self.start,
            self.end,
            &self.replacement,
            &self.guards.into(),
            &options,
        )?;
        Ok(cx.success(replaced))
    }
}

/// `position` of `file_insert_lines`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
enum PositionWord {
    Before,
    After,
    End,
}

impl From<PositionWord> for Position {
    fn from(word: PositionWord) -> Position {
        match word {
            PositionWord::Before => Position::Before,
            PositionWord::After => Position::After,
            PositionWord::End => Position::End,
        }
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileInsertLines {
    #[schemars(description = PATH)]
    path: String,
    /// "before" or "after" a line, or "end" (append; takes no line).
    position: PositionWord,
    /// The line to insert before or after, 1-based.
    line: Option<u64>,
    /// The lines to insert.
    content: String,
    #[serde(flatten)]
    guards: Guards,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileInsertLines {
    const NAME: &str = "file_insert_lines";
    const DESCRIPTION: &str = "Insert lines before or after a line, or at the end of the file (position end, the only way to append). Keeps the newline convention and final-newline state. Undoable.";
    const EFFECT: Effect = Effect::Change;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &["merged"])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let inserted = cx.workspace.insert_lines(
            &self.path,
            self.position.into(),
            self.line,
            &self.content,
            &self.guards.into(),
            &options,
        )?;
        Ok(cx.success(inserted))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileDeleteLines {
    #[schemars(description = PATH)]
    path: String,
    /// First line to delete, 1-based.
    start: u64,
    /// Last line to delete, inclusive.
    end: u64,
    #[serde(flatten)]
    guards: Guards,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileDeleteLines {
    const NAME: &str = "file_delete_lines";
    const DESCRIPTION: &str =
        "Delete a 1-based inclusive line range; out-of-range is refused, never clamped. Undoable.";
    const EFFECT: Effect = Effect::Change;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &["merged"])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let deleted = cx.workspace.delete_lines(
            &self.path,
            self.start,
            self.end,
            &self.guards.into(),
            &options,
        )?;
        Ok(cx.success(deleted))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileApplyPatch {
    /// A unified diff (diff -u or git diff), or a Codex patch (first non-empty line
    /// `*** Begin Patch`), at most 1 MiB.
    patch: String,
    /// For a patch of one existing file: the content_hash of the read its hunks come from. If the file changed since, the patch is applied to that version and merged (merged.landed says where), or refused with CONTENT_CONFLICT where both changed the same lines.
    base_hash: Option<String>,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileApplyPatch {
    const NAME: &str = "file_apply_patch";
    const DESCRIPTION: &str = "Apply a unified diff (diff -u or git diff) or a Codex patch (*** Begin Patch / *** Add File / *** Delete File / *** Update File with optional *** Move to / @@ hunks / *** End Patch) to one or more files. git's new, deleted, renamed and copied files and mode changes apply too, creating missing directories and removing emptied ones. Every hunk is checked before anything is written; a failed or ambiguous hunk, a binary, symlink or submodule section, or a line that belongs to no section rejects the whole patch and nothing changes. Unified hunks may apply at a unique offset (reported), never with fuzz; a Codex hunk applies only where its lines (after its @@ anchor line, if any) occur exactly once. patch_files reports every file and hunk. One operation; undo restores every file.";
    const EFFECT: Effect = Effect::Change;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&["patch_files"], &["merged"])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let base = self.base_hash.as_deref();
        Ok(cx.success(cx.workspace.apply_patch_on(&self.patch, base, &options)?))
    }
}
