//! The Filekeeper home: `config.toml`, the workspace registry and any global state stores.
//!
//! The home is `--home`, else `FILEKEEPER_HOME`, else `$XDG_DATA_HOME/filekeeper`, else
//! `~/.local/share/filekeeper`. The registry is a small SQLite database, `registry.sqlite3`,
//! mapping workspace names to canonical roots and remembering the default workspace.

use crate::config::{self, Config, Limits};
use crate::default_cache;
use crate::durable::{replace_file, sync_dir};
use crate::error::{Argument, Code, Error, Operation, Result};
use rusqlite::{Connection, OptionalExtension, params};
use std::path::{Path, PathBuf};

/// The configuration file's name inside the home.
pub(crate) const CONFIG_FILE: &str = "config.toml";
/// The workspace registry's file name inside the home.
pub(crate) const REGISTRY_FILE: &str = "registry.sqlite3";

/// "FKR1".
pub(crate) const REGISTRY_APPLICATION_ID: i64 = 0x464B_5231;

const REGISTRY_SCHEMA: &str = r#"
CREATE TABLE workspaces (
    name        TEXT PRIMARY KEY,
    root        TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);
"#;

/// A located Filekeeper home: the directory holding `config.toml`, the registry, and the
/// state of workspaces kept there (pinned to it, or whose root cannot hold `.filekeeper/`).
/// It may not exist yet.
#[derive(Clone, Debug)]
pub struct Home {
    dir: PathBuf,
}

/// Refuses a directory the caller named (`argument`: the home, a workspace root) that no
/// path can be: an empty one, which would be the current directory nobody chose, and one
/// holding a NUL byte, which no system call takes (a Python caller can pass one).
pub(crate) fn check_given_dir(given: &Path, argument: Argument, what: &str) -> Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = given.as_os_str().as_bytes();
    let why = if bytes.is_empty() {
        format!(" is empty; name {what}")
    } else if bytes.contains(&0) {
        format!(" holds a NUL byte, which no path can; name {what}")
    } else {
        return Ok(());
    };
    Err(Error::worded(
        Code::InvalidArgument,
        crate::words![argument, why.as_str()],
    ))
}

/// A registered workspace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Registration {
    /// The workspace's name (see [`check_name`]).
    pub name: String,
    /// The root's canonical host path, as it was when registered.
    pub root: PathBuf,
    /// When it was registered (RFC 3339, UTC).
    pub created_at: String,
}

