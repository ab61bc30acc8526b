//! Unified diffs: parsed whole, every hunk checked against its file, then applied exactly.
//!
//! Accepts `diff -u` and `git diff` output: `a/` and `b/` prefixes, `/dev/null` for created and
//! deleted files, `\ No newline at end of file`, several files in one patch. A hunk applies at
//! its stated line or at one unique offset (reported); its context must match exactly (no
//! fuzz). Line terminators in the patch are ignored when matching: new lines take the file's
//! convention, so a CRLF file stays CRLF.

use super::doc::{Doc, Line};
use crate::{Code, Error, Result};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq)]
enum HunkLine {
    Context(String),
    Remove(String),
    Add(String),
}

#[derive(Clone, Debug)]
struct Hunk {
    old_start: usize,
    old_count: usize,
    new_start: usize,
    new_count: usize,
    lines: Vec<HunkLine>,
    /// The old side's last line has no terminator (`\ No newline` after a `-` or ` ` line).
    old_no_eol: bool,
    /// The new side's last line has no terminator.
    new_no_eol: bool,
    /// For each added line, whether it ended with CR in the patch.
    add_crs: Vec<bool>,
}

#[derive(Clone, Debug)]
pub(crate) struct FilePatch {
    /// `None` for `/dev/null`.
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    hunks: Vec<Hunk>,
}

impl FilePatch {
    /// The workspace path the patch changes.
    /// The file a modification edits is the old name (as GNU patch does for `diff -u old
    /// new` with different names); a creation names only the new one.
    pub fn path(&self) -> &str {
        self.old_path
            .as_deref()
            .or(self.new_path.as_deref())
            .unwrap_or_default()
    }
}

/// One hunk's outcome.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HunkReport {
    /// 1-based position of the hunk in its file's section of the patch.
    pub hunk: usize,
    pub old_start: usize,
    pub old_lines: usize,
    pub new_start: usize,
    pub new_lines: usize,
    /// `applies`, `applies_at_offset`, `failed` or `ambiguous`.
    #[schemars(extend("enum" = ["applies", "applies_at_offset", "failed", "ambiguous"]))]
    pub status: &'static str,
    /// Lines between the stated and the actual position, when not zero.
    pub offset: i64,
}

/// One file's outcome.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FileReport {
    /// Workspace-relative path.
    pub path: String,
    /// `modified`, `created` or `deleted`.
    #[schemars(extend("enum" = ["modified", "created", "deleted"]))]
    pub change: &'static str,
    /// Whether every hunk of the file applies.
    #[schemars(extend("enum" = ["applies", "failed"]))]
    pub status: &'static str,
    pub hunks: Vec<HunkReport>,
}

fn failed(message: String, line: usize, reason: &str) -> Error {
    Error::new(Code::PatchFailed, message)
        .with("line", line)
        .with("reason", reason)
}

/// The path named by a `---`/`+++` header: the part before a tab (a timestamp follows it),
/// unquoted when git quoted it.
fn header_path(rest: &str) -> Option<String> {
    let path = rest.split('\t').next().unwrap_or(rest).trim_end();
    let path = match path.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
        Some(quoted) => unquote(quoted),
        None => path.to_owned(),
    };
    (path != "/dev/null").then_some(path)
}

/// Undoes git's C-style quoting of unusual file names: `\\`, `\"`, `\t`, `\n`, and octal
/// bytes such as `\303\251` (UTF-8 for é).
fn unquote(quoted: &str) -> String {
    let bytes = quoted.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 == bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        // A byte is at most \377; git writes no other, and \4xx and up would overflow it.
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d[0] <= b'3' && d.iter().all(|b| (b'0'..=b'7').contains(b)));
        if let Some(d) = octal {
            out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
            i += 4;
            continue;
        }
        out.push(match bytes[i + 1] {
            b't' => b'\t',
            b'n' => b'\n',
            other => other,
        });
        i += 2;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hunk_range(text: &str) -> Option<(usize, usize)> {
    let (start, count) = match text.split_once(',') {
        Some((s, c)) => (s.parse().ok()?, c.parse().ok()?),
        None => (text.parse().ok()?, 1),
    };
    Some((start, count))
}

