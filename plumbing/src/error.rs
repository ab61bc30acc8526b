//! The error contract: thirty stable codes, each with a fixed process exit code.
//!
//! Every failure that leaves Filekeeper is an [`Error`]: a [`Code`], a human message (not a
//! contract), whether the identical request could succeed if retried, and structured details.
//! Messages never carry a host path; `details.path` is always the path the caller gave.

use serde_json::{Map, Value};
use std::fmt;
use std::io;

macro_rules! codes {
    ($($variant:ident => ($name:literal, $exit:literal),)*) => {
        /// A stable error code. The string form and the exit code never change once released.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code { $($variant,)* }

        impl Code {
            /// Every code, in the order `docs/errors.md` tables them.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as it appears in JSON, e.g. `"PATH_NOT_FOUND"`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $name,)* }
            }

            /// The process exit code of a command that fails with this code.
            pub fn exit_code(self) -> i32 {
                match self { $(Code::$variant => $exit,)* }
            }
        }
    };
}

codes! {
    InternalError => ("INTERNAL_ERROR", 1),
    InvalidArgument => ("INVALID_ARGUMENT", 2),
    PathNotFound => ("PATH_NOT_FOUND", 3),
    PathOutsideWorkspace => ("PATH_OUTSIDE_WORKSPACE", 4),
    NotAFile => ("NOT_A_FILE", 5),
    AbsolutePathOutsideWorkspace => ("ABSOLUTE_PATH_OUTSIDE_WORKSPACE", 6),
    NotADirectory => ("NOT_A_DIRECTORY", 7),
    PathIsStatePath => ("PATH_IS_STATE_PATH", 8),
    SymlinkWriteRefused => ("SYMLINK_WRITE_REFUSED", 9),
    SensitivePathRefused => ("SENSITIVE_PATH_REFUSED", 10),
    SymlinkEscapeRefused => ("SYMLINK_ESCAPE_REFUSED", 11),
    UndoConflict => ("UNDO_CONFLICT", 12),
    SpecialFileRefused => ("SPECIAL_FILE_REFUSED", 13),
    AlreadyExists => ("ALREADY_EXISTS", 14),
    ContentConflict => ("CONTENT_CONFLICT", 15),
    NoMatch => ("NO_MATCH", 16),
    MatchCountMismatch => ("MATCH_COUNT_MISMATCH", 17),
    PatchFailed => ("PATCH_FAILED", 18),
    PartialRecovery => ("PARTIAL_RECOVERY", 19),
    BinaryContentRefused => ("BINARY_CONTENT_REFUSED", 20),
    LimitExceeded => ("LIMIT_EXCEEDED", 21),
    InvalidPattern => ("INVALID_PATTERN", 22),
    WorkspaceNotFound => ("WORKSPACE_NOT_FOUND", 23),
    WorkspaceExists => ("WORKSPACE_EXISTS", 24),
    NoWorkspaceSelected => ("NO_WORKSPACE_SELECTED", 25),
    StorageError => ("STORAGE_ERROR", 26),
    MigrationError => ("MIGRATION_ERROR", 27),
    OperationNotFound => ("OPERATION_NOT_FOUND", 28),
    HistoryUnavailable => ("HISTORY_UNAVAILABLE", 29),
    NotImplementedYet => ("NOT_IMPLEMENTED_YET", 30),
}

/// In JSON a code is its stable string.
impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The schema of a code: one of the stable strings, in table order.
impl schemars::JsonSchema for Code {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Code".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        schemars::json_schema!({
            "description": "A stable error code (docs/errors.md tables each with its exit code).",
            "type": "string",
            "enum": names,
        })
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A structured failure: what the JSON `error` object carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub code: Code,
    pub message: String,
    pub retryable: bool,
    pub details: Map<String, Value>,
    /// The argument that would change the outcome, named by each surface in its own words
    /// (a CLI flag, a library keyword, an MCP argument) when it renders the message.
    pub argument: Option<Argument>,
}

/// Arguments a refusal can point to. Each surface spells them its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Argument {
    /// Accept a credential-shaped write target.
    AllowSensitiveWrite,
    /// Name the file's text encoding.
    Encoding,
}

