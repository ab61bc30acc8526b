//! Unified diffs for people: `history diff`, the previews of dry runs, and the diffs every
//! mutation's result carries.
//!
//! The line diff is `similar`'s; the text is written here, from the kinds and lengths of its
//! ops only. `similar` 2.7's own writer takes hunk headers from the ops' indices, which it
//! can report inconsistently (for "a\n\n" against 39 empty lines it wrote `@@ -1 +4,22 @@`
//! over a body of 2 old and 25 new lines), and a header that disagrees with its body makes
//! the diff useless to `patch` and to `keeper file apply-patch`. The `patch` fuzz target
//! checks that what this writes, applied to the old text, gives the new one.

use similar::{Algorithm, DiffOp, DiffTag};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A diff as lines: the sign (`' '`, `'-'` or `'+'`), and the old and new line index it sits
/// at.
type Script = Vec<(char, usize, usize)>;

/// The unified diff from `old` to `new` as GNU `diff -u` writes it, with `context` lines
/// around each change, headed `--- FROM` / `+++ TO`; empty when the texts are equal. A
/// `timeout` bounds the line diff (a coarser, still correct diff after it), and the text is
/// cut to whole lines within `max_bytes` (`cut`; the caller adds a note saying why).
pub(crate) fn unified(
    from: &str,
    to: &str,
    old: &str,
    new: &str,
    context: usize,
    timeout: Option<Duration>,
    max_bytes: usize,
) -> Written {
    let mut config = similar::TextDiff::configure();
    if let Some(timeout) = timeout {
        config.timeout(timeout);
    }
    let (old_lines, new_lines) = (lines(old), lines(new));
    let diff = config.diff_slices(&old_lines, &new_lines);
    let script = script_of(diff.ops());
    write(
        from, to, &old_lines, &new_lines, &script, context, max_bytes,
    )
}

/// A unified diff as [`changes`] writes it.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// The diff, cut to whole lines within `max_bytes` when `cut` (without a note: the
    /// caller says why it was cut).
    pub text: String,
    /// Lines added and removed by the whole diff, counted before any cut.
    pub added: usize,
    /// See `added`.
    pub removed: usize,
    /// Whether `text` was cut.
    pub cut: bool,
}

/// The unified diff from `old` to `new` as [`unified`] writes it, for a mutation's result: on
/// its hot path, so a rewrite must cost a pass over the lines, not a search. As GNU diff
/// does, lines that occur on one side only are set aside before the line diff (they can never
/// be matched, so the diff stays minimal), which leaves a rewrite nothing to search; what
/// remains is diffed until `deadline`, after which the diff is coarser and still correct.
pub(crate) fn changes<'a>(
    from: &str,
    to: &str,
    old: &'a str,
    new: &'a str,
    context: usize,
    deadline: Option<Instant>,
    max_bytes: usize,
) -> Written {
    let (old_lines, new_lines) = (lines(old), lines(new));
    // The lines both texts start and end with are kept as they are, which leaves an edit in
    // one place nothing to number or search.
    let head = old_lines
        .iter()
        .zip(&new_lines)
        .take_while(|(o, n)| o == n)
        .count();
    let tail = old_lines[head..]
        .iter()
        .rev()
        .zip(new_lines[head..].iter().rev())
        .take_while(|(o, n)| o == n)
        .count();
    let (old_mid, new_mid) = (
        &old_lines[head..old_lines.len() - tail],
        &new_lines[head..new_lines.len() - tail],
    );
    // Each distinct line gets a number, and a bit for each side it occurs on.
    let mut ids: HashMap<&'a str, (u32, u8)> =
        HashMap::with_capacity(old_mid.len() + new_mid.len());
    let mut number = |lines: &[&'a str], side: u8| -> Vec<u32> {
        lines
            .iter()
            .map(|line| {
                let next = ids.len() as u32;
                let entry = ids.entry(line).or_insert((next, 0));
                entry.1 |= side;
                entry.0
            })
            .collect()
    };
    let old_ids = number(old_mid, 1);
    let new_ids = number(new_mid, 2);
    // The lines that can be matched: their ids, and where they sit in the whole text.
    let kept = |lines: &[&str], line_ids: &[u32]| -> (Vec<usize>, Vec<u32>) {
        lines
            .iter()
            .zip(line_ids)
            .enumerate()
            .filter(|(_, (line, _))| ids.get(*line).is_some_and(|e| e.1 == 3))
            .map(|(at, (_, id))| (head + at, *id))
            .unzip()
    };
    let (old_at, old_kept) = kept(old_mid, &old_ids);
    let (new_at, new_kept) = kept(new_mid, &new_ids);
    let ops =
        similar::capture_diff_slices_deadline(Algorithm::Myers, &old_kept, &new_kept, deadline);
    // The matched pairs, back in the whole texts; what lies between two of them is removed
    // (its old lines) and added (its new lines).
    let mut script: Script = (0..head).map(|i| (' ', i, i)).collect();
    let mut at = (head, head);
    for op in &ops {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        {
            for k in 0..len {
                gap(
                    &mut script,
                    &mut at,
                    (old_at[old_index + k], new_at[new_index + k]),
                );
                script.push((' ', at.0, at.1));
                at = (at.0 + 1, at.1 + 1);
            }
        }
    }
    gap(
        &mut script,
        &mut at,
        (old_lines.len() - tail, new_lines.len() - tail),
    );
    script.extend((0..tail).map(|k| (' ', at.0 + k, at.1 + k)));
    write(
        from, to, &old_lines, &new_lines, &script, context, max_bytes,
    )
}

