use super::{open, reply};
use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::documents::CatBlobText;
use filekeeper::plumbing::commands;
use filekeeper::{Code, Error, Result};
use std::io::Write;

/// Print a stored blob's bytes, verified against its id.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper cat-blob "$old" | diff - notes.md
  keeper cat-blob sha256:43c7d27ae644edba5e18ebf1f44dfe26d532ed1759ebe1ffc5c1adc059d0ec2a"#)]
pub struct CatBlobArgs {
    /// The blob id, sha256:<64 hex>.
    pub id: String,
}

pub fn cmd_cat_blob(cx: &Context, args: &CatBlobArgs) -> Result<Reply> {
    let ws = open(cx)?;
    let id = &args.id;
    if !cx.global.json {
        // The bytes go straight to stdout as they are verified, never held whole.
        let mut stdout = std::io::stdout().lock();
        let blob = commands::cat_blob(&ws, id, &mut stdout)?;
        stdout
            .flush()
            .map_err(|e| Error::storage("writing output", &e))?;
        return Ok(reply(&ws, blob, String::new()));
    }
    let mut bytes = Vec::new();
    let blob = commands::cat_blob(&ws, id, &mut bytes)?;
    let content = String::from_utf8(bytes).map_err(|_| {
        Error::new(
            Code::BinaryContentRefused,
            "the blob is not UTF-8 text and cannot be carried in JSON",
        )
        .with("object_id", id.as_str())
        .recovery("run cat-blob without --json to get the raw bytes")
    })?;
    Ok(reply(&ws, CatBlobText { blob, content }, String::new()))
}
