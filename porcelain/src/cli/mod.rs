//! The `keeper` binary's logic: parse, dispatch to the library, render.

mod args;
mod change_cmds;
mod file_cmds;
mod history_cmds;
mod output;
mod plumbing_cmds;
mod progress;
mod workspace_cmds;

pub use args::Cli;
pub use output::error_document;

use crate::{Error, Filekeeper};
use args::Command;
use clap::Parser;
use output::Style;
use std::ffi::OsString;

/// `keeper --version`: the release and the on-disk format it writes.
pub const VERSION_TEXT: &str = crate::plumbing::VERSION_TEXT;

/// Runs one invocation and returns the process exit code.
pub fn run(argv: Vec<OsString>) -> i32 {
    let json = argv.iter().skip(1).any(|a| a == "--json");
    let cli = match parse(&argv) {
        Ok(cli) => cli,
        Err(e) => return usage_error(e, json),
    };
    let color = match cli.global.color {
        args::ColorWhen::Always => true,
        args::ColorWhen::Never => false,
        args::ColorWhen::Auto => {
            use std::io::IsTerminal;
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    let style = Style {
        json: cli.global.json,
        quiet: cli.global.quiet,
        verbose: cli.global.verbose,
        color,
    };
    if !style.json && !style.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        progress::TerminalProgress::install();
    }
    match dispatch(&cli) {
        Ok(reply) => output::success(style, reply),
        Err(err) => output::failure(style, &name_override(err)),
    }
}

/// Parses the command line. Building clap's definition of every command is most of what a
/// small `keeper file read` costs, and agents and scripts call it more than anything else, so
/// `keeper file read` is first parsed against a tree holding only the global options and that
/// one command: the same definitions, so the same result. Anything that tree does not accept
/// (help, a typo, another command) goes to the whole tree, which gives the canonical answer.
fn parse(argv: &[OsString]) -> std::result::Result<Cli, clap::Error> {
    match parse_file_read(argv) {
        Some(cli) => Ok(cli),
        None => Cli::try_parse_from(argv),
    }
}

/// The narrow parse of `keeper file read`, or None when the tree of only that command does
/// not accept `argv`.
fn parse_file_read(argv: &[OsString]) -> Option<Cli> {
    use clap::{Args, FromArgMatches};
    // Global options may come before, between or after the two words, so look for the pair
    // anywhere; a false match (`--root file read`) fails the narrow parse and falls through.
    if !argv
        .windows(2)
        .skip(1)
        .any(|w| w[0] == "file" && w[1] == "read")
    {
        return None;
    }
    let narrow = args::Global::augment_args(clap::Command::new("keeper")).subcommand(
        clap::Command::new("file")
            .subcommand(args::ReadArgs::augment_args(clap::Command::new("read"))),
    );
    narrow
        .try_get_matches_from(argv)
        .and_then(|m| Cli::from_arg_matches(&m))
        .ok()
}

/// How the CLI names arguments and operations in messages and recovery hints: its flags and
/// commands, never another surface's argument names.
pub(crate) struct CliSpelling;

impl crate::plumbing::Spelling for CliSpelling {
    fn argument(&self, argument: crate::plumbing::Argument) -> String {
        use crate::plumbing::Argument::*;
        match argument {
            AllowSensitiveWrite => "--i-accept-secret-write-risk",
            Encoding => "--encoding",
            AllowExisting => "--allow-existing",
            ExpectedDestinationHash => "--expected-destination-hash",
            Overwrite => "--overwrite",
            Parents => "--parents",
            Recursive => "--recursive --confirm-recursive",
            Position => "--position",
            Line => "--line",
            MaxBytes => "--max-bytes",
            FromLine => "--from-line",
            ToLine => "--to-line",
            MaxEntries => "--max-entries",
            MaxResults => "--max-results",
            Limit => "--limit",
        }
        .to_owned()
    }

    fn operation(&self, operation: crate::plumbing::Operation) -> String {
        use crate::plumbing::Operation::*;
        match operation {
            WriteFile => "`keeper file write`",
            DeleteDir => "`keeper dir delete`",
            MoveDir => "`keeper dir move`",
            Undo => "`keeper history undo`",
            Fsck => "`keeper fsck`",
        }
        .to_owned()
    }
}

/// The error as the CLI shows it: its message and recovery name the CLI's flags and
/// commands; the code, retryable and details stay identical to every other surface's.
pub(crate) fn name_override(err: Error) -> Error {
    err.render(&CliSpelling)
}

fn dispatch(cli: &Cli) -> crate::Result<output::Reply> {
    match &cli.command {
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(
                *shell,
                &mut <Cli as clap::CommandFactory>::command(),
                "keeper",
                &mut out,
            );
            let document = crate::documents::Completions {
                shell: shell.to_string(),
                script: String::from_utf8_lossy(&out).into_owned(),
            };
            return Ok(output::Reply::new(
                crate::envelope::fields_of(&document),
                out,
            ));
        }
        Command::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(<Cli as clap::CommandFactory>::command())
                .render(&mut out)
                .map_err(|e| Error::storage("rendering the manual", &e))?;
            let document = crate::documents::Manual {
                manual: String::from_utf8_lossy(&out).into_owned(),
            };
            return Ok(output::Reply::new(
                crate::envelope::fields_of(&document),
                out,
            ));
        }
        _ => {}
    }
    let keeper = Filekeeper::new(cli.global.home.as_deref())?;
    match &cli.command {
        Command::Init => workspace_cmds::init(&keeper),
        Command::Workspace(cmd) => workspace_cmds::run(&keeper, cmd),
        Command::File(cmd) => {
            let ws =
                keeper.workspace(cli.global.workspace.as_deref(), cli.global.root.as_deref())?;
            if cmd.is_mutation() {
                change_cmds::file(&ws, cmd, &cli.global)
            } else {
                file_cmds::run(&ws, cmd, cli.global.json)
            }
        }
        Command::History(cmd) => {
            let ws =
                keeper.workspace(cli.global.workspace.as_deref(), cli.global.root.as_deref())?;
            history_cmds::run(&ws, cmd, &cli.global)
        }
        Command::Dir(cmd) => {
            let ws =
                keeper.workspace(cli.global.workspace.as_deref(), cli.global.root.as_deref())?;
            change_cmds::dir(&ws, cmd, &cli.global)
        }
        Command::Completions { .. } | Command::Man => Err(Error::internal("handled above")),
        other => plumbing_cmds::run(&keeper, &cli.global, other),
    }
}

