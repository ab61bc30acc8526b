//! The plumbing subcommands, one function each, returning the fields of their JSON result.
//!
//! They are small and composable on purpose: a shell script can perform a fully journaled
//! write with `hash-object -w`, `journal-begin`, `publish` and `journal-commit` alone. The
//! porcelain follows the same order (blobs, pending record, changes, verification, commit) but
//! not through these functions: it holds the workspace lock for the whole mutation and calls
//! [`Journal::begin`], [`publish::stage`] and [`Journal::commit_under_lock`] itself, so that
//! storing, recording and staging can overlap and the commit needs no fsync of its own.

use crate::error::{Code, Error, Result};
use crate::journal::{Item, Journal, NewOperation, OperationRecord, Status};
use crate::odb::{Entry, ObjectStore};
use crate::oid::ObjectId;
use crate::path_state::{Side, mismatched_paths};
use crate::publish::{self, Expect};
use crate::resolve::{Intent, Kind};
use crate::workspace::{State, Workspace};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::io::{Read, Write};

/// The fields of a JSON result, in order.
pub type Fields = Map<String, Value>;

/// The fields `value` serializes to (a struct's, in declaration order).
pub fn fields_of(value: impl Serialize) -> Fields {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// The state's notices (a fallback to the home, a `.gitignore` edit), which every command
/// that opened the state reports as `warnings`.
fn notices(state: Option<&State>) -> Vec<String> {
    state.map(|s| s.notices.clone()).unwrap_or_default()
}

/// What `hash-object` prints.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HashedObject {
    /// `sha256:` and 64 hex digits.
    pub object_id: String,
    /// Bytes hashed.
    pub size: u64,
    /// Whether the blob was stored (`-w`).
    pub written: bool,
    /// The workspace path hashed, as given; null for standard input.
    pub path: Option<String>,
    /// Notices about the workspace's state: that it is kept under the Filekeeper home, or
    /// that `.filekeeper/` was just added to `.gitignore`. Empty when nothing was stored.
    pub warnings: Vec<String>,
}

/// What `cat-blob` reports beside the bytes.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CatBlob {
    /// The blob's id, normalised: `sha256:` and 64 lowercase hex digits.
    pub object_id: String,
    /// Bytes written out: the blob's uncompressed length.
    pub size: u64,
    /// Notices about the workspace's state: that it is kept under the Filekeeper home, or
    /// that `.filekeeper/` was just added to `.gitignore`.
    pub warnings: Vec<String>,
}

/// What `resolve-path` prints.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ResolvedPath {
    /// The path as given.
    pub path: String,
    /// The workspace-relative path it lands on after following links inside the root (`.`
    /// for the root).
    pub resolved: String,
    /// Whether anything is at the resolved path now.
    pub exists: bool,
    /// What is there; null when nothing is.
    pub kind: Option<Kind>,
    /// Whether the path was resolved as a write target (`--for-write`): a final symbolic link
    /// is then refused rather than followed, and so is a credential-shaped name unless allowed.
    pub for_write: bool,
}

/// What `journal-begin` prints.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct JournalBegun {
    /// The new operation's id (`op_` and 16 lowercase hex digits), for `journal-commit` or
    /// `journal-abort`.
    pub operation_id: String,
    /// Always `pending`.
    pub status: Status,
    /// Notices about the workspace's state: that it is kept under the Filekeeper home, or
    /// that `.filekeeper/` was just added to `.gitignore`.
    pub warnings: Vec<String>,
}

/// What `journal-commit`, `journal-abort` and `journal-show` print.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct JournalEntry {
    /// The operation as the journal records it now, with its items.
    pub operation: OperationRecord,
    /// Notices about the workspace's state: that it is kept under the Filekeeper home, or
    /// that `.filekeeper/` was just added to `.gitignore`.
    pub warnings: Vec<String>,
}

/// What `publish` prints.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Published {
    /// The path as given.
    pub path: String,
    /// The workspace-relative path written.
    pub resolved: String,
    /// The content replaced; null when the file did not exist.
    pub before_hash: Option<String>,
    /// The object id of the content the file holds now.
    pub after_hash: String,
    /// The file's permission bits now, as a plain integer (0644 is 420).
    pub mode: u32,
    /// The new content's length in bytes.
    pub size: u64,
    /// Notices about the workspace's state: that it is kept under the Filekeeper home, or
    /// that `.filekeeper/` was just added to `.gitignore`.
    pub warnings: Vec<String>,
}

