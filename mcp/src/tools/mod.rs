//! The tools, each one declaration in the module of its family: a struct whose fields are
//! the tool's arguments and its [`Tool`] implementation: name, description, effect, result type and the call into the
//! `filekeeper` library that does the work. [`ALL`] lists them in the order `tools/list`
//! shows them. No filesystem behaviour lives here.
//!
//! Adding a tool is a struct and an impl in its family's module, and a line in [`ALL`].
//!
//! The tool list is what a model reads on every turn, so it is kept lean (`docs/mcp.md`, "The
//! tool list, as a model sees it"): a field's doc comment becomes its description in
//! `tools/list`, so a field has one only where its name and type leave a question; otherwise
//! a plain comment explains it to maintainers. Conventions that several tools share belong
//! in the server's instructions (`Server::instructions`), not in each tool.

#[cfg(test)]
mod annotations;
mod edit;
mod files;
mod history;
#[cfg(test)]
mod published;
mod read;
mod workspace;

use crate::arguments;
use crate::text::{self, View};
use filekeeper::envelope::{Always, Failure, Success};
use filekeeper::{EditGuards, Error, MutationOptions, Result, Workspace, schemas};
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// Whether a tool changes anything, and how.
#[derive(Clone, Copy)]
pub enum Effect {
    /// Reads only.
    Read,
    /// Adds content; repeating it with the same arguments changes nothing more.
    Write,
    /// Adds content, or with an argument that asks for it replaces what was there; repeating it
    /// with the same arguments changes nothing more.
    Overwrite,
    /// May remove or overwrite what was there (recoverable through undo, but destructive).
    Destroy,
    /// Changes something each time it is called.
    Change,
}

/// One tool. The implementing struct is the tool's arguments: `tools/list` shows its JSON
/// Schema, and a call's arguments are checked against that schema (see [`arguments`]) and then
/// deserialized into it.
pub trait Tool: DeserializeOwned + JsonSchema {
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    const EFFECT: Effect;
    /// Whether the tool only reads one file or one record, so its work is bounded by the
    /// workspace's size limits and never waits: the server runs it on its protocol thread,
    /// without a hand-off (see `Server::run`). Everything else runs on a blocking thread:
    /// tools that may walk a tree or many files, so a long search never holds up the session,
    /// and every mutation, which waits for the workspace lock while another process holds it.
    const QUICK: bool = false;
    /// A successful call's structured content, `ok` included.
    type Output: Serialize + JsonSchema;
    fn run(self, cx: &Context) -> Result<Self::Output>;

    /// How the reply's text shows the result, as the arguments ask (only the reads have a
    /// choice: numbered lines or not).
    fn view(&self) -> View {
        View::default()
    }

    /// The JSON Schema of a successful call's document, [`Self::Output`]. A mutation
    /// overrides it: its document carries only those [`filekeeper::MutationExtra`] fields the
    /// tool reports. `tools/list` advertises it, with the error document, as the tool's
    /// `outputSchema` (see [`advertised_schema`]).
    fn output_schema() -> Value {
        schemas::schema::<Self::Output>()
    }
}

/// A [`Tool`] as the server holds it: its `tools/list` entry and how to call it.
pub struct Declared {
    pub name: &'static str,
    pub description: &'static str,
    pub effect: Effect,
    pub quick: bool,
    input_schema: fn() -> JsonObject,
    /// A success's document schema ([`Tool::output_schema`]).
    pub success_schema: fn() -> Value,
    call: fn(&Context, Option<JsonObject>) -> Result<Reply>,
}

const fn declare<T: Tool>() -> Declared {
    Declared {
        name: T::NAME,
        description: T::DESCRIPTION,
        effect: T::EFFECT,
        quick: T::QUICK,
        input_schema: arguments::schema::<T>,
        success_schema: T::output_schema,
        call: call::<T>,
    }
}

/// A successful call's reply: the document (`structuredContent`) and its text for a model.
#[derive(Debug)]
pub struct Reply {
    pub document: Value,
    pub text: String,
}

