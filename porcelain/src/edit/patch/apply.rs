//! One section's hunks placed in its file and applied: at the stated line or one offset,
//! and refused where the place is a guess (a patch applied already, a hunk without context
//! that only its number places, an edge the file no longer has, a file changed since that
//! git's `index` line names).

use super::*;

/// The id git gives `bytes` as a blob (SHA-1 of `blob LEN\0` and the bytes), in hex: what a
/// git diff's `index` line abbreviates.
pub(super) fn git_blob_id(bytes: &[u8]) -> String {
    use sha1::{Digest, Sha1};
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", bytes.len()).as_bytes());
    hasher.update(bytes);
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A terminator as a message names it.
fn eol_name(eol: &str) -> &'static str {
    match eol {
        "\r\n" => "CRLF",
        "\n" => "LF",
        _ => "no newline",
    }
}

/// The line end every terminated added line of the patch carries, or `None` when they differ.
/// Only terminated lines count: not the one a `\ No newline` marker follows, nor one the
/// patch text ends on without a newline.
fn patch_convention(file: &FilePatch) -> Option<&'static str> {
    let mut ends = file.hunks.iter().flat_map(Hunk::added_ends);
    let first = ends.next().unwrap_or("\n");
    ends.all(|e| e == first).then_some(first)
}

/// Applies a file's hunks to `doc` (empty for a created file). Returns the per-hunk report;
/// on any failed or ambiguous hunk the report says so and `doc` must not be used.
///
/// A hunk is placed by its old lines' text: at its stated line, else at the one place after
/// the previous hunk where they occur. Then, at that place, a line the old side marks with
/// `\ No newline at end of file` must be the file's last line without a newline, and the
/// file's last line without one must be so marked (`final_newline`). Hunks must come in the
/// order of their lines (`misordered`), and a hunk that shows the file's own line ends must
/// not ask for other ones on its added lines (`line_ends`).
pub(crate) fn apply(file: &FilePatch, doc: &mut Doc) -> (bool, Vec<HunkReport>) {
    // git's `index` line names the blob of the file the patch was made from: the file is that
    // one (every hunk is where it says), or it has changed since, as a moved hunk shows.
    let made_from = file.old_blob.as_deref().map(|named| {
        let id = git_blob_id(&doc.to_bytes());
        let same = id.starts_with(named);
        (same, named, id[..named.len().min(id.len())].to_owned())
    });
    // And where the file is that one, the line names the result too, which tells how the
    // added lines end: as the file's convention has them (a patch whose line ends were
    // converted in transport), or each as the patch writes it. Before 2026-12-05 a `-U0` hunk
    // adding a CRLF line to an LF file was written with LF, `ok: true`, a file other than
    // the one the line names.
    let Some((named, (_, old_named, _))) = file
        .new_blob
        .as_deref()
        .zip(made_from.clone().filter(|m| m.0))
    else {
        return place(file, doc, made_from, false);
    };
    let original = doc.clone();
    let (ok, reports) = place(file, doc, made_from.clone(), false);
    let result_id = |doc: &Doc| git_blob_id(&doc.to_bytes());
    if ok && result_id(doc).starts_with(named) {
        return (ok, reports);
    }
    let mut as_written = original.clone();
    let (ok_written, reports_written) = place(file, &mut as_written, made_from, true);
    if ok_written && result_id(&as_written).starts_with(named) {
        *doc = as_written;
        return (ok_written, reports_written);
    }
    if !ok {
        return (ok, reports);
    }
    // The hunks apply, and give another file than the one the patch was made to give.
    let result = result_id(doc);
    *doc = original;
    let mut reports = reports;
    let report = reports[0].clone();
    reports[0] = refused(
        report,
        Refusal {
            reason: "not_the_named_result",
            clause: format!(
                "applies, as do the section's other hunks, to the file the patch was made from (its `index` line names blob {old_named}, the file's), but together they give blob {} where the line names {named}: the patch's lines are not the ones it was made with (line ends converted in transport, or lines edited by hand; a patch edited on purpose applies without its `index` line)",
                &result[..named.len().min(result.len())]
            ),
            details: vec![
                ("new_blob", named.into()),
                (
                    "result_blob",
                    result[..named.len().min(result.len())].into(),
                ),
            ],
        },
    );
    (false, reports)
}

