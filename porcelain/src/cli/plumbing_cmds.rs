//! The plumbing subcommands on `keeper`: thin wrappers over `filekeeper_plumbing::commands`.

use super::args::{Command, Global, HashObjectArgs, JournalBeginArgs, PublishArgs};
use super::output::Reply;
use crate::documents::CatBlobText;
use crate::envelope::fields_of;
use crate::plumbing::commands::{self, Fields, HashSource, JournalEntry};
use crate::plumbing::journal::NewOperation;
use crate::plumbing::publish::Expect;
use crate::plumbing::workspace::Workspace;
use crate::{Code, Error, Filekeeper, ObjectId, Result};
use serde_json::{Value, json};
use std::io::{Read, Write};

pub fn run(keeper: &Filekeeper, global: &Global, command: &Command) -> Result<Reply> {
    let open = || {
        keeper
            .workspace(global.workspace.as_deref(), global.root.as_deref())
            .map(|ws| ws.into_plumbing())
    };
    let (ws, mut fields, human) = match command {
        Command::HashObject(args) => {
            let needs_workspace = args.write || !args.stdin;
            let ws = if needs_workspace { Some(open()?) } else { None };
            let (fields, human) = hash_object(ws.as_ref(), args)?;
            (ws, fields, human)
        }
        Command::CatBlob { id } => {
            let ws = open()?;
            let (fields, human) = cat_blob(&ws, id, global.json)?;
            (Some(ws), fields, human)
        }
        Command::ResolvePath {
            path,
            for_write,
            i_accept_secret_write_risk,
        } => {
            let ws = open()?;
            let resolved =
                commands::resolve_path(&ws, path, *for_write, *i_accept_secret_write_risk)?;
            let human = format!("{}\n", resolved.resolved);
            (Some(ws), fields_of(resolved), human)
        }
        Command::JournalBegin(args) => {
            let ws = open()?;
            let begun = journal_begin(&ws, global, args)?;
            let human = format!("{}\n", begun.operation_id);
            (Some(ws), fields_of(begun), human)
        }
        Command::JournalCommit { operation_id } | Command::JournalAbort { operation_id } => {
            let ws = open()?;
            let commit = matches!(command, Command::JournalCommit { .. });
            let entry: JournalEntry = if commit {
                commands::journal_commit(&ws, operation_id)?
            } else {
                commands::journal_abort(&ws, operation_id)?
            };
            let status = entry.operation.head.status.as_str();
            let human = format!("{operation_id} {status}\n");
            (Some(ws), fields_of(entry), human)
        }
        Command::JournalShow { operation_id } => {
            let ws = open()?;
            let fields = fields_of(commands::journal_show(&ws, operation_id)?);
            let human = render_operation(&fields["operation"]);
            (Some(ws), fields, human)
        }
        Command::Publish(args) => {
            let ws = open()?;
            let published = publish(&ws, args)?;
            let human = format!("{}\n", published.after_hash);
            (Some(ws), fields_of(published), human)
        }
        Command::Fsck => {
            let ws = open()?;
            let fsck = commands::fsck(&ws)?;
            let human = format!(
                "fsck: {} objects and {} operations verified; no damage\n",
                fsck.report.objects, fsck.report.operations
            );
            (Some(ws), fields_of(fsck), human)
        }
        Command::Recover => {
            let ws = open()?;
            let recovered = commands::recover(&ws)?;
            let human = recovered
                .resolved
                .iter()
                .map(|r| format!("{} {}\n", r.operation_id, r.status.as_str()))
                .collect::<String>();
            (Some(ws), fields_of(recovered), human)
        }
        Command::Init
        | Command::Workspace(_)
        | Command::File(_)
        | Command::Dir(_)
        | Command::History(_)
        | Command::Completions { .. }
        | Command::Man => {
            unreachable!("dispatched elsewhere")
        }
    };
    if let Some(ws) = ws {
        let mut doc = serde_json::Map::new();
        doc.insert("workspace".into(), json!(ws.name));
        doc.append(&mut fields);
        fields = doc;
    }
    Ok(Reply::new(fields, human))
}

