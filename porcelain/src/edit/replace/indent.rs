//! How the caller's indentation maps to the file's: the frame of levels the matched lines
//! show, the ratio between them, the step each side indents by, and the scan of code that
//! tells a level from an alignment (continuation lines, block comments).

use super::leading_ws;
use super::pairing::Source;
use std::collections::{HashMap, HashSet};

/// Why a new line's indentation cannot be inferred.
pub(super) struct Why {
    pub(super) reason: &'static str,
    pub(super) text: String,
}

/// How the old text's indentation relates to the file's, learnt from the matched non-blank
/// lines: each indentation of the old text and the file's indentation of the same line.
pub(super) struct Frame<'a> {
    /// The file's indentation for each indentation of the old text.
    map: HashMap<&'a str, &'a str>,
    /// The old text's indentations that a line at a level shows (not a continuation line's, a
    /// block comment's or a list item's content alone, which stand under what they
    /// continue): the entries of the map that place a new line at a level.
    placing: HashSet<&'a str>,
    /// Whether every indentation of the old text is the file's own.
    identity: bool,
    /// The one character each side indents with, over the map.
    caller_unit: Unit,
    file_unit: Unit,
    /// Characters of the file per character of the old text, as the map's levels show it
    /// (numerator, denominator); `None` with fewer than two levels; an explanation when the
    /// steps between levels disagree.
    ratio: Option<Result<(i64, i64), String>>,
    /// Why the old text's indentation does not follow the file's: two lines the old text
    /// indents alike that the file does not, two the file indents alike that the old text does
    /// not, or two in opposite order. `None` when the frame is consistent.
    pub(super) conflict: Option<String>,
    /// How many levels the map holds: a ratio of 1 that fewer than three show is taken only
    /// where the caller's texts and the file indent by the same step.
    levels: usize,
    /// The whole file's step of indentation, and the one the caller's texts show.
    file_steps: Steps,
    caller_steps: Steps,
    /// The old text's step between the map's levels (the greatest common divisor of the
    /// steps between neighbouring ones, in characters; 0 with fewer than two levels): a
    /// scaled change must be a whole number of them.
    level_step: i64,
}

impl<'a> Frame<'a> {
    pub(super) fn new(
        file: &[&'a str],
        old: &'a [String],
        at: usize,
        file_steps: Steps,
        caller_steps: Steps,
    ) -> Frame<'a> {
        // old text's indentation -> (file's, file line), and the reverse.
        let mut by_caller: HashMap<&str, (&str, usize)> = HashMap::new();
        let mut by_file: HashMap<&str, (&str, usize)> = HashMap::new();
        let mut conflict = None;
        // A continuation line and a block comment's line stand where they align, not at a
        // level: they are in the map (a new line at an argument's indentation goes where the
        // file has that argument), but show no step of the ratio. Counted as levels, a doc
        // comment's ` */` (1 space against 1) broke the ratio that the code's levels showed
        // (2 against 4), and the edit was refused.
        let aligned = continuation_lines(old.iter().map(String::as_str));
        let commented = block_comment_lines(old.iter().map(String::as_str), true);
        let items = list_item_lines(old.iter().map(String::as_str));
        let mut rungs: HashSet<&str> = HashSet::new();
        let mut placing: HashSet<&str> = HashSet::new();
        for (i, (f, o)) in file.iter().zip(old).enumerate() {
            if o.trim().is_empty() {
                continue;
            }
            let (c, f, line) = (leading_ws(o), leading_ws(f), at + i + 1);
            if !aligned[i] && !commented[i] {
                rungs.insert(c);
                if !items[i] {
                    placing.insert(c);
                }
            }
            if let Some(&(f2, l2)) = by_caller.get(c) {
                if f2 != f && conflict.is_none() {
                    conflict = Some(format!(
                        "file line {line} is {} where the old text has {}, as it has for file line {l2}, which is {}",
                        indented(f),
                        amount(c),
                        indented(f2)
                    ));
                }
                continue;
            }
            if let Some(&(c2, l2)) = by_file.get(f)
                && conflict.is_none()
            {
                conflict = Some(format!(
                    "file lines {l2} and {line} are both {}, where the old text has {} and {}",
                    indented(f),
                    amount(c2),
                    amount(c)
                ));
            }
            by_caller.insert(c, (f, line));
            by_file.entry(f).or_insert((c, line));
        }
        let mut levels: Vec<(&str, &str, usize)> =
            by_caller.iter().map(|(c, (f, l))| (*c, *f, *l)).collect();
        levels.sort_by_key(|l| (width(l.0), l.2));
        if conflict.is_none() {
            conflict = levels.windows(2).find_map(|w| {
                let ((c1, f1, l1), (c2, f2, l2)) = (w[0], w[1]);
                (width(c1) == width(c2) || width(f1) >= width(f2)).then(|| {
                    format!(
                        "file lines {l1} and {l2} are {} and {}, where the old text has {} and {}, which does not order them the same way",
                        indented(f1),
                        indented(f2),
                        amount(c1),
                        amount(c2)
                    )
                })
            });
        }
        let caller_unit = unit(levels.iter().map(|l| l.0));
        let file_unit = unit(levels.iter().map(|l| l.1));
        let identity = levels.iter().all(|(c, f, _)| c == f);
        let map = by_caller.into_iter().map(|(c, (f, _))| (c, f)).collect();
        // The ratio is read off the levels alone.
        levels.retain(|(c, ..)| rungs.contains(c));
        let ratio = match (caller_unit, file_unit) {
            (Unit::One(cu), Unit::One(fu)) if levels.len() >= 2 && conflict.is_none() => {
                let count = |s: &str| s.chars().count() as i64;
                let steps: Vec<(i64, i64)> = levels
                    .windows(2)
                    .map(|w| (count(w[1].0) - count(w[0].0), count(w[1].1) - count(w[0].1)))
                    .collect();
                let (dc, df) = steps[0];
                Some(
                    match steps.iter().find(|&&(dc2, df2)| dc2 * df != df2 * dc) {
                        Some(&(dc2, df2)) => Err(format!(
                            "the old text's levels of indentation do not map to the file's by one ratio ({} against {} in one step, {} against {} in another)",
                            amount_of(cu, dc),
                            amount_of(fu, df),
                            amount_of(cu, dc2),
                            amount_of(fu, df2)
                        )),
                        None => {
                            let g = gcd(dc, df);
                            let ratio = (df / g, dc / g);
                            if ratio != (1, 1) && levels.len() == 2 {
                                // One step fits a different unit of indentation as well as
                                // a line copied without its indentation (0 -> 4, 8 -> 8:
                                // ratio 1/2, or ratio 1 and the first line's 4 lost), and
                                // the two place a new level differently.
                                let ((c1, f1, _), (c2, f2, _)) = (levels[0], levels[1]);
                                Err(format!(
                                    "the matched lines show only two levels of indentation ({} where the file has {}, {} where it has {}): one step cannot tell a ratio of {} of the file's to {} of the old text's from a line copied without its indentation, and a third level would",
                                    amount(c1),
                                    amount(f1),
                                    amount(c2),
                                    amount(f2),
                                    amount_of(fu, ratio.0),
                                    amount_of(cu, ratio.1)
                                ))
                            } else {
                                Ok(ratio)
                            }
                        }
                    },
                )
            }
            _ => None,
        };
        let level_step = levels.windows(2).fold(0, |step, w| {
            let count = |s: &str| s.chars().count() as i64;
            gcd(step, count(w[1].0) - count(w[0].0))
        });
        Frame {
            level_step,
            identity,
            map,
            placing,
            caller_unit,
            file_unit,
            ratio,
            conflict,
            levels: levels.len(),
            file_steps,
            caller_steps,
        }
    }

