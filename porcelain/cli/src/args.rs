//! The `keeper` command line, defined once: help, completions and man pages come from here.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Safe, predictable filesystem operations for people, scripts and agents.
///
/// Every operation is confined to a workspace, replaces whole files atomically and durably,
/// and is recorded so it can be undone. With --json every command prints one JSON object
/// whose first field is "ok".
#[derive(Debug, Parser)]
#[command(name = "keeper", version = crate::VERSION_TEXT, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct Global {
    /// Select a registered workspace by name (takes precedence over --root).
    #[arg(long, global = true, value_name = "NAME")]
    pub workspace: Option<String>,

    /// Use this directory as a transient, unregistered workspace.
    #[arg(long, global = true, value_name = "PATH")]
    pub root: Option<PathBuf>,

    /// Print one JSON object instead of human-readable output.
    #[arg(long, global = true)]
    pub json: bool,

    /// Print nothing but the result itself and errors.
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Print extra detail (notices, resolved paths) on stderr.
    #[arg(long, short, global = true)]
    pub verbose: bool,

    /// Colour diffs: auto (when stdout is a terminal and NO_COLOR is unset), always or never.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value = "auto",
        value_name = "WHEN"
    )]
    pub color: ColorWhen,

    /// The Filekeeper home directory (default: $FILEKEEPER_HOME, else
    /// $XDG_DATA_HOME/filekeeper, else ~/.local/share/filekeeper).
    #[arg(long, global = true, value_name = "PATH")]
    pub home: Option<PathBuf>,

    /// Who is acting; recorded with every mutation and usable as a history filter.
    #[arg(long, global = true, value_name = "NAME")]
    pub actor: Option<String>,

    /// The task this change belongs to; recorded with every mutation.
    #[arg(long, global = true, value_name = "ID")]
    pub task_id: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the home directory, config.toml and the workspace registry.
    #[command(after_long_help = r#"Examples:
  keeper init
  keeper --home /tmp/fk-test/home init"#)]
    Init,

    /// Register, list, inspect, select and forget workspaces.
    #[command(subcommand)]
    Workspace(WorkspaceCommand),

    /// Read, inspect, search and change files in the workspace.
    #[command(subcommand)]
    File(FileCommand),

    /// Create, move and delete directories.
    #[command(subcommand)]
    Dir(DirCommand),

    /// The operation log: list, show, diff, and safe undo.
    #[command(subcommand)]
    History(HistoryCommand),

    /// Compute a blob id (sha256:...) of a workspace file or stdin; -w also stores it.
    #[command(after_long_help = r#"Examples:
  old=$(keeper hash-object -w notes.md)
  new=$(keeper hash-object -w --stdin < new.md)
  keeper hash-object notes.md"#)]
    HashObject(HashObjectArgs),

    /// Print a stored blob's bytes, verified against its id.
    #[command(after_long_help = r#"Examples:
  keeper cat-blob "$old" | diff - notes.md
  keeper cat-blob sha256:43c7d27ae644edba5e18ebf1f44dfe26d532ed1759ebe1ffc5c1adc059d0ec2a"#)]
    CatBlob {
        /// The blob id, sha256:<64 hex>.
        id: String,
    },

    /// Show where a path lands inside the workspace, or why it is refused.
    #[command(after_long_help = r#"Examples:
  keeper resolve-path docs/new.md --for-write
  keeper --json resolve-path link.md"#)]
    ResolvePath {
        /// A workspace-relative path, or an absolute path inside the root.
        path: String,
        /// Apply the rules for a write target (no final symlink, no credential-shaped name).
        #[arg(long)]
        for_write: bool,
        /// Accept a credential-shaped write target (.env, *.pem, .ssh/, ...).
        #[arg(long, requires = "for_write")]
        i_accept_secret_write_risk: bool,
    },

    /// Record a pending operation; prints its id. Items' blobs must already be stored.
    #[command(after_long_help = r#"Examples:
  op=$(keeper journal-begin --kind create --item "{\"path\": \"new.md\", \"after_hash\": \"$new\"}")
  keeper --actor deploy journal-begin --stdin < operation.json"#)]
    JournalBegin(JournalBeginArgs),

    /// Mark a pending operation committed, after verifying every path holds its after state.
    #[command(after_long_help = r#"Examples:
  keeper publish notes.md --blob "$new" --expected-hash "$old" && keeper journal-commit "$op"
  keeper journal-commit op_1a2b3c4d5e6f7a8b"#)]
    JournalCommit {
        /// The operation id, op_<16 hex>.
        operation_id: String,
    },

    /// Mark a pending operation rolled back, after verifying every path holds its before state.
    #[command(after_long_help = r#"Examples:
  keeper publish notes.md --blob "$new" --expected-hash "$old" || keeper journal-abort "$op"
  keeper journal-abort op_1a2b3c4d5e6f7a8b"#)]
    JournalAbort {
        /// The operation id, op_<16 hex>.
        operation_id: String,
    },

    /// Show one journal record with its items.
    #[command(after_long_help = r#"Examples:
  keeper journal-show "$op"
  keeper --json journal-show op_1a2b3c4d5e6f7a8b"#)]
    JournalShow {
        /// The operation id, op_<16 hex>.
        operation_id: String,
    },

    /// Atomically replace a workspace file with a stored blob (temp file, fsync, rename, dir fsync).
    #[command(after_long_help = r#"Examples:
  keeper publish notes.md --blob "$new" --expected-hash "$old"
  keeper publish new.md --blob "$new" --create --mode 644"#)]
    Publish(PublishArgs),

    /// Verify every stored object and every journal reference; exit non-zero on any damage.
    #[command(after_long_help = r#"Examples:
  keeper fsck
  keeper --json fsck"#)]
    Fsck,

    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    #[command(after_long_help = r#"Example:
  keeper completions bash > ~/.local/share/bash-completion/completions/keeper"#)]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },

    /// Print the manual page (roff), generated from the same definitions as --help.
    #[command(after_long_help = r#"Example:
  keeper man | man -l -"#)]
    Man,

    /// Resolve operations an interrupted keeper left pending (every mutation also does this
    /// first); PARTIAL_RECOVERY when one was only partly applied.
    #[command(after_long_help = r#"Examples:
  keeper recover
  keeper --json recover"#)]
    Recover,
}

