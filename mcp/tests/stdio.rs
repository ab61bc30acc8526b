//! The real binary, driven over stdio with raw JSON-RPC lines.

mod common;

use common::{Session, Wiring};
use serde_json::json;
use std::io::Read;

fn setup() -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    let session = Session::start(&root, &dir.path().join("home"), "rust-test");
    (dir, session)
}

#[test]
fn lists_the_29_tools_with_honest_annotations() {
    let (_dir, mut s) = setup();
    let tools = s.request("tools/list", json!({}))["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(tools.len(), 29);
    let read_only: Vec<&str> = tools
        .iter()
        .filter(|t| t["annotations"]["readOnlyHint"] == true)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(read_only.len(), 15, "{read_only:?}");
    assert!(
        tools
            .iter()
            .all(|t| t["annotations"]["openWorldHint"] == false)
    );
    assert!(tools.iter().all(|t| t["inputSchema"]["type"] == "object"));
    assert!(tools.iter().all(|t| t["outputSchema"]["type"] == "object"));
}

/// A read's text is a header and the file's numbered lines, within the server's default
/// bounds; the structured content is the exact text. A read's numbered lines sent back as old
/// text are refused, saying they carry line numbers.
#[test]
fn a_read_shows_a_model_numbered_lines_within_the_default_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let text: String = (1..=2500).map(|i| format!("line {i}\n")).collect();
    std::fs::write(root.join("long.txt"), &text).unwrap();
    let mut s = Session::start(&root, &dir.path().join("home"), "rust-test");

    let read = s.call_result("file_read", json!({"path": "long.txt"}));
    let document = &read["structuredContent"];
    assert_eq!(document["end_line"], 2000, "2000 lines by default");
    assert_eq!(
        (&document["truncation_reason"], &document["next_start_line"]),
        (&json!("max_lines"), &json!(2001))
    );
    let expected: String = (1..=2000).map(|i| format!("line {i}\n")).collect();
    assert_eq!(document["content"], expected.as_str(), "the exact text");
    let shown = read["content"][0]["text"].as_str().unwrap();
    let (header, lines) = shown.split_once('\n').unwrap();
    assert_eq!(
        header,
        format!(
            "long.txt: lines 1-2000 of 2500; content_hash {}; truncated at max_lines, next_start_line 2001",
            document["content_hash"].as_str().unwrap()
        )
    );
    assert_eq!(lines, filekeeper::numbered(&expected, 1));
    assert!(lines.starts_with("     1\tline 1\n     2\tline 2\n"));

    let plain = s.call_result(
        "file_read",
        json!({"path": "long.txt", "from_line": 2499, "numbered": false}),
    );
    let shown = plain["content"][0]["text"].as_str().unwrap();
    assert!(shown.ends_with("\nline 2499\nline 2500\n"), "{shown}");

    let pasted: String = lines
        .lines()
        .skip(4)
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect();
    let refused = s.call_result(
        "file_replace_text",
        json!({"path": "long.txt", "old": pasted, "new": "x\n", "policy": "first"}),
    );
    assert_eq!(refused["isError"], true);
    let error = &refused["structuredContent"]["error"];
    assert_eq!(error["code"], "NO_MATCH");
    assert_eq!(error["details"]["line_number_prefixes"]["form"], "tab");
    assert_eq!(
        error["details"]["line_number_prefixes"]["stripped_match_count"],
        1
    );
    let shown = refused["content"][0]["text"].as_str().unwrap();
    assert!(
        shown.starts_with("error NO_MATCH: the old text was not found"),
        "{shown}"
    );
    assert!(
        shown.contains("\nwhat to do: every line of the old text starts with a line number"),
        "{shown}"
    );
    assert!(shown.contains("\ndetails: {"), "{shown}");
}

