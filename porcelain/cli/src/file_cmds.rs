//! `keeper file …`: the read-only file commands.

use super::args::{FileCommand, ReadArgs};
use super::output::Reply;
use filekeeper::documents::{FileHash, ReadMany, ReadManyItem};
use filekeeper::{
    GrepOptions, ListOptions, Listing, ManyItem, ReadOptions, ReadResult, Result, Workspace,
};
use serde_json::{Map, Value};

fn fields(workspace: &Workspace, value: impl serde::Serialize) -> Map<String, Value> {
    filekeeper::envelope::result_fields(workspace.name(), value)
}

pub fn run(ws: &Workspace, cmd: &FileCommand, json: bool) -> Result<Reply> {
    match cmd {
        FileCommand::Read(ReadArgs {
            path,
            range,
            max_bytes,
        }) => {
            let options = ReadOptions {
                from_line: range.from_line,
                to_line: range.to_line,
                max_bytes: *max_bytes,
                encoding: range.encoding.clone(),
            };
            let read = ws.read_file(path, &options)?;
            let notes = read_notes(&read);
            let mut reply = Reply::new(fields(ws, &read), read.raw.clone());
            reply.notes = notes;
            Ok(reply)
        }
        FileCommand::ReadMany {
            paths,
            range,
            max_bytes_per_file,
        } => {
            let options = ReadOptions {
                from_line: range.from_line,
                to_line: range.to_line,
                max_bytes: *max_bytes_per_file,
                encoding: range.encoding.clone(),
            };
            let items = ws.read_many(paths, &options)?;
            let mut human = Vec::new();
            let mut notes = Vec::new();
            let mut results = Vec::new();
            for item in items {
                match &item {
                    ManyItem::Read(read) => {
                        human.extend_from_slice(format!("==> {} <==\n", read.path).as_bytes());
                        human.extend_from_slice(&read.raw);
                        if !read.raw.is_empty()
                            && !read.raw.ends_with(b"\n")
                            && !read.raw.ends_with(b"\r")
                        {
                            human.push(b'\n');
                        }
                        notes.extend(
                            read_notes(read)
                                .into_iter()
                                .map(|n| format!("{}: {n}", read.path)),
                        );
                    }
                    ManyItem::Failed { path, error } => {
                        let error = super::name_override(error.clone());
                        notes.push(format!("{path}: error[{}]: {}", error.code, error.message));
                    }
                }
                results.push(ReadManyItem::new(item, super::name_override));
            }
            let mut reply = Reply::new(fields(ws, ReadMany { results }), human);
            reply.notes = notes;
            Ok(reply)
        }
        FileCommand::Info { path } => {
            let info = ws.info(path)?;
            let doc = fields(ws, &info);
            let mut human = String::new();
            for (key, value) in doc
                .iter()
                .filter(|(k, v)| *k != "workspace" && !v.is_null())
            {
                let shown = match (key.as_str(), value) {
                    ("mode", Value::Number(n)) => format!("{:o}", n.as_u64().unwrap_or(0)),
                    (_, Value::String(s)) => s.clone(),
                    (_, other) => other.to_string(),
                };
                human.push_str(&format!("{key:<11} {shown}\n"));
            }
            Ok(Reply::new(doc, human))
        }
        FileCommand::Hash { path } => {
            let (hash, size) = ws.hash_file(path)?;
            let human = format!("{hash}\n");
            let doc = FileHash {
                path: path.clone(),
                hash,
                size_bytes: size,
            };
            Ok(Reply::new(fields(ws, doc), human))
        }
        FileCommand::Exists { path } => {
            let found = ws.exists(path)?;
            let kind = found.kind.unwrap_or("absent");
            let human = match (found.target_kind, &found.target) {
                (Some(how), Some(to)) => format!("{kind} ({how}: {to})\n"),
                (Some(how), None) => format!("{kind} ({how})\n"),
                _ => format!("{kind}\n"),
            };
            let mut reply = Reply::new(fields(ws, &found), human);
            if !found.exists {
                reply.exit = filekeeper::Code::PathNotFound.exit_code();
            }
            Ok(reply)
        }
        FileCommand::List {
            path,
            recursive,
            glob,
            max_entries,
        } => {
            let options = ListOptions {
                recursive: *recursive,
                glob: glob.clone(),
                max_entries: *max_entries,
            };
            let listing = ws.list(path.as_deref(), &options)?;
            Ok(listing_reply(ws, listing, json))
        }
        FileCommand::Search {
            path,
            glob,
            max_results,
        } => {
            let listing = ws.search(path, glob, *max_results)?;
            Ok(listing_reply(ws, listing, json))
        }
        FileCommand::Grep {
            path,
            query,
            regex,
            glob,
            ignore_case,
            max_results,
            encoding,
        } => {
            let options = GrepOptions {
                regex: *regex,
                glob: glob.clone(),
                ignore_case: *ignore_case,
                max_results: *max_results,
                encoding: encoding.clone(),
            };
            let found = ws.grep(path, query, &options)?;
            let mut human = String::new();
            for m in &found.matches {
                human.push_str(&format!("{}:{}:{}:{}\n", m.path, m.line, m.column, m.text));
            }
            let mut notes = vec![format!(
                "{} matching lines in {} files searched ({} skipped, {} ignored)",
                found.matches.len(),
                found.files_searched,
                found.files_skipped,
                found.ignored
            )];
            if found.files_undecodable > 0 {
                notes.push(format!(
                    "{} of the skipped files are not valid {}; name their encoding with --encoding",
                    found.files_undecodable, found.encoding
                ));
            }
            if found.truncated {
                notes.push(
                    "truncated: more lines match; narrow the search or raise --max-results".into(),
                );
            }
            if found.depth_limited {
                notes
                    .push("some directories were not searched: max_recursion_depth reached".into());
            }
            for name in &found.non_utf8_names {
                notes.push(format!("not searched, its name is not UTF-8: {name}"));
            }
            let mut reply = Reply::new(fields(ws, &found), human);
            reply.notes = notes;
            Ok(reply)
        }
        _ => Err(filekeeper::Error::internal(
            "a mutating command reached the read commands",
        )),
    }
}