#[derive(Debug, Subcommand)]
pub enum WorkspaceCommand {
    /// Register ROOT (an existing directory) as workspace NAME.
    #[command(after_long_help = r#"Examples:
  keeper workspace create notes ~/notes
  keeper workspace create project ."#)]
    Create {
        /// 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.
        name: String,
        /// The workspace's root directory.
        // Its id is not `root`, which would hide the global --root option from this command.
        #[arg(id = "directory", value_name = "ROOT")]
        root: PathBuf,
    },
    /// List registered workspaces.
    #[command(after_long_help = r#"Examples:
  keeper workspace list
  keeper --json workspace list"#)]
    List,
    /// Show one workspace.
    #[command(after_long_help = r#"Examples:
  keeper workspace show notes
  keeper --json workspace show notes"#)]
    Show {
        /// The workspace name.
        name: String,
    },
    /// Make NAME the default workspace.
    #[command(after_long_help = r#"Example:
  keeper workspace use notes"#)]
    Use {
        /// The workspace name.
        name: String,
    },
    /// Forget a registration; the workspace's files and history are left in place.
    #[command(after_long_help = r#"Example:
  keeper workspace remove notes"#)]
    Remove {
        /// The workspace name.
        name: String,
    },
}

#[derive(Debug, Args)]
pub struct HashObjectArgs {
    /// Also store the blob in the workspace's object store.
    #[arg(short = 'w')]
    pub write: bool,
    /// Read the content from standard input.
    #[arg(long, conflicts_with = "file")]
    pub stdin: bool,
    /// A workspace file to hash.
    #[arg(required_unless_present = "stdin")]
    pub file: Option<String>,
}

