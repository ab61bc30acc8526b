//! One matched window rewritten: each new line at the file's indentation, kept lines as the
//! file has them, and a refusal that names the line and the reason when a line's
//! indentation cannot be inferred.

use super::indent::{
    Frame, Steps, Why, amount, block_comment_lines, continuation_lines, indented, list_item_lines,
};
use super::pairing::{Pairing, Source, kept_as_is};
use super::{leading_ws, trailing_ws};
use crate::{Code, Error};

/// What one matched window becomes.
pub(super) struct Rewrite {
    pub(super) lines: Vec<String>,
    /// For each line, the window's line (0-based within it) whose line end it keeps.
    pub(super) ends: Vec<Option<usize>>,
    /// How many lines are the file's own lines, byte for byte.
    pub(super) kept: usize,
    /// How many lines are the new text's lines exactly as the caller wrote them.
    pub(super) given: usize,
    /// Lines written otherwise than the caller wrote them: index in `lines`, and how.
    pub(super) reindented: Vec<(usize, String)>,
}

/// A refused window: which new line, near which file line, and why.
pub(super) struct Refusal {
    /// The line of the new text (1-based) as the window has it, without the blank lines the
    /// new text starts with that stand for the old text's (`lead`, in [`Refusal::into_error`]).
    pub(super) line: usize,
    pub(super) file_line: usize,
    pub(super) subject: Subject,
    pub(super) why: Why,
}

/// What a refusal is about.
pub(super) enum Subject {
    /// What follows "line N of the new text" in the message (" is inserted after file line
    /// 5"), its own space or comma first.
    Line(String),
    /// The whole of the new text.
    Text(String),
}

impl Refusal {
    /// The error, with the refusal's line counted in the whole new text, where `lead` blank
    /// lines come before the window's first.
    pub(super) fn into_error(self, path: &str, lead: usize) -> Error {
        // Two pairings may differ in a line's end as well as its indentation.
        let unknown = match self.why.reason {
            "pairing_ambiguous" => "which of them the caller meant",
            _ => "its indentation in the file",
        };
        let line = self.line + lead;
        let subject = match self.subject {
            Subject::Line(does) => format!("line {line} of the new text{does}"),
            Subject::Text(text) => text,
        };
        Error::new(
            Code::NoMatch,
            format!(
                "{subject}, but {}, so {unknown} cannot be inferred; nothing was written",
                self.why.text
            ),
        )
        .path(path)
        .with("line", line)
        .with("file_line", self.file_line)
        .with("reason", self.why.reason)
        .recovery(
            "re-read the lines and send the old text with the file's exact indentation, or replace the lines by their numbers",
        )
    }
}

