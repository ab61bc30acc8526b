//! `filekeeper._filekeeper`: the library API for Python, the third surface beside `keeper`
//! and `filekeeper-mcp`.
//!
//! Each method takes the MCP tool's arguments as keywords (with the specification's names
//! where it gives them: `start_line`/`end_line` for reads, `allow_sensitive_write` for the
//! credential override) and calls the one `filekeeper` library function the CLI command and
//! the MCP tool call. Nothing here decides anything: a result is the library's, serialized as
//! the other surfaces serialize it (see `records.rs`), and a failure is the library's error
//! worded for Python (see `errors.rs`). The GIL is released while the library works.

mod errors;
mod records;

use errors::{FilekeeperError, rendered, to_python};
use filekeeper::documents::{self, ReadManyItem};
use filekeeper::{
    DiffOptions, EditGuards, Error, GrepOptions, HistoryFilter, ListOptions, MutationOptions,
    Policy, Position, ReadBytesOptions, ReadOptions, Result, WorkspaceEntry,
};
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyList, PyString};
use records::{Class, record};
use serde::Serialize;
use std::path::PathBuf;

/// The result of a library call as a Python object of `class`, or its error as a
/// `FilekeeperError`.
fn answer<T: Serialize>(py: Python<'_>, class: Class, result: Result<T>) -> PyResult<Py<PyAny>> {
    let value = result
        .and_then(|value| {
            serde_json::to_value(value)
                .map_err(|e| Error::internal(format!("a result does not serialize: {e}")))
        })
        .map_err(|err| to_python(py, err))?;
    record(py, class, value)
}

/// Like [`answer`], for a list of results.
fn answer_list<T: Serialize>(
    py: Python<'_>,
    class: Class,
    result: Result<Vec<T>>,
) -> PyResult<Py<PyAny>> {
    let values = result.map_err(|err| to_python(py, err))?;
    let list = PyList::empty(py);
    for value in values {
        list.append(answer(py, class, Ok(value))?)?;
    }
    Ok(list.into_any().unbind())
}

/// Whole-file content: text (written as UTF-8) or bytes (written as they are).
enum Content {
    Text(String),
    Bytes(Vec<u8>),
}

/// Only `str` and `bytes`: a list of ints or a `bytearray` is a TypeError, not bytes, and a
/// `str` holding a lone surrogate (which has no UTF-8) is INVALID_ARGUMENT, as the CLI
/// refuses an argument that is not UTF-8.
impl<'a, 'py> FromPyObject<'a, 'py> for Content {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(text) = obj.cast::<PyString>() {
            return match text.to_cow() {
                Ok(text) => Ok(Content::Text(text.into_owned())),
                Err(_) => Err(to_python(
                    obj.py(),
                    bad_keyword(
                        "content is a str that has no UTF-8 form (it holds a lone surrogate); pass bytes to write bytes as they are".to_owned(),
                        "content",
                    ),
                )),
            };
        }
        if let Ok(bytes) = obj.cast::<PyBytes>() {
            return Ok(Content::Bytes(bytes.as_bytes().to_vec()));
        }
        Err(PyTypeError::new_err(format!(
            "content must be str or bytes, not {}",
            obj.get_type().name()?
        )))
    }
}

impl Content {
    fn as_bytes(&self) -> &[u8] {
        match self {
            Content::Text(text) => text.as_bytes(),
            Content::Bytes(bytes) => bytes,
        }
    }
}

/// The keywords every mutation takes.
fn options(
    dry_run: bool,
    actor: Option<String>,
    task_id: Option<String>,
    allow_sensitive_write: bool,
) -> MutationOptions {
    MutationOptions {
        dry_run,
        actor,
        task_id,
        allow_sensitive_write,
    }
}

/// A Python int of any size, taken as it is so that [`natural`] can refuse it naming its
/// keyword (extracting a Rust integer would raise Python's OverflowError instead).
enum Int {
    Fits(i128),
    /// Past 128 bits; `negative` says on which side.
    Huge {
        negative: bool,
    },
}

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        // `bool` is a subclass of `int`, and `True` would be line 1: refused as the other
        // surfaces refuse a boolean where a number belongs, and as `dry_run=1` is refused.
        if obj.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err(
                "a line number or count must be an int, not a bool",
            ));
        }
        match obj.extract::<i128>() {
            Ok(value) => Ok(Int::Fits(value)),
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Ok(Int::Huge {
                negative: obj.lt(0)?,
            }),
            Err(e) => Err(e),
        }
    }
}

