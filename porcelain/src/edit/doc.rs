//! A text file as lines with their own terminators, so an edit can change some lines and
//! write every other byte back exactly as it was: BOM, newline convention, final newline.

use crate::{Code, Error, Result};
use std::borrow::Cow;
use std::ops::Range;

const BOM: &str = "\u{feff}";

/// One line. Lines an edit did not touch borrow their text from the file as read, so a large
/// file is not copied line by line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    pub text: Cow<'a, str>,
    /// `"\n"`, `"\r\n"`, `"\r"`, or `""` for a last line without terminator.
    pub eol: &'static str,
}

#[derive(Clone, Debug)]
pub(crate) struct Doc<'a> {
    pub bom: bool,
    pub lines: Vec<Line<'a>>,
    /// The lines, as read, that the splices replaced or changed the line end of, in the order
    /// spliced. Line numbers as read: an edit that splices more than once goes from the last
    /// place to the first.
    pub touched: Vec<Range<usize>>,
    /// The newline convention of the file as read, which every new line takes. Fixed at
    /// parsing: an edit that splices more than once goes from the last place to the first,
    /// and the convention of a half-edited file (mixed line ends tipped by a later splice)
    /// would give an earlier place other line ends than the same edit made alone.
    convention: &'static str,
}

/// The bytes as editable text. Binary content (a NUL in the first 8 KiB) and invalid UTF-8
/// are refused: an edit never writes mojibake back.
pub(crate) fn text_of<'a>(path: &str, bytes: &'a [u8]) -> Result<&'a str> {
    let sniff = &bytes[..bytes.len().min(crate::text::BINARY_SNIFF_BYTES)];
    if sniff.contains(&0) {
        return Err(Error::new(
            Code::BinaryContentRefused,
            "refusing to edit binary content",
        )
        .path(path));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        Error::new(
            Code::BinaryContentRefused,
            format!(
                "refusing to edit: the file is not valid UTF-8 (byte {})",
                e.valid_up_to()
            ),
        )
        .path(path)
    })
}

/// Refuses an edit that would make a file without a BOM (`before`) start with U+FEFF
/// (`after`): every reader, this one included, takes that for a byte order mark, so the
/// character the caller's text held (or the line that followed a deleted first line) would
/// vanish from the file's text. An edit keeps a file's BOM as it is, and so never adds one.
/// Nor does it give a file with one BOM a second: new text that starts the file's text with
/// U+FEFF is the mark copied with the text as often as it is the character (`file write`
/// takes such content's U+FEFF for the mark), and the file would start with two marks.
pub(crate) fn no_new_bom(path: &str, before: &[u8], after: &[u8]) -> Result<()> {
    let bom = BOM.as_bytes();
    // How many marks `bytes` starts with, up to two.
    let marks = |bytes: &[u8]| match bytes.strip_prefix(bom) {
        Some(rest) => 1 + usize::from(rest.starts_with(bom)),
        None => 0,
    };
    let before_text_ends_with = |tail: &[u8]| before[bom.len()..].ends_with(tail);
    let (message, reason, recovery) = match (marks(before), marks(after)) {
        (0, 1..) => (
            "after this edit the file would start with the character U+FEFF, which reads as a byte order mark the file does not have: the character would vanish from its text; nothing was written",
            "bom_would_appear",
            "leave U+FEFF out of the start of the file, or write the whole file if a byte order mark is what it should have",
        ),
        // Unless the edit only took away text in front of a U+FEFF the file's text held
        // (deleting its first lines): that character is the file's own. The text, not the
        // bytes: the file's own mark in front of it is no such character (before
        // 2026-12-05 new text of U+FEFF and the old text was written with a second mark).
        (1, 2) if !before_text_ends_with(&after[bom.len()..]) => (
            "after this edit the file's text would start with U+FEFF behind the file's own byte order mark, so the file would start with two marks: whether the text's U+FEFF is the mark copied with it or a character of the text cannot be told; nothing was written",
            "bom_would_double",
            "leave U+FEFF out of the start of the new text (the file keeps its mark), or write the whole file if two marks are what it should have",
        ),
        // A file that starts with two marks already, whose first line the edit changes: the
        // U+FEFF in front of the new first line may be the text's own or the mark copied
        // with the caller's text, as above (an edit of other lines is not concerned).
        (2, 2)
            if first_line(before) != first_line(after)
                && !before_text_ends_with(&after[bom.len()..]) =>
        {
            (
                "the file starts with two byte order marks, and after this edit its first line would start with U+FEFF again: whether that U+FEFF is the text's own or the mark copied with the new text cannot be told; nothing was written",
                "bom_would_double",
                "leave the first line alone, or write the whole file with the marks it should have",
            )
        }
        _ => return Ok(()),
    };
    Err(Error::invalid(message)
        .path(path)
        .with("reason", reason)
        .recovery(recovery))
}

