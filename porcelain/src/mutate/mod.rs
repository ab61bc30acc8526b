//! Journaled mutations: the one sequence every change follows.
//!
//! A command first *plans*: it resolves its paths, observes their current state, checks its
//! guards, and describes the change as journal items (before and after state of each path)
//! and steps (the effects, in order). Nothing is touched while planning, so a dry run is a
//! plan rendered as a preview. A real run then, holding the workspace lock:
//!
//! 1. stores every before content as a blob (fsynced), which a rollback needs;
//! 2. records the operation as pending (SQLite, synchronous=FULL), while a second thread
//!    stores the after contents and a third stages the new files unnamed beside their
//!    targets (`publish::stage`), both joined before 3;
//! 3. applies the steps, each one individually atomic and durable;
//! 4. re-reads every path and marks the operation committed only if all hold their after
//!    state.
//!
//! A step that fails is rolled back by restoring every path to its before state from the
//! stored blobs; if even that fails, the operation is marked partial and the caller gets
//! PARTIAL_RECOVERY naming what was and was not restored.
//!
//! This module runs that sequence. The commands that plan are in `files` and `dirs` (edits and
//! patches in `crate::edit`, undo in `crate::history`); a plan and its parts are in `plan`,
//! `items` and `preview`; what every command resolves and checks before it plans is in
//! `target`; putting paths back, for a rollback or an undo, is in `restore`; the diffs a
//! result shows are made in `diffs`.

mod diffs;
mod dirs;
mod files;
mod items;
mod plan;
mod preview;
mod restore;
mod target;

pub use diffs::MutationDiff;
pub(crate) use diffs::{Held, Sides};
pub use items::Change;
pub(crate) use items::{deleted_file, dir_item, item_changes};
pub(crate) use plan::{Plan, Planned, Step};
pub(crate) use preview::{Preview, PreviewPart};
pub(crate) use target::{Seen, guard, no_such_file, not_a_file, parse_expected_hash};

use crate::{Code, Error, ObjectId, Result, Workspace};
use filekeeper_plumbing::journal::{Item, Journal, NewOperation, Status, missing_for_undo};
use filekeeper_plumbing::odb::ObjectStore;
use filekeeper_plumbing::path_state::{Side, mismatched_paths, observe_items, split_observed};
use filekeeper_plumbing::progress::Task;
use filekeeper_plumbing::publish::Staged;
use filekeeper_plumbing::recover::{Recovery, recover};
use filekeeper_plumbing::workspace::State;
use filekeeper_plumbing::{Operation, words};
use schemars::JsonSchema;
use serde::Serialize;

/// What every mutating call takes besides its own arguments.
#[derive(Clone, Debug, Default)]
pub struct MutationOptions {
    /// Compute and report the change without making it.
    pub dry_run: bool,
    /// Recorded with the operation.
    pub actor: Option<String>,
    /// Recorded with the operation, to tie the operations of one task together (history can
    /// be filtered by it).
    pub task_id: Option<String>,
    /// Accept a credential-shaped target (`.env`, `*.pem`, `.ssh/`, ...). A refusal names it as
    /// `Argument::AllowSensitiveWrite`, which each surface spells its own way.
    pub allow_sensitive_write: bool,
}

/// One path of a mutation's result.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct MutationItem {
    /// Workspace-relative path.
    pub path: String,
    /// `created`, `modified`, `deleted`, or another word the command documents.
    pub change: String,
    /// `file` or `directory`.
    #[schemars(extend("enum" = ["file", "directory"]))]
    pub kind: &'static str,
    /// The content before (`sha256:` and 64 hex digits); null when there was none.
    pub before_hash: Option<String>,
    /// Observed after the change; null in a dry run.
    pub after_hash: Option<String>,
    /// Size after the change; null in a dry run and for paths that no longer exist.
    pub size_bytes: Option<u64>,
}

