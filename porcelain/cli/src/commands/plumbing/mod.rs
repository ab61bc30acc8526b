//! The plumbing commands on `keeper` (`hash-object`, `journal-begin`, `publish`, ...): thin
//! wrappers over `filekeeper::plumbing::commands`, for scripts that compose an operation
//! step by step. They work on the plumbing's workspace directly, never through the library's
//! mutation engine.

pub mod cat_blob;
pub mod fsck;
pub mod hash_object;
pub mod journal;
pub mod publish;
pub mod recover;
pub mod resolve_path;

use super::Context;
use crate::output::Reply;
use filekeeper::Result;
use filekeeper::plumbing::workspace::Workspace;

/// The selected workspace, as the plumbing sees it.
fn open(cx: &Context) -> Result<Workspace> {
    cx.workspace().map(filekeeper::Workspace::into_plumbing)
}

/// A plumbing result obtained in `ws`: the `workspace` field first, as every other command's.
fn reply(ws: &Workspace, value: impl serde::Serialize, human: impl Into<Vec<u8>>) -> Reply {
    Reply::new(
        filekeeper::envelope::result_fields(ws.name.as_deref(), value),
        human,
    )
}