/// [`apply`] with the file's `index` facts read (`made_from`: whether the file is the blob
/// the line names, that name, and the file's id as long); `as_written`: every added line
/// ends as the patch writes it, and no hunk is refused for asking line ends other than the
/// file's (the `index` line's result judges them instead).
fn place(
    file: &FilePatch,
    doc: &mut Doc,
    made_from: Option<(bool, &str, String)>,
    as_written: bool,
) -> (bool, Vec<HunkReport>) {
    // New lines take the file's convention. A file with no terminator yet (new or empty) has
    // none, so it takes the patch's: the one its added lines agree on, else each added line
    // keeps its own, as the patch writes it (`own_ends`).
    let has_eol = doc.lines.iter().any(|l| !l.eol.is_empty());
    let convention = patch_convention(file);
    // The section's added lines end in LF and in CRLF (no agreed convention).
    let added_mix = convention.is_none();
    // The section-wide value: a marker line without a CR in any of its hunks says no CR was
    // added to the section's lines in transport.
    let plain_marker = file.hunks.iter().any(|h| h.plain_marker);
    let (eol, own_ends) = match (has_eol, convention) {
        _ if as_written => (doc.eol(), true),
        (true, _) => (doc.eol(), false),
        (false, Some(agreed)) => (agreed, false),
        (false, None) => ("\n", true),
    };
    let proven = file.on_base || made_from.as_ref().is_some_and(|m| m.0);
    let changed_since = made_from.filter(|m| !m.0).map(|(_, named, id)| (named, id));
    let old = std::mem::take(&mut doc.lines);
    let mut out: Vec<Line> = Vec::with_capacity(old.len());
    let mut cursor = 0usize;
    let mut ok = true;
    let mut reports = Vec::new();
    let mut touched_end = false;
    let mut new_no_eol = false;
    // The previous hunk that applied: its number, the end of its stated old lines (0-based,
    // exclusive), and where its old lines are in the file.
    let mut previous: Option<(usize, usize, usize)> = None;
    // The hunks that applied at their stated line.
    let mut by_number: Vec<Stated> = Vec::new();
    for (n, hunk) in file.hunks.iter().enumerate() {
        let (want, want_eols): (Vec<&str>, Vec<Option<&str>>) = hunk
            .lines
            .iter()
            .zip(&hunk.eols)
            .filter_map(|(l, eol)| match l {
                HunkLine::Context(t) | HunkLine::Remove(t) => Some((t.as_str(), *eol)),
                HunkLine::Add(_) => None,
            })
            .unzip();
        let stated = if hunk.old_count == 0 {
            hunk.old_start
        } else {
            hunk.old_start.saturating_sub(1)
        };
        let text_fits = |at: usize| {
            at + want.len() <= old.len()
                && want.iter().enumerate().all(|(k, w)| old[at + k].text == *w)
        };
        let fits = |at: usize| at >= cursor && text_fits(at);
        let mut report = HunkReport {
            hunk: n + 1,
            old_start: hunk.old_start,
            old_lines: hunk.old_count,
            new_start: hunk.new_start,
            new_lines: hunk.new_count,
            status: "applies",
            offset: 0,
            mismatch: None,
            refusal: None,
        };
        if let Some((prev, prev_stated_end, prev_at)) = previous {
            // Hunks in the wrong order would be placed after the previous one, wherever their
            // lines occur again: never what the patch meant.
            let stated_before = stated < prev_stated_end;
            if stated_before || (stated < cursor && text_fits(stated)) {
                let prev_hunk = &file.hunks[prev - 1];
                let clause = if stated_before {
                    format!(
                        "is out of order: it states line {}, which is not after hunk {prev} (stated at line {}, {} old line(s)); hunks must come in the order of their lines",
                        hunk.old_start, prev_hunk.old_start, prev_hunk.old_count
                    )
                } else {
                    format!(
                        "is out of order: its lines are at its stated line {}, but hunk {prev} applied after that, at line {}; hunks must come in the order of their lines",
                        hunk.old_start,
                        prev_at + 1
                    )
                };
                ok = false;
                reports.push(refused(
                    report,
                    Refusal {
                        reason: "misordered",
                        clause,
                        details: vec![("previous_hunk", prev.into())],
                    },
                ));
                continue;
            }
        }
        // Where the hunk's old lines are not, but its new lines are where the patch puts
        // them, the patch (or this hunk) has been applied already: found again at an offset,
        // its old lines would be another place's, a twin function's or a repeated stanza's.
        // Lines added before line 1 that already start the file, the same: added again, they
        // would be there twice; unless the file is the patch's own (`index` line, `--base`),
        // which cannot hold its change (refused before 2026-12-05).
        let again = if want.is_empty() {
            hunk.old_start == 0 && !proven
        } else {
            !fits(stated)
        };
        if again && let Some(line) = hunk.result_in_place(&old) {
            let (clause, effect) = if want.is_empty() {
                (
                    "adds lines before line 1".to_owned(),
                    "they would be there twice",
                )
            } else {
                (
                    format!(
                        "does not apply: its old lines are not at its stated line {}",
                        hunk.old_start
                    ),
                    "it would change another place where its old lines occur",
                )
            };
            ok = false;
            reports.push(refused(
                report,
                Refusal {
                    reason: "already_applied",
                    clause: format!(
                        "{clause}, and its new lines are already at line {line}, as if the patch had been applied; applied again, {effect}"
                    ),
                    details: vec![("new_lines_at", line.into())],
                },
            ));
            continue;
        }
        // A hunk without context lines (`diff -U0`) has nothing but its stated line to say
        // where it goes once the file has changed: lines that only it adds are placed only
        // at an edge of the file, and old lines it changes only where it states them. Found
        // at another place, they may be another place's (the same line elsewhere, a patch
        // applied twice), so it is refused, as `git apply` refuses a `-U0` patch. (A
        // deletion's hunks remove the whole file: found elsewhere, they leave lines, and
        // the deletion is refused for that.)
        let by_line_only = !hunk.has_context() && file.action != Action::Delete && !proven;
        if by_line_only {
            let middle = want.is_empty() && hunk.old_start > 0 && hunk.old_start < old.len();
            let clause = if middle {
                Some((
                    format!(
                        "has no context or removed lines, so only its stated line {} places it, between lines of the file, which is right only if nothing above it changed since the patch was made (nor the patch was applied already)",
                        hunk.old_start
                    ),
                    Vec::new(),
                ))
            } else if !want.is_empty() && !fits(stated) {
                let found: Vec<usize> = (cursor..=old.len().saturating_sub(want.len()))
                    .filter(|&at| at != stated && fits(at))
                    .map(|at| at + 1)
                    .take(5)
                    .collect();
                (!found.is_empty()).then(|| {
                    (
                        format!(
                            "has no context lines (made with `-U0`, or changing every line it shows), and its old lines are not at its stated line {} but at {}: without context nothing tells whether that is the place the patch meant",
                            hunk.old_start,
                            match found.as_slice() {
                                [one] => format!("line {one}"),
                                [init @ .., last] => format!(
                                    "lines {} and {last}",
                                    init.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
                                ),
                                [] => String::new(),
                            }
                        ),
                        vec![("found_at", found.into())],
                    )
                })
            } else {
                None
            };
            if let Some((clause, details)) = clause {
                report.mismatch = (!want.is_empty())
                    .then(|| Box::new(Mismatch::find(&old, &want, stated, cursor)));
                ok = false;
                reports.push(refused(
                    report,
                    Refusal {
                        reason: if middle {
                            "placed_by_number"
                        } else {
                            "no_context"
                        },
                        clause,
                        details,
                    },
                ));
                continue;
            }
        }
        let at = if fits(stated) {
            Some(stated)
        } else if want.is_empty() || by_line_only {
            None
        } else {
            let found: Vec<usize> = (cursor..=old.len().saturating_sub(want.len()))
                .filter(|&at| fits(at))
                .take(2)
                .collect();
            match found.as_slice() {
                [one] => {
                    report.status = "applies_at_offset";
                    report.offset = *one as i64 - stated as i64;
                    Some(*one)
                }
                [] => None,
                _ => {
                    report.status = "ambiguous";
                    None
                }
            }
        };
        // A hunk that shows context on one side of its change only was cut there by the
        // file's edge: the old lines must end where the file ends (or start where it starts),
        // as `git apply` and GNU `patch` require. Where they are elsewhere, the file has
        // changed at that edge since the patch was made, or the hunk was written without the
        // context that would place it: either way, applying it there is a guess.
        let at = match (hunk.edge(), at) {
            (None, at) => at,
            (Some(edge), found) => {
                let place = match edge {
                    Edge::Start => Some(0),
                    Edge::End => old.len().checked_sub(want.len()),
                    Edge::Both => (want.len() == old.len()).then_some(0),
                };
                match place.filter(|&p| fits(p)) {
                    // Its lines at the edge and at its stated line too: lines like them were
                    // added at that edge since, or the edge is where the patch meant; which,
                    // nothing tells.
                    Some(place) if place != stated && fits(stated) => {
                        report.mismatch =
                            Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
                        ok = false;
                        reports.push(refused(
                            report,
                            Refusal {
                                reason: "ambiguous",
                                clause: format!(
                                    "is held to the {} of the file by its context, and its lines are there (line {}) and at its stated line {} too: lines like them may have been added at that {} since the patch was made, so which place the patch meant cannot be told",
                                    edge.name(),
                                    place + 1,
                                    stated + 1,
                                    edge.name(),
                                ),
                                details: vec![
                                    ("edge", edge.name().into()),
                                    ("matches_at", vec![stated + 1, place + 1].into()),
                                ],
                            },
                        ));
                        continue;
                    }
                    Some(place) => {
                        report.status = if place == stated {
                            "applies"
                        } else {
                            "applies_at_offset"
                        };
                        report.offset = place as i64 - stated as i64;
                        Some(place)
                    }
                    None if found.is_some() || report.status == "ambiguous" => {
                        report.mismatch =
                            Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
                        ok = false;
                        reports.push(refused(report, edge.refusal(found, old.len())));
                        continue;
                    }
                    None => None,
                }
            }
        };
        if let Some(found) = at.filter(|_| !proven)
            && let Some(refusal) = made_already(hunk, &old, stated, found)
        {
            ok = false;
            reports.push(refused(report, refusal));
            continue;
        }
        // Found away from its stated line, where its lines also stand near that line with one
        // more line among them: a line was added inside the hunk's own place since the patch
        // was made, and the lines found are a copy, or the place moved and a look-alike
        // stands there; nothing tells. Before 2026-12-05 the copy was changed, `ok: true`
        // (three like functions, a line added to the first, the patch of the first changed
        // the second).
        if let Some(found) = at.filter(|&found| found != stated && hunk.edge().is_none())
            && let Some((near, extra)) = near_with_one_more(&old, &want, stated, found)
        {
            report.mismatch = Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
            ok = false;
            reports.push(refused(
                report,
                Refusal {
                    reason: "ambiguous",
                    clause: format!(
                        "is found at line {}, {} line(s) {} its stated line, but its lines also stand at line {} with one more line among them (line {}): a line may have been added inside the hunk's place since the patch was made, and the lines at line {} be a copy, so which place the patch meant cannot be told",
                        found + 1,
                        found.abs_diff(stated),
                        if found > stated { "below" } else { "above" },
                        near + 1,
                        extra + 1,
                        found + 1
                    ),
                    details: vec![
                        ("matches_at", vec![found + 1].into()),
                        ("near_match_at", (near + 1).into()),
                        ("extra_line", (extra + 1).into()),
                    ],
                },
            ));
            continue;
        }
        let Some(at) = at else {
            if report.status == "applies" {
                report.status = "failed";
            }
            report.mismatch = Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
            ok = false;
            reports.push(report);
            continue;
        };
        // The final newline, where the lines are: a line marked `\ No newline` must be the
        // file's unterminated last line, and that line must be marked.
        let newline = want_eols
            .iter()
            .enumerate()
            .find(|(k, e)| (**e == Some("")) != old[at + k].eol.is_empty());
        if let Some((k, e)) = newline {
            let line = at + k + 1;
            let clause = if *e == Some("") {
                format!(
                    "does not apply: its old line {} is marked `\\ No newline at end of file`, but file line {line} {}",
                    k + 1,
                    if line == old.len() {
                        "ends with a newline"
                    } else {
                        "is not the file's last line"
                    }
                )
            } else {
                format!(
                    "does not apply: file line {line} is the file's last line and has no newline, but the hunk's old line {} is not marked `\\ No newline at end of file`",
                    k + 1
                )
            };
            report.mismatch = Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
            ok = false;
            reports.push(refused(
                report,
                Refusal {
                    reason: "final_newline",
                    clause,
                    details: vec![(
                        "final_newline",
                        serde_json::json!({
                            "line": line,
                            "hunk_line": k + 1,
                            "file_has_newline": !old[at + k].eol.is_empty(),
                            "hunk_has_newline": *e != Some(""),
                        }),
                    )],
                },
            ));
            continue;
        }
        // A new side whose last line is marked must end where the file ends: the marker says
        // that line is the new file's last, which a hunk followed by more of the file cannot
        // make true.
        if hunk.new_no_eol && at + want.len() != old.len() {
            let line = at + want.len();
            report.mismatch = Some(Box::new(Mismatch::find(&old, &want, stated, cursor)));
            ok = false;
            reports.push(refused(
                report,
                Refusal {
                    reason: "final_newline",
                    clause: format!(
                        "does not apply: its new side marks its last line `\\ No newline at end of file`, but the hunk ends at file line {line} and the file goes on to line {}",
                        old.len()
                    ),
                    details: vec![(
                        "final_newline",
                        serde_json::json!({
                            "line": line,
                            "hunk_line": want.len(),
                            "file_has_newline": true,
                            "hunk_has_newline": false,
                        }),
                    )],
                },
            ));
            continue;
        }
        // Line ends: ignored when matching, and added lines take the file's convention. A
        // hunk whose context and removed lines all end as the file's do is faithful to the
        // file's line ends; if its added lines then end otherwise, it asks for line ends
        // this patch will not write.
        let judged: Vec<(&str, &str)> = want_eols
            .iter()
            .enumerate()
            .filter_map(|(k, e)| e.filter(|e| !e.is_empty()).map(|e| (e, old[at + k].eol)))
            .collect();
        // A hunk of added lines alone shows none of the file's lines, but when the section's
        // added lines end differently from one another they are as their author wrote them:
        // a transport that converts line ends converts them all alike.
        let asked = hunk.added_ends().find(|e| *e != eol);
        // Nor does a section that gives no line a CR (a plain marker line) leave a CRLF
        // added line of such a hunk for the file's convention to override: its CR is its
        // author's. (A hunk that shows the file's lines is judged by them: `diff -u` writes
        // the marker line plain whatever the lines' ends, so a CRLF copy's diff has one.)
        // Before 2026-12-04 `diff -U0` adding the final newline to a last line ending in a
        // lone CR (`b\r` to `b\r\n`) wrote `b\n` with `ok: true`.
        let authors_cr = plain_marker && judged.is_empty() && asked == Some("\r\n") && !own_ends;
        let shows_ends = if judged.is_empty() {
            // A file with no line end yet gives each added line its own (`own_ends`).
            added_mix && !own_ends
        } else {
            judged.iter().all(|(p, f)| p == f)
        };
        if (shows_ends || authors_cr)
            && !as_written
            && let Some(asked) = asked
        {
            let from = judged.first().map_or(asked, |j| j.0);
            let clause = if !shows_ends {
                format!(
                    "adds lines ending in CRLF, and its file's `\\ No newline at end of file` marker line ends without a CR, so no CR was added to the patch's lines in transport and each is its author's; added lines take the file's convention ({}), so this patch cannot be applied exactly",
                    eol_name(eol)
                )
            } else if judged.is_empty() {
                format!(
                    "adds lines ending in {}, where the section's added lines end in LF and in CRLF, which a converted patch never does, so each end is as its author wrote it; added lines take the file's convention ({}), so this patch cannot be applied exactly",
                    eol_name(asked),
                    eol_name(eol)
                )
            } else if judged.iter().all(|(p, _)| *p == from) && from != asked {
                format!(
                    "changes line ends from {} to {}; added lines take the file's convention ({}), so this patch cannot be applied exactly",
                    eol_name(from),
                    eol_name(asked),
                    eol_name(eol)
                )
            } else {
                format!(
                    "adds lines ending in {} where the file's lines it shows end as in the file; added lines take the file's convention ({}), so this patch cannot be applied exactly",
                    eol_name(asked),
                    eol_name(eol)
                )
            };
            ok = false;
            reports.push(refused(
                report,
                Refusal {
                    reason: "line_ends",
                    clause,
                    details: vec![
                        ("patch_line_end", eol_name(asked).into()),
                        ("file_line_end", eol_name(eol).into()),
                    ],
                },
            ));
            continue;
        }
        out.extend_from_slice(&old[cursor..at]);
        let mut k = at;
        for (line, own) in hunk.lines.iter().zip(&hunk.eols) {
            match line {
                HunkLine::Context(_) => {
                    out.push(old[k].clone());
                    k += 1;
                }
                HunkLine::Remove(_) => k += 1,
                HunkLine::Add(text) => {
                    // A line added after the old last line, which had no terminator, ends it
                    // first, as GNU patch does; otherwise the two would run together.
                    if let Some(prev) = out.last_mut()
                        && prev.eol.is_empty()
                    {
                        prev.eol = eol;
                    }
                    let eol = match own {
                        Some(own @ ("\n" | "\r\n")) if own_ends => own,
                        _ => eol,
                    };
                    out.push(Line {
                        text: text.clone().into(),
                        eol,
                    });
                }
            }
        }
        previous = Some((n + 1, stated + want.len(), at));
        if at == stated && !want.is_empty() {
            by_number.push(Stated {
                hunk: n,
                from: cursor,
                at,
                want,
                edge: hunk.edge().is_some(),
            });
        }
        cursor = k;
        if cursor == old.len() {
            touched_end = true;
            new_no_eol = hunk.new_no_eol;
        }
        reports.push(report);
    }
    // A hunk at its stated line is placed by the patch's numbers, which are right only while
    // the file's lines are where the patch says. A hunk found away from its stated line shows
    // they are not: lines came or went above it, perhaps above the other hunks too, and by
    // how many there is only a guess. So a hunk that only the numbers place is refused: one
    // without old lines (`diff -U0` adding lines), and one whose lines fit at another place
    // as well (a run of blank lines, a repeated stanza). A git section's `index` line that
    // names another blob than the file's shows the same where no hunk moved: a copy of the
    // lines may stand at the stated line now (a function duplicated above the one the patch
    // was made on).
    if ok
        && let Some((shown, details)) = drift_shown(&reports, changed_since)
        && let Some((n, guess)) = Guess::first(file, &old, &by_number)
    {
        let mut report = reports[n].clone();
        let refusal = guess.refusal(&file.hunks[n], &old, shown, details, &mut report);
        reports[n] = refused(report, refusal);
        ok = false;
    }
    if !ok {
        doc.lines = old;
        return (false, reports);
    }
    out.extend_from_slice(&old[cursor..]);
    if touched_end && let Some(last) = out.last_mut() {
        if new_no_eol {
            last.eol = "";
        } else if last.eol.is_empty() {
            last.eol = eol;
        }
    }
    doc.lines = out;
    (true, reports)
}

