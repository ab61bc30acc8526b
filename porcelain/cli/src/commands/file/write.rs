//! `keeper file create|write|copy|move|delete`: whole files, each change one recorded
//! operation.

use super::input::ContentSource;
use crate::commands::Context;
use crate::commands::mutation::{self, MutationArgs};
use crate::output::Reply;
use clap::Args;
use filekeeper::{Result, Workspace};

/// Create a file; an existing one is ALREADY_EXISTS unless --allow-existing.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file create notes.md --content "first line"
  printf '# Todo\n' | keeper file create todo.md"#)]
pub struct CreateArgs {
    /// The new file, workspace-relative; its directory must exist.
    pub path: String,
    #[command(flatten)]
    pub source: ContentSource,
    /// Replace the file if it exists instead of refusing.
    #[arg(long)]
    pub allow_existing: bool,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

/// Replace a file's whole content, atomically (creating it when absent).
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  h=$(keeper file hash notes.md)
  keeper file write notes.md --input new.md --expected-hash "$h"
  keeper file write notes.md --input new.md --dry-run"#)]
pub struct WriteArgs {
    /// The file, workspace-relative.
    pub path: String,
    #[command(flatten)]
    pub source: ContentSource,
    /// Refuse (CONTENT_CONFLICT) unless the file still holds exactly this content.
    #[arg(long, value_name = "HASH")]
    pub expected_hash: Option<String>,
    /// Drop the file's UTF-8 byte-order mark. Without this, a file that starts with one
    /// keeps it when the new content has none.
    #[arg(long)]
    pub remove_bom: bool,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

/// Copy a file; an existing destination is replaced only against its current hash.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file copy todo.md backup/todo.md
  h=$(keeper file hash backup/todo.md)
  keeper file copy todo.md backup/todo.md --expected-destination-hash "$h""#)]
pub struct CopyArgs {
    /// The file to copy.
    pub source: String,
    /// The new path.
    pub destination: String,
    /// Replace an existing destination only if it holds exactly this content.
    #[arg(long, value_name = "HASH")]
    pub expected_destination_hash: Option<String>,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

/// Move (rename) a file atomically; an existing destination needs --overwrite.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file move draft.md docs/final.md
  keeper file move notes.new notes.md --overwrite --dry-run"#)]
pub struct MoveArgs {
    /// The file to move.
    pub source: String,
    /// The new path.
    pub destination: String,
    /// Replace an existing destination.
    #[arg(long)]
    pub overwrite: bool,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

/// Delete a file (its bytes stay in history, so the deletion can be undone).
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  h=$(keeper file hash old.md)
  keeper file delete old.md --expected-hash "$h"
  keeper file delete draft.md --dry-run"#)]
pub struct DeleteArgs {
    /// The file, workspace-relative.
    pub path: String,
    /// Refuse unless the file holds exactly this content.
    #[arg(long, value_name = "HASH")]
    pub expected_hash: Option<String>,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

pub fn cmd_create(cx: &Context, ws: &Workspace, args: &CreateArgs) -> Result<Reply> {
    let limit = ws.plumbing().limits.max_write_bytes;
    let content = args.source.read(limit).map_err(|e| e.path(&args.path))?;
    let options = args.mutation.options(cx.global);
    let result = ws.create_file(&args.path, &content, args.allow_existing, &options)?;
    Ok(mutation::reply(ws, result))
}

pub fn cmd_write(cx: &Context, ws: &Workspace, args: &WriteArgs) -> Result<Reply> {
    let limit = ws.plumbing().limits.max_write_bytes;
    let content = args.source.read(limit).map_err(|e| e.path(&args.path))?;
    let result = ws.write_file(
        &args.path,
        &content,
        args.expected_hash.as_deref(),
        args.remove_bom,
        &args.mutation.options(cx.global),
    )?;
    Ok(mutation::reply(ws, result))
}

pub fn cmd_copy(cx: &Context, ws: &Workspace, args: &CopyArgs) -> Result<Reply> {
    let result = ws.copy_file(
        &args.source,
        &args.destination,
        args.expected_destination_hash.as_deref(),
        &args.mutation.options(cx.global),
    )?;
    Ok(mutation::reply(ws, result))
}

pub fn cmd_move(cx: &Context, ws: &Workspace, args: &MoveArgs) -> Result<Reply> {
    let result = ws.move_file(
        &args.source,
        &args.destination,
        args.overwrite,
        &args.mutation.options(cx.global),
    )?;
    Ok(mutation::reply(ws, result))
}

pub fn cmd_delete(cx: &Context, ws: &Workspace, args: &DeleteArgs) -> Result<Reply> {
    let result = ws.delete_file(
        &args.path,
        args.expected_hash.as_deref(),
        &args.mutation.options(cx.global),
    )?;
    Ok(mutation::reply(ws, result))
}
