//! A selected workspace: its confined root, its limits, and where its state lives.
//!
//! State (`journal.sqlite3` and `objects/`) is created lazily by the first command that must
//! record something. Project-local state goes in `<root>/.filekeeper/`; when the root cannot
//! host it and the location is not pinned, state falls back to `<home>/state/<id>/` and every
//! response that touched it says so.

use crate::config::{Limits, Retention, StateLocation};
use crate::durable::{create_dir_if_missing, sync_dir};
use crate::error::{Argument, Code, Error, Operation, Result};
use crate::home::{Home, workspace_not_found};
use crate::journal::{self, Item, Journal, NewOperation, Status};
use crate::odb::ObjectStore;
use crate::publish::{self, Expect};
use crate::resolve::{Intent, Kind, Root, STATE_DIR_NAME};
use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// A selected workspace: the root every path is confined to, the home it was found through,
/// and the limits in force.
pub struct Workspace {
    /// The registered name; `None` for a transient `--root` workspace.
    pub name: Option<String>,
    /// The open root, through which every path of this workspace is resolved.
    pub root: Root,
    /// The Filekeeper home: its registry, its config, and the fallback for state.
    pub home: Home,
    /// The limits from the home's `config.toml`, read when the workspace was selected.
    pub limits: Limits,
    /// The history retention policy from the same file (`[history]`), read with the limits.
    pub retention: Retention,
    /// The state directory once [`Workspace::state`] has found one: a state directory is
    /// never removed by Filekeeper, so a process that looks again (a command does two or three
    /// times; the MCP server on every read that keeps its snapshot) need not search for it
    /// each time. Someone else may remove it (`git clean -fdx`), so each look still checks
    /// that it is there, and searches again (making it anew for a change) when it is not.
    found: OnceLock<State>,
    /// Set by a caller whose change writes `.gitignore` itself, before the change creates the
    /// state: the `.filekeeper/` line is then added after that change, not before it, where it
    /// would make the caller's own request fail (see [`Workspace::defer_gitignore`]).
    gitignore_deferred: AtomicBool,
    /// The state was created in a git repository with the `.gitignore` edit deferred: the
    /// caller owes it ([`Workspace::add_deferred_gitignore`]).
    gitignore_due: AtomicBool,
}

/// An existing state directory.
#[derive(Clone)]
pub struct State {
    /// The state directory's host path: `<root>/.filekeeper/` or `<home>/state/<id>/`.
    pub dir: PathBuf,
    /// Which of the two places `dir` is: decided here, where the state is found or made, so
    /// no caller has to guess it from `dir` or the notices.
    pub location: StateLocation,
    /// Things the response should tell the caller (a fallback, a `.gitignore` edit).
    pub notices: Vec<String>,
}

impl State {
    /// The object store in `objects/`; nothing is created until the first write.
    pub fn store(&self) -> ObjectStore {
        ObjectStore::at(self.dir.join("objects"))
    }