/// A hunk placed at its stated line: its index, where the previous hunk ended (the search for
/// its lines starts there), its line (from 0), its old lines, and whether it is held to an
/// edge of the file.
struct Stated<'w> {
    hunk: usize,
    from: usize,
    at: usize,
    want: Vec<&'w str>,
    edge: bool,
}

/// Why a hunk that only its stated line places is a guess, once the file is shown to have
/// changed since the patch was made.
enum Guess<'w> {
    /// It has no old lines: a `diff -U0` insertion.
    ByNumber,
    /// Its lines fit at another place too, after the previous hunk (`from`).
    Twice {
        at: usize,
        other: usize,
        want: &'w [&'w str],
        from: usize,
    },
    /// Its new lines stand at another place (`line`, from 1): the patch may have been applied
    /// there, and the lines at its stated line are a copy.
    Applied { at: usize, line: usize },
    /// It has old lines but no context (`diff -U0`): its old lines at its stated line may be
    /// another place's.
    Unanchored { at: usize },
    /// Its change repeats the lines next to it: made once or twice, the file reads alike.
    Repeats { at: usize },
}

impl<'w> Guess<'w> {
    /// The first hunk that only its stated line places, and why that is a guess, of the
    /// hunks placed at their stated line (`by_number`). One held to an edge of the file is
    /// placed by the edge as well, so only its new lines standing elsewhere, or a change
    /// that reads alike made twice, make it a guess.
    fn first(
        file: &FilePatch,
        old: &[Line],
        by_number: &'w [Stated<'w>],
    ) -> Option<(usize, Guess<'w>)> {
        file.hunks.iter().enumerate().find_map(|(n, h)| {
            if h.old_count == 0 && h.old_start > 0 {
                return Some((n, Guess::ByNumber));
            }
            let stated = by_number.iter().find(|s| s.hunk == n)?;
            let (from, at, want) = (stated.from, stated.at, stated.want.as_slice());
            let fits = |p: usize| want.iter().enumerate().all(|(k, w)| old[p + k].text == *w);
            if !stated.edge
                && let Some(other) = (from..=old.len() - want.len()).find(|&p| p != at && fits(p))
            {
                return Some((
                    n,
                    Guess::Twice {
                        at,
                        other,
                        want,
                        from,
                    },
                ));
            }
            if !h.has_context() && file.action != Action::Delete {
                return Some((n, Guess::Unanchored { at }));
            }
            if h.repeats_neighbours() {
                return Some((n, Guess::Repeats { at }));
            }
            let line = h.result_nearest(old, at, at)?;
            Some((n, Guess::Applied { at, line }))
        })
    }

    /// The refusal of `hunk` for this guess, where `shown` says how the file is shown to
    /// have changed (with its `details`).
    fn refusal(
        self,
        hunk: &Hunk,
        old: &[Line],
        shown: String,
        mut details: Vec<(&'static str, serde_json::Value)>,
        report: &mut HunkReport,
    ) -> Refusal {
        match self {
            Guess::ByNumber => Refusal {
                reason: "placed_by_number",
                clause: format!(
                    "has no context or removed lines, so only its stated line {} places it, and {shown}, and line {} may no longer be where the patch meant",
                    hunk.old_start, hunk.old_start,
                ),
                details,
            },
            Guess::Twice {
                at,
                other,
                want,
                from,
            } => {
                report.mismatch = Some(Box::new(Mismatch::find(old, want, at, from)));
                details.push(("matches_at", vec![at + 1, other + 1].into()));
                Refusal {
                    reason: "ambiguous",
                    clause: format!(
                        "matches at its stated line {} and again at line {}, and {shown}, so its stated line no longer tells which place the patch meant",
                        at + 1,
                        other + 1,
                    ),
                    details,
                }
            }
            Guess::Unanchored { at } => Refusal {
                reason: "no_context",
                clause: format!(
                    "has no context lines, so only its stated line {} places it, and {shown}: its old lines at that line may be another place's",
                    at + 1,
                ),
                details,
            },
            Guess::Repeats { at } => {
                details.push(("found_at", (at + 1).into()));
                Refusal {
                    reason: "already_applied",
                    clause: format!(
                        "applies at its stated line {}, but its change repeats the lines next to it (one line fewer in a run of like lines), which read alike with the change made once or twice, and {shown}: whether the patch has been applied already cannot be told",
                        at + 1,
                    ),
                    details,
                }
            }
            Guess::Applied { at, line } => {
                details.push(("new_lines_at", line.into()));
                details.push(("found_at", (at + 1).into()));
                Refusal {
                    reason: "already_applied",
                    clause: format!(
                        "matches at its stated line {}, but its new lines stand at line {line}, and {shown}: the lines at its stated line may be a copy of the ones the patch changed there already",
                        at + 1,
                    ),
                    details,
                }
            }
        }
    }
}