/// A count or line number given as a Python int: a negative one, or one past the 64 bits
/// the other surfaces take, is INVALID_ARGUMENT naming the keyword, as they refuse theirs.
fn natural(keyword: &str, value: Int) -> Result<u64> {
    let (negative, shown) = match value {
        Int::Fits(value) => match u64::try_from(value) {
            Ok(fits) => return Ok(fits),
            Err(_) => (value < 0, value.to_string()),
        },
        Int::Huge { negative } => (negative, "a number over 128 bits long".to_owned()),
    };
    let why = if negative {
        "cannot be negative"
    } else {
        "is too large"
    };
    Err(bad_keyword(format!("{keyword} {why} ({shown})"), keyword))
}

/// INVALID_ARGUMENT about the keyword `keyword`, pointing where the keywords are described,
/// as the command line points to `keeper help` and the MCP server to a tool's inputSchema.
fn bad_keyword(message: String, keyword: &str) -> Error {
    Error::invalid(message)
        .with("argument", keyword)
        .recovery("help() of the method names its keywords and what each takes")
}

/// [`natural`] for an optional keyword.
fn natural_opt(keyword: &str, value: Option<Int>) -> Result<Option<u64>> {
    value.map(|v| natural(keyword, v)).transpose()
}

/// A keyword's value checked before the call: its refusal raised as `FilekeeperError`.
fn checked<T>(py: Python<'_>, value: Result<T>) -> PyResult<T> {
    value.map_err(|e| to_python(py, e))
}

fn policy(word: &str) -> Result<Policy> {
    match word {
        "first" => Ok(Policy::First),
        "all" => Ok(Policy::All),
        other => Err(bad_keyword(
            format!("policy must be \"first\" or \"all\", not {other:?}"),
            "policy",
        )),
    }
}

fn position(word: &str) -> Result<Position> {
    match word {
        "before" => Ok(Position::Before),
        "after" => Ok(Position::After),
        "end" => Ok(Position::End),
        other => Err(bad_keyword(
            format!("position must be \"before\", \"after\" or \"end\", not {other:?}"),
            "position",
        )),
    }
}

/// A handle on one Filekeeper home: its workspace registry, and the way to open a workspace.
#[pyclass(frozen, module = "filekeeper")]
struct Filekeeper {
    inner: filekeeper::Filekeeper,
}

#[pymethods]
impl Filekeeper {
    /// The home named by `home`, else `FILEKEEPER_HOME`, else the platform default.
    #[new]
    #[pyo3(signature = (home = None))]
    fn new(py: Python<'_>, home: Option<PathBuf>) -> PyResult<Self> {
        let inner = filekeeper::Filekeeper::new(home.as_deref()).map_err(|e| to_python(py, e))?;
        Ok(Filekeeper { inner })
    }

    /// Creates the home directory, `config.toml` and the workspace registry.
    fn init(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let report = py.detach(|| self.inner.init());
        let home = self.inner.home().dir().display().to_string();
        let done = report.map(|report| documents::Initialised {
            home,
            config_written: report.config_written,
        });
        answer(py, Class::InitReport, done)
    }

    /// Registers `root` (an existing directory) as workspace `name`.
    fn create_workspace(&self, py: Python<'_>, name: &str, root: PathBuf) -> PyResult<Py<PyAny>> {
        let created = py.detach(|| self.inner.create_workspace(name, &root));
        let entry = created.map(|registration| WorkspaceEntry {
            registration,
            is_default: false,
        });
        answer(
            py,
            Class::WorkspaceRecord,
            entry.map(|entry| record_of(&entry)),
        )
    }

    /// Every registered workspace.
    fn list_workspaces(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let listed = py.detach(|| self.inner.list_workspaces());
        let records = listed.map(|entries| entries.iter().map(record_of).collect::<Vec<_>>());
        answer_list(py, Class::WorkspaceRecord, records)
    }

