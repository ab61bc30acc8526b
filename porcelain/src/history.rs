//! History and undo: the journal read back, and operations reversed safely.
//!
//! Undo is an operation like any other (kind `undo`, `undoes` pointing at its target), made by
//! the same engine as every mutation: blobs, pending record, steps, verification, commit.
//! Before it changes anything it checks every path of the target operation against the state
//! that operation recorded, and refuses as a whole (UNDO_CONFLICT, recorded as an
//! `undo_refused` row) if any path has moved on.

use crate::cursor::{Family, Position, Query, optional};
use crate::mutate::{Change, Held, MutationOptions, MutationResult, Plan, Planned, Sides, Step};
use crate::{Code, Error, Result, Workspace};
use filekeeper_plumbing::journal::{
    Item, Journal, ListFilter, NewOperation, Operation, OperationHead, Status,
};
use filekeeper_plumbing::path_state::{Observed, Side, matches_side, observe};
use filekeeper_plumbing::publish::Expect;
use filekeeper_plumbing::resolve::Kind;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// Options of [`Workspace::list_history`].
#[derive(Clone, Debug, Default)]
pub struct HistoryFilter {
    /// Only operations that touched this path (as an item, their target or their source).
    /// The path is compared whole, not as a prefix.
    pub path: Option<String>,
    /// Only operations recorded with this actor.
    pub actor: Option<String>,
    /// Only operations recorded with this task id.
    pub task_id: Option<String>,
    /// At most this many (default 20; ceiling `max_history_entries`, 200).
    pub limit: Option<u64>,
    /// A previous page's `next_cursor`: continue with the operations older than its last.
    pub cursor: Option<String>,
}

/// An operation as history shows it: the journal record without its internal `under_lock`,
/// and with `items` before `metadata` (the order history has always printed).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HistoryOperation {
    /// Id, sequence number, kind, status, times, actor, task id, summary and paths.
    #[serde(flatten)]
    pub head: OperationHead,
    /// Every path the operation recorded, with its state before and after.
    pub items: Vec<Item>,
    /// Free-form metadata recorded with the operation: an object (null only when the stored
    /// text could not be read back).
    #[schemars(with = "Option<Map<String, Value>>")]
    pub metadata: Value,
}

/// One operation as history lists it: the operation's fields, then whether it can be undone.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HistoryEntry {
    /// The operation itself.
    #[serde(flatten)]
    pub operation: HistoryOperation,
    /// The undo that reversed it, if any.
    pub undone_by: Option<String>,
    /// Whether an undo of it would be tried (it may still be refused on a conflict).
    pub undoable: bool,
}

/// One path's diff.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PathDiff {
    /// Workspace-relative path.
    pub path: String,
    /// What the operation did to the path, as its journal item says (`created`, `modified`,
    /// `deleted`, ...).
    pub change: String,
    /// `file` or `directory`.
    #[schemars(extend("enum" = ["file", "directory"]))]
    pub kind: &'static str,
    /// `text`, `binary`, `history_skipped`, `directory`, `unchanged`, `never_stored` (the
    /// operation was rolled back, or is still pending, before this path's new contents were
    /// stored), or `pruned` (the operation was pruned: its contents are gc's to remove, so
    /// none is shown).
    #[schemars(extend("enum" = ["text", "binary", "history_skipped", "directory", "unchanged", "never_stored", "pruned"]))]
    pub diff_kind: &'static str,
    /// The unified diff, for `text`; null otherwise. An empty file created or deleted has
    /// the two header lines only. A diff longer than 256 KiB is cut to whole lines within
    /// that, ends with a line saying so, and says `truncated`.
    pub diff: Option<String>,
    /// Whether `diff` was cut: it is then only the start of the change.
    pub truncated: bool,
}

/// The result of `history diff`: what one operation changed, path by path.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HistoryDiff {
    /// The operation diffed.
    pub operation_id: String,
    /// The operation's summary.
    pub summary: String,
    /// One entry for each of the operation's items, in the journal's order.
    pub paths: Vec<PathDiff>,
}

/// A path's diff longer than this is cut: history shows changes, it never dumps file bodies.
pub const HISTORY_DIFF_MAX_BYTES: usize = 256 * 1024;

