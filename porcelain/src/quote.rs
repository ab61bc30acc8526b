//! Paths and messages written into text that is read line by line: a listing, a grep row, a
//! diff header, a summary, the text an MCP host shows a model. A name may hold a newline (any
//! byte but `/` and NUL can be in a Linux name), and written as it is it would end the line
//! early and let the rest of the name pass for lines of its own: a file `x\n     1\tsecret`
//! would show a line of content that no file holds. So such text is escaped where it is
//! rendered; the JSON fields always hold the path itself.

use std::borrow::Cow;

/// Whether `c` breaks a line of text, or is taken for a line end by a reader: a control
/// character (C0, DEL, C1) or a Unicode line or paragraph separator.
fn breaks_line(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// `path` as a line of text writes it: as it is, unless it holds a control character, a
/// Unicode line separator, `"` or `\`; then in double quotes, with C escapes (`\n`, `\t`,
/// `\"`, `\\`, and any other such character as the octal of its UTF-8 bytes), as git writes
/// such a name (`"a\nb.txt"`), and as `apply-patch` reads one back.
pub fn path(path: &str) -> Cow<'_, str> {
    if !path
        .chars()
        .any(|c| breaks_line(c) || c == '"' || c == '\\')
    {
        return Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 2);
    out.push('"');
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if breaks_line(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// A message, summary or warning as one line of text: every control character and Unicode
/// line separator in it (only a path it names can hold one) written as a C escape, so the
/// text stays one line whatever the names in it.
pub fn line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(breaks_line) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if breaks_line(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\u{b}' => out.push_str("\\v"),
        '\u{c}' => out.push_str("\\f"),
        '\r' => out.push_str("\\r"),
        c => {
            let mut bytes = [0u8; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("\\{b:03o}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{line, path};

    #[test]
    fn a_plain_path_is_written_as_it_is() {
        for p in ["a.txt", "dir/sub dir/é.md", "-dash", "a'b"] {
            assert!(matches!(path(p), std::borrow::Cow::Borrowed(_)), "{p}");
        }
    }

    #[test]
    fn a_path_that_would_break_a_line_is_quoted_as_git_quotes_it() {
        assert_eq!(path("a\nb.txt"), "\"a\\nb.txt\"");
        assert_eq!(path("tab\there"), "\"tab\\there\"");
        assert_eq!(path("q\"uote"), "\"q\\\"uote\"");
        assert_eq!(path("back\\slash"), "\"back\\\\slash\"");
        assert_eq!(path("esc\u{1b}[31m"), "\"esc\\033[31m\"");
        assert_eq!(path("sep\u{2028}x"), "\"sep\\342\\200\\250x\"");
        assert_eq!(path("nel\u{85}"), "\"nel\\302\\205\"");
    }

    #[test]
    fn a_message_stays_one_line() {
        assert_eq!(line("Wrote a.txt."), "Wrote a.txt.");
        assert_eq!(line("Moved x to new\nline.\r"), "Moved x to new\\nline.\\r");
        assert!(!line("a\u{2029}b\u{b}c").contains(['\u{2029}', '\u{b}']));
    }
}
