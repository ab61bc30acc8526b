//! `keeper file list|search|grep`: finding paths and lines.

use crate::output::{Reply, workspace_fields};
use clap::Args;
use filekeeper::{GrepOptions, ListOptions, Listing, Result, Workspace};

/// List a directory, sorted; .filekeeper/ is never listed and links are never followed.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file list
  keeper file list docs --recursive --glob '*.md'"#)]
pub struct ListArgs {
    /// The directory (default: the workspace root).
    pub path: Option<String>,
    /// Descend into subdirectories (up to max_recursion_depth).
    #[arg(long, short)]
    pub recursive: bool,
    /// Only entries whose path below PATH matches this glob (`*` crosses `/`).
    #[arg(long, value_name = "PATTERN")]
    pub glob: Option<String>,
    /// Return at most N entries (default and ceiling: max_directory_entries).
    #[arg(long, value_name = "N")]
    pub max_entries: Option<u64>,
    /// Continue after the last entry of a previous page (its next_cursor), same query.
    #[arg(long, value_name = "TOKEN")]
    pub cursor: Option<String>,
}

/// Find paths by glob, honouring .gitignore and skipping .git/.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Example:
  keeper file search . '*.md'"#)]
pub struct SearchArgs {
    /// The directory to search.
    pub path: String,
    /// The glob; without a `/` it also matches bare file names.
    pub glob: String,
    /// Return at most N results (default and ceiling: max_search_results).
    #[arg(long, value_name = "N")]
    pub max_results: Option<u64>,
    /// Continue after the last entry of a previous page (its next_cursor), same query.
    #[arg(long, value_name = "TOKEN")]
    pub cursor: Option<String>,
}

/// Find lines containing text (literal unless --regex), honouring .gitignore.
#[derive(Debug, Args)]
#[command(after_long_help = r#"Examples:
  keeper file grep . 'TODO'
  keeper file grep src 'fn \w+_test' --regex --glob '*.rs'"#)]
pub struct GrepArgs {
    /// The directory (or file) to search.
    pub path: String,
    /// The text to find.
    pub query: String,
    /// Treat QUERY as a regular expression (Rust regex syntax).
    #[arg(long)]
    pub regex: bool,
    /// Only files whose path below PATH matches this glob.
    #[arg(long, value_name = "PATTERN")]
    pub glob: Option<String>,
    /// Match without regard to case.
    #[arg(long, short = 'i')]
    pub ignore_case: bool,
    /// Return at most N matching lines (default and ceiling: max_search_results).
    #[arg(long, value_name = "N")]
    pub max_results: Option<u64>,
    /// The files' encoding, when it is not UTF-8 (e.g. latin1, windows-1252, shift_jis);
    /// files that do not decode in it are skipped and counted.
    #[arg(long, value_name = "E")]
    pub encoding: Option<String>,
    /// Continue after the last line of a previous page (its next_cursor), same query.
    #[arg(long, value_name = "TOKEN")]
    pub cursor: Option<String>,
}

pub fn cmd_list(ws: &Workspace, args: &ListArgs) -> Result<Reply> {
    let options = ListOptions {
        recursive: args.recursive,
        glob: args.glob.clone(),
        max_entries: args.max_entries,
        cursor: args.cursor.clone(),
    };
    let listing = ws.list(args.path.as_deref(), &options)?;
    Ok(listing_reply(ws, listing))
}

pub fn cmd_search(ws: &Workspace, args: &SearchArgs) -> Result<Reply> {
    let listing = ws.search(
        &args.path,
        &args.glob,
        args.max_results,
        args.cursor.as_deref(),
    )?;
    Ok(listing_reply(ws, listing))
}

pub fn cmd_grep(ws: &Workspace, args: &GrepArgs) -> Result<Reply> {
    let options = GrepOptions {
        regex: args.regex,
        glob: args.glob.clone(),
        ignore_case: args.ignore_case,
        max_results: args.max_results,
        encoding: args.encoding.clone(),
        cursor: args.cursor.clone(),
    };
    let found = ws.grep(&args.path, &args.query, &options)?;
    let mut human = String::new();
    for m in &found.matches {
        let path = filekeeper::quote::path(&m.path);
        human.push_str(&format!("{path}:{}:{}:{}\n", m.line, m.column, m.text));
    }
    let mut notes = vec![format!(
        "{} matching lines in {} files searched ({} skipped, {} ignored)",
        found.matches.len(),
        found.files_searched,
        found.files_skipped,
        found.ignored
    )];
    if found.files_undecodable > 0 {
        notes.push(format!(
            "{} of the skipped files are not valid {}; name their encoding with --encoding",
            found.files_undecodable, found.encoding
        ));
    }
    let mut partial = Vec::new();
    if found.truncated {
        partial.push(match &found.next_cursor {
            Some(cursor) => format!("truncated: more lines match; continue with --cursor {cursor}"),
            None => "truncated: more lines match; narrow the search or raise --max-results".into(),
        });
    }
    if found.depth_limited {
        partial.push("some directories were not searched: max_recursion_depth reached".into());
    }
    for path in &found.unreadable {
        partial.push(format!(
            "could not read {}, not searched",
            filekeeper::quote::path(path)
        ));
    }
    for name in &found.non_utf8_names {
        partial.push(format!("not searched, its name is not UTF-8: {name}"));
    }
    let mut reply = Reply::new(workspace_fields(ws, &found), human);
    reply.notes = notes;
    reply.partial = partial;
    Ok(reply)
}

/// A listing for people: one path a line (`/` after a directory, `@` after a link), and
/// on stderr whatever was left out.
fn listing_reply(ws: &Workspace, listing: Listing) -> Reply {
    let mut human = String::new();
    for e in &listing.entries {
        let suffix = match e.kind {
            "directory" => "/",
            "symlink" => "@",
            _ => "",
        };
        let shown = format!("{}{suffix}", e.path);
        human.push_str(&format!("{}\n", filekeeper::quote::path(&shown)));
    }
    let mut partial = Vec::new();
    if listing.truncated {
        partial.push(match &listing.next_cursor {
            Some(cursor) => format!(
                "truncated after {} entries; continue with --cursor {cursor}",
                listing.entries.len()
            ),
            None => format!(
                "truncated after {} entries; narrow the request or raise the bound",
                listing.entries.len()
            ),
        });
    }
    if listing.depth_limited {
        partial.push("some directories were not descended: max_recursion_depth reached".into());
    }
    for dir in &listing.unreadable {
        partial.push(format!("could not read directory {dir}"));
    }
    for name in &listing.non_utf8_names {
        partial.push(format!("left out, its name is not UTF-8: {name}"));
    }
    let mut reply = Reply::new(workspace_fields(ws, &listing), human);
    reply.partial = partial;
    reply
}