fn call<T: Tool>(cx: &Context, given: Option<JsonObject>) -> Result<Reply> {
    let schema = input_schema(T::NAME);
    let tool = arguments::parse::<T>(&schema, given)?;
    let view = tool.view();
    let document = serde_json::to_value(tool.run(cx)?)
        .map_err(|e| Error::internal(format!("{} result does not serialize: {e}", T::NAME)))?;
    Ok(Reply {
        text: text::success(&document, view),
        document,
    })
}

/// Every tool, in the order `tools/list` shows them.
pub const ALL: &[Declared] = &[
    declare::<workspace::WorkspaceList>(),
    declare::<workspace::WorkspaceInfo>(),
    declare::<workspace::WorkspaceStatus>(),
    declare::<read::FileRead>(),
    declare::<read::FileReadMany>(),
    declare::<read::DirectoryList>(),
    declare::<read::FileInfo>(),
    declare::<read::FileSearch>(),
    declare::<read::ContentSearch>(),
    declare::<read::FileFindUp>(),
    declare::<read::FileDiff>(),
    declare::<read::FileReadBytes>(),
    declare::<history::HistoryList>(),
    declare::<history::HistoryGet>(),
    declare::<history::HistoryDiff>(),
    declare::<files::FileCreate>(),
    declare::<files::FileWrite>(),
    declare::<files::FileCopy>(),
    declare::<files::FileMove>(),
    declare::<files::FileDelete>(),
    declare::<files::DirectoryCreate>(),
    declare::<files::DirectoryDelete>(),
    declare::<edit::FileReplaceText>(),
    declare::<edit::FileReplaceLines>(),
    declare::<edit::FileInsertLines>(),
    declare::<edit::FileDeleteLines>(),
    declare::<edit::FileApplyPatch>(),
    declare::<history::UndoOperation>(),
    declare::<history::UndoLast>(),
];

/// The tool called `name`.
pub fn find(name: &str) -> Option<&'static Declared> {
    ALL.iter().find(|tool| tool.name == name)
}

/// Every tool's input schema, generated once: `tools/list` shows it and every call of the tool
/// is checked against it.
pub fn input_schema(name: &str) -> Arc<JsonObject> {
    static SCHEMAS: OnceLock<BTreeMap<&'static str, Arc<JsonObject>>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        ALL.iter()
            .map(|tool| (tool.name, Arc::new((tool.input_schema)())))
            .collect()
    });
    schemas.get(name).cloned().unwrap_or_default()
}

/// Every tool's `outputSchema`, generated once: what its `structuredContent` can be, the
/// success document or the error document (`anyOf`), under a root of `"type": "object"` as the
/// MCP specification requires. It is also the tool's published schema,
/// `docs/schemas/mcp/<name>.json` (see `published`).
///
/// The error document is part of it because a client may validate every `structuredContent`
/// it gets against the schema, an error's included (the TypeScript SDK's 1.x `Client.callTool`
/// does); a schema of the success alone would make it reject our refusals.
pub fn advertised_schema(name: &str) -> Arc<JsonObject> {
    static SCHEMAS: OnceLock<BTreeMap<&'static str, Arc<JsonObject>>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        ALL.iter()
            .map(|tool| {
                let schema = either(tool.name, (tool.success_schema)());
                let Value::Object(schema) = schema else {
                    unreachable!("a root schema is an object")
                };
                (tool.name, Arc::new(schema))
            })
            .collect()
    });
    schemas.get(name).cloned().unwrap_or_default()
}