    /// The map in words: "2 spaces where the file has 8 spaces, ...", by the old text's width.
    fn map_shown(&self) -> String {
        let mut pairs: Vec<(&&str, &&str)> = self.map.iter().collect();
        pairs.sort_by_key(|(c, _)| width(c));
        pairs
            .iter()
            .enumerate()
            .map(|(k, (c, f))| {
                let has = if k == 0 { "the file has" } else { "it has" };
                format!("{} where {has} {}", amount(c), amount(f))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub(super) fn inconsistent(conflict: &str) -> Why {
        Why {
            reason: "indentation_ambiguous",
            text: format!("the old text's indentation does not follow the file's ({conflict})"),
        }
    }

    /// The file's indentation for a line the caller indents by `c`, where a line the caller
    /// indents by `c0` has `f0` in the file.
    /// `aligned`: the line is a continuation line; `from_aligned`: so is the line it is
    /// measured from; `commented`: the line is a block comment's.
    pub(super) fn convert(
        &self,
        c: &str,
        c0: &str,
        f0: &str,
        aligned: bool,
        from_aligned: bool,
        commented: bool,
    ) -> Result<String, Why> {
        if c == c0 {
            return Ok(f0.to_owned());
        }
        if let Some(conflict) = &self.conflict {
            return Err(Frame::inconsistent(conflict));
        }
        // Scaled, a continuation line has two readings: its indentation is columns under
        // what it continues (moved, not scaled) and it is levels (scaled). Before
        // 2026-12-04 the levels were taken, and an argument aligned under the first was
        // written twice as far in.
        if let Some(Ok(ratio)) = self.ratio
            && ratio != (1, 1)
            && (aligned || from_aligned)
        {
            return Err(self.scaled_continuation());
        }
        let entry = self.map.get(c).copied();
        if let Some(f) = entry
            && (aligned || commented || self.placing.contains(c))
        {
            return Ok(f.to_owned());
        }
        // Only aligned lines (continuation lines, a block comment's) put `c` in the map, and
        // the line is at a level: an alignment is
        // no level (`x = call(` at 2 spaces with its argument at 4, where the file has 4 and
        // 12: a `return x` at the caller's 4 is 8 in the file, not 12), so the levels decide.
        // Where they cannot, the aligned line's place is taken only as a level of the file's:
        // a `go` import block's argument is the only indented line that maps the caller's
        // spaces to the file's tab. Before 2026-12-05 the alignment was taken as given.
        let by_levels = self.by_levels(c, c0, f0, aligned, from_aligned);
        match entry {
            Some(f) if by_levels.is_err() && self.is_a_level(c, f) => Ok(f.to_owned()),
            _ => by_levels,
        }
    }

    /// The file's indentation for a continuation or comment line the caller indents by `c`,
    /// where the line it continues (its opener) is `co` in the new text and `fo` in the file,
    /// when neither its old line nor its columns under the opener place it (`rewrite`):
    /// measured from the opener, never from a line of another statement (an argument was
    /// measured from the previous call's last argument, and landed under nothing). A
    /// `hanging` line (its bracket ends a line, so it stands a step in, not under text) is
    /// moved by columns only where the old text's indentation is the file's moved by one
    /// amount: elsewhere its step may be columns or a level. Where the old text's
    /// continuation lines stand other columns past their openers than the file's
    /// (`columns_agree` false), no column is the file's, and it is refused.
    pub(super) fn measured_from_opener(
        &self,
        c: &str,
        co: &str,
        fo: &str,
        hanging: bool,
        columns_agree: bool,
    ) -> Result<String, Why> {
        if let Some(conflict) = &self.conflict {
            return Err(Frame::inconsistent(conflict));
        }
        if c == co {
            return Ok(fo.to_owned());
        }
        if !columns_agree {
            return Err(Why {
                reason: "indentation_ambiguous",
                text: format!(
                    "the old text's continuation lines stand other columns past the lines they continue than the file's do ({}), so the caller's columns past this line's are not the file's",
                    self.map_shown()
                ),
            });
        }
        if let Some(Ok(ratio)) = self.ratio
            && ratio != (1, 1)
        {
            return Err(self.scaled_continuation());
        }
        if hanging && !self.moves_by_one_amount(co, fo) {
            return Err(Why {
                reason: "indentation_ambiguous",
                text: format!(
                    "the line stands a step in from the line it continues, which may be columns or a level, and the old text's indentation is not the file's moved by one amount ({})",
                    self.map_shown()
                ),
            });
        }
        self.by_levels(c, co, fo, true, false)
    }

    /// Why a continuation line's change is not converted where the levels are scaled.
    fn scaled_continuation(&self) -> Why {
        Why {
            reason: "indentation_ambiguous",
            text: format!(
                "the old text's levels are scaled to the file's ({}), and a continuation line's indentation may be columns under the line it continues, which are not scaled, as well as levels, which are",
                self.map_shown()
            ),
        }
    }

    /// Whether `width` spaces past an opener may be a whole number of the caller's levels (the
    /// old text's step between its levels, else the texts' step): unknown steps may.
    pub(super) fn levels_could_make(&self, width: i64) -> bool {
        let step = if self.level_step > 0 {
            self.level_step
        } else {
            self.caller_steps.of_unit(' ')
        };
        step == 0 || width % step == 0
    }

    /// Whether every indentation of the map, and `c` against `f`, is the file's moved by one
    /// amount of one character: the frames differ by an offset, and columns are columns.
    fn moves_by_one_amount(&self, c: &str, f: &str) -> bool {
        let count = |s: &str| s.chars().count() as i64;
        let mut shift = None;
        self.map
            .iter()
            .map(|(c, f)| (*c, *f))
            .chain([(c, f)])
            .all(|(c, f)| {
                let one = !matches!(unit([c, f].into_iter()), Unit::Mixed);
                let by = count(f) - count(c);
                one && *shift.get_or_insert(by) == by
            })
    }

    /// Whether the file's `f`, where the old text has `c` on an aligned line, is as many of
    /// the file's steps as `c` is of the caller's (with no step of the file's to hold it
    /// against, `c` must be one step of the caller's; column 0 is level 0 on both sides).
    fn is_a_level(&self, c: &str, f: &str) -> bool {
        if c.is_empty() || f.is_empty() {
            // Column 0 is level 0 in any frame, and in no other place.
            return c == f;
        }
        let (Unit::One(cu), Unit::One(fu)) = (unit([c].into_iter()), unit([f].into_iter())) else {
            return false;
        };
        let (cs, fs) = (self.caller_steps.of_unit(cu), self.file_steps.of_unit(fu));
        let count = |s: &str| s.chars().count() as i64;
        if cs == 0 || count(c) % cs != 0 {
            return false;
        }
        let levels = count(c) / cs;
        if fs > 0 {
            count(f) == levels * fs
        } else {
            levels == 1
        }
    }

    /// The file's indentation for a line at a level, read off the map's levels: `convert`
    /// past the lines the map places as they are.
    fn by_levels(
        &self,
        c: &str,
        c0: &str,
        f0: &str,
        aligned: bool,
        from_aligned: bool,
    ) -> Result<String, Why> {
        if self.identity && c0 == f0 {
            // The old text's indentation is the file's own.
            return Ok(c.to_owned());
        }
        let caller = [c, c0]
            .into_iter()
            .fold(self.caller_unit, |u, s| u.join(unit([s].into_iter())));
        let file = self.file_unit.join(unit([f0].into_iter()));
        let (caller, file) = match (caller, file) {
            (Unit::Mixed, _) => return Err(mixed("the old and new texts mix")),
            (_, Unit::Mixed) => return Err(mixed("the file's matched lines mix")),
            (_, Unit::None) => {
                return Err(Why {
                    reason: "indentation_ambiguous",
                    text: "no matched line of the file is indented, so the file's unit of indentation is unknown".to_owned(),
                });
            }
            (Unit::None, _) => unreachable!("c differs from c0, so one of them is indented"),
            (Unit::One(c), Unit::One(f)) => (c, f),
        };
        let count = |s: &str| s.chars().count() as i64;
        let delta = count(c) - count(c0);
        let (num, den) = match &self.ratio {
            Some(Ok(ratio)) => *ratio,
            Some(Err(text)) => {
                return Err(Why {
                    reason: "indentation_ambiguous",
                    text: text.clone(),
                });
            }
            None if caller == file => (1, 1),
            None => {
                return Err(Why {
                    reason: "tabs_and_spaces",
                    text: format!(
                        "the old text indents with {} and the file with {}, and the matched lines show only one level of indentation, so one cannot be converted into the other",
                        unit_name(caller, true),
                        unit_name(file, true)
                    ),
                });
            }
        };
        // A ratio of 1 that fewer than three levels show is an assumption: the caller
        // indents as the file does. Texts that indent by another step than the file show the
        // contrary (the old text at 2 spaces against the file's 8 in a file indented by 4,
        // and a line moved 2 left: one level, or 2 spaces?).
        // The change itself is part of what the caller shows (an inserted line's own step
        // from its neighbour is in no other count), unless it is measured from a
        // continuation line, whose indentation is alignment. A continuation line's own
        // change is alignment, by columns: it is held to no step.
        let cs = match (self.caller_steps.of_unit(caller), from_aligned) {
            (cs, true) => cs,
            (0, false) => delta.abs(),
            (cs, false) => gcd(cs, delta),
        };
        // A file whose increases of indentation show no one step (as many of 2 as of 4)
        // corroborates no step of the caller's either.
        let fs = self.file_steps.of_unit(file);
        let against = if fs > 0 && cs != fs {
            Some(format!(
                "the old and new texts indent by steps of {} where the file indents by {}: one of theirs may be one of the file's",
                amount_of(caller, cs),
                amount_of(file, fs)
            ))
        } else if fs == 0 && self.file_steps.rises_with(file) {
            Some(format!(
                "the file's increases of indentation show no one step to hold the old and new texts' step of {} against",
                amount_of(caller, cs)
            ))
        } else {
            None
        };
        if (num, den) == (1, 1)
            && self.levels < 3
            && !aligned
            && cs > 0
            && let Some(against) = against
        {
            return Err(Why {
                reason: "indentation_ambiguous",
                text: format!(
                    "the matched lines show {} of indentation ({}), too few to show how the old text's indentation maps to the file's, and {against}",
                    if self.levels == 1 {
                        "one level"
                    } else {
                        "two levels"
                    },
                    self.map_shown(),
                ),
            });
        }
        // Nor does a file that shows no step of its own (its lines at one level) tell
        // an offset from a scale where the old text's indentation is some of the file's: the
        // old text at 1 space where the file has 2 is the file's level less one space, or half
        // of it, and a line moved 1 space left lands at 1 space or at none. Before 2026-12-04
        // the offset was taken.
        let (c0_width, f0_width) = (count(c0), count(f0));
        if (num, den) == (1, 1)
            && fs == 0
            && !self.file_steps.rises_with(file)
            && !aligned
            && c0_width > 0
            && f0_width != c0_width
            && f0_width % c0_width == 0
        {
            return Err(Why {
                reason: "indentation_ambiguous",
                text: format!(
                    "the matched lines show one level of indentation ({}), and the file no step of its own: the old text's indentation may be the file's less {} or a {} of it, and the line's change of indentation lands elsewhere under each",
                    self.map_shown(),
                    amount_of(file, f0_width - c0_width),
                    match f0_width / c0_width {
                        2 => "half".to_owned(),
                        n => format!("1/{n}"),
                    }
                ),
            });
        }
        if (delta * num) % den != 0 {
            return Err(Why {
                reason: "fractional_indentation",
                text: format!(
                    "the line is indented {} {} than the old text's line it is measured from, which is not a whole number of {} in the file, where {} of the old text make {}",
                    amount_of(caller, delta.abs()),
                    if delta > 0 { "more" } else { "less" },
                    unit_name(file, true),
                    amount_of(caller, den),
                    amount_of(file, num)
                ),
            });
        }
        // Scaled, a change of part of a level lands between the file's levels: the old
        // text at 2 spaces a level against the file's 4, a line moved 1 space left of its
        // neighbour is half a level or an alignment, and neither reading gives 2 spaces.
        // Before 2026-12-04 it was scaled all the same, off the file's levels.
        if (num, den) != (1, 1) && self.level_step > 0 && delta % self.level_step != 0 {
            return Err(Why {
                reason: "indentation_ambiguous",
                text: format!(
                    "the line is indented {} {} than the line it is measured from, which is not a whole number of the old text's levels ({} a level, where the file has {}): scaled, it would fall between the file's levels",
                    amount_of(caller, delta.abs()),
                    if delta > 0 { "more" } else { "less" },
                    amount_of(caller, self.level_step),
                    amount_of(file, self.level_step * num / den),
                ),
            });
        }
        let result = count(f0) + delta * num / den;
        if result < 0 {
            return Err(Why {
                reason: "negative_indentation",
                text: format!(
                    "the change takes away {} where the file's line is only {}",
                    amount_of(file, -(delta * num / den)),
                    indented(f0)
                ),
            });
        }
        Ok(file.to_string().repeat(result as usize))
    }
}

pub(super) fn mixed(who: &str) -> Why {
    Why {
        reason: "tabs_and_spaces",
        text: format!("{who} tabs and spaces in their indentation"),
    }
}

pub(super) fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs().max(1)
    } else {
        gcd(b, a % b)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    /// No indentation at all.
    None,
    One(char),
    Mixed,
}

impl Unit {
    fn join(self, other: Unit) -> Unit {
        match (self, other) {
            (Unit::None, u) | (u, Unit::None) => u,
            (Unit::One(a), Unit::One(b)) if a == b => self,
            _ => Unit::Mixed,
        }
    }
}

/// The one character a set of indentations is made of.
pub(super) fn unit<'a>(indents: impl Iterator<Item = &'a str>) -> Unit {
    let mut unit = Unit::None;
    for ch in indents.flat_map(str::chars) {
        unit = match unit {
            Unit::None => Unit::One(ch),
            Unit::One(u) if u == ch => unit,
            _ => return Unit::Mixed,
        };
    }
    unit
}

/// Columns, with tab stops every 8 columns: only to order indentations.
pub(super) fn width(ws: &str) -> usize {
    ws.chars().fold(
        0,
        |col, ch| if ch == '\t' { col / 8 * 8 + 8 } else { col + 1 },
    )
}

/// The name of an indentation character.
pub(super) fn unit_name(ch: char, plural: bool) -> &'static str {
    match (ch, plural) {
        (' ', false) => "space",
        (' ', true) => "spaces",
        ('\t', false) => "tab",
        ('\t', true) => "tabs",
        (_, false) => "other whitespace character",
        (_, true) => "other whitespace characters",
    }
}

