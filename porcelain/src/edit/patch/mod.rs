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

mod apply;
mod parse;

pub(crate) use apply::apply;
pub(in crate::edit) use parse::Reader;
pub(crate) use parse::parse;

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
        let at = self.new_start.checked_sub(1)?;
        self.result_at(old, at).then_some(at + 1)
    }

    /// The hunk's old side (its context and removed lines), or its new side (its context and
    /// added lines).
    fn side(&self, old: bool) -> impl Iterator<Item = &str> {
        self.lines.iter().filter_map(move |l| match l {
            HunkLine::Context(t) => Some(t.as_str()),
            HunkLine::Add(t) => (!old).then_some(t.as_str()),
            HunkLine::Remove(t) => old.then_some(t.as_str()),
        })
    }

    /// Whether `old` holds the hunk's new side at line `at` (from 0), when the hunk changes
    /// some line's text (not only line ends).
    fn result_at(&self, old: &[Line], at: usize) -> bool {
        self.changes_text() && self.new_side_at(old, at)
    }

    /// Whether the hunk changes some line's text: its new side is not its old side.
    fn changes_text(&self) -> bool {
        self.new_count > 0 && !self.side(true).eq(self.side(false))
    }

    /// Whether `old` holds the hunk's new side at line `at` (from 0).
    fn new_side_at(&self, old: &[Line], at: usize) -> bool {
        let mut there = old.iter().skip(at);
        at < old.len()
            && self
                .side(false)
                .all(|n| there.next().is_some_and(|l| l.text == n))
    }

    /// The line (from 1) nearest line `from` (from 0) where `old` holds the hunk's new
    /// side, when the hunk changes something, leaving out the places where the old side at
    /// line `old_at` holds it: a hunk that removes lines at an end of its old side has the
    /// rest as its new side, which stands wherever the old side does and tells nothing.
    /// Every line of the file is looked at, nearest first (a `from` past the file's end
    /// counts from its last line).
    fn result_nearest(&self, old: &[Line], from: usize, old_at: usize) -> Option<usize> {
        if !self.changes_text() {
            return None;
        }
        let from = from.min(old.len().saturating_sub(1));
        (0..old.len())
            .flat_map(|d| [from.checked_sub(d), Some(from + d).filter(|_| d > 0)])
            .flatten()
            .filter(|&at| self.new_side_at(old, at))
            .find(|&at| at < old_at || !self.new_side_within_old(at - old_at))
            .map(|at| at + 1)
    }

    /// Whether the hunk's new side is the part of its old side that starts `offset` lines
    /// in (a hunk that only removes lines, at an end of its old side).
    fn new_side_within_old(&self, offset: usize) -> bool {
        let mut within = self.side(true).skip(offset);
        offset + self.new_count <= self.old_count
            && self.side(false).all(|n| within.next() == Some(n))
    }

    /// Whether the hunk's change repeats the lines next to it: it removes lines so that its
    /// new side stands within its old side at an offset that its removals alone do not
    /// explain (one line fewer in a run of like lines). The file then reads alike with the
    /// change made once or twice: a run one line shorter holds the old side and the new side
    /// too, at the same places, so a file that has changed since cannot tell which it is. (A
    /// hunk whose removals all come after its context has its new side at the start of its
    /// old side whatever the lines are, and one whose removals all come first, at the end.
    /// A change that adds a like line leaves its new side where the file did not have it,
    /// which the file shows.)
    fn repeats_neighbours(&self) -> bool {
        if self.old_count <= self.new_count || !self.has_context() {
            return false;
        }
        let removed = |l: &HunkLine| matches!(l, HunkLine::Remove(_));
        let context = |l: &HunkLine| matches!(l, HunkLine::Context(_));
        let removals_last = self.lines.iter().skip_while(|l| context(l)).all(removed);
        let removals_first = self.lines.iter().skip_while(|l| removed(l)).all(context);
        let shorter = self.old_count - self.new_count;
        (0..=shorter).any(|k| {
            let explained = (k == 0 && removals_last) || (k == shorter && removals_first);
            !explained && self.new_side_within_old(k)
        })
    }

    /// The edge of the file the hunk must meet, if its context says so: context before its
    /// change and none after means a diff tool ran out of file after it (it ends the file);
    /// none before, some after, stated at line 1, means it starts the file; none on either
    /// side but some between its changes, stated at line 1, means it is the whole file (a
    /// diff with context writes context around each change unless the file ends there). A
    /// hunk with no context at all (`diff -U0`), or context on both sides, can be anywhere.
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
            (0, 0) if self.old_start <= 1 && self.lines.iter().any(|l| context(&l)) => {
                Some(Edge::Both)
            }
            _ => None,
        }
    }
}

