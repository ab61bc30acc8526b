//! A seeded generator of concurrent edits, checked against what the writers meant and against
//! diffy's three-way merge as an independent reference.
//!
//! Each case is a snapshot of distinct lines, a set of live changes (by another writer) and
//! one edit (by the agent), each a replacement, insertion or deletion of a range, with new
//! lines that never repeat a snapshot line, so what each writer changed is unambiguous. When
//! the edit's range is apart from every live change (at least one untouched line between), the
//! merge must give exactly both changes applied, and so must diffy. When it overlaps or
//! touches one, ours must refuse; a wrong merge would be an `ok` with a file nobody wrote.

use super::merge::merge;
use super::replace_generated::Rng;

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
