//! The served workspace: which it is, its limits and where its state lives.

use super::{Context, Effect, Tool};
use filekeeper::Result;
use filekeeper::documents::{self, ServedWorkspace, ServedWorkspaces};
use filekeeper::envelope::{Always, Document, Success};
use filekeeper::plumbing::config::StateLocation;
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
        let state = cx
            .workspace
            .state_location()?
            .map(|location| match location {
                StateLocation::Project => "project",
                StateLocation::Global => "home",
            });
        Ok(cx.success(documents::WorkspaceInfo {
            name: cx.workspace.name().map(str::to_owned),
            state,
            limits: cx.workspace.plumbing().limits.clone(),
        }))
    }
}