#[derive(Debug, Args)]
pub struct JournalBeginArgs {
    /// Read the whole operation as one JSON object from stdin
    /// ({"kind", "summary", "target_path", "source_path", "metadata", "items": [...]}).
    #[arg(long, conflicts_with_all = ["kind", "item", "summary", "target", "source", "metadata"])]
    pub stdin: bool,
    /// The operation kind, e.g. write, create, delete.
    #[arg(long, required_unless_present = "stdin")]
    pub kind: Option<String>,
    /// One affected path as a JSON object; repeat for several
    /// ({"path", "before_hash", "after_hash", "before_mode", "after_mode", ...}).
    #[arg(long, value_name = "JSON")]
    pub item: Vec<String>,
    /// A one-line description of the operation.
    #[arg(long)]
    pub summary: Option<String>,
    /// The path the operation targets (default: the first item's path).
    #[arg(long, value_name = "PATH")]
    pub target: Option<String>,
    /// The path the operation read from (copy and move).
    #[arg(long, value_name = "PATH")]
    pub source: Option<String>,
    /// Extra metadata as a JSON object.
    #[arg(long, value_name = "JSON")]
    pub metadata: Option<String>,
    /// Accept credential-shaped item paths.
    #[arg(long)]
    pub i_accept_secret_write_risk: bool,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The workspace file to replace or create.
    pub path: String,
    /// The stored blob whose bytes the file gets.
    #[arg(long, value_name = "ID")]
    pub blob: String,
    /// Refuse unless the file currently holds exactly this content.
    #[arg(long, value_name = "HASH", conflicts_with = "create")]
    pub expected_hash: Option<String>,
    /// Refuse unless the path does not exist yet (never clobbers a concurrent creator).
    #[arg(long)]
    pub create: bool,
    /// Permission bits in octal, e.g. 644 (default: keep the file's own; new files 666 less umask).
    #[arg(long, value_name = "OCTAL")]
    pub mode: Option<String>,
    /// Accept a credential-shaped write target.
    #[arg(long)]
    pub i_accept_secret_write_risk: bool,
}

/// `keeper file read`'s arguments, a struct of their own so that `file read` can be parsed
/// without building the whole command tree (see `cli::parse`).
#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The file, workspace-relative.
    pub path: String,
    #[command(flatten)]
    pub range: LineRange,
    /// Return at most N bytes, cut at a whole line (default and ceiling: max_read_bytes).
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<u64>,
}

#[derive(Debug, Args)]
pub struct LineRange {
    /// First line to read, 1-based.
    #[arg(long, value_name = "N")]
    pub from_line: Option<u64>,
    /// Last line to read, inclusive; beyond the end of the file is an error, never clamped.
    #[arg(long, value_name = "M")]
    pub to_line: Option<u64>,
    /// The file's encoding, when it is not UTF-8 (e.g. latin1, windows-1252, shift_jis).
    #[arg(long, value_name = "E")]
    pub encoding: Option<String>,
}

/// Where new content comes from: exactly one of --content and --input, or standard input.
#[derive(Debug, Args)]
pub struct ContentSource {
    /// The new content, taken literally (no escape sequences are interpreted).
    #[arg(long, value_name = "TEXT", conflicts_with = "input")]
    pub content: Option<String>,
    /// Read the new content from this file (outside the workspace is fine: it is only read).
    #[arg(long, value_name = "FILE")]
    pub input: Option<std::path::PathBuf>,
}

