//! Which line of the new text stands for which line of the old text: the line diff that
//! pairs them (whitespace aside), and the other pairings as small a change allows, whose
//! results must agree for an edit to be no guess.

use super::{leading_ws, trailing_ws};
use std::collections::HashMap;

/// Where a line of the new text comes from, by a line diff of the old and new texts that
/// ignores leading and trailing whitespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// The same text as old line `i`, whitespace aside.
    Equal(usize),
    /// Takes the place of old line `i`: within a changed block, the non-blank lines of each
    /// side are paired in order.
    Changed(usize),
    /// No counterpart in the old text.
    Inserted,
}

/// How the new text's lines pair with the old text's.
#[derive(Clone)]
pub(super) struct Pairing {
    pub(super) sources: Vec<Source>,
    /// Each changed block: its non-blank old lines and its non-blank new lines, in order.
    pub(super) blocks: Vec<(Vec<usize>, Vec<usize>)>,
}

/// Pairs the lines by a line diff that ignores leading and trailing whitespace; `backward`
/// diffs the texts read from their last line to their first, which pairs a changed block's
/// lines from its end, and slides a run of deleted or inserted lines the other way among
/// equal lines: the other pairing a caller may have meant.
pub(super) fn pair_lines(old: &[String], new: &[String], backward: bool) -> Pairing {
    let mut o: Vec<&str> = old.iter().map(|l| l.trim()).collect();
    let mut n: Vec<&str> = new.iter().map(|l| l.trim()).collect();
    if backward {
        o.reverse();
        n.reverse();
    }
    let oi = |i: usize| if backward { o.len() - 1 - i } else { i };
    let ni = |j: usize| if backward { n.len() - 1 - j } else { j };
    let mut sources = vec![Source::Inserted; n.len()];
    let mut blocks = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &o, &n) {
        match op {
            similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    sources[ni(new_index + k)] = Source::Equal(oi(old_index + k));
                }
            }
            similar::DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let olds: Vec<usize> = (old_index..old_index + old_len)
                    .filter(|&i| !o[i].is_empty())
                    .collect();
                let news: Vec<usize> = (new_index..new_index + new_len)
                    .filter(|&j| !n[j].is_empty())
                    .collect();
                for (&i, &j) in olds.iter().zip(&news) {
                    sources[ni(j)] = Source::Changed(oi(i));
                }
                let mut olds: Vec<usize> = olds.into_iter().map(oi).collect();
                let mut news: Vec<usize> = news.into_iter().map(ni).collect();
                olds.sort_unstable();
                news.sort_unstable();
                blocks.push((olds, news));
            }
            similar::DiffOp::Delete { .. } | similar::DiffOp::Insert { .. } => {}
        }
    }
    blocks.sort();
    Pairing { sources, blocks }
}

/// Above this many cells (old lines by new lines) the smallest changes are not searched
/// ([`other_pairings`]).
pub(super) const MAX_PAIRING_CELLS: usize = 1 << 22;

/// The other readings [`other_pairings`] gives at most (`None` past it): a text with more is
/// refused rather than checked in part.
pub(super) const MAX_OTHER_PARTNERS: usize = 1024;