impl Workspace {
    /// Whether an operation recorded under the lock is still pending (a dead process's).
    fn pending_under_lock(&self) -> Result<bool> {
        match self.existing_journal()? {
            Some(journal) => journal.has_pending_under_lock(),
            None => Ok(false),
        }
    }

    fn existing_journal(&self) -> Result<Option<Journal>> {
        match self.inner.state(false)? {
            Some(state) => state.existing_journal(),
            None => Ok(None),
        }
    }

    fn entry(&self, journal: &Journal, op: &Operation) -> Result<HistoryEntry> {
        let undone_by = journal.undone_by(&op.id)?;
        let undoable = journal.fully_undone_by(&op.id)?.is_none()
            && finished_by_another(journal, op)?.is_none()
            && op.pruned_by.is_none()
            && matches!(op.status, Status::Committed | Status::Partial)
            && op.missing_for_undo().is_empty();
        let record = op.record();
        Ok(HistoryEntry {
            operation: HistoryOperation {
                head: record.head,
                items: record.items,
                metadata: record.metadata,
            },
            undone_by,
            undoable,
        })
    }

    /// Operations of this workspace, newest first, one page at a time: `next_cursor` leads
    /// to the older ones.
    pub fn list_history(&self, filter: &HistoryFilter) -> Result<crate::documents::HistoryList> {
        let ceiling = self.inner.limits.max_history_entries;
        let limit =
            crate::listing::bound(filter.limit, ceiling, filekeeper_plumbing::Argument::Limit)?;
        let limit = if filter.limit.is_none() {
            limit.min(20)
        } else {
            limit
        };
        let path = filter
            .path
            .as_deref()
            .map(|p| self.inner.root.relative(p))
            .transpose()?;
        let query = Query::new(
            Family::History,
            &[
                &optional(path.as_deref()),
                &optional(filter.actor.as_deref()),
                &optional(filter.task_id.as_deref()),
            ],
        );
        let before_seq = match self.open_cursor(&query, filter.cursor.as_deref())? {
            Some(Position::Seq(seq)) => Some(seq),
            _ => None,
        };
        let Some(journal) = self.existing_journal()? else {
            return Ok(crate::documents::HistoryList {
                operations: Vec::new(),
                truncated: false,
                next_cursor: None,
            });
        };
        // One more than the page, to know whether there is another.
        let mut ops = journal.list(&ListFilter {
            path,
            actor: filter.actor.clone(),
            task_id: filter.task_id.clone(),
            limit: limit + 1,
            before_seq,
        })?;
        let truncated = ops.len() as u64 > limit;
        ops.truncate(limit as usize);
        let next_cursor = match ops.last() {
            Some(last) if truncated => self.issue_cursor(&query, &Position::Seq(last.seq))?,
            _ => None,
        };
        Ok(crate::documents::HistoryList {
            operations: ops
                .iter()
                .map(|op| self.entry(&journal, op))
                .collect::<Result<_>>()?,
            truncated,
            next_cursor,
        })
    }

    /// One operation with its items.
    pub fn get_operation(&self, id: &str) -> Result<HistoryEntry> {
        let journal = self
            .existing_journal()?
            .ok_or_else(|| filekeeper_plumbing::journal::operation_not_found(id))?;
        let op = journal.get(id)?;
        self.entry(&journal, &op)
    }

