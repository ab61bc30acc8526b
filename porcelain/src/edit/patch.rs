//! Unified diffs: parsed whole, every hunk checked against its file, then applied exactly.
//!
//! Accepts `diff -u` and `git diff` output: `a/` and `b/` prefixes, `/dev/null` for created and
//! deleted files, `\ No newline at end of file`, several files in one patch. A hunk applies at
//! its stated line or at one unique offset (reported); its context must match exactly (no
//! fuzz), and so must the old side's final-newline marker; hunks must come in the order of
//! their lines. Line terminators in the patch are ignored when matching: new lines take the
//! file's convention, so a CRLF file stays CRLF, and a hunk that shows the file's own line ends
//! and asks for others is refused rather than applied with the file's.

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
    /// For each line of `lines`, its terminator in the patch: `"\n"`, `"\r\n"` (a CR before
    /// the `\n`), `""` for a line a `\ No newline` marker follows, or `None` when the patch
    /// text ends on the line without a `\n`, which says nothing about its terminator.
    eols: Vec<Option<&'static str>>,
    /// A `\ No newline` marker line of the hunk ends in `\n` without a CR: a transport that
    /// gave the patch's lines a CR would have given it one too, so a CR the patch's lines
    /// carry is their author's.
    plain_marker: bool,
}

impl Hunk {
    /// The terminators the patch gives its added lines, where it gives one (not a line a
    /// `\ No newline` marker follows, nor one the patch text ends on).
    fn added_ends(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.lines
            .iter()
            .zip(&self.eols)
            .filter(|(l, _)| matches!(l, HunkLine::Add(_)))
            .filter_map(|(_, e)| e.filter(|e| !e.is_empty()))
    }

    /// Whether any of its lines is context (`diff -U0` writes none).
    fn has_context(&self) -> bool {
        self.lines.iter().any(|l| matches!(l, HunkLine::Context(_)))
    }

    /// The line (from 1) where `old` already holds this hunk's new lines at their stated
    /// place, when the hunk changes something: the mark of a patch applied already.
    fn result_in_place(&self, old: &[Line]) -> Option<usize> {
        self.result_near(old, 0)
    }

    /// The line (1-based) nearest the new side's stated line, at most `within` lines from it,
    /// where the file holds the hunk's new side (context and added lines), if the hunk
    /// changes anything.
    fn result_near(&self, old: &[Line], within: usize) -> Option<usize> {
        let new: Vec<&str> = self
            .lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(t) | HunkLine::Add(t) => Some(t.as_str()),
                HunkLine::Remove(_) => None,
            })
            .collect();
        let changes = self
            .lines
            .iter()
            .any(|l| !matches!(l, HunkLine::Context(_)));
        if !changes || new.is_empty() {
            return None;
        }
        let stated = self.new_start.checked_sub(1)?;
        let holds = |at: usize| {
            old.get(at..at + new.len())
                .is_some_and(|there| there.iter().zip(&new).all(|(l, n)| l.text == *n))
        };
        (0..=within)
            .flat_map(|d| [stated.checked_sub(d), Some(stated + d).filter(|_| d > 0)])
            .flatten()
            .find(|&at| holds(at))
            .map(|at| at + 1)
    }

    /// The edge of the file the hunk must meet, if its context says so: context before its
    /// change and none after means a diff tool ran out of file after it (it ends the file);
    /// none before, some after, stated at line 1, means it starts the file. A hunk with no
    /// context on either side (`diff -U0`), or on both, can be anywhere.
    fn edge(&self) -> Option<Edge> {
        let context = |l: &&HunkLine| matches!(l, HunkLine::Context(_));
        let leading = self.lines.iter().take_while(context).count();
        if leading == self.lines.len() {
            return None;
        }
        let trailing = self.lines.iter().rev().take_while(context).count();
        match (leading, trailing) {
            (1.., 0) => Some(Edge::End),
            (0, 1..) if self.old_start <= 1 => Some(Edge::Start),
            _ => None,
        }
    }
}

/// An edge of the file a hunk's context ties it to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    Start,
    End,
}

impl Edge {
    /// The edge in words, as `details.edge` names it.
    fn name(self) -> &'static str {
        match self {
            Edge::Start => "start",
            Edge::End => "end",
        }
    }

    /// The refusal of a hunk tied to this edge whose old lines are in the file, but not there:
    /// at `found` (0-based) when they occur once, or at several places.
    fn refusal(self, found: Option<usize>, file_lines: usize) -> Refusal {
        let edge = self.name();
        let (side, other, reason, add) = match self {
            Edge::Start => ("after", "before", "start_of_file", "precede"),
            Edge::End => ("before", "after", "end_of_file", "follow"),
        };
        let place = match found {
            Some(at) => format!(
                "they are at file line {}{}",
                at + 1,
                match self {
                    Edge::Start => String::new(),
                    Edge::End => format!(", and the file goes on to line {file_lines}"),
                }
            ),
            None => "they occur at several places, none of them there".to_owned(),
        };
        Refusal {
            reason,
            clause: format!(
                "has context {side} its change and none {other} it, which in a diff means its old lines are at the {edge} of the file; {place}. If the change belongs there, add the lines that {add} it as context; if it belongs at the {edge}, the file has changed since the patch was made",
            ),
            details: vec![("edge", edge.into())],
        }
    }
}

/// What a file section of a patch does to its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    Modify,
    Create,
    Delete,
    /// git's `rename from`/`rename to`: the old file goes, the new one takes its (patched)
    /// content.
    Rename,
    /// git's `copy from`/`copy to`: the new file takes the old one's (patched) content.
    Copy,
}

impl Action {
    /// What the action does to a file, in a message.
    fn word(&self) -> &'static str {
        match self {
            Action::Modify => "modified",
            Action::Create => "created",
            Action::Delete => "deleted",
            Action::Rename => "renamed",
            Action::Copy => "copied",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct FilePatch {
    /// The file the section reads; `None` for a creation (`/dev/null`).
    pub old_path: Option<String>,
    /// The file the section writes; `None` for a deletion.
    pub new_path: Option<String>,
    pub action: Action,
    /// git's `old mode` or `deleted file mode` (octal, e.g. `0o100644`).
    pub old_mode: Option<u32>,
    /// git's `new mode` or `new file mode`.
    pub new_mode: Option<u32>,
    hunks: Vec<Hunk>,
    /// The hunks of a Codex patch's section, which state no line numbers.
    pub chunks: Vec<super::codex::Chunk>,
    /// For a section of a Codex patch: the patch line of its `***` directive. Such a section
    /// deletes a file whatever it holds, and errors about its file name that line.
    pub codex: Option<usize>,
    /// git's `index OLD..NEW` line: the start of the old file's blob id (lowercase hex), when
    /// it names one, which tells whether the file is the one the patch was made from.
    old_blob: Option<String>,
    /// The caller named the version the hunks were made on (`--base`), and it is the one
    /// they are applied to: every hunk is where it says, as with a matching `index` line.
    on_base: bool,
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

    /// A section of a Codex patch, starting at patch line `line`.
    pub(super) fn from_codex(
        line: usize,
        old_path: Option<String>,
        new_path: Option<String>,
        action: Action,
        chunks: Vec<super::codex::Chunk>,
    ) -> FilePatch {
        FilePatch {
            old_path,
            new_path,
            action,
            old_mode: None,
            new_mode: None,
            hunks: Vec::new(),
            chunks,
            codex: Some(line),
            old_blob: None,
            on_base: false,
        }
    }

    /// This section as applied to the version its hunks were made on, which the caller
    /// named (`--base`).
    pub(crate) fn on_its_base(&self) -> FilePatch {
        FilePatch {
            on_base: true,
            ..self.clone()
        }
    }

    pub fn has_hunks(&self) -> bool {
        !self.hunks.is_empty() || !self.chunks.is_empty()
    }

    /// Whether the section sets the executable bit (`Some(true)`), clears it, or leaves the
    /// mode alone (`None`, also when the old and new modes are the same).
    pub fn executable(&self) -> Option<bool> {
        let new = self.new_mode?;
        (self.old_mode != Some(new)).then_some(new == EXECUTABLE)
    }
}

/// The file modes git writes. A symbolic link or a submodule is not a file this tool writes.
const REGULAR: u32 = 0o100644;
const EXECUTABLE: u32 = 0o100755;
const SYMLINK: u32 = 0o120000;
const GITLINK: u32 = 0o160000;

/// One hunk's outcome.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HunkReport {
    /// 1-based position of the hunk in its file's section of the patch.
    pub hunk: usize,
    /// The old side's first line as the hunk header states it (`@@ -old_start,old_lines`). A
    /// Codex hunk states no lines: for it, the line where it applied (0 when it did not).
    pub old_start: usize,
    /// The old side's line count as the header states it (for a Codex hunk, its context and
    /// removed lines).
    pub old_lines: usize,
    /// The new side's first line as the header states it (`+new_start,new_lines @@`); for a
    /// Codex hunk, where it applied (0 when it did not).
    pub new_start: usize,
    /// The new side's line count as the header states it (for a Codex hunk, its context and
    /// added lines).
    pub new_lines: usize,
    /// `applies`, `applies_at_offset`, `failed` or `ambiguous`.
    #[schemars(extend("enum" = ["applies", "applies_at_offset", "failed", "ambiguous"]))]
    pub status: &'static str,
    /// Lines between the stated and the actual position, when not zero.
    pub offset: i64,
    /// For a hunk that does not apply: how its old lines compare with the file, which
    /// PATCH_FAILED reports in `details.mismatch`. Not part of the report.
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) mismatch: Option<Box<Mismatch>>,
    /// For a hunk refused for a reason of its own (out of order, line ends the file would not
    /// get, a final newline the file does not have): why. Not part of the report.
    #[serde(skip)]
    #[schemars(skip)]
    pub(crate) refusal: Option<Box<Refusal>>,
}

/// Why a hunk is refused although its lines are in the file, or would be but for their final
/// newline: PATCH_FAILED with `reason`, the message `hunk N of PATH {clause}`, and `details`.
#[derive(Clone, Debug)]
pub(crate) struct Refusal {
    /// `misordered`, `line_ends`, `final_newline`, `start_of_file`, `end_of_file`,
    /// `placed_by_number` or `ambiguous`.
    pub reason: &'static str,
    /// What is wrong, after "hunk N of PATH".
    pub clause: String,
    /// More `details` keys.
    pub details: Vec<(&'static str, serde_json::Value)>,
}

/// The id git gives `bytes` as a blob (SHA-1 of `blob LEN\0` and the bytes), in hex: what a
/// git diff's `index` line abbreviates.
fn git_blob_id(bytes: &[u8]) -> String {
    use sha1::{Digest, Sha1};
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A terminator as a message names it.
fn eol_name(eol: &str) -> &'static str {
    match eol {
        "\r\n" => "CRLF",
        "\n" => "LF",
        _ => "no newline",
    }
}

/// How a hunk that does not apply compares with the file: at its stated place, at the place
/// its old lines fit best (after the previous hunk), and, for an ambiguous hunk, every place
/// they fit exactly.
#[derive(Clone, Debug)]
pub(crate) struct Mismatch {
    stated: Place,
    best: Option<Place>,
    /// First lines (0-based) of the places the old lines match exactly, at most `MAX_LISTED`.
    matches_at: Vec<usize>,
}

/// The hunk's old lines laid over the file from `start` (0-based).
#[derive(Clone, Debug)]
struct Place {
    start: usize,
    /// How many of the hunk's old lines differ from the file there (a line past the end of
    /// the file differs).
    differing: usize,
    /// The first that differs: its index among the hunk's old lines, the file line (0-based),
    /// and both texts (the file's `None` past the end).
    first: Option<(usize, usize, String, Option<String>)>,
}

impl Place {
    fn at(old: &[Line], want: &[&str], start: usize) -> Place {
        let mut differing = 0;
        let mut first = None;
        for (k, w) in want.iter().enumerate() {
            let actual = old.get(start + k).map(|l| l.text.as_ref());
            if actual != Some(*w) {
                differing += 1;
                first.get_or_insert_with(|| {
                    (k, start + k, (*w).to_owned(), actual.map(str::to_owned))
                });
            }
        }
        Place {
            start,
            differing,
            first,
        }
    }

    fn to_json(&self) -> serde_json::Value {
        use super::locate::{LINE_CHARS, cut};
        let first = self.first.as_ref().map(|(k, line, expected, actual)| {
            serde_json::json!({
                "line": line + 1,
                "hunk_line": k + 1,
                "expected": cut(expected, LINE_CHARS),
                "actual": actual.as_deref().map(|a| cut(a, LINE_CHARS)),
            })
        });
        serde_json::json!({
            "line": self.start + 1,
            "differing_lines": self.differing,
            "first_difference": first,
        })
    }
}

impl Mismatch {
    /// Compares the old lines `want` of a hunk stated at `stated` with the file `old`, from
    /// line `cursor` on (where the previous hunk ended).
    fn find(old: &[Line], want: &[&str], stated: usize, cursor: usize) -> Mismatch {
        use std::hash::{DefaultHasher, Hash, Hasher};
        let hash = |text: &str| {
            let mut h = DefaultHasher::new();
            text.hash(&mut h);
            h.finish()
        };
        let mut matches_at = Vec::new();
        let mut best: Option<(usize, usize)> = None;
        if !want.is_empty() && cursor < old.len() {
            // Lines compared by hash first: laying a hunk over every place is the number of
            // file lines times the hunk's, and most comparisons fail on their first word.
            let file: Vec<u64> = old[cursor..].iter().map(|l| hash(&l.text)).collect();
            let wanted: Vec<u64> = want.iter().map(|w| hash(w)).collect();
            // Places that run past the end count the missing lines as differing: a hunk at
            // the end of a file that lost its last lines still fits best there.
            let last = old.len() - 1;
            let distance = |at: usize| at.abs_diff(stated);
            for at in cursor..=last {
                let bound = best.map_or(usize::MAX, |(d, _)| d);
                let mut differing = 0;
                for (k, w) in wanted.iter().enumerate() {
                    if file.get(at - cursor + k) != Some(w) {
                        differing += 1;
                        if differing > bound {
                            break;
                        }
                    }
                }
                if differing == 0 && matches_at.len() < super::locate::MAX_LISTED {
                    matches_at.push(at);
                }
                let better = best.is_none_or(|(d, b)| {
                    differing < d || (differing == d && distance(at) < distance(b))
                });
                if differing <= bound && better {
                    best = Some((differing, at));
                }
            }
        }
        Mismatch {
            stated: Place::at(old, want, stated),
            best: best.map(|(_, at)| Place::at(old, want, at)),
            matches_at,
        }
    }

