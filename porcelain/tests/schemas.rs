//! The committed schemas in `docs/schemas/` are exactly what the types generate: all but
//! `mcp/`, which the MCP crate publishes from its tool declarations and checks itself
//! (`mcp/src/tools/published.rs`).
//!
//! `FILEKEEPER_BLESS_SCHEMAS=1 cargo test -p filekeeper --test schemas` writes them instead
//! (and removes the ones no type generates any more).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const BLESS: &str = "FILEKEEPER_BLESS_SCHEMAS";

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/schemas")
}

/// A schema file's bytes: pretty JSON and a final newline.
fn render(schema: &serde_json::Value) -> String {
    serde_json::to_string_pretty(schema).expect("a schema serializes") + "\n"
}

/// The directory below `docs/schemas/` whose files the MCP crate owns.
const MCP: &str = "mcp";

/// Every `.json` file below `dir` outside [`MCP`], as paths relative to it with `/` separators.
fn committed(dir: &Path) -> BTreeSet<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let entry = entry.expect("reading docs/schemas");
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = format!("{prefix}{name}");
            if entry.file_type().expect("file type").is_dir() {
                if rel == MCP {
                    continue;
                }
                walk(&entry.path(), &format!("{rel}/"), out);
            } else if name.ends_with(".json") {
                out.insert(rel);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, "", &mut out);
    out
}

#[test]
fn committed_schemas_match_the_types() {
    let dir = schema_dir();
    let generated = filekeeper::schemas::all();
    let stale: Vec<String> = {
        let known: BTreeSet<&str> = generated.iter().map(|(p, _)| p.as_str()).collect();
        committed(&dir)
            .into_iter()
            .filter(|p| !known.contains(p.as_str()))
            .collect()
    };
    if std::env::var_os(BLESS).is_some_and(|v| v == "1") {
        for (path, schema) in &generated {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, render(schema)).unwrap();
        }
        for path in &stale {
            std::fs::remove_file(dir.join(path)).unwrap();
        }
        return;
    }
    let mut problems = Vec::new();
    for (path, schema) in &generated {
        match std::fs::read_to_string(dir.join(path)) {
            Ok(text) if text == render(schema) => {}
            Ok(_) => problems.push(format!("docs/schemas/{path} differs from its type")),
            Err(_) => problems.push(format!("docs/schemas/{path} is missing")),
        }
    }
    for path in &stale {
        problems.push(format!(
            "docs/schemas/{path} is stale: no type generates it any more"
        ));
    }
    assert!(
        problems.is_empty(),
        "the committed schemas are out of date:\n  {}\nrun `{BLESS}=1 cargo test -p filekeeper --test schemas` to regenerate them, and review the diff",
        problems.join("\n  ")
    );
}
