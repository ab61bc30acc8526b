use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::envelope::fields_of;
use filekeeper::{Result, WorkspaceEntry};
use std::path::PathBuf;

/// Register ROOT (an existing directory) as workspace NAME.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper workspace create notes ~/notes
  keeper workspace create project ."#)]
pub struct CreateArgs {
    /// 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.
    pub name: String,
    /// The workspace's root directory.
    // Its id is not `root`, which would hide the global --root option from this command.
    #[arg(id = "directory", value_name = "ROOT")]
    pub root: PathBuf,
}

pub fn cmd_create(cx: &Context, args: &CreateArgs) -> Result<Reply> {
    let entry = WorkspaceEntry {
        registration: cx.keeper.create_workspace(&args.name, &args.root)?,
        is_default: false,
    };
    let human = format!(
        "Registered workspace {} at {}\n",
        args.name,
        entry.registration.root.display()
    );
    Ok(Reply::new(fields_of(super::shown(&entry)), human))
}
