use crate::commands::Context;
use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::retention::{Cut, RetentionOptions, parse_duration, parse_size};
use filekeeper::{Result, Workspace};

/// Cut the undoable history at a point: older operations stay in the journal as its record
/// but can no longer be undone, and the objects only they name become collectable by
/// `keeper gc`. Pending operations, and those committed within the grace period, are never
/// pruned.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper history prune --older-than 30d --dry-run
  keeper history prune --keep-last 1000
  keeper history prune --max-store-size 500M --grace-period 1h"#)]
#[command(group(clap::ArgGroup::new("cut").required(true).multiple(false)))]
pub struct PruneArgs {
    /// Prune the operations recorded more than DURATION ago (a whole number and a unit: s, m,
    /// h, d or w, as in 90s, 12h, 30d, 2w).
    #[arg(long, value_name = "DURATION", group = "cut")]
    pub older_than: Option<String>,
    /// Prune all but the newest N operations.
    #[arg(long, value_name = "N", group = "cut")]
    pub keep_last: Option<u64>,
    /// Prune the operations older than the newest ones whose stored contents fit in SIZE (a
    /// whole number of bytes, optionally with K, M, G or T, powers of 1024: 500M, 2G).
    #[arg(long, value_name = "SIZE", group = "cut")]
    pub max_store_size: Option<String>,
    /// Protect operations committed within DURATION (default 1d).
    #[arg(long, value_name = "DURATION")]
    pub grace_period: Option<String>,
    /// Say what would be pruned; change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn cmd_prune(cx: &Context, ws: &Workspace, args: &PruneArgs) -> Result<Reply> {
    let cut = match (&args.older_than, args.keep_last, &args.max_store_size) {
        (Some(d), _, _) => Cut::OlderThan(parse_duration(d)?),
        (_, Some(n), _) => Cut::KeepLast(n),
        (_, _, Some(s)) => Cut::MaxStoreSize(parse_size(s)?),
        _ => return Err(filekeeper::Error::invalid("name where to cut")),
    };
    let options = RetentionOptions {
        grace: match &args.grace_period {
            Some(g) => parse_duration(g)?,
            None => filekeeper::retention::DEFAULT_GRACE,
        },
        dry_run: args.dry_run,
        actor: cx.global.actor.clone(),
    };
    let result = ws.prune_history(&cut, &options)?;
    let verb = if result.dry_run {
        "Would prune"
    } else {
        "Pruned"
    };
    let mut human = format!(
        "{verb} {} operation(s) ({})",
        result.pruned_operations, result.rule
    );
    if result.protected_operations > 0 {
        human.push_str(&format!(
            "; kept {} pending or recent",
            result.protected_operations
        ));
    }
    human.push_str(&format!(
        ".\ngc can free {} object(s), {} bytes, now",
        result.collectable_objects, result.collectable_bytes
    ));
    if result.held_objects > 0 {
        human.push_str(&format!(
            ", and {} more object(s), {} bytes, once older than the grace period",
            result.held_objects, result.held_bytes
        ));
    }
    human.push_str(".\n");
    Ok(Reply::new(workspace_fields(ws, result), human))
}
