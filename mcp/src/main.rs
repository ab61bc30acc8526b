//! `filekeeper-mcp`: Filekeeper as a Model Context Protocol server over stdio.
//!
//! A thin adapter: every tool calls the `filekeeper` library, which performs every effect
//! through the same plumbing as the `keeper` command line. The workspace is fixed at start-up
//! (`--workspace` or `--root`); no tool argument can widen it. Stdout carries only protocol
//! messages; logs go to stderr.

mod args;
mod tools;

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
use tools::{Audit, Effect, TOOLS};

/// Filekeeper's MCP server: safe, journaled, undoable file operations for agents, over stdio.
#[derive(Debug, Parser)]
#[command(name = "filekeeper-mcp", version = concat!(env!("CARGO_PKG_VERSION"), " (journal schema 1)"))]
struct Cli {
    /// Serve this registered workspace.
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with = "root",
        required_unless_present = "root"
    )]
    workspace: Option<String>,
    /// Serve this directory as a transient workspace.
    #[arg(long, value_name = "PATH")]
    root: Option<PathBuf>,
    /// The Filekeeper home (default: $FILEKEEPER_HOME, else ~/.local/share/filekeeper).
    #[arg(long, value_name = "PATH")]
    home: Option<PathBuf>,
    /// How much to log on stderr: error, warn, info or debug.
    #[arg(long, value_name = "LEVEL", default_value = "warn", value_parser = ["error", "warn", "info", "debug"])]
    log_level: String,
    /// Recorded as the actor of every mutation this server makes.
    #[arg(long, value_name = "NAME")]
    actor: Option<String>,
    /// Recorded as the task id of every mutation this server makes.
    #[arg(long, value_name = "ID")]
    task_id: Option<String>,
}

#[derive(Clone)]
struct Server {
    workspace: Arc<Workspace>,
    audit: Arc<Audit>,
    debug: bool,
}

fn annotations(effect: Effect) -> ToolAnnotations {
    let (read_only, destructive, idempotent) = match effect {
        Effect::Read => (true, false, true),
        Effect::Write => (false, false, true),
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
    TOOLS
        .iter()
        .map(|spec| {
            let mut tool = Tool::new(spec.name, spec.description, Arc::new(tools::schema(spec)));
            tool.annotations = Some(annotations(spec.effect));
            tool
        })
        .collect()
}

impl Server {
    /// Runs a tool on a blocking thread, catching any panic as INTERNAL_ERROR so the server
    /// keeps serving.
    async fn run(&self, request: CallToolRequestParams) -> CallToolResult {
        let server = self.clone();
        let name = request.name.to_string();
        let outcome = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                tools::call(&server.workspace, &server.audit, &name, request.arguments)
            }))
        })
        .await;
        let result = match outcome {
            Ok(Ok(result)) => result,
            _ => Err(Error::new(
                Code::InternalError,
                "the tool failed unexpectedly; the server is still running",
            )),
        };
        match result {
            Ok(fields) => {
                CallToolResult::structured(filekeeper::envelope::success_document(fields))
            }
            Err(err) => {
                let err = tools::name_argument(err);
                if self.debug {
                    eprintln!("filekeeper-mcp: {}: {}", err.code, err.message);
                }
                CallToolResult::structured_error(filekeeper::envelope::error_document(&err))
            }
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("filekeeper-mcp", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Safe file operations confined to one workspace. Paths are workspace-relative; lines are 1-based and inclusive. \
                 Read before you write and pass the read's content_hash as expected_hash. Every mutation returns an operation_id \
                 that undo_operation can reverse, and takes dry_run. Errors carry a stable code.",
            )
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
        if !TOOLS.iter().any(|t| t.name == request.name) {
            return Err(McpError::invalid_params(
                format!("unknown tool {:?}", request.name),
                None,
            ));
        }
        Ok(self.run(request).await.into())
    }
}