/// The bytes of `bytes` up to its first line end (all of it when it has none).
fn first_line(bytes: &[u8]) -> &[u8] {
    let end = memchr::memchr2(b'\n', b'\r', bytes).unwrap_or(bytes.len());
    &bytes[..end]
}

/// Refuses an edit that would make the text file binary: a NUL byte in the file's first
/// 8 KiB, where every read and edit looks for one ([`text_of`]), from the new text or from
/// further on in the file (`before`), which removed lines bring forward. The edit would
/// answer `ok` and be the last one the file could take: no read would show it, no text edit
/// would touch it again (nor undo it as text).
pub(crate) fn stays_text(path: &str, before: &[u8], after: &[u8]) -> Result<()> {
    let Some(at) = memchr::memchr(
        0,
        &after[..after.len().min(crate::text::BINARY_SNIFF_BYTES)],
    ) else {
        return Ok(());
    };
    // Where it comes from: the file's own, brought forward, when the bytes from it on are
    // the file's own end; the new text's, when the edit adds NULs.
    let count = |bytes: &[u8]| memchr::memchr_iter(0, bytes).count();
    let (whence, recovery) = if before.ends_with(&after[at..]) {
        (
            "a NUL byte the file holds further on, which the edit brings forward,",
            "keep at least 8 KiB of text in front of the file's NUL byte (remove fewer lines before it), or write the whole file if binary content is what it should hold",
        )
    } else if count(after) > count(before) {
        (
            "a NUL byte of the new text",
            "leave the NUL out of the new text, or write the whole file if binary content is what it should hold",
        )
    } else {
        (
            "a NUL byte",
            "leave NUL bytes out of the new text and keep at least 8 KiB of text in front of the file's own, or write the whole file if binary content is what it should hold",
        )
    };
    Err(Error::invalid(format!(
        "after this edit the file would hold {whence} in its first 8 KiB (at byte {at}), which makes it binary: no read or text edit would take it again; nothing was written"
    ))
    .path(path)
    .with("reason", "would_become_binary")
    .with("byte", at)
    .recovery(recovery))
}

/// `text` without its UTF-8 BOM, and whether it had one.
pub(crate) fn strip_bom(text: &str) -> (bool, &str) {
    match text.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, text),
    }
}

