//! `keeper init` and `keeper workspace …`.

use super::args::WorkspaceCommand;
use super::output::Reply;
use crate::{Filekeeper, Result, WorkspaceEntry};
use serde_json::{Map, Value, json};

fn fields(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

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
        fields(json!({"home": home, "config_written": report.config_written})),
        human,
    ))
}

fn entry_json(entry: &WorkspaceEntry) -> Value {
    json!({
        "name": entry.registration.name,
        "root": entry.registration.root.display().to_string(),
        "default": entry.is_default,
        "created_at": entry.registration.created_at,
    })
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
                fields(json!({"workspace": entry_json(&entry)})),
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
                fields(json!({"workspaces": list.iter().map(entry_json).collect::<Vec<_>>()})),
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
            Ok(Reply::new(
                fields(json!({"workspace": entry_json(&entry)})),
                human,
            ))
        }
        WorkspaceCommand::Use { name } => {
            let reg = keeper.use_workspace(name)?;
            let entry = WorkspaceEntry {
                registration: reg,
                is_default: true,
            };
            Ok(Reply::new(
                fields(json!({"workspace": entry_json(&entry)})),
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
                fields(json!({
                    "workspace": entry_json(&entry),
                    "warnings": ["the registration was removed; the files and their .filekeeper/ history were left in place"],
                })),
                format!("Removed workspace {name}\n"),
            ))
        }
    }
}
