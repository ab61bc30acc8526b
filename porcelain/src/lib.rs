//! Filekeeper: safe, predictable filesystem operations, as a library.
//!
//! [`Filekeeper`] is the entry point: it finds the home, manages the workspace registry and
//! opens a [`Workspace`]. Every effect is performed by [`plumbing`]; this crate only composes
//! it, and the `keeper` binary is a thin command line over this API.
//!
//! # A tour
//!
//! Open a workspace, read a file, write it back guarded by the hash the read returned, look
//! at the history, and undo:
//!
//! ```
//! use filekeeper::{Code, Filekeeper, HistoryFilter, MutationOptions, ReadOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let home_dir = tempfile::tempdir()?;
//! # let project = tempfile::tempdir()?;
//! # std::fs::write(project.path().join("notes.md"), "first draft\n")?;
//! // A home holds the registry of workspaces (here a temporary one).
//! let keeper = Filekeeper::new(Some(home_dir.path()))?;
//! keeper.init()?;
//! keeper.create_workspace("notes", project.path())?;
//! let ws = keeper.workspace(Some("notes"), None)?;
//!
//! // A read returns the text and the hash of the whole file.
//! let read = ws.read_file("notes.md", &ReadOptions::default())?;
//! assert_eq!(read.content, "first draft\n");
//!
//! // A write guarded by that hash succeeds only if nobody changed the file since.
//! let options = MutationOptions::default();
//! let written = ws.write_file(
//!     "notes.md",
//!     b"second draft\n",
//!     Some(&read.content_hash),
//!     false, // keep a UTF-8 byte-order mark, if the file has one
//!     &options,
//! )?;
//! assert!(written.changed);
//!
//! // The same guard is now stale: CONTENT_CONFLICT, and nothing changes.
//! let stale = ws.write_file("notes.md", b"lost\n", Some(&read.content_hash), false, &options);
//! assert_eq!(stale.unwrap_err().code, Code::ContentConflict);
//!
//! // Every change is an operation in the journal, newest first.
//! let history = ws.list_history(&HistoryFilter::default())?;
//! assert_eq!(history.operations.len(), 1);
//! assert!(history.operations[0].undoable);
//!
//! // Undo puts the old bytes back (and is itself an operation that can be undone).
//! ws.undo_last(None, &options)?;
//! assert_eq!(std::fs::read(project.path().join("notes.md"))?, b"first draft\n");
//! # Ok(())
//! # }
//! ```

pub use filekeeper_plumbing as plumbing;
pub use plumbing::{Code, Error, ObjectId, Result};

mod cursor;
mod diff;
pub mod documents;
mod edit;
pub mod envelope;
mod file_diff;
mod find_up;
mod grep;
mod history;
mod listing;
mod mutate;
pub mod quote;
mod read;
mod read_bytes;
pub mod retention;
pub mod schemas;
mod status;
mod suggest;
mod text;
mod time;

pub use edit::{EditGuards, FileReport, HunkReport, Landed, MergeReport, Policy, Position};
pub use file_diff::{DiffOptions, FileDiff};
pub use find_up::FoundUp;
pub use grep::{GrepMatch, GrepOptions, GrepResult};
pub use history::{
    HISTORY_DIFF_MAX_BYTES, HistoryDiff, HistoryEntry, HistoryFilter, HistoryOperation, PathDiff,
};
pub use listing::{ListEntry, ListOptions, Listing};
pub use mutate::{
    Change, MutationDiff, MutationExtra, MutationItem, MutationOptions, MutationResult,
};
pub use read::{Existence, FileInfo, ManyItem, ReadOptions, ReadResult, numbered, push_numbered};
pub use read_bytes::{ByteRange, ReadBytesOptions};
pub use retention::{GcResult, PruneResult, RetentionOptions};
pub use status::{
    JournalStatus, OldestUndoable, RetentionStatus, StoreStatus, WorkspaceStatus, state_word,
};

use plumbing::home::{Home, Registration};
use std::path::Path;

/// LIMIT_EXCEEDED for an input above a configured size, the same from every surface.
pub fn too_large(what: &str, len: u64, limit_name: &str, limit: u64) -> Error {
    Error::new(
        Code::LimitExceeded,
        format!("the {what} is {len} bytes, above {limit_name} {limit}"),
    )
    .with("limit", limit)
    .with("requested", len)
}

/// One selected workspace: the operations of the library API.
pub struct Workspace {
    inner: plumbing::workspace::Workspace,
}

impl Workspace {
    /// The registered name, or `None` for a transient `--root` workspace.
    pub fn name(&self) -> Option<&str> {
        self.inner.name.as_deref()
    }

