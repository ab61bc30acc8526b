//! Reading: `read`, `read-many`, `info`, `hash`, `exists`.

use crate::text::{self, Collect, Newline};
use crate::time::rfc3339;
use crate::{Code, Error, ObjectId, Result, Workspace};
use filekeeper_plumbing::resolve::{Intent, Kind};
use filekeeper_plumbing::{Argument, words};
use schemars::JsonSchema;
use serde::Serialize;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

/// Options of [`Workspace::read_file`].
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// First line to return, 1-based (default 1).
    pub from_line: Option<u64>,
    /// Last line to return, inclusive (default: the last line).
    pub to_line: Option<u64>,
    /// Most bytes to return (default and ceiling: `max_read_bytes`).
    pub max_bytes: Option<u64>,
    /// Most lines to return (default: no bound but `max_bytes`). A read cut by it stops
    /// where a byte-bounded read does, and says so in the same way.
    pub max_lines: Option<u64>,
    /// An explicit encoding label (default UTF-8).
    pub encoding: Option<String>,
    /// Store the whole file's bytes as they were read, so that an edit can name this version
    /// as its `base_hash` later (creating the workspace's state if it has none). Without it a
    /// read writes nothing.
    pub snapshot: bool,
}

/// A slice of a text file, with the facts needed to write it back safely.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ReadResult {
    /// The path as given.
    pub path: String,
    /// The returned lines decoded as text (a UTF-8 BOM is not part of it; see `bom`).
    pub content: String,
    /// The returned lines' raw bytes, exactly as stored (what a command line prints).
    #[serde(skip)]
    pub raw: Vec<u8>,
    /// The hash of the whole file (`sha256:` and 64 hex digits): give it as the expected hash
    /// of a later write or edit.
    pub content_hash: String,
    /// Size of the whole file in bytes, not of the returned lines.
    pub size_bytes: u64,
    /// The file's text encoding, lower case (`utf-8`, `windows-1252`, ...).
    pub encoding: String,
    /// The file's newline convention.
    #[schemars(extend("enum" = ["lf", "crlf", "cr", "mixed", "none"]))]
    pub newline: String,
    /// Whether the file starts with a byte order mark.
    pub bom: bool,
    /// Lines in the whole file.
    pub line_count: u64,
    /// The first line returned; null when nothing was.
    pub start_line: Option<u64>,
    /// The last line returned; null when nothing was.
    pub end_line: Option<u64>,
    /// Fewer lines were returned than asked for.
    pub truncated: bool,
    /// Why the read stopped early (which bound it reached); null when it did not.
    #[schemars(extend("enum" = ["max_bytes", "max_lines", null]))]
    pub truncation_reason: Option<String>,
    /// Where to continue (the next read's first line) after a truncated read.
    pub next_start_line: Option<u64>,
    /// Only when the read asked to store its snapshot: whether the version read
    /// (`content_hash`) is now in the store. False for a file above `max_history_blob_bytes`,
    /// which is never stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_stored: Option<bool>,
}

/// The width a line number is right-aligned to in [`numbered`], as `cat -n` writes it.
const NUMBER_WIDTH: usize = 6;

/// `content` as a numbered read shows it: each line, without its terminator, after its number
/// right-aligned to six columns and a tab (`cat -n`'s form), and ending in `\n`. Lines end at
/// `\n`, `\r\n` or a lone `\r`, as they do for every line number Filekeeper takes, and the
/// first is `first_line`.
///
/// This is a rendering for reading, never the file's text: the terminators are all `\n`, and
/// text copied from it keeps its prefixes, which replace-text refuses as NO_MATCH with
/// `line_number_prefixes` (form `tab`) rather than strip.
pub fn numbered(content: &str, first_line: u64) -> String {
    let mut out = String::new();
    push_numbered(&mut out, content, first_line);
    out
}

/// Appends [`numbered`]`(content, first_line)` to `out`. A read's rendering is most of what
/// the MCP server does for a small read, so the number is written by hand, not formatted.
pub fn push_numbered(out: &mut String, content: &str, first_line: u64) {
    out.reserve(content.len() + content.len() / 8 + 16);
    let bytes = content.as_bytes();
    let mut number = first_line;
    let mut at = 0;
    while at < bytes.len() {
        let (end, next) = match memchr::memchr2(b'\n', b'\r', &bytes[at..]) {
            Some(i) if bytes[at + i..].starts_with(b"\r\n") => (at + i, at + i + 2),
            Some(i) => (at + i, at + i + 1),
            None => (bytes.len(), bytes.len()),
        };
        push_line_number(out, number);
        out.push('\t');
        // Both ends are at an ASCII byte or the end, so on char boundaries.
        out.push_str(&content[at..end]);
        out.push('\n');
        number = number.saturating_add(1);
        at = next;
    }
}