impl Home {
    /// Finds the home from the explicit option and the environment. Nothing is created.
    pub fn locate(explicit: Option<&Path>) -> Result<Home> {
        if let Some(given) = explicit {
            check_given_dir(given, Argument::Home, "the home directory")?;
        }
        let env = |key: &str| {
            std::env::var_os(key)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let dir = explicit
            .map(Path::to_path_buf)
            .or_else(|| env("FILEKEEPER_HOME"))
            .or_else(|| env("XDG_DATA_HOME").map(|d| d.join("filekeeper")))
            .or_else(|| env("HOME").map(|h| h.join(".local/share/filekeeper")))
            .ok_or_else(|| {
                Error::worded(
                    Code::InvalidArgument,
                    crate::words![
                        "cannot find a Filekeeper home: set FILEKEEPER_HOME or pass ",
                        Argument::Home,
                    ],
                )
            })?;
        let dir = if dir.is_absolute() {
            dir
        } else {
            std::env::current_dir()
                .map_err(|e| Error::storage("finding the current directory", &e))?
                .join(dir)
        };
        Ok(Home { dir })
    }

    /// The home directory, as an absolute path.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Creates the home, `config.toml` (only when missing) and the registry. Returns whether
    /// the config file was written by this call.
    pub fn init(&self) -> Result<bool> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| Error::storage("creating the Filekeeper home", &e))?;
        let config = self.dir.join(CONFIG_FILE);
        let wrote = if config.exists() {
            false
        } else {
            replace_file(&config, config::TEMPLATE.as_bytes())
                .map_err(|e| Error::storage("writing config.toml", &e))?;
            true
        };
        if let Some(registry) = self.registry(true)? {
            registry.publish_default();
        }
        Ok(wrote)
    }

    /// The limits from `config.toml`, or the defaults when there is none.
    pub fn limits(&self) -> Result<Limits> {
        Ok(self.config()?.limits)
    }

    /// Everything `config.toml` sets (limits and retention policy), or the defaults when
    /// there is none.
    pub fn config(&self) -> Result<Config> {
        config::load(&self.dir.join(CONFIG_FILE))
    }

    /// Opens the registry. Without `create`, a missing registry is an empty one.
    pub fn registry(&self, create: bool) -> Result<Option<Registry>> {
        let path = self.dir.join(REGISTRY_FILE);
        if !create && !path.exists() {
            return Ok(None);
        }
        if create {
            let created = crate::durable::create_dir_if_missing(&self.dir)
                .map_err(|e| Error::storage("creating the Filekeeper home", &e))?;
            if created && let Some(parent) = self.dir.parent() {
                sync_dir(parent).map_err(|e| Error::storage("creating the Filekeeper home", &e))?;
            }
        }
        let conn = crate::sqlite::open(&path, true, crate::sqlite::Mode::Truncate, |conn| {
            if registry_schema(conn)? {
                return Ok(());
            }
            conn.execute_batch(&format!(
                "BEGIN IMMEDIATE; {REGISTRY_SCHEMA} PRAGMA application_id = {REGISTRY_APPLICATION_ID}; PRAGMA user_version = 1; COMMIT;"
            ))
            .or_else(|e| {
                // Another process may have created it first; accept its schema.
                let _ = conn.execute_batch("ROLLBACK");
                let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
                if v == 1 { Ok(()) } else { Err(e) }
            })
            .map_err(Error::from)
        })?;
        Ok(Some(Registry {
            conn,
            home: self.dir.clone(),
        }))
    }

    /// Opens the registry to look a workspace up, the way every command that names no root
    /// does: no pragma, no creation, no write; `None` when there is no registry, or only an
    /// empty file. Changing the registry needs [`Home::registry`].
    pub fn registry_to_read(&self) -> Result<Option<Registry>> {
        let path = self.dir.join(REGISTRY_FILE);
        if !path.exists() {
            return Ok(None);
        }
        let conn = crate::sqlite::open_to_read(&path)?;
        Ok(registry_schema(&conn)?.then_some(Registry {
            conn,
            home: self.dir.clone(),
        }))
    }

    /// The default workspace's registration, `None` when there is none: from the home's
    /// derived copy (`default_cache`) when it describes the registry as it is now, else from
    /// the registry. Every command that names neither a workspace nor a root asks this.
    pub fn default_registration(&self) -> Result<Option<Registration>> {
        if let Some(found) = default_cache::read(&self.dir) {
            return Ok(found);
        }
        match self.registry_to_read()? {
            Some(registry) => registry.default_registration(),
            None => Ok(None),
        }
    }

    /// Where a root's state lives when it is kept under the home.
    pub fn global_state_dir(&self, canonical_root: &Path) -> PathBuf {
        use std::os::unix::ffi::OsStrExt;
        let id = crate::oid::ObjectId::of(canonical_root.as_os_str().as_bytes()).hex();
        self.dir.join("state").join(&id[..16])
    }
}

/// Whether the registry at `conn` has its tables (`false`: an empty file, not initialized
/// yet); MIGRATION_ERROR for a newer schema or a file that is not a registry. One statement,
/// so one shared lock: every command naming no root asks it.
fn registry_schema(conn: &Connection) -> Result<bool> {
    let (app, version): (i64, i64) = conn.query_row(
        "SELECT a.application_id, v.user_version
           FROM pragma_application_id() a, pragma_user_version() v",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    match (app, version) {
        (REGISTRY_APPLICATION_ID, 1) => Ok(true),
        (0, 0) => Ok(false),
        (REGISTRY_APPLICATION_ID, v) if v > 1 => Err(Error::new(
            Code::MigrationError,
            format!(
                "the workspace registry has schema version {v}, newer than this build's 1; upgrade keeper"
            ),
        )),
        _ => Err(Error::new(
            Code::MigrationError,
            "registry.sqlite3 in the Filekeeper home is not a Filekeeper registry",
        )),
    }
}

