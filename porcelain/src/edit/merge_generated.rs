//! Seeded generators of concurrent edits, checked against what the writers meant.
//!
//! The first draws a snapshot of distinct lines, a set of live changes (by another writer) and
//! one edit (by the agent), each a replacement, insertion or deletion of a range, with new
//! lines that never repeat a snapshot line, so what each writer changed is unambiguous. When
//! the edit's range is apart from every live change (at least one untouched line between), the
//! merge must give exactly both changes applied, and so must diffy. When it overlaps or
//! touches one, ours must refuse; a wrong merge would be an `ok` with a file nobody wrote.
//!
//! The second draws snapshots from a tiny alphabet, so lines repeat and what the live writer
//! changed is ambiguous: the cases where the merge once took the wrong copy of a repeated
//! block, wrote live lines out of order, and took an identical change once by a choice. It
//! judges a merge against every account of the live changes a diff could give (see
//! [`accounts`]), and an `ok` must be what every account that merges agrees on.

use super::doc::Editable;
use super::merge::{Merged, merge};
use super::replace_generated::Rng;
use std::ops::Range;

/// A change: snapshot lines `start..end` replaced by `new` (either side may be empty).
#[derive(Clone, Debug)]
struct Change {
    start: usize,
    end: usize,
    new: Vec<String>,
}

impl Change {
    /// Apart: at least one line neither change touches lies between them.
    fn apart(&self, other: &Change) -> bool {
        self.end < other.start || other.end < self.start
    }
}

fn random_change(rng: &mut Rng, len: usize, tag: &str, serial: &mut usize) -> Change {
    let start = rng.below(len + 1);
    let end = (start + rng.below(4)).min(len);
    let count = rng.below(4);
    let new = (0..count)
        .map(|_| {
            *serial += 1;
            format!("{tag} {serial}\n")
        })
        .collect();
    Change { start, end, new }
}

/// `base` with `changes` (apart from one another) applied.
fn apply(base: &[String], changes: &[Change]) -> String {
    let mut sorted: Vec<&Change> = changes.iter().collect();
    sorted.sort_by_key(|c| (c.start, c.end));
    let mut out = String::new();
    let mut pos = 0;
    for change in sorted {
        out.extend(base[pos..change.start].iter().map(String::as_str));
        out.extend(change.new.iter().map(String::as_str));
        pos = change.end;
    }
    out.extend(base[pos..].iter().map(String::as_str));
    out
}

