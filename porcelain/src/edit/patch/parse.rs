//! Reading a patch: its sections (plain `diff -u`, git's extended headers, and the formats
//! that are refused by name), their file names as diff and git write them, and each
//! section's hunks with their `\ No newline at end of file` markers.

use super::*;

/// A name as git writes it in its extended headers: C-quoted when unusual, else as is. A
/// quoted name that git could not have written is `Err` with why ([`unquote`]).
fn git_name(text: &str) -> std::result::Result<String, &'static str> {
    if !text.starts_with('"') {
        return Ok(text.to_owned());
    }
    match quoted_token(text)? {
        Some((name, "")) => Ok(name),
        Some(_) => Err("has text after its closing quote"),
        None => Err("has no closing quote"),
    }
}

/// PATCH_FAILED for a quoted name on patch line `line` that git could not have written
/// (`why`). Reading it any other way would name another file: `\r` read as `r`, or bytes
/// that are not UTF-8 read as U+FFFD, changed a file the patch did not name.
fn bad_name(line: usize, why: &str) -> Error {
    failed(
        format!("line {line}: a quoted file name {why}; nothing was applied"),
        line,
        "bad_quoted_name",
    )
}

/// The path named by a `---`/`+++` header, unquoted when git quoted it, or `None` for
/// `/dev/null`. Before a tab the name is exactly what precedes the tab: GNU diff writes a
/// timestamp after one, and git ends a name that holds a space with one, so that a name's own
/// trailing spaces survive (`x ` is not `x`). Without a tab, trailing whitespace is the
/// line's, not the name's.
fn header_path(rest: &str) -> std::result::Result<Option<String>, &'static str> {
    let path = match rest.split_once('\t') {
        Some((name, _)) => name,
        None => rest.trim_end(),
    };
    let path = git_name(path)?;
    Ok((path != "/dev/null").then_some(path))
}

/// Whether a `---`/`+++` header dates its file at the Unix epoch, as `diff -N` dates a file
/// that does not exist.
fn dated_epoch(rest: &str) -> bool {
    rest.split_once('\t')
        .is_some_and(|(_, date)| is_epoch(date))
}

/// Whether a `diff -u` timestamp (`1970-01-01 00:00:00.000000000 +0000`, or the same instant
/// in another zone, `1969-12-31 19:00:00 -0500`) is the Unix epoch.
fn is_epoch(date: &str) -> bool {
    let mut parts = date.split_whitespace();
    let (Some(day), Some(time), Some(zone), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let numbers = |text: &str, sep: char| -> Option<Vec<i64>> {
        text.split(sep).map(|n| n.parse().ok()).collect()
    };
    let (time, fraction) = time.split_once('.').unwrap_or((time, "0"));
    let (Some(day), Some(time)) = (numbers(day, '-'), numbers(time, ':')) else {
        return false;
    };
    let (&[y, m, d], &[hh, mm, ss]) = (day.as_slice(), time.as_slice()) else {
        return false;
    };
    let zone = match (
        zone.as_bytes().first(),
        zone.get(1..).and_then(|z| z.parse::<i64>().ok()),
    ) {
        (Some(b'+'), Some(z)) if zone.len() == 5 => (z / 100) * 3600 + (z % 100) * 60,
        (Some(b'-'), Some(z)) if zone.len() == 5 => -((z / 100) * 3600 + (z % 100) * 60),
        _ => return false,
    };
    // Days from 1970-01-01 to the civil date y-m-d (Howard Hinnant's days_from_civil).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    fraction.bytes().all(|b| b == b'0') && days * 86_400 + hh * 3600 + mm * 60 + ss - zone == 0
}

/// The leading C-quoted name of `text` (unquoted) and what follows its closing quote;
/// `Ok(None)` when the quote is not closed, `Err` when the name is not as git quotes one.
fn quoted_token(text: &str) -> std::result::Result<Option<(String, &str)>, &'static str> {
    let Some(body) = text.strip_prefix('"') else {
        return Ok(None);
    };
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Ok(Some((unquote(&body[..i])?, &body[i + 1..]))),
            _ => i += 1,
        }
    }
    Ok(None)
}

/// The two names of a `diff --git` line, without their `a/` and `b/` prefixes. Unquoted names
/// may hold spaces, so they are only known when both halves name the same file (git then
/// writes `rename` or `copy` headers, or `---`/`+++` lines, for anything else).
fn git_names(rest: &str) -> std::result::Result<Option<(String, String)>, &'static str> {
    let (old, new) = if rest.starts_with('"') {
        let Some((old, after)) = quoted_token(rest)? else {
            return Err("has no closing quote");
        };
        let Some(new) = after.strip_prefix(' ') else {
            return Ok(None);
        };
        (old, git_name(new)?)
    } else if let Some((old, quoted)) = rest.split_once(" \"") {
        let Some((new, _)) = quoted_token(&format!("\"{quoted}"))? else {
            return Err("has no closing quote");
        };
        (old.to_owned(), new)
    } else {
        let half = rest.len() / 2;
        if rest.len().is_multiple_of(2)
            || !rest.is_char_boundary(half)
            || rest.as_bytes()[half] != b' '
        {
            return Ok(None);
        }
        // Halves of equal length are the names only when they name one file, with or
        // without a prefix each: `a/xx b/abc def/ghijkl` also splits evenly, at a space
        // inside the second name.
        let (old, new) = (&rest[..half], &rest[half + 1..]);
        let unprefixed = |n: &'_ str| n.split_once('/').map(|(_, rest)| rest.to_owned());
        if old != new && unprefixed(old).is_none_or(|o| Some(o) != unprefixed(new)) {
            return Ok(None);
        }
        (old.to_owned(), new.to_owned())
    };
    Ok(Some((old, new)))
}

