//! `keeper file …`: files in the workspace.
//!
//! The read-only commands are in `read` (read, read-many), `bytes` (read-bytes), `inspect`
//! (info, hash, exists), `diff` (diff of two files), `find` (list, search, grep) and
//! `find_up` (find-up): nothing in them changes the workspace. The mutating ones
//! are in `write` (whole files: create, write, copy, move, delete), `edit` (in place:
//! replace-text and the line edits) and `patch` (apply-patch); `input` reads the content
//! they are given.

mod bytes;
mod diff;
mod edit;
mod find;
mod find_up;
mod input;
mod inspect;
mod patch;
pub(crate) mod read;
mod write;

use super::Context;
use crate::output::Reply;
use clap::Subcommand;
use filekeeper::Result;

/// The order is the order of `keeper file --help`.
#[derive(Debug, Subcommand)]
pub enum FileCommand {
    Create(write::CreateArgs),
    Write(write::WriteArgs),
    Copy(write::CopyArgs),
    Move(write::MoveArgs),
    ReplaceText(edit::ReplaceTextArgs),
    ReplaceLines(edit::ReplaceLinesArgs),
    InsertLines(edit::InsertLinesArgs),
    DeleteLines(edit::DeleteLinesArgs),
    ApplyPatch(patch::ApplyPatchArgs),
    Delete(write::DeleteArgs),
    Read(read::ReadArgs),
    ReadMany(read::ReadManyArgs),
    ReadBytes(bytes::ReadBytesArgs),
    Info(inspect::InfoArgs),
    Hash(inspect::HashArgs),
    Exists(inspect::ExistsArgs),
    Diff(diff::DiffArgs),
    List(find::ListArgs),
    Search(find::SearchArgs),
    Grep(find::GrepArgs),
    FindUp(find_up::FindUpArgs),
}

/// The definition of the one `keeper file` command named `name`, built alone: the same
/// arguments as in the whole tree (the same `Args` types), without building the twenty other
/// commands. `None` for a name that is not a `file` command. Used by `crate::parse` for the
/// commands agents and scripts repeat; a name missing here only falls back to the whole tree.
pub(crate) fn one_command(name: &str) -> Option<clap::Command> {
    use clap::Args;
    type Augment = fn(clap::Command) -> clap::Command;
    const COMMANDS: &[(&str, Augment)] = &[
        ("create", write::CreateArgs::augment_args),
        ("write", write::WriteArgs::augment_args),
        ("copy", write::CopyArgs::augment_args),
        ("move", write::MoveArgs::augment_args),
        ("replace-text", edit::ReplaceTextArgs::augment_args),
        ("replace-lines", edit::ReplaceLinesArgs::augment_args),
        ("insert-lines", edit::InsertLinesArgs::augment_args),
        ("delete-lines", edit::DeleteLinesArgs::augment_args),
        ("apply-patch", patch::ApplyPatchArgs::augment_args),
        ("delete", write::DeleteArgs::augment_args),
        ("read", read::ReadArgs::augment_args),
        ("read-many", read::ReadManyArgs::augment_args),
        ("read-bytes", bytes::ReadBytesArgs::augment_args),
        ("info", inspect::InfoArgs::augment_args),
        ("hash", inspect::HashArgs::augment_args),
        ("exists", inspect::ExistsArgs::augment_args),
        ("diff", diff::DiffArgs::augment_args),
        ("list", find::ListArgs::augment_args),
        ("search", find::SearchArgs::augment_args),
        ("grep", find::GrepArgs::augment_args),
        ("find-up", find_up::FindUpArgs::augment_args),
    ];
    COMMANDS
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(known, augment)| augment(clap::Command::new(*known)))
}

pub fn run(cx: &Context, cmd: &FileCommand) -> Result<Reply> {
    let ws = cx.workspace()?;
    match cmd {
        FileCommand::Create(args) => write::cmd_create(cx, &ws, args),
        FileCommand::Write(args) => write::cmd_write(cx, &ws, args),
        FileCommand::Copy(args) => write::cmd_copy(cx, &ws, args),
        FileCommand::Move(args) => write::cmd_move(cx, &ws, args),
        FileCommand::ReplaceText(args) => edit::cmd_replace_text(cx, &ws, args),
        FileCommand::ReplaceLines(args) => edit::cmd_replace_lines(cx, &ws, args),
        FileCommand::InsertLines(args) => edit::cmd_insert_lines(cx, &ws, args),
        FileCommand::DeleteLines(args) => edit::cmd_delete_lines(cx, &ws, args),
        FileCommand::ApplyPatch(args) => patch::cmd_apply_patch(cx, &ws, args),
        FileCommand::Delete(args) => write::cmd_delete(cx, &ws, args),
        FileCommand::Read(args) => read::cmd_read(&ws, args),
        FileCommand::ReadMany(args) => read::cmd_read_many(&ws, args),
        FileCommand::ReadBytes(args) => bytes::cmd_read_bytes(&ws, args),
        FileCommand::Info(args) => inspect::cmd_info(&ws, args),
        FileCommand::Hash(args) => inspect::cmd_hash(&ws, args),
        FileCommand::Exists(args) => inspect::cmd_exists(&ws, args),
        FileCommand::Diff(args) => diff::cmd_diff(&ws, args),
        FileCommand::List(args) => find::cmd_list(&ws, args),
        FileCommand::Search(args) => find::cmd_search(&ws, args),
        FileCommand::Grep(args) => find::cmd_grep(&ws, args),
        FileCommand::FindUp(args) => find_up::cmd_find_up(&ws, args),
    }
}