/// A journal reference to an object the store does not hold.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct MissingObject {
    /// The operation whose item names the object.
    pub operation_id: String,
    /// The item's workspace-relative path.
    pub path: String,
    /// The id of the object the store lacks.
    pub object_id: String,
}

/// What `fsck` verified: its result, and on damage the details of its STORAGE_ERROR.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FsckReport {
    /// Objects in the store, each verified against its id.
    pub objects: u64,
    /// Operations in the journal.
    pub operations: u64,
    /// Objects whose bytes no longer hash to their id.
    pub damaged_objects: Vec<String>,
    /// Journal references to objects the store does not hold. Items whose history was skipped
    /// are not checked, nor after contents an operation may lack (rolled back, or still
    /// pending under the lock).
    pub missing_objects: Vec<MissingObject>,
    /// Files in the object store that are not objects.
    pub unknown_files: Vec<String>,
    /// Leftovers of interrupted writes: harmless, not damage.
    pub temporary_files: Vec<String>,
    /// SQLite's integrity check findings (empty when the journal is sound).
    pub journal_problems: Vec<String>,
    /// Operations still pending (`keeper recover` resolves a dead process's).
    pub pending_operations: Vec<String>,
}

/// What `fsck` prints.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Fsck {
    /// What was verified; its fields sit directly in the document.
    #[serde(flatten)]
    pub report: FsckReport,
    /// Notices about the workspace's state: that it has none yet, that it is kept under the
    /// Filekeeper home, or that `.filekeeper/` was just added to `.gitignore`.
    pub warnings: Vec<String>,
}

/// One operation `recover` resolved.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RecoveredOperation {
    /// The id of the operation resolved.
    pub operation_id: String,
    /// What it was resolved as: `committed`, `rolled_back` or `partial`.
    pub status: Status,
    /// The paths that no longer hold their before state: those the interrupted operation
    /// changed (or another process did).
    pub changed_paths: Vec<String>,
}

/// What `recover` prints.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Recovered {
    /// The operations resolved, oldest first; empty when none was left pending under the
    /// lock.
    pub resolved: Vec<RecoveredOperation>,
    /// Notices about the workspace's state: that it is kept under the Filekeeper home, or
    /// that `.filekeeper/` was just added to `.gitignore`.
    pub warnings: Vec<String>,
}

/// Where `hash-object` reads from.
pub enum HashSource<'a> {
    /// A reader consumed to its end, such as standard input.
    Stdin(&'a mut dyn Read),
    /// A workspace path, resolved like every other path.
    Path(&'a str),
}

/// `hash-object [-w]`: the id of some bytes, optionally stored.
pub fn hash_object(
    ws: Option<&Workspace>,
    source: HashSource<'_>,
    write: bool,
) -> Result<HashedObject> {
    let mut opened;
    let (reader, path): (&mut dyn Read, Option<&str>) = match source {
        HashSource::Stdin(reader) => (reader, None),
        HashSource::Path(path) => {
            let ws = ws.ok_or_else(|| {
                Error::new(
                    Code::NoWorkspaceSelected,
                    "hashing a path needs a workspace",
                )
            })?;
            opened = ws.root.resolve(path, Intent::Read)?.open_file()?;
            (&mut opened, Some(path))
        }
    };
    let (id, size, state) = if write {
        let ws = ws.ok_or_else(|| {
            Error::new(
                Code::NoWorkspaceSelected,
                "storing a blob needs a workspace",
            )
        })?;
        let state = ws
            .state(true)?
            .ok_or_else(|| Error::internal("state was not created"))?;
        let (id, size) = state.store().write_stream(reader)?;
        (id, size, Some(state))
    } else {
        let (id, size) =
            ObjectId::of_reader(reader).map_err(|e| Error::storage("reading input", &e))?;
        (id, size, None)
    };
    Ok(HashedObject {
        object_id: id.to_string(),
        size,
        written: write,
        path: path.map(str::to_owned),
        warnings: notices(state.as_ref()),
    })
}

/// `cat-blob ID`: writes a verified blob's bytes to `out`; returns its id, size and notices.
pub fn cat_blob(ws: &Workspace, id: &str, out: &mut dyn Write) -> Result<CatBlob> {
    let id = ObjectId::parse(id)?;
    let state = ws
        .state(false)?
        .ok_or_else(|| crate::odb::not_stored(&id))?;
    let size = state.store().copy_to(&id, &mut WriteRef(out))?;
    Ok(CatBlob {
        object_id: id.to_string(),
        size,
        warnings: notices(Some(&state)),
    })
}

struct WriteRef<'a>(&'a mut dyn Write);