/// Parses a whole patch. A hunk whose body does not supply what its header declares is
/// PATCH_FAILED with both counts; patch text is never echoed into the error.
pub(crate) fn parse(text: &str) -> Result<Vec<FilePatch>> {
    let raw: Vec<&str> = text.split('\n').collect();
    let mut files: Vec<FilePatch> = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        let line = raw[i].strip_suffix('\r').unwrap_or(raw[i]);
        if let Some(old) = line.strip_prefix("--- ") {
            let next = raw.get(i + 1).map(|l| l.strip_suffix('\r').unwrap_or(l));
            if let Some(new) = next.and_then(|l| l.strip_prefix("+++ ")) {
                let (mut old_path, mut new_path) = (header_path(old), header_path(new));
                // git's a/ and b/ prefixes (only when both sides use them, or one is /dev/null).
                let a = old_path.as_deref().is_none_or(|p| p.starts_with("a/"));
                let b = new_path.as_deref().is_none_or(|p| p.starts_with("b/"));
                if a && b {
                    old_path = old_path.map(|p| p[2..].to_owned());
                    new_path = new_path.map(|p| p[2..].to_owned());
                }
                if old_path.is_none() && new_path.is_none() {
                    return Err(failed(
                        format!("line {}: both sides of a file header are /dev/null", i + 1),
                        i + 1,
                        "bad_header",
                    ));
                }
                files.push(FilePatch {
                    old_path,
                    new_path,
                    hunks: Vec::new(),
                });
                i += 2;
                continue;
            }
        }
        if let Some(rest) = line.strip_prefix("@@ ") {
            let file = files.last_mut().ok_or_else(|| {
                failed(
                    format!("line {}: a hunk before any file header", i + 1),
                    i + 1,
                    "hunk_without_file",
                )
            })?;
            let spec = rest.split(" @@").next().unwrap_or_default();
            let mut parts = spec.split_whitespace();
            let old = parts
                .next()
                .and_then(|p| p.strip_prefix('-'))
                .and_then(hunk_range);
            let new = parts
                .next()
                .and_then(|p| p.strip_prefix('+'))
                .and_then(hunk_range);
            let (Some((old_start, old_count)), Some((new_start, new_count))) = (old, new) else {
                return Err(failed(
                    format!("line {}: a malformed hunk header", i + 1),
                    i + 1,
                    "bad_hunk_header",
                ));
            };
            let header_line = i + 1;
            let mut hunk = Hunk {
                old_start,
                old_count,
                new_start,
                new_count,
                lines: Vec::new(),
                old_no_eol: false,
                new_no_eol: false,
                add_crs: Vec::new(),
            };
            let (mut seen_old, mut seen_new) = (0usize, 0usize);
            i += 1;
            while seen_old < old_count || seen_new < new_count {
                let Some(body) = raw.get(i) else { break };
                let cr = body.ends_with('\r');
                let body = body.strip_suffix('\r').unwrap_or(body);
                if i + 1 == raw.len() && body.is_empty() {
                    break; // the empty string after the patch's final newline
                }
                match body.chars().next() {
                    Some(' ') => {
                        hunk.lines.push(HunkLine::Context(body[1..].to_owned()));
                        seen_old += 1;
                        seen_new += 1;
                    }
                    // An empty line in a hunk is an empty context line whose space was stripped.
                    None => {
                        hunk.lines.push(HunkLine::Context(String::new()));
                        seen_old += 1;
                        seen_new += 1;
                    }
                    Some('-') => {
                        hunk.lines.push(HunkLine::Remove(body[1..].to_owned()));
                        seen_old += 1;
                    }
                    Some('+') => {
                        hunk.lines.push(HunkLine::Add(body[1..].to_owned()));
                        hunk.add_crs.push(cr);
                        seen_new += 1;
                    }
                    Some('\\') => mark_no_eol(&mut hunk),
                    _ => break,
                }
                i += 1;
            }
            if seen_old != old_count || seen_new != new_count {
                return Err(Error::new(
                    Code::PatchFailed,
                    format!(
                        "line {header_line}: the hunk header declares {old_count} old and {new_count} new lines, but its body supplies {seen_old} old and {seen_new} new"
                    ),
                )
                .with("line", header_line)
                .with("reason", "hunk_body_mismatch")
                .with("expected_old_lines", old_count)
                .with("expected_new_lines", new_count)
                .with("actual_old_lines", seen_old)
                .with("actual_new_lines", seen_new)
                .with("path", file.path().to_owned()));
            }
            // A "\ No newline" marker may follow the last body line.
            while let Some(body) = raw.get(i) {
                if body.starts_with('\\') {
                    mark_no_eol(&mut hunk);
                    i += 1;
                } else {
                    break;
                }
            }
            file.hunks.push(hunk);
            continue;
        }
        i += 1;
    }
    if files.is_empty()
        || files
            .iter()
            .all(|f| f.hunks.is_empty() && f.old_path.is_some() && f.new_path.is_some())
    {
        return Err(failed(
            "the patch holds no file changes".into(),
            1,
            "empty_patch",
        ));
    }
    Ok(files)
}

