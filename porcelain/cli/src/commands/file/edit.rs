//! `keeper file replace-text|replace-lines|insert-lines|delete-lines`: edits in place, each
//! guarded by what the caller expects to find.

use super::input;
use crate::commands::Context;
use crate::commands::mutation::{self, MutationArgs};
use crate::output::Reply;
use clap::Args;
use filekeeper::{EditGuards, Policy, Position, Result, Workspace};
use std::path::PathBuf;

/// Replace literal text: exact match first, then with indentation and trailing whitespace
/// normalised (warned), else NO_MATCH naming the nearest lines. Never a regex.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file replace-text src/lib.rs --old 'fn old()' --new 'fn new()' --first
  keeper file replace-text notes.md --old TODO --new DONE --all --expected-match-count 3
  keeper file replace-text notes.md --old TODO --new DONE --occurrence 2"#)]
#[command(group(clap::ArgGroup::new("policy").required(true).multiple(true).args(["first", "all", "occurrence"])))]
#[command(group(clap::ArgGroup::new("old_text").required(true).args(["old", "old_file"])))]
#[command(group(clap::ArgGroup::new("new_text").required(true).args(["new", "new_file"])))]
pub struct ReplaceTextArgs {
    /// The file, workspace-relative.
    pub path: String,
    /// The exact text to find (literal).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub old: Option<String>,
    /// Read the text to find from a file (for text a shell would mangle); a UTF-8
    /// byte-order mark at its start is the saving editor's and not part of the text.
    #[arg(long, value_name = "FILE")]
    pub old_file: Option<PathBuf>,
    /// The replacement (literal: no `$1`, no escapes).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub new: Option<String>,
    /// Read the replacement from a file; a UTF-8 byte-order mark at its start is the saving
    /// editor's and not part of the text.
    #[arg(long, value_name = "FILE")]
    pub new_file: Option<PathBuf>,
    /// Replace the one occurrence (refused when there are several, unless the count is confirmed).
    #[arg(long, conflicts_with = "all")]
    pub first: bool,
    /// Replace every occurrence.
    // The `policy` group makes --first, --all or --occurrence present, and --first conflicts
    // with --all, so --all alone decides; --occurrence with --all is the library's refusal,
    // worded as on every surface.
    #[arg(long)]
    pub all: bool,
    /// Replace exactly the Nth match (1-based, in file order), as MATCH_COUNT_MISMATCH lists
    /// them; implies --first.
    #[arg(long, value_name = "N")]
    pub occurrence: Option<u64>,
    /// Refuse (MATCH_COUNT_MISMATCH) unless the old text occurs exactly N times.
    #[arg(long, value_name = "N")]
    pub expected_match_count: Option<u64>,
    #[command(flatten)]
    pub guards: EditGuardArgs,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

/// Replace lines START..=END (1-based, inclusive) with new text.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file replace-lines VERSION --start 1 --end 1 --replacement 1.3 --expected-content 1.2
  keeper file replace-lines todo.md --start 2 --end 4 --replacement '- merged' --dry-run"#)]
pub struct ReplaceLinesArgs {
    /// The file, workspace-relative.
    pub path: String,
    /// First line to replace.
    #[arg(long, value_name = "N")]
    pub start: u64,
    /// Last line to replace (inclusive).
    #[arg(long, value_name = "M")]
    pub end: u64,
    /// The new lines (empty deletes the range).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub replacement: String,
    #[command(flatten)]
    pub guards: EditGuardArgs,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

/// Insert lines before or after line N, or with --position end after the last line.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  h=$(keeper file hash todo.md)
  keeper file insert-lines todo.md --position end --content '- ship it' --expected-hash "$h"
  keeper file insert-lines todo.md --position after --line 1 --content '- first' --dry-run"#)]
pub struct InsertLinesArgs {
    /// The file, workspace-relative.
    pub path: String,
    /// Where: before or after --line N, or end (which takes no --line).
    #[arg(long, value_enum)]
    pub position: PositionArg,
    /// The line to insert before or after.
    #[arg(long, value_name = "N")]
    pub line: Option<u64>,
    /// The lines to insert.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub content: String,
    #[command(flatten)]
    pub guards: EditGuardArgs,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

/// Delete lines START..=END (1-based, inclusive).
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file delete-lines todo.md --start 2 --end 2 --expected-content '- done'
  keeper file delete-lines todo.md --start 2 --end 3 --dry-run"#)]
pub struct DeleteLinesArgs {
    /// The file, workspace-relative.
    pub path: String,
    /// First line to delete.
    #[arg(long, value_name = "N")]
    pub start: u64,
    /// Last line to delete (inclusive).
    #[arg(long, value_name = "M")]
    pub end: u64,
    #[command(flatten)]
    pub guards: EditGuardArgs,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

/// Guards every edit takes.
#[derive(Debug, Args)]
pub struct EditGuardArgs {
    /// Refuse (CONTENT_CONFLICT) unless the targeted region holds exactly this text.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub expected_content: Option<String>,
    /// Refuse (CONTENT_CONFLICT) unless the whole file holds exactly this content.
    #[arg(long, value_name = "HASH")]
    pub expected_hash: Option<String>,
    /// The version (a read's content_hash) the line numbers and text refer to. If the file
    /// changed since, the edit is made on that version and merged into the file as it is
    /// now, or refused (CONTENT_CONFLICT) where both changed the same lines.
    #[arg(long = "base", value_name = "HASH")]
    pub base_hash: Option<String>,
}

impl EditGuardArgs {
    fn guards(&self) -> EditGuards {
        EditGuards {
            expected_hash: self.expected_hash.clone(),
            expected_content: self.expected_content.clone(),
            base_hash: self.base_hash.clone(),
        }
    }
}

/// `insert-lines --position`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum PositionArg {
    Before,
    After,
    End,
}

impl From<PositionArg> for Position {
    fn from(position: PositionArg) -> Position {
        match position {
            PositionArg::Before => Position::Before,
            PositionArg::After => Position::After,
            PositionArg::End => Position::End,
        }
    }
}

pub fn cmd_replace_text(cx: &Context, ws: &Workspace, args: &ReplaceTextArgs) -> Result<Reply> {
    let limit = ws.plumbing().limits.max_write_bytes;
    let old = input::text(&args.old, &args.old_file, "--old-file", limit)?;
    let new = input::text(&args.new, &args.new_file, "--new-file", limit)?;
    let policy = if args.all { Policy::All } else { Policy::First }
        .with_occurrence(args.occurrence, &args.path)?;
    let result = ws.replace_text(
        &args.path,
        &old,
        &new,
        policy,
        args.expected_match_count,
        &args.guards.guards(),
        &args.mutation.options(cx.global),
    )?;
    Ok(mutation::reply(ws, result))
}

pub fn cmd_replace_lines(cx: &Context, ws: &Workspace, args: &ReplaceLinesArgs) -> Result<Reply> {
    let result = ws.replace_lines(
        &args.path,
        args.start,
        args.end,
        &args.replacement,
        &args.guards.guards(),
        &args.mutation.options(cx.global),
    )?;
    Ok(mutation::reply(ws, result))
}

pub fn cmd_insert_lines(cx: &Context, ws: &Workspace, args: &InsertLinesArgs) -> Result<Reply> {
    let result = ws.insert_lines(
        &args.path,
        args.position.into(),
        args.line,
        &args.content,
        &args.guards.guards(),
        &args.mutation.options(cx.global),
    )?;
    Ok(mutation::reply(ws, result))
}

pub fn cmd_delete_lines(cx: &Context, ws: &Workspace, args: &DeleteLinesArgs) -> Result<Reply> {
    let result = ws.delete_lines(
        &args.path,
        args.start,
        args.end,
        &args.guards.guards(),
        &args.mutation.options(cx.global),
    )?;
    Ok(mutation::reply(ws, result))
}
