//! `keeper workspace …`: the registry of workspaces in the home.

mod create;
mod list;
mod remove;
mod show;
mod r#use;

use super::Context;
use crate::output::Reply;
use clap::Subcommand;
use filekeeper::documents::WorkspaceShown;
use filekeeper::{Result, WorkspaceEntry};

#[derive(Debug, Subcommand)]
pub enum WorkspaceCommand {
    Create(create::CreateArgs),
    List(list::ListArgs),
    Show(show::ShowArgs),
    Use(r#use::UseArgs),
    Remove(remove::RemoveArgs),
}

pub fn run(cx: &Context, cmd: &WorkspaceCommand) -> Result<Reply> {
    match cmd {
        WorkspaceCommand::Create(args) => create::cmd_create(cx, args),
        WorkspaceCommand::List(args) => list::cmd_list(cx, args),
        WorkspaceCommand::Show(args) => show::cmd_show(cx, args),
        WorkspaceCommand::Use(args) => r#use::cmd_use(cx, args),
        WorkspaceCommand::Remove(args) => remove::cmd_remove(cx, args),
    }
}

/// The document of `create`, `show` and `use`: the one workspace.
fn shown(entry: &WorkspaceEntry) -> WorkspaceShown {
    WorkspaceShown {
        workspace: entry.into(),
    }
}
