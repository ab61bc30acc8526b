use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::envelope::fields_of;
use filekeeper::{Result, WorkspaceEntry};

/// Make NAME the default workspace.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Example:
  keeper workspace use notes"#)]
pub struct UseArgs {
    /// The workspace name.
    pub name: String,
}

pub fn cmd_use(cx: &Context, args: &UseArgs) -> Result<Reply> {
    let entry = WorkspaceEntry {
        registration: cx.keeper.use_workspace(&args.name)?,
        is_default: true,
    };
    let human = format!("Default workspace is now {}\n", args.name);
    Ok(Reply::new(fields_of(super::shown(&entry)), human))
}
