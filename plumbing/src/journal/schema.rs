//! The journal's schema and its forward migrations.
//!
//! The schema version is SQLite's `PRAGMA user_version`; `PRAGMA application_id` marks the file
//! as a Filekeeper journal. Migration N takes version N-1 to N inside one transaction. A
//! journal newer than this build, or a database that is not a journal, is refused with
//! MIGRATION_ERROR and left untouched.

use crate::error::{Code, Error, Result};
use rusqlite::Connection;

/// "FKJ1" as a big-endian integer.
pub const APPLICATION_ID: i64 = 0x464B_4A31;

/// Each entry migrates from version `index` to `index + 1`.
const MIGRATIONS: &[&str] = &[
    // Version 1: operations, their per-path items, and the advisory lock table.
    r#"
    CREATE TABLE operations (
        seq          INTEGER PRIMARY KEY AUTOINCREMENT,
        id           TEXT NOT NULL UNIQUE CHECK (id GLOB 'op_[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
        kind         TEXT NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('pending', 'committed', 'rolled_back', 'partial', 'undo_refused')),
        created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        updated_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        actor        TEXT,
        task_id      TEXT,
        summary      TEXT NOT NULL DEFAULT '',
        target_path  TEXT,
        source_path  TEXT,
        undoes       TEXT REFERENCES operations(id),
        under_lock   INTEGER NOT NULL DEFAULT 0 CHECK (under_lock IN (0, 1)),
        metadata     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata))
    );
    CREATE INDEX operations_by_status ON operations(status);
    CREATE INDEX operations_by_target ON operations(target_path, seq);
    CREATE INDEX operations_by_source ON operations(source_path, seq);
    CREATE INDEX operations_by_actor ON operations(actor, seq);
    CREATE INDEX operations_by_task ON operations(task_id, seq);
    CREATE INDEX operations_by_undoes ON operations(undoes);

    CREATE TABLE operation_items (
        op_id            TEXT NOT NULL REFERENCES operations(id),
        ordinal          INTEGER NOT NULL,
        path             TEXT NOT NULL,
        change           TEXT NOT NULL,
        kind             TEXT NOT NULL DEFAULT 'file' CHECK (kind IN ('file', 'directory')),
        before_exists    INTEGER NOT NULL CHECK (before_exists IN (0, 1)),
        after_exists     INTEGER NOT NULL CHECK (after_exists IN (0, 1)),
        before_hash      TEXT,
        after_hash       TEXT,
        before_mode      INTEGER,
        after_mode       INTEGER,
        history_skipped  INTEGER NOT NULL DEFAULT 0 CHECK (history_skipped IN (0, 1)),
        PRIMARY KEY (op_id, ordinal)
    ) WITHOUT ROWID;
    CREATE INDEX operation_items_by_path ON operation_items(path);

    CREATE TABLE locks (
        path         TEXT PRIMARY KEY,
        owner        TEXT NOT NULL,
        op_id        TEXT REFERENCES operations(id),
        acquired_at  TEXT NOT NULL,
        expires_at   TEXT NOT NULL
    );
    "#,
    // Version 2: history retention. A prune marks the operations it cut (`pruned_by`, the
    // prune's row in `prunes`, and `pruned_at`); their rows stay as the audit trail, and the
    // objects only they name become collectable by gc. Columns added to `operations` keep
    // every existing row unpruned (NULL).
    r#"
    CREATE TABLE prunes (
        id          TEXT PRIMARY KEY CHECK (id GLOB 'prune_[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
        created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        actor       TEXT,
        rule        TEXT NOT NULL,
        cut_seq     INTEGER NOT NULL,
        operations  INTEGER NOT NULL
    );
    ALTER TABLE operations ADD COLUMN pruned_at TEXT;
    ALTER TABLE operations ADD COLUMN pruned_by TEXT REFERENCES prunes(id);
    CREATE INDEX operations_by_pruned ON operations(pruned_by);
    "#,
];