    /// The mismatch as `details.mismatch` gives it, for hunk `hunk` (1-based).
    pub(crate) fn to_json(&self, hunk: usize) -> serde_json::Value {
        serde_json::json!({
            "hunk": hunk,
            "stated": self.stated.to_json(),
            "best": self.best.as_ref().map(Place::to_json),
            "matches_at": self.matches_at.iter().map(|l| l + 1).collect::<Vec<_>>(),
        })
    }

    /// One clause for the message: where the hunk differs and where it would fit.
    pub(crate) fn describe(&self, old_lines: usize) -> String {
        let mut text = match &self.stated.first {
            Some((_, line, _, Some(_))) => format!(
                "at its stated line {}, file line {} differs from the hunk",
                self.stated.start + 1,
                line + 1
            ),
            Some((_, line, _, None)) => format!(
                "at its stated line {}, the hunk runs past the end of the file at line {}",
                self.stated.start + 1,
                line + 1
            ),
            None => format!(
                "its stated line {} is not after the previous hunk or is past the end of the file",
                self.stated.start + 1
            ),
        };
        if let Some((_, 0, expected, Some(actual))) = &self.stated.first
            && actual.strip_prefix('\u{feff}') == Some(expected.as_str())
        {
            text.push_str(
                "; the file's line 1 starts with a byte-order mark, which a unified diff's line 1 \
                 holds as git writes it, and the hunk's does not (text from a read has the mark \
                 removed): start the hunk's line 1 with U+FEFF, or use a Codex patch or a text \
                 replacement, which see the text as a read shows it",
            );
        }
        if self.matches_at.len() > 1 {
            let lines: Vec<String> = self
                .matches_at
                .iter()
                .map(|l| (l + 1).to_string())
                .collect();
            text.push_str(&format!(
                "; its lines match at lines {} (details.mismatch.matches_at)",
                lines.join(", ")
            ));
        } else if let Some(best) = self.best.as_ref().filter(|b| b.start != self.stated.start) {
            text.push_str(&format!(
                "; it fits best at line {}, where {} of its {old_lines} old lines differ",
                best.start + 1,
                best.differing
            ));
        }
        text
    }
}

/// One file section's outcome: there is one for every section of the patch.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FileReport {
    /// Workspace-relative path: the file written (for a rename or copy, its new name), or
    /// the file deleted.
    pub path: String,
    /// `modified` (content, and possibly mode), `created`, `deleted`, `renamed`, `copied`,
    /// `mode_changed` (the mode alone), or `unchanged` (hunks that leave the file's bytes as
    /// they were, and no mode change).
    #[schemars(with = "String")]
    #[schemars(extend("enum" = ["modified", "created", "deleted", "renamed", "copied", "mode_changed", "unchanged"]))]
    pub change: crate::Change,
    /// For `renamed` and `copied`: the path the content came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// When the section sets the mode: git's mode word, `100644` or `100755`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["100644", "100755"]))]
    pub mode: Option<&'static str>,
    /// Whether every hunk of the file applies.
    #[schemars(extend("enum" = ["applies", "failed"]))]
    pub status: &'static str,
    /// Every hunk's outcome, in the patch's order (none for a section without hunks, such as
    /// a pure rename or mode change).
    pub hunks: Vec<HunkReport>,
}

pub(super) fn failed(message: String, line: usize, reason: &str) -> Error {
    Error::new(Code::PatchFailed, message)
        .with("line", line)
        .with("reason", reason)
}

/// A name as git writes it in its extended headers: C-quoted when unusual, else as is. A
/// quoted name that git could not have written is `Err` with why ([`unquote`]).
fn git_name(text: &str) -> std::result::Result<String, &'static str> {
    if !text.starts_with('"') {
        return Ok(text.to_owned());
    }
    match quoted_token(text)? {
        Some((name, "")) => Ok(name),
        Some(_) => Err("has text after its closing quote"),
        None => Err("has no closing quote"),
    }
}

/// PATCH_FAILED for a quoted name on patch line `line` that git could not have written
/// (`why`). Reading it any other way would name another file: `\r` read as `r`, or bytes
/// that are not UTF-8 read as U+FFFD, changed a file the patch did not name.
fn bad_name(line: usize, why: &str) -> Error {
    failed(
        format!("line {line}: a quoted file name {why}; nothing was applied"),
        line,
        "bad_quoted_name",
    )
}

/// The path named by a `---`/`+++` header, unquoted when git quoted it, or `None` for
/// `/dev/null`. Before a tab the name is exactly what precedes the tab: GNU diff writes a
/// timestamp after one, and git ends a name that holds a space with one, so that a name's own
/// trailing spaces survive (`x ` is not `x`). Without a tab, trailing whitespace is the
/// line's, not the name's.
fn header_path(rest: &str) -> std::result::Result<Option<String>, &'static str> {
    let path = match rest.split_once('\t') {
        Some((name, _)) => name,
        None => rest.trim_end(),
    };
    let path = git_name(path)?;
    Ok((path != "/dev/null").then_some(path))
}

/// Whether a `---`/`+++` header dates its file at the Unix epoch, as `diff -N` dates a file
/// that does not exist.
fn dated_epoch(rest: &str) -> bool {
    rest.split_once('\t')
        .is_some_and(|(_, date)| is_epoch(date))
}

/// Whether a `diff -u` timestamp (`1970-01-01 00:00:00.000000000 +0000`, or the same instant
/// in another zone, `1969-12-31 19:00:00 -0500`) is the Unix epoch.
fn is_epoch(date: &str) -> bool {
    let mut parts = date.split_whitespace();
    let (Some(day), Some(time), Some(zone), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let numbers = |text: &str, sep: char| -> Option<Vec<i64>> {
        text.split(sep).map(|n| n.parse().ok()).collect()
    };
    let (time, fraction) = time.split_once('.').unwrap_or((time, "0"));
    let (Some(day), Some(time)) = (numbers(day, '-'), numbers(time, ':')) else {
        return false;
    };
    let (&[y, m, d], &[hh, mm, ss]) = (day.as_slice(), time.as_slice()) else {
        return false;
    };
    let zone = match (
        zone.as_bytes().first(),
        zone.get(1..).and_then(|z| z.parse::<i64>().ok()),
    ) {
        (Some(b'+'), Some(z)) if zone.len() == 5 => (z / 100) * 3600 + (z % 100) * 60,
        (Some(b'-'), Some(z)) if zone.len() == 5 => -((z / 100) * 3600 + (z % 100) * 60),
        _ => return false,
    };
    // Days from 1970-01-01 to the civil date y-m-d (Howard Hinnant's days_from_civil).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    fraction.bytes().all(|b| b == b'0') && days * 86_400 + hh * 3600 + mm * 60 + ss - zone == 0
}

/// The leading C-quoted name of `text` (unquoted) and what follows its closing quote;
/// `Ok(None)` when the quote is not closed, `Err` when the name is not as git quotes one.
fn quoted_token(text: &str) -> std::result::Result<Option<(String, &str)>, &'static str> {
    let Some(body) = text.strip_prefix('"') else {
        return Ok(None);
    };
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Ok(Some((unquote(&body[..i])?, &body[i + 1..]))),
            _ => i += 1,
        }
    }
    Ok(None)
}

/// The two names of a `diff --git` line, without their `a/` and `b/` prefixes. Unquoted names
/// may hold spaces, so they are only known when both halves name the same file (git then
/// writes `rename` or `copy` headers, or `---`/`+++` lines, for anything else).
fn git_names(rest: &str) -> std::result::Result<Option<(String, String)>, &'static str> {
    let (old, new) = if rest.starts_with('"') {
        let Some((old, after)) = quoted_token(rest)? else {
            return Err("has no closing quote");
        };
        let Some(new) = after.strip_prefix(' ') else {
            return Ok(None);
        };
        (old, git_name(new)?)
    } else if let Some((old, quoted)) = rest.split_once(" \"") {
        let Some((new, _)) = quoted_token(&format!("\"{quoted}"))? else {
            return Err("has no closing quote");
        };
        (old.to_owned(), new)
    } else {
        let half = rest.len() / 2;
        if rest.len().is_multiple_of(2)
            || !rest.is_char_boundary(half)
            || rest.as_bytes()[half] != b' '
        {
            return Ok(None);
        }
        // Halves of equal length are the names only when they name one file, with or
        // without a prefix each: `a/xx b/abc def/ghijkl` also splits evenly, at a space
        // inside the second name.
        let (old, new) = (&rest[..half], &rest[half + 1..]);
        let unprefixed = |n: &'_ str| n.split_once('/').map(|(_, rest)| rest.to_owned());
        if old != new && unprefixed(old).is_none_or(|o| Some(o) != unprefixed(new)) {
            return Ok(None);
        }
        (old.to_owned(), new.to_owned())
    };
    Ok(Some((old, new)))
}

/// The prefix pairs git writes before a section's two names: `a/` and `b/`, and with
/// `diff.mnemonicPrefix` the two sides compared (index, work tree, commit, object; `1` and `2`
/// for `--no-index`). `--no-prefix` writes none.
const GIT_PREFIXES: [(&str, &str); 6] = [
    ("a/", "b/"),
    ("i/", "w/"),
    ("c/", "w/"),
    ("c/", "i/"),
    ("o/", "w/"),
    ("1/", "2/"),
];

/// The names a git section's headers give, as written: the `diff --git` line's (when they
/// can be told apart), the `---`/`+++` lines' (`None` for `/dev/null`), and the `rename`
/// or `copy` lines' (never prefixed).
#[derive(Default)]
struct GitNames {
    line: Option<(String, String)>,
    dashes: Option<(Option<String>, Option<String>)>,
    moved: (Option<String>, Option<String>),
}

impl GitNames {
    /// The section's old and new paths: the one reading of the prefixes under which every
    /// header names the same old file and the same new file. A pair git writes is tried first
    /// (git writes one unless told `--no-prefix`), no prefix only when no pair makes the headers
    /// agree, and then only for one file or a rename or copy. Headers that agree under no
    /// reading, or under two pairs that name different files, are refused: which file the
    /// section changes would be a guess (`git apply` refuses them too).
    fn paths(&self, line: usize) -> Result<(Option<String>, Option<String>)> {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        let named = self.line.iter().map(|(o, n)| (Some(o), Some(n)));
        let named = named.chain(self.dashes.iter().map(|(o, n)| (o.as_ref(), n.as_ref())));
        for (old, new) in named {
            for &(p, q) in &GIT_PREFIXES {
                for (p, q) in [(p, q), (q, p)] {
                    let fits =
                        |name: Option<&String>, prefix| name.is_none_or(|n| n.starts_with(prefix));
                    if fits(old, p) && fits(new, q) && !pairs.contains(&(p, q)) {
                        pairs.push((p, q));
                    }
                }
            }
        }
        let mut agreed: Vec<(Option<String>, Option<String>)> = Vec::new();
        for (p, q) in pairs {
            if let Some(paths) = self.under(p, q)
                && !agreed.contains(&paths)
            {
                agreed.push(paths);
            }
        }
        // Without prefixes, two names and no rename or copy line are a pair of prefixes this
        // tool does not know (`--src-prefix`), whose reading would be a guess.
        let moved = self.moved.0.is_some() || self.moved.1.is_some();
        if agreed.is_empty()
            && let Some(paths) = self.under("", "")
            && (moved || paths.0.is_none() || paths.1.is_none() || paths.0 == paths.1)
        {
            agreed.push(paths);
        }
        match agreed.len() {
            1 => Ok(agreed.remove(0)),
            0 => Err(failed(
                format!(
                    "line {line}: the headers of this section name different files (the diff --git line, the ---/+++ lines and any rename or copy lines must agree), so which file it changes would be a guess"
                ),
                line,
                "inconsistent_names",
            )),
            _ => Err(failed(
                format!(
                    "line {line}: the headers of this section name different files depending on which of git's prefixes its names carry, so which file it changes would be a guess"
                ),
                line,
                "inconsistent_names",
            )),
        }
    }

    /// The old and new paths with prefixes `p` and `q` taken off, when every header agrees.
    fn under(&self, p: &str, q: &str) -> Option<(Option<String>, Option<String>)> {
        let strip = |name: &String, prefix: &str| name.strip_prefix(prefix).map(str::to_owned);
        let mut olds = Vec::new();
        let mut news = Vec::new();
        if let Some((o, n)) = &self.line {
            olds.push(strip(o, p)?);
            news.push(strip(n, q)?);
        }
        if let Some((o, n)) = &self.dashes {
            if let Some(o) = o {
                olds.push(strip(o, p)?);
            }
            if let Some(n) = n {
                news.push(strip(n, q)?);
            }
        }
        olds.extend(self.moved.0.clone());
        news.extend(self.moved.1.clone());
        let same = |names: &[String]| names.windows(2).all(|w| w[0] == w[1]);
        if !same(&olds) || !same(&news) || olds.iter().chain(&news).any(String::is_empty) {
            return None;
        }
        Some((olds.first().cloned(), news.first().cloned()))
    }
}

/// Undoes git's C-style quoting of unusual file names (`quote_c_style` in git; GNU diff
/// writes the same): `\\`, `\"`, `\a`, `\b`, `\f`, `\n`, `\r`, `\t`, `\v`, and octal bytes
/// such as `\303\251` (UTF-8 for é). Any other escape, a `"` left unescaped, and bytes that
/// are not UTF-8 (no workspace path can hold them) are `Err` with why, never read as
/// something near: each such reading would name another file.
fn unquote(quoted: &str) -> std::result::Result<String, &'static str> {
    let bytes = quoted.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'"' {
            return Err("holds a quote that is not escaped");
        }
        if bytes[i] != b'\\' {
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
        out.push(match bytes.get(i + 1) {
            Some(b'a') => 0x07,
            Some(b'b') => 0x08,
            Some(b'f') => 0x0c,
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            Some(b't') => b'\t',
            Some(b'v') => 0x0b,
            Some(b'\\') => b'\\',
            Some(b'"') => b'"',
            _ => {
                return Err(
                    "holds an escape git never writes (git writes \\\\, \\\", \\a, \\b, \\f, \\n, \\r, \\t, \\v and three octal digits)",
                );
            }
        });
        i += 2;
    }
    String::from_utf8(out)
        .map_err(|_| "names bytes that are not UTF-8, which no workspace path can hold")
}

/// A hunk header's `START,COUNT` (or `START`, a count of 1). Numbers past 2^32 are no
/// line of a file an edit takes (`max_write_bytes` holds far fewer lines), and arithmetic on
/// them could overflow, so they make the header malformed.
fn hunk_range(text: &str) -> Option<(usize, usize)> {
    let (start, count): (u32, u32) = match text.split_once(',') {
        Some((s, c)) => (s.parse().ok()?, c.parse().ok()?),
        None => (text.parse().ok()?, 1),
    };
    Some((start as usize, count as usize))
}