/// The step of indentation a text shows with each character (0 when it shows none): what a
/// ratio of 1 between the caller's indentation and the file's rests on when the matched lines
/// show too few levels to corroborate it.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub(super) struct Steps {
    spaces: i64,
    tabs: i64,
    /// Whether a file's lines increase their indentation at all, with spaces and with tabs:
    /// a file can show increases and still no step, when no one increase is most of them.
    rises: (bool, bool),
}

impl Steps {
    /// A file's: for each character, the commonest increase of indentation from one line to
    /// the next, when it is most of them (each increase is usually one level; an aligned
    /// continuation line, which is left out, or a stray line does not decide it).
    pub(super) fn of_file(lines: &[&str]) -> Steps {
        let mut counts: HashMap<(char, i64), usize> = HashMap::new();
        for (ch, from, to) in changes(lines, false) {
            if to > from {
                *counts.entry((ch, to - from)).or_default() += 1;
            }
        }
        let commonest = |unit: char| {
            let total: usize = counts
                .iter()
                .filter(|((c, _), _)| *c == unit)
                .map(|(_, n)| n)
                .sum();
            counts
                .iter()
                .filter(|((c, _), n)| *c == unit && 2 * **n > total)
                .map(|((_, step), _)| *step)
                .next()
                .unwrap_or(0)
        };
        Steps {
            spaces: commonest(' '),
            tabs: commonest('\t'),
            rises: (
                counts.keys().any(|(c, _)| *c == ' '),
                counts.keys().any(|(c, _)| *c == '\t'),
            ),
        }
    }