/// The version this build writes.
pub const LATEST: i64 = MIGRATIONS.len() as i64;

/// Brings `conn` to [`LATEST`], creating the schema in an empty database.
pub fn migrate(conn: &mut Connection) -> Result<()> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let tables: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
        [],
        |r| r.get(0),
    )?;
    if app != APPLICATION_ID && (app != 0 || version != 0 || tables != 0) {
        return Err(Error::new(
            Code::MigrationError,
            "the journal database was not written by Filekeeper (unknown schema)",
        )
        .with("schema_version", version));
    }
    if version > LATEST {
        return Err(Error::new(
            Code::MigrationError,
            format!(
                "the journal has schema version {version}, newer than this build's {LATEST}; upgrade keeper"
            ),
        )
        .with("schema_version", version)
        .with("supported_version", LATEST));
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql).map_err(|e| {
            let storage = Error::from(e);
            if storage.retryable {
                // A full disk or a busy database is not a fault of the schema: the same
                // request succeeds once there is space, so it is STORAGE_ERROR, retryable.
                storage
            } else {
                Error::new(
                    Code::MigrationError,
                    format!("migrating the journal failed: {}", storage.message),
                )
            }
        })?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)?;
        tx.pragma_update(None, "user_version", index as i64 + 1)?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{FILE_NAME, Journal};
    use super::*;

    /// A journal as a build of schema 1 left it: version 1's tables, with a committed operation
    /// and the undo that reversed it.
    fn schema_1_journal(path: &std::path::Path) {
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        let hash = |c: char| format!("sha256:{}", c.to_string().repeat(64));
        conn.execute_batch(&format!(
            "INSERT INTO operations (id, kind, status, summary, target_path)
                 VALUES ('op_00000000000000a1', 'write', 'committed', 'Wrote a.txt.', 'a.txt');
             INSERT INTO operation_items (op_id, ordinal, path, change, before_exists, after_exists, before_hash, after_hash)
                 VALUES ('op_00000000000000a1', 0, 'a.txt', 'modified', 1, 1, '{a}', '{b}');
             INSERT INTO operations (id, kind, status, summary, target_path, undoes)
                 VALUES ('op_00000000000000a2', 'undo', 'committed', 'Undid it.', 'a.txt', 'op_00000000000000a1');",
            a = hash('a'),
            b = hash('b'),
        ))
        .unwrap();
    }

    #[test]
    fn a_schema_1_journal_is_migrated_to_2_with_every_row_kept_and_unpruned() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        schema_1_journal(&path);
        let journal = Journal::open(&path, false).unwrap().unwrap();
        let version: i64 = journal
            .conn()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, 2);
        let ops = journal.all().unwrap();
        assert_eq!(ops.len(), 2);
        assert!(
            ops.iter()
                .all(|op| op.pruned_at.is_none() && op.pruned_by.is_none())
        );
        assert_eq!(ops[0].items[0].before_hash.unwrap().hex(), "a".repeat(64));
        assert_eq!(ops[1].undoes.as_deref(), Some("op_00000000000000a1"));
        let prunes: i64 = journal
            .conn()
            .query_row("SELECT count(*) FROM prunes", [], |r| r.get(0))
            .unwrap();
        assert_eq!(prunes, 0);
        assert_eq!(journal.integrity_check().unwrap(), Vec::<String>::new());
        let fk: i64 = journal
            .conn()
            .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(fk, 0);
    }

    #[test]
    fn a_pruned_marker_must_name_a_recorded_prune() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        schema_1_journal(&path);
        let journal = Journal::open(&path, false).unwrap().unwrap();
        let err = journal.conn().execute(
            "UPDATE operations SET pruned_by = 'prune_0000000000000000' WHERE seq = 1",
            [],
        );
        assert!(err.is_err(), "a marker naming no prune was accepted");
    }
}
