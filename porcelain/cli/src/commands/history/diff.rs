use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::{Result, Workspace};

/// A unified diff of every path an operation changed, from the stored blobs.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Example:
  keeper history diff op_1a2b3c4d5e6f7a8b"#)]
pub struct DiffArgs {
    /// The operation id, op_<16 hex>.
    pub operation_id: String,
}

pub fn cmd_diff(ws: &Workspace, args: &DiffArgs) -> Result<Reply> {
    let diff = ws.diff_operation(&args.operation_id)?;
    let mut human = String::new();
    for p in &diff.paths {
        let path = filekeeper::quote::path(&p.path);
        match (&p.diff, p.diff_kind) {
            (Some(d), _) => human.push_str(d),
            (None, "binary") => human.push_str(&format!("Binary file {path} {}\n", p.change)),
            (None, "history_skipped") => human.push_str(&format!(
                "{path} {}: bytes above the history cap were not stored\n",
                p.change
            )),
            (None, "pruned") => human.push_str(&format!(
                "{path} {}: the operation was pruned; its contents are not shown\n",
                p.change
            )),
            (None, "never_stored") => human.push_str(&format!(
                "{path} {}: the new contents were never stored\n",
                p.change
            )),
            (None, "directory") => human.push_str(&format!("directory {path} {}\n", p.change)),
            (None, _) => human.push_str(&format!("{path} unchanged\n")),
        }
    }
    let cut: Vec<String> = diff
        .paths
        .iter()
        .filter(|p| p.truncated)
        .map(|p| filekeeper::quote::path(&p.path).into_owned())
        .collect();
    let mut reply = Reply::new(workspace_fields(ws, &diff), human);
    reply.diff = true;
    if !cut.is_empty() {
        reply.partial.push(format!(
            "truncated: the diff of {} is only its start (history diff shows at most {} KiB of one path); `keeper history show` gives the hashes, and `keeper cat-blob` the whole versions",
            cut.join(", "),
            filekeeper::HISTORY_DIFF_MAX_BYTES / 1024
        ));
    }
    Ok(reply)
}
