//! The journal: operations, their diffs, and undoing them.

use super::{Context, Effect, Mutation, Tool};
use filekeeper::documents::{HistoryList as Operations, HistoryShow};
use filekeeper::envelope::Success;
use filekeeper::{HistoryFilter, MutationResult, Result, schemas};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, JsonSchema)]
pub struct HistoryList {
    // Only operations that touched this path.
    path: Option<String>,
    // Only operations recorded with this actor.
    actor: Option<String>,
    // Only operations recorded with this task id.
    task_id: Option<String>,
    // At most this many (default 20, ceiling 200).
    limit: Option<u64>,
    // A previous page's next_cursor, to continue with older operations (same filters).
    cursor: Option<String>,
}

impl Tool for HistoryList {
    const NAME: &str = "history_list";
    const DESCRIPTION: &str =
        "The operations, newest first: status, summary, paths, and whether each is undoable.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<Operations>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let page = cx.workspace.list_history(&HistoryFilter {
            path: self.path,
            actor: self.actor,
            task_id: self.task_id,
            limit: self.limit,
            cursor: self.cursor,
        })?;
        Ok(cx.success(page))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct HistoryGet {
    // The operation id (op_ and 16 hex digits).
    operation_id: String,
}

impl Tool for HistoryGet {
    const NAME: &str = "history_get";
    const DESCRIPTION: &str = "One operation in full: each path before and after.";
    const EFFECT: Effect = Effect::Read;
    const QUICK: bool = true;
    type Output = Success<HistoryShow>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let entry = cx.workspace.get_operation(&self.operation_id)?;
        Ok(cx.success(HistoryShow::from(entry)))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct HistoryDiff {
    // The operation id.
    operation_id: String,
}

impl Tool for HistoryDiff {
    const NAME: &str = "history_diff";
    const DESCRIPTION: &str = "One operation's unified diff per path.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<filekeeper::HistoryDiff>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        Ok(cx.success(cx.workspace.diff_operation(&self.operation_id)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct UndoOperation {
    // The operation to undo.
    operation_id: String,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for UndoOperation {
    const NAME: &str = "undo_operation";
    const DESCRIPTION: &str =
        "Undo an operation; if any of its paths changed since, nothing changes (UNDO_CONFLICT).";
    const EFFECT: Effect = Effect::Change;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&[], &[])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        Ok(cx.success(cx.workspace.undo(&self.operation_id, &options)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct UndoLast {
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for UndoLast {
    const NAME: &str = "undo_last";
    const DESCRIPTION: &str = "Undo the newest undoable operation in the workspace, whoever made it; when this server was started with an actor, that actor's newest instead.";
    const EFFECT: Effect = Effect::Change;
    type Output = Success<MutationResult>;

    fn output_schema() -> Value {
        schemas::mutation(&["skipped_operations"], &[])
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = cx.mutation(&self.mutation);
        let actor = cx.audit.actor.as_deref();
        Ok(cx.success(cx.workspace.undo_last(actor, &options)?))
    }
}
