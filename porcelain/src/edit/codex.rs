//! Codex-style patches: the `*** Begin Patch` envelope that OpenAI's Codex models write for
//! their `apply_patch` tool. They name no line numbers, so every hunk is placed by its lines
//! alone, and only where they occur exactly once; see docs/editing.md "Codex-style patches"
//! for the grammar and for what is refused.
//!
//! A parsed patch becomes the same [`FilePatch`] sections a unified diff does (created,
//! deleted, modified and renamed files), so it goes through the same plan, transaction, undo
//! and reports; only the hunks differ, and [`apply`] places them.

use super::doc::{Doc, Line};
use super::patch::{Action, FilePatch, HunkReport, Reader, failed};
use crate::{Error, Result};

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// Whether `text` is a Codex patch: its first non-empty line is `*** Begin Patch`.
pub(crate) fn is_codex(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.trim() == BEGIN)
}

/// Why a text that did not parse as a unified diff is no Codex patch either, when it has
/// Codex directives: its `*** Begin Patch` is not its first non-empty line, or it has none.
/// `None` when the text has no Codex directive.
pub(crate) fn diagnose(text: &str) -> Option<Error> {
    let lines: Vec<&str> = text.lines().collect();
    let is_directive = |l: &&str| {
        let l = l.trim_end();
        l == BEGIN
            || l == END
            || [ADD, DELETE, UPDATE]
                .iter()
                .any(|d| l.starts_with(d.trim_end()))
    };
    let first = lines.iter().position(is_directive)? + 1;
    if let Some(begin) = lines.iter().position(|l| l.trim() == BEGIN) {
        let begin = begin + 1;
        return Some(failed(
            format!(
                "line {begin}: `*** Begin Patch` is not the first non-empty line; a Codex patch starts with it, with no text before it, and the text is not a unified diff either"
            ),
            begin,
            "codex_not_first",
        ));
    }
    let has_end = lines.iter().any(|l| l.trim_end() == END);
    let wrapped = if has_end {
        format!("{BEGIN}\n{text}")
    } else {
        format!("{BEGIN}\n{text}\n{END}\n")
    };
    let what = if parse(&wrapped).is_ok() {
        "a Codex patch without its `*** Begin Patch` line; it is otherwise well formed, but a patch is applied only as sent, so send it again starting with `*** Begin Patch` and ending with `*** End Patch`"
    } else {
        "Codex patch directives, but no `*** Begin Patch` line, and the text is not a unified diff; a Codex patch starts with `*** Begin Patch` and ends with `*** End Patch`"
    };
    Some(failed(
        format!("line {first}: {what}"),
        first,
        "codex_without_envelope",
    ))
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Body {
    Context(String),
    Remove(String),
    Add(String),
}

/// One hunk of an `*** Update File` section (or the content of an `*** Add File`).
#[derive(Clone, Debug)]
pub(crate) struct Chunk {
    /// The patch line the hunk starts on: its `@@` line, or its first line when the section's
    /// first hunk has none.
    line: usize,
    /// The `@@ TEXT` lines before the hunk, in order, each with its patch line: the hunk lies
    /// after a line equal to the first, then one equal to the second, and so on.
    anchors: Vec<(usize, String)>,
    lines: Vec<Body>,
    /// The patch line of each body line, for messages.
    numbers: Vec<usize>,
    /// `*** End of File`: the hunk's old lines end the file.
    end_of_file: bool,
    /// For each added line, whether it ended with CR in the patch.
    add_crs: Vec<bool>,
    /// How many of the last body lines were empty patch lines (not even a space): those
    /// separate the hunk from what follows, and are dropped when it ends.
    trailing_empty: usize,
}

impl Chunk {
    fn new(line: usize) -> Chunk {
        Chunk {
            line,
            anchors: Vec::new(),
            lines: Vec::new(),
            numbers: Vec::new(),
            end_of_file: false,
            add_crs: Vec::new(),
            trailing_empty: 0,
        }
    }

    /// The lines the file must hold where the hunk goes: context and removed lines.
    fn old(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                Body::Context(t) | Body::Remove(t) => Some(t.as_str()),
                Body::Add(_) => None,
            })
            .collect()
    }

    fn new_count(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| !matches!(l, Body::Remove(_)))
            .count()
    }

    fn changes(&self) -> bool {
        self.lines.iter().any(|l| !matches!(l, Body::Context(_)))
    }
}

/// The Codex grammar's own questions of the patch reader that unified diffs use.
impl Reader<'_> {
    fn has_cr(&self) -> bool {
        self.raw.get(self.i).is_some_and(|l| l.ends_with('\r'))
    }

    /// Whether only empty lines lie between the cursor and the next `***` line (or the end).
    fn blank_until_directive(&self) -> bool {
        let mut i = self.i;
        while let Some(line) = self.at(i) {
            if !line.trim().is_empty() {
                return line.starts_with("***");
            }
            i += 1;
        }
        true
    }
}

/// The rest of `text` after the directive `name` (such as `*** Add File: `), whose space may
/// be missing when nothing follows it.
fn directive<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(name.trim_end())?;
    (rest.is_empty() || rest.starts_with(' ')).then_some(rest)
}

/// The path after a file directive, or PATCH_FAILED when it is empty.
fn path_of(rest: &str, line: usize, directive: &str) -> Result<String> {
    let path = rest.trim();
    if path.is_empty() {
        return Err(failed(
            format!("line {line}: `{directive}` names no file"),
            line,
            "missing_path",
        ));
    }
    Ok(path.to_owned())
}

/// What a line that starts with `***` is not allowed to be where it is.
fn misplaced(r: &Reader, text: &str) -> Error {
    let line = r.number();
    let (what, reason) = if text == BEGIN {
        ("a second `*** Begin Patch`", "misplaced_directive")
    } else if directive(text, MOVE).is_some() {
        (
            "`*** Move to:` that does not come right after its `*** Update File:` line",
            "misplaced_directive",
        )
    } else if text == END_OF_FILE {
        (
            "`*** End of File` that does not end a hunk of an `*** Update File` section",
            "misplaced_directive",
        )
    } else {
        (
            "a `***` line that is no directive of a Codex patch",
            "unknown_directive",
        )
    };
    failed(
        format!(
            "line {line}: {what}; expected `*** Add File: PATH`, `*** Delete File: PATH`, `*** Update File: PATH` or `*** End Patch`"
        ),
        line,
        reason,
    )
}

/// Parses a Codex patch (the caller has checked [`is_codex`]). Everything between
/// `*** Begin Patch` and `*** End Patch` must belong to the grammar; anything else, and a
/// missing `*** End Patch`, is PATCH_FAILED naming the line and what was expected. Patch text
/// is never echoed into an error.
pub(crate) fn parse(text: &str) -> Result<Vec<FilePatch>> {
    let mut r = Reader::new(text);
    while r.peek().is_some_and(|l| l.trim().is_empty()) {
        r.i += 1;
    }
    let begin = r.number();
    r.i += 1;
    let mut files = Vec::new();
    loop {
        let Some(line) = r.peek() else {
            return Err(failed(
                format!(
                    "line {}: the patch ends without `*** End Patch`; a Codex patch must end with it, so that one cut short is never applied in part",
                    r.number()
                ),
                r.number(),
                "missing_end",
            ));
        };
        let text = line.trim_end();
        if text == END {
            r.i += 1;
            break;
        }
        if text.is_empty() {
            r.i += 1;
        } else if let Some(rest) = directive(text, ADD) {
            files.push(add_section(&mut r, rest)?);
        } else if let Some(rest) = directive(text, DELETE) {
            let line = r.number();
            let path = path_of(rest, line, "*** Delete File:")?;
            files.push(FilePatch::from_codex(
                line,
                Some(path),
                None,
                Action::Delete,
                Vec::new(),
            ));
            r.i += 1;
        } else if let Some(rest) = directive(text, UPDATE) {
            files.push(update_section(&mut r, rest)?);
        } else if text.starts_with("***") {
            return Err(misplaced(&r, text));
        } else {
            let line = r.number();
            let what = if text.starts_with("@@") {
                "a hunk outside an `*** Update File` section"
            } else {
                "a line that belongs to no section"
            };
            return Err(failed(
                format!(
                    "line {line}: {what}; expected `*** Add File: PATH`, `*** Delete File: PATH`, `*** Update File: PATH` or `*** End Patch`"
                ),
                line,
                "unexpected_line",
            ));
        }
    }
    while let Some(line) = r.peek() {
        if !line.trim().is_empty() {
            return Err(failed(
                format!(
                    "line {}: text after `*** End Patch`; nothing may follow it, so no part of a patch is left out",
                    r.number()
                ),
                r.number(),
                "text_after_end",
            ));
        }
        r.i += 1;
    }
    if files.is_empty() {
        return Err(failed(
            format!(
                "line {begin}: the Codex patch has no `*** Add File`, `*** Delete File` or `*** Update File` section"
            ),
            begin,
            "empty_patch",
        ));
    }
    Ok(files)
}

/// `*** Add File: PATH` and its lines, each `+` and the line. An empty line cannot be told
/// from a separator, so it is refused unless only directives follow.
fn add_section(r: &mut Reader, rest: &str) -> Result<FilePatch> {
    let line = r.number();
    let path = path_of(rest, line, "*** Add File:")?;
    r.i += 1;
    let mut chunk = Chunk::new(line);
    while let Some(text) = r.peek() {
        if let Some(added) = text.strip_prefix('+') {
            chunk.lines.push(Body::Add(added.to_owned()));
            chunk.numbers.push(r.number());
            chunk.add_crs.push(r.has_cr());
        } else if text.starts_with("***") || text.is_empty() && r.blank_until_directive() {
            break;
        } else {
            return Err(failed(
                format!(
                    "line {}: every line of an `*** Add File` section starts with `+` (an empty line of the new file is a `+` alone)",
                    r.number()
                ),
                r.number(),
                "unexpected_line",
            )
            .path(&path));
        }
        r.i += 1;
    }
    // A file added without lines is created empty; it then has no hunk to report.
    let chunks = if chunk.lines.is_empty() {
        Vec::new()
    } else {
        vec![chunk]
    };
    Ok(FilePatch::from_codex(
        line,
        None,
        Some(path),
        Action::Create,
        chunks,
    ))
}