    /// One registered workspace.
    fn show_workspace(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        let shown = py.detach(|| self.inner.show_workspace(name));
        answer(
            py,
            Class::WorkspaceRecord,
            shown.map(|entry| record_of(&entry)),
        )
    }

    /// Makes `name` the default workspace.
    fn use_workspace(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        let used = py.detach(|| self.inner.use_workspace(name));
        let entry = used.map(|registration| WorkspaceEntry {
            registration,
            is_default: true,
        });
        answer(
            py,
            Class::WorkspaceRecord,
            entry.map(|entry| record_of(&entry)),
        )
    }

    /// Forgets a registration; the workspace's files and its `.filekeeper/` are left alone.
    fn remove_workspace(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        let removed = py.detach(|| self.inner.remove_workspace(name));
        let entry = removed.map(|registration| WorkspaceEntry {
            registration,
            is_default: false,
        });
        answer(
            py,
            Class::WorkspaceRecord,
            entry.map(|entry| record_of(&entry)),
        )
    }

    /// Opens a workspace: by `name`, else by `root` (a transient workspace), else the
    /// default. Never a guess.
    #[pyo3(signature = (name = None, root = None))]
    fn workspace(
        &self,
        py: Python<'_>,
        name: Option<&str>,
        root: Option<PathBuf>,
    ) -> PyResult<Workspace> {
        let opened = py.detach(|| self.inner.workspace(name, root.as_deref()));
        let inner = opened.map_err(|e| to_python(py, e))?;
        Ok(Workspace { inner })
    }
}

fn record_of(entry: &WorkspaceEntry) -> documents::WorkspaceRecord {
    entry.into()
}

/// One open workspace: every read, mutation, edit and history operation.
#[pyclass(frozen, module = "filekeeper")]
struct Workspace {
    inner: filekeeper::Workspace,
}

#[pymethods]
impl Workspace {
    /// The registered name, or None for a workspace opened by `root`.
    #[getter]
    fn name(&self) -> Option<String> {
        self.inner.name().map(str::to_owned)
    }

    /// The workspace's name, limits and where its state lives (`project` or `home`, None
    /// while it has none).
    fn workspace_info(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let info = py.detach(|| {
            let state = self.inner.state_location()?.map(filekeeper::state_word);
            Ok(documents::WorkspaceInfo {
                name: self.inner.name().map(str::to_owned),
                state,
                limits: self.inner.plumbing().limits.clone(),
            })
        });
        answer(py, Class::WorkspaceInfo, info)
    }

    /// The workspace's history: operations (pending, undoable, undone, pruned), the oldest
    /// undoable one, the object store's objects and bytes, and the retention policy. A read:
    /// a workspace with no history reports zeros and none is created.
    fn status(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let status = py.detach(|| self.inner.status());
        answer(py, Class::WorkspaceStatus, status)
    }

    // Reads.

    /// Lines `start_line..=end_line` (1-based) of a text file, at most `max_bytes` and
    /// `max_lines`, with `content_hash` to guard a later write.
    #[pyo3(signature = (path, *, start_line = None, end_line = None, max_bytes = None, max_lines = None, encoding = None, snapshot = false))]
    #[allow(clippy::too_many_arguments)]
    fn read_file(
        &self,
        py: Python<'_>,
        path: &str,
        start_line: Option<Int>,
        end_line: Option<Int>,
        max_bytes: Option<Int>,
        max_lines: Option<Int>,
        encoding: Option<String>,
        snapshot: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = ReadOptions {
            from_line: checked(py, natural_opt("start_line", start_line))?,
            to_line: checked(py, natural_opt("end_line", end_line))?,
            max_bytes: checked(py, natural_opt("max_bytes", max_bytes))?,
            max_lines: checked(py, natural_opt("max_lines", max_lines))?,
            encoding,
            snapshot,
        };
        let read = py.detach(|| self.inner.read_file(path, &options));
        answer(py, Class::ReadResult, read)
    }

