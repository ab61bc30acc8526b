//! The 25 tools: each one's description, input schema and annotations, and the call into the
//! `filekeeper` library that implements it. No filesystem behaviour lives here.

use crate::args::Args;
use filekeeper::documents::{
    HistoryList, HistoryShow, ReadMany, ReadManyItem, ServedWorkspace, ServedWorkspaces,
    WorkspaceInfo,
};
use filekeeper::plumbing::config::StateLocation;
use filekeeper::{
    Code, EditGuards, Error, GrepOptions, HistoryFilter, ListOptions, MutationOptions, Policy,
    Position, ReadOptions, Result, Workspace,
};
use serde_json::{Map, Value, json};

/// Whether a tool changes anything, and how.
#[derive(Clone, Copy)]
pub enum Effect {
    /// Reads only.
    Read,
    /// Adds or replaces content; repeating it with the same arguments changes nothing more.
    Write,
    /// May remove or overwrite what was there (recoverable through undo, but destructive).
    Destroy,
    /// Changes something each time it is called.
    Change,
}

pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub effect: Effect,
    /// (name, JSON type, description, required)
    pub params: &'static [(&'static str, &'static str, &'static str, bool)],
}

const PATH: (&str, &str, &str, bool) = (
    "path",
    "string",
    "Workspace-relative path (absolute paths are accepted only inside the workspace root).",
    true,
);
const DRY_RUN: (&str, &str, &str, bool) = (
    "dry_run",
    "boolean",
    "Report what would change (with a unified diff) and change nothing.",
    false,
);
const SECRET: (&str, &str, &str, bool) = (
    "i_accept_secret_write_risk",
    "boolean",
    "Allow a credential-shaped target (.env, *.pem, *.key, id_rsa, .ssh/, .aws/, ...). Only when the user asked for it.",
    false,
);
const EXPECTED_HASH: (&str, &str, &str, bool) = (
    "expected_hash",
    "string",
    "Refuse with CONTENT_CONFLICT unless the file currently has exactly this sha256: hash (from a read).",
    false,
);
const EXPECTED_CONTENT: (&str, &str, &str, bool) = (
    "expected_content",
    "string",
    "Refuse with CONTENT_CONFLICT unless the targeted region holds exactly this text.",
    false,
);

/// The tools that only read one file or one record, so their work is bounded by the
/// workspace's size limits and never waits: the server runs them on its protocol thread,
/// without a hand-off (see `Server::run`). Everything else runs on a blocking thread: tools
/// that may walk a tree or many files, so a long search never holds up the session, and
/// every mutation, which waits for the workspace lock while another process holds it.
pub const QUICK: &[&str] = &["workspace_info", "file_read", "file_info", "history_get"];