/// The server's default bounds are set at start-up, and a call may ask for more, up to the
/// workspace's max_read_bytes.
#[test]
fn the_default_read_bounds_are_configurable_and_a_call_may_ask_for_more() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "0123456789\n".repeat(30)).unwrap();
    std::fs::write(root.join("b.txt"), "b\n".repeat(30)).unwrap();
    let mut s = Session::start_with(
        &root,
        &dir.path().join("home"),
        "rust-test",
        Wiring::Pipes,
        &["--read-max-lines", "25", "--read-max-bytes", "100"],
    );
    let read = s.call("file_read", json!({"path": "a.txt"}));
    assert_eq!(
        (&read["end_line"], &read["truncation_reason"]),
        (&json!(9), &json!("max_bytes"))
    );
    let read = s.call("file_read", json!({"path": "b.txt"}));
    assert_eq!(
        (&read["end_line"], &read["truncation_reason"]),
        (&json!(25), &json!("max_lines"))
    );
    let read = s.call(
        "file_read",
        json!({"path": "a.txt", "max_bytes": 1000, "max_lines": 100}),
    );
    assert_eq!(
        (&read["end_line"], &read["truncated"]),
        (&json!(30), &json!(false))
    );
    let many = s.call(
        "file_read_many",
        json!({"paths": ["a.txt", "b.txt"], "max_lines_per_file": 5}),
    );
    assert_eq!(many["results"][0]["end_line"], 5);
    assert_eq!(many["results"][1]["end_line"], 5);
    let many = s.call("file_read_many", json!({"paths": ["a.txt", "b.txt"]}));
    assert_eq!(
        many["results"][0]["end_line"], 9,
        "the default bounds apply per file"
    );
    assert_eq!(many["results"][1]["end_line"], 25);
    let bytes = s.call("file_read_bytes", json!({"path": "a.txt"}));
    assert_eq!(
        (&bytes["length"], &bytes["next_offset"]),
        (&json!(100), &json!(100)),
        "a byte read takes the default byte bound"
    );
    let bytes = s.call("file_read_bytes", json!({"path": "a.txt", "length": 1000}));
    assert_eq!(bytes["length"], 330);
    let diff = s.call("file_diff", json!({"path": "a.txt", "other": "b.txt"}));
    assert_eq!(
        diff["truncated"], true,
        "a diff takes the default byte bound"
    );
    assert!(diff["diff"].as_str().unwrap().len() <= 100);
    let diff = s.call(
        "file_diff",
        json!({"path": "a.txt", "other": "b.txt", "max_bytes": 100_000}),
    );
    assert_eq!(diff["truncated"], false);
    let above = s.call("file_read", json!({"path": "a.txt", "max_bytes": 6 << 20}));
    assert_eq!(above["error"]["code"], "LIMIT_EXCEEDED");
    let zero = s.call("file_read", json!({"path": "a.txt", "max_lines": 0}));
    assert_eq!(zero["error"]["code"], "INVALID_ARGUMENT");
    assert_eq!(zero["error"]["message"], "max_lines must be at least 1");
}

/// A mutation's text is its summary, its operation id and its diff.
#[test]
fn a_mutation_shows_a_model_what_changed() {
    let (_dir, mut s) = setup();
    let edit = s.call_result(
        "file_replace_lines",
        json!({"path": "a.txt", "start": 2, "end": 2, "replacement": "TWO\n"}),
    );
    let document = &edit["structuredContent"];
    let shown = edit["content"][0]["text"].as_str().unwrap();
    let expected = format!(
        "{}\noperation_id: {} (undo_operation reverses it)\nafter_hash: {}\nmodified a.txt\n{}",
        document["summary"].as_str().unwrap(),
        document["operation_id"].as_str().unwrap(),
        document["after_hash"].as_str().unwrap(),
        document["diffs"][0]["diff"].as_str().unwrap(),
    );
    assert!(shown.starts_with(&expected), "{shown}");
    assert!(shown.contains("\n-two\n+TWO\n"), "{shown}");
}

#[test]
fn a_guarded_edit_then_a_stale_guard_then_undo() {
    let (dir, mut s) = setup();
    let read = s.call("file_read", json!({"path": "a.txt"}));
    assert_eq!(read["ok"], true);
    let hash = read["content_hash"].as_str().unwrap().to_owned();
    let edit = s.call(
        "file_replace_text",
        json!({"path": "a.txt", "old": "two", "new": "TWO", "policy": "first", "expected_hash": hash}),
    );
    assert_eq!(edit["ok"], true, "{edit}");
    assert_eq!(edit["match_stage"], "exact");
    let stale = s.call(
        "file_write",
        json!({"path": "a.txt", "content": "x", "expected_hash": hash}),
    );
    assert_eq!(stale["ok"], false);
    assert_eq!(stale["error"]["code"], "CONTENT_CONFLICT");
    assert_eq!(stale["error"]["retryable"], false);
    let undo = s.call(
        "undo_operation",
        json!({"operation_id": edit["operation_id"]}),
    );
    assert_eq!(undo["ok"], true, "{undo}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ws/a.txt")).unwrap(),
        "one\ntwo\n"
    );
    let history = s.call("history_list", json!({}));
    assert_eq!(history["operations"][0]["actor"], "rust-test");
}