fn read_notes(read: &ReadResult) -> Vec<String> {
    let lines = match (read.start_line, read.end_line) {
        (Some(a), Some(b)) => format!("lines {a}-{b} of {}", read.line_count),
        _ => format!("no lines of {}", read.line_count),
    };
    let mut notes = vec![format!(
        "{lines}, {}, {}, {}{}",
        read.encoding,
        read.newline,
        read.content_hash,
        if read.bom { ", BOM" } else { "" }
    )];
    if let Some(next) = read.next_start_line {
        notes.push(format!(
            "truncated at max_bytes; continue with --from-line {next}"
        ));
    }
    notes
}

fn listing_reply(ws: &Workspace, listing: Listing, _json: bool) -> Reply {
    let mut human = String::new();
    for e in &listing.entries {
        let suffix = match e.kind {
            "directory" => "/",
            "symlink" => "@",
            _ => "",
        };
        human.push_str(&format!("{}{suffix}\n", e.path));
    }
    let mut notes = Vec::new();
    if listing.truncated {
        notes.push(format!(
            "truncated after {} entries; narrow the request or raise the bound",
            listing.entries.len()
        ));
    }
    if listing.depth_limited {
        notes.push("some directories were not descended: max_recursion_depth reached".into());
    }
    for dir in &listing.unreadable {
        notes.push(format!("could not read directory {dir}"));
    }
    for name in &listing.non_utf8_names {
        notes.push(format!("left out, its name is not UTF-8: {name}"));
    }
    let mut reply = Reply::new(fields(ws, &listing), human);
    reply.notes = notes;
    reply
}