    /// Several text files at once: one `ReadResult` or `FailedPath` per path, in order.
    #[pyo3(signature = (paths, *, start_line = None, end_line = None, max_bytes_per_file = None, max_lines_per_file = None, encoding = None))]
    #[allow(clippy::too_many_arguments)]
    fn read_many(
        &self,
        py: Python<'_>,
        paths: Vec<String>,
        start_line: Option<Int>,
        end_line: Option<Int>,
        max_bytes_per_file: Option<Int>,
        max_lines_per_file: Option<Int>,
        encoding: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let options = ReadOptions {
            from_line: checked(py, natural_opt("start_line", start_line))?,
            to_line: checked(py, natural_opt("end_line", end_line))?,
            max_bytes: checked(py, natural_opt("max_bytes_per_file", max_bytes_per_file))?,
            max_lines: checked(py, natural_opt("max_lines_per_file", max_lines_per_file))?,
            encoding,
            snapshot: false,
        };
        let read = py.detach(|| self.inner.read_many(&paths, &options));
        let items = read.map_err(|e| to_python(py, e))?;
        let list = PyList::empty(py);
        for item in items {
            let (class, item) = match ReadManyItem::new(item, rendered) {
                ReadManyItem::Read(read) => (Class::ReadResult, serialize(read)),
                ReadManyItem::Failed(failed) => (Class::FailedPath, serialize(failed)),
            };
            list.append(answer(py, class, item)?)?;
        }
        Ok(list.into_any().unbind())
    }

    /// A directory's entries, sorted; symlinks reported, never followed.
    /// With `cursor` (a page's `next_cursor`), continues after that page.
    #[pyo3(signature = (path = None, *, recursive = false, glob = None, max_entries = None, cursor = None))]
    fn list_directory(
        &self,
        py: Python<'_>,
        path: Option<&str>,
        recursive: bool,
        glob: Option<String>,
        max_entries: Option<Int>,
        cursor: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let options = ListOptions {
            recursive,
            glob,
            max_entries: checked(py, natural_opt("max_entries", max_entries))?,
            cursor,
        };
        let listed = py.detach(|| self.inner.list(path, &options));
        answer(py, Class::Listing, listed)
    }

    /// Kind, size, mode and modification time; for files also text facts and the hash.
    fn file_info(&self, py: Python<'_>, path: &str) -> PyResult<Py<PyAny>> {
        let info = py.detach(|| self.inner.info(path));
        answer(py, Class::FileInfo, info)
    }

    /// The content hash and size of a file.
    fn hash_file(&self, py: Python<'_>, path: &str) -> PyResult<Py<PyAny>> {
        let hashed = py.detach(|| self.inner.hash_file(path));
        let hashed = hashed.map(|(hash, size_bytes)| documents::FileHash {
            path: path.to_owned(),
            hash,
            size_bytes,
        });
        answer(py, Class::FileHash, hashed)
    }

    /// Whether something is at `path`, and what.
    fn exists(&self, py: Python<'_>, path: &str) -> PyResult<Py<PyAny>> {
        let existence = py.detach(|| self.inner.exists(path));
        answer(py, Class::Existence, existence)
    }

    /// The nearest entry called exactly `name` in `path`'s directory or above it, up to the
    /// workspace root.
    fn find_up(&self, py: Python<'_>, path: &str, name: &str) -> PyResult<Py<PyAny>> {
        let found = py.detach(|| self.inner.find_up(path, name));
        answer(py, Class::FoundUp, found)
    }

    /// The unified diff from `path` to `other`, two text files of the workspace.
    #[pyo3(signature = (path, other, *, max_bytes = None))]
    fn diff_files(
        &self,
        py: Python<'_>,
        path: &str,
        other: &str,
        max_bytes: Option<Int>,
    ) -> PyResult<Py<PyAny>> {
        let options = DiffOptions {
            max_bytes: checked(py, natural_opt("max_bytes", max_bytes))?,
        };
        let diff = py.detach(|| self.inner.diff_files(path, other, &options));
        answer(py, Class::FileDiff, diff)
    }

    /// Up to `length` bytes of any file from `offset`; `content` is `bytes`.
    #[pyo3(signature = (path, *, offset = None, length = None))]
    fn read_bytes(
        &self,
        py: Python<'_>,
        path: &str,
        offset: Option<Int>,
        length: Option<Int>,
    ) -> PyResult<Py<PyAny>> {
        let options = ReadBytesOptions {
            offset: checked(py, natural_opt("offset", offset))?,
            length: checked(py, natural_opt("length", length))?,
        };
        let range = py.detach(|| self.inner.read_bytes(path, &options));
        answer(py, Class::ByteRange, range)
    }