/// `number` right-aligned to [`NUMBER_WIDTH`] columns (wider numbers take what they need).
fn push_line_number(out: &mut String, number: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut n = number;
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let width = digits.len() - start;
    for _ in width..NUMBER_WIDTH {
        out.push(' ');
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&digits[start..]).unwrap_or_default());
}

impl ReadResult {
    /// The returned lines numbered from `start_line` (see [`numbered`]): what
    /// `keeper file read --numbered` prints and what the MCP server's text shows of a read.
    pub fn numbered(&self) -> String {
        numbered(&self.content, self.start_line.unwrap_or(1))
    }
}

/// What `info` reports.
/// The text facts are null for a directory, and for a file that is not text.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FileInfo {
    /// The path as given.
    pub path: String,
    /// `file` or `directory`: what the path leads to, links inside the workspace followed.
    #[schemars(extend("enum" = ["file", "directory"]))]
    pub kind: &'static str,
    /// Size in bytes, for files.
    pub size_bytes: Option<u64>,
    /// Permission bits as a plain integer (0644 is 420).
    pub mode: u32,
    /// Modification time (RFC 3339, UTC).
    pub modified: String,
    /// For files: whether the content is text.
    pub is_text: Option<bool>,
    /// For a text file: `utf-8`, the only encoding this report tries (a file that is not
    /// UTF-8 counts as not text here).
    pub encoding: Option<String>,
    /// For a text file: its newline convention.
    #[schemars(extend("enum" = ["lf", "crlf", "cr", "mixed", "none", null]))]
    pub newline: Option<String>,
    /// For a text file: whether it starts with a UTF-8 byte order mark.
    pub bom: Option<bool>,
    /// For a text file: its number of lines (a last line without a terminator counts).
    pub line_count: Option<u64>,
    /// For files: the content hash (`sha256:` and 64 hex digits), text or not.
    pub hash: Option<String>,
}

/// What `exists` reports.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Existence {
    /// The path as given.
    pub path: String,
    /// Whether anything is there, a link that leads nowhere included.
    pub exists: bool,
    /// What is there; null when nothing is. A link that leads to something is what it leads
    /// to; one that leads nowhere is `symlink`.
    #[schemars(extend("enum" = ["file", "directory", "special", "symlink", null]))]
    pub kind: Option<&'static str>,
    /// For a `symlink`: what it leads to, in `file list`'s words (`broken`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["file", "directory", "broken", "outside", "special", "state"]))]
    pub target_kind: Option<&'static str>,
    /// For a `symlink`: the workspace-relative path its text names, when that is inside the
    /// workspace (worked out from the text alone, without following further links).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// One path's outcome in `read-many`: a read, or that path's own error.
#[derive(Clone, Debug)]
pub enum ManyItem {
    /// The path was read.
    Read(ReadResult),
    /// The path could not be read; the other paths are not affected.
    Failed {
        /// The path as given.
        path: String,
        /// Why it could not be read.
        error: Error,
    },
}

/// The arguments that bound a read, as the caller named them: a read's own, or read-many's,
/// which bound each file.
#[derive(Clone, Copy)]
struct BoundNames {
    max_bytes: Argument,
    max_lines: Argument,
}

impl BoundNames {
    const READ: BoundNames = BoundNames {
        max_bytes: Argument::MaxBytes,
        max_lines: Argument::MaxLines,
    };
    const READ_MANY: BoundNames = BoundNames {
        max_bytes: Argument::MaxBytesPerFile,
        max_lines: Argument::MaxLinesPerFile,
    };
}

impl Workspace {
    /// Reads lines of a text file. Ranges are 1-based and inclusive; a range beyond the end is
    /// INVALID_ARGUMENT, never clamped. A read longer than `max_bytes` stops at a whole line
    /// and says where to continue. With `snapshot`, the whole file's bytes are stored too. A
    /// missing file is PATH_NOT_FOUND with the names it probably meant.
    pub fn read_file(&self, path: &str, options: &ReadOptions) -> Result<ReadResult> {
        let mut read = self
            .read_one(path, options, BoundNames::READ)
            .map_err(|e| self.explain(e, true))?;
        if options.snapshot {
            read.snapshot_stored = Some(self.store_snapshot(path, &read.content_hash)?);
        }
        Ok(read)
    }

