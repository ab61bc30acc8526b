//! Three-way merge of an edit made on a snapshot into the file as it is now.
//!
//! An agent computes its line numbers and old text on the version it read (the *snapshot*,
//! `base_hash`). When the file has changed since, the edit is applied to the snapshot, giving
//! the version the agent meant, and the two sets of changes are merged line by line: base =
//! the snapshot, live = the file now, edited = the snapshot with the edit. A change of the
//! edit lands where the snapshot put it, shifted by whatever the live file inserted or removed
//! above it.
//!
//! Where the edit changed the snapshot is what the edit says it changed (the byte ranges it
//! replaced), never re-derived by diffing the snapshot with the edited version: a diff cannot
//! tell copies of a repeated block apart and puts a change on whichever copy it meets last.
//!
//! The merge is conservative, because a wrong merge would be an `ok` with a file nobody asked
//! for: an edit hunk that overlaps a live change, or merely touches one (an insertion at the
//! same place, a change on the adjacent line), is a conflict and nothing is written, and so is
//! an edit whose lines some minimal diff of the live change puts elsewhere. An identical change
//! on both sides is taken once, but only where it has one place: no other live change is
//! within a line of it (two changes that close can also be told as one, and the edit's change
//! is then the live one's only by a choice), no place of a run of equal lines tells it as
//! another change, and every minimal diff has its neighbours where the merge reads them. Lines are compared as exact bytes, terminators included, so a file
//! whose line ends were converted since the snapshot conflicts everywhere rather than being
//! merged into a mixture.

use schemars::JsonSchema;
use serde::Serialize;
use similar::{Algorithm, DiffOp};
use std::collections::HashMap;
use std::ops::Range;
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
    /// Where the edit's change landed: one entry (several changes are merged as one, from the
    /// first to the last), none when the edit changed nothing.
    pub landed: Vec<Landed>,
}

/// The merge of an edit that did not conflict.
#[derive(Debug)]
pub(crate) struct Merged {
    pub bytes: Vec<u8>,
    /// Where the edit's change landed (see [`MergeReport::landed`]).
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

/// Whether `bytes` hold a `\r` that is not followed by `\n`: a line end the merge does not
/// split at.
fn has_lone_cr(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

/// Splits at `\n`, keeping each terminator (a `\r` before it stays part of the line).
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// How many line ends `lines` hold as keeper counts lines everywhere else (`\n`, `\r\n`, and
/// a lone `\r`, which the merge keeps inside its lines): what the line numbers it reports are
/// counted in.
fn line_ends(lines: &[&[u8]]) -> usize {
    lines
        .iter()
        .map(|line| {
            let lone_cr = line
                .iter()
                .enumerate()
                .filter(|&(i, &b)| b == b'\r' && line.get(i + 1) != Some(&b'\n'))
                .count();
            lone_cr + usize::from(line.ends_with(b"\n"))
        })
        .sum()
}

/// The 1-based number, as keeper counts lines, of the line at merge line `index`.
fn line_number(lines: &[&[u8]], index: usize) -> u64 {
    line_ends(&lines[..index]) as u64 + 1
}

/// How many lines, as keeper counts them, `lines` hold: their line ends, and a last line that
/// has none.
fn line_count(lines: &[&[u8]]) -> u64 {
    let unended = lines
        .last()
        .is_some_and(|last| !last.ends_with(b"\n") && !last.ends_with(b"\r"));
    (line_ends(lines) + usize::from(unended)) as u64
}

/// The changed ranges from `base` to `new`: what lies between the runs the diff found equal.
/// Only the equal runs are read: `similar` reports a deletion's position in the new side
/// after the equal run that follows it (a `Delete` at new index 1 before an `Equal` at new
/// index 0), so joining the changed operations by their own indexes merged a deletion and a
/// later insertion across the line between them, and the merge wrote live lines out of order.
fn hunks(base: &[&[u8]], new: &[&[u8]]) -> Vec<Hunk> {
    let deadline = Instant::now() + DIFF_DEADLINE;
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, base, new, Some(deadline));
    let mut out: Vec<Hunk> = Vec::new();
    let (mut at_base, mut at_new) = (0, 0);
    let equal_runs = ops.iter().filter_map(|op| match *op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => Some((old_index, new_index, len)),
        _ => None,
    });
    for (old_index, new_index, len) in equal_runs.chain([(base.len(), new.len(), 0)]) {
        if old_index > at_base || new_index > at_new {
            out.push(Hunk {
                base_start: at_base,
                base_end: old_index,
                new_start: at_new,
                new_end: new_index,
            });
        }
        (at_base, at_new) = (old_index + len, new_index + len);
    }
    out
}

/// Whether two hunks make the same change to the same snapshot lines.
fn same_change(a: &Hunk, a_lines: &[&[u8]], b: &Hunk, b_lines: &[&[u8]]) -> bool {
    a.base_start == b.base_start
        && a.base_end == b.base_end
        && a_lines[a.new_start..a.new_end] == b_lines[b.new_start..b.new_end]
}

/// Whether `at` is where a line starts in `bytes`.
fn at_line_start(bytes: &[u8], at: usize) -> bool {
    at == 0 || bytes[at - 1] == b'\n'
}

