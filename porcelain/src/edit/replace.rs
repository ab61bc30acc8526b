//! Staged literal text replacement: exact, then normalised, then a useful NO_MATCH.

use super::doc::{Doc, Editable, caller_lines};
use crate::{Code, Error, Result};
use std::collections::HashMap;

/// Which occurrences to replace. There is no default: the caller says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// The first occurrence, which must then be the only one (or the count must be confirmed
    /// with `expected_match_count`).
    First,
    /// Every occurrence.
    All,
}

pub(crate) struct Replaced {
    pub stage: &'static str,
    pub count: usize,
    pub warnings: Vec<String>,
}

/// `text` with its line endings in the file's convention, so caller text typed with `\n`
/// matches a CRLF file and writes CRLF into it.
fn in_convention(text: &str, eol: &str) -> String {
    let lf = text.replace("\r\n", "\n");
    if eol == "\n" {
        lf
    } else {
        lf.replace('\n', eol)
    }
}

fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
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
    let eol = ed.eol();
    let (old_c, new_c) = (in_convention(old, eol), in_convention(new, eol));
    // Exact matches are replaced in the text as read, in one pass: no line is split.
    let body = ed.body();
    let starts: Vec<usize> = body.match_indices(&old_c).map(|(i, _)| i).collect();
    if !starts.is_empty() {
        check_count(path, starts.len(), policy, expected_count)?;
        if let Some(expected) = expected_content {
            check_single(path, starts.len(), policy)?;
            guard_region(path, &old_c, expected, eol)?;
        }
        let replacing = match policy {
            Policy::All => &starts[..],
            Policy::First => &starts[..1],
        };
        let grown = replacing.len() * new_c.len().saturating_sub(old_c.len());
        let mut text = ed.new_text(body.len() + grown);
        let mut copied = 0;
        for &at in replacing {
            text.push_str(&body[copied..at]);
            text.push_str(&new_c);
            copied = at + old_c.len();
        }
        text.push_str(&body[copied..]);
        ed.set_text(text);
        return Ok(Replaced {
            stage: "exact",
            count: starts.len(),
            warnings: Vec::new(),
        });
    }
    // Normalised: whole lines, equal once indentation and trailing whitespace are ignored.
    let doc = ed.doc();
    let mut wanted = caller_lines(old);
    let mut new_lines = caller_lines(new);
    // Blank lines at either end of the old text are not part of the match; as many blank
    // lines at the same end of the new text are their counterparts and go with them.
    let lead = wanted.iter().take_while(|l| l.trim().is_empty()).count();
    wanted.drain(..lead);
    let trail = wanted
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count();
    wanted.truncate(wanted.len() - trail);
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
    let windows: Vec<usize> = if wanted.is_empty() {
        Vec::new()
    } else {
        (0..doc.lines.len().saturating_sub(wanted.len() - 1))
            .filter(|&at| {
                wanted
                    .iter()
                    .enumerate()
                    .all(|(k, w)| doc.lines[at + k].text.trim() == w.trim())
            })
            .collect()
    };
    // Overlapping windows cannot both be replaced; keep them left to right.
    let mut chosen: Vec<usize> = Vec::new();
    for at in windows {
        if chosen.last().is_none_or(|&prev| at >= prev + wanted.len()) {
            chosen.push(at);
        }
    }
    if chosen.is_empty() {
        return Err(no_match(doc, path, old));
    }
    check_count(path, chosen.len(), policy, expected_count)?;
    if let Some(expected) = expected_content {
        check_single(path, chosen.len(), policy)?;
        let region: Vec<&str> = doc.lines[chosen[0]..chosen[0] + wanted.len()]
            .iter()
            .map(|l| l.text.as_ref())
            .collect();
        guard_region(path, &region.join("\n"), expected, "\n")?;
    }
    let found = chosen.len();
    if policy == Policy::First {
        chosen.truncate(1);
    }
    // Every window is rewritten on its own, and all of them before any is written: a
    // refusal in one refuses the whole edit.
    let sources = pair_lines(&wanted, &new_lines);
    let mut rewrites = Vec::with_capacity(chosen.len());
    for &at in &chosen {
        let file: Vec<&str> = doc.lines[at..at + wanted.len()]
            .iter()
            .map(|l| l.text.as_ref())
            .collect();
        let rewrite =
            rewrite(&file, at, &wanted, &new_lines, &sources).map_err(|r| r.into_error(path))?;
        rewrites.push(rewrite);
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
        doc.splice(at, at + wanted.len(), rewrite.lines);
    }
    Ok(Replaced {
        stage: "normalised",
        count: found,
        warnings: vec![format!(
            "the old text matched only after ignoring indentation and trailing whitespace (lines {}); {}; check the result",
            spans.join(", "),
            summary.describe()
        )],
    })
}