/// The result of every mutating command, in the specification's shape.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct MutationResult {
    /// The path the caller named.
    pub path: String,
    /// Whether anything changed (false in a dry run).
    pub changed: bool,
    /// The content at `path` before; null when there was none.
    pub before_hash: Option<String>,
    /// The content at `path` after; null when there is none (and in a dry run).
    pub after_hash: Option<String>,
    /// One sentence for people.
    pub summary: String,
    /// The journal operation (`op_` and 16 hex digits); null in a dry run.
    pub operation_id: Option<String>,
    /// Whether an undo can reverse it.
    pub undo_available: bool,
    /// Whether this was a dry run: nothing was changed or recorded.
    pub dry_run: bool,
    /// Sentences for people about what did not stop the change: a git-ignored target, a
    /// normalised match, a kept byte-order mark, an interrupted operation recovered first, ...
    pub warnings: Vec<String>,
    /// Every path the operation touched.
    pub items: Vec<MutationItem>,
    /// What the change did to each path of `items`, in the same order: a unified diff of a
    /// text file's content, or why there is none (a directory, binary content, a file above
    /// `max_diff_file_bytes`, ...). A dry run shows what a real run would do.
    pub diffs: Vec<MutationDiff>,
    /// Whether a diff was cut, or left out, because the result reached `max_diff_bytes`.
    pub diff_truncated: bool,
    /// The other end of a copy or move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_path: Option<String>,
    /// Paths whose bytes were above the history cap and not stored.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub history_skipped: Vec<String>,
    /// Dry run only (present, possibly null): the hash a real run would produce at `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted_after_hash: Option<Option<String>>,
    /// Dry run only: whether a real run would change anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_change: Option<bool>,
    /// Dry run only: a unified diff (or a list of changes) of what a real run would do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview_diff: Option<String>,
    /// Command-specific fields: `match_stage` and `match_count` for text replacement,
    /// `patch_files` for patches, `skipped_operations` when undoing the newest operation.
    #[serde(flatten)]
    pub extra: MutationExtra,
}

/// The fields only some mutations report, flat beside the others.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct MutationExtra {
    /// Text replacement: the stage that found the old text, `exact` or `normalised`
    /// (indentation and trailing whitespace ignored).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["exact", "normalised"]))]
    pub match_stage: Option<&'static str>,
    /// Text replacement: how many occurrences of the old text were found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_count: Option<usize>,
    /// Patches: every file of the patch and every hunk's outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_files: Option<Vec<crate::FileReport>>,
    /// Whole-file writes: true when the file's UTF-8 byte-order mark was kept in front of new
    /// content that had none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bom_kept: Option<bool>,
    /// Undoing the newest operation only: the newer operations passed over because they
    /// cannot be undone, newest first (empty when none was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_operations: Option<Vec<filekeeper_plumbing::journal::PassedOver>>,
    /// Edits with a `base_hash` the file no longer held: the edit was made on that version
    /// and merged into the file as it was (`docs/editing.md`, "Edits on a snapshot").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged: Option<crate::edit::MergeReport>,
}

/// At most this many new files are staged before the record; the rest are published at their
/// steps. Each staged file holds a descriptor until its step, and a plan may have thousands.
const MAX_STAGED: usize = 64;

/// What [`Workspace::prepare`] did.
enum Prepared {
    /// The operation is recorded, and the new contents and files are stored and staged.
    Begun(Box<Begun>),
    /// The journal holds an operation pending under the lock: recover it, then plan again.
    RecoverFirst(Journal),
}

/// A recorded operation: the journal, the record's id (or why it could not be written) and
/// the staged files (or why the new contents could not be stored or staged).
struct Begun {
    journal: Journal,
    id: Result<String>,
    staged: Result<Vec<Option<Staged>>>,
}

/// The journal record of `plan`, as begun pending.
fn new_operation(plan: &Plan, options: &MutationOptions) -> NewOperation {
    NewOperation {
        kind: plan.kind.to_owned(),
        actor: options.actor.clone(),
        task_id: options.task_id.clone(),
        summary: plan.summary.clone(),
        target_path: Some(plan.target.clone()),
        source_path: plan.source.clone(),
        undoes: plan.undoes.clone(),
        under_lock: true,
        metadata: plan
            .source
            .as_ref()
            .map(|s| {
                let mut m = serde_json::Map::new();
                m.insert("source_path".into(), s.clone().into());
                m
            })
            .unwrap_or_default(),
        items: plan.items.iter().map(|p| p.item.clone()).collect(),
    }
}

