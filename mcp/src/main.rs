//! `filekeeper-mcp`: Filekeeper as a Model Context Protocol server over stdio.
//!
//! A thin adapter: every tool calls the `filekeeper` library, which performs every effect
//! through the same plumbing as the `keeper` command line. The workspace is fixed at start-up
//! (`--workspace` or `--root`); no tool argument can widen it. Stdout carries only protocol
//! messages; logs go to stderr.

mod answers;
mod arguments;
mod input;
mod line;
mod spelling;
mod text;
mod tools;
mod transport;

use clap::Parser;
use filekeeper::{Code, Error, Filekeeper, Workspace};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use std::path::PathBuf;
use std::sync::Arc;
use tools::{Audit, Context, Effect, ReadBounds};

/// Filekeeper's MCP server: safe, journaled, undoable file operations for agents, over stdio.
#[derive(Debug, Parser)]
#[command(name = "filekeeper-mcp", version = filekeeper::plumbing::VERSION_TEXT)]
// One of the two, named together when neither is given.
#[command(group(clap::ArgGroup::new("served").args(["workspace", "root"]).required(true)))]
struct Cli {
    /// Serve this registered workspace.
    #[arg(long, value_name = "NAME")]
    workspace: Option<String>,
    /// Serve this directory as a transient workspace.
    #[arg(long, value_name = "PATH")]
    root: Option<PathBuf>,
    /// The Filekeeper home (default: $FILEKEEPER_HOME, else $XDG_DATA_HOME/filekeeper, else
    /// ~/.local/share/filekeeper).
    #[arg(long, value_name = "PATH")]
    home: Option<PathBuf>,
    /// How much to log on stderr: error, warn, info or debug. Debug logs each request's
    /// method, each tool call's tool, outcome code and time; never arguments or content.
    #[arg(long, value_name = "LEVEL", default_value = "warn", value_parser = ["error", "warn", "info", "debug"])]
    log_level: String,
    /// Recorded as the actor of every mutation this server makes.
    #[arg(long, value_name = "NAME")]
    actor: Option<String>,
    /// Recorded as the task id of every mutation this server makes.
    #[arg(long, value_name = "ID")]
    task_id: Option<String>,
    /// The most lines a read returns when its call names no max_lines (file_read_many: per
    /// file). 2000 fits a model's context; a call may ask for more.
    #[arg(long, value_name = "N", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..))]
    read_max_lines: u64,
    /// The most bytes a read returns when its call names no max_bytes (file_read_many: per
    /// file), at most the workspace's max_read_bytes. 256 KiB fits a model's context; a call
    /// may ask for more, up to max_read_bytes.
    #[arg(long, value_name = "N", default_value_t = 256 * 1024, value_parser = clap::value_parser!(u64).range(1..))]
    read_max_bytes: u64,
}

#[derive(Clone)]
struct Server {
    workspace: Arc<Workspace>,
    audit: Arc<Audit>,
    reads: ReadBounds,
    debug: bool,
}

fn annotations(effect: Effect) -> ToolAnnotations {
    let (read_only, destructive, idempotent) = match effect {
        Effect::Read => (true, false, true),
        Effect::Write => (false, false, true),
        Effect::Overwrite => (false, true, true),
        Effect::Destroy => (false, true, false),
        Effect::Change => (false, true, false),
    };
    ToolAnnotations::new()
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(false)
}

fn tool_list() -> Vec<Tool> {
    tools::ALL
        .iter()
        .map(|declared| {
            let schema = tools::input_schema(declared.name);
            let mut tool = Tool::new(declared.name, declared.description, schema);
            tool.output_schema = Some(tools::advertised_schema(declared.name));
            tool.annotations = Some(annotations(declared.effect));
            tool
        })
        .collect()
}

impl Server {
    /// What the server tells an agent once, at `initialize`: the conventions every tool shares,
    /// so that no tool's description repeats them (the tool list stays lean; `docs/mcp.md`).
    fn instructions(&self) -> String {
        format!(
            "Safe file operations confined to one workspace. Paths are workspace-relative; lines are 1-based and inclusive. \
             A read returns at most {lines} lines or {bytes} bytes unless it asks for more (max_lines, max_bytes); a bounded read \
             or listing says truncated, and next_start_line or next_cursor (pass it back as cursor, other arguments unchanged) \
             continues it. A read's text numbers its lines (number, tab, line); the numbers are not part of the file, so never \
             copy them into old text or new content. Before you write, pass the read's content_hash as expected_hash (refused \
             with CONTENT_CONFLICT if the file changed) or, for an edit, as base_hash (made on that version and merged into the \
             current file). expected_content refuses unless the lines edited hold exactly that text. Every mutation takes dry_run \
             (report the diff, change nothing), returns an operation_id that undo_operation reverses, and its reply shows what it \
             changed in diffs, so a file need not be read back to check an edit. Credential-shaped paths (.env, *.pem, .ssh/, ...) are \
             refused; set i_accept_secret_write_risk only when the user asked to write one. Errors carry a stable code and say \
             what to do.",
            lines = self.reads.max_lines,
            bytes = self.reads.max_bytes,
        )
    }

