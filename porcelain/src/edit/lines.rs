//! Line-range edits: replace, insert, delete. Lines are 1-based and inclusive; a range outside
//! the file is refused, never clamped.

use super::doc::{Doc, caller_lines};
use super::exact::flattened;
use crate::{Code, Error, Result};
use filekeeper_plumbing::{Argument, words};

/// Where `insert-lines` puts its content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// Before line `line`.
    Before,
    /// After line `line`.
    After,
    /// After the last line; the only way to append (a line number never means "the end").
    End,
}

fn out_of_range(path: &str, what: &str, n: u64, count: usize) -> Error {
    Error::invalid(format!(
        "{what} {n} is outside the file, which has {count} lines"
    ))
    .path(path)
    .with("line_count", count)
}

/// Checks a 1-based inclusive range and returns it 0-based, end exclusive.
pub(crate) fn range(doc: &Doc, path: &str, start: u64, end: u64) -> Result<(usize, usize)> {
    let count = doc.lines.len();
    if start == 0 || end == 0 {
        return Err(Error::invalid("line numbers are 1-based").path(path));
    }
    if end < start {
        return Err(Error::invalid(format!("end {end} is before start {start}")).path(path));
    }
    if start as usize > count {
        return Err(out_of_range(path, "start", start, count));
    }
    if end as usize > count {
        return Err(out_of_range(path, "end", end, count));
    }
    Ok((start as usize - 1, end as usize))
}

/// The line an insertion is anchored to, checked as a one-line range but named as the line
/// it is ("line 9 is outside the file"), 0-based with the line after it.
fn anchor(doc: &Doc, path: &str, line: u64) -> Result<(usize, usize)> {
    if line as usize > doc.lines.len() {
        return Err(out_of_range(path, "line", line, doc.lines.len()));
    }
    range(doc, path, line, line)
}

