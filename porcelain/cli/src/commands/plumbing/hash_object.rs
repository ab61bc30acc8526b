use super::{open, reply};
use crate::commands::Context;
use crate::output::Reply;
use clap::Args;
use filekeeper::Result;
use filekeeper::envelope::fields_of;
use filekeeper::plumbing::commands::{self, HashSource};

/// Compute a blob id (sha256:...) of a workspace file or stdin; -w also stores it.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  old=$(keeper hash-object -w notes.md)
  new=$(keeper hash-object -w --stdin < new.md)
  keeper hash-object notes.md"#)]
pub struct HashObjectArgs {
    /// Also store the blob in the workspace's object store.
    #[arg(short = 'w')]
    pub write: bool,
    /// Read the content from standard input.
    #[arg(long, conflicts_with = "file")]
    pub stdin: bool,
    /// A workspace file to hash.
    #[arg(required_unless_present = "stdin")]
    pub file: Option<String>,
}

pub fn cmd_hash_object(cx: &Context, args: &HashObjectArgs) -> Result<Reply> {
    // Hashing standard input needs no workspace unless the blob is to be stored; without
    // one the document has no `workspace` field.
    let ws = if args.write || !args.stdin {
        Some(open(cx)?)
    } else {
        None
    };
    let mut stdin = std::io::stdin().lock();
    let source = match &args.file {
        Some(path) => HashSource::Path(path),
        None => HashSource::Stdin(&mut stdin),
    };
    let hashed = commands::hash_object(ws.as_ref(), source, args.write)?;
    let human = format!("{}\n", hashed.object_id);
    Ok(match &ws {
        Some(ws) => reply(ws, hashed, human),
        None => Reply::new(fields_of(hashed), human),
    })
}