fn hash_object(ws: Option<&Workspace>, args: &HashObjectArgs) -> Result<(Fields, String)> {
    let mut stdin = std::io::stdin().lock();
    let source = match &args.file {
        Some(path) => HashSource::Path(path),
        None => HashSource::Stdin(&mut stdin),
    };
    let hashed = commands::hash_object(ws, source, args.write)?;
    let human = format!("{}\n", hashed.object_id);
    Ok((fields_of(hashed), human))
}

fn cat_blob(ws: &Workspace, id: &str, json: bool) -> Result<(Fields, String)> {
    if !json {
        let mut stdout = std::io::stdout().lock();
        let blob = commands::cat_blob(ws, id, &mut stdout)?;
        stdout
            .flush()
            .map_err(|e| Error::storage("writing output", &e))?;
        return Ok((fields_of(blob), String::new()));
    }
    let mut bytes = Vec::new();
    let blob = commands::cat_blob(ws, id, &mut bytes)?;
    let content = String::from_utf8(bytes).map_err(|_| {
        Error::new(
            Code::BinaryContentRefused,
            "the blob is not UTF-8 text and cannot be carried in JSON",
        )
        .with("object_id", id)
        .recovery("run cat-blob without --json to get the raw bytes")
    })?;
    Ok((fields_of(CatBlobText { blob, content }), String::new()))
}

fn parse_json(flag: &str, text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| Error::invalid(format!("{flag} is not valid JSON: {e}")))
}

fn journal_begin(
    ws: &Workspace,
    global: &Global,
    args: &JournalBeginArgs,
) -> Result<commands::JournalBegun> {
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
    let mut op = NewOperation::from_json(&spec)?;
    op.actor = global.actor.clone();
    op.task_id = global.task_id.clone();
    commands::journal_begin(ws, op, args.i_accept_secret_write_risk)
}

fn publish(ws: &Workspace, args: &PublishArgs) -> Result<commands::Published> {
    let expect = match (&args.expected_hash, args.create) {
        (Some(h), _) => Expect::Hash(ObjectId::parse(h)?),
        (None, true) => Expect::Absent,
        (None, false) => Expect::Any,
    };
    let mode = args
        .mode
        .as_deref()
        .map(|m| {
            u32::from_str_radix(m.trim_start_matches("0o"), 8)
                .ok()
                .filter(|m| *m <= 0o7777)
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "--mode must be octal permission bits such as 644, not {m:?}"
                    ))
                })
        })
        .transpose()?;
    commands::publish_blob(
        ws,
        &args.path,
        &args.blob,
        expect,
        mode,
        args.i_accept_secret_write_risk,
    )
}

/// A journal record for people.
fn render_operation(op: &Value) -> String {
    let text = |v: &Value| v.as_str().map(str::to_owned).unwrap_or_else(|| "-".into());
    let mut out = format!(
        "operation {}\nkind:     {}\nstatus:   {}\ncreated:  {}\nupdated:  {}\nactor:    {}\ntask:     {}\ntarget:   {}\n",
        text(&op["id"]),
        text(&op["kind"]),
        text(&op["status"]),
        text(&op["created_at"]),
        text(&op["updated_at"]),
        text(&op["actor"]),
        text(&op["task_id"]),
        text(&op["target_path"]),
    );
    if !op["source_path"].is_null() {
        out.push_str(&format!("source:   {}\n", text(&op["source_path"])));
    }
    if !op["summary"].as_str().unwrap_or_default().is_empty() {
        out.push_str(&format!("summary:  {}\n", text(&op["summary"])));
    }
    for item in op["items"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  {:<9} {}\n            before: {}\n            after:  {}\n",
            text(&item["change"]),
            text(&item["path"]),
            side(item, "before"),
            side(item, "after"),
        ));
    }
    out
}

fn side(item: &Value, which: &str) -> String {
    if item[format!("{which}_exists")] != Value::Bool(true) {
        return "(absent)".into();
    }
    let hash = item[format!("{which}_hash")]
        .as_str()
        .unwrap_or("(not stored)")
        .to_owned();
    match item[format!("{which}_mode")].as_u64() {
        Some(mode) => format!("{hash} mode {mode:o}"),
        None => hash,
    }
}
