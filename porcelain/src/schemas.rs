//! JSON Schemas (draft 2020-12) of every document `keeper --json` prints, generated from the
//! types those documents are serialized from, and the means to generate the rest: [`schema`],
//! [`mutation`] and [`titled`], with which `filekeeper-mcp` publishes each of its tools'
//! structured results from the tool's declaration.
//!
//! They are published under `docs/schemas/`: `error.json` for every failure, `cli/<command>.json`
//! (`file-read.json`, `history-list.json`, `hash-object.json`, ...) and, owned by the MCP
//! crate, `mcp/<tool>.json`. `porcelain/tests/schemas.rs` fails when the committed files differ
//! from [`all`] (and the MCP crate's tests when `mcp/` differs from its tools); run them with
//! `FILEKEEPER_BLESS_SCHEMAS=1` to write them.
//!
//! The schemas describe the serialize side: a field that is always printed is `required` (null
//! where its type allows), one that is sometimes left out is not. They leave objects open, so a
//! field added later does not break a consumer validating with an older schema; [`closed`] is
//! the strict form the tests validate real output against.

use crate::documents::{
    CatBlobText, Completions, FileHash, HistoryList, HistoryShow, Initialised, Manual, ReadMany,
    Version, WorkspaceIfOpened, WorkspaceList, WorkspaceRemoved, WorkspaceShown,
};
use crate::envelope::{Document, Failure, Success};
use crate::plumbing::commands::{
    Fsck, HashedObject, JournalBegun, JournalEntry, Published, Recovered, ResolvedPath,
};
use crate::{
    ByteRange, Existence, FileDiff, FileInfo, FoundUp, GrepResult, HistoryDiff, Listing,
    MutationExtra, MutationResult, ReadResult, WorkspaceStatus,
};
use crate::{GcResult, PruneResult};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Value, json};

/// Every schema the library publishes, all but the MCP crate's `mcp/`: its path below
/// `docs/schemas/` and its content, sorted by path.
pub fn all() -> Vec<(String, Value)> {
    let mut out = vec![(
        "error.json".to_owned(),
        titled(
            schema::<Failure>(),
            "Failure",
            "What every keeper command prints with --json when it fails (exit code per \
             docs/errors.md), and every MCP tool's structured result with isError true.",
        ),
    )];
    for (command, shape) in cli() {
        let exit = match command {
            "file exists" => "exit 0, or 3 when the path does not exist",
            "file find-up" => "exit 0, or 3 when no entry of that name was found",
            _ => "exit 0",
        };
        out.push((
            format!("cli/{}.json", command.replace(' ', "-")),
            titled(
                shape,
                &format!("keeper {command} --json"),
                &format!("What `keeper --json {command}` prints on success ({exit})."),
            ),
        ));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The success documents of `keeper --json`, by command path (`file read`); `--version` is
/// `version`.
fn cli() -> Vec<(&'static str, Value)> {
    let mut out = vec![
        ("version", schema::<Document<Version>>()),
        ("completions", schema::<Document<Completions>>()),
        ("man", schema::<Document<Manual>>()),
        ("init", schema::<Document<Initialised>>()),
        ("workspace create", schema::<Document<WorkspaceShown>>()),
        ("workspace list", schema::<Document<WorkspaceList>>()),
        ("workspace show", schema::<Document<WorkspaceShown>>()),
        ("workspace use", schema::<Document<WorkspaceShown>>()),
        ("workspace remove", schema::<Document<WorkspaceRemoved>>()),
        ("file read", schema::<Success<ReadResult>>()),
        ("file read-many", schema::<Success<ReadMany>>()),
        ("file info", schema::<Success<FileInfo>>()),
        ("file hash", schema::<Success<FileHash>>()),
        ("file exists", schema::<Success<Existence>>()),
        ("file list", schema::<Success<Listing>>()),
        ("file search", schema::<Success<Listing>>()),
        ("file grep", schema::<Success<GrepResult>>()),
        ("file find-up", schema::<Success<FoundUp>>()),
        ("file diff", schema::<Success<FileDiff>>()),
        ("file read-bytes", schema::<Success<ByteRange>>()),
        (
            "file replace-text",
            mutation(&["match_stage", "match_count"], &["merged"]),
        ),
        ("file replace-lines", mutation(&[], &["merged"])),
        ("file insert-lines", mutation(&[], &["merged"])),
        ("file delete-lines", mutation(&[], &["merged"])),
        ("file apply-patch", mutation(&["patch_files"], &["merged"])),
        ("history undo-last", mutation(&["skipped_operations"], &[])),
        ("history list", schema::<Success<HistoryList>>()),
        ("history show", schema::<Success<HistoryShow>>()),
        ("history diff", schema::<Success<HistoryDiff>>()),
        ("status", schema::<Success<WorkspaceStatus>>()),
        ("history prune", schema::<Success<PruneResult>>()),
        ("gc", schema::<Success<GcResult>>()),
        (
            "hash-object",
            schema::<Document<WorkspaceIfOpened<HashedObject>>>(),
        ),
        ("cat-blob", schema::<Success<CatBlobText>>()),
        ("resolve-path", schema::<Success<ResolvedPath>>()),
        ("journal-begin", schema::<Success<JournalBegun>>()),
        ("journal-commit", schema::<Success<JournalEntry>>()),
        ("journal-abort", schema::<Success<JournalEntry>>()),
        ("journal-show", schema::<Success<JournalEntry>>()),
        ("publish", schema::<Success<Published>>()),
        ("fsck", schema::<Success<Fsck>>()),
        ("recover", schema::<Success<Recovered>>()),
    ];
    for command in [
        "file create",
        "file copy",
        "file move",
        "file delete",
        "dir create",
        "dir move",
        "dir delete",
        "history undo",
    ] {
        out.push((command, mutation(&[], &[])));
    }
    out.push(("file write", mutation(&[], &["bom_kept"])));
    out
}

/// The schema of `T` as it serializes, with every object open.
pub fn schema<T: JsonSchema>() -> Value {
    let mut schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    open(&mut schema);
    schema
}

/// Removes `additionalProperties: false` (which a type that also reads configuration,
/// `deny_unknown_fields`, brings along): every published object is open.
fn open(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                map.remove("additionalProperties");
            }
            map.values_mut().for_each(open);
        }
        Value::Array(list) => list.iter_mut().for_each(open),
        _ => {}
    }
}