/// The open workspace registry, `registry.sqlite3`: workspace names mapped to canonical
/// roots, and the name of the default workspace.
pub struct Registry {
    conn: Connection,
    /// The home it is in, where every change rewrites `default_cache`'s copy.
    home: PathBuf,
}

/// Workspace names: a letter or digit, then letters, digits, `.`, `_` or `-`; at most 64.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(
            "a workspace name is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
        )
        .with("name", name))
    }
}

impl Registry {
    /// Registers `root` (which must be an existing directory) as `name`.
    pub fn create(&mut self, name: &str, root: &Path) -> Result<Registration> {
        check_name(name)?;
        let canonical = std::fs::canonicalize(root)
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| {
                Error::new(
                    Code::PathNotFound,
                    "the workspace root must be an existing directory",
                )
                .path(&root.to_string_lossy())
                .with("name", name)
            })?;
        crate::resolve::refuse_root_in_state(&canonical).map_err(|e| e.with("name", name))?;
        let root_text = canonical.to_str().ok_or_else(|| {
            Error::invalid("the workspace root path is not valid UTF-8").with("name", name)
        })?;
        // Immediate: a transaction that reads before it writes would have to upgrade its
        // lock, and SQLite answers busy at once, without waiting, when another connection
        // wants the same (two `workspace create`s at once).
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let by_name: Option<String> = tx
            .query_row("SELECT root FROM workspaces WHERE name = ?1", [name], |r| {
                r.get(0)
            })
            .optional()?;
        if by_name.is_some() {
            return Err(Error::new(
                Code::WorkspaceExists,
                format!("a workspace named {name} already exists"),
            )
            .with("name", name)
            .recovery("choose another name, or remove the existing workspace first"));
        }
        let by_root: Option<String> = tx
            .query_row(
                "SELECT name FROM workspaces WHERE root = ?1",
                [root_text],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(other) = by_root {
            return Err(Error::new(
                Code::WorkspaceExists,
                format!("that root is already registered as workspace {other}"),
            )
            .with("name", name)
            .with("existing", other));
        }
        tx.execute(
            "INSERT INTO workspaces (name, root) VALUES (?1, ?2)",
            params![name, root_text],
        )?;
        tx.commit()?;
        self.publish_default();
        self.get(name)
    }

    /// The registration named `name`; WORKSPACE_NOT_FOUND when there is none.
    pub(crate) fn get(&self, name: &str) -> Result<Registration> {
        self.conn
            .query_row(
                "SELECT name, root, created_at FROM workspaces WHERE name = ?1",
                [name],
                registration,
            )
            .optional()?
            .ok_or_else(|| workspace_not_found(name))
    }