/// The text of lines `from..to`, terminators normalised to `\n`, for `expected_content`.
pub(crate) fn region_text(doc: &Doc, from: usize, to: usize) -> String {
    doc.lines[from..to]
        .iter()
        .map(|l| l.text.as_ref())
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn guard_region(
    doc: &Doc,
    path: &str,
    from: usize,
    to: usize,
    expected: Option<&str>,
) -> Result<()> {
    let Some(expected) = expected else {
        return Ok(());
    };
    // The region is whole lines, so its last line end may be given or left off; every
    // other line end, an empty line's included, must be there. A region of no lines (the
    // end of an empty file) holds no line end either: `\n` is one empty line, not it.
    let actual = region_text(doc, from, to);
    let matches = if from == to {
        expected.is_empty()
    } else {
        super::locate::without_last_line_end(&flattened(expected)) == actual
    };
    if !matches {
        let error = Error::new(
            Code::ContentConflict,
            "the target lines do not hold the expected content",
        )
        .path(path)
        .recovery("the lines' current text is in details.actual_content, and where the expected text is now in details.expected_found_at; retry against the current text");
        return Err(super::locate::region_conflict(
            error, &doc.lines, &actual, expected, true,
        ));
    }
    Ok(())
}

pub(crate) fn replace_lines(
    doc: &mut Doc,
    path: &str,
    start: u64,
    end: u64,
    replacement: &str,
    expected: Option<&str>,
) -> Result<()> {
    let (from, to) = range(doc, path, start, end)?;
    guard_region(doc, path, from, to, expected)?;
    doc.splice(from, to, caller_lines(replacement));
    Ok(())
}

pub(crate) fn delete_lines(
    doc: &mut Doc,
    path: &str,
    start: u64,
    end: u64,
    expected: Option<&str>,
) -> Result<()> {
    let (from, to) = range(doc, path, start, end)?;
    guard_region(doc, path, from, to, expected)?;
    doc.splice(from, to, Vec::new());
    Ok(())
}

pub(crate) fn insert_lines(
    doc: &mut Doc,
    path: &str,
    position: Position,
    line: Option<u64>,
    content: &str,
    expected: Option<&str>,
) -> Result<()> {
    let new = caller_lines(content);
    if new.is_empty() {
        return Err(Error::invalid(
            "nothing to insert: the content is empty, which is no line (an empty line is one line end); nothing was written",
        )
        .path(path)
        .with("reason", "nothing_to_insert"));
    }
    let at = match (position, line) {
        (Position::End, None) => doc.lines.len(),
        (Position::End, Some(_)) => {
            return Err(Error::worded(
                Code::InvalidArgument,
                words![Argument::Position, " end takes no ", Argument::Line],
            )
            .path(path));
        }
        (_, None) => {
            return Err(Error::worded(
                Code::InvalidArgument,
                words![
                    Argument::Position,
                    " before or after needs ",
                    Argument::Line
                ],
            )
            .path(path));
        }
        (Position::Before, Some(n)) => anchor(doc, path, n)?.0,
        (Position::After, Some(n)) => anchor(doc, path, n)?.1,
    };
    // The guard is the anchor line: the line inserted before or after, or for the end the
    // current last line (an empty file has none, and only an empty guard matches it).
    if expected.is_some() {
        let anchor = match (position, line) {
            (Position::End, _) => doc.lines.len(),
            (_, Some(n)) => n as usize,
            (_, None) => 0,
        };
        let (from, to) = if anchor == 0 {
            (0, 0)
        } else {
            range(doc, path, anchor as u64, anchor as u64)?
        };
        guard_region(doc, path, from, to, expected)?;
    }
    doc.splice(at, at, new);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(t: &[u8]) -> Doc<'_> {
        Doc::parse("f", t).unwrap()
    }

    #[test]
    fn ranges_are_checked_not_clamped() {
        let d = doc(b"a\nb\nc\n");
        assert_eq!(range(&d, "f", 1, 3).unwrap(), (0, 3));
        assert_eq!(range(&d, "f", 3, 4).unwrap_err().details["line_count"], 3);
        assert!(range(&d, "f", 0, 1).is_err());
        assert!(range(&d, "f", 2, 1).is_err());
    }

    #[test]
    fn edits_keep_crlf_and_the_missing_final_newline() {
        let mut d = doc(b"a\r\nb\r\nc");
        replace_lines(&mut d, "f", 2, 2, "B\nB2\n", None).unwrap();
        assert_eq!(d.to_bytes(), b"a\r\nB\r\nB2\r\nc");
        insert_lines(&mut d, "f", Position::End, None, "z", None).unwrap();
        assert_eq!(d.to_bytes(), b"a\r\nB\r\nB2\r\nc\r\nz");
        insert_lines(&mut d, "f", Position::Before, Some(1), "first", None).unwrap();
        assert_eq!(d.to_bytes(), b"first\r\na\r\nB\r\nB2\r\nc\r\nz");
        delete_lines(&mut d, "f", 5, 6, None).unwrap();
        assert_eq!(d.to_bytes(), b"first\r\na\r\nB\r\nB2");
    }

    #[test]
    fn expected_content_guards_the_range() {
        let mut d = doc(b"a\nb\nc\n");
        assert_eq!(
            delete_lines(&mut d, "f", 2, 3, Some("b\nX"))
                .unwrap_err()
                .code,
            Code::ContentConflict
        );
        delete_lines(&mut d, "f", 2, 3, Some("b\nc\n")).unwrap();
        assert_eq!(d.to_bytes(), b"a\n");
    }

    #[test]
    fn the_end_of_an_empty_file_is_guarded_by_empty_text_alone() {
        for given in ["\n", "\r\n", "x"] {
            let mut d = doc(b"");
            let err = insert_lines(&mut d, "f", Position::End, None, "x", Some(given)).unwrap_err();
            assert_eq!(err.code, Code::ContentConflict, "{given:?}");
        }
        let mut d = doc(b"");
        insert_lines(&mut d, "f", Position::End, None, "x", Some("")).unwrap();
        assert_eq!(d.to_bytes(), b"x\n");
        // A file of one empty line has that line as its last: `\n` guards it.
        let mut d = doc(b"\n");
        insert_lines(&mut d, "f", Position::End, None, "x", Some("\n")).unwrap();
    }

    #[test]
    fn expected_content_counts_every_line_end_but_the_last() {
        // Line 2 is `b`: `b\n\n` is `b` and an empty line, which line 2 alone is not.
        for extra in ["b\n\n", "b\n\n\n", "b\r\n\r\n"] {
            let mut d = doc(b"a\nb\nc\n");
            let err = delete_lines(&mut d, "f", 2, 2, Some(extra)).unwrap_err();
            assert_eq!(err.code, Code::ContentConflict, "{extra:?}");
            assert_eq!(err.details["actual_content"], "b");
            assert_eq!(d.to_bytes(), b"a\nb\nc\n");
        }
        // A range ending in an empty line holds it: given with the last line end or without.
        for given in ["b\n\n", "b\r\n\r\n", "b\n"] {
            let mut d = doc(b"a\nb\n\nc\n");
            let got = replace_lines(&mut d, "f", 2, 3, "X", Some(given));
            if given == "b\n" {
                // One line end is the last line's own: `b\n` is the line `b` alone.
                let err = got.unwrap_err();
                assert_eq!(err.details["actual_content"], "b\n");
                assert_eq!(
                    err.details["expected_found_at"],
                    serde_json::json!([{"line": 2, "end_line": 2}])
                );
            } else {
                got.unwrap();
                assert_eq!(d.to_bytes(), b"a\nX\nc\n");
            }
        }
        // Where the expected text went, when it ends in an empty line.
        let mut d = doc(b"x\nb\n\nc\n");
        let err = delete_lines(&mut d, "f", 1, 2, Some("b\n\n")).unwrap_err();
        assert_eq!(
            err.details["expected_found_at"],
            serde_json::json!([{"line": 2, "end_line": 3}])
        );
        // `b` and two empty lines are nowhere: line 4 is `c`.
        let err = delete_lines(&mut d, "f", 1, 2, Some("b\n\n\n")).unwrap_err();
        assert_eq!(err.details["expected_found_count"], 0);
        // The last line without a line end is guarded with or without one.
        for given in ["b", "b\n"] {
            let mut d = doc(b"a\nb");
            delete_lines(&mut d, "f", 2, 2, Some(given)).unwrap();
            assert_eq!(d.to_bytes(), b"a");
        }
    }

    #[test]
    fn a_conflict_shows_the_lines_and_where_the_expected_text_went() {
        // Two lines were inserted above: the expected text moved down by two.
        let mut d = doc(b"new1\nnew2\nkeep\nold a\nold b\nold a\nold b\n");
        let err = replace_lines(&mut d, "f", 2, 3, "x", Some("old a\r\nold b\n")).unwrap_err();
        assert_eq!(err.code, Code::ContentConflict);
        assert_eq!(err.details["actual_content"], "new2\nkeep");
        assert_eq!(err.details["actual_content_truncated"], false);
        assert_eq!(
            err.details["expected_found_at"],
            serde_json::json!([{"line": 4, "end_line": 5}, {"line": 6, "end_line": 7}])
        );
        assert_eq!(err.details["expected_found_count"], 2);
        // Text that is nowhere, and a huge region, which is quoted cut.
        let big = format!("{}\n", "é".repeat(5000));
        let mut d = doc(big.as_bytes());
        let err = delete_lines(&mut d, "f", 1, 1, Some("gone")).unwrap_err();
        assert_eq!(err.details["expected_found_count"], 0);
        assert_eq!(err.details["expected_found_at"], serde_json::json!([]));
        assert_eq!(err.details["actual_content_truncated"], true);
        let quoted = err.details["actual_content"].as_str().unwrap();
        assert!(quoted.len() <= super::super::locate::MAX_TEXT_BYTES && quoted.len() > 4000);
        // An insert's guard is its anchor line.
        let mut d = doc(b"a\nb\n");
        let err = insert_lines(&mut d, "f", Position::After, Some(1), "x", Some("b")).unwrap_err();
        assert_eq!(err.details["actual_content"], "a");
        assert_eq!(
            err.details["expected_found_at"],
            serde_json::json!([{"line": 2, "end_line": 2}])
        );
    }
}