    /// Whether a file's lines ever increase their indentation with `ch`.
    fn rises_with(self, ch: char) -> bool {
        match ch {
            ' ' => self.rises.0,
            '\t' => self.rises.1,
            _ => false,
        }
    }

    /// The caller's: for each character, the greatest common divisor of every change of
    /// indentation from one line to the next in the old text and in the new, and of each
    /// paired line's from the old text to the new (continuation lines left out of both).
    pub(super) fn of_caller(old: &[String], new: &[String], sources: &[Source]) -> Steps {
        let mut steps = Steps::default();
        let mut add = |ch: char, by: i64| match ch {
            ' ' => steps.spaces = gcd(steps.spaces, by),
            '\t' => steps.tabs = gcd(steps.tabs, by),
            _ => {}
        };
        for text in [old, new] {
            let lines: Vec<&str> = text.iter().map(String::as_str).collect();
            for (ch, from, to) in changes(&lines, true) {
                if to != from {
                    add(ch, (to - from).abs());
                }
            }
        }
        // A continuation line's change is alignment, not a step.
        let aligned = continuation_lines(new.iter().map(String::as_str));
        for (j, n) in new.iter().enumerate() {
            if let Source::Equal(i) | Source::Changed(i) = sources[j]
                && !aligned[j]
                && !n.trim().is_empty()
                && let (Some((c1, w1)), Some((c2, w2))) = (one_unit(&old[i]), one_unit(n))
                && w1 != w2
                && (c1 == c2 || c1.is_none() || c2.is_none())
                && let Some(ch) = c1.or(c2)
            {
                add(ch, (w2 - w1).abs());
            }
        }
        steps
    }