#[test]
fn an_occurrence_chooses_one_of_the_listed_matches() {
    let (dir, mut s) = setup();
    std::fs::write(dir.path().join("ws/b.txt"), "x\ny\nx\n").unwrap();
    let call = |s: &mut Session, extra: serde_json::Value| {
        let mut arguments = json!({"path": "b.txt", "old": "x", "new": "X", "policy": "first"});
        arguments
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        s.call("file_replace_text", arguments)
    };
    let ambiguous = call(&mut s, json!({}));
    assert_eq!(ambiguous["error"]["code"], "MATCH_COUNT_MISMATCH");
    let details = &ambiguous["error"]["details"];
    assert_eq!(details["matches"][1]["line"], 3);
    let recovery = details["recovery"].as_str().unwrap();
    assert!(recovery.contains("occurrence N"), "{recovery}");
    assert!(!recovery.contains("--"), "{recovery}");
    let past = call(&mut s, json!({"occurrence": 3}));
    assert_eq!(past["error"]["code"], "MATCH_COUNT_MISMATCH");
    assert_eq!(past["error"]["details"]["occurrence"], 3);
    let all = call(&mut s, json!({"occurrence": 1, "policy": "all"}));
    assert_eq!(all["error"]["code"], "INVALID_ARGUMENT");
    assert!(
        all["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("occurrence chooses one match"),
        "{all}"
    );
    let edit = call(&mut s, json!({"occurrence": 2, "expected_match_count": 2}));
    assert_eq!(edit["ok"], true, "{edit}");
    assert_eq!(edit["match_count"], 2);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ws/b.txt")).unwrap(),
        "x\ny\nX\n"
    );
}

#[test]
fn bad_requests_get_errors_and_the_server_keeps_serving() {
    let (_dir, mut s) = setup();
    s.send(json!("not a request"));
    s.send_line("{ this is not json");
    let unknown = s.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert!(unknown.get("error").is_some());
    let wrong = s.call("file_read", json!({"path": 42}));
    assert_eq!(wrong["error"]["code"], "INVALID_ARGUMENT");
    let extra = s.call("file_read", json!({"path": "a.txt", "root": "/"}));
    assert_eq!(extra["error"]["code"], "INVALID_ARGUMENT");
    let outside = s.call("file_read", json!({"path": "../etc/passwd"}));
    assert_eq!(outside["error"]["code"], "PATH_OUTSIDE_WORKSPACE");
    assert_eq!(outside["error"]["details"]["path"], "../etc/passwd");
    let fine = s.call("file_info", json!({"path": "a.txt"}));
    assert_eq!(fine["ok"], true);
}

#[test]
fn sensitive_refusals_name_the_mcp_argument() {
    let (_dir, mut s) = setup();
    let refused = s.call("file_create", json!({"path": ".env", "content": "K=V"}));
    assert_eq!(refused["error"]["code"], "SENSITIVE_PATH_REFUSED");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("i_accept_secret_write_risk"));
    assert!(!message.contains("--i-accept"));
    let allowed = s.call(
        "file_create",
        json!({"path": ".env", "content": "K=V", "i_accept_secret_write_risk": true}),
    );
    assert_eq!(allowed["ok"], true);
}