/// Lines removed from `at` up to the old line `to.0`, then lines added up to the new line
/// `to.1`.
fn gap(script: &mut Script, at: &mut (usize, usize), to: (usize, usize)) {
    while at.0 < to.0 {
        script.push(('-', at.0, at.1));
        at.0 += 1;
    }
    while at.1 < to.1 {
        script.push(('+', at.0, at.1));
        at.1 += 1;
    }
}

/// Lines end at `\n` only, as GNU diff and `patch` see them; `similar`'s own line split
/// also ends one at a lone CR, which would put `\ No newline` markers mid-hunk.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The edit script of `similar`'s ops, one entry per line.
fn script_of(ops: &[DiffOp]) -> Script {
    let mut script = Script::new();
    let (mut o, mut n) = (0usize, 0usize);
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            for _ in old_range {
                script.push((' ', o, n));
                (o, n) = (o + 1, n + 1);
            }
            continue;
        }
        for _ in old_range {
            script.push(('-', o, n));
            o += 1;
        }
        for _ in new_range {
            script.push(('+', o, n));
            n += 1;
        }
    }
    script
}

/// Writes `script` as hunks with `context` lines around each change, cut to whole lines
/// within `max_bytes`.
fn write(
    from: &str,
    to: &str,
    old_lines: &[&str],
    new_lines: &[&str],
    script: &[(char, usize, usize)],
    context: usize,
    max_bytes: usize,
) -> Written {
    let added = script.iter().filter(|l| l.0 == '+').count();
    let removed = script.iter().filter(|l| l.0 == '-').count();
    // Changes closer than twice the context share a hunk.
    let mut hunks: Vec<(usize, usize)> = Vec::new();
    for (i, _) in script.iter().enumerate().filter(|(_, line)| line.0 != ' ') {
        let (lo, hi) = (
            i.saturating_sub(context),
            (i + context + 1).min(script.len()),
        );
        match hunks.last_mut() {
            Some(last) if lo <= last.1 => last.1 = hi,
            _ => hunks.push((lo, hi)),
        }
    }
    if hunks.is_empty() {
        return Written::default();
    }
    let mut out = headers(from, to);
    // Where each hunk's header ends: a cut right after one keeps the header without its body.
    let mut header_ends = Vec::new();
    for (lo, hi) in hunks {
        let part = &script[lo..hi];
        let old_count = part.iter().filter(|l| l.0 != '+').count();
        let new_count = part.iter().filter(|l| l.0 != '-').count();
        let header_start = out.len();
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(part[0].1, old_count),
            range(part[0].2, new_count)
        ));
        header_ends.push((header_start, out.len()));
        for &(sign, o, n) in part {
            let text = if sign == '+' {
                new_lines[n]
            } else {
                old_lines[o]
            };
            out.push(sign);
            out.push_str(text);
            if !text.ends_with('\n') {
                out.push_str("\n\\ No newline at end of file\n");
            }
        }
        if out.len() > max_bytes {
            break;
        }
    }
    let cut = out.len() > max_bytes;
    if cut {
        let mut at = whole_lines_within(&out, max_bytes);
        // A hunk header whose body is cut off says nothing: it goes, and a cut that keeps no
        // line of any hunk's body keeps nothing (the headers alone would read as a change
        // without lines, an empty file's).
        if let Some(&(start, _)) = header_ends.iter().find(|&&(_, end)| end == at) {
            at = start;
        }
        if header_ends
            .first()
            .is_none_or(|&(_, first_body)| at <= first_body)
        {
            at = 0;
        }
        out.truncate(at);
    }
    Written {
        text: out,
        added,
        removed,
        cut,
    }
}

