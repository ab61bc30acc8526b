//! Where things are in a file, for errors that say where: the lines a match spans, where an
//! expected text occurs now, a region's current text. Everything an error quotes from a file
//! is bounded here (see the constants), so a refusal on a huge file stays a small document.

use super::doc::Line;
use crate::Error;
use serde_json::{Value, json};

/// The most matches, or places, one error lists.
pub(crate) const MAX_LISTED: usize = 10;
/// The most characters of one file line an error quotes beside a match.
pub(crate) const CONTEXT_CHARS: usize = 120;
/// The most characters of one file line an error quotes as a candidate or a hunk's line.
pub(crate) const LINE_CHARS: usize = 200;
/// The most bytes of a region's text one error quotes.
pub(crate) const MAX_TEXT_BYTES: usize = 4096;

/// `text` cut to its first `max` characters.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => text[..at].to_owned(),
        None => text.to_owned(),
    }
}

/// `text` cut at a character boundary to at most `max` bytes, and whether it was cut.
pub(crate) fn cut_bytes(text: &str, max: usize) -> (String, bool) {
    if text.len() <= max {
        return (text.to_owned(), false);
    }
    let mut at = max;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    (text[..at].to_owned(), true)
}

/// The byte offset at which each line starts in the text the lines were split from.
pub(crate) fn line_starts(lines: &[Line]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(lines.len());
    let mut at = 0;
    for line in lines {
        starts.push(at);
        at += line.text.len() + line.eol.len();
    }
    starts
}

/// The 0-based line holding byte `offset`, given [`line_starts`].
pub(crate) fn line_at(starts: &[usize], offset: usize) -> usize {
    starts.partition_point(|&s| s <= offset).saturating_sub(1)
}

/// Text as the guards compare it: every line end written `\n`, no final one.
pub(crate) fn plain(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace('\r', "\n")
        .trim_end_matches('\n')
        .to_owned()
}

/// One match as an error lists it: the lines it spans (1-based, `from..=to` 0-based here),
/// the first of them, and the lines just before and after, each cut at [`CONTEXT_CHARS`].
pub(crate) fn listed_match(lines: &[Line], from: usize, to: usize) -> Value {
    let quote = |i: Option<usize>| {
        i.and_then(|i| lines.get(i))
            .map(|l| cut(&l.text, CONTEXT_CHARS))
    };
    json!({
        "line": from + 1,
        "end_line": to + 1,
        "before": quote(from.checked_sub(1)),
        "text": quote(Some(from)),
        "after": quote(Some(to + 1)),
    })
}

/// Where `expected` (compared as the guards compare) occurs in the file as lines: each
/// occurrence's first and last line (1-based), at most [`MAX_LISTED`], and how many there are.
pub(crate) fn occurrences(lines: &[Line], expected: &str) -> (Vec<Value>, usize) {
    let needle = plain(expected);
    if needle.is_empty() {
        return (Vec::new(), 0);
    }
    let text: String = lines
        .iter()
        .map(|l| l.text.as_ref())
        .collect::<Vec<_>>()
        .join("\n");
    let starts = {
        let mut starts = Vec::with_capacity(lines.len());
        let mut at = 0;
        for line in lines {
            starts.push(at);
            at += line.text.len() + 1;
        }
        starts
    };
    let mut found = Vec::new();
    let mut count = 0;
    for (at, _) in text.match_indices(&needle) {
        count += 1;
        if found.len() < MAX_LISTED {
            let from = line_at(&starts, at);
            let to = line_at(&starts, at + needle.len() - 1);
            found.push(json!({"line": from + 1, "end_line": to + 1}));
        }
    }
    (found, count)
}

/// CONTENT_CONFLICT for a region that does not hold the expected text, saying what it holds
/// (`actual_content`, at most [`MAX_TEXT_BYTES`]) and where the expected text is now
/// (`expected_found_at`, `expected_found_count`), so the caller can retry without a re-read.
pub(crate) fn region_conflict(error: Error, lines: &[Line], actual: &str, expected: &str) -> Error {
    let (text, truncated) = cut_bytes(&plain(actual), MAX_TEXT_BYTES);
    let (found, count) = occurrences(lines, expected);
    error
        .with("actual_content", text)
        .with("actual_content_truncated", truncated)
        .with("expected_found_at", found)
        .with("expected_found_count", count)
}

#[cfg(test)]
mod tests {
    use super::super::doc::split_lines;
    use super::*;

    #[test]
    fn offsets_map_to_lines_whatever_the_terminators() {
        let lines = split_lines("a\r\nbb\rc\nd");
        let starts = line_starts(&lines);
        assert_eq!(starts, [0, 3, 6, 8]);
        assert_eq!(line_at(&starts, 0), 0);
        assert_eq!(line_at(&starts, 2), 0); // the \n of \r\n belongs to its line
        assert_eq!(line_at(&starts, 3), 1);
        assert_eq!(line_at(&starts, 8), 3);
    }

    #[test]
    fn occurrences_are_found_as_lines_and_counted_past_the_bound() {
        let text = "x\ny\nx\ny\n".repeat(8);
        let lines = split_lines(&text);
        let (found, count) = occurrences(&lines, "x\r\ny\n");
        assert_eq!(count, 16);
        assert_eq!(found.len(), MAX_LISTED);
        assert_eq!(found[0], json!({"line": 1, "end_line": 2}));
        assert_eq!(found[1], json!({"line": 3, "end_line": 4}));
        assert_eq!(occurrences(&lines, "").1, 0);
        assert_eq!(occurrences(&lines, "z").1, 0);
    }

    #[test]
    fn cuts_keep_whole_characters() {
        assert_eq!(cut("héllo", 2), "hé");
        assert_eq!(cut("hi", 5), "hi");
        assert_eq!(cut_bytes("héllo", 2), ("h".to_owned(), true));
        assert_eq!(cut_bytes("hé", 3), ("hé".to_owned(), false));
    }
}
