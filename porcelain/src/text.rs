//! Text facts of a byte stream, found in one streaming pass: is it text, in which encoding,
//! which newline convention, a BOM, how many lines, its hash, and (optionally) the raw bytes of
//! a range of lines. Nothing but the collected range is held in memory.
//!
//! Lines end at `\n`, `\r\n` or a lone `\r`; a final line without a terminator still counts.

use crate::{Error, ObjectId, Result};
use encoding_rs::{DecoderResult, Encoding, UTF_8};
use filekeeper_plumbing::oid::Hasher;
use std::io::{self, Read};

/// A file is binary when its first 8 KiB hold a NUL byte.
pub(crate) const BINARY_SNIFF_BYTES: usize = 8 * 1024;
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The newline convention a file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Newline {
    Lf,
    Crlf,
    Cr,
    Mixed,
    /// No line terminator at all (empty, or one unterminated line).
    None,
}

impl Newline {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Newline::Lf => "lf",
            Newline::Crlf => "crlf",
            Newline::Cr => "cr",
            Newline::Mixed => "mixed",
            Newline::None => "none",
        }
    }
}

/// Resolves an `--encoding` label. Only ASCII-compatible encodings are supported: line
/// splitting works on bytes, and UTF-16 text would look binary anyway.
pub(crate) fn encoding_for(label: Option<&str>) -> Result<&'static Encoding> {
    let Some(label) = label else {
        return Ok(UTF_8);
    };
    let encoding =
        Encoding::for_label_no_replacement(label.trim().as_bytes()).ok_or_else(|| {
            Error::invalid(format!("unknown encoding {label:?}")).with("encoding", label)
        })?;
    if !encoding.is_ascii_compatible() {
        return Err(Error::invalid(format!(
            "{} is not supported: only ASCII-compatible encodings (UTF-8, Latin-1, Shift_JIS, ...) are",
            encoding.name()
        ))
        .with("encoding", label));
    }
    Ok(encoding)
}

/// Which lines to keep, and how many bytes and lines at most.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Collect {
    pub from_line: u64,
    pub to_line: Option<u64>,
    pub max_bytes: u64,
    /// `u64::MAX` when only bytes bound the read.
    pub max_lines: u64,
}

/// Which bound cut a read short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    MaxBytes,
    MaxLines,
}

impl Cut {
    /// The word a read's `truncation_reason` holds.
    pub fn as_str(self) -> &'static str {
        match self {
            Cut::MaxBytes => "max_bytes",
            Cut::MaxLines => "max_lines",
        }
    }
}

/// What one pass found.
#[derive(Debug)]
pub(crate) struct Scan {
    pub hash: ObjectId,
    pub size: u64,
    /// `None` when the content is binary or does not decode in the encoding.
    pub text: Option<TextFacts>,
    /// Why the content is not text, when it is not.
    pub not_text: Option<String>,
}

#[derive(Debug)]
pub(crate) struct TextFacts {
    pub encoding: &'static Encoding,
    pub newline: Newline,
    pub bom: bool,
    pub line_count: u64,
    /// The collected lines' raw bytes (terminators and, on line 1, the BOM included).
    pub collected: Vec<u8>,
    /// The first and last collected line (`None` when nothing was collected).
    pub first_collected: Option<u64>,
    pub last_collected: Option<u64>,
    /// The first line in range that did not fit in `max_bytes` or `max_lines`.
    pub cut_at: Option<u64>,
    /// Which bound it did not fit in.
    pub cut_by: Option<Cut>,
    /// The length of that line, when it alone exceeds `max_bytes`.
    pub oversized_line: Option<u64>,
}