/// Whether `hunk`, whose old lines stand at line `found` (from 0; `stated` is its stated
/// line), may have been applied already, and must not be applied again: its new lines stand
/// in the file as well as its old lines. (Not asked of a file proven to be the one the patch
/// was made from, by git's `index` line or `--base`: that file does not hold the change.) Where the old lines were found away from their
/// stated line, the file has changed since, and the patch may have been applied already:
/// the old lines found are then another place's (a twin function's), and the new lines the
/// place it changed. Where both stand at the stated line (a change repeating the lines next
/// to it), the file reads the same applied or not. And a change that removes a line of a run
/// of like lines reads alike made once or twice, which a file changed since cannot tell
/// apart. Either way, whether the patch was applied cannot be told. Before 2026-12-05 the
/// twin was changed, or the change made twice, with `ok: true`.
fn made_already(hunk: &Hunk, old: &[Line], stated: usize, found: usize) -> Option<Refusal> {
    let (clause, mut details) = if found == stated {
        if hunk.new_side_within_old(0) || !hunk.result_at(old, stated) {
            return None;
        }
        (
            format!(
                "applies at its stated line {}, but its new lines stand there too (its change repeats the lines next to it), so whether the patch has been applied already cannot be told; applied again, its change would be made twice",
                hunk.old_start
            ),
            vec![("new_lines_at", (stated + 1).into())],
        )
    } else if hunk.repeats_neighbours() {
        (
            format!(
                "does not apply at its stated line {} but at line {}, so the file has changed since the patch was made, and its change repeats the lines next to it (one line fewer in a run of like lines), which read alike with the change made once or twice: whether the patch has been applied already cannot be told",
                hunk.old_start,
                found + 1,
            ),
            Vec::new(),
        )
    } else {
        let line = hunk.result_nearest(old, hunk.new_start.saturating_sub(1), found)?;
        (
            format!(
                "does not apply at its stated line {}: its old lines are at line {}, and its new lines at line {line}, so the file has changed since the patch was made, and the patch may have been applied already; applied again, it would change another place where its old lines occur",
                hunk.old_start,
                found + 1,
            ),
            vec![("new_lines_at", line.into())],
        )
    };
    details.push(("found_at", (found + 1).into()));
    Some(Refusal {
        reason: "already_applied",
        clause,
        details,
    })
}