/// Whether a plan's new files can be staged before its record: only when every step is a
/// publication, since an earlier step of another kind (a mkdir, a rename) could change what a
/// later path resolves to.
fn stageable(plan: &Plan) -> bool {
    !plan.steps.is_empty()
        && plan
            .steps
            .iter()
            .all(|step| matches!(step, Step::Publish { .. }))
}

/// Writes a publication's new bytes.
fn fill(content: &[u8]) -> impl FnOnce(&mut dyn std::io::Write) -> Result<()> + '_ {
    move |out| {
        out.write_all(content)
            .map_err(|e| Error::storage("writing file", &e))
    }
}

/// Every path the plan changes passes the write rules (a credential-shaped one only with the
/// override), checked while planning: a directory's entries are changed by steps that name
/// only the directory (`dir move`) or reach them one by one after the operation is recorded
/// (`dir delete --recursive`), so a step's own check would come too late, or never.
fn check_written_paths(ws: &Workspace, plan: &Plan, options: &MutationOptions) -> Result<()> {
    let intent = filekeeper_plumbing::resolve::Intent::Write {
        allow_sensitive: options.allow_sensitive_write,
    };
    let renamed_to = plan.steps.iter().filter_map(|step| match step {
        Step::Rename { to, .. } => Some(to.as_str()),
        _ => None,
    });
    plan.items
        .iter()
        .map(|p| p.item.path.as_str())
        .chain(plan.steps.iter().map(Step::path))
        .chain(renamed_to)
        .try_for_each(|path| ws.inner.root.check_write_path(path, intent))?;
    // A file given content may not take the name of our temp files; one removed or moved
    // away may (a leftover of an interrupted publish must stay deletable).
    plan.items
        .iter()
        .filter(|p| p.item.after_exists && p.item.kind == filekeeper_plumbing::resolve::Kind::File)
        .try_for_each(|p| filekeeper_plumbing::publish::refuse_temp_name(&p.item.path))
}

fn hash_text(id: Option<ObjectId>) -> Option<String> {
    id.map(|h| h.to_string())
}

impl Workspace {
    /// Runs a mutation: `plan` describes it (and is called again under the lock, so the
    /// guards are checked against the state that will be changed).
    pub(crate) fn mutate(
        &self,
        options: &MutationOptions,
        plan: impl Fn(&Workspace) -> Result<Plan>,
    ) -> Result<MutationResult> {
        // Checked before planning, so a dry run refuses what the real run would.
        filekeeper_plumbing::journal::check_label("actor", options.actor.as_deref())?;
        filekeeper_plumbing::journal::check_label("task id", options.task_id.as_deref())?;
        // Every error about the change names the path the caller gave, even one raised by the
        // store or a step that knows no path (a full disk, a read-only mount).
        let given = std::cell::RefCell::new(None::<String>);
        let planned = |ws: &Workspace| {
            let plan = plan(ws)?;
            given.replace(Some(plan.given.clone()));
            check_written_paths(ws, &plan, options)?;
            Ok(plan)
        };
        let result = self
            .run(options, planned)
            .map_err(|err| match given.take() {
                Some(path) if !err.details.contains_key("path") => err.path(&path),
                _ => err,
            })
            .map_err(|err| self.explain(err, true));
        match (result, self.add_deferred_gitignore()) {
            (Ok(mut result), Some(notice)) => {
                result.warnings.push(notice);
                Ok(result)
            }
            (result, _) => result,
        }
    }

    /// The `.filekeeper/` line a state created by a change of `.gitignore` itself owes
    /// (`run` deferred it), added now that the change is made (or refused), as an operation
    /// of its own under the lock. The notice to give, if any.
    fn add_deferred_gitignore(&self) -> Option<String> {
        if !self.inner.gitignore_is_due() {
            return None;
        }
        let added = self
            .inner
            .lock()
            .and_then(|(state, lock)| self.inner.add_deferred_gitignore(&state, &lock));
        match added {
            Ok(notice) => notice,
            Err(err) => Some(format!(
                "could not add .filekeeper/ to .gitignore: {}",
                err.message
            )),
        }
    }

