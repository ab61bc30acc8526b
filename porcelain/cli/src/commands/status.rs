//! `keeper status`: a workspace's history at a glance.

use super::Context;
use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::{Result, WorkspaceStatus};

/// Show the workspace's history: operations, stored objects, and the retention policy.
///
/// A read: it records nothing, and a workspace with no history yet reports zeros without
/// creating any.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper status
  keeper --json --workspace notes status"#)]
pub struct StatusArgs {}

pub fn cmd_status(cx: &Context, _args: &StatusArgs) -> Result<Reply> {
    let ws = cx.workspace()?;
    let status = ws.status()?;
    let human = human(ws.name(), &status);
    Ok(Reply::new(workspace_fields(&ws, status), human))
}

fn human(name: Option<&str>, status: &WorkspaceStatus) -> String {
    let workspace = name.map_or_else(|| "(a --root workspace)".to_owned(), str::to_owned);
    let state = match status.state {
        Some("project") => "project (.filekeeper/ in the workspace root)",
        Some(_) => "home (under the Filekeeper home)",
        None => "none yet (nothing recorded)",
    };
    let j = &status.journal;
    let schema = j
        .schema_version
        .map_or_else(String::new, |v| format!(" (schema {v})"));
    let oldest = j.oldest_undoable.as_ref().map_or_else(
        || "none".to_owned(),
        |o| format!("{} at {}", o.operation_id, o.created_at),
    );
    let s = &status.store;
    let unknown = if s.objects_of_unknown_size > 0 {
        format!(
            ", not counting {} of unknown size",
            s.objects_of_unknown_size
        )
    } else {
        String::new()
    };
    let strays = if s.stray_files > 0 {
        format!("; {} stray files", s.stray_files)
    } else {
        String::new()
    };
    let r = &status.retention;
    let retention = if r.enabled {
        let rules: Vec<String> = [
            ("keep_days", r.rules.keep_days),
            ("keep_last", r.rules.keep_last),
            ("max_store_bytes", r.rules.max_store_bytes),
        ]
        .into_iter()
        .filter_map(|(key, value)| value.map(|v| format!("{key} = {v}")))
        .collect();
        rules.join(", ")
    } else {
        "off (history is kept in full)".to_owned()
    };
    format!(
        "workspace: {workspace}\n\
         state:     {state}\n\
         journal:   {} operations: {} pending, {} undoable, {} undone, {} pruned{schema}\n\
         oldest undoable: {oldest}\n\
         store:     {} objects, {} bytes compressed, {} bytes uncompressed{unknown}{strays}\n\
         retention: {retention}\n",
        j.operations,
        j.pending,
        j.undoable,
        j.undone,
        j.pruned,
        s.objects,
        s.compressed_bytes,
        s.uncompressed_bytes,
    )
}