    /// A unified diff per path, from the stored blobs.
    pub fn diff_operation(&self, id: &str) -> Result<HistoryDiff> {
        let state = self
            .inner
            .state(false)?
            .ok_or_else(|| filekeeper_plumbing::journal::operation_not_found(id))?;
        let journal = state
            .existing_journal()?
            .ok_or_else(|| filekeeper_plumbing::journal::operation_not_found(id))?;
        let op = journal.get(id)?;
        let store = state.store();
        let mut paths = Vec::new();
        for item in &op.items {
            let (diff_kind, diff) = if item.kind == Kind::Directory {
                ("directory", None)
            } else if item.history_skipped {
                ("history_skipped", None)
            } else if op.pruned_by.is_some() {
                ("pruned", None)
            } else if item.before_hash == item.after_hash && item.before_exists == item.after_exists
            {
                ("unchanged", None)
            } else if !op.after_blobs_required()
                && item.after_hash.is_some_and(|h| !store.contains(&h))
            {
                ("never_stored", None)
            } else {
                let read = |h: Option<filekeeper_plumbing::ObjectId>| -> Result<Option<Vec<u8>>> {
                    h.map(|h| store.read(&h)).transpose()
                };
                let (old, new) = (read(item.before_hash)?, read(item.after_hash)?);
                match unified(&item.path, old.as_deref(), new.as_deref()) {
                    Some(written) => ("text", Some(written)),
                    None => ("binary", None),
                }
            };
            let truncated = diff.as_ref().is_some_and(|w| w.cut);
            paths.push(PathDiff {
                path: item.path.clone(),
                change: item.change.clone(),
                kind: item.kind.as_str(),
                diff_kind,
                diff: diff.map(|w| w.text),
                truncated,
            });
        }
        Ok(HistoryDiff {
            operation_id: op.id,
            summary: op.summary,
            paths,
        })
    }

    /// Undoes one operation: every path goes back to its recorded before state, or nothing
    /// changes at all.
    pub fn undo(&self, id: &str, options: &MutationOptions) -> Result<MutationResult> {
        self.undo_chosen(options, |_| Ok(id.to_owned()))
    }

    /// Undoes the operation `choose` names. It chooses while the undo is planned: under the
    /// lock, and again after an operation an interrupted process left pending is recovered,
    /// since that operation may be the one to choose (see [`Workspace::undo_last`]).
    fn undo_chosen(
        &self,
        options: &MutationOptions,
        choose: impl Fn(&Workspace) -> Result<String>,
    ) -> Result<MutationResult> {
        let chosen = std::cell::RefCell::new(String::new());
        let result = self.mutate(options, |ws| {
            let id = choose(ws)?;
            chosen.replace(id.clone());
            ws.plan_undo(&id)
        });
        match result {
            Err(err) if err.code == Code::UndoConflict && !options.dry_run => {
                Err(self.record_refusal(&chosen.take(), err, options))
            }
            other => other,
        }
    }

    /// Undoes the newest operation here that can be undone (not an undo, not already undone,
    /// its history stored), optionally only among one actor's. The result's
    /// `skipped_operations` names the newer ones passed over because they cannot be undone.
    ///
    /// The newest is found under the lock, after recovery: an operation an interrupted
    /// process left pending is resolved first, and when it is undoable (partial, or
    /// committed after all) it is the newest. Chosen before, the undo would take the one
    /// before it.
    pub fn undo_last(
        &self,
        actor: Option<&str>,
        options: &MutationOptions,
    ) -> Result<MutationResult> {
        let passed_over = std::cell::RefCell::new(Vec::new());
        let result = self.undo_chosen(options, |ws| {
            let (op, passed) = match ws.existing_journal()? {
                Some(journal) => journal.latest_undoable_passing(actor)?,
                None => (None, Vec::new()),
            };
            passed_over.replace(passed.clone());
            let Some(op) = op else {
                let message = if passed.is_empty() {
                    "there is no operation to undo in this workspace".to_owned()
                } else {
                    format!(
                        "there is no operation to undo in this workspace; {} operation(s) cannot be undone because their history was skipped",
                        passed.len()
                    )
                };
                let mut err = Error::new(Code::OperationNotFound, message).with("actor", actor);
                if !passed.is_empty() {
                    err = err.with("skipped_operations", json!(passed));
                }
                return Err(err);
            };
            Ok(op.id)
        });
        let passed = passed_over.take();
        match result {
            Ok(mut result) => {
                result.extra.skipped_operations = Some(passed);
                // A dry run recovers nothing, so it chose among the resolved operations only.
                if options.dry_run && self.pending_under_lock()? {
                    result.warnings.push(
                        "an operation an interrupted process left pending is recovered before the real undo chooses; if it can be undone then, the real undo takes it instead of the one shown here".to_owned(),
                    );
                }
                Ok(result)
            }
            Err(err) if !passed.is_empty() && !err.details.contains_key("skipped_operations") => {
                Err(err.with("skipped_operations", json!(passed)))
            }
            // Nothing to undo among the resolved operations, but the real undo recovers the
            // pending one first and may take it: said, as the warning above says it.
            Err(mut err)
                if err.code == Code::OperationNotFound
                    && options.dry_run
                    && self.pending_under_lock()? =>
            {
                err.message.push_str(
                    "; but an operation an interrupted process left pending is recovered before the real undo chooses, and if it can be undone then, the real undo takes it",
                );
                Err(err.with("pending", true).recovery(
                    "run the undo without a dry run to recover the pending operation and undo it, if it changed anything",
                ))
            }
            Err(err) => Err(err),
        }
    }

