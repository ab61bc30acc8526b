//! `keeper gc`: the state directory's garbage, removed.

use super::Context;
use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::Result;
use filekeeper::retention::{DEFAULT_GRACE, RetentionOptions, parse_duration};

/// Remove stored contents that no unpruned operation names, and temp files interrupted
/// writes left, once older than the grace period (objects younger than it are kept whatever
/// names them: a script may have stored a blob it has not recorded yet).
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper gc --dry-run
  keeper gc --grace-period 2w"#)]
pub struct GcArgs {
    /// Keep objects and temp files written within DURATION (default 1d; a whole number and a
    /// unit: s, m, h, d or w); temp files written in the last ten minutes are kept whatever it
    /// says.
    #[arg(long, value_name = "DURATION")]
    pub grace_period: Option<String>,
    /// Say what would be removed; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn cmd_gc(cx: &Context, args: &GcArgs) -> Result<Reply> {
    let ws = cx.workspace()?;
    let options = RetentionOptions {
        grace: match &args.grace_period {
            Some(g) => parse_duration(g)?,
            None => DEFAULT_GRACE,
        },
        dry_run: args.dry_run,
        actor: cx.global.actor.clone(),
    };
    let result = ws.gc(&options)?;
    let verb = if result.dry_run {
        "Would remove"
    } else {
        "Removed"
    };
    let human = format!(
        "{verb} {} object(s), {} bytes, and {} temporary file(s), {} bytes; kept {} object(s) in use and {} younger than the grace period, {} bytes.\n",
        result.removed_objects,
        result.removed_bytes,
        result.removed_temporary_files,
        result.removed_temporary_bytes,
        result.kept_objects,
        result.young_objects,
        result.kept_bytes
    );
    Ok(Reply::new(workspace_fields(&ws, result), human))
}
