//! The content a mutating file command is given: inline, from a named file, or on standard
//! input, and never more than a limit allows.

use clap::Args;
use filekeeper::{Error, Result};
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

/// Where new content comes from: exactly one of --content and --input, or standard input.
#[derive(Debug, Args)]
pub struct ContentSource {
    /// The new content, taken literally (no escape sequences are interpreted).
    #[arg(long, value_name = "TEXT", conflicts_with = "input")]
    pub content: Option<String>,
    /// Read the new content from this file (outside the workspace is fine: it is only read).
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
}

impl ContentSource {
    /// The new content: --content, --input, or standard input when it is not a terminal.
    /// More than `max_write_bytes` is LIMIT_EXCEEDED with its real size, as the library
    /// would refuse it.
    pub fn read(&self, max_write_bytes: u64) -> Result<Vec<u8>> {
        if let Some(text) = &self.content {
            return Ok(text.clone().into_bytes());
        }
        let source = Source {
            file: self.input.as_deref(),
            named: "--input",
            nothing: "no content: pass --content TEXT, --input FILE, or pipe it on stdin",
            empty: "no content arrived on standard input (it is empty or closed, as in a shell that runs commands with no input), which is more often a forgotten --content or --input than empty content meant: pass --content '' to write empty content",
        };
        source.read(max_write_bytes, "content", "max_write_bytes")
    }
}

/// A patch: from the file named, else from standard input when it is not a terminal.
pub fn patch(file: Option<&Path>, max_patch_bytes: u64) -> Result<Vec<u8>> {
    let source = Source {
        file,
        named: "the patch file",
        nothing: "no patch: name a patch file, or pipe the patch on stdin",
        empty: "no patch arrived on standard input (it is empty or closed): name a patch file, or pipe the patch on stdin",
    };
    source.read(max_patch_bytes, "patch", "max_patch_bytes")
}

/// Text given inline or in a file (read whole, as UTF-8, at most `limit` bytes). A UTF-8
/// byte-order mark at the start of the file is the saving editor's, not the text's, as
/// before a patch: kept, it was written into the middle of the edited file as an invisible
/// U+FEFF with `ok: true` (`--new-file`), and a text read from a file with a mark and saved
/// for `--old-file` was never found. Inline text is taken as given.
pub fn text(
    inline: &Option<String>,
    file: &Option<PathBuf>,
    flag: &str,
    limit: u64,
) -> Result<String> {
    if let Some(text) = inline {
        return Ok(text.clone());
    }
    let path = file
        .as_ref()
        .ok_or_else(|| Error::invalid(format!("{flag} or its inline form is required")))?;
    let mut bytes = read_bounded(open_named(path, flag)?, limit, flag, "max_write_bytes")?;
    if bytes.starts_with(UTF8_BOM) {
        bytes.drain(..UTF8_BOM.len());
    }
    String::from_utf8(bytes).map_err(|_| {
        Error::invalid(format!("{flag} is not UTF-8 text"))
            .with("input", path.display().to_string())
    })
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A file the caller named, else standard input.
struct Source<'a> {
    file: Option<&'a Path>,
    /// How the file is named in messages.
    named: &'a str,
    /// The refusal when there is neither a file nor piped input.
    nothing: &'a str,
    /// The refusal when standard input gives nothing: a forgotten flag in a shell whose
    /// input is `/dev/null` or closed (Rust reads a closed stdin as empty) must not empty a
    /// file with `ok: true`.
    empty: &'a str,
}

impl Source<'_> {
    fn read(&self, limit: u64, what: &str, limit_name: &str) -> Result<Vec<u8>> {
        if let Some(path) = self.file {
            return read_bounded(open_named(path, self.named)?, limit, what, limit_name);
        }
        if std::io::stdin().is_terminal() {
            return Err(Error::invalid(self.nothing));
        }
        let bytes = read_bounded(std::io::stdin().lock(), limit, what, limit_name)?;
        if bytes.is_empty() {
            return Err(Error::invalid(self.empty).with("reason", "empty_stdin"));
        }
        Ok(bytes)
    }
}

/// At most `limit` bytes of `reader`. More is LIMIT_EXCEEDED with the size found: the rest is
/// counted, not kept, up to a bound, so an endless source (a device, a pipe that never ends)
/// is refused too instead of read forever.
fn read_bounded(
    mut reader: impl Read,
    limit: u64,
    what: &str,
    limit_name: &str,
) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let reading = |e: std::io::Error| Error::storage(&format!("reading {what}"), &e);
    (&mut reader)
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(reading)?;
    if bytes.len() as u64 > limit {
        let counted = COUNT_BEYOND_LIMIT.saturating_mul(limit.max(1));
        let rest = std::io::copy(&mut (&mut reader).take(counted), &mut std::io::sink())
            .map_err(reading)?;
        let mut err = filekeeper::too_large(what, bytes.len() as u64 + rest, limit_name, limit);
        if rest == counted {
            err.message = format!(
                "{what} is more than {limit_name} {limit} (counted to {} bytes and stopped)",
                bytes.len() as u64 + rest
            );
        }
        return Err(err);
    }
    Ok(bytes)
}

/// How many times the limit an oversized input is counted beyond it before reading stops.
const COUNT_BEYOND_LIMIT: u64 = 16;

/// Opens a file the caller named (`named` says how, for the message). One that does not
/// exist, cannot be read or is a directory is the caller's to fix: INVALID_ARGUMENT.
fn open_named(path: &Path, named: &str) -> Result<std::fs::File> {
    let refused = |why: &str| {
        Error::invalid(format!("cannot read {named}: {why}"))
            .with("input", path.display().to_string())
    };
    let file = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => refused("no such file"),
        std::io::ErrorKind::PermissionDenied => refused("permission denied"),
        _ => Error::storage(&format!("opening {named}"), &e)
            .with("input", path.display().to_string()),
    })?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(refused("it is a directory"));
    }
    Ok(file)
}