impl Write for WriteRef<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// `resolve-path PATH [--for-write]`: where a path lands, or why it is refused.
pub fn resolve_path(
    ws: &Workspace,
    path: &str,
    for_write: bool,
    allow_sensitive: bool,
) -> Result<ResolvedPath> {
    let intent = if for_write {
        Intent::Write { allow_sensitive }
    } else {
        Intent::Read
    };
    let resolved = ws.root.resolve(path, intent)?;
    Ok(ResolvedPath {
        path: path.to_owned(),
        exists: resolved.kind.is_some(),
        kind: resolved.kind,
        resolved: resolved.rel,
        for_write,
    })
}

/// `journal-begin`: records a pending operation after checking that every item's path is
/// confined and every blob it names is already stored (blobs come first, always).
pub fn journal_begin(
    ws: &Workspace,
    mut op: NewOperation,
    allow_sensitive: bool,
) -> Result<JournalBegun> {
    if op.items.is_empty() {
        return Err(Error::invalid("an operation needs at least one item"));
    }
    // Everything is checked before any state is created: a refused request leaves no trace.
    let existing = ws.state(false)?;
    let store = existing.as_ref().map(State::store);
    for item in &mut op.items {
        let given = item.path.clone();
        let resolved = ws.root.resolve(&given, Intent::Write { allow_sensitive })?;
        item.path = resolved.rel;
        item.check_shape()
            .and_then(|()| check_blobs(store.as_ref(), item))
            .map_err(|e| e.path(&given))?;
    }
    // One item a path: two would give the path two before states, and an undo could restore
    // only one of them (`a` and `./a` are the same path once resolved).
    let mut seen = std::collections::HashMap::new();
    for (n, item) in op.items.iter().enumerate() {
        if let Some(first) = seen.insert(item.path.as_str(), n) {
            return Err(Error::invalid(format!(
                "items {} and {} both name {}: an operation records each path once",
                first + 1,
                n + 1,
                item.path
            ))
            .path(&item.path));
        }
    }
    for path in [&op.target_path, &op.source_path].into_iter().flatten() {
        crate::resolve::check_recorded_path(path)?;
    }
    if op.target_path.is_none() {
        op.target_path = op.items.first().map(|i| i.path.clone());
    }
    // Under the lock (which creates the state when this is the first record), so no recovery
    // takes this operation for a dead process's.
    let (state, _lock) = ws.lock()?;
    // Checked again under the lock, which gc holds while it removes objects: a blob found
    // above may have been collected since (stored long ago, named by nothing), and an
    // operation must never be recorded naming a blob that is not there.
    let store = state.store();
    for item in &op.items {
        check_blobs(Some(&store), item)?;
    }
    let id = state.journal()?.begin(&op)?;
    Ok(JournalBegun {
        operation_id: id,
        status: Status::Pending,
        warnings: notices(Some(&state)),
    })
}

fn check_blobs(store: Option<&ObjectStore>, item: &Item) -> Result<()> {
    if item.kind == Kind::Directory {
        return Ok(());
    }
    for (side, exists, hash) in [
        ("before", item.before_exists, item.before_hash),
        ("after", item.after_exists, item.after_hash),
    ] {
        match (exists, hash) {
            (true, None) if !item.history_skipped => {
                return Err(Error::invalid(format!(
                    "item {} exists {side} but names no {side}_hash",
                    item.path
                ))
                .path(&item.path));
            }
            (true, Some(id))
                if !item.history_skipped && !store.is_some_and(|s| s.contains(&id)) =>
            {
                return Err(Error::invalid(format!(
                    "the {side} blob {id} of {} is not stored; write it with `keeper hash-object -w` first",
                    item.path
                ))
                .path(&item.path));
            }
            (false, Some(_)) => {
                return Err(Error::invalid(format!(
                    "item {} does not exist {side} but names a {side}_hash",
                    item.path
                ))
                .path(&item.path));
            }
            _ => {}
        }
    }
    Ok(())
}

fn journal_of(ws: &Workspace, id: &str) -> Result<(State, Journal)> {
    let state = ws.state(false)?.ok_or_else(|| not_found(id))?;
    let journal = state.existing_journal()?.ok_or_else(|| not_found(id))?;
    Ok((state, journal))
}

fn not_found(id: &str) -> Error {
    crate::journal::operation_not_found(id)
}

