//! The real binary, driven over stdio with raw JSON-RPC lines.

mod common;

use common::Session;
use serde_json::json;

fn setup() -> (tempfile::TempDir, Session) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    let session = Session::start(&root, &dir.path().join("home"), "rust-test");
    (dir, session)
}

#[test]
fn lists_the_25_tools_with_honest_annotations() {
    let (_dir, mut s) = setup();
    let tools = s.request("tools/list", json!({}))["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(tools.len(), 25);
    let read_only: Vec<&str> = tools
        .iter()
        .filter(|t| t["annotations"]["readOnlyHint"] == true)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(read_only.len(), 11, "{read_only:?}");
    assert!(
        tools
            .iter()
            .all(|t| t["annotations"]["openWorldHint"] == false)
    );
    assert!(tools.iter().all(|t| t["inputSchema"]["type"] == "object"));
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
