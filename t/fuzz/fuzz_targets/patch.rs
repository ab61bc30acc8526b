//! The patch parsers and appliers of `apply_patch`: unified diffs and Codex-style patches.
//!
//! Two kinds of input:
//! - differential: two documents A and B; the unified diff from A to B that `history diff` and
//!   dry-run previews print, with a chosen context radius, must parse and turn A into exactly B.
//!   The same hunks as a Codex patch (bare `@@` headers, no line numbers) must turn A into
//!   exactly B or be refused as ambiguous, never applied elsewhere; they are never `failed`,
//!   since every hunk's lines are in A at its true place.
//! - raw: any patch text against any document. Parsing and applying never panic; a failed
//!   application leaves the document byte for byte as it was; the report agrees with the
//!   outcome; and an applied patch changes the line count by exactly what its hunks declare.
//!
//! Input: `R` DOC NUL PATCH (raw), or `D` C A NUL B (differential; C is the context radius
//! `0`-`5`, or `c`-`h` for the same with CRLF lines), so real patches and documents can be
//! committed as seeds. Any other first byte builds an `Input` from the bytes with
//! `arbitrary`, from an alphabet of lines that repeat and look like patch syntax.
#![no_main]

use arbitrary::Arbitrary;
use filekeeper::fuzzing;
use libfuzzer_sys::fuzz_target;

/// Lines a document is built from: repeated lines make offsets and ambiguity likely, and
/// lines that look like patch syntax test that hunk bodies are read by count, not by shape.
const ALPHABET: &[&str] = &[
    "",
    "a",
    "b",
    "c",
    "fn main() {",
    "}",
    "    let x = 1;",
    "\tindented",
    " ",
    "-",
    "+",
    "--- a/f",
    "+++ b/f",
    "@@ -1,2 +1,2 @@",
    "\\ No newline at end of file",
    "\u{feff}with a BOM",
    "trailing space ",
    "é ü 字",
];

#[derive(Arbitrary, Debug)]
enum Line {
    Pick(u8),
    Free(String),
}

#[derive(Arbitrary, Debug)]
struct Text {
    lines: Vec<Line>,
    final_newline: bool,
}

impl Text {
    /// The document, with one newline convention throughout (the applier gives new lines the
    /// file's convention, so mixed documents are not a round trip by design).
    fn render(&self, eol: &str) -> String {
        let mut out = String::new();
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                out.push_str(eol);
            }
            match line {
                Line::Pick(n) => out.push_str(ALPHABET[*n as usize % ALPHABET.len()]),
                Line::Free(s) => out.extend(s.chars().filter(|c| !matches!(c, '\n' | '\r' | '\0'))),
            }
        }
        if self.final_newline && !self.lines.is_empty() {
            out.push_str(eol);
        }
        out
    }
}

#[derive(Arbitrary, Debug)]
enum Input {
    Diff {
        a: Text,
        b: Text,
        context: u8,
        crlf: bool,
    },
    Raw {
        patch: String,
        doc: String,
    },
}