/// Whether an `@@` line's text is a unified diff's line ranges (`-1,3 +1,4 @@`), which a
/// Codex hunk does not have.
fn unified_ranges(text: &str) -> bool {
    let mut parts = text.split_whitespace();
    let range = |p: Option<&str>, sign: char| {
        p.and_then(|p| p.strip_prefix(sign)).is_some_and(|p| {
            !p.is_empty()
                && p.split(',')
                    .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    range(parts.next(), '-') && range(parts.next(), '+')
}

/// `*** Update File: PATH`, an optional `*** Move to: PATH`, then hunks: `@@` or `@@ TEXT`
/// lines (several in a row stack their anchors), body lines that start with ` `, `-` or `+`
/// (an empty line is an empty context line), and `*** End of File` after a hunk's last line.
/// The first hunk may start without `@@`. Empty lines at the end of a hunk are separators.
fn update_section(r: &mut Reader, rest: &str) -> Result<FilePatch> {
    let line = r.number();
    let path = path_of(rest, line, "*** Update File:")?;
    r.i += 1;
    let mut moved = None;
    if let Some(to) = r.peek().and_then(|l| directive(l.trim_end(), MOVE)) {
        let to = path_of(to, r.number(), "*** Move to:")?;
        if to == path {
            return Err(failed(
                format!(
                    "line {}: `*** Move to:` names the file being updated",
                    r.number()
                ),
                r.number(),
                "move_onto_itself",
            )
            .path(&path));
        }
        moved = Some(to);
        r.i += 1;
    }
    let mut chunks: Vec<Chunk> = Vec::new();
    // The hunk being read; `closed` once `*** End of File` ended it.
    let mut current: Option<Chunk> = None;
    let mut closed = false;
    // A patch line that is empty, not even a space, is a separator where a hunk could not go
    // on (before the first, after the last line of one) and an empty context line elsewhere.
    // A line that is a single space is context wherever it is.
    let finish = |chunk: Option<Chunk>, chunks: &mut Vec<Chunk>| -> Result<()> {
        let Some(mut chunk) = chunk else {
            return Ok(());
        };
        let kept = chunk.lines.len() - chunk.trailing_empty;
        chunk.lines.truncate(kept);
        chunk.numbers.truncate(kept);
        if chunk.lines.is_empty() {
            return Err(failed(
                format!(
                    "line {}: a hunk without lines; after `@@` come lines that start with ` ` (context), `-` (removed) or `+` (added)",
                    chunk.line
                ),
                chunk.line,
                "empty_hunk",
            ));
        }
        chunks.push(chunk);
        Ok(())
    };
    while let Some(text) = r.peek() {
        let n = r.number();
        if text.starts_with("***") {
            if text.trim_end() != END_OF_FILE {
                break;
            }
            match current.as_mut() {
                Some(c)
                    if !closed && c.lines.iter().any(|l| *l != Body::Context(String::new())) =>
                {
                    c.end_of_file = true;
                    closed = true;
                }
                _ => return Err(misplaced(r, END_OF_FILE)),
            }
            r.i += 1;
            continue;
        }
        if let Some(header) = text.strip_prefix("@@") {
            let header = header.trim_end();
            let anchor = if header.is_empty() {
                None
            } else if let Some(anchor) = header.strip_prefix(' ') {
                if unified_ranges(anchor) {
                    return Err(failed(
                        format!(
                            "line {n}: a unified diff's hunk header in a Codex patch; a Codex hunk starts with `@@` alone or `@@ ` and a line of the file that comes before it, never line numbers"
                        ),
                        n,
                        "unified_header_in_codex_patch",
                    )
                    .path(&path));
                }
                Some(anchor.to_owned())
            } else {
                return Err(failed(
                    format!(
                        "line {n}: a hunk header is `@@` alone or `@@ ` and a line of the file"
                    ),
                    n,
                    "bad_hunk_header",
                )
                .path(&path));
            };
            // A header right after another (nothing but empty lines between) adds its anchor
            // to the same hunk: `@@ class A` then `@@ def f():` looks for f after A.
            let stacks = !closed
                && current
                    .as_ref()
                    .is_some_and(|c| c.lines.iter().all(|l| *l == Body::Context(String::new())));
            if stacks {
                let c = current.as_mut().expect("checked above");
                c.lines.clear();
                c.numbers.clear();
                c.trailing_empty = 0;
                c.anchors.extend(anchor.map(|a| (n, a)));
            } else {
                finish(current.take(), &mut chunks)?;
                let mut c = Chunk::new(n);
                c.anchors.extend(anchor.map(|a| (n, a)));
                current = Some(c);
                closed = false;
            }
            r.i += 1;
            continue;
        }
        let body = match text.chars().next() {
            None => Body::Context(String::new()),
            Some(' ') => Body::Context(text[1..].to_owned()),
            Some('-') => Body::Remove(text[1..].to_owned()),
            Some('+') => Body::Add(text[1..].to_owned()),
            Some(_) => {
                return Err(failed(
                    format!(
                        "line {n}: a line of an `*** Update File` hunk starts with ` ` (context), `-` (removed) or `+` (added), a hunk with `@@`, and a section with `***`"
                    ),
                    n,
                    "unexpected_line",
                )
                .path(&path));
            }
        };
        let empty = text.is_empty();
        if current.is_none() && chunks.is_empty() && empty {
            // Empty lines before the section's first hunk separate it from its header.
            r.i += 1;
            continue;
        }
        if closed || (current.is_none() && !chunks.is_empty()) {
            // After `*** End of File` no context can follow: a line of spaces there can only
            // be a separator.
            if text.trim().is_empty() {
                r.i += 1;
                continue;
            }
            return Err(failed(
                format!(
                    "line {n}: a hunk line after `*** End of File`; a new hunk starts with `@@`"
                ),
                n,
                "unexpected_line",
            )
            .path(&path));
        }
        let c = current.get_or_insert_with(|| Chunk::new(n));
        if let Body::Add(_) = body {
            c.add_crs.push(r.has_cr());
        }
        c.lines.push(body);
        c.numbers.push(n);
        c.trailing_empty = if empty { c.trailing_empty + 1 } else { 0 };
        r.i += 1;
    }
    finish(current, &mut chunks)?;
    if moved.is_none() && !chunks.iter().any(Chunk::changes) {
        return Err(failed(
            format!("line {line}: the section of {path} changes nothing"),
            line,
            "empty_section",
        )
        .path(&path));
    }
    Ok(match moved {
        Some(to) => FilePatch::from_codex(line, Some(path), Some(to), Action::Rename, chunks),
        None => FilePatch::from_codex(line, Some(path.clone()), Some(path), Action::Modify, chunks),
    })
}

/// What applying a section's hunks to a file gave.
pub(crate) struct Applied {
    /// Whether every hunk found its one place.
    pub ok: bool,
    pub reports: Vec<HunkReport>,
    /// One per hunk matched only with trailing whitespace ignored.
    pub warnings: Vec<String>,
    /// Why the first hunk that did not apply failed: PATCH_FAILED with the patch line and,
    /// for an ambiguous hunk, the lines it matches.
    pub problem: Option<Error>,
}

/// How two lines are compared: exactly, then (only when nothing matches exactly) with
/// trailing whitespace ignored on both sides.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Exact,
    TrailingWhitespace,
}

impl Stage {
    fn eq(self, file: &str, patch: &str) -> bool {
        match self {
            Stage::Exact => file == patch,
            Stage::TrailingWhitespace => file.trim_end() == patch.trim_end(),
        }
    }
}

/// An anchor names a line by its text: leading and trailing whitespace are not compared, as
/// the line is usually indented in the file and written without indentation after `@@`.
fn is_anchor(line: &str, anchor: &str) -> bool {
    line.trim() == anchor.trim()
}

/// The line each anchor names on the way from `cursor`: the first line equal to the first
/// anchor (from `cursor` on), then the first line after it equal to the next, and so on.
/// `Err` names the first anchor (its patch line) that is missing.
fn route(
    old: &[Line],
    anchors: &[(usize, String)],
    cursor: usize,
) -> std::result::Result<Vec<usize>, usize> {
    let mut from = cursor;
    let mut lines = Vec::with_capacity(anchors.len());
    for (line, anchor) in anchors {
        let at = (from..old.len())
            .find(|&i| is_anchor(&old[i].text, anchor))
            .ok_or(*line)?;
        lines.push(at);
        from = at + 1;
    }
    Ok(lines)
}

/// Where the search for a hunk of `m` old lines starts: so that its lines still hold its last
/// anchor's line on its route from `cursor` (a hunk's context often repeats its anchors and
/// the lines above them), never before `cursor`; `cursor` without anchors.
fn start_of(route: &[usize], cursor: usize, m: usize) -> usize {
    route.last().map_or(cursor, |&line| {
        (line + 1).saturating_sub(m.max(1)).max(cursor)
    })
}

/// Where the part of the file that starts at line `at` ends (0-based, exclusive): at the
/// first later line indented no deeper than it, leaving out blank lines, lines of punctuation
/// alone (a `{` under `fn f()`, the `}` that closes it, a `):` that closes a signature) and
/// comment and preprocessor lines (`#`, `//`, `/*`, `*`), which may sit at column 0 inside a
/// function; the end of the file when there is none. `None` when the line opens no indented
/// block (its next such line is not deeper: a Markdown heading, a namespace whose contents
/// are not indented), so that where its part ends is not known.
fn part_end(old: &[Line], at: usize) -> Option<usize> {
    let width = |t: &str| t.len() - t.trim_start().len();
    let w = width(&old[at].text);
    let mut opened = false;
    for (i, line) in old.iter().enumerate().skip(at + 1) {
        let t = line.text.trim();
        let aside = t.is_empty()
            || t.chars().all(|c| c.is_ascii_punctuation())
            || ["#", "//", "/*", "*"].iter().any(|p| t.starts_with(p));
        if aside {
            continue;
        }
        if width(&line.text) > w {
            opened = true;
        } else {
            return opened.then_some(i);
        }
    }
    opened.then_some(old.len())
}

/// What the hunks before one left for it: the lines the previous hunk's anchors named that its
/// first anchors name too, the lines they added, the old lines they took (0-based, end
/// exclusive), and where the previous hunk's unchanged last lines start.
#[derive(Clone, Copy)]
struct Before<'a> {
    inherited: &'a [usize],
    written: &'a [String],
    taken: &'a [(usize, usize)],
    /// The first of the previous hunk's last context lines (the cursor when it ended with
    /// changed lines).
    kept: usize,
    /// Where the hunks so far changed the old lines ([`edit_points`]).
    changed: &'a [usize],
}

/// Where a hunk can go: every place (0-based starts, sorted), and the routes its anchors take
/// to reach them, to be the previous hunk's for the next one.
struct Places {
    at: Vec<usize>,
    /// The places its anchors reach in each part the previous hunk may have been in, and
    /// their lines.
    within: Vec<(Vec<usize>, Vec<usize>)>,
    /// Their lines on the route from the cursor, for every other place.
    full: Vec<usize>,
    /// Where the search on that route starts.
    full_start: usize,
    /// The first line a place may start at without overlapping the previous hunk.
    lo: usize,
}

impl Places {
    /// The lines the anchors name for the place `at`: the route from the cursor when the
    /// hunk holds or follows its last line (a hunk whose context runs into the next `def f`
    /// names that one, for the hunk after it), else the route in the previous hunk's part
    /// when the place is one found there.
    fn anchor_lines(&self, at: usize) -> Vec<usize> {
        if !self.full.is_empty() && at >= self.full_start {
            return self.full.clone();
        }
        let found = self.within.iter().find(|(places, _)| places.contains(&at));
        found.map_or_else(|| self.full.clone(), |(_, lines)| lines.clone())
    }
}

/// Every place a hunk's old lines can go: where they occur at or after the anchored start
/// (at the end of the file for `*** End of File`), which may be in the previous hunk's last
/// context lines (`kept`) when the hunk's first lines are context too. A hunk that only adds lines goes right
/// after its last anchor's line, so it has a place after each line equal to that anchor
/// (from the line the anchors before it lead to), or at the end of the file, or, with
/// neither, at every line. The hunk applies when there is exactly one.
///
/// A hunk whose outermost anchor also names a line before `cursor` may be in the part of the
/// file the previous hunk was in (two hunks in one function or class, each naming it, as
/// models write them), between the cursor and where its anchors lead from the cursor: its
/// lines found there count as places too, beside those its anchors lead to, so that the two
/// together are ambiguous (taking the later alone put a second hunk of `def f():` in a later
/// `def f():`, with `ok`). Lines found only there are taken when the part the previous hunk
/// was in holds them after the hunk's other anchors (`within`): the part of the last anchor
/// the previous hunk named too (`inherited`, the lines it found them at) when the previous
/// hunk is in it, or of the anchors' last lines before the cursor whose parts hold it
/// (`enclosing`), or of a shorter run of them, ending where the indentation says
/// (`part_end`). Otherwise they are
/// refused: the patch does not say that the earlier part reaches them, and a hunk naming a
/// part wholly before the previous one is out of order. The part only ever lets lines be
/// taken that occur once after the cursor, so a part cut short by a line at column 0 hides
/// no other place. A hunk that only adds lines right after an anchor line behind the cursor
/// is ambiguous: that place cannot be taken, and the next such line is a guess at another
/// part. And lines that also occur whole before the cursor, in lines no earlier hunk took,
/// are another place: the order of the hunks alone never picks one.
fn places(
    old: &[Line],
    chunk: &Chunk,
    want: &[&str],
    cursor: usize,
    stage: Stage,
    before: &Before,
) -> Places {
    let Before {
        inherited,
        written,
        taken,
        kept,
        changed,
    } = *before;
    let n = old.len();
    let m = want.len();
    // Anchors may name the previous hunk's last context lines, where a hunk with old lines
    // may start too (below); lines added after such a line would go inside them.
    let anchored = if m == 0 { cursor } else { kept };
    let full = route(old, &chunk.anchors, anchored);
    // The outermost anchor's last line before that: the part of the file it starts may
    // still run on past the previous hunk.
    let earlier = chunk.anchors.first().and_then(|(_, first)| {
        (0..anchored.min(n))
            .rev()
            .find(|&i| is_anchor(&old[i].text, first))
    });
    // Or it names a line an earlier hunk wrote (a signature it changed): that line too is
    // behind the cursor, and the next one after it a guess at another part.
    let behind = earlier.is_some()
        || chunk
            .anchors
            .first()
            .is_some_and(|(_, first)| written.iter().any(|line| is_anchor(line, first)));
    let reaches = |line: usize| part_end(old, line).is_some_and(|end| end >= cursor);
    // Or the anchors' last lines before the cursor whose parts hold it, each in the one
    // before (`def g():`, then `def helper():` around a hunk in `helper`), as far as they go.
    let enclosing = || {
        let mut lines = Vec::new();
        for (_, anchor) in &chunk.anchors {
            let from = lines.last().map_or(0, |&line| line + 1);
            let found = (from..cursor.min(n))
                .rev()
                .find(|&i| is_anchor(&old[i].text, anchor) && reaches(i));
            let Some(line) = found else { break };
            lines.push(line);
        }
        lines
    };
    let add_only = m == 0 && !chunk.end_of_file && !chunk.anchors.is_empty();
    // A hunk may start in the previous hunk's last context lines when its own first lines are
    // context too (two nearby changes, each sent with its context): those lines are shared.
    let lead = chunk
        .lines
        .iter()
        .take_while(|line| matches!(line, Body::Context(_)))
        .count();
    let lo = match m {
        0 => cursor,
        _ => kept.max(cursor.saturating_sub(lead)),
    };
    let last = chunk.anchors.last().map(|(_, a)| a.as_str()).unwrap_or("");
    let fits = |at: usize| {
        at + m <= n
            && want
                .iter()
                .enumerate()
                .all(|(k, w)| stage.eq(&old[at + k].text, w))
    };
    // The places from line `from` that end by line `to`.
    let candidates = |from: usize, to: usize| -> Vec<usize> {
        if add_only {
            (from..to)
                .filter(|&i| is_anchor(&old[i].text, last))
                .map(|i| i + 1)
                .collect()
        } else if chunk.end_of_file {
            n.checked_sub(m)
                .filter(|&at| at >= from && at + m <= to && fits(at))
                .into_iter()
                .collect()
        } else if from + m > to {
            Vec::new()
        } else {
            (from..=to - m).filter(|&at| fits(at)).collect()
        }
    };
    // The parts the previous hunk may have been in, each as the lines of the anchors that
    // name it: the previous hunk's own, and the anchors' lines around the cursor, with each
    // shorter run of them (the `steps:` around the previous hunk may not be the one meant).
    let around = enclosing();
    let inherited = Some(inherited).filter(|lines| lines.last().is_some_and(|&l| reaches(l)));
    let chains = inherited
        .into_iter()
        .chain((1..=around.len()).rev().map(|k| &around[..k]));
    // In each, the places after the other anchors, which may start in the previous hunk's
    // last context lines (its context ran into `def g`, and this hunk names `def g`), or
    // after the cursor when all are shared (their lines are behind it). A hunk that starts in
    // the part may run past its end: its context may reach the next method's `def` line.
    let within: Vec<(Vec<usize>, Vec<usize>)> = chains
        .filter_map(|shared| {
            let l = *shared.last()?;
            let end = part_end(old, l).filter(|&end| cursor <= end)?;
            let from = kept.max(l + 1).min(cursor);
            let own = route(&old[..end], &chunk.anchors[shared.len()..], from).ok()?;
            let lines = [shared, &own[..]].concat();
            let from = match own.is_empty() {
                true => lo,
                false => start_of(&lines, lo, m),
            };
            let at = match add_only {
                true => candidates(from, end),
                false => candidates(from, n)
                    .into_iter()
                    .filter(|&at| at < end)
                    .collect(),
            };
            Some((at, lines))
        })
        .collect();
    let mut at = match (&full, behind) {
        (Ok(lines), false) => candidates(start_of(lines, lo, m), n),
        (Err(_), false) => Vec::new(),
        (full, true) => {
            let all = candidates(lo, n);
            let start = full.as_ref().map_or(n + 1, |lines| start_of(lines, lo, m));
            let gap = all.iter().filter(|&&at| at < start);
            let beyond = all.iter().any(|&at| at >= start);
            let supported = gap
                .clone()
                .any(|at| within.iter().any(|(places, _)| places.contains(at)));
            if gap.count() == 0 || beyond || supported {
                all
            } else {
                Vec::new()
            }
        }
    };
    if (m > 0 || add_only) && !chunk.end_of_file {
        // Places before the cursor (after where its anchors lead from the file's start) count
        // too, listed so that the hunk is refused, never moved to a later copy of its lines:
        // - lines that start in the previous hunk's last context lines, or run past its end,
        //   and change or add among its lines: the two hunks overlap, and no place takes both
        //   (two nearby changes, each sent with context from the original file);
        // - when a place after the cursor was found, its lines whole in lines no earlier hunk
        //   took: only the order of the hunks says that place is not the one meant, and a
        //   hunk sent out of order was applied at a later copy of its lines with `ok`.
        // A copy an earlier hunk took whole is no place (both copies changed, in order).
        if let Ok(first) = route(old, &chunk.anchors, 0) {
            let free = |p: usize| !taken.iter().any(|&(s, e)| s < p + m && p < e);
            // In lines an earlier hunk took, changing other lines than it did (a copy it took
            // with the same change is no place: both copies changed, in order).
            let clash =
                |p: usize| !free(p) && !edit_points(chunk, p).iter().any(|x| changed.contains(x));
            let overlap = |p: usize| m > 0 && (p >= kept || p + m > cursor) || clash(p);
            let found = !at.is_empty();
            let copies = candidates(start_of(&first, 0, m), n).into_iter();
            let copies = copies.filter(|&p| p < lo && (overlap(p) || found && free(p)));
            at = copies.chain(at).collect();
        }
    }
    if add_only && behind && !at.is_empty() {
        // Lines added right after an anchor line whose part may be the previous hunk's: that
        // place is behind the cursor and cannot be taken, and the next one would be a guess
        // at another part, so both are listed and the hunk is ambiguous (never applied at the
        // one behind: a hunk applies only where it has exactly one place). A line before the
        // outermost anchor's last line is in another part: no place of this hunk.
        if let Some(line) = (0..cursor.min(n))
            .rev()
            .find(|&i| is_anchor(&old[i].text, last))
            .filter(|&line| earlier.is_none_or(|outer| line >= outer))
        {
            at.insert(0, line + 1);
        }
    }
    at.sort_unstable();
    at.dedup();
    Places {
        at,
        within,
        full_start: full.as_ref().map_or(n + 1, |lines| start_of(lines, lo, m)),
        lo,
        full: full.unwrap_or_default(),
    }
}

/// Applies an `*** Add File` or `*** Update File` section's hunks to `doc` (parsed with its
/// BOM apart, lines cut at `\n`). On any failed or ambiguous hunk the report says so, the
/// problem says why, and `doc` is left as it was.
pub(crate) fn apply(file: &FilePatch, path: &str, doc: &mut Doc) -> Applied {
    // New lines take the file's convention. A file with no terminator yet has none, so it
    // takes the patch's: CRLF when every added line carried a CR, LF when none did, and each
    // added line's own when they differ (`own_ends`), as the patch writes them.
    let has_eol = doc.lines.iter().any(|l| !l.eol.is_empty());
    let crs = || file.chunks.iter().flat_map(|c| c.add_crs.iter().copied());
    let (eol, own_ends) = match (has_eol, crs().all(|cr| cr), crs().any(|cr| cr)) {
        (true, ..) => (doc.eol(), false),
        (false, _, false) => ("\n", false),
        (false, true, true) => ("\r\n", false),
        (false, false, true) => ("\n", true),
    };
    // The patch cannot say whether the file ends with a newline, so the file keeps its state.
    let unterminated = doc.lines.last().is_some_and(|l| l.eol.is_empty());
    let old = std::mem::take(&mut doc.lines);
    let mut out: Vec<Line> = Vec::with_capacity(old.len());
    let mut cursor = 0usize;
    let mut delta = 0i64;
    // The lines the previous hunk's anchors named, and the lines the hunks so far added.
    let mut previous: Option<Vec<usize>> = None;
    let mut written: Vec<String> = Vec::new();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut changed: Vec<usize> = Vec::new();
    let mut kept = 0usize;
    let mut result = Applied {
        ok: true,
        reports: Vec::new(),
        warnings: Vec::new(),
        problem: None,
    };
    for (k, chunk) in file.chunks.iter().enumerate() {
        let want = chunk.old();
        let (m, new_count) = (want.len(), chunk.new_count());
        let mut report = HunkReport {
            hunk: k + 1,
            old_start: 0,
            old_lines: m,
            new_start: 0,
            new_lines: new_count,
            status: "applies",
            offset: 0,
            // A Codex hunk that does not apply says so in PATCH_FAILED's own details
            // (`matches`, `line`); the unified-diff comparison does not fit its placement.
            mismatch: None,
            refusal: None,
        };
        let mut stage = Stage::Exact;
        // The lines its first anchors name, where they are the previous hunk's.
        let inherited: &[usize] = match (k, &previous) {
            (0, _) | (_, None) => &[],
            (_, Some(lines)) => {
                let shared = chunk
                    .anchors
                    .iter()
                    .zip(&file.chunks[k - 1].anchors)
                    .take_while(|((_, a), (_, b))| a.trim() == b.trim())
                    .count();
                &lines[..shared.min(lines.len())]
            }
        };
        let before = Before {
            inherited,
            written: &written,
            taken: &taken,
            kept,
            changed: &changed,
        };
        let mut found = places(&old, chunk, &want, cursor, stage, &before);
        if found.at.is_empty() {
            stage = Stage::TrailingWhitespace;
            found = places(&old, chunk, &want, cursor, stage, &before);
        }
        let at = match found.at.as_slice() {
            [one] if *one < found.lo => {
                // Lines that match later with trailing whitespace ignored are another reading.
                let loose = places(
                    &old,
                    chunk,
                    &want,
                    cursor,
                    Stage::TrailingWhitespace,
                    &before,
                );
                let problem = match loose.at.iter().any(|&at| at >= found.lo) {
                    true => {
                        report.status = "ambiguous";
                        ambiguous(path, chunk, m, &loose.at)
                    }
                    false => {
                        report.status = "failed";
                        overlaps(path, chunk, *one, cursor)
                    }
                };
                result.fail(report, problem);
                previous = None;
                continue;
            }
            [one] => *one,
            [] => {
                report.status = "failed";
                result.fail(
                    report,
                    not_found(path, chunk, &old, &want, cursor, inherited),
                );
                previous = None;
                continue;
            }
            [..] => {
                report.status = "ambiguous";
                result.fail(report, ambiguous(path, chunk, m, &found.at));
                previous = None;
                continue;
            }
        };
        previous = Some(found.anchor_lines(at));
        taken.push((at, at + m));
        changed.extend(edit_points(chunk, at));
        written.extend(chunk.lines.iter().filter_map(|line| match line {
            Body::Add(text) => Some(text.to_string()),
            _ => None,
        }));
        if !result.ok {
            // A hunk after a failed one is still placed, for its report, but nothing is built.
            report.old_start = if m == 0 { at } else { at + 1 };
            result.reports.push(report);
            cursor = at + m;
            kept = cursor - trailing_context(chunk);
            continue;
        }
        if stage == Stage::TrailingWhitespace {
            result.warnings.push(format!(
                "hunk {} of {path} matched lines {}-{} only with trailing whitespace ignored; the file's context lines were kept as they are",
                k + 1,
                at + 1,
                at + m
            ));
        }
        // A hunk that starts in the previous hunk's last context lines (its own first lines
        // are context there) finds them written already.
        let shared = cursor.saturating_sub(at);
        out.extend_from_slice(&old[cursor.min(at)..at]);
        let mut j = at + shared;
        let mut crs = chunk.add_crs.iter();
        for line in chunk.lines.iter().skip(shared) {
            match line {
                Body::Context(_) => {
                    out.push(old[j].clone());
                    j += 1;
                }
                Body::Remove(_) => j += 1,
                Body::Add(text) => {
                    let cr = crs.next().copied().unwrap_or(false);
                    out.push(Line {
                        text: text.clone().into(),
                        eol: match (own_ends, cr) {
                            (true, true) => "\r\n",
                            (true, false) => "\n",
                            (false, _) => eol,
                        },
                    });
                }
            }
        }
        let new_at = (at as i64 + delta) as usize;
        report.old_start = if m == 0 { at } else { at + 1 };
        report.new_start = if new_count == 0 { new_at } else { new_at + 1 };
        delta += new_count as i64 - m as i64;
        cursor = j;
        kept = cursor - trailing_context(chunk);
        result.reports.push(report);
    }
    if !result.ok {
        doc.lines = old;
        return result;
    }
    out.extend_from_slice(&old[cursor..]);
    // Every line but the last has a terminator (an old last line may no longer be last);
    // the last has one exactly when the file's last line had one.
    let last = out.len().saturating_sub(1);
    for (i, line) in out.iter_mut().enumerate() {
        if i < last && line.eol.is_empty() {
            line.eol = eol;
        }
    }
    // An empty last line cannot go without a newline (it would vanish), so it keeps one.
    if let Some(line) = out.last_mut() {
        if unterminated && !line.text.is_empty() {
            line.eol = "";
        } else if line.eol.is_empty() {
            line.eol = eol;
        }
    }
    doc.lines = out;
    result
}

/// Where `chunk` placed at old line `at` changes the old lines: each removed line, and the
/// line before which added lines go.
fn edit_points(chunk: &Chunk, at: usize) -> Vec<usize> {
    let mut j = at;
    let mut points = Vec::new();
    for line in &chunk.lines {
        match line {
            Body::Context(_) => j += 1,
            Body::Remove(_) => {
                points.push(j);
                j += 1;
            }
            Body::Add(_) => points.push(j),
        }
    }
    points
}

/// How many context lines end a hunk.
fn trailing_context(chunk: &Chunk) -> usize {
    let body = chunk.lines.iter().rev();
    body.take_while(|line| matches!(line, Body::Context(_)))
        .count()
}

impl Applied {
    fn fail(&mut self, report: HunkReport, problem: Error) {
        if self.ok {
            self.problem = Some(problem);
        }
        self.ok = false;
        self.reports.push(report);
    }
}

/// The patch lines a hunk's body spans, as `A` or `A-B`.
fn body_lines(chunk: &Chunk) -> String {
    match (chunk.numbers.first(), chunk.numbers.last()) {
        (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
        (Some(a), _) => a.to_string(),
        _ => chunk.line.to_string(),
    }
}

fn not_found(
    path: &str,
    chunk: &Chunk,
    old: &[Line],
    want: &[&str],
    cursor: usize,
    inherited: &[usize],
) -> Error {
    let hunk_line = chunk.line;
    let after = if cursor == 0 {
        String::new()
    } else {
        format!(" after line {cursor} (where the previous hunk ended)")
    };
    // Name the first anchor that is missing, if one is.
    let own = &chunk.anchors[inherited.len()..];
    let end = inherited
        .last()
        .and_then(|&l| part_end(old, l))
        .unwrap_or(old.len());
    let missing = route(&old[..end], own, cursor.min(end)).err();
    if let Some(line) = missing.filter(|_| route(old, &chunk.anchors, cursor).is_err()) {
        return failed(
            format!(
                "line {line}: the hunk's `@@` line is not a line of {path}{after}; nothing was written"
            ),
            line,
            "failed",
        )
        .with("hunk_line", hunk_line);
    }
    let what = if want.is_empty() {
        "the hunk only adds lines, and nothing says where they go"
    } else {
        "its context and removed lines do not occur"
    };
    let place = match (chunk.end_of_file, chunk.anchors.is_empty()) {
        (true, _) => format!(" at the end of {path}"),
        (false, true) => format!(" in {path}{after}"),
        (false, false) => format!(" in {path} after its `@@` line"),
    };
    failed(
        format!(
            "line {hunk_line}: {what}{place} (patch lines {}), not even with trailing whitespace ignored; nothing was written",
            body_lines(chunk)
        ),
        hunk_line,
        "failed",
    )
}

/// A hunk whose only place starts at `at`, inside the previous hunk's lines (which end at
/// `cursor`), and changes or adds among them.
fn overlaps(path: &str, chunk: &Chunk, at: usize, cursor: usize) -> Error {
    let line = chunk.line;
    failed(
        format!(
            "line {line}: the hunk's lines start at line {} of {path}, inside the previous hunk's lines (which end at line {cursor}), and change or add among them: hunks may not overlap; nothing was written",
            at + 1
        ),
        line,
        "overlaps",
    )
    .with("matches", vec![at + 1])
}

fn ambiguous(path: &str, chunk: &Chunk, m: usize, found: &[usize]) -> Error {
    let line = chunk.line;
    // 1-based: the first old line of each place, or for a hunk that only adds lines, the line
    // they would follow.
    let lines: Vec<usize> = found
        .iter()
        .map(|&at| if m == 0 { at } else { at + 1 })
        .collect();
    let listed = match lines.as_slice() {
        [a, b] => format!("lines {a} and {b}"),
        [a, b, ..] => format!("lines {a}, {b} and {} more", lines.len() - 2),
        _ => String::new(),
    };
    let message = if m == 0 && chunk.anchors.is_empty() {
        format!(
            "line {line}: the hunk only adds lines and has no `@@` line or `*** End of File` to say where in {path} they go; nothing was written"
        )
    } else if m == 0 {
        format!(
            "line {line}: the hunk only adds lines, and its `@@` lines match in {path} at more than one place (after {listed}); nothing was written"
        )
    } else {
        let after = if chunk.anchors.is_empty() {
            ""
        } else {
            ", both after its `@@` line"
        };
        format!(
            "line {line}: the hunk's context and removed lines match {path} at {listed}{after}; it is applied at one place or not at all, so nothing was written"
        )
    };
    failed(message, line, "ambiguous").with(
        "matches",
        lines.iter().take(10).copied().collect::<Vec<_>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::apply;
    use crate::{Code, Filekeeper, MutationOptions, Workspace};
    use std::fs;

    fn wrap(body: &str) -> String {
        format!("*** Begin Patch\n{body}*** End Patch\n")
    }

    /// The parse error of `patch`: its reason and line.
    fn refused(patch: &str) -> (String, usize, String) {
        let err = parse(patch).expect_err("the patch should be refused");
        assert_eq!(err.code, Code::PatchFailed, "{err:?}");
        (
            err.details["reason"].as_str().unwrap().to_owned(),
            err.details["line"].as_u64().unwrap() as usize,
            err.message,
        )
    }

    /// Section 0 of `patch` applied to `file`: the new bytes, or the problem.
    fn patched(file: &str, patch: &str) -> std::result::Result<String, Error> {
        let files = parse(patch).unwrap();
        let ((reports, new), _, problem) = apply::patched(&files[0], "f", file.as_bytes()).unwrap();
        match new {
            Some(new) => Ok(String::from_utf8(new.to_vec()).unwrap()),
            None => {
                assert!(reports.iter().any(|r| r.status != "applies"));
                Err(problem.expect("a failed hunk says why"))
            }
        }
    }

    fn update(file: &str, hunks: &str) -> std::result::Result<String, Error> {
        patched(file, &wrap(&format!("*** Update File: f\n{hunks}")))
    }

    /// Asserts that the hunks are refused for `reason`, naming the lines `matches` as places.
    #[track_caller]
    fn assert_refused(file: &str, hunks: &str, reason: &str, matches: serde_json::Value) {
        let err = update(file, hunks).unwrap_err();
        assert_eq!(err.details["reason"], reason, "{err:?}");
        assert_eq!(err.details["matches"], matches, "{err:?}");
    }

    #[test]
    fn detection_is_by_the_first_non_empty_line() {
        assert!(is_codex("*** Begin Patch\n"));
        assert!(is_codex("\n  \r\n*** Begin Patch  \r\n"));
        assert!(!is_codex("--- a/f\n+++ b/f\n"));
        assert!(!is_codex("Here is the patch:\n*** Begin Patch\n"));
        assert!(!is_codex(""));
    }

    #[test]
    fn every_section_kind_parses() {
        let files = parse(&wrap(
            "*** Add File: new.txt\n+one\n+\n+three\n\
             *** Delete File: old.txt\n\
             *** Update File: src/a.py\n*** Move to: src/b.py\n@@ def f():\n-    pass\n+    return 1\n\
             *** Update File: c.txt\n x\n-y\n+z\n",
        ))
        .unwrap();
        let kinds: Vec<_> = files
            .iter()
            .map(|f| (f.action, f.old_path.as_deref(), f.new_path.as_deref()))
            .collect();
        assert_eq!(
            kinds,
            [
                (Action::Create, None, Some("new.txt")),
                (Action::Delete, Some("old.txt"), None),
                (Action::Rename, Some("src/a.py"), Some("src/b.py")),
                (Action::Modify, Some("c.txt"), Some("c.txt")),
            ]
        );
        assert_eq!(files[0].chunks[0].lines.len(), 3);
        assert_eq!(files[1].chunks.len(), 0);
        assert_eq!(files[2].chunks[0].anchors, [(9, "def f():".to_owned())]);
        // The first hunk of a section may start without `@@`.
        assert!(files[3].chunks[0].anchors.is_empty());
        assert_eq!(files[3].codex, Some(12));
    }

    #[test]
    fn blank_lines_separate_sections_and_end_hunks_but_are_context_inside_them() {
        let files = parse(
            "\n\n*** Begin Patch\n\n*** Delete File: a\n\n*** Update File: b\n\n@@\n x\n\n-y\n+z\n\n\n*** End Patch\n\n",
        )
        .unwrap();
        assert_eq!(
            files[1].chunks[0].lines,
            [
                Body::Context("x".into()),
                Body::Context(String::new()),
                Body::Remove("y".into()),
                Body::Add("z".into()),
            ]
        );
    }

    #[test]
    fn a_single_space_is_an_empty_context_line_even_at_a_hunks_edges() {
        // At the end: `new` goes before the empty line after `bar`, not after `foo`.
        let out = update("foo\nbar\n\nbaz\n", "@@ foo\n+new\n \n").unwrap();
        assert_eq!(out, "foo\nbar\nnew\n\nbaz\n");
        // Before `*** End of File`: the file ends with the empty line.
        let out = update("foo\nbar\n\n", "@@\n+new\n \n*** End of File\n").unwrap();
        assert_eq!(out, "foo\nbar\nnew\n\n");
        // It is checked: no empty line follows `x` here.
        assert!(update("x\ny\n", "@@\n-x\n+X\n \n").is_err());
        // At the start of a section's first hunk without `@@`: the `b` after the empty line.
        let out = update("b\nq\n\nb\n", " \n-b\n+B\n").unwrap();
        assert_eq!(out, "b\nq\n\nB\n");
        // After `*** End of File` nothing can follow, so a line of one space is a separator.
        let out = update("a\nb\n", "@@\n a\n-b\n+c\n*** End of File\n \n").unwrap();
        assert_eq!(out, "a\nc\n");
        // A line with nothing on it still ends a hunk.
        let out = update("foo\nbar\n\nbaz\n", "@@ foo\n+new\n\n").unwrap();
        assert_eq!(out, "foo\nnew\nbar\n\nbaz\n");
    }

    #[test]
    fn crlf_patches_parse_and_remember_their_crs() {
        let files =
            parse("*** Begin Patch\r\n*** Add File: a\r\n+x\r\n+y\r\n*** End Patch\r\n").unwrap();
        assert_eq!(
            files[0].chunks[0].lines,
            [Body::Add("x".into()), Body::Add("y".into())]
        );
        assert_eq!(files[0].chunks[0].add_crs, [true, true]);
    }

    #[test]
    fn stacked_at_lines_are_one_hunk_with_several_anchors() {
        let files = parse(&wrap(
            "*** Update File: f\n@@ class B:\n@@     def run(self):\n-        a\n+        b\n@@\n-c\n+d\n",
        ))
        .unwrap();
        let chunks = &files[0].chunks;
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].anchors.len(), 2);
        assert_eq!(chunks[0].line, 3);
        assert!(chunks[1].anchors.is_empty());
    }

    #[test]
    fn every_grammar_violation_is_refused_with_its_line() {
        let cases: &[(&str, &str, usize)] = &[
            ("*** Begin Patch\n*** Delete File: a\n", "missing_end", 3),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y",
                "missing_end",
                6,
            ),
            (
                "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch\n",
                "unknown_directive",
                2,
            ),
            (
                "*** Begin Patch\n*** Add File:a\n+x\n*** End Patch\n",
                "unknown_directive",
                2,
            ),
            (
                "*** Begin Patch\n*** Begin Patch\n*** End Patch\n",
                "misplaced_directive",
                2,
            ),
            (
                "*** Begin Patch\n*** Delete File: a\n*** Move to: b\n*** End Patch\n",
                "misplaced_directive",
                3,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Move to: b\n*** End Patch\n",
                "misplaced_directive",
                6,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch\n",
                "misplaced_directive",
                3,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n-x\n*** End of File\n*** End of File\n*** End Patch\n",
                "misplaced_directive",
                6,
            ),
            (
                "*** Begin Patch\n*** Delete File: a\n*** End Patch\ntrailing\n",
                "text_after_end",
                4,
            ),
            ("*** Begin Patch\n*** End Patch\n", "empty_patch", 1),
            (
                "*** Begin Patch\nsome prose\n*** End Patch\n",
                "unexpected_line",
                2,
            ),
            (
                "*** Begin Patch\n@@\n-x\n*** End Patch\n",
                "unexpected_line",
                2,
            ),
            (
                "*** Begin Patch\n*** Delete File: a\n-x\n*** End Patch\n",
                "unexpected_line",
                3,
            ),
            (
                "*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch\n",
                "unexpected_line",
                4,
            ),
            (
                "*** Begin Patch\n*** Add File: a\n+x\n\n+y\n*** End Patch\n",
                "unexpected_line",
                4,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n x\n\\ No newline at end of file\n*** End Patch\n",
                "unexpected_line",
                5,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n-x\n*** End of File\n-y\n*** End Patch\n",
                "unexpected_line",
                6,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@x\n-x\n*** End Patch\n",
                "bad_hunk_header",
                3,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@ -1,2 +1,2 @@\n-x\n*** End Patch\n",
                "unified_header_in_codex_patch",
                3,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@ -3 +3 @@\n-x\n*** End Patch\n",
                "unified_header_in_codex_patch",
                3,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n*** End Patch\n",
                "empty_hunk",
                3,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n\n\n@@ x\n*** End Patch\n",
                "empty_hunk",
                3,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n@@ f\n*** Delete File: b\n*** End Patch\n",
                "empty_hunk",
                6,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n*** End Patch\n",
                "empty_section",
                2,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n x\n*** End Patch\n",
                "empty_section",
                2,
            ),
            (
                "*** Begin Patch\n*** Update File: a\n*** Move to: a\n*** End Patch\n",
                "move_onto_itself",
                3,
            ),
            (
                "*** Begin Patch\n*** Update File: \n@@\n-x\n*** End Patch\n",
                "missing_path",
                2,
            ),
            (
                "*** Begin Patch\n*** Delete File:  \n*** End Patch\n",
                "missing_path",
                2,
            ),
        ];
        for (patch, reason, line) in cases {
            let (got, at, message) = refused(patch);
            assert_eq!((got.as_str(), at), (*reason, *line), "{patch:?}: {message}");
            assert!(message.starts_with(&format!("line {line}: ")), "{message}");
        }
    }

    #[test]
    fn errors_do_not_echo_patch_text() {
        let (_, _, message) = refused("*** Begin Patch\nSECRET-TEXT\n*** End Patch\n");
        assert!(!message.contains("SECRET"), "{message}");
    }

    #[test]
    fn a_hunk_applies_where_its_lines_occur_once() {
        assert_eq!(
            update("a\nb\nc\n", "@@\n a\n-b\n+B\n").unwrap(),
            "a\nB\nc\n"
        );
        // Several hunks, in order; the second is looked for after the first.
        assert_eq!(
            update("x\n1\nx\n2\n", "@@\n x\n-1\n+one\n@@\n x\n-2\n+two\n").unwrap(),
            "x\none\nx\ntwo\n"
        );
    }

    #[test]
    fn a_hunk_that_matches_twice_is_refused_with_both_lines() {
        let err = update("a\nb\nc\na\nb\n", "@@\n a\n-b\n+B\n").unwrap_err();
        assert_eq!(err.details["reason"], "ambiguous");
        assert_eq!(err.details["matches"], serde_json::json!([1, 4]));
        assert!(err.message.contains("lines 1 and 4"), "{}", err.message);
        assert_eq!(err.details["line"], 3);
    }

    #[test]
    fn a_hunk_is_looked_for_only_after_the_previous_one() {
        let err = update("a\nb\nc\n", "@@\n-c\n+C\n@@\n-a\n+A\n").unwrap_err();
        assert_eq!(err.details["reason"], "failed");
        assert_eq!(err.details["line"], 6);
        assert!(err.message.contains("after line 3"), "{}", err.message);
        // And a second hunk cannot reuse the first one's lines.
        assert!(update("a\nb\n", "@@\n-a\n+A\n@@\n a\n-b\n+B\n").is_err());
    }

    #[test]
    fn a_hunk_whose_context_runs_into_the_next_function_names_that_one_for_the_next_hunk() {
        let file = "def f():\n    a = 1\n    if x:\n        pass\ndef f():\n    b = 2\n    c = 3\n";
        let patch = "@@ def f():\n-    a = 1\n+    a = 10\n\
                     @@ def f():\n         pass\n def f():\n-    b = 2\n+    b = 20\n\
                     @@ def f():\n-    c = 3\n+    c = 30\n";
        let out = update(file, patch).unwrap();
        assert_eq!(
            out,
            "def f():\n    a = 10\n    if x:\n        pass\ndef f():\n    b = 20\n    c = 30\n"
        );
    }

    #[test]
    fn a_hunk_may_name_a_method_the_previous_hunks_last_context_line_is() {
        // The first hunk names the first class C, but changes the second; its context ends
        // at the second's `def run`, which the next hunk names.
        let file = "class C:\n    def g(self):\n        a = 0\n\nclass C:\n    def f(self):\n        a = 0\n    def run(self):\n        return x\n";
        let patch = "@@ class C:\n-        a = 0\n+        a = 1\n     def run(self):\n\
                     @@ class C:\n@@ def run(self):\n-        return x\n+        return y\n";
        let out = update(file, patch).unwrap();
        assert_eq!(
            out,
            "class C:\n    def g(self):\n        a = 0\n\nclass C:\n    def f(self):\n        a = 1\n    def run(self):\n        return y\n"
        );
    }

    #[test]
    fn stacked_anchors_around_the_previous_hunk_lead_to_lines_after_it() {
        // The previous hunk named no anchor; this one names the function and the nested one
        // it was in, both behind it.
        let file = "def g():\n    with lock:\n        x = 1\n    def helper():\n# note\n        return x\n        x += 1\n    return x\n";
        let patch = "@@\n-# note\n+# moved\n@@ def g():\n@@ def helper():\n-        x += 1\n+        y = 2\n     return x\n";
        let out = update(file, patch).unwrap();
        assert_eq!(
            out,
            "def g():\n    with lock:\n        x = 1\n    def helper():\n# moved\n        return x\n        y = 2\n    return x\n"
        );
    }

    #[test]
    fn a_hunk_may_share_its_first_context_lines_with_the_previous_hunks_last() {
        // Two nearby changes, each sent with its own context.
        let patch = "@@\n a\n-b\n+B\n c\n d\n@@\n c\n d\n-e\n+E\n";
        assert_eq!(update("a\nb\nc\nd\ne\n", patch).unwrap(), "a\nB\nc\nd\nE\n");
        // Its anchor may be one of those lines.
        let file = "## 1.2.0\n### Fixed\n- crash\n### Added\n- nothing\n## 1.1.0\n";
        let patch = "@@ ## 1.2.0\n ### Fixed\n-- crash\n+- no crash\n ### Added\n\
                     @@ ### Added\n ### Added\n-- nothing\n+- a flag\n";
        let out = update(file, patch).unwrap();
        assert_eq!(
            out,
            "## 1.2.0\n### Fixed\n- no crash\n### Added\n- a flag\n## 1.1.0\n"
        );
        // Where the same lines come again later, the shared place is one of two: a second
        // section's `### Added` was changed with ok.
        let file = "## 1.2.0\n### Fixed\n- crash\n### Added\n- nothing\n\
                    ## 1.1.0\n### Fixed\n- typo\n### Added\n- nothing\n";
        assert_refused(file, patch, "ambiguous", serde_json::json!([4, 9]));
        // A hunk that changes a line the previous one kept as context overlaps it: refused,
        // and never moved to a later line that matches with trailing whitespace ignored.
        let patch = "@@\n-    a = 1\n+    a = 2\n     return x\n@@\n-    return x\n";
        assert_refused(
            "def run():\n    a = 1\n    return x\n    y = 0\n",
            patch,
            "overlaps",
            serde_json::json!([3]),
        );
        let file = "def run():\n    a = 1\n    return x\n    return x  \n";
        assert_refused(file, patch, "ambiguous", serde_json::json!([3, 4]));
        // Context taken from the original file that reaches back into the previous hunk's
        // changed lines, or past its added last line: the same, and a later copy of the lines
        // is never taken alone (it was, with ok).
        let patch = "@@\n a\n-b\n+B\n c\n@@\n b\n c\n-d\n+D\n";
        let err = update("a\nb\nc\nd\nx\n", patch).unwrap_err();
        assert_eq!(err.details["reason"], "overlaps", "{err:?}");
        let err = update("a\nb\nc\nd\nx\nb\nc\nd\n", patch).unwrap_err();
        assert_eq!(err.details["matches"], serde_json::json!([2, 6]), "{err:?}");
        let err = update("p\nc\nd\nx\nc\nd\n", "@@\n p\n c\n+X\n@@\n c\n-d\n+D\n").unwrap_err();
        assert_eq!(err.details["matches"], serde_json::json!([2, 5]), "{err:?}");
        // Lines an earlier hunk took, changed elsewhere than it changed them (sent out of
        // order, adding among its context): another place, never passed over for a later copy.
        let patch = "@@\n-a\n+A\n b\n c\n@@\n-e\n+E\n@@\n b\n+X\n c\n";
        let err = update("a\nb\nc\nd\ne\nf\nb\nc\n", patch).unwrap_err();
        assert_eq!(err.details["matches"], serde_json::json!([2, 7]), "{err:?}");
        // Lines in the previous hunk's context before where the anchors lead are no place.
        let file = "class A:\n    def f(self):\n        x = 1\n        return x\n    def g(self):\n        return x\n";
        let patch = "@@ class A:\n@@ def f(self):\n-        x = 1\n+        x = 2\n         return x\n\
                     @@ class A:\n@@ def g(self):\n-        return x\n+        return None\n";
        let out = update(file, patch).unwrap();
        assert!(
            out.ends_with(
                "        x = 2\n        return x\n    def g(self):\n        return None\n"
            )
        );
    }

    #[test]
    fn a_shorter_run_of_the_anchors_around_the_previous_hunk_may_lead_on() {
        // `steps:` around the previous hunk is build's; the hunk names test's.
        let file = "jobs:\n  build:\n    steps:\n      - run: make\n  test:\n    steps:\n      - run: pytest\n";
        let patch = "@@\n-      - run: make\n+      - run: make all\n\
                     @@ jobs:\n@@ steps:\n-      - run: pytest\n+      - run: pytest -q\n";
        let out = update(file, patch).unwrap();
        assert!(
            out.ends_with("      - run: make all\n  test:\n    steps:\n      - run: pytest -q\n")
        );
    }

    #[test]
    fn an_added_only_hunk_whose_anchors_lead_to_an_untaken_place_before_the_previous_is_ambiguous()
    {
        let file = "# Tool\n## Usage\nrun a\n# Tool\n## Install\nold\n# Tool\n## Usage\nrun b\n";
        let patch = "@@\n-old\n+new\n@@ # Tool\n@@ ## Usage\n+Intro.\n";
        assert_refused(file, patch, "ambiguous", serde_json::json!([2, 8]));
    }

    #[test]
    fn a_hunk_whose_lines_also_occur_untaken_before_the_previous_one_is_ambiguous() {
        // Sent out of order, the second hunk was applied at the later copy of its lines.
        let file = "x = 1\nf()\ny = 2\nx = 1\nf()\n";
        assert_refused(
            file,
            "@@\n-y = 2\n+y = 3\n@@\n x = 1\n-f()\n+g()\n",
            "ambiguous",
            serde_json::json!([1, 4]),
        );
        // An earlier copy that an earlier hunk took is not a place: both copies changed.
        let both = "@@\n x = 1\n-f()\n+g()\n y = 2\n@@\n x = 1\n-f()\n+g()\n";
        assert_eq!(
            update(file, both).unwrap(),
            "x = 1\ng()\ny = 2\nx = 1\ng()\n"
        );
        // Nor is one before where its anchor leads from the start of the file.
        let file = "x = 1\nf()\ny = 2\ndef b():\nx = 1\nf()\n";
        let out = update(
            file,
            "@@\n-y = 2\n+y = 3\n@@ def b():\n x = 1\n-f()\n+g()\n",
        );
        assert_eq!(out.unwrap(), "x = 1\nf()\ny = 3\ndef b():\nx = 1\ng()\n");
    }

    #[test]
    fn an_anchor_starts_the_search_and_the_match_after_it_must_be_unique() {
        let file = "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n";
        let out = update(
            file,
            "@@ def b():\n     x = 1\n-    return x\n+    return 2\n",
        )
        .unwrap();
        assert!(
            out.ends_with("def b():\n    x = 1\n    return 2\n"),
            "{out}"
        );
        // After `def a():` the lines occur twice (in a and in b): the anchor does not say
        // where a ends, so the first is not taken.
        let err = update(
            file,
            "@@ def a():\n     x = 1\n-    return x\n+    return 2\n",
        )
        .unwrap_err();
        assert_eq!(err.details["reason"], "ambiguous");
        assert_eq!(err.details["matches"], serde_json::json!([2, 6]));
        assert!(
            err.message.contains("after its `@@` line"),
            "{}",
            err.message
        );
        // Anchors are compared without their indentation, and several stack.
        let file =
            "class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        pass\n";
        let out = update(
            file,
            "@@ class B:\n@@ def f(self):\n-        pass\n+        return 1\n",
        )
        .unwrap();
        assert!(
            out.ends_with("class B:\n    def f(self):\n        return 1\n"),
            "{out}"
        );
        // The lines before the anchor do not count: the one match after it applies.
        let out = update(file, "@@ class B:\n-        pass\n+        return 1\n").unwrap();
        assert!(
            out.starts_with("class A:\n    def f(self):\n        pass\n"),
            "{out}"
        );
        // An anchor that occurs twice starts the search at its first line.
        assert_refused(
            file,
            "@@ def f(self):\n-        pass\n+        return 1\n",
            "ambiguous",
            serde_json::json!([3, 6]),
        );
    }

    #[test]
    fn a_hunk_naming_the_function_an_earlier_hunk_was_in_is_looked_for_there_too() {
        // Two hunks in one `def f():`, each naming it, and a later function of the same
        // name holding the second hunk's lines too: where the second goes is not said.
        let file = "def f():\n    x = 0\n    c = 3\ndef f():\n    c = 3\n";
        let patch = "@@ def f():\n-    x = 0\n+    x = 1\n@@ def f():\n-    c = 3\n+    c = 4\n";
        assert_refused(file, patch, "ambiguous", serde_json::json!([3, 5]));
        // With one `def f():` the second hunk is found in it (it was refused: its `@@` line
        // is not after the first hunk).
        let out = update("def f():\n    x = 0\n    c = 3\n", patch).unwrap();
        assert_eq!(out, "def f():\n    x = 1\n    c = 4\n");
        // A later function of another name is still found by its anchor.
        let file = "def f():\n    x = 0\n    c = 3\ndef g():\n    c = 3\n";
        let out = update(
            file,
            "@@ def f():\n-    x = 0\n+    x = 1\n@@ def g():\n-    c = 3\n+    c = 4\n",
        )
        .unwrap();
        assert_eq!(out, "def f():\n    x = 1\n    c = 3\ndef g():\n    c = 4\n");
        // A hunk naming a function wholly before the previous hunk's is out of order: refused,
        // not applied where its lines next occur (a reviewer found `c = 4` put in `g`).
        let file = "def f():\n    c = 3\ndef g():\n    x = 0\n    c = 3\n";
        for end in ["", "*** End of File\n"] {
            let patch = format!(
                "@@ def g():\n-    x = 0\n+    x = 1\n@@ def f():\n-    c = 3\n+    c = 4\n{end}"
            );
            assert!(update(file, &patch).is_err(), "{end:?}");
        }
        // Lines found only between the previous hunk and a later line equal to the anchor,
        // under another anchor than the previous hunk's: not taken.
        let file = "def f():\n    a\ndef g():\n    c = 3\n    x = 0\ndef f():\n    y = 0\n";
        let patch = "@@ def g():\n-    c = 3\n+    c = 4\n@@ def f():\n-    x = 0\n+    x = 1\n";
        assert!(update(file, patch).is_err());
        // Stacked anchors: the outer one names the class the previous hunk was in, so a later
        // class of that name is not taken for granted (a tester found `A.g` of the second
        // class changed).
        let file = "class A:\n    def f(self):\n        a = 1\n    def g(self):\n        c = 3\nclass A:\n    def g(self):\n        c = 3\n";
        let patch = "@@ class A:\n@@ def f(self):\n-        a = 1\n+        a = 10\n@@ class A:\n@@ def g(self):\n-        c = 3\n+        c = 30\n";
        let err = update(file, patch).unwrap_err();
        assert_eq!(err.details["reason"], "ambiguous");
        // With one class A its `def g` is followed from the previous hunk, in that class (it
        // was refused: `class A:` is not after the first hunk), for changed lines and for
        // lines only added after it.
        let file = "class A:\n    def f(self):\n        a = 1\n    def g(self):\n        c = 3\n";
        let out = update(file, patch).unwrap();
        assert_eq!(
            out,
            "class A:\n    def f(self):\n        a = 10\n    def g(self):\n        c = 30\n"
        );
        let adds = "@@ class A:\n@@ def f(self):\n-        a = 1\n+        a = 10\n@@ class A:\n@@ def g(self):\n+        b = 2\n";
        let out = update(file, adds).unwrap();
        assert_eq!(
            out,
            "class A:\n    def f(self):\n        a = 10\n    def g(self):\n        b = 2\n        c = 3\n"
        );
        // A `def g` missing after the previous hunk is the anchor named, not `class A:`.
        let missing = "@@ class A:\n@@ def g(self):\n-        c = 3\n+        c = 30\n@@ class A:\n@@ def f(self):\n-        a = 1\n+        a = 10\n";
        let err = update(file, missing).unwrap_err();
        assert_eq!(err.details["reason"], "failed");
        assert_eq!(err.details["line"], 8, "{}", err.message); // `@@ def f(self):`
        // The part the previous hunk was in ends where the indentation says: a second hunk
        // of `class A:` / `def f(self):` whose lines are only in class B's `f` is refused
        // (it was applied there).
        let patch = "@@ class A:\n@@ def f(self):\n-        a = 1\n+        a = 10\n@@ class A:\n@@ def f(self):\n-        c = 3\n+        c = 30\n";
        let file = "class A:\n    def f(self):\n        a = 1\nclass B:\n    def f(self):\n        c = 3\n";
        assert_eq!(update(file, patch).unwrap_err().details["reason"], "failed");
        // A line at the class's own indentation inside it (a comment at column 0) ends the
        // part too soon: lines after it that a later class A holds as well are ambiguous,
        // not taken from the later class.
        let file = "class A:\n    def f(self):\n        a = 1\n# note\n    def g(self):\n        c = 3\nclass A:\n    def g(self):\n        c = 3\n";
        let patch = "@@ class A:\n@@ def f(self):\n-        a = 1\n+        a = 10\n@@ class A:\n@@ def g(self):\n-        c = 3\n+        c = 30\n";
        assert_eq!(
            update(file, patch).unwrap_err().details["reason"],
            "ambiguous"
        );
        // The part only lets lines be taken that occur once after the previous hunk: a
        // part cut short (a label at column 0) hides no later copy, an add-only hunk counts
        // every anchor line after the previous hunk, and an inner anchor whose block is
        // behind the cursor does not skip its lines there (a tester found each applied at
        // the later copy with ok).
        let file = "int f(void)\n{\n\tx = 1;\n\tif (e)\n\t\tgoto out;\n\treturn 0;\nout:\n\tcleanup();\n\treturn 0;\n}\n";
        let patch =
            "@@ int f(void)\n-\tx = 1;\n+\tx = 2;\n@@ int f(void)\n-\treturn 0;\n+\treturn -1;\n";
        let err = update(file, patch).unwrap_err();
        assert_eq!(err.details["matches"], serde_json::json!([6, 9]));
        let file = "class A:\n    def f(self):\n        a = 1\n    def g(self):\n        b = 2\nclass A:\n    def g(self):\n        c = 3\n";
        let patch = "@@ def f(self):\n-        a = 1\n+        a = 10\n@@ class A:\n@@ def g(self):\n+        z = 0\n";
        let err = update(file, patch).unwrap_err();
        assert_eq!(err.details["matches"], serde_json::json!([4, 7]));
        let file = "def main():\n    for item in items:\n        a = 1\n        b = 2\n    for item in items:\n        b = 2\n";
        let patch = "@@ def main():\n-        a = 1\n+        a = 10\n@@ def main():\n@@ for item in items:\n-        b = 2\n+        b = 20\n";
        let err = update(file, patch).unwrap_err();
        assert_eq!(err.details["matches"], serde_json::json!([4, 6]));
        // The outermost anchor's part holds the previous hunk even when that hunk named
        // only the method: `class A:` / `def g` is followed in it.
        let file = "class A:\n    def f(self):\n        a = 1\n    def g(self):\n        b = 2\n";
        let patch = "@@ def f(self):\n-        a = 1\n+        a = 10\n@@ class A:\n@@ def g(self):\n-        b = 2\n+        b = 20\n";
        assert_eq!(
            update(file, patch).unwrap(),
            "class A:\n    def f(self):\n        a = 10\n    def g(self):\n        b = 20\n"
        );
        // An anchor naming a line an earlier hunk wrote (a signature it changed) is behind
        // the cursor too: the later copy of that line is not taken for granted (a reviewer
        // found `B.f` changed).
        let file = "class A:\n    def f(self):\n        a = 1\n        b = 2\nclass B:\n    def f(self, x):\n        b = 2\n";
        let patch = "@@ class A:\n-    def f(self):\n+    def f(self, x):\n         a = 1\n@@ def f(self, x):\n-        b = 2\n+        b = x\n";
        assert_eq!(
            update(file, patch).unwrap_err().details["reason"],
            "ambiguous"
        );
        // An anchor line in an earlier, other part of the outermost anchor is no place for a
        // hunk that only adds lines (it was listed, and the hunk refused).
        let file = "class Z:\n    def g(self):\n        pass\nclass A:\n    def f(self):\n        a = 1\n    def g(self):\n        b = 2\n";
        let patch = "@@ class A:\n@@ def f(self):\n-        a = 1\n+        a = 10\n@@ class A:\n@@ def g(self):\n+        z = 0\n";
        assert_eq!(
            update(file, patch).unwrap(),
            "class Z:\n    def g(self):\n        pass\nclass A:\n    def f(self):\n        a = 10\n    def g(self):\n        z = 0\n        b = 2\n"
        );
        // A hunk that starts in the part may end past it, its context reaching the next
        // method's `def` line.
        let file = "class A:\n    def f(self):\n        a = 1\n        b = 2\n    def g(self):\n        c = 3\n";
        let patch = "@@ class A:\n@@ def f(self):\n-        a = 1\n+        a = 10\n@@ class A:\n@@ def f(self):\n-        b = 2\n+        b = 20\n     def g(self):\n";
        assert_eq!(
            update(file, patch).unwrap(),
            "class A:\n    def f(self):\n        a = 10\n        b = 20\n    def g(self):\n        c = 3\n"
        );
        // A comment or a preprocessor line at column 0 inside a function does not end it.
        let patch = "@@ def f():\n-    a = 1\n+    a = 10\n@@ def f():\n-    c = 3\n+    c = 30\n";
        let out = update(
            "def f():\n    a = 1\n#    old = 0\n    b = 2\n    c = 3\n",
            patch,
        )
        .unwrap();
        assert_eq!(
            out,
            "def f():\n    a = 10\n#    old = 0\n    b = 2\n    c = 30\n"
        );
        let patch =
            "@@ void f() {\n-    a = 1;\n+    a = 10;\n@@ void f() {\n-    c = 3;\n+    c = 30;\n";
        let out = update(
            "void f() {\n    a = 1;\n#ifdef X\n    b = 2;\n#endif\n    c = 3;\n}\n",
            patch,
        )
        .unwrap();
        assert!(
            out.contains("    a = 10;\n") && out.contains("    c = 30;\n"),
            "{out}"
        );
        // A line that opens no indented block has no part whose end is known: the other
        // anchors are not followed from the previous hunk (a reviewer found `y = 20` written
        // in namespace b, and a Markdown section's lines changed under another heading).
        let file = "namespace a {\nvoid f() {\n    x = 1;\n}\n}\nnamespace b {\nvoid g() {\n    y = 2;\n}\n}\n";
        let patch = "@@ namespace a {\n@@ void f() {\n-    x = 1;\n+    x = 10;\n@@ namespace a {\n@@ void g() {\n-    y = 2;\n+    y = 20;\n";
        assert_eq!(update(file, patch).unwrap_err().details["reason"], "failed");
        let file = "## A\n### f\nx\n## B\n### g\ny\n";
        let patch = "@@ ## A\n@@ ### f\n-x\n+X\n@@ ## A\n@@ ### g\n-y\n+Y\n";
        assert_eq!(update(file, patch).unwrap_err().details["reason"], "failed");
        // Braces on lines of their own neither open nor close a part early.
        let file = "void f()\n{\n    a = 1;\n}\nvoid g()\n{\n    a = 2;\n    b = 2;\n}\n";
        let patch =
            "@@ void f()\n-    a = 1;\n+    a = 10;\n@@ void f()\n-    b = 2;\n+    b = 20;\n";
        assert_eq!(update(file, patch).unwrap_err().details["reason"], "failed");
        let patch =
            "@@ void g()\n-    a = 2;\n+    a = 20;\n@@ void g()\n-    b = 2;\n+    b = 20;\n";
        assert_eq!(
            update(file, patch).unwrap(),
            "void f()\n{\n    a = 1;\n}\nvoid g()\n{\n    a = 20;\n    b = 20;\n}\n"
        );
        // Lines only added after `def f():`, the previous hunk's function: refused, not put
        // after a later `def f():`.
        let patch = "@@ def f():\n-    a = 1\n+    a = 10\n@@ def f():\n+    x = 0\n";
        assert!(update("def f():\n    a = 1\ndef f():\n    b = 2\n", patch).is_err());
    }

    #[test]
    fn a_hunk_may_start_at_its_anchor_line() {
        let file = "fn a() {\n}\nfn b() {\n}\n";
        let out = update(file, "@@ fn b() {\n-fn b() {\n+fn b2() {\n").unwrap();
        assert_eq!(out, "fn a() {\n}\nfn b2() {\n}\n");
    }

    #[test]
    fn a_hunk_may_start_above_its_last_anchor_line_when_it_holds_it() {
        // Stacked anchors repeated as context: the old lines start at the first anchor's line.
        let hunk = "@@ # Tool\n@@ ## Usage\n # Tool\n ## Usage\n-text\n+new\n";
        let file = "# Tool\n## Usage\ntext\n# Other\n## Usage\ntext\n";
        let out = update(file, hunk).unwrap();
        assert_eq!(out, "# Tool\n## Usage\nnew\n# Other\n## Usage\ntext\n");
        // Context above a single anchor, holding it.
        let out = update(
            "x\ndef f():\n    return 1\n",
            "@@ def f():\n x\n def f():\n-    return 1\n+    return 2\n",
        );
        assert_eq!(out.unwrap(), "x\ndef f():\n    return 2\n");
        // A later copy of the same lines is another place, not the only one: the search used
        // to start at the last anchor's line and changed the later copy with ok.
        let file = "# Tool\n## Usage\ntext\n# Tool\n## Usage\ntext\n";
        assert_refused(file, hunk, "ambiguous", serde_json::json!([1, 4]));
        // Lines above the anchor that do not reach it are not the hunk's place.
        let err = update("x\ny\n@\n", "@@ @\n x\n-y\n+Y\n").unwrap_err();
        assert_eq!(err.details["reason"], "failed", "{err:?}");
    }

    #[test]
    fn a_missing_anchor_or_context_is_named() {
        let err = update("a\nb\n", "@@ nowhere\n-a\n+A\n").unwrap_err();
        assert_eq!(err.details["reason"], "failed");
        assert!(err.message.contains("`@@` line"), "{}", err.message);
        let err = update("a\nb\n", "@@\n-zzz\n+A\n").unwrap_err();
        assert!(err.message.contains("patch lines 4-5"), "{}", err.message);
        // Indentation is never ignored in context lines.
        assert!(update("    a\n", "@@\n-a\n+b\n").is_err());
    }

    #[test]
    fn added_lines_go_after_their_anchor_or_at_the_end_of_file() {
        let file = "[a]\nx=1\n[b]\ny=2\n";
        assert_eq!(
            update(file, "@@ [b]\n+z=3\n").unwrap(),
            "[a]\nx=1\n[b]\nz=3\ny=2\n"
        );
        // After an anchor that occurs twice, they could go after either.
        let err = update("[a]\n[a]\n", "@@ [a]\n+k=v\n").unwrap_err();
        assert_eq!(err.details["matches"], serde_json::json!([1, 2]));
        assert_eq!(
            update(file, "@@\n+end\n*** End of File\n").unwrap(),
            "[a]\nx=1\n[b]\ny=2\nend\n"
        );
        // Without either, nothing says where they go.
        let err = update(file, "@@\n+where\n").unwrap_err();
        assert_eq!(err.details["reason"], "ambiguous");
        assert!(err.message.contains("only adds lines"), "{}", err.message);
        // An empty file has one place.
        assert_eq!(update("", "@@\n+first\n").unwrap(), "first\n");
    }

    #[test]
    fn end_of_file_anchors_the_hunk_at_the_last_lines() {
        let file = "x\nend\nx\nend\n";
        assert_eq!(
            update(file, "@@\n x\n-end\n+END\n*** End of File\n").unwrap(),
            "x\nend\nx\nEND\n"
        );
        let err = update("a\nb\nc\n", "@@\n-b\n+B\n*** End of File\n").unwrap_err();
        assert_eq!(err.details["reason"], "failed");
        assert!(err.message.contains("at the end of f"), "{}", err.message);
    }

    #[test]
    fn crlf_files_stay_crlf_and_lf_files_lf() {
        assert_eq!(
            update("a\r\nb\r\n", "@@\n a\n-b\n+B\n+C\n").unwrap(),
            "a\r\nB\r\nC\r\n"
        );
        assert_eq!(
            update("a\nb\n", "@@\r\n a\r\n-b\r\n+B\r\n").unwrap(),
            "a\nB\n"
        );
        // A new file whose added lines mix line ends gets each as the patch writes it.
        let files = parse("*** Begin Patch\n*** Add File: a\n+x\r\n+y\n*** End Patch\n").unwrap();
        let ((_, new), _, _) = apply::patched(&files[0], "a", b"").unwrap();
        assert_eq!(new.unwrap().as_slice(), b"x\r\ny\n");
        // A new file takes the patch's convention.
        let files = parse("*** Begin Patch\r\n*** Add File: a\r\n+x\r\n*** End Patch\r\n").unwrap();
        let ((_, new), _, _) = apply::patched(&files[0], "a", b"").unwrap();
        assert_eq!(new.unwrap().as_slice(), b"x\r\n");
    }

    #[test]
    fn the_bom_is_kept_and_not_part_of_line_one() {
        assert_eq!(
            update("\u{feff}first\nsecond\n", "@@\n-first\n+FIRST\n").unwrap(),
            "\u{feff}FIRST\nsecond\n"
        );
    }

    #[test]
    fn a_file_without_a_final_newline_keeps_that_state() {
        assert_eq!(update("a\nb", "@@\n a\n-b\n+B\n").unwrap(), "a\nB");
        assert_eq!(
            update("a\nb", "@@\n b\n+c\n*** End of File\n").unwrap(),
            "a\nb\nc"
        );
        assert_eq!(update("a\nb", "@@\n a\n-b\n").unwrap(), "a");
        assert_eq!(update("a\nb\n", "@@\n a\n-b\n").unwrap(), "a\n");
        assert_eq!(update("a\r\nb", "@@\n-a\n+A\n").unwrap(), "A\r\nb");
        // Found by the `patch` fuzz target: an empty new last line cannot go unterminated
        // (the file would lose it), so it keeps its newline.
        assert_eq!(update("a\nb", "@@\n a\n-b\n+\n").unwrap(), "a\n\n");
    }

    #[test]
    fn trailing_whitespace_is_ignored_only_when_nothing_matches_exactly_and_with_a_warning() {
        let files = parse(&wrap("*** Update File: f\n@@\n a\n-b\n+B\n")).unwrap();
        let ((_, new), warnings, _) = apply::patched(&files[0], "f", b"a  \nb\t\nc\n").unwrap();
        assert_eq!(new.unwrap().as_slice(), b"a  \nB\nc\n");
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("lines 1-2"), "{warnings:?}");
        // Exact matches win, and need no warning.
        let ((_, new), warnings, _) = apply::patched(&files[0], "f", b"a \nb\na\nb\n").unwrap();
        assert_eq!(new.unwrap().as_slice(), b"a \nb\na\nB\n");
        assert!(warnings.is_empty());
        // The fallback must be unique too.
        let err = update("a \nb\na\t\nb\n", "@@\n a\n-b\n+B\n").unwrap_err();
        assert_eq!(err.details["reason"], "ambiguous");
    }

    #[test]
    fn reports_give_where_each_hunk_applied() {
        let files = parse(&wrap("*** Update File: f\n@@\n a\n-b\n+B1\n+B2\n@@\n-d\n")).unwrap();
        let ((reports, new), _, _) = apply::patched(&files[0], "f", b"a\nb\nc\nd\ne\n").unwrap();
        assert_eq!(new.unwrap().as_slice(), b"a\nB1\nB2\nc\ne\n");
        let places: Vec<_> = reports
            .iter()
            .map(|r| (r.old_start, r.old_lines, r.new_start, r.new_lines, r.status))
            .collect();
        assert_eq!(places, [(1, 2, 1, 3, "applies"), (4, 1, 4, 0, "applies")]);
    }

    #[test]
    fn a_text_with_codex_directives_but_no_envelope_is_told_so() {
        let err = diagnose("*** Update File: f\n@@\n-a\n+b\n").unwrap();
        assert_eq!(err.details["reason"], "codex_without_envelope");
        assert!(
            err.message.contains("otherwise well formed"),
            "{}",
            err.message
        );
        let err = diagnose("Sure:\n*** Begin Patch\n*** Delete File: f\n*** End Patch\n").unwrap();
        assert_eq!(err.details["reason"], "codex_not_first");
        assert_eq!(err.details["line"], 2);
        assert!(diagnose("--- a/f\n+++ b/f\n").is_none());
    }

    // Whole patches, through a workspace.

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        fs::create_dir(&root).unwrap();
        let keeper = Filekeeper::new(Some(&dir.path().join("home"))).unwrap();
        let ws = keeper.workspace(None, Some(&root)).unwrap();
        (dir, ws)
    }

    fn tree(dir: &tempfile::TempDir) -> Vec<(String, String)> {
        let root = dir.path().join("ws");
        let mut out = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                let rel = p
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                if rel == ".filekeeper" {
                    continue;
                }
                if p.is_dir() {
                    stack.push(p);
                } else {
                    out.push((rel, fs::read_to_string(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_multi_file_patch_is_one_operation_and_undoes_as_one() {
        let (dir, ws) = workspace();
        let root = dir.path().join("ws");
        fs::write(root.join("edit.txt"), "one\ntwo\n").unwrap();
        fs::write(root.join("gone.txt"), "bye\n").unwrap();
        fs::write(root.join("old.txt"), "keep\nme\n").unwrap();
        let before = tree(&dir);
        let opts = MutationOptions::default();
        let result = ws
            .apply_patch(
                &wrap(
                    "*** Add File: sub/new.txt\n+hello\n\
                     *** Delete File: gone.txt\n\
                     *** Update File: edit.txt\n@@\n one\n-two\n+TWO\n\
                     *** Update File: old.txt\n*** Move to: moved/new-name.txt\n@@\n-me\n+you\n",
                ),
                &opts,
            )
            .unwrap();
        let changes: Vec<_> = result
            .extra
            .patch_files
            .as_ref()
            .unwrap()
            .iter()
            .map(|f| (f.path.as_str(), f.change.as_str(), f.from.as_deref()))
            .collect();
        assert_eq!(
            changes,
            [
                ("sub/new.txt", "created", None),
                ("gone.txt", "deleted", None),
                ("edit.txt", "modified", None),
                ("moved/new-name.txt", "renamed", Some("old.txt")),
            ]
        );
        assert_eq!(
            tree(&dir),
            [
                ("edit.txt".to_owned(), "one\nTWO\n".to_owned()),
                ("moved/new-name.txt".to_owned(), "keep\nyou\n".to_owned()),
                ("sub/new.txt".to_owned(), "hello\n".to_owned()),
            ]
        );
        ws.undo(result.operation_id.as_deref().unwrap(), &opts)
            .unwrap();
        assert_eq!(tree(&dir), before);
        assert!(!root.join("sub").exists() && !root.join("moved").exists());
    }

    #[test]
    fn one_failing_section_writes_nothing() {
        let (dir, ws) = workspace();
        let root = dir.path().join("ws");
        fs::write(root.join("a.txt"), "a\n").unwrap();
        fs::write(root.join("b.txt"), "b\n").unwrap();
        fs::write(root.join("taken.txt"), "t\n").unwrap();
        let before = tree(&dir);
        let opts = MutationOptions::default();
        let first = "*** Update File: a.txt\n@@\n-a\n+A\n";
        let cases: &[(&str, Code, &str)] = &[
            (
                "*** Update File: b.txt\n@@\n-nope\n+B\n",
                Code::PatchFailed,
                "failed",
            ),
            ("*** Add File: taken.txt\n+x\n", Code::AlreadyExists, ""),
            ("*** Delete File: missing.txt\n", Code::PathNotFound, ""),
            (
                "*** Update File: missing.txt\n@@\n-x\n+y\n",
                Code::PathNotFound,
                "",
            ),
            (
                "*** Update File: b.txt\n*** Move to: taken.txt\n@@\n-b\n+B\n",
                Code::AlreadyExists,
                "move",
            ),
            (
                "*** Update File: b.txt\n*** Move to: /elsewhere/b.txt\n@@\n-b\n+B\n",
                Code::AbsolutePathOutsideWorkspace,
                "move",
            ),
            (
                "*** Update File: a.txt\n@@\n-a\n+A\n",
                Code::PatchFailed,
                "duplicate_file",
            ),
        ];
        for (second, code, reason) in cases {
            let err = ws
                .apply_patch(&wrap(&format!("{first}{second}")), &opts)
                .unwrap_err();
            assert_eq!(err.code, *code, "{second}: {err:?}");
            if !reason.is_empty() && *reason != "move" {
                assert_eq!(err.details["reason"], *reason, "{second}: {err:?}");
            }
            // The second section's directive is on line 6, its `*** Move to:` or hunk on
            // line 7.
            let line = match *reason {
                "failed" | "move" => 7,
                _ => 6,
            };
            if *reason != "duplicate_file" {
                assert_eq!(err.details["line"], line, "{second}: {err:?}");
                assert!(
                    err.message.starts_with(&format!("line {line}: ")),
                    "{}",
                    err.message
                );
            }
            assert_eq!(tree(&dir), before, "{second}");
        }
        let err = ws
            .apply_patch(
                &wrap(&format!("{first}*** Update File: b.txt\n@@\n-nope\n+B\n")),
                &opts,
            )
            .unwrap_err();
        let files = err.details["patch_files"].as_array().unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[0]["status"], "applies");
        assert_eq!(files[1]["status"], "failed");
        assert_eq!(err.details["path"], "b.txt");
        assert_eq!(err.details["hunk"], 1);
    }

    #[test]
    fn delete_file_deletes_whatever_the_file_holds_and_undo_brings_it_back() {
        let (dir, ws) = workspace();
        let root = dir.path().join("ws");
        fs::write(root.join("x.bin"), b"\0\x01binary").unwrap();
        let opts = MutationOptions::default();
        let result = ws
            .apply_patch(&wrap("*** Delete File: x.bin\n"), &opts)
            .unwrap();
        assert!(!root.join("x.bin").exists());
        ws.undo(result.operation_id.as_deref().unwrap(), &opts)
            .unwrap();
        assert_eq!(fs::read(root.join("x.bin")).unwrap(), b"\0\x01binary");
    }

    #[test]
    fn an_added_file_without_lines_is_empty() {
        let (dir, ws) = workspace();
        ws.apply_patch(
            &wrap("*** Add File: empty.txt\n"),
            &MutationOptions::default(),
        )
        .unwrap();
        assert_eq!(fs::read(dir.path().join("ws/empty.txt")).unwrap(), b"");
    }
}
