//! How this server words its errors: the library's messages and recovery hints name tool
//! arguments and tools here, never a CLI flag or command.

use filekeeper::Error;

/// How this server names arguments and operations in messages and recovery hints: its tool
/// arguments and tools, never a CLI flag or command. A boolean argument is spelled with the
/// value that asks for it.
pub struct McpSpelling;

impl filekeeper::plumbing::Spelling for McpSpelling {
    fn argument(&self, argument: filekeeper::plumbing::Argument) -> String {
        use filekeeper::plumbing::Argument::*;
        match argument {
            AllowSensitiveWrite => "i_accept_secret_write_risk: true",
            Encoding => "the encoding argument",
            AllowExisting => "allow_existing: true",
            ExpectedDestinationHash => "expected_destination_hash",
            Overwrite => "overwrite: true",
            Parents => "parents: true",
            Recursive => "recursive: true",
            Position => "position",
            Line => "line",
            MaxBytes => "max_bytes",
            MaxLines => "max_lines",
            MaxBytesPerFile => "max_bytes_per_file",
            MaxLinesPerFile => "max_lines_per_file",
            FromLine => "from_line",
            ToLine => "to_line",
            MaxEntries => "max_entries",
            MaxResults => "max_results",
            Limit => "limit",
            BaseHash => "base_hash",
            Snapshot => "snapshot: true",
            Occurrence => "occurrence",
            Cursor => "cursor",
            Name => "name",
            Offset => "offset",
            Length => "length",
            Workspace => "the server's --workspace NAME",
            Root => "the server's --root PATH",
            Home => "the server's --home",
        }
        .to_owned()
    }

    fn operation(&self, operation: filekeeper::plumbing::Operation) -> String {
        use filekeeper::plumbing::Operation::*;
        match operation {
            WriteFile => "the file_write tool",
            CreateFile => "the file_create tool",
            DeleteDir => "the directory_delete tool",
            MoveDir => "file_move, one file at a time (this server has no directory move)",
            Undo => "undo_operation",
            Fsck => "a Filekeeper fsck (which this server does not run)",
            UseWorkspace => "a default workspace, which this server does not set",
            ListWorkspaces => "the workspace_list tool",
        }
        .to_owned()
    }
}

/// The error as this server shows it: its message and recovery name tool arguments and
/// tools; the code, retryable and details stay identical to every other surface's.
pub fn name_argument(err: Error) -> Error {
    err.render(&McpSpelling)
}

/// How the server words an error that stops it before any client is served (printed on
/// stderr for whoever configured it): its own command-line flags, and the `keeper` commands
/// that manage what those flags name, since no tool can be called yet.
pub struct StartupSpelling;

impl filekeeper::plumbing::Spelling for StartupSpelling {
    fn argument(&self, argument: filekeeper::plumbing::Argument) -> String {
        use filekeeper::plumbing::Argument::*;
        match argument {
            Workspace => "--workspace NAME".to_owned(),
            Root => "--root PATH".to_owned(),
            Home => "--home".to_owned(),
            other => McpSpelling.argument(other),
        }
    }

    fn operation(&self, operation: filekeeper::plumbing::Operation) -> String {
        use filekeeper::plumbing::Operation::*;
        match operation {
            UseWorkspace => "`keeper workspace use NAME`".to_owned(),
            ListWorkspaces => "`keeper workspace list`".to_owned(),
            other => McpSpelling.operation(other),
        }
    }
}