/// Lines as `diff` counts them: ended by `\n`, plus an unterminated last one.
fn line_count(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

fn differential(a: &str, b: &str, context: usize) {
    if debug() {
        eprintln!("A={a:?}\nB={b:?}\ncontext={context}");
    }
    // What `history diff` and dry-run previews print. Its hunk headers come from the ops'
    // lengths, not from `similar`'s own writer, which could state headers that disagree with
    // the bodies (for A = "a\n\n" against 39 empty lines, `@@ -1 +4,22 @@` over 2 old and 25
    // new lines); the parser checks every header against its body.
    let text = fuzzing::unified_diff(a, b, context);
    applies(a, b, &text, context);
    // What a mutation's result shows: the same writer, after lines found on one side only are
    // set aside, which must leave the diff just as correct.
    applies(a, b, &fuzzing::mutation_diff(a, b, context), context);
    // The same change as a Codex patch.
    codex_differential(a, b, &text, context);
}

/// `text`, a diff from A to B, parses, applies to A at the positions it states, and gives B.
fn applies(a: &str, b: &str, text: &str, context: usize) {
    let parsed = match fuzzing::parse_patch(text) {
        Ok(p) => p,
        Err(e) if a == b => {
            // No hunks: an empty patch is refused, never applied as a no-op.
            assert_eq!(e.code, filekeeper::Code::PatchFailed);
            return;
        }
        Err(e) => panic!("the diff from A to B did not parse: {e:?}\n{text}"),
    };
    assert_eq!(parsed.files(), 1, "{text}");
    assert_eq!(parsed.names(0), (Some("f"), Some("f")));
    let applied = parsed.apply(0, a.as_bytes()).expect("A is text");
    // A hunk without context that only adds lines between two lines of A has nothing but its
    // number to place it, and is refused (`placed_by_number`) whatever the file: the diff is
    // right, but keeper does not rest on a number alone. Only such hunks may be refused.
    let between = |old_start: usize, old_lines: usize| {
        context == 0 && old_lines == 0 && old_start > 0 && old_start < line_count(a.as_bytes())
    };
    // A hunk whose old lines and new lines both stand at its place in A (one more like line
    // in a run that goes on past the hunk's context) reads alike made or not, and is refused
    // (`already_applied`): A holds B's lines of the hunk at the hunk's line.
    let a_lines: Vec<&str> = a.lines().collect();
    let b_lines: Vec<&str> = b.lines().collect();
    let reads_alike = |h: &filekeeper::HunkReport| {
        let (from, to) = (h.old_start.saturating_sub(1), h.new_start.saturating_sub(1));
        h.refusal_reason() == Some("already_applied")
            && h.status == "failed"
            && a_lines.get(from..from + h.new_lines) == b_lines.get(to..to + h.new_lines)
    };
    if !applied.ok && applied.hunks.iter().any(reads_alike) {
        for h in applied.hunks.iter().filter(|h| h.status != "applies") {
            assert!(
                reads_alike(h) || (h.status == "failed" && between(h.old_start, h.old_lines)),
                "a hunk was refused whose new lines A does not hold at its place: {:?}\n{text}",
                applied.hunks
            );
        }
        return;
    }
    if !applied.ok
        && applied
            .hunks
            .iter()
            .any(|h| between(h.old_start, h.old_lines))
    {
        for h in applied.hunks.iter().filter(|h| h.status != "applies") {
            assert!(
                h.status == "failed" && between(h.old_start, h.old_lines),
                "a hunk other than a context-free insertion was refused: {:?}\n{text}",
                applied.hunks
            );
        }
        return;
    }
    assert!(
        applied.ok,
        "the diff from A to B did not apply: {:?}\n{text}",
        applied.hunks
    );
    // The hunks state their real positions: nothing should apply at an offset.
    for h in &applied.hunks {
        assert_eq!(h.status, "applies", "{:?}\n{text}", applied.hunks);
    }
    assert_eq!(
        String::from_utf8_lossy(&applied.bytes),
        b,
        "applying the diff from A to B to A did not give B\n{text}"
    );
}

/// Whether a document's last line has no terminator.
fn unterminated(text: &str) -> bool {
    !text.is_empty() && !text.ends_with('\n')
}

/// The old side's start and count of a unified hunk header, `@@ -s[,c] +...`.
fn old_range(header: &str) -> Option<(usize, usize)> {
    let old = header.strip_prefix("@@ -")?.split(' ').next()?;
    Some(match old.split_once(',') {
        Some((s, c)) => (s.parse().ok()?, c.parse().ok()?),
        None => (old.parse().ok()?, 1),
    })
}

/// The hunks of a one-file unified diff of A as a Codex patch updating `f`: the `---`/`+++`
/// lines go, `\ No newline` markers go (the format has none), and every line ends with `eol`,
/// as a patch written on that system would. Each `@@` header loses its ranges; every other
/// hunk (by `parity`) instead names A's line just before it as its anchor, when that line
/// lies after the previous hunk (an anchor found before its true line would start the search
/// past it) and reads as an anchor.
fn codex_from_unified(text: &str, a: &str, eol: &str, parity: usize) -> String {
    let a_lines: Vec<&str> = a
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut out = format!("*** Begin Patch{eol}*** Update File: f{eol}");
    let (mut hunk, mut prev_end) = (0usize, 0usize);
    for line in text.split('\n').skip(2) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() || line.starts_with('\\') {
            continue; // the end of the text, or a marker
        }
        let Some((start, count)) = line.starts_with("@@").then(|| old_range(line)).flatten() else {
            out.push_str(line);
            out.push_str(eol);
            continue;
        };
        // 0-based: the first old line, or where the added lines go; the line before it.
        let at = if count == 0 { start } else { start - 1 };
        let anchor = at
            .checked_sub(1)
            .filter(|&i| i >= prev_end && (hunk + parity) % 2 == 0)
            .map(|i| a_lines[i])
            .filter(|t| !t.trim().is_empty() && !t.trim_start().starts_with('-'));
        match anchor {
            Some(t) => out.push_str(&format!("@@ {t}")),
            None => out.push_str("@@"),
        }
        out.push_str(eol);
        prev_end = at + count;
        hunk += 1;
    }
    out.push_str("*** End Patch");
    out.push_str(eol);
    out
}

