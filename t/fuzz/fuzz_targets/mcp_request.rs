//! MCP request decoding, the way `filekeeper-mcp` does it: stdin split into lines, a line that
//! is not JSON answered with a parse error, the rest decoded by the server's own `line.rs`
//! (the protocol handler gets the message it decoded), and a `tools/call` request checked
//! against the tool list and run by the server's own `tools::run` with its strict argument
//! parsing, against a small real workspace.
//!
//! The server's `arguments.rs`, `line.rs`, `spelling.rs` and `tools/` are compiled in here
//! unchanged (see `#[path]` below), so the fuzzer runs exactly the server's decoding, not a
//! copy of it.
//!
//! Every mutation is forced to be a dry run (a `dry_run` that is not a boolean is left as
//! given, to fuzz its type check), so the workspace stays the same between inputs. In the
//! input, `@ROOT@` stands for the workspace root's host path and `@OP1@`/`@OP2@` for the ids
//! of two real operations made at start-up, so a corpus file can name them.
//!
//! Invariants beyond "no panic" (the server catches a tool's panic as INTERNAL_ERROR; here it
//! is a crash): a dry run changes no file; an unknown argument is INVALID_ARGUMENT naming
//! it; no answer names the host path unless the request did; every answer encodes as a
//! JSON-RPC response.
#![no_main]

#[allow(dead_code)]
#[path = "../../../mcp/src/arguments.rs"]
mod arguments;
#[allow(dead_code)]
#[path = "../../../mcp/src/line.rs"]
mod line;
#[allow(dead_code)]
#[path = "../../../mcp/src/spelling.rs"]
mod spelling;

#[path = "../../../mcp/src/text.rs"]
mod text;
#[allow(dead_code)]
#[path = "../../../mcp/src/tools/mod.rs"]
mod tools;

use filekeeper::{Code, EditGuards, Filekeeper, MutationOptions, Policy, Workspace};
use libfuzzer_sys::fuzz_target;
use rmcp::model::{
    CallToolResult, ClientRequest, JsonRpcMessage, RequestId, ServerJsonRpcMessage, ServerResult,
};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Tool calls per input, so one input cannot take long.
const MAX_CALLS: usize = 4;

struct Fixture {
    base: PathBuf,
    root: PathBuf,
    workspace: Workspace,
    audit: tools::Audit,
    ops: [String; 2],
    tree: BTreeMap<PathBuf, Vec<u8>>,
}

/// Every path below `dir` (outside `.filekeeper/`) with its bytes, or its link target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("readdir") {
            let path = entry.expect("entry").path();
            if path.file_name().is_some_and(|n| n == ".filekeeper") {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).expect("lstat");
            let bytes = if meta.is_symlink() {
                std::fs::read_link(&path)
                    .expect("readlink")
                    .into_os_string()
                    .into_encoded_bytes()
            } else if meta.is_dir() {
                todo.push(path.clone());
                b"<dir>".to_vec()
            } else {
                std::fs::read(&path).expect("read")
            };
            out.insert(path, bytes);
        }
    }
    out
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let base = tempfile::Builder::new()
            .prefix("fk-fuzz-mcp.")
            .tempdir()
            .expect("a temp dir")
            .keep()
            .canonicalize()
            .expect("canonical");
        let root = base.join("ws");
        let home = base.join("home");
        std::fs::create_dir_all(root.join("dir/sub")).expect("mkdir");
        std::fs::create_dir_all(base.join("outside")).expect("mkdir");
        for (name, bytes) in [
            ("a.txt", &b"one\ntwo\nthree\n"[..]),
            ("crlf.txt", b"one\r\ntwo\r\n"),
            ("nofinal.txt", b"last line"),
            ("dir/b.txt", b"    indented\n\tfn main() {}\n"),
            ("latin1.txt", b"caf\xe9\n"),
            ("bin.dat", b"\x00\x01\x02"),
            (".env", b"SECRET=1\n"),
            ("empty.txt", b""),
        ] {
            std::fs::write(root.join(name), bytes).expect("write");
        }
        std::fs::write(base.join("outside/secret.txt"), "secret").expect("write");
        std::os::unix::fs::symlink("a.txt", root.join("link")).expect("symlink");
        std::os::unix::fs::symlink("../outside", root.join("out")).expect("symlink");
        let keeper = Filekeeper::new(Some(&home)).expect("home");
        keeper.init().expect("init");
        let workspace = keeper.workspace(None, Some(&root)).expect("workspace");
        // Two real operations, for the history and undo tools to find.
        let options = MutationOptions::default();
        let op1 = workspace
            .write_file("made.txt", b"alpha\nbeta\n", None, false, &options)
            .expect("a write")
            .operation_id
            .expect("an id");
        let op2 = workspace
            .replace_text(
                "made.txt",
                "beta",
                "gamma",
                Policy::First,
                None,
                &EditGuards::default(),
                &options,
            )
            .expect("an edit")
            .operation_id
            .expect("an id");
        let tree = snapshot(&root);
        Fixture {
            base,
            root,
            workspace,
            audit: tools::Audit {
                actor: Some("fuzzer".into()),
                task_id: None,
            },
            ops: [op1, op2],
            tree,
        }
    })
}