/// The index of the line that starts at byte `at` of `bytes` (the line count when `at` is the
/// end).
fn line_index(bytes: &[u8], at: usize) -> usize {
    let ended = bytes[..at].iter().filter(|&&b| b == b'\n').count();
    ended + usize::from(!at_line_start(bytes, at))
}

/// The whole lines of `bytes` that hold the byte range `changed`: from the start of the line
/// holding its first byte to the end of the line holding its last (an empty range at a line
/// start holds no line; one inside a line holds that line).
fn whole_lines(bytes: &[u8], changed: &Range<usize>) -> (usize, usize) {
    let start = line_start(bytes, changed.start);
    let end = if at_line_start(bytes, changed.end) {
        changed.end
    } else {
        line_end(bytes, changed.end)
    };
    (start, end)
}

/// The start of the line holding byte `at`: after the last `\n` before it, or 0.
fn line_start(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// The end of the line holding byte `at` (after its `\n`, or the end of `bytes`).
fn line_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i + 1)
}

/// The edit's one change, `changed` (snapshot bytes) replaced, as a hunk of whole lines, or
/// `None` when the edited bytes differ from the snapshot outside it.
fn exact_hunk(base: &[u8], edited: &[u8], changed: &Range<usize>) -> Option<Hunk> {
    let (start, end) = (changed.start, changed.end);
    let new_end = (end + edited.len()).checked_sub(base.len())?;
    if new_end < start || base[..start] != edited[..start] || base[end..] != edited[new_end..] {
        return None;
    }
    let (line_start, _) = whole_lines(base, changed);
    // The change ends at a line end only if it does on both sides: new text that does not end
    // its last line joins it to the line after, which is then part of the change.
    let line_end = if at_line_start(base, end) && at_line_start(edited, new_end) {
        end
    } else {
        self::line_end(base, end)
    };
    Some(Hunk {
        base_start: line_index(base, line_start),
        base_end: line_index(base, line_end),
        new_start: line_index(edited, line_start),
        new_end: line_index(edited, line_end + new_end - end),
    })
}

/// `hunk` without the lines at its ends that it leaves as they were, so a report names the
/// lines that changed (a patch's context lines are part of its change but did not change).
fn trimmed(mut hunk: Hunk, base: &[&[u8]], edited: &[&[u8]]) -> Hunk {
    while hunk.base_start < hunk.base_end
        && hunk.new_start < hunk.new_end
        && base[hunk.base_start] == edited[hunk.new_start]
    {
        hunk.base_start += 1;
        hunk.new_start += 1;
    }
    while hunk.base_start < hunk.base_end
        && hunk.new_start < hunk.new_end
        && base[hunk.base_end - 1] == edited[hunk.new_end - 1]
    {
        hunk.base_end -= 1;
        hunk.new_end -= 1;
    }
    hunk
}

/// The edit as one hunk with its reach: the snapshot lines that must be apart from every live
/// change. The edit names the byte ranges it replaced; several (`--all`, a patch of several
/// hunks) are taken together as one change from the first to the last, since where each
/// replacement ends in the edited bytes is not known and a diff cannot tell copies of a
/// repeated block apart: a live change between them is a conflict rather than a guess. The
/// reach is the change's whole lines, even where the new text equals the old (an edit that
/// rewrites a line to what it was still claims it); the hunk is the reach less the lines at
/// its ends that the edit left as they were, so a report names the lines that changed.
/// `Some(None)` when the edit changed nothing and names nothing; `None` when the changes do
/// not account for the edited bytes.
fn edit_hunk(
    base: &[u8],
    edited: &[u8],
    changed: &[Range<usize>],
    base_lines: &[&[u8]],
    edited_lines: &[&[u8]],
) -> Option<Option<(Hunk, Hunk)>> {
    let (Some(first), Some(last)) = (changed.first(), changed.last()) else {
        return (base == edited).then_some(None);
    };
    let span = first.start..last.end.max(first.start);
    // A change may also end the line before it or change the last line end after it (an
    // append to a file without a final newline, a patch hunk that adds one): then it takes
    // in a line on either side. Only bytes the edit did not name stay out of it.
    let wider = || {
        let start = line_start(base, span.start.saturating_sub(1));
        start..line_end(base, span.end.min(base.len())).min(base.len())
    };
    let reach = exact_hunk(base, edited, &span).or_else(|| exact_hunk(base, edited, &wider()))?;
    let hunk = trimmed(reach, base_lines, edited_lines);
    // An edit that leaves its lines as they were is reported as those lines, written as they
    // were, rather than as an empty change after them.
    let unchanged = hunk.base_start == hunk.base_end && hunk.new_start == hunk.new_end;
    Some(Some((if unchanged { reach } else { hunk }, reach)))
}