/// Rewrites one window: `file` holds its lines as the file has them (starting at 0-based line
/// `at`), `old` the old text's lines they matched, `new` the new text's lines and `sources`
/// where each comes from.
pub(super) fn rewrite(
    file: &[&str],
    at: usize,
    steps: Steps,
    old: &[String],
    new: &[String],
    pairing: &Pairing,
) -> Result<Rewrite, Refusal> {
    let sources = &pairing.sources;
    let frame = Frame::new(file, old, at, steps, Steps::of_caller(old, new, sources));
    // In an inconsistent frame a changed line is placed by the file line it takes the place
    // of. Pairing a block's lines in order is what the caller wrote only when the block has as
    // many non-blank new lines as old ones; with another number, which new line replaces
    // which old one is a guess, and it decides the indentation unless the file indents every
    // old line of the block alike.
    if let Some(conflict) = &frame.conflict {
        for (olds, news) in &pairing.blocks {
            let (Some(&i), Some(&j)) = (olds.first(), news.first()) else {
                continue;
            };
            if olds.len() == news.len()
                || olds
                    .iter()
                    .all(|&k| leading_ws(file[k]) == leading_ws(file[i]))
            {
                continue;
            }
            let count = |n: usize| {
                if n == 1 {
                    "1 non-blank line".to_owned()
                } else {
                    format!("{n} non-blank lines")
                }
            };
            let last = *olds.last().expect("not empty");
            return Err(Refusal {
                line: j + 1,
                file_line: at + i + 1,
                subject: Subject::Line(format!(
                    " begins a changed block of {} that takes the place of {} at file lines {}-{}, which the file indents differently",
                    count(news.len()),
                    count(olds.len()),
                    at + i + 1,
                    at + last + 1
                )),
                why: Why {
                    reason: "indentation_ambiguous",
                    text: format!(
                        "which file line each new line takes the place of is a guess, and the old text's indentation does not follow the file's ({conflict})"
                    ),
                },
            });
        }
    }
    let mut lines: Vec<Option<String>> = vec![None; new.len()];
    // The indentation written for each non-blank line paired with an old line: the anchors
    // of inserted lines.
    let mut anchors: Vec<Option<(String, usize)>> = vec![None; new.len()];
    let is_kept = |j: usize| kept_as_is(new, old, sources, j);
    let aligned = continuation_lines(new.iter().map(String::as_str));
    let aligned_old = continuation_lines(old.iter().map(String::as_str));
    let commented = block_comment_lines(new.iter().map(String::as_str), true);
    let commented_old = block_comment_lines(old.iter().map(String::as_str), true);
    // A list item's content is placed from its item like a continuation line, but shows
    // levels to the frame as any line does (what is nested in it is a level deeper).
    let items = list_item_lines(new.iter().map(String::as_str));
    let items_old = list_item_lines(old.iter().map(String::as_str));
    let either =
        |a: &[bool], b: &[bool]| -> Vec<bool> { a.iter().zip(b).map(|(a, b)| *a || *b).collect() };
    let (placed_new, placed_old) = (either(&aligned, &items), either(&aligned_old, &items_old));
    // A continuation or comment line is placed from the line it continues (its opener),
    // after every line at a level is placed, and a line at a level is never measured from
    // one (`b):` closing `if (a and` is at the caller's 12 and the file's 8, and a body
    // line after it at 12 is one level in from the `if`, not 8). A list item's content
    // stands under its text, and what is nested in it is measured from it.
    let old_openers = openers(old, &placed_old, &commented_old, &items_old);
    let openers = openers(new, &placed_new, &commented, &items);
    let paired = || {
        new.iter()
            .enumerate()
            .filter_map(|(j, n)| match sources[j] {
                Source::Equal(i) | Source::Changed(i) if !n.trim().is_empty() => Some((n, i)),
                _ => None,
            })
    };
    // A paired line the file indents otherwise than the old text, written at the file's
    // indentation, shows a caller that may be writing in the file's frame; one written at the
    // old text's indentation shows one writing in the old text's frame. With the first and
    // not the second, a changed line is written as given in one reading and moved by the
    // difference in the other.
    let differs = |i: usize| leading_ws(&old[i]) != leading_ws(file[i]);
    let at_files = paired().find(|&(n, i)| differs(i) && leading_ws(n) == leading_ws(file[i]));
    let at_olds = paired().any(|(n, i)| differs(i) && leading_ws(n) == leading_ws(&old[i]));
    let in_file_frame = at_files
        .filter(|_| !at_olds)
        .map(|(n, i)| (leading_ws(n), i));
    // A continuation or comment line `j`, whose opener `o` the file has at `fo`: where both
    // stand for old lines that the old text has the same way (the same columns past their
    // opener), it keeps the file's columns past the opener; else, where it stands under the
    // opener's text (not a hanging indent), the caller's columns past the opener are the
    // file's; else it is converted from the opener.
    // Whether the old text's continuation lines stand as many columns past their openers as
    // the file's do: where they do not (the caller's arguments 4 in, the file's 8), the
    // caller's columns past an opener are not the file's.
    // (A hanging line's step is the file's style, not a column under text, and is left out.)
    let columns_agree = (0..old.len()).all(|i| match old_openers[i] {
        Some(io) if !old[i].trim().is_empty() && !hanging(old, &aligned_old, &items_old, io, i) => {
            columns_past(leading_ws(&old[i]), leading_ws(&old[io]))
                == columns_past(leading_ws(file[i]), leading_ws(file[io]))
        }
        _ => true,
    });
    let continued = |j: usize, o: usize, fo: &str| -> Result<String, Why> {
        let (c, co) = (leading_ws(&new[j]), leading_ws(&new[o]));
        if let (Source::Equal(i) | Source::Changed(i), Source::Equal(io) | Source::Changed(io)) =
            (sources[j], sources[o])
            && old_openers[i] == Some(io)
            && let Some(past) = columns_past(c, co)
            && columns_past(leading_ws(&old[i]), leading_ws(&old[io])) == Some(past)
            && let Some(file_past) = columns_past(leading_ws(file[i]), leading_ws(file[io]))
            && let Some(indent) = moved(fo, file_past)
        {
            return Ok(indent);
        }
        // A line at the caller's columns past the opener of other lines of the same opener
        // that stand for old lines as far past the old opener (the next argument of a list,
        // above it or below) goes as far past the opener as the file has them, where the
        // file has them all alike.
        if let Source::Equal(io) | Source::Changed(io) = sources[o]
            && let Some(past) = columns_past(c, co)
        {
            let mut places = (0..new.len())
                .filter(|&k| k != j && openers[k] == Some(o))
                .filter_map(|k| match sources[k] {
                    Source::Equal(i) | Source::Changed(i) => Some(i),
                    Source::Inserted => None,
                })
                .filter(|&i| {
                    old_openers[i] == Some(io)
                        && columns_past(leading_ws(&old[i]), leading_ws(&old[io])).as_ref()
                            == Some(&past)
                })
                .map(|i| columns_past(leading_ws(file[i]), leading_ws(file[io])));
            if let Some(first) = places.next()
                && places.all(|place| place == first)
                && let Some(indent) = first.and_then(|first| moved(fo, first))
            {
                return Ok(indent);
            }
        }
        let hanging = hanging(new, &aligned, &items, o, j);
        // Columns under the opener's text are the file's columns: a comment's ` * ` under
        // its `/*`, a list item's content under its text, and an argument under the first
        // where the old text's arguments show the caller's columns to be the file's and no
        // whole number of the caller's levels makes them (else they are converted below,
        // which refuses a scaled frame).
        let starred = commented[j] && new[j].trim_start().starts_with('*');
        if let Some(past) = c.strip_prefix(co)
            && past.chars().all(|ch| ch == ' ')
            && (starred
                || (columns_agree
                    && !commented[j]
                    && (items[j] || (!hanging && !frame.levels_could_make(past.len() as i64)))))
        {
            return Ok(format!("{fo}{past}"));
        }
        // A line that stands for an old one otherwise is converted from it, as a line at a
        // level is (its own old line is the nearest thing to it the file shows).
        match sources[j] {
            Source::Equal(i) | Source::Changed(i) => frame.convert(
                c,
                leading_ws(&old[i]),
                leading_ws(file[i]),
                aligned[j],
                aligned_old[i],
                commented[j],
            ),
            Source::Inserted => frame.measured_from_opener(c, co, fo, hanging, columns_agree),
        }
    };
    for (j, n) in new.iter().enumerate() {
        if n.trim().is_empty() {
            lines[j] = Some(match sources[j] {
                Source::Equal(i) if is_kept(j) => file[i].to_owned(),
                // A blank line whose whitespace the caller changed is written as given.
                Source::Equal(_) => n.clone(),
                _ => String::new(),
            });
            continue;
        }
        let i = match sources[j] {
            Source::Equal(i) | Source::Changed(i) => i,
            Source::Inserted => continue,
        };
        let (c, c0, f0) = (leading_ws(n), leading_ws(&old[i]), leading_ws(file[i]));
        if is_kept(j) {
            lines[j] = Some(file[i].to_owned());
            // A continuation or comment line kept as it is is no anchor of a line at a
            // level (a list item's content is: what is nested in it is measured from it).
            if openers[j].is_none() || items[j] {
                anchors[j] = Some((f0.to_owned(), at + i + 1));
            }
            continue;
        }
        if openers[j].is_some() {
            continue;
        }
        let indent = frame.convert(c, c0, f0, aligned[j], aligned_old[i], commented[j]).map_err(|why| Refusal {
            line: j + 1,
            file_line: at + i + 1,
            subject: Subject::Line(format!(", which takes the place of file line {}, is {} where the old text's line is {}", at + i + 1,
                indented(c),
                indented(c0))),
            why,
        })?;
        // In the file's frame the line is written as given; in the old text's it moves. Two
        // files fit, so it is refused. Before 2026-12-04 only a new text whose every paired
        // line was at the file's indentation was refused, and one line indented or wrapped
        // in the file's frame moved every line by the difference.
        if let Some((shown, shown_at)) = in_file_frame
            && c != c0
            && indent != c
        {
            return Err(Refusal {
                line: j + 1,
                file_line: at + i + 1,
                subject: Subject::Line(format!(
                    " is {} where the old text's line is {}, and the new text is at the file's indentation where the old text is not ({} as file line {} is)",
                    indented(c),
                    indented(c0),
                    amount(shown),
                    at + shown_at + 1
                )),
                why: Why {
                    reason: "indentation_ambiguous",
                    text: format!(
                        "it may be written as given (the file's frame) or moved by the difference (the old text's), which leaves it {}",
                        indented(&indent)
                    ),
                },
            });
        }
        // A line the caller moved and did not otherwise change is the file's after its
        // indentation, trailing whitespace included, as where it is not moved: the old
        // text's trailing whitespace may differ from the file's, and the caller changed none.
        let body = match sources[j] {
            Source::Equal(i) if trailing_ws(n) == trailing_ws(&old[i]) => file[i].trim_start(),
            _ => n.trim_start(),
        };
        lines[j] = Some(format!("{indent}{body}"));
        anchors[j] = Some((indent, at + i + 1));
    }
    // The nearest anchor before and after each line, found in one pass each way.
    let mut after_of = vec![None; new.len()];
    let mut next = None;
    for j in (0..new.len()).rev() {
        after_of[j] = next;
        if anchors[j].is_some() {
            next = Some(j);
        }
    }
    let mut previous = None;
    for (j, n) in new.iter().enumerate() {
        let before = previous;
        if anchors[j].is_some() {
            previous = Some(j);
        }
        if lines[j].is_some() {
            continue;
        }
        let c = leading_ws(n);
        let paired = match sources[j] {
            Source::Equal(i) | Source::Changed(i) => Some(i),
            Source::Inserted => None,
        };
        if let Some(o) = openers[j] {
            let fo = leading_ws(lines[o].as_deref().expect("an opener is placed before"));
            let indent = continued(j, o, fo).map_err(|why| Refusal {
                line: j + 1,
                file_line: paired.map_or(at + 1, |i| at + i + 1),
                subject: Subject::Line(format!(
                    "{} continues line {} of the new text",
                    paired.map_or(String::new(), |i| format!(
                        ", which takes the place of file line {},",
                        at + i + 1
                    )),
                    o + 1
                )),
                why,
            })?;
            let body = match sources[j] {
                Source::Equal(i) if trailing_ws(n) == trailing_ws(&old[i]) => file[i].trim_start(),
                _ => n.trim_start(),
            };
            lines[j] = Some(format!("{indent}{body}"));
            if items[j] {
                let file_line = paired
                    .map(|i| at + i + 1)
                    .or_else(|| before.and_then(|b| anchors[b].as_ref().map(|(_, line)| *line)));
                anchors[j] = Some((indent, file_line.unwrap_or(at + 1)));
                previous = Some(j);
            }
            continue;
        }
        let after = after_of[j];
        let refusal = |file_line: usize, place: &str, why: Why| Refusal {
            line: j + 1,
            file_line,
            subject: Subject::Line(format!(" is inserted {place} file line {file_line}")),
            why,
        };
        let Some(anchor) = before.or(after) else {
            return Err(Refusal {
                line: j + 1,
                file_line: at + 1,
                subject: Subject::Line(" is inserted".to_owned()),
                why: Why {
                    reason: "no_anchor",
                    text: "no line of the new text corresponds to a line of the old text"
                        .to_owned(),
                },
            });
        };
        let place = if before.is_some() { "after" } else { "before" };
        let (f0, file_line) = anchors[anchor].clone().expect("an anchor");
        let indent = if let Some(conflict) = &frame.conflict {
            // Between two lines at the caller's same level that the file indents alike, the
            // line takes that level; anywhere else the caller's levels mean nothing.
            match (before, after) {
                (Some(b), Some(a))
                    if leading_ws(&new[b]) == c
                        && leading_ws(&new[a]) == c
                        && anchors[b].as_ref().map(|x| &x.0)
                            == anchors[a].as_ref().map(|x| &x.0) =>
                {
                    f0
                }
                _ => {
                    return Err(refusal(file_line, place, Frame::inconsistent(conflict)));
                }
            }
        } else {
            frame
                .convert(
                    c,
                    leading_ws(&new[anchor]),
                    &f0,
                    aligned[j],
                    aligned[anchor],
                    commented[j],
                )
                .map_err(|why| refusal(file_line, place, why))?
        };
        lines[j] = Some(format!("{indent}{}", n.trim_start()));
    }
    let lines: Vec<String> = lines.into_iter().map(|l| l.expect("every line")).collect();
    let (mut kept, mut given, mut reindented) = (0, 0, Vec::new());
    for (j, (line, n)) in lines.iter().zip(new).enumerate() {
        if is_kept(j) {
            kept += 1;
        } else if line == n {
            given += 1;
        } else if line.is_empty() {
            reindented.push((j, "empty".to_owned()));
        } else {
            reindented.push((j, amount(leading_ws(line))));
        }
    }
    // A line that stands for a file line (equal to it, or changed in its place) keeps that
    // line's line end; inserted lines take the window's.
    let ends = sources
        .iter()
        .map(|source| match *source {
            Source::Equal(i) | Source::Changed(i) => Some(i),
            Source::Inserted => None,
        })
        .collect();
    Ok(Rewrite {
        lines,
        ends,
        kept,
        given,
        reindented,
    })
}

