use super::or_dash;
use crate::output::{Reply, recorded_state, workspace_fields};
use clap::Args;
use filekeeper::documents::HistoryShow;
use filekeeper::{HistoryEntry, Result, Workspace};

/// Show one operation: status and every path's hashes, modes and existence.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper history show op_1a2b3c4d5e6f7a8b
  keeper --json history show op_1a2b3c4d5e6f7a8b"#)]
pub struct ShowArgs {
    /// The operation id, op_<16 hex>.
    pub operation_id: String,
}

pub fn cmd_show(ws: &Workspace, args: &ShowArgs) -> Result<Reply> {
    let entry = ws.get_operation(&args.operation_id)?;
    let human = show(&entry);
    Ok(Reply::new(
        workspace_fields(ws, HistoryShow::from(entry)),
        human,
    ))
}

/// The operation, then each item with its state before and after.
fn show(entry: &HistoryEntry) -> String {
    let op = &entry.operation.head;
    let mut undone = match &entry.undone_by {
        Some(undo) => format!(" (undone by {undo})"),
        None => String::new(),
    };
    if let Some(prune) = &op.pruned_by {
        undone.push_str(&format!(
            " (pruned at {} by {prune}: no longer undoable)",
            or_dash(&op.pruned_at)
        ));
    }
    let mut out = format!(
        "operation {}\nkind:     {}\nstatus:   {}{undone}\ncreated:  {}\nactor:    {}\ntask:     {}\nsummary:  {}\n",
        op.id,
        op.kind,
        op.status.as_str(),
        op.created_at,
        or_dash(&op.actor),
        or_dash(&op.task_id),
        filekeeper::quote::line(&op.summary),
    );
    if let Some(source) = &op.source_path {
        out.push_str(&format!("source:   {}\n", filekeeper::quote::path(source)));
    }
    if let Some(undoes) = &op.undoes {
        out.push_str(&format!("undoes:   {undoes}\n"));
    }
    for item in &entry.operation.items {
        out.push_str(&format!(
            "  {:<9} {} ({})\n",
            item.change.as_str(),
            filekeeper::quote::path(&item.path),
            item.kind.as_str()
        ));
        let sides = [
            (
                "before",
                item.before_exists,
                &item.before_hash,
                item.before_mode,
            ),
            (
                "after",
                item.after_exists,
                &item.after_hash,
                item.after_mode,
            ),
        ];
        for (side, exists, hash, mode) in sides {
            let state = if exists {
                recorded_state(hash.as_ref(), mode)
            } else {
                "absent".to_owned()
            };
            out.push_str(&format!("            {side:<7} {state}\n"));
        }
    }
    out
}
