use super::{open, reply};
use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::Result;
use filekeeper::plumbing::commands;

/// Show where a path lands inside the workspace, or why it is refused.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper resolve-path docs/new.md --for-write
  keeper --json resolve-path link.md"#)]
pub struct ResolvePathArgs {
    /// A workspace-relative path, or an absolute path inside the root.
    pub path: String,
    /// Apply the rules for a write target (no final symlink, no credential-shaped name).
    #[arg(long)]
    pub for_write: bool,
    /// Accept a credential-shaped write target (.env, *.pem, .ssh/, ...).
    #[arg(long, requires = "for_write")]
    pub i_accept_secret_write_risk: bool,
}

pub fn cmd_resolve_path(cx: &Context, args: &ResolvePathArgs) -> Result<Reply> {
    let ws = open(cx)?;
    let resolved = commands::resolve_path(
        &ws,
        &args.path,
        args.for_write,
        args.i_accept_secret_write_risk,
    )?;
    let human = format!("{}\n", filekeeper::quote::path(&resolved.resolved));
    Ok(reply(&ws, resolved, human))
}