    fn run(
        &self,
        options: &MutationOptions,
        plan: impl Fn(&Workspace) -> Result<Plan>,
    ) -> Result<MutationResult> {
        if options.dry_run {
            let mut plan = plan(self)?;
            // The real run makes the workspace's state first, and in a git repository that
            // is a change of `.gitignore` of its own, which the preview must not hide.
            if self.inner.gitignore_edit_due()? {
                plan.warnings.push(
                    "this is the workspace's first change: the real run also adds .filekeeper/ to .gitignore, as a change of its own".to_owned(),
                );
            }
            let diffs = self.diffs(&plan);
            return Ok(dry_result(plan, diffs));
        }
        if self.inner.state(false)?.is_none() {
            // The first mutation here creates the state; a refused one must not.
            let first = plan(self)?;
            // In a git repository the state's creation adds `.filekeeper/` to `.gitignore`:
            // before a change of `.gitignore` itself, that edit would make the change fail
            // (a creation finding the file, a hash or a patch finding another content).
            if first.items.iter().any(|p| p.item.path == ".gitignore") {
                self.inner.defer_gitignore();
            }
        }
        let (state, lock) = self.inner.lock()?;
        let store = state.store();
        let mut warnings: Vec<String> = state.notices.clone();
        // The journal, once opened and recovered; until then the plan is made and prepared
        // while it opens (`prepare`), and made again if a change a dead process left pending
        // had to be recovered first.
        let mut recovered_journal = None;
        let (plan, begun) = loop {
            let plan = match plan(self) {
                Ok(plan) => plan,
                // A change left pending can be why the plan fails (a path half changed):
                // recover, then plan again.
                Err(err) if recovered_journal.is_none() => {
                    let mut journal = state.journal()?;
                    let recovered = recover(&self.inner, &mut journal, &lock)?;
                    recovered_journal = Some(journal);
                    if recovered.resolved.is_empty() {
                        return Err(err);
                    }
                    warnings.extend(recovery_warnings(&recovered));
                    continue;
                }
                Err(err) => return Err(err),
            };
            match self.prepare(&plan, options, &state, &store, recovered_journal.take())? {
                Prepared::Begun(begun) => break (plan, *begun),
                Prepared::RecoverFirst(mut journal) => {
                    let recovered = recover(&self.inner, &mut journal, &lock)?;
                    warnings.extend(recovery_warnings(&recovered));
                    recovered_journal = Some(journal);
                }
            }
        };
        let Begun {
            mut journal,
            id,
            staged,
        } = begun;
        let id = id?;
        let mut staged = match staged {
            Ok(staged) => staged,
            Err(mut err) => {
                let _ = journal.set_status(&id, &[Status::Pending], Status::RolledBack);
                err.details.insert("operation_id".into(), id.into());
                err.details.insert("steps_applied".into(), 0.into());
                return Err(err);
            }
        };
        filekeeper_plumbing::fault::crash_point("mutation-after-begin");
        let mut applying = Task::new("applying changes", Some(plan.steps.len() as u64));
        for (done, step) in plan.steps.iter().enumerate() {
            applying.step(1);
            let injected =
                filekeeper_plumbing::fault::fail_point(&format!("mutation-step-{}", done + 1))
                    .map_err(|e| Error::storage("applying a step", &e));
            let staged = staged.get_mut(done).and_then(Option::take);
            if let Err(err) = injected.and_then(|()| self.apply(step, options, staged)) {
                // Of several paths, the error names the one whose step failed (a full disk, a
                // read-only file know none); one path is named as the caller gave it (below).
                let err = if plan.steps.len() > 1 && !err.details.contains_key("path") {
                    err.path(step.path())
                } else {
                    err
                };
                return Err(self.roll_back(&mut journal, &id, &plan, done, err, &store));
            }
            if filekeeper_plumbing::fault::CRASH_POINTS_ARMED {
                filekeeper_plumbing::fault::crash_point(&format!(
                    "mutation-after-step-{}",
                    done + 1
                ));
            }
        }
        drop(applying);
        let items: Vec<Item> = plan.items.iter().map(|p| p.item.clone()).collect();
        // Every step is made: a failure to check them now leaves the operation pending, for
        // the next operation's recovery to resolve from the tree, and says so.
        let unchecked = |err: Error| {
            err.with("operation_id", id.as_str()).recovery(
                "the change was made but could not be checked; it stays pending, and the next change in this workspace records it from what the paths hold",
            )
        };
        let mut bad = mismatched_paths(&self.inner, &items, Side::After).map_err(unchecked)?;
        bad.extend(self.unrecorded_entries(&plan).map_err(unchecked)?);
        if !bad.is_empty() {
            let (at_before, at_after) = self.at_either_side(&items);
            journal.mark_partial(&id, &at_before, &at_after)?;
            return Err(Error::new(
                Code::ContentConflict,
                "another process changed the paths while the operation ran; it is recorded as partial",
            )
            .path(&plan.given)
            .with("operation_id", id)
            .with("paths", bad));
        }
        if let Err(err) = journal.commit_under_lock(&id) {
            // Every path holds its after state (checked just above) and the durable pending
            // record says what changed, so the next process's recovery records the operation
            // committed. Reporting a failure would be false: the change is made, and a caller
            // retrying it would meet its own result as a conflict.
            warnings.push(format!(
                "the change is made, but its commit record could not be written ({}); the next Filekeeper operation in this workspace records {id} from what its paths hold then: committed while they hold what it wrote, partial or rolled back if another program changes them first",
                err.message
            ));
        }
        drop(lock);
        let mut result = self.result(&plan, Some(id), warnings)?;
        result.undo_available = missing_for_undo(&items, &[]).is_empty();
        // After the lock is released, so the change's own latency is not the policy's.
        if let Some(warning) = self.apply_policy(options.actor.as_deref()) {
            result.warnings.push(warning);
        }
        Ok(result)
    }