fn substitute(data: &[u8], f: &Fixture) -> Vec<u8> {
    // Only valid UTF-8 gets placeholders; other bytes stay as they are.
    let Ok(text) = std::str::from_utf8(data) else {
        return data.to_vec();
    };
    if !text.contains('@') {
        return data.to_vec();
    }
    text.replace("@ROOT@", &f.root.to_string_lossy())
        .replace("@OP1@", &f.ops[0])
        .replace("@OP2@", &f.ops[1])
        .into_bytes()
}

/// Runs one `tools/call` as the server's `call_tool` and `run` do, and checks the answer.
fn call_tool(
    f: &Fixture,
    id: RequestId,
    name: &str,
    arguments: Option<Map<String, Value>>,
    line: &str,
) {
    if tools::find(name).is_none() {
        return; // the server answers invalid_params before any tool runs
    }
    let schema = tools::input_schema(name);
    let known: Vec<&str> = schema["properties"]
        .as_object()
        .expect("an input schema lists its properties")
        .keys()
        .map(String::as_str)
        .collect();
    let unknown: Vec<String> = arguments
        .iter()
        .flat_map(|m| m.keys())
        .filter(|k| !known.contains(&k.as_str()))
        .cloned()
        .collect();
    let mut arguments = arguments;
    if known.contains(&"dry_run") {
        let map = arguments.get_or_insert_with(Map::new);
        if matches!(
            map.get("dry_run"),
            None | Some(Value::Bool(_)) | Some(Value::Null)
        ) {
            map.insert("dry_run".into(), Value::Bool(true));
        }
    }
    // The server's default read bounds (filekeeper-mcp's --read-max-lines, --read-max-bytes).
    let cx = tools::Context {
        workspace: &f.workspace,
        audit: &f.audit,
        reads: tools::ReadBounds {
            max_bytes: 256 * 1024,
            max_lines: 2000,
        },
    };
    let result = tools::run(&cx, name, arguments);
    let after = snapshot(&f.root);
    assert!(
        after == f.tree,
        "{name}: a dry run changed the workspace\n{line}"
    );
    let (document, is_error) = match result {
        Ok(reply) => (reply.document, false),
        Err(err) => {
            if !unknown.is_empty() {
                assert_eq!(err.code, Code::InvalidArgument, "{name}: {}", err.message);
                let named = err.details.get("argument").and_then(Value::as_str);
                assert!(
                    named.is_some_and(|n| unknown.iter().any(|u| u == n)),
                    "{name}: the refusal names {named:?}, not an unknown argument of {unknown:?}"
                );
            }
            assert_ne!(err.code, Code::InternalError, "{name}: {}", err.message);
            let err = spelling::name_argument(err);
            (filekeeper::envelope::error_document(&err), true)
        }
    };
    assert!(
        is_error || unknown.is_empty(),
        "{name}: unknown arguments {unknown:?} were accepted"
    );
    let text = document.to_string();
    let host = f.base.to_string_lossy();
    if !line.contains(host.as_ref()) {
        assert!(
            !text.contains(host.as_ref()),
            "{name}: the host path leaked: {text}"
        );
    }
    let result = if is_error {
        CallToolResult::structured_error(document)
    } else {
        CallToolResult::structured(document)
    };
    let response = ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), id);
    serde_json::to_string(&response).expect("the response encodes");
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let data = substitute(data, f);
    let mut calls = 0;
    // The server's stdin thread: read up to each newline; a line that is not UTF-8, or not
    // JSON, is answered with -32700 by the server itself, and the next line is read as usual.
    for raw in data.split_inclusive(|&b| b == b'\n') {
        let line::Line::Request(message, _) = line::classify(raw) else {
            continue;
        };
        let line = String::from_utf8_lossy(raw);
        if let JsonRpcMessage::Request(request) = *message {
            if let ClientRequest::CallToolRequest(call) = request.request {
                calls += 1;
                if calls > MAX_CALLS {
                    return;
                }
                call_tool(
                    f,
                    request.id,
                    &call.params.name,
                    call.params.arguments,
                    &line,
                );
            }
        }
    }
});
