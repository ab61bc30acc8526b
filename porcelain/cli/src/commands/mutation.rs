//! What every mutating command shares, whatever its noun: the `--dry-run` and
//! `--i-accept-secret-write-risk` options, and how a mutation's result is shown.

use super::Global;
use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::{MutationOptions, MutationResult, Workspace};

/// Options every mutating command takes.
#[derive(Debug, Args)]
pub struct MutationArgs {
    /// Report what would change (with a diff) and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Accept a credential-shaped target (.env, *.pem, *.key, id_rsa, .ssh/, .aws/, ...).
    #[arg(long)]
    pub i_accept_secret_write_risk: bool,
}

impl MutationArgs {
    /// The library's options: these flags, and who is acting for which task.
    pub fn options(&self, global: &Global) -> MutationOptions {
        MutationOptions {
            dry_run: self.dry_run,
            actor: global.actor.clone(),
            task_id: global.task_id.clone(),
            allow_sensitive_write: self.i_accept_secret_write_risk,
        }
    }
}

/// A mutation's result: for a dry run the diff on stdout and what it would do on stderr;
/// otherwise the summary and the operation id.
pub fn reply(ws: &Workspace, result: MutationResult) -> Reply {
    let fields = workspace_fields(ws, &result);
    if result.dry_run {
        let mut reply = Reply::new(fields, result.preview_diff.clone().unwrap_or_default());
        reply.diff = true;
        reply.notes = vec![format!(
            "dry run: {} (nothing was changed)",
            if result.would_change == Some(true) {
                "would change the paths above"
            } else {
                "would change nothing"
            }
        )];
        return reply;
    }
    let human = match &result.operation_id {
        Some(id) => format!("{} [{id}]\n", result.summary),
        None => format!("{}\n", result.summary),
    };
    let mut reply = Reply::new(fields, human);
    if !result.history_skipped.is_empty() {
        reply.notes.push(format!(
            "history skipped for {} (above max_history_blob_bytes): this change cannot be undone",
            result.history_skipped.join(", ")
        ));
    }
    reply
}