/// Guards every edit takes.
#[derive(Debug, Args)]
pub struct EditGuardArgs {
    /// Refuse (CONTENT_CONFLICT) unless the targeted region holds exactly this text.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub expected_content: Option<String>,
    /// Refuse (CONTENT_CONFLICT) unless the whole file holds exactly this content.
    #[arg(long, value_name = "HASH")]
    pub expected_hash: Option<String>,
}

/// `insert-lines --position`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum PositionArg {
    Before,
    After,
    End,
}

/// Options every mutating command takes.
#[derive(Debug, Args)]
pub struct MutationArgs {
    /// Report what would change (with a diff) and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Accept a credential-shaped target (.env, *.pem, *.key, id_rsa, .ssh/, .aws/, ...).
    #[arg(long)]
    pub i_accept_secret_write_risk: bool,
}

#[derive(Debug, Subcommand)]
pub enum FileCommand {
    /// Create a file; an existing one is ALREADY_EXISTS unless --allow-existing.
    #[command(after_long_help = r#"Examples:
  keeper file create notes.md --content "first line"
  printf '# Todo\n' | keeper file create todo.md"#)]
    Create {
        /// The new file, workspace-relative; its directory must exist.
        path: String,
        #[command(flatten)]
        source: ContentSource,
        /// Replace the file if it exists instead of refusing.
        #[arg(long)]
        allow_existing: bool,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Replace a file's whole content, atomically (creating it when absent).
    #[command(after_long_help = r#"Examples:
  h=$(keeper file hash notes.md)
  keeper file write notes.md --input new.md --expected-hash "$h"
  keeper file write notes.md --input new.md --dry-run"#)]
    Write {
        /// The file, workspace-relative.
        path: String,
        #[command(flatten)]
        source: ContentSource,
        /// Refuse (CONTENT_CONFLICT) unless the file still holds exactly this content.
        #[arg(long, value_name = "HASH")]
        expected_hash: Option<String>,
        /// Drop the file's UTF-8 byte-order mark. Without this, a file that starts with one
        /// keeps it when the new content has none.
        #[arg(long)]
        remove_bom: bool,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Copy a file; an existing destination is replaced only against its current hash.
    #[command(after_long_help = r#"Examples:
  keeper file copy todo.md backup/todo.md
  h=$(keeper file hash backup/todo.md)
  keeper file copy todo.md backup/todo.md --expected-destination-hash "$h""#)]
    Copy {
        /// The file to copy.
        source: String,
        /// The new path.
        destination: String,
        /// Replace an existing destination only if it holds exactly this content.
        #[arg(long, value_name = "HASH")]
        expected_destination_hash: Option<String>,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Move (rename) a file atomically; an existing destination needs --overwrite.
    #[command(after_long_help = r#"Examples:
  keeper file move draft.md docs/final.md
  keeper file move notes.new notes.md --overwrite --dry-run"#)]
    Move {
        /// The file to move.
        source: String,
        /// The new path.
        destination: String,
        /// Replace an existing destination.
        #[arg(long)]
        overwrite: bool,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Replace literal text: exact match first, then with indentation and trailing whitespace
    /// normalised (warned), else NO_MATCH naming the nearest lines. Never a regex.
    #[command(after_long_help = r#"Examples:
  keeper file replace-text src/lib.rs --old 'fn old()' --new 'fn new()' --first
  keeper file replace-text notes.md --old TODO --new DONE --all --expected-match-count 3"#)]
    #[command(group(clap::ArgGroup::new("policy").required(true).args(["first", "all"])))]
    #[command(group(clap::ArgGroup::new("old_text").required(true).args(["old", "old_file"])))]
    #[command(group(clap::ArgGroup::new("new_text").required(true).args(["new", "new_file"])))]
    ReplaceText {
        /// The file, workspace-relative.
        path: String,
        /// The exact text to find (literal).
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        old: Option<String>,
        /// Read the text to find from a file (for text a shell would mangle).
        #[arg(long, value_name = "FILE")]
        old_file: Option<std::path::PathBuf>,
        /// The replacement (literal: no `$1`, no escapes).
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        new: Option<String>,
        /// Read the replacement from a file.
        #[arg(long, value_name = "FILE")]
        new_file: Option<std::path::PathBuf>,
        /// Replace the one occurrence (refused when there are several, unless the count is confirmed).
        #[arg(long)]
        first: bool,
        /// Replace every occurrence.
        #[arg(long)]
        all: bool,
        /// Refuse (MATCH_COUNT_MISMATCH) unless the old text occurs exactly N times.
        #[arg(long, value_name = "N")]
        expected_match_count: Option<u64>,
        #[command(flatten)]
        guards: EditGuardArgs,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Replace lines START..=END (1-based, inclusive) with new text.
    #[command(after_long_help = r#"Examples:
  keeper file replace-lines VERSION --start 1 --end 1 --replacement 1.3 --expected-content 1.2
  keeper file replace-lines todo.md --start 2 --end 4 --replacement '- merged' --dry-run"#)]
    ReplaceLines {
        /// The file, workspace-relative.
        path: String,
        /// First line to replace.
        #[arg(long, value_name = "N")]
        start: u64,
        /// Last line to replace (inclusive).
        #[arg(long, value_name = "M")]
        end: u64,
        /// The new lines (empty deletes the range).
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        replacement: String,
        #[command(flatten)]
        guards: EditGuardArgs,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Insert lines before or after line N, or with --position end after the last line.
    #[command(after_long_help = r#"Examples:
  h=$(keeper file hash todo.md)
  keeper file insert-lines todo.md --position end --content '- ship it' --expected-hash "$h"
  keeper file insert-lines todo.md --position after --line 1 --content '- first' --dry-run"#)]
    InsertLines {
        /// The file, workspace-relative.
        path: String,
        /// Where: before or after --line N, or end (which takes no --line).
        #[arg(long, value_enum)]
        position: PositionArg,
        /// The line to insert before or after.
        #[arg(long, value_name = "N")]
        line: Option<u64>,
        /// The lines to insert.
        #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
        content: String,
        #[command(flatten)]
        guards: EditGuardArgs,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Delete lines START..=END (1-based, inclusive).
    #[command(after_long_help = r#"Examples:
  keeper file delete-lines todo.md --start 2 --end 2 --expected-content '- done'
  keeper file delete-lines todo.md --start 2 --end 3 --dry-run"#)]
    DeleteLines {
        /// The file, workspace-relative.
        path: String,
        /// First line to delete.
        #[arg(long, value_name = "N")]
        start: u64,
        /// Last line to delete (inclusive).
        #[arg(long, value_name = "M")]
        end: u64,
        #[command(flatten)]
        guards: EditGuardArgs,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Apply a unified diff (diff -u or git diff) from a file or stdin: every hunk is checked
    /// before anything is written; a failed or ambiguous hunk rejects the whole patch.
    #[command(after_long_help = r#"Examples:
  keeper file apply-patch fix.patch --dry-run
  git -C ../upstream diff | keeper file apply-patch
  diff -u old.txt new.txt | keeper file apply-patch"#)]
    ApplyPatch {
        /// The patch file (default: standard input).
        patch: Option<std::path::PathBuf>,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Delete a file (its bytes stay in history, so the deletion can be undone).
    #[command(after_long_help = r#"Examples:
  h=$(keeper file hash old.md)
  keeper file delete old.md --expected-hash "$h"
  keeper file delete draft.md --dry-run"#)]
    Delete {
        /// The file, workspace-relative.
        path: String,
        /// Refuse unless the file holds exactly this content.
        #[arg(long, value_name = "HASH")]
        expected_hash: Option<String>,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Print lines of a text file byte-for-byte on stdout; metadata goes to stderr.
    #[command(after_long_help = r#"Examples:
  keeper file read notes.md
  keeper file read src/main.rs --from-line 10 --to-line 20
  keeper --json file read big.log --max-bytes 65536"#)]
    Read(ReadArgs),
    /// Read several files; each succeeds or fails on its own (at most max_read_many_paths).
    #[command(after_long_help = r#"Examples:
  keeper file read-many README.md docs/intro.md
  keeper --json file read-many src/a.rs src/b.rs --max-bytes-per-file 4096"#)]
    ReadMany {
        /// The files, workspace-relative.
        #[arg(required = true)]
        paths: Vec<String>,
        #[command(flatten)]
        range: LineRange,
        /// Return at most N bytes of each file, cut at a whole line.
        #[arg(long, value_name = "N")]
        max_bytes_per_file: Option<u64>,
    },
    /// Show kind, size, mode, modification time, and for files the text facts and hash.
    #[command(after_long_help = r#"Examples:
  keeper file info notes.md
  keeper --json file info notes.md"#)]
    Info {
        /// The path, workspace-relative.
        path: String,
    },
    /// Print a file's content hash (sha256:..., the id `--expected-hash` takes).
    #[command(after_long_help = r#"Examples:
  keeper file hash notes.md
  keeper --json file hash notes.md"#)]
    Hash {
        /// The file, workspace-relative.
        path: String,
    },
    /// Exit 0 when the path exists and 3 when it does not: a shell predicate.
    #[command(after_long_help = r#"Example:
  keeper file exists notes.md && echo present"#)]
    Exists {
        /// The path, workspace-relative.
        path: String,
    },
    /// List a directory, sorted; .filekeeper/ is never listed and links are never followed.
    #[command(after_long_help = r#"Examples:
  keeper file list
  keeper file list docs --recursive --glob '*.md'"#)]
    List {
        /// The directory (default: the workspace root).
        path: Option<String>,
        /// Descend into subdirectories (up to max_recursion_depth).
        #[arg(long, short)]
        recursive: bool,
        /// Only entries whose path below PATH matches this glob (`*` crosses `/`).
        #[arg(long, value_name = "PATTERN")]
        glob: Option<String>,
        /// Return at most N entries (default and ceiling: max_directory_entries).
        #[arg(long, value_name = "N")]
        max_entries: Option<u64>,
    },
    /// Find paths by glob, honouring .gitignore and skipping .git/.
    #[command(after_long_help = r#"Example:
  keeper file search . '*.md'"#)]
    Search {
        /// The directory to search.
        path: String,
        /// The glob; without a `/` it also matches bare file names.
        glob: String,
        /// Return at most N results (default and ceiling: max_search_results).
        #[arg(long, value_name = "N")]
        max_results: Option<u64>,
    },
    /// Find lines containing text (literal unless --regex), honouring .gitignore.
    #[command(after_long_help = r#"Examples:
  keeper file grep . 'TODO'
  keeper file grep src 'fn \w+_test' --regex --glob '*.rs'"#)]
    Grep {
        /// The directory (or file) to search.
        path: String,
        /// The text to find.
        query: String,
        /// Treat QUERY as a regular expression (Rust regex syntax).
        #[arg(long)]
        regex: bool,
        /// Only files whose path below PATH matches this glob.
        #[arg(long, value_name = "PATTERN")]
        glob: Option<String>,
        /// Match without regard to case.
        #[arg(long, short = 'i')]
        ignore_case: bool,
        /// Return at most N matching lines (default and ceiling: max_search_results).
        #[arg(long, value_name = "N")]
        max_results: Option<u64>,
        /// The files' encoding, when it is not UTF-8 (e.g. latin1, windows-1252, shift_jis);
        /// files that do not decode in it are skipped and counted.
        #[arg(long, value_name = "E")]
        encoding: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum DirCommand {
    /// Create a directory.
    #[command(after_long_help = r#"Examples:
  keeper dir create notes/2026/03 --parents
  keeper dir create build --dry-run"#)]
    Create {
        /// The directory, workspace-relative.
        path: String,
        /// Also create missing parents; an existing directory is then not an error.
        #[arg(long, short)]
        parents: bool,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Move (rename) a directory and everything in it, atomically, to a new path.
    #[command(after_long_help = r#"Examples:
  keeper dir move src/utils src/helpers --dry-run
  keeper dir move src/utils src/helpers"#)]
    Move {
        /// The directory to move.
        source: String,
        /// The new path (must not exist).
        destination: String,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Delete an empty directory, or with --recursive --confirm-recursive a whole tree.
    #[command(after_long_help = r#"Examples:
  keeper dir delete build
  keeper dir delete drafts --recursive --confirm-recursive --dry-run"#)]
    Delete {
        /// The directory, workspace-relative.
        path: String,
        /// Delete everything inside too (needs --confirm-recursive).
        #[arg(long, requires = "confirm_recursive")]
        recursive: bool,
        /// Confirms --recursive: both are required, so a tree is never deleted by one slip.
        #[arg(long, requires = "recursive")]
        confirm_recursive: bool,
        #[command(flatten)]
        mutation: MutationArgs,
    },
}

impl FileCommand {
    /// Whether the command changes the workspace.
    pub fn is_mutation(&self) -> bool {
        matches!(
            self,
            FileCommand::Create { .. }
                | FileCommand::Write { .. }
                | FileCommand::Copy { .. }
                | FileCommand::Move { .. }
                | FileCommand::Delete { .. }
                | FileCommand::ReplaceText { .. }
                | FileCommand::ReplaceLines { .. }
                | FileCommand::InsertLines { .. }
                | FileCommand::DeleteLines { .. }
                | FileCommand::ApplyPatch { .. }
        )
    }
}

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// List operations of this workspace, newest first. The global --actor and --task-id
    /// filter the list.
    #[command(after_long_help = r#"Examples:
  keeper history list --path notes.md --actor agent-7 --limit 5
  keeper --json history list --task-id T-42"#)]
    List {
        /// Only operations that touched this path.
        #[arg(long, value_name = "PATH")]
        path: Option<String>,
        /// At most N operations (default 20, at most max_history_entries, 200).
        #[arg(long, value_name = "N")]
        limit: Option<u64>,
    },
    /// Show one operation: status and every path's hashes, modes and existence.
    #[command(after_long_help = r#"Examples:
  keeper history show op_1a2b3c4d5e6f7a8b
  keeper --json history show op_1a2b3c4d5e6f7a8b"#)]
    Show {
        /// The operation id, op_<16 hex>.
        operation_id: String,
    },
    /// A unified diff of every path an operation changed, from the stored blobs.
    #[command(after_long_help = r#"Example:
  keeper history diff op_1a2b3c4d5e6f7a8b"#)]
    Diff {
        /// The operation id, op_<16 hex>.
        operation_id: String,
    },
    /// Restore every path of an operation to its state before it, or change nothing
    /// (UNDO_CONFLICT, exit 12) when a path has changed since.
    #[command(after_long_help = r#"Examples:
  keeper history undo op_1a2b3c4d5e6f7a8b --dry-run
  keeper history undo op_1a2b3c4d5e6f7a8b"#)]
    Undo {
        /// The operation id, op_<16 hex>.
        operation_id: String,
        #[command(flatten)]
        mutation: MutationArgs,
    },
    /// Undo the newest operation here that is not an undo, not already undone, and whose
    /// history was stored (newer ones whose history was skipped are passed over and named);
    /// with the global --actor, the newest of that actor's (who is also recorded as the
    /// undo's actor).
    #[command(after_long_help = r#"Examples:
  keeper history undo-last --dry-run
  keeper history undo-last --actor agent-7"#)]
    UndoLast {
        #[command(flatten)]
        mutation: MutationArgs,
    },
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}
