//! The operation journal: `.filekeeper/journal.sqlite3`.
//!
//! Every mutation is an operation row plus one item row per affected path. A row is written
//! `pending` before the tree is touched and moved to a final status afterwards; SQLite runs in
//! WAL mode with `synchronous=FULL`, so a status change that returned is on disk.
//!
//! This module holds the journal's queries; `record` holds its record types, `json` their
//! JSON form, `connection` the opening and reuse of connections, and `schema` the migrations.

mod connection;
mod json;
mod record;
mod retention;
mod schema;

pub use record::{
    Item, NewOperation, Operation, OperationHead, OperationRecord, PassedOver, Status,
    missing_for_undo, moved_files,
};
pub use retention::{
    Cut, Live, PRUNED, PRUNED_BY, PruneRule, Pruned, Released, SIZE_CHECK_EVERY, is_young,
};
pub use schema::{APPLICATION_ID, LATEST as SCHEMA_VERSION, newer_journal, not_a_journal};

use crate::durable::random_hex16;
use crate::error::{Code, Error, Result};
use crate::oid::ObjectId;
use crate::resolve::{Kind, check_recorded_path};
use connection::Origin;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

/// The journal's file name inside the state directory.
pub const FILE_NAME: &str = "journal.sqlite3";

/// Filters of [`Journal::list`].
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    /// Operations that touched this workspace-relative path (an item, target or source).
    pub path: Option<String>,
    /// Operations recorded with exactly this actor.
    pub actor: Option<String>,
    /// Operations recorded with exactly this task id.
    pub task_id: Option<String>,
    /// The most operations returned; the newest are kept.
    pub limit: u64,
    /// Only operations older than this sequence number: the page after one that ended there.
    pub before_seq: Option<i64>,
}

/// An open journal: one SQLite connection, given back for reuse when the handle is dropped.
pub struct Journal {
    /// Always `Some` until the handle is dropped and the connection goes back to the idle
    /// connections `connection` keeps.
    conn: Option<Connection>,
    origin: Option<Origin>,
    /// Whether the connection was handed out again and so set to checkpoint as a kept one
    /// does (`sqlite::WAL_CHECKPOINT_PAGES_KEPT`): once per connection, not once per use.
    kept: bool,
}

impl Journal {
    /// Records a new pending operation with its items in one transaction; returns its id.
    pub fn begin(&mut self, op: &NewOperation) -> Result<String> {
        self.insert(op, Status::Pending)
    }

    /// Records a refused undo, which changed nothing, in one transaction: written pending
    /// and then marked, a death between the two left a row pending that no recovery
    /// resolves (it names no path, and recovery leaves rows not recorded under the lock to
    /// the script that began them), counted pending and kept from every prune. Returns its id.
    pub fn record_undo_refused(&mut self, op: &NewOperation) -> Result<String> {
        self.insert(op, Status::UndoRefused)
    }