/// Where a line of the new text comes from, by a line diff of the old and new texts that
/// ignores leading and trailing whitespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The same text as old line `i`, whitespace aside.
    Equal(usize),
    /// Takes the place of old line `i`: within a changed block, the non-blank lines of each
    /// side are paired in order.
    Changed(usize),
    /// No counterpart in the old text.
    Inserted,
}

fn pair_lines(old: &[String], new: &[String]) -> Vec<Source> {
    let o: Vec<&str> = old.iter().map(|l| l.trim()).collect();
    let n: Vec<&str> = new.iter().map(|l| l.trim()).collect();
    let mut sources = vec![Source::Inserted; n.len()];
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &o, &n) {
        match op {
            similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    sources[new_index + k] = Source::Equal(old_index + k);
                }
            }
            similar::DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let olds = (old_index..old_index + old_len).filter(|&i| !o[i].is_empty());
                let news = (new_index..new_index + new_len).filter(|&j| !n[j].is_empty());
                for (i, j) in olds.zip(news) {
                    sources[j] = Source::Changed(i);
                }
            }
            similar::DiffOp::Delete { .. } | similar::DiffOp::Insert { .. } => {}
        }
    }
    sources
}

/// What one matched window becomes.
struct Rewrite {
    lines: Vec<String>,
    /// How many lines are the file's own lines, byte for byte.
    kept: usize,
    /// How many lines are the new text's lines exactly as the caller wrote them.
    given: usize,
    /// Lines written otherwise than the caller wrote them: index in `lines`, and how.
    reindented: Vec<(usize, String)>,
}

/// Why a new line's indentation cannot be inferred.
struct Why {
    reason: &'static str,
    text: String,
}

/// A refused window: which new line, near which file line, and why.
struct Refusal {
    line: usize,
    file_line: usize,
    subject: String,
    why: Why,
}

impl Refusal {
    fn into_error(self, path: &str) -> Error {
        Error::new(
            Code::NoMatch,
            format!(
                "{}, but {}, so its indentation in the file cannot be inferred; nothing was written",
                self.subject, self.why.text
            ),
        )
        .path(path)
        .with("line", self.line)
        .with("file_line", self.file_line)
        .with("reason", self.why.reason)
        .recovery(
            "re-read the lines and send the old text with the file's exact indentation, or replace the lines by their numbers",
        )
    }
}

