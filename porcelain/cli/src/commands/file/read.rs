//! `keeper file read` and `keeper file read-many`: file contents, byte for byte.

use crate::output::{Reply, workspace_fields};
use crate::spelling::name_override;
use clap::Args;
use filekeeper::documents::{ReadMany, ReadManyItem};
use filekeeper::{ManyItem, ReadOptions, ReadResult, Result, Workspace};

/// Print lines of a text file byte-for-byte on stdout; metadata goes to stderr.
// Also what `parse` builds its narrow tree of `file read` from, without the whole command
// tree.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file read notes.md
  keeper file read src/main.rs --from-line 10 --to-line 20
  keeper file read src/main.rs --numbered --max-lines 200
  keeper --json file read big.log --max-bytes 65536"#)]
pub struct ReadArgs {
    /// The file, workspace-relative.
    pub path: String,
    #[command(flatten)]
    pub range: LineRange,
    /// Return at most N bytes, cut at a whole line (default and ceiling: max_read_bytes).
    #[arg(long, value_name = "N")]
    pub max_bytes: Option<u64>,
    /// Return at most N lines (default: no line bound).
    #[arg(long, value_name = "N")]
    pub max_lines: Option<u64>,
    /// Print each line after its number and a tab, as `cat -n` does; --json is unchanged.
    #[arg(long)]
    pub numbered: bool,
    /// Also store the version read, so that a later edit can name its content_hash with
    /// --base and be merged if the file changes in between.
    #[arg(long)]
    pub snapshot: bool,
}

/// Read several files; each succeeds or fails on its own (at most max_read_many_paths).
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file read-many README.md docs/intro.md
  keeper --json file read-many src/a.rs src/b.rs --max-bytes-per-file 4096"#)]
pub struct ReadManyArgs {
    /// The files, workspace-relative.
    #[arg(required = true)]
    pub paths: Vec<String>,
    #[command(flatten)]
    pub range: LineRange,
    /// Return at most N bytes of each file, cut at a whole line.
    #[arg(long, value_name = "N")]
    pub max_bytes_per_file: Option<u64>,
    /// Return at most N lines of each file.
    #[arg(long, value_name = "N")]
    pub max_lines_per_file: Option<u64>,
    /// Print each line after its number and a tab, as `cat -n` does; --json is unchanged.
    #[arg(long)]
    pub numbered: bool,
}

#[derive(Debug, Args)]
pub struct LineRange {
    /// First line to read, 1-based.
    #[arg(long, value_name = "N")]
    pub from_line: Option<u64>,
    /// Last line to read, inclusive; beyond the end of the file is an error, never clamped.
    #[arg(long, value_name = "M")]
    pub to_line: Option<u64>,
    /// The file's encoding, when it is not UTF-8 (e.g. latin1, windows-1252, shift_jis).
    #[arg(long, value_name = "E")]
    pub encoding: Option<String>,
}

impl LineRange {
    fn options(&self, max_bytes: Option<u64>, max_lines: Option<u64>) -> ReadOptions {
        ReadOptions {
            from_line: self.from_line,
            to_line: self.to_line,
            max_bytes,
            max_lines,
            encoding: self.encoding.clone(),
            snapshot: false,
        }
    }
}

pub fn cmd_read(ws: &Workspace, args: &ReadArgs) -> Result<Reply> {
    let options = ReadOptions {
        snapshot: args.snapshot,
        ..args.range.options(args.max_bytes, args.max_lines)
    };
    let read = ws.read_file(&args.path, &options)?;
    let (notes, partial) = read_notes(&read, false);
    let human = if args.numbered {
        read.numbered().into_bytes()
    } else {
        read.raw.clone()
    };
    let mut reply = Reply::new(workspace_fields(ws, &read), human);
    reply.notes = notes;
    reply.partial = partial.into_iter().collect();
    Ok(reply)
}

pub fn cmd_read_many(ws: &Workspace, args: &ReadManyArgs) -> Result<Reply> {
    let options = args
        .range
        .options(args.max_bytes_per_file, args.max_lines_per_file);
    let items = ws.read_many(&args.paths, &options)?;
    let mut human = Vec::new();
    let mut notes = Vec::new();
    let mut partial = Vec::new();
    let mut results = Vec::new();
    for item in items {
        match &item {
            ManyItem::Read(read) => {
                let path = filekeeper::quote::path(&read.path);
                human.extend_from_slice(format!("==> {path} <==\n").as_bytes());
                if args.numbered {
                    human.extend_from_slice(read.numbered().as_bytes());
                } else {
                    human.extend_from_slice(&read.raw);
                    // The next header starts a line of its own; a lone `\r` does not end one
                    // on a terminal. The newline added is not the file's, and stderr says so.
                    if !read.raw.is_empty() && !read.raw.ends_with(b"\n") {
                        human.push(b'\n');
                        notes.push(format!(
                            "{path}: the shown text ends without a newline; the one printed after it is not in the file"
                        ));
                    }
                }
                let (read_notes, cut) = read_notes(read, true);
                notes.extend(read_notes.into_iter().map(|n| format!("{path}: {n}")));
                partial.extend(cut.map(|n| format!("{path}: {n}")));
            }
            // A path that could not be read is missing from the output, so its note is
            // printed even with --quiet, as a cut read's is.
            ManyItem::Failed { path, error } => {
                let error = name_override(error.clone());
                partial.push(format!(
                    "{}: error[{}]: {}",
                    filekeeper::quote::path(path),
                    error.code,
                    error.message
                ));
            }
        }
        results.push(ReadManyItem::new(item, name_override));
    }
    let mut reply = Reply::new(workspace_fields(ws, ReadMany { results }), human);
    reply.notes = notes;
    reply.partial = partial;
    Ok(reply)
}

/// What a read returned besides the bytes, for stderr: the notes, and where the read was cut
/// short, the note that says so (printed even with --quiet), naming the bound's flag as
/// `read` (or with `per_file`, `read-many`) spells it.
fn read_notes(read: &ReadResult, per_file: bool) -> (Vec<String>, Option<String>) {
    let lines = match (read.start_line, read.end_line) {
        (Some(a), Some(b)) => format!("lines {a}-{b} of {}", read.line_count),
        _ => format!("no lines of {}", read.line_count),
    };
    let notes = vec![format!(
        "{lines}, {}, {}, {}{}",
        read.encoding,
        read.newline,
        read.content_hash,
        if read.bom { ", BOM" } else { "" }
    )];
    let cut = read.next_start_line.map(|next| {
        let flag = match (read.truncation_reason.as_deref(), per_file) {
            (Some("max_lines"), false) => "--max-lines",
            (Some("max_lines"), true) => "--max-lines-per-file",
            (_, false) => "--max-bytes",
            (_, true) => "--max-bytes-per-file",
        };
        format!("cut at the {flag} bound; continue with --from-line {next}")
    });
    (notes, cut)
}
