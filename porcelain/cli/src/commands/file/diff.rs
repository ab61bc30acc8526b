//! `keeper file diff`: the unified diff between two files of the workspace.

use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::{DiffOptions, Result, Workspace};

/// Print the unified diff from PATH to OTHER, two text files of the workspace.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file diff config.toml config.example.toml
  keeper --json file diff a.txt b.txt --max-bytes 65536"#)]
pub struct DiffArgs {
    /// The old side (--- a/PATH).
    pub path: String,
    /// The new side (+++ b/OTHER).
    pub other: String,
    /// Return at most N bytes of diff, cut at a whole line (default and ceiling:
    /// max_read_bytes).
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<u64>,
}

pub fn cmd_diff(ws: &Workspace, args: &DiffArgs) -> Result<Reply> {
    let options = DiffOptions {
        max_bytes: args.max_bytes,
    };
    let diff = ws.diff_files(&args.path, &args.other, &options)?;
    let mut reply = Reply::new(workspace_fields(ws, &diff), diff.diff.clone());
    reply.diff = true;
    if diff.identical {
        reply
            .notes
            .push(format!("identical: both are {}", diff.path_hash));
    } else {
        reply.notes.push(format!(
            "+{} -{} lines",
            diff.lines_added, diff.lines_removed
        ));
    }
    if diff.truncated {
        reply.partial.push(
            "cut at the --max-bytes bound: the diff above is only its start; raise --max-bytes to see more"
                .to_owned(),
        );
    }
    Ok(reply)
}
