//! Rendering results: one JSON object with `ok` first, or human text (results on stdout,
//! metadata and errors on stderr).

use filekeeper::plumbing::Error;
use filekeeper::{ObjectId, Workspace};
use serde_json::{Map, Value};
use std::io::Write;

/// How results are printed for this invocation.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub json: bool,
    pub quiet: bool,
    pub verbose: bool,
    /// Colour diffs in human output.
    pub color: bool,
}

/// A successful command's result.
#[derive(Default)]
pub struct Reply {
    /// The JSON fields beside `"ok": true`.
    pub fields: Map<String, Value>,
    /// The human rendering of the result itself (stdout), bytes so content passes unchanged.
    pub human: Vec<u8>,
    /// Metadata for people, printed on stderr in human mode unless --quiet.
    pub notes: Vec<String>,
    /// Notes that say the result is incomplete (cut at a bound, directories not read), printed
    /// on stderr in human mode even with --quiet: without them, a part would pass for the
    /// whole.
    pub partial: Vec<String>,
    /// The process exit code (0, or 3 for a predicate answering "no").
    pub exit: i32,
    /// The human output is a unified diff (coloured when colour is on).
    pub diff: bool,
    /// A unified diff printed on stdout after the human output, only with --verbose (coloured
    /// when colour is on): the full diff of a change whose human output is a summary.
    pub verbose_diff: String,
    /// Result fields the --verbose listing on stderr leaves out, because `verbose_diff`
    /// shows them on stdout.
    pub shown_fields: &'static [&'static str],
}

impl Reply {
    pub fn new(fields: Map<String, Value>, human: impl Into<Vec<u8>>) -> Reply {
        Reply {
            fields,
            human: human.into(),
            notes: Vec::new(),
            partial: Vec::new(),
            exit: 0,
            diff: false,
            verbose_diff: String::new(),
            shown_fields: &[],
        }
    }
}

/// The fields of a result obtained in `ws`: its `workspace` first, then the result's own.
pub fn workspace_fields(ws: &Workspace, value: impl serde::Serialize) -> Map<String, Value> {
    filekeeper::envelope::result_fields(ws.name(), value)
}

/// A recorded side of a journal item that exists, for people: its content id and mode, or
/// `(not stored)` for content whose bytes were never kept (a directory has a mode only).
pub fn recorded_state(hash: Option<&ObjectId>, mode: Option<u32>) -> String {
    let hash = hash.map_or_else(|| "(not stored)".to_owned(), ObjectId::to_string);
    match mode {
        Some(mode) => format!("{hash} mode {mode:o}"),
        None => hash,
    }
}

/// Prints a success and returns the exit code.
pub fn success(style: Style, reply: Reply) -> i32 {
    let mut stdout = std::io::stdout().lock();
    if style.json {
        let _ = writeln!(
            stdout,
            "{}",
            filekeeper::envelope::success_document(reply.fields)
        );
    } else {
        if reply.diff && style.color {
            let _ = stdout.write_all(colorize(&String::from_utf8_lossy(&reply.human)).as_bytes());
        } else {
            let _ = stdout.write_all(&reply.human);
        }
        if style.verbose && style.color {
            let _ = stdout.write_all(colorize(&reply.verbose_diff).as_bytes());
        } else if style.verbose {
            let _ = stdout.write_all(reply.verbose_diff.as_bytes());
        }
        let _ = stdout.flush();
        if !style.quiet {
            for note in &reply.notes {
                eprintln!("{}", filekeeper::quote::line(note));
            }
        }
        for note in &reply.partial {
            eprintln!("{}", filekeeper::quote::line(note));
        }
        if !style.quiet
            && let Some(Value::Array(warnings)) = reply.fields.get("warnings")
        {
            for w in warnings.iter().filter_map(Value::as_str) {
                eprintln!("warning: {}", filekeeper::quote::line(w));
            }
        }
        if style.verbose {
            // Every result field, as metadata on stderr, so stdout stays the result alone.
            let listed = |key: &str| key != "warnings" && !reply.shown_fields.contains(&key);
            for (key, value) in reply.fields.iter().filter(|(k, _)| listed(k)) {
                eprintln!("{key}: {}", plain(value));
            }
        }
    }
    let _ = stdout.flush();
    reply.exit
}

pub use filekeeper::envelope::error_document;

/// A value on one line of stderr: a string as it is, but with any character that would break
/// the line escaped (a path in it may hold a newline); anything else as JSON.
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => filekeeper::quote::line(s).into_owned(),
        other => other.to_string(),
    }
}

/// Prints a failure and returns its exit code.
pub fn failure(style: Style, err: &Error) -> i32 {
    if style.json {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{}", error_document(err));
        let _ = stdout.flush();
    } else {
        eprintln!(
            "error[{}]: {}",
            err.code,
            filekeeper::quote::line(&err.message)
        );
        if let Some(path) = err.details.get("path").and_then(Value::as_str) {
            eprintln!("  path: {}", filekeeper::quote::path(path));
        }
        if let Some(how) = err.details.get("recovery").and_then(Value::as_str) {
            eprintln!("  hint: {}", filekeeper::quote::line(how));
        }
        for (key, value) in err
            .details
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "path" | "recovery"))
        {
            match value {
                Value::Array(list) if list.is_empty() => {}
                Value::Array(list) => {
                    eprintln!("  {key}:");
                    for entry in list {
                        eprintln!("    {}", plain(entry));
                    }
                }
                // A text of several lines (a region's text, a diff) keeps its lines, indented
                // under its key like an array's entries.
                Value::String(text) if text.contains('\n') => {
                    eprintln!("  {key}:");
                    for line in text.lines() {
                        eprintln!("    {line}");
                    }
                }
                other => eprintln!("  {key}: {}", plain(other)),
            }
        }
    }
    err.code.exit_code()
}

/// ANSI colours for a unified diff: headers bold, hunk headers cyan, removals red, additions
/// green; every other line as it is.
fn colorize(diff: &str) -> String {
    diff.split_inclusive('\n')
        .map(|line| {
            let (body, nl) = match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, ""),
            };
            let code = if body.starts_with("+++") || body.starts_with("---") {
                "1"
            } else if body.starts_with("@@") {
                "36"
            } else if body.starts_with('+') {
                "32"
            } else if body.starts_with('-') {
                "31"
            } else {
                return line.to_owned();
            };
            format!("\x1b[{code}m{body}\x1b[0m{nl}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn diffs_are_coloured_line_by_line() {
        let out = super::colorize("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n same\n");
        assert!(out.contains("\x1b[31m-old\x1b[0m\n"));
        assert!(out.contains("\x1b[32m+new\x1b[0m\n"));
        assert!(out.contains("\x1b[36m@@ -1 +1 @@\x1b[0m"));
        assert!(out.ends_with(" same\n"));
    }
}
