//! Opening the journal's SQLite connection, and keeping closed ones for the next use.

use super::{Journal, schema};
use crate::error::Result;
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The journal file a connection was opened on: its path, device, inode and change time (the
/// inode number of a deleted file is soon given to a new one; the change time tells them apart).
#[derive(PartialEq, Eq)]
pub(super) struct Origin {
    path: PathBuf,
    file: (u64, u64, i64, i64),
}

impl Origin {
    fn of(path: &Path) -> Option<Origin> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(Origin {
            path: path.to_owned(),
            file: (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()),
        })
    }
}

/// Connections a process closed, kept for its next use of the same journal. Opening one
/// parses the schema and, when no other connection has the journal open, rebuilds the WAL
/// index by reading the whole log: for a small write in a long-lived process (the MCP
/// server) that costs more than the write. A kept connection is handed out again only for
/// the same file (see [`Origin`]), so a journal deleted or replaced meanwhile is opened
/// afresh.
static IDLE: Mutex<Vec<(Origin, Connection, bool)>> = Mutex::new(Vec::new());
const MAX_IDLE: usize = 4;

impl Drop for Journal {
    fn drop(&mut self) {
        let (Some(origin), Some(conn)) = (self.origin.take(), self.conn.take()) else {
            return;
        };
        // Only a connection at rest goes back: none mid-transaction, none after a panic.
        if conn.is_autocommit()
            && !std::thread::panicking()
            && let Ok(mut idle) = IDLE.lock()
            && idle.len() < MAX_IDLE
        {
            idle.push((origin, conn, self.kept));
        }
    }
}

impl Journal {
    /// Opens the journal at `path`. With `create` false a missing journal is `None`, so read-only
    /// commands never create state.
    pub fn open(path: &Path, create: bool) -> Result<Option<Journal>> {
        if !create && !path.exists() {
            return Ok(None);
        }
        let kept = Origin::of(path).and_then(|origin| {
            let mut idle = IDLE.lock().ok()?;
            // Connections kept for this path whose file changed are closed, not kept.
            idle.retain(|(kept, ..)| kept.path != origin.path || kept.file == origin.file);
            let at = idle.iter().position(|(kept, ..)| *kept == origin)?;
            Some(idle.swap_remove(at))
        });
        if let Some((origin, mut conn, tuned)) = kept {
            // Another process may have migrated the file since: the schema is checked again
            // (two pragma reads when it is current).
            schema::migrate(&mut conn)?;
            if !tuned {
                conn.pragma_update(
                    None,
                    "wal_autocheckpoint",
                    crate::sqlite::WAL_CHECKPOINT_PAGES_KEPT,
                )?;
            }
            return Ok(Some(Journal {
                conn: Some(conn),
                origin: Some(origin),
                kept: true,
            }));
        }
        // The schema is checked before anything writes to the file, so a database that is
        // refused is left byte-for-byte as it was.
        let conn = crate::sqlite::open(path, create, crate::sqlite::Mode::Wal, schema::migrate)?;
        Ok(Some(Journal {
            conn: Some(conn),
            origin: Origin::of(path),
            kept: false,
        }))
    }

    pub(super) fn conn(&self) -> &Connection {
        self.conn
            .as_ref()
            .expect("a journal's connection is only taken when it is dropped")
    }

    pub(super) fn conn_mut(&mut self) -> &mut Connection {
        self.conn
            .as_mut()
            .expect("a journal's connection is only taken when it is dropped")
    }
}

#[cfg(test)]
mod tests {
    use super::super::FILE_NAME;
    use super::*;

    /// A TEMP table lives only in its connection: it tells a reused connection from a new one.
    fn marked(j: &Journal) -> bool {
        j.conn()
            .query_row(
                "SELECT count(*) FROM sqlite_temp_master WHERE name = 'mark'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap()
            == 1
    }

    fn checkpoint_pages(j: &Journal) -> i64 {
        j.conn()
            .pragma_query_value(None, "wal_autocheckpoint", |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn a_new_connection_checkpoints_the_wal_sooner_than_a_kept_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let j = Journal::open(&path, true).unwrap().unwrap();
        assert_eq!(checkpoint_pages(&j), crate::sqlite::WAL_CHECKPOINT_PAGES);
        j.conn()
            .execute_batch("CREATE TEMP TABLE mark (x)")
            .unwrap();
        drop(j);
        // Kept, then kept again: set once, and still set.
        for _ in 0..2 {
            let j = Journal::open(&path, true).unwrap().unwrap();
            assert!(marked(&j) && j.kept, "the same connection again");
            assert_eq!(
                checkpoint_pages(&j),
                crate::sqlite::WAL_CHECKPOINT_PAGES_KEPT
            );
        }
    }

    #[test]
    fn a_closed_journal_is_reused_but_never_for_a_replaced_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let j = Journal::open(&path, true).unwrap().unwrap();
        j.conn()
            .execute_batch("CREATE TEMP TABLE mark (x)")
            .unwrap();
        drop(j);
        let j = Journal::open(&path, true).unwrap().unwrap();
        assert!(marked(&j), "the kept connection was not reused");
        drop(j);
        for suffix in ["", "-wal", "-shm"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            let _ = std::fs::remove_file(name);
        }
        let j = Journal::open(&path, true).unwrap().unwrap();
        assert!(
            !marked(&j),
            "a connection to a deleted journal was handed out"
        );
    }
}
