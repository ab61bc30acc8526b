//! Putting paths back to their recorded before state, from stored blobs, to roll back a failed
//! operation. (Undo does not come here: it is an operation of its own, planned in
//! `history.rs`, whose steps put the paths back.)

use super::plan::Step;
use crate::{Error, Result, Workspace};
use filekeeper_plumbing::journal::Item;
use filekeeper_plumbing::odb::ObjectStore;
use filekeeper_plumbing::path_state::{Observed, Side, matches_side, observe};
use filekeeper_plumbing::publish::{self, Expect};
use filekeeper_plumbing::resolve::{Intent, Kind};
use filekeeper_plumbing::{Code, fs_ops};

pub(crate) struct RestoreOutcome {
    pub restored: Vec<String>,
    pub failed: Vec<String>,
}

fn depth(path: &str) -> usize {
    path.matches('/').count()
}

/// The paths an operation's steps may have changed when it failed: those of the steps that
/// were applied, and those of the step that failed, which may have been made before its error
/// (a rename whose directory sync failed). A rename names a directory for everything under it
/// (a directory's rename moves its tree); every other step names its one path.
pub(crate) struct Touched<'a> {
    applied: Vec<(&'a str, bool)>,
    failed: Vec<(&'a str, bool)>,
}

impl<'a> Touched<'a> {
    /// The paths of `steps`, of which the first `done` were applied and the next one failed.
    pub fn by(steps: &'a [Step], done: usize) -> Self {
        let paths = |steps: &'a [Step]| {
            steps
                .iter()
                .flat_map(|step| {
                    let tree = matches!(step, Step::Rename { .. });
                    step.paths().into_iter().map(move |p| (p, tree))
                })
                .collect()
        };
        Touched {
            applied: paths(&steps[..done.min(steps.len())]),
            failed: paths(steps.get(done..=done).unwrap_or_default()),
        }
    }

    /// Every path: how a test restores a whole recorded operation.
    #[cfg(test)]
    pub fn all(items: &'a [Item]) -> Self {
        Touched {
            applied: items.iter().map(|i| (i.path.as_str(), false)).collect(),
            failed: Vec::new(),
        }
    }

    fn covers(paths: &[(&str, bool)], path: &str) -> bool {
        paths.iter().any(|(p, tree)| {
            path.strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || (*tree && rest.starts_with('/')))
        })
    }

    /// Whether an applied step changed `path`.
    pub fn applied(&self, path: &str) -> bool {
        Self::covers(&self.applied, path)
    }

    fn maybe(&self, path: &str) -> bool {
        self.applied(path) || Self::covers(&self.failed, path)
    }
}

/// Brings back to its before state every item that the operation's steps may have changed
/// (`touched`) and that holds the operation's after state: paths that did not exist before are
/// removed (deepest first), paths that did are put back (shallowest first, so directories come
/// before their files). Every path is tried; the outcome says which were restored and which
/// could not be.
///
/// A path is never changed unless it holds what the operation put there. One that no applied
/// step changed and that holds something else was changed by another process (which is
/// often why the step failed: a file created where this one was to be, content written over
/// the one the operation read), and it keeps that change. One that an applied step changed
/// and that holds something else now could be put back only over another process's change,
/// so it is left too, and named as not restored.
///
/// `vacated` names the destinations [`rename_back`] took a rename back from: each held the
/// operation's after state until then, so its being absent is this operation's doing, and a
/// file the rename replaced is put back from its blob. Before 2026-12-05 the absence was
/// taken for another process's change and left, and a `file move --overwrite` whose
/// directory sync failed was rolled back without the file it had replaced.
pub(crate) fn restore_before(
    ws: &Workspace,
    items: &[Item],
    touched: &Touched<'_>,
    vacated: &[String],
    store: &ObjectStore,
) -> Result<RestoreOutcome> {
    let mut outcome = RestoreOutcome {
        restored: Vec::new(),
        failed: Vec::new(),
    };
    let mut removals: Vec<&Item> = items.iter().filter(|i| !i.before_exists).collect();
    removals.sort_by_key(|i| std::cmp::Reverse(depth(&i.path)));
    let mut puts: Vec<&Item> = items.iter().filter(|i| i.before_exists).collect();
    puts.sort_by_key(|i| depth(&i.path));
    for item in removals.into_iter().chain(puts) {
        let current = observe(&ws.inner, &item.path)?;
        let vacated = vacated.contains(&item.path);
        if matches_side(item, current, Side::Before) {
            if vacated {
                outcome.restored.push(item.path.clone());
            }
            continue;
        }
        if !touched.maybe(&item.path) {
            continue;
        }
        let at_after = matches_side(item, current, Side::After)
            || (vacated && matches!(current, Observed::Absent));
        if !at_after {
            if touched.applied(&item.path) || vacated {
                outcome.failed.push(item.path.clone());
            }
            continue;
        }
        match restore_one(ws, item, current, store) {
            Ok(()) => outcome.restored.push(item.path.clone()),
            Err(_) => outcome.failed.push(item.path.clone()),
        }
    }
    Ok(outcome)
}