/// Rewrites one window: `file` holds its lines as the file has them (starting at 0-based line
/// `at`), `old` the old text's lines they matched, `new` the new text's lines and `sources`
/// where each comes from.
fn rewrite(
    file: &[&str],
    at: usize,
    old: &[String],
    new: &[String],
    sources: &[Source],
) -> Result<Rewrite, Refusal> {
    let frame = Frame::new(file, old, at);
    let mut lines: Vec<Option<String>> = vec![None; new.len()];
    // The indentation written for each non-blank line paired with an old line: the anchors
    // of inserted lines.
    let mut anchors: Vec<Option<(String, usize)>> = vec![None; new.len()];
    for (j, n) in new.iter().enumerate() {
        if n.trim().is_empty() {
            lines[j] = Some(match sources[j] {
                Source::Equal(i) => file[i].to_owned(),
                _ => String::new(),
            });
            continue;
        }
        let (i, equal) = match sources[j] {
            Source::Equal(i) => (i, true),
            Source::Changed(i) => (i, false),
            Source::Inserted => continue,
        };
        let (c, c0, f0) = (leading_ws(n), leading_ws(&old[i]), leading_ws(file[i]));
        if equal && c == c0 {
            lines[j] = Some(file[i].to_owned());
            anchors[j] = Some((f0.to_owned(), at + i + 1));
            continue;
        }
        let indent = frame.convert(c, c0, f0).map_err(|why| Refusal {
            line: j + 1,
            file_line: at + i + 1,
            subject: format!(
                "line {} of the new text, which takes the place of file line {}, is {} where the old text's line is {}",
                j + 1,
                at + i + 1,
                indented(c),
                indented(c0)
            ),
            why,
        })?;
        lines[j] = Some(format!("{indent}{}", n.trim_start()));
        anchors[j] = Some((indent, at + i + 1));
    }
    // The nearest anchor before and after each line, found in one pass each way.
    let mut after_of = vec![None; new.len()];
    let mut next = None;
    for j in (0..new.len()).rev() {
        after_of[j] = next;
        if anchors[j].is_some() {
            next = Some(j);
        }
    }
    let mut previous = None;
    for (j, n) in new.iter().enumerate() {
        let before = previous;
        if anchors[j].is_some() {
            previous = Some(j);
        }
        if lines[j].is_some() {
            continue;
        }
        let c = leading_ws(n);
        let after = after_of[j];
        let refusal = |file_line: usize, place: &str, why: Why| Refusal {
            line: j + 1,
            file_line,
            subject: format!(
                "line {} of the new text is inserted {place} file line {file_line}",
                j + 1
            ),
            why,
        };
        let Some(anchor) = before.or(after) else {
            return Err(Refusal {
                line: j + 1,
                file_line: at + 1,
                subject: format!("line {} of the new text is inserted", j + 1),
                why: Why {
                    reason: "no_anchor",
                    text: "no line of the new text corresponds to a line of the old text"
                        .to_owned(),
                },
            });
        };
        let place = if before.is_some() { "after" } else { "before" };
        let (f0, file_line) = anchors[anchor].clone().expect("an anchor");
        let indent = if let Some(conflict) = &frame.conflict {
            // Between two lines at the caller's same level that the file indents alike, the
            // line takes that level; anywhere else the caller's levels mean nothing.
            match (before, after) {
                (Some(b), Some(a))
                    if leading_ws(&new[b]) == c
                        && leading_ws(&new[a]) == c
                        && anchors[b].as_ref().map(|x| &x.0)
                            == anchors[a].as_ref().map(|x| &x.0) =>
                {
                    f0
                }
                _ => {
                    return Err(refusal(file_line, place, Frame::inconsistent(conflict)));
                }
            }
        } else {
            frame
                .convert(c, leading_ws(&new[anchor]), &f0)
                .map_err(|why| refusal(file_line, place, why))?
        };
        lines[j] = Some(format!("{indent}{}", n.trim_start()));
    }
    let lines: Vec<String> = lines.into_iter().map(|l| l.expect("every line")).collect();
    let (mut kept, mut given, mut reindented) = (0, 0, Vec::new());
    for (j, (line, n)) in lines.iter().zip(new).enumerate() {
        let unchanged = match sources[j] {
            Source::Equal(i) => n.trim().is_empty() || leading_ws(n) == leading_ws(&old[i]),
            _ => false,
        };
        if unchanged {
            kept += 1;
        } else if line == n {
            given += 1;
        } else if line.is_empty() {
            reindented.push((j, "empty".to_owned()));
        } else {
            reindented.push((j, amount(leading_ws(line))));
        }
    }
    Ok(Rewrite {
        lines,
        kept,
        given,
        reindented,
    })
}

/// How the old text's indentation relates to the file's, learnt from the matched non-blank
/// lines: each indentation of the old text and the file's indentation of the same line.
struct Frame<'a> {
    /// The file's indentation for each indentation of the old text.
    map: HashMap<&'a str, &'a str>,
    /// Whether every indentation of the old text is the file's own.
    identity: bool,
    /// The one character each side indents with, over the map.
    caller_unit: Unit,
    file_unit: Unit,
    /// Characters of the file per character of the old text, as the map's levels show it
    /// (numerator, denominator); `None` with fewer than two levels; an explanation when the
    /// steps between levels disagree.
    ratio: Option<Result<(i64, i64), String>>,
    /// Why the old text's indentation does not follow the file's: two lines the old text
    /// indents alike that the file does not, two the file indents alike that the old text does
    /// not, or two in opposite order. `None` when the frame is consistent.
    conflict: Option<String>,
}

