//! Checks of the command tree itself: every command and flag is documented, every command
//! shows examples that parse, and every command that prints a document has its schema.

use super::{Cli, VERSION_TEXT};
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
    walk(&Cli::command(), "keeper", &mut missing);
    assert!(missing.is_empty(), "without help: {missing:?}");
    Cli::command().debug_assert();
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

/// A new command cannot ship without its schema: every command that prints a JSON
/// document has one under `docs/schemas/cli/`, and every CLI schema names a real command.
#[test]
fn every_command_has_a_schema() {
    let root = Cli::command();
    let mut found = Vec::new();
    leaves(&root, &mut Vec::new(), &mut found);
    let commands: std::collections::BTreeSet<String> = found
        .iter()
        .map(|(path, _)| format!("cli/{}.json", path.join("-")))
        .chain(["cli/version.json".to_owned()])
        .collect();
    let schemas: std::collections::BTreeSet<String> = filekeeper::schemas::all()
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| path.starts_with("cli/"))
        .collect();
    assert_eq!(commands, schemas);
}

/// `keeper help COMMAND` ends with examples for every command that does something, so a
/// new command without them fails here. Each example line runs keeper (on its own or as
/// part of a pipeline, list or `$(...)`), every keeper call in it parses against the real
/// command tree (a misspelt program, command or flag fails), and in each block at least
/// one call is the command itself.
#[test]
fn every_leaf_command_has_examples_that_parse() {
    let root = Cli::command();
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

#[test]
fn the_version_text_names_the_schema_this_build_writes() {
    let expected = format!(
        "journal schema {},",
        filekeeper::plumbing::journal::SCHEMA_VERSION
    );
    assert!(VERSION_TEXT.contains(&expected), "{}", VERSION_TEXT);
}