    /// Records `plan` pending, with everything that must be durable before its first step.
    ///
    /// The old contents are stored first. Then the new contents go to the store on a second
    /// thread, and the new files are staged on a third (written and fsynced as unnamed temp
    /// files beside their targets), while this thread opens the journal (when `journal` is
    /// `None`) and records the operation. A rollback never needs the new contents, so they need not
    /// precede the record, only the first step; a crash leaves nothing of an unnamed file to
    /// clean up. Opening the journal (SQLite reading its schema and its log) is about a
    /// millisecond of CPU that overlaps the threads' fsyncs this way.
    ///
    /// Both threads are joined before this returns, so no step runs before they are done: a
    /// full disk while storing or staging changes nothing (the caller rolls the operation back
    /// with nothing applied), and every path that reaches its after state has its blob. A
    /// crash between the record and the join leaves a pending operation whose after blobs may
    /// be missing and whose paths all hold their before state: recovery rolls it back.
    ///
    /// A journal opened here that holds an operation still pending under the lock is given
    /// back unused (`RecoverFirst`), the threads' work dropped: the plan was made before that
    /// operation was recovered, so it is made again after.
    fn prepare(
        &self,
        plan: &Plan,
        options: &MutationOptions,
        state: &State,
        store: &ObjectStore,
        journal: Option<Journal>,
    ) -> Result<Prepared> {
        // The old contents first, before any thread starts: a rollback needs them, so each
        // is durable, its directory synced, before a thread storing the same bytes as a new
        // content could find it and skip syncing it again.
        let mut storing = Task::new("storing old contents", Some(plan.blobs.len() as u64));
        for blob in &plan.blobs {
            store.write(blob)?;
            storing.step(1);
        }
        drop(storing);
        std::thread::scope(|scope| {
            let staging = stageable(plan).then(|| scope.spawn(|| self.stage(plan, options)));
            let after = (!plan.after_blobs.is_empty()).then(|| {
                scope.spawn(|| -> Result<()> {
                    for blob in &plan.after_blobs {
                        store.write(blob)?;
                    }
                    Ok(())
                })
            });
            // Both threads are joined on every path, so a panic in one is an error here.
            let joined = move || {
                let died = |what: &str| {
                    Error::new(Code::InternalError, format!("{what} failed unexpectedly"))
                };
                let stored = after.map_or(Ok(()), |handle| {
                    handle
                        .join()
                        .unwrap_or_else(|_| Err(died("storing the new contents")))
                });
                let staged = staging.map_or(Ok(Vec::new()), |handle| {
                    handle
                        .join()
                        .unwrap_or_else(|_| Err(died("writing the new files")))
                });
                stored.and(staged)
            };
            let opened = match journal {
                Some(journal) => Ok((journal, false)),
                None => state.journal().and_then(|journal| {
                    let pending = journal.has_pending_under_lock()?;
                    Ok((journal, pending))
                }),
            };
            let (mut journal, recover_first) = match opened {
                Ok(opened) => opened,
                Err(err) => {
                    let _ = joined();
                    return Err(err);
                }
            };
            if recover_first {
                // What the threads made is dropped: an unnamed file vanishes, a stored blob
                // nothing names is gc's.
                let _ = joined();
                return Ok(Prepared::RecoverFirst(journal));
            }
            let begun = journal.begin(&new_operation(plan, options));
            Ok(Prepared::Begun(Box::new(Begun {
                journal,
                id: begun,
                staged: joined(),
            })))
        })
    }

