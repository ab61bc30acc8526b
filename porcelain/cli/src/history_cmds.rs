//! `keeper history …`.

use super::args::{Global, HistoryCommand};
use super::output::Reply;
use filekeeper::documents::{HistoryList, HistoryShow};
use filekeeper::{HistoryFilter, Result, Workspace};
use serde_json::{Map, Value};

fn fields(ws: &Workspace, value: impl serde::Serialize) -> Map<String, Value> {
    filekeeper::envelope::result_fields(ws.name(), value)
}

fn text(v: &Value) -> String {
    v.as_str().map(str::to_owned).unwrap_or_else(|| "-".into())
}

pub fn run(ws: &Workspace, cmd: &HistoryCommand, global: &Global) -> Result<Reply> {
    match cmd {
        HistoryCommand::List { path, limit } => {
            let entries = ws.list_history(&HistoryFilter {
                path: path.clone(),
                actor: global.actor.clone(),
                task_id: global.task_id.clone(),
                limit: *limit,
            })?;
            let rows: Vec<[String; 6]> = entries
                .iter()
                .map(|e| {
                    let op = &serde_json::to_value(&e.operation).unwrap_or_default();
                    let status = match (&e.undone_by, op["status"].as_str()) {
                        (Some(_), Some(s)) => format!("{s}, undone"),
                        (None, Some(s)) => s.to_owned(),
                        _ => "-".into(),
                    };
                    [
                        text(&op["id"]),
                        text(&op["created_at"])
                            .replace('T', " ")
                            .chars()
                            .take(19)
                            .collect(),
                        text(&op["kind"]),
                        text(&op["target_path"]),
                        text(&op["actor"]),
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
            Ok(Reply::new(
                fields(
                    ws,
                    HistoryList {
                        operations: entries,
                    },
                ),
                human,
            ))
        }
        HistoryCommand::Show { operation_id } => {
            let entry = ws.get_operation(operation_id)?;
            let human = show(
                &serde_json::to_value(&entry.operation).unwrap_or_default(),
                entry.undone_by.as_deref(),
            );
            Ok(Reply::new(fields(ws, HistoryShow::from(entry)), human))
        }
        HistoryCommand::Diff { operation_id } => {
            let diff = ws.diff_operation(operation_id)?;
            let mut human = String::new();
            for p in &diff.paths {
                match (&p.diff, p.diff_kind) {
                    (Some(d), _) => human.push_str(d),
                    (None, "binary") => {
                        human.push_str(&format!("Binary file {} {}\n", p.path, p.change))
                    }
                    (None, "history_skipped") => human.push_str(&format!(
                        "{} {}: bytes above the history cap were not stored\n",
                        p.path, p.change
                    )),
                    (None, "directory") => {
                        human.push_str(&format!("directory {} {}\n", p.path, p.change))
                    }
                    (None, _) => human.push_str(&format!("{} unchanged\n", p.path)),
                }
            }
            let mut reply = Reply::new(fields(ws, &diff), human);
            reply.diff = true;
            Ok(reply)
        }
        HistoryCommand::Undo {
            operation_id,
            mutation,
        } => {
            let result = ws.undo(operation_id, &super::change_cmds::options(global, mutation))?;
            Ok(super::change_cmds::reply(ws, result))
        }
        HistoryCommand::UndoLast { mutation } => {
            let result = ws.undo_last(
                global.actor.as_deref(),
                &super::change_cmds::options(global, mutation),
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
            let mut reply = super::change_cmds::reply(ws, result);
            if !skipped.is_empty() {
                reply.notes.push(format!(
                    "skipped {} newer operation(s) whose history was skipped (above max_history_blob_bytes), so they cannot be undone: {}",
                    skipped.len(),
                    skipped.join(", ")
                ));
            }
            Ok(reply)
        }
    }
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