    /// Every registration, sorted by name.
    pub fn list(&self) -> Result<Vec<Registration>> {
        let mut stmt = self
            .conn
            .prepare("SELECT name, root, created_at FROM workspaces ORDER BY name")?;
        let rows = stmt.query_map([], registration)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Forgets the workspace `name`, and it as the default if it was; returns what was
    /// registered. WORKSPACE_NOT_FOUND when there is none.
    pub fn remove(&mut self, name: &str) -> Result<Registration> {
        let found = self.get(name)?;
        let tx = self.conn.transaction()?;
        tx.execute("DELETE FROM workspaces WHERE name = ?1", [name])?;
        tx.execute(
            "DELETE FROM settings WHERE key = 'default_workspace' AND value = ?1",
            [name],
        )?;
        tx.commit()?;
        self.publish_default();
        Ok(found)
    }

    /// Makes `name` the default workspace; returns its registration. WORKSPACE_NOT_FOUND when
    /// there is none.
    pub fn set_default(&mut self, name: &str) -> Result<Registration> {
        let found = self.get(name)?;
        self.conn.execute(
            "INSERT INTO settings (key, value) VALUES ('default_workspace', ?1)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [name],
        )?;
        self.publish_default();
        Ok(found)
    }

    /// The default workspace's registration; `None` when none is set. One query: every
    /// command that names no workspace asks it.
    pub fn default_registration(&self) -> Result<Option<Registration>> {
        Registry::default_in(&self.conn)
    }

    fn default_in(conn: &Connection) -> Result<Option<Registration>> {
        Ok(conn
            .query_row(
                "SELECT w.name, w.root, w.created_at FROM settings s
                   JOIN workspaces w ON w.name = s.value
                  WHERE s.key = 'default_workspace'",
                [],
                registration,
            )
            .optional()?)
    }

    /// Rewrites the home's copy of the default workspace (`default_cache`) for the registry
    /// as it is now: after every change keeper makes to it.
    fn publish_default(&self) {
        default_cache::write(&self.conn, &self.home, Registry::default_in);
    }

    /// The default workspace's name; `None` when none is set.
    pub fn default_name(&self) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT value FROM settings WHERE key = 'default_workspace'",
                [],
                |r| r.get(0),
            )
            .optional()?)
    }
}

fn registration(row: &rusqlite::Row<'_>) -> rusqlite::Result<Registration> {
    Ok(Registration {
        name: row.get(0)?,
        root: PathBuf::from(row.get::<_, String>(1)?),
        created_at: row.get(2)?,
    })
}