    /// Runs a tool, catching any panic as INTERNAL_ERROR so the server keeps serving. A quick
    /// tool (`Tool::QUICK`, small reads) runs right here on the protocol thread: it takes
    /// less time than handing it to another thread and back would. Any other tool runs on a
    /// blocking thread, so the session stays responsive while it walks a tree or waits for
    /// the workspace lock.
    async fn run(&self, request: CallToolRequestParams) -> CallToolResult {
        let server = self.clone();
        let name = request.name.to_string();
        let started = std::time::Instant::now();
        let call = move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let cx = Context {
                    workspace: &server.workspace,
                    audit: &server.audit,
                    reads: server.reads,
                };
                tools::run(&cx, &name, request.arguments)
            }))
        };
        let outcome = if tools::find(&request.name).is_some_and(|tool| tool.quick) {
            Ok(call())
        } else {
            tokio::task::spawn_blocking(call).await
        };
        let result = match outcome {
            Ok(Ok(result)) => result,
            _ => Err(Error::new(
                Code::InternalError,
                "the tool failed unexpectedly; the server is still running",
            )),
        };
        if self.debug {
            let outcome = match &result {
                Ok(_) => "ok",
                Err(err) => err.code.as_str(),
            };
            debug(&format!(
                "tool {} -> {outcome} in {} ms",
                request.name,
                started.elapsed().as_millis()
            ));
        }
        // The text is written for a model, the structured content is the whole document for
        // programs (docs/mcp.md, "Text for models, structure for programs").
        let (document, text, is_error) = match result {
            Ok(reply) => (reply.document, reply.text, false),
            Err(err) => {
                let err = spelling::name_argument(err);
                let document = filekeeper::envelope::error_document(&err);
                let text = text::failure(&document);
                (document, text, true)
            }
        };
        let content = vec![rmcp::model::ContentBlock::text(text)];
        let mut result = if is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        result.structured_content = Some(document);
        result
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "filekeeper-mcp",
                filekeeper::plumbing::BUILD_VERSION,
            ))
            .with_instructions(self.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tool_list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if tools::find(&request.name).is_none() {
            return Err(McpError::invalid_params(
                format!("unknown tool {:?}", request.name),
                None,
            ));
        }
        Ok(self.run(request).await.into())
    }
}

/// Writes one debug line on stderr. Debug lines name methods, tools, codes and times, never
/// arguments or content.
pub(crate) fn debug(what: &str) {
    eprintln!("filekeeper-mcp: debug: {what}");
}

/// A client-chosen name (a method), short and escaped, for a debug line.
pub(crate) fn short(name: &str) -> String {
    let mut out: String = name
        .chars()
        .take(64)
        .collect::<String>()
        .escape_debug()
        .collect();
    if name.chars().nth(64).is_some() {
        out.push_str("...");
    }
    out
}