    /// The paths of `items` that hold their before state, and those that hold their after
    /// state: an operation marked partial did not change the first (or another process put
    /// them back), so an undo leaves them alone, and did change the second, which an undo
    /// of an operation it undid in part takes as done. None when they cannot be told, and an
    /// undo then judges every path.
    fn at_either_side(&self, items: &[Item]) -> (Vec<String>, Vec<String>) {
        let Ok(observed) = observe_items(&self.inner, items) else {
            return (Vec::new(), Vec::new());
        };
        let held = |side| split_observed(items, &observed, side).0;
        (held(Side::Before), held(Side::After))
    }

    fn roll_back(
        &self,
        journal: &mut Journal,
        id: &str,
        plan: &Plan,
        done: usize,
        cause: Error,
        store: &filekeeper_plumbing::odb::ObjectStore,
    ) -> Error {
        let items: Vec<Item> = plan.items.iter().map(|p| p.item.clone()).collect();
        let touched = restore::Touched::by(&plan.steps, done);
        // A rename that was made is taken back by renaming back first: its source's bytes
        // may not be stored (above the history cap), and putting the paths back one by one
        // would remove the destination, the only copy, before finding the source's blob
        // missing.
        let (renamed_back, vacated) = restore::rename_back(self, &plan.steps, done);
        let outcome =
            restore::restore_before(self, &items, &touched, &vacated, store).map(|mut r| {
                r.restored.extend(renamed_back);
                r
            });
        // Rolled back when every path a step changed is back; a path no step changed may hold
        // another process's change, which is not this operation's to undo.
        let changed: Vec<Item> = items
            .iter()
            .filter(|i| touched.applied(&i.path) || vacated.contains(&i.path))
            .cloned()
            .collect();
        let restored_all = outcome.as_ref().is_ok_and(|r| r.failed.is_empty())
            && mismatched_paths(&self.inner, &changed, Side::Before)
                .is_ok_and(|bad| bad.is_empty());
        let _ = match restored_all {
            true => journal.set_status(id, &[Status::Pending], Status::RolledBack),
            false => {
                let (at_before, at_after) = self.at_either_side(&items);
                journal.mark_partial(id, &at_before, &at_after)
            }
        };
        let (restored, failed) = match outcome {
            Ok(r) => (r.restored, r.failed),
            Err(_) => (Vec::new(), items.iter().map(|i| i.path.clone()).collect()),
        };
        if restored_all {
            let mut err = cause;
            err.details.insert("operation_id".into(), id.into());
            err.details.insert("steps_applied".into(), done.into());
            err.details.insert("restored".into(), restored.into());
            return err;
        }
        Error::new(
            Code::PartialRecovery,
            format!(
                "{}; rolling back failed too, so the operation is recorded as partial",
                cause.message
            ),
        )
        .path(&plan.given)
        .with("operation_id", id)
        .with("cause", cause.code.as_str())
        .with("restored", restored)
        .with("not_restored", failed)
        .hint(words![
            "inspect the paths named; ",
            Operation::Undo,
            " of this operation restores what it can"
        ])
    }

