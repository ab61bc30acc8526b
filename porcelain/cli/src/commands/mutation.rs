//! What every mutating command shares, whatever its noun: the `--dry-run` and
//! `--i-accept-secret-write-risk` options, and how a mutation's result is shown.

use super::Global;
use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::{MutationDiff, MutationOptions, MutationResult, Workspace};

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
/// otherwise the summary and the operation id, then a line per changed path with its
/// counts of added and removed lines (the full diff too with --verbose).
pub fn reply(ws: &Workspace, result: MutationResult) -> Reply {
    reply_with(ws, result, "")
}

/// [`reply`], with `lines` of the command's own (ending with a newline) after the summary.
pub fn reply_with(ws: &Workspace, result: MutationResult, lines: &str) -> Reply {
    let fields = workspace_fields(ws, &result);
    if result.dry_run {
        let mut reply = Reply::new(fields, result.preview_diff.clone().unwrap_or_default());
        reply.diff = true;
        // The preview on stdout is the diff.
        reply.shown_fields = &["diffs"];
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
    let summary = filekeeper::quote::line(&result.summary);
    let mut human = match &result.operation_id {
        Some(id) => format!("{summary} [{id}]\n"),
        None => format!("{summary}\n"),
    };
    human.push_str(lines);
    human.push_str(&stat(&result.diffs));
    let mut reply = Reply::new(fields, human);
    reply.verbose_diff = result
        .diffs
        .iter()
        .filter_map(|d| d.diff.as_deref())
        .collect();
    reply.shown_fields = &["diffs"];
    // At 0 no diff is wanted, so none being shown is no news.
    if result.diff_truncated && ws.plumbing().limits.max_diff_bytes > 0 {
        reply.notes.push(match &result.operation_id {
            Some(id) => format!(
                "the diff was cut at max_diff_bytes; `keeper history diff {id}` shows the whole change"
            ),
            None => "the diff was cut at max_diff_bytes".into(),
        });
    }
    if !result.history_skipped.is_empty() {
        reply.notes.push(format!(
            "history skipped for {} (above max_history_blob_bytes): this change cannot be undone",
            result.history_skipped.join(", ")
        ));
    }
    reply
}

/// A line per path whose content changed, as `git diff --stat` writes it but with the counts
/// spelt out: ` notes.md | 3 +2 -1`, or what kept it from being diffed (` logo.png | binary`).
/// Directories and unchanged files are left out: the summary speaks for them.
fn stat(diffs: &[MutationDiff]) -> String {
    let shown: Vec<(std::borrow::Cow<str>, String)> = diffs
        .iter()
        .filter_map(|d| {
            let what = match d.diff_kind {
                "directory" | "unchanged" => return None,
                "text" => {
                    let (added, removed) =
                        (d.lines_added.unwrap_or(0), d.lines_removed.unwrap_or(0));
                    format!("{} +{added} -{removed}", added + removed)
                }
                "too_large" => "too large to diff".to_owned(),
                "omitted" => "diff omitted".to_owned(),
                "never_stored" => "not stored".to_owned(),
                other => other.to_owned(),
            };
            Some((filekeeper::quote::path(&d.path), what))
        })
        .collect();
    let width = shown
        .iter()
        .map(|(path, _)| path.chars().count())
        .max()
        .unwrap_or(0);
    shown
        .iter()
        .map(|(path, what)| format!(" {path:<width$} | {what}\n"))
        .collect()
}