/// The live hunk `hunk` moved by one line up (`-1`) or down (`1`), when it is a pure
/// insertion or deletion whose lines allow it: the same live bytes, told as a change one line
/// over (inserting `x` into a run of `x`s can be told at any place of the run).
fn slid(hunk: &Hunk, by: isize, base: &[&[u8]], live: &[&[u8]]) -> Option<Hunk> {
    let inserting = hunk.base_start == hunk.base_end && hunk.new_start < hunk.new_end;
    let deleting = hunk.new_start == hunk.new_end && hunk.base_start < hunk.base_end;
    let moved = |at: usize| at.checked_add_signed(by);
    let next = Hunk {
        base_start: moved(hunk.base_start)?,
        base_end: moved(hunk.base_end)?,
        new_start: moved(hunk.new_start)?,
        new_end: moved(hunk.new_end)?,
    };
    let same = match (inserting, deleting, by < 0) {
        // Up: the line above the insertion is the inserted block's last line.
        (true, _, true) => base.get(next.base_start) == live.get(hunk.new_end - 1),
        (true, _, false) => base.get(hunk.base_start) == live.get(hunk.new_start),
        (_, true, true) => base.get(next.base_start) == base.get(hunk.base_end - 1),
        (_, true, false) => base.get(hunk.base_start) == base.get(hunk.base_end),
        _ => false,
    };
    (same && next.base_end <= base.len() && next.new_end <= live.len()).then_some(next)
}

/// Every way of telling the live hunk `ours[i]` (see [`slid`]), itself first. It moves only
/// over the equal lines between it and its neighbours: moved past another live hunk, it would
/// tell the changes in another order, which is not the live file.
fn placements(ours: &[Hunk], i: usize, base: &[&[u8]], live: &[&[u8]]) -> Vec<Hunk> {
    let hunk = ours[i];
    let room_above = hunk.base_start - i.checked_sub(1).map_or(0, |p| ours[p].base_end);
    let room_below = ours.get(i + 1).map_or(base.len(), |n| n.base_start) - hunk.base_end;
    let mut all = vec![hunk];
    for (by, room) in [(-1, room_above), (1, room_below)] {
        let mut at = hunk;
        for _ in 0..room {
            let Some(next) = slid(&at, by, base, live) else {
                break;
            };
            all.push(next);
            at = next;
        }
    }
    all
}

/// How many cells [`pinned`] may fill in each direction: both take about half a second in a
/// release build. Beyond it (a large file with large live changes) where the edit's lines
/// are in the live file is not checked, and the merge is refused.
const PINNED_CELLS: usize = 1 << 26;

/// Whether every minimal diff of `base` and `live` (every longest common subsequence of their
/// lines) matches the snapshot lines `block` one to one to the live lines that `ours`, the
/// diff the merge reads, matches them to. Sliding each live hunk over equal lines (see
/// [`placements`]) does not give every minimal diff: `a a` to `a a a L` is "add `a L` at the
/// end" or "add `a` at the top and `L` at the end", one hunk told as two, and an `L` the edit
/// inserted between the snapshot's two `a`s lands after the first or the second live `a`.
///
/// The longest common subsequences of every pair of prefixes (`ahead`) and of suffixes
/// (`behind`) are counted in the band of diagonals every minimal diff stays in (none deletes
/// or inserts more lines than `ours`). A minimal diff matches snapshot line `i` to live line
/// `j` when `ahead + 1 + behind` through that pair is the longest, and leaves `i` out when
/// `ahead + behind` around it is. Only the block's first and last lines are checked: when
/// every minimal diff matches them where `ours` does, it matches the lines between as `ours`
/// does too, one to one, since any other path between the two loses a line.
fn pinned<'a>(base: &[&'a [u8]], live: &[&'a [u8]], ours: &[Hunk], block: Range<usize>) -> bool {
    if ours.is_empty() || block.is_empty() {
        return true;
    }
    let (first, last, n, m) = (block.start, block.end - 1, base.len(), live.len());
    // Where `ours` matches snapshot line `line`, if it does.
    let matched = |line: usize| {
        if ours
            .iter()
            .any(|h| h.base_start <= line && line < h.base_end)
        {
            return None;
        }
        let shift: isize = ours
            .iter()
            .filter(|h| h.base_end <= line)
            .map(Hunk::delta)
            .sum();
        line.checked_add_signed(shift)
    };
    let (Some(first_at), Some(last_at)) = (matched(first), matched(last)) else {
        return false;
    };
    if last_at - first_at != last - first {
        return false;
    }
    let deleted: usize = ours.iter().map(|h| h.base_end - h.base_start).sum();
    let inserted: usize = ours.iter().map(|h| h.new_end - h.new_start).sum();
    let width = deleted + inserted + 1;
    if (n + 1).saturating_mul(width) > PINNED_CELLS {
        return false;
    }
    // Each distinct line as a number, so that a cell compares two numbers, not two lines.
    let mut numbers: HashMap<&[u8], u32> = HashMap::new();
    let (base, live) = (numbered(base, &mut numbers), numbered(live, &mut numbers));
    let reversed = |lines: &[u32]| lines.iter().rev().copied().collect::<Vec<u32>>();
    let ahead = band_rows(&base, &live, deleted, width, &[first, last, n]);
    // The suffixes from row `i` are the prefixes of the reversed lines up to row `n - i`,
    // where cell `k` is cell `width - 1 - k`.
    let behind = band_rows(
        &reversed(&base),
        &reversed(&live),
        deleted,
        width,
        &[n - first - 1, n - last - 1],
    );
    // Every count is one more than the length it stands for (0: outside the band).
    let longest = ahead[2][inserted];
    // Every minimal diff matches snapshot line `line` to live line `to`: none leaves it out
    // and none matches it elsewhere.
    let only_at = |ahead: &[u32], behind: &[u32], line: usize, to: usize| {
        (0..width).all(|k| {
            let before = ahead[k];
            if before == 0 {
                return true;
            }
            let j = line + k - deleted;
            let left_out =
                k > 0 && behind[width - k] > 0 && before + behind[width - k] == longest + 1;
            let after = behind[width - 1 - k];
            let elsewhere =
                j != to && j < m && base[line] == live[j] && after > 0 && before + after == longest;
            !left_out && !elsewhere
        })
    };
    longest > 0
        && only_at(&ahead[0], &behind[0], first, first_at)
        && only_at(&ahead[1], &behind[1], last, last_at)
}

