use super::{open, reply};
use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::Result;
use filekeeper::plumbing::commands;

/// Resolve operations an interrupted keeper left pending (every mutation also does this
/// first); PARTIAL_RECOVERY when one was only partly applied.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper recover
  keeper --json recover"#)]
pub struct RecoverArgs {}

pub fn cmd_recover(cx: &Context, _args: &RecoverArgs) -> Result<Reply> {
    let ws = open(cx)?;
    let recovered = commands::recover(&ws)?;
    let human: String = recovered
        .resolved
        .iter()
        .map(|r| format!("{} {}\n", r.operation_id, r.status.as_str()))
        .collect();
    Ok(reply(&ws, recovered, human))
}
