//! What a refusal about a path or a version can add so the caller recovers without another
//! round trip: for a path that is not there, the names it probably meant and what the
//! journal knows about where it went; for a stale expected hash, what changed since that
//! version. Everything here runs only on a refusal, and each part is bounded (see the
//! constants) so a refusal stays cheap on a large workspace.

use crate::mutate::Seen;
use crate::{Code, Error, ObjectId, Result, Workspace};
use filekeeper_plumbing::journal::{ListFilter, Operation, Status};
use filekeeper_plumbing::resolve::{Intent, Kind};
use filekeeper_plumbing::walk::{self, WalkOptions};
use serde_json::{Value, json};

/// The most existing names like the missing one a PATH_NOT_FOUND suggests.
const MAX_SIMILAR: usize = 5;
/// The most files of the same name elsewhere a PATH_NOT_FOUND lists.
const MAX_ELSEWHERE: usize = 10;
/// The most entries of one directory compared with the missing name.
const MAX_DIRECTORY_ENTRIES: usize = 10_000;
/// The most entries the search for the same name elsewhere visits.
const MAX_WALK_ENTRIES: usize = 10_000;
/// The most bytes of the diff a stale expected hash shows.
const MAX_DIFF_BYTES: usize = 4096;
/// How long the line diff of a stale version may take before a coarser one is taken.
const DIFF_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);
/// How many of the newest operations on a path are looked at for the one that removed it.
const JOURNAL_LOOKBACK: u64 = 8;

impl Workspace {
    /// A refusal with what the caller needs to recover from it: for PATH_NOT_FOUND, the
    /// nearest existing names in the directory (`similar_paths`), files of the same name
    /// elsewhere when `search` (`same_name_elsewhere`, `same_name_search_complete`), and the
    /// operation that moved or deleted the path (`removed_by`); for a CONTENT_CONFLICT whose
    /// file no longer exists, that operation. Anything else is returned as it is, and so is
    /// an error that already says.
    pub(crate) fn explain(&self, err: Error, search: bool) -> Error {
        let gone = err.code == Code::ContentConflict
            && err.details.get("actual_hash") == Some(&Value::Null)
            && err.details.contains_key("expected_hash");
        if (err.code != Code::PathNotFound && !gone) || err.details.contains_key("removed_by") {
            return err;
        }
        let Some(given) = err.details.get("path").and_then(Value::as_str) else {
            return err;
        };
        let given = given.to_owned();
        let Ok(rel) = self.inner.root.relative(&given) else {
            return err;
        };
        let removed = self.removed_by(&rel);
        let mut err = err;
        // The name is there, but as a link to nothing: say so, instead of suggesting the
        // link itself as the nearest existing name.
        if err.code == Code::PathNotFound && self.inner.root.is_symlink(&given) {
            err.message = "the path is a symbolic link whose target does not exist".into();
            return match self.inner.root.link_text_target(&given) {
                Some(target) => err
                    .with("target", target)
                    .recovery("create the link's target, or use the path it should name"),
                None => err.recovery("use the path the link should name"),
            };
        }
        if err.code == Code::PathNotFound {
            let similar = self.similar_paths(&rel);
            if let Some(first) = similar.first() {
                err = err.recovery(&format!(
                    "did you mean {first}? details.similar_paths lists the nearest existing names"
                ));
            }
            err = err.with("similar_paths", similar);
            if search {
                let (elsewhere, complete) = self.same_name_elsewhere(&rel);
                if err.details.get("recovery").is_none()
                    && let Some(first) = elsewhere.first()
                {
                    err = err.recovery(&format!(
                        "a file of that name is at {first}; details.same_name_elsewhere lists where"
                    ));
                }
                err = err
                    .with("same_name_elsewhere", elsewhere)
                    .with("same_name_search_complete", complete);
            }
        }
        if let Some(removed) = removed {
            let recovery = match removed["destination"].as_str() {
                Some(to) => format!(
                    "operation {} moved it to {to}; use that path",
                    removed["operation_id"].as_str().unwrap_or_default()
                ),
                None => format!(
                    "operation {} removed it; undo that operation to bring it back",
                    removed["operation_id"].as_str().unwrap_or_default()
                ),
            };
            err = err.recovery(&recovery).with("removed_by", removed);
        }
        err
    }

