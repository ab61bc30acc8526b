//! Three-way merge of an edit made on a snapshot into the file as it is now.
//!
//! An agent computes its line numbers and old text on the version it read (the *snapshot*,
//! `base_hash`). When the file has changed since, the edit is applied to the snapshot, giving
//! the version the agent meant, and the two sets of changes are merged line by line: base =
//! the snapshot, live = the file now, edited = the snapshot with the edit. A change of the
//! edit lands where the snapshot put it, shifted by whatever the live file inserted or removed
//! above it.
//!
//! The merge is conservative, because a wrong merge would be an `ok` with a file nobody asked
//! for: an edit hunk that overlaps a live change, or merely touches one (an insertion at the
//! same place, a change on the adjacent line), is a conflict and nothing is written. Only an
//! identical change on both sides is taken once. Lines are compared as exact bytes, terminators
//! included, so a file whose line ends were converted since the snapshot conflicts everywhere
//! rather than being merged into a mixture.

use schemars::JsonSchema;
use serde::Serialize;
use similar::{Algorithm, DiffOp};
use std::time::{Duration, Instant};

/// How long the line diffs may search for a minimal diff. After it, `similar` returns a
/// coarser diff, still correct; coarser hunks can only turn a merge into a conflict.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

/// Where one change of the edit landed in the file as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Landed {
    /// The first line the change replaced in the snapshot (1-based; for a pure insertion, the
    /// line it was inserted before).
    pub snapshot_start_line: u64,
    /// How many snapshot lines the change replaced (0 for a pure insertion).
    pub snapshot_line_count: u64,
    /// The first line of the change's new lines in the file as written (1-based; for a pure
    /// deletion, the line that now follows the deleted ones).
    pub start_line: u64,
    /// How many new lines the change wrote there (0 for a pure deletion).
    pub line_count: u64,
}

/// What an edit made on an older version did when it was merged.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct MergeReport {
    /// The version the edit was made on (`sha256:...`), as the caller named it.
    pub base_hash: String,
    /// Every change of the edit, in file order, and where it landed.
    pub landed: Vec<Landed>,
}

/// The merge of an edit that did not conflict.
#[derive(Debug)]
pub(crate) struct Merged {
    pub bytes: Vec<u8>,
    /// Every change of the edit, in file order.
    pub landed: Vec<Landed>,
}

/// One region where the edit and the live file both changed the snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Conflict {
    /// The region's first line in the snapshot (1-based) and its lines there.
    pub snapshot_start_line: u64,
    pub snapshot: Vec<u8>,
    /// The region as the edit wants it.
    pub edit: Vec<u8>,
    /// The region's first line in the file now (1-based) and its lines there.
    pub live_start_line: u64,
    pub live: Vec<u8>,
}

/// A changed range: `base` lines of the snapshot replaced by `new` lines of one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Hunk {
    base_start: usize,
    base_end: usize,
    new_start: usize,
    new_end: usize,
}

impl Hunk {
    /// Whether the two ranges overlap or touch: an edit right beside a live change is as
    /// ambiguous as one inside it (which order, which wins), so it is a conflict.
    fn touches(&self, other: &Hunk) -> bool {
        self.base_start <= other.base_end && other.base_start <= self.base_end
    }

    /// How many lines the hunk adds (negative: removes).
    fn delta(&self) -> isize {
        (self.new_end - self.new_start) as isize - (self.base_end - self.base_start) as isize
    }
}

/// Splits at `\n`, keeping each terminator (a `\r` before it stays part of the line).
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// The changed ranges from `base` to `new`, adjacent diff operations joined into one.
fn hunks(base: &[&[u8]], new: &[&[u8]]) -> Vec<Hunk> {
    let deadline = Instant::now() + DIFF_DEADLINE;
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, base, new, Some(deadline));
    let mut out: Vec<Hunk> = Vec::new();
    for op in ops {
        if let DiffOp::Equal { .. } = op {
            continue;
        }
        let (old, new) = (op.old_range(), op.new_range());
        match out.last_mut() {
            Some(last) if last.base_end == old.start && last.new_end == new.start => {
                last.base_end = old.end;
                last.new_end = new.end;
            }
            _ => out.push(Hunk {
                base_start: old.start,
                base_end: old.end,
                new_start: new.start,
                new_end: new.end,
            }),
        }
    }
    out
}

/// Whether two hunks make the same change to the same snapshot lines.
fn same_change(a: &Hunk, a_lines: &[&[u8]], b: &Hunk, b_lines: &[&[u8]]) -> bool {
    a.base_start == b.base_start
        && a.base_end == b.base_end
        && a_lines[a.new_start..a.new_end] == b_lines[b.new_start..b.new_end]
}

