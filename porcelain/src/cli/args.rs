//! The `keeper` command line, defined once: help, completions and man pages come from here.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Safe, predictable filesystem operations for people, scripts and agents.
///
/// Every operation is confined to a workspace, replaces whole files atomically and durably,
/// and is recorded so it can be undone. With --json every command prints one JSON object
/// whose first field is "ok".
#[derive(Debug, Parser)]
#[command(name = "keeper", version = crate::cli::VERSION_TEXT, max_term_width = 100)]
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
    Init,

    /// Register, list, inspect, select and forget workspaces.
    #[command(subcommand)]
    Workspace(WorkspaceCommand),

    /// Compute a blob id (sha256:...) of a workspace file or stdin; -w also stores it.
    HashObject(HashObjectArgs),

    /// Print a stored blob's bytes, verified against its id.
    CatBlob {
        /// The blob id, sha256:<64 hex>.
        id: String,
    },

    /// Show where a path lands inside the workspace, or why it is refused.
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
    JournalBegin(JournalBeginArgs),

    /// Mark a pending operation committed, after verifying every path holds its after state.
    JournalCommit {
        /// The operation id, op_<16 hex>.
        operation_id: String,
    },

    /// Mark a pending operation rolled back, after verifying every path holds its before state.
    JournalAbort {
        /// The operation id, op_<16 hex>.
        operation_id: String,
    },

    /// Show one journal record with its items.
    JournalShow {
        /// The operation id, op_<16 hex>.
        operation_id: String,
    },

    /// Atomically replace a workspace file with a stored blob (temp file, fsync, rename, dir fsync).
    Publish(PublishArgs),

    /// Verify every stored object and every journal reference; exit non-zero on any damage.
    Fsck,
}

#[derive(Debug, Subcommand)]
pub enum WorkspaceCommand {
    /// Register ROOT (an existing directory) as workspace NAME.
    Create {
        /// 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.
        name: String,
        /// The workspace's root directory.
        root: PathBuf,
    },
    /// List registered workspaces.
    List,
    /// Show one workspace.
    Show {
        /// The workspace name.
        name: String,
    },
    /// Make NAME the default workspace.
    Use {
        /// The workspace name.
        name: String,
    },
    /// Forget a registration; the workspace's files and history are left in place.
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