    /// The operation that last changed `rel` and left nothing there, from the journal (never
    /// created to ask): `{operation_id, kind, summary, destination}`, the destination being
    /// where a move took it (`null` for a deletion, or when the journal does not say).
    fn removed_by(&self, rel: &str) -> Option<Value> {
        let journal = self.inner.state(false).ok()??.existing_journal().ok()??;
        let ops = journal
            .list(&ListFilter {
                path: Some(rel.to_owned()),
                limit: JOURNAL_LOOKBACK,
                ..ListFilter::default()
            })
            .ok()?;
        // The newest operation that changed the path decides its state: one that was rolled
        // back or refused changed nothing.
        let op = ops
            .iter()
            .find(|op| matches!(op.status, Status::Committed | Status::Partial))?;
        let item = op.items.iter().find(|i| i.path == rel)?;
        if item.after_exists {
            return None;
        }
        Some(json!({
            "operation_id": op.id,
            "kind": op.kind,
            "summary": op.summary,
            "destination": destination(op, rel, item.before_hash),
        }))
    }

    /// Existing names in the deepest directory of `rel` that exists, nearest to the first
    /// missing name (by edit distance, case aside, or the same name with another extension),
    /// as workspace-relative paths with the rest of `rel` after them; at most [`MAX_SIMILAR`],
    /// and only paths that exist.
    fn similar_paths(&self, rel: &str) -> Vec<String> {
        let parts: Vec<&str> = rel.split('/').collect();
        let root = &self.inner.root;
        let mut missing = None;
        for i in 0..parts.len() {
            match root.resolve(&parts[..=i].join("/"), Intent::Read) {
                Ok(r) if r.kind == Some(Kind::Directory) => continue,
                Ok(r) if r.kind.is_none() => {
                    missing = Some(i);
                    break;
                }
                Err(e) if e.code == Code::PathNotFound => {
                    missing = Some(i);
                    break;
                }
                _ => return Vec::new(),
            }
        }
        let Some(i) = missing else {
            return Vec::new();
        };
        let dir = if i == 0 {
            ".".to_owned()
        } else {
            parts[..i].join("/")
        };
        let Ok(start) = root.resolve(&dir, Intent::Read) else {
            return Vec::new();
        };
        let Ok(mut entries) = walk::walk(
            root,
            &start,
            WalkOptions {
                recursive: false,
                max_depth: 1,
                respect_ignore: false,
            },
        ) else {
            return Vec::new();
        };
        entries.report_non_utf8_names();
        entries.pass_over_reserved();
        let wanted = parts[i];
        let mut near: Vec<(usize, String)> = entries
            .by_ref()
            .take(MAX_DIRECTORY_ENTRIES)
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.rel.rsplit('/').next().unwrap_or(&e.rel).to_owned();
                nearness(wanted, &name).map(|d| (d, name))
            })
            .collect();
        near.sort();
        let rest = &parts[i + 1..];
        near.into_iter()
            .map(|(_, name)| {
                let mut path: Vec<&str> = parts[..i].to_vec();
                path.push(&name);
                path.extend_from_slice(rest);
                path.join("/")
            })
            .filter(|path| {
                rest.is_empty()
                    || root
                        .resolve(path, Intent::Read)
                        .is_ok_and(|r| r.kind.is_some())
            })
            .take(MAX_SIMILAR)
            .collect()
    }

    /// Files and directories named like the last part of `rel` (case aside) elsewhere in the
    /// workspace, in walk order, at most [`MAX_ELSEWHERE`], and whether the search saw every
    /// entry it would (git's ignore rules honoured, at most [`MAX_WALK_ENTRIES`] visited, no
    /// deeper than `max_recursion_depth`).
    fn same_name_elsewhere(&self, rel: &str) -> (Vec<String>, bool) {
        let name = rel.rsplit('/').next().unwrap_or(rel).to_lowercase();
        let root = &self.inner.root;
        let Ok(start) = root.resolve(".", Intent::Read) else {
            return (Vec::new(), false);
        };
        let Ok(mut entries) = walk::walk(
            root,
            &start,
            WalkOptions {
                recursive: true,
                max_depth: self.inner.limits.max_recursion_depth as usize,
                respect_ignore: true,
            },
        ) else {
            return (Vec::new(), false);
        };
        entries.report_non_utf8_names();
        entries.pass_over_reserved();
        let mut found = Vec::new();
        let mut visited = 0;
        let mut complete = true;
        for entry in entries.by_ref() {
            visited += 1;
            if visited > MAX_WALK_ENTRIES {
                complete = false;
                break;
            }
            let Ok(entry) = entry else {
                complete = false;
                break;
            };
            let entry_name = entry.rel.rsplit('/').next().unwrap_or(&entry.rel);
            if entry.rel != rel && entry_name.to_lowercase() == name {
                if found.len() == MAX_ELSEWHERE {
                    complete = false;
                    break;
                }
                found.push(entry.rel);
            }
        }
        let whole = !entries.depth_limited && entries.unreadable.is_empty();
        (found, complete && whole)
    }

    /// Checks an expected hash against the file now (`current`, `None` when nothing is
    /// there). A stale one is CONTENT_CONFLICT saying what changed since the expected
    /// version when the store holds it (`diff_since_expected`, a unified diff from that
    /// version to the file, at most [`MAX_DIFF_BYTES`]), and whether it does
    /// (`expected_in_store`); a file that no longer exists is said to be gone, with
    /// `actual_hash` null.
    pub(crate) fn guard_version(
        &self,
        path: &str,
        rel: &str,
        expected: ObjectId,
        current: Option<&Seen>,
    ) -> Result<()> {
        let Err(err) = crate::mutate::guard(path, expected, current.map(|c| c.hash)) else {
            return Ok(());
        };
        let Some(current) = current else {
            return Err(Error {
                message: "the file no longer exists; refusing to write against a version of it that is gone".into(),
                ..err
            }
            .recovery("the file was moved or deleted since it was read: look for it where it went, or create it anew"));
        };
        let old = self
            .inner
            .state(false)
            .ok()
            .flatten()
            .map(|state| state.store())
            .filter(|store| store.contains(&expected))
            .and_then(|store| store.read(&expected).ok());
        let mut err = err.with("expected_in_store", old.is_some());
        let Some(old) = old else {
            return Err(err.recovery(
                "the version you expected is not in the store, so what changed cannot be shown: re-read the file, then retry against its current hash",
            ));
        };
        let text = |bytes: &[u8]| {
            std::str::from_utf8(bytes)
                .ok()
                .filter(|t| !t.contains('\0'))
                .map(str::to_owned)
        };
        let (Some(old), Some(new)) = (text(&old), current.bytes.as_deref().and_then(|b| text(b)))
        else {
            return Err(err.recovery(
                "the version you expected or the file now is not text within the history cap, so no diff is shown: re-read the file, then retry against its current hash",
            ));
        };
        let written = crate::diff::unified(
            &format!("a/{rel}"),
            &format!("b/{rel}"),
            &old,
            &new,
            3,
            Some(DIFF_TIMEOUT),
            MAX_DIFF_BYTES,
        );
        let (diff, truncated) = (written.text, written.cut);
        err = err
            .with("diff_since_expected", diff)
            .with("diff_since_expected_truncated", truncated);
        Err(err.recovery(if truncated {
            "details.diff_since_expected begins what changed since the version you expected, cut short: re-read the file, then retry against its current hash"
        } else {
            "details.diff_since_expected shows what changed since the version you expected: make your change to the file as it is now and retry against details.actual_hash, or re-read it"
        }))
    }
}

