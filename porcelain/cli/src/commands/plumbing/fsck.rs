use super::{open, reply};
use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::Result;
use filekeeper::plumbing::commands;

/// Verify every stored object and every journal reference; exit non-zero on any damage.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper fsck
  keeper --json fsck"#)]
pub struct FsckArgs {}

pub fn cmd_fsck(cx: &Context, _args: &FsckArgs) -> Result<Reply> {
    let ws = open(cx)?;
    let fsck = commands::fsck(&ws)?;
    let human = format!(
        "fsck: {} objects and {} operations verified; no damage\n",
        fsck.report.objects, fsck.report.operations
    );
    Ok(reply(&ws, fsck, human))
}