#[test]
fn file_apply_patch_reads_codex_patches() {
    let (dir, mut s) = setup();
    // setup() wrote "one\ntwo\n" to a.txt.
    let applied = s.call(
        "file_apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n*** Add File: b.txt\n+b\n*** End Patch\n"}),
    );
    assert_eq!(applied["ok"], true, "{applied}");
    assert_eq!(applied["patch_files"][0]["hunks"][0]["old_start"], 1);
    assert_eq!(applied["patch_files"][1]["change"], "created");
    let ws = dir.path().join("ws");
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "one\n2\n"
    );
    std::fs::write(ws.join("c.txt"), "x\ny\nx\ny\n").unwrap();
    let refused = s.call(
        "file_apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: c.txt\n@@\n x\n-y\n+Y\n*** End Patch\n"}),
    );
    assert_eq!(refused["ok"], false);
    assert_eq!(refused["error"]["code"], "PATCH_FAILED");
    assert_eq!(refused["error"]["details"]["matches"], json!([1, 3]));
    assert_eq!(
        std::fs::read_to_string(ws.join("c.txt")).unwrap(),
        "x\ny\nx\ny\n"
    );
    let undone = s.call("undo_last", json!({}));
    assert_eq!(undone["ok"], true, "{undone}");
    assert_eq!(
        std::fs::read_to_string(ws.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
    assert!(!ws.join("b.txt").exists());
}

/// A read whose response (the content twice, numbered in the text: about 7 MiB) is far larger
/// than a pipe's or a socket's buffer, so the server's write must wait for the client to read.
/// (It asks for more than the server's default bounds, up to max_read_bytes.)
fn serves_a_large_read(wiring: Wiring) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    let line = "a line of text that repeats, to make the file large\n";
    let big = line.repeat(3 * 1024 * 1024 / line.len());
    std::fs::write(root.join("big.txt"), &big).unwrap();
    std::fs::write(root.join("small.txt"), "small\n").unwrap();
    let mut s = Session::start_wired(&root, &dir.path().join("home"), "rust-test", wiring);
    let read = s.call(
        "file_read",
        json!({"path": "big.txt", "max_bytes": 5 << 20, "max_lines": 1 << 20}),
    );
    assert_eq!(read["ok"], true, "{wiring:?}");
    assert_eq!(read["content"].as_str(), Some(big.as_str()), "{wiring:?}");
    // And the session goes on.
    let small = s.call("file_read", json!({"path": "small.txt"}));
    assert_eq!(small["content"], "small\n", "{wiring:?}");
}

#[test]
fn serves_a_large_read_over_pipes() {
    serves_a_large_read(Wiring::Pipes);
}

#[test]
fn serves_a_large_read_with_a_socket_for_stdin() {
    serves_a_large_read(Wiring::Socket);
}

#[test]
fn serves_a_large_read_with_one_socket_for_stdin_and_stdout() {
    // Stdin is not made nonblocking here: that would make the large response's write fail.
    serves_a_large_read(Wiring::SharedSocket);
}

/// The server on `root` (its home in `dir`), with `stdin` and `stderr` as given and stdout a pipe.
fn spawn(
    dir: &std::path::Path,
    root: &std::path::Path,
    stdin: impl Into<std::process::Stdio>,
    stderr: std::process::Stdio,
) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_filekeeper-mcp"))
        .arg("--root")
        .arg(root)
        .env("FILEKEEPER_HOME", dir.join("home"))
        .stdin(stdin)
        .stdout(std::process::Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

#[test]
fn serves_requests_from_a_file_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "one\n").unwrap();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "file", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "file_read", "arguments": {"path": "a.txt"}}}),
    ];
    let input = dir.path().join("requests.jsonl");
    let lines: Vec<String> = requests.iter().map(|r| r.to_string() + "\n").collect();
    std::fs::write(&input, lines.concat()).unwrap();
    let mut child = spawn(
        dir.path(),
        &root,
        std::fs::File::open(&input).unwrap(),
        std::process::Stdio::null(),
    );
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(child.wait().unwrap().success());
    let read = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|m| m["id"] == 2)
        .expect("the read is answered before the input ends");
    assert_eq!(read["result"]["structuredContent"]["content"], "one\n");
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Waits at most a minute for `child` to exit; false if it did not.
fn exits(child: std::process::Child) -> bool {
    let (done, exited) = std::sync::mpsc::channel();
    let mut child = child;
    std::thread::spawn(move || {
        let _ = done.send(child.wait().is_ok());
    });
    exited
        .recv_timeout(std::time::Duration::from_secs(60))
        .unwrap_or(false)
}

