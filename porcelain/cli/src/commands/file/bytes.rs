//! `keeper file read-bytes`: a range of any file's bytes, binary included.

use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::{ReadBytesOptions, Result, Workspace};

/// Print bytes of any file, binary included, as they are on stdout (base64 with --json);
/// metadata goes to stderr.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file read-bytes image.png --length 16 | xxd
  keeper file read-bytes data.bin --offset 4096 --length 4096 >chunk
  keeper --json file read-bytes data.bin --length 64"#)]
pub struct ReadBytesArgs {
    /// The file, workspace-relative.
    pub path: String,
    /// The first byte to read, 0-based (default 0); the file's size gives no bytes, beyond it
    /// is an error.
    #[arg(long, value_name = "N")]
    pub offset: Option<u64>,
    /// Read at most M bytes (default and ceiling: max_read_bytes).
    #[arg(long, value_name = "M")]
    pub length: Option<u64>,
}

pub fn cmd_read_bytes(ws: &Workspace, args: &ReadBytesArgs) -> Result<Reply> {
    let options = ReadBytesOptions {
        offset: args.offset,
        length: args.length,
    };
    let range = ws.read_bytes(&args.path, &options)?;
    let mut notes = vec![match range.length {
        0 => format!(
            "no bytes: offset {} is the end of the file ({} bytes), {}",
            range.offset, range.size_bytes, range.content_hash
        ),
        n => format!(
            "bytes {}-{} of {}, {}",
            range.offset,
            range.offset + n - 1,
            range.size_bytes,
            range.content_hash
        ),
    }];
    let mut reply = Reply::new(workspace_fields(ws, &range), range.raw.clone());
    if let Some(next) = range.next_offset {
        let more = format!("more follows; continue with --offset {next}");
        // Without --length the read stopped at the default bound, short of what was asked.
        if args.length.is_none() {
            reply.partial.push(more);
        } else {
            notes.push(more);
        }
    }
    reply.notes = notes;
    Ok(reply)
}