    fn insert(&mut self, op: &NewOperation, status: Status) -> Result<String> {
        if op.kind.trim().is_empty() {
            return Err(Error::invalid("an operation needs a kind"));
        }
        check_label("actor", op.actor.as_deref())?;
        check_label("task id", op.task_id.as_deref())?;
        for item in &op.items {
            check_recorded_path(&item.path)?;
            item.check_shape()?;
        }
        let id = format!("op_{}", random_hex16());
        let tx = self.conn_mut().transaction()?;
        tx.prepare_cached(
            "INSERT INTO operations (id, kind, status, actor, task_id, summary, target_path, source_path, undoes, metadata, under_lock)
             VALUES (?1, ?2, ?11, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
                id,
                op.kind,
                op.actor,
                op.task_id,
                op.summary,
                op.target_path,
                op.source_path,
                op.undoes,
                Value::Object(op.metadata.clone()).to_string(),
            op.under_lock,
            status.as_str(),
        ])
        .map_err(|e| match &e {
            // SQLITE_CONSTRAINT_FOREIGNKEY: the only foreign key of this row is `undoes`.
            rusqlite::Error::SqliteFailure(f, _) if f.extended_code == 787 => {
                operation_not_found(op.undoes.as_deref().unwrap_or_default())
            }
            _ => e.into(),
        })?;
        let seq = tx.last_insert_rowid();
        for (ordinal, item) in op.items.iter().enumerate() {
            tx.prepare_cached(
                "INSERT INTO operation_items (op_id, ordinal, path, change, kind, before_exists, after_exists,
                     before_hash, after_hash, before_mode, after_mode, history_skipped)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?
            .execute(params![
                    id,
                    ordinal as i64,
                    item.path,
                    item.change,
                    item.kind.as_str(),
                    item.before_exists,
                    item.after_exists,
                    item.before_hash.map(|h| h.to_string()),
                    item.after_hash.map(|h| h.to_string()),
                    item.before_mode,
                    item.after_mode,
                item.history_skipped,
            ])?;
            // The object index gc asks (`retention`): each object's newest naming operation.
            for hash in [item.before_hash, item.after_hash].into_iter().flatten() {
                tx.prepare_cached(
                    "INSERT INTO object_refs (hash, last_seq) VALUES (?1, ?2)
                     ON CONFLICT (hash) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)",
                )?
                .execute(params![hash.to_string(), seq])?;
            }
        }
        crate::fault::counted("journal: record operation", || {
            tx.commit().map_err(Error::from)
        })?;
        Ok(id)
    }

    /// Marks the pending operation `id` partial, and records in its metadata
    /// (`unchanged_paths`) the paths that held their before state then, which it did not
    /// change: an undo leaves them alone, whatever a later operation made of them; and
    /// (`done_paths`) those that held their after state, which it did change: an undo of an
    /// operation this one undid in part takes them as done. One statement, so the status is
    /// never partial without them.
    pub fn mark_partial(&mut self, id: &str, unchanged: &[String], done: &[String]) -> Result<()> {
        let paths = serde_json::to_string(unchanged).unwrap_or_else(|_| "[]".into());
        let done = serde_json::to_string(done).unwrap_or_else(|_| "[]".into());
        let changed = crate::fault::counted("journal: set status", || {
            self.conn()
                .prepare_cached(
                    "UPDATE operations SET status = 'partial',
                            metadata = json_set(metadata, '$.unchanged_paths', json(?2),
                                                '$.done_paths', json(?3)),
                            updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
                     WHERE id = ?1 AND status = 'pending'",
                )?
                .execute(params![id, paths, done])
                .map_err(Error::from)
        })?;
        match changed {
            1 => Ok(()),
            _ => self.set_status(id, &[Status::Pending], Status::Partial),
        }
    }

    /// Moves an operation from one of `from` to `to`. The check and the change are one
    /// statement, so of two processes resolving the same operation only one succeeds.
    pub fn set_status(&mut self, id: &str, from: &[Status], to: Status) -> Result<()> {
        let current = self.status(id)?;
        let changed = if from.contains(&current) {
            crate::fault::counted("journal: set status", || {
                self.conn()
                    .prepare_cached(
                        "UPDATE operations SET status = ?2, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
                         WHERE id = ?1 AND status = ?3",
                    )?
                    .execute(params![id, to.as_str(), current.as_str()])
                .map_err(Error::from)
            })?
        } else {
            0
        };
        if changed == 1 {
            return Ok(());
        }
        let now = self.status(id)?;
        Err(Error::invalid(format!(
            "operation {id} is {}, not {}",
            now.as_str(),
            from.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" or ")
        ))
        .with("operation_id", id)
        .with("status", now.as_str()))
    }

    /// Marks a pending operation recorded under the lock as committed, without an fsync: if a
    /// power cut loses this record, the operation is found pending and recovery, seeing every
    /// path at its after state, commits it again. One fsync fewer per mutation.
    pub fn commit_under_lock(&mut self, id: &str) -> Result<()> {
        let conn = self.conn();
        crate::fault::counted("journal: commit operation", || {
            crate::sqlite::relaxed(conn, |conn| {
                let changed = conn
                    .prepare_cached(
                        "UPDATE operations SET status = 'committed', updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
                         WHERE id = ?1 AND status = 'pending' AND under_lock = 1",
                    )?
                    .execute([id])?;
                if changed == 1 {
                    Ok(())
                } else {
                    Err(Error::internal(format!(
                        "operation {id} was not pending under the lock"
                    )))
                }
            })
        })
    }

    fn status(&self, id: &str) -> Result<Status> {
        let text: Option<String> = self
            .conn()
            .prepare_cached("SELECT status FROM operations WHERE id = ?1")?
            .query_row([id], |r| r.get(0))
            .optional()?;
        let text = text.ok_or_else(|| operation_not_found(id))?;
        Status::parse(&text).ok_or_else(|| {
            Error::new(
                Code::StorageError,
                format!("operation {id} has an unknown status {text:?}"),
            )
        })
    }

    /// One operation with its items.
    pub fn get(&self, id: &str) -> Result<Operation> {
        let mut ops = self.query("WHERE id = ?1", [id])?;
        ops.pop().ok_or_else(|| operation_not_found(id))
    }

    /// Every operation still pending, oldest first.
    pub fn pending(&self) -> Result<Vec<Operation>> {
        self.query("WHERE status = 'pending' ORDER BY seq", [])
    }

    /// Whether an operation recorded under the workspace lock is still pending: what a
    /// process holding the lock must recover before it plans a change. One index probe, where
    /// [`Journal::pending`] prepares the full query (a tenth of a small write's instructions).
    pub fn has_pending_under_lock(&self) -> Result<bool> {
        Ok(self
            .conn()
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM operations WHERE status = 'pending' AND under_lock = 1)",
            )?
            .query_row([], |r| r.get(0))?)
    }

    /// Every operation, oldest first.
    pub fn all(&self) -> Result<Vec<Operation>> {
        self.query("ORDER BY seq", [])
    }

    /// Operations newest first, filtered, at most `limit`. Each filter uses an index, and the
    /// scan stops after `limit` rows, so the cost does not grow with the journal.
    pub fn list(&self, filter: &ListFilter) -> Result<Vec<Operation>> {
        let mut clauses = Vec::new();
        let mut args: Vec<&dyn rusqlite::ToSql> = Vec::new();
        if let Some(path) = &filter.path {
            // A union of three index lookups: an OR across them would scan the whole table.
            clauses.push(
                "seq IN (SELECT o.seq FROM operation_items i JOIN operations o ON o.id = i.op_id WHERE i.path = ?
                         UNION SELECT seq FROM operations WHERE target_path = ?
                         UNION SELECT seq FROM operations WHERE source_path = ?)",
            );
            args.extend([path as &dyn rusqlite::ToSql, path, path]);
        }
        if let Some(actor) = &filter.actor {
            clauses.push("actor = ?");
            args.push(actor);
        }
        if let Some(task) = &filter.task_id {
            clauses.push("task_id = ?");
            args.push(task);
        }
        if let Some(before) = &filter.before_seq {
            clauses.push("seq < ?");
            args.push(before);
        }
        let filter_sql = if clauses.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", clauses.join(" AND "))
        };
        let limit = filter.limit as i64;
        args.push(&limit);
        self.query(
            &format!("{filter_sql} ORDER BY seq DESC LIMIT ?"),
            rusqlite::params_from_iter(args),
        )
    }

    /// The newest undo of `id` that was committed: the operation is undone, and is not
    /// undoable again (undoing that undo goes forward). An undo recorded partial (interrupted,
    /// or rolled back only in part) leaves the operation undoable, so that undoing it again
    /// finishes the job; [`Journal::undone_by`] names it still.
    pub fn fully_undone_by(&self, id: &str) -> Result<Option<String>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id FROM operations WHERE undoes = ?1 AND kind = 'undo'
                 AND status = 'committed' ORDER BY seq DESC LIMIT 1",
                [id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The undos of `id` recorded partial (interrupted, or rolled back in part), oldest first,
    /// with their items.
    pub fn partial_undos(&self, id: &str) -> Result<Vec<Operation>> {
        let ids = self
            .conn()
            .prepare_cached(
                "SELECT id FROM operations WHERE undoes = ?1 AND kind = 'undo'
                 AND status = 'partial' ORDER BY seq",
            )?
            .query_map([id], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        ids.iter().map(|undo| self.get(undo)).collect()
    }

    /// The undo that reversed `id`, if one did (committed or partial).
    pub fn undone_by(&self, id: &str) -> Result<Option<String>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT id FROM operations WHERE undoes = ?1 AND kind = 'undo'
                 AND status IN ('committed', 'partial') ORDER BY seq DESC LIMIT 1",
                [id],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The newest operation `undo-last` would undo: committed or partial, not an undo itself,
    /// not already undone, with every content its undo needs ([`missing_for_undo`]),
    /// optionally by one actor.
    pub fn latest_undoable(&self, actor: Option<&str>) -> Result<Option<Operation>> {
        Ok(self.latest_undoable_passing(actor)?.0)
    }

    /// [`Journal::latest_undoable`], and the newer operations it passed over because their
    /// history was skipped (some item's bytes were above the history cap, and it was not
    /// a move, which an undo renames back: [`missing_for_undo`]), newest first.
    pub fn latest_undoable_passing(
        &self,
        actor: Option<&str>,
    ) -> Result<(Option<Operation>, Vec<PassedOver>)> {
        let actor_clause = if actor.is_some() {
            "AND o.actor = ?1"
        } else {
            "AND ?1 IS NULL"
        };
        // `+o.status`: walked newest first by sequence number, stopping at the first undoable
        // operation, rather than every committed one read through the status index and sorted.
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT o.id, o.summary,
                    EXISTS (SELECT 1 FROM operation_items i
                            WHERE i.op_id = o.id AND i.history_skipped = 1)
             FROM operations o
             WHERE +o.status IN ('committed', 'partial') AND o.kind != 'undo' {actor_clause}
               AND NOT {PRUNED}
               AND NOT EXISTS (SELECT 1 FROM operations u WHERE u.undoes = o.id
                               AND u.kind = 'undo' AND u.status = 'committed')
             ORDER BY o.seq DESC"
        ))?;
        let mut rows = stmt.query([actor])?;
        let mut passed = Vec::new();
        while let Some(row) = rows.next()? {
            let (id, summary, skipped): (String, String, bool) =
                (row.get(0)?, row.get(1)?, row.get(2)?);
            // A skipped file may be one end of a move, which an undo renames back.
            let op = self.get(&id)?;
            if !skipped || op.missing_for_undo().is_empty() {
                return Ok((Some(op), passed));
            }
            passed.push(PassedOver {
                operation_id: id,
                summary,
                reason: "history_skipped",
            });
        }
        Ok((None, passed))
    }

    fn query<P: rusqlite::Params>(&self, filter: &str, args: P) -> Result<Vec<Operation>> {
        let sql = format!(
            "SELECT seq, id, kind, status, created_at, updated_at, actor, task_id, summary,
                    target_path, source_path, undoes, metadata, under_lock,
                    {PRUNED_BY}
             FROM operations o {filter}"
        );
        let mut stmt = self.conn().prepare_cached(&sql)?;
        let rows = stmt.query_map(args, |r| {
            let status: String = r.get(3)?;
            let status = Status::parse(&status).ok_or_else(|| {
                rusqlite::Error::FromSqlConversionFailure(
                    3,
                    rusqlite::types::Type::Text,
                    format!("unknown operation status {status:?}").into(),
                )
            })?;
            Ok(Operation {
                seq: r.get(0)?,
                id: r.get(1)?,
                kind: r.get(2)?,
                status,
                created_at: r.get(4)?,
                updated_at: r.get(5)?,
                actor: r.get(6)?,
                task_id: r.get(7)?,
                summary: r.get(8)?,
                target_path: r.get(9)?,
                source_path: r.get(10)?,
                undoes: r.get(11)?,
                metadata: serde_json::from_str(&r.get::<_, String>(12)?).unwrap_or(Value::Null),
                under_lock: r.get(13)?,
                items: Vec::new(),
                pruned_at: None,
                pruned_by: r.get(14)?,
            })
        })?;
        let mut ops = Vec::new();
        for row in rows {
            let mut op = row?;
            op.items = self.items(&op.id)?;
            ops.push(op);
        }
        // When each prune pruned, read once (`PRUNED_BY` is asked once per operation, for the
        // prune, and the time is that prune's), and after the operations: a prune committed
        // between the two reads is then in the map too, where read first it was missing, and
        // the operation it pruned came out pruned at no time. Prunes are never deleted.
        let pruned_at: std::collections::HashMap<String, String> = self
            .conn()
            .prepare_cached("SELECT id, coalesce(pruned_at, created_at) FROM prunes")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for op in &mut ops {
            op.pruned_at = op
                .pruned_by
                .as_ref()
                .and_then(|prune| pruned_at.get(prune).cloned());
        }
        Ok(ops)
    }

    fn items(&self, id: &str) -> Result<Vec<Item>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT path, change, kind, before_exists, after_exists, before_hash, after_hash,
                    before_mode, after_mode, history_skipped
             FROM operation_items WHERE op_id = ?1 ORDER BY ordinal",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, bool>(3)?,
                r.get::<_, bool>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, Option<String>>(6)?,
                r.get::<_, Option<u32>>(7)?,
                r.get::<_, Option<u32>>(8)?,
                r.get::<_, bool>(9)?,
            ))
        })?;
        let mut items = Vec::new();
        for row in rows {
            let (
                path,
                change,
                kind,
                before_exists,
                after_exists,
                before,
                after,
                before_mode,
                after_mode,
                history_skipped,
            ) = row?;
            let hash = |h: Option<String>| -> Result<Option<ObjectId>> {
                h.map(|h| ObjectId::parse(&h)).transpose().map_err(|_| {
                    Error::new(
                        Code::StorageError,
                        format!("operation {id} records a malformed hash"),
                    )
                })
            };
            items.push(Item {
                path,
                change,
                kind: if kind == "directory" {
                    Kind::Directory
                } else {
                    Kind::File
                },
                before_exists,
                after_exists,
                before_hash: hash(before)?,
                after_hash: hash(after)?,
                before_mode,
                after_mode,
                history_skipped,
            });
        }
        Ok(items)
    }

    /// SQLite's own structural check of the database file; `ok` when sound.
    pub fn integrity_check(&self) -> Result<Vec<String>> {
        let mut stmt = self.conn().prepare("PRAGMA integrity_check")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let lines: rusqlite::Result<Vec<String>> = rows.collect();
        Ok(lines?.into_iter().filter(|l| l != "ok").collect())
    }
}