/// Takes back, newest first, each rename among the steps the operation applied or was
/// applying (`steps[..=done]`), while its destination still holds what was moved there (for a
/// file, the content the plan read) and its source is free: the destination is renamed back.
/// A rename that cannot be taken back this way is left to [`restore_before`]. Returns the
/// sources put back, and the destinations vacated, which [`restore_before`] judges: a file
/// the rename replaced is still to be put back there.
pub(crate) fn rename_back(
    ws: &Workspace,
    steps: &[Step],
    done: usize,
) -> (Vec<String>, Vec<String>) {
    let write = Intent::Write {
        allow_sensitive: true,
    };
    let (mut back, mut vacated) = (Vec::new(), Vec::new());
    for step in steps.iter().take(done.saturating_add(1)).rev() {
        let Step::Rename {
            from,
            to,
            from_hash,
            ..
        } = step
        else {
            continue;
        };
        let root = &ws.inner.root;
        let (Ok(source), Ok(moved)) = (
            root.resolve_recorded(from, write),
            root.resolve_recorded(to, write),
        ) else {
            continue;
        };
        let holds_it = match from_hash {
            Some(hash) => {
                moved.kind == Some(Kind::File)
                    && publish::check_holds(&moved, Expect::Hash(*hash), "move it back").is_ok()
            }
            None => moved.kind == Some(Kind::Directory),
        };
        if holds_it && source.kind.is_none() && fs_ops::rename(&moved, &source, false).is_ok() {
            back.push(from.clone());
            vacated.push(to.clone());
        }
    }
    (back, vacated)
}

fn restore_one(ws: &Workspace, item: &Item, current: Observed, store: &ObjectStore) -> Result<()> {
    let target = ws.inner.root.resolve_recorded(
        &item.path,
        Intent::Write {
            allow_sensitive: true,
        },
    )?;
    match (item.before_exists, item.kind, current) {
        (false, _, Observed::File { .. }) => fs_ops::remove_file(&target),
        (false, _, Observed::Directory { .. }) => fs_ops::remove_dir(&target),
        (true, Kind::Directory, Observed::Absent) => match item.before_mode {
            Some(mode) => fs_ops::make_dir_with_mode(&target, mode),
            None => fs_ops::make_dir(&target),
        },
        (true, Kind::File, Observed::Absent | Observed::File { .. }) => {
            let blob = item
                .before_hash
                .filter(|_| !item.history_skipped)
                .ok_or_else(|| {
                    Error::new(
                        Code::HistoryUnavailable,
                        "the previous bytes were not stored",
                    )
                    .path(&item.path)
                })?;
            let expect = match current {
                Observed::File { hash, .. } => Expect::Hash(hash),
                _ => Expect::Absent,
            };
            publish::publish(&target, expect, item.before_mode, Some(blob), |out| {
                store.copy_to(&blob, &mut WriteAdapter(out)).map(|_| ())
            })
            .map(|_| ())
        }
        _ => Err(Error::new(
            Code::ContentConflict,
            "the path holds something the record cannot restore over",
        )
        .path(&item.path)),
    }
}

struct WriteAdapter<'a>(&'a mut dyn std::io::Write);

impl std::io::Write for WriteAdapter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}
