use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::documents::WorkspaceRemoved;
use filekeeper::envelope::fields_of;
use filekeeper::{Result, WorkspaceEntry};

/// Forget a registration; the workspace's files and history are left in place.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Example:
  keeper workspace remove notes"#)]
pub struct RemoveArgs {
    /// The workspace name.
    pub name: String,
}

pub fn cmd_remove(cx: &Context, args: &RemoveArgs) -> Result<Reply> {
    let entry = WorkspaceEntry {
        registration: cx.keeper.remove_workspace(&args.name)?,
        is_default: false,
    };
    let document = WorkspaceRemoved {
        workspace: (&entry).into(),
        warnings: vec!["the registration was removed; the files and their .filekeeper/ history were left in place".into()],
    };
    Ok(Reply::new(
        fields_of(document),
        format!("Removed workspace {}\n", args.name),
    ))
}
