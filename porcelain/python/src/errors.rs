//! Failures as one Python exception, `FilekeeperError`, carrying exactly what the JSON
//! envelope's `error` carries, with messages that name this API's keywords.

use crate::records::plain;
use filekeeper::Error;
use filekeeper::plumbing::{Argument, Operation, Spelling};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use serde_json::Value;

create_exception!(
    filekeeper,
    FilekeeperError,
    PyException,
    "A refused or failed request: `code` (a stable string such as \"CONTENT_CONFLICT\"), \
     `message` (for people, not a contract), `retryable` and `details`, exactly as the JSON \
     envelope's `error` has them."
);

/// How the Python API names arguments and operations in messages and recovery hints: its
/// keywords (a flag written as a call passes it, `overwrite=True`) and its methods. Never a
/// CLI flag or an MCP argument.
pub struct PythonSpelling;

impl Spelling for PythonSpelling {
    fn argument(&self, argument: Argument) -> String {
        match argument {
            Argument::AllowSensitiveWrite => "allow_sensitive_write=True",
            Argument::Encoding => "the encoding keyword",
            Argument::AllowExisting => "allow_existing=True",
            Argument::ExpectedDestinationHash => "expected_destination_hash",
            Argument::Overwrite => "overwrite=True",
            Argument::Parents => "parents=True",
            Argument::Recursive => "recursive=True",
            Argument::Position => "position",
            Argument::Line => "line",
            Argument::MaxBytes => "max_bytes",
            Argument::MaxLines => "max_lines",
            Argument::MaxBytesPerFile => "max_bytes_per_file",
            Argument::MaxLinesPerFile => "max_lines_per_file",
            Argument::FromLine => "start_line",
            Argument::ToLine => "end_line",
            Argument::MaxEntries => "max_entries",
            Argument::MaxResults => "max_results",
            Argument::Limit => "limit",
            Argument::BaseHash => "base_hash",
            Argument::Snapshot => "snapshot=True",
            Argument::Occurrence => "occurrence",
            Argument::Cursor => "cursor",
            Argument::Name => "name",
            Argument::Offset => "offset",
            Argument::Length => "length",
            Argument::Workspace => "name=",
            Argument::Root => "root=",
            Argument::Home => "Filekeeper(home=...)",
        }
        .to_owned()
    }

    fn operation(&self, operation: Operation) -> String {
        match operation {
            Operation::WriteFile => "Workspace.write_file()",
            Operation::CreateFile => "Workspace.create_file()",
            Operation::DeleteDir => "Workspace.delete_dir()",
            Operation::MoveDir => "Workspace.move_dir()",
            Operation::Undo => "Workspace.undo()",
            Operation::Fsck => "a Filekeeper fsck (which the Python API does not run)",
            Operation::UseWorkspace => "Filekeeper.use_workspace()",
            Operation::ListWorkspaces => "Filekeeper.list_workspaces()",
        }
        .to_owned()
    }
}

/// `err` worded for Python.
pub fn rendered(err: Error) -> Error {
    err.render(&PythonSpelling)
}

/// `err` as a `FilekeeperError`: worded for Python, with `code`, `message`, `retryable` and
/// `details` set as attributes (and `str()` giving "CODE: message").
pub fn to_python(py: Python<'_>, err: Error) -> PyErr {
    let err = rendered(err);
    let exception = FilekeeperError::new_err(format!("{}: {}", err.code, err.message));
    let value = exception.value(py);
    let details = plain(py, &Value::Object(err.details));
    let set = value
        .setattr("code", err.code.as_str())
        .and_then(|()| value.setattr("message", err.message))
        .and_then(|()| value.setattr("retryable", err.retryable))
        .and_then(|()| value.setattr("details", details?));
    match set {
        Ok(()) => exception,
        Err(failed) => failed,
    }
}
