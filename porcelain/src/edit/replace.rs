//! Staged literal text replacement: exact, then normalised, then a useful NO_MATCH.

use super::doc::{Doc, Editable, caller_lines};
use crate::{Code, Error, Result};

/// Which occurrences to replace. There is no default: the caller says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// The first occurrence, which must then be the only one (or the count must be confirmed
    /// with `expected_match_count`).
    First,
    /// Every occurrence.
    All,
}

pub(crate) struct Replaced {
    pub stage: &'static str,
    pub count: usize,
    pub warnings: Vec<String>,
}

/// `text` with its line endings in the file's convention, so caller text typed with `\n`
/// matches a CRLF file and writes CRLF into it.
fn in_convention(text: &str, eol: &str) -> String {
    let lf = text.replace("\r\n", "\n");
    if eol == "\n" {
        lf
    } else {
        lf.replace('\n', eol)
    }
}

fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn replace(
    ed: &mut Editable,
    path: &str,
    old: &str,
    new: &str,
    policy: Policy,
    expected_count: Option<u64>,
    expected_content: Option<&str>,
) -> Result<Replaced> {
    if old.is_empty() {
        return Err(Error::invalid("the old text is empty").path(path));
    }
    let eol = ed.eol();
    let (old_c, new_c) = (in_convention(old, eol), in_convention(new, eol));
    // Exact matches are replaced in the text as read, in one pass: no line is split.
    let body = ed.body();
    let starts: Vec<usize> = body.match_indices(&old_c).map(|(i, _)| i).collect();
    if !starts.is_empty() {
        check_count(path, starts.len(), policy, expected_count)?;
        if let Some(expected) = expected_content {
            check_single(path, starts.len(), policy)?;
            guard_region(path, &old_c, expected, eol)?;
        }
        let replacing = match policy {
            Policy::All => &starts[..],
            Policy::First => &starts[..1],
        };
        let grown = replacing.len() * new_c.len().saturating_sub(old_c.len());
        let mut text = ed.new_text(body.len() + grown);
        let mut copied = 0;
        for &at in replacing {
            text.push_str(&body[copied..at]);
            text.push_str(&new_c);
            copied = at + old_c.len();
        }
        text.push_str(&body[copied..]);
        ed.set_text(text);
        return Ok(Replaced {
            stage: "exact",
            count: starts.len(),
            warnings: Vec::new(),
        });
    }
    // Normalised: whole lines, equal once indentation and trailing whitespace are ignored.
    let doc = ed.doc();
    let mut wanted = caller_lines(old);
    while wanted.first().is_some_and(|l| l.trim().is_empty()) {
        wanted.remove(0);
    }
    while wanted.last().is_some_and(|l| l.trim().is_empty()) {
        wanted.pop();
    }
    let windows: Vec<usize> = if wanted.is_empty() {
        Vec::new()
    } else {
        (0..doc.lines.len().saturating_sub(wanted.len() - 1))
            .filter(|&at| {
                wanted
                    .iter()
                    .enumerate()
                    .all(|(k, w)| doc.lines[at + k].text.trim() == w.trim())
            })
            .collect()
    };
    // Overlapping windows cannot both be replaced; keep them left to right.
    let mut chosen: Vec<usize> = Vec::new();
    for at in windows {
        if chosen.last().is_none_or(|&prev| at >= prev + wanted.len()) {
            chosen.push(at);
        }
    }
    if chosen.is_empty() {
        return Err(no_match(doc, path, old));
    }
    check_count(path, chosen.len(), policy, expected_count)?;
    if let Some(expected) = expected_content {
        check_single(path, chosen.len(), policy)?;
        let region: Vec<&str> = doc.lines[chosen[0]..chosen[0] + wanted.len()]
            .iter()
            .map(|l| l.text.as_ref())
            .collect();
        guard_region(path, &region.join("\n"), expected, "\n")?;
    }
    let found = chosen.len();
    if policy == Policy::First {
        chosen.truncate(1);
    }
    let old_indent = leading_ws(&wanted[0]).to_owned();
    let new_lines = caller_lines(new);
    let mut spans = Vec::new();
    for &at in chosen.iter().rev() {
        let indent = leading_ws(&doc.lines[at].text).to_owned();
        let lines: Vec<String> = new_lines
            .iter()
            .map(|l| {
                if l.trim().is_empty() {
                    String::new()
                } else if let Some(rest) = l.strip_prefix(old_indent.as_str()) {
                    format!("{indent}{rest}")
                } else {
                    format!("{indent}{}", l.trim_start())
                }
            })
            .collect();
        doc.splice(at, at + wanted.len(), lines);
        spans.push(format!("{}-{}", at + 1, at + wanted.len()));
    }
    spans.reverse();
    Ok(Replaced {
        stage: "normalised",
        count: found,
        warnings: vec![format!(
            "the old text matched only after ignoring indentation and trailing whitespace (lines {}); the replacement took the file's indentation: check the result",
            spans.join(", ")
        )],
    })
}

fn check_count(path: &str, found: usize, policy: Policy, expected: Option<u64>) -> Result<()> {
    if let Some(expected) = expected {
        if expected != found as u64 {
            return Err(Error::new(
                Code::MatchCountMismatch,
                format!("the old text occurs {found} time(s), not the expected {expected}"),
            )
            .path(path)
            .with("match_count", found)
            .with("expected_match_count", expected));
        }
        return Ok(());
    }
    if policy == Policy::First && found > 1 {
        return Err(Error::new(
            Code::MatchCountMismatch,
            format!("the old text occurs {found} times; refusing to pick the first"),
        )
        .path(path)
        .with("match_count", found)
        .recovery("replace every occurrence, confirm the count, or give more context so the old text is unique"));
    }
    Ok(())
}

