//! Staged literal text replacement: exact, then normalised, then a useful NO_MATCH.

use super::doc::{Doc, Editable, Line, caller_lines, split_lines};
use super::exact::{self, Joined, Occurrence};
use super::locate::{self, MAX_LISTED};
use crate::{Code, Error, Result};
use filekeeper_plumbing::{Argument, words};

mod indent;
mod nearest;
mod pairing;
mod rewrite;

use indent::{Steps, Why};
use nearest::no_match;
use pairing::{MAX_OTHER_PARTNERS, other_pairings, pair_lines};
use rewrite::{Refusal, Rewrite, Subject, rewrite};

/// Which occurrences to replace. There is no default: the caller says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// The first occurrence, which must then be the only one (or the count must be confirmed
    /// with `expected_match_count`).
    First,
    /// Every occurrence.
    All,
    /// Exactly the Nth match (1-based, in file order), chosen by the caller: the matches are
    /// those `match_count` counts, at the stage that matched. A number past the last match is
    /// refused with MATCH_COUNT_MISMATCH listing the matches.
    Occurrence(u64),
}

impl Policy {
    /// The policy a surface's `first`/`all` choice and optional occurrence number make: an
    /// occurrence chooses one match, so it goes with `First` (and becomes
    /// [`Policy::Occurrence`]); with `All` it is INVALID_ARGUMENT naming `path`, as is 0.
    pub fn with_occurrence(self, occurrence: Option<u64>, path: &str) -> Result<Policy> {
        match (self, occurrence) {
            (policy, None) => Ok(policy),
            (Policy::All, Some(_)) => Err(Error::worded(
                Code::InvalidArgument,
                words![
                    Argument::Occurrence,
                    " chooses one match, so it cannot go with replacing every occurrence"
                ],
            )
            .path(path)),
            (_, Some(n)) => Policy::Occurrence(n).checked(path),
        }
    }

    fn checked(self, path: &str) -> Result<Policy> {
        if self == Policy::Occurrence(0) {
            return Err(Error::worded(
                Code::InvalidArgument,
                words![Argument::Occurrence, " counts matches from 1"],
            )
            .path(path));
        }
        Ok(self)
    }
}

pub(crate) struct Replaced {
    pub stage: &'static str,
    pub count: usize,
    pub warnings: Vec<String>,
}

/// How a warning names a line end.
fn eol_name(eol: &str) -> &'static str {
    match eol {
        "\r\n" => "CRLF",
        "\r" => "CR",
        _ => "LF",
    }
}

fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

fn trailing_ws(s: &str) -> &str {
    &s[s.trim_end().len()..]
}

/// The matches of one stage, for choosing among them and for listing them in an error.
enum Found<'t> {
    /// Occurrences in the text as read.
    Exact {
        body: &'t str,
        found: &'t [Occurrence],
    },
    /// First lines (0-based) of matched windows `len` lines long.
    Normalised {
        lines: &'t [Line<'t>],
        starts: &'t [usize],
        len: usize,
    },
}