#[test]
fn concurrent_edits_merge_exactly_or_conflict() {
    let mut rng = Rng(0x005e_edf1_1e4e_e9e5);
    let (mut merged, mut refused) = (0, 0);
    for case in 0..3000 {
        let len = 1 + rng.below(30);
        let base: Vec<String> = (0..len).map(|i| format!("line {i}\n")).collect();
        let mut serial = 0;
        // A change that changes nothing is no change at all.
        let no_op = |c: &Change| c.start == c.end && c.new.is_empty();
        let mut live: Vec<Change> = Vec::new();
        for _ in 0..1 + rng.below(3) {
            let change = random_change(&mut rng, len, "live", &mut serial);
            if !no_op(&change) && live.iter().all(|c| c.apart(&change)) {
                live.push(change);
            }
        }
        let edit = random_change(&mut rng, len, "edit", &mut serial);
        if no_op(&edit) || live.is_empty() {
            continue;
        }
        let base_text: String = base.concat();
        let live_text = apply(&base, &live);
        let edited_text = apply(&base, std::slice::from_ref(&edit));
        let offset = |line: usize| base[..line].iter().map(String::len).sum::<usize>();
        let replaced = offset(edit.start)..offset(edit.end);
        let ours = merge(
            base_text.as_bytes(),
            live_text.as_bytes(),
            edited_text.as_bytes(),
            std::slice::from_ref(&replaced),
        );
        let reference = diffy::merge(&base_text, &live_text, &edited_text);
        let apart = live.iter().all(|c| c.apart(&edit));
        let same = |c: &Change| c.start == edit.start && c.end == edit.end && c.new == edit.new;
        if live.iter().any(same) && live.iter().filter(|c| !same(c)).all(|c| c.apart(&edit)) {
            // The edit was already made live (both deleted the same lines): taken once.
            let ours = ours.unwrap_or_else(|c| panic!("case {case}: same change refused: {c:?}"));
            assert_eq!(String::from_utf8(ours.bytes).unwrap(), live_text);
            continue;
        }
        if apart {
            let mut both = live.clone();
            both.push(edit.clone());
            let expected = apply(&base, &both);
            let ours = ours.unwrap_or_else(|c| {
                panic!("case {case}: apart changes refused: {c:?}\n{live:?}\n{edit:?}")
            });
            assert_eq!(
                String::from_utf8(ours.bytes).unwrap(),
                expected,
                "case {case}: {live:?} {edit:?}"
            );
            assert_eq!(reference.as_deref(), Ok(expected.as_str()), "case {case}");
            merged += 1;
        } else {
            assert!(
                ours.is_err(),
                "case {case}: touching changes merged: {live:?} {edit:?}"
            );
            refused += 1;
        }
    }
    // Both kinds of case were generated, in numbers that mean something.
    assert!(
        merged > 500 && refused > 500,
        "{merged} merged, {refused} refused"
    );
}

/// The lines the second generator's snapshots are made of: few, so they repeat.
const TINY: [&str; 3] = ["a\n", "b\n", "x\n"];
/// The texts of the lines either writer puts in: the snapshot's, and one it never holds.
const TINY_NEW: [&str; 4] = ["a", "b", "x", "L"];

/// Splits at `\n`, keeping each terminator: the lines the merge compares.
fn split(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// A text of `len` lines drawn from [`TINY`], the last sometimes without its newline.
fn tiny_text(rng: &mut Rng, len: usize) -> String {
    let mut text: String = (0..len).map(|_| TINY[rng.below(TINY.len())]).collect();
    if rng.below(4) == 0 {
        text.pop();
    }
    text
}

/// `base` as another writer left it: one or two ranges of lines replaced, inserted or
/// deleted, and sometimes the final newline added or removed.
fn tiny_live(rng: &mut Rng, base: &str) -> String {
    let mut lines: Vec<String> = split(base).into_iter().map(str::to_owned).collect();
    for _ in 0..1 + rng.below(2) {
        let start = rng.below(lines.len() + 1);
        let end = (start + rng.below(3)).min(lines.len());
        let count = rng.below(3);
        let new: Vec<String> = (0..count)
            .map(|_| format!("{}\n", TINY_NEW[rng.below(TINY_NEW.len())]))
            .collect();
        lines.splice(start..end, new);
    }
    let mut text = lines.concat();
    if rng.below(8) == 0 {
        if text.ends_with('\n') {
            text.pop();
        } else {
            text.push('\n');
        }
    }
    text
}

/// One edit of `base` made as keeper's edits make it, with the byte ranges they hand the
/// merge: lines replaced, inserted or deleted (a line edit, through the same splice), or a
/// few bytes replaced by text (a literal replacement, which names the bytes it matched).
/// `None` for an edit that would change nothing and name nothing.
// The ranges are a list of replaced byte ranges that holds one, not a range to collect.
#[allow(clippy::single_range_in_vec_init)]
fn tiny_edit(rng: &mut Rng, base: &str) -> Option<(String, Vec<Range<usize>>)> {
    let mut ed = Editable::new("generated", base.as_bytes()).unwrap();
    if rng.below(4) == 0 {
        let start = rng.below(base.len());
        let end = start + 1 + rng.below(3.min(base.len() - start));
        let new: String = (0..rng.below(4))
            .map(|_| ["a", "b", "x", "L", "\n"][rng.below(5)])
            .collect();
        let mut text = ed.new_text(base.len() + new.len());
        text.push_str(&base[..start]);
        text.push_str(&new);
        text.push_str(&base[end..]);
        ed.set_text(text, vec![start..end]);
    } else {
        let len = ed.doc().lines.len();
        let start = rng.below(len + 1);
        let end = (start + rng.below(3)).min(len);
        let count = rng.below(3);
        let new: Vec<String> = (0..count)
            .map(|_| TINY_NEW[rng.below(TINY_NEW.len())].to_owned())
            .collect();
        if start == end && new.is_empty() {
            return None;
        }
        ed.doc().splice(start, end, new);
    }
    let changed = ed.changed();
    Some((String::from_utf8(ed.into_bytes()).unwrap(), changed))
}

/// A change as whole lines: snapshot lines `start..end` replaced by lines `new_start..new_end`
/// of one side. A pure insertion (`start == end`) is at the place between two lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lines {
    start: usize,
    end: usize,
    new_start: usize,
    new_end: usize,
}

