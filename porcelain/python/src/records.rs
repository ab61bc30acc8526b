//! Results as typed Python objects, made from the very JSON every other surface prints.
//!
//! A result is serialized by the library exactly as `keeper --json` and the MCP server
//! serialize it, and kept as that JSON object. Python sees it through a class per kind of
//! result (`MutationResult`, `ReadResult`, ...), whose attributes are the object's fields:
//! so a Python result can never hold a field, or a value, that the JSON documents do not,
//! and `to_dict()` gives back exactly the document's fields. One kind of value differs: bytes,
//! which a document carries as base64 (`ByteRange.content`), are read as Python `bytes`;
//! `to_dict()` keeps the document's base64 text. The classes' attribute types are
//! declared in `python/filekeeper/_filekeeper.pyi`, and `tests/test_stubs.py` checks those
//! declarations against the published JSON schemas.

use base64::Engine;
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde_json::{Map, Value};

/// The base of every result class: a JSON object whose fields are read as attributes.
#[pyclass(subclass, frozen, module = "filekeeper")]
pub struct Record {
    class: Class,
    fields: Map<String, Value>,
}

#[pymethods]
impl Record {
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        // A field named like a Python keyword (`from`) is read with a trailing underscore.
        let field = match name.strip_suffix('_') {
            Some(keyword) if !self.fields.contains_key(name) => keyword,
            _ => name,
        };
        match self.fields.get(field) {
            // The JSON documents carry bytes as base64; Python gets them as `bytes`.
            Some(Value::String(text)) if self.class.bytes(field) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map_err(|e| {
                        pyo3::exceptions::PyValueError::new_err(format!(
                            "{field} is not base64: {e}"
                        ))
                    })?;
                Ok(PyBytes::new(py, &bytes).into_any().unbind())
            }
            Some(value) => convert(py, self.class.nested(field), value),
            None if self.class.optional(field) => Ok(py.None()),
            None => Err(PyAttributeError::new_err(format!(
                "{} has no field {name:?}",
                self.class.name()
            ))),
        }
    }

    fn __dir__(&self) -> Vec<String> {
        let mut names: Vec<String> = self.fields.keys().cloned().collect();
        names.push("to_dict".into());
        if self.class == Class::ReadResult {
            names.push("numbered".into());
        }
        names
    }

    /// The result as the plain dict of its JSON document's fields.
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        plain(py, &Value::Object(self.fields.clone()))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Record>() {
            Ok(other) => {
                let other = other.get();
                other.class == self.class && other.fields == self.fields
            }
            Err(_) => false,
        }
    }

    fn __repr__(&self) -> String {
        let fields: Vec<String> = self
            .fields
            .iter()
            .map(|(name, value)| format!("{name}={}", python_literal(value)))
            .collect();
        format!("{}({})", self.class.name(), fields.join(", "))
    }
}