/// The schema of a tool's `structuredContent`: `success`, or the error document.
fn either(name: &str, success: Value) -> Value {
    let branch = |schema: Value, defs: &mut serde_json::Map<String, Value>| {
        let Value::Object(mut schema) = schema else {
            unreachable!("a root schema is an object")
        };
        schema.remove("$schema");
        schema.remove("title");
        if let Some(Value::Object(own)) = schema.remove("$defs") {
            for (key, def) in own {
                // Both documents share their definitions' names with the same shapes (an
                // ErrorBody is an ErrorBody); `published` checks every tool's union.
                defs.entry(key).or_insert(def);
            }
        }
        Value::Object(schema)
    };
    let mut defs = serde_json::Map::new();
    let meta = success.get("$schema").cloned();
    let success = branch(success, &mut defs);
    let failure = branch(schemas::schema::<Failure>(), &mut defs);
    let mut out = serde_json::Map::new();
    if let Some(meta) = meta {
        out.insert("$schema".into(), meta);
    }
    out.insert("title".into(), format!("MCP tool {name}").into());
    out.insert(
        "description".into(),
        format!(
            "The structuredContent of a `{name}` call of filekeeper-mcp: the success document, \
             or with isError true the error document."
        )
        .into(),
    );
    out.insert("type".into(), "object".into());
    out.insert("anyOf".into(), Value::Array(vec![success, failure]));
    if !defs.is_empty() {
        out.insert("$defs".into(), Value::Object(defs));
    }
    Value::Object(out)
}

/// Runs the tool called `name`. `Ok` is a success's document and text.
pub fn run(cx: &Context, name: &str, arguments: Option<JsonObject>) -> Result<Reply> {
    let tool = find(name)
        .ok_or_else(|| Error::invalid(format!("unknown tool {name:?}")).with("tool", name))?;
    (tool.call)(cx, arguments)
}

/// Audit metadata from the server's start-up, never from a tool argument.
pub struct Audit {
    pub actor: Option<String>,
    pub task_id: Option<String>,
}

/// How much a read returns when its call does not say: set at the server's start, never above
/// the workspace's `max_read_bytes`.
#[derive(Clone, Copy, Debug)]
pub struct ReadBounds {
    pub max_bytes: u64,
    pub max_lines: u64,
}

/// What a tool runs against: the served workspace, the server's audit metadata and its read
/// bounds.
pub struct Context<'a> {
    pub workspace: &'a Workspace,
    pub audit: &'a Audit,
    pub reads: ReadBounds,
}

impl Context<'_> {
    /// `result` as a success document of this workspace: `ok`, `workspace`, then its fields.
    fn success<T>(&self, result: T) -> Success<T> {
        Success {
            ok: Always,
            workspace: self.workspace.name().map(str::to_owned),
            result,
        }
    }

    /// The options of a mutation: its own arguments and the server's audit metadata.
    fn mutation(&self, arguments: &Mutation) -> MutationOptions {
        MutationOptions {
            dry_run: arguments.dry_run,
            actor: self.audit.actor.clone(),
            task_id: self.audit.task_id.clone(),
            allow_sensitive_write: arguments.i_accept_secret_write_risk,
        }
    }
}

/// The arguments every mutation takes, last.
#[derive(Deserialize, JsonSchema)]
struct Mutation {
    // Report what would change (with a unified diff) and change nothing.
    #[serde(default)]
    dry_run: bool,
    // Allow a credential-shaped target (.env, *.pem, *.key, id_rsa, .ssh/, .aws/, ...). Only when the user asked for it.
    #[serde(default)]
    i_accept_secret_write_risk: bool,
}

/// The guards of an edit: what the file, or the region edited, must hold now.
#[derive(Deserialize, JsonSchema)]
struct Guards {
    // Refuse with CONTENT_CONFLICT unless the targeted region holds exactly this text.
    expected_content: Option<String>,
    expected_hash: Option<String>,
    /// A read's content_hash to edit against; merged if the file changed since.
    base_hash: Option<String>,
}

impl From<Guards> for EditGuards {
    fn from(guards: Guards) -> EditGuards {
        EditGuards {
            expected_hash: guards.expected_hash,
            expected_content: guards.expected_content,
            base_hash: guards.base_hash,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let names: std::collections::BTreeSet<&str> = ALL.iter().map(|t| t.name).collect();
        assert_eq!(names.len(), ALL.len());
    }

    /// Only reads of one file or one record run on the protocol thread; nothing that walks a
    /// tree or waits for the workspace lock does.
    #[test]
    fn the_quick_tools_read_one_file_or_record() {
        let quick: Vec<&str> = ALL.iter().filter(|t| t.quick).map(|t| t.name).collect();
        assert_eq!(
            quick,
            [
                "workspace_info",
                "file_read",
                "file_info",
                "file_read_bytes",
                "history_get"
            ]
        );
    }
}
