//! The served workspace: which it is, its limits, where its state lives, and its history's
//! status. Agents get the status, a read; never prune or gc, which erase the history that
//! makes their own changes undoable (`docs/decisions.md`, "MCP").

use super::{Context, Effect, Tool};
use filekeeper::Result;
use filekeeper::documents::{self, ServedWorkspace, ServedWorkspaces};
use filekeeper::envelope::{Always, Document, Success};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
pub struct WorkspaceList {}

impl Tool for WorkspaceList {
    const NAME: &str = "workspace_list";
    const DESCRIPTION: &str = "The workspace this server serves; no tool can switch it.";
    const EFFECT: Effect = Effect::Read;
    /// Without a `workspace` field: the workspaces are the result.
    type Output = Document<ServedWorkspaces>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        Ok(Document {
            ok: Always,
            result: ServedWorkspaces {
                workspaces: vec![ServedWorkspace {
                    name: cx.workspace.name().map(str::to_owned),
                    served: true,
                }],
            },
        })
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct WorkspaceInfo {}

impl Tool for WorkspaceInfo {
    const NAME: &str = "workspace_info";
    const DESCRIPTION: &str =
        "The served workspace: its name, the limits in force and where its state lives.";
    const EFFECT: Effect = Effect::Read;
    const QUICK: bool = true;
    type Output = Success<documents::WorkspaceInfo>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let state = cx.workspace.state_location()?.map(filekeeper::state_word);
        Ok(cx.success(documents::WorkspaceInfo {
            name: cx.workspace.name().map(str::to_owned),
            state,
            limits: cx.workspace.plumbing().limits.clone(),
        }))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct WorkspaceStatus {}

impl Tool for WorkspaceStatus {
    const NAME: &str = "workspace_status";
    const DESCRIPTION: &str =
        "The workspace's history: operations, how far back undo goes, stored bytes, retention.";
    const EFFECT: Effect = Effect::Read;
    /// Not quick: it walks the object store.
    type Output = Success<filekeeper::WorkspaceStatus>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        Ok(cx.success(cx.workspace.status()?))
    }
}