/// `journal-commit OP`: marks a pending operation committed once every path verifiably holds
/// its recorded after state.
pub fn journal_commit(ws: &Workspace, id: &str) -> Result<JournalEntry> {
    finish(ws, id, Side::After)
}

/// `journal-abort OP`: marks a pending operation rolled back once every path verifiably holds
/// its recorded before state.
pub fn journal_abort(ws: &Workspace, id: &str) -> Result<JournalEntry> {
    finish(ws, id, Side::Before)
}

/// Moves a pending operation to the status that `side` being in place means: committed for
/// its after state, rolled back for its before state.
fn finish(ws: &Workspace, id: &str, side: Side) -> Result<JournalEntry> {
    let (state, mut journal) = journal_of(ws, id)?;
    let (_, _lock) = ws.lock()?;
    let op = journal.get(id)?;
    if op.status != Status::Pending {
        return Err(Error::invalid(format!(
            "operation {id} is {}, not pending",
            op.status.as_str()
        ))
        .with("operation_id", id)
        .with("status", op.status.as_str()));
    }
    let bad = mismatched_paths(ws, &op.items, side)?;
    if !bad.is_empty() {
        return Err(Error::new(
            Code::ContentConflict,
            format!("{} path(s) do not hold the operation's recorded {} state", bad.len(), side.as_str()),
        )
        .with("operation_id", id)
        .with("paths", json!(bad))
        .recovery("the operation stays pending; bring the paths to the recorded state, or resolve it the other way"));
    }
    let to = match side {
        Side::After => Status::Committed,
        Side::Before => Status::RolledBack,
    };
    journal.set_status(id, &[Status::Pending], to)?;
    Ok(JournalEntry {
        operation: journal.get(id)?.record(),
        warnings: notices(Some(&state)),
    })
}

/// `journal-show OP`.
pub fn journal_show(ws: &Workspace, id: &str) -> Result<JournalEntry> {
    let (state, journal) = journal_of(ws, id)?;
    Ok(JournalEntry {
        operation: journal.get(id)?.record(),
        warnings: notices(Some(&state)),
    })
}

/// `publish PATH --blob ID`: atomically replaces a workspace file with a stored blob.
pub fn publish_blob(
    ws: &Workspace,
    path: &str,
    blob: &str,
    expect: Expect,
    mode: Option<u32>,
    allow_sensitive: bool,
) -> Result<Published> {
    let blob = ObjectId::parse(blob)?;
    let intent = Intent::Write { allow_sensitive };
    // Resolved once to refuse a bad path before anything is opened or locked, and again
    // below once the lock is held: another keeper may move the directories on the way while
    // this one waits for the lock.
    let checked = ws.root.resolve(path, intent)?;
    publish::refuse_temp_name(&checked.rel).map_err(|e| e.path(path))?;
    let state = ws.state(false)?;
    let store = state
        .as_ref()
        .map(State::store)
        .filter(|store| store.contains(&blob))
        .ok_or_else(|| crate::odb::not_stored(&blob))
        .and_then(|store| store.verify(&blob).map(|_| store))
        .map_err(|e| e.path(path))?;
    crate::fault::crash_point("publish-waiting-for-lock");
    // Every publication holds the lock, so a temp file found while holding it is a leftover.
    let (_, _lock) = ws.lock()?;
    let target = ws.root.resolve(path, intent)?;
    let published = publish::publish(&target, expect, mode, Some(blob), |out| {
        store.copy_to(&blob, &mut WriteRef(out)).map(|_| ())
    })?;
    Ok(Published {
        path: path.to_owned(),
        resolved: target.rel,
        before_hash: published.before_hash.map(|h| h.to_string()),
        after_hash: published.after_hash.to_string(),
        mode: published.after_mode,
        size: published.size,
        warnings: notices(state.as_ref()),
    })
}

