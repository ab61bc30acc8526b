//! `config.toml` in the Filekeeper home: limits under `[filekeeper]`, the history retention
//! policy under `[history]`.
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
    /// Most paths one read of several files may name.
    pub max_read_many_paths: u64,
    /// Largest patch that is applied, in bytes.
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

/// The history retention policy (`[history]` in `config.toml`): which operations a prune
/// keeps. Each rule names a part of history to keep, always the newest operations; an
/// operation may be pruned only when no rule set keeps it, so adding a rule never deletes
/// more. With no rule set the policy is off and nothing is pruned unless a person asks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Retention {
    /// Keep the operations of the last this many days (by when each was recorded); null when
    /// not set.
    pub keep_days: Option<u64>,
    /// Keep the newest this many operations, however old; null when not set.
    pub keep_last: Option<u64>,
    /// Keep the newest operations whose stored contents fit in this many bytes of the object
    /// store (compressed, as on disk); null when not set.
    pub max_store_bytes: Option<u64>,
}

impl Retention {
    /// Whether any rule is set: with none, nothing is ever pruned automatically.
    pub fn enabled(&self) -> bool {
        self.keep_days.is_some() || self.keep_last.is_some() || self.max_store_bytes.is_some()
    }
}

/// Everything `config.toml` sets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// `[filekeeper]`: the limits and the state location.
    pub limits: Limits,
    /// `[history]`: the retention policy.
    pub retention: Retention,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    filekeeper: Limits,
    /// Read as a plain table and checked key by key, so that every bad value is an error
    /// naming its key (serde's own messages name the expected type, not the key).
    #[serde(default)]
    history: Option<toml::Table>,
}

/// The most days `keep_days` accepts: a century. A larger number is surely a typo, and it
/// keeps the cut-off time computable.
const MAX_KEEP_DAYS: u64 = 36_500;

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

[history]
# The retention policy: which history is kept. Off unless a rule is set below, so
# history is never deleted unless you ask for it. When set, it is applied after each
# change (a cheap check; a prune and gc only once a rule is exceeded by an eighth).
# Each rule keeps the newest operations;
# an operation may be pruned only when no rule keeps it. A pruned operation stays in the
# journal (who changed what, when), but it can no longer be undone and its stored
# contents may be collected.
# Keep the operations of the last this many days.
# keep_days = 90
# Keep the newest this many operations, however old (a floor under the other rules).
# keep_last = 1000
# Keep the newest operations whose stored contents fit in this many bytes on disk.
# max_store_bytes = 1073741824
"#;

/// Reads the config file at `path`; a missing file is all defaults.
pub fn load(path: &Path) -> Result<Config> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => return Err(Error::storage("reading config.toml", &e)),
    };
    parse_config(&text)
}

/// The limits `text` (a whole `config.toml`) sets.
#[cfg(test)]
pub(crate) fn parse(text: &str) -> Result<Limits> {
    parse_config(text).map(|config| config.limits)
}

/// What `text` (a whole `config.toml`) sets. An unknown key, a limit of 0 where that would
/// refuse every request, and a retention rule that is not a whole number in its range are
/// INVALID_ARGUMENT, with `details.key` naming the key where there is one.
pub(crate) fn parse_config(text: &str) -> Result<Config> {
    let file: File = toml::from_str(text).map_err(|e| {
        let at = e.span().map(|span| span.start.min(text.len()));
        let line = at.map(|at| text[..at].matches('\n').count() + 1);
        let mut err = Error::invalid(format!(
            "config.toml in the Filekeeper home is invalid: {}{}",
            e.message(),
            line.map(|n| format!(" (line {n})")).unwrap_or_default()
        ));
        if let Some(key) = at.and_then(|at| key_at(text, at)) {
            err = err.with("key", key);
        }
        err
    })?;
    let limits = file.filekeeper;
    let retention = retention(file.history.unwrap_or_default())?;
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
    Ok(Config { limits, retention })
}

/// The key of the line holding byte `at` of a `config.toml`, as `details.key` names keys:
/// `max_read_bytes` in `[filekeeper]`, `history.keep_days` in another table, the table's own
/// name on a `[table]` line. Serde's messages name a bad value's expected type, not its key.
fn key_at(text: &str, at: usize) -> Option<String> {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next()?.trim();
    let table = |line: &str| {
        let name = line.strip_prefix('[')?.split(']').next()?;
        Some(name.trim().trim_matches(['[', ']']).trim().to_owned())
    };
    if line.starts_with('[') {
        return table(line);
    }
    let key = line.split_once('=')?.0.trim().trim_matches('"').to_owned();
    match text[..start].lines().rev().find_map(|l| table(l.trim())) {
        Some(t) if t != "filekeeper" => Some(format!("{t}.{key}")),
        _ => Some(key),
    }
}