/// Whether the cursor is on a whole section of a normal diff: a change command (`5a6,7`,
/// `3,4d2`, `1c1`: a line range of the old file, `a`, `c` or `d`, a line range of the new)
/// and then exactly the lines it declares, `<` lines of the old, `---` between for a change,
/// `>` lines of the new, and after them the end, another command or another section. The
/// whole shape is asked for, so that a commit message's line that only looks like a command
/// (a hash such as `1234a5678` above a quoted line) is not taken for one.
fn normal_diff_at(r: &Reader) -> bool {
    let Some((command, olds, news)) = normal_command(r.peek().unwrap_or_default()) else {
        return false;
    };
    let marked = |i: usize, mark: &str| {
        r.at(i)
            .and_then(|l| l.strip_prefix(mark))
            .is_some_and(|t| t.is_empty() || t.starts_with(' '))
    };
    let mut i = r.i + 1;
    if !(i..i + olds).all(|k| marked(k, "<")) {
        return false;
    }
    i += olds;
    if command == 'c' {
        if r.at(i) != Some("---") {
            return false;
        }
        i += 1;
    }
    if !(i..i + news).all(|k| marked(k, ">")) {
        return false;
    }
    // And what follows is what follows a normal diff's section: the end, its marker of a
    // missing newline, another command, or another section.
    r.at(i + news).is_none_or(|l| {
        normal_command(l).is_some()
            || l.starts_with('\\')
            || l.starts_with("diff ")
            || l.starts_with("Index: ")
            || r.headers_at(i + news).is_some()
    })
}

/// A normal diff's change command (`3a4,5`, `2,3c2`, `4d3`): the command letter and how many
/// old and new lines its section holds.
fn normal_command(line: &str) -> Option<(char, usize, usize)> {
    let count = |range: &str| -> Option<usize> {
        let (first, last) = match range.split_once(',') {
            Some((a, b)) => (a.parse::<usize>().ok()?, b.parse::<usize>().ok()?),
            None => (range.parse().ok()?, range.parse().ok()?),
        };
        (last >= first && last - first < 1 << 20).then(|| last - first + 1)
    };
    let (at, command) = line
        .char_indices()
        .find(|(_, c)| matches!(c, 'a' | 'c' | 'd'))?;
    let (olds, news) = (count(&line[..at])?, count(&line[at + 1..])?);
    Some(match command {
        'a' => ('a', 0, news),
        'd' => ('d', olds, 0),
        _ => ('c', olds, news),
    })
}

/// A binary section, as `diff` and `git diff` write one. Its content cannot be applied as
/// text, and applying the patch's other sections without it would be a partial patch.
fn is_binary_marker(line: &str) -> bool {
    line == "GIT binary patch" || (line.starts_with("Binary files ") && line.ends_with(" differ"))
}

/// The patch text as lines, with a cursor. Lines are cut at `\n`; a CR before it is dropped
/// (and remembered where it matters: in added lines). Codex patches are read with it too.
pub(super) struct Reader<'a> {
    pub(super) raw: Vec<&'a str>,
    pub(super) i: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Reader {
            raw: text.split('\n').collect(),
            i: 0,
        }
    }

    /// The line at the cursor without its CR, or `None` at the end (the empty string after
    /// the patch's final newline is no line).
    pub(super) fn peek(&self) -> Option<&'a str> {
        self.at(self.i)
    }

    pub(super) fn at(&self, i: usize) -> Option<&'a str> {
        let line = *self.raw.get(i)?;
        if i + 1 == self.raw.len() && line.is_empty() {
            return None;
        }
        Some(line.strip_suffix('\r').unwrap_or(line))
    }

    /// The terminator of the line at the cursor: `\r\n` when a CR comes before its `\n`,
    /// `None` when the text ends on it without a `\n`.
    fn terminator(&self) -> Option<&'static str> {
        let line = self.raw.get(self.i)?;
        if self.i + 1 == self.raw.len() {
            return None;
        }
        Some(if line.ends_with('\r') { "\r\n" } else { "\n" })
    }

    /// 1-based number of the line at the cursor.
    pub(super) fn number(&self) -> usize {
        self.i + 1
    }

    /// Whether the cursor is on a `---` and `+++` pair.
    fn at_file_headers(&self) -> bool {
        self.headers_at(self.i).is_some()
    }

    /// The `---` and `+++` names at the cursor (`None` for `/dev/null`), when it is on such
    /// a pair; PATCH_FAILED for a quoted name git could not have written.
    fn file_headers(&self) -> Result<Option<(Option<String>, Option<String>)>> {
        let Some((old, new)) = self.headers_at(self.i) else {
            return Ok(None);
        };
        let old = header_path(old).map_err(|why| bad_name(self.number(), why))?;
        let new = header_path(new).map_err(|why| bad_name(self.number() + 1, why))?;
        Ok(Some((old, new)))
    }

    /// Whether the `---` and `+++` lines at the cursor date their files at the epoch.
    fn epochs(&self) -> (bool, bool) {
        let side = |i, prefix| {
            self.at(i)
                .and_then(|l| l.strip_prefix(prefix))
                .is_some_and(dated_epoch)
        };
        (side(self.i, "--- "), side(self.i + 1, "+++ "))
    }

    /// The text after `--- ` and `+++ ` when lines `i` and `i + 1` are such a pair.
    fn headers_at(&self, i: usize) -> Option<(&str, &str)> {
        let old = self.at(i)?.strip_prefix("--- ")?;
        let new = self.at(i + 1)?.strip_prefix("+++ ")?;
        Some((old, new))
    }

    /// Whether the cursor is on the email signature `git format-patch` ends a patch with:
    /// `-- `, then the signature's text (git's version, or a `--signature-file` that may
    /// start with blank lines). The first line after `-- ` that is not blank must be text that
    /// could not continue a hunk, nor start a section: `-- ` followed by nothing but blank
    /// lines, or by a line such as ` q` after them, is a hunk line removing `- ` (and blank
    /// lines are empty context lines), and taken for a signature after a hunk whose header
    /// counts too few lines, it would end the patch there and skip the rest of the hunk in
    /// silence.
    fn at_signature(&self) -> bool {
        if self.peek() != Some("-- ") {
            return false;
        }
        let mut i = self.i + 1;
        while self.at(i).is_some_and(str::is_empty) {
            i += 1;
        }
        self.at(i).is_some_and(|text| {
            !matches!(text.chars().next(), Some(' ' | '+' | '-' | '@' | '\\'))
                && !text.starts_with("diff ")
                && !text.starts_with("Index: ")
                && self.headers_at(i).is_none()
        })
    }

    /// Whether only blank lines remain from the cursor until the end or the next section.
    fn blank_until_section(&self) -> bool {
        let mut i = self.i;
        while let Some(line) = self.at(i) {
            if !line.trim().is_empty() {
                return line.starts_with("diff ")
                    || line.starts_with("Index: ")
                    || self.headers_at(i).is_some();
            }
            i += 1;
        }
        true
    }
}

/// Parses a whole patch. Everything in it is accounted for: text before the first file
/// section (a commit message, a diffstat) is skipped, and so is an email signature after
/// the last, but any other line that is not part of a section refuses the patch, and so does
/// a binary, symbolic-link or submodule section. A hunk whose body does not supply what its
/// header declares is PATCH_FAILED with both counts. Patch text is never echoed into an error.
pub(crate) fn parse(text: &str) -> Result<Vec<FilePatch>> {
    let mut r = Reader::new(text);
    let mut files: Vec<FilePatch> = Vec::new();
    // Before the first section (and after an email signature) text is commentary.
    let mut commentary = true;
    while let Some(line) = r.peek() {
        if is_binary_marker(line) {
            return Err(binary_section(&r, files.last()));
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            files.push(git_section(&mut r, rest)?);
            commentary = false;
            continue;
        }
        if let Some((old_path, new_path)) = r.file_headers()? {
            files.push(plain_section(&mut r, old_path, new_path)?);
            commentary = false;
            continue;
        }
        if is_bare_hunk_header(line) {
            return Err(bare_hunk_header(r.number(), None));
        }
        // A context diff's hunk separator: commentary would skip its section in silence.
        if line == "***************"
            && r.at(r.i + 1)
                .is_some_and(|next| next.starts_with("*** ") && next.ends_with(" ****"))
        {
            return Err(failed(
                format!(
                    "line {}: a context diff (diff -c) section, which this tool does not read; skipping it would apply only part of the patch, so none of it is applied (make the patch with diff -u or git diff)",
                    r.number()
                ),
                r.number(),
                "context_diff",
            ));
        }
        // A normal diff's section (`1c1`, `3,4d2`, with its `<` and `>` lines) before the
        // first unified one: commentary would skip it in silence too. (After a section, any
        // line that belongs to none is refused below.)
        if files.is_empty() && normal_diff_at(&r) {
            return Err(failed(
                format!(
                    "line {}: a normal diff (diff without -u) section, which this tool does not read; skipping it would apply only part of the patch, so none of it is applied (make the patch with diff -u or git diff)",
                    r.number()
                ),
                r.number(),
                "normal_diff",
            ));
        }
        if line.starts_with("@@ ") {
            return Err(failed(
                format!("line {}: a hunk before any file header", r.number()),
                r.number(),
                "hunk_without_file",
            ));
        }
        if commentary
            // `diff -ru`'s command line, and svn's header, before a section's own headers.
            || line.starts_with("diff ")
            || line.starts_with("Index: ")
            || (!line.is_empty() && line.bytes().all(|b| b == b'='))
        {
            r.i += 1;
            continue;
        }
        if r.at_signature() {
            // `git format-patch` ends a patch with an email signature.
            commentary = true;
            r.i += 1;
            continue;
        }
        if line.trim().is_empty() && r.blank_until_section() {
            r.i += 1;
            continue;
        }
        let after = files
            .last()
            .map(|f| f.path().to_owned())
            .unwrap_or_default();
        return Err(failed(
            format!(
                "line {}: unexpected text after the section of {after}; it is not a hunk, a file header or git metadata, so the patch may hold a change that would be skipped",
                r.number()
            ),
            r.number(),
            "unexpected_line",
        )
        .path(&after));
    }
    if files.is_empty() {
        return Err(failed(
            "line 1: no file section was found, so this is not a patch in a format this tool reads: a unified diff names each file with `--- a/PATH` and `+++ b/PATH` lines and starts each hunk with `@@ -a,b +c,d @@`, and a Codex patch starts with `*** Begin Patch`".into(),
            1,
            "not_a_patch",
        ));
    }
    Ok(files)
}

/// Whether a line is a hunk header without a unified diff's line ranges: `@@` alone, or
/// `@@ ` and text, as Codex patches and agents write them.
fn is_bare_hunk_header(line: &str) -> bool {
    let line = line.trim_end();
    let ranges = line.strip_prefix("@@ ").is_some_and(|rest| {
        rest.strip_prefix('-')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    });
    (line == "@@" || line.starts_with("@@ ")) && !ranges
}

/// PATCH_FAILED for a hunk header without line ranges: the patch does not say where the hunk
/// goes, and a unified diff is never placed by guessing.
fn bare_hunk_header(line: usize, path: Option<&str>) -> Error {
    let err = failed(
        format!(
            "line {line}: a hunk header without line ranges; a unified diff's hunk starts with `@@ -a,b +c,d @@` (the first line and the line count of the old and of the new text), so this patch is not applied; send the ranges, or send a Codex patch, which places hunks by their lines: `*** Begin Patch`, `*** Update File: PATH`, the hunks, `*** End Patch`"
        ),
        line,
        "bare_hunk_header",
    );
    match path {
        Some(path) => err.path(path),
        None => err,
    }
}

fn binary_section(r: &Reader, section: Option<&FilePatch>) -> Error {
    let path = section.map(|f| f.path().to_owned()).unwrap_or_default();
    Error::new(
        Code::BinaryContentRefused,
        format!(
            "line {}: the patch changes binary content{}; binary patches are not applied, and neither is any other part of a patch that holds one",
            r.number(),
            if path.is_empty() { String::new() } else { format!(" ({path})") }
        ),
    )
    .path(&path)
    .with("line", r.number())
    .with("reason", "binary_patch")
    .recovery("apply the text sections as a patch of their own, and write the binary file whole")
}

/// A `diff -u` section: `---`/`+++` names (`/dev/null` for a creation or deletion), then
/// hunks.
fn plain_section(
    r: &mut Reader,
    mut old_path: Option<String>,
    mut new_path: Option<String>,
) -> Result<FilePatch> {
    let line = r.number();
    // git's a/ and b/ prefixes (only when both sides use them, or one is /dev/null).
    let a = old_path.as_deref().is_none_or(|p| p.starts_with("a/"));
    let b = new_path.as_deref().is_none_or(|p| p.starts_with("b/"));
    if a && b {
        old_path = old_path.map(|p| p[2..].to_owned());
        new_path = new_path.map(|p| p[2..].to_owned());
    }
    if old_path.is_none() && new_path.is_none() {
        return Err(failed(
            format!("line {line}: both sides of a file header are /dev/null"),
            line,
            "bad_header",
        ));
    }
    let epochs = r.epochs();
    r.i += 2;
    let mut file = FilePatch {
        old_path,
        new_path,
        action: Action::Modify,
        old_mode: None,
        new_mode: None,
        hunks: Vec::new(),
        chunks: Vec::new(),
        codex: None,
        old_blob: None,
        on_base: false,
    };
    read_hunks(r, &mut file)?;
    // `diff -N` dates a side that does not exist at the epoch. It is taken for absent only
    // where the hunks agree that it is empty: a real file may be dated so too (a build with
    // `SOURCE_DATE_EPOCH=0`), and then its hunks have lines on that side.
    if epochs.0 && file.new_path.is_some() && file.hunks.iter().all(|h| h.old_count == 0) {
        file.old_path = None;
    }
    if epochs.1 && file.old_path.is_some() && file.hunks.iter().all(|h| h.new_count == 0) {
        file.new_path = None;
    }
    file.action = match (&file.old_path, &file.new_path) {
        (None, _) => Action::Create,
        (_, None) => Action::Delete,
        _ => Action::Modify,
    };
    if file.hunks.is_empty() {
        return Err(failed(
            format!(
                "line {line}: the section of {} has file headers but no hunks",
                file.path()
            ),
            line,
            "no_hunks",
        )
        .path(file.path()));
    }
    Ok(file)
}