fn check_single(path: &str, found: usize, policy: Policy) -> Result<()> {
    if policy == Policy::All && found > 1 {
        return Err(Error::invalid(
            "the expected content guards one region, but every occurrence would be replaced",
        )
        .path(path));
    }
    Ok(())
}

fn guard_region(path: &str, actual: &str, expected: &str, eol: &str) -> Result<()> {
    let norm = |s: &str| s.replace("\r\n", "\n").replace('\r', "\n");
    let (a, e) = (norm(actual), norm(&in_convention(expected, eol)));
    if a.trim_end_matches('\n') != e.trim_end_matches('\n') {
        return Err(Error::new(
            Code::ContentConflict,
            "the target region does not hold the expected content",
        )
        .path(path)
        .recovery("re-read the file and retry against its current text"));
    }
    Ok(())
}

/// How many characters of a line the NO_MATCH ranking compares.
const SIMILARITY_CHARS: usize = 200;

/// NO_MATCH with the lines most like the old text's first line, so the caller can correct it.
fn no_match(doc: &Doc, path: &str, old: &str) -> Error {
    let probe = caller_lines(old)
        .into_iter()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    // Similarity is quadratic in the lengths compared: compare bounded prefixes, so a huge old
    // text (or a huge line) cannot turn a NO_MATCH into minutes of work.
    let bounded = |s: &str| -> String { s.chars().take(SIMILARITY_CHARS).collect() };
    let probe = bounded(probe.trim());
    let mut scored: Vec<(f32, usize)> = doc
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.text.trim().is_empty())
        .map(|(i, l)| {
            (
                similar::TextDiff::from_chars(probe.as_str(), bounded(l.text.trim()).as_str())
                    .ratio(),
                i,
            )
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let candidates: Vec<serde_json::Value> = scored
        .iter()
        .take(3)
        .map(|(score, i)| {
            let text: String = doc.lines[*i].text.chars().take(200).collect();
            serde_json::json!({"line": i + 1, "text": text, "similarity": (f64::from(*score) * 100.0).round() / 100.0})
        })
        .collect();
    Error::new(
        Code::NoMatch,
        "the old text was not found, exactly or with normalised whitespace",
    )
    .path(path)
    .with("candidates", candidates)
    .recovery(
        "compare with the nearest lines in details.candidates and retry with the file's exact text",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, old: &str, new: &str, policy: Policy) -> Result<(String, Replaced)> {
        let mut ed = Editable::new("f", text.as_bytes())?;
        let r = replace(&mut ed, "f", old, new, policy, None, None)?;
        Ok((String::from_utf8(ed.into_bytes()).unwrap(), r))
    }

    #[test]
    fn exact_first_all_and_ambiguity() {
        let (out, r) = run("a b a\n", "b", "c", Policy::First).unwrap();
        assert_eq!((out.as_str(), r.stage, r.count), ("a c a\n", "exact", 1));
        let (out, r) = run("a b a\n", "a", "x", Policy::All).unwrap();
        assert_eq!((out.as_str(), r.count), ("x b x\n", 2));
        assert_eq!(
            run("a b a\n", "a", "x", Policy::First).err().unwrap().code,
            Code::MatchCountMismatch
        );
        let mut ed = Editable::new("f", b"a b a\n").unwrap();
        let r = replace(&mut ed, "f", "a", "x", Policy::First, Some(2), None).unwrap();
        assert_eq!((ed.into_bytes(), r.count), (b"x b a\n".to_vec(), 2));
    }

    #[test]
    fn crlf_files_match_lf_caller_text_and_stay_crlf() {
        let (out, _) = run(
            "one\r\ntwo\r\nthree\r\n",
            "one\ntwo\n",
            "1\n2\n",
            Policy::First,
        )
        .unwrap();
        assert_eq!(out, "1\r\n2\r\nthree\r\n");
    }

    #[test]
    fn normalised_stage_reindents_and_warns() {
        let text = "fn main() {\n        let x = 1;   \n        call(x);\n}\n";
        let (out, r) = run(
            text,
            "let x = 1;\ncall(x);",
            "let y = 2;\ncall(y);",
            Policy::First,
        )
        .unwrap();
        assert_eq!(r.stage, "normalised");
        assert!(!r.warnings.is_empty());
        assert_eq!(
            out,
            "fn main() {\n        let y = 2;\n        call(y);\n}\n"
        );
    }

    #[test]
    fn no_match_names_the_nearest_lines() {
        let err = run(
            "alpha\nbeta gamma\ndelta\n",
            "beta gamme",
            "x",
            Policy::First,
        )
        .err()
        .unwrap();
        assert_eq!(err.code, Code::NoMatch);
        assert_eq!(err.details["candidates"][0]["line"], 2);
    }

    #[test]
    fn replacement_is_literal() {
        let (out, _) = run("cost: $1 (a.b)\n", "$1 (a.b)", "$2 \\1", Policy::First).unwrap();
        assert_eq!(out, "cost: $2 \\1\n");
    }
}
