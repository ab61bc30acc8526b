//! The staged text matcher of `replace_text`: old/new text against a document, with any
//! policy, expected count and expected content.
//!
//! Invariants beyond "no panic":
//! - exact stage: the result is the document with the chosen occurrence(s) of the old text (a
//!   line end in it matching any line end) replaced by the new text, whose line ends are the
//!   replaced ones place by place when it has as many, else the one the occurrence used
//!   throughout, else the file's convention (with a warning when the occurrence mixed them);
//!   nothing else changed, and no lone CR left to read back with a following LF as one CRLF;
//! - normalised stage: every line outside the reported line ranges keeps its text, the matched
//!   lines equal the old text's lines once whitespace is trimmed, each new line is the
//!   caller's line up to its indentation, and each new line that the whitespace-insensitive
//!   line diff pairs with an old line, and whose indentation the caller did not change, is the
//!   matched file line byte for byte;
//! - the reported count obeys the policy and the expected count; a NO_MATCH means the old
//!   text really is not in the document, or (with `details.reason`) that the normalised stage
//!   could not infer a new line's indentation, naming that line and a file line.
//!
//! Input: `T` P N G DOC NUL OLD NUL NEW [NUL EXPECTED], where P is `f` (first), `a` (all) or
//! a digit from 1 (that occurrence: only seeds in this format choose one),
//! N the expected count (`-` for none, or a digit) and G the expected-content guard (`-` none,
//! `=` the old text, `~` EXPECTED), so real documents can be committed as seeds. Any other
//! first byte builds an `Input` with `arbitrary`: a document of repeating lines in some
//! newline convention, and an old text cut from it (often re-indented, to reach the
//! normalised stage).
#![no_main]

use arbitrary::Arbitrary;
use filekeeper::fuzzing;
use filekeeper::{Code, Policy};
use libfuzzer_sys::fuzz_target;

const ALPHABET: &[&str] = &[
    "",
    "a",
    "b",
    "fn main() {",
    "}",
    "    let x = 1;",
    "        let x = 1;   ",
    "\tcall(x);",
    "call(x);",
    "  ",
    "\u{feff}bom",
    "é",
];

#[derive(Arbitrary, Debug)]
enum Piece {
    Pick(u8),
    Free(String),
}

#[derive(Arbitrary, Debug)]
enum Old {
    /// A slice of the document, by byte offsets (clamped to char boundaries).
    Slice(u16, u16),
    /// A run of whole lines of the document, re-indented and with trailing whitespace,
    /// to reach the normalised stage.
    Lines {
        first: u8,
        count: u8,
        indent: u8,
        trail: bool,
    },
    Free(String),
}

#[derive(Arbitrary, Debug)]
struct Input {
    doc: Vec<Piece>,
    /// 0: LF, 1: CRLF, 2: CR, 3: whatever each piece says, 4: LF and CRLF in turn, 5: CRLF
    /// and LF in turn (files that mix line ends).
    eol: u8,
    final_newline: bool,
    old: Old,
    old_lf: bool,
    new: String,
    all: bool,
    expected_count: Option<u8>,
    expected_content: Option<Option<String>>,
}

fn render(input: &Input) -> String {
    let kind = usize::from(input.eol % 6);
    let eol_after = |i: usize| match kind {
        4 | 5 => ["\n", "\r\n"][(i + kind) % 2],
        _ => ["\n", "\r\n", "\r", ""][kind],
    };
    let eol = eol_after(0);
    let mut out = String::new();
    for (i, piece) in input.doc.iter().enumerate() {
        if i > 0 {
            out.push_str(eol_after(i));
        }
        match piece {
            Piece::Pick(n) => out.push_str(ALPHABET[usize::from(*n) % ALPHABET.len()]),
            Piece::Free(s) => out.extend(s.chars().filter(|c| *c != '\0')),
        }
    }
    if input.final_newline && !out.is_empty() {
        out.push_str(if eol.is_empty() { "\n" } else { eol });
    }
    out
}

fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Splits like the edits do: at `\n`, `\r\n` and a lone `\r`, keeping each terminator.
fn split_lines(text: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        let eol = match b[i] {
            b'\n' => 1,
            b'\r' if b.get(i + 1) == Some(&b'\n') => 2,
            b'\r' => 1,
            _ => {
                i += 1;
                continue;
            }
        };
        out.push((&text[start..i], &text[i..i + eol]));
        i += eol;
        start = i;
    }
    if start < b.len() {
        out.push((&text[start..], ""));
    }
    out
}

fn old_text(input: &Input, doc: &str) -> String {
    let body = doc.strip_prefix('\u{feff}').unwrap_or(doc);
    let old = match &input.old {
        Old::Slice(a, b) => {
            let (a, b) = (usize::from(*a), usize::from(*b));
            let (a, b) = (floor_char(body, a.min(b)), floor_char(body, a.max(b)));
            body[a..b].to_owned()
        }
        Old::Lines {
            first,
            count,
            indent,
            trail,
        } => {
            let lines = split_lines(body);
            let first = usize::from(*first) % lines.len().max(1);
            let ws = " ".repeat(usize::from(indent % 9));
            lines
                .iter()
                .skip(first)
                .take(usize::from(*count % 6) + 1)
                .map(|(text, _)| {
                    let t = if *trail {
                        format!("{} \t", text.trim_end())
                    } else {
                        text.trim_end().to_owned()
                    };
                    format!("{ws}{}", t.trim_start())
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        Old::Free(s) => s.clone(),
    };
    if input.old_lf {
        old.replace("\r\n", "\n")
    } else {
        old
    }
}

/// A text as characters and line ends, a CRLF being one line end: the oracle of the exact
/// stage, written apart from the matcher (which flattens both texts and maps back).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Char(char),
    End(&'static str),
}

fn tokens(text: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(match c {
            '\r' if chars.peek() == Some(&'\n') => {
                chars.next();
                Tok::End("\r\n")
            }
            '\r' => Tok::End("\r"),
            '\n' => Tok::End("\n"),
            c => Tok::Char(c),
        });
    }
    out
}

/// Where `old` occurs in `body`, at every position left to right (overlapping occurrences
/// included), a line end of `old` matching any line end: (first token, past the last), by
/// brute force.
fn occurrences(body: &[Tok], old: &[Tok]) -> Vec<(usize, usize)> {
    let same = |b: &Tok, o: &Tok| match (b, o) {
        (Tok::End(_), Tok::End(_)) => true,
        (b, o) => b == o,
    };
    let mut found = Vec::new();
    let mut at = 0;
    while !old.is_empty() && at + old.len() <= body.len() {
        if body[at..at + old.len()]
            .iter()
            .zip(old)
            .all(|(b, o)| same(b, o))
        {
            found.push((at, at + old.len()));
        }
        at += 1;
    }
    found
}

/// The bytes of `toks`, where a lone CR line end right before an LF line end is written as
/// CRLF (else the two would read back as one line end).
fn bytes_of(toks: &[Tok]) -> String {
    let mut out = String::new();
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Char(c) => out.push(*c),
            Tok::End(e) => {
                out.push_str(e);
                if *e == "\r" && toks.get(i + 1) == Some(&Tok::End("\n")) {
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// What the exact stage must write for the chosen occurrences, and whether one of them mixed
/// line ends that the new text could not keep place by place (then it warns). The new text's
/// line ends: the replaced ones place by place when there are as many, else the one the
/// occurrence used throughout, else the file's convention.
fn exact_result(
    body: &[Tok],
    chosen: &[(usize, usize)],
    new: &[Tok],
    eol: &'static str,
) -> (String, bool) {
    let new_ends = new.iter().filter(|t| matches!(t, Tok::End(_))).count();
    let mut out: Vec<Tok> = Vec::new();
    let mut warned = false;
    let mut copied = 0;
    for &(from, to) in chosen {
        out.extend_from_slice(&body[copied..from]);
        let had: Vec<&'static str> = body[from..to]
            .iter()
            .filter_map(|t| match t {
                Tok::End(e) => Some(*e),
                Tok::Char(_) => None,
            })
            .collect();
        let ends: Vec<&'static str> = if had.len() == new_ends {
            had.clone()
        } else if !had.is_empty() && had.iter().all(|&e| e == had[0]) {
            vec![had[0]; new_ends]
        } else {
            warned |= !had.is_empty() && new_ends > 0;
            vec![eol; new_ends]
        };
        let mut next = ends.into_iter();
        out.extend(new.iter().map(|t| match t {
            Tok::End(_) => Tok::End(next.next().expect("one end per line end")),
            c => *c,
        }));
        copied = to;
    }
    out.extend_from_slice(&body[copied..]);
    (bytes_of(&out), warned)
}

/// The line ranges a normalised warning names: "(lines 3-5, 9-11)".
fn spans(warning: &str) -> Vec<(usize, usize)> {
    let at = warning
        .find("(lines ")
        .expect("the warning names the lines")
        + 7;
    let end = at + warning[at..].find(')').expect("closed");
    warning[at..end]
        .split(", ")
        .map(|s| {
            let (a, b) = s.split_once('-').expect("a range");
            (a.parse().expect("a number"), b.parse().expect("a number"))
        })
        .collect()
}

/// A seed in the text format, if the input is one.
fn text_case(data: &[u8]) -> Option<Case> {
    let text = std::str::from_utf8(data).ok()?;
    let rest = text.strip_prefix('T')?;
    let mut flags = rest.chars();
    let (p, n, g) = (flags.next()?, flags.next()?, flags.next()?);
    let mut fields = flags.as_str().splitn(4, '\0');
    let doc = fields.next()?.to_owned();
    let old = fields.next().unwrap_or_default().to_owned();
    let new = fields.next().unwrap_or_default().to_owned();
    let expected = fields.next().map(str::to_owned);
    Some(Case {
        policy: match (p, p.to_digit(10)) {
            ('a', _) => Policy::All,
            (_, Some(n)) if n > 0 => Policy::Occurrence(u64::from(n)),
            _ => Policy::First,
        },
        expected_count: n.to_digit(10).map(u64::from),
        expected_content: match g {
            '=' => Some(old.clone()),
            '~' => expected,
            _ => None,
        },
        doc,
        old,
        new,
    })
}

#[derive(Debug)]
struct Case {
    doc: String,
    old: String,
    new: String,
    policy: Policy,
    expected_count: Option<u64>,
    expected_content: Option<String>,
}

/// `FUZZ_DEBUG=1`: print what an input was decoded into, to read a crash.
fn debug() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("FUZZ_DEBUG").is_some())
}

fuzz_target!(|data: &[u8]| {
    let case = match text_case(data) {
        Some(case) => case,
        None => {
            let Ok(input) = Input::arbitrary_take_rest(arbitrary::Unstructured::new(data)) else {
                return;
            };
            let doc = render(&input);
            let old = old_text(&input, &doc);
            Case {
                policy: if input.all {
                    Policy::All
                } else {
                    Policy::First
                },
                expected_count: input.expected_count.map(u64::from),
                expected_content: match &input.expected_content {
                    None => None,
                    Some(None) => Some(old.clone()),
                    Some(Some(s)) => Some(s.clone()),
                },
                new: input.new,
                doc,
                old,
            }
        }
    };
    check(case);
});

fn check(case: Case) {
    if debug() {
        eprintln!("{case:?}");
    }
    let Case {
        doc,
        old,
        new,
        policy,
        expected_count,
        expected_content,
    } = case;
    let Ok(eol) = fuzzing::convention(doc.as_bytes()) else {
        return;
    };
    let result = fuzzing::replace_text(
        doc.as_bytes(),
        &old,
        &new,
        policy,
        expected_count,
        expected_content.as_deref(),
    );
    let (bom, body) = match doc.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", doc.as_str()),
    };
    let (body_toks, old_toks, new_toks) = (tokens(body), tokens(&old), tokens(&new));
    let found = occurrences(&body_toks, &old_toks);
    let occurrences = found.len();
    let r = match result {
        Ok(r) => r,
        Err(e) => {
            match e.code {
                Code::InvalidArgument | Code::MatchCountMismatch | Code::ContentConflict => {}
                Code::NoMatch => {
                    assert_eq!(occurrences, 0, "NO_MATCH, but the old text is there");
                    if e.details.contains_key("reason") {
                        // A normalised match refused for its indentation names the line
                        // (line 1 of a new text that has none: where it would start).
                        let lines = (split_lines(&new).len() as u64).max(1);
                        let line = e.details["line"].as_u64().expect("details.line");
                        assert!((1..=lines).contains(&line), "{e:?}");
                        let file_line = e.details["file_line"].as_u64().expect("file_line");
                        assert!(file_line >= 1, "{e:?}");
                        assert!(e.details.contains_key("recovery"));
                    }
                }
                other => panic!("unexpected error {other:?}: {}", e.message),
            }
            if old.is_empty() {
                assert_eq!(e.code, Code::InvalidArgument);
            }
            return;
        }
    };
    assert!(!old.is_empty(), "an empty old text was accepted");
    let out = String::from_utf8(r.bytes).expect("the result is UTF-8");
    if debug() {
        eprintln!("{} {} {:?} -> {out:?}", r.stage, r.count, r.warnings);
    }
    match expected_count {
        Some(n) => assert_eq!(r.count as u64, n),
        None => match policy {
            Policy::First => assert_eq!(r.count, 1),
            Policy::Occurrence(n) => assert!(r.count as u64 >= n),
            Policy::All => assert!(r.count >= 1),
        },
    }
    assert!(out.starts_with(bom), "the BOM was lost");
    let out_body = &out[bom.len()..];
    match r.stage {
        "exact" => {
            assert_eq!(r.count, occurrences);
            // Overlapping occurrences cannot all be replaced: `all` refuses them.
            if policy == Policy::All {
                assert!(
                    found.windows(2).all(|w| w[1].0 >= w[0].1),
                    "every occurrence replaced, though two overlap"
                );
            }
            let chosen: &[(usize, usize)] = match policy {
                Policy::All => &found,
                Policy::First => &found[..1],
                // The Nth of the occurrences `count` counted.
                Policy::Occurrence(n) => &found[n as usize - 1..n as usize],
            };
            let (want, warned) = exact_result(&body_toks, chosen, &new_toks, eol);
            // Taking in the last line end, or adding one, is said too.
            let ends = |t: &str| t.ends_with(['\n', '\r']);
            let newline_changed = !body.is_empty() && ends(body) != ends(&want);
            assert_eq!(
                r.warnings.len(),
                usize::from(warned) + usize::from(newline_changed),
                "{:?}",
                r.warnings
            );
            if newline_changed {
                assert!(
                    r.warnings.iter().any(|w| w.contains("ends with a newline")),
                    "{:?}",
                    r.warnings
                );
            }
            // Compared as lines with terminators, so a CR split from its LF by the
            // replacement is still the same bytes.
            assert_eq!(
                out_body, want,
                "exact replacement changed more than the match"
            );
        }
        "normalised" => {
            assert_eq!(
                occurrences, 0,
                "the normalised stage ran although the text is there"
            );
            assert_eq!(r.warnings.len(), 1);
            let ranges = spans(&r.warnings[0]);
            let chosen = if policy == Policy::All { r.count } else { 1 };
            assert_eq!(ranges.len(), chosen, "{:?}", r.warnings);
            let before = split_lines(body);
            let after = split_lines(out_body);
            let wanted: Vec<&str> = {
                let mut w: Vec<&str> = split_lines(&old).iter().map(|l| l.0).collect();
                while w.first().is_some_and(|l| l.trim().is_empty()) {
                    w.remove(0);
                }
                while w.last().is_some_and(|l| l.trim().is_empty()) {
                    w.pop();
                }
                w
            };
            // Blank lines at either end of the old text are not matched, and take as many
            // blank lines at the same end of the new text with them.
            let all_old: Vec<&str> = split_lines(&old).iter().map(|l| l.0).collect();
            fn blank(l: &&&str) -> bool {
                l.trim().is_empty()
            }
            let lead = all_old.iter().take_while(blank).count();
            let trail = all_old[lead..].iter().rev().take_while(blank).count();
            let mut new_lines: Vec<&str> = split_lines(&new).iter().map(|l| l.0).collect();
            let drop = new_lines.iter().take_while(blank).count().min(lead);
            // Fewer blank lines kept at an end than the old text has there asks for blank
            // lines to be removed that the match does not include: refused.
            assert_eq!(drop, lead, "blank lines at the start of the old text were kept");
            new_lines.drain(..drop);
            let drop = new_lines.iter().rev().take_while(blank).count().min(trail);
            assert_eq!(drop, trail, "blank lines at the end of the old text were kept");
            new_lines.truncate(new_lines.len() - drop);
            // New lines the caller left alone: paired with an old line by a line diff that
            // ignores whitespace, with the same indentation as that old line (or blank).
            let kept: Vec<Option<usize>> = {
                let o: Vec<&str> = wanted.iter().map(|l| l.trim()).collect();
                let n: Vec<&str> = new_lines.iter().map(|l| l.trim()).collect();
                let mut kept = vec![None; n.len()];
                for op in similar::capture_diff_slices(similar::Algorithm::Myers, &o, &n) {
                    if let similar::DiffOp::Equal {
                        old_index,
                        new_index,
                        len,
                    } = op
                    {
                        for k in 0..len {
                            let (w, nl) = (wanted[old_index + k], new_lines[new_index + k]);
                            // Kept only when the caller changed neither its indentation nor
                            // its trailing whitespace (a blank line: nothing of it).
                            let ws = |s: &str| s.len() - s.trim_start().len();
                            let tail = |s: &str| s.trim_end().len();
                            let same = if nl.trim().is_empty() {
                                nl == w
                            } else {
                                w[..ws(w)] == nl[..ws(nl)] && w[tail(w)..] == nl[tail(nl)..]
                            };
                            if same {
                                kept[new_index + k] = Some(old_index + k);
                            }
                        }
                    }
                }
                kept
            };
            // The lines the result must hold: the document's own outside the ranges (exactly),
            // the caller's new lines inside them (up to indentation).
            let mut expected: Vec<(&str, bool)> = Vec::new();
            let mut unchanged: Vec<(usize, (&str, &str))> = Vec::new();
            let mut i = 0usize;
            for &(start, end) in &ranges {
                assert_eq!(end - start + 1, wanted.len(), "{ranges:?}");
                assert!(start > i, "ranges overlap or go backwards: {ranges:?}");
                expected.extend(before[i..start - 1].iter().map(|l| (l.0, true)));
                i = start - 1;
                for (k, w) in wanted.iter().enumerate() {
                    assert_eq!(
                        before[i + k].0.trim(),
                        w.trim(),
                        "matched line {} differs",
                        i + k + 1
                    );
                }
                for (j, n) in new_lines.iter().enumerate() {
                    if let Some(k) = kept[j] {
                        unchanged.push((expected.len(), before[i + k]));
                    }
                    expected.push((*n, false));
                }
                i += wanted.len();
            }
            expected.extend(before[i..].iter().map(|l| (l.0, true)));
            // An empty last line left without a terminator is no line at all in the bytes.
            if expected.len() == after.len() + 1
                && expected.last().is_some_and(|l| l.0.trim().is_empty())
            {
                expected.pop();
            }
            assert_eq!(
                expected.len(),
                after.len(),
                "line count: {expected:?} vs {after:?}"
            );
            for (k, (want, got)) in expected.iter().zip(&after).enumerate() {
                if want.1 {
                    assert_eq!(want.0, got.0, "line {} changed outside the match", k + 1);
                } else {
                    assert_eq!(
                        want.0.trim(),
                        got.0.trim(),
                        "new line {} is not the caller's",
                        k + 1
                    );
                }
            }
            for (k, file_line) in unchanged {
                if k == after.len() {
                    continue; // the empty last line dropped above
                }
                assert_eq!(
                    after[k].0,
                    file_line.0,
                    "line {} is unchanged in the new text but not the file's",
                    k + 1
                );
                // It keeps its own line end too (the last line of a file without a final
                // newline has none, a line that becomes the last may lose it, and a lone CR
                // before an empty LF line is written as CRLF).
                let cr_kept_apart = file_line.1 == "\r" && after[k].1 == "\r\n";
                if !file_line.1.is_empty() && !after[k].1.is_empty() && !cr_kept_apart {
                    assert_eq!(after[k].1, file_line.1, "line {} lost its line end", k + 1);
                }
            }
        }
        other => panic!("unknown stage {other}"),
    }
}