impl Found<'_> {
    fn count(&self) -> usize {
        match self {
            Found::Exact { found, .. } => found.len(),
            Found::Normalised { starts, .. } => starts.len(),
        }
    }

    /// The first match (0-based) that overlaps the one after it, if any.
    fn overlap(&self) -> Option<usize> {
        match *self {
            Found::Exact { found, .. } => found.windows(2).position(|w| w[1].start < w[0].end),
            Found::Normalised { starts, len, .. } => {
                starts.windows(2).position(|w| w[1] < w[0] + len)
            }
        }
    }

    /// The first [`MAX_LISTED`] matches with their lines and the lines around them.
    fn listed(&self) -> Vec<serde_json::Value> {
        match *self {
            Found::Exact { body, found } => {
                let lines = split_lines(body);
                let offsets = locate::line_starts(&lines);
                found
                    .iter()
                    .take(MAX_LISTED)
                    .map(|o| {
                        let from = locate::line_at(&offsets, o.start);
                        let to = locate::line_at(&offsets, o.end - 1);
                        locate::listed_match(&lines, from, to)
                    })
                    .collect()
            }
            Found::Normalised { lines, starts, len } => starts
                .iter()
                .take(MAX_LISTED)
                .map(|&at| locate::listed_match(lines, at, at + len - 1))
                .collect(),
        }
    }

    /// MATCH_COUNT_MISMATCH with every match listed (bounded).
    fn mismatch(&self, path: &str, message: String) -> Error {
        let count = self.count();
        Error::new(Code::MatchCountMismatch, message)
            .path(path)
            .with("match_count", count)
            .with("matches", self.listed())
            .with("matches_truncated", count > MAX_LISTED)
    }

    /// Which matches to replace (indices into the matches), after checking the count, or the
    /// refusal.
    fn choose(
        &self,
        path: &str,
        policy: Policy,
        expected: Option<u64>,
    ) -> Result<std::ops::Range<usize>> {
        let found = self.count();
        if let Some(expected) = expected
            && expected != found as u64
        {
            return Err(self
                .mismatch(
                    path,
                    format!("the old text occurs {found} time(s), not the expected {expected}"),
                )
                .with("expected_match_count", expected)
                .hint(words![
                    "the matches are listed in details.matches; re-read the file, or choose one of them with ",
                    Argument::Occurrence
                ]));
        }
        match policy {
            Policy::All => match self.overlap() {
                // Replacing one of two overlapping occurrences destroys the other, so no
                // result has every occurrence replaced.
                Some(k) => Err(self
                    .mismatch(
                        path,
                        format!(
                            "matches {} and {} of the old text overlap, so every occurrence cannot be replaced: replacing one destroys the other; nothing was written",
                            k + 1,
                            k + 2
                        ),
                    )
                    .with("overlapping_matches", vec![k + 1, k + 2])
                    .hint(words![
                        "choose one match to replace with ",
                        Argument::Occurrence,
                        " N (1-based, in file order; the lines are in details.matches), or give more context so the occurrences do not overlap"
                    ])),
                None => Ok(0..found),
            },
            Policy::First if found > 1 && expected.is_none() => Err(self
                .mismatch(
                    path,
                    format!("the old text occurs {found} times; refusing to pick one"),
                )
                .hint(words![
                    "choose the match to replace with ",
                    Argument::Occurrence,
                    " N (1-based, in file order; the lines are in details.matches), replace every occurrence, or give more context so the old text is unique"
                ])),
            Policy::First => Ok(0..1),
            Policy::Occurrence(n) if n > found as u64 => Err(self
                .mismatch(
                    path,
                    format!("match {n} was asked for, but the old text occurs {found} time(s)"),
                )
                .with("occurrence", n)
                .hint(words![
                    "choose one of the matches in details.matches with ",
                    Argument::Occurrence
                ])),
            Policy::Occurrence(n) => Ok(n as usize - 1..n as usize),
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn replace(
    ed: &mut Editable,
    path: &str,
    old: &str,
    new: &str,
    policy: Policy,
    expected_count: Option<u64>,
    expected_content: Option<&str>,
) -> Result<Replaced> {
    if old.is_empty() {
        return Err(Error::invalid("the old text is empty").path(path));
    }
    let policy = policy.checked(path)?;
    let eol = ed.eol();
    // Exact matches are replaced in the text as read, in one pass: no line is split. A line
    // end in the old text matches any line end of the file (`exact`).
    let body = ed.body();
    let found = exact::occurrences(body, old);
    if !found.is_empty() {
        let chosen = Found::Exact {
            body,
            found: &found,
        }
        .choose(path, policy, expected_count)?;
        let replacing = &found[chosen];
        if let Some(expected) = expected_content {
            check_single(path, replacing.len(), policy)?;
            let o = &replacing[0];
            guard_region(path, &body[o.start..o.end], expected, false, || {
                split_lines(body)
            })?;
        }
        let new_pieces = exact::pieces(new);
        let grown = replacing.len() * new.len().saturating_sub(old.len());
        let mut text = Joined {
            text: ed.new_text(body.len() + grown + 1),
        };
        let mut mixed = Vec::new();
        let mut copied = 0;
        let mut replaced = Vec::with_capacity(replacing.len());
        for o in replacing {
            replaced.push(o.start..o.end);
            text.push(&body[copied..o.start]);
            let (ends, fell_back) = exact::line_ends(&o.breaks, new_pieces.len() - 1, eol);
            if fell_back {
                mixed.push(o.start);
            }
            for (k, piece) in new_pieces.iter().enumerate() {
                text.push(piece);
                if let Some(end) = ends.get(k) {
                    text.push(end);
                }
            }
            copied = o.end;
        }
        text.push(&body[copied..]);
        // A literal replacement may take in the file's last line end or add one, and that is
        // what it asks for; it is said, since every other edit keeps whether a file ends
        // with a newline and a caller may not have meant to change it.
        let ends_in_line_end = |t: &str| t.ends_with(['\n', '\r']);
        let newline_at_end = (ends_in_line_end(body) != ends_in_line_end(&text.text))
            .then(|| ends_in_line_end(&text.text));
        ed.set_text(text.text, replaced);
        let mut warnings = Vec::new();
        if let Some(now) = newline_at_end {
            warnings.push(
                if now {
                    "the new text ends with a line end where the file had none, so the file now ends with a newline; check the result"
                } else {
                    "the replaced text held the file's last line end and the new text ends with none, so the file no longer ends with a newline; check the result"
                }
                .to_owned(),
            );
        }
        if !mixed.is_empty() {
            let lines = split_lines(body);
            let offsets = locate::line_starts(&lines);
            let at: Vec<String> = mixed
                .iter()
                .map(|&start| (locate::line_at(&offsets, start) + 1).to_string())
                .collect();
            warnings.push(format!(
                "the replaced text mixed line ends and the new text has another number of lines, so its lines end with the file's convention ({}) (match at line {}); check the result",
                eol_name(eol),
                at.join(", ")
            ));
        }
        return Ok(Replaced {
            stage: "exact",
            count: found.len(),
            warnings,
        });
    }
    // Normalised: whole lines, equal once indentation and trailing whitespace are ignored.
    let doc = ed.doc();
    let mut wanted = caller_lines(old);
    let mut new_lines = caller_lines(new);
    // Blank lines at either end of the old text are not part of the match; as many blank
    // lines at the same end of the new text are their counterparts and go with them.
    // When the new text keeps fewer blank lines at an end than the old text has there, the
    // caller asked for blank lines to be removed that the match does not include: refused
    // below, once the window is known.
    let (lead, trail) = blank_ends(&wanted);
    wanted.drain(..lead);
    wanted.truncate(wanted.len() - trail);
    let new_count = new_lines.len();
    let new_lead = new_lines
        .iter()
        .take_while(|l| l.trim().is_empty())
        .count()
        .min(lead);
    new_lines.drain(..new_lead);
    let new_trail = new_lines
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count()
        .min(trail);
    new_lines.truncate(new_lines.len() - new_trail);
    let mut chosen = windows(doc, &wanted);
    if chosen.is_empty() {
        return Err(no_match(doc, body, path, old));
    }
    let found = Found::Normalised {
        lines: &doc.lines,
        starts: &chosen,
        len: wanted.len(),
    };
    let picked = found.choose(path, policy, expected_count)?;
    let count = chosen.len();
    if let Some(expected) = expected_content {
        check_single(path, picked.len(), policy)?;
        let at = chosen[picked.start];
        let region: Vec<&str> = doc.lines[at..at + wanted.len()]
            .iter()
            .map(|l| l.text.as_ref())
            .collect();
        let lines = &doc.lines;
        guard_region(path, &region.join("\n"), expected, true, || lines.clone())?;
    }
    chosen = chosen[picked].to_vec();
    // The match is of whole lines, and so is what replaces them. Read as the literal
    // replacement the exact stage makes, a new text without the old text's final line end
    // would run into the next line, one with a line end the old text lacks would leave an
    // empty line after it, and so would an empty one over an old text without a line end;
    // read as lines, none of them. Which one the caller meant is a guess, except for an empty
    // new text over lines with their line end: those lines go.
    let ends_line = |t: &str| t.ends_with('\n') || t.ends_with('\r');
    let run_on = match (ends_line(old), ends_line(new)) {
        (false, _) if new.is_empty() => Some(
            "the old text has no line end and the new text is empty, so whether the lines go or leave an empty line",
        ),
        (true, false) if !new.is_empty() => Some(
            "the old text ends with a line end and the new text does not, so whether the new text's last line joins the next line of the file",
        ),
        (false, true) => Some(
            "the new text ends with a line end and the old text does not, so whether an empty line follows the new text",
        ),
        _ => None,
    };
    // A match that ends the file where the file has no final newline has no line end after
    // it to run on or to leave: the file keeps having none, as every edit keeps it.
    let ends = |at: usize| !doc.lines[at + wanted.len() - 1].eol.is_empty();
    if let Some(guess) = run_on
        && let Some(&at) = chosen.iter().find(|&&at| ends(at))
    {
        return Err(final_line_end_refused(path, guess, new_count.max(1), at));
    }
    if new_lead < lead || new_trail < trail {
        let at = chosen[0];
        let (end, asked, kept, line, file_line) = if new_lead < lead {
            ("starts", lead, new_lead, 1, at + 1)
        } else {
            (
                "ends",
                trail,
                new_trail,
                new_count.max(1),
                at + wanted.len(),
            )
        };
        return Err(blank_ends_refused(
            path, end, asked, kept, line, file_line, at, &wanted,
        ));
    }
    // Every window is rewritten on its own, and all of them before any is written: a
    // refusal in one refuses the whole edit. Each is rewritten with the pairing of old and
    // new lines the diff gives and with the one it gives read from the end: when both
    // pairings are possible and write different lines, which one the caller meant is a
    // guess, and the edit is refused. A line's end counts too: a line that stands for a file
    // line keeps that line's end, so in a file that mixes line ends two pairings can write
    // the same text with different ends.
    let forward = pair_lines(&wanted, &new_lines, false);
    let backward = pair_lines(&wanted, &new_lines, true);
    let steps = Steps::of_file(
        &doc.lines
            .iter()
            .map(|l| l.text.as_ref())
            .collect::<Vec<_>>(),
    );
    let mut rewrites = Vec::with_capacity(chosen.len());
    for &at in &chosen {
        let file: Vec<&str> = doc.lines[at..at + wanted.len()]
            .iter()
            .map(|l| l.text.as_ref())
            .collect();
        let written = rewrite(&file, at, steps, &wanted, &new_lines, &forward)
            .map_err(|r| r.into_error(path, new_lead))?;
        let other = rewrite(&file, at, steps, &wanted, &new_lines, &backward)
            .map_err(|r| r.into_error(path, new_lead))?;
        let mut rivals = vec![other];
        // A kept line that as small a change keeps as another old line of its text, or an
        // old line it keeps as another new line of its text: the window written with that
        // pairing instead (a pairing the rules cannot write is no reading the caller can
        // have meant).
        let file_ends: Vec<&str> = doc.lines[at..at + wanted.len()]
            .iter()
            .map(|l| l.eol)
            .collect();
        let Some(pairings) = other_pairings(&wanted, &new_lines, &forward, &file, &file_ends)
        else {
            return Err(Refusal {
                line: 1,
                file_line: at + 1,
                subject: Subject::Text("the new text's lines can be paired with the old text's in more ways than are checked".to_owned()),
                why: Why {
                    reason: "pairing_ambiguous",
                    text: format!("over {MAX_OTHER_PARTNERS} of them keep a line the file writes otherwise"),
                },
            }
            .into_error(path, new_lead));
        };
        for pairing in pairings {
            if let Ok(rival) = rewrite(&file, at, steps, &wanted, &new_lines, &pairing) {
                rivals.push(rival);
            }
        }
        let ends = |r: &Rewrite| doc.kept_ends(at, at + wanted.len(), &r.ends, r.lines.len());
        let written_ends = ends(&written);
        // Ends that differ only where the file is written alike (a last line without a line
        // end, a lone CR that an empty line after it makes CRLF) are no difference: where
        // only ends differ, the two whole results are compared.
        let result = |r: &Rewrite| {
            let mut d = doc.clone();
            d.splice_keeping_ends(at, at + wanted.len(), r.lines.clone(), &r.ends);
            d.to_bytes()
        };
        for rival in &rivals {
            let rival_ends = ends(rival);
            let Some(j) = (0..written.lines.len())
                .find(|&j| written.lines[j] != rival.lines[j] || written_ends[j] != rival_ends[j])
            else {
                continue;
            };
            if written.lines == rival.lines && result(&written) == result(rival) {
                continue;
            }
            let differently = if written.lines[j] != rival.lines[j] {
                format!("{:?} or {:?}", written.lines[j], rival.lines[j])
            } else {
                format!(
                    "ending it in {} or in {}",
                    eol_name(written_ends[j]),
                    eol_name(rival_ends[j])
                )
            };
            return Err(Refusal {
                line: j + 1,
                file_line: at + 1,
                subject: Subject::Line(
                    " can be paired with the old text's lines in two ways".to_owned(),
                ),
                why: Why {
                    reason: "pairing_ambiguous",
                    text: format!("the two write it differently ({differently})"),
                },
            }
            .into_error(path, new_lead));
        }
        rewrites.push(written);
    }
    let mut spans = Vec::new();
    let mut summary = Summary::default();
    let mut shift = 0isize;
    for (&at, rewrite) in chosen.iter().zip(&rewrites) {
        spans.push(format!("{}-{}", at + 1, at + wanted.len()));
        // The rewritten lines start here in the result (1-based).
        let start = at.checked_add_signed(shift).expect("windows are in order") + 1;
        summary.add(rewrite, start);
        shift += rewrite.lines.len() as isize - wanted.len() as isize;
    }
    for (&at, rewrite) in chosen.iter().zip(rewrites).rev() {
        doc.splice_keeping_ends(at, at + wanted.len(), rewrite.lines, &rewrite.ends);
    }
    Ok(Replaced {
        stage: "normalised",
        count,
        warnings: vec![format!(
            "the old text matched only after ignoring indentation and trailing whitespace (lines {}); {}; check the result",
            spans.join(", "),
            summary.describe()
        )],
    })
}

/// NO_MATCH for an old text with blank lines at one end (`starts` or `ends`) that the new text
/// does not keep as many of: the match leaves them out, so they cannot be removed exactly.
#[allow(clippy::too_many_arguments)]
fn blank_ends_refused(
    path: &str,
    end: &str,
    asked: usize,
    kept: usize,
    line: usize,
    file_line: usize,
    at: usize,
    wanted: &[String],
) -> Error {
    let blank = |n: usize| {
        if n == 1 {
            "1 blank line".to_owned()
        } else {
            format!("{n} blank lines")
        }
    };
    Error::new(
        Code::NoMatch,
        format!(
            "the old text {end} with {}, which a match with whitespace ignored leaves out (it matched file lines {}-{} without them), and the new text {end} with {}, so the blank lines cannot be removed exactly; nothing was written",
            blank(asked),
            at + 1,
            at + wanted.len(),
            if kept == 0 { "none".to_owned() } else { format!("only {}", blank(kept)) },
        ),
    )
    .path(path)
    .with("line", line)
    .with("file_line", file_line)
    .with("reason", "blank_edge_lines")
    .recovery(
        "re-read the lines and send the old text exactly as the file has it, blank lines included, or delete or replace the lines by their numbers",
    )
}

/// NO_MATCH for a whitespace-normalised match, found at 0-based file line `at`, whose old
/// and new texts disagree on ending with a line end; `guess` says what that leaves open, and
/// `line` is the new text's last line (1-based).
fn final_line_end_refused(path: &str, guess: &str, line: usize, at: usize) -> Error {
    Error::new(
        Code::NoMatch,
        format!(
            "the old text matched file line {} only after ignoring indentation and trailing whitespace, which replaces whole lines, and {guess} is a guess; nothing was written",
            at + 1,
        ),
    )
    .path(path)
    .with("line", line)
    .with("file_line", at + 1)
    .with("reason", "final_line_end")
    .recovery(
        "end both texts with a line end or neither (an empty new text deletes the lines when the old text ends with a line end), or re-read the lines and send the old text exactly as the file has it",
    )
}

/// How many blank lines `lines` starts and ends with (a text of blank lines only counts as
/// all leading).
fn blank_ends(lines: &[String]) -> (usize, usize) {
    let lead = lines.iter().take_while(|l| l.trim().is_empty()).count();
    let trail = lines[lead..]
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count();
    (lead, trail)
}

/// Where the lines `wanted` (blank ends removed) match the file once indentation and
/// trailing whitespace are ignored: the first line of each match, left to right, overlapping
/// windows included (as exact occurrences are counted). These are exactly the matches
/// `match_count` counts and an occurrence number picks; `--all` refuses overlapping ones.
fn windows(doc: &Doc, wanted: &[String]) -> Vec<usize> {
    if wanted.is_empty() {
        return Vec::new();
    }
    (0..doc.lines.len().saturating_sub(wanted.len() - 1))
        .filter(|&at| {
            wanted
                .iter()
                .enumerate()
                .all(|(k, w)| doc.lines[at + k].text.trim() == w.trim())
        })
        .collect()
}

/// What the normalised stage did, over every window, for its warning.
#[derive(Default)]
struct Summary {
    kept: usize,
    given: usize,
    /// (line in the result, 1-based; how it was written)
    reindented: Vec<(usize, String)>,
}

/// How many re-indented lines a warning names one by one.
const NAMED_LINES: usize = 10;

impl Summary {
    fn add(&mut self, rewrite: &Rewrite, start: usize) {
        self.kept += rewrite.kept;
        self.given += rewrite.given;
        self.reindented.extend(
            rewrite
                .reindented
                .iter()
                .map(|(j, how)| (start + j, how.clone())),
        );
    }

    fn describe(&self) -> String {
        let lines = |n: usize| {
            if n == 1 {
                "1 line".to_owned()
            } else {
                format!("{n} lines")
            }
        };
        let mut parts = Vec::new();
        if self.kept > 0 {
            parts.push(format!(
                "{} kept exactly as the file has {}",
                lines(self.kept),
                if self.kept == 1 { "it" } else { "them" }
            ));
        }
        if self.given > 0 {
            parts.push(format!("{} written exactly as given", lines(self.given)));
        }
        if !self.reindented.is_empty() {
            let mut named: Vec<String> = self
                .reindented
                .iter()
                .take(NAMED_LINES)
                .map(|(line, how)| format!("result line {line} ({how})"))
                .collect();
            if self.reindented.len() > NAMED_LINES {
                named.push(format!("{} more", self.reindented.len() - NAMED_LINES));
            }
            parts.push(format!(
                "{} re-indented to the file's levels: {}",
                lines(self.reindented.len()),
                named.join(", ")
            ));
        }
        if parts.is_empty() {
            "the matched lines were deleted".to_owned()
        } else {
            parts.join("; ")
        }
    }
}

fn check_single(path: &str, replacing: usize, policy: Policy) -> Result<()> {
    if policy == Policy::All && replacing > 1 {
        return Err(Error::invalid(
            "the expected content guards one region, but every occurrence would be replaced",
        )
        .path(path));
    }
    Ok(())
}

/// Checks the expected content of the region being replaced; `lines` gives the file's lines
/// (only on a refusal, which says where the expected text is now). An exact match's region is
/// a run of text and is compared whole; a normalised one is whole lines, given without their
/// last line end, so one line end after the expected text is not part of the comparison.
/// Line ends are flattened on both sides, as the old text is matched.
fn guard_region<'l>(
    path: &str,
    actual: &str,
    expected: &str,
    whole_lines: bool,
    lines: impl FnOnce() -> Vec<Line<'l>>,
) -> Result<()> {
    let wanted = exact::flattened(expected);
    let wanted = match wanted.strip_suffix('\n') {
        Some(without) if whole_lines => without,
        _ => wanted.as_ref(),
    };
    if exact::flattened(actual) != wanted {
        let error = Error::new(
            Code::ContentConflict,
            "the target region does not hold the expected content",
        )
        .path(path)
        .recovery("the region's text is in details.actual_content, and where the expected text is now in details.expected_found_at; retry against the current text");
        return Err(locate::region_conflict(
            error,
            &lines(),
            actual,
            expected,
            whole_lines,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::nearest::MAX_CANDIDATE_LINES;
    use super::*;

    fn run(text: &str, old: &str, new: &str, policy: Policy) -> Result<(String, Replaced)> {
        let mut ed = Editable::new("f", text.as_bytes())?;
        let r = replace(&mut ed, "f", old, new, policy, None, None)?;
        Ok((String::from_utf8(ed.into_bytes()).unwrap(), r))
    }

    #[test]
    fn exact_first_all_and_ambiguity() {
        let (out, r) = run("a b a\n", "b", "c", Policy::First).unwrap();
        assert_eq!((out.as_str(), r.stage, r.count), ("a c a\n", "exact", 1));
        let (out, r) = run("a b a\n", "a", "x", Policy::All).unwrap();
        assert_eq!((out.as_str(), r.count), ("x b x\n", 2));
        assert_eq!(
            run("a b a\n", "a", "x", Policy::First).err().unwrap().code,
            Code::MatchCountMismatch
        );
        let mut ed = Editable::new("f", b"a b a\n").unwrap();
        let r = replace(&mut ed, "f", "a", "x", Policy::First, Some(2), None).unwrap();
        assert_eq!((ed.into_bytes(), r.count), (b"x b a\n".to_vec(), 2));
    }

    #[test]
    fn crlf_files_match_lf_caller_text_and_stay_crlf() {
        let (out, _) = run(
            "one\r\ntwo\r\nthree\r\n",
            "one\ntwo\n",
            "1\n2\n",
            Policy::First,
        )
        .unwrap();
        assert_eq!(out, "1\r\n2\r\nthree\r\n");
    }

    #[test]
    fn in_a_file_that_mixes_line_ends_every_occurrence_is_found_whatever_its_line_ends() {
        // The old text's line end matches both an LF and a CRLF: both are replaced...
        let (out, r) = run("x\ny\r\nx\r\ny\r\nz\r\n", "x\ny", "Q", Policy::All).unwrap();
        assert_eq!(
            (out.as_str(), r.stage, r.count),
            ("Q\r\nQ\r\nz\r\n", "exact", 2)
        );
        // ...and `first` refuses to pick one, even when the caller typed one of the two.
        let err = run("x\r\ny\nfoo\nx\ny\nbar\n", "x\r\ny", "Q", Policy::First)
            .err()
            .unwrap();
        assert_eq!(err.code, Code::MatchCountMismatch);
        assert_eq!(err.details["match_count"], 2);
        let (out, _) = run(
            "x\r\ny\nfoo\nx\ny\nbar\n",
            "x\r\ny",
            "Q",
            Policy::Occurrence(1),
        )
        .unwrap();
        assert_eq!(out, "Q\nfoo\nx\ny\nbar\n");
    }

    #[test]
    fn a_replaced_line_end_is_kept_where_the_new_text_has_one_in_its_place() {
        // Two lines with their own line ends, the second line changed: each keeps its end.
        let (out, r) = run("a\r\nb\nc\r\nd\r\n", "b\nc", "b\nC", Policy::First).unwrap();
        assert_eq!((out.as_str(), r.stage), ("a\r\nb\nC\r\nd\r\n", "exact"));
        let (out, _) = run("x\r\ny\nz\nw\n", "x\r\ny", "x\r\nY", Policy::First).unwrap();
        assert_eq!(out, "x\r\nY\nz\nw\n");
        // More lines than the match had: the line end the match used throughout.
        let (out, _) = run("a\nb\r\nc\r\nd\n", "b\nc", "b\nx\nc", Policy::First).unwrap();
        assert_eq!(out, "a\nb\r\nx\r\nc\r\nd\n");
        // Mixed and another number of lines: the file's convention, and the caller is told.
        let (out, r) = run("a\nb\r\nc\nd\ne\n", "b\nc\nd", "B", Policy::First).unwrap();
        assert_eq!((out.as_str(), r.warnings.len()), ("a\nB\ne\n", 0));
        let (out, r) = run("a\nb\r\nc\nd\ne\n", "b\nc\nd", "B\nD", Policy::First).unwrap();
        assert_eq!(out, "a\nB\nD\ne\n");
        assert!(
            r.warnings[0].contains("mixed line ends"),
            "{:?}",
            r.warnings
        );
    }

    #[test]
    fn the_expected_content_of_an_exact_match_is_its_whole_text() {
        let guarded = |expected: &str| {
            let mut ed = Editable::new("f", b"a\n\nb\n").unwrap();
            replace(
                &mut ed,
                "f",
                "a\n\n",
                "X",
                Policy::First,
                None,
                Some(expected),
            )
        };
        // The region is "a\n\n": "a" alone is not it, and nothing is written.
        assert_eq!(guarded("a").err().unwrap().code, Code::ContentConflict);
        assert_eq!(guarded("a\n").err().unwrap().code, Code::ContentConflict);
        // Its line ends may be written either way.
        assert!(guarded("a\r\n\r\n").is_ok());
    }

    #[test]
    fn a_lone_cr_line_end_never_merges_with_a_following_lf() {
        // Deleting "X\n" would put the CR of line 1 before the LF of the empty line 3.
        let (out, r) = run("a\rX\n\nz\n", "X\n", "", Policy::First).unwrap();
        assert_eq!((out.as_str(), r.stage), ("a\r\n\nz\n", "exact"));
    }

    #[test]
    fn the_normalised_stage_keeps_each_matched_lines_own_line_end() {
        let (out, r) = run("a\r\n    b\n    c\r\nd\r\n", "b\nc", "b\nC", Policy::First).unwrap();
        assert_eq!(r.stage, "normalised");
        assert_eq!(out, "a\r\n    b\n    C\r\nd\r\n");
        // An inserted line: the window mixes LF and CRLF, so the file's convention (CRLF).
        let (out, _) = run(
            "a\r\n    b\n    c\r\nd\r\n",
            "b\nc",
            "b\nX\nC",
            Policy::First,
        )
        .unwrap();
        assert_eq!(out, "a\r\n    b\n    X\r\n    C\r\nd\r\n");
    }

    #[test]
    fn every_window_of_all_takes_the_convention_of_the_file_as_read() {
        // Six CRLF and six LF line ends: a tie, so the file's convention is CRLF. The second
        // window's edit takes a CRLF line away; spliced first (last to first), it must not
        // tip the first window's inserted line to LF.
        let text =
            "  foo\r\n  bar\n  baz\r\n  qux\ns1\ns2\ns3\ns4\n  foo\r\n  bar\r\n  baz\r\n  qux\r\n";
        let (out, r) = run(text, "foo\nbar\nbaz\nqux", "foo\n\nNEW", Policy::All).unwrap();
        assert_eq!((r.stage, r.count), ("normalised", 2));
        assert_eq!(
            out,
            "  foo\r\n\r\n  NEW\ns1\ns2\ns3\ns4\n  foo\r\n\r\n  NEW\r\n"
        );
    }

    #[test]
    fn normalised_stage_takes_the_file_indentation_for_changed_lines_and_warns() {
        let text = "fn main() {\n        let x = 1;   \n        call(x);\n}\n";
        let (out, r) = run(
            text,
            "let x = 1;\ncall(x);",
            "let y = 2;\ncall(y);",
            Policy::First,
        )
        .unwrap();
        assert_eq!(r.stage, "normalised");
        assert_eq!(
            out,
            "fn main() {\n        let y = 2;\n        call(y);\n}\n"
        );
        assert_eq!(
            r.warnings,
            [
                "the old text matched only after ignoring indentation and trailing whitespace (lines 2-3); 2 lines re-indented to the file's levels: result line 2 (8 spaces), result line 3 (8 spaces); check the result"
            ]
        );
    }

    /// The result of a normalised replacement, which must not be refused.
    fn normalised(text: &str, old: &str, new: &str) -> (String, Replaced) {
        let (out, r) = run(text, old, new, Policy::First)
            .unwrap_or_else(|e| panic!("refused: {} {:?}", e.message, e.details));
        assert_eq!(r.stage, "normalised");
        (out, r)
    }

    /// The refusal of a normalised replacement, checked to be a NO_MATCH with the details a
    /// caller needs.
    fn refusal(text: &str, old: &str, new: &str) -> Error {
        let mut ed = Editable::new("f", text.as_bytes()).unwrap();
        let err = replace(&mut ed, "f", old, new, Policy::First, None, None)
            .err()
            .expect("refused");
        assert_eq!(err.code, Code::NoMatch, "{}", err.message);
        assert_eq!(
            ed.into_bytes(),
            text.as_bytes(),
            "a refusal changed the text"
        );
        for key in ["line", "file_line", "reason", "path", "recovery"] {
            assert!(err.details.contains_key(key), "no {key}: {:?}", err.details);
        }
        err
    }

    #[test]
    fn a_stripped_old_text_keeps_each_changed_line_at_its_own_file_indentation() {
        // Reproduction 1: the body used to land at column 0.
        let text = "def f():\n    return 1\n\ndef g():\n    return 2\n";
        let (out, r) = normalised(text, "def g():\nreturn 2", "def g():\nreturn 42");
        assert_eq!(out, "def f():\n    return 1\n\ndef g():\n    return 42\n");
        assert!(r.warnings[0].contains("(lines 4-5)"), "{:?}", r.warnings);
        assert!(r.warnings[0].contains("1 line kept exactly as the file has it"));
        assert!(r.warnings[0].contains("result line 5 (4 spaces)"));
    }

    #[test]
    fn a_changed_line_keeps_the_file_indentation_when_the_old_text_has_other_levels() {
        // Reproduction 2: `  a2()` used to be written beside `    b()`.
        let (out, _) = normalised("if x:\n    a()\n    b()\n", "if x:\n  a()", "if x:\n  a2()");
        assert_eq!(out, "if x:\n    a2()\n    b()\n");
    }

    #[test]
    fn an_unchanged_line_stays_where_the_file_has_it_even_when_the_old_text_misplaces_it() {
        // Reproduction 3: `return 1` used to move out of the `if`.
        let text = "def f(x):\n    if x:\n        log(x)\n        return 1\n    return 0\n";
        let (out, r) = normalised(
            text,
            "    if x:\n        log(x)\n    return 1\n",
            "    if x:\n        log(x, level=2)\n    return 1\n",
        );
        assert_eq!(
            out,
            "def f(x):\n    if x:\n        log(x, level=2)\n        return 1\n    return 0\n"
        );
        assert!(r.warnings[0].contains("2 lines kept exactly as the file has them"));
        assert!(r.warnings[0].contains("1 line written exactly as given"));
    }

    #[test]
    fn a_blank_line_holding_spaces_changes_nothing_else() {
        // Reproduction 4: `    def __reduce__` used to move to 8 columns.
        let text = "class A:\n    def f(self):\n        return 1\n\n    def __reduce__(self):\n        return (A, ())\n";
        let (out, r) = normalised(
            text,
            "        return 1\n    \n    def __reduce__(self):\n        return (A, ())\n",
            "        return 2\n    \n    def __reduce__(self):\n        return (A, ())\n",
        );
        assert_eq!(out, text.replace("return 1", "return 2"));
        assert!(r.warnings[0].contains("3 lines kept exactly as the file has them"));
        assert!(r.warnings[0].contains("1 line written exactly as given"));
    }

    #[test]
    fn two_space_nesting_is_scaled_to_a_four_space_file() {
        // Reproduction 5: nested lines used to land at 10 columns instead of 12.
        let text = "class A:\n    def f(self):\n        if x:\n            pass\n";
        let (out, r) = normalised(
            text,
            "def f(self):\n  if x:\n    pass",
            "def f(self):\n  if x:\n    if y:\n      go()\n    pass",
        );
        assert_eq!(
            out,
            "class A:\n    def f(self):\n        if x:\n            if y:\n                go()\n            pass\n"
        );
        assert!(r.warnings[0].contains("result line 4 (12 spaces), result line 5 (16 spaces)"));
    }

    #[test]
    fn a_relative_change_of_indentation_is_carried_over() {
        // The caller wraps a line in a new block: the wrapped line moves one level deeper.
        let text = "fn f() {\n    if a {\n        run();   \n    }\n}\n";
        let (out, _) = normalised(
            text,
            "if a {\n    run();\n}",
            "if a {\n    if b {\n        run();\n    }\n}",
        );
        // The moved line is the file's after its indentation: the caller, whose old and new
        // lines have no trailing spaces, changed none of the file's.
        assert_eq!(
            out,
            "fn f() {\n    if a {\n        if b {\n            run();   \n        }\n    }\n}\n"
        );
        // A line the caller dedents by a level in a consistent frame.
        let (out, _) = normalised(
            "x:\n  a: 1\n  b: 2 \n",
            "x:\n    a: 1\n    b: 2",
            "x:\n    a: 1\nb: 2",
        );
        assert_eq!(out, "x:\n  a: 1\nb: 2 \n");
        // Trailing whitespace the old text has and the file has not is not added either.
        let (out, _) = normalised(
            "def f():\n    if a:\n        x()\n        y()\n",
            "if a:\n    x()\n    y() ",
            "if a:\n    x()\ny() ",
        );
        assert_eq!(out, "def f():\n    if a:\n        x()\n    y()\n");
        // Trailing whitespace the caller does change is written as given.
        let (out, _) = normalised(
            "x:\n  a: 1\n  b: 2 \n",
            "x:\n    a: 1\n    b: 2",
            "x:\n    a: 1\nb: 2  ",
        );
        assert_eq!(out, "x:\n  a: 1\nb: 2  \n");
    }

    #[test]
    fn two_pairings_that_give_a_line_different_line_ends_are_refused() {
        // The changed line replaces b (LF) or c (CRLF): the same cost either way.
        let err = refusal(
            "x:\n  b: 1\n  c: 2\r\nz: 3\r\nw: 4\r\n",
            "x:\nb: 1\nc: 2",
            "x:\nc: 9",
        );
        assert_eq!(err.details["reason"], "pairing_ambiguous");
        assert!(
            err.message.contains("ending it in LF or in CRLF"),
            "{}",
            err.message
        );
        // Where both ends agree, it applies.
        let (out, _) = normalised("x:\n  b: 1\n  c: 2\nz: 3\n", "x:\nb: 1\nc: 2", "x:\nc: 9");
        assert_eq!(out, "x:\n  c: 9\nz: 3\n");
        // Two old lines of one text that end otherwise: which is kept is a guess.
        let err = refusal("f:\n  D\n  E\n  E\r\nz\r\n", "D\nE\nE", "E");
        assert_eq!(err.details["reason"], "pairing_ambiguous");
        // So is which of two new blank lines keeps the file's blank line, ended otherwise
        // than the lines an insertion takes.
        let err = refusal("q\r\n  a\r\n\n  b\r\nr\r\n", "a\n\nb", "a\nX\n\n\nb");
        assert_eq!(err.details["reason"], "pairing_ambiguous");
        // Ends that differ where the file is written alike are no difference: the last line,
        // which has none.
        let (out, _) = normalised("a\nb\nc\nf:\n  D\r\n  E", "f:\nD\nE", "f:\nX");
        assert_eq!(out, "a\nb\nc\nf:\n  X");
    }

    #[test]
    fn a_kept_moved_line_and_an_inserted_copy_that_write_otherwise_are_a_guess() {
        // The old `} ` kept as the moved `  } ` keeps the file's `}` (no trailing space);
        // kept as the last `}` instead, the moved one is inserted with its own space.
        let err = refusal(
            "g {\n  a;\n}\n",
            "g {\n  a;\n} ",
            "g {\n  a;\nif (w) {\n  } \n}",
        );
        assert_eq!(err.details["reason"], "pairing_ambiguous");
    }

    #[test]
    fn tabs_against_spaces_that_cannot_be_converted_are_refused() {
        let err = refusal(
            "if a {\n\tfoo();\n\tbar();\n}\n",
            "    foo();\n    bar();",
            "    foo();\n        baz();\n    bar();",
        );
        assert_eq!(err.details["reason"], "tabs_and_spaces");
        assert_eq!(err.details["line"], 2);
        assert_eq!(err.details["file_line"], 2);
        // With three levels the file's tabs are a known multiple of the caller's spaces.
        let file = "if a {\n\tif b {\n\t\tif c {\n\t\t\tfoo();\n\t\t}\n\t}\n}\n";
        let old = "    if b {\n        if c {\n            foo();\n        }\n    }";
        let (out, _) = normalised(
            file,
            old,
            "    if b {\n        if c {\n            foo();\n                bar();\n        }\n    }",
        );
        assert_eq!(
            out,
            "if a {\n\tif b {\n\t\tif c {\n\t\t\tfoo();\n\t\t\t\tbar();\n\t\t}\n\t}\n}\n"
        );
        // Half a level is not a whole number of tabs.
        let err = refusal(
            file,
            old,
            "    if b {\n        if c {\n            foo();\n              bar();\n        }\n    }",
        );
        assert_eq!(err.details["reason"], "fractional_indentation");
        // The message gives the difference as a difference, not as the line's indentation.
        assert!(
            err.message
                .contains("the line is indented 2 spaces more than the old text's line"),
            "{}",
            err.message
        );
    }

    #[test]
    fn an_old_text_at_part_of_a_level_the_file_shows_no_step_for_is_refused_when_lines_move() {
        // 1 space where the file has 2: the file's level less one, or half of it.
        let err = refusal("  foo()\n  bar()\n", " foo() \n bar()", "FOO()\nbar()");
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        assert!(err.message.contains("half"), "{}", err.message);
        // The same texts moving nothing are placed: every reading agrees.
        let (after, _) = normalised("  foo()\n  bar()\n", " foo() \n bar()", " FOO()\n bar()");
        assert_eq!(after, "  FOO()\n  bar()\n");
        // A stripped old text (no indentation) is an offset under every reading.
        let (after, _) = normalised("  foo()\n  bar()\n", "foo()\nbar()", "foo()\n  baz()");
        assert_eq!(after, "  foo()\n    baz()\n");
        // A file that rises but shows no one step (JSDoc's 1 space ties its 2-space levels)
        // is not a file without steps: the rule is not for it.
        let file = "/**\n * A.\n */\nconst a = 1;\n\n/**\n * B.\n */\nfunction run(xs) {\n  for (const x of xs) {\n    log(x);\n    save(x);\n  }\n}\n";
        let (after, _) = normalised(
            file,
            "  log(x);\n  save(x);",
            "  log(x);\n  if (x) {\n    save(x);\n  }",
        );
        assert!(
            after.contains("    log(x);\n    if (x) {\n      save(x);\n    }\n"),
            "{after}"
        );
    }

    #[test]
    fn a_doc_comments_alignment_is_no_step_of_the_files_indentation() {
        // Two doc comments' ` * ` lines (1 space under `/**`) against two 2-space levels
        // tied the file's increases, so the file showed no step, and a caller indenting by
        // 4 had its 4 taken: `save(x)` was written at 8 spaces where the file's next level
        // is 6, with ok.
        let file = "/**\n * A.\n */\nconst a = 1;\n\n/**\n * B.\n */\nfunction run(xs) {\n  for (const x of xs) {\n    log(x);\n    save(x);\n  }\n}\n";
        let err = refusal(
            file,
            "log(x);\nsave(x);",
            "log(x);\nif (x) {\n    save(x);\n}",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        assert!(
            err.message
                .contains("steps of 4 spaces where the file indents by 2 spaces"),
            "{}",
            err.message
        );
        assert_eq!(err.details["line"], 3);
        assert!(
            err.message.starts_with("line 3 of the new text,"),
            "{}",
            err.message
        );
        // A blank line the texts start with counts in the line the refusal names.
        let err = refusal(
            file,
            "\nlog(x);\nsave(x);",
            "\nlog(x);\nif (x) {\n    save(x);\n}",
        );
        assert_eq!(err.details["line"], 4);
        assert!(
            err.message.starts_with("line 4 of the new text,"),
            "{}",
            err.message
        );
        // A `/*` that nothing closes, or a `*/` in code, hides no line of the file's steps:
        // a reviewer found a shell glob and a regular expression making the file show none,
        // and the caller's 4 taken again.
        for file in [
            "#!/bin/sh\nfor f in src/*.c; do\n  gcc -c \"$f\"\ndone\nmain() {\n  echo a\n  echo b\n}\n",
            "function a(x) {\n  go(x);\n  stop(x);\n}\nconst re = /^\\s*/;\n",
        ] {
            let (old, new) = if file.contains("echo") {
                (
                    "echo a\necho b",
                    "echo a\nif [ -n \"$Y\" ]; then\n    echo b\nfi",
                )
            } else {
                ("go(x);\nstop(x);", "go(x);\nif (x) {\n    stop(x);\n}")
            };
            let err = refusal(file, old, new);
            assert_eq!(err.details["reason"], "indentation_ambiguous", "{file:?}");
        }
        // Indenting by the file's step, the caller is understood.
        let (after, _) = normalised(
            file,
            "log(x);\nsave(x);",
            "log(x);\nif (x) {\n  save(x);\n}",
        );
        assert!(
            after.contains("    log(x);\n    if (x) {\n      save(x);\n    }\n"),
            "{after}"
        );
    }

    #[test]
    fn a_block_comments_lines_in_the_old_text_are_no_level_of_its_frame() {
        // The old text at 2 spaces a level against the file's 4, with a doc comment's ` */`
        // (1 space against 1) among its lines: before 2026-12-05 the comment line broke the
        // ratio the code showed, and the edit was refused.
        let file = "/**\n * Doc.\n */\nint f(void)\n{\n    if (a) {\n        return 0;\n    }\n}\n";
        let wrapped = "/**\n * Doc.\n */\nint f(void)\n{\n    if (a) {\n        if (b) {\n            return 0;\n        }\n    }\n}\n";
        let body = "int f(void)\n{\n  if (a) {\n    return 0;\n  }\n";
        let new_body = "int f(void)\n{\n  if (a) {\n    if (b) {\n      return 0;\n    }\n  }\n";
        for head in [" */\n", "/**\n * Doc.\n */\n"] {
            let (out, _) = normalised(file, &format!("{head}{body}"), &format!("{head}{new_body}"));
            assert_eq!(out, wrapped, "{head:?}");
        }
    }

    #[test]
    fn an_aligned_line_still_maps_the_callers_indentation_to_the_files() {
        // The only indented lines of the old text are inside `import (`: no level, but they
        // show that the caller's 2 spaces are the file's tab. Left out of the map as well as
        // of the ratio, they left it holding column 0 alone, which read as the file's own
        // indentation, and the caller's spaces were written into the tab file with ok.
        let file = "import (\n\t\"errors\"\n)\n\n// Store.\ntype Store struct {\n";
        let (out, _) = normalised(
            file,
            "import (\n  \"errors\"\n)\n\n// Store.\ntype Store struct {\n",
            "import (\n  \"errors\"\n)\n\nif enabled {\n  // Store.\n}\ntype Store struct {\n",
        );
        assert_eq!(
            out,
            "import (\n\t\"errors\"\n)\n\nif enabled {\n\t// Store.\n}\ntype Store struct {\n"
        );
    }

    #[test]
    fn a_new_line_at_a_level_is_not_placed_where_an_aligned_line_of_the_old_text_stands() {
        // The old text's argument at 4 spaces is the file's 12 (aligned under the call); a
        // `return x` the caller puts at 4 is at a level, 8 in the file by the levels' ratio of
        // 2, which two levels alone cannot confirm. It was written at 12 with ok.
        let file = "def f():\n    x = call(\n            a, b)\n    return x\n";
        let err = refusal(
            file,
            "def f():\n  x = call(\n    a, b)\n  return x\n",
            "def f():\n  x = call(\n    a, b)\n  if x:\n    return x\n",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        // With three levels the ratio stands, and the level is the file's 12, not the
        // argument's 20.
        let file =
            "def f():\n    if a:\n        x = call(\n                    b)\n        return x\n";
        let (out, _) = normalised(
            file,
            "def f():\n  if a:\n    x = call(\n      b)\n    return x\n",
            "def f():\n  if a:\n    x = call(\n      b)\n    return x\n  else:\n    if y:\n      return y\n",
        );
        assert_eq!(
            out,
            "def f():\n    if a:\n        x = call(\n                    b)\n        return x\n    else:\n        if y:\n            return y\n"
        );
    }

    #[test]
    fn a_line_moved_to_column_0_stays_there_where_only_an_aligned_line_is_at_0() {
        // The old text's only line at column 0 is the `)` that closes a block it does not
        // open, an aligned line; column 0 is the file's 0 in any frame.
        let file = "import (\n\t\"errors\"\n\t\"sync\"\n)\n";
        let (out, _) = normalised(file, "  \"sync\"\n)\n", "\"sync\"\n)\n");
        assert_eq!(out, "import (\n\t\"errors\"\n\"sync\"\n)\n");
    }

    #[test]
    fn a_literal_replacement_that_changes_whether_the_file_ends_with_a_newline_says_so() {
        let replaced = |text: &str, old: &str, new: &str| {
            let mut ed = Editable::new("f", text.as_bytes()).unwrap();
            let r = replace(&mut ed, "f", old, new, Policy::First, None, None).unwrap();
            (String::from_utf8(ed.into_bytes()).unwrap(), r.warnings)
        };
        let (out, warnings) = replaced("x\na\n", "a\n", "b");
        assert_eq!(out, "x\nb");
        assert!(
            warnings[0].contains("no longer ends with a newline"),
            "{warnings:?}"
        );
        let (out, warnings) = replaced("x\r\na", "a", "b\n");
        assert_eq!(out, "x\r\nb\r\n");
        assert!(
            warnings[0].contains("now ends with a newline"),
            "{warnings:?}"
        );
        let (out, warnings) = replaced("x\na\n", "a\n", "b\n");
        assert_eq!((out.as_str(), warnings.len()), ("x\nb\n", 0));
    }

    #[test]
    fn a_continuation_line_is_placed_from_the_line_it_continues() {
        // A body line after `b):`, which closes `if (a and`, is a level in from the `if`,
        // not at `b):`'s place (8 in the file, where one level is 6).
        let (out, _) = normalised(
            "class C:\n  def f(self):\n    if (a and\n        b):\n      x = 1\n    return 2\n",
            "class C:\n    def f(self):\n        if (a and\n            b):\n",
            "class C:\n    def f(self):\n        if (a and\n            b):\n            y = 0\n",
        );
        assert_eq!(
            out,
            "class C:\n  def f(self):\n    if (a and\n        b):\n      y = 0\n      x = 1\n    return 2\n"
        );
        // A call moved into a block keeps its argument under the first: the file's columns
        // past the call, not the caller's 4 more.
        let (out, _) = normalised(
            "def g():\n  if z:\n    return 0\nv = build(\n  p)\nresult = compute(a,\n                 b)\n",
            "v = build(\n    p)\nresult = compute(a,\n                 b)\n",
            "v = build(\n    p)\nif ok:\n    result = compute(a,\n                     b)\n",
        );
        assert!(
            out.ends_with("if ok:\n  result = compute(a,\n                   b)\n"),
            "{out}"
        );
        // A new call's argument is measured from the call, not from the last argument of
        // the call before it (which the file indents 8 past its call, the caller 4).
        let (out, _) = normalised(
            "def f():\n    value = build(\n            a,\n            b)\n    msg = 1\n",
            "  value = build(\n      a,\n      b)\n  msg = 1\n",
            "  value = build(\n      a,\n      b)\n  res = compute(x,\n                y)\n  msg = 1\n",
        );
        assert!(
            out.contains("\n    res = compute(x,\n                  y)\n"),
            "{out}"
        );
        // A doc comment's ` * ` stands one column under its `/**`, whatever column the
        // arguments of another statement put in the map.
        let (out, _) = normalised(
            "const v = build(\n  a,\n  b);\nfunction g() {\n  return 1;\n}\n",
            "const v = build(\n a,\n b);\nfunction g() {\n",
            "const v = build(\n a,\n b);\n/**\n * Doc for g.\n */\nfunction g() {\n",
        );
        assert!(out.contains("\n/**\n * Doc for g.\n */\n"), "{out}");
        // A list item's content stands two columns past its `-`, as text, not a level.
        let (out, _) = normalised(
            "jobs:\n    build:\n        steps:\n            - name: a\n    test:\n        steps: []\n",
            "jobs:\n  build:\n    steps:\n      - name: a\n",
            "jobs:\n  build:\n    steps:\n      - name: a\n      - name: b\n        run: y\n",
        );
        assert!(
            out.contains("            - name: b\n              run: y\n"),
            "{out}"
        );
        // A line after one that ends with an operator continues it: scaled, its columns may
        // be levels too (it was scaled as levels, 56 spaces where 26 were meant).
        let err = refusal(
            "void f() {\n    if (a) {\n        x = 1;\n    }\n}\n",
            "void f() {\n  if (a) {\n    x = 1;\n",
            "void f() {\n  if (a) {\n    x = 1;\n    total = first +\n            second;\n",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous", "{err:?}");
        // A line after a `\\` continues it: scaled, its columns may be levels too.
        let err = refusal(
            "class C:\n    def f(self):\n        if x:\n            pass\n        return 1\n",
            "class C:\n  def f(self):\n    if x:\n      pass\n",
            "class C:\n  def f(self):\n    if x:\n      pass\n    total = first + \\\n            second\n",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous", "{err:?}");
    }

    #[test]
    fn a_comment_or_an_argument_is_placed_by_what_the_file_shows_of_its_kind() {
        // A doc comment opened by a line that is itself inside `defineConfig({`: its ` * `
        // lines stand one column under its `/**`, not measured from the call.
        let (out, _) = normalised(
            "import react from 'react';\n\nexport default defineConfig({\n  plugins: [react()],\n  server: {\n    port: 3000,\n  },\n});\n",
            "export default defineConfig({\n    plugins: [react()],\n    server: {\n        port: 3000,\n    },\n});\n",
            "export default defineConfig({\n    plugins: [react()],\n    /**\n     * Dev server options.\n     */\n    server: {\n        port: 3000,\n    },\n});\n",
        );
        assert!(
            out.contains("\n  /**\n   * Dev server options.\n   */\n  server: {\n"),
            "{out}"
        );
        // A comment's text nested deeper in a scaled frame: columns or levels? Refused.
        let err = refusal(
            "int main() {\n    if (x) {\n        /*\n            first\n        */\n        y();\n    }\n}\n",
            "int main() {\n  if (x) {\n    /*\n      first\n    */\n    y();\n",
            "int main() {\n  if (x) {\n    /*\n      first\n        detail\n    */\n    y();\n",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous", "{err:?}");
        // A comment between two calls of a chain stands where they do.
        let (out, _) = normalised(
            "class A {\n    void f() {\n        String s = list.stream()\n                .filter(x -> x > 0)\n                .map(String::valueOf);\n    }\n}\n",
            "String s = list.stream()\n    .filter(x -> x > 0)\n    .map(String::valueOf);\n",
            "String s = list.stream()\n    .filter(x -> x > 0)\n    // as strings\n    .map(String::valueOf);\n",
        );
        assert!(
            out.contains("\n                // as strings\n                .map("),
            "{out}"
        );
        // So does a `/* */` block between two calls of a chain.
        let (out, _) = normalised(
            "class A {\n    void f() {\n        String s = list.stream()\n                .filter(x -> x > 0)\n                .map(String::valueOf);\n    }\n}\n",
            "String s = list.stream()\n    .filter(x -> x > 0)\n    .map(String::valueOf);\n",
            "String s = list.stream()\n    .filter(x -> x > 0)\n    /*\n     * note\n     */\n    .map(String::valueOf);\n",
        );
        assert!(
            out.contains("\n                /*\n                 * note\n                 */\n                .map("),
            "{out}"
        );
        // An argument inserted above the one it stands beside goes where the file has that
        // one, in a call and after a `\\`.
        let (out, _) = normalised(
            "class A {\n    void f() {\n        call(first,\n                second);\n    }\n}\n",
            "class A {\n    void f() {\n        call(first,\n            second);\n    }\n}\n",
            "class A {\n    void f() {\n        call(first,\n            middle,\n            second);\n    }\n}\n",
        );
        assert!(
            out.contains("call(first,\n                middle,\n                second);"),
            "{out}"
        );
        let (out, _) = normalised(
            "#!/bin/sh\nif [ -n \"$X\" ]; then\n    docker run \\\n        --rm \\\n        image:latest\nfi\n",
            "docker run \\\n  --rm \\\n  image:latest\n",
            "docker run \\\n  -it \\\n  --rm \\\n  image:latest\n",
        );
        assert!(
            out.contains("docker run \\\n        -it \\\n        --rm \\\n"),
            "{out}"
        );
    }

    #[test]
    fn a_new_comment_line_takes_the_place_an_old_comment_line_shows() {
        // The old text's ` */` (5 spaces, the file's 3) is the only line at 5: a new comment
        // line there is the comment's, not a level, and takes the file's 3.
        let file = "class A {\n  /**\n   * Returns.\n   */\n  get(key) {\n    if (x) {\n";
        let (out, _) = normalised(
            file,
            "     */\n    get(key) {\n      if (x) {\n",
            "     */ x\n    log(1);\n    get(key2) {\n      if (x) {\n",
        );
        assert_eq!(
            out,
            "class A {\n  /**\n   * Returns.\n   */ x\n  log(1);\n  get(key2) {\n    if (x) {\n"
        );
    }

    #[test]
    fn a_file_whose_increases_of_indentation_show_no_one_step_corroborates_no_ratio_of_1() {
        // A file whose increases tie (one of 2, one of 4) shows no step to hold a caller's
        // against: `e` could be one level of the file's under `c` or two.
        let err = refusal(
            "a:\n  b: 1\n  c:\n      d: 2\n",
            "b: 1\nc:",
            "b: 1\nc:\n  e: 3",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        assert!(err.message.contains("show no one step"), "{}", err.message);
    }

    #[test]
    fn an_inserted_line_in_a_stripped_frame_is_refused_with_the_reason() {
        let text = "def f():\n    return 1\n\ndef g():\n    return 2\n";
        let err = refusal(text, "def g():\nreturn 2", "def g():\nreturn 2\nreturn 3");
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        assert_eq!(err.details["line"], 3);
        assert_eq!(err.details["file_line"], 5);
        assert_eq!(
            err.message,
            "line 3 of the new text is inserted after file line 5, but the old text's indentation does not follow the file's (file line 5 is indented by 4 spaces where the old text has none, as it has for file line 4, which is not indented), so its indentation in the file cannot be inferred; nothing was written"
        );
        // A changed indentation in the same frame is refused too.
        let err = refusal(text, "def g():\nreturn 2", "def g():\n  return 2");
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        assert_eq!(err.details["line"], 2);
    }

    #[test]
    fn an_inserted_line_between_two_lines_of_one_level_is_placed_even_in_a_stripped_frame() {
        let text = "def g():\n    a()\n    b()\n";
        let (out, _) = normalised(text, "def g():\na()\nb()", "def g():\na()\nmid()\nb()");
        assert_eq!(out, "def g():\n    a()\n    mid()\n    b()\n");
    }

    #[test]
    fn a_dedent_below_the_margin_is_refused() {
        let err = refusal("  k();\nz\n", "    k();", "m();");
        assert_eq!(err.details["reason"], "negative_indentation");
    }

    #[test]
    fn with_all_a_refusal_in_one_window_refuses_every_window() {
        let mut ed = Editable::new("f", b"  k();\nz\n\tk();\n").unwrap();
        let err = replace(
            &mut ed,
            "f",
            "    k();",
            "      k();",
            Policy::All,
            None,
            None,
        )
        .err()
        .expect("refused");
        assert_eq!(err.code, Code::NoMatch);
        assert_eq!(err.details["file_line"], 3);
        assert_eq!(ed.into_bytes(), b"  k();\nz\n\tk();\n");
        // Each window on its own: here both can be placed.
        let (out, r) = run("  k();\nz\n\tk();  \n", "    k();", "    m();", Policy::All).unwrap();
        assert_eq!(out, "  m();\nz\n\tm();\n");
        assert!(
            r.warnings[0].contains("(lines 1-1, 3-3)"),
            "{:?}",
            r.warnings
        );
        assert!(
            r.warnings[0].contains("result line 1 (2 spaces), result line 3 (1 tab)"),
            "{:?}",
            r.warnings
        );
        // The warning numbers new lines as they are in the result, after earlier windows grew.
        let (out, r) = run(
            "  k();\nz\n  k();\n",
            "    k();",
            "    m();\n    n();",
            Policy::All,
        )
        .unwrap();
        assert_eq!(out, "  m();\n  n();\nz\n  m();\n  n();\n");
        assert!(
            r.warnings[0].contains(
                "4 lines re-indented to the file's levels: result line 1 (2 spaces), result line 2 (2 spaces), result line 4 (2 spaces), result line 5 (2 spaces)"
            ),
            "{:?}",
            r.warnings
        );
    }

    #[test]
    fn blank_lines_around_the_old_text_take_their_counterparts_in_the_new_text_with_them() {
        let (out, _) = normalised("a\n    b()\nc\n", "\nb()\n\n", "\nd()\n\n");
        assert_eq!(out, "a\n    d()\nc\n");
    }

    #[test]
    fn a_changed_block_with_another_number_of_lines_in_an_inconsistent_frame_is_refused() {
        // `return 2` used to take `log()`'s 8 spaces: paired in order, it replaced `log()`.
        let text = "def f():\n    if a:\n        log()\n    return 1\n";
        let err = refusal(text, "log()\nreturn 1", "return 2");
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        assert_eq!(err.details["line"], 1);
        assert_eq!(err.details["file_line"], 3);
        assert!(err.message.contains("is a guess"), "{}", err.message);
        // As many new lines as old ones: the caller wrote them line for line.
        let (out, _) = normalised(text, "log()\nreturn 1", "log(2)\nreturn 2");
        assert_eq!(out, "def f():\n    if a:\n        log(2)\n    return 2\n");
        // Old lines the file indents alike: every pairing gives the same indentation.
        let (out, _) = normalised(
            "def f():\n    a()\n    b()\n",
            "def f():\na()\nb()",
            "def f():\nc()",
        );
        assert_eq!(out, "def f():\n    c()\n");
    }

    #[test]
    fn a_result_that_depends_on_which_equal_line_is_kept_is_refused() {
        // Deleting `x()` and one `a()`: which `a()` stays decides its indentation.
        let text = "    if c:\n        a()\n    x()\n    a()\n";
        let err = refusal(text, "a()\nx()\na()", "a()");
        assert_eq!(err.details["reason"], "pairing_ambiguous");
        assert_eq!(err.details["line"], 1);
        // The same deletion where the file indents both alike is one result either way.
        let (out, _) = normalised("    a()\n    x()\n    a()\n", "a()\nx()\na()", "a()");
        assert_eq!(out, "    a()\n");
    }

    #[test]
    fn a_kept_line_that_equals_another_old_line_the_file_indents_otherwise_is_refused() {
        // Deleting `log()` and one `return`: a diff keeps the last `return` read either way,
        // but keeping the first is as small a change, and the two write different code.
        let text = "def f():\n    if x:\n        log()\n        return\n    return\n";
        let err = refusal(text, "log()\nreturn\nreturn", "return");
        assert_eq!(err.details["reason"], "pairing_ambiguous");
        assert_eq!(
            (
                err.details["line"].clone(),
                err.details["file_line"].clone()
            ),
            (1.into(), 3.into())
        );
        assert!(
            err.message
                .contains(r#"("    return" or "        return")"#),
            "{}",
            err.message
        );
        let err = refusal("if x:\n    a\n    b\nb\n", "a\nb\nb", "b");
        assert_eq!(err.details["reason"], "pairing_ambiguous");
        // Alike in the file: one result whichever is kept.
        let (out, _) = normalised("  a\n  b\n  b\n", "a\nb\nb", "b");
        assert_eq!(out, "  b\n");
        // A line changed in its place is one change, not a deletion and an insertion: the
        // `}` the new text keeps is the first one, whatever the file's indentation.
        let (out, _) = normalised("        }\n    }\n", "}\n}", "}\n} x");
        assert_eq!(out, "        }\n    } x\n");
    }

    #[test]
    fn a_scaled_change_of_part_of_a_level_or_of_a_continuation_line_is_refused() {
        // The old text at 2 spaces a level, the file at 4: ratio 2 over three levels.
        let text = "def f():\n    if a:\n        if b:\n            x()\n    y()\n";
        let old = "if a:\n  if b:\n    x()\ny()";
        // A whole level deeper is scaled to one of the file's.
        let (out, _) = normalised(text, old, "if a:\n  if b:\n    x()\n      z()\ny()");
        assert!(out.contains("\n                z()\n"), "{out}");
        // A line 1 space left of x() would be written at 10 spaces, between the levels.
        let err = refusal(text, old, "if a:\n  if b:\n    x()\n   z()\ny()");
        assert_eq!(err.details["reason"], "indentation_ambiguous", "{err:?}");
        assert!(
            err.message
                .contains("not a whole number of the old text's levels")
        );
        // An argument aligned under the first: columns (16) or levels (20)?
        let err = refusal(
            text,
            old,
            "if a:\n  if b:\n    x()\n    foo(a,\n        b)\ny()",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous", "{err:?}");
        assert!(err.message.contains("continuation line"), "{}", err.message);
    }

    #[test]
    fn which_of_two_equal_new_lines_keeps_the_files_line_is_no_guess() {
        // The file's blank line holds a space: kept with the first new blank line or the
        // second is one change either way (X and a blank line inserted), and the two put the
        // space on different lines. Both readings of the diff kept the second.
        let err = refusal("a\n \nb\n", "a\n\nb", "a\nX\n\n\nb");
        assert_eq!(err.details["reason"], "pairing_ambiguous", "{err:?}");
        // So with a line's trailing whitespace, which of two copies keeps it.
        let err = refusal("  w\n  x  \n  y\n", "w\nx\ny", "W\nx\nx\ny");
        assert_eq!(err.details["reason"], "pairing_ambiguous", "{err:?}");
        // A file line that is the new line as given is written alike either way.
        let (out, _) = normalised("a\n\nb\n", "a \n\nb", "a\nX\n\n\nb");
        assert_eq!(out, "a\nX\n\n\nb\n");
        // The other copy changed from another old line: keeping foo() and changing bar()
        // into a second foo(), or inserting one and changing bar() into baz(), cost alike.
        let err = refusal(
            "  foo()  \n  bar()\n",
            "foo()\nbar()",
            "foo()\nfoo()\nbaz()",
        );
        assert_eq!(err.details["reason"], "pairing_ambiguous", "{err:?}");
        let (out, _) = normalised("  foo()\n  bar()\n", "foo()\nbar()", "foo()\nfoo()\nbaz()");
        assert_eq!(out, "  foo()\n  foo()\n  baz()\n");
    }

    #[test]
    fn a_kept_line_whose_indentation_tells_which_old_line_it_is_applies() {
        // The old text keeps the file's levels (only a trailing space differs): the kept
        // `return` is the outer one by its own indentation, and either pairing writes it so.
        let text = "def f(x):\n    if x:\n        log() \n        return\n    return\n";
        let old = "    if x:\n        log()\n        return\n    return";
        let (out, _) = normalised(text, old, "    return");
        assert_eq!(out, "def f(x):\n    return\n");
        // Spaces sent for a tab-indented file, a block wrapped around a line.
        let text = "func f() {\n\tfor {\n\t\tg()\n\t}\n}\n";
        let old = "    for {\n        g()\n    }\n}";
        let new = "    for {\n        if x {\n            g()\n        }\n    }\n}";
        let (out, _) = normalised(text, old, new);
        assert_eq!(
            out,
            "func f() {\n\tfor {\n\t\tif x {\n\t\t\tg()\n\t\t}\n\t}\n}\n"
        );
        // An old text dedented by a level: unwrapping the `if`.
        let text = "def f(x):\n    if debug:\n        log()\n        return\n    return\n";
        let (out, _) = normalised(
            text,
            "if debug:\n    log()\n    return\nreturn",
            "log()\nreturn",
        );
        assert_eq!(out, "def f(x):\n    log()\n    return\n");
    }

    #[test]
    fn old_and_new_texts_that_disagree_on_a_final_line_end_are_refused() {
        let text = "a:\n    x()\n\n    y()\nz()\n";
        // Literally, the new text's line end would leave an empty line before `z()`.
        let err = refusal(text, "x()\n\ny()", "x()\n");
        assert_eq!(err.details["reason"], "final_line_end");
        assert_eq!(err.details["file_line"], 2);
        // Literally, `X()` would run into `z()`; and an empty new text would leave a line.
        assert_eq!(
            refusal(text, "x()\n\ny()\n", "X()").details["reason"],
            "final_line_end"
        );
        assert_eq!(
            refusal(text, "x()\n\ny()", "").details["reason"],
            "final_line_end"
        );
        // An empty new text over lines with their line end deletes them; texts that agree
        // replace whole lines either way.
        assert_eq!(normalised(text, "x()\n\ny()\n", "").0, "a:\nz()\n");
        assert_eq!(
            normalised(text, "x()\n\ny()\n", "X()\n").0,
            "a:\n    X()\nz()\n"
        );
        assert_eq!(
            normalised(text, "x()\n\ny()", "X()").0,
            "a:\n    X()\nz()\n"
        );
        // At the end of a file without a final newline there is no line end to run on to:
        // the file keeps having none.
        let (out, _) = normalised("a:\n    x()\n    y()", "x()\ny()", "X()\nY()\n");
        assert_eq!(out, "a:\n    X()\n    Y()");
    }

    #[test]
    fn a_new_line_at_the_files_own_indentation_where_the_old_line_was_not_is_refused() {
        // The old text stripped, the new one at the file's 4 spaces: kept at 4, or moved by
        // +4 to 8? A guess either way.
        let err = refusal(
            "def f():\n    foo()\n    bar()\n",
            "foo()\nbar()",
            "    foo()\n    baz()\n    bar()",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        assert_eq!(err.details["line"], 1);
        // So is such a text with one line indented, dedented or wrapped in the file's frame
        // (every line was moved by the difference).
        let text = "class A:\n    def f(self):\n        a = 1\n        b = 2\n";
        for new in [
            "        if a:\n            a = 1\n        b = 2",
            "        a = 1\n            b = 2",
            "        a = 1\n    b = 2",
        ] {
            let err = refusal(text, "a = 1\nb = 2", new);
            assert_eq!(err.details["reason"], "indentation_ambiguous", "{new:?}");
            assert!(err.message.contains("file's frame"), "{}", err.message);
        }
        // One paired line left at the old text's indentation shows the old text's frame.
        let (out, _) = normalised(text, "a = 1\nb = 2", "if a:\n    a = 1\nb = 2");
        assert_eq!(
            out,
            "class A:\n    def f(self):\n        if a:\n            a = 1\n        b = 2\n"
        );
        // Moved by the file's step to where the file has no line, the caller's shift is the
        // only reading.
        let (out, _) = normalised(
            "class A:\n    def f():\n        foo()\n        bar()\n",
            "foo()\nbar()",
            "    foo()\n    bar()",
        );
        assert_eq!(
            out,
            "class A:\n    def f():\n            foo()\n            bar()\n"
        );
    }

    #[test]
    fn a_ratio_of_1_that_few_levels_show_needs_the_texts_to_indent_by_the_files_step() {
        // The old text at 2 spaces against the file's 8, in a file indented by 4: a line
        // moved 2 left is one level of the caller's (to 4) or 2 spaces (to 6)? Before
        // 2026-12-04 ratio 1 was assumed and the line written at 6 with ok.
        let text = "class A:\n    def f(self):\n        x = 1\n        y = 2\n";
        let err = refusal(text, "  x = 1\n  y = 2\n", "  x = 1\ny = 2\n");
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        assert_eq!(err.details["line"], 2);
        assert_eq!(err.details["file_line"], 4);
        assert!(
            err.message
                .contains("steps of 2 spaces where the file indents by 4 spaces"),
            "{}",
            err.message
        );
        // So is an inserted line, and a shift of the whole block.
        let err = refusal(text, "  x = 1\n  y = 2\n", "  x = 1\n    z = 3\n  y = 2\n");
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        let err = refusal(text, "x = 1\ny = 2\n", "  x = 1\n  y = 2\n");
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        // Texts that indent by the file's step keep ratio 1.
        let (out, _) = normalised(
            text,
            "  x = 1\n  y = 2\n",
            "  x = 1\n      if y:\n          y = 2\n",
        );
        assert_eq!(
            out,
            "class A:\n    def f(self):\n        x = 1\n            if y:\n                y = 2\n"
        );
        // A caller indenting by 4 in a file indented by 2: one of its levels may be one of
        // the file's (it was written two levels deeper).
        let err = refusal(
            "def f():\n  x = 1\n  y = 2\n",
            "x = 1\ny = 2\n",
            "x = 1\nif c:\n    y = 2\n",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        // An argument aligned under the first neither hides the file's step (it made the
        // step 1, and every change was taken)...
        let text = "def f():\n    result = g(a,\n               b)\n    x = 1\n    y = 2\n";
        let err = refusal(text, "x = 1\ny = 2\n", "x = 1\nif c:\n  y = 2\n");
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        let (out, _) = normalised(text, "x = 1\ny = 2\n", "x = 1\nif c:\n    y = 2\n");
        assert!(
            out.ends_with("    x = 1\n    if c:\n        y = 2\n"),
            "{out}"
        );
        // ... nor counts as a level that shows ratio 1 (a line was written at 6 spaces).
        let text = "def f():\n    r = compute(alpha,\n                beta)\n    z = 0\n";
        let err = refusal(
            text,
            "r = compute(alpha,\n            beta)\n",
            "r = compute(alpha,\n            beta)\nif r:\n  log(r)\n",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        // A continuation line is aligned by columns under what it continues, and held to no
        // step: an argument realigned after a rename, a call and a literal inserted with
        // their arguments aligned (a reviewer found these refused as steps of 3, 5 and 6).
        let text = "def f():\n    result = compute(alpha,\n                     beta)\n    z = 0\n";
        let (out, _) = normalised(
            text,
            "result = compute(alpha,\n                 beta)\nz = 0\n",
            "res = compute(alpha,\n              beta)\nz = 0\n",
        );
        assert_eq!(
            out,
            "def f():\n    res = compute(alpha,\n                  beta)\n    z = 0\n"
        );
        let text = "def f():\n    z = 0 \n";
        let (out, _) = normalised(
            text,
            "z = 0\n",
            "z = 0\nx = {\"a\": 1,\n     \"b\": 2}\ny = f(1,\n      2)\n",
        );
        assert!(
            out.ends_with(
                "    z = 0 \n    x = {\"a\": 1,\n         \"b\": 2}\n    y = f(1,\n          2)\n"
            ),
            "{out}"
        );
        // A text cut from the middle of a call starts with a continuation line: it shows no
        // step, and a line inserted after it is not measured by its alignment (both made a
        // step of 1, and the edit was refused).
        let text = "def f():\n  r = g(alpha,\n        beta)\n  x = 1\n  while w:\n    pass\n";
        let (out, _) = normalised(
            text,
            "      beta)\nx = 1\nwhile w:\n",
            "      beta)\n  return None\n  x = 1\n  while w:\n",
        );
        assert_eq!(
            out,
            "def f():\n  r = g(alpha,\n        beta)\n    return None\n    x = 1\n    while w:\n    pass\n"
        );
        // A bracket in a comment, after an apostrophe or a lifetime, or a `{` followed by a
        // comment does not make the rest of the file continuation lines, which hid its step
        // (a reviewer found the 2-space move above written at 6 spaces again).
        for head in [
            "# Retry the call (it's idempotent).\n",
            "fn g(s: &'a str) {}\n",
            "if (x) {  // note\n}\n",
        ] {
            let text = format!("{head}class A:\n    def f(self):\n        x = 1\n        y = 2\n");
            let err = refusal(&text, "  x = 1\n  y = 2\n", "  x = 1\ny = 2\n");
            assert_eq!(err.details["reason"], "indentation_ambiguous", "{head:?}");
        }
        // Tabs are their own step.
        let (out, _) = normalised("f {\n\tx;\n\ty;\n}\n", "x;\ny;\n", "x;\n\tz;\ny;\n");
        assert_eq!(out, "f {\n\tx;\n\t\tz;\n\ty;\n}\n");
    }

    #[test]
    fn two_levels_of_indentation_do_not_show_a_ratio_other_than_1() {
        // {0 -> 4, 8 -> 8} fits ratio 1/2 and as well ratio 1 with `def`'s 4 spaces lost.
        let text = "class A:\n    def f(self): \n        x = 1\n        return x\n";
        let err = refusal(
            text,
            "def f(self):\n        x = 1\n        return x",
            "def f(self):\n        x = 1\n        if x:\n            z()\n        return x",
        );
        assert_eq!(err.details["reason"], "indentation_ambiguous");
        assert_eq!(err.details["line"], 4);
        assert!(err.message.contains("only two levels"), "{}", err.message);
        // New lines at levels the map holds need no ratio.
        let (out, _) = normalised(
            text,
            "def f(self):\n        x = 1\n        return x",
            "def f(self):\n        x = 1\n        y = x\n        return x",
        );
        assert_eq!(
            out,
            "class A:\n    def f(self): \n        x = 1\n        y = x\n        return x\n"
        );
        // Ratio 1 with two levels is a plain shift.
        let (out, _) = normalised(
            "fn f() {\n    if a {\n        run();\n    }\n}\n",
            "if a {\n    run();\n}",
            "if a {\n    run();\n        more();\n}",
        );
        assert_eq!(
            out,
            "fn f() {\n    if a {\n        run();\n            more();\n    }\n}\n"
        );
    }

    #[test]
    fn blank_lines_the_new_text_drops_at_an_end_of_the_old_text_are_refused() {
        let text = "x = 0\n    foo()\n    more()\n\n\ny = 1\n";
        let err = refusal(text, "foo()\nmore()\n\n\n", "bar()\n");
        assert_eq!(err.details["reason"], "blank_edge_lines");
        assert_eq!(err.details["line"], 1);
        assert_eq!(err.details["file_line"], 3);
        let recovery = err.details["recovery"].as_str().unwrap();
        assert!(recovery.contains("by their numbers"), "{recovery}");
        let err = refusal(text, "\nfoo()\nmore()", "bar()");
        assert_eq!(err.details["file_line"], 2);
        // Kept as many at that end: the blank lines stay as the file has them.
        let (out, _) = normalised(text, "foo()\nmore()\n\n\n", "bar()\n\n\n");
        assert_eq!(out, "x = 0\n    bar()\n\n\ny = 1\n");
        // Edge blank lines the file does not have are context on both sides when the new
        // text keeps them: nothing is written for them...
        let text = "x\n    foo()\n    more()\ny\n";
        let (out, _) = normalised(text, "\n\n\nfoo()\nmore()\n\n\n\n", "\n\n\nbar()\n\n\n\n");
        assert_eq!(out, "x\n    bar()\ny\n");
        // ...and dropping them is refused like dropping real ones.
        let err = refusal(text, "\n\n\nfoo()\nmore()\n\n\n\n", "bar()\n");
        assert_eq!(err.details["reason"], "blank_edge_lines");
    }

    #[test]
    fn an_unchanged_line_whose_trailing_whitespace_the_caller_changed_is_written_with_it() {
        let text = "def f():\n    return x  \n    y\n";
        let (out, r) = normalised(text, "return x  \ny", "return x\ny");
        assert_eq!(out, "def f():\n    return x\n    y\n");
        assert!(
            r.warnings[0].contains("1 line kept exactly"),
            "{:?}",
            r.warnings
        );
        // Trailing whitespace left as the old text had it: the file's line, byte for byte.
        let (out, _) = normalised(text, "return x  \ny", "return x  \nz");
        assert_eq!(out, "def f():\n    return x  \n    z\n");
        let (out, _) = normalised("  a \n  b\n", "a\nb", "a\nc");
        assert_eq!(out, "  a \n  c\n");
        // Trailing whitespace added by the caller is written, at the file's indentation.
        let (out, _) = normalised("  a\n  b\n", "a\nb", "a\t\nb");
        assert_eq!(out, "  a\t\n  b\n");
    }

    #[test]
    fn no_match_names_the_nearest_lines() {
        let err = run(
            "alpha\nbeta gamma\ndelta\n",
            "beta gamme",
            "x",
            Policy::First,
        )
        .err()
        .unwrap();
        assert_eq!(err.code, Code::NoMatch);
        assert_eq!(err.details["candidates"][0]["line"], 2);
    }

    fn refused(text: &str, old: &str, policy: Policy, expected: Option<u64>) -> Error {
        let mut ed = Editable::new("f", text.as_bytes()).unwrap();
        let err = replace(&mut ed, "f", old, "NEW", policy, expected, None)
            .err()
            .expect("refused");
        assert_eq!(
            ed.into_bytes(),
            text.as_bytes(),
            "a refusal changed the text"
        );
        err
    }

    #[test]
    fn an_ambiguous_first_lists_every_match_and_points_to_the_occurrence() {
        let text = "top\nx = 1\nmid\nx = 1 and x = 1\nend\n";
        let err = refused(text, "x = 1", Policy::First, None);
        assert_eq!(err.code, Code::MatchCountMismatch);
        assert_eq!(err.details["match_count"], 3);
        assert_eq!(err.details["matches_truncated"], false);
        assert_eq!(
            err.details["matches"],
            serde_json::json!([
                {"line": 2, "end_line": 2, "before": "top", "text": "x = 1", "after": "mid"},
                {"line": 4, "end_line": 4, "before": "mid", "text": "x = 1 and x = 1", "after": "end"},
                {"line": 4, "end_line": 4, "before": "mid", "text": "x = 1 and x = 1", "after": "end"},
            ])
        );
        let recovery = err.details["recovery"].as_str().unwrap();
        assert!(recovery.contains("occurrence N"), "{recovery}");
        assert!(!recovery.contains("confirm the count"), "{recovery}");
        // A multi-line match names the lines it spans; the first and last lines have no
        // neighbour on one side.
        let err = refused("a\nb\na\nb", "a\nb", Policy::First, None);
        assert_eq!(err.details["matches"][0]["end_line"], 2);
        assert_eq!(err.details["matches"][0]["before"], serde_json::Value::Null);
        assert_eq!(err.details["matches"][1]["line"], 3);
        assert_eq!(err.details["matches"][1]["after"], serde_json::Value::Null);
    }

    #[test]
    fn the_listed_matches_are_bounded_and_say_so() {
        let text = "same\n".repeat(25);
        let err = refused(&text, "same", Policy::First, None);
        assert_eq!(err.details["match_count"], 25);
        assert_eq!(err.details["matches"].as_array().unwrap().len(), MAX_LISTED);
        assert_eq!(err.details["matches_truncated"], true);
        // A long line is quoted cut.
        let long = format!("{}\n{}\n", "k".repeat(500), "k".repeat(500));
        let err = refused(&long, "kk", Policy::All, Some(1));
        let quoted = err.details["matches"][0]["text"].as_str().unwrap();
        assert_eq!(quoted.len(), locate::CONTEXT_CHARS);
    }

    #[test]
    fn an_occurrence_replaces_exactly_that_match() {
        for (n, want) in [(1, "A b a b a\n"), (2, "a b A b a\n"), (3, "a b a b A\n")] {
            let (out, r) = run("a b a b a\n", "a", "A", Policy::Occurrence(n)).unwrap();
            assert_eq!((out.as_str(), r.count, r.stage), (want, 3, "exact"));
        }
        // One match and occurrence 1 is the plain case.
        let (out, _) = run("a b\n", "b", "B", Policy::Occurrence(1)).unwrap();
        assert_eq!(out, "a B\n");
        // With the count confirmed, both must agree.
        let mut ed = Editable::new("f", b"a a\n").unwrap();
        replace(&mut ed, "f", "a", "A", Policy::Occurrence(2), Some(2), None).unwrap();
        assert_eq!(ed.into_bytes(), b"a A\n");
        let err = refused("a a\n", "a", Policy::Occurrence(2), Some(3));
        assert_eq!(err.code, Code::MatchCountMismatch);
        assert_eq!(err.details["expected_match_count"], 3);
        assert_eq!(err.details["matches"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn an_occurrence_past_the_last_match_is_refused_with_the_matches() {
        let err = refused("a\nb\na\n", "a", Policy::Occurrence(3), None);
        assert_eq!(err.code, Code::MatchCountMismatch);
        assert_eq!(err.details["occurrence"], 3);
        assert_eq!(err.details["match_count"], 2);
        assert_eq!(err.details["matches"][1]["line"], 3);
        assert!(err.message.contains("match 3"), "{}", err.message);
        let err = refused("a\n", "a", Policy::Occurrence(0), None);
        assert_eq!(err.code, Code::InvalidArgument);
        assert_eq!(err.details["path"], "f");
    }

    #[test]
    fn an_occurrence_counts_the_normalised_matches_match_count_counts() {
        // `k();\nk();` matches four lines of `k();` at lines 1-2, 2-3 and 3-4: overlapping
        // windows are matches too, and an occurrence number picks any of them.
        let text = "  k();\n  k();\n  k();\n  k();\n";
        let mut ed = Editable::new("f", text.as_bytes()).unwrap();
        let r = replace(
            &mut ed,
            "f",
            "k();\nk();",
            "m();\nm();",
            Policy::Occurrence(2),
            None,
            None,
        )
        .unwrap();
        assert_eq!((r.stage, r.count), ("normalised", 3));
        assert_eq!(ed.into_bytes(), b"  k();\n  m();\n  m();\n  k();\n");
        assert!(r.warnings[0].contains("(lines 2-3)"), "{:?}", r.warnings);
        let err = refused(text, "k();\nk();", Policy::First, None);
        assert_eq!(err.details["match_count"], 3);
        assert_eq!(err.details["matches"][0]["line"], 1);
        assert_eq!(err.details["matches"][0]["end_line"], 2);
        assert_eq!(err.details["matches"][1]["line"], 2);
        assert_eq!(err.details["matches"][2]["line"], 3);
        assert_eq!(err.details["matches"][2]["text"], "  k();");
        let err = refused(text, "k();\nk();", Policy::Occurrence(4), None);
        assert_eq!(err.details["match_count"], 3);
    }

    #[test]
    fn overlapping_occurrences_refuse_first_and_all_and_an_occurrence_picks_one() {
        // Exact: `a\nb\na` occurs at lines 1-3 and 3-5.
        let text = "a\nb\na\nb\na\n";
        let err = refused(text, "a\nb\na", Policy::First, None);
        assert_eq!(err.code, Code::MatchCountMismatch);
        assert_eq!(err.details["match_count"], 2);
        assert_eq!(err.details["matches"][0]["line"], 1);
        assert_eq!(err.details["matches"][0]["end_line"], 3);
        assert_eq!(err.details["matches"][1]["line"], 3);
        assert_eq!(err.details["matches"][1]["end_line"], 5);
        // Every occurrence cannot be replaced: replacing one destroys the other.
        for expected in [None, Some(2)] {
            let err = refused(text, "a\nb\na", Policy::All, expected);
            assert_eq!(err.code, Code::MatchCountMismatch);
            assert_eq!(
                err.details["overlapping_matches"],
                serde_json::json!([1, 2])
            );
            assert!(err.message.contains("overlap"), "{}", err.message);
        }
        let (out, r) = run(text, "a\nb\na", "X", Policy::Occurrence(2)).unwrap();
        assert_eq!((out.as_str(), r.count), ("a\nb\nX\n", 2));
        let (out, _) = run(text, "a\nb\na", "X", Policy::Occurrence(1)).unwrap();
        assert_eq!(out, "X\nb\na\n");
        // Within a line too.
        assert_eq!(
            refused("aaa\n", "aa", Policy::All, None).details["overlapping_matches"],
            serde_json::json!([1, 2])
        );
        // Normalised windows alike.
        let text = "  a\n  b\n  a\n  b\n  a\n";
        let err = refused(text, "a\nb\na", Policy::All, None);
        assert_eq!(
            err.details["overlapping_matches"],
            serde_json::json!([1, 2])
        );
        assert_eq!(
            refused(text, "a\nb\na", Policy::First, None).details["match_count"],
            2
        );
        // Repeated occurrences that do not overlap are all replaced, as before.
        let (out, r) = run("a\nb\na\nx\na\nb\na\n", "a\nb\na", "X", Policy::All).unwrap();
        assert_eq!((out.as_str(), r.count), ("X\nx\nX\n", 2));
        let (out, r) = run("ab ab ab\n", "ab", "c", Policy::All).unwrap();
        assert_eq!((out.as_str(), r.count), ("c c c\n", 3));
    }

    #[test]
    fn the_expected_content_guards_the_chosen_occurrence() {
        // Normalised: the region is the chosen window.
        let text = "  a()\n  x()\n  b()\n  a()\n  x()\n";
        let mut ed = Editable::new("f", text.as_bytes()).unwrap();
        let err = replace(
            &mut ed,
            "f",
            "a()\nx()",
            "z()",
            Policy::Occurrence(2),
            None,
            Some("  b()"),
        )
        .err()
        .unwrap();
        assert_eq!(err.code, Code::ContentConflict);
        assert_eq!(err.details["actual_content"], "  a()\n  x()");
        assert_eq!(
            err.details["expected_found_at"],
            serde_json::json!([{"line": 3, "end_line": 3}])
        );
        assert_eq!(err.details["expected_found_count"], 1);
        let mut ed = Editable::new("f", text.as_bytes()).unwrap();
        replace(
            &mut ed,
            "f",
            "a()\nx()",
            "z()",
            Policy::Occurrence(2),
            None,
            Some("  a()\n  x()\n"),
        )
        .unwrap();
        assert_eq!(ed.into_bytes(), b"  a()\n  x()\n  b()\n  z()\n");
    }

    #[test]
    fn an_exact_guard_says_where_the_expected_text_is() {
        let mut ed = Editable::new("f", b"one\ntwo\nthree\ntwo\n").unwrap();
        let err = replace(&mut ed, "f", "one", "1", Policy::First, None, Some("two\n"))
            .err()
            .unwrap();
        assert_eq!(err.code, Code::ContentConflict);
        assert_eq!(err.details["actual_content"], "one");
        assert_eq!(err.details["actual_content_truncated"], false);
        assert_eq!(
            err.details["expected_found_at"],
            serde_json::json!([{"line": 2, "end_line": 2}, {"line": 4, "end_line": 4}])
        );
        assert_eq!(err.details["expected_found_count"], 2);
    }

    #[test]
    fn no_match_has_a_candidate_for_every_line_of_the_old_text() {
        let text = "fn f() {\n    let a = 1;\n    let b = 2;\n    call(a, b);\n}\n\nfn g() {}\n";
        // The third line is misremembered; the first two are exact.
        let err = run(
            text,
            "let a = 1;\nlet b = 2;\ncall(b, a);",
            "x",
            Policy::First,
        )
        .err()
        .unwrap();
        assert_eq!(err.code, Code::NoMatch);
        let per_line = err.details["line_candidates"].as_array().unwrap();
        assert_eq!(per_line.len(), 3);
        assert_eq!(per_line[0]["old_line"], 1);
        assert_eq!(per_line[0]["line"], 2);
        assert_eq!(per_line[0]["similarity"], 1.0);
        assert_eq!(per_line[1]["line"], 3);
        assert_eq!(per_line[2]["old_line"], 3);
        assert_eq!(per_line[2]["line"], 4);
        assert_eq!(per_line[2]["text"], "    call(a, b);");
        assert!(per_line[2]["similarity"].as_f64().unwrap() < 1.0);
        assert_eq!(err.details["line_candidates_truncated"], false);
        // Blank old lines get none, and the count of lines is bounded.
        let many: String = (0..30).map(|i| format!("nothing like {i}\n\n")).collect();
        let err = run(text, &many, "x", Policy::First).err().unwrap();
        assert_eq!(
            err.details["line_candidates"].as_array().unwrap().len(),
            MAX_CANDIDATE_LINES
        );
        assert_eq!(err.details["line_candidates"][1]["old_line"], 3);
        assert_eq!(err.details["line_candidates_truncated"], true);
    }

    #[test]
    fn line_number_prefixes_are_recognised_and_never_stripped() {
        let text = "alpha\n    beta()\ngamma\n";
        for (old, form) in [
            ("     2\t    beta()\n     3\tgamma\n", "tab"),
            ("     2→    beta()\n     3→gamma", "arrow"),
            ("2:     beta()\n3: gamma\n", "colon"),
            ("2 |     beta()\n3 | gamma", "pipe"),
            ("L2:     beta()\nL3: gamma", "l_colon"),
        ] {
            let mut ed = Editable::new("f", text.as_bytes()).unwrap();
            let err = replace(&mut ed, "f", old, "x", Policy::First, None, None)
                .err()
                .unwrap_or_else(|| panic!("{form}: applied"));
            assert_eq!(ed.into_bytes(), text.as_bytes());
            assert_eq!(err.code, Code::NoMatch, "{form}");
            let found = &err.details["line_number_prefixes"];
            assert_eq!(found["form"], form, "{old:?}");
            assert_eq!(
                (
                    found["first_number"].as_u64(),
                    found["last_number"].as_u64()
                ),
                (Some(2), Some(3))
            );
            assert_eq!(found["stripped_match_count"], 1, "{form}");
            assert_eq!(found["stripped_match_stage"], "exact", "{form}");
            let recovery = err.details["recovery"].as_str().unwrap();
            assert!(recovery.contains("without them"), "{recovery}");
        }
        // Stripped text that matches only normalised, and text that matches nowhere.
        let err = run(text, "2: beta()\n3:   gamma", "x", Policy::First)
            .err()
            .unwrap();
        assert_eq!(
            err.details["line_number_prefixes"]["stripped_match_stage"],
            "normalised"
        );
        let err = run(text, "2: delta\n3: gamma", "x", Policy::First)
            .err()
            .unwrap();
        assert_eq!(
            err.details["line_number_prefixes"]["stripped_match_count"],
            0
        );
        assert_eq!(
            err.details["line_number_prefixes"]["stripped_match_stage"],
            serde_json::Value::Null
        );
        // Numbers that do not increase, a line without a prefix, or bare numbers only: no claim.
        for old in ["3: beta()\n2: gamma", "2: beta()\ngamma", "2\n3\n"] {
            let err = run(text, old, "x", Policy::First).err().unwrap();
            assert!(!err.details.contains_key("line_number_prefixes"), "{old:?}");
        }
    }

    /// What a numbered read shows, pasted back as old text, is caught: the format Filekeeper
    /// emits is one the recognition knows, and the hint says the text matches without it.
    #[test]
    fn a_numbered_reads_lines_are_recognised_as_line_number_prefixes() {
        let text = "fn main() {\n    let x = 1;\n\n    println!(\"{x}\");\n}\n";
        let shown = crate::read::numbered(text, 1);
        let pasted: String = shown
            .lines()
            .skip(1)
            .take(3)
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            pasted,
            "     2\t    let x = 1;\n     3\t\n     4\t    println!(\"{x}\");\n"
        );
        // As shown, and as an agent may send it back with trailing whitespace trimmed.
        let trimmed: String = pasted
            .lines()
            .map(|l| format!("{}\n", l.trim_end()))
            .collect();
        for old in [pasted, trimmed] {
            let err = run(text, &old, "x", Policy::First).err().unwrap();
            assert_eq!(err.code, Code::NoMatch, "{old:?}");
            let found = &err.details["line_number_prefixes"];
            assert_eq!(found["form"], "tab", "{old:?}");
            assert_eq!(
                (
                    found["first_number"].as_u64(),
                    found["last_number"].as_u64()
                ),
                (Some(2), Some(4))
            );
            assert_eq!(found["stripped_match_count"], 1, "{old:?}");
            assert_eq!(found["stripped_match_stage"], "exact", "{old:?}");
        }
    }

    #[test]
    fn replacement_is_literal() {
        let (out, _) = run("cost: $1 (a.b)\n", "$1 (a.b)", "$2 \\1", Policy::First).unwrap();
        assert_eq!(out, "cost: $2 \\1\n");
    }
}