/// A `git diff` section: the `diff --git` line, git's extended headers (modes, renames,
/// copies, creation, deletion), then `---`/`+++` and hunks when the content changes.
fn git_section(r: &mut Reader, names: &str) -> Result<FilePatch> {
    let line = r.number();
    let mut names = GitNames {
        line: git_names(names).map_err(|why| bad_name(line, why))?,
        ..GitNames::default()
    };
    let mut file = FilePatch {
        old_path: None,
        new_path: None,
        action: Action::Modify,
        old_mode: None,
        new_mode: None,
        hunks: Vec::new(),
        chunks: Vec::new(),
        codex: None,
        old_blob: None,
        on_base: false,
    };
    r.i += 1;
    let mut headers = false;
    while let Some(text) = r.peek() {
        // Each header that says what happens to the file (created, deleted, renamed, copied)
        // must agree with any before it: `copy from` then `rename to` is neither, and taking
        // the last would delete a file a copy keeps (`git apply` refuses it too).
        let said = [
            ("deleted file mode ", Action::Delete),
            ("new file mode ", Action::Create),
            ("rename from ", Action::Rename),
            ("rename to ", Action::Rename),
            ("copy from ", Action::Copy),
            ("copy to ", Action::Copy),
        ]
        .into_iter()
        .find(|(header, _)| text.starts_with(header));
        if let Some((_, action)) = said
            && file.action != Action::Modify
            && file.action != action
        {
            return Err(failed(
                format!(
                    "line {}: the section's headers disagree on what happens to the file ({} and {})",
                    r.number(),
                    file.action.word(),
                    action.word()
                ),
                r.number(),
                "inconsistent_headers",
            ));
        }
        let mode = |m: &str| parse_mode(m, r.number());
        if let Some(m) = text.strip_prefix("old mode ") {
            file.old_mode = Some(mode(m)?);
        } else if let Some(m) = text.strip_prefix("new mode ") {
            file.new_mode = Some(mode(m)?);
        } else if let Some(m) = text.strip_prefix("deleted file mode ") {
            file.action = Action::Delete;
            file.old_mode = Some(mode(m)?);
        } else if let Some(m) = text.strip_prefix("new file mode ") {
            file.action = Action::Create;
            file.new_mode = Some(mode(m)?);
        } else if let Some(p) = text.strip_prefix("rename from ") {
            file.action = Action::Rename;
            names.moved.0 = Some(git_name(p).map_err(|why| bad_name(r.number(), why))?);
        } else if let Some(p) = text.strip_prefix("rename to ") {
            file.action = Action::Rename;
            names.moved.1 = Some(git_name(p).map_err(|why| bad_name(r.number(), why))?);
        } else if let Some(p) = text.strip_prefix("copy from ") {
            file.action = Action::Copy;
            names.moved.0 = Some(git_name(p).map_err(|why| bad_name(r.number(), why))?);
        } else if let Some(p) = text.strip_prefix("copy to ") {
            file.action = Action::Copy;
            names.moved.1 = Some(git_name(p).map_err(|why| bad_name(r.number(), why))?);
        } else if let Some(ids) = text.strip_prefix("index ") {
            file.old_blob = ids
                .split_whitespace()
                .next()
                .and_then(|ids| ids.split_once(".."))
                .map(|(old, _)| old.to_ascii_lowercase())
                .filter(|old| {
                    old.len() >= 4
                        && old.bytes().all(|b| b.is_ascii_hexdigit())
                        && old.bytes().any(|b| b != b'0')
                });
        } else if text.starts_with("similarity index ") || text.starts_with("dissimilarity index ")
        {
        } else if is_binary_marker(text) {
            if let Ok(paths) = names.paths(line) {
                (file.old_path, file.new_path) = paths;
            }
            return Err(binary_section(r, Some(&file)));
        } else if let Some(dashes) = r.file_headers()? {
            names.dashes = Some(dashes);
            headers = true;
            r.i += 2;
            break;
        } else {
            break;
        }
        r.i += 1;
    }
    let moves = matches!(file.action, Action::Rename | Action::Copy);
    if moves && (names.moved.0.is_none() || names.moved.1.is_none()) {
        return Err(failed(
            format!("line {line}: a rename or copy needs both its from and its to line"),
            line,
            "bad_header",
        ));
    }
    (file.old_path, file.new_path) = names.paths(line)?;
    match file.action {
        Action::Create => file.old_path = None,
        Action::Delete => file.new_path = None,
        _ => {}
    }
    let path = file.path().to_owned();
    if file.old_path.is_none() && file.new_path.is_none() || path.is_empty() {
        return Err(failed(
            format!("line {line}: the diff --git line does not say which file it changes"),
            line,
            "bad_header",
        ));
    }
    for mode in [file.old_mode, file.new_mode].into_iter().flatten() {
        if mode == SYMLINK {
            return Err(Error::new(
                Code::SymlinkWriteRefused,
                format!("line {line}: the patch changes {path} as a symbolic link; links are never written, so no part of the patch is applied"),
            )
            .path(&path)
            .with("line", line)
            .with("reason", "symlink_patch"));
        }
        if mode == GITLINK {
            return Err(failed(
                format!("line {line}: the patch changes {path} as a submodule; submodules are not applied, so no part of the patch is"),
                line,
                "submodule_patch",
            )
            .path(&path));
        }
    }
    if headers {
        read_hunks(r, &mut file)?;
    }
    if file.hunks.is_empty() && file.action == Action::Modify && file.executable().is_none() {
        return Err(failed(
            format!("line {line}: the section of {path} changes nothing"),
            line,
            "empty_section",
        )
        .path(&path));
    }
    Ok(file)
}

fn parse_mode(text: &str, line: usize) -> Result<u32> {
    match u32::from_str_radix(text.trim(), 8) {
        Ok(mode @ (REGULAR | EXECUTABLE | SYMLINK | GITLINK)) => Ok(mode),
        _ => Err(failed(
            format!("line {line}: a file mode git does not write"),
            line,
            "bad_mode",
        )),
    }
}

/// Reads the hunks of a section, each by the counts its header declares. A line right after
/// a hunk that would continue it (a context, removed or added line) means the body is longer
/// than the header says: refused, since applying the declared part would drop the rest.
fn read_hunks(r: &mut Reader, file: &mut FilePatch) -> Result<()> {
    while let Some(line) = r.peek() {
        if is_bare_hunk_header(line) {
            return Err(bare_hunk_header(r.number(), Some(file.path())));
        }
        let Some(rest) = line.strip_prefix("@@ ") else {
            break;
        };
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
                format!("line {}: a malformed hunk header", r.number()),
                r.number(),
                "bad_hunk_header",
            ));
        };
        let header_line = r.number();
        let mut hunk = Hunk {
            old_start,
            old_count,
            new_start,
            new_count,
            lines: Vec::new(),
            old_no_eol: false,
            new_no_eol: false,
            eols: Vec::new(),
            plain_marker: false,
        };
        let (mut seen_old, mut seen_new) = (0usize, 0usize);
        r.i += 1;
        while seen_old < old_count || seen_new < new_count {
            let Some(body) = r.peek() else { break };
            // A CR before the newline of a line that a `\ No newline` marker follows is the
            // line's own last character (`diff -u` of a file ending in a lone CR), unless the
            // marker line has one too: then the patch's every line was given a CR in transport.
            let body = match r.raw.get(r.i + 1) {
                Some(next) if next.starts_with('\\') && !next.ends_with('\r') => r.raw[r.i],
                _ => body,
            };
            let eol = r.terminator();
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
                    seen_new += 1;
                }
                Some('\\') => {
                    mark_no_eol(&mut hunk);
                    hunk.plain_marker |= eol == Some("\n");
                }
                _ => break,
            }
            hunk.eols.resize(hunk.lines.len(), eol);
            r.i += 1;
        }
        let counts = |e: Error| {
            e.with("expected_old_lines", old_count)
                .with("expected_new_lines", new_count)
                .with("actual_old_lines", seen_old)
                .with("actual_new_lines", seen_new)
                .path(file.path())
        };
        if seen_old != old_count || seen_new != new_count {
            return Err(counts(failed(
                format!(
                    "line {header_line}: the hunk header declares {old_count} old and {new_count} new lines, but its body supplies {seen_old} old and {seen_new} new"
                ),
                header_line,
                "hunk_body_mismatch",
            )));
        }
        // A "\ No newline" marker may follow the last body line.
        while r.peek().is_some_and(|l| l.starts_with('\\')) {
            mark_no_eol(&mut hunk);
            hunk.plain_marker |= r.terminator() == Some("\n");
            r.i += 1;
        }
        if let Some(k) = misplaced_marker(&hunk) {
            return Err(counts(failed(
                format!(
                    "line {header_line}: the hunk marks its line {} `\\ No newline at end of file`, but more lines of the same side follow it; a marked line is the last of its side",
                    k + 1
                ),
                header_line,
                "misplaced_no_newline_marker",
            )));
        }
        // An empty line without a newline is no line at all: no diff writes one, and applied
        // it would leave the file a line shorter than the hunk says.
        let empty_marked = hunk.lines.iter().zip(&hunk.eols).position(|(line, eol)| {
            let (HunkLine::Context(text) | HunkLine::Remove(text) | HunkLine::Add(text)) = line;
            *eol == Some("") && text.is_empty()
        });
        if let Some(k) = empty_marked {
            return Err(counts(failed(
                format!(
                    "line {header_line}: the hunk marks its line {}, an empty line, `\\ No newline at end of file`; a file that ends without a newline ends with text, so no diff writes this",
                    k + 1
                ),
                header_line,
                "empty_unterminated_line",
            )));
        }
        let continues = r.peek().is_some_and(|l| {
            matches!(l.chars().next(), Some(' ' | '+' | '-'))
                && !r.at_signature()
                && !r.at_file_headers()
        });
        if continues {
            return Err(counts(failed(
                format!(
                    "line {}: the hunk at line {header_line} goes on past the {old_count} old and {new_count} new lines its header declares",
                    r.number()
                ),
                r.number(),
                "hunk_body_too_long",
            )));
        }
        file.hunks.push(hunk);
    }
    Ok(())
}

/// The first line (0-based) a `\ No newline` marker follows although more lines of its side
/// come after it: a context line is on both sides, so nothing may follow it; a removed line
/// may be followed only by added lines, an added line only by removed ones. GNU patch calls
/// such a hunk malformed; applying it would take a newline from a line that keeps one.
fn misplaced_marker(hunk: &Hunk) -> Option<usize> {
    hunk.lines.iter().enumerate().find_map(|(k, line)| {
        if hunk.eols.get(k) != Some(&Some("")) {
            return None;
        }
        let after = &hunk.lines[k + 1..];
        let misplaced = match line {
            HunkLine::Context(_) => !after.is_empty(),
            HunkLine::Remove(_) => after.iter().any(|l| !matches!(l, HunkLine::Add(_))),
            HunkLine::Add(_) => after.iter().any(|l| !matches!(l, HunkLine::Remove(_))),
        };
        misplaced.then_some(k)
    })
}

/// `\ No newline at end of file` applies to the line before it.
fn mark_no_eol(hunk: &mut Hunk) {
    if let Some(eol) = hunk.eols.get_mut(hunk.lines.len().wrapping_sub(1)) {
        *eol = Some("");
    }
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

/// The line end every terminated added line of the patch carries, or `None` when they differ.
/// Only terminated lines count: not the one a `\ No newline` marker follows, nor one the
/// patch text ends on without a newline.
fn patch_convention(file: &FilePatch) -> Option<&'static str> {
    let mut ends = file.hunks.iter().flat_map(Hunk::added_ends);
    let first = ends.next().unwrap_or("\n");
    ends.all(|e| e == first).then_some(first)
}