    /// Paths under `path` matching a glob, honouring the ignore files.
    /// With `cursor` (a page's `next_cursor`), continues after that page.
    #[pyo3(signature = (path, pattern, *, max_results = None, cursor = None))]
    fn search_files(
        &self,
        py: Python<'_>,
        path: &str,
        pattern: &str,
        max_results: Option<Int>,
        cursor: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let max_results = checked(py, natural_opt("max_results", max_results))?;
        let found = py.detach(|| {
            self.inner
                .search(path, pattern, max_results, cursor.as_deref())
        });
        answer(py, Class::Listing, found)
    }

    /// Lines matching `query` (literal text, or a regex with `regex=True`) in the text files
    /// under `path`. With `cursor` (a page's `next_cursor`), continues after that page.
    #[pyo3(signature = (path, query, *, regex = false, glob = None, ignore_case = false, max_results = None, encoding = None, cursor = None))]
    #[allow(clippy::too_many_arguments)]
    fn search_content(
        &self,
        py: Python<'_>,
        path: &str,
        query: &str,
        regex: bool,
        glob: Option<String>,
        ignore_case: bool,
        max_results: Option<Int>,
        encoding: Option<String>,
        cursor: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let options = GrepOptions {
            regex,
            glob,
            ignore_case,
            max_results: checked(py, natural_opt("max_results", max_results))?,
            encoding,
            cursor,
        };
        let found = py.detach(|| self.inner.grep(path, query, &options));
        answer(py, Class::GrepResult, found)
    }

    // Whole files and directories.