/// Splits a stream into lines as it arrives, counts them and their terminators, and keeps
/// the raw bytes of the lines in range.
struct Lines {
    /// The number of the line being read, 1-based.
    line_no: u64,
    line_len: u64,
    /// The last chunk ended in a CR: the next byte decides between CRLF and a lone CR.
    pending_cr: bool,
    lf: u64,
    crlf: u64,
    cr: u64,
    range: Option<Collect>,
    /// What has been read of the current line, while it is in range.
    current: Vec<u8>,
    collected: Vec<u8>,
    first: Option<u64>,
    last: Option<u64>,
    cut_at: Option<u64>,
    cut_by: Option<Cut>,
    oversized: Option<u64>,
}

impl Lines {
    fn new(range: Option<Collect>) -> Lines {
        Lines {
            line_no: 1,
            line_len: 0,
            pending_cr: false,
            lf: 0,
            crlf: 0,
            cr: 0,
            range,
            current: Vec::new(),
            collected: Vec::new(),
            first: None,
            last: None,
            cut_at: None,
            cut_by: None,
            oversized: None,
        }
    }

    /// Takes the next chunk of the stream. `memchr2` jumps from one CR or LF to the next: the
    /// bytes between them change nothing but the line's length.
    fn feed(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return; // a pending CR waits for a byte that says what it ended
        }
        let mut start = 0;
        if self.pending_cr {
            self.pending_cr = false;
            if chunk.first() == Some(&b'\n') {
                self.crlf += 1;
                start = 1;
            } else {
                self.cr += 1;
            }
            self.finish_line(&chunk[..start]);
        }
        while let Some(found) = memchr::memchr2(b'\n', b'\r', &chunk[start..]) {
            let i = start + found;
            let end = match (chunk[i], chunk.get(i + 1)) {
                (b'\n', _) => {
                    self.lf += 1;
                    i
                }
                (_, Some(b'\n')) => {
                    self.crlf += 1;
                    i + 1
                }
                (_, Some(_)) => {
                    self.cr += 1;
                    i
                }
                (_, None) => {
                    self.pending_cr = true;
                    break;
                }
            };
            self.finish_line(&chunk[start..=end]);
            start = end + 1;
        }
        self.extend_current(&chunk[start..]);
        self.line_len += (chunk.len() - start) as u64;
    }

    /// Ends the stream: a final line without a terminator (or ending in a lone CR) counts.
    fn end(&mut self) {
        if self.pending_cr {
            self.cr += 1;
            self.pending_cr = false;
        }
        if self.line_len > 0 {
            self.finish_line(&[]);
        }
    }

    fn newline(&self) -> Newline {
        match (self.lf > 0, self.crlf > 0, self.cr > 0) {
            (false, false, false) => Newline::None,
            (true, false, false) => Newline::Lf,
            (false, true, false) => Newline::Crlf,
            (false, false, true) => Newline::Cr,
            _ => Newline::Mixed,
        }
    }

    fn in_range(&self) -> Option<Collect> {
        self.range.filter(|c| {
            self.line_no >= c.from_line && c.to_line.is_none_or(|to| self.line_no <= to)
        })
    }

    /// Adds bytes of the line being read to `current` when that line is in range, up to one
    /// byte past `max_bytes` (enough to know it does not fit), until the read is cut.
    fn extend_current(&mut self, bytes: &[u8]) {
        if let Some(c) = self.in_range()
            && self.cut_at.is_none()
            && (self.current.len() as u64) <= c.max_bytes
        {
            let room = (c.max_bytes + 1).saturating_sub(self.current.len() as u64) as usize;
            self.current
                .extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
    }

    /// Ends the current line with `tail`, its last bytes.
    fn finish_line(&mut self, tail: &[u8]) {
        let len = self.line_len + tail.len() as u64;
        if let Some(c) = self.in_range()
            && self.cut_at.is_none()
        {
            self.extend_current(tail);
            let kept = match (self.first, self.last) {
                (Some(first), Some(last)) => last - first + 1,
                _ => 0,
            };
            if kept >= c.max_lines {
                self.cut_at = Some(self.line_no);
                self.cut_by = Some(Cut::MaxLines);
            } else if self.collected.len() as u64 + len <= c.max_bytes {
                self.collected.extend_from_slice(&self.current);
                self.first.get_or_insert(self.line_no);
                self.last = Some(self.line_no);
            } else {
                self.cut_at = Some(self.line_no);
                self.cut_by = Some(Cut::MaxBytes);
                if self.first.is_none() {
                    self.oversized = Some(len);
                }
            }
        }
        self.current.clear();
        self.line_no += 1;
        self.line_len = 0;
    }
}

