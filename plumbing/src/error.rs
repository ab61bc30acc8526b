//! The error contract: thirty-one stable codes, each with a fixed process exit code.
//!
//! Every failure that leaves Filekeeper is an [`Error`]: a [`Code`], a human message (not a
//! contract), whether the identical request could succeed if retried, and structured details.
//! Messages never carry a host path; `details.path` is always the path the caller gave.

use serde_json::{Map, Value};
use std::fmt;
use std::io;

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => ($name:literal, $exit:literal),)*) => {
        /// A stable error code. The string form and the exit code never change once released.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Code { $($(#[$doc])* $variant,)* }

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
    /// A bug in Filekeeper: a broken invariant or a caught panic.
    InternalError => ("INTERNAL_ERROR", 1),
    /// A malformed request: a bad id, hash, mode or JSON, a self-contradicting item, a
    /// journal transition that is not allowed, an invalid `config.toml`, or a usage error.
    InvalidArgument => ("INVALID_ARGUMENT", 2),
    /// The path, or one of its parent directories, does not exist in the workspace.
    PathNotFound => ("PATH_NOT_FOUND", 3),
    /// The path has a `..` component; refused by its letters, before the filesystem is asked.
    PathOutsideWorkspace => ("PATH_OUTSIDE_WORKSPACE", 4),
    /// A regular file was required and the path is a directory, or changed into something else
    /// while in use; or a file would be written at a path spelt as a directory.
    NotAFile => ("NOT_A_FILE", 5),
    /// An absolute path that does not lie inside the workspace root once resolved.
    AbsolutePathOutsideWorkspace => ("ABSOLUTE_PATH_OUTSIDE_WORKSPACE", 6),
    /// A component before the last is not a directory, or a path ending with `/` names a file.
    NotADirectory => ("NOT_A_DIRECTORY", 7),
    /// The path is inside `.filekeeper/`, directly or through a link: Filekeeper never treats
    /// its own state as workspace content.
    PathIsStatePath => ("PATH_IS_STATE_PATH", 8),
    /// The write target is a symbolic link (a write would replace the link, not its target), or
    /// became one while in use.
    SymlinkWriteRefused => ("SYMLINK_WRITE_REFUSED", 9),
    /// A credential-shaped write target (`.env`, `*.pem`, anything under `.ssh/`, ...), refused
    /// unless the caller overrides it. Reads are never refused for this.
    SensitivePathRefused => ("SENSITIVE_PATH_REFUSED", 10),
    /// A symbolic link on the path leads outside the workspace root.
    SymlinkEscapeRefused => ("SYMLINK_ESCAPE_REFUSED", 11),
    /// An undo would destroy a later change: a path no longer holds the state the operation
    /// recorded. Nothing was modified; the refusal is recorded as `undo_refused`.
    UndoConflict => ("UNDO_CONFLICT", 12),
    /// The path names a device, socket or FIFO, or a tree to move or delete holds one.
    SpecialFileRefused => ("SPECIAL_FILE_REFUSED", 13),
    /// A create found the path already taken; a concurrent creator is never clobbered.
    AlreadyExists => ("ALREADY_EXISTS", 14),
    /// The target does not hold the content the request expected (a stale expected hash, or a
    /// path not at an operation's recorded state).
    ContentConflict => ("CONTENT_CONFLICT", 15),
    /// A text replacement found no match, exactly or normalised.
    NoMatch => ("NO_MATCH", 16),
    /// The number of matches differs from the count the caller expected.
    MatchCountMismatch => ("MATCH_COUNT_MISMATCH", 17),
    /// A patch does not apply, is ambiguous or is malformed; nothing was written.
    PatchFailed => ("PATCH_FAILED", 18),
    /// A failed mutation, or an interrupted one that recovery resolved, left some paths changed
    /// and others not; the operation is recorded as `partial`.
    PartialRecovery => ("PARTIAL_RECOVERY", 19),
    /// The content is binary, or does not decode in its text encoding.
    BinaryContentRefused => ("BINARY_CONTENT_REFUSED", 20),
    /// The request asks for more than a configured limit allows (`details.limit`,
    /// `details.requested`).
    LimitExceeded => ("LIMIT_EXCEEDED", 21),
    /// A glob or regular expression does not parse.
    InvalidPattern => ("INVALID_PATTERN", 22),
    /// No workspace has that name, or the selected root is not an existing directory.
    WorkspaceNotFound => ("WORKSPACE_NOT_FOUND", 23),
    /// The workspace name is taken, or the root is already registered under another name.
    WorkspaceExists => ("WORKSPACE_EXISTS", 24),
    /// No workspace was named and no default is set; Filekeeper never guesses one.
    NoWorkspaceSelected => ("NO_WORKSPACE_SELECTED", 25),
    /// An I/O or database failure, a missing or damaged object, or a state directory that
    /// cannot be used. Retryable only when the cause can pass: a full disk or quota, an
    /// interrupted call, a busy or locked database.
    StorageError => ("STORAGE_ERROR", 26),
    /// The journal or registry has a newer schema than this build, or was not written by
    /// Filekeeper; it is left untouched.
    MigrationError => ("MIGRATION_ERROR", 27),
    /// No operation with that id in this workspace's journal, or none left to undo.
    OperationNotFound => ("OPERATION_NOT_FOUND", 28),
    /// An undo needs bytes that were above the history cap and were never stored.
    HistoryUnavailable => ("HISTORY_UNAVAILABLE", 29),
    /// A recognised request this build does not serve. Reserved: nothing returns it today.
    NotImplementedYet => ("NOT_IMPLEMENTED_YET", 30),
    /// A cursor that this workspace did not issue for this query: from another query or
    /// another workspace, changed, cut short, or signed with a key that is gone. Running the
    /// query again without the cursor starts over.
    InvalidCursor => ("INVALID_CURSOR", 31),
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
    /// What went wrong, as the stable code callers branch on; it also fixes the exit code.
    pub code: Code,
    /// One line for a person, in the library's spelling until a surface renders it. Not a
    /// contract, and never a host path.
    pub message: String,
    /// Whether the identical request can succeed later with nothing changed by the caller.
    pub retryable: bool,
    /// Structured facts about the failure: `path` as the caller gave it, `recovery`, and the
    /// other keys `docs/errors.md` lists.
    pub details: Map<String, Value>,
    /// The argument that would change the outcome, named by each surface in its own words
    /// (a CLI flag, a library keyword, an MCP argument) when it renders the message.
    pub argument: Option<Argument>,
    /// The message and `details.recovery` as words, when they name an argument or operation
    /// (see [`Words`]). Boxed: most errors have neither.
    pub wording: Option<Box<Wording>>,
}

