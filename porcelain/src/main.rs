//! `keeper`: the Filekeeper command line.

use std::io::Write;

fn main() {
    // A panic is a bug, but it still reaches the user as one structured INTERNAL_ERROR line,
    // never a stack trace.
    std::panic::set_hook(Box::new(|_| {}));
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let json = argv.iter().skip(1).any(|a| a == "--json");
    let code = match std::panic::catch_unwind(|| filekeeper::cli::run(argv)) {
        Ok(code) => code,
        Err(_) => {
            let err = filekeeper::Error::internal("keeper hit an internal error and stopped")
                .recovery("run `keeper fsck` and report the command that failed");
            if json {
                let _ = writeln!(
                    std::io::stdout(),
                    "{}",
                    filekeeper::cli::error_document(&err)
                );
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