/// Merges the edit (`edited`, the snapshot with the edit applied) into `live`. `Err` holds
/// every conflicting region, in file order.
pub(crate) fn merge(base: &[u8], live: &[u8], edited: &[u8]) -> Result<Merged, Vec<Conflict>> {
    let (base, live, edited) = (lines(base), lines(live), lines(edited));
    let ours = hunks(&base, &live);
    let theirs = hunks(&base, &edited);

    // Live hunks the edit makes too are taken once, as the edit's.
    let absorbed: Vec<bool> = ours
        .iter()
        .map(|o| theirs.iter().any(|t| same_change(o, &live, t, &edited)))
        .collect();
    let mut conflicting: Vec<usize> = Vec::new();
    for (i, t) in theirs.iter().enumerate() {
        let clash = ours
            .iter()
            .zip(&absorbed)
            .any(|(o, &absorbed)| !absorbed && t.touches(o));
        if clash {
            conflicting.push(i);
        }
    }
    if !conflicting.is_empty() {
        return Err(conflicts(
            &conflicting,
            &theirs,
            &ours,
            &base,
            &live,
            &edited,
        ));
    }

    // No two remaining hunks touch, so in snapshot order they apply independently.
    let mut all: Vec<(Hunk, bool)> = theirs.iter().map(|h| (*h, true)).collect();
    all.extend(
        ours.iter()
            .zip(&absorbed)
            .filter(|(_, absorbed)| !**absorbed)
            .map(|(h, _)| (*h, false)),
    );
    all.sort_by_key(|(h, _)| (h.base_start, h.base_end));

    let mut bytes = Vec::with_capacity(live.iter().map(|l| l.len()).sum());
    let mut landed = Vec::new();
    let (mut pos, mut written) = (0usize, 0usize);
    for (hunk, is_edit) in all {
        for line in &base[pos..hunk.base_start] {
            bytes.extend_from_slice(line);
        }
        written += hunk.base_start - pos;
        let new = if is_edit { &edited } else { &live };
        for line in &new[hunk.new_start..hunk.new_end] {
            bytes.extend_from_slice(line);
        }
        if is_edit {
            landed.push(Landed {
                snapshot_start_line: hunk.base_start as u64 + 1,
                snapshot_line_count: (hunk.base_end - hunk.base_start) as u64,
                start_line: written as u64 + 1,
                line_count: (hunk.new_end - hunk.new_start) as u64,
            });
        }
        written += hunk.new_end - hunk.new_start;
        pos = hunk.base_end;
    }
    for line in &base[pos..] {
        bytes.extend_from_slice(line);
    }
    Ok(Merged { bytes, landed })
}

/// The conflicting regions: each conflicting edit hunk grown to take in every hunk of either
/// side that touches it, so the region's ends are lines both sides left alone, and shown as
/// the snapshot, the edit and the live file have it.
fn conflicts(
    conflicting: &[usize],
    theirs: &[Hunk],
    ours: &[Hunk],
    base: &[&[u8]],
    live: &[&[u8]],
    edited: &[&[u8]],
) -> Vec<Conflict> {
    let mut regions: Vec<(usize, usize)> = Vec::new();
    for &i in conflicting {
        let mut region = Hunk {
            base_start: theirs[i].base_start,
            base_end: theirs[i].base_end,
            new_start: 0,
            new_end: 0,
        };
        loop {
            let before = region;
            for h in theirs.iter().chain(ours) {
                if h.touches(&region) {
                    region.base_start = region.base_start.min(h.base_start);
                    region.base_end = region.base_end.max(h.base_end);
                }
            }
            if region == before {
                break;
            }
        }
        let range = (region.base_start, region.base_end);
        if !regions.contains(&range) {
            regions.push(range);
        }
    }
    regions.sort_unstable();
    regions
        .into_iter()
        .map(|(start, end)| {
            let (live_start, live_end) = project(ours, start, end);
            let (edit_start, edit_end) = project(theirs, start, end);
            Conflict {
                snapshot_start_line: start as u64 + 1,
                snapshot: base[start..end].concat(),
                edit: edited[edit_start..edit_end].concat(),
                live_start_line: live_start as u64 + 1,
                live: live[live_start..live_end].concat(),
            }
        })
        .collect()
}

