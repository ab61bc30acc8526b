use crate::commands::Context;
use crate::commands::mutation::{self, MutationArgs};
use crate::output::Reply;
use clap::Args;
use filekeeper::{Result, Workspace};

/// Move (rename) a directory and everything in it, atomically, to a new path.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper dir move src/utils src/helpers --dry-run
  keeper dir move src/utils src/helpers"#)]
pub struct MoveArgs {
    /// The directory to move.
    pub source: String,
    /// The new path (must not exist).
    pub destination: String,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

pub fn cmd_move(cx: &Context, ws: &Workspace, args: &MoveArgs) -> Result<Reply> {
    let options = args.mutation.options(cx.global);
    let result = ws.move_dir(&args.source, &args.destination, &options)?;
    Ok(mutation::reply(ws, result))
}