/// The prefix pairs git writes before a section's two names: `a/` and `b/`, and with
/// `diff.mnemonicPrefix` the two sides compared (index, work tree, commit, object; `1` and `2`
/// for `--no-index`). `--no-prefix` writes none.
const GIT_PREFIXES: [(&str, &str); 6] = [
    ("a/", "b/"),
    ("i/", "w/"),
    ("c/", "w/"),
    ("c/", "i/"),
    ("o/", "w/"),
    ("1/", "2/"),
];

/// The names a git section's headers give, as written: the `diff --git` line's (when they
/// can be told apart), the `---`/`+++` lines' (`None` for `/dev/null`), and the `rename`
/// or `copy` lines' (never prefixed).
#[derive(Default)]
struct GitNames {
    line: Option<(String, String)>,
    dashes: Option<(Option<String>, Option<String>)>,
    moved: (Option<String>, Option<String>),
}

impl GitNames {
    /// The section's old and new paths: the one reading of the prefixes under which every
    /// header names the same old file and the same new file. A pair git writes is tried first
    /// (git writes one unless told `--no-prefix`), no prefix only when no pair makes the headers
    /// agree, and then only for one file or a rename or copy. Headers that agree under no
    /// reading, or under two pairs that name different files, are refused: which file the
    /// section changes would be a guess (`git apply` refuses them too).
    fn paths(&self, line: usize) -> Result<(Option<String>, Option<String>)> {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        let named = self.line.iter().map(|(o, n)| (Some(o), Some(n)));
        let named = named.chain(self.dashes.iter().map(|(o, n)| (o.as_ref(), n.as_ref())));
        for (old, new) in named {
            for &(p, q) in &GIT_PREFIXES {
                for (p, q) in [(p, q), (q, p)] {
                    let fits =
                        |name: Option<&String>, prefix| name.is_none_or(|n| n.starts_with(prefix));
                    if fits(old, p) && fits(new, q) && !pairs.contains(&(p, q)) {
                        pairs.push((p, q));
                    }
                }
            }
        }
        let mut agreed: Vec<(Option<String>, Option<String>)> = Vec::new();
        for (p, q) in pairs {
            if let Some(paths) = self.under(p, q)
                && !agreed.contains(&paths)
            {
                agreed.push(paths);
            }
        }
        // Without prefixes, two names and no rename or copy line are a pair of prefixes this
        // tool does not know (`--src-prefix`), whose reading would be a guess.
        let moved = self.moved.0.is_some() || self.moved.1.is_some();
        if agreed.is_empty()
            && let Some(paths) = self.under("", "")
            && (moved || paths.0.is_none() || paths.1.is_none() || paths.0 == paths.1)
        {
            agreed.push(paths);
        }
        match agreed.len() {
            1 => Ok(agreed.remove(0)),
            0 => Err(failed(
                format!(
                    "line {line}: the headers of this section name different files (the diff --git line, the ---/+++ lines and any rename or copy lines must agree), so which file it changes would be a guess"
                ),
                line,
                "inconsistent_names",
            )),
            _ => Err(failed(
                format!(
                    "line {line}: the headers of this section name different files depending on which of git's prefixes its names carry, so which file it changes would be a guess"
                ),
                line,
                "inconsistent_names",
            )),
        }
    }

    /// The old and new paths with prefixes `p` and `q` taken off, when every header agrees.
    fn under(&self, p: &str, q: &str) -> Option<(Option<String>, Option<String>)> {
        let strip = |name: &String, prefix: &str| name.strip_prefix(prefix).map(str::to_owned);
        let mut olds = Vec::new();
        let mut news = Vec::new();
        if let Some((o, n)) = &self.line {
            olds.push(strip(o, p)?);
            news.push(strip(n, q)?);
        }
        if let Some((o, n)) = &self.dashes {
            if let Some(o) = o {
                olds.push(strip(o, p)?);
            }
            if let Some(n) = n {
                news.push(strip(n, q)?);
            }
        }
        olds.extend(self.moved.0.clone());
        news.extend(self.moved.1.clone());
        let same = |names: &[String]| names.windows(2).all(|w| w[0] == w[1]);
        if !same(&olds) || !same(&news) || olds.iter().chain(&news).any(String::is_empty) {
            return None;
        }
        Some((olds.first().cloned(), news.first().cloned()))
    }
}

