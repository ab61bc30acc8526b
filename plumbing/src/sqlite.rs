//! Opening Filekeeper's SQLite databases (the journal and the registry) the one durable way.
//!
//! WAL mode with `synchronous=FULL`: a transaction is on disk when its commit returns, at one
//! fsync of the WAL. SQLite is built with `SQLITE_DISABLE_DIRSYNC` (see `.cargo/config.toml`)
//! so it does not fsync the directory every time a process first syncs a WAL it opened;
//! instead this module fsyncs the directory itself, once, whenever the database or its WAL file
//! did not exist before the open: the only time a new directory entry needs it. The WAL is
//! kept across processes (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`) rather than checkpointed and
//! deleted by every short-lived command.

use crate::durable::sync_dir;
use crate::error::{Error, Result};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn wal_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// Opens (or with `create`, creates) the database at `path`. `check` runs before anything is
/// written to the file (schema checks and migrations), so a database it refuses is left as
/// it was.
pub(crate) fn open(
    path: &Path,
    create: bool,
    check: impl FnOnce(&mut Connection) -> Result<()>,
) -> Result<Connection> {
    let fresh = !path.exists() || !wal_path(path).exists();
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let mut conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(Duration::from_secs(30))?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    check(&mut conn)?;
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    if fresh && let Some(dir) = path.parent() {
        sync_dir(dir).map_err(|e| Error::storage("syncing the database directory", &e))?;
    }
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
        let conn = open(&dir.path().join("db.sqlite3"), true, |_| Ok(())).unwrap();
        assert_eq!(synchronous(&conn), 2, "FULL after opening");
        for _ in 0..3 {
            let inside = relaxed(&conn, |conn| Ok(synchronous(conn))).unwrap();
            assert_eq!(inside, 1, "NORMAL inside every relaxed write");
            assert_eq!(synchronous(&conn), 2, "FULL again afterwards");
        }
    }
}
