//! `keeper file apply-patch`: a unified diff or a Codex patch, applied whole or not at all.

use super::input;
use crate::commands::Context;
use crate::commands::mutation::{self, MutationArgs};
use crate::output::Reply;
use clap::Args;
use filekeeper::{Code, Error, MutationResult, Result, Workspace};
use std::path::PathBuf;

/// Apply a unified diff (diff -u or git diff) or a Codex patch (*** Begin Patch) from a file or
/// stdin: every hunk is checked before anything is written; a failed or ambiguous hunk
/// rejects the whole patch.
///
/// A patch whose first non-empty line is "*** Begin Patch" is read as a Codex patch (the
/// apply_patch format of OpenAI's Codex models; see docs/editing.md): its hunks have no line
/// numbers and apply only where their lines occur exactly once.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file apply-patch fix.patch --dry-run
  git -C ../upstream diff | keeper file apply-patch
  diff -u old.txt new.txt | keeper file apply-patch
  printf '*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** End Patch\n' | keeper file apply-patch"#)]
pub struct ApplyPatchArgs {
    /// The patch file (default: standard input).
    pub patch: Option<PathBuf>,
    /// The version (a read's content_hash) of the one file the patch modifies that its hunks
    /// were made on: if the file changed since, the patch is applied to that version and
    /// merged into the file as it is now, or refused (CONTENT_CONFLICT) where both changed
    /// the same lines.
    #[arg(long = "base", value_name = "HASH")]
    pub base_hash: Option<String>,
    #[command(flatten)]
    pub mutation: MutationArgs,
}

pub fn cmd_apply_patch(cx: &Context, ws: &Workspace, args: &ApplyPatchArgs) -> Result<Reply> {
    let limit = ws.plumbing().limits.max_patch_bytes;
    let bytes = input::patch(args.patch.as_deref(), limit)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::new(Code::PatchFailed, "the patch is not UTF-8 text").with("reason", "not_utf8")
    })?;
    let options = args.mutation.options(cx.global);
    let result = ws.apply_patch_on(&text, args.base_hash.as_deref(), &options)?;
    let (dry_run, files) = (result.dry_run, patch_lines(&result));
    if !dry_run {
        return Ok(mutation::reply_with(ws, result, &files));
    }
    // A dry run's stdout is its diff; what each file would undergo goes beside it, on stderr.
    let mut reply = mutation::reply(ws, result);
    reply.notes.extend(
        files
            .lines()
            .map(|l| format!("would be {}", l.trim_start())),
    );
    Ok(reply)
}

/// A line per file section of a patch, saying what happens to the file and how its hunks
/// apply.
fn patch_lines(result: &MutationResult) -> String {
    let Some(files) = result.extra.patch_files.as_ref() else {
        return String::new();
    };
    let mut out = String::new();
    for file in files {
        let path = filekeeper::quote::path(&file.path);
        let what = match &file.from {
            Some(from) => format!(
                "{} {} -> {path}",
                file.change,
                filekeeper::quote::path(from)
            ),
            None => format!("{} {path}", file.change.as_str().replace('_', " ")),
        };
        let mut notes = Vec::new();
        if let Some(mode) = file.mode {
            notes.push(mode.to_owned());
        }
        let hunks = file.hunks.len();
        if hunks > 0 {
            notes.push(format!("{hunks} hunk{}", if hunks == 1 { "" } else { "s" }));
        }
        for h in file.hunks.iter().filter(|h| h.offset != 0) {
            notes.push(format!("hunk {} at offset {:+}", h.hunk, h.offset));
        }
        if notes.is_empty() {
            out.push_str(&format!("  {what}\n"));
        } else {
            out.push_str(&format!("  {what} ({})\n", notes.join(", ")));
        }
    }
    out
}
