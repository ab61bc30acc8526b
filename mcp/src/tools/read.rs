//! Reading files and finding them: nothing here changes the workspace.

use super::{Context, Effect, Tool};
use crate::spelling::name_argument;
use crate::text::View;
use filekeeper::documents::{ReadMany, ReadManyItem};
use filekeeper::envelope::Success;
use filekeeper::{
    ByteRange, DiffOptions, GrepOptions, GrepResult, ListOptions, Listing, ReadBytesOptions,
    ReadOptions, ReadResult, Result,
};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
pub struct FileRead {
    path: String,
    // First line to return, 1-based (default 1).
    from_line: Option<u64>,
    // Last line to return, inclusive; beyond the end is an error, never clamped.
    to_line: Option<u64>,
    // Return at most this many bytes, cut at a whole line (default 256 KiB; ceiling max_read_bytes, 5 MiB).
    max_bytes: Option<u64>,
    // Return at most this many lines (default 2000).
    max_lines: Option<u64>,
    // Number the lines in the text content, cat -n style (default true); structuredContent.content is always the exact text.
    numbered: Option<bool>,
    // The file's encoding when it is not UTF-8 (e.g. latin1, shift_jis).
    encoding: Option<String>,
    /// Keep this version for a later base_hash (default: once the workspace has history).
    snapshot: Option<bool>,
}

impl Tool for FileRead {
    const NAME: &str = "file_read";
    const DESCRIPTION: &str = "Read a text file's lines with their content_hash, for expected_hash or base_hash. A bounded read says truncated and next_start_line. Binary files are refused (see file_read_bytes).";
    const EFFECT: Effect = Effect::Read;
    const QUICK: bool = true;
    type Output = Success<ReadResult>;