/// `lines` as numbers, the same number for equal lines (in `numbers`, shared by both sides).
fn numbered<'a>(lines: &[&'a [u8]], numbers: &mut HashMap<&'a [u8], u32>) -> Vec<u32> {
    lines
        .iter()
        .map(|&line| {
            let next = numbers.len() as u32;
            *numbers.entry(line).or_insert(next)
        })
        .collect()
}

/// The rows `rows` of the table of longest common subsequences of the prefixes of `a` and
/// `b`, each over the band of cells `k` (`0..width`) for the prefixes `a[..i]` and
/// `b[..i + k - below]`: one more than the length, or 0 outside the band.
fn band_rows(a: &[u32], b: &[u32], below: usize, width: usize, rows: &[usize]) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); rows.len()];
    let (mut prev, mut row) = (vec![0u32; width], vec![0u32; width]);
    for i in 0..=a.len() {
        row.fill(0);
        // The cells whose `j` is in `0..=b.len()`.
        let from = below.saturating_sub(i);
        let to = (b.len() + below + 1).saturating_sub(i).min(width);
        for k in from..to {
            let j = i + k - below;
            let mut best = u32::from(i == 0 && j == 0);
            if i > 0 {
                best = best.max(prev.get(k + 1).copied().unwrap_or(0));
                if j > 0 && prev[k] > 0 && a[i - 1] == b[j - 1] {
                    best = best.max(prev[k] + 1);
                }
            }
            if k > from {
                best = best.max(row[k - 1]);
            }
            row[k] = best;
        }
        for (slot, _) in out.iter_mut().zip(rows).filter(|(_, r)| **r == i) {
            slot.clone_from(&row);
        }
        std::mem::swap(&mut prev, &mut row);
    }
    out
}