/// Applies a file's hunks to `doc` (empty for a created file). Returns the per-hunk report;
/// on any failed or ambiguous hunk the report says so and `doc` must not be used.
///
/// A hunk is placed by its old lines' text: at its stated line, else at the one place after
/// the previous hunk where they occur. Then, at that place, a line the old side marks with
/// `\ No newline at end of file` must be the file's last line without a newline, and the
/// file's last line without one must be so marked (`final_newline`). Hunks must come in the
/// order of their lines (`misordered`), and a hunk that shows the file's own line ends must
/// not ask for other ones on its added lines (`line_ends`).
pub(crate) fn apply(file: &FilePatch, doc: &mut Doc) -> (bool, Vec<HunkReport>) {
    // New lines take the file's convention. A file with no terminator yet (new or empty) has
    // none, so it takes the patch's: the one its added lines agree on, else each added line
    // keeps its own, as the patch writes it (`own_ends`).
    let has_eol = doc.lines.iter().any(|l| !l.eol.is_empty());
    let convention = patch_convention(file);
    // The section's added lines end in LF and in CRLF (no agreed convention).
    let added_mix = convention.is_none();
    // The section-wide value: a marker line without a CR in any of its hunks says no CR was
    // added to the section's lines in transport.
    let plain_marker = file.hunks.iter().any(|h| h.plain_marker);
    let (eol, own_ends) = match (has_eol, convention) {
        (true, _) => (doc.eol(), false),
        (false, Some(agreed)) => (agreed, false),
        (false, None) => ("\n", true),
    };
    // git's `index` line names the blob of the file the patch was made from: the file is that
    // one (every hunk is where it says), or it has changed since, as a moved hunk shows.
    let made_from = file.old_blob.as_deref().map(|named| {
        let id = git_blob_id(&doc.to_bytes());
        let same = id.starts_with(named);
        (same, named, id[..named.len().min(id.len())].to_owned())
    });
    let proven = file.on_base || made_from.as_ref().is_some_and(|m| m.0);
    let changed_since = made_from.filter(|m| !m.0).map(|(_, named, id)| (named, id));
    let old = std::mem::take(&mut doc.lines);
    let mut out: Vec<Line> = Vec::with_capacity(old.len());
    let mut cursor = 0usize;
    let mut ok = true;
    let mut reports = Vec::new();
    let mut touched_end = false;
    let mut new_no_eol = false;
    // The previous hunk that applied: its number, the end of its stated old lines (0-based,
    // exclusive), and where its old lines are in the file.
    let mut previous: Option<(usize, usize, usize)> = None;
    // The hunks that applied at their stated line, not tied to an edge: their index, where the
    // previous hunk ended (the search for their lines starts there), and their line (0-based).
    // Hunks placed at their stated line: (hunk, cursor, place, old lines).
    let mut by_number: Vec<(usize, usize, usize, Vec<&str>)> = Vec::new();
    // A refused hunk applies nowhere: no offset, as for any failed hunk.
    let refused = |mut report: HunkReport, refusal: Refusal| {
        report.status = "failed";
        report.offset = 0;
        report.refusal = Some(Box::new(refusal));
        report
    };
    for (n, hunk) in file.hunks.iter().enumerate() {
        let (want, want_eols): (Vec<&str>, Vec<Option<&str>>) = hunk
            .lines
            .iter()
            .zip(&hunk.eols)
            .filter_map(|(l, eol)| match l {
                HunkLine::Context(t) | HunkLine::Remove(t) => Some((t.as_str(), *eol)),
                HunkLine::Add(_) => None,
            })
            .unzip();
        let stated = if hunk.old_count == 0 {
            hunk.old_start
        } else {
            hunk.old_start.saturating_sub(1)
        };
        let text_fits = |at: usize| {
            at + want.len() <= old.len()
                && want.iter().enumerate().all(|(k, w)| old[at + k].text == *w)
        };
        let fits = |at: usize| at >= cursor && text_fits(at);
        let mut report = HunkReport {
            hunk: n + 1,
            old_start: hunk.old_start,
            old_lines: hunk.old_count,
            new_start: hunk.new_start,
            new_lines: hunk.new_count,
            status: "applies",
            offset: 0,
            mismatch: None,
            refusal: None,
        };
        if let Some((prev, prev_stated_end, prev_at)) = previous {
            // Hunks in the wrong order would be placed after the previous one, wherever their
            // lines occur again: never what the patch meant.
            let stated_before = stated < prev_stated_end;
            if stated_before || (stated < cursor && text_fits(stated)) {
                let prev_hunk = &file.hunks[prev - 1];
                let clause = if stated_before {
                    format!(
                        "is out of order: it states line {}, which is not after hunk {prev} (stated at line {}, {} old line(s)); hunks must come in the order of their lines",
                        hunk.old_start, prev_hunk.old_start, prev_hunk.old_count
                    )
                } else {
                    format!(
                        "is out of order: its lines are at its stated line {}, but hunk {prev} applied after that, at line {}; hunks must come in the order of their lines",
                        hunk.old_start,
                        prev_at + 1
                    )
                };
                ok = false;
                reports.push(refused(
                    report,
                    Refusal {
                        reason: "misordered",
                        clause,
                        details: vec![("previous_hunk", prev.into())],
                    },
                ));
                continue;
            }
        }
        // Where the hunk's old lines are not, but its new lines are where the patch puts
        // them, the patch (or this hunk) has been applied already: found again at an offset,
        // its old lines would be another place's, a twin function's or a repeated stanza's.
        // Lines added before line 1 that already start the file, the same: added again, they
        // would be there twice.
        let again = if want.is_empty() {
            hunk.old_start == 0
        } else {
            !fits(stated)
        };
        if again && let Some(line) = hunk.result_in_place(&old) {
            let (clause, effect) = if want.is_empty() {
                (
                    "adds lines before line 1".to_owned(),
                    "they would be there twice",
                )
            } else {
                (
                    format!(
                        "does not apply: its old lines are not at its stated line {}",
                        hunk.old_start
                    ),
                    "it would change another place where its old lines occur",
                )
            };
            ok = false;
            reports.push(refused(
                report,
                Refusal {
                    reason: "already_applied",
                    clause: format!(
                        "{clause}, and its new lines are already at line {line}, as if the patch had been applied; applied again, {effect}"
                    ),
                    details: vec![("new_lines_at", line.into())],
                },
            ));
            continue;
        }
        // A hunk without context lines (`diff -U0`) has nothing but its stated line to say
        // where it goes once the file has changed: lines that only it adds are placed only
        // at an edge of the file, and old lines it changes only where it states them. Found
        // at another place, they may be another place's (the same line elsewhere, a patch
        // applied twice), so it is refused, as `git apply` refuses a `-U0` patch. (A
        // deletion's hunks remove the whole file: found elsewhere, they leave lines, and
        // the deletion is refused for that.)
        let by_line_only = !hunk.has_context() && file.action != Action::Delete && !proven;
        if by_line_only {
            let middle = want.is_empty() && hunk.old_start > 0 && hunk.old_start < old.len();
            let clause = if middle {
                Some((
                    format!(
                        "has no context or removed lines, so only its stated line {} places it, between lines of the file, which is right only if nothing above it changed since the patch was made (nor the patch was applied already)",
                        hunk.old_start
                    ),
                    Vec::new(),
                ))
            } else if !want.is_empty() && !fits(stated) {
                let found: Vec<usize> = (cursor..=old.len().saturating_sub(want.len()))
                    .filter(|&at| at != stated && fits(at))
                    .map(|at| at + 1)
                    .take(5)
                    .collect();
                (!found.is_empty()).then(|| {
                    (
                        format!(
                            "has no context lines (made with `-U0`, or changing every line it shows), and its old lines are not at its stated line {} but at {}: without context nothing tells whether that is the place the patch meant",
                            hunk.old_start,
                            match found.as_slice() {
                                [one] => format!("line {one}"),
                                [init @ .., last] => format!(
                                    "lines {} and {last}",
                                    init.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
                                ),
                                [] => String::new(),
                            }
                        ),
                        vec![("found_at", found.into())],
                    )
                })
            } else {
                None
            };
            if let Some((clause, details)) = clause {
                report.mismatch = (!want.is_empty())
                    .then(|| Box::new(Mismatch::find(&old, &want, stated, cursor)));
                ok = false;
                reports.push(refused(
                    report,
                    Refusal {
                        reason: if middle {
                            "placed_by_number"
                        } else {
                            "no_context"
                        },
                        clause,
                        details,
                    },
                ));
                continue;
            }
        }
        let at = if fits(stated) {
            Some(stated)
        } else if want.is_empty() || by_line_only {
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
        // A hunk that shows context on one side of its change only was cut there by the
        // file's edge: the old lines must end where the file ends (or start where it starts),
        // as `git apply` and GNU `patch` require. Where they are elsewhere, the file has
        // changed at that edge since the patch was made, or the hunk was written without the
        // context that would place it: either way, applying it there is a guess.
        let by_stated_line = hunk.edge().is_none() && at == Some(stated);
        let at = match (hunk.edge(), at) {
            (None, at) => at,
            (Some(edge), found) => {
                let place = match edge {
                    Edge::Start => Some(0),
                    Edge::End => old.len().checked_sub(want.len()),
                };
                match place.filter(|&p| fits(p)) {
                    // Its lines at the edge and at its stated line too: lines like them were
                    // added at that edge since, or the edge is where the patch meant; which,
                    // nothing tells.
                    Some(place) if place != stated && fits(stated) => {
                        report.mismatch =
                            Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
                        ok = false;
                        reports.push(refused(
                            report,
                            Refusal {
                                reason: "ambiguous",
                                clause: format!(
                                    "is held to the {} of the file by its context, and its lines are there (line {}) and at its stated line {} too: lines like them may have been added at that {} since the patch was made, so which place the patch meant cannot be told",
                                    edge.name(),
                                    place + 1,
                                    stated + 1,
                                    edge.name(),
                                ),
                                details: vec![
                                    ("edge", edge.name().into()),
                                    ("matches_at", vec![stated + 1, place + 1].into()),
                                ],
                            },
                        ));
                        continue;
                    }
                    Some(place) => {
                        report.status = if place == stated {
                            "applies"
                        } else {
                            "applies_at_offset"
                        };
                        report.offset = place as i64 - stated as i64;
                        Some(place)
                    }
                    None if found.is_some() || report.status == "ambiguous" => {
                        report.mismatch =
                            Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
                        ok = false;
                        reports.push(refused(report, edge.refusal(found, old.len())));
                        continue;
                    }
                    None => None,
                }
            }
        };
        // Found away from its stated line while its new lines stand nearer theirs: the patch
        // was most likely applied already, to a file that has changed since (lines added
        // above the place), and the old lines found are another place's, a twin function's.
        // Before 2026-12-05 that place was changed with `ok: true`.
        if let Some(found) = at.filter(|&found| found != stated)
            && let Some(line) = hunk.result_near(&old, found.abs_diff(stated))
        {
            ok = false;
            reports.push(refused(
                report,
                Refusal {
                    reason: "already_applied",
                    clause: format!(
                        "does not apply at its stated line {}: its old lines are at line {}, and its new lines are already at line {line}, nearer where the patch puts them, as if the patch had been applied before the file changed; applied again, it would change another place where its old lines occur",
                        hunk.old_start,
                        found + 1
                    ),
                    details: vec![("new_lines_at", line.into()), ("found_at", (found + 1).into())],
                },
            ));
            continue;
        }
        let Some(at) = at else {
            if report.status == "applies" {
                report.status = "failed";
            }
            report.mismatch = Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
            ok = false;
            reports.push(report);
            continue;
        };
        // The final newline, where the lines are: a line marked `\ No newline` must be the
        // file's unterminated last line, and that line must be marked.
        let newline = want_eols
            .iter()
            .enumerate()
            .find(|(k, e)| (**e == Some("")) != old[at + k].eol.is_empty());
        if let Some((k, e)) = newline {
            let line = at + k + 1;
            let clause = if *e == Some("") {
                format!(
                    "does not apply: its old line {} is marked `\\ No newline at end of file`, but file line {line} {}",
                    k + 1,
                    if line == old.len() {
                        "ends with a newline"
                    } else {
                        "is not the file's last line"
                    }
                )
            } else {
                format!(
                    "does not apply: file line {line} is the file's last line and has no newline, but the hunk's old line {} is not marked `\\ No newline at end of file`",
                    k + 1
                )
            };
            report.mismatch = Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
            ok = false;
            reports.push(refused(
                report,
                Refusal {
                    reason: "final_newline",
                    clause,
                    details: vec![(
                        "final_newline",
                        serde_json::json!({
                            "line": line,
                            "hunk_line": k + 1,
                            "file_has_newline": !old[at + k].eol.is_empty(),
                            "hunk_has_newline": *e != Some(""),
                        }),
                    )],
                },
            ));
            continue;
        }
        // A new side whose last line is marked must end where the file ends: the marker says
        // that line is the new file's last, which a hunk followed by more of the file cannot
        // make true.
        if hunk.new_no_eol && at + want.len() != old.len() {
            let line = at + want.len();
            report.mismatch = Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
            ok = false;
            reports.push(refused(
                report,
                Refusal {
                    reason: "final_newline",
                    clause: format!(
                        "does not apply: its new side marks its last line `\\ No newline at end of file`, but the hunk ends at file line {line} and the file goes on to line {}",
                        old.len()
                    ),
                    details: vec![(
                        "final_newline",
                        serde_json::json!({
                            "line": line,
                            "hunk_line": want.len(),
                            "file_has_newline": true,
                            "hunk_has_newline": false,
                        }),
                    )],
                },
            ));
            continue;
        }
        // Line ends: ignored when matching, and added lines take the file's convention. A
        // hunk whose context and removed lines all end as the file's do is faithful to the
        // file's line ends; if its added lines then end otherwise, it asks for line ends
        // this patch will not write.
        let judged: Vec<(&str, &str)> = want_eols
            .iter()
            .enumerate()
            .filter_map(|(k, e)| e.filter(|e| !e.is_empty()).map(|e| (e, old[at + k].eol)))
            .collect();
        // A hunk of added lines alone shows none of the file's lines, but when the section's
        // added lines end differently from one another they are as their author wrote them:
        // a transport that converts line ends converts them all alike.
        let asked = hunk.added_ends().find(|e| *e != eol);
        // Nor does a section that gives no line a CR (a plain marker line) leave a CRLF
        // added line of such a hunk for the file's convention to override: its CR is its
        // author's. (A hunk that shows the file's lines is judged by them: `diff -u` writes
        // the marker line plain whatever the lines' ends, so a CRLF copy's diff has one.)
        // Before 2026-12-04 `diff -U0` adding the final newline to a last line ending in a
        // lone CR (`b\r` to `b\r\n`) wrote `b\n` with `ok: true`.
        let authors_cr = plain_marker && judged.is_empty() && asked == Some("\r\n") && !own_ends;
        let shows_ends = if judged.is_empty() {
            // A file with no line end yet gives each added line its own (`own_ends`).
            added_mix && !own_ends
        } else {
            judged.iter().all(|(p, f)| p == f)
        };
        if (shows_ends || authors_cr)
            && let Some(asked) = asked
        {
            let from = judged.first().map_or(asked, |j| j.0);
            let clause = if !shows_ends {
                format!(
                    "adds lines ending in CRLF, and its file's `\\ No newline at end of file` marker line ends without a CR, so no CR was added to the patch's lines in transport and each is its author's; added lines take the file's convention ({}), so this patch cannot be applied exactly",
                    eol_name(eol)
                )
            } else if judged.is_empty() {
                format!(
                    "adds lines ending in {}, where the section's added lines end in LF and in CRLF, which a converted patch never does, so each end is as its author wrote it; added lines take the file's convention ({}), so this patch cannot be applied exactly",
                    eol_name(asked),
                    eol_name(eol)
                )
            } else if judged.iter().all(|(p, _)| *p == from) && from != asked {
                format!(
                    "changes line ends from {} to {}; added lines take the file's convention ({}), so this patch cannot be applied exactly",
                    eol_name(from),
                    eol_name(asked),
                    eol_name(eol)
                )
            } else {
                format!(
                    "adds lines ending in {} where the file's lines it shows end as in the file; added lines take the file's convention ({}), so this patch cannot be applied exactly",
                    eol_name(asked),
                    eol_name(eol)
                )
            };
            ok = false;
            reports.push(refused(
                report,
                Refusal {
                    reason: "line_ends",
                    clause,
                    details: vec![
                        ("patch_line_end", eol_name(asked).into()),
                        ("file_line_end", eol_name(eol).into()),
                    ],
                },
            ));
            continue;
        }
        out.extend_from_slice(&old[cursor..at]);
        let mut k = at;
        for (line, own) in hunk.lines.iter().zip(&hunk.eols) {
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
                    let eol = match own {
                        Some(own @ ("\n" | "\r\n")) if own_ends => own,
                        _ => eol,
                    };
                    out.push(Line {
                        text: text.clone().into(),
                        eol,
                    });
                }
            }
        }
        previous = Some((n + 1, stated + want.len(), at));
        if by_stated_line && !want.is_empty() {
            by_number.push((n, cursor, at, want));
        }
        cursor = k;
        if cursor == old.len() {
            touched_end = true;
            new_no_eol = hunk.new_no_eol;
        }
        reports.push(report);
    }
    // A hunk at its stated line is placed by the patch's numbers, which are right only while
    // the file's lines are where the patch says. A hunk found away from its stated line shows
    // they are not: lines came or went above it, perhaps above the other hunks too, and by
    // how many there is only a guess. So a hunk that only the numbers place is refused: one
    // without old lines (`diff -U0` adding lines), and one whose lines fit at another place
    // as well (a run of blank lines, a repeated stanza). A git section's `index` line that
    // names another blob than the file's shows the same where no hunk moved: a copy of the
    // lines may stand at the stated line now (a function duplicated above the one the patch
    // was made on).
    let drift = reports
        .iter()
        .find(|r| r.offset != 0)
        .map(|moved| {
            (
                format!(
                    "hunk {} applied {} line(s) {} its stated line: the file has changed since the patch was made",
                    moved.hunk,
                    moved.offset.unsigned_abs(),
                    if moved.offset > 0 { "below" } else { "above" },
                ),
                vec![
                    ("moved_hunk", moved.hunk.into()),
                    ("offset", moved.offset.into()),
                ],
            )
        })
        .or_else(|| {
            changed_since.map(|(named, id)| {
                (
                    format!(
                        "the file is not the one the patch was made from (its `index` line names blob {named}, the file's is {id})"
                    ),
                    vec![("old_blob", named.into()), ("file_blob", id.into())],
                )
            })
        });
    if ok && let Some((shown, mut details)) = drift {
        let guess = file.hunks.iter().enumerate().find_map(|(n, h)| {
            if h.old_count == 0 && h.old_start > 0 {
                return Some((n, None));
            }
            let (_, from, at, want) = by_number.iter().find(|(i, ..)| *i == n)?;
            let (from, at) = (*from, *at);
            let fits = |p: usize| want.iter().enumerate().all(|(k, w)| old[p + k].text == *w);
            let other = (from..=old.len() - want.len()).find(|&p| p != at && fits(p))?;
            Some((n, Some((at, other, want.as_slice(), from))))
        });
        if let Some((n, places)) = guess {
            let hunk = &file.hunks[n];
            let mut report = reports[n].clone();
            let refusal = match places {
                None => Refusal {
                    reason: "placed_by_number",
                    clause: format!(
                        "has no context or removed lines, so only its stated line {} places it, and {shown}, and line {} may no longer be where the patch meant",
                        hunk.old_start, hunk.old_start,
                    ),
                    details,
                },
                Some((at, other, want, from)) => {
                    report.mismatch = Some(Box::new(Mismatch::find(&old, want, at, from)));
                    details.push(("matches_at", vec![at + 1, other + 1].into()));
                    Refusal {
                        reason: "ambiguous",
                        clause: format!(
                            "matches at its stated line {} and again at line {}, and {shown}, so its stated line no longer tells which place the patch meant",
                            at + 1,
                            other + 1,
                        ),
                        details,
                    }
                }
            };
            reports[n] = refused(report, refusal);
            ok = false;
        }
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

    /// The reason and the clause of the hunk a one-file patch is refused for, with the
    /// document left as it was.
    fn refusal(old: &str, patch: &str) -> (&'static str, String, usize) {
        let files = parse(patch).unwrap();
        let mut doc = Doc::parse_for_patch("f", old.as_bytes()).unwrap();
        let (ok, reports) = apply(&files[0], &mut doc);
        assert!(
            !ok,
            "applied: {:?}",
            String::from_utf8_lossy(&doc.to_bytes())
        );
        assert_eq!(
            doc.to_bytes(),
            old.as_bytes(),
            "a refused patch changed the document"
        );
        let bad = reports
            .iter()
            .find(|r| r.status != "applies" && r.status != "applies_at_offset")
            .expect("a refused hunk");
        assert_eq!((bad.status, bad.offset), ("failed", 0));
        let refusal = bad.refusal.as_ref().expect("a refusal");
        (refusal.reason, refusal.clause.clone(), bad.hunk)
    }

    #[test]
    fn every_name_a_diff_header_writes_reads_back_as_itself() {
        let mut names: Vec<String> = (1u32..0x20)
            .chain([0x7f])
            .chain(0x80..0xa0)
            .chain([0x2028, 0x2029, 0xa0])
            .filter_map(char::from_u32)
            .map(|c| format!("x{c}y"))
            .collect();
        names.extend(
            [
                "q\"uote",
                "back\\slash",
                "trailing ",
                " leading",
                "in side",
                "é.txt",
                "tab\t",
            ]
            .map(String::from),
        );
        for name in names {
            let written = crate::diff::header_name(&format!("a/{name}"));
            assert!(!written.contains(['\n', '\r']), "{name:?}");
            assert_eq!(
                header_path(&written),
                Ok(Some(format!("a/{name}"))),
                "{name:?}"
            );
        }
    }

    #[test]
    fn unquote_reads_every_escape_git_writes_and_refuses_the_rest() {
        assert_eq!(
            unquote(r#"\a\b\f\n\r\t\v\\\"\303\251\000"#).unwrap(),
            "\u{7}\u{8}\u{c}\n\r\t\u{b}\\\"\u{e9}\0"
        );
        for bad in [r"x\q", r"x\1", r"x\47", r"\777", r"x\", r"\351", "a\"b"] {
            assert!(unquote(bad).is_err(), "{bad}");
        }
        assert_eq!(git_name(r#""a/n\rx""#).unwrap(), "a/n\rx");
        assert_eq!(git_name("plain name").unwrap(), "plain name");
        for bad in [r#""a/x"#, r#""a/x" y"#, "\""] {
            assert!(git_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_side_dated_the_epoch_does_not_exist() {
        let sections = |patch: &str| parse(patch).unwrap()[0].action;
        let hunk = "@@ -1 +0,0 @@\n-a\n";
        for epoch in [
            "1970-01-01 00:00:00.000000000 +0000",
            "1969-12-31 19:00:00.000000000 -0500",
            "1970-01-01 01:00:00 +0100",
        ] {
            let patch = format!("--- a/x\t2026-12-03 06:00:00 +0000\n+++ b/x\t{epoch}\n{hunk}");
            assert_eq!(sections(&patch), Action::Delete, "{epoch}");
        }
        let create = "--- a/n\t1970-01-01 00:00:00 +0000\n+++ b/n\t2026-12-03 06:00:00 +0000\n@@ -0,0 +1 @@\n+n\n";
        assert_eq!(sections(create), Action::Create);
        // A real file dated the epoch (SOURCE_DATE_EPOCH=0) has lines on that side: it exists.
        let dated = "--- a/x\t1970-01-01 00:00:00 +0000\n+++ b/x\t1970-01-01 00:00:00 +0000\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(sections(dated), Action::Modify);
        // A second past the epoch, or a date that is no date, is a file that exists.
        for date in [
            "1970-01-01 00:00:01 +0000",
            "1970-01-01 00:00:00.5 +0000",
            "yesterday",
        ] {
            let patch = format!("--- a/x\n+++ b/x\t{date}\n@@ -1 +1 @@\n-a\n+b\n");
            assert_eq!(sections(&patch), Action::Modify, "{date}");
        }
    }

    #[test]
    fn git_prefixes_are_read_as_git_writes_them_and_headers_must_agree() {
        let paths = |patch: &str| {
            let f = &parse(patch).unwrap()[0];
            (f.old_path.clone(), f.new_path.clone())
        };
        let both = |p: &str| (Some(p.to_owned()), Some(p.to_owned()));
        let hunk = "@@ -1 +1 @@\n-a\n+b\n";
        // diff.mnemonicPrefix: index and work tree, commit and work tree.
        let p = format!("diff --git i/x w/x\nindex 1..2 100644\n--- i/x\n+++ w/x\n{hunk}");
        assert_eq!(paths(&p), both("x"));
        let p = format!("diff --git c/d/x w/d/x\n--- c/d/x\n+++ w/d/x\n{hunk}");
        assert_eq!(paths(&p), both("d/x"));
        // --no-prefix: the names as they are, a directory called a included.
        let p = format!("diff --git a/x a/x\n--- a/x\n+++ a/x\n{hunk}");
        assert_eq!(paths(&p), both("a/x"));
        // A --no-prefix rename between directories that look like prefixes.
        let p = "diff --git i/x w/x\nsimilarity index 100%\nrename from i/x\nrename to w/x\n";
        assert_eq!(paths(p), (Some("i/x".into()), Some("w/x".into())));
        // A rename whose diff --git line splits evenly inside a name: the rename lines name it.
        let p = "diff --git a/xx b/abc def/ghijkl\nsimilarity index 100%\nrename from xx\nrename to abc def/ghijkl\n";
        assert_eq!(paths(p), (Some("xx".into()), Some("abc def/ghijkl".into())));
        // git diff --no-index (and git diff HEAD:x z): two names, no rename lines.
        let p =
            format!("diff --git a/x.orig b/x\nindex 1..2 100644\n--- a/x.orig\n+++ b/x\n{hunk}");
        assert_eq!(paths(&p), (Some("x.orig".into()), Some("x".into())));
        // Headers that name different files are refused, whichever they are, and so are
        // prefixes git does not write (--src-prefix): which file is meant would be a guess.
        let refused = |patch: &str| parse(patch).unwrap_err().details["reason"].clone();
        for patch in [
            format!("diff --git a/a b/a\n--- a/c\n+++ b/c\n{hunk}"),
            format!("diff --git a/x b/x\n--- a/x\n+++ b/y\n{hunk}"),
            format!("diff --git foo/x bar/x\n--- foo/x\n+++ bar/x\n{hunk}"),
            format!("diff --git a/a b/b\nrename from a\nrename to b\n--- a/x\n+++ b/b\n{hunk}"),
            "diff --git a/b b/b\nnew file mode 100644\n--- /dev/null\n+++ b/c\n@@ -0,0 +1 @@\n+c\n"
                .into(),
        ] {
            assert_eq!(refused(&patch), "inconsistent_names", "{patch}");
        }
        for p in [
            "diff --git a/x b/z\nrename from x\n",
            "diff --git a/x b/z\nrename to z\n",
        ] {
            assert_eq!(parse(p).unwrap_err().details["reason"], "bad_header", "{p}");
        }
    }

    #[test]
    fn a_new_file_whose_added_lines_mix_line_ends_gets_each_line_as_the_patch_writes_it() {
        // git diff of a new CRLF file whose last line ends in LF: the bytes git apply writes.
        let create = "--- /dev/null\n+++ b/f\n@@ -0,0 +1,3 @@\n+x\r\n+y\r\n+z\n";
        assert_eq!(patch_one("", create).unwrap(), "x\r\ny\r\nz\n");
        // Agreeing line ends are the new file's convention, as before.
        let crlf = "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\r\n+y\r\n";
        assert_eq!(patch_one("", crlf).unwrap(), "x\r\ny\r\n");
        // A file with line ends of its own gives them to added lines, so one that asks for
        // others is refused, as before.
        let modify = "--- a/f\n+++ b/f\n@@ -1 +1,3 @@\n a\n+x\r\n+y\n";
        assert!(
            patch_one("a\n", modify)
                .unwrap_err()
                .message
                .contains("line_ends")
        );
    }

    #[test]
    fn an_empty_line_marked_without_newline_is_refused() {
        let patch = "--- f\n+++ f\n@@ -1 +1 @@\n-a\n+\n\\ No newline at end of file\n";
        let err = parse(patch).unwrap_err();
        assert_eq!(err.details["reason"], "empty_unterminated_line");
        // A marked line with text is the file's unterminated last line, as ever.
        let patch = "--- f\n+++ f\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n";
        assert!(parse(patch).is_ok());
    }

    #[test]
    fn a_context_diff_section_is_refused_not_skipped_as_commentary() {
        let context = "*** a/x\n--- b/x\n***************\n*** 1 ****\n! a\n--- 1 ----\n! b\n";
        let unified = "--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n";
        let err = parse(&format!("{context}{unified}")).unwrap_err();
        assert_eq!(err.details["reason"], "context_diff");
        assert_eq!(err.details["line"], 3);
        // A line of stars in a commit message is no context diff.
        let mail = format!("Subject: [PATCH] s\n\nNotes:\n***************\nfoo\n---\n{unified}");
        assert_eq!(parse(&mail).unwrap()[0].path(), "y");
    }

    #[test]
    fn a_name_before_a_tab_keeps_its_trailing_spaces() {
        let path = |patch: &str| parse(patch).unwrap()[0].path().to_owned();
        // git ends a name that holds a space with a tab: `x ` is not `x`.
        let git = "diff --git a/x  b/x \nindex 1..2 100644\n--- a/x \t\n+++ b/x \t\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(path(git), "x ");
        // GNU diff's timestamp follows a tab; without one, trailing blanks are the line's.
        let gnu =
            "--- f g \t2026-12-03 06:00:00\n+++ f g \t2026-12-03 06:01:00\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(path(gnu), "f g ");
        assert_eq!(path("--- f  \n+++ f  \r\n@@ -1 +1 @@\n-a\n+b\n"), "f");
    }

    #[test]
    fn misordered_hunks_are_refused_instead_of_applied_where_their_lines_occur_again() {
        // The second hunk states line 1, before the first hunk's lines 6-8; its lines occur
        // once more after them, at line 10, where it was once applied.
        let old = "p\nq\nr\n1\n2\ns\nt\nu\n3\np\nq\nr\n";
        let patch =
            "--- f\n+++ f\n@@ -6,3 +6,3 @@\n s\n-t\n+T\n u\n@@ -1,3 +1,3 @@\n p\n-q\n+Q\n r\n";
        let (reason, clause, hunk) = refusal(old, patch);
        assert_eq!((reason, hunk), ("misordered", 2));
        assert!(clause.contains("hunk 1"), "{clause}");
        // Overlapping stated ranges are out of order too.
        let patch =
            "--- f\n+++ f\n@@ -1,3 +1,3 @@\n p\n-q\n+Q\n r\n@@ -3,2 +3,2 @@\n r\n-1\n+one\n";
        assert_eq!(refusal(old, patch).0, "misordered");
        // In order, both apply.
        let patch =
            "--- f\n+++ f\n@@ -1,3 +1,3 @@\n p\n-q\n+Q\n r\n@@ -6,3 +6,3 @@\n s\n-t\n+T\n u\n";
        assert_eq!(
            patch_one(old, patch).unwrap(),
            "p\nQ\nr\n1\n2\ns\nT\nu\n3\np\nq\nr\n"
        );
    }

    #[test]
    fn a_hunk_whose_lines_are_at_its_stated_line_before_the_previous_hunk_is_not_moved_after_it() {
        // Hunk 1 applies at offset 9; hunk 2's lines are at its own line 4, which is before
        // that, and once more at line 14, after it: never applied there.
        let old = "a\nb\nc\nk\nl\nm\nn\no\np\nx\ny\nz\nq\nk\nl\nr\n";
        let patch = "--- f\n+++ f\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n@@ -4,2 +4,2 @@\n-k\n+K\n l\n";
        let (reason, clause, hunk) = refusal(old, patch);
        assert_eq!((reason, hunk), ("misordered", 2));
        assert!(clause.contains("at line 10"), "{clause}");
    }

    #[test]
    fn hunks_in_order_that_all_moved_still_apply_at_their_offsets() {
        let old = "new1\nnew2\nnew3\na\nb\nc\nd\ne\nf\ng\nh\ni\n";
        let patch =
            "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -7,3 +7,3 @@\n g\n-h\n+H\n i\n";
        assert_eq!(
            patch_one(old, patch).unwrap(),
            "new1\nnew2\nnew3\na\nB\nc\nd\ne\nf\ng\nH\ni\n"
        );
    }

    #[test]
    fn a_patch_that_shows_the_files_line_ends_and_changes_them_is_refused() {
        // dos2unix as a faithful diff: the removed lines end in CRLF as the file's do.
        let (reason, clause, _) = refusal(
            "a\r\nb\r\n",
            "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\r\n-b\r\n+a\n+b\n",
        );
        assert_eq!(reason, "line_ends");
        assert!(clause.contains("from CRLF to LF"), "{clause}");
        // unix2dos.
        let (reason, clause, _) = refusal(
            "a\nb\n",
            "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\n-b\n+a\r\n+b\r\n",
        );
        assert_eq!(reason, "line_ends");
        assert!(clause.contains("from LF to CRLF"), "{clause}");
        // One changed line whose new text ends otherwise than the context shows.
        let (reason, _, _) = refusal(
            "a\r\nb\r\nc\r\n",
            "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\n c\r\n",
        );
        assert_eq!(reason, "line_ends");
        // Added lines alone (diff -U0) that end in LF and in CRLF: as written, not converted.
        let (reason, clause, _) =
            refusal("a\r\nb\r\nc\n", "--- f\n+++ f\n@@ -3,0 +4,2 @@\n+d\n+e\r\n");
        assert_eq!(reason, "line_ends");
        assert!(clause.contains("in LF and in CRLF"), "{clause}");
        // The same two lines in two hunks of one section.
        let (reason, _, _) = refusal(
            "a\nb\nc\n",
            "--- f\n+++ f\n@@ -0,0 +1 @@\n+x\r\n@@ -3,0 +5 @@\n+y\n",
        );
        assert_eq!(reason, "line_ends");
        // Added lines alone that agree take the file's convention, as a converted patch's do.
        assert_eq!(
            patch_one("a\nb\n", "--- f\n+++ f\n@@ -0,0 +1,2 @@\n+x\r\n+y\r\n").unwrap(),
            "x\ny\na\nb\n"
        );
    }

    #[test]
    fn a_patch_whose_line_ends_were_mangled_in_transport_keeps_the_files_convention() {
        // All LF against a CRLF file, all CRLF against an LF file: the file's convention wins.
        let patch = "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
        assert_eq!(
            patch_one("a\r\nb\r\nc\r\n", patch).unwrap(),
            "a\r\nB\r\nc\r\n"
        );
        let patch = "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n";
        assert_eq!(patch_one("a\nb\nc\n", patch).unwrap(), "a\nB\nc\n");
        // A faithful CRLF patch against a CRLF file is exact.
        let patch = "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n";
        assert_eq!(
            patch_one("a\r\nb\r\nc\r\n", patch).unwrap(),
            "a\r\nB\r\nc\r\n"
        );
        // Line ends only, mangled: nothing to change, and nothing refused.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\n-b\n+a\n+b\n";
        assert_eq!(patch_one("a\r\nb\r\n", patch).unwrap(), "a\r\nb\r\n");
    }

    #[test]
    fn line_ends_are_judged_by_terminated_lines_only_and_lone_crs_are_text() {
        // The unterminated last line says nothing about line ends: a hunk with only it is
        // not judged, and the added line takes the file's CRLF.
        let patch = "--- f\n+++ f\n@@ -1 +1,2 @@\n+A\n b\n\\ No newline at end of file\n";
        assert_eq!(patch_one("b", patch).unwrap(), "A\nb");
        let patch = "--- f\n+++ f\n@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n";
        assert_eq!(patch_one("a\r\nb", patch).unwrap(), "a\r\nB");
        // Beside it, a CRLF context line judges the hunk faithful: an LF added line is
        // refused, a CRLF one applies.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\r\n+A\n b\n\\ No newline at end of file\n";
        assert_eq!(refusal("a\r\nb", patch).0, "line_ends");
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\r\n+A\r\n b\n\\ No newline at end of file\n";
        assert_eq!(patch_one("a\r\nb", patch).unwrap(), "A\r\nb");
        // A lone CR inside a line, or before a CRLF, is text: only the CR right before the
        // `\n` is the terminator.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-x\ry\n+X\ry\n z\n";
        assert_eq!(patch_one("x\ry\nz\n", patch).unwrap(), "X\ry\nz\n");
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\r\r\n+b\r\r\n c\r\n";
        assert_eq!(patch_one("a\r\r\nc\r\n", patch).unwrap(), "b\r\r\nc\r\n");
        // A patch text that ends without a newline says nothing about its last line's end.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B";
        assert_eq!(patch_one("a\r\nb\r\n", patch).unwrap(), "a\r\nB\r\n");
        // `diff -U0` adding the final newline to a last line that ends in a lone CR: the
        // marker line has no CR, so the added line's CR is its author's, and an LF file
        // cannot be given it (it was written `b\n`).
        let patch = "--- f\n+++ f\n@@ -2 +2 @@\n-b\r\n\\ No newline at end of file\n+b\r\n";
        assert_eq!(refusal("a\nb\r", patch).0, "line_ends");
        let patch = "--- f\n+++ f\n@@ -2 +2,2 @@\n-b\r\n\\ No newline at end of file\n+b\r\n+c\n\\ No newline at end of file\n";
        assert_eq!(refusal("a\nb\r", patch).0, "line_ends");
        // A hunk with context is judged by it: `diff -u` of a CRLF copy of an LF file whose
        // last line has no newline (the marker line is plain) keeps the file's LF.
        let patch =
            "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\n\\ No newline at end of file\n";
        assert_eq!(patch_one("a\nb\nc", patch).unwrap(), "a\nB\nc");
        // The same adding an LF line applies.
        let patch = "--- f\n+++ f\n@@ -2 +2 @@\n-b\r\n\\ No newline at end of file\n+b\n";
        assert_eq!(patch_one("a\nb\r", patch).unwrap(), "a\nb\n");
    }

    #[test]
    fn the_old_sides_no_newline_marker_must_match_the_file() {
        // The marker says the file's last line has no newline; this one has.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n";
        let (reason, clause, hunk) = refusal("a\nb\n", patch);
        assert_eq!((reason, hunk), ("final_newline", 1));
        assert!(clause.contains("ends with a newline"), "{clause}");
        // On a context line.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n";
        assert_eq!(refusal("a\nb\n", patch).0, "final_newline");
        // A marked line that is not the file's last.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n";
        let (reason, clause, _) = refusal("a\nb\nc\n", patch);
        assert_eq!(reason, "final_newline");
        assert!(clause.contains("not the file's last line"), "{clause}");
        // Found at an offset, and refused there: no offset is reported (the `patch` fuzz
        // target's finding).
        let moved = "--- f\n+++ f\n@@ -5,3 +5,3 @@\n a\n-b\n+B\n c\n\\ No newline at end of file\n";
        assert_eq!(refusal("a\nb\nc\n", moved).0, "final_newline");
        // Where the marker agrees with the file, the hunk applies.
        assert_eq!(patch_one("a\nb", patch).unwrap(), "A\nb");
    }

    #[test]
    fn a_last_line_without_newline_must_be_marked_in_the_old_side() {
        // The file ends without a newline; the hunk's old side says its last line has one.
        // Applying it would add a newline the patch never asked to add.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n";
        let (reason, clause, _) = refusal("a\nb", patch);
        assert_eq!(reason, "final_newline");
        assert!(clause.contains("has no newline"), "{clause}");
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n";
        assert_eq!(refusal("a\nb", patch).0, "final_newline");
        // The newline is checked where the lines are: it never picks another place. The
        // hunk's lines are at its line 3, without the newline, and at line 1, with it.
        let patch = "--- f\n+++ f\n@@ -3,2 +3,2 @@\n x\n-y\n+Y\n";
        assert_eq!(refusal("x\ny\nx\ny", patch).0, "final_newline");
        // Lines added after the last line, with no old lines, still end it (GNU patch does).
        assert_eq!(
            patch_one("x", "--- f\n+++ f\n@@ -1,0 +2 @@\n+y\n").unwrap(),
            "x\ny\n"
        );
    }

    #[test]
    fn a_cr_before_the_newline_of_a_marked_line_is_the_lines_last_character() {
        // `diff -u` of new content "a\nx\r": the CR is x's, not a line end.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n+x\r\n\\ No newline at end of file\n";
        assert_eq!(patch_one("a\nb\n", patch).unwrap(), "a\nx\r");
        // And a file ending in a lone CR is patched by its own diff.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\r\n\\ No newline at end of file\n+c\r\n\\ No newline at end of file\n";
        assert_eq!(patch_one("a\nb\r", patch).unwrap(), "a\nc\r");
        // A patch whose every line was given a CR in transport, the marker's too: line ends.
        let patch = "--- f\r\n+++ f\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+B\r\n\\ No newline at end of file\r\n";
        assert_eq!(patch_one("a\nb\n", patch).unwrap(), "a\nB");
    }

    #[test]
    fn a_no_newline_marker_before_more_lines_of_its_side_is_malformed() {
        for patch in [
            // On an added line that a context line follows.
            "--- f\n+++ f\n@@ -2,2 +2,2 @@\n-b\n+B\n\\ No newline at end of file\n c\n",
            // On a context line that an added line follows.
            "--- f\n+++ f\n@@ -1,2 +1,3 @@\n a\n b\n\\ No newline at end of file\n+c\n",
            // On a removed line that another removed line follows.
            "--- f\n+++ f\n@@ -1,2 +1,0 @@\n-a\n\\ No newline at end of file\n-b\n",
        ] {
            let err = parse(patch).err().unwrap();
            assert_eq!(err.code, Code::PatchFailed, "{patch:?}");
            assert_eq!(
                err.details["reason"], "misplaced_no_newline_marker",
                "{patch:?}"
            );
        }
        // diff -u's own order, a removed last line then an added one, each marked, is fine.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n";
        assert_eq!(patch_one("a\nb", patch).unwrap(), "a\nc");
    }

    #[test]
    fn a_new_side_marker_needs_the_hunk_to_end_where_the_file_ends() {
        // Without context (`diff -U0`) the hunk could be anywhere, so the marker decides.
        let bare = "--- f\n+++ f\n@@ -2 +2 @@\n-b\n+B\n\\ No newline at end of file\n";
        let (reason, clause, hunk) = refusal("a\nb\nc\n", bare);
        assert_eq!((reason, hunk), ("final_newline", 1));
        assert!(clause.contains("new side marks its last line"), "{clause}");
        assert_eq!(patch_one("a\nb\n", bare).unwrap(), "a\nB");
        // With context before the change and none after, the context says it first.
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\\ No newline at end of file\n";
        assert_eq!(refusal("a\nb\nc\n", patch).0, "end_of_file");
        // At the end of the file it takes the newline away, as asked.
        assert_eq!(patch_one("a\nb\n", patch).unwrap(), "a\nB");
    }

    #[test]
    fn lines_added_after_an_unterminated_last_line_do_not_join_it() {
        let out = patch_one("x", "--- f\n+++ f\n@@ -1,0 +2 @@\n+y\n").unwrap();
        assert_eq!(out, "x\ny\n");
    }

    fn patch_one(old: &str, patch: &str) -> Result<String> {
        let files = parse(patch)?;
        // As `apply_patch` reads a file: lines end at `\n` only.
        let mut doc = Doc::parse_for_patch("f", old.as_bytes())?;
        let (ok, reports) = apply(&files[0], &mut doc);
        if !ok {
            return Err(Error::new(Code::PatchFailed, format!("{reports:?}")));
        }
        Ok(String::from_utf8(doc.to_bytes()).unwrap())
    }

    /// The mismatch of the first hunk of a one-file patch that does not apply to `old`.
    fn mismatch(old: &str, patch: &str) -> serde_json::Value {
        let files = parse(patch).unwrap();
        let mut doc = Doc::parse_for_patch("f", old.as_bytes()).unwrap();
        let (ok, reports) = apply(&files[0], &mut doc);
        assert!(!ok, "applied");
        let bad = reports
            .iter()
            .find(|r| r.mismatch.is_some())
            .expect("a mismatch");
        bad.mismatch.as_ref().unwrap().to_json(bad.hunk)
    }

    #[test]
    fn a_failed_hunk_names_its_first_differing_line_and_where_it_fits_best() {
        // The hunk says line 2, but two lines were inserted above and one of its context
        // lines changed since.
        let old = "new1\nnew2\na\nb\nc CHANGED\nd\n";
        let patch = "--- f\n+++ f\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n";
        let m = mismatch(old, patch);
        assert_eq!(m["hunk"], 1);
        assert_eq!(
            m["stated"],
            serde_json::json!({"line": 1, "differing_lines": 4, "first_difference":
                {"line": 1, "hunk_line": 1, "expected": "a", "actual": "new1"}})
        );
        assert_eq!(
            m["best"],
            serde_json::json!({"line": 3, "differing_lines": 1, "first_difference":
                {"line": 5, "hunk_line": 3, "expected": "c", "actual": "c CHANGED"}})
        );
        assert_eq!(m["matches_at"], serde_json::json!([]));
        let files = parse(patch).unwrap();
        let mut doc = Doc::parse_for_patch("f", old.as_bytes()).unwrap();
        let (_, reports) = apply(&files[0], &mut doc);
        assert_eq!(
            reports[0].mismatch.as_ref().unwrap().describe(4),
            "at its stated line 1, file line 1 differs from the hunk; it fits best at line 3, where 1 of its 4 old lines differ"
        );
        // The report's JSON is unchanged by the mismatch.
        let json = serde_json::to_value(&reports[0]).unwrap();
        assert!(json.get("mismatch").is_none(), "{json}");
    }

    #[test]
    fn a_hunk_whose_line_1_lacks_the_files_byte_order_mark_says_so() {
        let patch = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n";
        let files = parse(patch).unwrap();
        let describe = |old: &str| {
            let mut doc = Doc::parse_for_patch("f", old.as_bytes()).unwrap();
            let (ok, reports) = apply(&files[0], &mut doc);
            assert!(!ok);
            reports[0].mismatch.as_ref().unwrap().describe(2)
        };
        let with_bom = describe("\u{feff}a\nb\n");
        assert!(
            with_bom.contains("starts with a byte-order mark"),
            "{with_bom}"
        );
        assert!(
            with_bom.contains("start the hunk's line 1 with U+FEFF"),
            "{with_bom}"
        );
        // Another difference on line 1 is not put down to the mark.
        let other = describe("\u{feff}x\nb\n");
        assert!(!other.contains("byte-order mark"), "{other}");
    }

    #[test]
    fn a_hunk_past_the_end_and_an_ambiguous_hunk_say_so() {
        let m = mismatch("a\nb\n", "--- f\n+++ f\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n");
        assert_eq!(m["stated"]["first_difference"]["line"], 3);
        assert_eq!(
            m["stated"]["first_difference"]["actual"],
            serde_json::Value::Null
        );
        assert_eq!(m["best"]["line"], 2);
        assert_eq!(m["best"]["differing_lines"], 1);
        let m = mismatch(
            "x\ny\nr\nq\nx\ny\nr\n",
            "--- f\n+++ f\n@@ -9,3 +9,3 @@\n x\n-y\n+Y\n r\n",
        );
        assert_eq!(m["matches_at"], serde_json::json!([1, 5]));
        assert_eq!(m["best"]["differing_lines"], 0);
        // Of two places equally good, the one nearer the stated line.
        let m = mismatch(
            "p\nq1\nz\np\nq2\nz\n",
            "--- f\n+++ f\n@@ -4,3 +4,3 @@\n p\n-q\n+Q\n z\n",
        );
        assert_eq!(m["best"]["line"], 4);
    }

    #[test]
    fn a_hunk_with_context_on_one_side_only_must_meet_that_edge_of_the_file() {
        // `diff -u` of "a b" to "a B" cuts the context after b because the file ends there.
        let end = "--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n";
        assert_eq!(patch_one("a\nb\n", end).unwrap(), "a\nB\n");
        // A line appended since: the change and that line both touch the end, and which
        // comes first is a guess.
        let (reason, clause, hunk) = refusal("a\nb\nc\n", end);
        assert_eq!((reason, hunk), ("end_of_file", 1));
        assert!(
            clause.contains("they are at file line 1, and the file goes on to line 3"),
            "{clause}"
        );
        // Where the lines are both at the stated line and at the end, the end may be a copy
        // appended since, or the lines at the stated line one put above: a guess either way.
        let (reason, clause, _) = refusal("a\nb\na\nb\n", end);
        assert_eq!(reason, "ambiguous");
        assert!(
            clause.contains("there (line 3) and at its stated line 1"),
            "{clause}"
        );
        // `diff -u` of "a b c" to "new a b c": nothing before line 1.
        let start = "--- f\n+++ f\n@@ -1,3 +1,4 @@\n+new\n a\n b\n c\n";
        assert_eq!(
            patch_one("a\nb\nc\nd\n", start).unwrap(),
            "new\na\nb\nc\nd\n"
        );
        let (reason, clause, _) = refusal("x\na\nb\nc\n", start);
        assert_eq!(reason, "start_of_file");
        assert!(clause.contains("they are at file line 2"), "{clause}");
        let (reason, clause, _) = refusal("x\na\nb\nc\nx\na\nb\nc\n", start);
        assert_eq!(reason, "start_of_file");
        assert!(clause.contains("several places"), "{clause}");
        // Lines of the old side nowhere in the file: the usual mismatch.
        assert_eq!(mismatch("a\nz\nc\n", end)["stated"]["differing_lines"], 1);
    }

    #[test]
    fn a_hunk_placed_by_its_number_alone_is_refused_once_another_hunk_moved() {
        // Made against a..e: b changed, a line added after e, the end. Since then a line was
        // added at the top and e deleted, so hunk 1 applies a line down and line 5 is the end
        // again, but of other lines.
        let patch = "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -5,0 +6 @@\n+END\n";
        let (reason, clause, hunk) = refusal("new\na\nb\nc\nd\n", patch);
        assert_eq!((reason, hunk), ("placed_by_number", 2));
        assert!(
            clause.contains("hunk 1 applied 1 line(s) below"),
            "{clause}"
        );
        // Where every hunk is at its stated line, the numbers hold.
        assert_eq!(
            patch_one("a\nb\nc\nd\ne\n", patch).unwrap(),
            "a\nB\nc\nd\ne\nEND\n"
        );
        // Before line 1 is the start of the file whatever moved.
        let patch = "--- f\n+++ f\n@@ -0,0 +1 @@\n+top\n@@ -1,2 +2,2 @@\n a\n-b\n+B\n";
        assert_eq!(patch_one("x\na\nb\n", patch).unwrap(), "top\nx\na\nB\n");
    }

    #[test]
    fn a_patch_applied_already_is_refused_instead_of_changing_a_twin() {
        // Two like functions; the patch changed f's. Applied again, its old lines are at g.
        let old = "f() {\n    n++;\n    return n;\n}\ng() {\n    n++;\n    return n;\n}\n";
        let patch =
            "--- x\n+++ x\n@@ -1,3 +1,3 @@\n f() {\n-    n++;\n+    n += 2;\n     return n;\n";
        let once = patch_one(old, patch).unwrap();
        assert!(once.starts_with("f() {\n    n += 2;\n"), "{once}");
        let (reason, clause, hunk) = refusal(&once, patch);
        assert_eq!((reason, hunk), ("already_applied", 1));
        assert!(clause.contains("already at line 1"), "{clause}");
        // A hunk that only adds lines, with context, the same.
        let patch = "--- x\n+++ x\n@@ -1,2 +1,3 @@\n a\n+b\n c\n";
        let once = patch_one("a\nc\nd\n", patch).unwrap();
        assert_eq!(refusal(&once, patch).0, "already_applied");
        // Lines added before line 1 that already start the file.
        let patch = "--- x\n+++ x\n@@ -0,0 +1 @@\n+#!/bin/sh\n";
        let once = patch_one("echo hi\n", patch).unwrap();
        let (reason, clause, _) = refusal(&once, patch);
        assert_eq!(reason, "already_applied");
        assert!(clause.contains("there twice"), "{clause}");
    }

    #[test]
    fn a_patch_applied_already_to_a_file_changed_since_is_refused_too() {
        // f and g alike; the patch changed f, then lines were added above it. Applied
        // again, its old lines are found once, at g, 7 lines off, while its new lines stand
        // 2 lines off theirs: before 2026-12-05 g was changed with ok.
        let twins =
            "f() {\n    a();\n    n++;\n    b();\n}\ng() {\n    a();\n    n++;\n    b();\n}\n";
        let patch =
            "--- x\n+++ x\n@@ -2,3 +2,3 @@\n     a();\n-    n++;\n+    n += 2;\n     b();\n";
        let drifted = format!("// a\n// b\n{}", patch_one(twins, patch).unwrap());
        let (reason, clause, hunk) = refusal(&drifted, patch);
        assert_eq!((reason, hunk), ("already_applied", 1));
        assert!(
            clause.contains("old lines are at line 9, and its new lines are already at line 4"),
            "{clause}"
        );
        // Not applied yet, with g already like the new f just above it: f's old lines are
        // nearer their stated line than g's copy of the new ones, and the patch applies at f.
        let patch =
            "--- x\n+++ x\n@@ -7,3 +7,3 @@\n     a();\n-    n++;\n+    n += 2;\n     b();\n";
        let g_then_f =
            "g() {\n    a();\n    n += 2;\n    b();\n}\nf() {\n    a();\n    n++;\n    b();\n}\n";
        let drifted = format!("// a\n// b\n{g_then_f}");
        assert_eq!(
            patch_one(&drifted, patch).unwrap(),
            format!("// a\n// b\n{}", g_then_f.replace("n++", "n += 2"))
        );
        // Drifted as far from f's stated line as g's copy stands, which of the two the
        // patch meant cannot be told: refused.
        let far = format!("{}{g_then_f}", "//\n".repeat(3));
        assert_eq!(refusal(&far, patch).0, "already_applied");
    }

    #[test]
    fn a_git_index_line_tells_whether_the_file_is_the_one_the_patch_was_made_from() {
        // git's blob id of "hello\n", as `git hash-object` gives it.
        assert_eq!(
            git_blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        let section = |old: &str, hunks: &str| {
            format!(
                "diff --git a/x b/x\nindex {}..1234567 100644\n--- a/x\n+++ b/x\n{hunks}",
                &git_blob_id(old.as_bytes())[..7]
            )
        };
        // Made on f alone; since then a copy g was put above it, at the hunk's stated line.
        let made_on = "f() {\n    b();\n}\n";
        let hunk = "@@ -1,3 +1,3 @@\n f() {\n-    b();\n+    B();\n }\n";
        let with_copy = "f() {\n    b();\n}\nf() {\n    b();\n}\n";
        let (reason, clause, _) = refusal(with_copy, &section(made_on, hunk));
        assert_eq!(reason, "ambiguous");
        assert!(
            clause.contains("not the one the patch was made from"),
            "{clause}"
        );
        // Without the index line nothing tells, and the stated line holds.
        let plain = format!("--- x\n+++ x\n{hunk}");
        assert!(
            patch_one(with_copy, &plain)
                .unwrap()
                .starts_with("f() {\n    B();")
        );
        // A diff -U0 insertion between two lines of the very file it was made from applies.
        let file = "a\nb\nc\n";
        let insert = "@@ -1,0 +2 @@\n+NEW\n";
        assert_eq!(
            patch_one(file, &section(file, insert)).unwrap(),
            "a\nNEW\nb\nc\n"
        );
        // Of another file, it is refused as without the line.
        assert_eq!(
            refusal("x\na\nb\nc\n", &section(file, insert)).0,
            "placed_by_number"
        );
    }

    #[test]
    fn a_hunk_without_context_is_placed_by_its_stated_line_only() {
        // Lines it only adds, between two lines of the file: nothing but the number.
        let insert = "--- f\n+++ f\n@@ -2,0 +3 @@\n+NEW\n";
        let (reason, clause, hunk) = refusal("X\na\nb\nc\nd\n", insert);
        assert_eq!((reason, hunk), ("placed_by_number", 1));
        assert!(clause.contains("only its stated line 2"), "{clause}");
        // At an edge of the file it is placed by the edge.
        assert_eq!(
            patch_one("a\nb\n", "--- f\n+++ f\n@@ -2,0 +3 @@\n+END\n").unwrap(),
            "a\nb\nEND\n"
        );
        // Old lines not at the stated line but elsewhere: may be another place's.
        let change = "--- f\n+++ f\n@@ -2 +2 @@\n-b\n+B\n";
        assert_eq!(patch_one("a\nb\nc\n", change).unwrap(), "a\nB\nc\n");
        let (reason, clause, _) = refusal("a\nx\nc\nb\n", change);
        assert_eq!(reason, "no_context");
        assert!(clause.contains("but at line 4:"), "{clause}");
        let (_, clause, _) = refusal("a\nx\nb\nc\nb\nb\n", change);
        assert!(clause.contains("but at lines 3, 5 and 6:"), "{clause}");
        // Applied already: its new lines are where it puts them.
        assert_eq!(refusal("a\nB\nc\nb\n", change).0, "already_applied");
        // Nowhere at all: the usual failure.
        assert_eq!(
            mismatch("a\nz\nc\n", change)["stated"]["differing_lines"],
            1
        );
    }

    #[test]
    fn a_hunk_at_its_stated_line_that_fits_elsewhere_too_is_refused_once_another_hunk_moved() {
        // Made against the file without N: hunk 2 changed the second of six blank lines.
        let patch = "--- f\n+++ f\n@@ -1,3 +1,3 @@\n h\n-T\n+t\n q\n@@ -6,3 +6,3 @@\n \n-\n+M\n \n";
        let moved = "N\nh\nT\nq\n\n\n\n\n\n\nE\n";
        let (reason, clause, hunk) = refusal(moved, patch);
        assert_eq!((reason, hunk), ("ambiguous", 2));
        assert!(
            clause.contains("matches at its stated line 6 and again at line 5"),
            "{clause}"
        );
        // Against the file it was made on, the numbers hold.
        assert_eq!(
            patch_one(&moved[2..], patch).unwrap(),
            "h\nt\nq\n\n\n\nM\n\n\nE\n"
        );
        // The hunk placed by its numbers may come before the one that moved.
        let patch = "--- f\n+++ f\n@@ -2 +2 @@\n-w\n+X\n@@ -3,2 +3,2 @@\n N\n-A\n+a\n";
        assert_eq!(refusal("w\nw\nB\nN\nA\n", patch).0, "ambiguous");
        // Lines that occur once are found by their text wherever the others moved.
        let patch =
            "--- f\n+++ f\n@@ -1,3 +1,3 @@\n M\n-A\n+a\n B\n@@ -4,3 +4,3 @@\n c\n-w\n+X\n Z\n";
        assert_eq!(
            patch_one("N\nM\nA\nB\nc\nw\nZ\n", patch).unwrap(),
            "N\nM\na\nB\nc\nX\nZ\n"
        );
    }

    #[test]
    fn hunks_without_context_or_with_context_on_both_sides_are_tied_to_no_edge() {
        // `diff -U0`: no context anywhere says nothing about the file's ends.
        let bare = "--- f\n+++ f\n@@ -2 +2 @@\n-b\n+B\n";
        assert_eq!(patch_one("a\nb\nc\n", bare).unwrap(), "a\nB\nc\n");
        let both = "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
        assert_eq!(
            patch_one("x\na\nb\nc\ny\n", both).unwrap(),
            "x\na\nB\nc\ny\n"
        );
        // No context before, stated past line 1: not a diff of the file's start, so not tied.
        let later = "--- f\n+++ f\n@@ -2,2 +2,2 @@\n-b\n+B\n c\n";
        assert_eq!(patch_one("a\nb\nc\nd\n", later).unwrap(), "a\nB\nc\nd\n");
    }

    #[test]
    fn a_git_diff_applies() {
        let patch = "diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
        assert_eq!(patch_one("a\nb\nc\n", patch).unwrap(), "a\nB\nc\n");
    }

    #[test]
    fn offsets_are_found_when_unique_and_refused_when_ambiguous() {
        let patch = "--- f\n+++ f\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n";
        assert_eq!(
            patch_one("pre\nx\ny\nz\n", patch).unwrap(),
            "pre\nx\nY\nz\n"
        );
        assert!(
            patch_one(
                "x\ny\nz\nx\ny\nz\n",
                "--- f\n+++ f\n@@ -7,3 +7,3 @@\n x\n-y\n+Y\n z\n"
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
    fn bare_hunk_headers_are_refused_with_a_message_about_ranges() {
        for (patch, line) in [
            ("--- a/f\n+++ b/f\n@@\n-a\n+b\n", 3),
            ("--- a/f\n+++ b/f\n@@ fn main() {\n-a\n+b\n", 3),
            ("diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ \n-a\n+b\n", 4),
            ("@@\n-a\n+b\n", 1),
            ("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n@@\n-c\n+d\n", 6),
        ] {
            let err = parse(patch).unwrap_err();
            assert_eq!(err.code, Code::PatchFailed);
            assert_eq!(err.details["reason"], "bare_hunk_header", "{patch:?}");
            assert_eq!(err.details["line"], line, "{patch:?}");
            assert!(err.message.contains("@@ -a,b +c,d @@"), "{}", err.message);
        }
        // A garbled range is still a malformed header, not a bare one.
        let err = parse("--- a/f\n+++ b/f\n@@ -x +1 @@\n-a\n").unwrap_err();
        assert_eq!(err.details["reason"], "bare_hunk_header");
        let err = parse("--- a/f\n+++ b/f\n@@ -1,x +1 @@\n-a\n").unwrap_err();
        assert_eq!(err.details["reason"], "bad_hunk_header");
    }

    #[test]
    fn text_that_is_no_patch_says_which_formats_are_read() {
        for text in ["", "hello\n", "just prose\nover lines\n"] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.details["reason"], "not_a_patch");
            assert!(
                err.message.contains("unified diff") && err.message.contains("*** Begin Patch"),
                "{}",
                err.message
            );
        }
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
