use super::text;
use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::documents::HistoryShow;
use filekeeper::{Result, Workspace};
use serde_json::Value;

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
    let human = show(
        &serde_json::to_value(&entry.operation).unwrap_or_default(),
        entry.undone_by.as_deref(),
    );
    Ok(Reply::new(
        workspace_fields(ws, HistoryShow::from(entry)),
        human,
    ))
}

fn show(op: &Value, undone_by: Option<&str>) -> String {
    let mut out = format!(
        "operation {}\nkind:     {}\nstatus:   {}{}\ncreated:  {}\nactor:    {}\ntask:     {}\nsummary:  {}\n",
        text(&op["id"]),
        text(&op["kind"]),
        text(&op["status"]),
        undone_by
            .map(|u| format!(" (undone by {u})"))
            .unwrap_or_default(),
        text(&op["created_at"]),
        text(&op["actor"]),
        text(&op["task_id"]),
        text(&op["summary"]),
    );
    if !op["source_path"].is_null() {
        out.push_str(&format!("source:   {}\n", text(&op["source_path"])));
    }
    if !op["undoes"].is_null() {
        out.push_str(&format!("undoes:   {}\n", text(&op["undoes"])));
    }
    for item in op["items"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  {:<9} {} ({})\n",
            text(&item["change"]),
            text(&item["path"]),
            text(&item["kind"])
        ));
        for side in ["before", "after"] {
            let state = if item[format!("{side}_exists")] != Value::Bool(true) {
                "absent".to_owned()
            } else {
                let hash = item[format!("{side}_hash")]
                    .as_str()
                    .unwrap_or("(not stored)")
                    .to_owned();
                match item[format!("{side}_mode")].as_u64() {
                    Some(m) => format!("{hash} mode {m:o}"),
                    None => hash,
                }
            };
            out.push_str(&format!("            {side:<7} {state}\n"));
        }
    }
    out
}
