//! Every tool's real structured result validates against its published schema.
//!
//! The real server is driven over stdio through every tool (with a dry run, a truncated
//! read, a read-many with a failing path, and a refusal), and each `structuredContent` is
//! validated against the committed `docs/schemas/mcp/<tool>.json`, or `error.json` for a
//! failure, closed to undeclared fields ([`filekeeper::schemas::closed`]). (The crate's unit
//! tests keep those files what the tools declare.) The tools the server lists and the MCP
//! schemas published must be the same set, and each schema must have been exercised.

mod common;

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The committed schemas a tool result can match: `error.json` and every `mcp/<tool>.json`,
/// by their path below `docs/schemas/`.
fn published() -> BTreeMap<String, Value> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schemas");
    let read = |path: &str| {
        let text = std::fs::read_to_string(dir.join(path)).unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let mut out = BTreeMap::new();
    out.insert("error.json".to_owned(), read("error.json"));
    for entry in std::fs::read_dir(dir.join("mcp")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") {
            let path = format!("mcp/{name}");
            out.insert(path.clone(), read(&path));
        }
    }
    out
}

/// A session that checks every result it gets against the published schemas.
struct Server {
    session: common::Session,
    schemas: BTreeMap<String, Value>,
    exercised: BTreeSet<String>,
}

impl Server {
    fn start(root: &std::path::Path, home: &std::path::Path) -> Server {
        Server {
            session: common::Session::start(root, home, "schema-test"),
            schemas: published(),
            exercised: BTreeSet::new(),
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.session.request(method, params)
    }

    /// Calls `tool` and validates its structured result against its own schema (which admits
    /// the error document too, as a client that validates errors needs), and a failure against
    /// `error.json` as well; returns the result.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.session.call_result(tool, arguments);
        let content = result["structuredContent"].clone();
        self.validate(tool, &content, format!("mcp/{tool}.json"));
        if result["isError"] == true {
            self.validate(tool, &content, "error.json".to_owned());
        }
        content
    }

    fn validate(&mut self, tool: &str, content: &Value, schema: String) {
        let closed = filekeeper::schemas::closed(
            self.schemas
                .get(&schema)
                .unwrap_or_else(|| panic!("no schema {schema}")),
        );
        let validator = jsonschema::validator_for(&closed)
            .unwrap_or_else(|e| panic!("{schema} is not a valid schema: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(content)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{tool} does not match {schema}:\n  {}\nresult: {content:#}",
            errors.join("\n  ")
        );
        self.exercised.insert(schema);
    }

    fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        let content = self.call(tool, arguments);
        assert_eq!(content["ok"], true, "{tool}: {content}");
        content
    }
}

#[test]
fn every_tool_result_matches_its_schema() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    std::os::unix::fs::symlink("a.txt", root.join("link")).unwrap();
    let mut s = Server::start(&root, &dir.path().join("home"));

    let tools = s.request("tools/list", json!({}))["result"]["tools"].clone();
    for tool in tools.as_array().unwrap() {
        let published = &s.schemas[&format!("mcp/{}.json", tool["name"].as_str().unwrap())];
        assert_eq!(
            &tool["outputSchema"], published,
            "{}: the advertised outputSchema is the published one",
            tool["name"]
        );
    }
    let listed: BTreeSet<String> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("mcp/{}.json", t["name"].as_str().unwrap()))
        .collect();
    let published: BTreeSet<String> = s
        .schemas
        .keys()
        .filter(|p| p.starts_with("mcp/"))
        .cloned()
        .collect();
    assert_eq!(listed, published, "every tool has a schema, and no other");

    s.ok("workspace_list", json!({}));
    let info = s.ok("workspace_info", json!({}));
    assert_eq!(
        info["state"],
        Value::Null,
        "no state before the first write"
    );
    let status = s.ok("workspace_status", json!({}));
    assert_eq!(status["journal"]["operations"], 0, "{status}");
    s.ok("file_read", json!({"path": "a.txt"}));
    let cut = s.ok("file_read", json!({"path": "a.txt", "max_bytes": 4}));
    assert_eq!(cut["truncated"], true);
    let many = s.ok("file_read_many", json!({"paths": ["a.txt", "missing.txt"]}));
    assert_eq!(many["results"][1]["ok"], false);
    s.ok("file_info", json!({"path": "a.txt"}));
    s.ok("directory_list", json!({"recursive": true}));
    s.ok("file_search", json!({"path": ".", "pattern": "*.txt"}));
    s.ok("content_search", json!({"path": ".", "query": "two"}));
    let up = s.ok("file_find_up", json!({"path": "a.txt", "name": "link"}));
    assert_eq!(up["found_path"], "link");
    let none = s.ok("file_find_up", json!({"path": ".", "name": "absent"}));
    assert_eq!(none["found"], false);
    let same = s.ok("file_diff", json!({"path": "a.txt", "other": "link"}));
    assert_eq!(same["identical"], true);
    let bytes = s.ok(
        "file_read_bytes",
        json!({"path": "a.txt", "offset": 1, "length": 2}),
    );
    assert_eq!(bytes["content"], "bmU=");
    assert_eq!(bytes["next_offset"], 3);

    let dry = s.ok(
        "file_create",
        json!({"path": "b.txt", "content": "b\n", "dry_run": true}),
    );
    assert_eq!(dry["would_change"], true);
    s.ok("file_create", json!({"path": "b.txt", "content": "b\n"}));
    let write = s.ok(
        "file_write",
        json!({"path": "a.txt", "content": "one\ntwo\nthree\n"}),
    );
    s.ok("workspace_info", json!({}));
    let status = s.ok("workspace_status", json!({}));
    assert_eq!(status["state"], "project", "{status}");
    s.ok(
        "file_replace_text",
        json!({"path": "a.txt", "old": "two", "new": "TWO", "policy": "first"}),
    );
    s.ok(
        "file_replace_lines",
        json!({"path": "a.txt", "start": 1, "end": 1, "replacement": "ONE"}),
    );
    s.ok(
        "file_insert_lines",
        json!({"path": "a.txt", "position": "end", "content": "four"}),
    );
    s.ok(
        "file_delete_lines",
        json!({"path": "a.txt", "start": 4, "end": 4}),
    );
    s.ok(
        "file_apply_patch",
        json!({"patch": "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n"}),
    );
    s.ok(
        "file_copy",
        json!({"source": "a.txt", "destination": "c.txt"}),
    );
    s.ok(
        "file_move",
        json!({"source": "c.txt", "destination": "d.txt"}),
    );
    let deleted = s.ok("file_delete", json!({"path": "d.txt"}));
    s.ok("directory_create", json!({"path": "sub"}));
    s.ok("directory_delete", json!({"path": "sub"}));

    s.ok("history_list", json!({}));
    s.ok(
        "history_get",
        json!({"operation_id": write["operation_id"]}),
    );
    s.ok(
        "history_diff",
        json!({"operation_id": write["operation_id"]}),
    );
    s.ok(
        "undo_operation",
        json!({"operation_id": deleted["operation_id"]}),
    );
    s.ok("undo_last", json!({}));

    let refused = s.call("file_read", json!({"path": "missing.txt"}));
    assert_eq!(refused["error"]["code"], "PATH_NOT_FOUND");

    let mut expected = published;
    expected.insert("error.json".to_owned());
    let missed: Vec<&String> = expected.difference(&s.exercised).collect();
    assert!(missed.is_empty(), "never exercised: {missed:?}");
}