/// What of an error each surface words its own way.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Wording {
    /// The message in pieces; `None` when it names no argument or operation.
    pub message: Option<Words>,
    /// `details.recovery` in pieces; `None` when it names no argument or operation.
    pub recovery: Option<Words>,
}

/// Arguments a message or hint can name. Each surface spells them its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Argument {
    /// Accept a credential-shaped write target.
    AllowSensitiveWrite,
    /// Name the file's text encoding.
    Encoding,
    /// Let a create replace an existing file.
    AllowExisting,
    /// The content hash an existing copy destination must have to be replaced.
    ExpectedDestinationHash,
    /// Let a move replace an existing destination.
    Overwrite,
    /// Create missing parent directories.
    Parents,
    /// Delete a directory with everything in it.
    Recursive,
    /// Where an insert goes: before or after a line, or at the end.
    Position,
    /// The line an insert goes before or after.
    Line,
    /// The most bytes one read returns.
    MaxBytes,
    /// The most lines one read returns.
    MaxLines,
    /// The most bytes a read of several files returns of each.
    MaxBytesPerFile,
    /// The most lines a read of several files returns of each.
    MaxLinesPerFile,
    /// The first line of a read.
    FromLine,
    /// The last line of a read.
    ToLine,
    /// The most entries one listing returns.
    MaxEntries,
    /// The most results one search returns.
    MaxResults,
    /// The most operations one history listing returns.
    Limit,
    /// The version an edit's line numbers and text refer to.
    BaseHash,
    /// Store the bytes a read returns, so an edit can name them as its base.
    Snapshot,
    /// Which match of a text replacement to replace (1-based, in file order).
    Occurrence,
    /// The token that continues a bounded listing where the previous page ended.
    Cursor,
    /// The exact name `find-up` looks for.
    Name,
    /// Where a byte read starts.
    Offset,
    /// How many bytes a byte read returns at most.
    Length,
    /// The registered workspace to work in, by name.
    Workspace,
    /// A directory to work in as a transient workspace.
    Root,
    /// The Filekeeper home directory.
    Home,
}