/// `\ No newline at end of file` applies to the line before it.
fn mark_no_eol(hunk: &mut Hunk) {
    match hunk.lines.last() {
        Some(HunkLine::Add(_)) => hunk.new_no_eol = true,
        Some(HunkLine::Remove(_)) => hunk.old_no_eol = true,
        Some(HunkLine::Context(_)) => {
            hunk.old_no_eol = true;
            hunk.new_no_eol = true;
        }
        None => {}
    }
}

fn patch_convention(file: &FilePatch) -> &'static str {
    let mut crs = file.hunks.iter().flat_map(|h| {
        // Under `\ No newline`, the new side's last line has no terminator to judge by; it
        // is an added line only when the hunk's last line that is not removed is an add (it
        // may be a context line, and then every added line is terminated).
        let last_new_is_add = h
            .lines
            .iter()
            .rfind(|l| !matches!(l, HunkLine::Remove(_)))
            .is_some_and(|l| matches!(l, HunkLine::Add(_)));
        let terminated = if h.new_no_eol && last_new_is_add {
            h.add_crs.len().saturating_sub(1)
        } else {
            h.add_crs.len()
        };
        h.add_crs[..terminated].iter().copied()
    });
    let first = crs.next();
    if first == Some(true) && crs.all(|cr| cr) {
        "\r\n"
    } else {
        "\n"
    }
}

