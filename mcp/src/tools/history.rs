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
    /// Only operations that touched this path.
    path: Option<String>,
    /// Only operations recorded with this actor.
    actor: Option<String>,
    /// Only operations recorded with this task id.
    task_id: Option<String>,
    /// At most this many (default 20, ceiling 200).
    limit: Option<u64>,
    /// A previous page's next_cursor, to continue with older operations (same filters).
    cursor: Option<String>,
}

impl Tool for HistoryList {
    const NAME: &str = "history_list";
    const DESCRIPTION: &str = "This workspace's operations, newest first, each with its status, summary, paths, undone_by and whether it is undoable.";
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
    /// The operation id (op_ and 16 hex digits).
    operation_id: String,
}

impl Tool for HistoryGet {
    const NAME: &str = "history_get";
    const DESCRIPTION: &str = "One operation: status, actor, task, summary, and every path's change with hashes, modes and existence before and after.";
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
    /// The operation id.
    operation_id: String,
}

impl Tool for HistoryDiff {
    const NAME: &str = "history_diff";
    const DESCRIPTION: &str = "A unified diff per path of one operation, from the stored contents; binary, directory and history-skipped paths are named as such without a body.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<filekeeper::HistoryDiff>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        Ok(cx.success(cx.workspace.diff_operation(&self.operation_id)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct UndoOperation {
    /// The operation to undo.
    operation_id: String,
    #[serde(flatten)]
    mutation: Mutation,
}

impl Tool for UndoOperation {
    const NAME: &str = "undo_operation";
    const DESCRIPTION: &str = "Restore every path of an operation to its state before it. Safe, not best-effort: if any path changed since, nothing is modified and the result is UNDO_CONFLICT naming the blocking paths. The undo is itself an operation, so undoing it goes forward again.";
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
    const DESCRIPTION: &str = "Undo the newest operation of this workspace that is not an undo, not already undone, and whose history was stored, recorded by this server's actor when one was configured. Newer operations whose history was skipped are passed over and named in skipped_operations. Same safety as undo_operation.";
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
