//! The tools' annotations checked against what the tools do: every tool is called on a small
//! tree in the way most likely to replace or remove what is there, and a tool that did so must
//! say `destructiveHint: true`; a tool that changed anything at all must not say
//! `readOnlyHint: true`. The probes are the arguments; the expectations come from the tree.

use super::{ALL, Audit, Context, run};
use filekeeper::Filekeeper;
use rmcp::model::JsonObject;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// Every file below `root` but the state directory, with its bytes.
fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel == ".filekeeper" {
                continue;
            }
            if path.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                pending.push(path);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// The call most likely to replace or remove what is there, for each tool.
fn probe(tool: &str, a_hash: &str) -> Value {
    match tool {
        "file_read" | "file_info" | "file_read_bytes" => json!({"path": "a.txt"}),
        "file_find_up" => json!({"path": "d/x.txt", "name": "a.txt"}),
        "file_diff" => json!({"path": "a.txt", "other": "b.txt"}),
        "file_read_many" => json!({"paths": ["a.txt"]}),
        "directory_list" => json!({"recursive": true}),
        "file_search" => json!({"path": ".", "pattern": "*.txt"}),
        "content_search" => json!({"path": ".", "query": "old"}),
        "history_list" | "workspace_list" | "workspace_info" | "workspace_status" => json!({}),
        "history_get" | "history_diff" | "undo_operation" => json!({"operation_id": "LAST"}),
        "undo_last" => json!({}),
        "file_create" => json!({"path": "a.txt", "content": "new\n", "allow_existing": true}),
        "file_write" => json!({"path": "a.txt", "content": "new\n"}),
        "file_copy" => json!({"source": "b.txt", "destination": "a.txt",
            "expected_destination_hash": a_hash}),
        "file_move" => json!({"source": "b.txt", "destination": "a.txt", "overwrite": true}),
        "file_delete" => json!({"path": "a.txt"}),
        "directory_create" => json!({"path": "d", "parents": true}),
        "directory_delete" => json!({"path": "d", "recursive": true}),
        "file_replace_text" => json!({"path": "a.txt", "old": "old", "new": "new",
            "policy": "first"}),
        "file_replace_lines" => json!({"path": "a.txt", "start": 1, "end": 1,
            "replacement": "new\n"}),
        "file_insert_lines" => json!({"path": "a.txt", "position": "before", "line": 1,
            "content": "new\n"}),
        "file_delete_lines" => json!({"path": "a.txt", "start": 1, "end": 1}),
        "file_apply_patch" => {
            json!({"patch": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n"})
        }
        other => panic!("no probe for the tool {other}: add one"),
    }
}

#[test]
fn every_tools_annotations_hold_for_what_it_does() {
    for tool in ALL {
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("b.txt"), "other\n").unwrap();
        std::fs::create_dir(root.path().join("d")).unwrap();
        std::fs::write(root.path().join("d/x.txt"), "x\n").unwrap();
        let keeper = Filekeeper::new(Some(home.path())).unwrap();
        let workspace = keeper.workspace(None, Some(root.path())).unwrap();
        // a.txt is written through the library, so there is an operation to show or undo.
        let written = workspace
            .write_file("a.txt", b"old\n", None, false, &Default::default())
            .unwrap();
        let audit = Audit {
            actor: None,
            task_id: None,
        };
        let cx = Context {
            workspace: &workspace,
            audit: &audit,
            reads: super::ReadBounds {
                max_bytes: 256 * 1024,
                max_lines: 2000,
            },
        };
        let mut arguments = probe(tool.name, written.after_hash.as_deref().unwrap());
        if arguments["operation_id"] == "LAST" {
            arguments["operation_id"] = json!(written.operation_id);
        }
        let arguments: JsonObject = serde_json::from_value(arguments).unwrap();

        let before = files(root.path());
        let result = run(&cx, tool.name, Some(arguments));
        let after = files(root.path());

        let annotations = crate::annotations(tool.effect);
        let changed = before != after;
        let replaced_or_removed = before
            .iter()
            .any(|(path, bytes)| after.get(path) != Some(bytes));
        assert!(
            result.is_ok() || !changed,
            "{}: a refused probe changed the tree: {result:?}",
            tool.name
        );
        if changed {
            assert_eq!(
                annotations.read_only_hint,
                Some(false),
                "{} changed the tree but is marked read-only",
                tool.name
            );
        }
        if replaced_or_removed {
            assert_eq!(
                annotations.destructive_hint,
                Some(true),
                "{} replaced or removed what was there but is not marked destructive",
                tool.name
            );
        }
        if annotations.read_only_hint == Some(true) {
            assert!(result.is_ok(), "{}: {result:?}", tool.name);
        }
    }
}
