//! The `keeper` command tree, defined once: help, completions and the manual page all come
//! from these definitions.
//!
//! Commands are laid out by noun, as jj lays out its own: `file/`, `dir/`, `history/`,
//! `workspace/` and `plumbing/` each hold their commands, every command's arguments beside
//! the function that runs it. This module holds only the root: the options every command
//! takes, the list of commands, and the dispatch to their modules.

mod completions;
mod dir;
pub(crate) mod file;
mod gc;
mod history;
mod init;
mod man;
mod mutation;
mod plumbing;
mod status;
#[cfg(test)]
mod tests;
mod workspace;

use crate::output::Reply;
use clap::{Args, Parser, Subcommand};
use filekeeper::{Filekeeper, Result, Workspace};
use std::path::PathBuf;

/// `keeper --version`: the release and the on-disk format it writes.
pub const VERSION_TEXT: &str = filekeeper::plumbing::VERSION_TEXT;

/// Safe, predictable filesystem operations for people, scripts and agents.
///
/// Every operation is confined to a workspace, replaces whole files atomically and durably,
/// and is recorded so it can be undone. With --json every command prints one JSON object
/// whose first field is "ok".
#[derive(Debug, Parser)]
#[command(name = "keeper", version = VERSION_TEXT, max_term_width = 100)]
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

    /// Print nothing but the result itself, errors, and the notes that say a result is
    /// incomplete (cut at a bound, directories not read).
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

/// Every command. The order is the order of `keeper --help`, of the completion scripts and of
/// the manual page.
#[derive(Debug, Subcommand)]
pub enum Command {
    Init(init::InitArgs),

    /// Register, list, inspect, select and forget workspaces.
    #[command(subcommand)]
    Workspace(workspace::WorkspaceCommand),

    /// Read, inspect, search and change files in the workspace.
    #[command(subcommand)]
    File(file::FileCommand),

    /// Create, move and delete directories.
    #[command(subcommand)]
    Dir(dir::DirCommand),

    /// The operation log: list, show, diff, safe undo, and prune.
    #[command(subcommand)]
    History(history::HistoryCommand),

    Status(status::StatusArgs),
    Gc(gc::GcArgs),

    HashObject(plumbing::hash_object::HashObjectArgs),
    CatBlob(plumbing::cat_blob::CatBlobArgs),
    ResolvePath(plumbing::resolve_path::ResolvePathArgs),
    JournalBegin(plumbing::journal::JournalBeginArgs),
    JournalCommit(plumbing::journal::JournalCommitArgs),
    JournalAbort(plumbing::journal::JournalAbortArgs),
    JournalShow(plumbing::journal::JournalShowArgs),
    Publish(plumbing::publish::PublishArgs),
    Fsck(plumbing::fsck::FsckArgs),
    Completions(completions::CompletionsArgs),
    Man(man::ManArgs),
    Recover(plumbing::recover::RecoverArgs),
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// What a command may need besides its own arguments: the home and the global options.
pub struct Context<'a> {
    pub keeper: Filekeeper,
    pub global: &'a Global,
}

impl Context<'_> {
    /// The workspace `--workspace`, `--root` or the default names.
    pub fn workspace(&self) -> Result<Workspace> {
        self.keeper.workspace(
            self.global.workspace.as_deref(),
            self.global.root.as_deref(),
        )
    }
}

/// Runs the parsed command.
pub fn dispatch(cli: &Cli) -> Result<Reply> {
    // Completions and the manual describe the command tree alone: no home is needed, and a
    // missing or broken one must not stop them.
    match &cli.command {
        Command::Completions(args) => return completions::cmd_completions(args),
        Command::Man(args) => return man::cmd_man(args),
        _ => {}
    }
    let cx = Context {
        keeper: Filekeeper::new(cli.global.home.as_deref())?,
        global: &cli.global,
    };
    match &cli.command {
        Command::Init(args) => init::cmd_init(&cx, args),
        Command::Workspace(cmd) => workspace::run(&cx, cmd),
        Command::File(cmd) => file::run(&cx, cmd),
        Command::Dir(cmd) => dir::run(&cx, cmd),
        Command::History(cmd) => history::run(&cx, cmd),
        Command::Status(args) => status::cmd_status(&cx, args),
        Command::Gc(args) => gc::cmd_gc(&cx, args),
        Command::HashObject(args) => plumbing::hash_object::cmd_hash_object(&cx, args),
        Command::CatBlob(args) => plumbing::cat_blob::cmd_cat_blob(&cx, args),
        Command::ResolvePath(args) => plumbing::resolve_path::cmd_resolve_path(&cx, args),
        Command::JournalBegin(args) => plumbing::journal::cmd_journal_begin(&cx, args),
        Command::JournalCommit(args) => plumbing::journal::cmd_journal_commit(&cx, args),
        Command::JournalAbort(args) => plumbing::journal::cmd_journal_abort(&cx, args),
        Command::JournalShow(args) => plumbing::journal::cmd_journal_show(&cx, args),
        Command::Publish(args) => plumbing::publish::cmd_publish(&cx, args),
        Command::Fsck(args) => plumbing::fsck::cmd_fsck(&cx, args),
        Command::Recover(args) => plumbing::recover::cmd_recover(&cx, args),
        Command::Completions(_) | Command::Man(_) => Err(filekeeper::Error::internal(
            "completions and man are answered before the home is opened",
        )),
    }
}
