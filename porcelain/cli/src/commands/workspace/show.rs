use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::Result;
use filekeeper::envelope::fields_of;

/// Show one workspace.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper workspace show notes
  keeper --json workspace show notes"#)]
pub struct ShowArgs {
    /// The workspace name.
    pub name: String,
}

pub fn cmd_show(cx: &Context, args: &ShowArgs) -> Result<Reply> {
    let entry = cx.keeper.show_workspace(&args.name)?;
    let human = format!(
        "name:     {}\nroot:     {}\ndefault:  {}\ncreated:  {}\n",
        entry.registration.name,
        entry.registration.root.display(),
        if entry.is_default { "yes" } else { "no" },
        entry.registration.created_at
    );
    Ok(Reply::new(fields_of(super::shown(&entry)), human))
}