/// The one OPERATION_NOT_FOUND every command reports.
pub fn operation_not_found(id: &str) -> Error {
    Error::new(
        Code::OperationNotFound,
        match id {
            "" => "no operation has an empty id".to_owned(),
            id => format!("no operation {id} in this workspace's journal"),
        },
    )
    .with("operation_id", id)
    .recovery("check the operation id and the selected workspace; ids are per workspace")
}

/// An actor or task id is recorded as text and shown by `sqlite3` and in history listings,
/// where a NUL byte would cut it short: refused, as in a path.
pub fn check_label(what: &str, value: Option<&str>) -> Result<()> {
    match value {
        Some(v) if v.contains('\0') => {
            Err(Error::invalid(format!("the {what} contains a NUL byte")))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn journal() -> (tempfile::TempDir, Journal) {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::open(&dir.path().join(FILE_NAME), true)
            .unwrap()
            .unwrap();
        (dir, j)
    }

    fn write_op() -> NewOperation {
        NewOperation {
            kind: "write".into(),
            summary: "Wrote a.txt.".into(),
            target_path: Some("a.txt".into()),
            items: vec![
                Item::from_json(&json!({
                    "path": "a.txt",
                    "before_hash": ObjectId::of(b"old").to_string(),
                    "after_hash": ObjectId::of(b"new").to_string(),
                    "before_mode": 0o644,
                    "after_mode": 0o644,
                }))
                .unwrap(),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn missing_journal_is_not_created_by_a_reader() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        assert!(Journal::open(&path, false).unwrap().is_none());
        assert!(!path.exists());
    }

    #[test]
    fn begin_commit_and_read_back() {
        let (_dir, mut j) = journal();
        let id = j.begin(&write_op()).unwrap();
        assert!(id.starts_with("op_") && id.len() == 19);
        let op = j.get(&id).unwrap();
        assert_eq!(op.status, Status::Pending);
        assert_eq!(op.items.len(), 1);
        assert_eq!(op.items[0].change, "modified");
        assert_eq!(op.items[0].before_mode, Some(0o644));
        j.set_status(&id, &[Status::Pending], Status::Committed)
            .unwrap();
        assert_eq!(j.get(&id).unwrap().status, Status::Committed);
        assert!(j.pending().unwrap().is_empty());
        let again = j
            .set_status(&id, &[Status::Pending], Status::Committed)
            .unwrap_err();
        assert_eq!(again.code, Code::InvalidArgument);
    }

    #[test]
    fn sequence_is_monotonic() {
        let (_dir, mut j) = journal();
        let a = j.begin(&write_op()).unwrap();
        let b = j.begin(&write_op()).unwrap();
        assert!(j.get(&a).unwrap().seq < j.get(&b).unwrap().seq);
    }

    /// gc trusts `object_refs` for what keeper records: each object an item names, with the
    /// newest operation naming it, written in the same transaction as the item.
    #[test]
    fn begin_records_each_object_with_its_newest_naming_operation() {
        let (_dir, mut j) = journal();
        let first = j.begin(&write_op()).unwrap();
        let mut next = write_op();
        next.items[0].before_hash = Some(ObjectId::of(b"new"));
        next.items[0].after_hash = None;
        next.items[0].after_exists = false;
        next.items[0].change = "deleted".into();
        let second = j.begin(&next).unwrap();
        let seq = |id: &str| j.get(id).unwrap().seq;
        let refs: Vec<(String, i64)> = j
            .conn()
            .prepare("SELECT hash, last_seq FROM object_refs ORDER BY last_seq, hash")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            refs,
            [
                (ObjectId::of(b"old").to_string(), seq(&first)),
                (ObjectId::of(b"new").to_string(), seq(&second)),
            ]
        );
    }

    #[test]
    fn unknown_operation_is_operation_not_found() {
        let (_dir, j) = journal();
        assert_eq!(
            j.get("op_0000000000000000").unwrap_err().code,
            Code::OperationNotFound
        );
    }

    #[test]
    fn items_with_bad_paths_are_refused() {
        let (_dir, mut j) = journal();
        for (path, code) in [
            ("../x", Code::PathOutsideWorkspace),
            ("/etc/passwd", Code::InvalidArgument),
            (".filekeeper/journal.sqlite3", Code::PathIsStatePath),
        ] {
            let mut op = write_op();
            op.items[0].path = path.into();
            assert_eq!(j.begin(&op).unwrap_err().code, code, "{path}");
        }
        assert!(j.all().unwrap().is_empty());
    }

    #[test]
    fn a_newer_schema_is_a_migration_error_and_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        drop(Journal::open(&path, true).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        drop(conn);
        let err = Journal::open(&path, false).err().unwrap();
        assert_eq!(err.code, Code::MigrationError);
        let conn = Connection::open(&path).unwrap();
        let v: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION + 1);
    }

    #[test]
    fn a_foreign_database_is_a_migration_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (x)").unwrap();
        drop(conn);
        assert_eq!(
            Journal::open(&path, false).err().unwrap().code,
            Code::MigrationError
        );
    }

    #[test]
    fn durability_pragmas_are_set() {
        let (_dir, j) = journal();
        let sync: i64 = j
            .conn()
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap();
        let mode: String = j
            .conn()
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 2, "synchronous=FULL");
        assert_eq!(mode, "wal");
    }
}
