//! `keeper file info|hash|exists`: what is at a path, without reading it to the caller.

use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::documents::FileHash;
use filekeeper::{Result, Workspace};
use serde_json::Value;

/// Show kind, size, mode, modification time, and for files the text facts and hash.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file info notes.md
  keeper --json file info notes.md"#)]
pub struct InfoArgs {
    /// The path, workspace-relative.
    pub path: String,
}

/// Print a file's content hash (sha256:..., the id `--expected-hash` takes).
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file hash notes.md
  keeper --json file hash notes.md"#)]
pub struct HashArgs {
    /// The file, workspace-relative.
    pub path: String,
}

/// Exit 0 when the path exists and 3 when it does not: a shell predicate.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Example:
  keeper file exists notes.md && echo present"#)]
pub struct ExistsArgs {
    /// The path, workspace-relative.
    pub path: String,
}

pub fn cmd_info(ws: &Workspace, args: &InfoArgs) -> Result<Reply> {
    let info = ws.info(&args.path)?;
    let doc = workspace_fields(ws, &info);
    // One `key value` line per field the document has, in its order: the human form
    // follows the JSON one, so a field added to `FileInfo` shows in both.
    let mut human = String::new();
    for (key, value) in doc
        .iter()
        .filter(|(k, v)| *k != "workspace" && !v.is_null())
    {
        let shown = match (key.as_str(), value) {
            ("mode", Value::Number(n)) => format!("{:o}", n.as_u64().unwrap_or(0)),
            ("path", Value::String(s)) => filekeeper::quote::path(s).into_owned(),
            (_, Value::String(s)) => filekeeper::quote::line(s).into_owned(),
            (_, other) => other.to_string(),
        };
        human.push_str(&format!("{key:<11} {shown}\n"));
    }
    Ok(Reply::new(doc, human))
}

pub fn cmd_hash(ws: &Workspace, args: &HashArgs) -> Result<Reply> {
    let (hash, size) = ws.hash_file(&args.path)?;
    let human = format!("{hash}\n");
    let doc = FileHash {
        path: args.path.clone(),
        hash,
        size_bytes: size,
    };
    Ok(Reply::new(workspace_fields(ws, doc), human))
}

pub fn cmd_exists(ws: &Workspace, args: &ExistsArgs) -> Result<Reply> {
    let found = ws.exists(&args.path)?;
    let kind = found.kind.unwrap_or("absent");
    let human = match (found.target_kind, &found.target) {
        (Some(how), Some(to)) => format!("{kind} ({how}: {to})\n"),
        (Some(how), None) => format!("{kind} ({how})\n"),
        _ => format!("{kind}\n"),
    };
    let mut reply = Reply::new(workspace_fields(ws, &found), human);
    if !found.exists {
        reply.exit = filekeeper::Code::PathNotFound.exit_code();
    }
    Ok(reply)
}