/// Merges the edit (`edited`, the snapshot with the edit applied) into `live`. `changed` are
/// the byte ranges of the snapshot the edit replaced, in order; they are merged as one change.
/// `Err` holds the conflicting region, or the whole file when the changes do not account for
/// the edited bytes.
pub(crate) fn merge(
    base: &[u8],
    live: &[u8],
    edited: &[u8],
    changed: &[Range<usize>],
) -> Result<Merged, Vec<Conflict>> {
    // A byte-order mark all three versions start with is no line's text: merged with line 1,
    // an insertion before that line would be told as its replacement (and reported so).
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    if [base, live, edited].iter().all(|b| b.starts_with(BOM)) {
        let n = BOM.len();
        let changed: Vec<Range<usize>> = changed
            .iter()
            .map(|r| r.start.saturating_sub(n)..r.end.saturating_sub(n))
            .collect();
        return merge(&base[n..], &live[n..], &edited[n..], &changed).map(|mut m| {
            m.bytes.splice(0..0, BOM.iter().copied());
            m
        });
    }
    let (base_bytes, live_bytes, edited_bytes) = (base, live, edited);
    let (base, live, edited) = (lines(base), lines(live), lines(edited));
    let ours = hunks(&base, &live);
    // The edit's hunk and its reach, none when it changed nothing.
    let Some(edit) = edit_hunk(base_bytes, edited_bytes, changed, &base, &edited) else {
        return Err(vec![Conflict {
            snapshot_start_line: 1,
            snapshot: base.concat(),
            edit: edited.concat(),
            live_start_line: 1,
            live: live.concat(),
        }]);
    };

    // A live hunk that is a run's insertion or deletion could have been told at any place of
    // the run: it is apart from the edit only if every such place is, and it is the edit's
    // own change (taken once) if one of them is exactly that.
    let told: Vec<Vec<Hunk>> = (0..ours.len())
        .map(|i| placements(&ours, i, &base, &live))
        .collect();
    // Taken once only where nothing else changed close by: a live change one equal line from
    // another can also be told as one change over both (`x b` to `b L` is "delete x, add L"
    // or "replace both"), and the edit's change is then the live one's only by a choice.
    let near = |i: usize, reach: &Hunk| {
        let wide = Hunk {
            base_start: reach.base_start.saturating_sub(1),
            base_end: reach.base_end + 1,
            ..*reach
        };
        told.iter()
            .enumerate()
            .any(|(j, ways)| j != i && ways.iter().any(|o| wide.touches(o)))
    };
    // Taken once only where every place the live change could be told is the edit's own
    // change: told at another place of a run, it is another change that the live writer may
    // have made instead, and the edit's change would then be made twice or not at all (`x x
    // x` to `x x`, the edit deleting the first `x`: `x x` if the live writer deleted that
    // one, `x` if the last). Two files fit, so it conflicts below.
    //
    // Runs are found on the lines the merge splits at `\n`. Where a version has lines that
    // are not such lines, a last line with no line end (`a` is not `a\n`, so a run that ends
    // the file stops short of it) or a lone CR (a line of `x\rx\r` is two), a run can be
    // longer than the merge sees, so no change is taken once there: it conflicts.
    let runs_seen = [base_bytes, live_bytes, edited_bytes]
        .iter()
        .all(|b| (b.is_empty() || b.ends_with(b"\n")) && !has_lone_cr(b));
    let absorbed: Vec<bool> = told
        .iter()
        .enumerate()
        .map(|(i, ways)| {
            runs_seen
                && edit.is_some_and(|(theirs, reach)| {
                    ways.iter().all(|o| same_change(o, &live, &theirs, &edited)) && !near(i, &reach)
                })
        })
        .collect();
    let conflicting = edit.filter(|(_, reach)| {
        let clash = told
            .iter()
            .zip(&absorbed)
            .any(|(ways, &absorbed)| !absorbed && ways.iter().any(|o| reach.touches(o)));
        // Apart in every placement is not yet apart in every minimal diff: the edit merges
        // only where every one of them has its lines, and a line on either side, matched
        // where the merge puts them (a live hunk told as two can put equal lines on either
        // side of the edit). A change taken once writes the live file, wherever it was.
        // A change taken once must be where every minimal diff has it, too: its neighbours on
        // either side matched where the merge reads them (`a a` to `a a` without the last
        // line end is that change of line 2, or line 1 deleted and line 2 changed).
        let block = reach.base_start.saturating_sub(1)..(reach.base_end + 1).min(base.len());
        let once_pinned = || {
            let at = |line: usize| pinned(&base, &live, &ours, line..line + 1);
            (reach.base_start == 0 || at(reach.base_start - 1))
                && (reach.base_end >= base.len() || at(reach.base_end))
        };
        clash
            || if absorbed.contains(&true) {
                !once_pinned()
            } else {
                !pinned(&base, &live, &ours, block)
            }
    });
    if let Some(edit) = conflicting {
        // Each live hunk as the snapshot lines any of its placements covers, so a conflict's
        // region takes in the live change wherever the diff happened to tell it.
        let spans: Vec<Hunk> = told
            .iter()
            .map(|ways| Hunk {
                base_start: ways.iter().map(|h| h.base_start).min().unwrap_or_default(),
                base_end: ways.iter().map(|h| h.base_end).max().unwrap_or_default(),
                new_start: 0,
                new_end: 0,
            })
            .collect();
        return Err(vec![conflict(edit, (&ours, &spans), &base, &live, &edited)]);
    }

    // No two remaining hunks touch, so in snapshot order they apply independently.
    let mut all: Vec<(Hunk, bool)> = edit.map(|(theirs, _)| (theirs, true)).into_iter().collect();
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
        written += line_ends(&base[pos..hunk.base_start]);
        let new = if is_edit { &edited } else { &live };
        for line in &new[hunk.new_start..hunk.new_end] {
            bytes.extend_from_slice(line);
        }
        let new_lines = &new[hunk.new_start..hunk.new_end];
        if is_edit {
            landed.push(Landed {
                snapshot_start_line: line_number(&base, hunk.base_start),
                snapshot_line_count: line_count(&base[hunk.base_start..hunk.base_end]),
                start_line: written as u64 + 1,
                line_count: line_count(new_lines),
            });
        }
        written += line_ends(new_lines);
        pos = hunk.base_end;
    }
    for line in &base[pos..] {
        bytes.extend_from_slice(line);
    }
    Ok(Merged { bytes, landed })
}

/// The conflicting region: the edit's reach grown to take in every hunk of either side that
/// touches it, so the region's ends are lines both sides left alone, shown as the snapshot,
/// the edit and the live file have it.
fn conflict(
    (theirs, reach): (Hunk, Hunk),
    (ours, spans): (&[Hunk], &[Hunk]),
    base: &[&[u8]],
    live: &[&[u8]],
    edited: &[&[u8]],
) -> Conflict {
    let mut region = Hunk {
        new_start: 0,
        new_end: 0,
        ..reach
    };
    loop {
        let before = region;
        for h in std::iter::once(&theirs).chain(spans) {
            if h.touches(&region) {
                region.base_start = region.base_start.min(h.base_start);
                region.base_end = region.base_end.max(h.base_end);
            }
        }
        if region == before {
            break;
        }
    }
    let (start, end) = (region.base_start, region.base_end);
    let (live_start, live_end) = project(ours, start, end);
    let (edit_start, edit_end) = project(std::slice::from_ref(&theirs), start, end);
    Conflict {
        snapshot_start_line: line_number(base, start),
        snapshot: base[start..end].concat(),
        edit: edited[edit_start..edit_end].concat(),
        live_start_line: line_number(live, live_start),
        live: live[live_start..live_end].concat(),
    }
}

