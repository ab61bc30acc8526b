//! Exact matching of caller text in a file, line ends aside: a line end in the caller's text
//! (`\n`, `\r\n` or a lone `\r`) matches any line end of the file, so text typed with `\n`
//! finds its lines in a CRLF file, and in a file that mixes line ends every occurrence is
//! found, whatever its lines end with. What a match replaces keeps the file's own line ends
//! where it can ([`line_ends`]).
//!
//! Both texts are flattened (every line end becomes one `\n`) and searched with the standard
//! library's substring search, so matching stays linear; a match is mapped back to the
//! file's bytes, and never starts or ends inside a CRLF.

use std::borrow::Cow;

/// One occurrence of the old text in the file: its byte range in the text as read, and the
/// file's line ends inside it, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Occurrence {
    pub start: usize,
    pub end: usize,
    pub breaks: Vec<&'static str>,
}

/// A text with every line end written as one `\n`, and where the CRLFs were.
struct Flat<'t> {
    text: Cow<'t, str>,
    /// Positions in `text` of the `\n`s that stand for a CRLF, ascending.
    crlf: Vec<usize>,
}

impl<'t> Flat<'t> {
    fn of(text: &'t str) -> Flat<'t> {
        if !text.contains('\r') {
            return Flat {
                text: Cow::Borrowed(text),
                crlf: Vec::new(),
            };
        }
        let bytes = text.as_bytes();
        let mut flat = String::with_capacity(text.len());
        let mut crlf = Vec::new();
        let mut copied = 0;
        for at in memchr::memchr_iter(b'\r', bytes) {
            flat.push_str(&text[copied..at]);
            if bytes.get(at + 1) == Some(&b'\n') {
                crlf.push(flat.len());
                copied = at + 2;
            } else {
                copied = at + 1;
            }
            flat.push('\n');
        }
        flat.push_str(&text[copied..]);
        Flat {
            text: Cow::Owned(flat),
            crlf,
        }
    }

    /// The position in the original text of position `at` of the flat one: a CRLF counts
    /// as two bytes there, so a position at its `\n` maps to its `\r`, and one just past it
    /// to just past the pair.
    fn original(&self, at: usize) -> usize {
        at + self.crlf.partition_point(|&p| p < at)
    }

    /// The line end the flat `\n` at `at` stands for, in `original`.
    fn line_end(&self, original: &str, at: usize) -> &'static str {
        if self.crlf.binary_search(&at).is_ok() {
            "\r\n"
        } else if original.as_bytes()[self.original(at)] == b'\r' {
            "\r"
        } else {
            "\n"
        }
    }
}

/// `text` with every line end (`\n`, `\r\n`, a lone `\r`) written as one `\n`: what two
/// texts are compared as when their line ends do not count.
pub(crate) fn flattened(text: &str) -> Cow<'_, str> {
    Flat::of(text).text
}

/// Every occurrence of `old` in `body`, line ends aside: every position it starts at, left to
/// right, overlapping ones included (`a\nb\na` occurs twice in `a\nb\na\nb\na`). `old` must
/// not be empty.
pub(crate) fn occurrences(body: &str, old: &str) -> Vec<Occurrence> {
    let (body_flat, old_flat) = (Flat::of(body), Flat::of(old));
    let needle = old_flat.text.as_ref();
    starts(&body_flat.text, needle)
        .into_iter()
        .map(|at| Occurrence {
            start: body_flat.original(at),
            end: body_flat.original(at + needle.len()),
            breaks: memchr::memchr_iter(b'\n', needle.as_bytes())
                .map(|i| body_flat.line_end(body, at + i))
                .collect(),
        })
        .collect()
}

/// Every position `needle` starts at in `hay`, overlapping ones included, in linear time.
/// Two occurrences can overlap only when the needle has a border (a proper prefix that is
/// also a suffix); without one the standard library's search finds them all, and with one a
/// Knuth-Morris-Pratt scan does. A match of valid UTF-8 in valid UTF-8 always starts at a
/// character boundary.
pub(crate) fn starts(hay: &str, needle: &str) -> Vec<usize> {
    let p = needle.as_bytes();
    let mut border = vec![0usize; p.len()];
    let mut k = 0;
    for i in 1..p.len() {
        while k > 0 && p[i] != p[k] {
            k = border[k - 1];
        }
        if p[i] == p[k] {
            k += 1;
        }
        border[i] = k;
    }
    if border.last().is_none_or(|&b| b == 0) {
        return hay.match_indices(needle).map(|(at, _)| at).collect();
    }
    let mut found = Vec::new();
    let mut k = 0;
    for (i, &b) in hay.as_bytes().iter().enumerate() {
        while k > 0 && b != p[k] {
            k = border[k - 1];
        }
        if b == p[k] {
            k += 1;
        }
        if k == p.len() {
            found.push(i + 1 - k);
            k = border[k - 1];
        }
    }
    found
}

/// The texts between the line ends of `text` (one more than it has line ends).
pub(crate) fn pieces(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while let Some(found) = memchr::memchr2(b'\n', b'\r', &bytes[at..]) {
        let i = at + found;
        pieces.push(&text[start..i]);
        at = if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            i + 2
        } else {
            i + 1
        };
        start = at;
    }
    pieces.push(&text[start..]);
    pieces
}