/// Where operation `op` took the path `rel`, which held `before` until then: for a move, the
/// destination under the moved path; otherwise a path the operation created with the same
/// content (a rename in a patch); else `None`.
fn destination(op: &Operation, rel: &str, before: Option<ObjectId>) -> Option<String> {
    if let (Some(source), Some(target)) = (&op.source_path, &op.target_path)
        && op.kind != "copy"
    {
        if rel == source {
            return Some(target.clone());
        }
        if let Some(below) = rel.strip_prefix(source.as_str())
            && below.starts_with('/')
        {
            return Some(format!("{target}{below}"));
        }
    }
    let before = before?;
    op.items
        .iter()
        .find(|i| {
            i.path != rel
                && !i.before_exists
                && i.after_exists
                && i.kind == Kind::File
                && i.after_hash == Some(before)
        })
        .map(|i| i.path.clone())
}

/// How near an existing name is to the wanted one, or `None` when not near enough: the edit
/// distance with transpositions, case aside (a name that differs only in case is 0; then
/// the same name with another extension), within a third of the wanted name's length (at
/// least 1, at most 3).
fn nearness(wanted: &str, name: &str) -> Option<usize> {
    let (a, b) = (wanted.to_lowercase(), name.to_lowercase());
    let stem = |s: &str| {
        s.rsplit_once('.')
            .map_or(s.to_owned(), |(s, _)| s.to_owned())
    };
    let distance = osa_distance(&a, &b);
    let allowed = (a.chars().count() / 3).clamp(1, 3);
    if distance <= allowed {
        Some(distance)
    } else if !stem(&a).is_empty() && stem(&a) == stem(&b) {
        Some(allowed + 1)
    } else {
        None
    }
}

