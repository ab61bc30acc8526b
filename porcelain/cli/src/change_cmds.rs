//! `keeper file create|write|copy|move|delete` and `keeper dir …`: the mutating commands.

use super::args::{
    ContentSource, DirCommand, EditGuardArgs, FileCommand, Global, MutationArgs, PositionArg,
};
use super::output::Reply;
use filekeeper::{
    EditGuards, Error, MutationOptions, MutationResult, Policy, Position, Result, Workspace,
};
use std::io::{IsTerminal, Read};

fn edit_guards(args: &EditGuardArgs) -> EditGuards {
    EditGuards {
        expected_hash: args.expected_hash.clone(),
        expected_content: args.expected_content.clone(),
    }
}

/// Text given inline or in a file (read whole, as UTF-8, at most `limit` bytes).
fn text_arg(
    inline: &Option<String>,
    file: &Option<std::path::PathBuf>,
    flag: &str,
    limit: u64,
) -> Result<String> {
    if let Some(text) = inline {
        return Ok(text.clone());
    }
    let path = file
        .as_ref()
        .ok_or_else(|| Error::invalid(format!("{flag} or its inline form is required")))?;
    let bytes = read_bounded(open_named(path, flag)?, limit, flag, "max_write_bytes")?;
    String::from_utf8(bytes).map_err(|_| {
        Error::invalid(format!("{flag} is not UTF-8 text"))
            .with("input", path.display().to_string())
    })
}

/// At most `limit` bytes of `reader`. More is LIMIT_EXCEEDED with the size found: the rest is
/// counted, not kept, up to a bound, so an endless source (a device, a pipe that never ends)
/// is refused too instead of read forever.
fn read_bounded(
    mut reader: impl Read,
    limit: u64,
    what: &str,
    limit_name: &str,
) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let reading = |e: std::io::Error| Error::storage(&format!("reading {what}"), &e);
    (&mut reader)
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(reading)?;
    if bytes.len() as u64 > limit {
        let counted = COUNT_BEYOND_LIMIT.saturating_mul(limit.max(1));
        let rest = std::io::copy(&mut (&mut reader).take(counted), &mut std::io::sink())
            .map_err(reading)?;
        let mut err = filekeeper::too_large(what, bytes.len() as u64 + rest, limit_name, limit);
        if rest == counted {
            err.message = format!(
                "{what} is more than {limit_name} {limit} (counted to {} bytes and stopped)",
                bytes.len() as u64 + rest
            );
        }
        return Err(err);
    }
    Ok(bytes)
}

/// How many times the limit an oversized input is counted beyond it before reading stops.
const COUNT_BEYOND_LIMIT: u64 = 16;

/// Opens a file the caller named (`named` says how, for the message). One that does not
/// exist, cannot be read or is a directory is the caller's to fix: INVALID_ARGUMENT.
fn open_named(path: &std::path::Path, named: &str) -> Result<std::fs::File> {
    let refused = |why: &str| {
        Error::invalid(format!("cannot read {named}: {why}"))
            .with("input", path.display().to_string())
    };
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => refused("no such file"),
        std::io::ErrorKind::PermissionDenied => refused("permission denied"),
        _ => Error::storage(&format!("opening {named}"), &e)
            .with("input", path.display().to_string()),
    })?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(refused("it is a directory"));
    }
    Ok(file)
}

pub(crate) fn options(global: &Global, args: &MutationArgs) -> MutationOptions {
    MutationOptions {
        dry_run: args.dry_run,
        actor: global.actor.clone(),
        task_id: global.task_id.clone(),
        allow_sensitive_write: args.i_accept_secret_write_risk,
    }
}

/// The new content: --content, --input, or standard input when it is not a terminal. Holds at
/// most one byte more than the limit: an oversized input is counted to its end, not kept, and
/// refused with its real size, as the library would refuse it.
fn content(source: &ContentSource, limit: u64, what: &str, limit_name: &str) -> Result<Vec<u8>> {
    if let Some(text) = &source.content {
        return Ok(text.clone().into_bytes());
    }
    // The content comes from --input; a patch from the file named as the argument.
    let (named, nothing) = if what == "patch" {
        (
            "the patch file",
            "no patch: name a patch file, or pipe the patch on stdin",
        )
    } else {
        (
            "--input",
            "no content: pass --content TEXT, --input FILE, or pipe it on stdin",
        )
    };
    let reader: Box<dyn Read> = if let Some(path) = &source.input {
        Box::new(open_named(path, named)?)
    } else if std::io::stdin().is_terminal() {
        return Err(Error::invalid(nothing));
    } else {
        Box::new(std::io::stdin().lock())
    };
    read_bounded(reader, limit, what, limit_name)
}