impl<'a> Frame<'a> {
    fn new(file: &[&'a str], old: &'a [String], at: usize) -> Frame<'a> {
        // old text's indentation -> (file's, file line), and the reverse.
        let mut by_caller: HashMap<&str, (&str, usize)> = HashMap::new();
        let mut by_file: HashMap<&str, (&str, usize)> = HashMap::new();
        let mut conflict = None;
        for (i, (f, o)) in file.iter().zip(old).enumerate() {
            if o.trim().is_empty() {
                continue;
            }
            let (c, f, line) = (leading_ws(o), leading_ws(f), at + i + 1);
            if let Some(&(f2, l2)) = by_caller.get(c) {
                if f2 != f && conflict.is_none() {
                    conflict = Some(format!(
                        "file line {line} is {} where the old text has {}, as it has for file line {l2}, which is {}",
                        indented(f),
                        amount(c),
                        indented(f2)
                    ));
                }
                continue;
            }
            if let Some(&(c2, l2)) = by_file.get(f)
                && conflict.is_none()
            {
                conflict = Some(format!(
                    "file lines {l2} and {line} are both {}, where the old text has {} and {}",
                    indented(f),
                    amount(c2),
                    amount(c)
                ));
            }
            by_caller.insert(c, (f, line));
            by_file.entry(f).or_insert((c, line));
        }
        let mut levels: Vec<(&str, &str, usize)> =
            by_caller.iter().map(|(c, (f, l))| (*c, *f, *l)).collect();
        levels.sort_by_key(|l| (width(l.0), l.2));
        if conflict.is_none() {
            conflict = levels.windows(2).find_map(|w| {
                let ((c1, f1, l1), (c2, f2, l2)) = (w[0], w[1]);
                (width(c1) == width(c2) || width(f1) >= width(f2)).then(|| {
                    format!(
                        "file lines {l1} and {l2} are {} and {}, where the old text has {} and {}, which does not order them the same way",
                        indented(f1),
                        indented(f2),
                        amount(c1),
                        amount(c2)
                    )
                })
            });
        }
        let caller_unit = unit(levels.iter().map(|l| l.0));
        let file_unit = unit(levels.iter().map(|l| l.1));
        let ratio = match (caller_unit, file_unit) {
            (Unit::One(cu), Unit::One(fu)) if levels.len() >= 2 && conflict.is_none() => {
                let count = |s: &str| s.chars().count() as i64;
                let steps: Vec<(i64, i64)> = levels
                    .windows(2)
                    .map(|w| (count(w[1].0) - count(w[0].0), count(w[1].1) - count(w[0].1)))
                    .collect();
                let (dc, df) = steps[0];
                Some(
                    match steps.iter().find(|&&(dc2, df2)| dc2 * df != df2 * dc) {
                        Some(&(dc2, df2)) => Err(format!(
                            "the old text's levels of indentation do not map to the file's by one ratio ({} against {} in one step, {} against {} in another)",
                            amount_of(cu, dc),
                            amount_of(fu, df),
                            amount_of(cu, dc2),
                            amount_of(fu, df2)
                        )),
                        None => {
                            let g = gcd(dc, df);
                            Ok((df / g, dc / g))
                        }
                    },
                )
            }
            _ => None,
        };
        Frame {
            identity: levels.iter().all(|(c, f, _)| c == f),
            map: by_caller.into_iter().map(|(c, (f, _))| (c, f)).collect(),
            caller_unit,
            file_unit,
            ratio,
            conflict,
        }
    }

    fn inconsistent(conflict: &str) -> Why {
        Why {
            reason: "indentation_ambiguous",
            text: format!("the old text's indentation does not follow the file's ({conflict})"),
        }
    }

