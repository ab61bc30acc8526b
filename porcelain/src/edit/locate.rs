//! Where things are in a file, for errors that say where: the lines a match spans, where an
//! expected text occurs now, a region's current text. Everything an error quotes from a file
//! is bounded here (see the constants), so a refusal on a huge file stays a small document.

use super::doc::Line;
use super::exact::{self, flattened};
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

/// Flattened text (every line end written `\n`) taken as whole lines: one final line end is
/// the last line's own and is dropped, and only one (`a\n\n` is `a` and an empty line).
pub(crate) fn without_last_line_end(text: &str) -> &str {
    text.strip_suffix('\n').unwrap_or(text)
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

/// Where `expected` occurs in the file: each occurrence's first and last line (1-based), at
/// most [`MAX_LISTED`], and how many there are. Line ends are flattened on both sides. With
/// `whole_lines` (a line range's guard, a normalised match's), `expected` is whole lines, as
/// [`without_last_line_end`] takes them, and occurs only where lines start and end; otherwise
/// it is a run of text and occurs anywhere (an exact match's guard). Occurrences may overlap.
pub(crate) fn occurrences(
    lines: &[Line],
    expected: &str,
    whole_lines: bool,
) -> (Vec<Value>, usize) {
    let flat = flattened(expected);
    let needle = if whole_lines {
        without_last_line_end(&flat)
    } else {
        flat.as_ref()
    };
    if needle.is_empty() {
        return (Vec::new(), 0);
    }
    // The file's text with every line end flattened to `\n`, and where each line starts in it.
    let mut text = String::new();
    let mut starts = Vec::with_capacity(lines.len());
    for line in lines {
        starts.push(text.len());
        text.push_str(&line.text);
        if !line.eol.is_empty() {
            text.push('\n');
        }
    }
    // Whole lines start at a line's start and end where a line ends: at a line end, or at
    // the end of a file without a final one (where no empty line can be).
    let bytes = text.as_bytes();
    let aligned = |at: usize| {
        let end = at + needle.len();
        (at == 0 || bytes[at - 1] == b'\n')
            && (bytes.get(end) == Some(&b'\n') || (end == bytes.len() && !needle.ends_with('\n')))
    };
    let mut found = Vec::new();
    let mut count = 0;
    // Overlapping starts too (in linear time): a run that starts inside a line must not hide
    // a whole-lines occurrence that starts on the next.
    for at in exact::starts(&text, needle) {
        if whole_lines && !aligned(at) {
            continue;
        }
        count += 1;
        if found.len() < MAX_LISTED {
            // Whole lines ending in `\n` end with an empty line, the one after that `\n`;
            // a run of text ending in `\n` ends at the line that `\n` ends.
            let last = at + needle.len() - usize::from(!(whole_lines && needle.ends_with('\n')));
            let (from, to) = (line_at(&starts, at), line_at(&starts, last));
            found.push(json!({"line": from + 1, "end_line": to + 1}));
        }
    }
    (found, count)
}

/// CONTENT_CONFLICT for a region that does not hold the expected text, saying what it holds
/// (`actual_content`, line ends flattened, at most [`MAX_TEXT_BYTES`]) and where the expected
/// text is now (`expected_found_at`, `expected_found_count`), so the caller can retry without
/// a re-read. `whole_lines` as for [`occurrences`].
pub(crate) fn region_conflict(
    error: Error,
    lines: &[Line],
    actual: &str,
    expected: &str,
    whole_lines: bool,
) -> Error {
    let (text, truncated) = cut_bytes(&flattened(actual), MAX_TEXT_BYTES);
    let (found, count) = occurrences(lines, expected, whole_lines);
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
        let (found, count) = occurrences(&lines, "x\r\ny\n", true);
        assert_eq!(count, 16);
        assert_eq!(found.len(), MAX_LISTED);
        assert_eq!(found[0], json!({"line": 1, "end_line": 2}));
        assert_eq!(found[1], json!({"line": 3, "end_line": 4}));
        assert_eq!(occurrences(&lines, "", true).1, 0);
        assert_eq!(occurrences(&lines, "z", true).1, 0);
        // Whole lines occur only as whole lines; a run of text occurs inside a line too.
        let lines = split_lines("xab\nab\n\nc\n");
        assert_eq!(occurrences(&lines, "ab", true).1, 1);
        assert_eq!(occurrences(&lines, "ab", false).1, 2);
        // `ab\n\n` as lines is `ab` and an empty line (lines 2-3); as text, lines 2-3 too.
        let (found, _) = occurrences(&lines, "ab\n\n", true);
        assert_eq!(found, [json!({"line": 2, "end_line": 3})]);
        let (found, _) = occurrences(&lines, "ab\n", false);
        // An occurrence inside a line does not hide a whole one that overlaps it.
        assert_eq!(occurrences(&split_lines("xa\na\na\n"), "a\na", true).1, 1);
        assert_eq!(
            found,
            [
                json!({"line": 1, "end_line": 1}),
                json!({"line": 2, "end_line": 2})
            ]
        );
    }

    #[test]
    fn cuts_keep_whole_characters() {
        assert_eq!(cut("héllo", 2), "hé");
        assert_eq!(cut("hi", 5), "hi");
        assert_eq!(cut_bytes("héllo", 2), ("h".to_owned(), true));
        assert_eq!(cut_bytes("hé", 3), ("hé".to_owned(), false));
    }
}