    fn of_unit(self, ch: char) -> i64 {
        match ch {
            ' ' => self.spaces,
            '\t' => self.tabs,
            _ => 0,
        }
    }
}

/// A line's indentation as its one character (`None` when it has none) and its count;
/// `None` for a line that mixes characters, or tabs and spaces.
pub(super) fn one_unit(line: &str) -> Option<(Option<char>, i64)> {
    let ws = leading_ws(line);
    let mut chars = ws.chars();
    match chars.next() {
        None => Some((None, 0)),
        Some(ch) => chars
            .all(|c| c == ch)
            .then(|| (Some(ch), ws.chars().count() as i64)),
    }
}

/// Each change of indentation from one non-blank line to the next, leaving out continuation
/// lines and the lines of a block comment: (the character, the indentation before, after),
/// where both lines indent with that character alone (or not at all). `cut`: the lines are
/// a caller's text, which may start inside a comment ([`block_comment_lines`]).
pub(super) fn changes(lines: &[&str], cut: bool) -> Vec<(char, i64, i64)> {
    let continued = continuation_lines(lines.iter().copied());
    let commented = block_comment_lines(lines.iter().copied(), cut);
    let mut out = Vec::new();
    let mut previous: Option<(Option<char>, i64)> = None;
    for ((line, continued), commented) in lines.iter().zip(continued).zip(commented) {
        if line.trim().is_empty() || continued || commented {
            continue;
        }
        let here = one_unit(line);
        if let (Some((c1, w1)), Some((c2, w2))) = (previous, here)
            && (c1 == c2 || c1.is_none() || c2.is_none())
            && let Some(ch) = c1.or(c2)
        {
            out.push((ch, w1, w2));
        }
        previous = here;
    }
    out
}

