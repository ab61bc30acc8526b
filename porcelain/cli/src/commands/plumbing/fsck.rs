use super::{open, reply};
use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::Result;
use filekeeper::plumbing::commands;

/// Verify every stored object and every journal reference; exit non-zero on any damage.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper fsck
  keeper --json fsck"#)]
pub struct FsckArgs {}

pub fn cmd_fsck(cx: &Context, _args: &FsckArgs) -> Result<Reply> {
    let ws = open(cx)?;
    let fsck = commands::fsck(&ws)?;
    let report = &fsck.report;
    let mut human = format!(
        "fsck: {} objects and {} operations verified; no damage\n",
        report.objects, report.operations
    );
    // Not damage, but a person who runs fsck wants to see them as the JSON lists them.
    let mut list = |heading: &str, items: &[String]| {
        if !items.is_empty() {
            human.push_str(heading);
            for item in items {
                human.push_str(&format!("  {item}\n"));
            }
        }
    };
    list(
        "pending operations (not damage; `keeper journal-show ID` shows one):\n",
        &report.pending_operations,
    );
    list(
        "temporary files of interrupted writes (not damage; `keeper gc` removes them):\n",
        &report.temporary_files,
    );
    Ok(reply(&ws, fsck, human))
}
