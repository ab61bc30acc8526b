//! `keeper man`: the manual page, generated from the command tree.

use super::Cli;
use crate::output::Reply;
use clap::Args;
use filekeeper::documents::Manual;
use filekeeper::envelope::fields_of;
use filekeeper::{Error, Result};

/// Print the manual page (roff), generated from the same definitions as --help.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Example:
  keeper man | man -l -"#)]
pub struct ManArgs {}

pub fn cmd_man(_args: &ManArgs) -> Result<Reply> {
    let mut roff = Vec::new();
    clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
        .render(&mut roff)
        .map_err(|e| Error::storage("rendering the manual", &e))?;
    let document = Manual {
        manual: String::from_utf8_lossy(&roff).into_owned(),
    };
    Ok(Reply::new(fields_of(&document), roff))
}