/// Whether each line continues an expression that an earlier line left open with a `(` or
/// `[`, or with a `{` that something other than a comment follows on its line
/// (`{"a": 1,`): such a line is aligned under what it continues, and its indentation is
/// columns, not a level. A `{` that ends its line opens a block (or a literal indented by
/// levels). A line with a `)` or `]` that nothing before it opened continues what the text
/// starts in the middle of. A bracket left open is closed at the next line indented no
/// deeper than the line that opened it (unless that line starts by closing something), so
/// that a stray one (in a comment, a string the scan misreads) cannot make the rest of the
/// text continuation lines. Quoted text and comments are skipped ([`Scan`]).
pub(super) fn continuation_lines<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<bool> {
    let lines: Vec<&str> = lines.collect();
    let in_block = block_comment_lines(lines.iter().copied(), true);
    // One entry per open bracket: whether it makes the lines after it continuation lines,
    // and the indentation of the line that opened it.
    let mut open: Vec<(bool, usize)> = Vec::new();
    let mut out = Vec::new();
    let mut scan = Scan::default();
    // Whether the line before ended its code with a `\`, which continues it.
    let mut backslash = false;
    // Whether each line is a comment and nothing else.
    let mut comment_only = Vec::new();
    for (k, &line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let width = line.len() - code.len();
        if !code.is_empty() && !code.starts_with([')', ']', '}']) {
            while open.last().is_some_and(|&(_, w)| w >= width) {
                open.pop();
            }
        }
        let mut continued = open.iter().any(|&(counts, _)| counts)
            || (backslash && !code.is_empty())
            || continues_an_expression(code);
        let mut last_code = None;
        scan.code(line, |i, ch| {
            if !ch.is_whitespace() {
                last_code = Some((i, ch));
            }
            match ch {
                '(' | '[' => open.push((true, width)),
                '{' => {
                    let rest = line[i + 1..].trim();
                    let comment = rest.is_empty()
                        || rest.starts_with("//")
                        || rest.starts_with("/*")
                        || rest.starts_with('#');
                    open.push((!comment, width));
                }
                // A `)` or `]` that nothing in the text opened closes what a line before the
                // text did: its line is the end of a continuation (a text cut from the middle
                // of a call starts with one).
                ')' | ']' if open.is_empty() => continued = true,
                ')' | ']' | '}' => {
                    open.pop();
                }
                _ => {}
            }
        });
        if !code.is_empty() {
            backslash = last_code
                .is_some_and(|(i, ch)| ch == '\\' && i + 1 == line.trim_end().len())
                || ends_with_an_operator(line, last_code);
        }
        out.push(continued);
        // A line comment, or a block comment's line (the `/*` that opens it included).
        comment_only.push(
            !code.is_empty() && (last_code.is_none() || in_block[k] || code.starts_with("/*")),
        );
    }
    // A comment line before a continuation line is inside the expression too (`// as
    // strings` between two calls of a chain, or a `/* */` block), and stands where its
    // lines do.
    let mut next_continues = false;
    for (continued, comment) in out.iter_mut().zip(&comment_only).rev() {
        if *comment {
            *continued |= next_continues;
        } else {
            next_continues = *continued;
        }
    }
    out
}