impl Argument {
    /// The library's keyword: how [`LibrarySpelling`] spells it.
    fn library_name(self) -> &'static str {
        match self {
            Argument::AllowSensitiveWrite => "allow_sensitive_write",
            Argument::Encoding => "encoding",
            Argument::AllowExisting => "allow_existing",
            Argument::ExpectedDestinationHash => "expected_destination_hash",
            Argument::Overwrite => "overwrite",
            Argument::Parents => "parents",
            Argument::Recursive => "recursive",
            Argument::Position => "position",
            Argument::Line => "line",
            Argument::MaxBytes => "max_bytes",
            Argument::MaxLines => "max_lines",
            Argument::MaxBytesPerFile => "max_bytes_per_file",
            Argument::MaxLinesPerFile => "max_lines_per_file",
            Argument::FromLine => "from_line",
            Argument::ToLine => "to_line",
            Argument::MaxEntries => "max_entries",
            Argument::MaxResults => "max_results",
            Argument::Limit => "limit",
            Argument::BaseHash => "base_hash",
            Argument::Snapshot => "snapshot",
            Argument::Occurrence => "occurrence",
            Argument::Cursor => "cursor",
            Argument::Name => "name",
            Argument::Offset => "offset",
            Argument::Length => "length",
            Argument::Workspace => "workspace",
            Argument::Root => "root",
            Argument::Home => "home",
        }
    }
}

/// Operations a hint can point to. Each surface spells them its own way (a CLI command, a
/// library method, an MCP tool), or says it does not offer one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// Replacing a whole file's content, creating it if needed.
    WriteFile,
    /// Creating a file (with its content written exactly as given).
    CreateFile,
    /// Deleting a directory.
    DeleteDir,
    /// Moving a directory.
    MoveDir,
    /// Undoing one recorded operation.
    Undo,
    /// Verifying the object store and the journal.
    Fsck,
    /// Making a registered workspace the default.
    UseWorkspace,
    /// Listing the registered workspaces.
    ListWorkspaces,
}

impl Operation {
    /// The library's method: how [`LibrarySpelling`] spells it.
    fn library_name(self) -> &'static str {
        match self {
            Operation::WriteFile => "write_file",
            Operation::CreateFile => "create_file",
            Operation::DeleteDir => "delete_dir",
            Operation::MoveDir => "move_dir",
            Operation::Undo => "undo",
            Operation::Fsck => "fsck",
            Operation::UseWorkspace => "use_workspace",
            Operation::ListWorkspaces => "list_workspaces",
        }
    }
}

/// How one surface names arguments and operations in a message or hint. Every message that
/// names one is kept as [`Words`] beside its text, and each surface renders it with its own
/// spelling before showing it (see [`Error::render`]).
pub trait Spelling {
    /// The argument as a caller of this surface writes it, e.g. `--overwrite`.
    fn argument(&self, argument: Argument) -> String;
    /// How a caller of this surface asks for the operation, e.g. `` `keeper dir delete` ``.
    fn operation(&self, operation: Operation) -> String;
    /// The clause a refusal that names `argument` (see [`Error::argument`]) ends with.
    fn override_clause(&self, argument: Argument) -> String {
        match argument {
            Argument::AllowSensitiveWrite => {
                format!("(pass {} to write it anyway)", self.argument(argument))
            }
            Argument::Encoding => format!("(name the encoding with {})", self.argument(argument)),
            other => format!("(see {})", self.argument(other)),
        }
    }
}

/// The library's own spelling: its keywords and method names.
pub struct LibrarySpelling;

impl Spelling for LibrarySpelling {
    fn argument(&self, argument: Argument) -> String {
        argument.library_name().to_owned()
    }

    fn operation(&self, operation: Operation) -> String {
        operation.library_name().to_owned()
    }
}

/// One piece of [`Words`].
#[derive(Debug, Clone, PartialEq)]
pub enum Word {
    /// Text every surface shows as it is.
    Text(String),
    /// An argument, spelt by [`Spelling::argument`].
    Argument(Argument),
    /// An operation, spelt by [`Spelling::operation`].
    Operation(Operation),
}

impl From<&str> for Word {
    fn from(text: &str) -> Self {
        Word::Text(text.to_owned())
    }
}

impl From<String> for Word {
    fn from(text: String) -> Self {
        Word::Text(text)
    }
}

impl From<Argument> for Word {
    fn from(argument: Argument) -> Self {
        Word::Argument(argument)
    }
}

impl From<Operation> for Word {
    fn from(operation: Operation) -> Self {
        Word::Operation(operation)
    }
}

/// Text that names arguments or operations, kept in pieces so that each surface can spell
/// them its own way. Build it with [`words!`](crate::words).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Words(pub Vec<Word>);

impl Words {
    /// The text with every argument and operation spelt by `spelling`.
    pub(crate) fn render(&self, spelling: &dyn Spelling) -> String {
        let mut out = String::new();
        for word in &self.0 {
            match word {
                Word::Text(text) => out.push_str(text),
                Word::Argument(a) => out.push_str(&spelling.argument(*a)),
                Word::Operation(o) => out.push_str(&spelling.operation(*o)),
            }
        }
        out
    }
}