/// Scans `reader` to its end.
pub(crate) fn scan(
    mut reader: impl Read,
    encoding: &'static Encoding,
    collect: Option<Collect>,
) -> Result<Scan> {
    let mut hasher = Hasher::default();
    let mut decoder = encoding.new_decoder_without_bom_handling();
    // Both buffers start small and grow only as the file turns out to need them: most files
    // read are small, and a zeroed 256 KiB is most of what a small read would touch.
    let mut scratch = Vec::new();
    let mut buf = vec![0u8; 8 * 1024];
    let mut seen: u64 = 0;
    let mut binary = false;
    let mut undecodable: Option<u64> = None;
    let mut bom = false;
    let mut lines = Lines::new(collect);
    let mut head: Vec<u8> = Vec::with_capacity(3);

    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::storage("reading file", &e)),
        };
        if n == buf.len() && buf.len() < 64 * 1024 {
            buf.resize(buf.len() * 2, 0);
        }
        let chunk = &buf[..n];
        hasher.update(chunk);
        if seen < BINARY_SNIFF_BYTES as u64 {
            let sniff = (BINARY_SNIFF_BYTES as u64 - seen).min(n as u64) as usize;
            binary |= chunk[..sniff].contains(&0);
        }
        if head.len() < 3 {
            let take = (3 - head.len()).min(n);
            head.extend_from_slice(&chunk[..take]);
            if head.len() == 3 && encoding == UTF_8 {
                bom = head == UTF8_BOM;
            }
        }
        seen += n as u64;
        if binary || undecodable.is_some() {
            continue; // keep hashing; text facts no longer matter
        }
        scratch.resize(scratch.len().max(3 * n + 16), 0);
        let mut src = chunk;
        while !src.is_empty() {
            let (result, read, _) =
                decoder.decode_to_utf8_without_replacement(src, &mut scratch, false);
            src = &src[read..];
            if let DecoderResult::Malformed(..) = result {
                // The lines up to the bad byte say which line it is on; a CR just before it
                // ended a line of its own, since the bad byte is no LF.
                lines.feed(&chunk[..chunk.len() - src.len()]);
                undecodable = Some(lines.line_no + lines.pending_cr as u64);
                break;
            }
        }
        if undecodable.is_none() {
            lines.feed(chunk);
        }
    }
    if !binary && undecodable.is_none() {
        scratch.resize(scratch.len().max(16), 0);
        let (result, _, _) = decoder.decode_to_utf8_without_replacement(&[], &mut scratch, true);
        if let DecoderResult::Malformed(..) = result {
            undecodable = Some(lines.line_no);
        }
    }
    // A file that is only a byte-order mark holds no text, so it has no line, as an empty file
    // has none (an edit counts no line in it either); a final line is any other unended one.
    if !(bom && seen == UTF8_BOM.len() as u64) {
        lines.end();
    }
    let line_count = lines.line_no - 1;
    let (hash, size) = hasher.finish();
    let not_text = if binary {
        Some("the content is binary (a NUL byte in its first 8 KiB)".to_owned())
    } else {
        undecodable.map(|line| format!("line {line} is not valid {}", encoding.name()))
    };
    let text = not_text.is_none().then(|| TextFacts {
        encoding,
        newline: lines.newline(),
        bom,
        line_count,
        collected: lines.collected,
        first_collected: lines.first,
        last_collected: lines.last,
        cut_at: lines.cut_at,
        cut_by: lines.cut_by,
        oversized_line: lines.oversized,
    });
    Ok(Scan {
        hash,
        size,
        text,
        not_text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;

    fn facts(bytes: &[u8]) -> TextFacts {
        scan(bytes, UTF_8, None).unwrap().text.unwrap()
    }

    fn lines(bytes: &[u8], from: u64, to: Option<u64>, max: u64) -> TextFacts {
        let c = Collect {
            from_line: from,
            to_line: to,
            max_bytes: max,
            max_lines: u64::MAX,
        };
        scan(bytes, UTF_8, Some(c)).unwrap().text.unwrap()
    }

    #[test]
    fn line_counts_and_newline_conventions() {
        for (bytes, count, newline) in [
            (&b""[..], 0, Newline::None),
            (b"one", 1, Newline::None),
            (b"one\n", 1, Newline::Lf),
            (b"a\nb\n\n", 3, Newline::Lf),
            (b"a\r\nb\r\n", 2, Newline::Crlf),
            (b"a\rb\r", 2, Newline::Cr),
            (b"a\rb", 2, Newline::Cr),
            (b"a\r\nb\n", 2, Newline::Mixed),
            (b"\r\r\n", 2, Newline::Mixed),
        ] {
            let f = facts(bytes);
            assert_eq!((f.line_count, f.newline), (count, newline), "{bytes:?}");
        }
    }

    #[test]
    fn collected_ranges_keep_raw_bytes() {
        let text = b"l1\r\nl2\rl3\nl4";
        let f = lines(text, 2, Some(3), 100);
        assert_eq!(f.collected, b"l2\rl3\n");
        assert_eq!((f.first_collected, f.last_collected), (Some(2), Some(3)));
        let f = lines(text, 4, None, 100);
        assert_eq!(f.collected, b"l4");
    }

    #[test]
    fn a_range_cut_by_max_bytes_stops_at_a_whole_line() {
        let f = lines(b"aaaa\nbbbb\ncccc\n", 1, None, 12);
        assert_eq!(f.collected, b"aaaa\nbbbb\n");
        assert_eq!(f.cut_at, Some(3));
        assert_eq!(f.oversized_line, None);
        let f = lines(b"aaaaaaaaaa\nb\n", 1, None, 4);
        assert!(f.collected.is_empty());
        assert_eq!((f.cut_at, f.oversized_line), (Some(1), Some(11)));
    }

    #[test]
    fn a_range_cut_by_max_lines_stops_after_that_many_lines() {
        let c = |from, to, max_lines| Collect {
            from_line: from,
            to_line: to,
            max_bytes: 100,
            max_lines,
        };
        let text = b"a\nb\r\nc\rd\n";
        let f = scan(&text[..], UTF_8, Some(c(1, None, 2)))
            .unwrap()
            .text
            .unwrap();
        assert_eq!(f.collected, b"a\nb\r\n");
        assert_eq!((f.cut_at, f.cut_by), (Some(3), Some(Cut::MaxLines)));
        assert_eq!(f.line_count, 4, "the scan still reads to the end");
        // Exactly as many lines as the range asks for, or as the file has, is not a cut.
        let f = scan(&text[..], UTF_8, Some(c(2, Some(3), 2)))
            .unwrap()
            .text
            .unwrap();
        assert_eq!((f.collected.as_slice(), f.cut_at), (&b"b\r\nc\r"[..], None));
        let f = scan(&text[..], UTF_8, Some(c(3, None, 2)))
            .unwrap()
            .text
            .unwrap();
        assert_eq!((f.collected.as_slice(), f.cut_at), (&b"c\rd\n"[..], None));
        // Whichever bound comes first cuts, and says which it was.
        let f = scan(
            &text[..],
            UTF_8,
            Some(Collect {
                max_bytes: 2,
                ..c(1, None, 3)
            }),
        )
        .unwrap()
        .text
        .unwrap();
        assert_eq!((f.cut_at, f.cut_by), (Some(2), Some(Cut::MaxBytes)));
    }

    /// Hands out at most `step` bytes a read, so every position is a chunk boundary.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn any_chunking_gives_the_same_facts() {
        let texts: [&[u8]; 8] = [
            b"a\r\nb\rc\nd",
            b"\r\r\n\n\r",
            b"one\r",
            b"\rtwo\r\n",
            b"x\r\ry\n\n\r\nz",
            b"caf\xc3\xa9\r\n\xe2\x82\xac\n",
            b"ok\r\n\xff bad\n",
            b"a\r\xff\n",
        ];
        let ranges = [
            (1, None, 100, u64::MAX),
            (2, Some(3), 100, u64::MAX),
            (1, None, 5, u64::MAX),
            (3, None, 1, u64::MAX),
            (1, None, 100, 2),
            (2, None, 5, 1),
        ];
        for text in texts {
            for (from, to, max, max_lines) in ranges {
                let c = Collect {
                    from_line: from,
                    to_line: to,
                    max_bytes: max,
                    max_lines,
                };
                let whole = scan(text, UTF_8, Some(c)).unwrap();
                for step in 1..=3 {
                    let part = scan(Trickle { bytes: text, step }, UTF_8, Some(c)).unwrap();
                    let case = format!(
                        "{text:?} step {step} lines {from}..{to:?} max {max} lines {max_lines}"
                    );
                    assert_eq!(part.not_text, whole.not_text, "{case}");
                    let (Some(p), Some(w)) = (part.text, whole.text.as_ref()) else {
                        continue;
                    };
                    assert_eq!(
                        (p.line_count, p.newline, p.collected.as_slice()),
                        (w.line_count, w.newline, w.collected.as_slice()),
                        "{case}"
                    );
                    assert_eq!(
                        (
                            p.first_collected,
                            p.last_collected,
                            p.cut_at,
                            p.cut_by,
                            p.oversized_line
                        ),
                        (
                            w.first_collected,
                            w.last_collected,
                            w.cut_at,
                            w.cut_by,
                            w.oversized_line
                        ),
                        "{case}"
                    );
                }
            }
        }
    }

    #[test]
    fn binary_bom_and_undecodable_bytes() {
        let s = scan(&b"ab\0cd"[..], UTF_8, None).unwrap();
        assert!(s.text.is_none() && s.not_text.unwrap().contains("binary"));
        assert!(facts(b"\xEF\xBB\xBFhi\n").bom);
        // A byte-order mark alone is no line, as the edits count it; one more byte is.
        let only = facts(b"\xEF\xBB\xBF");
        assert_eq!((only.bom, only.line_count), (true, 0));
        assert_eq!(lines(b"\xEF\xBB\xBF", 1, None, 100).first_collected, None);
        assert_eq!(facts(b"\xEF\xBB\xBF\n").line_count, 1);
        assert_eq!(facts(b"\xEF\xBB\xBFx").line_count, 1);
        let s = scan(&b"ok\n\xff\xfe bad\n"[..], UTF_8, None).unwrap();
        assert!(s.not_text.unwrap().contains("line 2"));
        let latin1 = encoding_for(Some("latin1")).unwrap();
        let s = scan(&b"caf\xe9\n"[..], latin1, None).unwrap();
        assert_eq!(s.text.unwrap().line_count, 1);
    }

    #[test]
    fn hash_is_of_the_exact_bytes() {
        let s = scan(&b"a\r\nb"[..], UTF_8, None).unwrap();
        assert_eq!(s.hash, ObjectId::of(b"a\r\nb"));
        assert_eq!(s.size, 4);
    }

    #[test]
    fn utf16_is_refused_as_an_encoding() {
        assert_eq!(
            encoding_for(Some("utf-16le")).unwrap_err().code,
            Code::InvalidArgument
        );
        assert_eq!(
            encoding_for(Some("klingon")).unwrap_err().code,
            Code::InvalidArgument
        );
    }
}