/// Whether a line's code ends with a binary operator after a space (`first +`, `a &&`,
/// `x =`), so the next line continues its expression; `last` is its last code character
/// and where it is, which must end the line.
fn ends_with_an_operator(line: &str, last: Option<(usize, char)>) -> bool {
    // The operator must end the line: after it, a string's closing quote is not code.
    let Some((at, ch)) = last.filter(|&(at, ch)| at + ch.len_utf8() == line.trim_end().len())
    else {
        return false;
    };
    let code = line[..at + ch.len_utf8()].trim_end();
    [" +", " -", " *", " /", " %", " &&", " ||", " ^", " ="]
        .iter()
        .any(|op| code.ends_with(op))
        && !code.ends_with(" ==")
        && !code.trim_start().starts_with('-')
}

/// Whether a line's code can only continue the expression of a line before it: a method
/// call of a chain (`.then(f)`, `?.x`) or a branch of a conditional expression (`? a`,
/// `: b`). It stands under what it continues, or a step in, as an argument does.
fn continues_an_expression(code: &str) -> bool {
    let mut chars = code.chars();
    match (chars.next(), chars.next()) {
        (Some('.'), Some(next)) => next.is_alphabetic() || next == '_' || next == '$',
        (Some('?'), Some('.')) => true,
        (Some('?' | ':'), Some(' ')) => true,
        _ => false,
    }
}

/// The lines of a list item's content: a line that starts with `- ` opens an item, and a
/// line indented exactly two columns deeper that opens no item of its own (`run: x` under
/// `- name: a` in YAML, a paragraph under a Markdown item) stands under its text, an
/// alignment as much as an argument under the first; a line indented no deeper than the `-`
/// ends the item. A nested item is a level.
#[derive(Default)]
pub(super) struct ListItems {
    /// The indentation (in bytes) of each open item's `-`, outermost first.
    open: Vec<usize>,
}

impl ListItems {
    /// Whether `line` is content of the innermost open item; then the item `line` opens.
    pub(super) fn content(&mut self, line: &str) -> bool {
        let code = line.trim_start();
        if code.is_empty() {
            return false;
        }
        let width = line.len() - code.len();
        while self.open.last().is_some_and(|&w| width <= w) {
            self.open.pop();
        }
        let item = code.starts_with("- ");
        // An item two columns in is a nested list's, a level (Markdown nests by any width).
        let content = !item && self.open.last().is_some_and(|&w| width == w + 2);
        if item {
            self.open.push(width);
        }
        content
    }
}

/// Whether each line is a list item's content ([`ListItems`]).
pub(super) fn list_item_lines<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<bool> {
    let mut items = ListItems::default();
    lines.map(|line| items.content(line)).collect()
}

/// Whether each line lies in a block comment (`/* */`) that a line before it opened: a doc
/// comment's ` * ` lines stand one column under its `/**`, an alignment and no level of
/// indentation. Before 2026-12-05 they counted as increases of one space, and a JavaScript
/// file with as many doc comments as indented blocks showed no step of its own, so a ratio
/// of 1 was assumed for a caller indenting by 4 in a file indented by 2.
///
/// A `/*` that nothing closes opens no comment (a shell glob, `src/*.c`, would otherwise
/// make the rest of a file one). A text `cut` from a file (the caller's) may start inside a
/// comment: its lines up to a first `*/` that comes before any `/*` are the comment's, when
/// each of them starts with `*` (` * Returns x.`, ` */`), as a doc comment's do; a `*/`
/// elsewhere (a regular expression's `/^\s*/`) is code.
pub(super) fn block_comment_lines<'a>(
    lines: impl Iterator<Item = &'a str>,
    cut: bool,
) -> Vec<bool> {
    let mut out = Vec::new();
    let mut scan = Scan {
        blocks: true,
        ..Scan::default()
    };
    // Whether every line so far starts with `*` (or is blank), and where the comment open
    // at the end (if any) was opened.
    let mut starred = cut;
    let mut opened_at = None;
    for line in lines {
        let was_in = scan.in_comment;
        out.push(was_in);
        let trimmed = line.trim_start();
        starred &= trimmed.is_empty() || trimmed.starts_with('*');
        if scan.code(line, |_, _| {}) && starred {
            out.iter_mut().for_each(|commented| *commented = true);
        }
        if scan.in_comment && !was_in {
            opened_at = Some(out.len());
        }
    }
    if scan.in_comment
        && let Some(at) = opened_at
    {
        out[at..]
            .iter_mut()
            .for_each(|commented| *commented = false);
    }
    out
}