    /// Stores the bytes of `path` if they are still the version `hash` that was just read:
    /// true when that version is in the store now. A file that changed in between is
    /// CONTENT_CONFLICT (retryable): the read's content and its snapshot would differ.
    fn store_snapshot(&self, path: &str, hash: &str) -> Result<bool> {
        // A version already stored (every version keeper wrote, every one read before) costs
        // one lookup and no second read.
        if let Some(state) = self.inner.state(false)?
            && state.store().contains(&ObjectId::parse(hash)?)
        {
            return Ok(true);
        }
        let cap = self.inner.limits.max_history_blob_bytes;
        let mut file = self.inner.root.resolve(path, Intent::Read)?.open_file()?;
        let len = file
            .metadata()
            .map_err(|e| Error::storage("inspecting file", &e))?
            .len();
        if len > cap {
            return Ok(false);
        }
        let mut bytes = Vec::with_capacity(len as usize);
        std::io::Read::read_to_end(&mut file, &mut bytes)
            .map_err(|e| Error::storage("reading file", &e))?;
        let id = ObjectId::of(&bytes);
        if id.to_string() != hash {
            return Err(Error::new(
                Code::ContentConflict,
                "the file changed while it was read; its snapshot was not stored",
            )
            .path(path)
            .with("expected_hash", hash)
            .with("actual_hash", id.to_string())
            .retryable(true)
            .recovery("read the file again"));
        }
        let state = self
            .inner
            .state(true)?
            .ok_or_else(|| Error::internal("the workspace state was not created"))?;
        let store = state.store();
        if !store.contains(&id) {
            store.write(&bytes)?;
        }
        Ok(true)
    }

    /// The most bytes a read of `options` returns, once the bounds that do not depend on a
    /// file are checked: a zero bound, one above `max_read_bytes`, a line 0, a range that
    /// ends before it starts. `names` says which arguments set the bounds.
    fn read_bounds(&self, options: &ReadOptions, names: BoundNames) -> Result<u64> {
        let ceiling = self.inner.limits.max_read_bytes;
        let max_bytes = match options.max_bytes {
            Some(0) => {
                return Err(Error::worded(
                    Code::InvalidArgument,
                    words![names.max_bytes, " must be at least 1"],
                ));
            }
            Some(n) if n > ceiling => {
                return Err(Error::worded(
                    Code::LimitExceeded,
                    words![
                        names.max_bytes,
                        format!(" {n} is above the configured max_read_bytes {ceiling}")
                    ],
                )
                .with("limit", ceiling)
                .with("requested", n));
            }
            Some(n) => n,
            None => ceiling,
        };
        if options.max_lines == Some(0) {
            return Err(Error::worded(
                Code::InvalidArgument,
                words![names.max_lines, " must be at least 1"],
            ));
        }
        let from_line = options.from_line.unwrap_or(1);
        if from_line == 0 || options.to_line == Some(0) {
            return Err(Error::invalid("line numbers are 1-based"));
        }
        if options.to_line.is_some_and(|to| to < from_line) {
            return Err(Error::worded(
                Code::InvalidArgument,
                words![Argument::ToLine, " is before ", Argument::FromLine],
            ));
        }
        Ok(max_bytes)
    }

