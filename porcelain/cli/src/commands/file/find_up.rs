//! `keeper file find-up`: the nearest entry of a name, from a path up to the workspace root.

use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::{Result, Workspace};

/// Print the nearest NAME in PATH's directory or above, up to the workspace root; exit 3 when
/// there is none.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file find-up src/deep/module.py pyproject.toml
  keeper file find-up . .git && echo "in a git tree"
  keeper --json file find-up docs/guide.md README.md"#)]
pub struct FindUpArgs {
    /// Where to start: a directory, or a file (which starts at its directory).
    pub path: String,
    /// The exact name to look for (a file or a directory, e.g. pyproject.toml or .git); one
    /// plain name, no `/`.
    pub name: String,
}

pub fn cmd_find_up(ws: &Workspace, args: &FindUpArgs) -> Result<Reply> {
    let found = ws.find_up(&args.path, &args.name)?;
    let human = match &found.found_path {
        Some(path) => format!("{}\n", filekeeper::quote::path(path)),
        None => String::new(),
    };
    let mut reply = Reply::new(workspace_fields(ws, &found), human);
    if !found.found {
        reply.notes.push(format!(
            "no {} in {} or above it",
            found.name,
            found.searched.first().map_or(".", String::as_str)
        ));
        // A shell predicate, as `keeper file exists` is: the answer is still a success.
        reply.exit = filekeeper::Code::PathNotFound.exit_code();
    }
    Ok(reply)
}