pub const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "workspace_list",
        effect: Effect::Read,
        params: &[],
        description: "List the workspace this server serves (its name, or null for a --root workspace). The server is bound to one workspace at start-up; no tool can switch it.",
    },
    ToolSpec {
        name: "workspace_info",
        effect: Effect::Read,
        params: &[],
        description: "Show the served workspace: its name, the limits in force (read, write, search, listing and history bounds) and where its state lives. Never a host path.",
    },
    ToolSpec {
        name: "file_read",
        effect: Effect::Read,
        params: &[
            PATH,
            (
                "from_line",
                "integer",
                "First line to return, 1-based (default 1).",
                false,
            ),
            (
                "to_line",
                "integer",
                "Last line to return, inclusive; beyond the end is an error, never clamped.",
                false,
            ),
            (
                "max_bytes",
                "integer",
                "Return at most this many bytes, cut at a whole line (default and ceiling max_read_bytes, 5 MiB).",
                false,
            ),
            (
                "encoding",
                "string",
                "The file's encoding when it is not UTF-8 (e.g. latin1, shift_jis).",
                false,
            ),
        ],
        description: "Read lines of a text file. Returns content, content_hash (pass it as expected_hash to a later write), newline convention, BOM, encoding and line_count. A read longer than max_bytes stops at a whole line with truncated=true and next_start_line. Binary or undecodable files are refused (BINARY_CONTENT_REFUSED).",
    },
    ToolSpec {
        name: "file_read_many",
        effect: Effect::Read,
        params: &[
            ("paths", "array", "Up to 32 workspace-relative paths.", true),
            (
                "from_line",
                "integer",
                "First line of each file, 1-based.",
                false,
            ),
            (
                "to_line",
                "integer",
                "Last line of each file, inclusive.",
                false,
            ),
            (
                "max_bytes_per_file",
                "integer",
                "At most this many bytes of each file.",
                false,
            ),
        ],
        description: "Read several text files at once. results holds one entry per path, in order, each with its own ok and either the read's fields or its error: one failing path does not hide the others. More than 32 paths is LIMIT_EXCEEDED.",
    },
    ToolSpec {
        name: "directory_list",
        effect: Effect::Read,
        params: &[
            (
                "path",
                "string",
                "The directory (default: the workspace root).",
                false,
            ),
            (
                "recursive",
                "boolean",
                "Descend into subdirectories.",
                false,
            ),
            (
                "glob",
                "string",
                "Only entries whose path below the directory matches this glob ('*' crosses '/').",
                false,
            ),
            (
                "max_entries",
                "integer",
                "At most this many entries (default and ceiling 1000; above is LIMIT_EXCEEDED).",
                false,
            ),
        ],
        description: "List a directory, sorted, directories before their contents. Symlinks are reported with target_kind and never followed; .filekeeper/ is never listed. More entries than the bound gives truncated=true.",
    },
    ToolSpec {
        name: "file_info",
        effect: Effect::Read,
        params: &[PATH],
        description: "Kind, size, mode, modification time, and for files whether it is text, its encoding, newline convention, BOM, line count and content hash.",
    },
    ToolSpec {
        name: "file_search",
        effect: Effect::Read,
        params: &[
            PATH,
            (
                "pattern",
                "string",
                "A glob; without '/' it also matches bare file names (e.g. '*.rs').",
                true,
            ),
            (
                "max_results",
                "integer",
                "At most this many (default and ceiling 200).",
                false,
            ),
        ],
        description: "Find paths under a directory by glob, honouring .gitignore, .git/info/exclude and the global excludes file, and skipping .git/ and .filekeeper/.",
    },
    ToolSpec {
        name: "content_search",
        effect: Effect::Read,
        params: &[
            PATH,
            (
                "query",
                "string",
                "The text to find; literal unless regex is true.",
                true,
            ),
            (
                "regex",
                "boolean",
                "Treat query as a Rust regular expression.",
                false,
            ),
            (
                "glob",
                "string",
                "Only files whose path below PATH matches this glob.",
                false,
            ),
            ("ignore_case", "boolean", "Match regardless of case.", false),
            (
                "max_results",
                "integer",
                "At most this many matching lines (default and ceiling 200).",
                false,
            ),
            (
                "encoding",
                "string",
                "The files' encoding when it is not UTF-8 (e.g. latin1, shift_jis); files that do not decode in it are skipped and counted in files_undecodable.",
                false,
            ),
        ],
        description: "Find lines containing text under a directory (or in one file): path, 1-based line and column, and the line's text (a line over 500 characters as a window around the match, starting at text_start_column), in stable order. Honours ignore rules, skips binary and undecodable files, and reports files_searched, files_skipped, files_undecodable and depth_limited (directories below max_recursion_depth not searched).",
    },
    ToolSpec {
        name: "history_list",
        effect: Effect::Read,
        params: &[
            (
                "path",
                "string",
                "Only operations that touched this path.",
                false,
            ),
            (
                "actor",
                "string",
                "Only operations recorded with this actor.",
                false,
            ),
            (
                "task_id",
                "string",
                "Only operations recorded with this task id.",
                false,
            ),
            (
                "limit",
                "integer",
                "At most this many (default 20, ceiling 200).",
                false,
            ),
        ],
        description: "This workspace's operations, newest first, each with its status, summary, paths, undone_by and whether it is undoable.",
    },
    ToolSpec {
        name: "history_get",
        effect: Effect::Read,
        params: &[(
            "operation_id",
            "string",
            "The operation id (op_ and 16 hex digits).",
            true,
        )],
        description: "One operation: status, actor, task, summary, and every path's change with hashes, modes and existence before and after.",
    },
    ToolSpec {
        name: "history_diff",
        effect: Effect::Read,
        params: &[("operation_id", "string", "The operation id.", true)],
        description: "A unified diff per path of one operation, from the stored contents; binary, directory and history-skipped paths are named as such without a body.",
    },
    ToolSpec {
        name: "file_create",
        effect: Effect::Write,
        params: &[
            PATH,
            ("content", "string", "The file's whole content.", true),
            (
                "allow_existing",
                "boolean",
                "Replace an existing file instead of refusing with ALREADY_EXISTS.",
                false,
            ),
            DRY_RUN,
            SECRET,
        ],
        description: "Create a file atomically and durably; an existing file is ALREADY_EXISTS (never clobbered, even by a concurrent creator) unless allow_existing. Recorded and undoable: returns operation_id and undo_available.",
    },
    ToolSpec {
        name: "file_write",
        effect: Effect::Destroy,
        params: &[
            PATH,
            ("content", "string", "The file's new whole content.", true),
            EXPECTED_HASH,
            (
                "remove_bom",
                "boolean",
                "Drop the file's UTF-8 byte-order mark. Without it, a file that starts with one keeps it when content has none (bom_kept says so).",
                false,
            ),
            DRY_RUN,
            SECRET,
        ],
        description: "Replace a file's whole content atomically (creating it when absent), keeping its mode and its UTF-8 byte-order mark. With expected_hash the write is refused with CONTENT_CONFLICT if the file changed since it was read. Recorded and undoable.",
    },
    ToolSpec {
        name: "file_copy",
        effect: Effect::Write,
        params: &[
            ("source", "string", "The file to copy.", true),
            ("destination", "string", "The new path.", true),
            (
                "expected_destination_hash",
                "string",
                "Replace an existing destination only if it holds exactly this content.",
                false,
            ),
            DRY_RUN,
            SECRET,
        ],
        description: "Copy a file. An existing destination is ALREADY_EXISTS unless its current hash is given. Recorded (with source_path) and undoable.",
    },
    ToolSpec {
        name: "file_move",
        effect: Effect::Destroy,
        params: &[
            ("source", "string", "The file to move.", true),
            ("destination", "string", "The new path.", true),
            (
                "overwrite",
                "boolean",
                "Replace an existing destination.",
                false,
            ),
            DRY_RUN,
            SECRET,
        ],
        description: "Move (rename) a file atomically. An existing destination is ALREADY_EXISTS unless overwrite. Recorded with both ends and undoable.",
    },
    ToolSpec {
        name: "file_delete",
        effect: Effect::Destroy,
        params: &[PATH, EXPECTED_HASH, DRY_RUN, SECRET],
        description: "Delete a file. Its bytes are kept in history, so undo_operation can restore it. With expected_hash, only while it holds exactly that content.",
    },
    ToolSpec {
        name: "directory_create",
        effect: Effect::Write,
        params: &[
            PATH,
            (
                "parents",
                "boolean",
                "Also create missing parent directories; an existing directory is then not an error.",
                false,
            ),
            DRY_RUN,
            SECRET,
        ],
        description: "Create a directory (and with parents, every missing level). Recorded and undoable.",
    },
    ToolSpec {
        name: "directory_delete",
        effect: Effect::Destroy,
        params: &[
            PATH,
            (
                "recursive",
                "boolean",
                "Delete everything inside too (every file's bytes are stored first, so it can be undone).",
                false,
            ),
            DRY_RUN,
            SECRET,
        ],
        description: "Delete an empty directory, or with recursive a whole tree, file by file. Trees holding symlinks are refused. Recorded and undoable.",
    },
    ToolSpec {
        name: "file_replace_text",
        effect: Effect::Change,
        params: &[
            PATH,
            (
                "old",
                "string",
                "The exact text to find (literal, never a regex).",
                true,
            ),
            (
                "new",
                "string",
                "The replacement (literal, no templates).",
                true,
            ),
            (
                "policy",
                "string",
                "\"first\" (the one occurrence; refused when there are several unless expected_match_count confirms the count) or \"all\".",
                true,
            ),
            (
                "expected_match_count",
                "integer",
                "Refuse with MATCH_COUNT_MISMATCH unless the old text occurs exactly this many times.",
                false,
            ),
            EXPECTED_CONTENT,
            EXPECTED_HASH,
            DRY_RUN,
            SECRET,
        ],
        description: "Replace literal text. Matching is staged and reported in match_stage: exact; then normalised (indentation and trailing whitespace ignored, with a warning: lines the new text leaves unchanged stay as the file has them, changed lines take the file's indentation, and NO_MATCH with details.reason when a line's indentation cannot be inferred); else NO_MATCH with the nearest candidate lines. match_count says how many occurrences were found. Keeps newline convention, BOM and mode. Undoable.",
    },
    ToolSpec {
        name: "file_replace_lines",
        effect: Effect::Change,
        params: &[
            PATH,
            ("start", "integer", "First line to replace, 1-based.", true),
            ("end", "integer", "Last line to replace, inclusive.", true),
            (
                "replacement",
                "string",
                "The new lines (empty deletes the range).",
                true,
            ),
            EXPECTED_CONTENT,
            EXPECTED_HASH,
            DRY_RUN,
            SECRET,
        ],
        description: "Replace a 1-based inclusive line range. Out-of-range is INVALID_ARGUMENT with line_count, never clamped. New lines take the file's newline convention. Undoable.",
    },
    ToolSpec {
        name: "file_insert_lines",
        effect: Effect::Change,
        params: &[
            PATH,
            (
                "position",
                "string",
                "\"before\" or \"after\" a line, or \"end\" (append; takes no line).",
                true,
            ),
            (
                "line",
                "integer",
                "The line to insert before or after, 1-based.",
                false,
            ),
            ("content", "string", "The lines to insert.", true),
            EXPECTED_CONTENT,
            EXPECTED_HASH,
            DRY_RUN,
            SECRET,
        ],
        description: "Insert lines before or after a line, or at the end of the file (position end, the only way to append). Keeps the newline convention and final-newline state. Undoable.",
    },
    ToolSpec {
        name: "file_delete_lines",
        effect: Effect::Change,
        params: &[
            PATH,
            ("start", "integer", "First line to delete, 1-based.", true),
            ("end", "integer", "Last line to delete, inclusive.", true),
            EXPECTED_CONTENT,
            EXPECTED_HASH,
            DRY_RUN,
            SECRET,
        ],
        description: "Delete a 1-based inclusive line range; out-of-range is refused, never clamped. Undoable.",
    },
    ToolSpec {
        name: "file_apply_patch",
        effect: Effect::Change,
        params: &[
            (
                "patch",
                "string",
                "A unified diff (diff -u or git diff), at most 1 MiB.",
                true,
            ),
            DRY_RUN,
            SECRET,
        ],
        description: "Apply a unified diff (diff -u or git diff) to one or more files. git's new, deleted, renamed and copied files and mode changes apply too, creating missing directories and removing emptied ones. Every hunk is checked before anything is written; a failed or ambiguous hunk, a binary, symlink or submodule section, or a line that belongs to no section rejects the whole patch and nothing changes. Hunks may apply at a unique offset (reported), never with fuzz. patch_files reports every file and hunk. One operation; undo restores every file.",
    },
    ToolSpec {
        name: "undo_operation",
        effect: Effect::Change,
        params: &[
            ("operation_id", "string", "The operation to undo.", true),
            DRY_RUN,
            SECRET,
        ],
        description: "Restore every path of an operation to its state before it. Safe, not best-effort: if any path changed since, nothing is modified and the result is UNDO_CONFLICT naming the blocking paths. The undo is itself an operation, so undoing it goes forward again.",
    },
    ToolSpec {
        name: "undo_last",
        effect: Effect::Change,
        params: &[DRY_RUN, SECRET],
        description: "Undo the newest operation of this workspace that is not an undo, not already undone, and whose history was stored, recorded by this server's actor when one was configured. Newer operations whose history was skipped are passed over and named in skipped_operations. Same safety as undo_operation.",
    },
];