/// Undoes git's C-style quoting of unusual file names (`quote_c_style` in git; GNU diff
/// writes the same): `\\`, `\"`, `\a`, `\b`, `\f`, `\n`, `\r`, `\t`, `\v`, and octal bytes
/// such as `\303\251` (UTF-8 for é). Any other escape, a `"` left unescaped, and bytes that
/// are not UTF-8 (no workspace path can hold them) are `Err` with why, never read as
/// something near: each such reading would name another file.
fn unquote(quoted: &str) -> std::result::Result<String, &'static str> {
    let bytes = quoted.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'"' {
            return Err("holds a quote that is not escaped");
        }
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        // A byte is at most \377; git writes no other, and \4xx and up would overflow it.
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| d[0] <= b'3' && d.iter().all(|b| (b'0'..=b'7').contains(b)));
        if let Some(d) = octal {
            out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
            i += 4;
            continue;
        }
        out.push(match bytes.get(i + 1) {
            Some(b'a') => 0x07,
            Some(b'b') => 0x08,
            Some(b'f') => 0x0c,
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            Some(b't') => b'\t',
            Some(b'v') => 0x0b,
            Some(b'\\') => b'\\',
            Some(b'"') => b'"',
            _ => {
                return Err(
                    "holds an escape git never writes (git writes \\\\, \\\", \\a, \\b, \\f, \\n, \\r, \\t, \\v and three octal digits)",
                );
            }
        });
        i += 2;
    }
    String::from_utf8(out)
        .map_err(|_| "names bytes that are not UTF-8, which no workspace path can hold")
}

/// A hunk header's `START,COUNT` (or `START`, a count of 1). Numbers past 2^32 are no
/// line of a file an edit takes (`max_write_bytes` holds far fewer lines), and arithmetic on
/// them could overflow, so they make the header malformed.
fn hunk_range(text: &str) -> Option<(usize, usize)> {
    let (start, count): (u32, u32) = match text.split_once(',') {
        Some((s, c)) => (s.parse().ok()?, c.parse().ok()?),
        None => (text.parse().ok()?, 1),
    };
    Some((start as usize, count as usize))
}

/// Whether the cursor is on a whole section of a normal diff: a change command (`5a6,7`,
/// `3,4d2`, `1c1`: a line range of the old file, `a`, `c` or `d`, a line range of the new)
/// and then exactly the lines it declares, `<` lines of the old, `---` between for a change,
/// `>` lines of the new, and after them the end, another command or another section. The
/// whole shape is asked for, so that a commit message's line that only looks like a command
/// (a hash such as `1234a5678` above a quoted line) is not taken for one.
fn normal_diff_at(r: &Reader) -> bool {
    let Some((command, olds, news)) = normal_command(r.peek().unwrap_or_default()) else {
        return false;
    };
    let marked = |i: usize, mark: &str| {
        r.at(i)
            .and_then(|l| l.strip_prefix(mark))
            .is_some_and(|t| t.is_empty() || t.starts_with(' '))
    };
    let mut i = r.i + 1;
    if !(i..i + olds).all(|k| marked(k, "<")) {
        return false;
    }
    i += olds;
    if command == 'c' {
        if r.at(i) != Some("---") {
            return false;
        }
        i += 1;
    }
    if !(i..i + news).all(|k| marked(k, ">")) {
        return false;
    }
    // And what follows is what follows a normal diff's section: the end, its marker of a
    // missing newline, another command, or another section.
    r.at(i + news).is_none_or(|l| {
        normal_command(l).is_some()
            || l.starts_with('\\')
            || l.starts_with("diff ")
            || l.starts_with("Index: ")
            || r.headers_at(i + news).is_some()
    })
}

/// A normal diff's change command (`3a4,5`, `2,3c2`, `4d3`): the command letter and how many
/// old and new lines its section holds.
fn normal_command(line: &str) -> Option<(char, usize, usize)> {
    let count = |range: &str| -> Option<usize> {
        let (first, last) = match range.split_once(',') {
            Some((a, b)) => (a.parse::<usize>().ok()?, b.parse::<usize>().ok()?),
            None => (range.parse().ok()?, range.parse().ok()?),
        };
        (last >= first && last - first < 1 << 20).then(|| last - first + 1)
    };
    let (at, command) = line
        .char_indices()
        .find(|(_, c)| matches!(c, 'a' | 'c' | 'd'))?;
    let (olds, news) = (count(&line[..at])?, count(&line[at + 1..])?);
    Some(match command {
        'a' => ('a', 0, news),
        'd' => ('d', olds, 0),
        _ => ('c', olds, news),
    })
}

/// A binary section, as `diff` and `git diff` write one. Its content cannot be applied as
/// text, and applying the patch's other sections without it would be a partial patch.
fn is_binary_marker(line: &str) -> bool {
    line == "GIT binary patch" || (line.starts_with("Binary files ") && line.ends_with(" differ"))
}

/// The patch text as lines, with a cursor. Lines are cut at `\n`; a CR before it is dropped
/// (and remembered where it matters: in added lines). Codex patches are read with it too.
pub(in crate::edit) struct Reader<'a> {
    pub(in crate::edit) raw: Vec<&'a str>,
    pub(in crate::edit) i: usize,
}

impl<'a> Reader<'a> {
    pub(in crate::edit) fn new(text: &'a str) -> Self {
        Reader {
            raw: text.split('\n').collect(),
            i: 0,
        }
    }