/// clap's own errors: help and version print normally; real mistakes become INVALID_ARGUMENT
/// (exit 2), as JSON when --json was asked for.
/// How usage errors are printed under --json (the parsed options are not there to ask).
const JSON_ONLY: Style = Style {
    json: true,
    quiet: false,
    verbose: false,
    color: false,
};

fn usage_error(err: clap::Error, json: bool) -> i32 {
    use clap::error::ErrorKind;
    if json && err.kind() == ErrorKind::DisplayVersion {
        let doc = crate::envelope::Document {
            ok: crate::envelope::Always,
            result: crate::documents::Version {
                version: env!("CARGO_PKG_VERSION").into(),
                journal_schema_version: crate::plumbing::journal::SCHEMA_VERSION,
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
        return crate::Code::InvalidArgument.exit_code();
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
        let e = Error::invalid(message).recovery("run `keeper help` for usage");
        output::failure(JSON_ONLY, &e)
    } else {
        let _ = err.print();
        crate::Code::InvalidArgument.exit_code()
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
    fn the_narrow_file_read_parse_agrees_with_the_whole_tree() {
        for line in [
            "file read a.txt",
            "--root /w file read a.txt --json",
            "--json --workspace w file read --from-line 2 --to-line 3 a.txt",
            "-q file read a.txt --home /h --color never",
            "file read --max-bytes 10 --encoding latin1 a.txt --actor me",
        ] {
            let narrow = super::parse_file_read(&argv(line)).expect(line);
            let whole = <super::Cli as clap::Parser>::try_parse_from(argv(line)).expect(line);
            assert_eq!(format!("{narrow:?}"), format!("{whole:?}"), "{line}");
        }
    }

    #[test]
    fn anything_else_falls_through_to_the_whole_tree() {
        for line in [
            "--root file read a.txt",
            "file write --content read a.txt",
            "file read --help",
            "file read",
            "file list",
        ] {
            assert!(super::parse_file_read(&argv(line)).is_none(), "{line}");
        }
    }

    #[test]
    fn the_version_text_names_the_schema_this_build_writes() {
        let expected = format!(
            "journal schema {},",
            crate::plumbing::journal::SCHEMA_VERSION
        );
        assert!(
            super::VERSION_TEXT.contains(&expected),
            "{}",
            super::VERSION_TEXT
        );
    }
}

#[cfg(test)]
mod errors_doc {
    use crate::Code;

    /// `docs/errors.md` tables every code with its exit code; the table and the code agree.
    #[test]
    fn the_error_table_matches_the_codes() {
        let doc = include_str!("../../../docs/errors.md");
        let rows: Vec<(String, i32)> = doc
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                let code = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
                let exit = cells.get(2)?.parse().ok()?;
                Some((code.to_owned(), exit))
            })
            .collect();
        let expected: Vec<(String, i32)> = Code::ALL
            .iter()
            .map(|c| (c.as_str().to_owned(), c.exit_code()))
            .collect();
        assert_eq!(rows, expected);
    }
}

#[cfg(test)]
mod help_text {
    use clap::CommandFactory;

    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            if arg.get_help().is_none() {
                missing.push(format!("{path} {id}"));
            }
        }
        for sub in cmd.get_subcommands() {
            let name = format!("{path} {}", sub.get_name());
            if sub.get_about().is_none() && sub.get_name() != "help" {
                missing.push(name.clone());
            }
            walk(sub, &name, missing);
        }
    }

    /// Help, completions and man pages come from the same definitions, so every flag and
    /// every command documented once is documented everywhere.
    #[test]
    fn every_command_and_flag_has_a_help_line() {
        let mut missing = Vec::new();
        walk(&super::Cli::command(), "keeper", &mut missing);
        assert!(missing.is_empty(), "without help: {missing:?}");
        super::Cli::command().debug_assert();
    }

    /// The commands that do something (those without subcommands of their own), with their
    /// names from the root down.
    fn leaves<'a>(
        cmd: &'a clap::Command,
        path: &mut Vec<String>,
        out: &mut Vec<(Vec<String>, &'a clap::Command)>,
    ) {
        for sub in cmd.get_subcommands().filter(|sub| sub.get_name() != "help") {
            path.push(sub.get_name().to_owned());
            if sub.has_subcommands() {
                leaves(sub, path, out);
            } else {
                out.push((path.clone(), sub));
            }
            path.pop();
        }
    }

    /// Splits one example line as sh would, far enough to find the commands it runs: at
    /// unquoted `|`, `&`, `;`, `$(`, `)` and `#`; quotes and backslashes are taken away, a
    /// redirection and its target are dropped, and so are leading `NAME=value` words.
    /// Variables stay as written (`"$h"` is the word `$h`).
    fn shell_commands(line: &str) -> Vec<Vec<String>> {
        #[derive(Default)]
        struct Split {
            commands: Vec<Vec<String>>,
            words: Vec<String>,
            word: Option<String>,
            redirect_target: bool,
        }
        impl Split {
            fn push(&mut self) -> &mut String {
                self.word.get_or_insert_with(String::new)
            }
            fn end_word(&mut self) {
                if let Some(word) = self.word.take()
                    && !std::mem::take(&mut self.redirect_target)
                {
                    self.words.push(word);
                }
            }
            fn end_command(&mut self) {
                self.end_word();
                let words = std::mem::take(&mut self.words);
                let assignments = words
                    .iter()
                    .take_while(|w| {
                        w.split_once('=').is_some_and(|(name, _)| {
                            !name.is_empty()
                                && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
                        })
                    })
                    .count();
                if words.len() > assignments {
                    self.commands.push(words[assignments..].to_vec());
                }
            }
        }
        let mut split = Split::default();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\'' => split
                    .push()
                    .extend(chars.by_ref().take_while(|&c| c != '\'')),
                '"' => {
                    split.push();
                    while let Some(c) = chars.next() {
                        match c {
                            '"' => break,
                            '\\' if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                                split.push().extend(chars.next())
                            }
                            c => split.push().push(c),
                        }
                    }
                }
                '\\' => split.push().extend(chars.next()),
                '$' if chars.peek() == Some(&'(') => {
                    chars.next();
                    split.end_command();
                }
                '|' | '&' | ';' | ')' => split.end_command(),
                '#' if split.word.is_none() => break,
                '<' | '>' => {
                    split.end_word();
                    split.redirect_target = true;
                }
                c if c.is_whitespace() => split.end_word(),
                c => split.push().push(c),
            }
        }
        split.end_command();
        split.commands
    }

    #[test]
    fn example_lines_split_like_sh() {
        assert_eq!(
            shell_commands(r#"h=$(keeper file hash "my notes.md") && keeper x --a "$h" <in >out"#),
            vec![
                vec!["keeper", "file", "hash", "my notes.md"],
                vec!["keeper", "x", "--a", "$h"],
            ]
        );
        assert_eq!(
            shell_commands(r#"printf '# a\n' | X=1 keeper y --item "{\"k\": 1}" # note"#),
            vec![
                vec!["printf", "# a\\n"],
                vec!["keeper", "y", "--item", r#"{"k": 1}"#],
            ]
        );
    }

    /// `keeper help COMMAND` ends with examples for every command that does something, so a
    /// new command without them fails here. Each example line runs keeper (on its own or as
    /// part of a pipeline, list or `$(...)`), every keeper call in it parses against the real
    /// command tree (a misspelt program, command or flag fails), and in each block at least
    /// one call is the command itself.
    #[test]
    fn every_leaf_command_has_examples_that_parse() {
        let root = super::Cli::command();
        let mut found = Vec::new();
        leaves(&root, &mut Vec::new(), &mut found);
        assert!(
            found.iter().any(|(path, _)| path == &["file", "read"]),
            "the walk reaches nested commands"
        );
        let mut problems = Vec::new();
        for (path, cmd) in &found {
            let name = format!("keeper {}", path.join(" "));
            let Some(text) = cmd.get_after_long_help().map(ToString::to_string) else {
                problems.push(format!("{name}: no after_long_help examples"));
                continue;
            };
            let mut lines = text.lines();
            let header = lines.next().unwrap_or_default();
            if !(header.starts_with("Example") && header.ends_with(':')) {
                problems.push(format!(
                    "{name}: help after the options starts {header:?}, not \"Examples:\""
                ));
                continue;
            }
            let mut shows_itself = false;
            let mut count = 0;
            for line in lines {
                count += 1;
                let example = line
                    .strip_prefix("  ")
                    .filter(|l| !l.starts_with(' ') && !l.is_empty());
                let Some(example) = example else {
                    problems.push(format!(
                        "{name}: {line:?} is not one two-space-indented command line"
                    ));
                    continue;
                };
                let calls: Vec<_> = shell_commands(example)
                    .into_iter()
                    .filter(|words| words[0] == "keeper")
                    .collect();
                if calls.is_empty() {
                    problems.push(format!("{name}: {example:?} does not run keeper"));
                }
                for call in calls {
                    match root.clone().try_get_matches_from(&call) {
                        Ok(matches) => {
                            let mut called = Vec::new();
                            let mut m = &matches;
                            while let Some((sub, sub_matches)) = m.subcommand() {
                                called.push(sub.to_owned());
                                m = sub_matches;
                            }
                            shows_itself |= &called == path;
                        }
                        Err(e) => problems.push(format!(
                            "{name}: {example:?} does not parse: {}",
                            e.render().to_string().lines().next().unwrap_or_default()
                        )),
                    }
                }
            }
            if count == 0 {
                problems.push(format!("{name}: \"{header}\" with no example under it"));
            } else if !shows_itself {
                problems.push(format!("{name}: no example runs {name} itself"));
            }
        }
        assert!(
            problems.is_empty(),
            "help examples:\n{}",
            problems.join("\n")
        );
    }
}
