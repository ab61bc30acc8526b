use super::or_dash;
use crate::commands::Context;
use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::{HistoryFilter, Result, Workspace};

/// List operations of this workspace, newest first. The global --actor and --task-id
/// filter the list.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper history list --path notes.md --actor agent-7 --limit 5
  keeper --json history list --task-id T-42"#)]
pub struct ListArgs {
    /// Only operations that touched this path.
    #[arg(long, value_name = "PATH")]
    pub path: Option<String>,
    /// At most N operations (default 20, at most max_history_entries, 200).
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,
    /// Continue with the operations older than a previous page's last (its next_cursor).
    #[arg(long, value_name = "TOKEN")]
    pub cursor: Option<String>,
}

pub fn cmd_list(cx: &Context, ws: &Workspace, args: &ListArgs) -> Result<Reply> {
    let page = ws.list_history(&HistoryFilter {
        path: args.path.clone(),
        actor: cx.global.actor.clone(),
        task_id: cx.global.task_id.clone(),
        limit: args.limit,
        cursor: args.cursor.clone(),
    })?;
    let entries = &page.operations;
    let rows: Vec<[String; 6]> = entries
        .iter()
        .map(|entry| {
            let op = &entry.operation.head;
            let status = match &entry.undone_by {
                Some(_) => format!("{}, undone", op.status.as_str()),
                None => op.status.as_str().to_owned(),
            };
            [
                op.id.clone(),
                op.created_at.replace('T', " ").chars().take(19).collect(),
                op.kind.clone(),
                filekeeper::quote::path(or_dash(&op.target_path)).into_owned(),
                or_dash(&op.actor).to_owned(),
                status,
            ]
        })
        .collect();
    let human = table(
        &["ID", "WHEN (UTC)", "KIND", "PATH", "ACTOR", "STATUS"],
        &rows,
    );
    let human = if entries.is_empty() {
        String::new()
    } else {
        human
    };
    let partial = match (&page.next_cursor, page.truncated) {
        (Some(cursor), _) => vec![format!(
            "older operations follow; continue with --cursor {cursor}"
        )],
        (None, true) => vec!["older operations follow; raise --limit to see more".to_owned()],
        (None, false) => Vec::new(),
    };
    let mut reply = Reply::new(workspace_fields(ws, &page), human);
    reply.partial = partial;
    Ok(reply)
}

/// Left-aligned columns, two spaces apart.
fn table(header: &[&str], rows: &[[String; 6]]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            if i + 1 == cells.len() {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}  "));
            }
        }
        s.trim_end().to_owned() + "\n"
    };
    let mut out = line(header.to_vec());
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}
