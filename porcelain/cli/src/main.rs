//! `keeper`: the Filekeeper command line. It parses, dispatches to the `filekeeper` library
//! and renders; nothing here changes a file except through the library.

mod commands;
mod output;
mod parse;
mod progress;
mod spelling;

use commands::ColorWhen;
use filekeeper::Error;
use output::Style;
use std::ffi::OsString;
use std::io::Write;

fn main() {
    // A panic is a bug, but it still reaches the user as one structured INTERNAL_ERROR line,
    // never a stack trace.
    std::panic::set_hook(Box::new(|_| {}));
    let argv: Vec<OsString> = std::env::args_os().collect();
    let json = argv.iter().skip(1).any(|a| a == "--json");
    let code = match std::panic::catch_unwind(|| run(argv)) {
        Ok(code) => code,
        Err(_) => {
            let err = Error::internal("keeper hit an internal error and stopped")
                .recovery("run `keeper fsck` and report the command that failed");
            if json {
                let _ = writeln!(std::io::stdout(), "{}", output::error_document(&err));
            } else {
                let _ = writeln!(std::io::stderr(), "error[{}]: {}", err.code, err.message);
                let _ = writeln!(
                    std::io::stderr(),
                    "  hint: run `keeper fsck` and report the command that failed"
                );
            }
            err.code.exit_code()
        }
    };
    std::process::exit(code);
}

/// Runs one invocation and returns the process exit code.
fn run(argv: Vec<OsString>) -> i32 {
    let json = argv.iter().skip(1).any(|a| a == "--json");
    let cli = match parse::parse(&argv) {
        Ok(cli) => cli,
        Err(e) => return parse::usage_error(e, json),
    };
    let color = match cli.global.color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
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
    match commands::dispatch(&cli) {
        Ok(reply) => output::success(style, reply),
        Err(err) => output::failure(style, &spelling::name_override(err)),
    }
}
