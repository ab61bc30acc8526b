//! The published schemas of the tools' structured results, `docs/schemas/mcp/<tool>.json`:
//! each is the `outputSchema` `tools/list` advertises ([`advertised_schema`]: the success
//! document from the tool's declaration, [`Tool::output_schema`], or the error document), and
//! checked here to be exactly what is committed and what is advertised.
//! (`mcp/tests/output_schemas.rs` validates real results against the committed files.)
//!
//! `FILEKEEPER_BLESS_SCHEMAS=1 cargo test -p filekeeper-mcp published` writes them instead, and
//! removes the ones no tool publishes any more.
//!
//! [`Tool::output_schema`]: super::Tool::output_schema
//! [`advertised_schema`]: super::advertised_schema

use super::{ALL, advertised_schema};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const BLESS: &str = "FILEKEEPER_BLESS_SCHEMAS";

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schemas/mcp")
}

/// Every tool's published schema, by file name.
fn generated() -> BTreeMap<String, Value> {
    ALL.iter()
        .map(|tool| {
            let schema = Value::Object((*advertised_schema(tool.name)).clone());
            (format!("{}.json", tool.name), schema)
        })
        .collect()
}

/// A schema file's bytes: pretty JSON and a final newline.
fn render(schema: &Value) -> String {
    serde_json::to_string_pretty(schema).expect("a schema serializes") + "\n"
}

#[test]
fn committed_schemas_match_the_tools() {
    let dir = schema_dir();
    let generated = generated();
    let stale: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .map(|entry| entry.expect("reading docs/schemas/mcp").file_name())
                .map(|name| name.to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".json") && !generated.contains_key(name))
                .collect()
        })
        .unwrap_or_default();
    if std::env::var_os(BLESS).is_some_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, schema) in &generated {
            std::fs::write(dir.join(name), render(schema)).unwrap();
        }
        for name in &stale {
            std::fs::remove_file(dir.join(name)).unwrap();
        }
        return;
    }
    let mut problems = Vec::new();
    for (name, schema) in &generated {
        match std::fs::read_to_string(dir.join(name)) {
            Ok(text) if text == render(schema) => {}
            Ok(_) => problems.push(format!("docs/schemas/mcp/{name} differs from its tool")),
            Err(_) => problems.push(format!("docs/schemas/mcp/{name} is missing")),
        }
    }
    for name in &stale {
        problems.push(format!(
            "docs/schemas/mcp/{name} is stale: no tool publishes it any more"
        ));
    }
    assert!(
        problems.is_empty(),
        "the committed MCP schemas are out of date:\n  {}\nrun `{BLESS}=1 cargo test -p filekeeper-mcp published` to regenerate them, and review the diff",
        problems.join("\n  ")
    );
}

/// Published schemas are open, so a field added later does not break an older schema.
#[test]
fn no_published_object_is_closed() {
    for (name, schema) in generated() {
        assert!(
            !schema
                .to_string()
                .contains(r#""additionalProperties":false"#),
            "{name} closes an object"
        );
    }
}

/// What `tools/list` advertises as each tool's `outputSchema` is its published schema, and its
/// root is `"type": "object"`, as the MCP specification requires (the TypeScript SDK refuses a
/// tool list whose output schema's root is anything else).
#[test]
fn every_tool_advertises_its_published_schema() {
    let published = generated();
    let listed = crate::tool_list();
    assert_eq!(listed.len(), ALL.len());
    for tool in listed {
        let advertised = Value::Object(
            (**tool
                .output_schema
                .as_ref()
                .expect("every tool has an outputSchema"))
            .clone(),
        );
        assert_eq!(advertised["type"], "object", "{}", tool.name);
        assert_eq!(
            Some(&advertised),
            published.get(&format!("{}.json", tool.name)),
            "{}",
            tool.name
        );
    }
}

/// Each schema admits the success document and the error document, and the two share no
/// definition name with different shapes (the union keeps the first of each name).
#[test]
fn every_schema_is_the_success_or_the_error_document() {
    let failure = filekeeper::schemas::schema::<filekeeper::envelope::Failure>();
    for tool in ALL {
        let schema = &published_schema(tool.name);
        let branches = schema["anyOf"].as_array().expect("anyOf");
        assert_eq!(branches.len(), 2, "{}", tool.name);
        assert_eq!(branches[0]["properties"]["ok"]["const"], true);
        assert_eq!(branches[1]["properties"]["ok"]["const"], false);
        let success = (tool.success_schema)();
        for own in [&success, &failure] {
            for (name, def) in own["$defs"].as_object().into_iter().flatten() {
                assert_eq!(&schema["$defs"][name], def, "{}: $defs/{name}", tool.name);
            }
        }
    }
}

fn published_schema(name: &str) -> Value {
    Value::Object((*advertised_schema(name)).clone())
}

/// A mutation's schema carries exactly the extra fields its tool reports.
#[test]
fn only_replace_text_apply_patch_and_undo_last_require_extra_fields() {
    let success = |name: &str| published_schema(name)["anyOf"][0].clone();
    let required = |name: &str, field: &str| {
        success(name)["required"]
            .as_array()
            .unwrap()
            .contains(&field.into())
    };
    assert!(required("file_replace_text", "match_count"));
    assert!(required("file_apply_patch", "patch_files"));
    assert!(required("undo_last", "skipped_operations"));
    let write = &success("file_write")["properties"];
    assert!(write["bom_kept"].is_object());
    assert!(write["patch_files"].is_null());
    assert!(success("file_create")["properties"]["bom_kept"].is_null());
}