/// Applies a file's hunks to `doc` (empty for a created file). Returns the per-hunk report;
/// on any failed or ambiguous hunk the report says so and `doc` must not be used.
pub(crate) fn apply(file: &FilePatch, doc: &mut Doc) -> (bool, Vec<HunkReport>) {
    // New lines take the file's convention; a file with no terminator yet (new or empty)
    // takes the patch's: CRLF when every added line that has a terminator carried a CR.
    let has_eol = doc.lines.iter().any(|l| !l.eol.is_empty());
    let eol = if has_eol {
        doc.eol()
    } else {
        patch_convention(file)
    };
    let old = std::mem::take(&mut doc.lines);
    let mut out: Vec<Line> = Vec::with_capacity(old.len());
    let mut cursor = 0usize;
    let mut ok = true;
    let mut reports = Vec::new();
    let mut touched_end = false;
    let mut new_no_eol = false;
    for (n, hunk) in file.hunks.iter().enumerate() {
        let want: Vec<&str> = hunk
            .lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(t) | HunkLine::Remove(t) => Some(t.as_str()),
                HunkLine::Add(_) => None,
            })
            .collect();
        let stated = if hunk.old_count == 0 {
            hunk.old_start
        } else {
            hunk.old_start.saturating_sub(1)
        };
        let fits = |at: usize| {
            at >= cursor
                && at + want.len() <= old.len()
                && want.iter().enumerate().all(|(k, w)| old[at + k].text == *w)
        };
        let mut report = HunkReport {
            hunk: n + 1,
            old_start: hunk.old_start,
            old_lines: hunk.old_count,
            new_start: hunk.new_start,
            new_lines: hunk.new_count,
            status: "applies",
            offset: 0,
        };
        let at = if fits(stated) {
            Some(stated)
        } else if want.is_empty() {
            None
        } else {
            let found: Vec<usize> = (cursor..=old.len().saturating_sub(want.len()))
                .filter(|&at| fits(at))
                .take(2)
                .collect();
            match found.as_slice() {
                [one] => {
                    report.status = "applies_at_offset";
                    report.offset = *one as i64 - stated as i64;
                    Some(*one)
                }
                [] => None,
                _ => {
                    report.status = "ambiguous";
                    None
                }
            }
        };
        let Some(at) = at else {
            if report.status == "applies" {
                report.status = "failed";
            }
            ok = false;
            reports.push(report);
            continue;
        };
        out.extend_from_slice(&old[cursor..at]);
        let mut k = at;
        for line in &hunk.lines {
            match line {
                HunkLine::Context(_) => {
                    out.push(old[k].clone());
                    k += 1;
                }
                HunkLine::Remove(_) => k += 1,
                HunkLine::Add(text) => {
                    // A line added after the old last line, which had no terminator, ends it
                    // first, as GNU patch does; otherwise the two would run together.
                    if let Some(prev) = out.last_mut()
                        && prev.eol.is_empty()
                    {
                        prev.eol = eol;
                    }
                    out.push(Line {
                        text: text.clone().into(),
                        eol,
                    });
                }
            }
        }
        cursor = k;
        if cursor == old.len() {
            touched_end = true;
            new_no_eol = hunk.new_no_eol;
        }
        reports.push(report);
    }
    if !ok {
        doc.lines = old;
        return (false, reports);
    }
    out.extend_from_slice(&old[cursor..]);
    if touched_end && let Some(last) = out.last_mut() {
        if new_no_eol {
            last.eol = "";
        } else if last.eol.is_empty() {
            last.eol = eol;
        }
    }
    doc.lines = out;
    (true, reports)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_added_after_an_unterminated_last_line_do_not_join_it() {
        let out = patch_one("x", "--- f\n+++ f\n@@ -1,0 +2 @@\n+y\n").unwrap();
        assert_eq!(out, "x\ny\n");
    }

    fn patch_one(old: &str, patch: &str) -> Result<String> {
        let files = parse(patch)?;
        let mut doc = Doc::parse("f", old.as_bytes())?;
        let (ok, reports) = apply(&files[0], &mut doc);
        if !ok {
            return Err(Error::new(Code::PatchFailed, format!("{reports:?}")));
        }
        Ok(String::from_utf8(doc.to_bytes()).unwrap())
    }

    #[test]
    fn a_git_diff_applies() {
        let patch = "diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
        assert_eq!(patch_one("a\nb\nc\n", patch).unwrap(), "a\nB\nc\n");
    }

    #[test]
    fn offsets_are_found_when_unique_and_refused_when_ambiguous() {
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n";
        assert_eq!(patch_one("pre\nx\ny\n", patch).unwrap(), "pre\nx\nY\n");
        assert!(
            patch_one(
                "x\ny\nx\ny\n",
                "--- f\n+++ f\n@@ -5,2 +5,2 @@\n x\n-y\n+Y\n"
            )
            .is_err()
        );
    }

    #[test]
    fn missing_final_newline_markers() {
        let patch = "--- f\n+++ f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n";
        assert_eq!(patch_one("a", patch).unwrap(), "b\n");
        let patch = "--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n";
        assert_eq!(patch_one("a\n", patch).unwrap(), "b");
    }

    #[test]
    fn a_file_without_terminators_takes_the_crlf_of_a_line_added_before_its_last() {
        // Found by the `patch` fuzz target: the unterminated last line was the context line,
        // yet the added line's CR was left out as if it had been the last.
        let patch =
            "--- f\n+++ f\n@@ -1 +1,2 @@\n+added\r\n \tindented\n\\ No newline at end of file\n";
        assert_eq!(
            patch_one("\tindented", patch).unwrap(),
            "added\r\n\tindented"
        );
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let patch = "--- f\n+++ f\n@@ -1,2 +1,3 @@\n a\n+new\n b\n";
        assert_eq!(patch_one("a\r\nb\r\n", patch).unwrap(), "a\r\nnew\r\nb\r\n");
    }

    #[test]
    fn a_short_hunk_reports_both_counts() {
        let err = parse("--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n").unwrap_err();
        assert_eq!(err.code, Code::PatchFailed);
        assert_eq!(err.details["expected_old_lines"], 3);
        assert_eq!(err.details["actual_old_lines"], 2);
        assert_eq!(err.details["actual_new_lines"], 1);
        assert!(!err.message.contains("-b"), "patch text echoed");
    }

    #[test]
    fn created_and_deleted_files() {
        let files = parse("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n").unwrap();
        assert_eq!(files[0].old_path, None);
        assert_eq!(files[0].path(), "new.txt");
        let mut doc = Doc::parse("f", b"").unwrap();
        assert!(apply(&files[0], &mut doc).0);
        assert_eq!(doc.to_bytes(), b"one\ntwo\n");
        let files = parse("--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n").unwrap();
        let mut doc = Doc::parse("f", b"one\ntwo\n").unwrap();
        assert!(apply(&files[0], &mut doc).0);
        assert!(doc.lines.is_empty());
    }
}