    /// The line at the cursor without its CR, or `None` at the end (the empty string after
    /// the patch's final newline is no line).
    pub(in crate::edit) fn peek(&self) -> Option<&'a str> {
        self.at(self.i)
    }

    pub(in crate::edit) fn at(&self, i: usize) -> Option<&'a str> {
        let line = *self.raw.get(i)?;
        if i + 1 == self.raw.len() && line.is_empty() {
            return None;
        }
        Some(line.strip_suffix('\r').unwrap_or(line))
    }

    /// The terminator of the line at the cursor: `\r\n` when a CR comes before its `\n`,
    /// `None` when the text ends on it without a `\n`.
    fn terminator(&self) -> Option<&'static str> {
        let line = self.raw.get(self.i)?;
        if self.i + 1 == self.raw.len() {
            return None;
        }
        Some(if line.ends_with('\r') { "\r\n" } else { "\n" })
    }

    /// 1-based number of the line at the cursor.
    pub(in crate::edit) fn number(&self) -> usize {
        self.i + 1
    }

    /// Whether the cursor is on a `---` and `+++` pair.
    fn at_file_headers(&self) -> bool {
        self.headers_at(self.i).is_some()
    }

    /// The `---` and `+++` names at the cursor (`None` for `/dev/null`), when it is on such
    /// a pair; PATCH_FAILED for a quoted name git could not have written.
    fn file_headers(&self) -> Result<Option<(Option<String>, Option<String>)>> {
        let Some((old, new)) = self.headers_at(self.i) else {
            return Ok(None);
        };
        let old = header_path(old).map_err(|why| bad_name(self.number(), why))?;
        let new = header_path(new).map_err(|why| bad_name(self.number() + 1, why))?;
        Ok(Some((old, new)))
    }

    /// Whether the `---` and `+++` lines at the cursor date their files at the epoch.
    fn epochs(&self) -> (bool, bool) {
        let side = |i, prefix| {
            self.at(i)
                .and_then(|l| l.strip_prefix(prefix))
                .is_some_and(dated_epoch)
        };
        (side(self.i, "--- "), side(self.i + 1, "+++ "))
    }

    /// The text after `--- ` and `+++ ` when lines `i` and `i + 1` are such a pair.
    fn headers_at(&self, i: usize) -> Option<(&str, &str)> {
        let old = self.at(i)?.strip_prefix("--- ")?;
        let new = self.at(i + 1)?.strip_prefix("+++ ")?;
        Some((old, new))
    }

    /// Whether the cursor is on the email signature `git format-patch` ends a patch with:
    /// `-- `, then the signature's text (git's version, or a `--signature-file` that may
    /// start with blank lines). The first line after `-- ` that is not blank must be text that
    /// could not continue a hunk, nor start a section: `-- ` followed by nothing but blank
    /// lines, or by a line such as ` q` after them, is a hunk line removing `- ` (and blank
    /// lines are empty context lines), and taken for a signature after a hunk whose header
    /// counts too few lines, it would end the patch there and skip the rest of the hunk in
    /// silence.
    fn at_signature(&self) -> bool {
        if self.peek() != Some("-- ") {
            return false;
        }
        let mut i = self.i + 1;
        while self.at(i).is_some_and(str::is_empty) {
            i += 1;
        }
        self.at(i).is_some_and(|text| {
            !matches!(text.chars().next(), Some(' ' | '+' | '-' | '@' | '\\'))
                && !text.starts_with("diff ")
                && !text.starts_with("Index: ")
                && self.headers_at(i).is_none()
        })
    }

    /// Whether only blank lines remain from the cursor until the end or the next section.
    fn blank_until_section(&self) -> bool {
        let mut i = self.i;
        while let Some(line) = self.at(i) {
            if !line.trim().is_empty() {
                return line.starts_with("diff ")
                    || line.starts_with("Index: ")
                    || self.headers_at(i).is_some();
            }
            i += 1;
        }
        true
    }
}

