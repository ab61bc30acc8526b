//! A selected workspace: its confined root, its limits, and where its state lives.
//!
//! State (`journal.sqlite3` and `objects/`) is created lazily by the first command that must
//! record something. Project-local state goes in `<root>/.filekeeper/`; when the root cannot
//! host it and the location is not pinned, state falls back to `<home>/state/<id>/` and every
//! response that touched it says so.

use crate::config::{Limits, StateLocation};
use crate::durable::{create_dir_if_missing, replace_file, sync_dir};
use crate::error::{Code, Error, Result};
use crate::home::{Home, workspace_not_found};
use crate::journal::{self, Journal};
use crate::odb::ObjectStore;
use crate::resolve::{Root, STATE_DIR_NAME};
use std::io;
use std::path::{Path, PathBuf};

pub struct Workspace {
    /// The registered name; `None` for a transient `--root` workspace.
    pub name: Option<String>,
    pub root: Root,
    pub home: Home,
    pub limits: Limits,
}

/// An existing state directory.
pub struct State {
    pub dir: PathBuf,
    /// Things the response should tell the caller (a fallback, a `.gitignore` edit).
    pub notices: Vec<String>,
}

impl State {
    pub fn store(&self) -> ObjectStore {
        ObjectStore::at(self.dir.join("objects"))
    }

    pub fn journal(&self) -> Result<Journal> {
        Journal::open(&self.dir.join(journal::FILE_NAME), true)?
            .ok_or_else(|| Error::internal("journal vanished while opening"))
    }

    /// The journal if one has been written; never creates it.
    pub fn existing_journal(&self) -> Result<Option<Journal>> {
        Journal::open(&self.dir.join(journal::FILE_NAME), false)
    }
}

impl Workspace {
    /// Selects a workspace: an explicit name first, then an explicit root, then the default.
    /// Never guesses: with none of the three, NO_WORKSPACE_SELECTED.
    pub fn select(home: Home, name: Option<&str>, root: Option<&Path>) -> Result<Workspace> {
        let limits = home.limits()?;
        let (name, root_path) = if let Some(name) = name {
            let reg = home
                .registry(false)?
                .ok_or_else(|| workspace_not_found(name))?;
            (Some(name.to_owned()), reg.get(name)?.root)
        } else if let Some(root) = root {
            (None, root.to_path_buf())
        } else {
            let no_default = || {
                Error::new(Code::NoWorkspaceSelected, "no workspace selected and no default set")
                    .recovery("pass --workspace NAME or --root PATH, or set a default with `keeper workspace use NAME`")
            };
            let reg = home.registry(false)?.ok_or_else(no_default)?;
            let name = reg.default_name()?.ok_or_else(no_default)?;
            (Some(name.clone()), reg.get(&name)?.root)
        };
        // A root the caller named is the caller's own path, and an error about it says so; a
        // registered root is not repeated (the caller named the workspace, not the path).
        let root = Root::open(&root_path).map_err(|e| match (&name, root) {
            (None, Some(given)) => e.path(&given.to_string_lossy()),
            _ => e,
        })?;
        Ok(Workspace {
            name,
            root,
            home,
            limits,
        })
    }

    fn project_dir(&self) -> PathBuf {
        self.root.host_path().join(STATE_DIR_NAME)
    }

    fn global_dir(&self) -> PathBuf {
        self.home.global_state_dir(self.root.host_path())
    }

    /// The state directory. With `create` false a workspace that never recorded anything has
    /// none, and nothing is created.
    pub fn state(&self, create: bool) -> Result<Option<State>> {
        let project = self.project_dir();
        let global = self.global_dir();
        match self.limits.state_location {
            Some(StateLocation::Global) => self.global_state(global, create, None),
            Some(StateLocation::Project) => {
                if exists_checked(&project)? {
                    return Ok(Some(State {
                        dir: project,
                        notices: vec![],
                    }));
                }
                if !create {
                    return Ok(None);
                }
                self.create_project_state(&project).map(Some).map_err(|e| {
                    Error::storage("state_location is pinned to \"project\" but the workspace root cannot hold .filekeeper/", &e)
                })
            }
            None => {
                if exists_checked(&project)? {
                    return Ok(Some(State {
                        dir: project,
                        notices: vec![],
                    }));
                }
                let fallback = "state is kept under the Filekeeper home because the workspace root cannot hold .filekeeper/";
                if global.is_dir() {
                    return Ok(Some(State {
                        dir: global,
                        notices: vec![fallback.to_owned()],
                    }));
                }
                if !create {
                    return Ok(None);
                }
                if self.root.host_path() == Path::new("/") {
                    return self.global_state(global, true, Some(fallback));
                }
                match self.create_project_state(&project) {
                    Ok(state) => Ok(Some(state)),
                    Err(e) if cannot_host(&e) => self.global_state(global, true, Some(fallback)),
                    Err(e) => Err(Error::storage("creating .filekeeper/", &e)),
                }
            }
        }
    }

    fn global_state(
        &self,
        dir: PathBuf,
        create: bool,
        notice: Option<&str>,
    ) -> Result<Option<State>> {
        if !dir.is_dir() {
            if !create {
                return Ok(None);
            }
            std::fs::create_dir_all(&dir)
                .map_err(|e| Error::storage("creating the global state store", &e))?;
            if let Some(parent) = dir.parent() {
                sync_dir(parent)
                    .map_err(|e| Error::storage("creating the global state store", &e))?;
            }
        }
        Ok(Some(State {
            dir,
            notices: notice.map(str::to_owned).into_iter().collect(),
        }))
    }

    fn create_project_state(&self, project: &Path) -> io::Result<State> {
        let mut notices = Vec::new();
        if create_dir_if_missing(project)? {
            sync_dir(self.root.host_path())?;
            if self.in_git_repository() && self.add_to_gitignore()? {
                notices.push("added .filekeeper/ to .gitignore".to_owned());
            }
        }
        Ok(State {
            dir: project.to_path_buf(),
            notices,
        })
    }

    fn in_git_repository(&self) -> bool {
        self.root
            .host_path()
            .ancestors()
            .any(|dir| dir.join(".git").exists())
    }

    /// Appends `.filekeeper/` to the root's `.gitignore` unless a line already ignores it.
    fn add_to_gitignore(&self) -> io::Result<bool> {
        let path = self.root.host_path().join(".gitignore");
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
            return Ok(false);
        }
        let mut text = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let already = text.split(|b| *b == b'\n').any(|line| {
            let line = String::from_utf8_lossy(line);
            matches!(
                line.trim(),
                ".filekeeper" | ".filekeeper/" | "/.filekeeper" | "/.filekeeper/"
            )
        });
        if already {
            return Ok(false);
        }
        if !text.is_empty() && !text.ends_with(b"\n") {
            text.push(b'\n');
        }
        text.extend_from_slice(b".filekeeper/\n");
        replace_file(&path, &text)?;
        Ok(true)
    }
}

/// Whether `path` exists as our state directory. A symlink there is refused: following it
/// would put the journal wherever the link points.
fn exists_checked(path: &Path) -> Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(true),
        Ok(_) => Err(Error::new(
            Code::StorageError,
            ".filekeeper in the workspace root is not a directory; refusing to use it",
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::storage("inspecting .filekeeper/", &e)),
    }
}

fn cannot_host(err: &io::Error) -> bool {
    use crate::error::libc_errno::EROFS;
    err.kind() == io::ErrorKind::PermissionDenied || err.raw_os_error() == Some(EROFS)
}
