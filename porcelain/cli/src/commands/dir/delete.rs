use crate::commands::Context;
use crate::commands::mutation::{self, MutationArgs};
use crate::output::Reply;
use clap::Args;
use filekeeper::{Result, Workspace};

/// Delete an empty directory, or with --recursive --confirm-recursive a whole tree.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper dir delete build
  keeper dir delete drafts --recursive --confirm-recursive --dry-run"#)]
pub struct DeleteArgs {
    /// The directory, workspace-relative.
    pub path: String,
    /// Delete everything inside too (needs --confirm-recursive). Each file's bytes are
    /// stored first so the deletion can be undone, except a file over
    /// max_history_blob_bytes: a tree holding one is deleted but cannot be undone at all
    /// (the result says undo_available: false; --dry-run shows it first).
    #[arg(long, requires = "confirm_recursive")]
    pub recursive: bool,
    /// Confirms --recursive: both are required, so a tree is never deleted by one slip.
    // clap enforces the pair; the handler reads only --recursive.
    #[arg(long, requires = "recursive")]
    pub confirm_recursive: bool,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

pub fn cmd_delete(cx: &Context, ws: &Workspace, args: &DeleteArgs) -> Result<Reply> {
    let options = args.mutation.options(cx.global);
    let result = ws.delete_dir(&args.path, args.recursive, &options)?;
    Ok(mutation::reply(ws, result))
}