/// [`Words`] from pieces: text (`&str` or `String`), [`Argument`]s and [`Operation`]s.
#[macro_export]
macro_rules! words {
    ($($word:expr),* $(,)?) => {
        $crate::error::Words(vec![$($crate::error::Word::from($word)),*])
    };
}

/// The result of every fallible plumbing call: [`Error`] unless another error is named.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error with `code` and `message`, not retryable, with no details.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            retryable: false,
            details: Map::new(),
            argument: None,
            wording: None,
        }
    }

    /// An error whose message names an argument or operation.
    pub fn worded(code: Code, words: Words) -> Self {
        let mut e = Error::new(code, words.render(&LibrarySpelling));
        e.wording.get_or_insert_default().message = Some(words);
        e
    }

    /// How to proceed, in words that name an argument or operation: `details.recovery` in the
    /// library's spelling until a surface renders it (see [`Error::render`]).
    pub fn hint(mut self, words: Words) -> Self {
        self = self.recovery(&words.render(&LibrarySpelling));
        self.wording.get_or_insert_default().recovery = Some(words);
        self
    }

    /// The error as `spelling`'s surface shows it: its message and recovery name that
    /// surface's arguments and operations, and a refusal that names an argument ends with
    /// the clause saying how to pass it. The code, retryable and the other details stay as
    /// they are on every surface. Rendering twice gives the same error.
    pub fn render(mut self, spelling: &dyn Spelling) -> Self {
        if self.argument.is_some() {
            let wording = self.wording.get_or_insert_default();
            if wording.message.is_none() {
                wording.message = Some(words![self.message.clone()]);
            }
        }
        let Some(wording) = &self.wording else {
            return self;
        };
        if let Some(words) = &wording.message {
            self.message = words.render(spelling);
        }
        if let Some(words) = &wording.recovery {
            self.details
                .insert("recovery".into(), words.render(spelling).into());
        }
        if let Some(argument) = self.argument {
            self.message.push(' ');
            self.message.push_str(&spelling.override_clause(argument));
        }
        self
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

    /// Sets `details.path` unless the error already names the path: by its text (a deeper
    /// step may name a more precise one) or by its size (`path_bytes`, one too long to echo).
    pub fn or_path(self, path: &str) -> Self {
        if self.details.contains_key("path") || self.details.contains_key("path_bytes") {
            return self;
        }
        self.path(path)
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

    /// Sets whether the identical request can succeed later.
    pub fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// An INVALID_ARGUMENT error: the request itself is malformed.
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::new(Code::InvalidArgument, message)
    }

    /// An INTERNAL_ERROR: a broken invariant, which is a bug in Filekeeper.
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
    fn there_are_thirty_one_codes_with_distinct_names_and_exit_codes() {
        assert_eq!(Code::ALL.len(), 31);
        let names: HashSet<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let exits: HashSet<_> = Code::ALL.iter().map(|c| c.exit_code()).collect();
        assert_eq!(names.len(), 31);
        assert_eq!(exits.len(), 31);
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

    struct Dashes;

    impl Spelling for Dashes {
        fn argument(&self, argument: Argument) -> String {
            format!("--{}", argument.library_name().replace('_', "-"))
        }

        fn operation(&self, operation: Operation) -> String {
            format!("`do {}`", operation.library_name())
        }
    }

    #[test]
    fn words_are_spelled_by_the_surface_that_renders_them() {
        let e = Error::worded(
            Code::InvalidArgument,
            crate::words![Argument::ToLine, " is before ", Argument::FromLine],
        )
        .hint(crate::words!["see ", Operation::WriteFile]);
        assert_eq!(e.message, "to_line is before from_line");
        assert_eq!(e.details["recovery"], "see write_file");
        let cli = e.clone().render(&Dashes);
        assert_eq!(cli.message, "--to-line is before --from-line");
        assert_eq!(cli.details["recovery"], "see `do write_file`");
        assert_eq!(
            cli.clone().render(&Dashes),
            cli,
            "rendering twice changes nothing"
        );
        assert_eq!(cli.render(&LibrarySpelling).message, e.message);
    }

    #[test]
    fn an_override_clause_is_added_once_however_often_rendered() {
        let e = Error::new(Code::SensitivePathRefused, "refused")
            .argument(Argument::AllowSensitiveWrite);
        let once = e.render(&Dashes);
        assert_eq!(
            once.message,
            "refused (pass --allow-sensitive-write to write it anyway)"
        );
        assert_eq!(once.clone().render(&Dashes), once);
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