/// The snapshot range `start..end` on one side, given that side's hunks. Every hunk that
/// touches the range lies inside it (see [`conflict`]), so each hunk is wholly before,
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
// The ranges are lists of changed byte ranges that hold one, not ranges to collect.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    /// The bytes `edited` replaced in `base`, for texts whose lines do not repeat: what is
    /// between the common start and the common end.
    fn replaced(base: &str, edited: &str) -> Range<usize> {
        let (base, edited) = (base.as_bytes(), edited.as_bytes());
        let start = base.iter().zip(edited).take_while(|(a, b)| a == b).count();
        let room = base.len().min(edited.len()) - start;
        let end = base
            .iter()
            .rev()
            .zip(edited.iter().rev())
            .take(room)
            .take_while(|(a, b)| a == b)
            .count();
        start..base.len() - end
    }

    fn merge_str(base: &str, live: &str, edited: &str) -> Result<Merged, Vec<Conflict>> {
        let changed = replaced(base, edited);
        merge(
            base.as_bytes(),
            live.as_bytes(),
            edited.as_bytes(),
            &[changed],
        )
    }

    fn merged(base: &str, live: &str, edited: &str) -> Result<String, Vec<Conflict>> {
        merge_str(base, live, edited).map(|m| String::from_utf8(m.bytes).unwrap())
    }

    #[test]
    fn an_edit_on_one_copy_of_a_repeated_block_stays_on_that_copy() {
        // Deleting the first copy: a diff would put the deletion on the second.
        let (base, edited) = (b"x\nA\nx\nA\nm\nz\n", b"x\nA\nm\nz\n");
        let m = merge(base, b"x\nA\nx\nA\nm\nZ\n", edited, &[0..4]).unwrap();
        assert_eq!(m.bytes, b"x\nA\nm\nZ\n");
        assert_eq!(m.landed[0].snapshot_start_line, 1);
        // So a live change of the first copy conflicts instead of keeping the copy the caller
        // deleted and deleting the one it kept.
        let conflicts = merge(base, b"X\nA\nx\nA\nm\nz\n", edited, &[0..4]).unwrap_err();
        assert_eq!(conflicts[0].snapshot_start_line, 1);
        assert_eq!(conflicts[0].live, b"X\nA\n");
        // Inserting a copy before the first: a diff would insert it after.
        let (base, edited) = (b"x\nA\nz\n", b"x\nA\nx\nA\nz\n");
        assert!(merge(base, b"X\nA\nz\n", edited, &[0..0]).is_err());
        let m = merge(base, b"x\nA\nZ\n", edited, &[0..0]).unwrap();
        assert_eq!(m.bytes, b"x\nA\nx\nA\nZ\n");
        assert_eq!(m.landed[0].start_line, 1);
    }

    #[test]
    fn a_byte_order_mark_is_no_part_of_the_first_line() {
        // Inserting a line before line 1 of a file that starts with a BOM inserts it after
        // the BOM: line 1 is not replaced, whatever the bytes the BOM shares with it.
        let (base, edited) = ("\u{feff}a\nb\n", "\u{feff}new\na\nb\n");
        let m = merge(
            base.as_bytes(),
            "\u{feff}a\nb\nc\n".as_bytes(),
            edited.as_bytes(),
            &[3..3],
        )
        .unwrap();
        assert_eq!(m.bytes, "\u{feff}new\na\nb\nc\n".as_bytes());
        assert_eq!(
            m.landed,
            [Landed {
                snapshot_start_line: 1,
                snapshot_line_count: 0,
                start_line: 1,
                line_count: 1,
            }]
        );
        // A live change of line 1 then touches the insertion's place: a conflict, as
        // without a BOM.
        let conflicts = merge(
            base.as_bytes(),
            "\u{feff}A\nb\n".as_bytes(),
            edited.as_bytes(),
            &[3..3],
        )
        .unwrap_err();
        assert_eq!(conflicts[0].snapshot_start_line, 1);
        assert!(merged("a\nb\n", "A\nb\n", "new\na\nb\n").is_err());
    }

    #[test]
    fn several_changes_merge_as_one_from_the_first_to_the_last() {
        // Lines 1 and 4 deleted (a diff would see lines 2 and 4 go): a live change after
        // them merges, and one between them conflicts rather than being placed by a guess.
        let (base, edited) = (b"x\nx\nm\nx\nx\n", b"x\nm\nx\n");
        let m = merge(base, b"x\nx\nm\nx\nx\nend\n", edited, &[0..2, 6..8]).unwrap();
        assert_eq!(m.bytes, b"x\nm\nx\nend\n");
        assert!(merge(base, b"x\nx\nM\nx\nx\n", edited, &[0..2, 6..8]).is_err());
        // `a` then `z` after each `a`, with the first `a` changed live: a conflict, never a
        // `z` put after the other copy.
        let (base, edited) = (b"p\na\nz\na\n", b"p\na\nz\nz\na\nz\n");
        assert!(merge(base, b"p\nL\nz\na\n", edited, &[2..4, 6..8]).is_err());
        // And ranges that do not account for the edited bytes conflict everywhere.
        assert!(merge(b"a\nb\nc\n", b"a\nb\nc\nd\n", b"A\nb\nC\n", &[0..2]).is_err());
    }

    /// A live change that could have been told at another place of a run of equal lines is
    /// judged at every such place: one that could touch the edit conflicts, and so does the
    /// edit's own change when another place tells a different one (was it made once, or
    /// twice?).
    #[test]
    fn a_live_change_in_a_run_of_equal_lines_is_judged_wherever_it_could_be() {
        // An `x` inserted into the run on both sides: the live one may be the edit's, or
        // another `x` (three `x`s, or four): a conflict, never a guess.
        assert!(
            merge(
                b"a\nx\nx\nb\n",
                b"a\nx\nx\nx\nb\n",
                b"a\nx\nx\nx\nb\n",
                &[2..2],
            )
            .is_err()
        );
        // An `x` deleted from the run on both sides: `x x` if the live writer deleted the
        // edit's `x`, `x` if another: a conflict.
        assert!(merge(b"x\nx\nx\n", b"x\nx\n", b"x\nx\n", &[0..2]).is_err());
        // The borderline a tester found: `a b` deleted from `x a b a a c` on both sides, or
        // `b a` live (the next `a`): `x a a` or `x a`.
        assert!(
            merge(
                b"x\na\nb\na\na\nc\n",
                b"x\na\na\n",
                b"x\na\na\nc\n",
                &[2..6],
            )
            .is_err()
        );
        // Outside a run the same change on both sides has one place, and is taken once.
        let m = merge(b"p\nx\nq\n", b"p\nq\n", b"p\nq\n", &[2..4]).unwrap();
        assert_eq!(m.bytes, b"p\nq\n");
        // A line deleted from a run that reaches the edited line: a conflict.
        assert!(
            merge(
                b"a\nx\nx\nx\nb\n",
                b"a\nx\nx\nb\n",
                b"a\nY\nx\nx\nb\n",
                &[2..4]
            )
            .is_err()
        );
    }

    /// A run the merge cannot see whole, one that ends at a last line without a line end or
    /// one of lines ended by a lone CR, takes no change once: the two readings differ there as
    /// they do in a run it sees (testers found `ok` with the edit's own line dropped).
    #[test]
    fn no_change_is_taken_once_where_a_run_may_be_longer_than_the_merge_sees() {
        // `a` appended on both sides of `x a`, no final newline: `x a a` or `x a a a`.
        assert!(merge(b"x\na", b"x\na\na", b"x\na\na", &[3..3]).is_err());
        // The last `a` of `x a a` deleted on both sides: `x a`, or `x` if the live writer
        // deleted the other.
        assert!(merge(b"x\na\na", b"x\na", b"x\na", &[3..5]).is_err());
        // An `x` inserted into `x x` on both sides, lines ended by a lone CR.
        assert!(merge(b"x\rx\r", b"x\rx\rx\r", b"x\rx\rx\r", &[2..2]).is_err());
        // The same file ending in a newline is still merged where nothing is in doubt.
        let m = merge(b"p\nx\nq\n", b"p\nq\n", b"p\nq\n", &[2..4]).unwrap();
        assert_eq!(m.bytes, b"p\nq\n");
    }

    /// A merge either conflicts or gives one of the files a correct merge could give.
    fn merges_to_one_of(result: Result<Merged, Vec<Conflict>>, correct: &[&[u8]]) {
        if let Ok(m) = result {
            assert!(
                correct.contains(&m.bytes.as_slice()),
                "merged into {:?}",
                String::from_utf8_lossy(&m.bytes)
            );
        }
    }

    /// The live side's changes are what lies between the runs a diff finds equal: a deletion
    /// and a later insertion are two changes, never one written out of order.
    #[test]
    fn live_changes_are_read_between_the_equal_runs() {
        let (base, live) = (lines(b"x\na\na\n"), lines(b"a\nL\na\na\n"));
        assert_eq!(
            hunks(&base, &live),
            [
                Hunk {
                    base_start: 0,
                    base_end: 1,
                    new_start: 0,
                    new_end: 0
                },
                Hunk {
                    base_start: 2,
                    base_end: 2,
                    new_start: 1,
                    new_end: 3
                },
            ]
        );
        // Found by a differential fuzzer: each gave `ok` with live lines out of order.
        merges_to_one_of(
            merge(b"x\na\na\n", b"a\nL\na\na\n", b"x\na\nQ\n", &[4..6]),
            &[b"a\nL\na\nQ\n"],
        );
        merges_to_one_of(
            merge(b"b\na\nx\n", b"a\na\nb\nx\n", b"b\na\n", &[4..6]),
            &[b"a\na\nb\n"],
        );
        merges_to_one_of(
            merge(
                b"a\nb\nb\nb\nb\n",
                b"L\na\nb\nL\nb\nb\n",
                b"a\nb\nb\nb\n",
                &[8..10],
            ),
            &[b"L\na\nb\nL\nb\n"],
        );
        // And one that panicked (an internal error instead of a conflict).
        merges_to_one_of(
            merge(
                b"x\nb\nb\na\n",
                b"x\na\na\na\n",
                b"Q\nx\nb\nb\na\n",
                &[0..0],
            ),
            &[b"Q\nx\na\na\na\n"],
        );
    }

    /// The edit's change is taken once only where no other live change is close enough to
    /// tell the two as one.
    #[test]
    fn a_change_made_on_both_sides_is_taken_once_only_where_nothing_else_changed_close_by() {
        // Live: `x` deleted and `L` added after the next line, or `x b` replaced by `b L`.
        let (base, live) = (b"x\nb\nb\nx\nb\nx\nb\n", b"L\nb\nb\nx\nb\nb\nL\n");
        assert!(merge(base, live, b"x\nb\nb\nx\nb\nb\n", &[10..12]).is_err());
        // Alone, the same deletion on both sides is taken once.
        let m = merge(b"a\nx\nb\nc\n", b"a\nb\nc\n", b"a\nb\nc\n", &[2..4]).unwrap();
        assert_eq!(m.bytes, b"a\nb\nc\n");
    }

    /// Found by the generator of repeated lines (`merge_generated.rs`): each answered ok with
    /// one of two files that two minimal diffs of the live change give.
    #[test]
    fn an_edit_merges_only_where_every_minimal_diff_puts_its_lines() {
        // `a a` to `a a a L`: "add `a L` at the end" (no slide of it moves an `a` above the
        // edit) or "add `a` at the top and `L` at the end". The `L` inserted after the first
        // `a` was written after the first live `a`, where the second diff puts it after the
        // second.
        assert!(merge(b"a\na\n", b"a\na\na\nL\n", b"a\nL\na\n", &[2..2]).is_err());
        // `a a a` to `a a L`: "the last `a` became `L`", or "the first `a` deleted and `L`
        // added", which is the edit's own deletion. Deleting the first `a` gave `a L`, where
        // the second reading keeps the live file.
        assert!(merge(b"a\na\na\n", b"a\na\nL\n", b"a\na\n", &[0..2]).is_err());
        // Where every minimal diff puts the lines, the edit still merges.
        let m = merge(
            b"a\nb\na\nb\n",
            b"a\nb\na\nb\nL\n",
            b"a\nB\na\nb\n",
            &[2..4],
        )
        .unwrap();
        assert_eq!(m.bytes, b"a\nB\na\nb\nL\n");
    }

    #[test]
    fn an_edit_that_leaves_its_lines_as_they_were_still_claims_them() {
        // Line 2 rewritten to what it was, over a live change of it: a conflict, not an `ok`
        // that keeps the live line.
        assert!(merge(b"a\nb\nc\n", b"a\nB\nc\n", b"a\nb\nc\n", &[2..4]).is_err());
        let m = merge(b"a\nb\nc\nd\n", b"a\nb\nc\nD\n", b"a\nb\nc\nd\n", &[2..4]).unwrap();
        assert_eq!(m.bytes, b"a\nb\nc\nD\n");
        // And they are what it reports: line 2, one line, written where it was.
        let landed = &m.landed[0];
        assert_eq!(
            (
                landed.snapshot_start_line,
                landed.snapshot_line_count,
                landed.start_line,
                landed.line_count
            ),
            (2, 1, 2, 1)
        );
    }

    #[test]
    fn where_a_change_landed_is_told_in_lines_as_keeper_counts_them() {
        // Two lone-CR line ends in the first line of the merge: line 5 is keeper's line 5.
        let base = b"a\rb\rc\n1\n2\n3\n";
        let m = merge(
            base,
            b"a\rb\rc\n1\n2\nTHREE\n",
            b"a\rb\rc\nONE\n2\n3\n",
            &[6..8],
        )
        .unwrap();
        assert_eq!(m.bytes, b"a\rb\rc\nONE\n2\nTHREE\n");
        assert_eq!(
            (m.landed[0].snapshot_start_line, m.landed[0].start_line),
            (4, 4)
        );
    }

    #[test]
    fn a_change_that_joins_lines_takes_the_line_after_too() {
        // The newline of line 1 removed: line 2 is changed as well.
        let m = merge(b"a\nb\nc\nd\n", b"a\nb\nc\nD\n", b"ab\nc\nd\n", &[1..2]).unwrap();
        assert_eq!(m.bytes, b"ab\nc\nD\n");
        assert_eq!(m.landed[0].snapshot_line_count, 2);
        assert!(merge(b"a\nb\nc\nd\n", b"a\nb\nC\nd\n", b"ab\nc\nd\n", &[1..2]).is_err());
    }

    #[test]
    fn an_edit_below_lines_inserted_above_lands_where_the_snapshot_said() {
        let base = "a\nb\nc\nd\n";
        let live = "new1\nnew2\na\nb\nc\nd\n";
        let edited = "a\nb\nC\nd\n";
        let m = merge_str(base, live, edited).unwrap();
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
        let m = merge_str("1\n2\n3\n4\n", "3\n4\n", "1\n2\n3\nfour\n").unwrap();
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