impl<'a> Doc<'a> {
    /// Parses UTF-8 text (see [`text_of`] for what is refused). Edits go through
    /// [`Editable`], which splits lines only when needed; the tests parse directly.
    #[cfg(test)]
    pub fn parse(path: &str, bytes: &'a [u8]) -> Result<Doc<'a>> {
        let (bom, body) = strip_bom(text_of(path, bytes)?);
        Ok(Doc::new(bom, split_lines(body)))
    }

    fn new(bom: bool, lines: Vec<Line<'a>>) -> Doc<'a> {
        let convention = convention(lines.iter().map(|l| l.eol));
        Doc {
            bom,
            lines,
            touched: Vec::new(),
            convention,
        }
    }

    /// Parses text the way `diff` sees it, for patching: lines end only at `\n` (a lone `\r`
    /// is part of its line) and a BOM stays part of line 1, as it is in `diff -u` output.
    pub fn parse_for_patch(path: &str, bytes: &'a [u8]) -> Result<Doc<'a>> {
        Ok(Doc::new(false, split_lf(text_of(path, bytes)?)))
    }

    /// Parses text for a Codex patch: lines end only at `\n` (or `\r\n`), as for any patch,
    /// but a BOM is set apart. The patch's lines come from the file as an agent reads it,
    /// which is without its BOM; it is written back as it was.
    pub fn parse_for_codex(path: &str, bytes: &'a [u8]) -> Result<Doc<'a>> {
        let (bom, body) = strip_bom(text_of(path, bytes)?);
        Ok(Doc::new(bom, split_lf(body)))
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let len = self
            .lines
            .iter()
            .map(|l| l.text.len() + l.eol.len())
            .sum::<usize>();
        let mut out = String::with_capacity(BOM.len() + len);
        if self.bom {
            out.push_str(BOM);
        }
        for (i, line) in self.lines.iter().enumerate() {
            out.push_str(&line.text);
            out.push_str(line.eol);
            // A lone CR cannot end a line that an empty LF line follows: the two bytes read
            // back as one CRLF and the empty line is gone. Only an edit can bring them
            // together (a new line in a CR file, or a deleted range between them), and then
            // this line ends in CRLF instead, which keeps both.
            if line.eol == "\r"
                && self
                    .lines
                    .get(i + 1)
                    .is_some_and(|next| next.text.is_empty() && next.eol == "\n")
            {
                out.push('\n');
            }
        }
        out.into_bytes()
    }

    /// The convention new lines get: the file's own as read (the most common line end when
    /// it mixes them, LF when it has none).
    pub fn eol(&self) -> &'static str {
        self.convention
    }

    /// Whether the last line has a terminator (an empty file counts as ending with one).
    pub fn ends_with_newline(&self) -> bool {
        self.lines.last().is_none_or(|l| !l.eol.is_empty())
    }

    /// Replaces lines `start..end` (0-based, exclusive) with `new` texts, each terminated with
    /// the file's convention, except that a replacement reaching the end of a file without a
    /// final newline leaves the new last line without one too, when that line has text.
    pub fn splice(&mut self, start: usize, end: usize, new: Vec<String>) {
        let eol = self.eol();
        self.splice_ended(
            start,
            end,
            new.into_iter().map(|text| (text, eol)).collect(),
        );
    }

    /// Like [`Doc::splice`], but a new line `j` with `keep[j] == Some(i)` ends as line
    /// `start + i` (one of those replaced) did, so a line that stands for a file line keeps
    /// its line end in a file that mixes them. The others take the line end the replaced
    /// lines share, or the file's convention when they mix them. Only the last line of the
    /// file may be left without one.
    pub fn splice_keeping_ends(
        &mut self,
        start: usize,
        end: usize,
        new: Vec<String>,
        keep: &[Option<usize>],
    ) {
        let ends = self.kept_ends(start, end, keep, new.len());
        let ended = new.into_iter().zip(ends).collect();
        self.splice_ended(start, end, ended);
    }

    /// The line end each of `count` new lines of [`Doc::splice_keeping_ends`] gets: the end
    /// of the replaced line it keeps (`keep`, relative to `start`), else the one the replaced
    /// lines share, else the file's convention.
    pub fn kept_ends(
        &self,
        start: usize,
        end: usize,
        keep: &[Option<usize>],
        count: usize,
    ) -> Vec<&'static str> {
        let replaced = || {
            self.lines[start..end]
                .iter()
                .map(|l| l.eol)
                .filter(|e| !e.is_empty())
        };
        let shared = replaced()
            .next()
            .filter(|&first| replaced().all(|e| e == first));
        let fallback = shared.unwrap_or_else(|| self.eol());
        (0..count)
            .map(|j| {
                keep.get(j)
                    .copied()
                    .flatten()
                    .map(|i| self.lines[start + i].eol)
                    .filter(|e| !e.is_empty())
                    .unwrap_or(fallback)
            })
            .collect()
    }

    fn splice_ended(&mut self, start: usize, end: usize, new: Vec<(String, &'static str)>) {
        let eol = self.eol();
        let at_end = end == self.lines.len();
        let final_newline = self.ends_with_newline();
        let mut lines: Vec<Line> = new
            .into_iter()
            .map(|(text, eol)| Line {
                text: text.into(),
                eol,
            })
            .collect();
        // The line before is changed too when it gets or loses its terminator here, or ends in
        // a lone CR that `to_bytes` may have to end in CRLF.
        let ends_before = at_end && !final_newline && (start == end || lines.is_empty());
        let before = start > 0 && (ends_before || self.lines[start - 1].eol == "\r");
        self.touched.push(start - usize::from(before)..end);
        if at_end && !final_newline {
            if start == end && start > 0 && !lines.is_empty() {
                // Appending after a last line without terminator: it needs one now.
                self.lines[start - 1].eol = eol;
            }
            // The new last line goes without a terminator too, unless it is empty: an empty
            // line without one is no bytes at all, so it would vanish and keeps one instead.
            if let Some(last) = lines.last_mut() {
                if !last.text.is_empty() {
                    last.eol = "";
                }
            } else if start > 0 && !self.lines[start - 1].text.is_empty() {
                // Deleting the last lines: the line before them is last now.
                self.lines[start - 1].eol = "";
            }
        }
        self.lines.splice(start..end, lines);
    }
}

/// The convention of a text whose line terminators are `eols`: the one it uses, the most
/// common one when it mixes them, LF when it has none.
fn convention<'a>(eols: impl Iterator<Item = &'a str>) -> &'static str {
    let mut counts = [0usize; 3];
    for eol in eols {
        match eol {
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

/// The terminators of `text`, as [`split_lines`] cuts it, without building the lines.
fn terminators(text: &str) -> impl Iterator<Item = &'static str> + '_ {
    let bytes = text.as_bytes();
    memchr::memchr2_iter(b'\n', b'\r', bytes).filter_map(move |i| match bytes[i] {
        b'\n' if i > 0 && bytes[i - 1] == b'\r' => None, // counted at its \r
        b'\n' => Some("\n"),
        _ if bytes.get(i + 1) == Some(&b'\n') => Some("\r\n"),
        _ => Some("\r"),
    })
}

/// A file being edited: its text as read, split into lines only when an edit needs lines, so
/// an edit of literal text (the common one) never holds a large file as a line per string.
pub(crate) struct Editable<'a> {
    bom: bool,
    body: &'a str,
    doc: Option<Doc<'a>>,
    /// The whole new text, BOM included, when an edit rewrote it as text.
    rewritten: Option<String>,
    /// The byte ranges of the text as read (without its BOM) that the rewrite replaced.
    replaced: Vec<Range<usize>>,
}

impl<'a> Editable<'a> {
    pub fn new(path: &str, bytes: &'a [u8]) -> Result<Editable<'a>> {
        let (bom, body) = strip_bom(text_of(path, bytes)?);
        Ok(Editable {
            bom,
            body,
            doc: None,
            rewritten: None,
            replaced: Vec::new(),
        })
    }

    /// The text as read, without its BOM. Only for edits that have not changed it yet.
    pub fn body(&self) -> &'a str {
        self.body
    }

    /// The newline convention of the text as read.
    pub fn eol(&self) -> &'static str {
        convention(terminators(self.body))
    }

    /// The text as lines, split on first use.
    pub fn doc(&mut self) -> &mut Doc<'a> {
        let (bom, body) = (self.bom, self.body);
        self.doc
            .get_or_insert_with(|| Doc::new(bom, split_lines(body)))
    }

    /// A buffer that already holds the BOM, for building a new text without a copy; hand it
    /// back with [`Editable::set_text`].
    pub fn new_text(&self, capacity: usize) -> String {
        let mut text = String::with_capacity(BOM.len() + capacity);
        if self.bom {
            text.push_str(BOM);
        }
        text
    }

    /// Replaces the whole text with `text`, which came from [`Editable::new_text`] and differs
    /// from the text as read only in the byte ranges `replaced` (of the text without its BOM).
    pub fn set_text(&mut self, text: String, replaced: Vec<Range<usize>>) {
        self.doc = None;
        self.rewritten = Some(text);
        self.replaced = replaced;
    }

    /// The byte ranges of the file as read, BOM included, that the edit replaced, in order:
    /// where the edit changed it, for merging it into a file that changed since.
    pub fn changed(&self) -> Vec<Range<usize>> {
        let bom = if self.bom { BOM.len() } else { 0 };
        let ranges = match (&self.rewritten, &self.doc) {
            (Some(_), _) => self.replaced.clone(),
            (None, Some(doc)) => {
                let mut starts = super::locate::line_starts(&split_lines(self.body));
                starts.push(self.body.len());
                let mut ranges: Vec<Range<usize>> = doc
                    .touched
                    .iter()
                    .map(|r| starts[r.start]..starts[r.end])
                    .collect();
                ranges.sort_by_key(|r| r.start);
                ranges
            }
            (None, None) => Vec::new(),
        };
        ranges
            .into_iter()
            .map(|r| r.start + bom..r.end + bom)
            .collect()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        if let Some(text) = self.rewritten {
            return text.into_bytes();
        }
        if let Some(doc) = &self.doc {
            return doc.to_bytes();
        }
        let mut text = self.new_text(self.body.len());
        text.push_str(self.body);
        text.into_bytes()
    }
}

/// Splits text at `\n`, `\r\n` and lone `\r`, keeping each terminator.
pub(crate) fn split_lines(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(Line {
                    text: Cow::Borrowed(&text[start..i]),
                    eol: "\n",
                });
                i += 1;
                start = i;
            }
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                lines.push(Line {
                    text: Cow::Borrowed(&text[start..i]),
                    eol: "\r\n",
                });
                i += 2;
                start = i;
            }
            b'\r' => {
                lines.push(Line {
                    text: Cow::Borrowed(&text[start..i]),
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
            text: Cow::Borrowed(&text[start..]),
            eol: "",
        });
    }
    lines
}