/// The line ends the new text's `count` line ends are written with, where it replaces an
/// occurrence whose own line ends are `replaced`:
/// - as many as the occurrence had: each keeps the one at its place, so a line the caller
///   did not touch keeps its own line end;
/// - otherwise the one the occurrence used throughout, if it had any;
/// - otherwise (it had none, or mixed them) the file's `convention`.
///
/// The second value is true when the occurrence mixed line ends that the new text cannot
/// keep place by place: the caller is told.
pub(crate) fn line_ends(
    replaced: &[&'static str],
    count: usize,
    convention: &'static str,
) -> (Vec<&'static str>, bool) {
    if replaced.len() == count {
        return (replaced.to_vec(), false);
    }
    match replaced.first() {
        Some(&first) if replaced.iter().all(|&e| e == first) => (vec![first; count], false),
        Some(_) => (vec![convention; count], count > 0),
        None => (vec![convention; count], false),
    }
}

/// A text built piece by piece that never lets a lone CR line end and a following LF read
/// back as one CRLF (which would lose a line): such a CR is written as CRLF, as
/// `Doc::to_bytes` does for line edits.
pub(crate) struct Joined {
    pub text: String,
}

impl Joined {
    pub fn push(&mut self, piece: &str) {
        if self.text.ends_with('\r') && piece.starts_with('\n') {
            self.text.push('\n');
        }
        self.text.push_str(piece);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(body: &str, old: &str) -> Vec<(usize, usize, Vec<&'static str>)> {
        occurrences(body, old)
            .into_iter()
            .map(|o| (o.start, o.end, o.breaks))
            .collect()
    }

    #[test]
    fn a_line_end_matches_any_line_end() {
        assert_eq!(spans("a\r\nb\n", "a\nb"), vec![(0, 4, vec!["\r\n"])]);
        assert_eq!(spans("a\nb\n", "a\r\nb"), vec![(0, 3, vec!["\n"])]);
        assert_eq!(spans("a\rb", "a\nb"), vec![(0, 3, vec!["\r"])]);
        // Both occurrences of a mixed file, in order.
        assert_eq!(
            spans("x\ny\r\nx\r\ny\r\n", "x\ny"),
            vec![(0, 3, vec!["\n"]), (5, 9, vec!["\r\n"])]
        );
    }

    #[test]
    fn a_match_never_starts_or_ends_inside_a_crlf() {
        // Starting with a line end: the whole CRLF, never its LF alone.
        assert_eq!(spans("a\r\nb", "\nb"), vec![(1, 4, vec!["\r\n"])]);
        // Ending with one: the whole CRLF.
        assert_eq!(spans("a\r\nb", "a\n"), vec![(0, 3, vec!["\r\n"])]);
        // A CRLF is one line end, never a CR and an LF.
        assert!(spans("a\r\nb", "a\n\nb").is_empty());
        assert_eq!(
            spans("a\r\n\nb", "a\n\nb"),
            vec![(0, 5, vec!["\r\n", "\n"])]
        );
    }

    #[test]
    fn overlapping_occurrences_are_all_found() {
        assert_eq!(spans("aaa", "aa"), vec![(0, 2, vec![]), (1, 3, vec![])]);
        assert_eq!(spans("a\na\na\n", "a\na").len(), 2);
        assert_eq!(
            spans("a\r\nb\na\r\nb\na", "a\nb\na"),
            vec![(0, 6, vec!["\r\n", "\n"]), (5, 11, vec!["\r\n", "\n"])]
        );
        // Without a border the occurrences cannot overlap; repeated ones are all found.
        assert_eq!(spans("ab ab ab", "ab").len(), 3);
        assert_eq!(spans("ééé", "éé").len(), 2);
        assert!(spans("abc", "abcd").is_empty());
    }

    #[test]
    fn the_overlap_search_agrees_with_a_naive_one() {
        let mut rng = super::super::replace_generated::Rng(0x5eed);
        for _ in 0..2000 {
            let word = |rng: &mut super::super::replace_generated::Rng, n: usize| -> String {
                (0..n).map(|_| ['a', 'b', '\n'][rng.below(3)]).collect()
            };
            let (n, m) = (rng.below(30), 1 + rng.below(5));
            let (hay, needle) = (word(&mut rng, n), word(&mut rng, m));
            let naive: Vec<usize> = (0..hay.len())
                .filter(|&at| hay[at..].starts_with(&needle))
                .collect();
            assert_eq!(starts(&hay, &needle), naive, "{hay:?} {needle:?}");
        }
    }

    #[test]
    fn pieces_are_cut_at_every_kind_of_line_end() {
        assert_eq!(pieces("a\r\nb\nc\rd"), vec!["a", "b", "c", "d"]);
        assert_eq!(pieces("a\n"), vec!["a", ""]);
        assert_eq!(pieces(""), vec![""]);
    }

    #[test]
    fn new_line_ends_keep_the_replaced_ones_where_they_can() {
        assert_eq!(
            line_ends(&["\r\n", "\n"], 2, "\n"),
            (vec!["\r\n", "\n"], false)
        );
        assert_eq!(line_ends(&["\r\n"], 3, "\n"), (vec!["\r\n"; 3], false));
        assert_eq!(line_ends(&[], 2, "\r\n"), (vec!["\r\n"; 2], false));
        assert_eq!(line_ends(&["\r\n", "\n"], 1, "\n"), (vec!["\n"], true));
        assert_eq!(line_ends(&["\r\n", "\n"], 0, "\n"), (vec![], false));
    }

    #[test]
    fn a_lone_cr_and_a_following_lf_stay_two_line_ends() {
        let mut joined = Joined {
            text: "a\r".to_owned(),
        };
        joined.push("\nz\n");
        assert_eq!(joined.text, "a\r\n\nz\n");
    }
}