/// For each line of `text` that continues another or lies in a block comment (`aligned`,
/// `commented`), the nearest non-blank line before it that does neither: the line it
/// continues, whose place in the file it is measured from.
fn openers(
    text: &[String],
    aligned: &[bool],
    commented: &[bool],
    items: &[bool],
) -> Vec<Option<usize>> {
    // The last line at a level, and the last line outside a block comment (a comment's
    // lines are measured from the line that opens it, a continuation line or not).
    let (mut level, mut code) = (None, None);
    let mut out = Vec::with_capacity(text.len());
    for (j, line) in text.iter().enumerate() {
        if line.trim().is_empty() {
            out.push(None);
            continue;
        }
        if commented[j] {
            out.push(code);
            continue;
        }
        code = Some(j);
        if items[j] {
            // A list item's content is measured from its item: the `- ` line two columns
            // left of it, which a nested item's lines may stand between.
            let width = leading_ws(line).len();
            out.push((0..j).rev().find(|&k| {
                let ws = leading_ws(&text[k]);
                ws.len() + 2 == width && text[k][ws.len()..].starts_with("- ")
            }));
        } else if aligned[j] {
            out.push(level);
        } else {
            level = Some(j);
            out.push(None);
        }
    }
    out
}

/// How far `ws` stands past `from`, both indentations: the characters it adds to `from`, or
/// as a count of one character on both, which may be negative. `None` where neither reads.
fn columns_past(ws: &str, from: &str) -> Option<Past> {
    if let Some(past) = ws.strip_prefix(from) {
        return Some(Past::Adds(past.to_owned()));
    }
    let one = |s: &str| {
        let ch = s.chars().next()?;
        s.chars().all(|c| c == ch).then_some(ch)
    };
    match (one(ws), one(from)) {
        (Some(a), Some(b)) if a == b => Some(Past::By(
            a,
            ws.chars().count() as i64 - from.chars().count() as i64,
        )),
        _ => None,
    }
}

#[derive(PartialEq, Debug)]
enum Past {
    Adds(String),
    By(char, i64),
}

/// `fo` moved as `past` says; `None` where it cannot be (fewer characters than taken away,
/// or another character).
fn moved(fo: &str, past: Past) -> Option<String> {
    match past {
        Past::Adds(more) => Some(format!("{fo}{more}")),
        Past::By(ch, by) => {
            let n = fo.chars().count() as i64 + by;
            (fo.chars().all(|c| c == ch) && n >= 0).then(|| ch.to_string().repeat(n as usize))
        }
    }
}

/// Whether continuation line `j` of `text` stands a step in from its opener `o` (a hanging
/// indent: a bracket ends a line from the opener on, and no `\\` does), rather than under
/// its text.
fn hanging(text: &[String], aligned: &[bool], items: &[bool], o: usize, j: usize) -> bool {
    let ends_with = |k: usize, chars: &[char]| {
        let code = text[k].trim_end();
        chars.iter().any(|&ch| code.ends_with(ch))
    };
    aligned[j]
        && !items[j]
        && !(o..j).any(|k| ends_with(k, &['\\']))
        && (o..j).any(|k| ends_with(k, &['(', '[', '{']))
}