    /// The journal, created if this state has none yet.
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
        let config = home.config()?;
        let (name, root_path) = if let Some(name) = name {
            let reg = home
                .registry_to_read()?
                .ok_or_else(|| workspace_not_found(name))?;
            (Some(name.to_owned()), reg.get(name)?.root)
        } else if let Some(root) = root {
            crate::home::check_given_dir(root, Argument::Root, "the workspace directory")?;
            (None, root.to_path_buf())
        } else {
            let no_default = || {
                Error::new(
                    Code::NoWorkspaceSelected,
                    "no workspace selected and no default set",
                )
                .hint(crate::words![
                    "pass ",
                    Argument::Workspace,
                    " or ",
                    Argument::Root,
                    ", or set a default with ",
                    Operation::UseWorkspace,
                ])
            };
            let found = home.default_registration()?.ok_or_else(no_default)?;
            (Some(found.name), found.root)
        };
        // A root the caller named is the caller's own path, and an error about it says so; a
        // registered root is not repeated (the caller named the workspace, not the path).
        let mut root = Root::open(&root_path).map_err(|e| match (&name, root) {
            (None, Some(given)) => e.path(&given.to_string_lossy()),
            _ => e,
        })?;
        root.reserve_home(home.dir());
        Ok(Workspace {
            name,
            root,
            home,
            limits: config.limits,
            retention: config.retention,
            found: OnceLock::new(),
            gitignore_deferred: AtomicBool::new(false),
            gitignore_due: AtomicBool::new(false),
        })
    }

    /// Asks that a state created by the next [`Workspace::state`]`(true)` leave `.gitignore`
    /// alone for now: the change about to be made writes `.gitignore` itself (creates it,
    /// replaces it against a hash, patches it), and an edit made first would turn that
    /// request into a conflict with Filekeeper's own line. The caller adds the line once its
    /// change is made, with [`Workspace::add_deferred_gitignore`].
    pub fn defer_gitignore(&self) {
        self.gitignore_deferred.store(true, Ordering::Relaxed);
    }

    /// Whether the state was created with its `.gitignore` edit deferred, and the edit is
    /// still owed ([`Workspace::add_deferred_gitignore`]).
    pub fn gitignore_is_due(&self) -> bool {
        self.gitignore_due.load(Ordering::Relaxed)
    }

    /// Adds `.filekeeper/` to `.gitignore` when the state was created with the edit deferred
    /// ([`Workspace::defer_gitignore`]): an operation of its own, after the caller's. Returns
    /// the notice to give, if an edit was made. The caller proves it holds the workspace lock
    /// by passing it.
    pub fn add_deferred_gitignore(
        &self,
        state: &State,
        lock: &crate::lock::WorkspaceLock,
    ) -> Result<Option<String>> {
        if !self.gitignore_due.swap(false, Ordering::Relaxed) {
            return Ok(None);
        }
        Ok(self
            .ignore_state(state, lock)?
            .map(|id| format!("added .filekeeper/ to .gitignore ({id})")))
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
        // The state is found by the root's path and the files by its descriptor: both must
        // name the same directory.
        self.root.check_still_here()?;
        // Looked at without following a link: `find_state` refuses a state path that is one.
        if let Some(found) = self.found.get()
            && std::fs::symlink_metadata(&found.dir).is_ok_and(|m| m.is_dir())
        {
            return Ok(Some(found.clone()));
        }
        let state = self.find_state(create)?;
        // A state just created may carry notices that are said once (a `.gitignore` edit);
        // the next look finds it as every later one will, and is the one kept.
        if let Some(state) = &state
            && !create
        {
            let _ = self.found.set(state.clone());
        }
        Ok(state)
    }

    fn find_state(&self, create: bool) -> Result<Option<State>> {
        let project = self.project_dir();
        let global = self.global_dir();
        match self.limits.state_location {
            Some(StateLocation::Global) => self.global_state(global, create, None),
            Some(StateLocation::Project) => {
                if exists_checked(&project)? {
                    return Ok(Some(State {
                        dir: project,
                        location: StateLocation::Project,
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
                        location: StateLocation::Project,
                        notices: vec![],
                    }));
                }
                let fallback = "state is kept under the Filekeeper home because the workspace root cannot hold .filekeeper/";
                if global.is_dir() {
                    return Ok(Some(State {
                        dir: global,
                        location: StateLocation::Global,
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

    /// Where the state lives, found as [`Workspace::state`] finds it and never created:
    /// `None` while the workspace has recorded nothing.
    pub fn state_location(&self) -> Result<Option<StateLocation>> {
        Ok(self.state(false)?.map(|state| state.location))
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
            location: StateLocation::Global,
            notices: notice.map(str::to_owned).into_iter().collect(),
        }))
    }

    fn create_project_state(&self, project: &Path) -> io::Result<State> {
        let created = create_dir_if_missing(project)?;
        if created {
            sync_dir(self.root.host_path())?;
        }
        let mut state = State {
            dir: project.to_path_buf(),
            location: StateLocation::Project,
            notices: Vec::new(),
        };
        if created && self.in_git_repository() {
            if self.gitignore_deferred.load(Ordering::Relaxed) {
                self.gitignore_due.store(true, Ordering::Relaxed);
                return Ok(state);
            }
            // Under the lock, as every change: another keeper that found the new directory
            // may be changing `.gitignore` itself.
            let added =
                crate::lock::lock_state(&state).and_then(|lock| self.ignore_state(&state, &lock));
            state.notices.push(match added {
                Ok(Some(id)) => format!("added .filekeeper/ to .gitignore ({id})"),
                Ok(None) => return Ok(state),
                // The change this state was made for goes on; only the line is missing, and
                // no later change adds it (the state exists by then), so the notice says so.
                Err(e) => format!(
                    "could not add .filekeeper/ to .gitignore ({}); add the line yourself, or git may take the journal and its blobs for files to commit",
                    e.message
                ),
            });
        }
        Ok(state)
    }

    fn in_git_repository(&self) -> bool {
        self.root
            .host_path()
            .ancestors()
            .any(|dir| dir.join(".git").exists())
    }

    /// Whether the first change here would add `.filekeeper/` to `.gitignore` (a dry run says
    /// so): the workspace has no state yet, would keep it in the tree, lies in a git
    /// repository, and its `.gitignore` is absent or a file without the line.
    pub fn gitignore_edit_due(&self) -> Result<bool> {
        if self.state(false)?.is_some()
            || self.limits.state_location == Some(StateLocation::Global)
            || !self.in_git_repository()
        {
            return Ok(false);
        }
        Ok(self.gitignore_lacking_line()?.is_some())
    }

    /// The root's `.gitignore`, resolved for writing, with its bytes and mode (`None` when
    /// it is absent), when no line of it ignores `.filekeeper/` and no other `.gitignore` of
    /// the repository does; `None` when one does, or when it is a link, a directory or a
    /// special file, which are left alone.
    #[allow(clippy::type_complexity)]
    fn gitignore_lacking_line(
        &self,
    ) -> Result<Option<(crate::resolve::Resolved, Option<(Vec<u8>, u32)>)>> {
        let write = Intent::Write {
            allow_sensitive: false,
        };
        let Ok(target) = self.root.resolve(".gitignore", write) else {
            return Ok(None);
        };
        let before = match target.kind {
            Some(Kind::File) => {
                let mut file = target.open_file()?;
                let mode = file
                    .metadata()
                    .map_err(|e| Error::storage("inspecting .gitignore", &e))?
                    .permissions()
                    .mode()
                    & 0o7777;
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes)
                    .map_err(|e| Error::storage("reading .gitignore", &e))?;
                Some((bytes, mode))
            }
            None => None,
            Some(Kind::Directory) => return Ok(None),
        };
        let text = before.as_ref().map_or(&[][..], |(b, _)| b.as_slice());
        let already = text.split(|b| *b == b'\n').any(|line| {
            let line = String::from_utf8_lossy(line);
            matches!(
                line.trim(),
                ".filekeeper" | ".filekeeper/" | "/.filekeeper" | "/.filekeeper/"
            )
        });
        // Ignored already by another rule the repository's clones share (a `.gitignore` above
        // a workspace nested in the repository): a line here would add a file or a line that
        // changes nothing. Not by the user's excludes file or `info/exclude`, which another
        // clone does not have: its `git add -A` would commit the journal and its blobs.
        let already = already
            || crate::ignore::shared_rules_ignore_dir(self.root.host_path(), STATE_DIR_NAME);
        Ok((!already).then_some((target, before)))
    }

    /// Appends `.filekeeper/` to the root's `.gitignore` (unless a line already ignores it)
    /// as an operation of its own, in the journal's usual order: both contents stored, a
    /// pending record, the atomic replacement, the commit. So the edit shows in `history
    /// list` and can be undone like any other. A `.gitignore` that is a link, a directory or
    /// a special file is left alone. Returns the operation's id when it made one.
    fn ignore_state(
        &self,
        state: &State,
        _lock: &crate::lock::WorkspaceLock,
    ) -> Result<Option<String>> {
        const LINE: &[u8] = b".filekeeper/\n";
        let Some((target, before)) = self.gitignore_lacking_line()? else {
            return Ok(None);
        };
        let text = before.as_ref().map_or(&[][..], |(b, _)| b.as_slice());
        let mut after = text.to_vec();
        if !after.is_empty() && !after.ends_with(b"\n") {
            after.push(b'\n');
        }
        after.extend_from_slice(LINE);
        let after_mode = before
            .as_ref()
            .map_or_else(crate::durable::new_file_mode, |(_, m)| *m);
        let store = state.store();
        let before_hash = before.as_ref().map(|(b, _)| store.write(b)).transpose()?;
        let after_hash = store.write(&after)?;
        let mut journal = state.journal()?;
        let id = journal.begin(&NewOperation {
            kind: "ignore_state".into(),
            summary: "Added .filekeeper/ to .gitignore.".into(),
            under_lock: true,
            target_path: Some(".gitignore".into()),
            items: vec![Item {
                path: ".gitignore".into(),
                change: if before.is_some() {
                    "modified"
                } else {
                    "created"
                }
                .into(),
                kind: Kind::File,
                before_exists: before.is_some(),
                after_exists: true,
                before_hash,
                after_hash: Some(after_hash),
                before_mode: before.as_ref().map(|(_, m)| *m),
                after_mode: Some(after_mode),
                history_skipped: false,
            }],
            ..NewOperation::default()
        })?;
        let expect = before_hash.map_or(Expect::Absent, Expect::Hash);
        let published =
            publish::publish(&target, expect, Some(after_mode), Some(after_hash), |out| {
                out.write_all(&after)
                    .map_err(|e| Error::storage("writing .gitignore", &e))
            });
        let to = if published.is_ok() {
            Status::Committed
        } else {
            Status::RolledBack
        };
        let recorded = journal.set_status(&id, &[Status::Pending], to);
        published?;
        // The line is in `.gitignore`: a status that could not be written leaves the edit
        // pending under the lock, and the next change's recovery records it committed from
        // the file. Saying it failed would have the caller add the line a second time.
        drop(recorded);
        Ok(Some(id))
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