/// `fsck`: verifies every object and every journal reference. Damage is an error listing it.
pub fn fsck(ws: &Workspace) -> Result<Fsck> {
    let Some(state) = ws.state(false)? else {
        return Ok(Fsck {
            report: FsckReport {
                objects: 0,
                operations: 0,
                damaged_objects: Vec::new(),
                missing_objects: Vec::new(),
                unknown_files: Vec::new(),
                temporary_files: Vec::new(),
                journal_problems: Vec::new(),
                pending_operations: Vec::new(),
            },
            warnings: vec!["this workspace has no Filekeeper state yet".into()],
        });
    };
    // Under the workspace lock: a gc or prune running beside it removes objects between the
    // listing and the check, which would read as damage (a file that vanished fails to
    // verify) or as missing objects of operations it pruned meanwhile. Reads that store a
    // snapshot take no lock, but their objects are whole before they are named. A user who
    // may only read the state checks without it.
    let _lock = crate::lock::lock_state_to_read(&state)?;
    let store = state.store();
    let mut damaged = Vec::new();
    let mut strays = Vec::new();
    let mut temporary = Vec::new();
    let mut objects = 0u64;
    let entries = store.scan()?;
    let mut progress = crate::progress::Task::new("verifying objects", Some(entries.len() as u64));
    for entry in entries {
        progress.step(1);
        match entry {
            Entry::Object(id, _) => {
                objects += 1;
                if store.verify(&id).is_err() {
                    damaged.push(id.to_string());
                }
            }
            // An interrupted write leaves its temp file behind: harmless, reported, not damage.
            Entry::Stray(name)
                if name
                    .rsplit('/')
                    .next()
                    .is_some_and(|n| n.starts_with(crate::odb::TEMP_PREFIX)) =>
            {
                temporary.push(name)
            }
            Entry::Stray(name) => strays.push(name),
        }
    }
    let mut missing = Vec::new();
    let mut journal_problems = Vec::new();
    let mut pending = Vec::new();
    let mut operations = 0u64;
    if let Some(journal) = state.existing_journal()? {
        journal_problems = journal.integrity_check()?;
        for op in journal.all()? {
            operations += 1;
            if op.status == Status::Pending {
                pending.push(op.id.clone());
            }
            if op.pruned_by.is_some() {
                // A pruned operation's objects are gc's to remove: none is missing.
                continue;
            }
            let after_required = op.after_blobs_required();
            for item in op.items.iter().filter(|i| !i.history_skipped) {
                let after = item.after_hash.filter(|_| after_required);
                for id in [item.before_hash, after].into_iter().flatten() {
                    if !store.contains(&id) {
                        missing.push(MissingObject {
                            operation_id: op.id.clone(),
                            path: item.path.clone(),
                            object_id: id.to_string(),
                        });
                    }
                }
            }
        }
    }
    let report = FsckReport {
        objects,
        operations,
        damaged_objects: damaged,
        missing_objects: missing,
        unknown_files: strays,
        temporary_files: temporary,
        journal_problems,
        pending_operations: pending,
    };
    if report.damaged_objects.is_empty()
        && report.missing_objects.is_empty()
        && report.unknown_files.is_empty()
        && report.journal_problems.is_empty()
    {
        return Ok(Fsck {
            report,
            warnings: notices(Some(&state)),
        });
    }
    let mut err = Error::new(
        Code::StorageError,
        "fsck found damage in the Filekeeper state",
    );
    err.details = fields_of(&report);
    Err(err.recovery(
        "damaged or missing objects cannot be rebuilt from the store; remove a damaged file and store the original bytes again with `keeper hash-object -w`, or accept that undo of the operations naming them is unavailable",
    ))
}

/// `recover`: resolves every pending operation a dead process left (see [`crate::recover`]).
/// An operation that could only be resolved as partial is reported as PARTIAL_RECOVERY, after
/// the journal has recorded it so.
pub fn recover(ws: &Workspace) -> Result<Recovered> {
    let Some(_) = ws.state(false)? else {
        return Ok(Recovered {
            resolved: Vec::new(),
            warnings: Vec::new(),
        });
    };
    let (state, lock) = ws.lock()?;
    let mut journal = state.journal()?;
    let recovery = crate::recover::recover(ws, &mut journal, &lock)?;
    let list: Vec<RecoveredOperation> = recovery
        .resolved
        .iter()
        .map(|r| RecoveredOperation {
            operation_id: r.operation_id.clone(),
            status: r.status,
            changed_paths: r.changed_paths.clone(),
        })
        .collect();
    let partial = list.iter().filter(|r| r.status == Status::Partial).count();
    if partial > 0 {
        let mut err = Error::new(
            Code::PartialRecovery,
            format!(
                "{partial} interrupted operation(s) were left partly applied; recorded as partial"
            ),
        )
        .with("resolved", serde_json::to_value(&list).unwrap_or_default());
        if !recovery.removed_temp_files.is_empty() {
            err = err.with("removed_temp_files", recovery.removed_temp_files.clone());
        }
        return Err(err
            .recovery("inspect them with `keeper journal-show`; each can be undone path by path"));
    }
    let mut warnings = notices(Some(&state));
    warnings.extend(recovery.temp_files_warning());
    Ok(Recovered {
        resolved: list,
        warnings,
    })
}