/// Copies stdin to the protocol handler line by line. A line that is not JSON at all, or not
/// UTF-8, gets a JSON-RPC parse error (-32700, id null) instead of vanishing or ending the
/// session, as the specification asks; the next line is read as usual.
async fn forward_requests(
    mut to_server: tokio::io::DuplexStream,
    errors: tokio::sync::mpsc::UnboundedSender<String>,
    max_line: usize,
) {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match (&mut stdin)
            .take(max_line as u64 + 1)
            .read_until(b'\n', &mut bytes)
            .await
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if bytes.len() > max_line && !bytes.ends_with(b"\n") {
            // Too long to hold: skip to the end of the line and say so, rather than buffer
            // without bound or drop the request unanswered.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                match (&mut stdin)
                    .take(1 << 20)
                    .read_until(b'\n', &mut rest)
                    .await
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) if rest.ends_with(b"\n") => break,
                    Ok(_) => {}
                }
            }
            let reply = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {"code": -32600, "message": format!("invalid request: the line is longer than {max_line} bytes")}
            });
            let _ = errors.send(reply.to_string());
            continue;
        }
        let (line, problem) = match std::str::from_utf8(&bytes) {
            Err(_) => ("", Some("parse error: the line is not valid UTF-8")),
            Ok(text) => {
                let line = text.trim_end_matches(['\n', '\r']);
                if line.trim().is_empty() {
                    continue;
                }
                let json = serde_json::from_str::<serde_json::Value>(line).is_ok();
                (line, (!json).then_some("parse error: the line is not JSON"))
            }
        };
        if let Some(message) = problem {
            let reply = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {"code": -32700, "message": message}
            });
            let _ = errors.send(reply.to_string());
            continue;
        }
        if to_server
            .write_all(format!("{line}\n").as_bytes())
            .await
            .is_err()
        {
            break;
        }
    }
    let _ = to_server.shutdown().await;
}

/// Writes the handler's messages and the parse errors to stdout, whole lines only, so the two
/// never interleave.
async fn write_responses(
    from_server: tokio::io::DuplexStream,
    mut parse_errors: tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut stdout = tokio::io::stdout();
    let mut lines = tokio::io::BufReader::new(from_server).lines();
    loop {
        let line = tokio::select! {
            line = lines.next_line() => match line {
                Ok(Some(line)) => line,
                _ => break,
            },
            Some(error) = parse_errors.recv() => error,
        };
        if stdout
            .write_all(format!("{line}\n").as_bytes())
            .await
            .is_err()
            || stdout.flush().await.is_err()
        {
            break;
        }
    }
}

fn fail(err: &Error) -> ! {
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
    let server = Server {
        workspace: Arc::new(workspace),
        audit: Arc::new(Audit {
            actor: cli.actor,
            task_id: cli.task_id,
        }),
        debug: cli.log_level == "debug",
    };
    // A request line must hold the largest write the workspace accepts, JSON-escaped (text
    // rarely grows more than twice; four times leaves room), plus the envelope around it.
    let max_line = usize::try_from(server.workspace.plumbing().limits.max_write_bytes)
        .unwrap_or(usize::MAX / 8)
        .saturating_mul(4)
        .saturating_add(1 << 20);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail(&Error::storage("starting the runtime", &e)));
    let served = runtime.block_on(async move {
        let (to_server, from_client) = tokio::io::duplex(1 << 20);
        let (to_client, from_server) = tokio::io::duplex(1 << 20);
        let (errors, parse_errors) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(forward_requests(to_server, errors, max_line));
        let writer = tokio::spawn(write_responses(from_server, parse_errors));
        let transport =
            rmcp::transport::async_rw::AsyncRwTransport::new_server(from_client, to_client)
                .with_max_line_length(max_line + 2);
        let service = server.serve(transport).await.map_err(|e| e.to_string())?;
        let outcome = service
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| e.to_string());
        let _ = writer.await;
        outcome
    });
    if let Err(reason) = served
        && cli.log_level != "error"
    {
        eprintln!("filekeeper-mcp: the session ended: {reason}");
    }
}
