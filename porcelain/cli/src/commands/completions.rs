//! `keeper completions`: shell completion scripts, generated from the command tree.

use super::Cli;
use crate::output::Reply;
use clap::Args;
use filekeeper::Result;
use filekeeper::documents::Completions;
use filekeeper::envelope::fields_of;

/// Print a shell completion script (bash, zsh, fish, powershell, elvish).
#[derive(Debug, Args)]
#[command(after_long_help = r#"Example:
  keeper completions bash > ~/.local/share/bash-completion/completions/keeper"#)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub fn cmd_completions(args: &CompletionsArgs) -> Result<Reply> {
    let mut script = Vec::new();
    clap_complete::generate(
        args.shell,
        &mut <Cli as clap::CommandFactory>::command(),
        "keeper",
        &mut script,
    );
    let document = Completions {
        shell: args.shell.to_string(),
        script: String::from_utf8_lossy(&script).into_owned(),
    };
    Ok(Reply::new(fields_of(&document), script))
}
