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
    // Version 3: a prune is a cut, not a mark on every row. Marking half a million rows took
    // a second, and gc then rebuilt the set of objects every unpruned operation names; now a
    // prune writes one row in `prunes` (the range of sequence numbers it cut, `first_seq` to
    // `cut_seq`) and one row in `prune_exceptions` per operation of that range it kept
    // (pending, or changed within the grace period), which a later prune may prune
    // (`pruned_by`). `object_refs` names, for every object an item names, the newest
    // operation naming it; triggers keep it, so no writer can forget it. An object is wanted
    // while that operation is after the newest cut, or an unpruned exception names it. The
    // view `pruned_operations` lists what the dropped columns said: which prune pruned each
    // operation, and when (a prune of version 2 keeps the time it marked its rows, which its
    // own row's time can precede by a millisecond, in `prunes.pruned_at`).
    r#"
    ALTER TABLE prunes ADD COLUMN pruned_at TEXT;
    UPDATE prunes SET pruned_at = (SELECT max(o.pruned_at) FROM operations o WHERE o.pruned_by = prunes.id);
    ALTER TABLE prunes ADD COLUMN first_seq INTEGER;
    CREATE INDEX prunes_by_first_seq ON prunes(first_seq);
    CREATE INDEX prunes_by_cut_seq ON prunes(cut_seq);
    UPDATE prunes SET first_seq = ranged.first_seq
      FROM (SELECT id, CASE WHEN cut_seq > coalesce(before, 0) THEN coalesce(before, 0) + 1 END AS first_seq
              FROM (SELECT id, cut_seq,
                           max(cut_seq) OVER (ORDER BY created_at, rowid
                                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
                      FROM prunes)) AS ranged
     WHERE prunes.id = ranged.id;

    CREATE TABLE prune_exceptions (
        op_id      TEXT PRIMARY KEY REFERENCES operations(id),
        kept_by    TEXT NOT NULL REFERENCES prunes(id),
        pruned_by  TEXT REFERENCES prunes(id)
    ) WITHOUT ROWID;
    CREATE INDEX prune_exceptions_unpruned ON prune_exceptions(op_id) WHERE pruned_by IS NULL;
    CREATE INDEX prune_exceptions_by_pruned ON prune_exceptions(pruned_by) WHERE pruned_by IS NOT NULL;
    INSERT INTO prune_exceptions (op_id, kept_by, pruned_by)
    SELECT o.id, r.id, o.pruned_by
      FROM operations o JOIN prunes r ON o.seq BETWEEN r.first_seq AND r.cut_seq
     WHERE o.pruned_by IS NOT r.id;

    CREATE TABLE object_refs (
        hash      TEXT PRIMARY KEY,
        last_seq  INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX object_refs_by_last_seq ON object_refs(last_seq);
    INSERT INTO object_refs (hash, last_seq)
    SELECT h, max(seq) FROM (
        SELECT i.before_hash AS h, o.seq FROM operation_items i JOIN operations o ON o.id = i.op_id
        UNION ALL
        SELECT i.after_hash, o.seq FROM operation_items i JOIN operations o ON o.id = i.op_id)
     WHERE h IS NOT NULL GROUP BY h;
    CREATE TRIGGER object_refs_on_insert AFTER INSERT ON operation_items BEGIN
        INSERT INTO object_refs (hash, last_seq)
        SELECT h, (SELECT seq FROM operations WHERE id = NEW.op_id)
          FROM (SELECT NEW.before_hash AS h UNION ALL SELECT NEW.after_hash) WHERE h IS NOT NULL
            ON CONFLICT (hash) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq);
    END;
    CREATE TRIGGER object_refs_on_update AFTER UPDATE OF op_id, before_hash, after_hash ON operation_items BEGIN
        INSERT INTO object_refs (hash, last_seq)
        SELECT h, (SELECT seq FROM operations WHERE id = NEW.op_id)
          FROM (SELECT NEW.before_hash AS h UNION ALL SELECT NEW.after_hash) WHERE h IS NOT NULL
            ON CONFLICT (hash) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq);
    END;
    CREATE TRIGGER object_refs_on_renumber AFTER UPDATE OF seq, id ON operations BEGIN
        INSERT INTO object_refs (hash, last_seq)
        SELECT h, NEW.seq FROM (
            SELECT before_hash AS h FROM operation_items WHERE op_id = NEW.id
            UNION ALL SELECT after_hash FROM operation_items WHERE op_id = NEW.id)
         WHERE h IS NOT NULL
            ON CONFLICT (hash) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq);
    END;

    CREATE INDEX operations_by_updated ON operations(updated_at);
    DROP INDEX operations_by_pruned;
    ALTER TABLE operations DROP COLUMN pruned_by;
    ALTER TABLE operations DROP COLUMN pruned_at;

    CREATE VIEW pruned_operations AS
    SELECT o.seq, o.id, p.id AS pruned_by, coalesce(p.pruned_at, p.created_at) AS pruned_at
      FROM operations o
      JOIN prunes p ON p.id = CASE
           WHEN EXISTS (SELECT 1 FROM prune_exceptions e WHERE e.op_id = o.id)
             THEN (SELECT e.pruned_by FROM prune_exceptions e WHERE e.op_id = o.id)
           ELSE (SELECT r.id FROM prunes r WHERE r.first_seq <= o.seq
                  ORDER BY r.first_seq DESC LIMIT 1)
           END
     WHERE o.seq <= (SELECT max(cut_seq) FROM prunes);
    "#,
    // Version 4: no triggers and no view. SQLite reads the whole schema at every process's
    // first statement, and the three triggers and the view were about two thirds of that
    // parse, and the insert trigger was compiled again into every `INSERT` of an item: 0.4
    // to 0.5 ms of every write (a tenth of it, `docs/performance.md`). `Journal::begin` now
    // records an item's objects in `object_refs` itself, in the same transaction; gc also
    // holds every object an item after the newest cut names that `object_refs` does not
    // (a row written by hand, `retention::fill_held`), so no writer can make gc take an
    // object still named. What the view answered is `retention::PRUNED_BY`.
    //
    // And the indexes of columns most operations leave NULL (`source_path`, `actor`,
    // `task_id`, `undoes`) hold only the rows that have one: every lookup by them is by
    // equality or `IS NOT NULL`, which a partial index answers, and a write no longer adds
    // four index entries nobody asks for (four of its twenty-odd WAL pages).
    r#"
    DROP TRIGGER object_refs_on_insert;
    DROP TRIGGER object_refs_on_update;
    DROP TRIGGER object_refs_on_renumber;
    DROP VIEW pruned_operations;
    DROP INDEX operations_by_source;
    CREATE INDEX operations_by_source ON operations(source_path, seq) WHERE source_path IS NOT NULL;
    DROP INDEX operations_by_actor;
    CREATE INDEX operations_by_actor ON operations(actor, seq) WHERE actor IS NOT NULL;
    DROP INDEX operations_by_task;
    CREATE INDEX operations_by_task ON operations(task_id, seq) WHERE task_id IS NOT NULL;
    DROP INDEX operations_by_undoes;
    CREATE INDEX operations_by_undoes ON operations(undoes) WHERE undoes IS NOT NULL;
    "#,
];