/// Parses a whole patch. Everything in it is accounted for: text before the first file
/// section (a commit message, a diffstat) is skipped, and so is an email signature after
/// the last, but any other line that is not part of a section refuses the patch, and so does
/// a binary, symbolic-link or submodule section. A hunk whose body does not supply what its
/// header declares is PATCH_FAILED with both counts. Patch text is never echoed into an error.
pub(crate) fn parse(text: &str) -> Result<Vec<FilePatch>> {
    let mut r = Reader::new(text);
    let mut files: Vec<FilePatch> = Vec::new();
    // Before the first section (and after an email signature) text is commentary.
    let mut commentary = true;
    while let Some(line) = r.peek() {
        if is_binary_marker(line) {
            return Err(binary_section(&r, files.last()));
        }
        if let Some(rest) = line.strip_prefix("diff --git ") {
            files.push(git_section(&mut r, rest)?);
            commentary = false;
            continue;
        }
        if let Some((old_path, new_path)) = r.file_headers()? {
            files.push(plain_section(&mut r, old_path, new_path)?);
            commentary = false;
            continue;
        }
        if is_bare_hunk_header(line) {
            return Err(bare_hunk_header(r.number(), None));
        }
        // A context diff's hunk separator: commentary would skip its section in silence.
        if line == "***************"
            && r.at(r.i + 1)
                .is_some_and(|next| next.starts_with("*** ") && next.ends_with(" ****"))
        {
            return Err(failed(
                format!(
                    "line {}: a context diff (diff -c) section, which this tool does not read; skipping it would apply only part of the patch, so none of it is applied (make the patch with diff -u or git diff)",
                    r.number()
                ),
                r.number(),
                "context_diff",
            ));
        }
        // A normal diff's section (`1c1`, `3,4d2`, with its `<` and `>` lines) before the
        // first unified one: commentary would skip it in silence too. (After a section, any
        // line that belongs to none is refused below.)
        if files.is_empty() && normal_diff_at(&r) {
            return Err(failed(
                format!(
                    "line {}: a normal diff (diff without -u) section, which this tool does not read; skipping it would apply only part of the patch, so none of it is applied (make the patch with diff -u or git diff)",
                    r.number()
                ),
                r.number(),
                "normal_diff",
            ));
        }
        if line.starts_with("@@ ") {
            return Err(failed(
                format!("line {}: a hunk before any file header", r.number()),
                r.number(),
                "hunk_without_file",
            ));
        }
        if commentary
            // `diff -ru`'s command line, and svn's header, before a section's own headers.
            || line.starts_with("diff ")
            || line.starts_with("Index: ")
            || (!line.is_empty() && line.bytes().all(|b| b == b'='))
        {
            r.i += 1;
            continue;
        }
        if r.at_signature() {
            // `git format-patch` ends a patch with an email signature.
            commentary = true;
            r.i += 1;
            continue;
        }
        if line.trim().is_empty() && r.blank_until_section() {
            r.i += 1;
            continue;
        }
        let after = files
            .last()
            .map(|f| f.path().to_owned())
            .unwrap_or_default();
        return Err(failed(
            format!(
                "line {}: unexpected text after the section of {after}; it is not a hunk, a file header or git metadata, so the patch may hold a change that would be skipped",
                r.number()
            ),
            r.number(),
            "unexpected_line",
        )
        .path(&after));
    }
    if files.is_empty() {
        return Err(failed(
            "line 1: no file section was found, so this is not a patch in a format this tool reads: a unified diff names each file with `--- a/PATH` and `+++ b/PATH` lines and starts each hunk with `@@ -a,b +c,d @@`, and a Codex patch starts with `*** Begin Patch`".into(),
            1,
            "not_a_patch",
        ));
    }
    Ok(files)
}

/// Whether a line is a hunk header without a unified diff's line ranges: `@@` alone, or
/// `@@ ` and text, as Codex patches and agents write them.
fn is_bare_hunk_header(line: &str) -> bool {
    let line = line.trim_end();
    let ranges = line.strip_prefix("@@ ").is_some_and(|rest| {
        rest.strip_prefix('-')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    });
    (line == "@@" || line.starts_with("@@ ")) && !ranges
}

/// PATCH_FAILED for a hunk header without line ranges: the patch does not say where the hunk
/// goes, and a unified diff is never placed by guessing.
fn bare_hunk_header(line: usize, path: Option<&str>) -> Error {
    let err = failed(
        format!(
            "line {line}: a hunk header without line ranges; a unified diff's hunk starts with `@@ -a,b +c,d @@` (the first line and the line count of the old and of the new text), so this patch is not applied; send the ranges, or send a Codex patch, which places hunks by their lines: `*** Begin Patch`, `*** Update File: PATH`, the hunks, `*** End Patch`"
        ),
        line,
        "bare_hunk_header",
    );
    match path {
        Some(path) => err.path(path),
        None => err,
    }
}

fn binary_section(r: &Reader, section: Option<&FilePatch>) -> Error {
    let path = section.map(|f| f.path().to_owned()).unwrap_or_default();
    Error::new(
        Code::BinaryContentRefused,
        format!(
            "line {}: the patch changes binary content{}; binary patches are not applied, and neither is any other part of a patch that holds one",
            r.number(),
            if path.is_empty() { String::new() } else { format!(" ({path})") }
        ),
    )
    .path(&path)
    .with("line", r.number())
    .with("reason", "binary_patch")
    .recovery("apply the text sections as a patch of their own, and write the binary file whole")
}

/// A `diff -u` section: `---`/`+++` names (`/dev/null` for a creation or deletion), then
/// hunks.
fn plain_section(
    r: &mut Reader,
    mut old_path: Option<String>,
    mut new_path: Option<String>,
) -> Result<FilePatch> {
    let line = r.number();
    // git's a/ and b/ prefixes (only when both sides use them, or one is /dev/null).
    let a = old_path.as_deref().is_none_or(|p| p.starts_with("a/"));
    let b = new_path.as_deref().is_none_or(|p| p.starts_with("b/"));
    if a && b {
        old_path = old_path.map(|p| p[2..].to_owned());
        new_path = new_path.map(|p| p[2..].to_owned());
    }
    if old_path.is_none() && new_path.is_none() {
        return Err(failed(
            format!("line {line}: both sides of a file header are /dev/null"),
            line,
            "bad_header",
        ));
    }
    let epochs = r.epochs();
    r.i += 2;
    let mut file = FilePatch::new(old_path, new_path, Action::Modify);
    read_hunks(r, &mut file)?;
    // `diff -N` dates a side that does not exist at the epoch. It is taken for absent only
    // where the hunks agree that it is empty: a real file may be dated so too (a build with
    // `SOURCE_DATE_EPOCH=0`), and then its hunks have lines on that side.
    if epochs.0 && file.new_path.is_some() && file.hunks.iter().all(|h| h.old_count == 0) {
        file.old_path = None;
    }
    if epochs.1 && file.old_path.is_some() && file.hunks.iter().all(|h| h.new_count == 0) {
        file.new_path = None;
    }
    file.action = match (&file.old_path, &file.new_path) {
        (None, _) => Action::Create,
        (_, None) => Action::Delete,
        _ => Action::Modify,
    };
    if file.hunks.is_empty() {
        return Err(failed(
            format!(
                "line {line}: the section of {} has file headers but no hunks",
                file.path()
            ),
            line,
            "no_hunks",
        )
        .path(file.path()));
    }
    Ok(file)
}