    /// [`Workspace::read_file`] without the snapshot and the explanations.
    fn read_one(&self, path: &str, options: &ReadOptions, names: BoundNames) -> Result<ReadResult> {
        let ceiling = self.inner.limits.max_read_bytes;
        let max_bytes = self.read_bounds(options, names).map_err(|e| e.path(path))?;
        let from_line = options.from_line.unwrap_or(1);
        let encoding = text::encoding_for(options.encoding.as_deref()).map_err(|e| e.path(path))?;
        let file = self.inner.root.resolve(path, Intent::Read)?.open_file()?;
        let collect = Collect {
            from_line,
            to_line: options.to_line,
            max_bytes,
            max_lines: options.max_lines.unwrap_or(u64::MAX),
        };
        let scan = read_steadily(&file, path, |f| text::scan(f, encoding, Some(collect)))?;
        let named = options.encoding.is_some();
        let facts = text_facts(path, scan.text, scan.not_text, named)?;
        let count = facts.line_count;
        let beyond = |what: Argument, n: u64| {
            Error::worded(
                Code::InvalidArgument,
                words![
                    what,
                    format!(" {n} is beyond the end of the file, which has {count} lines")
                ],
            )
            .path(path)
            .with("line_count", count)
        };
        if from_line > count.max(1) {
            return Err(beyond(Argument::FromLine, from_line));
        }
        if let Some(to) = options.to_line.filter(|to| *to > count) {
            return Err(beyond(Argument::ToLine, to));
        }
        if let Some(len) = facts.oversized_line {
            let err = Error::worded(
                Code::LimitExceeded,
                words![
                    format!("line {from_line} alone is {len} bytes, more than "),
                    names.max_bytes,
                    format!(" {max_bytes}")
                ],
            )
            .path(path)
            .with("line", from_line)
            .with("line_bytes", len)
            .with("limit", max_bytes)
            .with("requested", len);
            return Err(if max_bytes < ceiling && len <= ceiling {
                err.hint(words![
                    "raise ",
                    names.max_bytes,
                    format!(" to {len} or more (max_read_bytes allows up to {ceiling}) to read this line")
                ])
            } else {
                err.recovery(&format!(
                    "the line is longer than max_read_bytes ({ceiling}) allows; raise max_read_bytes in the home's config.toml to read it"
                ))
            });
        }
        let mut raw = facts.collected;
        let bom_in_raw = facts.bom && facts.first_collected == Some(1);
        let decoded = {
            let body = if bom_in_raw { &raw[3..] } else { &raw[..] };
            facts
                .encoding
                .decode_without_bom_handling_and_without_replacement(body)
                .map(|c| c.into_owned())
                .ok_or_else(|| Error::internal("text decoded in one pass but not in the next"))?
        };
        raw.shrink_to_fit();
        Ok(ReadResult {
            path: path.to_owned(),
            content: decoded,
            raw,
            content_hash: scan.hash.to_string(),
            size_bytes: scan.size,
            encoding: facts.encoding.name().to_ascii_lowercase(),
            newline: facts.newline.as_str().to_owned(),
            bom: facts.bom,
            line_count: count,
            start_line: facts.first_collected,
            end_line: facts.last_collected,
            truncated: facts.cut_at.is_some(),
            truncation_reason: facts.cut_by.map(|cut| cut.as_str().to_owned()),
            next_start_line: facts.cut_at,
            snapshot_stored: None,
        })
    }

    /// Reads several files; each path succeeds or fails on its own, in order. A missing file's
    /// PATH_NOT_FOUND suggests names from its directory and the journal, but does not search
    /// the workspace, which for many paths would be many walks.
    pub fn read_many(&self, paths: &[String], options: &ReadOptions) -> Result<Vec<ManyItem>> {
        let limit = self.inner.limits.max_read_many_paths;
        if paths.len() as u64 > limit {
            return Err(Error::new(
                Code::LimitExceeded,
                format!(
                    "{} paths requested; at most {limit} per request",
                    paths.len()
                ),
            )
            .with("limit", limit)
            .with("requested", paths.len()));
        }
        if paths.is_empty() {
            return Err(Error::invalid("name at least one path"));
        }
        // Bounds that no file could meet, or an encoding no file could be read in, refuse the
        // request, as they refuse a single read, rather than failing every path alike.
        self.read_bounds(options, BoundNames::READ_MANY)?;
        text::encoding_for(options.encoding.as_deref())?;
        Ok(paths
            .iter()
            .map(
                |path| match self.read_one(path, options, BoundNames::READ_MANY) {
                    Ok(read) => ManyItem::Read(read),
                    Err(error) => ManyItem::Failed {
                        path: path.clone(),
                        error: self.explain(error, false),
                    },
                },
            )
            .collect())
    }

    /// Kind, size, mode, modification time, and for files the text facts and hash.
    pub fn info(&self, path: &str) -> Result<FileInfo> {
        self.info_of(path).map_err(|e| self.explain(e, true))
    }