/// The version this build writes.
pub const LATEST: i64 = MIGRATIONS.len() as i64;

/// Brings `conn` to [`LATEST`], creating the schema in an empty database. Safe against other
/// processes opening the same journal at once (the first changes in a new workspace, or a
/// journal an older build wrote): each step reads the version inside a write transaction, so
/// one process makes a step and the others find it made.
pub fn migrate(conn: &mut Connection) -> Result<()> {
    // A current journal stays current (no build moves a version back): two reads, no lock.
    let read = |conn: &Connection, pragma: &str| -> Result<i64> {
        Ok(conn.pragma_query_value(None, pragma, |r| r.get(0))?)
    };
    if read(conn, "user_version")? == LATEST && read(conn, "application_id")? == APPLICATION_ID {
        return Ok(());
    }
    loop {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let version = read(&tx, "user_version")?;
        let app = read(&tx, "application_id")?;
        // A negative version is none any build wrote. A journal that says it is one needs
        // no count of its tables: the question is asked only of a database that does not.
        let foreign = version < 0
            || (app != APPLICATION_ID
                && (app != 0
                    || version != 0
                    || tx.query_row(
                        "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
                        [],
                        |r| r.get::<_, i64>(0),
                    )? != 0));
        if foreign {
            return Err(not_a_journal(version));
        }
        if version > LATEST {
            return Err(newer_journal(version));
        }
        if version == LATEST {
            return Ok(()); // another process made the last step; nothing was written here
        }
        tx.execute_batch(MIGRATIONS[version as usize])
            .map_err(|e| {
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
        tx.pragma_update(None, "user_version", version + 1)?;
        tx.commit()?;
    }
}

/// MIGRATION_ERROR for a database that is no journal of Filekeeper's (of `version`).
pub fn not_a_journal(version: i64) -> Error {
    Error::new(
        Code::MigrationError,
        "the journal database was not written by Filekeeper (unknown schema)",
    )
    .with("schema_version", version)
}

/// MIGRATION_ERROR for a journal of a schema `version` newer than this build's.
pub fn newer_journal(version: i64) -> Error {
    Error::new(
        Code::MigrationError,
        format!(
            "the journal has schema version {version}, newer than this build's {LATEST}; upgrade keeper"
        ),
    )
    .with("schema_version", version)
    .with("supported_version", LATEST)
}

#[cfg(test)]
mod tests {
    use super::super::{FILE_NAME, Journal};
    use super::*;

    /// A journal written by a build of schema `version` (1 or 2): those migrations' tables,
    /// with a committed operation and the undo that reversed it.
    fn old_journal(path: &std::path::Path, version: usize) -> Connection {
        let conn = Connection::open(path).unwrap();
        for sql in &MIGRATIONS[..version] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        conn.pragma_update(None, "user_version", version as i64)
            .unwrap();
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
        conn
    }

    fn hash(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    /// Every row `sql` selects, each read by `row`.
    fn rows<T>(
        conn: &Connection,
        sql: &str,
        row: impl FnMut(&rusqlite::Row) -> rusqlite::Result<T>,
    ) -> Vec<T> {
        conn.prepare(sql)
            .unwrap()
            .query_map([], row)
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    fn version(journal: &Journal) -> i64 {
        journal
            .conn()
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap()
    }

    fn assert_consistent(journal: &Journal) {
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
    fn a_negative_version_is_refused_as_foreign_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .unwrap();
        conn.pragma_update(None, "user_version", -1).unwrap();
        drop(conn);
        let before = std::fs::read(&path).unwrap();
        let err = Journal::open(&path, false).err().unwrap();
        assert_eq!(err.code, Code::MigrationError);
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    /// The first changes in a new workspace may open its new journal at once, and so may
    /// two processes of a new build meeting an old journal: each step is made by one of them.
    #[test]
    fn journals_opened_at_once_are_migrated_once() {
        for round in 0..16 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(FILE_NAME);
            if round % 2 == 1 {
                drop(old_journal(&path, 1));
            }
            let start = std::sync::Arc::new(std::sync::Barrier::new(4));
            let openers: Vec<_> = (0..4)
                .map(|_| {
                    let (start, path) = (start.clone(), path.clone());
                    std::thread::spawn(move || {
                        start.wait();
                        Journal::open(&path, true).map(|j| version(&j.unwrap()))
                    })
                })
                .collect();
            for opener in openers {
                assert_eq!(opener.join().unwrap().unwrap(), LATEST, "round {round}");
            }
            assert_consistent(&Journal::open(&path, false).unwrap().unwrap());
        }
    }

    #[test]
    fn a_schema_1_journal_is_migrated_with_every_row_kept_and_unpruned() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        drop(old_journal(&path, 1));
        let journal = Journal::open(&path, false).unwrap().unwrap();
        assert_eq!(version(&journal), LATEST);
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
        assert_consistent(&journal);
    }

    /// Schema 2 marked every pruned row; schema 3 (and 4) keeps the same answers as a cut per prune
    /// and exceptions. The journal here has what makes the difference: a first prune that
    /// kept a pending operation and one still within its grace period, and a second prune,
    /// with a lower cut, that pruned the settled one of them; plus an operation never cut.
    /// Version 2 wrote a prune's row, then its marks, in two statements: the first prune's
    /// marks are a millisecond after its row, and keep that time.
    #[test]
    fn a_schema_2_journal_keeps_every_pruned_answer_and_gains_the_object_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let conn = old_journal(&path, 2);
        conn.execute_batch(&format!(
            "INSERT INTO operations (id, kind, status, summary, target_path)
                 VALUES ('op_00000000000000a3', 'write', 'pending', 'Writing c.txt.', 'c.txt'),
                        ('op_00000000000000a4', 'write', 'committed', 'Wrote d.txt.', 'd.txt'),
                        ('op_00000000000000a5', 'write', 'committed', 'Wrote e.txt.', 'e.txt');
             INSERT INTO operation_items (op_id, ordinal, path, change, before_exists, after_exists, before_hash, after_hash)
                 VALUES ('op_00000000000000a3', 0, 'c.txt', 'added', 0, 1, NULL, '{c}'),
                        ('op_00000000000000a4', 0, 'd.txt', 'added', 0, 1, NULL, '{a}'),
                        ('op_00000000000000a5', 0, 'e.txt', 'added', 0, 1, NULL, '{e}');
             INSERT INTO prunes (id, created_at, rule, cut_seq, operations)
                 VALUES ('prune_00000000000000f1', '2026-01-01T00:00:00.000Z', 'keep_last 1', 4, 2),
                        ('prune_00000000000000f2', '2026-01-02T00:00:00.000Z', 'keep_last 2', 4, 1);
             UPDATE operations SET pruned_by = 'prune_00000000000000f1', pruned_at = '2026-01-01T00:00:00.001Z'
              WHERE seq IN (1, 2);
             UPDATE operations SET pruned_by = 'prune_00000000000000f2', pruned_at = '2026-01-02T00:00:00.000Z'
              WHERE seq = 4;",
            a = hash('a'),
            c = hash('c'),
            e = hash('e'),
        ))
        .unwrap();
        let before: Vec<(i64, Option<String>, Option<String>)> = rows(
            &conn,
            "SELECT seq, pruned_by, pruned_at FROM operations ORDER BY seq",
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        );
        drop(conn);

        let mut journal = Journal::open(&path, false).unwrap().unwrap();
        assert_eq!(version(&journal), LATEST);
        let after: Vec<(i64, Option<String>, Option<String>)> = journal
            .all()
            .unwrap()
            .into_iter()
            .map(|op| (op.seq, op.pruned_by, op.pruned_at))
            .collect();
        assert_eq!(after, before);
        let pruned: Vec<i64> = rows(
            journal.conn(),
            &format!(
                "SELECT seq FROM operations o WHERE {} ORDER BY seq",
                super::super::PRUNED
            ),
            |r| r.get(0),
        );
        assert_eq!(pruned, [1, 2, 4]);
        // The second prune cut inside the first one's range: it owns no range of its own.
        let ranges: Vec<(String, Option<i64>)> = rows(
            journal.conn(),
            "SELECT id, first_seq FROM prunes ORDER BY created_at",
            |r| Ok((r.get(0)?, r.get(1)?)),
        );
        assert_eq!(
            ranges,
            [
                ("prune_00000000000000f1".into(), Some(1)),
                ("prune_00000000000000f2".into(), None)
            ]
        );
        // a is named by the first write (pruned) and the fourth (pruned): its newest naming
        // operation is 4; c only by the pending one, which the first prune keeps.
        let refs: Vec<(String, i64)> = rows(
            journal.conn(),
            "SELECT hash, last_seq FROM object_refs ORDER BY hash",
            |r| Ok((r.get(0)?, r.get(1)?)),
        );
        assert_eq!(
            refs,
            [
                (hash('a'), 4),
                (hash('b'), 1),
                (hash('c'), 3),
                (hash('e'), 5)
            ]
        );
        let live = journal.live_objects().unwrap();
        let wanted: Vec<bool> = "abce"
            .chars()
            .map(|c| {
                live.contains(&crate::oid::ObjectId::parse(&hash(c)).unwrap())
                    .unwrap()
            })
            .collect();
        assert_eq!(wanted, [false, false, true, true]);
        drop(live);
        assert_consistent(&journal);
        // Schema 4 has no trigger and no view: keeper writes `object_refs` with each item.
        let kept: i64 = journal
            .conn()
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type IN ('trigger', 'view')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(kept, 0);
        // Rows written by hand, with no `object_refs` row, or moved to a newer operation, or
        // renumbered past the cut: gc's live set still holds every object they name.
        journal
            .conn()
            .execute_batch(&format!(
                "INSERT INTO operations (id, kind, status) VALUES ('op_00000000000000a6', 'write', 'committed');
                 INSERT INTO operation_items (op_id, ordinal, path, change, before_exists, after_exists, before_hash, after_hash)
                     VALUES ('op_00000000000000a6', 0, 'a.txt', 'modified', 1, 1, '{b}', '{f}');
                 UPDATE operation_items SET op_id = 'op_00000000000000a6', ordinal = 1
                  WHERE op_id = 'op_00000000000000a1';",
                b = hash('b'),
                f = hash('f'),
            ))
            .unwrap();
        let live = journal.live_objects().unwrap();
        let wanted: Vec<bool> = "abcef"
            .chars()
            .map(|c| {
                live.contains(&crate::oid::ObjectId::parse(&hash(c)).unwrap())
                    .unwrap()
            })
            .collect();
        assert_eq!(wanted, [true, true, true, true, true]);
    }

    #[test]
    fn an_exception_must_name_a_recorded_prune() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        drop(old_journal(&path, 1));
        let journal = Journal::open(&path, false).unwrap().unwrap();
        let err = journal.conn().execute(
            "INSERT INTO prune_exceptions (op_id, kept_by)
                 VALUES ('op_00000000000000a1', 'prune_0000000000000000')",
            [],
        );
        assert!(err.is_err(), "an exception naming no prune was accepted");
    }
}
