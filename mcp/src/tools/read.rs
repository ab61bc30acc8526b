//! Reading files and finding them: nothing here changes the workspace.

use super::{Context, Effect, PATH, Tool};
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
    #[schemars(description = PATH)]
    path: String,
    /// First line to return, 1-based (default 1).
    from_line: Option<u64>,
    /// Last line to return, inclusive; beyond the end is an error, never clamped.
    to_line: Option<u64>,
    /// Return at most this many bytes, cut at a whole line (default 256 KiB; ceiling max_read_bytes, 5 MiB).
    max_bytes: Option<u64>,
    /// Return at most this many lines (default 2000).
    max_lines: Option<u64>,
    /// Number the lines in the text content, cat -n style (default true); structuredContent.content is always the exact text.
    numbered: Option<bool>,
    /// The file's encoding when it is not UTF-8 (e.g. latin1, shift_jis).
    encoding: Option<String>,
    /// Store the version read so an edit can name its content_hash as base_hash. Default: true once the workspace has history (a read never creates it unless this is true).
    snapshot: Option<bool>,
}

impl Tool for FileRead {
    const NAME: &str = "file_read";
    const DESCRIPTION: &str = "Read lines of a text file. Returns content, content_hash (pass it as expected_hash to a later write, or as base_hash to an edit so it is merged if the file changes meanwhile), newline convention, BOM, encoding and line_count. A read longer than max_bytes stops at a whole line with truncated=true and next_start_line. Binary or undecodable files are refused (BINARY_CONTENT_REFUSED).";
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
    /// Up to 32 workspace-relative paths.
    paths: Vec<String>,
    /// First line of each file, 1-based.
    from_line: Option<u64>,
    /// Last line of each file, inclusive.
    to_line: Option<u64>,
    /// At most this many bytes of each file (default 256 KiB).
    max_bytes_per_file: Option<u64>,
    /// At most this many lines of each file (default 2000).
    max_lines_per_file: Option<u64>,
    /// Number the lines in the text content (default true), as file_read does.
    numbered: Option<bool>,
}

impl Tool for FileReadMany {
    const NAME: &str = "file_read_many";
    const DESCRIPTION: &str = "Read several text files at once. results holds one entry per path, in order, each with its own ok and either the read's fields or its error: one failing path does not hide the others. More than 32 paths is LIMIT_EXCEEDED.";
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
            encoding: None,
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
    /// The directory (default: the workspace root).
    path: Option<String>,
    /// Descend into subdirectories.
    #[serde(default)]
    recursive: bool,
    /// Only entries whose path below the directory matches this glob ('*' crosses '/').
    glob: Option<String>,
    /// At most this many entries (default and ceiling 1000; above is LIMIT_EXCEEDED).
    max_entries: Option<u64>,
    /// A previous page's next_cursor, to continue after it (same other arguments).
    cursor: Option<String>,
}

impl Tool for DirectoryList {
    const NAME: &str = "directory_list";
    const DESCRIPTION: &str = "List a directory, sorted, directories before their contents. Symlinks are reported with target_kind and never followed; .filekeeper/ is never listed. More entries than the bound gives truncated=true.";
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
    #[schemars(description = PATH)]
    path: String,
}

impl Tool for FileInfo {
    const NAME: &str = "file_info";
    const DESCRIPTION: &str = "Kind, size, mode, modification time, and for files whether it is text, its encoding, newline convention, BOM, line count and content hash.";
    const EFFECT: Effect = Effect::Read;
    const QUICK: bool = true;
    type Output = Success<filekeeper::FileInfo>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        Ok(cx.success(cx.workspace.info(&self.path)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileSearch {
    #[schemars(description = PATH)]
    path: String,
    /// A glob; without '/' it also matches bare file names (e.g. '*.rs').
    pattern: String,
    /// At most this many (default and ceiling 200).
    max_results: Option<u64>,
    /// A previous page's next_cursor, to continue after it (same other arguments).
    cursor: Option<String>,
}

impl Tool for FileSearch {
    const NAME: &str = "file_search";
    const DESCRIPTION: &str = "Find paths under a directory by glob, honouring .gitignore, .git/info/exclude and the global excludes file, and skipping .git/ and .filekeeper/.";
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
    #[schemars(description = PATH)]
    path: String,
    /// The text to find; literal unless regex is true.
    query: String,
    /// Treat query as a Rust regular expression.
    #[serde(default)]
    regex: bool,
    /// Only files whose path below PATH matches this glob.
    glob: Option<String>,
    /// Match regardless of case.
    #[serde(default)]
    ignore_case: bool,
    /// At most this many matching lines (default and ceiling 200).
    max_results: Option<u64>,
    /// The files' encoding when it is not UTF-8 (e.g. latin1, shift_jis); files that do not decode in it are skipped and counted in files_undecodable.
    encoding: Option<String>,
    /// A previous page's next_cursor, to continue after it (same other arguments).
    cursor: Option<String>,
}

impl Tool for ContentSearch {
    const NAME: &str = "content_search";
    const DESCRIPTION: &str = "Find lines containing text under a directory (or in one file): path, 1-based line and column, and the line's text (a line over 500 characters as a window around the match, starting at text_start_column), in stable order. Honours ignore rules, skips binary and undecodable files, and reports files_searched, files_skipped, files_undecodable and depth_limited (directories below max_recursion_depth not searched).";
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
    /// Where to start: a directory, or a file (which starts at its directory).
    path: String,
    /// The exact entry name to look for, e.g. pyproject.toml or .git; one plain name, no '/'.
    name: String,
}

impl Tool for FileFindUp {
    const NAME: &str = "file_find_up";
    const DESCRIPTION: &str = "Find the nearest entry named exactly name in path's directory or an ancestor, up to the workspace root. Not found is ok with found=false.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<filekeeper::FoundUp>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        Ok(cx.success(cx.workspace.find_up(&self.path, &self.name)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileDiff {
    /// The old side, workspace-relative.
    path: String,
    /// The new side, workspace-relative.
    other: String,
    /// Return at most this many bytes of diff, cut at a whole line with truncated=true (default and ceiling max_read_bytes).
    max_bytes: Option<u64>,
}

impl Tool for FileDiff {
    const NAME: &str = "file_diff";
    const DESCRIPTION: &str = "Unified diff between two text files of the workspace; identical files give identical=true and an empty diff. Binary files and directories are refused.";
    const EFFECT: Effect = Effect::Read;
    type Output = Success<filekeeper::FileDiff>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = DiffOptions {
            max_bytes: self.max_bytes,
        };
        Ok(cx.success(cx.workspace.diff_files(&self.path, &self.other, &options)?))
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct FileReadBytes {
    #[schemars(description = PATH)]
    path: String,
    /// First byte to return, 0-based (default 0).
    offset: Option<u64>,
    /// Return at most this many bytes (default and ceiling max_read_bytes).
    length: Option<u64>,
}

impl Tool for FileReadBytes {
    const NAME: &str = "file_read_bytes";
    const DESCRIPTION: &str = "Read a byte range of any file, binary included, as base64 content, with size_bytes, content_hash and next_offset (null at the end).";
    const EFFECT: Effect = Effect::Read;
    const QUICK: bool = true;
    type Output = Success<ByteRange>;

    fn run(self, cx: &Context) -> Result<Self::Output> {
        let options = ReadBytesOptions {
            offset: self.offset,
            length: self.length,
        };
        Ok(cx.success(cx.workspace.read_bytes(&self.path, &options)?))
    }
}