impl Lines {
    /// Apart: at least one snapshot line neither change touches lies between them. An
    /// insertion touches the lines on both sides of its place.
    fn apart(&self, other: &Lines) -> bool {
        self.end < other.start || other.end < self.start
    }

    /// Close: at most one untouched line between them, so the two could also be told as one
    /// change over both (`x b` to `b L`: "delete x, add L" or "replace both").
    fn close(&self, other: &Lines) -> bool {
        self.end + 1 >= other.start && other.end + 1 >= self.start
    }
}

/// The edit as whole lines, from the byte range it names: the lines holding those bytes, and
/// a line beside them whose bytes the edit changed too (a line end added or removed joins or
/// splits lines). Every other line is the same on both sides, in the same place.
fn edit_lines(base: &[&str], edited: &[&str], changed: &Range<usize>) -> Lines {
    let (mut start, mut at) = (0, 0);
    while start < base.len().min(edited.len())
        && at + base[start].len() <= changed.start
        && base[start] == edited[start]
    {
        at += base[start].len();
        start += 1;
    }
    let (mut after, mut from) = (0, base.concat().len());
    while after < (base.len() - start).min(edited.len() - start) {
        let line = base[base.len() - 1 - after];
        if from - line.len() < changed.end || line != edited[edited.len() - 1 - after] {
            break;
        }
        from -= line.len();
        after += 1;
    }
    Lines {
        start,
        end: base.len() - after,
        new_start: start,
        new_end: edited.len() - after,
    }
}

/// Every account of how `base` became `live` that a minimal diff could give: each longest
/// common subsequence of their lines, as a matching of equal lines in order, with the changes
/// between the matched lines. So a line inserted into a run of equal lines is told at every
/// place of the run, and `a a` to `a a a L` both as "add `a L` at the end" and as "add `a` at
/// the top, `L` at the end". Longer accounts (`a x a` to `a x a x` as "add `a x` at the top,
/// delete the last `a`") are left out: the merge reads a minimal diff, and the rule it
/// documents judges a live change at every place a diff could tell it.
fn accounts(base: &[&str], live: &[&str]) -> Vec<Vec<Lines>> {
    fn walk(
        (base, live): (&[&str], &[&str]),
        (i, j): (usize, usize),
        told: &mut Vec<Lines>,
        out: &mut Vec<Vec<Lines>>,
    ) {
        // No equal pair in the gap from (i, j) to (to_i, to_j).
        let gap_free = |to_i: usize, to_j: usize| {
            !base[i..to_i]
                .iter()
                .any(|line| live[j..to_j].contains(line))
        };
        let change = |to_i: usize, to_j: usize| {
            (to_i > i || to_j > j).then_some(Lines {
                start: i,
                end: to_i,
                new_start: j,
                new_end: to_j,
            })
        };
        if gap_free(base.len(), live.len()) {
            let mut account = told.clone();
            account.extend(change(base.len(), live.len()));
            out.push(account);
        }
        for a in i..base.len() {
            for b in j..live.len() {
                if base[a] != live[b] || !gap_free(a, b) {
                    continue;
                }
                let gap = change(a, b);
                told.extend(gap);
                walk((base, live), (a + 1, b + 1), told, out);
                if gap.is_some() {
                    told.pop();
                }
            }
        }
    }
    // Every matching that leaves no equal pair unmatched in a gap, then only the minimal ones.
    let mut out = Vec::new();
    walk((base, live), (0, 0), &mut Vec::new(), &mut out);
    let changed = |account: &Vec<Lines>| -> usize {
        account
            .iter()
            .map(|c| c.end - c.start + c.new_end - c.new_start)
            .sum()
    };
    let fewest = out.iter().map(changed).min();
    out.retain(|account| Some(changed(account)) == fewest);
    out
}

