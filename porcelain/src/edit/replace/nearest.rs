//! NO_MATCH that helps: the file's lines nearest each line of the old text, and old texts
//! copied with the line numbers of a numbered read still on them.

use super::super::doc::{Doc, caller_lines};
use super::super::exact;
use super::super::locate::{self, LINE_CHARS};
use super::{blank_ends, windows};
use crate::{Code, Error};
use std::collections::HashMap;

/// How many characters of a line the NO_MATCH ranking compares.
pub(super) const SIMILARITY_CHARS: usize = 200;
/// The most lines of the old text NO_MATCH finds a candidate for.
pub(super) const MAX_CANDIDATE_LINES: usize = 20;
/// How far from where the rest of the old text places it a line's candidate is looked for.
pub(super) const CANDIDATE_REACH: usize = 3;

/// How alike two lines are, from 0 to 1, comparing bounded prefixes: similarity is quadratic
/// in the lengths compared, so a huge old text (or a huge line) cannot turn a NO_MATCH into
/// minutes of work.
pub(super) fn similarity(a: &str, b: &str) -> f32 {
    let bounded = |s: &str| -> String { s.chars().take(SIMILARITY_CHARS).collect() };
    similar::TextDiff::from_chars(bounded(a).as_str(), bounded(b).as_str()).ratio()
}

pub(super) fn rounded(score: f32) -> f64 {
    (f64::from(score) * 100.0).round() / 100.0
}

/// NO_MATCH with the lines most like the old text's first line, the best file line for each
/// line of the old text, and, when the old text was copied with line-number prefixes, which
/// form they take and whether the text would match without them.
pub(super) fn no_match(doc: &Doc, body: &str, path: &str, old: &str) -> Error {
    let old_lines = caller_lines(old);
    let probe = old_lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .cloned()
        .unwrap_or_default();
    let probe = probe.trim();
    let mut scored: Vec<(f32, usize)> = doc
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.text.trim().is_empty())
        .map(|(i, l)| (similarity(probe, l.text.trim()), i))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let candidates: Vec<serde_json::Value> = scored
        .iter()
        .take(3)
        .map(|(score, i)| {
            let text = locate::cut(&doc.lines[*i].text, LINE_CHARS);
            serde_json::json!({"line": i + 1, "text": text, "similarity": rounded(*score)})
        })
        .collect();
    let first_best = scored.first().map(|&(_, i)| i);
    let (per_line, truncated) = line_candidates(doc, &old_lines, first_best);
    let mut error = Error::new(
        Code::NoMatch,
        "the old text was not found, exactly or with normalised whitespace",
    )
    .path(path)
    .with("candidates", candidates)
    .with("line_candidates", per_line)
    .with("line_candidates_truncated", truncated)
    .recovery(
        "compare with the nearest lines in details.candidates and details.line_candidates and retry with the file's exact text",
    );
    if let Some(numbered) = numbered(&old_lines) {
        let ends_with_newline = old.ends_with('\n') || old.ends_with('\r');
        let mut stripped = numbered.lines.join("\n");
        if ends_with_newline {
            stripped.push('\n');
        }
        let exact_count = exact::occurrences(body, &stripped).len();
        let (stage, count) = if exact_count > 0 {
            (Some("exact"), exact_count)
        } else {
            let mut wanted = numbered.lines.clone();
            let (lead, trail) = blank_ends(&wanted);
            wanted.drain(..lead);
            wanted.truncate(wanted.len() - trail);
            match windows(doc, &wanted).len() {
                0 => (None, 0),
                n => (Some("normalised"), n),
            }
        };
        error = error.with(
            "line_number_prefixes",
            serde_json::json!({
                "form": numbered.form,
                "first_number": numbered.first,
                "last_number": numbered.last,
                "stripped_match_count": count,
                "stripped_match_stage": stage,
            }),
        );
        error = error.recovery(&if count > 0 {
            format!(
                "every line of the old text starts with a line number copied from a numbered read ({} form); without those prefixes it matches {count} time(s): send the old text (and the new text) without them",
                numbered.form
            )
        } else {
            format!(
                "every line of the old text starts with a line number copied from a numbered read ({} form), and it does not match even without them: re-read the lines and send their text without the numbers",
                numbered.form
            )
        });
    }
    error
}