/// Where to cut `diff` to keep at most `max_bytes` of it in whole lines: a line cut in the
/// middle reads as another line (`-li` of `-line 7`, a removal of `li`). A line whose
/// `\ No newline at end of file` marker would be cut off goes too: without its marker it
/// would read as ending in a newline.
fn whole_lines_within(diff: &str, max_bytes: usize) -> usize {
    let bytes = diff.as_bytes();
    let line_start = |end: usize| memchr::memrchr(b'\n', &bytes[..end]).map_or(0, |i| i + 1);
    let mut at = line_start(max_bytes.min(bytes.len()));
    if bytes.get(at) == Some(&b'\\') && at > 0 {
        at = line_start(at - 1);
    }
    at
}

/// The `---`/`+++` lines of a diff from `from` to `to`; alone, they are the whole diff of an
/// empty file created or deleted.
pub(crate) fn headers(from: &str, to: &str) -> String {
    format!("--- {}\n+++ {}\n", header_name(from), header_name(to))
}

/// A name as a `---`/`+++` header writes it, so that `apply-patch` and `git apply` read back
/// exactly that name: quoted as git quotes a name that would break the line, and, as git
/// does, ended with a tab when it holds a space (or ends in other whitespace): a reader takes
/// trailing whitespace for the line's, so `x ` would be read as `x`, another file.
pub(crate) fn header_name(name: &str) -> String {
    let mut written = crate::quote::path(name).into_owned();
    if written.contains(' ') || written.ends_with(char::is_whitespace) {
        written.push('\t');
    }
    written
}