    fn plan_undo(&self, id: &str) -> Result<Plan> {
        let journal = self
            .existing_journal()?
            .ok_or_else(|| filekeeper_plumbing::journal::operation_not_found(id))?;
        let op = journal.get(id)?;
        match op.status {
            Status::Committed | Status::Partial => {}
            Status::UndoRefused => {
                return Err(Error::invalid(format!(
                    "{id} is a refused undo; it changed nothing and cannot be undone"
                ))
                .with("operation_id", id));
            }
            // Every mutation recovers what an interrupted process left pending before it plans,
            // so only a dry run, which recovers nothing, finds the operation pending here.
            Status::Pending => {
                return Err(Error::invalid(format!(
                    "{id} is pending: the process making it was interrupted, and a dry run recovers nothing, so it cannot show the undo; the undo itself recovers {id} first, and then undoes what it changed, if anything"
                ))
                .with("operation_id", id)
                .with("status", Status::Pending.as_str())
                .recovery(
                    "run the undo without a dry run to recover the operation and undo it, or list the history after any other change to see what the recovery found",
                ));
            }
            status => {
                return Err(Error::invalid(format!(
                    "{id} is {}; only committed or partial operations can be undone",
                    status.as_str()
                ))
                .with("operation_id", id)
                .with("status", status.as_str()));
            }
        }
        if let Some(prune) = &op.pruned_by {
            return Err(Error::new(
                Code::HistoryUnavailable,
                format!(
                    "{id} was pruned from the undoable history at {}; its previous contents may no longer be stored",
                    op.pruned_at.as_deref().unwrap_or("an unrecorded time")
                ),
            )
            .with("operation_id", id)
            .with("reason", "pruned")
            .with("pruned_at", op.pruned_at.clone())
            .with("pruned_by", prune.as_str()));
        }
        if let Some(by) = journal.fully_undone_by(id)? {
            return Err(Error::invalid(format!("{id} was already undone by {by}"))
                .with("operation_id", id)
                .with("undone_by", by)
                .recovery("undo the undo to go forward again"));
        }
        if let (Some(target), Some(by)) = (&op.undoes, finished_by_another(&journal, &op)?) {
            return Err(Error::invalid(format!(
                "{id} undid {target} only in part, and {by} finished undoing it since; undoing {id} now would also take back what {by} put back"
            ))
            .with("operation_id", id)
            .with("undone_by", by)
            .recovery("undo the later undo to go forward again"));
        }
        // Undone in part only (an undo interrupted, or rolled back in part): undoing it again
        // finishes what that undo began, and the paths it put back are done.
        let partly_undone = journal.undone_by(id)?.is_some();
        let missing = op.missing_for_undo();
        if !missing.is_empty() {
            return Err(Error::new(
                Code::HistoryUnavailable,
                "the operation is not undoable: it created, replaced or deleted a file above the history cap (max_history_blob_bytes), whose bytes were not stored",
            )
            .with("operation_id", id)
            .with("reason", "history_skipped")
            .with("paths", missing));
        }
        // A partial operation did not change the paths that held their before state when it
        // was marked partial: whatever they hold now is no doing of its, so they are left alone
        // (one a later operation brought to this one's after state is not "put back"). Nor
        // does a partial undo of it leave anything to do for the paths it had put back when it
        // was marked (`done_paths`), whatever a later operation made of them since; unless
        // that undo was undone in turn, which took them forward again. A record without
        // `done_paths` (marked before 2026-12-04) leaves every path to be judged.
        let mut unchanged: Vec<&str> = op.unchanged_paths();
        let partial_undos = journal.partial_undos(id)?;
        for undo in &partial_undos {
            if journal.undone_by(&undo.id)?.is_none() {
                unchanged.extend(undo.done_paths().unwrap_or_default());
            }
        }
        // A partial operation's paths that it had brought to their after state (`done_paths`)
        // were changed by it, so one at its before state now was changed since, as a
        // committed operation's would be. Before 2026-12-05 it was taken for a path the
        // operation never changed: a partial undo whose done path a later write had set to
        // what the undo found was undone with no items and `ok: true`, and an undo of the
        // original operation then took back that later write.
        let done = op.done_paths().unwrap_or_default();
        // Check every path before planning any change.
        let mut to_restore = Vec::new();
        let mut blocking = Vec::new();
        for item in op
            .items
            .iter()
            .filter(|i| !unchanged.contains(&i.path.as_str()))
        {
            let now = observe(&self.inner, &item.path)?;
            if matches_side(item, now, Side::After) && !matches_side(item, now, Side::Before) {
                to_restore.push((item, now));
            } else if matches_side(item, now, Side::Before)
                && ((op.status == Status::Partial && !done.contains(&item.path.as_str()))
                    || partly_undone
                    || !crate::mutate::item_changes(item))
            {
                // Already at its before state: a partial operation never changed it, or an
                // undo of it that was interrupted put it back.
            } else if !matches_side(item, now, Side::After) {
                blocking.push(item.path.clone());
            }
        }
        // A directory the undo would remove must hold nothing the operation did not record:
        // anything else in it was put there later, and removing the directory would lose it.
        let removed: std::collections::HashSet<&str> = to_restore
            .iter()
            .filter(|(i, _)| !i.before_exists)
            .map(|(i, _)| i.path.as_str())
            .collect();
        for (item, _) in to_restore
            .iter()
            .filter(|(i, _)| !i.before_exists && i.kind == Kind::Directory)
        {
            // Every entry is looked at: the bound on what a listing shows must not decide
            // whether the tree is unchanged.
            for entry in self.entries_in(&item.path)? {
                if !removed.contains(entry.as_str()) {
                    blocking.push(entry);
                }
            }
        }
        // A path put back needs its directories: one removed since (by a later operation, or
        // by hand) is a change since as much as the path's own, and blocks the undo here, where
        // a dry run sees it too, instead of failing at the step.
        let made: std::collections::HashSet<&str> = to_restore
            .iter()
            .filter(|(i, _)| i.before_exists && i.kind == Kind::Directory)
            .map(|(i, _)| i.path.as_str())
            .collect();
        for (item, _) in to_restore.iter().filter(|(i, _)| i.before_exists) {
            let ancestors = item.path.match_indices('/').map(|(at, _)| &item.path[..at]);
            for dir in ancestors.filter(|dir| !made.contains(dir)) {
                match observe(&self.inner, dir)? {
                    Observed::Directory { .. } => {}
                    // Gone, or a file or a link in its place (a link would take the path
                    // elsewhere, or nowhere): a change since, named here, where a dry run
                    // sees it too, not found at the step.
                    Observed::Absent | Observed::File { .. } | Observed::Other => {
                        blocking.push(dir.to_owned());
                        break;
                    }
                }
            }
        }
        blocking.sort();
        blocking.dedup();
        if !blocking.is_empty() {
            return Err(Error::new(
                Code::UndoConflict,
                format!("{} path(s) changed since {id}; undoing it would destroy those changes", blocking.len()),
            )
            .with("operation_id", id)
            .with("blocking_paths", blocking)
            .recovery("nothing was modified; undo the later operations first, or restore the paths by hand"));
        }
        let state = self
            .inner
            .state(false)?
            .ok_or_else(|| Error::internal("state vanished"))?;
        let store = state.store();
        let mut items = Vec::new();
        let mut steps = Vec::new();
        let mut sides = std::collections::HashMap::new();
        let mut setgid_lost = Vec::new();
        // A file the operation moved goes back by a rename while both its ends are as the
        // operation left them (the moved path absent again, the new one holding what moved),
        // first, since no directory either end is in is made or removed.
        let restoring = |path: &str| to_restore.iter().find(|(i, _)| i.path == path);
        let mut renamed = std::collections::HashSet::new();
        for (from, to) in filekeeper_plumbing::journal::moved_files(&op.items) {
            let (left, came) = (&op.items[from], &op.items[to]);
            let (Some((_, left_now)), Some((_, came_now))) =
                (restoring(&left.path), restoring(&came.path))
            else {
                continue;
            };
            steps.push(Step::Rename {
                from: came.path.clone(),
                to: left.path.clone(),
                from_hash: came.after_hash,
                replaces: None,
            });
            for (item, now) in [(came, came_now), (left, left_now)] {
                renamed.insert(item.path.as_str());
                items.push(Planned {
                    item: inverse(item, *now),
                    after_size: None,
                });
            }
        }
        let mut removals: Vec<&(&Item, Observed)> = to_restore
            .iter()
            .filter(|(i, _)| !i.before_exists && !renamed.contains(i.path.as_str()))
            .collect();
        removals.sort_by_key(|(i, _)| std::cmp::Reverse(i.path.matches('/').count()));
        let mut puts: Vec<&(&Item, Observed)> = to_restore
            .iter()
            .filter(|(i, _)| i.before_exists && !renamed.contains(i.path.as_str()))
            .collect();
        puts.sort_by_key(|(i, _)| i.path.matches('/').count());
        for (item, now) in removals.into_iter().chain(puts) {
            let step = match (item.before_exists, item.kind, *now) {
                (false, Kind::Directory, _) => Step::RemoveDir {
                    path: item.path.clone(),
                },
                (false, Kind::File, now) => Step::Remove {
                    path: item.path.clone(),
                    hash: match now {
                        Observed::File { hash, .. } => hash,
                        _ => return Err(Error::internal("a file to remove that is not a file")),
                    },
                },
                (true, Kind::Directory, _) => match item.before_mode {
                    Some(mode) => Step::RestoreDir {
                        path: item.path.clone(),
                        mode: self.keepable_mode(&item.path, mode, &mut setgid_lost),
                    },
                    // Recorded without a mode (a directory the operation made, or a journal
                    // from before directory modes were kept): a new directory's default.
                    None => Step::MakeDir {
                        path: item.path.clone(),
                    },
                },
                (true, Kind::File, _) if item.history_skipped => {
                    // One end of a move whose other end is no longer as the move left it.
                    return Err(Error::new(
                        Code::HistoryUnavailable,
                        "the operation cannot be undone: it moved a file above the history cap (max_history_blob_bytes), whose bytes were not stored, and the file is no longer where it moved it",
                    )
                    .with("operation_id", id)
                    .with("reason", "history_skipped")
                    .with("paths", vec![item.path.clone()]));
                }
                (true, Kind::File, now) => {
                    let blob = item
                        .before_hash
                        .ok_or_else(|| Error::internal("a file item without a before hash"))?;
                    Step::Publish {
                        path: item.path.clone(),
                        expect: match now {
                            Observed::File { hash, .. } => Expect::Hash(hash),
                            _ => Expect::Absent,
                        },
                        mode: item
                            .before_mode
                            .map(|mode| self.keepable_mode(&item.path, mode, &mut setgid_lost)),
                        content: Arc::new(store.read(&blob)?),
                    }
                }
            };
            let after_size = match &step {
                Step::Publish { content, .. } => Some(content.len() as u64),
                _ => None,
            };
            if item.kind == Kind::File {
                // What the path holds now is the undone operation's stored after content: it
                // is read for the diff only once the undo is made, outside the lock.
                sides.insert(
                    item.path.clone(),
                    Sides {
                        before: item
                            .after_hash
                            .filter(|_| item.after_exists)
                            .map(Held::Stored),
                        after: match &step {
                            Step::Publish { content, .. } => Some(Held::Bytes(Arc::clone(content))),
                            _ => None,
                        },
                        from: None,
                    },
                );
            }
            let mut undone = inverse(item, *now);
            match &step {
                Step::Publish { mode, .. } => undone.after_mode = *mode,
                Step::RestoreDir { mode, .. } => undone.after_mode = Some(*mode),
                _ => {}
            }
            steps.push(step);
            items.push(Planned {
                item: undone,
                after_size,
            });
        }
        let preview = steps
            .iter()
            .map(Step::preview_line)
            .collect::<String>()
            .into();
        let target = op
            .target_path
            .clone()
            .unwrap_or_else(|| op.items.first().map(|i| i.path.clone()).unwrap_or_default());
        let mut warnings = self.undo_warnings(&items);
        warnings.extend(setgid_lost.into_iter().map(|path| {
            format!(
                "{path} was setgid: put back, it belongs to its parent directory's group, which the writer is not in, so the bit cannot be kept"
            )
        }));
        Ok(Plan {
            warnings,
            summary: undo_summary(&op),
            undoes: Some(id.to_owned()),
            items,
            steps,
            preview,
            sides,
            ..Plan::new("undo", &target, &target)
        })
    }