/// The snapshot range `start..end` on one side, given that side's hunks. Every hunk that
/// touches the range lies inside it (see [`conflicts`]), so each hunk is wholly before,
/// inside or after it.
fn project(hunks: &[Hunk], start: usize, end: usize) -> (usize, usize) {
    let before: isize = hunks
        .iter()
        .filter(|h| h.base_end < start)
        .map(Hunk::delta)
        .sum();
    let inside: isize = hunks
        .iter()
        .filter(|h| h.base_start >= start && h.base_end <= end)
        .map(Hunk::delta)
        .sum();
    let start = start as isize + before;
    (start as usize, (end as isize + before + inside) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(base: &str, live: &str, edited: &str) -> Result<String, Vec<Conflict>> {
        merge(base.as_bytes(), live.as_bytes(), edited.as_bytes())
            .map(|m| String::from_utf8(m.bytes).unwrap())
    }

    #[test]
    fn an_edit_below_lines_inserted_above_lands_where_the_snapshot_said() {
        let base = "a\nb\nc\nd\n";
        let live = "new1\nnew2\na\nb\nc\nd\n";
        let edited = "a\nb\nC\nd\n";
        let m = merge(base.as_bytes(), live.as_bytes(), edited.as_bytes()).unwrap();
        assert_eq!(
            String::from_utf8(m.bytes).unwrap(),
            "new1\nnew2\na\nb\nC\nd\n"
        );
        assert_eq!(
            m.landed,
            vec![Landed {
                snapshot_start_line: 3,
                snapshot_line_count: 1,
                start_line: 5,
                line_count: 1
            }]
        );
    }

    #[test]
    fn disjoint_edits_both_land() {
        assert_eq!(
            merged("1\n2\n3\n4\n5\n", "1\nTWO\n3\n4\n5\n", "1\n2\n3\n4\nFIVE\n").unwrap(),
            "1\nTWO\n3\n4\nFIVE\n"
        );
    }

    #[test]
    fn a_deletion_above_shifts_the_edit_up() {
        let m = merge(b"1\n2\n3\n4\n", b"3\n4\n", b"1\n2\n3\nfour\n").unwrap();
        assert_eq!(m.bytes, b"3\nfour\n");
        assert_eq!(m.landed[0].start_line, 2);
    }

    #[test]
    fn the_same_region_changed_on_both_sides_is_a_conflict() {
        let conflicts = merged("1\n2\n3\n", "1\nlive\n3\n", "1\nedit\n3\n").unwrap_err();
        assert_eq!(
            conflicts,
            vec![Conflict {
                snapshot_start_line: 2,
                snapshot: b"2\n".to_vec(),
                edit: b"edit\n".to_vec(),
                live_start_line: 2,
                live: b"live\n".to_vec(),
            }]
        );
    }

    #[test]
    fn adjacent_changes_conflict() {
        assert!(merged("1\n2\n3\n4\n", "1\n2\nTHREE\n4\n", "1\nTWO\n3\n4\n").is_err());
    }

    #[test]
    fn insertions_at_the_same_place_conflict() {
        assert!(merged("1\n2\n", "1\nx\n2\n", "1\ny\n2\n").is_err());
    }

    #[test]
    fn an_identical_change_is_taken_once() {
        assert_eq!(
            merged("1\n2\n3\n", "1\nsame\n3\n", "1\nsame\n3\n").unwrap(),
            "1\nsame\n3\n"
        );
    }

    #[test]
    fn a_conflict_shows_live_line_numbers() {
        // Two lines inserted at the top live, and the edit's line changed live too.
        let conflicts =
            merged("a\nb\nc\nd\n", "x\ny\na\nb\nLIVE\nd\n", "a\nb\nEDIT\nd\n").unwrap_err();
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].snapshot_start_line, 3);
        assert_eq!(conflicts[0].live_start_line, 5);
        assert_eq!(conflicts[0].live, b"LIVE\n");
        assert_eq!(conflicts[0].edit, b"EDIT\n");
    }

    #[test]
    fn converted_line_ends_conflict_rather_than_mix() {
        assert!(merged("a\r\nb\r\nc\r\n", "a\nb\nc\n", "a\r\nB\r\nc\r\n").is_err());
    }

    #[test]
    fn a_change_at_the_end_without_a_final_newline() {
        assert_eq!(
            merged("1\n2\n3", "0\n1\n2\n3", "1\n2\nthree").unwrap(),
            "0\n1\n2\nthree"
        );
    }

    #[test]
    fn nothing_changed_live_gives_the_edit() {
        assert_eq!(merged("1\n2\n", "1\n2\n", "1\nB\n").unwrap(), "1\nB\n");
    }
}