/// The optimal string alignment distance: insertions, deletions, substitutions and
/// transpositions of neighbouring characters, each counting 1. Names are short (a file name
/// is at most 255 bytes), so the quadratic table is small.
fn osa_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EditGuards, Filekeeper, MutationOptions, Policy, ReadOptions};
    use std::fs;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        fs::create_dir_all(root.join("src/deep")).unwrap();
        fs::create_dir_all(root.join("docs")).unwrap();
        fs::write(root.join("src/lib.rs"), "fn a() {}\n").unwrap();
        fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
        fs::write(root.join("src/deep/notes.md"), "deep\n").unwrap();
        fs::write(root.join("docs/notes.md"), "docs\n").unwrap();
        let keeper = Filekeeper::new(Some(&dir.path().join("home"))).unwrap();
        let ws = keeper.workspace(None, Some(&root)).unwrap();
        (dir, ws)
    }

    #[test]
    fn a_missing_path_suggests_near_names_and_the_same_name_elsewhere() {
        let (_dir, ws) = workspace();
        let err = ws
            .read_file("src/lbi.rs", &ReadOptions::default())
            .unwrap_err();
        assert_eq!(err.code, Code::PathNotFound);
        assert_eq!(err.details["similar_paths"], json!(["src/lib.rs"]));
        assert_eq!(err.details["same_name_elsewhere"], json!([]));
        assert_eq!(err.details["same_name_search_complete"], true);
        assert!(
            err.details["recovery"]
                .as_str()
                .unwrap()
                .contains("src/lib.rs")
        );
        // A misspelt directory: the suggestion keeps the rest of the path, when it exists.
        let err = ws.info("srcs/lib.rs").unwrap_err();
        assert_eq!(err.details["similar_paths"], json!(["src/lib.rs"]));
        let err = ws.info("srcs/nothing.rs").unwrap_err();
        assert_eq!(err.details["similar_paths"], json!([]));
        // The same name in other directories, case aside.
        let err = ws.hash_file("NOTES.md").unwrap_err();
        assert_eq!(
            err.details["same_name_elsewhere"],
            json!(["docs/notes.md", "src/deep/notes.md"])
        );
        // Nothing near: empty lists, no recovery invented.
        let err = ws
            .read_file("zzzzzz.bin", &ReadOptions::default())
            .unwrap_err();
        assert_eq!(err.details["similar_paths"], json!([]));
        assert!(!err.details.contains_key("recovery"), "{:?}", err.details);
        // An edit of a missing file says the same; read_many does not walk the workspace.
        let err = ws
            .delete_lines(
                "src/mian.rs",
                1,
                1,
                &EditGuards::default(),
                &MutationOptions::default(),
            )
            .unwrap_err();
        assert_eq!(err.details["similar_paths"], json!(["src/main.rs"]));
        let many = ws
            .read_many(&["src/lbi.rs".to_owned()], &ReadOptions::default())
            .unwrap();
        let crate::ManyItem::Failed { error, .. } = &many[0] else {
            panic!("read a missing file");
        };
        assert_eq!(error.details["similar_paths"], json!(["src/lib.rs"]));
        assert!(!error.details.contains_key("same_name_elsewhere"));
    }

    #[test]
    fn the_search_elsewhere_is_bounded_and_says_when_it_stopped() {
        let (dir, ws) = workspace();
        for i in 0..12 {
            let d = dir.path().join(format!("ws/many/d{i:02}"));
            fs::create_dir_all(&d).unwrap();
            fs::write(d.join("x.txt"), "x").unwrap();
        }
        let err = ws.read_file("x.txt", &ReadOptions::default()).unwrap_err();
        let found = err.details["same_name_elsewhere"].as_array().unwrap();
        assert_eq!(found.len(), MAX_ELSEWHERE);
        assert_eq!(found[0], "many/d00/x.txt");
        assert_eq!(err.details["same_name_search_complete"], false);
    }

    #[test]
    fn the_journal_says_where_a_moved_or_deleted_file_went() {
        let (_dir, ws) = workspace();
        let opts = MutationOptions::default();
        let moved = ws
            .move_file("src/lib.rs", "src/core.rs", false, &opts)
            .unwrap();
        let err = ws
            .read_file("src/lib.rs", &ReadOptions::default())
            .unwrap_err();
        assert_eq!(
            err.details["removed_by"],
            json!({
                "operation_id": moved.operation_id,
                "kind": "move",
                "summary": "Moved src/lib.rs to src/core.rs.",
                "destination": "src/core.rs",
            })
        );
        assert!(
            err.details["recovery"]
                .as_str()
                .unwrap()
                .contains("src/core.rs")
        );
        // A file inside a moved directory.
        ws.move_dir("src", "lib", &opts).unwrap();
        let err = ws
            .replace_text(
                "src/main.rs",
                "a",
                "b",
                Policy::First,
                None,
                &EditGuards::default(),
                &opts,
            )
            .unwrap_err();
        assert_eq!(err.details["removed_by"]["destination"], "lib/main.rs");
        // A deleted file has no destination.
        let deleted = ws.delete_file("docs/notes.md", None, &opts).unwrap();
        let err = ws.info("docs/notes.md").unwrap_err();
        assert_eq!(
            err.details["removed_by"]["operation_id"],
            json!(deleted.operation_id)
        );
        assert_eq!(err.details["removed_by"]["destination"], Value::Null);
        // Created again since: the journal no longer says it is gone.
        ws.create_file("docs/notes.md", b"again\n", false, &opts)
            .unwrap();
        fs::remove_file(ws.inner.root.host_path().join("docs/notes.md")).unwrap();
        let err = ws.info("docs/notes.md").unwrap_err();
        assert!(!err.details.contains_key("removed_by"), "{:?}", err.details);
    }

    #[test]
    fn a_guarded_write_to_a_file_that_is_gone_says_so() {
        let (_dir, ws) = workspace();
        let opts = MutationOptions::default();
        let hash = ObjectId::of(b"fn main() {}\n").to_string();
        let moved = ws
            .move_file("src/main.rs", "src/app.rs", false, &opts)
            .unwrap();
        let err = ws
            .write_file("src/main.rs", b"x", Some(&hash), false, &opts)
            .unwrap_err();
        assert_eq!(err.code, Code::ContentConflict);
        assert_eq!(err.details["actual_hash"], Value::Null);
        assert_eq!(err.details["expected_hash"], hash.as_str());
        assert!(err.message.contains("no longer exists"), "{}", err.message);
        assert_eq!(
            err.details["removed_by"]["operation_id"],
            json!(moved.operation_id)
        );
        assert_eq!(err.details["removed_by"]["destination"], "src/app.rs");
        assert!(!ws.inner.root.host_path().join("src/main.rs").exists());
    }

    #[test]
    fn a_stale_hash_shows_what_changed_since_that_version() {
        let (_dir, ws) = workspace();
        let opts = MutationOptions::default();
        let v1 = ws
            .write_file("a.txt", b"one\ntwo\nthree\n", None, false, &opts)
            .unwrap()
            .after_hash
            .unwrap();
        ws.write_file("a.txt", b"one\nTWO\nthree\n", None, false, &opts)
            .unwrap();
        let err = ws
            .replace_lines(
                "a.txt",
                1,
                1,
                "1",
                &EditGuards {
                    expected_hash: Some(v1.clone()),
                    ..Default::default()
                },
                &opts,
            )
            .unwrap_err();
        assert_eq!(err.code, Code::ContentConflict);
        assert_eq!(err.details["expected_in_store"], true);
        assert_eq!(
            err.details["diff_since_expected"],
            "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
        );
        assert_eq!(err.details["diff_since_expected_truncated"], false);
        // A whole-file write and a delete say the same.
        for err in [
            ws.write_file("a.txt", b"x", Some(&v1), false, &opts)
                .unwrap_err(),
            ws.delete_file("a.txt", Some(&v1), &opts).unwrap_err(),
        ] {
            assert_eq!(err.details["expected_in_store"], true);
            assert!(
                err.details["diff_since_expected"]
                    .as_str()
                    .unwrap()
                    .contains("+TWO")
            );
        }
        // A version the store never held.
        let never = ObjectId::of(b"never written\n").to_string();
        let err = ws
            .write_file("a.txt", b"x", Some(&never), false, &opts)
            .unwrap_err();
        assert_eq!(err.details["expected_in_store"], false);
        assert!(!err.details.contains_key("diff_since_expected"));
        assert!(
            err.details["recovery"]
                .as_str()
                .unwrap()
                .contains("not in the store")
        );
        // A long diff is cut after a whole line and says so.
        let long: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let v2 = ws
            .write_file("a.txt", long.as_bytes(), None, false, &opts)
            .unwrap()
            .after_hash
            .unwrap();
        ws.write_file(
            "a.txt",
            long.replace("line", "LINE").as_bytes(),
            None,
            false,
            &opts,
        )
        .unwrap();
        let err = ws
            .write_file("a.txt", b"x", Some(&v2), false, &opts)
            .unwrap_err();
        let diff = err.details["diff_since_expected"].as_str().unwrap();
        assert!(diff.len() <= MAX_DIFF_BYTES && diff.len() > MAX_DIFF_BYTES / 2);
        assert!(diff.ends_with('\n'));
        assert_eq!(err.details["diff_since_expected_truncated"], true);
    }

    #[test]
    fn names_are_near_by_edit_distance_case_and_extension() {
        assert_eq!(osa_distance("lib.rs", "lbi.rs"), 1);
        assert_eq!(osa_distance("kitten", "sitting"), 3);
        assert_eq!(nearness("README.md", "readme.md"), Some(0));
        assert_eq!(nearness("lib.rs", "lbi.rs"), Some(1));
        assert_eq!(nearness("notes.txt", "notes.md"), Some(3));
        assert_eq!(nearness("config.json", "config.yaml"), Some(4));
        assert_eq!(nearness("lib.rs", "main.rs"), None);
        assert_eq!(nearness("a", "b"), Some(1));
    }
}
