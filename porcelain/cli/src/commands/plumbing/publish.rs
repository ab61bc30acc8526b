use super::{open, reply};
use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::plumbing::commands;
use filekeeper::plumbing::publish::Expect;
use filekeeper::{Error, ObjectId, Result};

/// Atomically replace a workspace file with a stored blob (temp file, fsync, rename, dir fsync).
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper publish notes.md --blob "$new" --expected-hash "$old"
  keeper publish new.md --blob "$new" --create --mode 644"#)]
pub struct PublishArgs {
    /// The workspace file to replace or create.
    pub path: String,
    /// The stored blob whose bytes the file gets.
    #[arg(long, value_name = "ID")]
    pub blob: String,
    /// Refuse unless the file currently holds exactly this content.
    #[arg(long, value_name = "HASH", conflicts_with = "create")]
    pub expected_hash: Option<String>,
    /// Refuse unless the path does not exist yet (never clobbers a concurrent creator).
    #[arg(long)]
    pub create: bool,
    /// Permission bits in octal, e.g. 644 (default: keep the file's own; new files 666 less umask).
    #[arg(long, value_name = "OCTAL")]
    pub mode: Option<String>,
    /// Accept a credential-shaped write target.
    #[arg(long)]
    pub i_accept_secret_write_risk: bool,
}

pub fn cmd_publish(cx: &Context, args: &PublishArgs) -> Result<Reply> {
    let ws = open(cx)?;
    let expect = match (&args.expected_hash, args.create) {
        (Some(h), _) => Expect::Hash(ObjectId::parse(h)?),
        (None, true) => Expect::Absent,
        (None, false) => Expect::Any,
    };
    let mode = args.mode.as_deref().map(parse_mode).transpose()?;
    let published = commands::publish_blob(
        &ws,
        &args.path,
        &args.blob,
        expect,
        mode,
        args.i_accept_secret_write_risk,
    )?;
    let human = format!("{}\n", published.after_hash);
    Ok(reply(&ws, published, human))
}

/// `--mode`: octal permission bits, with or without a leading `0o`.
fn parse_mode(text: &str) -> Result<u32> {
    u32::from_str_radix(text.trim_start_matches("0o"), 8)
        .ok()
        .filter(|m| *m <= 0o7777)
        .ok_or_else(|| {
            Error::invalid(format!(
                "--mode must be octal permission bits such as 644, not {text:?}"
            ))
        })
}