    /// Stages the new file of the first [`MAX_STAGED`] publications whose targets resolve now.
    /// `None` where one does not (the step resolves it again and reports why) or where the
    /// filesystem cannot make unnamed files (the step publishes the ordinary way). A failure
    /// to write one (a full disk) is the operation's error, as a failure to store a blob is.
    fn stage(&self, plan: &Plan, options: &MutationOptions) -> Result<Vec<Option<Staged>>> {
        use filekeeper_plumbing::{publish, resolve::Intent};
        let write = Intent::Write {
            allow_sensitive: options.allow_sensitive_write,
        };
        plan.steps
            .iter()
            .take(MAX_STAGED)
            .map(|step| {
                let Step::Publish {
                    path,
                    mode,
                    content,
                    ..
                } = step
                else {
                    return Ok(None);
                };
                let Ok(target) = self.inner.root.resolve_recorded(path, write) else {
                    return Ok(None);
                };
                publish::stage(&target, *mode, Some(ObjectId::of(content)), fill(content))
            })
            .collect()
    }

    fn apply(&self, step: &Step, options: &MutationOptions, staged: Option<Staged>) -> Result<()> {
        use filekeeper_plumbing::publish::Expect;
        use filekeeper_plumbing::resolve::Intent;
        use filekeeper_plumbing::{fs_ops, publish};
        let write = Intent::Write {
            allow_sensitive: options.allow_sensitive_write,
        };
        let root = &self.inner.root;
        match step {
            Step::Publish {
                path,
                expect,
                mode,
                content,
            } => {
                // Resolved again, as every step is: the tree may have changed since staging.
                let target = root.resolve_recorded(path, write)?;
                if let Some(staged) = staged.filter(|staged| staged.is_beside(&target)) {
                    return staged.finish(&target, *expect, *mode).map(|_| ());
                }
                publish::publish(
                    &target,
                    *expect,
                    *mode,
                    Some(ObjectId::of(content)),
                    fill(content),
                )
                .map(|_| ())
            }
            Step::Remove { path, hash } => {
                let target = root.resolve_recorded(path, write)?;
                publish::check_holds(&target, Expect::Hash(*hash), "delete it")?;
                fs_ops::remove_file(&target)
            }
            Step::MakeDir { path } => fs_ops::make_dir(&root.resolve_recorded(path, write)?),
            Step::RestoreDir { path, mode } => {
                fs_ops::make_dir_with_mode(&root.resolve_recorded(path, write)?, *mode)
            }
            // The plan emptied the directory (or found it empty): entries there now were
            // added by another process since, and the operation is rolled back for them.
            Step::RemoveDir { path } => {
                fs_ops::remove_dir(&root.resolve_recorded(path, write)?).map_err(|e| {
                    if e.code == Code::InvalidArgument {
                        Error::new(
                            Code::ContentConflict,
                            "another process added entries to the directory while it was being deleted",
                        )
                        .path(path)
                        .retryable(true)
                    } else {
                        e
                    }
                })
            }
            Step::Rename {
                from,
                to,
                from_hash,
                replaces,
            } => {
                let from = root.resolve_recorded(from, write)?;
                let to = root.resolve_recorded(to, write)?;
                if let Some(hash) = from_hash {
                    publish::check_holds(&from, Expect::Hash(*hash), "move it")?;
                }
                if let Some(hash) = replaces {
                    publish::check_holds(&to, Expect::Hash(*hash), "replace it")?;
                }
                fs_ops::rename(&from, &to, replaces.is_some())
            }
        }
    }

    /// The diffs of a plan's items, for its result: made once the change is made (or, for a
    /// dry run, instead of it), outside the lock.
    fn diffs(&self, plan: &Plan) -> (Vec<MutationDiff>, bool) {
        let store = std::cell::OnceCell::new();
        let stored = |id: &ObjectId| {
            store
                .get_or_init(|| self.inner.state(false).ok().flatten().map(|s| s.store()))
                .as_ref()
                .and_then(|store| store.read(id).ok())
        };
        let renamed = plan
            .steps
            .iter()
            .filter_map(|step| match step {
                Step::Rename { from, .. } => Some(from.as_str()),
                _ => None,
            })
            .collect();
        diffs::describe(
            &plan.items,
            &plan.sides,
            &renamed,
            &self.inner.limits,
            &stored,
        )
    }