    /// The file's indentation for a line the caller indents by `c`, where a line the caller
    /// indents by `c0` has `f0` in the file.
    fn convert(&self, c: &str, c0: &str, f0: &str) -> Result<String, Why> {
        if c == c0 {
            return Ok(f0.to_owned());
        }
        if let Some(conflict) = &self.conflict {
            return Err(Frame::inconsistent(conflict));
        }
        if let Some(f) = self.map.get(c) {
            return Ok((*f).to_owned());
        }
        if self.identity && c0 == f0 {
            // The old text's indentation is the file's own.
            return Ok(c.to_owned());
        }
        let caller = [c, c0]
            .into_iter()
            .fold(self.caller_unit, |u, s| u.join(unit([s].into_iter())));
        let file = self.file_unit.join(unit([f0].into_iter()));
        let (caller, file) = match (caller, file) {
            (Unit::Mixed, _) => return Err(mixed("the old and new texts mix")),
            (_, Unit::Mixed) => return Err(mixed("the file's matched lines mix")),
            (_, Unit::None) => {
                return Err(Why {
                    reason: "indentation_ambiguous",
                    text: "no matched line of the file is indented, so the file's unit of indentation is unknown".to_owned(),
                });
            }
            (Unit::None, _) => unreachable!("c differs from c0, so one of them is indented"),
            (Unit::One(c), Unit::One(f)) => (c, f),
        };
        let count = |s: &str| s.chars().count() as i64;
        let (num, den) = match &self.ratio {
            Some(Ok(ratio)) => *ratio,
            Some(Err(text)) => {
                return Err(Why {
                    reason: "indentation_ambiguous",
                    text: text.clone(),
                });
            }
            None if caller == file => (1, 1),
            None => {
                return Err(Why {
                    reason: "tabs_and_spaces",
                    text: format!(
                        "the old text indents with {} and the file with {}, and the matched lines show only one level of indentation, so one cannot be converted into the other",
                        unit_name(caller, true),
                        unit_name(file, true)
                    ),
                });
            }
        };
        let delta = count(c) - count(c0);
        if (delta * num) % den != 0 {
            return Err(Why {
                reason: "fractional_indentation",
                text: format!(
                    "{} in the old text's indentation is not a whole number of {} in the file, where {} of the old text make {}",
                    amount_of(caller, delta.abs()),
                    unit_name(file, true),
                    amount_of(caller, den),
                    amount_of(file, num)
                ),
            });
        }
        let result = count(f0) + delta * num / den;
        if result < 0 {
            return Err(Why {
                reason: "negative_indentation",
                text: format!(
                    "the change takes away {} where the file's line is only {}",
                    amount_of(file, -(delta * num / den)),
                    indented(f0)
                ),
            });
        }
        Ok(file.to_string().repeat(result as usize))
    }
}

fn mixed(who: &str) -> Why {
    Why {
        reason: "tabs_and_spaces",
        text: format!("{who} tabs and spaces in their indentation"),
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs().max(1)
    } else {
        gcd(b, a % b)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    /// No indentation at all.
    None,
    One(char),
    Mixed,
}

impl Unit {
    fn join(self, other: Unit) -> Unit {
        match (self, other) {
            (Unit::None, u) | (u, Unit::None) => u,
            (Unit::One(a), Unit::One(b)) if a == b => self,
            _ => Unit::Mixed,
        }
    }
}

/// The one character a set of indentations is made of.
fn unit<'a>(indents: impl Iterator<Item = &'a str>) -> Unit {
    let mut unit = Unit::None;
    for ch in indents.flat_map(str::chars) {
        unit = match unit {
            Unit::None => Unit::One(ch),
            Unit::One(u) if u == ch => unit,
            _ => return Unit::Mixed,
        };
    }
    unit
}

/// Columns, with tab stops every 8 columns: only to order indentations.
fn width(ws: &str) -> usize {
    ws.chars().fold(
        0,
        |col, ch| if ch == '\t' { col / 8 * 8 + 8 } else { col + 1 },
    )
}

/// The name of an indentation character.
fn unit_name(ch: char, plural: bool) -> &'static str {
    match (ch, plural) {
        (' ', false) => "space",
        (' ', true) => "spaces",
        ('\t', false) => "tab",
        ('\t', true) => "tabs",
        (_, false) => "other whitespace character",
        (_, true) => "other whitespace characters",
    }
}

/// `n` indentation characters `ch` in words: "4 spaces", "1 tab", "none".
fn amount_of(ch: char, n: i64) -> String {
    if n == 0 {
        "none".to_owned()
    } else {
        format!("{n} {}", unit_name(ch, n != 1))
    }
}

/// An indentation in words: "4 spaces", "1 tab, 2 spaces", "none".
fn amount(ws: &str) -> String {
    let mut runs: Vec<(char, i64)> = Vec::new();
    for ch in ws.chars() {
        match runs.last_mut() {
            Some((c, n)) if *c == ch => *n += 1,
            _ => runs.push((ch, 1)),
        }
    }
    if runs.is_empty() {
        return "none".to_owned();
    }
    runs.iter()
        .map(|&(ch, n)| amount_of(ch, n))
        .collect::<Vec<_>>()
        .join(", ")
}