fn fail(err: &Error) -> ! {
    let err = err.clone().render(&spelling::StartupSpelling);
    eprintln!("filekeeper-mcp: error[{}]: {}", err.code, err.message);
    if let Some(how) = err.details.get("recovery").and_then(|v| v.as_str()) {
        eprintln!("  hint: {how}");
    }
    std::process::exit(err.code.exit_code());
}

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let cli = Cli::parse();
    let keeper = Filekeeper::new(cli.home.as_deref()).unwrap_or_else(|e| fail(&e));
    let workspace = keeper
        .workspace(cli.workspace.as_deref(), cli.root.as_deref())
        .unwrap_or_else(|e| fail(&e));
    let workspace_limits = workspace.plumbing().limits.clone();
    let server = Server {
        workspace: Arc::new(workspace),
        audit: Arc::new(Audit {
            actor: cli.actor,
            task_id: cli.task_id,
        }),
        reads: ReadBounds {
            max_bytes: cli.read_max_bytes.min(workspace_limits.max_read_bytes),
            max_lines: cli.read_max_lines,
        },
        debug: cli.log_level == "debug",
    };
    if server.debug {
        debug(&match server.workspace.name() {
            Some(name) => format!("serving workspace {}", short(name)),
            None => "serving a --root workspace".to_owned(),
        });
    }
    // A request line must hold the largest write the workspace accepts, JSON-escaped (text
    // rarely grows more than twice; four times leaves room), plus the envelope around it.
    let max_line = usize::try_from(server.workspace.plumbing().limits.max_write_bytes)
        .unwrap_or(usize::MAX / 8)
        .saturating_mul(4)
        .saturating_add(1 << 20);
    // One thread reads stdin, runs the protocol and the quick tools (see `Server::run`,
    // `input`). Handing every message between worker threads cost more than the small tools
    // themselves. Stdin's flags are put back after the runtime has gone (declared first,
    // dropped last).
    let _stdin_flags = input::Flags::capture();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&Error::storage("starting the runtime", &e)));
    let served = runtime.block_on(async move {
        let (to_handler, requests) = tokio::sync::mpsc::unbounded_channel();
        let (broken, mut stdout_failed) = tokio::sync::oneshot::channel();
        let out = Arc::new(transport::Stdout::new(broken));
        tokio::spawn(transport::read_requests(
            input::stdin(),
            to_handler,
            out.clone(),
            max_line,
            server.debug,
        ));
        let handler = transport::Handler::new(requests, out);
        tokio::select! {
            biased;
            served = async {
                let service = server.serve(handler).await.map_err(|e| e.to_string())?;
                service.waiting().await.map(|_| ()).map_err(|e| e.to_string())
            } => served,
            // Dropping the service cancels it; a mutation already running finishes first.
            Ok(e) = &mut stdout_failed => Err(format!("writing to stdout failed: {e}")),
        }
    });
    if let Err(reason) = served
        && cli.log_level != "error"
    {
        eprintln!("filekeeper-mcp: the session ended: {reason}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a model reads of the tool list: each tool's name, description and input schema,
    /// as compact JSON (output schemas and annotations are for the host, not the model).
    fn model_visible_tool_list() -> String {
        let tools: Vec<serde_json::Value> = tool_list()
            .into_iter()
            .map(|tool| {
                serde_json::json!({
                    "name": tool.name,
                    "description": tool.description,
                    "inputSchema": *tool.input_schema,
                })
            })
            .collect();
        serde_json::to_string(&tools).unwrap()
    }

    /// Every byte of the tool list is context an agent pays for on every turn; the shared
    /// conventions are said once, in the instructions (`Server::instructions`).
    #[test]
    fn the_model_visible_tool_list_is_at_most_12000_bytes() {
        let size = model_visible_tool_list().len();
        assert!(size <= 12_000, "the tool list is {size} bytes");
    }

    /// An argument left without a description is one that the instructions explain, or
    /// whose name and type say all (checked by hand when a tool is added: extend the list
    /// only for a name that needs no words).
    #[test]
    fn every_undescribed_argument_is_explained_once_or_speaks_for_itself() {
        let server = Server {
            workspace: Arc::new(
                Filekeeper::new(Some(std::path::Path::new("/nonexistent-home")))
                    .and_then(|k| k.workspace(None, Some(std::env::temp_dir().as_path())))
                    .unwrap(),
            ),
            audit: Arc::new(Audit {
                actor: None,
                task_id: None,
            }),
            reads: ReadBounds {
                max_bytes: 1,
                max_lines: 1,
            },
            debug: false,
        };
        let instructions = server.instructions();
        let speaks_for_itself = [
            "paths",
            "from_line",
            "to_line",
            "max_bytes_per_file",
            "max_lines_per_file",
            "numbered",
            "encoding",
            "recursive",
            "glob",
            "max_entries",
            "max_results",
            "regex",
            "ignore_case",
            "name",
            "other",
            "offset",
            "length",
            "actor",
            "task_id",
            "limit",
            "operation_id",
            "content",
            "allow_existing",
            "remove_bom",
            "source",
            "destination",
            "expected_destination_hash",
            "overwrite",
            "parents",
            "new",
            "policy",
            "expected_match_count",
            "start",
            "end",
            "replacement",
            "position",
            "line",
            "patch",
        ];
        for tool in tool_list() {
            let properties = tool.input_schema["properties"].as_object().unwrap().clone();
            for (argument, schema) in properties {
                if schema.get("description").is_some()
                    || speaks_for_itself.contains(&argument.as_str())
                {
                    continue;
                }
                assert!(
                    instructions.contains(&argument),
                    "{}'s argument {argument} is explained nowhere",
                    tool.name
                );
            }
        }
    }
}
