//! `keeper init`: the home, before any workspace exists.

use super::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::Result;
use filekeeper::documents::Initialised;
use filekeeper::envelope::fields_of;

/// Create the home directory, config.toml and the workspace registry.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper init
  keeper --home /tmp/fk-test/home init"#)]
pub struct InitArgs {}

pub fn cmd_init(cx: &Context, _args: &InitArgs) -> Result<Reply> {
    let report = cx.keeper.init()?;
    let home = cx.keeper.home().dir().display().to_string();
    let human = if report.config_written {
        format!("Initialised the Filekeeper home at {home}\n")
    } else {
        format!(
            "The Filekeeper home at {home} was already initialised; config.toml left as it was\n"
        )
    };
    Ok(Reply::new(
        fields_of(Initialised {
            home,
            config_written: report.config_written,
        }),
        human,
    ))
}