    /// Where this workspace's journal and objects live: in its tree or under the home.
    /// `None` while it has recorded nothing; asking never creates the state.
    pub fn state_location(&self) -> Result<Option<plumbing::config::StateLocation>> {
        self.inner.state_location()
    }

    /// The plumbing underneath, for the plumbing commands.
    pub fn plumbing(&self) -> &plumbing::workspace::Workspace {
        &self.inner
    }

    /// The plumbing workspace itself, for a caller that goes on with plumbing alone (the
    /// plumbing commands of `keeper`).
    pub fn into_plumbing(self) -> plumbing::workspace::Workspace {
        self.inner
    }
}

/// A handle on one Filekeeper home.
pub struct Filekeeper {
    home: Home,
}

/// What `init` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitReport {
    /// Whether `config.toml` was written now (it is never overwritten).
    pub config_written: bool,
}

/// A registered workspace as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceEntry {
    /// Its name, root and when it was registered.
    pub registration: Registration,
    /// Whether it is the home's default workspace, the one opened when neither a name nor a
    /// root is given.
    pub is_default: bool,
}

impl Filekeeper {
    /// The home named by `home`, else `FILEKEEPER_HOME`, else the platform default.
    pub fn new(home: Option<&Path>) -> Result<Filekeeper> {
        Ok(Filekeeper {
            home: Home::locate(home)?,
        })
    }

    /// The home this handle works in (its directory, `config.toml` and registry).
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// Creates the home directory, `config.toml` and the workspace registry.
    pub fn init(&self) -> Result<InitReport> {
        Ok(InitReport {
            config_written: self.home.init()?,
        })
    }

    /// Registers `root` as workspace `name`, creating the home's registry if needed.
    pub fn create_workspace(&self, name: &str, root: &Path) -> Result<Registration> {
        // A request refused for its own arguments leaves no new home behind.
        plumbing::home::check_name(name)?;
        // An empty root would be the current directory, whatever it is; no path holds a NUL.
        let bytes = root.as_os_str().as_encoded_bytes();
        if bytes.is_empty() || bytes.contains(&0) {
            let what = if bytes.is_empty() {
                "the workspace root is empty"
            } else {
                "the workspace root contains a NUL byte"
            };
            return Err(Error::invalid(what).with("name", name));
        }
        if !root.is_dir() {
            return Err(Error::new(
                plumbing::Code::PathNotFound,
                "the workspace root must be an existing directory",
            )
            .path(&root.to_string_lossy())
            .with("name", name));
        }
        self.registry()?.create(name, root)
    }

    /// Every registered workspace, sorted by name, with the default marked. A home without a
    /// registry has none, and asking does not create one.
    pub fn list_workspaces(&self) -> Result<Vec<WorkspaceEntry>> {
        let Some(reg) = self.home.registry(false)? else {
            return Ok(Vec::new());
        };
        let default = reg.default_name()?;
        Ok(reg
            .list()?
            .into_iter()
            .map(|registration| WorkspaceEntry {
                is_default: default.as_deref() == Some(registration.name.as_str()),
                registration,
            })
            .collect())
    }

    /// One registered workspace by name; WORKSPACE_NOT_FOUND when there is none by that name.
    pub fn show_workspace(&self, name: &str) -> Result<WorkspaceEntry> {
        self.list_workspaces()?
            .into_iter()
            .find(|w| w.registration.name == name)
            .ok_or_else(|| plumbing::home::workspace_not_found(name))
    }

    /// Makes `name` the default workspace.
    pub fn use_workspace(&self, name: &str) -> Result<Registration> {
        // With no registry yet there is no workspace to use, and none is created to say so.
        match self.home.registry(false)? {
            Some(mut registry) => registry.set_default(name),
            None => Err(plumbing::home::workspace_not_found(name)),
        }
    }

    /// Forgets a registration. The workspace's files and its `.filekeeper/` are left alone.
    pub fn remove_workspace(&self, name: &str) -> Result<Registration> {
        let mut reg = self
            .home
            .registry(false)?
            .ok_or_else(|| plumbing::home::workspace_not_found(name))?;
        reg.remove(name)
    }

    /// Opens a workspace: by name, else by root, else the default; never a guess.
    pub fn workspace(&self, name: Option<&str>, root: Option<&Path>) -> Result<Workspace> {
        Ok(Workspace {
            inner: plumbing::workspace::Workspace::select(self.home.clone(), name, root)?,
        })
    }

    fn registry(&self) -> Result<plumbing::home::Registry> {
        self.home
            .registry(true)?
            .ok_or_else(|| Error::internal("registry was not created"))
    }
}

/// Entry points for the fuzz targets in `t/fuzz/`; not an API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub use edit::fuzzing;