/// The diff from A to B as a Codex patch turns A into B, or is refused as ambiguous. Skipped
/// where the format cannot say what B needs: a change of the final newline (a Codex patch
/// keeps the file's), a BOM in A (set apart before matching, while the diff's line 1 has it),
/// and a U+FEFF starting B alone (an edit never adds a BOM: `bom_would_appear`).
fn codex_differential(a: &str, b: &str, text: &str, context: usize) {
    if a == b
        || unterminated(a) != unterminated(b)
        || a.starts_with('\u{feff}')
        || b.starts_with('\u{feff}')
    {
        return;
    }
    let eol = if a.contains("\r\n") || b.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let codex = codex_from_unified(text, a, eol, context);
    let parsed = match fuzzing::parse_patch(&codex) {
        Ok(p) => p,
        Err(e) => panic!("the Codex patch from A to B did not parse: {e:?}\n{codex}"),
    };
    assert!(parsed.is_codex());
    assert_eq!(parsed.files(), 1, "{codex}");
    let applied = parsed.apply(0, a.as_bytes()).expect("A is text");
    if applied.ok {
        assert_eq!(
            String::from_utf8_lossy(&applied.bytes),
            b,
            "applying the Codex patch from A to B to A did not give B\n{codex}"
        );
        return;
    }
    assert_eq!(
        applied.bytes,
        a.as_bytes(),
        "a refused Codex patch changed A"
    );
    for h in &applied.hunks {
        assert!(
            matches!(h.status, "applies" | "ambiguous"),
            "a Codex hunk failed although its lines are in A: {:?}\n{codex}",
            applied.hunks
        );
    }
}

fn raw(patch: &str, doc: &str) {
    let Ok(parsed) = fuzzing::parse_patch(patch) else {
        return;
    };
    for i in 0..parsed.files() {
        let (old, new) = parsed.names(i);
        assert!(old.is_some() || new.is_some(), "both sides /dev/null");
        let Ok(applied) = parsed.apply(i, doc.as_bytes()) else {
            continue; // binary content, and an edit that would add a BOM, are refused
        };
        let good = |s: &str| s == "applies" || s == "applies_at_offset";
        assert_eq!(
            applied.ok,
            applied.hunks.iter().all(|h| good(h.status)),
            "{:?}",
            applied.hunks
        );
        for h in &applied.hunks {
            assert!(
                matches!(
                    h.status,
                    "applies" | "applies_at_offset" | "failed" | "ambiguous"
                ),
                "{h:?}"
            );
            assert_eq!(h.status == "applies_at_offset", h.offset != 0, "{h:?}");
        }
        let before: &[u8] = if old.is_some() { doc.as_bytes() } else { b"" };
        if !applied.ok {
            assert_eq!(applied.bytes, before, "a failed patch changed the document");
            continue;
        }
        let delta: i64 = applied
            .hunks
            .iter()
            .map(|h| h.new_lines as i64 - h.old_lines as i64)
            .sum();
        let lines = line_count(&applied.bytes) as i64;
        let want = line_count(before) as i64 + delta;
        assert_eq!(
            lines,
            want,
            "the hunks declare {delta} lines of change\nbefore: {before:?}\nafter: {:?}",
            String::from_utf8_lossy(&applied.bytes)
        );
    }
}

/// A document for the differential check: no CR or NUL, then one convention throughout.
fn uniform(text: &str, eol: &str) -> String {
    let lf: String = text.chars().filter(|c| !matches!(c, '\r' | '\0')).collect();
    if eol == "\n" {
        lf
    } else {
        lf.replace('\n', eol)
    }
}

/// `FUZZ_DEBUG=1`: print what an input was decoded into, to read a crash.
fn debug() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("FUZZ_DEBUG").is_some())
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some('R'), _) => {
            let rest = &text[1..];
            let (doc, patch) = rest.split_once('\0').unwrap_or(("", rest));
            return raw(patch, doc);
        }
        (Some('D'), Some(c @ ('0'..='5' | 'c'..='h'))) => {
            let rest = &text[2..];
            let (a, b) = rest.split_once('\0').unwrap_or((rest, ""));
            let (context, eol) = match c {
                '0'..='5' => (c as usize - '0' as usize, "\n"),
                _ => (c as usize - 'c' as usize, "\r\n"),
            };
            return differential(&uniform(a, eol), &uniform(b, eol), context);
        }
        _ => {}
    }
    let Ok(input) = Input::arbitrary_take_rest(arbitrary::Unstructured::new(data)) else {
        return;
    };
    match input {
        Input::Diff {
            a,
            b,
            context,
            crlf,
        } => {
            let eol = if crlf { "\r\n" } else { "\n" };
            differential(&a.render(eol), &b.render(eol), usize::from(context % 6));
        }
        Input::Raw { patch, doc } => raw(&patch, &doc),
    }
});