    fn view(&self) -> View {
        View {
            numbered: self.numbered.unwrap_or(true),
        }
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = ReadOptions {
            from_line: self.from_line,
            to_line: self.to_line,
            max_bytes: Some(self.max_bytes.unwrap_or(cx.reads.max_bytes)),
            max_lines: Some(self.max_lines.unwrap_or(cx.reads.max_lines)),
            encoding: self.encoding,
            snapshot: match self.snapshot {
                Some(asked) => asked,
                None => cx.workspace.state_location()?.is_some(),
            },
        };
        Ok(cx.success(cx.workspace.read_file(&self.path, &options)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileReadMany {
    // Up to 32 workspace-relative paths.
    paths: Vec<String>,
    // First line of each file, 1-based.
    from_line: Option<u64>,
    // Last line of each file, inclusive.
    to_line: Option<u64>,
    // At most this many bytes of each file (default 256 KiB).
    max_bytes_per_file: Option<u64>,
    // At most this many lines of each file (default 2000).
    max_lines_per_file: Option<u64>,
    // Number the lines in the text content (default true), as file_read does.
    numbered: Option<bool>,
    // The files' encoding when it is not UTF-8 (e.g. latin1, shift_jis), as file_read takes it.
    encoding: Option<String>,
}

impl Tool for FileReadMany {
    const NAME: &str = "file_read_many";
    const DESCRIPTION: &str =
        "Read up to 32 text files; each result has its own ok and either a read or an error.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<ReadMany>;

    fn view(&self) -> View {
        View {
            numbered: self.numbered.unwrap_or(true),
        }
    }

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = ReadOptions {
            from_line: self.from_line,
            to_line: self.to_line,
            max_bytes: Some(self.max_bytes_per_file.unwrap_or(cx.reads.max_bytes)),
            max_lines: Some(self.max_lines_per_file.unwrap_or(cx.reads.max_lines)),
            encoding: self.encoding,
            snapshot: false,
        };
        let results = cx
            .workspace
            .read_many(&self.paths, &options)?
            .into_iter()
            .map(|item| ReadManyItem::new(item, name_argument))
            .collect();
        Ok(cx.success(ReadMany { results }))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct DirectoryList {
    // The directory (default: the workspace root).
    path: Option<String>,
    // Descend into subdirectories.
    #[serde(default)]
    recursive: bool,
    // Only entries whose path below the directory matches this glob ('*' crosses '/').
    glob: Option<String>,
    // At most this many entries (default and ceiling 1000; above is LIMIT_EXCEEDED).
    max_entries: Option<u64>,
    // A previous page's next_cursor, to continue after it (same other arguments).
    cursor: Option<String>,
}

impl Tool for DirectoryList {
    const NAME: &str = "directory_list";
    const DESCRIPTION: &str = "List a directory, sorted; symlinks are reported, never followed.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<Listing>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = ListOptions {
            recursive: self.recursive,
            glob: self.glob,
            max_entries: self.max_entries,
            cursor: self.cursor,
        };
        Ok(cx.success(cx.workspace.list(self.path.as_deref(), &options)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileInfo {
    path: String,
}

impl Tool for FileInfo {
    const NAME: &str = "file_info";
    const DESCRIPTION: &str = "Kind, size, mode and modification time; for text, encoding, newlines, BOM, line_count and content_hash.";
    const EFFECT: Effect = Effect::Read;
    const QUICK: bool = true;
    type Output = Success<filekeeper::FileInfo>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        Ok(cx.success(cx.workspace.info(&self.path)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileSearch {
    path: String,
    /// A glob; without '/' it matches names at any depth ('*.rs').
    pattern: String,
    // At most this many (default and ceiling 200).
    max_results: Option<u64>,
    // A previous page's next_cursor, to continue after it (same other arguments).
    cursor: Option<String>,
}

impl Tool for FileSearch {
    const NAME: &str = "file_search";
    const DESCRIPTION: &str = "Find paths by glob, honouring .gitignore.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<Listing>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let found = cx.workspace.search(
            &self.path,
            &self.pattern,
            self.max_results,
            self.cursor.as_deref(),
        )?;
        Ok(cx.success(found))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct ContentSearch {
    path: String,
    /// Literal text, unless regex.
    query: String,
    // Treat query as a Rust regular expression.
    #[serde(default)]
    regex: bool,
    // Only files whose path below PATH matches this glob.
    glob: Option<String>,
    // Match regardless of case.
    #[serde(default)]
    ignore_case: bool,
    // At most this many matching lines (default and ceiling 200).
    max_results: Option<u64>,
    // The files' encoding when it is not UTF-8 (e.g. latin1, shift_jis); files that do not decode in it are skipped and counted in files_undecodable.
    encoding: Option<String>,
    // A previous page's next_cursor, to continue after it (same other arguments).
    cursor: Option<String>,
}

impl Tool for ContentSearch {
    const NAME: &str = "content_search";
    const DESCRIPTION: &str =
        "Find lines containing text, or a regex, honouring .gitignore and skipping binary files.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<GrepResult>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = GrepOptions {
            regex: self.regex,
            glob: self.glob,
            ignore_case: self.ignore_case,
            max_results: self.max_results,
            encoding: self.encoding,
            cursor: self.cursor,
        };
        Ok(cx.success(cx.workspace.grep(&self.path, &self.query, &options)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileFindUp {
    // Where to start: a directory, or a file (which starts at its directory).
    path: String,
    // The exact entry name to look for, e.g. pyproject.toml or .git; one plain name, no '/'.
    name: String,
}

impl Tool for FileFindUp {
    const NAME: &str = "file_find_up";
    const DESCRIPTION: &str = "Find the nearest entry called name in path's directory or an ancestor, up to the workspace root.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<filekeeper::FoundUp>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        Ok(cx.success(cx.workspace.find_up(&self.path, &self.name)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileDiff {
    // The old side, workspace-relative.
    path: String,
    // The new side, workspace-relative.
    other: String,
    // Return at most this many bytes of diff, cut at a whole line with truncated=true (default and ceiling max_read_bytes).
    max_bytes: Option<u64>,
}

impl Tool for FileDiff {
    const NAME: &str = "file_diff";
    const DESCRIPTION: &str = "Unified diff between two text files.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<filekeeper::FileDiff>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        // The server's read bound, as for a text read: a diff is read by a model too.
        let options = DiffOptions {
            max_bytes: Some(self.max_bytes.unwrap_or(cx.reads.max_bytes)),
        };
        Ok(cx.success(cx.workspace.diff_files(&self.path, &self.other, &options)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileReadBytes {
    path: String,
    // First byte to return, 0-based (default 0).
    offset: Option<u64>,
    // Return at most this many bytes (default and ceiling max_read_bytes).
    length: Option<u64>,
}

impl Tool for FileReadBytes {
    const NAME: &str = "file_read_bytes";
    const DESCRIPTION: &str = "Read a byte range of any file, binary included, as base64, with size_bytes and next_offset.";
    const EFFECT: Effect = Effect::Read;
    const QUICK: bool = true;
    type Output = Success<ByteRange>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        // The server's read bound, as for a text read (the base64 text is a third longer).
        let options = ReadBytesOptions {
            offset: self.offset,
            length: Some(self.length.unwrap_or(cx.reads.max_bytes)),
        };
        Ok(cx.success(cx.workspace.read_bytes(&self.path, &options)?))
    }
}
