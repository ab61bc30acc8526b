//! Opening Filekeeper's SQLite databases (the journal and the registry) the durable way.
//!
//! The journal is in WAL mode with `synchronous=FULL`: a transaction is on disk when its
//! commit returns, at one fsync of the WAL. The registry, written a few times in a home's
//! life and read by every command that names no root, uses a rollback journal that is kept
//! and truncated instead ([`Mode::Truncate`]): reading it takes one shared lock and a few
//! page reads, where the first connection of every process to a WAL database rebuilds the
//! WAL index (truncating and rewriting `-shm`, reading the whole WAL), about 0.3 ms of a
//! registered-workspace read. SQLite is built with `SQLITE_DISABLE_DIRSYNC` (see `.cargo/config.toml`)
//! so it does not fsync the directory every time a process first syncs a WAL it opened;
//! instead this module fsyncs the directory itself, once, whenever the database or its WAL file
//! did not exist before the open: the only time a new directory entry needs it. The WAL is
//! kept across processes (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`) rather than checkpointed and
//! deleted by every short-lived command, and checkpointed by the commit that takes it past
//! [`WAL_CHECKPOINT_PAGES`].

use crate::durable::sync_dir;
use crate::error::{Error, Result};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a statement waits for another connection's lock before it is busy.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// How many pages the WAL may hold before a commit copies them into the database
/// (`wal_autocheckpoint`; SQLite's default is 1,000). Every process's first connection rebuilds
/// the WAL's index by reading and checksumming the whole WAL, and a mutation adds about 19
/// pages to it: at 1,000 pages that was up to 1.2 ms of every command that opens the journal
/// (0.7 ms of a write on average, `docs/performance.md`). At 128 a checkpoint (three
/// fsync-class calls in the committing process: the WAL, the database, and the WAL's new
/// header when it is next written) comes about every seventh write instead of every
/// fiftieth, and the rebuild stays under 0.2 ms.
pub(crate) const WAL_CHECKPOINT_PAGES: i64 = 128;

/// The same for a connection a process uses again (the MCP server's: `journal::connection`
/// keeps closed ones): it never rebuilds the index, so fewer, larger checkpoints cost it less.
/// SQLite's default. The next short-lived process pays one rebuild of what it left, and its
/// commit checkpoints.
pub(crate) const WAL_CHECKPOINT_PAGES_KEPT: i64 = 1000;

fn wal_path(path: &Path) -> PathBuf {
    with_suffix(path, "-wal")
}

fn journal_path(path: &Path) -> PathBuf {
    with_suffix(path, "-journal")
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// How a database keeps its transactions atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Write-ahead log, kept across processes: for the journal, written by every mutation.
    Wal,
    /// A rollback journal that is kept (truncated to nothing at each commit, fsynced) rather
    /// than deleted, so no commit depends on a directory entry, and a reader that finds it
    /// empty knows without opening it that there is nothing to roll back: for the registry,
    /// read far more often than written. A database still in WAL mode (written by an earlier
    /// build) is switched the first time it is opened with no other connection; until then it
    /// works in WAL mode as before.
    Truncate,
}

/// Opens (or with `create`, creates) the database at `path`. `check` runs before anything is
/// written to the file (schema checks and migrations), so a database it refuses is left as
/// it was.
pub(crate) fn open(
    path: &Path,
    create: bool,
    mode: Mode,
    check: impl FnOnce(&mut Connection) -> Result<()>,
) -> Result<Connection> {
    let fresh = match mode {
        Mode::Wal => !path.exists() || !wal_path(path).exists(),
        Mode::Truncate => !path.exists() || !journal_path(path).exists(),
    };
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let mut conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    check(&mut conn)?;
    match mode {
        Mode::Wal => {
            switch_to_wal(&conn)?;
            conn.pragma_update(None, "wal_autocheckpoint", WAL_CHECKPOINT_PAGES)?;
            conn.set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )?;
        }
        Mode::Truncate => {
            // Leaving WAL mode needs the only connection: while another process has the
            // database open SQLite answers "database is locked" at once, and the database
            // stays in WAL mode, which works the same, until a later open finds it alone.
            match conn.pragma_update_and_check(None, "journal_mode", "TRUNCATE", |_| Ok(())) {
                Ok(()) => {}
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if matches!(
                        e.code,
                        rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                    ) => {}
                Err(e) => return Err(e.into()),
            }
            // The rollback journal must have a durable name before a transaction writes the
            // database (SQLite is built not to sync directories itself): an empty one is not
            // hot, so creating it here, before any write, is safe.
            let journal = journal_path(path);
            if !journal.exists() {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(&journal)
                    .map_err(|e| Error::storage("creating the database's journal", &e))?;
            }
        }
    }
    if fresh && let Some(dir) = path.parent() {
        sync_dir(dir).map_err(|e| Error::storage("syncing the database directory", &e))?;
    }
    Ok(conn)
}

/// Puts a database in WAL mode. A new one is switched by the first connection to get there;
/// one that finds another connection reading it then (another process opening the same new
/// journal) is answered busy at once, without the busy handler (SQLite will not wait for a
/// lock it might deadlock on), so the switch is tried again, up to the busy timeout. Once
/// the database is in WAL mode the switch is a read of its header.
fn switch_to_wal(conn: &Connection) -> Result<()> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(())) {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            done => return done.map_err(Into::into),
        }
    }
}

/// Opens the existing database at `path` only to read it: no pragma (none matters to a
/// reader, and each costs a parse), nothing created. Read-write rather than read-only so that
/// a database still in WAL mode can be read whether or not its `-shm` exists.
pub(crate) fn open_to_read(path: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

/// Runs `write` as one transaction that is not fsynced on commit (`synchronous=NORMAL` for
/// its duration): for records whose loss on a power cut recovery repairs from the tree.
pub(crate) fn relaxed<T>(
    conn: &Connection,
    write: impl FnOnce(&Connection) -> Result<T>,
) -> Result<T> {
    // Not cached statements: SQLite marks a pragma that sets a value as run-once and prepares
    // it again on every run, so a kept one would save nothing.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    let result = write(conn);
    conn.pragma_update(None, "synchronous", "FULL")?;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn synchronous(conn: &Connection) -> i64 {
        conn.pragma_query_value(None, "synchronous", |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn relaxed_writes_run_with_normal_sync_every_time_and_full_is_restored() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open(&dir.path().join("db.sqlite3"), true, Mode::Wal, |_| Ok(())).unwrap();
        assert_eq!(synchronous(&conn), 2, "FULL after opening");
        for _ in 0..3 {
            let inside = relaxed(&conn, |conn| Ok(synchronous(conn))).unwrap();
            assert_eq!(inside, 1, "NORMAL inside every relaxed write");
            assert_eq!(synchronous(&conn), 2, "FULL again afterwards");
        }
    }
}