    /// Creates a file; an existing one is ALREADY_EXISTS unless `allow_existing=True`.
    #[pyo3(signature = (path, content, *, allow_existing = false, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn create_file(
        &self,
        py: Python<'_>,
        path: &str,
        content: Content,
        allow_existing: bool,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let created = py.detach(|| {
            self.inner
                .create_file(path, content.as_bytes(), allow_existing, &options)
        });
        answer(py, Class::MutationResult, created)
    }

    /// Replaces a file's whole content (creating it when absent); with `expected_hash`, only
    /// while it holds exactly that content.
    #[pyo3(signature = (path, content, *, expected_hash = None, remove_bom = false, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn write_file(
        &self,
        py: Python<'_>,
        path: &str,
        content: Content,
        expected_hash: Option<String>,
        remove_bom: bool,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let written = py.detach(|| {
            self.inner.write_file(
                path,
                content.as_bytes(),
                expected_hash.as_deref(),
                remove_bom,
                &options,
            )
        });
        answer(py, Class::MutationResult, written)
    }

    /// Copies a file; an existing destination is replaced only with its current hash given
    /// as `expected_destination_hash`.
    #[pyo3(signature = (source, destination, *, expected_destination_hash = None, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn copy_file(
        &self,
        py: Python<'_>,
        source: &str,
        destination: &str,
        expected_destination_hash: Option<String>,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let copied = py.detach(|| {
            self.inner.copy_file(
                source,
                destination,
                expected_destination_hash.as_deref(),
                &options,
            )
        });
        answer(py, Class::MutationResult, copied)
    }

    /// Moves (renames) a file; an existing destination only with `overwrite=True`.
    #[pyo3(signature = (source, destination, *, overwrite = false, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn move_file(
        &self,
        py: Python<'_>,
        source: &str,
        destination: &str,
        overwrite: bool,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let moved = py.detach(|| {
            self.inner
                .move_file(source, destination, overwrite, &options)
        });
        answer(py, Class::MutationResult, moved)
    }

    /// Deletes a file (its bytes stay in history); with `expected_hash`, only while it holds
    /// exactly that content.
    #[pyo3(signature = (path, *, expected_hash = None, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn delete_file(
        &self,
        py: Python<'_>,
        path: &str,
        expected_hash: Option<String>,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let deleted = py.detach(|| {
            self.inner
                .delete_file(path, expected_hash.as_deref(), &options)
        });
        answer(py, Class::MutationResult, deleted)
    }

    /// Creates a directory; with `parents=True` every missing level too.
    #[pyo3(signature = (path, *, parents = false, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn create_dir(
        &self,
        py: Python<'_>,
        path: &str,
        parents: bool,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let created = py.detach(|| self.inner.create_dir(path, parents, &options));
        answer(py, Class::MutationResult, created)
    }

    /// Moves a directory and everything in it to a path that does not exist yet.
    #[pyo3(signature = (source, destination, *, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn move_dir(
        &self,
        py: Python<'_>,
        source: &str,
        destination: &str,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let moved = py.detach(|| self.inner.move_dir(source, destination, &options));
        answer(py, Class::MutationResult, moved)
    }

    /// Deletes an empty directory, or with `recursive=True` everything in it.
    #[pyo3(signature = (path, *, recursive = false, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn delete_dir(
        &self,
        py: Python<'_>,
        path: &str,
        recursive: bool,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let deleted = py.detach(|| self.inner.delete_dir(path, recursive, &options));
        answer(py, Class::MutationResult, deleted)
    }

    // Edits.

    /// Replaces literal text: exact first, then with indentation normalised (with a
    /// warning). `policy` is "first" (the text must occur once, or as many times as
    /// `expected_match_count` says) or "all"; `occurrence` (with "first") replaces exactly
    /// the Nth match, 1-based in file order.
    #[pyo3(signature = (path, old, new, *, policy = "first", expected_match_count = None, occurrence = None, expected_content = None, expected_hash = None, base_hash = None, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn replace_text(
        &self,
        py: Python<'_>,
        path: &str,
        old: &str,
        new: &str,
        policy: &str,
        expected_match_count: Option<Int>,
        occurrence: Option<Int>,
        expected_content: Option<String>,
        expected_hash: Option<String>,
        base_hash: Option<String>,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let guards = EditGuards {
            expected_hash,
            expected_content,
            base_hash,
        };
        let replaced = py.detach(|| {
            let occurrence = natural_opt("occurrence", occurrence)?;
            let policy = self::policy(policy)?.with_occurrence(occurrence, path)?;
            let expected_match_count = natural_opt("expected_match_count", expected_match_count)?;
            self.inner.replace_text(
                path,
                old,
                new,
                policy,
                expected_match_count,
                &guards,
                &options,
            )
        });
        answer(py, Class::MutationResult, replaced)
    }

    /// Replaces lines `start..=end` (1-based) with `replacement`.
    #[pyo3(signature = (path, start, end, replacement, *, expected_content = None, expected_hash = None, base_hash = None, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn replace_lines(
        &self,
        py: Python<'_>,
        path: &str,
        start: Int,
        end: Int,
        replacement: &str,
        expected_content: Option<String>,
        expected_hash: Option<String>,
        base_hash: Option<String>,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let guards = EditGuards {
            expected_hash,
            expected_content,
            base_hash,
        };
        let replaced = py.detach(|| {
            self.inner.replace_lines(
                path,
                natural("start", start)?,
                natural("end", end)?,
                replacement,
                &guards,
                &options,
            )
        });
        answer(py, Class::MutationResult, replaced)
    }

    /// Inserts `content` "before" or "after" line `line`, or at the "end" (no line).
    #[pyo3(signature = (path, content, *, position, line = None, expected_content = None, expected_hash = None, base_hash = None, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn insert_lines(
        &self,
        py: Python<'_>,
        path: &str,
        content: &str,
        position: &str,
        line: Option<Int>,
        expected_content: Option<String>,
        expected_hash: Option<String>,
        base_hash: Option<String>,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let guards = EditGuards {
            expected_hash,
            expected_content,
            base_hash,
        };
        let inserted = py.detach(|| {
            let position = self::position(position)?;
            let line = natural_opt("line", line)?;
            self.inner
                .insert_lines(path, position, line, content, &guards, &options)
        });
        answer(py, Class::MutationResult, inserted)
    }

    /// Deletes lines `start..=end` (1-based).
    #[pyo3(signature = (path, start, end, *, expected_content = None, expected_hash = None, base_hash = None, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn delete_lines(
        &self,
        py: Python<'_>,
        path: &str,
        start: Int,
        end: Int,
        expected_content: Option<String>,
        expected_hash: Option<String>,
        base_hash: Option<String>,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let guards = EditGuards {
            expected_hash,
            expected_content,
            base_hash,
        };
        let deleted = py.detach(|| {
            let (start, end) = (natural("start", start)?, natural("end", end)?);
            self.inner.delete_lines(path, start, end, &guards, &options)
        });
        answer(py, Class::MutationResult, deleted)
    }

    /// Applies a unified diff (`diff -u` or `git diff`) or a Codex patch (`*** Begin Patch`)
    /// as one operation: every hunk of every file is checked before anything is written.
    #[pyo3(signature = (patch, *, base_hash = None, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    #[allow(clippy::too_many_arguments)]
    fn apply_patch(
        &self,
        py: Python<'_>,
        patch: &str,
        base_hash: Option<String>,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let applied = py.detach(|| {
            self.inner
                .apply_patch_on(patch, base_hash.as_deref(), &options)
        });
        answer(py, Class::MutationResult, applied)
    }

    // History.

    /// One operation: its record, whether it can be undone and what undid it.
    fn get_operation(&self, py: Python<'_>, operation_id: &str) -> PyResult<Py<PyAny>> {
        let entry = py.detach(|| self.inner.get_operation(operation_id));
        let shown = entry.map(documents::HistoryShow::from);
        answer(py, Class::OperationRecord, shown)
    }

    /// Operations, newest first: those touching `path`, recorded by `actor` or for
    /// `task_id`; at most `limit` (default 20). With `cursor` (a page's `next_cursor`), the
    /// operations older than that page's.
    #[pyo3(signature = (*, path = None, actor = None, task_id = None, limit = None, cursor = None))]
    fn list_history(
        &self,
        py: Python<'_>,
        path: Option<String>,
        actor: Option<String>,
        task_id: Option<String>,
        limit: Option<Int>,
        cursor: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let filter = HistoryFilter {
            path,
            actor,
            task_id,
            limit: checked(py, natural_opt("limit", limit))?,
            cursor,
        };
        let listed = py.detach(|| self.inner.list_history(&filter));
        answer(py, Class::HistoryList, listed)
    }

    /// A unified diff per path of one operation, from the stored contents.
    fn diff_operation(&self, py: Python<'_>, operation_id: &str) -> PyResult<Py<PyAny>> {
        let diff = py.detach(|| self.inner.diff_operation(operation_id));
        answer(py, Class::HistoryDiff, diff)
    }

    /// Restores every path of an operation to its state before it, or changes nothing
    /// (UNDO_CONFLICT names the paths that changed since).
    #[pyo3(signature = (operation_id, *, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    fn undo(
        &self,
        py: Python<'_>,
        operation_id: &str,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let undone = py.detach(|| self.inner.undo(operation_id, &options));
        answer(py, Class::MutationResult, undone)
    }

    /// Undoes the newest operation that can be undone; with `actor`, the newest of that
    /// actor's (and the undo is recorded as theirs).
    #[pyo3(signature = (*, dry_run = false, actor = None, task_id = None, allow_sensitive_write = false))]
    fn undo_last(
        &self,
        py: Python<'_>,
        dry_run: bool,
        actor: Option<String>,
        task_id: Option<String>,
        allow_sensitive_write: bool,
    ) -> PyResult<Py<PyAny>> {
        let filter = actor.clone();
        let options = options(dry_run, actor, task_id, allow_sensitive_write);
        let undone = py.detach(|| self.inner.undo_last(filter.as_deref(), &options));
        answer(py, Class::MutationResult, undone)
    }

    fn __repr__(&self) -> String {
        match self.inner.name() {
            Some(name) => format!("Workspace(name={name:?})"),
            None => "Workspace(name=None)".to_owned(),
        }
    }
}

fn serialize(value: impl Serialize) -> Result<serde_json::Value> {
    serde_json::to_value(value)
        .map_err(|e| Error::internal(format!("a result does not serialize: {e}")))
}

/// The native module: `filekeeper/__init__.py` re-exports what it declares.
#[pymodule]
fn _filekeeper(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("FilekeeperError", module.py().get_type::<FilekeeperError>())?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add("__commit__", filekeeper::plumbing::COMMIT)?;
    module.add_class::<Filekeeper>()?;
    module.add_class::<Workspace>()?;
    records::register(module)
}