/// A `git diff` section: the `diff --git` line, git's extended headers (modes, renames,
/// copies, creation, deletion), then `---`/`+++` and hunks when the content changes.
fn git_section(r: &mut Reader, names: &str) -> Result<FilePatch> {
    let line = r.number();
    let mut names = GitNames {
        line: git_names(names).map_err(|why| bad_name(line, why))?,
        ..GitNames::default()
    };
    let mut file = FilePatch::new(None, None, Action::Modify);
    r.i += 1;
    let mut headers = false;
    while let Some(text) = r.peek() {
        // Each header that says what happens to the file (created, deleted, renamed, copied)
        // must agree with any before it: `copy from` then `rename to` is neither, and taking
        // the last would delete a file a copy keeps (`git apply` refuses it too).
        let said = [
            ("deleted file mode ", Action::Delete),
            ("new file mode ", Action::Create),
            ("rename from ", Action::Rename),
            ("rename to ", Action::Rename),
            ("copy from ", Action::Copy),
            ("copy to ", Action::Copy),
        ]
        .into_iter()
        .find(|(header, _)| text.starts_with(header));
        if let Some((_, action)) = said
            && file.action != Action::Modify
            && file.action != action
        {
            return Err(failed(
                format!(
                    "line {}: the section's headers disagree on what happens to the file ({} and {})",
                    r.number(),
                    file.action.word(),
                    action.word()
                ),
                r.number(),
                "inconsistent_headers",
            ));
        }
        let mode = |m: &str| parse_mode(m, r.number());
        if let Some(m) = text.strip_prefix("old mode ") {
            file.old_mode = Some(mode(m)?);
        } else if let Some(m) = text.strip_prefix("new mode ") {
            file.new_mode = Some(mode(m)?);
        } else if let Some(m) = text.strip_prefix("deleted file mode ") {
            file.action = Action::Delete;
            file.old_mode = Some(mode(m)?);
        } else if let Some(m) = text.strip_prefix("new file mode ") {
            file.action = Action::Create;
            file.new_mode = Some(mode(m)?);
        } else if let Some(p) = text.strip_prefix("rename from ") {
            file.action = Action::Rename;
            names.moved.0 = Some(git_name(p).map_err(|why| bad_name(r.number(), why))?);
        } else if let Some(p) = text.strip_prefix("rename to ") {
            file.action = Action::Rename;
            names.moved.1 = Some(git_name(p).map_err(|why| bad_name(r.number(), why))?);
        } else if let Some(p) = text.strip_prefix("copy from ") {
            file.action = Action::Copy;
            names.moved.0 = Some(git_name(p).map_err(|why| bad_name(r.number(), why))?);
        } else if let Some(p) = text.strip_prefix("copy to ") {
            file.action = Action::Copy;
            names.moved.1 = Some(git_name(p).map_err(|why| bad_name(r.number(), why))?);
        } else if let Some(ids) = text.strip_prefix("index ") {
            // A blob id that names one: hex, long enough to tell, and not git's all-zero id
            // of a side that does not exist.
            let named = |id: &str| {
                let id = id.to_ascii_lowercase();
                (id.len() >= 4
                    && id.bytes().all(|b| b.is_ascii_hexdigit())
                    && id.bytes().any(|b| b != b'0'))
                .then_some(id)
            };
            let ids = ids
                .split_whitespace()
                .next()
                .and_then(|ids| ids.split_once(".."));
            file.old_blob = ids.and_then(|(old, _)| named(old));
            file.new_blob = ids.and_then(|(_, new)| named(new));
        } else if text.starts_with("similarity index ") || text.starts_with("dissimilarity index ")
        {
        } else if is_binary_marker(text) {
            if let Ok(paths) = names.paths(line) {
                (file.old_path, file.new_path) = paths;
            }
            return Err(binary_section(r, Some(&file)));
        } else if let Some(dashes) = r.file_headers()? {
            names.dashes = Some(dashes);
            headers = true;
            r.i += 2;
            break;
        } else {
            break;
        }
        r.i += 1;
    }
    let moves = matches!(file.action, Action::Rename | Action::Copy);
    if moves && (names.moved.0.is_none() || names.moved.1.is_none()) {
        return Err(failed(
            format!("line {line}: a rename or copy needs both its from and its to line"),
            line,
            "bad_header",
        ));
    }
    (file.old_path, file.new_path) = names.paths(line)?;
    match file.action {
        Action::Create => file.old_path = None,
        Action::Delete => file.new_path = None,
        _ => {}
    }
    let path = file.path().to_owned();
    if file.old_path.is_none() && file.new_path.is_none() || path.is_empty() {
        return Err(failed(
            format!("line {line}: the diff --git line does not say which file it changes"),
            line,
            "bad_header",
        ));
    }
    for mode in [file.old_mode, file.new_mode].into_iter().flatten() {
        if mode == SYMLINK {
            return Err(Error::new(
                Code::SymlinkWriteRefused,
                format!("line {line}: the patch changes {path} as a symbolic link; links are never written, so no part of the patch is applied"),
            )
            .path(&path)
            .with("line", line)
            .with("reason", "symlink_patch"));
        }
        if mode == GITLINK {
            return Err(failed(
                format!("line {line}: the patch changes {path} as a submodule; submodules are not applied, so no part of the patch is"),
                line,
                "submodule_patch",
            )
            .path(&path));
        }
    }
    if headers {
        read_hunks(r, &mut file)?;
    }
    if file.hunks.is_empty() && file.action == Action::Modify && file.executable().is_none() {
        return Err(failed(
            format!("line {line}: the section of {path} changes nothing"),
            line,
            "empty_section",
        )
        .path(&path));
    }
    Ok(file)
}