    /// The mode a file or directory put back at `path` can have (`publish::keepable_mode`):
    /// `mode`, less a setgid bit the kernel would clear, and then `path` is added to `lost`.
    fn keepable_mode(&self, path: &str, mode: u32, lost: &mut Vec<String>) -> u32 {
        // Only a setgid mode can lose anything: no path walk for every other file an undo
        // puts back.
        if mode & 0o2000 == 0 {
            return mode;
        }
        let intent = filekeeper_plumbing::resolve::Intent::Write {
            allow_sensitive: true,
        };
        let Ok(target) = self.inner.root.resolve(path, intent) else {
            return mode; // the step finds what is wrong, as it always has
        };
        let kept = filekeeper_plumbing::publish::keepable_mode(&target, mode);
        if kept != mode {
            lost.push(path.to_owned());
        }
        kept
    }

    /// The git-ignored warnings every mutating command gives, for the paths an undo changes:
    /// checked at the top of each changed tree only, so undoing a wide tree asks git's rules
    /// once, not once per file.
    fn undo_warnings(&self, items: &[Planned]) -> Vec<String> {
        let paths: std::collections::HashSet<&str> =
            items.iter().map(|p| p.item.path.as_str()).collect();
        let below_another = |path: &str| {
            let mut rest = path;
            while let Some((parent, _)) = rest.rsplit_once('/') {
                if paths.contains(parent) {
                    return true;
                }
                rest = parent;
            }
            false
        };
        items
            .iter()
            .filter(|p| !below_another(&p.item.path))
            .flat_map(|p| self.ignored_warning_as(&p.item.path, p.item.kind == Kind::Directory))
            .collect()
    }