/// The other pairings as small a change gives, where the window's file lines may come out
/// otherwise, each whole. Two kinds:
/// - a new line `j` that `pairing` keeps equal to old line `i`, kept equal instead to another
///   old line `i2` of the same text (whitespace aside) that the file writes otherwise;
/// - an old line `i` kept equal to new line `j`, kept instead equal to another new line `j2`
///   of the same text that `pairing` inserts (`j` is then the inserted one), or changes from
///   another old line (the lines on each side of the pair are then paired anew,
///   [`pair_around`]): which of two equal new lines gets the file's line, with its
///   whitespace, and which is written as given.
///
/// Written with either, the window may come out otherwise, and which of the two the caller
/// meant would be a guess. Reading the texts from the end (`pair_lines`) does not find every
/// such choice: a diff sets a common prefix and suffix aside first, so both readings of old
/// `D E E` to new `E` keep the last `E`, where keeping the first is as small a change, and
/// both readings of old `a _ b` to new `a X _ _ b` keep the second blank line.
///
/// A change is measured as its changed, deleted and inserted lines, one each (a line edit
/// distance), so that a line changed in its place is one change, not a deletion and an
/// insertion: old `} }` to new `} }x` changes the second line, and keeping the second `}`
/// instead would take two. A pair (i, j) is on a smallest change exactly when the smallest
/// change before it and the smallest after it add up to the whole. Past
/// [`MAX_PAIRING_CELLS`] the smallest changes are not searched: every old line of the kept
/// line's text counts, and the inserted new lines of its text next to it (a run of them).
pub(super) fn other_pairings(
    old: &[String],
    new: &[String],
    pairing: &Pairing,
    file: &[&str],
    ends: &[&str],
) -> Option<Vec<Pairing>> {
    let o: Vec<&str> = old.iter().map(|l| l.trim()).collect();
    let n: Vec<&str> = new.iter().map(|l| l.trim()).collect();
    let mut by_text: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, t) in o.iter().enumerate() {
        by_text.entry(t).or_default().push(i);
    }
    // The new lines no old line is kept equal to, by text: inserted, or changed from another.
    let mut unkept_by_text: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, s) in pairing.sources.iter().enumerate() {
        if !matches!(s, Source::Equal(_)) {
            unkept_by_text.entry(n[j]).or_default().push(j);
        }
    }
    // Only old lines that share their text with an old line the file writes otherwise, or
    // ends otherwise, can be kept in two ways that differ.
    let rivals = |i: usize| {
        by_text[o[i]]
            .iter()
            .copied()
            .filter(move |&k| file[k] != file[i] || ends[k] != ends[i])
    };
    // Only a file line that is not the new line as given can be written otherwise by being
    // kept with another new line, or one whose trailing whitespace the other new line does
    // not have (a line kept where it moved keeps the file's, one inserted has its own), or
    // one in a window that mixes line ends (a kept line keeps its end, an inserted one
    // takes the window's).
    let mixed = ends
        .iter()
        .filter(|e| !e.is_empty())
        .any(|e| Some(e) != ends.first());
    let new_rivals = |j: usize, i: usize| {
        unkept_by_text
            .get(n[j])
            .into_iter()
            .flatten()
            .copied()
            .filter(move |&j2| {
                mixed || file[i] != new[j] || trailing_ws(file[i]) != trailing_ws(&new[j2])
            })
    };
    let kept: Vec<(usize, usize)> = pairing
        .sources
        .iter()
        .enumerate()
        .filter_map(|(j, s)| match *s {
            Source::Equal(i) if rivals(i).next().is_some() || new_rivals(j, i).next().is_some() => {
                Some((j, i))
            }
            _ => None,
        })
        .collect();
    if kept.is_empty() {
        return Some(Vec::new());
    }
    let (m, w) = (o.len() + 1, n.len() + 1);
    let searched = m.saturating_mul(w) <= MAX_PAIRING_CELLS;
    // before[i * w + j]: the smallest change from o[..i] to n[..j]; after[i * w + j]: from
    // o[i..] to n[j..].
    let (mut before, mut after) = (Vec::new(), Vec::new());
    if searched {
        before = vec![0u32; m * w];
        after = vec![0u32; m * w];
        for i in 0..m {
            for j in 0..w {
                before[i * w + j] = match (i, j) {
                    (0, _) => j as u32,
                    (_, 0) => i as u32,
                    _ => {
                        let diagonal =
                            before[(i - 1) * w + j - 1] + u32::from(o[i - 1] != n[j - 1]);
                        let gap = before[(i - 1) * w + j].min(before[i * w + j - 1]) + 1;
                        diagonal.min(gap)
                    }
                };
            }
        }
        for i in (0..m).rev() {
            for j in (0..w).rev() {
                after[i * w + j] = match (i == m - 1, j == w - 1) {
                    (true, _) => (w - 1 - j) as u32,
                    (_, true) => (m - 1 - i) as u32,
                    _ => {
                        let diagonal = after[(i + 1) * w + j + 1] + u32::from(o[i] != n[j]);
                        let gap = after[(i + 1) * w + j].min(after[i * w + j + 1]) + 1;
                        diagonal.min(gap)
                    }
                };
            }
        }
    }
    let smallest = before.last().copied().unwrap_or_default();
    let on_smallest =
        |i: usize, j: usize| before[i * w + j] + after[(i + 1) * w + j + 1] == smallest;
    let next_to = |j: usize, j2: usize| {
        let (low, high) = (j.min(j2), j.max(j2));
        (low + 1..high).all(|k| n[k] == n[j] && pairing.sources[k] == Source::Inserted)
    };
    let with = |changes: &[(usize, Source)]| {
        let mut sources = pairing.sources.clone();
        for &(j, source) in changes {
            sources[j] = source;
        }
        Pairing {
            sources,
            blocks: pairing.blocks.clone(),
        }
    };
    // Each reading as (new line, old line kept equal to it, whether the old line moved to
    // another new line).
    let readings: Vec<(usize, usize, bool)> = kept
        .into_iter()
        .flat_map(|(j, i)| {
            let old_side = rivals(i)
                .filter(|&i2| !searched || on_smallest(i2, j))
                .map(move |i2| (j, i2, false));
            let new_side = new_rivals(j, i)
                .filter(|&j2| match pairing.sources[j2] {
                    Source::Inserted if !searched => next_to(j, j2),
                    _ => searched && on_smallest(i, j2),
                })
                .map(move |j2| (j2, i, true));
            old_side.chain(new_side).collect::<Vec<_>>()
        })
        .take(MAX_OTHER_PARTNERS + 1)
        .collect();
    if readings.len() > MAX_OTHER_PARTNERS {
        return None;
    }
    let pairings = readings
        .into_iter()
        .map(|(j, i, new_side)| {
            // Only the kept line moves: to another old line, or from an inserted new line to
            // its equal. A changed new line takes the place of an old line, and keeping the
            // old line there pairs the rest anew on each side of it.
            let kept_at = pairing.sources.iter().position(|s| *s == Source::Equal(i));
            match (new_side, pairing.sources[j], kept_at) {
                (false, _, _) => with(&[(j, Source::Equal(i))]),
                (true, Source::Inserted, Some(before)) => {
                    with(&[(before, Source::Inserted), (j, Source::Equal(i))])
                }
                _ => pair_around(old, new, i, j),
            }
        })
        .collect();
    Some(pairings)
}