/// The `[history]` table checked key by key. Every rule is a whole number of at least 1: 0
/// would keep nothing at all, which is never what a retention policy means (pruning
/// everything is something a person asks for by hand).
fn retention(table: toml::Table) -> Result<Retention> {
    let mut out = Retention::default();
    for (key, value) in table {
        let (slot, max, unit) = match key.as_str() {
            "keep_days" => (&mut out.keep_days, MAX_KEEP_DAYS, "days"),
            "keep_last" => (&mut out.keep_last, i64::MAX as u64, "operations"),
            "max_store_bytes" => (&mut out.max_store_bytes, i64::MAX as u64, "bytes"),
            _ => {
                return Err(Error::invalid(format!(
                    "config.toml in the Filekeeper home is invalid: history.{key} is not a setting; the keys of [history] are keep_days, keep_last and max_store_bytes"
                ))
                .with("key", format!("history.{key}")));
            }
        };
        let number = match value {
            toml::Value::Integer(n) if n >= 1 && n as u64 <= max => n as u64,
            other => {
                let shown = match &other {
                    toml::Value::String(s) => format!("{s:?}"),
                    v => v.to_string(),
                };
                return Err(Error::invalid(format!(
                    "config.toml in the Filekeeper home is invalid: history.{key} is {shown}; it must be a whole number of {unit} from 1 to {max}, or left out to turn the rule off"
                ))
                .with("key", format!("history.{key}")));
            }
        };
        *slot = Some(number);
    }
    Ok(out)
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
    fn a_bad_key_or_value_is_named_with_its_line() {
        for (text, key, line) in [
            ("[filekeeper]\nmax_reed = 1\n", "max_reed", 2),
            (
                "# limits\n[filekeeper]\n\nmax_read_bytes = \"x\"\n",
                "max_read_bytes",
                4,
            ),
            (
                "[filekeeper]\nstate_location = \"nowhere\"\n",
                "state_location",
                2,
            ),
            ("[filekeper]\nmax_read_bytes = 1\n", "filekeper", 1),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.code, crate::error::Code::InvalidArgument);
            assert_eq!(err.details["key"], key, "{text}");
            assert!(
                err.message.ends_with(&format!("(line {line})")),
                "{}",
                err.message
            );
        }
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
    fn retention_is_off_by_default_and_in_the_template() {
        assert_eq!(parse_config("").unwrap().retention, Retention::default());
        let template = parse_config(TEMPLATE).unwrap().retention;
        assert!(!template.enabled(), "the template must not turn pruning on");
        for key in ["keep_days", "keep_last", "max_store_bytes"] {
            assert!(
                TEMPLATE.contains(&format!("\n# {key} = ")),
                "{key} undocumented"
            );
        }
    }

    #[test]
    fn retention_rules_are_read() {
        let config = parse_config(
            "[filekeeper]\nmax_read_bytes = 10\n[history]\nkeep_days = 30\nkeep_last = 500\n",
        )
        .unwrap();
        assert_eq!(config.limits.max_read_bytes, 10);
        assert_eq!(
            config.retention,
            Retention {
                keep_days: Some(30),
                keep_last: Some(500),
                max_store_bytes: None
            }
        );
        assert!(config.retention.enabled());
        let size = parse_config("[history]\nmax_store_bytes = 1073741824\n").unwrap();
        assert_eq!(size.retention.max_store_bytes, Some(1 << 30));
        assert_eq!(size.limits, Limits::default());
    }

    #[test]
    fn a_bad_retention_value_is_refused_naming_its_key() {
        for (text, key) in [
            ("[history]\nkeep_days = 0\n", "history.keep_days"),
            ("[history]\nkeep_days = -3\n", "history.keep_days"),
            ("[history]\nkeep_days = 36501\n", "history.keep_days"),
            ("[history]\nkeep_days = 1.5\n", "history.keep_days"),
            ("[history]\nkeep_last = \"100\"\n", "history.keep_last"),
            ("[history]\nkeep_last = 0\n", "history.keep_last"),
            (
                "[history]\nmax_store_bytes = \"1G\"\n",
                "history.max_store_bytes",
            ),
            (
                "[history]\nmax_store_bytes = true\n",
                "history.max_store_bytes",
            ),
            ("[history]\nkeep_dayz = 3\n", "history.keep_dayz"),
        ] {
            let err = parse_config(text).unwrap_err();
            assert_eq!(err.code, crate::error::Code::InvalidArgument, "{text}");
            assert_eq!(err.details["key"], key, "{text}");
            assert!(err.message.contains(key), "{text}: {}", err.message);
        }
        assert_eq!(
            parse_config("[history]\nkeep_days = 36500\n")
                .unwrap()
                .retention
                .keep_days,
            Some(36_500)
        );
    }

    #[test]
    fn a_history_that_is_not_a_table_is_refused() {
        let err = parse_config("history = 3\n").unwrap_err();
        assert_eq!(err.code, crate::error::Code::InvalidArgument);
    }

    #[test]
    fn unknown_keys_are_refused() {
        let err = parse("[filekeeper]\nmax_reed_bytes = 10\n").unwrap_err();
        assert_eq!(err.code, crate::error::Code::InvalidArgument);
        assert!(err.message.contains("max_reed_bytes"));
    }
}
