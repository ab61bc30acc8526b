//! `default-workspace.json` in the home: a derived copy of the registry's default workspace,
//! so that a command naming neither `--workspace` nor `--root` finds its root without
//! starting SQLite.
//!
//! Opening the registry (SQLite's start-up, its schema, one query) was about 0.4 ms of a
//! 2.2 ms `keeper file read`. The copy is one small file that keeper rewrites whenever it
//! changes the registry, and it is trusted only while it describes the registry as it is now:
//! the registry file's identity (device, inode, size, modification time) and the file change
//! counter in its SQLite header, which every commit of a database with a rollback journal
//! increments, must equal the ones recorded in the copy, and the header must still name a
//! Filekeeper registry of schema 1 in rollback-journal mode. Anything else (no copy, a copy
//! written for another state of the registry, a registry changed with `sqlite3`, a registry
//! still in WAL mode, whose commits leave the counter alone) is a miss, and the caller asks the
//! registry. A miss costs what every lookup cost before the copy existed; it is never wrong.
//!
//! The copy is written without an fsync: after a power cut it is the previous copy, an empty
//! file or missing, and each of these fails the check above.

use crate::home::{REGISTRY_FILE, Registration};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;
use std::sync::Mutex;

/// The copy's file name inside the home.
pub(crate) const FILE_NAME: &str = "default-workspace.json";

/// What identifies one state of the registry: its file, and its header's change counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct RegistryState {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    change_counter: u32,
}

/// The file's contents.
#[derive(Debug, Serialize, Deserialize)]
struct Contents {
    registry: RegistryState,
    default: Option<Registration>,
}

/// Descriptors of the registry files this process has read a header from, kept open until
/// it exits. Closing a descriptor releases every POSIX lock the process holds on that file,
/// SQLite's included: a lookup on one thread would drop another thread's lock on the registry
/// in the middle of its transaction. One is opened per registry file (device and inode).
static HELD: Mutex<Vec<File>> = Mutex::new(Vec::new());

/// The state of the registry at `path`, read from its file and its header; `None` when the
/// file cannot be read or its header is not that of a Filekeeper registry of schema 1 using a
/// rollback journal.
fn registry_state(path: &Path) -> Option<RegistryState> {
    let named = std::fs::metadata(path).ok()?;
    let mut held = HELD.lock().ok()?;
    // A held file that was deleted since (no name left) is not the one at `path`, even if
    // its inode number has been given to a new file.
    let same = |file: &File| {
        file.metadata()
            .is_ok_and(|m| m.dev() == named.dev() && m.ino() == named.ino() && m.nlink() > 0)
    };
    let at = match held.iter().position(same) {
        Some(at) => at,
        None => {
            held.push(File::open(path).ok()?);
            held.len() - 1
        }
    };
    let file = &held[at];
    let mut header = [0u8; 100];
    file.read_exact_at(&mut header, 0).ok()?;
    let meta = file.metadata().ok()?;
    let be32 = |at: usize| u32::from_be_bytes(header[at..at + 4].try_into().expect("4 bytes"));
    let rollback_journal = header[18] == 1 && header[19] == 1;
    let registry_v1 = be32(60) == 1 && i64::from(be32(68)) == crate::home::REGISTRY_APPLICATION_ID;
    (header.starts_with(b"SQLite format 3\0") && rollback_journal && registry_v1).then(|| {
        RegistryState {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            change_counter: be32(24),
        }
    })
}

/// The default workspace as the copy in `home` records it (`Some(None)`: the registry has
/// no default), or `None` when the copy is missing, unreadable, or does not describe the
/// home's registry as it is now.
pub(crate) fn read(home: &Path) -> Option<Option<Registration>> {
    let bytes = std::fs::read(home.join(FILE_NAME)).ok()?;
    let copy: Contents = serde_json::from_slice(&bytes).ok()?;
    (registry_state(&home.join(REGISTRY_FILE))? == copy.registry).then_some(copy.default)
}