    /// Every direct entry of the directory at `path`, unbounded (workspace-relative paths),
    /// a nested workspace's `.filekeeper/` among them: the walk passes over it, but it keeps
    /// the directory from being removed all the same.
    fn entries_in(&self, path: &str) -> Result<Vec<String>> {
        let dir = self.inner.root.resolve_recorded(
            path,
            filekeeper_plumbing::resolve::Intent::Write {
                allow_sensitive: true,
            },
        )?;
        let mut walk = filekeeper_plumbing::walk::walk(
            &self.inner.root,
            &dir,
            filekeeper_plumbing::walk::WalkOptions {
                recursive: false,
                max_depth: 1,
                respect_ignore: false,
            },
        )?;
        let mut entries = walk
            .by_ref()
            .map(|entry| entry.map(|e| e.rel))
            .collect::<Result<Vec<_>>>()?;
        entries.append(&mut walk.nested_state_dirs);
        Ok(entries)
    }

    /// Records a refused undo in the ledger: an `undo_refused` row with the target path, the
    /// conflict code and the blocking paths. It has no items and is never undoable.
    fn record_refusal(&self, id: &str, mut err: Error, options: &MutationOptions) -> Error {
        let recorded = (|| -> Result<String> {
            let (state, _lock) = self.inner.lock()?;
            let mut journal = state.journal()?;
            let target = journal.get(id)?.target_path;
            let mut metadata = serde_json::Map::new();
            metadata.insert("conflict_code".into(), json!(err.code.as_str()));
            metadata.insert(
                "blocking_paths".into(),
                err.details
                    .get("blocking_paths")
                    .cloned()
                    .unwrap_or(json!([])),
            );
            let refusal = journal.record_undo_refused(&NewOperation {
                kind: "undo".into(),
                summary: format!("Refused to undo {id}: paths changed since."),
                target_path: target,
                undoes: Some(id.to_owned()),
                metadata,
                actor: options.actor.clone(),
                task_id: options.task_id.clone(),
                ..Default::default()
            })?;
            Ok(refusal)
        })();
        if let Ok(refusal) = recorded {
            err.details.insert("refusal_id".into(), json!(refusal));
        }
        err
    }
}

