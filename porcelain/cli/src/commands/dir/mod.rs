//! `keeper dir …`: directories, created, moved and deleted as one recorded operation each.

mod create;
mod delete;
mod r#move;

use super::Context;
use crate::output::Reply;
use clap::Subcommand;
use filekeeper::Result;

#[derive(Debug, Subcommand)]
pub enum DirCommand {
    Create(create::CreateArgs),
    Move(r#move::MoveArgs),
    Delete(delete::DeleteArgs),
}

pub fn run(cx: &Context, cmd: &DirCommand) -> Result<Reply> {
    let ws = cx.workspace()?;
    match cmd {
        DirCommand::Create(args) => create::cmd_create(cx, &ws, args),
        DirCommand::Move(args) => r#move::cmd_move(cx, &ws, args),
        DirCommand::Delete(args) => delete::cmd_delete(cx, &ws, args),
    }
}
