//! The published schemas of the tools' structured results, `docs/schemas/mcp/<tool>.json`:
//! each generated from its tool's declaration ([`Tool::output_schema`]), and checked here to
//! be exactly what is committed. (`mcp/tests/output_schemas.rs` validates real results against
//! the committed files.)
//!
//! `FILEKEEPER_BLESS_SCHEMAS=1 cargo test -p filekeeper-mcp published` writes them instead, and
//! removes the ones no tool publishes any more.
//!
//! [`Tool::output_schema`]: super::Tool::output_schema

use super::ALL;
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
            let name = tool.name;
            let schema = filekeeper::schemas::titled(
                (tool.output_schema)(),
                &format!("MCP tool {name}"),
                &format!("The structuredContent of a successful `{name}` call of filekeeper-mcp."),
            );
            (format!("{name}.json"), schema)
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

/// A mutation's schema carries exactly the extra fields its tool reports.
#[test]
fn only_replace_text_apply_patch_and_undo_last_require_extra_fields() {
    let generated = generated();
    let required = |name: &str, field: &str| {
        generated[name]["required"]
            .as_array()
            .unwrap()
            .contains(&field.into())
    };
    assert!(required("file_replace_text.json", "match_count"));
    assert!(required("file_apply_patch.json", "patch_files"));
    assert!(required("undo_last.json", "skipped_operations"));
    let write = &generated["file_write.json"]["properties"];
    assert!(write["bom_kept"].is_object());
    assert!(write["patch_files"].is_null());
    assert!(generated["file_create.json"]["properties"]["bom_kept"].is_null());
}