/// Where, within a hunk's length of its stated line and at least half a hunk from the place
/// it was found (a place that shares most of its lines with that one is that one, moved),
/// the file holds the hunk's old lines `want` with one more line among them (not first or
/// last): that place, and the extra line (0-based). Hunks of one or two lines say too little.
fn near_with_one_more(
    old: &[Line],
    want: &[&str],
    stated: usize,
    found: usize,
) -> Option<(usize, usize)> {
    let n = want.len();
    if n < 3 {
        return None;
    }
    let from = stated.saturating_sub(n);
    let to = (stated + n).min(old.len().saturating_sub(n + 1));
    (from..=to)
        .filter(|&p| p.abs_diff(found) >= n.div_ceil(2).max(2))
        .find_map(|p| {
            (1..n).find_map(|k| {
                let head = (0..k).all(|i| old[p + i].text == want[i]);
                let tail = (k..n).all(|i| old[p + i + 1].text == want[i]);
                (head && tail).then_some((p, p + k))
            })
        })
}

/// A refused hunk's report: it applies nowhere, so no offset, as for any failed hunk.
fn refused(mut report: HunkReport, refusal: Refusal) -> HunkReport {
    report.status = "failed";
    report.offset = 0;
    report.refusal = Some(Box::new(refusal));
    report
}

/// What shows that the file has changed since the patch was made, in words and as details:
/// a hunk that applied away from its stated line, or git's `index` line naming another blob
/// than the file's (`changed_since`: the one it names, the file's).
fn drift_shown(
    reports: &[HunkReport],
    changed_since: Option<(&str, String)>,
) -> Option<(String, Vec<(&'static str, serde_json::Value)>)> {
    reports
        .iter()
        .find(|r| r.offset != 0)
        .map(|moved| {
            (
                format!(
                    "hunk {} applied {} line(s) {} its stated line: the file has changed since the patch was made",
                    moved.hunk,
                    moved.offset.unsigned_abs(),
                    if moved.offset > 0 { "below" } else { "above" },
                ),
                vec![
                    ("moved_hunk", moved.hunk.into()),
                    ("offset", moved.offset.into()),
                ],
            )
        })
        .or_else(|| {
            changed_since.map(|(named, id)| {
                (
                    format!(
                        "the file is not the one the patch was made from (its `index` line names blob {named}, the file's is {id})"
                    ),
                    vec![("old_blob", named.into()), ("file_blob", id.into())],
                )
            })
        })
}
