//! `keeper journal-begin|journal-commit|journal-abort|journal-show`: an operation's record,
//! written by hand around a script's own `publish` steps.

use super::{open, reply};
use crate::commands::Context;
use crate::output::{Reply, recorded_state};
use clap::Args;
use filekeeper::ObjectId;
use filekeeper::plumbing::commands::{self, JournalEntry};
use filekeeper::plumbing::journal::OperationRecord;
use filekeeper::plumbing::strict_json::{ParseError, parse_unique};
use filekeeper::{Error, Result};
use serde_json::{Value, json};
use std::io::Read;

/// Record a pending operation; prints its id. Items' blobs must already be stored.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  op=$(keeper journal-begin --kind create --item "{\"path\": \"new.md\", \"after_hash\": \"$new\"}")
  keeper --actor deploy journal-begin --stdin < operation.json"#)]
pub struct JournalBeginArgs {
    /// Read the whole operation as one JSON object from stdin
    /// ({"kind", "summary", "target_path", "source_path", "metadata", "items": [...]}).
    #[arg(long, conflicts_with_all = ["kind", "item", "summary", "target", "source", "metadata"])]
    pub stdin: bool,
    /// The operation kind, e.g. write, create, delete.
    #[arg(long, required_unless_present = "stdin")]
    pub kind: Option<String>,
    /// One affected path as a JSON object; repeat for several
    /// ({"path", "before_hash", "after_hash", "before_mode", "after_mode", ...}).
    #[arg(long, value_name = "JSON")]
    pub item: Vec<String>,
    /// A one-line description of the operation.
    #[arg(long)]
    pub summary: Option<String>,
    /// The path the operation targets (default: the first item's path).
    #[arg(long, value_name = "PATH")]
    pub target: Option<String>,
    /// The path the operation read from (copy and move).
    #[arg(long, value_name = "PATH")]
    pub source: Option<String>,
    /// Extra metadata as a JSON object.
    #[arg(long, value_name = "JSON")]
    pub metadata: Option<String>,
    /// Accept credential-shaped item paths.
    #[arg(long)]
    pub i_accept_secret_write_risk: bool,
}

/// Mark a pending operation committed, after verifying every path holds its after state.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper publish notes.md --blob "$new" --expected-hash "$old" && keeper journal-commit "$op"
  keeper journal-commit op_1a2b3c4d5e6f7a8b"#)]
pub struct JournalCommitArgs {
    /// The operation id, op_<16 hex>.
    pub operation_id: String,
}

/// Mark a pending operation rolled back, after verifying every path holds its before state.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper publish notes.md --blob "$new" --expected-hash "$old" || keeper journal-abort "$op"
  keeper journal-abort op_1a2b3c4d5e6f7a8b"#)]
pub struct JournalAbortArgs {
    /// The operation id, op_<16 hex>.
    pub operation_id: String,
}

/// Show one journal record with its items.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper journal-show "$op"
  keeper --json journal-show op_1a2b3c4d5e6f7a8b"#)]
pub struct JournalShowArgs {
    /// The operation id, op_<16 hex>.
    pub operation_id: String,
}

pub fn cmd_journal_begin(cx: &Context, args: &JournalBeginArgs) -> Result<Reply> {
    let ws = open(cx)?;
    let spec = if args.stdin {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Error::storage("reading stdin", &e))?;
        parse_json("standard input", &text)?
    } else {
        let items = args
            .item
            .iter()
            .map(|i| parse_json("--item", i))
            .collect::<Result<Vec<_>>>()?;
        let metadata = args
            .metadata
            .as_deref()
            .map(|m| parse_json("--metadata", m))
            .transpose()?;
        json!({
            "kind": args.kind,
            "summary": args.summary,
            "target_path": args.target,
            "source_path": args.source,
            "metadata": metadata,
            "items": items,
        })
    };
    let mut op = filekeeper::plumbing::journal::NewOperation::from_json(&spec)?;
    op.actor = cx.global.actor.clone();
    op.task_id = cx.global.task_id.clone();
    let begun = commands::journal_begin(&ws, op, args.i_accept_secret_write_risk)?;
    let human = format!("{}\n", begun.operation_id);
    Ok(reply(&ws, begun, human))
}

pub fn cmd_journal_commit(cx: &Context, args: &JournalCommitArgs) -> Result<Reply> {
    let ws = open(cx)?;
    let entry = commands::journal_commit(&ws, &args.operation_id)?;
    Ok(resolved(&ws, &args.operation_id, entry))
}

pub fn cmd_journal_abort(cx: &Context, args: &JournalAbortArgs) -> Result<Reply> {
    let ws = open(cx)?;
    let entry = commands::journal_abort(&ws, &args.operation_id)?;
    Ok(resolved(&ws, &args.operation_id, entry))
}

/// A commit's or an abort's reply: the id and the status it now has.
fn resolved(
    ws: &filekeeper::plumbing::workspace::Workspace,
    operation_id: &str,
    entry: JournalEntry,
) -> Reply {
    let human = format!("{operation_id} {}\n", entry.operation.head.status.as_str());
    reply(ws, entry, human)
}

pub fn cmd_journal_show(cx: &Context, args: &JournalShowArgs) -> Result<Reply> {
    let ws = open(cx)?;
    let entry = commands::journal_show(&ws, &args.operation_id)?;
    let human = render_operation(&entry.operation);
    Ok(reply(&ws, entry, human))
}

/// `text` as JSON, refusing an object that names a field twice (which of the two was meant
/// cannot be known).
fn parse_json(flag: &str, text: &str) -> Result<Value> {
    parse_unique(text).map_err(|e| match e {
        ParseError::Syntax(e) => Error::invalid(format!("{flag} is not valid JSON: {e}")),
        ParseError::Repeated { at, name } => {
            let object = if at.is_empty() {
                String::new()
            } else {
                format!(" (in the object at {at})")
            };
            Error::invalid(format!(
                "{flag} names {name:?} twice{object}; give each field once"
            ))
            .with("field", name)
        }
    })
}

/// A journal record for people.
fn render_operation(op: &OperationRecord) -> String {
    let head = &op.head;
    let or_dash = |value: &Option<String>| value.clone().unwrap_or_else(|| "-".into());
    let mut out = format!(
        "operation {}\nkind:     {}\nstatus:   {}\ncreated:  {}\nupdated:  {}\nactor:    {}\ntask:     {}\ntarget:   {}\n",
        head.id,
        head.kind,
        head.status.as_str(),
        head.created_at,
        head.updated_at,
        or_dash(&head.actor),
        or_dash(&head.task_id),
        filekeeper::quote::path(&or_dash(&head.target_path)),
    );
    if let Some(source) = &head.source_path {
        out.push_str(&format!("source:   {}\n", filekeeper::quote::path(source)));
    }
    if !head.summary.is_empty() {
        out.push_str(&format!(
            "summary:  {}\n",
            filekeeper::quote::line(&head.summary)
        ));
    }
    for item in &op.items {
        let side = |exists: bool, hash: &Option<ObjectId>, mode: Option<u32>| {
            if exists {
                recorded_state(hash.as_ref(), mode)
            } else {
                "(absent)".to_owned()
            }
        };
        out.push_str(&format!(
            "  {:<9} {}\n            before: {}\n            after:  {}\n",
            item.change.as_str(),
            filekeeper::quote::path(&item.path),
            side(item.before_exists, &item.before_hash, item.before_mode),
            side(item.after_exists, &item.after_hash, item.after_mode),
        ));
    }
    out
}
