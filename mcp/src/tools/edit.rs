//! Edits inside files: text, line ranges and patches.

use super::{Context, Effect, Guards, Mutation, Tool};
use filekeeper::envelope::Success;
use filekeeper::{MutationResult, Policy, Position, Result, schemas};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

// `policy` of `file_replace_text`: its words, with no description of their own in the
// schema (a doc comment here would become the argument's description in `tools/list`).
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
    path: String,
    /// The exact text to find (never a regex).
    old: String,
    // The replacement (literal, no templates).
    new: String,
    // "first" (the one occurrence; refused when there are several unless occurrence names one or expected_match_count confirms the count) or "all".
    policy: PolicyWord,
    // Refuse with MATCH_COUNT_MISMATCH unless the old text occurs exactly this many times.
    expected_match_count: Option<u64>,
    /// Which match to replace, 1-based, as details.matches lists them.
    occurrence: Option<u64>,
    #[serde(flatten)]
    guards: Guards,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileReplaceText {
    const NAME: &str = "file_replace_text";
    const DESCRIPTION: &str = "Replace literal text: exact, else ignoring indentation (match_stage says which). Several matches: pick one with occurrence, or policy all. None: NO_MATCH with the nearest lines.";
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
    path: String,
    // First line to replace, 1-based.
    start: u64,
    // Last line to replace, inclusive.
    end: u64,
    // The new lines (empty deletes the range).
    replacement: String,
    #[serde(flatten)]
    guards: Guards,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileReplaceLines {
    const NAME: &str = "file_replace_lines";
    const DESCRIPTION: &str = "Replace lines start to end (inclusive) with replacement.";
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

// `position` of `file_insert_lines`, kept out of the schema like `PolicyWord`'s.
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
    path: String,
    // "before" or "after" a line, or "end" (append; takes no line).
    position: PositionWord,
    // The line to insert before or after, 1-based.
    line: Option<u64>,
    // The lines to insert.
    content: String,
    #[serde(flatten)]
    guards: Guards,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileInsertLines {
    const NAME: &str = "file_insert_lines";
    const DESCRIPTION: &str = "Insert content before or after line, or at the end.";
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
    path: String,
    // First line to delete, 1-based.
    start: u64,
    // Last line to delete, inclusive.
    end: u64,
    #[serde(flatten)]
    guards: Guards,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileDeleteLines {
    const NAME: &str = "file_delete_lines";
    const DESCRIPTION: &str = "Delete lines start to end (inclusive).";
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
    // A unified diff (diff -u or git diff), or a Codex patch (first non-empty line
    // `*** Begin Patch`), at most 1 MiB.
    patch: String,
    /// For a patch of one existing file: a read's content_hash to patch against; merged if the file changed since.
    base_hash: Option<String>,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for FileApplyPatch {
    const NAME: &str = "file_apply_patch";
    const DESCRIPTION: &str = "Apply a unified diff (diff -u, git diff) or a Codex patch (*** Begin Patch) to any files: every hunk applies exactly, or nothing changes.";
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