/// The JSON schema of a tool's arguments.
pub fn schema(spec: &ToolSpec) -> Map<String, Value> {
    let mut props = Map::new();
    let mut required = Vec::new();
    for (name, ty, description, req) in spec.params {
        let mut p = json!({"type": ty, "description": description});
        if *ty == "array" {
            p["items"] = json!({"type": "string"});
        }
        if *name == "policy" {
            p["enum"] = json!(["first", "all"]);
        }
        if *name == "position" {
            p["enum"] = json!(["before", "after", "end"]);
        }
        props.insert((*name).to_owned(), p);
        if *req {
            required.push(*name);
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(props));
    schema.insert("required".into(), json!(required));
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

/// Audit metadata from the server's start-up, never from a tool argument.
pub struct Audit {
    pub actor: Option<String>,
    pub task_id: Option<String>,
}

fn fields(ws: &Workspace, value: impl serde::Serialize) -> Map<String, Value> {
    filekeeper::envelope::result_fields(ws.name(), value)
}

/// Runs one tool. `Ok` is the success fields (beside `ok: true`).
pub fn call(
    ws: &Workspace,
    audit: &Audit,
    name: &str,
    arguments: Option<Map<String, Value>>,
) -> Result<Map<String, Value>> {
    let spec = TOOLS
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| Error::invalid(format!("unknown tool {name:?}")).with("tool", name))?;
    let known: Vec<&str> = spec.params.iter().map(|p| p.0).collect();
    let a = Args::new(arguments, &known)?;
    let mutation = || -> Result<MutationOptions> {
        Ok(MutationOptions {
            dry_run: a.flag("dry_run")?,
            actor: audit.actor.clone(),
            task_id: audit.task_id.clone(),
            allow_sensitive_write: a.flag("i_accept_secret_write_risk")?,
        })
    };
    let guards = || -> Result<EditGuards> {
        Ok(EditGuards {
            expected_hash: a.opt_str("expected_hash")?,
            expected_content: a.opt_str("expected_content")?,
        })
    };
    let limits = &ws.plumbing().limits;
    Ok(match name {
        "workspace_list" => filekeeper::envelope::fields_of(ServedWorkspaces {
            workspaces: vec![ServedWorkspace {
                name: ws.name().map(str::to_owned),
                served: true,
            }],
        }),
        "workspace_info" => fields(
            ws,
            WorkspaceInfo {
                name: ws.name().map(str::to_owned),
                state: ws.state_location()?.map(|location| match location {
                    StateLocation::Project => "project",
                    StateLocation::Global => "home",
                }),
                limits: limits.clone(),
            },
        ),
        "file_read" => fields(
            ws,
            ws.read_file(
                &a.str("path")?,
                &ReadOptions {
                    from_line: a.opt_u64("from_line")?,
                    to_line: a.opt_u64("to_line")?,
                    max_bytes: a.opt_u64("max_bytes")?,
                    encoding: a.opt_str("encoding")?,
                },
            )?,
        ),
        "file_read_many" => {
            let options = ReadOptions {
                from_line: a.opt_u64("from_line")?,
                to_line: a.opt_u64("to_line")?,
                max_bytes: a.opt_u64("max_bytes_per_file")?,
                encoding: None,
            };
            let results = ws
                .read_many(&a.str_list("paths")?, &options)?
                .into_iter()
                .map(|item| ReadManyItem::new(item, name_argument))
                .collect();
            fields(ws, ReadMany { results })
        }
        "directory_list" => fields(
            ws,
            ws.list(
                a.opt_str("path")?.as_deref(),
                &ListOptions {
                    recursive: a.flag("recursive")?,
                    glob: a.opt_str("glob")?,
                    max_entries: a.opt_u64("max_entries")?,
                },
            )?,
        ),
        "file_info" => fields(ws, ws.info(&a.str("path")?)?),
        "file_search" => fields(
            ws,
            ws.search(
                &a.str("path")?,
                &a.str("pattern")?,
                a.opt_u64("max_results")?,
            )?,
        ),
        "content_search" => fields(
            ws,
            ws.grep(
                &a.str("path")?,
                &a.str("query")?,
                &GrepOptions {
                    regex: a.flag("regex")?,
                    glob: a.opt_str("glob")?,
                    ignore_case: a.flag("ignore_case")?,
                    max_results: a.opt_u64("max_results")?,
                    encoding: a.opt_str("encoding")?,
                },
            )?,
        ),
        "history_list" => {
            let entries = ws.list_history(&HistoryFilter {
                path: a.opt_str("path")?,
                actor: a.opt_str("actor")?,
                task_id: a.opt_str("task_id")?,
                limit: a.opt_u64("limit")?,
            })?;
            fields(
                ws,
                HistoryList {
                    operations: entries,
                },
            )
        }
        "history_get" => {
            let entry = ws.get_operation(&a.str("operation_id")?)?;
            fields(ws, HistoryShow::from(entry))
        }
        "history_diff" => fields(ws, ws.diff_operation(&a.str("operation_id")?)?),
        "file_create" => fields(
            ws,
            ws.create_file(
                &a.str("path")?,
                a.str("content")?.as_bytes(),
                a.flag("allow_existing")?,
                &mutation()?,
            )?,
        ),
        "file_write" => fields(
            ws,
            ws.write_file(
                &a.str("path")?,
                a.str("content")?.as_bytes(),
                a.opt_str("expected_hash")?.as_deref(),
                a.flag("remove_bom")?,
                &mutation()?,
            )?,
        ),
        "file_copy" => fields(
            ws,
            ws.copy_file(
                &a.str("source")?,
                &a.str("destination")?,
                a.opt_str("expected_destination_hash")?.as_deref(),
                &mutation()?,
            )?,
        ),
        "file_move" => fields(
            ws,
            ws.move_file(
                &a.str("source")?,
                &a.str("destination")?,
                a.flag("overwrite")?,
                &mutation()?,
            )?,
        ),
        "file_delete" => fields(
            ws,
            ws.delete_file(
                &a.str("path")?,
                a.opt_str("expected_hash")?.as_deref(),
                &mutation()?,
            )?,
        ),
        "directory_create" => fields(
            ws,
            ws.create_dir(&a.str("path")?, a.flag("parents")?, &mutation()?)?,
        ),
        "directory_delete" => fields(
            ws,
            ws.delete_dir(&a.str("path")?, a.flag("recursive")?, &mutation()?)?,
        ),
        "file_replace_text" => {
            let policy = match a.str("policy")?.as_str() {
                "first" => Policy::First,
                "all" => Policy::All,
                other => {
                    return Err(Error::invalid(format!(
                        "policy must be \"first\" or \"all\", not {other:?}"
                    ))
                    .with("argument", "policy"));
                }
            };
            fields(
                ws,
                ws.replace_text(
                    &a.str("path")?,
                    &a.str("old")?,
                    &a.str("new")?,
                    policy,
                    a.opt_u64("expected_match_count")?,
                    &guards()?,
                    &mutation()?,
                )?,
            )
        }
        "file_replace_lines" => fields(
            ws,
            ws.replace_lines(
                &a.str("path")?,
                a.u64("start")?,
                a.u64("end")?,
                &a.str("replacement")?,
                &guards()?,
                &mutation()?,
            )?,
        ),
        "file_insert_lines" => {
            let position = match a.str("position")?.as_str() {
                "before" => Position::Before,
                "after" => Position::After,
                "end" => Position::End,
                other => {
                    return Err(Error::invalid(format!(
                        "position must be before, after or end, not {other:?}"
                    ))
                    .with("argument", "position"));
                }
            };
            fields(
                ws,
                ws.insert_lines(
                    &a.str("path")?,
                    position,
                    a.opt_u64("line")?,
                    &a.str("content")?,
                    &guards()?,
                    &mutation()?,
                )?,
            )
        }
        "file_delete_lines" => fields(
            ws,
            ws.delete_lines(
                &a.str("path")?,
                a.u64("start")?,
                a.u64("end")?,
                &guards()?,
                &mutation()?,
            )?,
        ),
        "file_apply_patch" => fields(ws, ws.apply_patch(&a.str("patch")?, &mutation()?)?),
        "undo_operation" => fields(ws, ws.undo(&a.str("operation_id")?, &mutation()?)?),
        "undo_last" => fields(ws, ws.undo_last(audit.actor.as_deref(), &mutation()?)?),
        _ => {
            return Err(Error::new(
                Code::NotImplementedYet,
                format!("tool {name} is declared but not implemented"),
            ));
        }
    })
}

/// How this server names arguments and operations in messages and recovery hints: its tool
/// arguments and tools, never a CLI flag or command. A boolean argument is spelled with the
/// value that asks for it.
pub struct McpSpelling;

impl filekeeper::plumbing::Spelling for McpSpelling {
    fn argument(&self, argument: filekeeper::plumbing::Argument) -> String {
        use filekeeper::plumbing::Argument::*;
        match argument {
            AllowSensitiveWrite => "i_accept_secret_write_risk: true",
            Encoding => "the encoding argument",
            AllowExisting => "allow_existing: true",
            ExpectedDestinationHash => "expected_destination_hash",
            Overwrite => "overwrite: true",
            Parents => "parents: true",
            Recursive => "recursive: true",
            Position => "position",
            Line => "line",
            MaxBytes => "max_bytes",
            FromLine => "from_line",
            ToLine => "to_line",
            MaxEntries => "max_entries",
            MaxResults => "max_results",
            Limit => "limit",
        }
        .to_owned()
    }

    fn operation(&self, operation: filekeeper::plumbing::Operation) -> String {
        use filekeeper::plumbing::Operation::*;
        match operation {
            WriteFile => "the file_write tool",
            DeleteDir => "the directory_delete tool",
            MoveDir => "file_move, one file at a time (this server has no directory move)",
            Undo => "undo_operation",
            Fsck => "a Filekeeper fsck, which this server does not run",
        }
        .to_owned()
    }
}

/// The error as this server shows it: its message and recovery name tool arguments and
/// tools; the code, retryable and details stay identical to every other surface's.
pub fn name_argument(err: Error) -> Error {
    err.render(&McpSpelling)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_quick_tool_is_a_tool_that_touches_at_most_one_file() {
        for name in QUICK {
            assert!(
                TOOLS.iter().any(|t| t.name == *name),
                "{name} is not a tool"
            );
        }
        for walker in [
            "content_search",
            "file_search",
            "directory_list",
            "file_apply_patch",
        ] {
            assert!(!QUICK.contains(&walker), "{walker} walks a tree");
        }
    }
}