    fn info_of(&self, path: &str) -> Result<FileInfo> {
        let resolved = self.inner.root.resolve(path, Intent::Read)?;
        match resolved.kind {
            None => Err(Error::new(
                Code::PathNotFound,
                "no such file or directory in the workspace",
            )
            .path(path)),
            Some(Kind::Directory) => {
                let dir = std::fs::File::from(resolved.open_dir_to_inspect()?);
                let meta = dir
                    .metadata()
                    .map_err(|e| Error::storage("inspecting directory", &e))?;
                Ok(FileInfo {
                    path: path.to_owned(),
                    kind: "directory",
                    size_bytes: None,
                    mode: meta.permissions().mode() & 0o7777,
                    modified: rfc3339(meta.mtime()),
                    is_text: None,
                    encoding: None,
                    newline: None,
                    bom: None,
                    line_count: None,
                    hash: None,
                })
            }
            Some(Kind::File) => {
                let file = resolved.open_file()?;
                // The mode and time reported are of the version scanned.
                let (meta, scan) = read_steadily(&file, path, |f| {
                    let meta = f
                        .metadata()
                        .map_err(|e| Error::storage("inspecting file", &e))?;
                    Ok((meta, text::scan(f, encoding_rs::UTF_8, None)?))
                })?;
                let text = scan.text.as_ref();
                Ok(FileInfo {
                    path: path.to_owned(),
                    kind: "file",
                    size_bytes: Some(scan.size),
                    mode: meta.permissions().mode() & 0o7777,
                    modified: rfc3339(meta.mtime()),
                    is_text: Some(text.is_some()),
                    encoding: text.map(|t| t.encoding.name().to_ascii_lowercase()),
                    newline: text.map(|t| t.newline.as_str().to_owned()),
                    bom: text.map(|t| t.bom),
                    line_count: text.map(|t| t.line_count),
                    hash: Some(scan.hash.to_string()),
                })
            }
        }
    }

    /// Opens the regular file at `path` to read its bytes, resolved as every read resolves a
    /// path (links inside the workspace followed, escapes refused), with the error explained
    /// as a read's is.
    pub(crate) fn open_to_read(&self, path: &str) -> Result<std::fs::File> {
        self.inner
            .root
            .resolve(path, Intent::Read)
            .and_then(|r| r.open_file())
            .map_err(|e| self.explain(e, true))
    }

    /// The content hash of a file, `sha256:<hex>` of its exact bytes.
    pub fn hash_file(&self, path: &str) -> Result<(String, u64)> {
        let file = self.open_to_read(path)?;
        let (id, size) = read_steadily(&file, path, |f| {
            crate::ObjectId::of_reader(f).map_err(|e| Error::storage("reading file", &e))
        })?;
        Ok((id.to_string(), size))
    }

    /// Whether a path exists. A missing parent is "no", not an error; a path that may not be
    /// asked about at all (outside the root, through an escaping link) is still an error.
    pub fn exists(&self, path: &str) -> Result<Existence> {
        let found = |kind: Option<&'static str>| Existence {
            path: path.to_owned(),
            exists: kind.is_some(),
            kind,
            target_kind: None,
            target: None,
        };
        // A link that leads nowhere is still there: `list` shows it and a create refuses to
        // replace it, so `exists` must not call it absent.
        let link = || {
            self.inner.root.is_symlink(path).then(|| Existence {
                target_kind: Some(crate::listing::link_target(self, path)),
                target: self.inner.root.link_text_target(path),
                ..found(Some("symlink"))
            })
        };
        let kind = match self.inner.root.resolve(path, Intent::Read) {
            Ok(resolved) if resolved.kind.is_none() => match link() {
                Some(existence) => return Ok(existence),
                None => None,
            },
            Ok(resolved) => resolved.kind,
            // A link that leads nowhere, or round in a loop, is there itself; below one,
            // nothing can be.
            Err(e) if e.code == Code::PathNotFound || is_symlink_loop(&e) => match link() {
                Some(existence) => return Ok(existence),
                None => None,
            },
            Err(e) if e.code == Code::SpecialFileRefused => return Ok(found(Some("special"))),
            Err(e) => return Err(e),
        };
        Ok(found(kind.map(Kind::as_str)))
    }
}

/// Whether resolving met more links in a row than it follows: a loop, in practice.
fn is_symlink_loop(e: &Error) -> bool {
    e.code == Code::InvalidArgument
        && e.details.get("reason").and_then(|r| r.as_str()) == Some("symlink_loop")
}

struct Facts {
    encoding: &'static encoding_rs::Encoding,
    newline: Newline,
    bom: bool,
    line_count: u64,
    collected: Vec<u8>,
    first_collected: Option<u64>,
    last_collected: Option<u64>,
    cut_at: Option<u64>,
    cut_by: Option<text::Cut>,
    oversized_line: Option<u64>,
}

