//! `config.toml` in the Filekeeper home: limits under `[filekeeper]`.
//!
//! A missing file means every default. An unknown key is an error rather than silently
//! ignored, so a misspelt limit is noticed.

use crate::error::{Error, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Where a workspace's journal and objects live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StateLocation {
    /// `<root>/.filekeeper/`.
    Project,
    /// `<home>/state/<root id>/`.
    Global,
}

/// The limits in force (`[filekeeper]` in `config.toml`). Serialized, as the MCP server's
/// `workspace_info` shows them, they are the eleven bounds; the state location is not a limit.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Largest slice of a file one read returns, in bytes.
    pub max_read_bytes: u64,
    /// Largest content one write, create or edit accepts, in bytes.
    pub max_write_bytes: u64,
    /// Files above this size are changed without keeping their bytes in history.
    pub max_history_blob_bytes: u64,
    /// Most results one file search or content search returns.
    pub max_search_results: u64,
    /// Most entries one directory listing returns.
    pub max_directory_entries: u64,
    /// Most operations one history listing returns.
    pub max_history_entries: u64,
    /// Most paths one read-many request may name.
    pub max_read_many_paths: u64,
    /// Largest patch apply-patch accepts, in bytes.
    pub max_patch_bytes: u64,
    /// Deepest directory level recursive listing and search descend to.
    pub max_recursion_depth: u64,
    /// Most bytes of diff one mutation's result carries, over all its paths; 0 for none.
    pub max_diff_bytes: u64,
    /// Files larger than this, before or after a change, are named in a mutation's diffs but
    /// not diffed, in bytes.
    pub max_diff_file_bytes: u64,
    /// Pinned when present; `None` means project-local with a fallback to the home.
    #[serde(skip_serializing)]
    #[schemars(skip)]
    pub state_location: Option<StateLocation>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_read_bytes: 5 * 1024 * 1024,
            max_write_bytes: 20 * 1024 * 1024,
            max_history_blob_bytes: 4 * 1024 * 1024,
            max_search_results: 200,
            max_directory_entries: 1000,
            max_history_entries: 200,
            max_read_many_paths: 32,
            max_patch_bytes: 1024 * 1024,
            max_recursion_depth: 64,
            max_diff_bytes: 32 * 1024,
            max_diff_file_bytes: 256 * 1024,
            state_location: None,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    filekeeper: Limits,
}

/// The file `keeper init` writes: every limit with its default and what it bounds.
pub const TEMPLATE: &str = r#"# Filekeeper configuration. Every value shown is the default.

[filekeeper]
# Largest slice of a file one read returns, in bytes; longer reads are truncated and say so.
max_read_bytes = 5242880
# Largest content one write, create or edit accepts, in bytes.
max_write_bytes = 20971520
# Files above this size are still changed, but their bytes are not kept in history,
# so such a change cannot be undone. In bytes.
max_history_blob_bytes = 4194304
# Most results one file search or content search returns.
max_search_results = 200
# Most entries one directory listing returns.
max_directory_entries = 1000
# Most operations one history listing returns.
max_history_entries = 200
# Most paths one read-many request may name.
max_read_many_paths = 32
# Largest patch apply-patch accepts, in bytes.
max_patch_bytes = 1048576
# Deepest directory level recursive listing and search descend to.
max_recursion_depth = 64
# Most bytes of diff one change's result shows, over all the files it changed; a longer
# diff is cut and says so. 0 shows none.
max_diff_bytes = 32768
# Files larger than this, before or after a change, are named in its result's diff but
# not diffed. In bytes.
max_diff_file_bytes = 262144

# Where each workspace keeps its journal and objects:
#   "project" - <workspace>/.filekeeper/ (travels with the tree)
#   "global"  - under this home directory (survives deleting the tree)
# Left unset, state is project-local and falls back to the home when the root cannot
# hold it (a read-only tree, or /). Uncomment to pin the choice; a pinned "project"
# then fails loudly instead of falling back.
# state_location = "project"
"#;