/// The one WORKSPACE_NOT_FOUND every lookup by name reports, with `details.name`.
pub fn workspace_not_found(name: &str) -> Error {
    Error::new(
        Code::WorkspaceNotFound,
        format!("no workspace named {name}"),
    )
    .with("name", name)
    .hint(crate::words![
        "list workspaces with ",
        Operation::ListWorkspaces
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home() -> (tempfile::TempDir, Home) {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::locate(Some(&dir.path().join("home"))).unwrap();
        (dir, home)
    }

    #[test]
    fn init_writes_config_once_and_creates_the_registry() {
        let (_dir, home) = home();
        assert!(home.init().unwrap());
        std::fs::write(
            home.dir().join(CONFIG_FILE),
            "[filekeeper]\nmax_read_bytes = 7\n",
        )
        .unwrap();
        assert!(
            !home.init().unwrap(),
            "init must not overwrite an edited config"
        );
        assert_eq!(home.limits().unwrap().max_read_bytes, 7);
        assert!(home.dir().join(REGISTRY_FILE).exists());
    }

    fn journal_mode(path: &Path) -> String {
        Connection::open(path)
            .unwrap()
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap()
    }

    /// A registry as the previous release left it: in WAL mode, with a default workspace.
    fn wal_registry(home: &Home, root: &Path) {
        std::fs::create_dir_all(home.dir()).unwrap();
        let conn = crate::sqlite::open(
            &home.dir().join(REGISTRY_FILE),
            true,
            crate::sqlite::Mode::Wal,
            |_| Ok(()),
        )
        .unwrap();
        conn.execute_batch(&format!(
            "{REGISTRY_SCHEMA} PRAGMA application_id = {REGISTRY_APPLICATION_ID}; PRAGMA user_version = 1;"
        ))
        .unwrap();
        conn.execute(
            "INSERT INTO workspaces (name, root) VALUES ('old', ?1)",
            [root.to_str().unwrap()],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO settings (key, value) VALUES ('default_workspace', 'old')",
            [],
        )
        .unwrap();
    }

    #[test]
    fn a_new_registry_keeps_an_empty_rollback_journal_and_no_wal() {
        let (dir, home) = home();
        home.init().unwrap();
        home.registry(true)
            .unwrap()
            .unwrap()
            .create("notes", dir.path())
            .unwrap();
        let path = home.dir().join(REGISTRY_FILE);
        assert_eq!(journal_mode(&path), "delete", "not in WAL mode");
        assert!(!home.dir().join("registry.sqlite3-wal").exists());
        let journal = std::fs::metadata(home.dir().join("registry.sqlite3-journal")).unwrap();
        assert_eq!(
            journal.len(),
            0,
            "truncated at commit, so a reader need not open it"
        );
    }

    #[test]
    fn a_wal_registry_of_the_previous_release_is_read_then_switched_when_alone() {
        let (dir, home) = home();
        wal_registry(&home, dir.path());
        let path = home.dir().join(REGISTRY_FILE);
        assert_eq!(journal_mode(&path), "wal");
        // Read as it is while another connection keeps it in WAL mode.
        let other = Connection::open(&path).unwrap();
        let _: i64 = other
            .query_row("SELECT count(*) FROM workspaces", [], |r| r.get(0))
            .unwrap();
        let found = home.registry_to_read().unwrap().unwrap();
        assert_eq!(found.default_registration().unwrap().unwrap().name, "old");
        drop(found);
        {
            let reg = home.registry(false).unwrap().unwrap();
            assert_eq!(reg.default_name().unwrap().as_deref(), Some("old"));
        }
        drop(other);
        // Alone, an open for changes switches it, keeping every row.
        let reg = home.registry(false).unwrap().unwrap();
        assert_eq!(reg.list().unwrap().len(), 1);
        drop(reg);
        assert_eq!(journal_mode(&path), "delete");
        assert!(!home.dir().join("registry.sqlite3-wal").exists());
        let found = home.registry_to_read().unwrap().unwrap();
        assert_eq!(
            found.default_registration().unwrap().unwrap().root,
            dir.path()
        );
    }

    #[test]
    fn an_empty_registry_file_reads_as_none_and_a_foreign_one_is_refused() {
        let (_dir, home) = home();
        std::fs::create_dir_all(home.dir()).unwrap();
        let path = home.dir().join(REGISTRY_FILE);
        std::fs::write(&path, b"").unwrap();
        assert!(home.registry_to_read().unwrap().is_none());
        std::fs::remove_file(&path).unwrap();
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x); PRAGMA application_id = 7;")
            .unwrap();
        let err = home.registry_to_read().err().unwrap();
        assert_eq!(err.code, Code::MigrationError);
    }

    #[test]
    fn register_list_default_remove() {
        let (dir, home) = home();
        let root = dir.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        let mut reg = home.registry(true).unwrap().unwrap();
        reg.create("notes", &root).unwrap();
        assert_eq!(
            reg.create("notes", &root).unwrap_err().code,
            Code::WorkspaceExists
        );
        assert_eq!(
            reg.create("other", &root).unwrap_err().code,
            Code::WorkspaceExists
        );
        assert_eq!(reg.list().unwrap().len(), 1);
        assert_eq!(reg.default_name().unwrap(), None);
        reg.set_default("notes").unwrap();
        assert_eq!(reg.default_name().unwrap().as_deref(), Some("notes"));
        reg.remove("notes").unwrap();
        assert_eq!(reg.default_name().unwrap(), None);
        assert_eq!(reg.get("notes").unwrap_err().code, Code::WorkspaceNotFound);
    }

    #[test]
    fn names_are_checked() {
        for bad in ["", "-x", ".hidden", "a b", "a/b", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        for good in ["notes", "a", "my-proj_2.0"] {
            check_name(good).unwrap();
        }
    }

    #[test]
    fn a_missing_root_cannot_be_registered() {
        let (dir, home) = home();
        let mut reg = home.registry(true).unwrap().unwrap();
        let err = reg.create("x", &dir.path().join("nope")).unwrap_err();
        assert_eq!(err.code, Code::PathNotFound);
    }
}