/// A scan of a text's code, line by line, past quoted text and comments. Quoted text ends on
/// its line (a `'` after a letter or digit, or one that nothing closes on its line, is an
/// apostrophe or a lifetime, no quote); a `#` or `//` comments out the rest of its line; and,
/// where the scan reads them (`blocks`), a block comment runs from `/*` to `*/`, across
/// lines. The bracket scan of continuation lines does not: a `/*` that nothing closes would
/// hide every bracket after it.
#[derive(Default)]
pub(super) struct Scan {
    blocks: bool,
    in_comment: bool,
    /// Whether a `/*` has been seen: a `*/` before any closes a comment the text starts in.
    opened: bool,
}

impl Scan {
    /// Calls `each` with every character of `line` that is code, and its byte offset.
    /// Returns whether the line closes a block comment that no line of the text opened.
    fn code(&mut self, line: &str, mut each: impl FnMut(usize, char)) -> bool {
        let mut closes_unopened = false;
        let mut quote = None;
        let mut escaped = false;
        let mut previous = ' ';
        let mut chars = line.char_indices();
        while let Some((i, ch)) = chars.next() {
            let rest = &line[i + ch.len_utf8()..];
            if self.in_comment {
                if ch == '*' && rest.starts_with('/') {
                    self.in_comment = false;
                    chars.next();
                }
                continue;
            }
            match quote {
                Some(q) => {
                    if !escaped && ch == q {
                        quote = None;
                    }
                    escaped = !escaped && ch == '\\';
                }
                None => match ch {
                    '\'' if previous.is_alphanumeric() => {}
                    // A quote that no other closes on its line is none (`&'a str`).
                    '"' | '\'' | '`' if rest.contains(ch) => quote = Some(ch),
                    '#' => break,
                    '/' if rest.starts_with('/') => break,
                    '/' if self.blocks && rest.starts_with('*') => {
                        (self.in_comment, self.opened) = (true, true);
                        chars.next();
                    }
                    '*' if self.blocks && rest.starts_with('/') && !self.opened => {
                        closes_unopened = true;
                        self.opened = true;
                        chars.next();
                    }
                    _ => each(i, ch),
                },
            }
            previous = ch;
        }
        closes_unopened
    }
}

/// `n` indentation characters `ch` in words: "4 spaces", "1 tab", "none".
pub(super) fn amount_of(ch: char, n: i64) -> String {
    if n == 0 {
        "none".to_owned()
    } else {
        format!("{n} {}", unit_name(ch, n != 1))
    }
}

/// An indentation in words: "4 spaces", "1 tab, 2 spaces", "none".
pub(super) fn amount(ws: &str) -> String {
    let mut runs: Vec<(char, i64)> = Vec::new();
    for ch in ws.chars() {
        match runs.last_mut() {
            Some((c, n)) if *c == ch => *n += 1,
            _ => runs.push((ch, 1)),
        }
    }
    if runs.is_empty() {
        return "none".to_owned();
    }
    runs.iter()
        .map(|&(ch, n)| amount_of(ch, n))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn indented(ws: &str) -> String {
    if ws.is_empty() {
        "not indented".to_owned()
    } else {
        format!("indented by {}", amount(ws))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_ends_with_an_operator_is_continued_whatever_its_last_character() {
        assert_eq!(
            continuation_lines(["x = a +", "    b", "y = \"é\"", "z"].into_iter()),
            [false, true, false, false]
        );
        // A last character of more than one byte is read whole (it panicked, cut in two).
        assert_eq!(
            continuation_lines(["s = é", "t"].into_iter()),
            [false, false]
        );
    }

    #[test]
    fn a_block_comments_lines_are_left_out_wherever_it_opens() {
        // A `/*` in quotes opens none.
        let lines = ["x = \"/*\";", "/* a (", "   b */", "y(1,", "  2);"];
        assert_eq!(
            block_comment_lines(lines.into_iter(), true),
            [false, false, true, false, false]
        );
        // The bracket scan reads no block comments: an unclosed `/*` would hide the rest.
        assert_eq!(
            continuation_lines(lines.into_iter()),
            [false, false, true, false, true]
        );
        // A text cut from inside a doc comment, up to its first `*/`.
        assert_eq!(
            block_comment_lines([" * b.", " */", "f();"].into_iter(), true),
            [true, true, false]
        );
        // A `/*` that nothing closes (a shell glob) opens none, and a `*/` in code (a
        // regular expression) closes none; in a whole file, nor does a first `*/`.
        let glob = ["for f in src/*.c; do", "  gcc -c \"$f\"", "done"];
        assert_eq!(block_comment_lines(glob.into_iter(), false), [false; 3]);
        let regex = ["function a(x) {", "  go(x);", "}", "const re = /^\\s*/;"];
        assert_eq!(block_comment_lines(regex.into_iter(), true), [false; 4]);
        let starred = [" * b.", " */", "f();"];
        assert_eq!(block_comment_lines(starred.into_iter(), false), [false; 3]);
    }
}