/// An edge of the file a hunk's context ties it to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    Start,
    End,
    /// Both: the hunk's old lines are the whole file.
    Both,
}

impl Edge {
    /// The edge in words, as `details.edge` names it.
    fn name(self) -> &'static str {
        match self {
            Edge::Start => "start",
            Edge::End => "end",
            Edge::Both => "both",
        }
    }

    /// The refusal of a hunk tied to this edge whose old lines are in the file, but not there:
    /// at `found` (0-based) when they occur once, or at several places.
    fn refusal(self, found: Option<usize>, file_lines: usize) -> Refusal {
        if self == Edge::Both {
            let place = match found {
                Some(at) => format!(
                    "they start at file line {}, and the file has {file_lines} lines",
                    at + 1
                ),
                None => "they occur at several places".to_owned(),
            };
            return Refusal {
                reason: if found == Some(0) {
                    "end_of_file"
                } else {
                    "start_of_file"
                },
                clause: format!(
                    "has context between its changes and none before or after them, which in a diff means its old lines are the whole file; {place}. If the change belongs there, add the lines around it as context; if the hunk is the whole file, the file has changed since the patch was made"
                ),
                details: vec![("edge", self.name().into())],
            };
        }
        let edge = self.name();
        let (side, other, reason, add) = match self {
            Edge::Start => ("after", "before", "start_of_file", "precede"),
            Edge::End | Edge::Both => ("before", "after", "end_of_file", "follow"),
        };
        let place = match found {
            Some(at) => format!(
                "they are at file line {}{}",
                at + 1,
                match self {
                    Edge::Start => String::new(),
                    Edge::End | Edge::Both => {
                        format!(", and the file goes on to line {file_lines}")
                    }
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
    /// The same line's id of the file the patch makes: where the file is the one `old_blob`
    /// names, the result must be the one this names.
    new_blob: Option<String>,
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

    /// A section that does `action` to the named files, with no hunks, modes or blob ids yet:
    /// what each reader starts from.
    pub(super) fn new(
        old_path: Option<String>,
        new_path: Option<String>,
        action: Action,
    ) -> FilePatch {
        FilePatch {
            old_path,
            new_path,
            action,
            old_mode: None,
            new_mode: None,
            hunks: Vec::new(),
            chunks: Vec::new(),
            codex: None,
            old_blob: None,
            new_blob: None,
            on_base: false,
        }
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
            chunks,
            codex: Some(line),
            ..FilePatch::new(old_path, new_path, action)
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

impl HunkReport {
    /// Why the hunk is refused, where it is refused although its lines are in the file (its
    /// `details.reason`).
    pub fn refusal_reason(&self) -> Option<&'static str> {
        self.refusal.as_ref().map(|r| r.reason)
    }
}

/// Why a hunk is refused although its lines are in the file, or would be but for their final
/// newline: PATCH_FAILED with `reason`, the message `hunk N of PATH {clause}`, and `details`.
#[derive(Clone, Debug)]
pub(crate) struct Refusal {
    /// `misordered`, `line_ends`, `final_newline`, `start_of_file`, `end_of_file`,
    /// `placed_by_number`, `no_context`, `already_applied`, `not_empty_after_delete`,
    /// `not_the_named_result` or `ambiguous`.
    pub reason: &'static str,
    /// What is wrong, after "hunk N of PATH".
    pub clause: String,
    /// More `details` keys.
    pub details: Vec<(&'static str, serde_json::Value)>,
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

#[cfg(test)]
mod tests {
    use super::apply::git_blob_id;
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
            clause.contains("old lines are at line 9, and its new lines at line 4"),
            "{clause}"
        );
        // Not applied yet, with g already like the new f above it, the file reads the same
        // two ways (applied at f and found again at g's twin, or not applied): refused too,
        // however near f's old lines are.
        let patch =
            "--- x\n+++ x\n@@ -7,3 +7,3 @@\n     a();\n-    n++;\n+    n += 2;\n     b();\n";
        let g_then_f =
            "g() {\n    a();\n    n += 2;\n    b();\n}\nf() {\n    a();\n    n++;\n    b();\n}\n";
        let drifted = format!("// a\n{g_then_f}");
        assert_eq!(refusal(&drifted, patch).0, "already_applied");
        // Without such a copy, a hunk found at an offset applies there.
        let alone =
            "g() {\n    a();\n    n--;\n    b();\n}\nf() {\n    a();\n    n++;\n    b();\n}\n";
        let drifted = format!("// a\n{alone}");
        assert_eq!(
            patch_one(&drifted, patch).unwrap(),
            format!("// a\n{}", alone.replace("n++", "n += 2"))
        );
    }

    #[test]
    fn a_change_that_repeats_the_lines_next_to_it_cannot_tell_whether_it_was_applied() {
        // One more empty line in a run of them: the file with the run grown by one holds the
        // hunk's old lines and its new lines at its stated line. Before 2026-12-05 the line
        // was added again with ok.
        let patch = "--- x\n+++ x\n@@ -1,3 +1,3 @@\n a\n-1\n+X\n 2\n@@ -6,2 +6,3 @@\n \n+\n \n";
        let once = patch_one("a\n1\n2\n3\nb\n\n\nc\n", patch).unwrap();
        assert_eq!(once, "a\nX\n2\n3\nb\n\n\n\nc\n");
        let partly = "a\n1\n2\n3\nb\n\n\n\nc\n";
        let (reason, clause, hunk) = refusal(partly, patch);
        assert_eq!((reason, hunk), ("already_applied", 2));
        assert!(clause.contains("its new lines stand there too"), "{clause}");
    }

    #[test]
    fn a_change_in_a_run_of_like_lines_in_a_file_changed_since_cannot_tell_whether_it_was_made() {
        // One `p` fewer in a run of three, with one `p` of context before: the run that is
        // one shorter holds the old lines too. Found at an offset, the file has changed
        // since, and a second application took another `p` with ok before 2026-12-05.
        let patch = "--- x\n+++ x\n@@ -3,3 +3,2 @@\n p\n-p\n \n";
        let made_on = "[s]\np\np\np\n\nend\n";
        assert_eq!(patch_one(made_on, patch).unwrap(), "[s]\np\np\n\nend\n");
        let grown_then_applied = "# a\n# b\n[s]\np\np\n\nend\n";
        let grown = "# a\n# b\n[s]\np\np\np\n\nend\n";
        for file in [grown_then_applied, grown] {
            let (reason, clause, _) = refusal(file, patch);
            assert_eq!(reason, "already_applied", "{file:?}");
            assert!(clause.contains("repeats the lines next to it"), "{clause}");
        }
        // At its stated line in a file a git `index` line shows changed, the same.
        let section = format!(
            "diff --git a/x b/x\nindex {}..1234567 100644\n--- a/x\n+++ b/x\n{}",
            &git_blob_id(made_on.as_bytes())[..7],
            &patch[12..]
        );
        let (reason, _, _) = refusal("[s]\np\np\np\n\nend\nmore\n", &section);
        assert_eq!(reason, "already_applied");
        // A hunk without context at its stated line there: only the number places it.
        let bare = format!(
            "diff --git a/x b/x\nindex {}..1234567 100644\n--- a/x\n+++ b/x\n@@ -6 +5,0 @@\n-end\n",
            &git_blob_id(made_on.as_bytes())[..7]
        );
        let (reason, clause, _) = refusal("[s]\np\np\np\n\nend\nmore\n", &bare);
        assert_eq!(reason, "no_context");
        assert!(
            clause.contains("only its stated line 6 places it"),
            "{clause}"
        );
    }

    #[test]
    fn the_reviewers_cases_of_a_patch_applied_already() {
        // A stated line past the file's end: the search for its new lines still covers
        // every line (before, from twice the file's length on, it looked at none, and the
        // twin `x` became `y` with ok).
        let hunk =
            |at: usize| format!("--- f\n+++ f\n@@ -{at},3 +{at},3 @@\n {{\n-  x\n+  y\n }}\n");
        assert_eq!(
            refusal("{\n  x\n}\n{\n  y\n}\n", &hunk(85)).0,
            "already_applied"
        );
        assert_eq!(
            refusal("{\n  y\n}\na\nb\nc\nd\n{\n  x\n}\n", &hunk(13)).0,
            "already_applied"
        );
        // A hunk held to the file's end that removes a line of a run, found at an offset:
        // its removal at the end explains its new side at the start of its old side, but not
        // at the next line too (applied again with ok, before).
        let run_end = "--- f\n+++ f\n@@ -4,4 +4,3 @@\n a\n a\n a\n-a\n";
        let (reason, clause, _) = refusal("Y\na\na\na\na\n", run_end);
        assert_eq!(reason, "already_applied");
        assert!(clause.contains("repeats the lines next to it"), "{clause}");
        // The same removal of a line that is not its context's applies at an offset.
        let end = "--- f\n+++ f\n@@ -4,4 +4,3 @@\n a\n a\n a\n-b\n";
        assert_eq!(patch_one("Y\na\na\na\nb\n", end).unwrap(), "Y\na\na\na\n");
        // A file that git's `index` line proves to be the patch's own holds no change of it,
        // however its lines repeat (refused before).
        let file = "x\n\n\n\n\n\n\n\ny\n";
        let proven = format!(
            "diff --git a/f b/f\nindex {}..{} 100644\n--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n x\n \n+\n \n",
            &git_blob_id(file.as_bytes())[..7],
            &git_blob_id(b"x\n\n\n\n\n\n\n\n\ny\n")[..7]
        );
        assert_eq!(patch_one(file, &proven).unwrap(), "x\n\n\n\n\n\n\n\n\ny\n");
        // A hunk held to an edge, at its stated line in a file shown changed (another hunk
        // moved), whose new lines stand elsewhere (applied before, with ok).
        let edge =
            "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -8,3 +8,3 @@\n k1\n k2\n-x\n+y\n";
        let file = "k1\nk2\ny\na\nb\nc\ng\nk1\nk2\nx\n";
        let (reason, clause, hunk) = refusal(file, edge);
        assert_eq!((reason, hunk), ("already_applied", 2));
        assert!(clause.contains("new lines stand at line 1"), "{clause}");
    }

    #[test]
    fn a_git_index_line_tells_whether_the_file_is_the_one_the_patch_was_made_from() {
        // git's blob id of "hello\n", as `git hash-object` gives it.
        assert_eq!(
            git_blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        // The line names the file the patch was made from and the one it makes.
        let section_to = |old: &str, new: &str, hunks: &str| {
            format!(
                "diff --git a/x b/x\nindex {}..{} 100644\n--- a/x\n+++ b/x\n{hunks}",
                &git_blob_id(old.as_bytes())[..7],
                &git_blob_id(new.as_bytes())[..7]
            )
        };
        let section = |old: &str, hunks: &str| section_to(old, "another file", hunks);
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
        // Applied to [b], then lines were added above, so that [a]'s copy of [b]'s old lines
        // stands at the stated line: its new lines at [b] show the patch may be applied
        // already (before 2026-12-05, [a] was changed with ok).
        let made_on = "[a]\nk = 1\nv = 1\nw = 1\n[b]\nk = 1\nv = 1\nw = 1\n";
        let b_hunk = "@@ -6,3 +6,3 @@\n k = 1\n-v = 1\n+v = 2\n w = 1\n";
        let applied_then_grown =
            "# 1\n# 2\n# 3\n# 4\n[a]\nk = 1\nv = 1\nw = 1\n[b]\nk = 1\nv = 2\nw = 1\n";
        let (reason, clause, _) = refusal(applied_then_grown, &section(made_on, b_hunk));
        assert_eq!(reason, "already_applied");
        assert!(clause.contains("new lines stand at line 10"), "{clause}");
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
            patch_one(file, &section_to(file, "a\nNEW\nb\nc\n", insert)).unwrap(),
            "a\nNEW\nb\nc\n"
        );
        // Of another file, it is refused as without the line.
        assert_eq!(
            refusal("x\na\nb\nc\n", &section(file, insert)).0,
            "placed_by_number"
        );
    }

    #[test]
    fn a_git_index_line_names_the_result_too_which_tells_how_added_lines_end() {
        let section = |old: &str, new: &str, hunks: &str| {
            format!(
                "diff --git a/x b/x\nindex {}..{} 100644\n--- a/x\n+++ b/x\n{hunks}",
                &git_blob_id(old.as_bytes())[..7],
                &git_blob_id(new.as_bytes())[..7]
            )
        };
        // A `-U0` hunk adds a CRLF line to an LF file: the result the line names has it
        // (written with LF, ok, before 2026-12-05) ...
        let file = "a\nb\n";
        let crlf_line = "@@ -2,0 +3 @@\n+r\r\n";
        let made = "a\nb\nr\r\n";
        assert_eq!(
            patch_one(file, &section(file, made, crlf_line)).unwrap(),
            made
        );
        // ... and where the patch's lines were converted in transport, the result the line
        // names has the file's LF, as without the line.
        let converted = section(file, "a\nb\nr\n", crlf_line);
        assert_eq!(patch_one(file, &converted).unwrap(), "a\nb\nr\n");
        // The reverse: an LF line into a CRLF file.
        let file = "a\r\nb\r\n";
        let made = "a\r\nb\r\nr\n";
        let lf_line = "@@ -2,0 +3 @@\n+r\n";
        assert_eq!(
            patch_one(file, &section(file, made, lf_line)).unwrap(),
            made
        );
        // A hunk that changes a line's end, which the file's convention would undo, applies
        // where the line names that result (refused as line_ends without it).
        let file = "a\nb\nc\n";
        let made = "a\nb\r\nc\n";
        let hunk = "@@ -1,3 +1,3 @@\n a\n-b\n+b\r\n c\n";
        assert_eq!(patch_one(file, &section(file, made, hunk)).unwrap(), made);
        assert_eq!(
            refusal(file, &format!("--- x\n+++ x\n{hunk}")).0,
            "line_ends"
        );
        // Lines edited by hand after the patch was made: the file is the one it was made
        // from, and the result is not the one it names.
        let file = "a\nb\nc\n";
        let edited = section(file, "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+BEE\n c\n");
        let (reason, clause, hunk) = refusal(file, &edited);
        assert_eq!((reason, hunk), ("not_the_named_result", 1));
        assert!(clause.contains("without its `index` line"), "{clause}");
    }

    #[test]
    fn a_hunk_found_away_from_its_place_where_its_lines_stand_with_one_more_is_ambiguous() {
        // Three like functions; the patch changes the first. Since, a line was added to the
        // first, so its lines are found at the second only (changed, ok, before).
        let f = "def f(x):\n    y = x + 1\n    if y > 2:\n        return y\n    return x\n\n";
        let patch = "--- f\n+++ f\n@@ -1,7 +1,7 @@\n def f(x):\n     y = x + 1\n     if y > 2:\n-        return y\n+        return 0\n     return x\n \n def f(x):\n";
        let grown = f.replace("    y = x + 1\n", "    y = x + 1\n    log(y)\n");
        let file = format!("{grown}{f}{f}");
        let (reason, clause, _) = refusal(&file, patch);
        assert_eq!(reason, "ambiguous");
        assert!(
            clause.contains("with one more line among them (line 3)"),
            "{clause}"
        );
        // Lines added above, and no look-alike where the hunk was: found at an offset.
        let moved =
            format!("# one\n# two\n# three\n# four\n# five\n# six\n# seven\n# eight\n{f}{f}");
        assert!(
            patch_one(&moved, patch)
                .unwrap()
                .contains("return 0\n    return x\n\ndef f(x):\n")
        );
    }

    #[test]
    fn lines_added_before_line_1_of_the_patchs_own_file_are_added_whatever_starts_it() {
        // `x` added above a file that starts with `x`: refused as applied already without
        // proof, added where git's `index` line names the file as the patch's own.
        let file = "x\ny\n";
        let hunk = "@@ -0,0 +1 @@\n+x\n";
        assert_eq!(
            refusal(file, &format!("--- f\n+++ f\n{hunk}")).0,
            "already_applied"
        );
        let proven = format!(
            "diff --git a/f b/f\nindex {}..{} 100644\n--- a/f\n+++ b/f\n{hunk}",
            &git_blob_id(file.as_bytes())[..7],
            &git_blob_id(b"x\nx\ny\n")[..7]
        );
        assert_eq!(patch_one(file, &proven).unwrap(), "x\nx\ny\n");
    }

    #[test]
    fn a_hunk_with_context_only_between_its_changes_is_the_whole_file() {
        // `a b c` made `N a b C`: the hunk starts and ends with a change, so a diff with
        // context wrote none outside them because the file ends there on both sides.
        let whole = "--- f\n+++ f\n@@ -1,3 +1,4 @@\n+N\n a\n b\n-c\n+C\n";
        assert_eq!(patch_one("a\nb\nc\n", whole).unwrap(), "N\na\nb\nC\n");
        // Lines added since, around a copy of the old lines: placed mid-file, the insertion
        // at the top and the change of the last line were written elsewhere, ok, before.
        let (reason, clause, _) = refusal("a\nb\na\nb\nc\nc\n", whole);
        assert_eq!(reason, "start_of_file");
        assert!(clause.contains("the whole file"), "{clause}");
        // Lines added after the old last line: which comes last, C or them, is a guess.
        assert_eq!(refusal("a\nb\nc\nX\n", whole).0, "end_of_file");
        // Without context between the changes it is a `diff -U0` hunk, tied to no edge.
        let u0 = "--- f\n+++ f\n@@ -1 +1 @@\n-a\n+A\n";
        assert_eq!(patch_one("a\nb\n", u0).unwrap(), "A\nb\n");
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