fn parse_mode(text: &str, line: usize) -> Result<u32> {
    match u32::from_str_radix(text.trim(), 8) {
        Ok(mode @ (REGULAR | EXECUTABLE | SYMLINK | GITLINK)) => Ok(mode),
        _ => Err(failed(
            format!("line {line}: a file mode git does not write"),
            line,
            "bad_mode",
        )),
    }
}

/// Reads the hunks of a section, each by the counts its header declares. A line right after
/// a hunk that would continue it (a context, removed or added line) means the body is longer
/// than the header says: refused, since applying the declared part would drop the rest.
fn read_hunks(r: &mut Reader, file: &mut FilePatch) -> Result<()> {
    while let Some(line) = r.peek() {
        if is_bare_hunk_header(line) {
            return Err(bare_hunk_header(r.number(), Some(file.path())));
        }
        let Some(rest) = line.strip_prefix("@@ ") else {
            break;
        };
        let spec = rest.split(" @@").next().unwrap_or_default();
        let mut parts = spec.split_whitespace();
        let old = parts
            .next()
            .and_then(|p| p.strip_prefix('-'))
            .and_then(hunk_range);
        let new = parts
            .next()
            .and_then(|p| p.strip_prefix('+'))
            .and_then(hunk_range);
        let (Some((old_start, old_count)), Some((new_start, new_count))) = (old, new) else {
            return Err(failed(
                format!("line {}: a malformed hunk header", r.number()),
                r.number(),
                "bad_hunk_header",
            ));
        };
        let header_line = r.number();
        let mut hunk = Hunk {
            old_start,
            old_count,
            new_start,
            new_count,
            lines: Vec::new(),
            old_no_eol: false,
            new_no_eol: false,
            eols: Vec::new(),
            plain_marker: false,
        };
        let (mut seen_old, mut seen_new) = (0usize, 0usize);
        r.i += 1;
        while seen_old < old_count || seen_new < new_count {
            let Some(body) = r.peek() else { break };
            // A CR before the newline of a line that a `\ No newline` marker follows is the
            // line's own last character (`diff -u` of a file ending in a lone CR), unless the
            // marker line has one too: then the patch's every line was given a CR in transport.
            let body = match r.raw.get(r.i + 1) {
                Some(next) if next.starts_with('\\') && !next.ends_with('\r') => r.raw[r.i],
                _ => body,
            };
            let eol = r.terminator();
            match body.chars().next() {
                Some(' ') => {
                    hunk.lines.push(HunkLine::Context(body[1..].to_owned()));
                    seen_old += 1;
                    seen_new += 1;
                }
                // An empty line in a hunk is an empty context line whose space was stripped.
                None => {
                    hunk.lines.push(HunkLine::Context(String::new()));
                    seen_old += 1;
                    seen_new += 1;
                }
                Some('-') => {
                    hunk.lines.push(HunkLine::Remove(body[1..].to_owned()));
                    seen_old += 1;
                }
                Some('+') => {
                    hunk.lines.push(HunkLine::Add(body[1..].to_owned()));
                    seen_new += 1;
                }
                Some('\\') => {
                    mark_no_eol(&mut hunk);
                    hunk.plain_marker |= eol == Some("\n");
                }
                _ => break,
            }
            hunk.eols.resize(hunk.lines.len(), eol);
            r.i += 1;
        }
        let counts = |e: Error| {
            e.with("expected_old_lines", old_count)
                .with("expected_new_lines", new_count)
                .with("actual_old_lines", seen_old)
                .with("actual_new_lines", seen_new)
                .path(file.path())
        };
        if seen_old != old_count || seen_new != new_count {
            return Err(counts(failed(
                format!(
                    "line {header_line}: the hunk header declares {old_count} old and {new_count} new lines, but its body supplies {seen_old} old and {seen_new} new"
                ),
                header_line,
                "hunk_body_mismatch",
            )));
        }
        // A "\ No newline" marker may follow the last body line.
        while r.peek().is_some_and(|l| l.starts_with('\\')) {
            mark_no_eol(&mut hunk);
            hunk.plain_marker |= r.terminator() == Some("\n");
            r.i += 1;
        }
        if let Some(k) = misplaced_marker(&hunk) {
            return Err(counts(failed(
                format!(
                    "line {header_line}: the hunk marks its line {} `\\ No newline at end of file`, but more lines of the same side follow it; a marked line is the last of its side",
                    k + 1
                ),
                header_line,
                "misplaced_no_newline_marker",
            )));
        }
        // An empty line without a newline is no line at all: no diff writes one, and applied
        // it would leave the file a line shorter than the hunk says.
        let empty_marked = hunk.lines.iter().zip(&hunk.eols).position(|(line, eol)| {
            let (HunkLine::Context(text) | HunkLine::Remove(text) | HunkLine::Add(text)) = line;
            *eol == Some("") && text.is_empty()
        });
        if let Some(k) = empty_marked {
            return Err(counts(failed(
                format!(
                    "line {header_line}: the hunk marks its line {}, an empty line, `\\ No newline at end of file`; a file that ends without a newline ends with text, so no diff writes this",
                    k + 1
                ),
                header_line,
                "empty_unterminated_line",
            )));
        }
        let continues = r.peek().is_some_and(|l| {
            matches!(l.chars().next(), Some(' ' | '+' | '-'))
                && !r.at_signature()
                && !r.at_file_headers()
        });
        if continues {
            return Err(counts(failed(
                format!(
                    "line {}: the hunk at line {header_line} goes on past the {old_count} old and {new_count} new lines its header declares",
                    r.number()
                ),
                r.number(),
                "hunk_body_too_long",
            )));
        }
        file.hunks.push(hunk);
    }
    Ok(())
}