/// A hunk header's range: the first line (1-based) and the count, as `diff -u` writes them;
/// an empty range names the line before it.
fn range(start: usize, count: usize) -> String {
    match count {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        count => format!("{},{count}", start + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(old: &str, new: &str) -> String {
        unified("a/f", "b/f", old, new, 3, None, usize::MAX).text
    }

    #[test]
    fn writes_what_diff_u_writes() {
        assert_eq!(
            diff("a\nb\nc\n", "a\nB\nc\n"),
            "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
        assert_eq!(diff("", "x\n"), "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n");
        assert_eq!(
            diff("x", "y"),
            "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"
        );
        assert_eq!(diff("same\n", "same\n"), "");
    }

    #[test]
    fn a_lone_cr_does_not_end_a_line() {
        assert_eq!(
            diff("a\rb\rc\n", "a\rB\rc\n"),
            "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\rb\rc\n+a\rB\rc\n"
        );
    }

    #[test]
    fn headers_agree_with_bodies_where_similars_own_writer_did_not() {
        let new = "\n".repeat(39);
        let text = diff("a\n\n", &new);
        for hunk in text.split("\n@@ ").skip(1) {
            let (header, body) = hunk.split_once(" @@\n").unwrap();
            let count = |side: &str, skip: char| {
                let spec = header
                    .split(' ')
                    .find_map(|s| s.strip_prefix(side))
                    .unwrap();
                let n: usize = spec.split_once(',').map_or(1, |(_, c)| c.parse().unwrap());
                let lines = body
                    .lines()
                    .filter(|l| !l.starts_with('\\') && !l.starts_with(skip))
                    .count();
                (n, lines)
            };
            let (declared, counted) = count("-", '+');
            assert_eq!(declared, counted, "{text}");
            let (declared, counted) = count("+", '-');
            assert_eq!(declared, counted, "{text}");
        }
    }

    #[test]
    fn a_long_diff_is_cut_and_says_so() {
        let old: String = (0..10_000).map(|i| format!("line {i}\n")).collect();
        let written = unified("a/f", "b/f", &old, "", 3, None, 4096);
        assert!(written.cut && written.text.len() <= 4096);
        assert!(written.text.ends_with('\n'));
    }

    fn changed(old: &str, new: &str) -> Written {
        changes("a/f", "b/f", old, new, 3, None, usize::MAX)
    }

    /// A diff `write` made, applied to `old`: every context and removed line must be there.
    fn apply(old: &str, text: &str) -> String {
        let old_lines = lines(old);
        let mut out = String::new();
        let mut at = 0usize;
        let mut body = text.split_inclusive('\n').skip(2).peekable();
        while let Some(header) = body.next() {
            let spec = header[4..].split(' ').next().unwrap();
            let (start, empty) = match spec.split_once(',') {
                Some((start, count)) => (start.parse::<usize>().unwrap(), count == "0"),
                None => (spec.parse().unwrap(), false),
            };
            // An empty range names the line before it.
            let first = if empty { start } else { start - 1 };
            while at < first {
                out.push_str(old_lines[at]);
                at += 1;
            }
            while let Some(line) = body.next_if(|l| !l.starts_with("@@")) {
                let mut content = line[1..].to_owned();
                if body.next_if(|l| l.starts_with('\\')).is_some() {
                    content.pop();
                }
                match &line[..1] {
                    "+" => out.push_str(&content),
                    sign => {
                        assert_eq!(old_lines[at], content, "{sign} line {at}\n{text}");
                        if sign == " " {
                            out.push_str(&content);
                        }
                        at += 1;
                    }
                }
            }
        }
        out.extend(old_lines[at..].iter().copied());
        out
    }

    #[test]
    fn changes_writes_what_unified_writes() {
        for (old, new) in [
            ("a\nb\nc\n", "a\nB\nc\n"),
            ("", "x\n"),
            ("x", "y"),
            ("a\rb\rc\n", "a\rB\rc\n"),
            (
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
                "1\n2\nthree\n4\n5\n6\n7\n8\nnine\n10\n",
            ),
        ] {
            let written = changed(old, new);
            assert_eq!(written.text, diff(old, new));
            assert!(!written.cut);
            assert_eq!(apply(old, &written.text), new);
        }
        assert_eq!(changed("same\n", "same\n").text, "");
    }

    #[test]
    fn lines_on_one_side_only_are_set_aside_and_the_diff_still_applies() {
        let old: String = (0..500).map(|i| format!("old {i}\n{}\n", i % 7)).collect();
        let new: String = (0..500).map(|i| format!("new {i}\n{}\n", i % 5)).collect();
        let written = changed(&old, &new);
        assert_eq!(apply(&old, &written.text), new);
        // A whole rewrite is every line out and every line in.
        let rewrite: String = old.lines().map(|l| format!("{l}!\n")).collect();
        let written = changed(&old, &rewrite);
        assert_eq!((written.added, written.removed), (1000, 1000));
        assert_eq!(apply(&old, &written.text), rewrite);
    }

    #[test]
    fn changes_are_as_small_as_the_full_search_finds_and_apply() {
        // Texts of few distinct lines, so lines repeat, ties abound and some lines occur on
        // one side only: the pairs the shortcuts could get wrong.
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..500 {
            let text = |len: u64, next: &mut dyn FnMut(u64) -> u64| -> String {
                (0..next(len))
                    .map(|_| ["a\n", "b\n", "c\n", "d\n", "e", "\n"][next(6) as usize])
                    .filter(|l| !l.is_empty())
                    .collect::<String>()
            };
            let old = text(12, &mut next);
            let new = text(12, &mut next);
            let written = changed(&old, &new);
            assert_eq!(apply(&old, &written.text), new, "{old:?} -> {new:?}");
            let full = diff(&old, &new);
            let count = |sign: char| full.lines().skip(2).filter(|l| l.starts_with(sign)).count();
            assert_eq!(
                (written.added, written.removed),
                (count('+'), count('-')),
                "{old:?} -> {new:?}"
            );
        }
    }

    #[test]
    fn a_cut_diff_keeps_the_whole_counts_and_says_it_was_cut() {
        let old: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let written = changes("a/f", "b/f", &old, "", 3, None, 100);
        assert!(written.cut);
        assert_eq!((written.added, written.removed), (0, 1000));
        let whole = changed(&old, "");
        assert!(whole.text.starts_with(&written.text));
        // Whole lines, as many as fit: the next line would not.
        assert!(written.text.ends_with('\n') && written.text.len() <= 100);
        let next = whole.text[written.text.len()..]
            .split_inclusive('\n')
            .next();
        assert!(written.text.len() + next.unwrap().len() > 100);
    }

    #[test]
    fn a_cut_keeps_no_hunk_header_without_its_body_and_no_headers_alone() {
        let old: String = (0..20).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 1\n", "LINE 1\n")
            .replace("line 18\n", "LINE 18\n");
        let whole = changes("a/f", "b/f", &old, &new, 3, None, usize::MAX).text;
        let second = whole.rfind("@@ -").unwrap();
        let second_end = second + whole[second..].find('\n').unwrap() + 1;
        for max in 0..whole.len() {
            let written = changes("a/f", "b/f", &old, &new, 3, None, max);
            let text = written.text;
            assert!(whole.starts_with(&text) && written.cut, "{max}");
            // Nothing, or headers, a hunk header and at least one line of its body.
            assert!(
                text.is_empty() || text.lines().count() >= 4,
                "{max}: {text:?}"
            );
            assert!(!text.ends_with(" @@\n"), "{max}: {text:?}");
            if (second_end..second_end + 5).contains(&max) {
                assert_eq!(text.len(), second, "{max}");
            }
        }
    }

    #[test]
    fn a_cut_never_splits_a_line_or_leaves_a_line_without_its_marker() {
        let diff = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-line one\n\\ No newline at end of file\n+x\n";
        let marker_at = diff.find('\\').unwrap();
        for max in 0..diff.len() {
            let at = whole_lines_within(diff, max);
            assert!(at <= max, "{max}");
            assert!(
                at == 0 || diff.as_bytes()[at - 1] == b'\n',
                "{max}: cut mid-line"
            );
            // `-line one` is kept only with its marker.
            assert!(at != marker_at, "{max}: the marker was cut off its line");
        }
        assert_eq!(
            whole_lines_within(diff, marker_at + 3),
            diff.find("-line").unwrap()
        );
        assert_eq!(
            whole_lines_within(diff, diff.len() - 1),
            diff.find("+x").unwrap()
        );
    }

    #[test]
    fn a_cut_lands_on_a_whole_character() {
        let written = changes("a/f", "b/f", "", "ééééé\n", 3, None, 40);
        assert!(written.cut);
        assert!(written.text.len() <= 40);
        assert!("--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+ééééé\n".starts_with(&written.text));
    }
}
