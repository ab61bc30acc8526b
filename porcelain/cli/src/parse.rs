//! From the command line to a [`Cli`], or to the usage error clap found, printed as keeper
//! prints every error.

use crate::commands::file;
use crate::commands::{Cli, Global};
use crate::output::{self, Style};
use clap::Parser;
use filekeeper::Error;
use std::ffi::OsString;

/// Parses the command line. Building clap's definition of every command is most of what a
/// small `keeper file read` or `keeper file write` costs (1.7 million instructions of a
/// write's 5.3 million), and agents and scripts call the `file` commands more than anything
/// else, so `keeper file <command>` is first parsed against a tree holding only the global
/// options and that one command: the same definitions, so the same result. Anything that tree
/// does not accept (help, a typo, another command) goes to the whole tree, which gives the
/// canonical answer.
pub fn parse(argv: &[OsString]) -> std::result::Result<Cli, clap::Error> {
    match parse_one_file_command(argv) {
        Some(cli) => Ok(cli),
        None => Cli::try_parse_from(argv),
    }
}

/// The narrow parse of `keeper file <command>`, or None when the tree of only that command
/// does not accept `argv`.
fn parse_one_file_command(argv: &[OsString]) -> Option<Cli> {
    use clap::{Args, FromArgMatches};
    // Global options may come before, between or after the two words, so look for the pair
    // anywhere; a false match (`--root file read`) fails the narrow parse and falls through.
    let command = argv.windows(2).skip(1).find_map(|w| {
        (w[0] == "file")
            .then(|| w[1].to_str().and_then(file::one_command))
            .flatten()
    })?;
    let narrow = Global::augment_args(clap::Command::new("keeper"))
        .subcommand(clap::Command::new("file").subcommand(command));
    narrow
        .try_get_matches_from(argv)
        .and_then(|m| Cli::from_arg_matches(&m))
        .ok()
}

/// How usage errors are printed under --json (the parsed options are not there to ask).
const JSON_ONLY: Style = Style {
    json: true,
    quiet: false,
    verbose: false,
    color: false,
};

/// clap's own errors: help and version print normally; real mistakes become INVALID_ARGUMENT
/// (exit 2), as JSON when --json was asked for. Returns the exit code.
pub fn usage_error(err: clap::Error, json: bool) -> i32 {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if json && err.kind() == ErrorKind::DisplayVersion {
        let doc = filekeeper::envelope::Document {
            ok: filekeeper::envelope::Always,
            result: filekeeper::documents::Version {
                version: env!("CARGO_PKG_VERSION").into(),
                journal_schema_version: filekeeper::plumbing::journal::SCHEMA_VERSION,
                commit: filekeeper::plumbing::COMMIT.into(),
            },
        };
        println!("{}", serde_json::to_value(doc).unwrap_or_default());
        return 0;
    }
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = err.print();
        return 0;
    }
    let missing = err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand;
    if missing && !json {
        let _ = err.print();
        return filekeeper::Code::InvalidArgument.exit_code();
    }
    if missing {
        // A command group without its subcommand: under --json, a document like any other
        // usage error rather than the group's help.
        let e = Error::invalid("a subcommand is required")
            .recovery("run `keeper help` for the commands");
        return output::failure(JSON_ONLY, &e);
    }
    if json {
        // clap's text without its usage block: "error: ..." and the lines that complete it.
        let text = err.render().to_string();
        let message = text
            .lines()
            .take_while(|line| {
                !line.starts_with("Usage:") && !line.starts_with("For more information")
            })
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let message = message.trim_start_matches("error: ").to_owned();
        let mut e = Error::invalid(message).recovery("run `keeper help` for usage");
        // The argument clap names ("--end <M>", "<PATH>"), as a flag or a value's name, as
        // the MCP server names a tool argument it refuses.
        let named = match err.get(ContextKind::InvalidArg) {
            Some(ContextValue::String(arg)) => Some(arg.as_str()),
            Some(ContextValue::Strings(args)) => args.first().map(String::as_str),
            _ => None,
        };
        if let Some(name) = named.and_then(|arg| arg.split(' ').next()) {
            e = e.with("argument", name.trim_matches(['<', '>']));
        }
        output::failure(JSON_ONLY, &e)
    } else {
        let _ = err.print();
        filekeeper::Code::InvalidArgument.exit_code()
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    fn argv(line: &str) -> Vec<OsString> {
        std::iter::once("keeper")
            .chain(line.split(' '))
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn the_narrow_parse_agrees_with_the_whole_tree() {
        for line in [
            "file read a.txt",
            "--root /w file read a.txt --json",
            "--json --workspace w file read --from-line 2 --to-line 3 a.txt",
            "-q file read a.txt --home /h --color never",
            "file read --max-bytes 10 --encoding latin1 a.txt --actor me",
            "file write --content read a.txt",
            "--json file write a.txt --content x --expected-hash sha256:00 --actor me",
            "file replace-text a.txt --old x --new y --all",
            "file apply-patch --dry-run",
            "file delete a.txt --json",
            "file list . -r --max-entries 5",
            "file grep . needle --glob *.rs",
        ] {
            let narrow = super::parse_one_file_command(&argv(line)).expect(line);
            let whole =
                <crate::commands::Cli as clap::Parser>::try_parse_from(argv(line)).expect(line);
            assert_eq!(format!("{narrow:?}"), format!("{whole:?}"), "{line}");
        }
    }

    #[test]
    fn anything_else_falls_through_to_the_whole_tree() {
        for line in [
            "--root file read a.txt",
            "file read --help",
            "file read",
            "file nope a.txt",
            "file",
            "workspace list",
            "history list --limit 2",
        ] {
            assert!(
                super::parse_one_file_command(&argv(line)).is_none(),
                "{line}"
            );
        }
    }

    /// Each command built alone has exactly the arguments it has in the whole tree, and every
    /// `file` command can be built alone.
    #[test]
    fn every_file_command_built_alone_matches_the_whole_tree() {
        let whole = <crate::commands::Cli as clap::CommandFactory>::command();
        let file = whole.find_subcommand("file").expect("file");
        let ids = |command: &clap::Command| {
            let mut ids: Vec<String> = command
                .get_arguments()
                .map(|a| format!("{}:{:?}:{:?}", a.get_id(), a.get_long(), a.get_short()))
                .collect();
            ids.sort();
            ids
        };
        for command in file.get_subcommands() {
            let name = command.get_name();
            let alone = crate::commands::file::one_command(name).expect(name);
            assert_eq!(ids(&alone), ids(command), "{name}");
        }
        assert!(crate::commands::file::one_command("nope").is_none());
    }
}