/// The first line (0-based) a `\ No newline` marker follows although more lines of its side
/// come after it: a context line is on both sides, so nothing may follow it; a removed line
/// may be followed only by added lines, an added line only by removed ones. GNU patch calls
/// such a hunk malformed; applying it would take a newline from a line that keeps one.
fn misplaced_marker(hunk: &Hunk) -> Option<usize> {
    hunk.lines.iter().enumerate().find_map(|(k, line)| {
        if hunk.eols.get(k) != Some(&Some("")) {
            return None;
        }
        let after = &hunk.lines[k + 1..];
        let misplaced = match line {
            HunkLine::Context(_) => !after.is_empty(),
            HunkLine::Remove(_) => after.iter().any(|l| !matches!(l, HunkLine::Add(_))),
            HunkLine::Add(_) => after.iter().any(|l| !matches!(l, HunkLine::Remove(_))),
        };
        misplaced.then_some(k)
    })
}

/// `\ No newline at end of file` applies to the line before it.
fn mark_no_eol(hunk: &mut Hunk) {
    if let Some(eol) = hunk.eols.get_mut(hunk.lines.len().wrapping_sub(1)) {
        *eol = Some("");
    }
    match hunk.lines.last() {
        Some(HunkLine::Add(_)) => hunk.new_no_eol = true,
        Some(HunkLine::Remove(_)) => hunk.old_no_eol = true,
        Some(HunkLine::Context(_)) => {
            hunk.old_no_eol = true;
            hunk.new_no_eol = true;
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_a_diff_header_writes_reads_back_as_itself() {
        let mut names: Vec<String> = (1u32..0x20)
            .chain([0x7f])
            .chain(0x80..0xa0)
            .chain([0x2028, 0x2029, 0xa0])
            .filter_map(char::from_u32)
            .map(|c| format!("x{c}y"))
            .collect();
        names.extend(
            [
                "q\"uote",
                "back\\slash",
                "trailing ",
                " leading",
                "in side",
                "é.txt",
                "tab\t",
            ]
            .map(String::from),
        );
        for name in names {
            let written = crate::diff::header_name(&format!("a/{name}"));
            assert!(!written.contains(['\n', '\r']), "{name:?}");
            assert_eq!(
                header_path(&written),
                Ok(Some(format!("a/{name}"))),
                "{name:?}"
            );
        }
    }

    #[test]
    fn unquote_reads_every_escape_git_writes_and_refuses_the_rest() {
        assert_eq!(
            unquote(r#"\a\b\f\n\r\t\v\\\"\303\251\000"#).unwrap(),
            "\u{7}\u{8}\u{c}\n\r\t\u{b}\\\"\u{e9}\0"
        );
        for bad in [r"x\q", r"x\1", r"x\47", r"\777", r"x\", r"\351", "a\"b"] {
            assert!(unquote(bad).is_err(), "{bad}");
        }
        assert_eq!(git_name(r#""a/n\rx""#).unwrap(), "a/n\rx");
        assert_eq!(git_name("plain name").unwrap(), "plain name");
        for bad in [r#""a/x"#, r#""a/x" y"#, "\""] {
            assert!(git_name(bad).is_err(), "{bad}");
        }
    }
}