    /// The result of a committed operation, with every after state observed.
    fn result(
        &self,
        plan: &Plan,
        operation_id: Option<String>,
        warnings: Vec<String>,
    ) -> Result<MutationResult> {
        let mut items = Vec::new();
        for p in &plan.items {
            items.push(MutationItem {
                path: p.item.path.clone(),
                change: p.item.change.clone(),
                kind: p.item.kind.as_str(),
                before_hash: hash_text(p.item.before_hash),
                after_hash: hash_text(p.item.after_hash),
                size_bytes: p.after_size,
            });
        }
        let target = plan.target_item();
        let (diffs, diff_truncated) = self.diffs(plan);
        Ok(MutationResult {
            path: plan.given.clone(),
            changed: plan.changes_anything(),
            before_hash: target.and_then(|i| hash_text(i.before_hash)),
            after_hash: target.and_then(|i| hash_text(i.after_hash)),
            summary: plan.summary.clone(),
            operation_id,
            undo_available: true,
            dry_run: false,
            warnings: [warnings, plan.warnings.clone()].concat(),
            items,
            diffs,
            diff_truncated,
            source_path: plan.source.clone(),
            history_skipped: plan.history_skipped(),
            predicted_after_hash: None,
            would_change: None,
            preview_diff: None,
            extra: plan.extra.clone(),
        })
    }
}

/// What a summary in the past tense ("Wrote notes.md.") says of a change not yet made
/// ("Would write notes.md."). Summaries that state a fact ("... already exists") stay.
fn conditional(summary: &str) -> String {
    const VERBS: &[(&str, &str)] = &[
        ("Wrote", "write"),
        ("Created", "create"),
        ("Replaced", "replace"),
        ("Copied", "copy"),
        ("Moved", "move"),
        ("Deleted", "delete"),
        ("Edited", "edit"),
        ("Applied", "apply"),
        ("Undid", "undo"),
    ];
    let (first, rest) = summary.split_once(' ').unwrap_or((summary, ""));
    match VERBS.iter().find(|(past, _)| *past == first) {
        Some((_, verb)) => format!("Would {verb} {rest}"),
        None => summary.to_owned(),
    }
}

/// A plan reported as a preview: nothing observed after, nothing recorded; `diffs` as a real
/// run would report them.
fn dry_result(plan: Plan, (diffs, diff_truncated): (Vec<MutationDiff>, bool)) -> MutationResult {
    let target = plan.target_item();
    MutationResult {
        path: plan.given.clone(),
        changed: false,
        before_hash: target.and_then(|i| hash_text(i.before_hash)),
        after_hash: None,
        summary: conditional(&plan.summary),
        operation_id: None,
        undo_available: {
            let items: Vec<Item> = plan.items.iter().map(|p| p.item.clone()).collect();
            missing_for_undo(&items, &[]).is_empty()
        },
        dry_run: true,
        warnings: plan.warnings.clone(),
        items: plan
            .items
            .iter()
            .map(|p| MutationItem {
                path: p.item.path.clone(),
                change: p.item.change.clone(),
                kind: p.item.kind.as_str(),
                before_hash: hash_text(p.item.before_hash),
                after_hash: None,
                size_bytes: None,
            })
            .collect(),
        diffs,
        diff_truncated,
        source_path: plan.source.clone(),
        history_skipped: plan.history_skipped(),
        predicted_after_hash: Some(target.and_then(|i| hash_text(i.after_hash))),
        would_change: Some(plan.changes_anything()),
        preview_diff: Some(plan.preview.render()),
        extra: plan.extra.clone(),
    }
}

fn recovery_warnings(recovered: &Recovery) -> Vec<String> {
    let resolved = recovered.resolved.iter().map(|r| match r.status {
        Status::Partial => format!(
            "recovered {} left by an interrupted process as partial: {} path(s) changed ({}); it can be undone",
            r.operation_id,
            r.changed_paths.len(),
            r.changed_paths.join(", ")
        ),
        status => format!(
            "recovered {} left by an interrupted process: {}",
            r.operation_id,
            status.as_str()
        ),
    });
    resolved.chain(recovered.temp_files_warning()).collect()
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod diff_tests;