/// For each non-blank line of the old text (the first [`MAX_CANDIDATE_LINES`]), the file line
/// most like it near where the rest of the old text lies, with whether lines were left out.
///
/// The old text is taken as a block: each of its lines found verbatim in the file (whitespace
/// aside) votes for where the block starts, and the start most voted for (else the best match
/// of the first line, `first_best`) places every line. A line found verbatim is given at its
/// place nearest there; any other line gets the most similar file line within
/// [`CANDIDATE_REACH`] lines of its place, so a later line misremembered in an otherwise exact
/// text is shown next to what the file has instead.
pub(super) fn line_candidates(
    doc: &Doc,
    old_lines: &[String],
    first_best: Option<usize>,
) -> (Vec<serde_json::Value>, bool) {
    let olds: Vec<(usize, &str)> = old_lines
        .iter()
        .enumerate()
        .map(|(i, l)| (i, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let truncated = olds.len() > MAX_CANDIDATE_LINES;
    let olds = &olds[..olds.len().min(MAX_CANDIDATE_LINES)];
    if doc.lines.is_empty() || olds.is_empty() {
        return (Vec::new(), truncated);
    }
    let mut verbatim: HashMap<&str, Vec<usize>> =
        olds.iter().map(|&(_, l)| (l, Vec::new())).collect();
    for (f, line) in doc.lines.iter().enumerate() {
        if let Some(at) = verbatim.get_mut(line.text.trim()) {
            at.push(f);
        }
    }
    let mut votes: HashMap<isize, usize> = HashMap::new();
    for &(i, l) in olds {
        for &f in &verbatim[l] {
            *votes.entry(f as isize - i as isize).or_default() += 1;
        }
    }
    let start = votes
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(&s, _)| s)
        .or_else(|| first_best.map(|f| f as isize - olds[0].0 as isize))
        .unwrap_or(0);
    let last = doc.lines.len() as isize - 1;
    let per_line = olds
        .iter()
        .map(|&(i, l)| {
            let place = (start + i as isize).clamp(0, last);
            let distance = |f: usize| (f as isize - place).unsigned_abs();
            let (line, score) = match verbatim[l].iter().min_by_key(|&&f| distance(f)) {
                Some(&f) => (f, 1.0),
                None => {
                    let from = (place as usize).saturating_sub(CANDIDATE_REACH);
                    let to = (place as usize + CANDIDATE_REACH).min(last as usize);
                    (from..=to)
                        .map(|f| (f, similarity(l, doc.lines[f].text.trim())))
                        .max_by(|a, b| a.1.total_cmp(&b.1).then(distance(b.0).cmp(&distance(a.0))))
                        .expect("the range holds the place")
                }
            };
            serde_json::json!({
                "old_line": i + 1,
                "line": line + 1,
                "text": locate::cut(&doc.lines[line].text, LINE_CHARS),
                "similarity": rounded(score),
            })
        })
        .collect();
    (per_line, truncated)
}

/// Old text whose every line carries a line-number prefix of one form, as copied from a
/// numbered read: the form, the first and last numbers, and the lines without the prefixes.
pub(super) struct Numbered {
    form: &'static str,
    first: u64,
    last: u64,
    lines: Vec<String>,
}

/// The leading line number of `s` after any spaces, and what follows it.
pub(super) fn line_number(s: &str) -> Option<(u64, &str)> {
    let s = s.trim_start_matches(' ');
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 9 {
        return None;
    }
    Some((s[..digits].parse().ok()?, &s[digits..]))
}

/// A separator after the number, and then one optional space.
pub(super) fn separated<'s>(rest: &'s str, separator: &str) -> Option<&'s str> {
    let rest = rest.strip_prefix(separator)?;
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}

/// The prefix forms of numbered reads, each as a parser of one line: the number, then the
/// line's text (`None` when the line does not carry the form; a line holding only its number
/// is an empty line whose separator was trimmed away).
pub(super) type PrefixForm = (&'static str, fn(&str) -> Option<(u64, Option<&str>)>);

pub(super) const PREFIX_FORMS: [PrefixForm; 5] = [
    // `cat -n`: the number right-aligned, then a tab.
    ("tab", |s| {
        let (n, rest) = line_number(s)?;
        Some((n, rest.strip_prefix('\t'))).filter(|(_, r)| r.is_some() || rest.is_empty())
    }),
    // The number right-aligned, then an arrow.
    ("arrow", |s| {
        let (n, rest) = line_number(s)?;
        Some((n, rest.strip_prefix('→'))).filter(|(_, r)| r.is_some() || rest.is_empty())
    }),
    // `12 | text`.
    ("pipe", |s| {
        let (n, rest) = line_number(s)?;
        let text = separated(rest.trim_start_matches(' '), "|");
        Some((n, text)).filter(|(_, r)| r.is_some() || rest.is_empty())
    }),
    // `12: text`, as `grep -n` writes it (with or without the space).
    ("colon", |s| {
        let (n, rest) = line_number(s)?;
        Some((n, separated(rest, ":"))).filter(|(_, r)| r.is_some() || rest.is_empty())
    }),
    // `L12: text`.
    ("l_colon", |s| {
        let (n, rest) = line_number(s.strip_prefix('L')?)?;
        Some((n, separated(rest, ":"))).filter(|(_, r)| r.is_some() || rest.is_empty())
    }),
];

/// Whether every line of the old text carries a line-number prefix of one form, with numbers
/// that increase from line to line (and at least one line with its separator, so a column of
/// bare numbers is not taken for one).
pub(super) fn numbered(old_lines: &[String]) -> Option<Numbered> {
    if old_lines.is_empty() {
        return None;
    }
    PREFIX_FORMS.iter().find_map(|&(form, parse)| {
        let mut lines = Vec::with_capacity(old_lines.len());
        let mut numbers = Vec::with_capacity(old_lines.len());
        let mut separated = false;
        for line in old_lines {
            let (n, text) = parse(line)?;
            if numbers.last().is_some_and(|&prev| n <= prev) {
                return None;
            }
            separated |= text.is_some();
            numbers.push(n);
            lines.push(text.unwrap_or_default().to_owned());
        }
        separated.then(|| Numbered {
            form,
            first: numbers[0],
            last: *numbers.last().expect("not empty"),
            lines,
        })
    })
}
