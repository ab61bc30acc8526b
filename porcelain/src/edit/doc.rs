//! A text file as lines with their own terminators, so an edit can change some lines and
//! write every other byte back exactly as it was: BOM, newline convention, final newline.

use crate::{Code, Error, Result};

const BOM: &str = "\u{feff}";

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    pub text: String,
    /// `"\n"`, `"\r\n"`, `"\r"`, or `""` for a last line without terminator.
    pub eol: &'static str,
}

#[derive(Clone, Debug)]
pub(crate) struct Doc {
    pub bom: bool,
    pub lines: Vec<Line>,
}

impl Doc {
    /// Parses UTF-8 text. Binary content (a NUL in the first 8 KiB) and invalid UTF-8 are
    /// refused: an edit never writes mojibake back.
    pub fn parse(path: &str, bytes: &[u8]) -> Result<Doc> {
        let sniff = &bytes[..bytes.len().min(crate::text::BINARY_SNIFF_BYTES)];
        if sniff.contains(&0) {
            return Err(Error::new(
                Code::BinaryContentRefused,
                "refusing to edit binary content",
            )
            .path(path));
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            Error::new(
                Code::BinaryContentRefused,
                format!(
                    "refusing to edit: the file is not valid UTF-8 (byte {})",
                    e.valid_up_to()
                ),
            )
            .path(path)
        })?;
        let (bom, body) = match text.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        Ok(Doc {
            bom,
            lines: split_lines(body),
        })
    }

    /// Parses text the way `diff` sees it, for patching: lines end only at `\n` (a lone `\r`
    /// is part of its line) and a BOM stays part of line 1, as it is in `diff -u` output.
    pub fn parse_for_patch(path: &str, bytes: &[u8]) -> Result<Doc> {
        let mut doc = Doc::parse(path, bytes)?;
        let text = std::str::from_utf8(bytes).unwrap_or_default();
        doc.bom = false;
        doc.lines = split_lf(text);
        Ok(doc)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::new();
        if self.bom {
            out.push_str(BOM);
        }
        for line in &self.lines {
            out.push_str(&line.text);
            out.push_str(line.eol);
        }
        out.into_bytes()
    }

    /// The body without BOM, as one string.
    pub fn body(&self) -> String {
        self.lines
            .iter()
            .map(|l| format!("{}{}", l.text, l.eol))
            .collect()
    }

    /// The convention new lines get: the file's own, LF when it has none or mixes them.
    pub fn eol(&self) -> &'static str {
        let mut counts = [0usize; 3];
        for line in &self.lines {
            match line.eol {
                "\n" => counts[0] += 1,
                "\r\n" => counts[1] += 1,
                "\r" => counts[2] += 1,
                _ => {}
            }
        }
        match counts {
            [0, c, 0] if c > 0 => "\r\n",
            [0, 0, r] if r > 0 => "\r",
            [_, c, r] if c > 0 || r > 0 => {
                // Mixed: the most common one.
                if c >= r && c >= counts[0] {
                    "\r\n"
                } else if r > c && r >= counts[0] {
                    "\r"
                } else {
                    "\n"
                }
            }
            _ => "\n",
        }
    }

    /// Whether the last line has a terminator (an empty file counts as ending with one).
    pub fn ends_with_newline(&self) -> bool {
        self.lines.last().is_none_or(|l| !l.eol.is_empty())
    }

    /// Replaces lines `start..end` (0-based, exclusive) with `new` texts, each terminated with
    /// the file's convention, except that a replacement reaching the end of a file without a
    /// final newline leaves the new last line without one too.
    pub fn splice(&mut self, start: usize, end: usize, new: Vec<String>) {
        let eol = self.eol();
        let at_end = end == self.lines.len();
        let final_newline = self.ends_with_newline();
        let mut lines: Vec<Line> = new.into_iter().map(|text| Line { text, eol }).collect();
        if at_end && !final_newline {
            if start == end && start > 0 && !lines.is_empty() {
                // Appending after a last line without terminator: it needs one now.
                self.lines[start - 1].eol = eol;
            }
            if let Some(last) = lines.last_mut() {
                last.eol = "";
            } else if start > 0 {
                // Deleting the last lines: the new last line loses its terminator.
                self.lines[start - 1].eol = "";
            }
        }
        self.lines.splice(start..end, lines);
    }
}

/// Splits text at `\n`, `\r\n` and lone `\r`, keeping each terminator.
pub(crate) fn split_lines(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(Line {
                    text: text[start..i].to_owned(),
                    eol: "\n",
                });
                i += 1;
                start = i;
            }
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                lines.push(Line {
                    text: text[start..i].to_owned(),
                    eol: "\r\n",
                });
                i += 2;
                start = i;
            }
            b'\r' => {
                lines.push(Line {
                    text: text[start..i].to_owned(),
                    eol: "\r",
                });
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < bytes.len() {
        lines.push(Line {
            text: text[start..].to_owned(),
            eol: "",
        });
    }
    lines
}

/// Splits text at `\n` only (`\r\n` is one terminator; a lone `\r` stays in its line).
fn split_lf(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('\n') {
        let (line, eol) = match rest[..i].strip_suffix('\r') {
            Some(line) => (line, "\r\n"),
            None => (&rest[..i], "\n"),
        };
        lines.push(Line {
            text: line.to_owned(),
            eol,
        });
        rest = &rest[i + 1..];
    }
    if !rest.is_empty() {
        lines.push(Line {
            text: rest.to_owned(),
            eol: "",
        });
    }
    lines
}

/// Caller text as lines (terminators dropped); a trailing newline does not add an empty line.
pub(crate) fn caller_lines(text: &str) -> Vec<String> {
    split_lines(text).into_iter().map(|l| l.text).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(bytes: &[u8]) {
        assert_eq!(Doc::parse("f", bytes).unwrap().to_bytes(), bytes);
    }

    #[test]
    fn every_byte_round_trips() {
        for b in [
            &b""[..],
            b"a",
            b"a\n",
            b"a\r\nb\r\n",
            b"a\rb",
            b"\xEF\xBB\xBFx\r\ny",
            b"\n\n",
            b"mixed\r\nand\nmore\r",
        ] {
            round_trip(b);
        }
    }

    #[test]
    fn splice_keeps_convention_and_final_newline_state() {
        let mut d = Doc::parse("f", b"a\r\nb\r\nc").unwrap();
        d.splice(1, 2, vec!["B1".into(), "B2".into()]);
        assert_eq!(d.to_bytes(), b"a\r\nB1\r\nB2\r\nc");
        d.splice(3, 4, vec!["C".into()]);
        assert_eq!(d.to_bytes(), b"a\r\nB1\r\nB2\r\nC");
        d.splice(2, 4, vec![]);
        assert_eq!(d.to_bytes(), b"a\r\nB1");
        d.splice(2, 2, vec!["end".into()]);
        assert_eq!(d.to_bytes(), b"a\r\nB1\r\nend");
    }

    #[test]
    fn binary_and_invalid_utf8_are_refused() {
        assert_eq!(
            Doc::parse("f", b"a\0b").unwrap_err().code,
            Code::BinaryContentRefused
        );
        assert_eq!(
            Doc::parse("f", b"\xff").unwrap_err().code,
            Code::BinaryContentRefused
        );
    }
}
