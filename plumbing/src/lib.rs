//! Filekeeper's plumbing: every filesystem, blob and journal effect Filekeeper has.
//!
//! - [`odb`]: the loose-object store of zstd-compressed, SHA-256-named blobs;
//! - [`journal`]: the SQLite operation journal;
//! - [`resolve`]: confinement of paths to a workspace root, race-free;
//! - [`publish`]: atomic, durable replacement of one workspace file;
//! - [`fs_ops`]: the other changes to a workspace's files and directories: removing a file,
//!   creating and removing a directory, renaming;
//! - [`retire`]: freeing a replaced or removed file on a background thread;
//! - [`path_state`]: what a path holds now, and whether that is a journal item's recorded side;
//! - [`lock`] and [`recover`]: one mutation at a time, and resolving what a crash left;
//! - [`walk`] and [`ignore`]: sorted, confined tree walks honouring git's ignore rules;
//! - [`home`] and [`workspace`]: the registry of workspaces and where their state lives;
//! - [`cursor_key`]: the key that signs cursors, in the state directory or the home;
//! - [`durable`]: fsync-ordered writes of Filekeeper's own files and directories;
//! - [`fault`]: the crash, failure and fault-sweep hooks of the t/ tests (armed only by the
//!   `crash-points` feature);
//! - [`strict_json`]: JSON objects read strictly, refusing names they do not know;
//! - [`progress`]: progress of long work, for a terminal to draw;
//! - [`status`]: read-only counts of a workspace's journal and object store;
//! - [`commands`]: the plumbing subcommands (`hash-object`, `cat-blob`, `journal-*`,
//!   `publish`, `resolve-path`, `fsck`) as functions returning their JSON result.
//!
//! The porcelain and the MCP server are built only from what this crate exports.

pub mod commands;
pub mod config;
pub mod cursor_key;
mod default_cache;
pub mod durable;
pub mod error;
pub mod fault;
pub mod fs_ops;
pub mod gc;
mod git_config;
pub mod home;
pub mod ignore;
pub mod journal;
pub mod lock;
pub mod odb;
pub mod oid;
pub mod path_state;
pub mod progress;
pub mod publish;
pub mod recover;
pub mod resolve;
pub mod retire;
pub mod sensitive;
mod sqlite;
pub mod status;
pub mod strict_json;
pub mod walk;
pub mod workspace;

pub use error::{
    Argument, Code, Error, LibrarySpelling, Operation, Result, Spelling, Wording, Words,
};
pub use oid::ObjectId;

/// The release and the on-disk formats this build writes, and the commit it was built from,
/// which `keeper --version` and `filekeeper-mcp --version` both print after their name. The
/// crates of the workspace share one version, so the plumbing's is the binaries' too.
pub const VERSION_TEXT: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (journal schema 4, objects: sha256 + zstd loose; commit ",
    env!("FILEKEEPER_COMMIT"),
    ")"
);

/// The commit this build was made from (12 hex digits), or `unknown` when it was built
/// outside a git checkout: the one fact that tells two builds of one release apart.
pub const COMMIT: &str = env!("FILEKEEPER_COMMIT");

/// The release with the commit as semver build metadata (`0.1.0+0123456789ab`), for the
/// MCP server's `serverInfo.version`.
pub const BUILD_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("FILEKEEPER_COMMIT"));

// `concat!` takes literals only, so the schema above is written out; this stops the build
// when a migration is added and the text is not updated with it.
const _: () = assert!(
    journal::SCHEMA_VERSION == 4,
    "VERSION_TEXT must name the journal schema this build writes"
);