impl Argument {
    /// The library's keyword.
    pub fn library_name(self) -> &'static str {
        match self {
            Argument::AllowSensitiveWrite => "allow_sensitive_write",
            Argument::Encoding => "encoding",
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            retryable: false,
            details: Map::new(),
            argument: None,
        }
    }

    /// Adds one field to `details`.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// The caller's own path, exactly as given.
    pub fn path(self, path: &str) -> Self {
        self.with("path", path)
    }

    /// How to proceed, for errors where a changed request can succeed.
    pub fn recovery(self, how: &str) -> Self {
        self.with("recovery", how)
    }

    /// The argument that would change the outcome (see [`Argument`]).
    pub fn argument(mut self, argument: Argument) -> Self {
        self.argument = Some(argument);
        self
    }

    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Error::new(Code::InvalidArgument, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(Code::InternalError, message)
    }

    /// A storage failure while doing `what`. The message carries the operating system's
    /// description of the error, which never includes a path.
    pub fn storage(what: &str, err: &io::Error) -> Self {
        let retryable = matches!(
            err.raw_os_error(),
            Some(libc_errno::ENOSPC | libc_errno::EDQUOT | libc_errno::EAGAIN | libc_errno::EINTR)
        );
        let mut e = Error::new(Code::StorageError, format!("{what}: {}", io_reason(err)))
            .retryable(retryable);
        if retryable {
            e = e.recovery("free space or wait, then retry the same request");
        }
        e
    }
}

/// The errno values the error mapping needs, spelled out to avoid a libc dependency.
pub(crate) mod libc_errno {
    pub const EINTR: i32 = 4;
    pub const EAGAIN: i32 = 11;
    pub const ENOSPC: i32 = 28;
    pub const EROFS: i32 = 30;
    pub const EDQUOT: i32 = 122;
}

/// The OS description of an I/O error without the "(os error N)" suffix std appends.
fn io_reason(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// SQLITE_IOERR | 19 << 8: see `From<rusqlite::Error>`.
const SQLITE_IOERR_SHMSIZE: std::ffi::c_int = 4874;

impl From<rusqlite::Error> for Error {
    fn from(err: rusqlite::Error) -> Self {
        let busy = matches!(
            err.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        );
        // SQLite reports a full disk as SQLITE_FULL, except when growing the shared-memory
        // file of a WAL database fails, which it reports as SQLITE_IOERR_SHMSIZE: on a local
        // filesystem that only happens when there is no space for it.
        let shm_full = matches!(&err, rusqlite::Error::SqliteFailure(f, _) if f.extended_code == SQLITE_IOERR_SHMSIZE);
        let full =
            shm_full || matches!(err.sqlite_error_code(), Some(rusqlite::ErrorCode::DiskFull));
        let message = if shm_full {
            "SQLite error: no space to grow the journal's shared-memory file".to_owned()
        } else {
            format!("SQLite error: {err}")
        };
        let e = Error::new(Code::StorageError, message).retryable(busy || full);
        if busy {
            e.recovery("another keeper process holds the database; retry the same request")
        } else if full {
            e.recovery("free space, then retry the same request")
        } else {
            e
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn there_are_thirty_codes_with_distinct_names_and_exit_codes() {
        assert_eq!(Code::ALL.len(), 30);
        let names: HashSet<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let exits: HashSet<_> = Code::ALL.iter().map(|c| c.exit_code()).collect();
        assert_eq!(names.len(), 30);
        assert_eq!(exits.len(), 30);
        assert!(!exits.contains(&0));
    }

    #[test]
    fn the_exit_codes_the_specification_fixes() {
        assert_eq!(Code::PathNotFound.exit_code(), 3);
        assert_eq!(Code::PathOutsideWorkspace.exit_code(), 4);
        assert_eq!(Code::AbsolutePathOutsideWorkspace.exit_code(), 6);
        assert_eq!(Code::SensitivePathRefused.exit_code(), 10);
        assert_eq!(Code::SymlinkEscapeRefused.exit_code(), 11);
        assert_eq!(Code::UndoConflict.exit_code(), 12);
    }

    #[test]
    fn disk_full_is_retryable_and_says_so() {
        let e = Error::storage("writing object", &io::Error::from_raw_os_error(28));
        assert_eq!(e.code, Code::StorageError);
        assert!(e.retryable);
        assert!(!e.message.contains("os error"));
        assert!(e.details.contains_key("recovery"));
        let e = Error::storage("writing object", &io::Error::from_raw_os_error(5));
        assert!(!e.retryable);
    }
}