/// Reads the config file at `path`; a missing file is all defaults.
pub fn load(path: &Path) -> Result<Limits> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Limits::default()),
        Err(e) => return Err(Error::storage("reading config.toml", &e)),
    };
    parse(&text)
}

/// The limits `text` (a whole `config.toml`) sets. An unknown key, and a limit of 0 where
/// that would refuse every request, are INVALID_ARGUMENT.
pub(crate) fn parse(text: &str) -> Result<Limits> {
    let file: File = toml::from_str(text).map_err(|e| {
        Error::invalid(format!(
            "config.toml in the Filekeeper home is invalid: {}",
            e.message()
        ))
    })?;
    let limits = file.filekeeper;
    // A limit of 0 would parse, and then refuse every request it bounds. Only the history
    // cap and the diff bounds may be 0: they then keep no file's bytes (undo is off), or show
    // no diff, which is a choice.
    for (key, value) in [
        ("max_read_bytes", limits.max_read_bytes),
        ("max_write_bytes", limits.max_write_bytes),
        ("max_search_results", limits.max_search_results),
        ("max_directory_entries", limits.max_directory_entries),
        ("max_history_entries", limits.max_history_entries),
        ("max_read_many_paths", limits.max_read_many_paths),
        ("max_patch_bytes", limits.max_patch_bytes),
        ("max_recursion_depth", limits.max_recursion_depth),
    ] {
        if value == 0 {
            return Err(Error::invalid(format!(
                "config.toml in the Filekeeper home is invalid: {key} is 0, which would refuse every request it bounds; it must be at least 1"
            ))
            .with("key", key));
        }
    }
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_parses_to_the_defaults() {
        assert_eq!(parse(TEMPLATE).unwrap(), Limits::default());
    }

    #[test]
    fn the_template_documents_every_limit() {
        for key in [
            "max_read_bytes",
            "max_write_bytes",
            "max_history_blob_bytes",
            "max_search_results",
            "max_directory_entries",
            "max_history_entries",
            "max_read_many_paths",
            "max_patch_bytes",
            "max_recursion_depth",
            "max_diff_bytes",
            "max_diff_file_bytes",
        ] {
            assert!(
                TEMPLATE.contains(&format!("\n{key} = ")),
                "{key} undocumented"
            );
        }
        assert!(TEMPLATE.contains("\n# state_location = \"project\""));
    }

    #[test]
    fn values_and_pins_are_read() {
        let limits =
            parse("[filekeeper]\nmax_read_bytes = 10\nstate_location = \"global\"\n").unwrap();
        assert_eq!(limits.max_read_bytes, 10);
        assert_eq!(limits.state_location, Some(StateLocation::Global));
        assert_eq!(limits.max_write_bytes, Limits::default().max_write_bytes);
    }

    #[test]
    fn a_zero_limit_is_refused_on_load_but_a_zero_history_cap_is_a_choice() {
        let err = parse("[filekeeper]\nmax_read_bytes = 0\n").unwrap_err();
        assert_eq!(err.code, crate::error::Code::InvalidArgument);
        assert_eq!(err.details["key"], "max_read_bytes");
        assert_eq!(
            parse("[filekeeper]\nmax_history_blob_bytes = 0\n")
                .unwrap()
                .max_history_blob_bytes,
            0
        );
    }

    #[test]
    fn zero_diff_bounds_are_a_choice_too() {
        let limits = parse("[filekeeper]\nmax_diff_bytes = 0\nmax_diff_file_bytes = 0\n").unwrap();
        assert_eq!((limits.max_diff_bytes, limits.max_diff_file_bytes), (0, 0));
    }

    #[test]
    fn the_template_ends_with_a_newline() {
        assert!(TEMPLATE.ends_with("\n"));
    }

    #[test]
    fn unknown_keys_are_refused() {
        let err = parse("[filekeeper]\nmax_reed_bytes = 10\n").unwrap_err();
        assert_eq!(err.code, crate::error::Code::InvalidArgument);
        assert!(err.message.contains("max_reed_bytes"));
    }
}
