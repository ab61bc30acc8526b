//! Names the commit a build was made from (`FILEKEEPER_COMMIT`), for `--version`: a wheel
//! installed from an older checkout than the binaries beside it says 0.1.0 as they do, and
//! only the commit tells them apart. "unknown" outside a git checkout (a source archive).

use std::path::Path;
use std::process::Command;

/// `git ARGS` run in this crate's directory, its output trimmed; `None` when git is missing
/// or fails (not a checkout).
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    out.status.success().then(|| text.trim().to_owned())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"])
        .filter(|c| c.len() == 12 && c.bytes().all(|b| b.is_ascii_hexdigit()))
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=FILEKEEPER_COMMIT={commit}");
    println!("cargo:rerun-if-changed=build.rs");
    // Run again when HEAD moves: a checkout rewrites HEAD, a commit the branch's ref (a
    // loose file, or packed-refs after `git pack-refs`). A path that does not exist would
    // make cargo run this script on every build, so only existing ones are named.
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    let names = ["HEAD", "packed-refs"]
        .into_iter()
        .map(str::to_owned)
        .chain(branch);
    for name in names {
        let path = git(&["rev-parse", "--git-path", &name]);
        if let Some(path) = path.filter(|path| Path::new(path).exists()) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}