pub(crate) fn reply(ws: &Workspace, result: MutationResult) -> Reply {
    let fields = filekeeper::envelope::result_fields(ws.name(), &result);
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

pub fn file(ws: &Workspace, cmd: &FileCommand, global: &Global) -> Result<Reply> {
    let limit = ws.plumbing().limits.max_write_bytes;
    let result = match cmd {
        FileCommand::Create {
            path,
            source,
            allow_existing,
            mutation,
        } => ws.create_file(
            path,
            &content(source, limit, "content", "max_write_bytes").map_err(|e| e.path(path))?,
            *allow_existing,
            &options(global, mutation),
        )?,
        FileCommand::Write {
            path,
            source,
            expected_hash,
            remove_bom,
            mutation,
        } => ws.write_file(
            path,
            &content(source, limit, "content", "max_write_bytes").map_err(|e| e.path(path))?,
            expected_hash.as_deref(),
            *remove_bom,
            &options(global, mutation),
        )?,
        FileCommand::Copy {
            source,
            destination,
            expected_destination_hash,
            mutation,
        } => ws.copy_file(
            source,
            destination,
            expected_destination_hash.as_deref(),
            &options(global, mutation),
        )?,
        FileCommand::Move {
            source,
            destination,
            overwrite,
            mutation,
        } => ws.move_file(source, destination, *overwrite, &options(global, mutation))?,
        FileCommand::Delete {
            path,
            expected_hash,
            mutation,
        } => ws.delete_file(path, expected_hash.as_deref(), &options(global, mutation))?,
        FileCommand::ReplaceText {
            path,
            old,
            old_file,
            new,
            new_file,
            first,
            all: _,
            expected_match_count,
            guards,
            mutation,
        } => {
            let limit = ws.plumbing().limits.max_write_bytes;
            let old = text_arg(old, old_file, "--old-file", limit)?;
            let new = text_arg(new, new_file, "--new-file", limit)?;
            let policy = if *first { Policy::First } else { Policy::All };
            ws.replace_text(
                path,
                &old,
                &new,
                policy,
                *expected_match_count,
                &edit_guards(guards),
                &options(global, mutation),
            )?
        }
        FileCommand::ReplaceLines {
            path,
            start,
            end,
            replacement,
            guards,
            mutation,
        } => ws.replace_lines(
            path,
            *start,
            *end,
            replacement,
            &edit_guards(guards),
            &options(global, mutation),
        )?,
        FileCommand::InsertLines {
            path,
            position,
            line,
            content,
            guards,
            mutation,
        } => {
            let position = match position {
                PositionArg::Before => Position::Before,
                PositionArg::After => Position::After,
                PositionArg::End => Position::End,
            };
            ws.insert_lines(
                path,
                position,
                *line,
                content,
                &edit_guards(guards),
                &options(global, mutation),
            )?
        }
        FileCommand::DeleteLines {
            path,
            start,
            end,
            guards,
            mutation,
        } => ws.delete_lines(
            path,
            *start,
            *end,
            &edit_guards(guards),
            &options(global, mutation),
        )?,
        FileCommand::ApplyPatch { patch, mutation } => {
            let limit = ws.plumbing().limits.max_patch_bytes;
            let source = ContentSource {
                content: None,
                input: patch.clone(),
            };
            let bytes = content(&source, limit, "patch", "max_patch_bytes")?;
            let text = String::from_utf8(bytes).map_err(|_| {
                Error::new(filekeeper::Code::PatchFailed, "the patch is not UTF-8 text")
                    .with("reason", "not_utf8")
            })?;
            let result = ws.apply_patch(&text, &options(global, mutation))?;
            let (dry_run, files) = (result.dry_run, patch_lines(&result));
            let mut reply = reply(ws, result);
            if dry_run {
                // A dry run's stdout is its diff; what each file would undergo goes beside
                // it, on stderr.
                reply.notes.extend(
                    files
                        .lines()
                        .map(|l| format!("would be {}", l.trim_start())),
                );
            } else {
                reply.human.extend_from_slice(files.as_bytes());
            }
            return Ok(reply);
        }
        _ => return Err(Error::internal("not a mutating file command")),
    };
    Ok(reply(ws, result))
}

/// A line per file section of a patch, saying what happens to the file and how its hunks
/// apply.
fn patch_lines(result: &MutationResult) -> String {
    let Some(files) = result.extra.patch_files.as_ref() else {
        return String::new();
    };
    let mut out = String::new();
    for file in files {
        let what = match &file.from {
            Some(from) => format!("{} {from} -> {}", file.change, file.path),
            None => format!("{} {}", file.change.replace('_', " "), file.path),
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

pub fn dir(ws: &Workspace, cmd: &DirCommand, global: &Global) -> Result<Reply> {
    let result = match cmd {
        DirCommand::Create {
            path,
            parents,
            mutation,
        } => ws.create_dir(path, *parents, &options(global, mutation))?,
        DirCommand::Move {
            source,
            destination,
            mutation,
        } => ws.move_dir(source, destination, &options(global, mutation))?,
        DirCommand::Delete {
            path,
            recursive,
            mutation,
            ..
        } => ws.delete_dir(path, *recursive, &options(global, mutation))?,
    };
    Ok(reply(ws, result))
}
