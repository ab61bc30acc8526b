use crate::commands::Context;
use crate::commands::mutation::{self, MutationArgs};
use crate::output::Reply;
use clap::Args;
use filekeeper::{Result, Workspace};

/// Create a directory.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper dir create notes/2026/03 --parents
  keeper dir create build --dry-run"#)]
pub struct CreateArgs {
    /// The directory, workspace-relative.
    pub path: String,
    /// Also create missing parents; an existing directory is then not an error.
    #[arg(long, short)]
    pub parents: bool,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

pub fn cmd_create(cx: &Context, ws: &Workspace, args: &CreateArgs) -> Result<Reply> {
    let options = args.mutation.options(cx.global);
    let result = ws.create_dir(&args.path, args.parents, &options)?;
    Ok(mutation::reply(ws, result))
}
