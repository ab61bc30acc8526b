//! `keeper history …`: the operation log of a workspace, and undo.

mod diff;
mod list;
mod prune;
mod show;
mod undo;

use super::Context;
use crate::output::Reply;
use clap::Subcommand;
use filekeeper::Result;

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    List(list::ListArgs),
    Show(show::ShowArgs),
    Diff(diff::DiffArgs),
    Undo(undo::UndoArgs),
    UndoLast(undo::UndoLastArgs),
    Prune(prune::PruneArgs),
}

pub fn run(cx: &Context, cmd: &HistoryCommand) -> Result<Reply> {
    let ws = cx.workspace()?;
    match cmd {
        HistoryCommand::List(args) => list::cmd_list(cx, &ws, args),
        HistoryCommand::Show(args) => show::cmd_show(&ws, args),
        HistoryCommand::Diff(args) => diff::cmd_diff(&ws, args),
        HistoryCommand::Undo(args) => undo::cmd_undo(cx, &ws, args),
        HistoryCommand::UndoLast(args) => undo::cmd_undo_last(cx, &ws, args),
        HistoryCommand::Prune(args) => prune::cmd_prune(cx, &ws, args),
    }
}

/// An optional field for people: the value, or `-` when there is none.
fn or_dash(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("-")
}