/// What one account of the live changes makes of the edit.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// Every live change apart from the edit: both writers' changes, applied.
    Both(String),
    /// A live change makes exactly the edit's change and no other is close to the edit's
    /// lines: the change is taken once, and the file is the live one.
    Once,
    /// A live change touches the edit.
    Conflict,
}

/// The verdict of `account` on `edit` (as [`edit_lines`] tells it).
fn verdict(
    account: &[Lines],
    edit: &Lines,
    (base, live, edited): (&[&str], &[&str], &[&str]),
) -> Verdict {
    // The edit's own change, made live: inside the edit's lines, and giving what the edit
    // gives there.
    let makes_edit = |c: &Lines| {
        edit.start <= c.start && c.end <= edit.end && {
            let told: Vec<&str> = base[edit.start..c.start]
                .iter()
                .chain(&live[c.new_start..c.new_end])
                .chain(&base[c.end..edit.end])
                .copied()
                .collect();
            told == edited[edit.new_start..edit.new_end]
        }
    };
    let once = account.iter().enumerate().any(|(i, c)| {
        makes_edit(c)
            && account
                .iter()
                .enumerate()
                .all(|(j, other)| j == i || !other.close(edit))
    });
    if once {
        return Verdict::Once;
    }
    if !account.iter().all(|c| c.apart(edit)) {
        return Verdict::Conflict;
    }
    let mut all: Vec<(&Lines, &[&str])> = account.iter().map(|c| (c, live)).collect();
    all.push((edit, edited));
    all.sort_by_key(|(c, _)| c.start);
    let (mut out, mut pos) = (String::new(), 0);
    for (c, side) in all {
        out.extend(base[pos..c.start].iter().copied());
        out.extend(side[c.new_start..c.new_end].iter().copied());
        pos = c.end;
    }
    out.extend(base[pos..].iter().copied());
    Verdict::Both(out)
}

/// The one file a merge may answer `ok` with, or `None` when it must refuse. If every account
/// takes the edit's change once, that is the live file (an identical change is taken once);
/// if only some do, the others tell the live change as another one, and whether the edit's
/// change was made once or must be made again is a guess: refused. Otherwise every account
/// that applies both must give the same file: accounts that disagree are a guess at which
/// copy or which order the writers meant. Accounts that conflict only make a refusal
/// possible, which is always allowed.
fn acceptable(verdicts: &[Verdict], live: &str) -> Option<String> {
    if verdicts.contains(&Verdict::Once) {
        return verdicts
            .iter()
            .all(|v| *v == Verdict::Once)
            .then(|| live.to_owned());
    }
    let mut both: Vec<&String> = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::Both(file) => Some(file),
            _ => None,
        })
        .collect();
    both.sort_unstable();
    both.dedup();
    match both[..] {
        [file] => Some(file.clone()),
        _ => None,
    }
}