fn indented(ws: &str) -> String {
    if ws.is_empty() {
        "not indented".to_owned()
    } else {
        format!("indented by {}", amount(ws))
    }
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

fn check_count(path: &str, found: usize, policy: Policy, expected: Option<u64>) -> Result<()> {
    if let Some(expected) = expected {
        if expected != found as u64 {
            return Err(Error::new(
                Code::MatchCountMismatch,
                format!("the old text occurs {found} time(s), not the expected {expected}"),
            )
            .path(path)
            .with("match_count", found)
            .with("expected_match_count", expected));
        }
        return Ok(());
    }
    if policy == Policy::First && found > 1 {
        return Err(Error::new(
            Code::MatchCountMismatch,
            format!("the old text occurs {found} times; refusing to pick the first"),
        )
        .path(path)
        .with("match_count", found)
        .recovery("replace every occurrence, confirm the count, or give more context so the old text is unique"));
    }
    Ok(())
}

fn check_single(path: &str, found: usize, policy: Policy) -> Result<()> {
    if policy == Policy::All && found > 1 {
        return Err(Error::invalid(
            "the expected content guards one region, but every occurrence would be replaced",
        )
        .path(path));
    }
    Ok(())
}

fn guard_region(path: &str, actual: &str, expected: &str, eol: &str) -> Result<()> {
    let norm = |s: &str| s.replace("\r\n", "\n").replace('\r', "\n");
    let (a, e) = (norm(actual), norm(&in_convention(expected, eol)));
    if a.trim_end_matches('\n') != e.trim_end_matches('\n') {
        return Err(Error::new(
            Code::ContentConflict,
            "the target region does not hold the expected content",
        )
        .path(path)
        .recovery("re-read the file and retry against its current text"));
    }
    Ok(())
}

/// How many characters of a line the NO_MATCH ranking compares.
const SIMILARITY_CHARS: usize = 200;

/// NO_MATCH with the lines most like the old text's first line, so the caller can correct it.
fn no_match(doc: &Doc, path: &str, old: &str) -> Error {
    let probe = caller_lines(old)
        .into_iter()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    // Similarity is quadratic in the lengths compared: compare bounded prefixes, so a huge old
    // text (or a huge line) cannot turn a NO_MATCH into minutes of work.
    let bounded = |s: &str| -> String { s.chars().take(SIMILARITY_CHARS).collect() };
    let probe = bounded(probe.trim());
    let mut scored: Vec<(f32, usize)> = doc
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.text.trim().is_empty())
        .map(|(i, l)| {
            (
                similar::TextDiff::from_chars(probe.as_str(), bounded(l.text.trim()).as_str())
                    .ratio(),
                i,
            )
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let candidates: Vec<serde_json::Value> = scored
        .iter()
        .take(3)
        .map(|(score, i)| {
            let text: String = doc.lines[*i].text.chars().take(200).collect();
            serde_json::json!({"line": i + 1, "text": text, "similarity": (f64::from(*score) * 100.0).round() / 100.0})
        })
        .collect();
    Error::new(
        Code::NoMatch,
        "the old text was not found, exactly or with normalised whitespace",
    )
    .path(path)
    .with("candidates", candidates)
    .recovery(
        "compare with the nearest lines in details.candidates and retry with the file's exact text",
    )
}

#[cfg(test)]
mod tests {
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
        assert_eq!(
            out,
            "fn f() {\n    if a {\n        if b {\n            run();\n        }\n    }\n}\n"
        );
        // A line the caller dedents by a level in a consistent frame.
        let (out, _) = normalised(
            "x:\n  a: 1\n  b: 2 \n",
            "x:\n    a: 1\n    b: 2",
            "x:\n    a: 1\nb: 2",
        );
        assert_eq!(out, "x:\n  a: 1\nb: 2\n");
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
        // With two levels the file's tabs are a known multiple of the caller's spaces.
        let (out, _) = normalised(
            "if a {\n\tif b {\n\t\tfoo();\n\t}\n}\n",
            "    if b {\n        foo();\n    }",
            "    if b {\n        foo();\n            bar();\n    }",
        );
        assert_eq!(out, "if a {\n\tif b {\n\t\tfoo();\n\t\t\tbar();\n\t}\n}\n");
        // Half a level is not a whole number of tabs.
        let err = refusal(
            "if a {\n\tif b {\n\t\tfoo();\n\t}\n}\n",
            "    if b {\n        foo();\n    }",
            "    if b {\n        foo();\n          bar();\n    }",
        );
        assert_eq!(err.details["reason"], "fractional_indentation");
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

    #[test]
    fn replacement_is_literal() {
        let (out, _) = run("cost: $1 (a.b)\n", "$1 (a.b)", "$2 \\1", Policy::First).unwrap();
        assert_eq!(out, "cost: $2 \\1\n");
    }
}