#[test]
fn a_server_reading_a_terminal_ends_when_stdout_fails() {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().unwrap();
    // A machine without pseudo-terminals (a container without /dev/pts) cannot run this.
    let opened = (|| {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).ok()?;
        grantpt(&master).ok()?;
        unlockpt(&master).ok()?;
        let name = ptsname(&master, Vec::new()).ok()?;
        let terminal = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(name.to_str().ok()?)
            .ok()?;
        Some((master, terminal))
    })();
    let Some((master, terminal)) = opened else {
        eprintln!("skipped: no pseudo-terminal could be opened here");
        return;
    };
    let mut child = spawn(
        dir.path(),
        dir.path(),
        terminal,
        std::process::Stdio::piped(),
    );
    let mut typed = std::fs::File::from(master);
    writeln!(typed, "{INIT}").unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("serverInfo"), "{line}");
    drop(stdout); // the client stops reading
    writeln!(typed, "{INITIALIZED}").unwrap();
    writeln!(typed, r#"{{"jsonrpc":"2.0","id":2,"method":"ping"}}"#).unwrap();
    let mut stderr = child.stderr.take().unwrap();
    // The terminal stays open and silent: the server must end without another line.
    assert!(exits(child), "the server still waits for the terminal");
    let mut said = String::new();
    stderr.read_to_string(&mut said).unwrap();
    assert!(said.contains("writing to stdout failed"), "{said}");
}

/// Starts the server with `stdin`, one end of a pipe or a socket pair whose open file
/// description the test holds too (`same`), and sends requests through `requests`. Stdin must
/// be nonblocking while the server reads it (through the event loop) and blocking again once
/// the server has ended, as the shell or client that handed it on expects.
fn stdin_is_nonblocking_only_while_served(
    stdin: std::os::fd::OwnedFd,
    same: std::os::fd::OwnedFd,
    mut requests: impl std::io::Write,
) {
    use rustix::fs::{OFlags, fcntl_getfl};
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(dir.path(), dir.path(), stdin, std::process::Stdio::null());
    writeln!(requests, "{INIT}").unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("serverInfo"), "{line}");
    assert!(fcntl_getfl(&same).unwrap().contains(OFlags::NONBLOCK));
    drop(requests); // the end of input ends the session
    assert!(exits(child));
    assert!(!fcntl_getfl(&same).unwrap().contains(OFlags::NONBLOCK));
}

#[test]
fn a_pipe_on_stdin_is_read_nonblocking_and_handed_back_blocking() {
    let (reader, writer) = std::io::pipe().unwrap();
    let stdin = std::os::fd::OwnedFd::from(reader.try_clone().unwrap());
    stdin_is_nonblocking_only_while_served(stdin, reader.into(), writer);
}

#[test]
fn a_socket_on_stdin_is_read_nonblocking_and_handed_back_blocking() {
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let stdin = std::os::fd::OwnedFd::from(theirs.try_clone().unwrap());
    stdin_is_nonblocking_only_while_served(stdin, theirs.into(), ours);
}

#[test]
fn content_search_skips_undecodable_files_unless_given_their_encoding() {
    let (dir, mut s) = setup();
    std::fs::write(dir.path().join("ws/l.txt"), b"caf\xe9\n").unwrap();
    let plain = s.call("content_search", json!({"path": "l.txt", "query": "caf"}));
    assert_eq!(plain["matches"], json!([]), "{plain}");
    assert_eq!(plain["files_undecodable"], 1);
    let named = s.call(
        "content_search",
        json!({"path": "l.txt", "query": "caf", "encoding": "latin1"}),
    );
    assert_eq!(named["matches"][0]["text"], "café", "{named}");
    assert_eq!(named["encoding"], "windows-1252");
}

/// `workspace_info` says where the state is as the library found it: in the tree by default,
/// under the home when `config.toml` pins it there. (A pinned global state once read
/// "project": the location was guessed from the absence of a fallback notice.)
#[test]
fn workspace_info_names_where_the_state_lives() {
    for (pinned, expected) in [(None, "project"), (Some("global"), "home")] {
        let dir = tempfile::tempdir().unwrap();
        let (root, home) = (dir.path().join("ws"), dir.path().join("home"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        if let Some(location) = pinned {
            let config = format!("[filekeeper]\nstate_location = \"{location}\"\n");
            std::fs::write(home.join("config.toml"), config).unwrap();
        }
        let mut s = Session::start(&root, &home, "rust-test");
        assert_eq!(s.call("workspace_info", json!({}))["state"], json!(null));
        let created = s.call("file_create", json!({"path": "a.txt", "content": "a\n"}));
        assert_eq!(created["ok"], true, "{created}");
        let info = s.call("workspace_info", json!({}));
        assert_eq!(info["state"], expected, "pinned {pinned:?}: {info}");
        assert_eq!(root.join(".filekeeper").is_dir(), expected == "project");
    }
}