/// Writes the copy for the home's registry, open in `conn`, as it is now. The default
/// and the file's state are read inside one read transaction: its shared lock keeps every
/// writer from committing between the two, so the copy never pairs one state's default with
/// another state's identity. Best effort: a copy that cannot be written is removed if it can
/// be, and a stale one is ignored by [`read`] anyway; the registry is the truth.
pub(crate) fn write(
    conn: &Connection,
    home: &Path,
    default: impl FnOnce(&Connection) -> crate::error::Result<Option<Registration>>,
) {
    let copy = (|| {
        let tx = conn.unchecked_transaction().ok()?;
        let default = default(&tx).ok()?;
        let state = registry_state(&home.join(REGISTRY_FILE))?;
        tx.commit().ok()?;
        Some(Contents {
            registry: state,
            default,
        })
    })();
    let target = home.join(FILE_NAME);
    let written = copy.and_then(|copy| {
        let bytes = serde_json::to_vec(&copy).ok()?;
        let tmp = home.join(format!(".fk-tmp-{}", crate::durable::random_hex16()));
        let renamed = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, &target));
        if renamed.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        renamed.ok()
    });
    if written.is_none() {
        let _ = std::fs::remove_file(&target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::Home;

    fn registered_home() -> (tempfile::TempDir, Home) {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::locate(Some(&dir.path().join("home"))).unwrap();
        home.init().unwrap();
        let mut registry = home.registry(false).unwrap().unwrap();
        registry.create("notes", dir.path()).unwrap();
        registry.set_default("notes").unwrap();
        (dir, home)
    }

    fn copy(home: &Home) -> Contents {
        serde_json::from_slice(&std::fs::read(home.dir().join(FILE_NAME)).unwrap()).unwrap()
    }

    #[test]
    fn the_copy_is_what_a_lookup_reads_while_it_matches_the_registry() {
        let (_dir, home) = registered_home();
        let mut altered = copy(&home);
        let found = altered.default.as_mut().unwrap();
        assert_eq!(found.name, "notes");
        // A copy saying something the registry does not, under the registry's identity, is
        // believed: the lookup did not open the registry.
        found.root = "/altered".into();
        std::fs::write(
            home.dir().join(FILE_NAME),
            serde_json::to_vec(&altered).unwrap(),
        )
        .unwrap();
        let looked_up = home.default_registration().unwrap().unwrap();
        assert_eq!(looked_up.root, Path::new("/altered"));
    }

    #[test]
    fn a_registry_changed_behind_keepers_back_is_asked_instead() {
        let (dir, home) = registered_home();
        let before = copy(&home).registry;
        let conn = Connection::open(home.dir().join(REGISTRY_FILE)).unwrap();
        conn.execute("DELETE FROM settings", []).unwrap();
        let after = registry_state(&home.dir().join(REGISTRY_FILE)).unwrap();
        assert_eq!(after.change_counter, before.change_counter + 1);
        assert_eq!(read(home.dir()), None);
        assert_eq!(home.default_registration().unwrap(), None);
        // keeper's next change writes a copy that matches again.
        home.registry(false)
            .unwrap()
            .unwrap()
            .set_default("notes")
            .unwrap();
        let found = read(home.dir()).unwrap();
        assert_eq!(found.unwrap().root, dir.path().canonicalize().unwrap());
    }

    #[test]
    fn a_removed_default_is_copied_as_none() {
        let (_dir, home) = registered_home();
        home.registry(false)
            .unwrap()
            .unwrap()
            .remove("notes")
            .unwrap();
        assert_eq!(read(home.dir()), Some(None));
    }

    #[test]
    fn a_registry_in_wal_mode_is_never_matched() {
        let (_dir, home) = registered_home();
        let path = home.dir().join(REGISTRY_FILE);
        assert!(registry_state(&path).is_some());
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "journal_mode", "WAL")
            .unwrap();
        assert_eq!(registry_state(&path), None, "WAL commits keep the counter");
        assert_eq!(read(home.dir()), None);
    }

    /// Reading the header must not release the locks SQLite holds on the registry in this
    /// process (closing any descriptor of a file drops them all): another process, here this
    /// test binary run again, must still be kept out of a transaction this one holds.
    #[test]
    fn a_lookup_keeps_the_locks_sqlite_holds_in_this_process() {
        const NAME: &str =
            "default_cache::tests::a_lookup_keeps_the_locks_sqlite_holds_in_this_process";
        if let Some(path) = std::env::var_os("FILEKEEPER_TEST_TRY_WRITE") {
            let conn = Connection::open(path).unwrap();
            conn.busy_timeout(std::time::Duration::ZERO).unwrap();
            let taken = conn.execute_batch("BEGIN IMMEDIATE").is_ok();
            std::process::exit(if taken { 0 } else { 3 });
        }
        let (_dir, home) = registered_home();
        let path = home.dir().join(REGISTRY_FILE);
        let holder = Connection::open(&path).unwrap();
        holder.execute_batch("BEGIN IMMEDIATE").unwrap();
        let try_write = || {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", NAME, "--quiet", "--test-threads=1"])
                .env("FILEKEEPER_TEST_TRY_WRITE", &path)
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap()
                .code()
        };
        assert_eq!(
            try_write(),
            Some(3),
            "the transaction keeps another process out"
        );
        assert_eq!(home.default_registration().unwrap().unwrap().name, "notes");
        assert_eq!(
            try_write(),
            Some(3),
            "and still does after a lookup read the header"
        );
        holder.execute_batch("ROLLBACK").unwrap();
        assert_eq!(try_write(), Some(0), "until it ends");
    }

    #[test]
    fn a_file_that_is_not_a_registry_is_never_matched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x); PRAGMA user_version = 1;")
            .unwrap();
        assert_eq!(registry_state(&path), None);
        std::fs::write(&path, b"short").unwrap();
        assert_eq!(registry_state(&path), None);
    }
}
