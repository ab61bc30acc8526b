//! Unified diffs for people: `history diff` and the previews of dry runs.
//!
//! The line diff is `similar`'s; the text is written here, from the kinds and lengths of its
//! ops only. `similar` 2.7's own writer takes hunk headers from the ops' indices, which it
//! can report inconsistently (for "a\n\n" against 39 empty lines it wrote `@@ -1 +4,22 @@`
//! over a body of 2 old and 25 new lines), and a header that disagrees with its body makes
//! the diff useless to `patch` and to `keeper file apply-patch`. The `patch` fuzz target
//! checks that what this writes, applied to the old text, gives the new one.

use similar::DiffTag;
use std::time::Duration;

/// The unified diff from `old` to `new` as GNU `diff -u` writes it, with `context` lines
/// around each change, headed `--- FROM` / `+++ TO`; empty when the texts are equal. A
/// `timeout` bounds the line diff (a coarser, still correct diff after it), and the text is
/// cut at a whole character past `max_bytes` with a note saying so.
pub(crate) fn unified(
    from: &str,
    to: &str,
    old: &str,
    new: &str,
    context: usize,
    timeout: Option<Duration>,
    max_bytes: usize,
) -> String {
    let mut config = similar::TextDiff::configure();
    if let Some(timeout) = timeout {
        config.timeout(timeout);
    }
    // Lines end at `\n` only, as GNU diff and `patch` see them; `similar`'s own line split
    // also ends one at a lone CR, which would put `\ No newline` markers mid-hunk.
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let diff = config.diff_slices(&old_lines, &new_lines);
    // The edit script, one entry per line: the sign, and the old and new line index it sits at.
    let mut script: Vec<(char, usize, usize)> = Vec::new();
    let (mut o, mut n) = (0usize, 0usize);
    for op in diff.ops() {
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
        return String::new();
    }
    let mut out = format!("--- {from}\n+++ {to}\n");
    for (lo, hi) in hunks {
        let part = &script[lo..hi];
        let old_count = part.iter().filter(|l| l.0 != '+').count();
        let new_count = part.iter().filter(|l| l.0 != '-').count();
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(part[0].1, old_count),
            range(part[0].2, new_count)
        ));
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
    if out.len() > max_bytes {
        let mut cut = max_bytes;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str(&format!("\n... diff cut at {} KiB\n", max_bytes / 1024));
    }
    out
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
        unified("a/f", "b/f", old, new, 3, None, usize::MAX)
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
        let text = unified("a/f", "b/f", &old, "", 3, None, 4096);
        assert!(text.len() < 4096 + 64);
        assert!(text.ends_with("... diff cut at 4 KiB\n"));
    }
}