/// Declares the result classes, and for each the fields that hold nested results.
macro_rules! classes {
    ($($(#[$doc:meta])* $name:ident { $($field:literal => $nested:ident),* })*) => {
        $(
            $(#[$doc])*
            #[pyclass(extends = Record, frozen, module = "filekeeper")]
            pub struct $name;
        )*

        /// Which result class a JSON object is shown as.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Class { $($name,)* }

        impl Class {
            fn name(self) -> &'static str {
                match self { $(Class::$name => stringify!($name),)* }
            }

            /// The class of the results held in `field`, when it holds results.
            fn nested(self, field: &str) -> Option<Class> {
                match (self, field) {
                    $($((Class::$name, $field) => Some(Class::$nested),)*)*
                    _ => None,
                }
            }

            fn instantiate(self, py: Python<'_>, fields: Map<String, Value>) -> PyResult<Py<PyAny>> {
                let base = Record { class: self, fields };
                match self {
                    $(Class::$name => Ok(Bound::new(
                        py,
                        PyClassInitializer::from(base).add_subclass($name),
                    )?
                    .into_any()
                    .unbind()),)*
                }
            }
        }

        /// Adds every result class to the module.
        pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
            module.add_class::<Record>()?;
            $(module.add_class::<$name>()?;)*
            Ok(())
        }
    };
}

classes! {
    /// What `init` did.
    InitReport {}
    /// A registered workspace.
    WorkspaceRecord {}
    /// The open workspace: its name, limits and where its state lives.
    WorkspaceInfo {}
    /// Lines of a text file and the facts needed to write it back safely.
    ReadResult {}
    /// One path of `read_many` that could not be read.
    FailedPath { "error" => ErrorBody }
    /// A failure as the JSON envelope has it.
    ErrorBody {}
    /// A directory listing or a file search.
    Listing { "entries" => ListEntry }
    /// One entry of a listing.
    ListEntry {}
    /// What `file_info` reports of a path.
    FileInfo {}
    /// What `hash_file` reports.
    FileHash {}
    /// What `exists` reports.
    Existence {}
    /// A content search.
    GrepResult { "matches" => GrepMatch }
    /// One matching line.
    GrepMatch {}
    /// The result of every mutation.
    MutationResult {
        "items" => MutationItem,
        "diffs" => MutationDiff,
        "patch_files" => FileReport,
        "skipped_operations" => PassedOver,
        "merged" => MergeReport
    }
    /// How an edit made on an older version was merged.
    MergeReport { "landed" => Landed }
    /// Where one change of a merged edit landed.
    Landed {}
    /// One path a mutation touched.
    MutationItem {}
    /// What a mutation did to one path: its diff, or why there is none.
    MutationDiff {}
    /// One file of an applied patch.
    FileReport { "hunks" => HunkReport }
    /// One hunk of a patched file.
    HunkReport {}
    /// A newer operation that `undo_last` passed over.
    PassedOver {}
    /// A page of history, newest first.
    HistoryList { "operations" => HistoryEntry }
    /// One operation as history lists it.
    HistoryEntry { "items" => OperationItem }
    /// One operation, as `get_operation` shows it.
    OperationRecord { "operation" => HistoryOperation }
    /// A journal operation.
    HistoryOperation { "items" => OperationItem }
    /// One path of a journal operation: its state before and after.
    OperationItem {}
    /// The diff of one operation.
    HistoryDiff { "paths" => PathDiff }
    /// One path's diff.
    PathDiff {}
    /// What `find_up` found.
    FoundUp {}
    /// The diff of two files.
    FileDiff {}
    /// A range of a file's bytes.
    ByteRange {}
    /// What the workspace's history holds and costs, and the retention policy.
    WorkspaceStatus {
        "journal" => JournalStatus,
        "store" => StoreStatus,
        "retention" => RetentionStatus
    }
    /// The journal's operations, counted by what can still be done with them.
    JournalStatus { "oldest_undoable" => OldestUndoable }
    /// The oldest operation that can still be undone.
    OldestUndoable {}
    /// The object store's objects and bytes.
    StoreStatus {}
    /// The retention policy in force.
    RetentionStatus {}
}

#[pymethods]
impl ReadResult {
    /// The returned lines numbered from `start_line`, each after its number and a tab (as
    /// `cat -n`): the library's own rendering, as `keeper file read --numbered` prints it and
    /// the MCP server shows a read. `content` stays the file's exact text.
    fn numbered(slf: &Bound<'_, Self>) -> String {
        let fields = &slf.as_super().get().fields;
        let content = fields.get("content").and_then(Value::as_str).unwrap_or("");
        let first = fields
            .get("start_line")
            .and_then(Value::as_u64)
            .unwrap_or(1);
        filekeeper::numbered(content, first)
    }
}

/// A page of history reads like the list of its operations, as `list_history` returned
/// before it had pages (and as the specification's example uses it): iterating, `len()` and
/// indexing go to `operations`.
#[pymethods]
impl HistoryList {
    fn __len__(slf: PyRef<'_, Self>) -> usize {
        slf.as_super()
            .fields
            .get("operations")
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    }

    fn __iter__(slf: PyRef<'_, Self>, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let operations = slf.as_super().__getattr__(py, "operations")?;
        Ok(operations.bind(py).try_iter()?.into_any().unbind())
    }

    fn __getitem__(
        slf: PyRef<'_, Self>,
        py: Python<'_>,
        index: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let operations = slf.as_super().__getattr__(py, "operations")?;
        Ok(operations.bind(py).get_item(index)?.unbind())
    }
}

impl Class {
    /// Whether `field` holds bytes, base64 in the document and `bytes` in Python.
    fn bytes(self, field: &str) -> bool {
        self == Class::ByteRange && field == "content"
    }

    /// Whether `field` is one a document of this class carries only where it applies (a
    /// dry run's preview, a text replacement's match count, ...): absent, it reads as None,
    /// and `to_dict()` leaves it out as the JSON document does.
    fn optional(self, field: &str) -> bool {
        match self {
            Class::MutationResult => matches!(
                field,
                "source_path"
                    | "history_skipped"
                    | "predicted_after_hash"
                    | "would_change"
                    | "preview_diff"
                    | "match_stage"
                    | "match_count"
                    | "patch_files"
                    | "bom_kept"
                    | "skipped_operations"
                    | "merged"
            ),
            Class::ReadResult => field == "snapshot_stored",
            Class::Existence => matches!(field, "target_kind" | "target"),
            Class::FileReport => matches!(field, "from" | "mode"),
            _ => false,
        }
    }
}

/// `value`, a JSON object, as a result of `class`.
/// The envelope's `ok` and `workspace` are not a result's fields: a result is what the
/// document says besides them.
pub fn record(py: Python<'_>, class: Class, value: Value) -> PyResult<Py<PyAny>> {
    match value {
        Value::Object(mut fields) => {
            fields.remove("ok");
            fields.remove("workspace");
            class.instantiate(py, fields)
        }
        other => plain(py, &other),
    }
}

/// A field's value: results of `class` where the field holds results, else plain values.
fn convert(py: Python<'_>, class: Option<Class>, value: &Value) -> PyResult<Py<PyAny>> {
    match (class, value) {
        (Some(class), Value::Object(fields)) => class.instantiate(py, fields.clone()),
        (Some(class), Value::Array(values)) => {
            let list = PyList::empty(py);
            for value in values {
                list.append(convert(py, Some(class), value)?)?;
            }
            Ok(list.into_any().unbind())
        }
        _ => plain(py, value),
    }
}

/// JSON as plain Python: None, bool, int, float, str, list and dict.
pub fn plain(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => u.into_pyobject(py)?.into_any().unbind(),
            (None, Some(i), _) => i.into_pyobject(py)?.into_any().unbind(),
            (None, None, Some(f)) => f.into_pyobject(py)?.into_any().unbind(),
            (None, None, None) => py.None(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(values) => {
            let list = PyList::empty(py);
            for value in values {
                list.append(plain(py, value)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(fields) => {
            let dict = PyDict::new(py);
            for (key, value) in fields {
                dict.set_item(key, plain(py, value)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// A JSON value written the way Python would write it, for `repr`.
fn python_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        // JSON's string escapes are close enough to Python's for a repr.
        Value::String(_) => value.to_string(),
        Value::Array(values) => {
            let items: Vec<String> = values.iter().map(python_literal).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(fields) => {
            let items: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), python_literal(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}