/// The pairing that keeps old line `i` equal to new line `j`, the lines on each side of them
/// paired as [`pair_lines`] pairs them.
pub(super) fn pair_around(old: &[String], new: &[String], i: usize, j: usize) -> Pairing {
    let before = pair_lines(&old[..i], &new[..j], false);
    let after = pair_lines(&old[i + 1..], &new[j + 1..], false);
    let shift = |source: Source| match source {
        Source::Equal(k) => Source::Equal(k + i + 1),
        Source::Changed(k) => Source::Changed(k + i + 1),
        Source::Inserted => Source::Inserted,
    };
    let mut sources = before.sources;
    sources.push(Source::Equal(i));
    sources.extend(after.sources.into_iter().map(shift));
    let mut blocks = before.blocks;
    blocks.extend(after.blocks.into_iter().map(|(olds, news)| {
        (
            olds.into_iter().map(|k| k + i + 1).collect(),
            news.into_iter().map(|k| k + j + 1).collect(),
        )
    }));
    Pairing { sources, blocks }
}

/// Whether new line `j` is the file's line byte for byte: it equals an old line and the caller
/// changed neither its indentation nor its trailing whitespace (a blank line: not its
/// whitespace at all).
pub(super) fn kept_as_is(new: &[String], old: &[String], sources: &[Source], j: usize) -> bool {
    let trailing = |s: &str| s.len() - s.trim_end().len();
    match sources[j] {
        Source::Equal(i) => {
            let (n, o) = (new[j].as_str(), old[i].as_str());
            if n.trim().is_empty() {
                n == o
            } else {
                leading_ws(n) == leading_ws(o)
                    && n[n.len() - trailing(n)..] == o[o.len() - trailing(o)..]
            }
        }
        _ => false,
    }
}