/// The facts of a file read as text, or BINARY_CONTENT_REFUSED saying why it is not. A file
/// that failed to decode gets a way out: naming its encoding, or, when the caller `named` one
/// already, naming another (the clause of an unnamed refusal would tell them to do what they
/// did).
fn text_facts(
    path: &str,
    text: Option<text::TextFacts>,
    not_text: Option<String>,
    named: bool,
) -> Result<Facts> {
    let Some(t) = text else {
        let why = not_text.unwrap_or_default();
        let err = Error::new(
            Code::BinaryContentRefused,
            format!("refusing to read as text: {why}"),
        )
        .path(path);
        return Err(if why.contains("binary") {
            err
        } else if named {
            err.hint(words![
                "if the file is text in another encoding, name that one with ",
                Argument::Encoding
            ])
        } else {
            err.recovery("if the file is text in another encoding, name that encoding")
                .argument(Argument::Encoding)
        });
    };
    Ok(Facts {
        encoding: t.encoding,
        newline: t.newline,
        bom: t.bom,
        line_count: t.line_count,
        collected: t.collected,
        first_collected: t.first_collected,
        last_collected: t.last_collected,
        cut_at: t.cut_at,
        cut_by: t.cut_by,
        oversized_line: t.oversized_line,
    })
}

/// What of a file's status changes when its bytes are written: its size, and its
/// modification time to the nanosecond. Not its change time: that moves too when the file is
/// replaced by a rename (its last name goes), which leaves the bytes read intact.
type Stamp = (u64, i64, i64);

fn stamp(file: &std::fs::File) -> Result<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let meta = file
        .metadata()
        .map_err(|e| Error::storage("inspecting file", &e))?;
    Ok((meta.size(), meta.mtime(), meta.mtime_nsec()))
}

/// Runs `read` over `file` and answers its result only if the file did not change meanwhile,
/// as its status shows: a file another program rewrites in place while it is read would give
/// a mix of two versions (hashed, counted and returned as if it were one), so that is
/// CONTENT_CONFLICT, retryable. Keeper's own writes replace a file whole and never trip it.
pub(crate) fn read_steadily<T>(
    file: &std::fs::File,
    path: &str,
    read: impl FnOnce(&std::fs::File) -> Result<T>,
) -> Result<T> {
    let before = stamp(file)?;
    let out = read(file)?;
    if stamp(file)? != before {
        return Err(Error::new(
            Code::ContentConflict,
            "the file changed while it was read (another program wrote to it), so what was read may mix two versions; nothing of it is returned",
        )
        .path(path)
        .retryable(true)
        .recovery("read it again once the other program has finished writing"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{numbered, push_numbered};

    #[test]
    fn a_numbered_rendering_numbers_lines_as_every_line_number_counts_them() {
        // `\n`, `\r\n` and a lone `\r` each end a line, as for a read's ranges and the edits'
        // line numbers; a last line without a terminator is a line.
        assert_eq!(
            numbered("a\r\nb\rc\n\nd", 1),
            "     1\ta\n     2\tb\n     3\tc\n     4\t\n     5\td\n"
        );
        assert_eq!(numbered("\tx\n", 98), "    98\t\tx\n");
        assert_eq!(numbered("", 1), "");
        // Numbers wider than six columns push the tab right, as `cat -n` does.
        assert_eq!(numbered("z\n", 1_234_567), "1234567\tz\n");
        assert_eq!(numbered("0\n", 0), "     0\t0\n");
        assert_eq!(numbered("é\r", u64::MAX), "18446744073709551615\té\n");
    }

    #[test]
    fn a_numbered_rendering_appends_to_what_is_there() {
        let mut out = String::from("header\n");
        push_numbered(&mut out, "x\r\n\r\ny", 999_999);
        assert_eq!(out, "header\n999999\tx\n1000000\t\n1000001\ty\n");
    }

    #[test]
    fn a_file_written_while_it_is_read_is_a_retryable_conflict() {
        use std::io::{Read, Write};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "one\n").unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let read = |mut f: &std::fs::File| {
            let mut s = String::new();
            f.read_to_string(&mut s).unwrap();
            Ok(s)
        };
        assert_eq!(super::read_steadily(&file, "f", read).unwrap(), "one\n");
        // Another program appends while the bytes are read.
        let err = super::read_steadily(&file, "f", |f| {
            let mut writer = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            writer.write_all(b"two\n").unwrap();
            read(f)
        })
        .unwrap_err();
        assert_eq!(err.code, crate::Code::ContentConflict);
        assert!(err.retryable);
    }
}
