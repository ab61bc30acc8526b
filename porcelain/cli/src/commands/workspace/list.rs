use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::Result;
use filekeeper::documents::{WorkspaceList, WorkspaceRecord};
use filekeeper::envelope::fields_of;

/// List registered workspaces.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper workspace list
  keeper --json workspace list"#)]
pub struct ListArgs {}

pub fn cmd_list(cx: &Context, _args: &ListArgs) -> Result<Reply> {
    let list = cx.keeper.list_workspaces()?;
    let width = list
        .iter()
        .map(|w| w.registration.name.len())
        .max()
        .unwrap_or(0);
    let human: String = list
        .iter()
        .map(|w| {
            format!(
                "{} {:width$}  {}\n",
                if w.is_default { "*" } else { " " },
                w.registration.name,
                w.registration.root.display()
            )
        })
        .collect();
    let document = WorkspaceList {
        workspaces: list.iter().map(WorkspaceRecord::from).collect(),
    };
    Ok(Reply::new(fields_of(document), human))
}