/// A mutation's document: [`MutationResult`] with, of the [`MutationExtra`] fields, exactly
/// `required` (which that command always reports) and `optional` (which it reports when they
/// apply).
pub fn mutation(required: &[&str], optional: &[&str]) -> Value {
    let mut shape = schema::<Success<MutationResult>>();
    let extra = schema::<MutationExtra>();
    let extra = extra["properties"]
        .as_object()
        .expect("MutationExtra has properties");
    for name in required.iter().chain(optional) {
        assert!(
            extra.contains_key(*name),
            "{name} is not a MutationExtra field"
        );
    }
    for name in extra.keys() {
        if required.contains(&name.as_str()) {
            if let Some(Value::Array(required)) = shape.get_mut("required") {
                required.push(json!(name));
            }
        } else if !optional.contains(&name.as_str())
            && let Some(Value::Object(properties)) = shape.get_mut("properties")
        {
            properties.remove(name);
        }
    }
    prune_definitions(&mut shape);
    shape
}

/// Drops the `$defs` no longer referenced from the rest of the schema.
fn prune_definitions(schema: &mut Value) {
    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(target)) = map.get("$ref") {
                    out.push(target.trim_start_matches("#/$defs/").to_owned());
                }
                map.values().for_each(|v| refs(v, out));
            }
            Value::Array(list) => list.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let Some(Value::Object(defs)) = schema.get("$defs").cloned() else {
        return;
    };
    let mut body = schema.clone();
    if let Value::Object(map) = &mut body {
        map.remove("$defs");
    }
    let mut pending = Vec::new();
    refs(&body, &mut pending);
    let mut used = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if used.insert(name.clone())
            && let Some(def) = defs.get(&name)
        {
            refs(def, &mut pending);
        }
    }
    let kept: serde_json::Map<String, Value> = defs
        .into_iter()
        .filter(|(name, _)| used.contains(name))
        .collect();
    if let Value::Object(map) = schema {
        if kept.is_empty() {
            map.remove("$defs");
        } else {
            map.insert("$defs".into(), Value::Object(kept));
        }
    }
}

/// `shape` with its title and description, placed first after `$schema`.
pub fn titled(shape: Value, title: &str, description: &str) -> Value {
    let Value::Object(mut shape) = shape else {
        unreachable!("a root schema is an object")
    };
    let mut out = serde_json::Map::new();
    if let Some(meta) = shape.remove("$schema") {
        out.insert("$schema".into(), meta);
    }
    out.insert("title".into(), json!(title));
    out.insert("description".into(), json!(description));
    shape.remove("title");
    shape.remove("description");
    out.extend(shape);
    Value::Object(out)
}

/// `schema` with every object that lists its properties closed to others
/// (`additionalProperties: false`): what a test validates real output against, so that a
/// field the types do not declare fails it.
pub fn closed(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out: serde_json::Map<String, Value> =
                map.iter().map(|(k, v)| (k.clone(), closed(v))).collect();
            if out.contains_key("properties") && !out.contains_key("additionalProperties") {
                out.insert("additionalProperties".into(), json!(false));
            }
            Value::Object(out)
        }
        Value::Array(list) => Value::Array(list.iter().map(closed).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    /// Published schemas are open, so a field added later does not break an older schema.
    #[test]
    fn no_published_object_is_closed() {
        for (path, schema) in super::all() {
            let text = schema.to_string();
            assert!(
                !text.contains(r#""additionalProperties":false"#),
                "{path} closes an object"
            );
        }
    }

    #[test]
    fn paths_are_unique_and_sorted() {
        let paths: Vec<String> = super::all().into_iter().map(|(p, _)| p).collect();
        let unique: BTreeSet<&String> = paths.iter().collect();
        assert_eq!(paths.len(), unique.len());
        assert!(paths.is_sorted());
    }

    #[test]
    fn only_replace_text_and_apply_patch_carry_their_fields() {
        let all = super::all();
        let doc = |path: &str| all.iter().find(|(p, _)| p == path).unwrap().1.clone();
        let required = |path: &str, field: &str| {
            doc(path)["required"]
                .as_array()
                .unwrap()
                .contains(&field.into())
        };
        assert!(required("cli/file-replace-text.json", "match_count"));
        assert!(required("cli/file-apply-patch.json", "patch_files"));
        assert!(doc("cli/file-write.json")["properties"]["match_stage"].is_null());
        assert!(doc("cli/file-write.json")["properties"]["patch_files"].is_null());
        assert!(doc("cli/file-write.json")["properties"]["preview_diff"].is_object());
    }
}
