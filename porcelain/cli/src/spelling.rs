//! The CLI's words for what the library names abstractly: its flags and its commands, in
//! every message and recovery hint it prints.

use filekeeper::Error;
use filekeeper::plumbing::Spelling;

/// How the CLI names arguments and operations in messages and recovery hints: its flags and
/// commands, never another surface's argument names.
pub(crate) struct CliSpelling;

impl Spelling for CliSpelling {
    fn argument(&self, argument: filekeeper::plumbing::Argument) -> String {
        use filekeeper::plumbing::Argument::*;
        match argument {
            AllowSensitiveWrite => "--i-accept-secret-write-risk",
            Encoding => "--encoding",
            AllowExisting => "--allow-existing",
            ExpectedDestinationHash => "--expected-destination-hash",
            Overwrite => "--overwrite",
            Parents => "--parents",
            Recursive => "--recursive --confirm-recursive",
            Position => "--position",
            Line => "--line",
            MaxBytes => "--max-bytes",
            MaxLines => "--max-lines",
            MaxBytesPerFile => "--max-bytes-per-file",
            MaxLinesPerFile => "--max-lines-per-file",
            FromLine => "--from-line",
            ToLine => "--to-line",
            MaxEntries => "--max-entries",
            MaxResults => "--max-results",
            Limit => "--limit",
            BaseHash => "--base",
            Snapshot => "--snapshot",
            Occurrence => "--occurrence",
            Cursor => "--cursor",
            Name => "NAME",
            Offset => "--offset",
            Length => "--length",
            Workspace => "--workspace NAME",
            Root => "--root PATH",
            Home => "--home",
        }
        .to_owned()
    }

    fn operation(&self, operation: filekeeper::plumbing::Operation) -> String {
        use filekeeper::plumbing::Operation::*;
        match operation {
            WriteFile => "`keeper file write`",
            CreateFile => "`keeper file create`",
            DeleteDir => "`keeper dir delete`",
            MoveDir => "`keeper dir move`",
            Undo => "`keeper history undo`",
            Fsck => "`keeper fsck`",
            UseWorkspace => "`keeper workspace use NAME`",
            ListWorkspaces => "`keeper workspace list`",
        }
        .to_owned()
    }
}

/// The error as the CLI shows it: its message and recovery name the CLI's flags and
/// commands; the code, retryable and details stay identical to every other surface's.
pub(crate) fn name_override(err: Error) -> Error {
    err.render(&CliSpelling)
}