/// An undo's summary: the undone operation's own in brackets, or, for one recorded without a
/// summary (`journal-begin` makes it optional), its kind and target.
fn undo_summary(op: &Operation) -> String {
    let own = op.summary.trim().trim_end_matches('.');
    let about = if !own.is_empty() {
        own.to_owned()
    } else {
        let kind = op.kind.trim();
        match (kind.is_empty(), op.target_path.as_deref()) {
            (false, Some(target)) => format!("{kind} of {target}"),
            (true, Some(target)) => format!("an operation on {target}"),
            (false, None) => kind.to_owned(),
            (true, None) => return format!("Undid {}.", op.id),
        }
    };
    format!("Undid {} ({about}).", op.id)
}

/// The item an undo records: the original with its sides swapped, and the mode `now` holds
/// where the original recorded none on its after side (a directory `dir create` or a patch
/// made): undoing this undo puts the directory back with the mode it had, not a new one's.
fn inverse(item: &Item, now: Observed) -> Item {
    let now_mode = match now {
        Observed::Directory { mode } | Observed::File { mode, .. } => Some(mode),
        Observed::Absent | Observed::Other => None,
    };
    let change = match (item.after_exists, item.before_exists) {
        (true, false) => Change::Deleted,
        (false, true) => Change::Created,
        _ => Change::Modified,
    };
    Item {
        path: item.path.clone(),
        change: change.into(),
        kind: item.kind,
        before_exists: item.after_exists,
        after_exists: item.before_exists,
        before_hash: item.after_hash,
        after_hash: item.before_hash,
        before_mode: item.after_mode.or(now_mode.filter(|_| item.after_exists)),
        after_mode: item.before_mode,
        // Kept for every item: the undo of this undo needs the same contents, and an end of
        // a move of a file whose bytes were not stored is renamed back (`moved_files`).
        history_skipped: item.history_skipped,
    }
}

