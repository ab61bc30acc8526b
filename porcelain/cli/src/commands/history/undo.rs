use crate::commands::Context;
use crate::commands::mutation::{self, MutationArgs};
use crate::output::Reply;
use clap::Args;
use filekeeper::{Result, Workspace};

/// Restore every path of an operation to its state before it, or change nothing
/// (UNDO_CONFLICT, exit 12) when a path has changed since.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper history undo op_1a2b3c4d5e6f7a8b --dry-run
  keeper history undo op_1a2b3c4d5e6f7a8b"#)]
pub struct UndoArgs {
    /// The operation id, op_<16 hex>.
    pub operation_id: String,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

/// Undo the newest operation here that is not an undo, not already undone, and whose
/// history was stored (newer ones whose history was skipped are passed over and named);
/// with the global --actor, the newest of that actor's (who is also recorded as the
/// undo's actor).
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper history undo-last --dry-run
  keeper history undo-last --actor agent-7"#)]
pub struct UndoLastArgs {
    #[command(flatten)]
    pub mutation: MutationArgs,
}

pub fn cmd_undo(cx: &Context, ws: &Workspace, args: &UndoArgs) -> Result<Reply> {
    let result = ws.undo(&args.operation_id, &args.mutation.options(cx.global))?;
    Ok(mutation::reply(ws, result))
}

pub fn cmd_undo_last(cx: &Context, ws: &Workspace, args: &UndoLastArgs) -> Result<Reply> {
    let result = ws.undo_last(
        cx.global.actor.as_deref(),
        &args.mutation.options(cx.global),
    )?;
    let skipped: Vec<String> = result
        .extra
        .skipped_operations
        .iter()
        .flatten()
        .map(|p| match p.summary.trim() {
            "" => p.operation_id.clone(),
            summary => format!("{} ({})", p.operation_id, summary.trim_end_matches('.')),
        })
        .collect();
    let mut reply = mutation::reply(ws, result);
    if !skipped.is_empty() {
        reply.notes.push(format!(
            "skipped {} newer operation(s) whose history was skipped (above max_history_blob_bytes), so they cannot be undone: {}",
            skipped.len(),
            skipped.join(", ")
        ));
    }
    Ok(reply)
}