/// Where the merge says the edit landed agrees with the file it wrote: the snapshot lines it
/// names, replaced by as many lines of the edited version, are the whole edit, and those new
/// lines are in the merged file at the line it names.
fn check_landed(merged: &Merged, base: &[&str], edited: &[&str]) -> Result<(), String> {
    let [landed] = merged.landed.as_slice() else {
        return Err(format!("{} entries", merged.landed.len()));
    };
    let at = |n: u64| n as usize;
    let (old, count) = (
        at(landed.snapshot_start_line) - 1,
        at(landed.snapshot_line_count),
    );
    let (new, new_count) = (at(landed.start_line) - 1, at(landed.line_count));
    let file = std::str::from_utf8(&merged.bytes).map_err(|e| e.to_string())?;
    let file = split(file);
    let names_the_edit = old + count <= base.len()
        && old + new_count <= edited.len()
        && base[..old] == edited[..old]
        && base[old + count..] == edited[old + new_count..];
    let written_there = file.get(new..new + new_count) == edited.get(old..old + new_count);
    (names_the_edit && written_there)
        .then_some(())
        .ok_or_else(|| format!("{landed:?}"))
}

/// Snapshots of repeated lines, live changes, and one edit made as keeper's edits make it: the
/// merge refuses, or answers `ok` with the one file every minimal account of the live changes
/// allows (see [`acceptable`]) and says where in it the edit landed. It never panics.
#[test]
fn concurrent_edits_of_repeated_lines_merge_as_every_account_agrees_or_conflict() {
    let mut rng = Rng(0x7a11_a1f1_b0a7_5eed);
    let (mut merged, mut once, mut must_refuse, mut refused) = (0, 0, 0, 0);
    for case in 0..8000 {
        let len = 1 + rng.below(6);
        let base = tiny_text(&mut rng, len);
        let live = tiny_live(&mut rng, &base);
        let Some((edited, changed)) = tiny_edit(&mut rng, &base) else {
            continue;
        };
        if live == base {
            continue; // the file did not change: the edit applies without a merge
        }
        let [range] = changed.as_slice() else {
            panic!("case {case}: one edit named {changed:?}");
        };
        let (base_lines, live_lines, edited_lines) = (split(&base), split(&live), split(&edited));
        let edit = edit_lines(&base_lines, &edited_lines, range);
        let verdicts: Vec<Verdict> = accounts(&base_lines, &live_lines)
            .iter()
            .map(|account| verdict(account, &edit, (&base_lines, &live_lines, &edited_lines)))
            .collect();
        let expected = acceptable(&verdicts, &live);
        let case_text = format!(
            "case {case}: base {base:?}, live {live:?}, edited {edited:?}, changed {changed:?}; \
             edit {edit:?}; accounts {verdicts:?}"
        );
        let result = std::panic::catch_unwind(|| {
            merge(
                base.as_bytes(),
                live.as_bytes(),
                edited.as_bytes(),
                &changed,
            )
        });
        match result.unwrap_or_else(|_| panic!("{case_text}: the merge panicked")) {
            Ok(m) => {
                let file = String::from_utf8_lossy(&m.bytes);
                assert_eq!(
                    Some(file.as_ref()),
                    expected.as_deref(),
                    "{case_text}: merged ok"
                );
                if let Err(landed) = check_landed(&m, &base_lines, &edited_lines) {
                    panic!("{case_text}: merged into {file:?}, landed {landed}");
                }
                merged += 1;
                once += usize::from(verdicts.contains(&Verdict::Once));
            }
            Err(_) if expected.is_none() => must_refuse += 1,
            Err(_) => refused += 1,
        }
    }
    // Every kind of case was generated, in numbers that mean something.
    assert!(
        merged > 1000 && once > 30 && must_refuse > 3000 && refused > 400,
        "{merged} merged ({once} taken once), {must_refuse} refused as they must be, \
         {refused} refused where a merge was possible"
    );
}