/// A unified diff between two versions (absent = `None`), or `None` when either is not text.
/// A version created or deleted without lines (an empty file) has its two header lines, which
/// say which; a diff over [`HISTORY_DIFF_MAX_BYTES`] is cut to whole lines and ends with a
/// line saying so.
fn unified(path: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> Option<crate::diff::Written> {
    let old_text = old.map(std::str::from_utf8).transpose().ok()?;
    let new_text = new.map(std::str::from_utf8).transpose().ok()?;
    if old.is_some_and(|b| b.contains(&0)) || new.is_some_and(|b| b.contains(&0)) {
        return None;
    }
    let from = if old.is_some() {
        format!("a/{path}")
    } else {
        "/dev/null".into()
    };
    let to = if new.is_some() {
        format!("b/{path}")
    } else {
        "/dev/null".into()
    };
    let mut written = crate::diff::unified(
        &from,
        &to,
        old_text.unwrap_or(""),
        new_text.unwrap_or(""),
        3,
        None,
        HISTORY_DIFF_MAX_BYTES,
    );
    if written.text.is_empty() && !written.cut {
        written.text = crate::diff::headers(&from, &to);
    }
    if written.cut {
        written.text.push_str(&format!(
            "... diff cut at {} KiB: a path's diff is shown up to that much\n",
            HISTORY_DIFF_MAX_BYTES / 1024
        ));
    }
    Some(written)
}

/// The later undo that finished undoing what the partial undo `op` undid in part, when that
/// makes `op` impossible to undo: it put back paths `op` never reached, and undoing `op`
/// would take them too. Unless `op` names the paths it put back (`done_paths`, since
/// 2026-12-04): its undo then takes back those alone, which the later undo left alone.
fn finished_by_another(journal: &Journal, op: &Operation) -> Result<Option<String>> {
    let (Some(target), Status::Partial, None) = (&op.undoes, op.status, op.done_paths()) else {
        return Ok(None);
    };
    Ok(journal.fully_undone_by(target)?.filter(|by| *by != op.id))
}
