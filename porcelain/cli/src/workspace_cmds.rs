//! `keeper init` and `keeper workspace …`.

use super::args::WorkspaceCommand;
use super::output::Reply;
use filekeeper::documents::{
    Initialised, WorkspaceList, WorkspaceRecord, WorkspaceRemoved, WorkspaceShown,
};
use filekeeper::envelope::fields_of as fields;
use filekeeper::{Filekeeper, Result, WorkspaceEntry};

pub fn init(keeper: &Filekeeper) -> Result<Reply> {
    let report = keeper.init()?;
    let home = keeper.home().dir().display().to_string();
    let human = if report.config_written {
        format!("Initialised the Filekeeper home at {home}\n")
    } else {
        format!(
            "The Filekeeper home at {home} was already initialised; config.toml left as it was\n"
        )
    };
    Ok(Reply::new(
        fields(Initialised {
            home,
            config_written: report.config_written,
        }),
        human,
    ))
}

fn shown(entry: &WorkspaceEntry) -> WorkspaceShown {
    WorkspaceShown {
        workspace: entry.into(),
    }
}

pub fn run(keeper: &Filekeeper, cmd: &WorkspaceCommand) -> Result<Reply> {
    match cmd {
        WorkspaceCommand::Create { name, root } => {
            let reg = keeper.create_workspace(name, root)?;
            let entry = WorkspaceEntry {
                registration: reg,
                is_default: false,
            };
            Ok(Reply::new(
                fields(shown(&entry)),
                format!(
                    "Registered workspace {name} at {}\n",
                    entry.registration.root.display()
                ),
            ))
        }
        WorkspaceCommand::List => {
            let list = keeper.list_workspaces()?;
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
            Ok(Reply::new(
                fields(WorkspaceList {
                    workspaces: list.iter().map(WorkspaceRecord::from).collect(),
                }),
                human,
            ))
        }
        WorkspaceCommand::Show { name } => {
            let entry = keeper.show_workspace(name)?;
            let human = format!(
                "name:     {}\nroot:     {}\ndefault:  {}\ncreated:  {}\n",
                entry.registration.name,
                entry.registration.root.display(),
                if entry.is_default { "yes" } else { "no" },
                entry.registration.created_at
            );
            Ok(Reply::new(fields(shown(&entry)), human))
        }
        WorkspaceCommand::Use { name } => {
            let reg = keeper.use_workspace(name)?;
            let entry = WorkspaceEntry {
                registration: reg,
                is_default: true,
            };
            Ok(Reply::new(
                fields(shown(&entry)),
                format!("Default workspace is now {name}\n"),
            ))
        }
        WorkspaceCommand::Remove { name } => {
            let reg = keeper.remove_workspace(name)?;
            let entry = WorkspaceEntry {
                registration: reg,
                is_default: false,
            };
            Ok(Reply::new(
                fields(WorkspaceRemoved {
                    workspace: (&entry).into(),
                    warnings: vec!["the registration was removed; the files and their .filekeeper/ history were left in place".into()],
                }),
                format!("Removed workspace {name}\n"),
            ))
        }
    }
}