/// Splits text at `\n` only (`\r\n` is one terminator; a lone `\r` stays in its line).
fn split_lf(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('\n') {
        let (line, eol) = match rest[..i].strip_suffix('\r') {
            Some(line) => (line, "\r\n"),
            None => (&rest[..i], "\n"),
        };
        lines.push(Line {
            text: Cow::Borrowed(line),
            eol,
        });
        rest = &rest[i + 1..];
    }
    if !rest.is_empty() {
        lines.push(Line {
            text: Cow::Borrowed(rest),
            eol: "",
        });
    }
    lines
}

/// Caller text as lines (terminators dropped); a trailing newline does not add an empty line.
pub(crate) fn caller_lines(text: &str) -> Vec<String> {
    split_lines(text)
        .into_iter()
        .map(|l| l.text.into_owned())
        .collect()
}

#[cfg(test)]
// The ranges are lists of changed byte ranges that hold one, not ranges to collect.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn editable_text_sees_the_same_convention_as_its_lines() {
        for text in [
            "",
            "a",
            "a\n",
            "a\r\nb\r\n",
            "a\rb\r",
            "a\r\nb\nc\r\n",
            "a\rb\nc\r",
            "\r\n\r",
            "x\r",
        ] {
            let ed = Editable::new("f", text.as_bytes()).unwrap();
            let doc = Doc::parse("f", text.as_bytes()).unwrap();
            assert_eq!(ed.eol(), doc.eol(), "{text:?}");
        }
    }

    #[test]
    fn a_second_mark_is_refused_unless_the_text_held_the_character() {
        let reason = |before: &str, after: &str| {
            no_new_bom("f", before.as_bytes(), after.as_bytes())
                .err()
                .map(|e| e.details["reason"].clone())
        };
        // U+FEFF in front of the old text: the file's own mark is no U+FEFF of its text
        // (before 2026-12-05 this wrote a second mark).
        assert_eq!(
            reason("\u{feff}a\n", "\u{feff}\u{feff}a\n"),
            Some("bom_would_double".into())
        );
        assert_eq!(
            reason("\u{feff}\u{feff}b", "\u{feff}\u{feff}\u{feff}b"),
            Some("bom_would_double".into())
        );
        // Deleting the first line uncovers a U+FEFF the text held: allowed.
        assert_eq!(
            reason("\u{feff}x\n\u{feff}y\n", "\u{feff}\u{feff}y\n"),
            None
        );
        // A file without a mark never gains one.
        assert_eq!(
            reason("a\n", "\u{feff}a\n"),
            Some("bom_would_appear".into())
        );
    }

    #[test]
    fn editable_keeps_the_bom_and_unchanged_bytes() {
        let bytes = "\u{feff}one\r\ntwo".as_bytes();
        assert_eq!(Editable::new("f", bytes).unwrap().into_bytes(), bytes);
        let mut ed = Editable::new("f", bytes).unwrap();
        let mut text = ed.new_text(3);
        text.push_str("new");
        ed.set_text(text, vec![0.."one\r\ntwo".len()]);
        assert_eq!(ed.into_bytes(), "\u{feff}new".as_bytes());
        let mut ed = Editable::new("f", bytes).unwrap();
        ed.doc().lines[1].text = "2".into();
        assert_eq!(ed.into_bytes(), "\u{feff}one\r\n2".as_bytes());
    }

    #[test]
    fn an_edit_names_the_bytes_of_the_file_it_changed() {
        let changed = |bytes: &[u8], edit: &dyn Fn(&mut Doc)| {
            let mut ed = Editable::new("f", bytes).unwrap();
            edit(ed.doc());
            ed.changed()
        };
        // A line range, after the BOM.
        let ranges = changed("\u{feff}a\nb\nc\n".as_bytes(), &|d| {
            d.splice(1, 2, vec!["B".into()])
        });
        assert_eq!(ranges, vec![5..7]);
        // An insertion is an empty range where it goes.
        assert_eq!(
            changed(b"a\nb\n", &|d| d.splice(1, 1, vec!["x".into()])),
            vec![2..2]
        );
        // Appending to a last line without a newline ends that line: it is changed too.
        assert_eq!(
            changed(b"a\nb", &|d| d.splice(2, 2, vec!["c".into()])),
            vec![2..3]
        );
        // So is a line ending in a lone CR before the change, which may end in CRLF after it.
        assert_eq!(changed(b"a\rb\n", &|d| d.splice(1, 2, vec![])), vec![0..4]);
    }

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
    fn a_lone_cr_brought_next_to_an_empty_lf_line_becomes_crlf_so_no_line_is_lost() {
        // A CR file with one LF stretch: a new line takes CR, the majority's ending.
        let mut d = Doc::parse("f", b"a\rb\rc\rold\n\nz").unwrap();
        d.splice(3, 4, vec!["new".into()]);
        assert_eq!(d.to_bytes(), b"a\rb\rc\rnew\r\n\nz");
        assert_eq!(Doc::parse("f", &d.to_bytes()).unwrap().lines.len(), 6);
        // Deleting the lines between a CR line and an empty LF line.
        let mut d = Doc::parse("f", b"a\rb\rgone\n\nz").unwrap();
        d.splice(2, 3, vec![]);
        assert_eq!(d.to_bytes(), b"a\rb\r\n\nz");
        assert_eq!(Doc::parse("f", &d.to_bytes()).unwrap().lines.len(), 4);
    }

    #[test]
    fn an_empty_new_last_line_keeps_its_terminator_in_a_file_without_a_final_newline() {
        // Without one, the empty line would not be in the bytes at all.
        let mut d = Doc::parse("f", b"a\n\nb").unwrap();
        d.splice(2, 3, vec![]);
        assert_eq!(d.to_bytes(), b"a\n\n");
        let mut d = Doc::parse("f", b"a\r\rb").unwrap();
        d.splice(2, 3, vec![]);
        assert_eq!(d.to_bytes(), b"a\r\r");
        let mut d = Doc::parse("f", b"a").unwrap();
        d.splice(1, 1, vec![String::new()]);
        assert_eq!(d.to_bytes(), b"a\n\n");
        let mut d = Doc::parse("f", b"a").unwrap();
        d.splice(1, 1, vec![String::new(), String::new()]);
        assert_eq!(d.to_bytes(), b"a\n\n\n");
        let mut d = Doc::parse("f", b"a\nb").unwrap();
        d.splice(1, 2, vec![String::new()]);
        assert_eq!(d.to_bytes(), b"a\n\n");
        let mut d = Doc::parse("f", b"x\n    a\n    b").unwrap();
        d.splice_keeping_ends(
            1,
            3,
            vec!["    A".into(), "    B".into(), String::new()],
            &[],
        );
        assert_eq!(d.to_bytes(), b"x\n    A\n    B\n\n");
        // A last line with text still goes without one.
        let mut d = Doc::parse("f", b"a\nb\nc").unwrap();
        d.splice(2, 3, vec![]);
        assert_eq!(d.to_bytes(), b"a\nb");
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
