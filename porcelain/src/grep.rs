//! Finding content: `grep`. Literal by default, a regular expression on request; one result
//! per matching line, in walk order, using every core.

use crate::cursor::{self, Family, Position, Query, optional};
use crate::listing::{bound, glob, glob_matches};
use crate::text::{self, BINARY_SNIFF_BYTES};
use crate::{Code, Error, Result, Workspace};
use encoding_rs::{Encoding, UTF_8};
use filekeeper_plumbing::resolve::{Intent, Kind};
use filekeeper_plumbing::walk::{self, Entry, EntryKind, WalkOptions};
use regex::bytes::{Regex, RegexBuilder};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

/// A matching line's text is at most this many characters: a longer line is shown as a
/// window of this size around the match.
const MAX_LINE_CHARS: usize = 500;
/// How many characters of a long line the window shows before the match, at most.
const WINDOW_BEFORE: usize = 100;
/// Files are read in blocks of this size; only whole lines are searched.
const BLOCK: usize = 256 * 1024;
/// A line longer than this, in bytes without its end, ends the search of its file (counted
/// as skipped); every shorter line is searched.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Files handed from the walker to a searcher at a time.
const BATCH: usize = 64;

/// Options of [`Workspace::grep`].
#[derive(Clone, Debug, Default)]
pub struct GrepOptions {
    /// Treat the query as a regular expression (Rust `regex` syntax) instead of literal text.
    pub regex: bool,
    /// Only files whose path below the searched directory matches this glob.
    pub glob: Option<String>,
    /// Match without regard to letter case.
    pub ignore_case: bool,
    /// At most this many results (default and ceiling: `max_search_results`).
    pub max_results: Option<u64>,
    /// The files' text encoding (default UTF-8), as `read` takes it. Files that do not decode
    /// in it are skipped and counted in `files_undecodable`.
    pub encoding: Option<String>,
    /// A previous page's `next_cursor`: continue after its last matching line.
    pub cursor: Option<String>,
}

/// One matching line.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct GrepMatch {
    /// Workspace-relative path of the file.
    pub path: String,
    /// 1-based line number.
    pub line: u64,
    /// 1-based column, in characters, of the first match on the line.
    pub column: u64,
    /// The line without its terminator; a line longer than 500 characters is shown as a
    /// 500-character window around the match.
    pub text: String,
    /// 1-based column, in characters, of `text`'s first character within the line: 1 unless
    /// `text` is a window that starts further along.
    pub text_start_column: u64,
    /// The line was longer than `text` shows.
    pub text_truncated: bool,
}

/// The result of `grep`: the matching lines, and what the search passed over.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct GrepResult {
    /// The directory or file searched, as given.
    pub path: String,
    /// The query as given: literal text, or the regular expression.
    pub query: String,
    /// The encoding the files were decoded in, lower case (`utf-8`, `windows-1252`, ...).
    pub encoding: String,
    /// In stable order: by path, then line.
    pub matches: Vec<GrepMatch>,
    /// More lines matched than were returned.
    pub truncated: bool,
    /// When truncated: the cursor that continues exactly after the last line returned (pass
    /// it back with the same query for the next page); null on the last page, or when no
    /// key to sign it could be kept.
    pub next_cursor: Option<String>,
    /// Files this page looked at, the skipped ones included: from the cursor's file (searched
    /// again) to the one where a truncated page stopped.
    pub files_searched: u64,
    /// Binary files, undecodable files, unreadable files, and files with a line too long to
    /// search.
    pub files_skipped: u64,
    /// Of `files_skipped`, the files whose bytes are not valid text in `encoding`.
    pub files_undecodable: u64,
    /// Paths passed over by ignore rules.
    pub ignored: u64,
    /// Directories not searched because of the depth bound (`max_recursion_depth`).
    pub depth_limited: bool,
    /// Directories and files this page could not read (permission, an I/O error), so not
    /// searched: by path. A file among them is counted in `files_skipped` too.
    pub unreadable: Vec<String>,
    /// Files and directories not searched because their names are not UTF-8, shown as
    /// `list` shows them (`\xHH` for each such byte): to be read, not passed back.
    pub non_utf8_names: Vec<String>,
}

#[derive(Default)]
struct FileOutcome {
    matches: Vec<GrepMatch>,
    skipped: bool,
    undecodable: bool,
    /// The file could not be opened or read: its path.
    unreadable: Option<String>,
}

/// What the walker met besides files.
struct WalkTally {
    ignored: u64,
    unreadable: Vec<String>,
    depth_limited: bool,
    non_utf8_names: Vec<String>,
}

impl Workspace {
    /// Searches file contents under `path` (a directory or one file).
    pub fn grep(&self, path: &str, query: &str, options: &GrepOptions) -> Result<GrepResult> {
        let limits = &self.inner.limits;
        let max = bound(
            options.max_results,
            limits.max_search_results,
            filekeeper_plumbing::Argument::MaxResults,
        )
        .map_err(|e| e.path(path))? as usize;
        if query.is_empty() {
            return Err(Error::invalid("the query is empty").path(path));
        }
        // No line holds a line end, so such a text could only ever find nothing.
        if !options.regex && query.contains(['\n', '\r']) {
            return Err(Error::invalid(
                "the query holds a line end, and each line is matched on its own, without its end: search for one line of the text",
            )
            .path(path));
        }
        let source = if options.regex {
            query.to_owned()
        } else {
            regex::escape(query)
        };
        let regex = RegexBuilder::new(&source)
            .case_insensitive(options.ignore_case)
            .multi_line(true)
            .build()
            .map_err(|e| {
                Error::new(
                    Code::InvalidPattern,
                    format!("invalid regular expression: {}", last_line(&e.to_string())),
                )
                .with("pattern", query)
                .path(path)
            })?;
        let matcher = options
            .glob
            .as_deref()
            .map(glob)
            .transpose()
            .map_err(|e| e.path(path))?;
        let encoding = text::encoding_for(options.encoding.as_deref()).map_err(|e| e.path(path))?;
        let root = &self.inner.root;
        let start = root.resolve(path, Intent::Read)?;
        let query_of_cursor = Query::new(
            Family::Grep,
            &[
                start.rel.as_bytes(),
                query.as_bytes(),
                &[u8::from(options.regex), u8::from(options.ignore_case)],
                &optional(options.glob.as_deref()),
                encoding.name().as_bytes(),
            ],
        );
        let resume = match self.open_cursor(&query_of_cursor, options.cursor.as_deref())? {
            Some(Position::Line {
                path,
                line,
                through,
            }) => {
                self.check_cursor_file(&path, line, through)?;
                Some((path, line))
            }
            _ => None,
        };
        let mut result = GrepResult {
            path: path.to_owned(),
            query: query.to_owned(),
            encoding: encoding.name().to_ascii_lowercase(),
            matches: Vec::new(),
            truncated: false,
            next_cursor: None,
            files_searched: 0,
            files_skipped: 0,
            files_undecodable: 0,
            ignored: 0,
            depth_limited: false,
            unreadable: Vec::new(),
            non_utf8_names: Vec::new(),
        };
        let search = Search {
            regex: &regex,
            across_lines: across_lines(&source, options.ignore_case),
            encoding,
            wanted: max + 1,
            resume: resume.as_ref().map(|(path, line)| (path.as_str(), *line)),
            max_line_bytes: MAX_LINE_BYTES,
        };
        if start.kind == Some(Kind::File) {
            let file = start.open_file()?;
            let outcome = search.file(file, &start.rel, &mut vec![0u8; BLOCK]);
            absorb(&mut result, outcome, max);
            self.finish(&mut result, &query_of_cursor)?;
            return Ok(result);
        }
        let prefix_len = if start.rel == "." {
            0
        } else {
            start.rel.len() + 1
        };
        let mut walk = walk::walk(
            root,
            &start,
            WalkOptions {
                recursive: true,
                max_depth: limits.max_recursion_depth as usize,
                respect_ignore: true,
            },
        )?;
        walk.report_non_utf8_names();
        walk.pass_over_reserved();
        if let Some((path, _)) = &resume {
            // The cursor's file again, for its lines after the cursor's.
            walk.resume_after(path, true);
        }
        let keep = |rel: &str| match (&matcher, options.glob.as_deref()) {
            (Some(m), Some(p)) => glob_matches(m, p, &rel[prefix_len..]),
            _ => true,
        };
        let tally = pipeline(walk, keep, &search, max, &mut result)?;
        result.ignored = tally.ignored;
        // The walker runs ahead of the search: on a truncated page, a directory past the
        // last line returned belongs to the next page, which walks it again.
        let on_page = |dir: &String| match (result.truncated, result.matches.last()) {
            (true, Some(last)) => dir.split('/').lt(last.path.split('/')),
            _ => true,
        };
        let dirs: Vec<String> = tally.unreadable.into_iter().filter(on_page).collect();
        result.unreadable.extend(dirs);
        result.unreadable.sort();
        result.depth_limited = tally.depth_limited;
        result.non_utf8_names = tally.non_utf8_names;
        self.finish(&mut result, &query_of_cursor)?;
        Ok(result)
    }

    /// A truncated result's cursor, after its last line. The digest of the file up to that
    /// line is read again here, just after the search read it: a file rewritten in between
    /// gets a cursor that its next page refuses, or none when it cannot be read (the page is
    /// still exact; only the way on is missing).
    fn finish(&self, result: &mut GrepResult, query: &Query) -> Result<()> {
        if let (true, Some(last)) = (result.truncated, result.matches.last()) {
            let Some(through) = self.digest_through(&last.path, last.line) else {
                return Ok(());
            };
            result.next_cursor = self.issue_cursor(
                query,
                &Position::Line {
                    path: last.path.clone(),
                    line: last.line,
                    through,
                },
            )?;
        }
        Ok(())
    }

    /// The digest of the workspace file `rel` up to the end of line `line`
    /// ([`cursor::through_line`]); `None` when it cannot be read or is shorter.
    fn digest_through(&self, rel: &str, line: u64) -> Option<[u8; 8]> {
        let target = self.inner.root.resolve(rel, Intent::Read).ok()?;
        cursor::through_line(target.open_file().ok()?, line)
            .ok()
            .flatten()
    }

    /// Refuses a grep cursor whose file changed up to the cursor's line since it was issued.
    /// A file that is gone (or is no longer a file) holds no line to repeat or skip: the walk
    /// continues after it.
    fn check_cursor_file(&self, rel: &str, line: u64, through: [u8; 8]) -> Result<()> {
        match self.inner.root.resolve(rel, Intent::Read) {
            Ok(target) if target.kind == Some(Kind::File) => {
                let now = target
                    .open_file()
                    .ok()
                    .and_then(|file| cursor::through_line(file, line).ok().flatten());
                if now == Some(through) {
                    Ok(())
                } else {
                    Err(cursor::changed_above(rel))
                }
            }
            _ => Ok(()),
        }
    }
}

/// Walks on one thread, searches on the others, and absorbs outcomes here in walk order, so
/// the answer is the same whatever the scheduling. Files travel in batches, so threads hand
/// work over a few hundred times rather than once per file. Stops everything once truncated.
fn pipeline(
    mut walk: walk::Walk,
    keep: impl Fn(&str) -> bool + Send,
    search: &Search,
    max: usize,
    result: &mut GrepResult,
) -> Result<WalkTally> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let stop = AtomicBool::new(false);
    let (files_tx, files_rx) = mpsc::sync_channel::<(usize, Vec<Entry>)>(4 * workers);
    let (out_tx, out_rx) = mpsc::channel::<(usize, Vec<FileOutcome>)>();
    let files_rx = Mutex::new(files_rx);
    std::thread::scope(|scope| {
        let stop = &stop;
        let walker = scope.spawn(move || -> Result<WalkTally> {
            let mut batch = Vec::with_capacity(BATCH);
            let mut batches = 0;
            for entry in walk.by_ref() {
                let entry = entry?;
                if entry.kind != EntryKind::File || !keep(&entry.rel) {
                    continue;
                }
                batch.push(entry);
                if batch.len() == BATCH {
                    if stop.load(Ordering::Relaxed)
                        || files_tx
                            .send((batches, std::mem::take(&mut batch)))
                            .is_err()
                    {
                        break;
                    }
                    batches += 1;
                }
            }
            if !batch.is_empty() && !stop.load(Ordering::Relaxed) {
                let _ = files_tx.send((batches, batch));
            }
            Ok(WalkTally {
                ignored: walk.ignored,
                unreadable: std::mem::take(&mut walk.unreadable),
                depth_limited: walk.depth_limited,
                non_utf8_names: std::mem::take(&mut walk.non_utf8_names),
            })
        });
        for _ in 0..workers {
            let out_tx = out_tx.clone();
            let files_rx = &files_rx;
            scope.spawn(move || {
                let mut buf = vec![0u8; BLOCK];
                loop {
                    let next = files_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok((index, batch))) = next else {
                        break;
                    };
                    if stop.load(Ordering::Relaxed) {
                        continue; // drain, so the walker is never blocked
                    }
                    let outcomes = batch
                        .iter()
                        .map(|entry| match entry.open() {
                            Ok(file) => search.file(file, &entry.rel, &mut buf),
                            Err(e) => unreadable(
                                &entry.rel,
                                !matches!(e.code, Code::PathNotFound | Code::NotAFile),
                            ),
                        })
                        .collect();
                    // After a truncation nobody listens; keep draining until the walker stops.
                    let _ = out_tx.send((index, outcomes));
                }
            });
        }
        drop(out_tx);
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        let mut progress = filekeeper_plumbing::progress::Task::new("searching files", None);
        'absorb: for (index, outcomes) in out_rx {
            waiting.insert(index, outcomes);
            while let Some(outcomes) = waiting.remove(&next) {
                next += 1;
                for outcome in outcomes {
                    progress.step(1);
                    absorb(result, outcome, max);
                    if result.truncated {
                        break 'absorb;
                    }
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        walker
            .join()
            .unwrap_or_else(|_| Err(Error::internal("the directory walker stopped unexpectedly")))
    })
}

fn absorb(result: &mut GrepResult, outcome: FileOutcome, max: usize) {
    result.files_searched += 1;
    if outcome.skipped {
        result.files_skipped += 1;
    }
    if outcome.undecodable {
        result.files_undecodable += 1;
    }
    if let Some(rel) = outcome.unreadable {
        result.unreadable.push(rel);
    }
    for m in outcome.matches {
        if result.matches.len() == max {
            result.truncated = true;
            return;
        }
        result.matches.push(m);
    }
}

/// What to look for and how to decode what is read.
struct Search<'a> {
    regex: &'a Regex,
    /// Whether a region of whole lines can be searched as one ([`across_lines`]).
    across_lines: bool,
    encoding: &'static Encoding,
    /// Matches wanted from one file: one more than can be returned, to know of truncation.
    wanted: usize,
    /// A cursor's file and line: in that file only the lines after it count.
    resume: Option<(&'a str, u64)>,
    /// The longest line searched ([`MAX_LINE_BYTES`]; less in tests).
    max_line_bytes: usize,
}

impl Search<'_> {
    /// Searches one file block by block, whole lines at a time. A file is text only if all of
    /// it decodes: after `wanted` matches the rest is still read, only to check that, and a
    /// file that does not decode gives no matches at all. `buf` is the worker's reusable block
    /// buffer (at least `BLOCK` bytes).
    fn file(&self, mut file: std::fs::File, rel: &str, buf: &mut Vec<u8>) -> FileOutcome {
        let mut outcome = FileOutcome::default();
        let mut line_no: u64 = 1;
        // buf[..filled] holds bytes read but not yet searched (an unterminated tail).
        let mut filled = 0;
        let mut first = true;
        let after_line = match self.resume {
            Some((path, line)) if path == rel => line,
            _ => 0,
        };
        loop {
            // buf[..filled] holds no line end now, but perhaps a `\r` at its end (see below).
            let unended = filled - usize::from(buf[..filled].ends_with(b"\r"));
            if unended > self.max_line_bytes {
                return skipped(outcome);
            }
            if buf.len() - filled < BLOCK / 2 {
                let grown = (buf.len() * 2).min(self.max_line_bytes + BLOCK);
                buf.resize(grown, 0);
            }
            // At most a block a read, so that a line read whole can only be too long if it
            // began in what was kept from the reads before (checked below).
            let room = buf.len().min(filled + BLOCK);
            let n = match file.read(&mut buf[filled..room]) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return unreadable(rel, true),
            };
            let eof = n == 0;
            let mut skip_bom = 0;
            if first && !eof {
                first = false;
                if buf[filled..filled + n.min(BINARY_SNIFF_BYTES)].contains(&0) {
                    outcome.skipped = true;
                    return outcome;
                }
                // A UTF-8 BOM is not part of line 1's text, as `read` has it.
                if self.encoding == UTF_8 && buf[..n].starts_with(b"\xEF\xBB\xBF") {
                    skip_bom = 3;
                }
            }
            if skip_bom > 0 {
                buf.copy_within(skip_bom..n, 0);
            }
            filled += n - skip_bom;
            // The line that began in what was kept from the reads before ends in this read,
            // or goes on past it.
            let first_end =
                memchr::memchr2(b'\n', b'\r', &buf[unended..filled]).map(|i| unended + i);
            if first_end.unwrap_or(filled) > self.max_line_bytes {
                return skipped(outcome);
            }
            // Search the whole lines; keep the unterminated tail for the next read. A line
            // ends in an ASCII byte (`\n`, `\r\n` or a lone `\r`), which no ASCII-compatible
            // encoding uses inside a character, so whole lines decode on their own. A `\r`
            // that ends what was read may be the first half of a `\r\n`: it waits for the
            // next read.
            let end = if eof {
                filled
            } else {
                let last = |to: usize| memchr::memrchr2(b'\n', b'\r', &buf[..to]);
                match last(filled) {
                    Some(i) if i + 1 == filled && buf[i] == b'\r' => match last(i) {
                        Some(j) => j + 1,
                        None => continue,
                    },
                    Some(i) => i + 1,
                    None => continue,
                }
            };
            let Some(text) = self.decode(&buf[..end]) else {
                let mut outcome = skipped(outcome);
                outcome.undecodable = true;
                return outcome;
            };
            if outcome.matches.len() < self.wanted {
                let search = if self.across_lines {
                    search_lines
                } else {
                    search_each_line
                };
                line_no = search(
                    text.as_bytes(),
                    (line_no, after_line),
                    rel,
                    self.regex,
                    self.wanted,
                    &mut outcome.matches,
                );
            }
            if eof {
                return outcome;
            }
            buf.copy_within(end..filled, 0);
            filled -= end;
        }
    }

    /// Whole lines as UTF-8 text, or `None` when they do not decode in the encoding.
    fn decode<'b>(&self, lines: &'b [u8]) -> Option<std::borrow::Cow<'b, str>> {
        if self.encoding == UTF_8 {
            return std::str::from_utf8(lines).ok().map(Into::into);
        }
        self.encoding
            .decode_without_bom_handling_and_without_replacement(lines)
    }
}

/// A file the walk found but that could not be opened or read: skipped, and named when it is
/// still there (one another program removed or replaced meanwhile leaves nothing to search).
fn unreadable(rel: &str, still_there: bool) -> FileOutcome {
    FileOutcome {
        skipped: true,
        unreadable: still_there.then(|| rel.to_owned()),
        ..FileOutcome::default()
    }
}

/// A file given up on part way: none of its matches count.
fn skipped(mut outcome: FileOutcome) -> FileOutcome {
    outcome.matches.clear();
    outcome.skipped = true;
    outcome
}

/// Finds matching lines in `region` (whole lines, starting at line `line_no`), leaving out
/// lines up to `after_line` (a cursor's); returns the line number after the region. A match must lie within one line, and lines end where
/// `read` says they do (`\n`, `\r\n` or a lone `\r`), so a reported line number can be passed
/// straight to `read --from-line`.
fn search_lines(
    region: &[u8],
    (line_no, after_line): (u64, u64),
    rel: &str,
    regex: &Regex,
    wanted: usize,
    out: &mut Vec<GrepMatch>,
) -> u64 {
    if memchr::memchr(b'\r', region).is_some() {
        return search_each_line(region, (line_no, after_line), rel, regex, wanted, out);
    }
    // Fast path, `\n` only: let the regex skip through the region, then confirm each
    // candidate on its own line (a candidate may span lines; the line's own match may not).
    let mut line_no = line_no;
    let mut counted_to = 0;
    let mut at = 0;
    while at < region.len() && out.len() < wanted {
        let Some(m) = regex.find_at(region, at) else {
            break;
        };
        // An empty match after the region's last line end is in no line: the region ends
        // there (`^$` matches at the end of `x\n` in multi-line mode).
        if m.start() == region.len() && region.ends_with(b"\n") {
            break;
        }
        let line_start = memchr::memrchr(b'\n', &region[..m.start()]).map_or(0, |i| i + 1);
        let line_end =
            memchr::memchr(b'\n', &region[line_start..]).map_or(region.len(), |i| line_start + i);
        line_no += memchr::memchr_iter(b'\n', &region[counted_to..line_start]).count() as u64;
        counted_to = line_start;
        let line = &region[line_start..line_end];
        if line_no > after_line
            && let Some(found) = regex.find(line)
        {
            out.push(matched_line(rel, line_no, line, found.start()));
        }
        at = line_end + 1;
    }
    line_no + memchr::memchr_iter(b'\n', &region[counted_to..]).count() as u64
}

/// The general path: split at every terminator and try each line on its own.
fn search_each_line(
    region: &[u8],
    (mut line_no, after_line): (u64, u64),
    rel: &str,
    regex: &Regex,
    wanted: usize,
    out: &mut Vec<GrepMatch>,
) -> u64 {
    let mut start = 0;
    while start < region.len() {
        let Some(i) = memchr::memchr2(b'\n', b'\r', &region[start..]) else {
            // An unterminated last line (only at the end of the file).
            if out.len() < wanted
                && line_no > after_line
                && let Some(found) = regex.find(&region[start..])
            {
                out.push(matched_line(rel, line_no, &region[start..], found.start()));
            }
            return line_no + 1;
        };
        let end = start + i;
        let next = if region[end] == b'\r' && region.get(end + 1) == Some(&b'\n') {
            end + 2
        } else {
            end + 1
        };
        let line = &region[start..end];
        if out.len() < wanted
            && line_no > after_line
            && let Some(found) = regex.find(line)
        {
            out.push(matched_line(rel, line_no, line, found.start()));
        }
        line_no += 1;
        start = next;
    }
    line_no
}

/// Whether a match of `source` in a region of whole lines is also a match in its own line, so
/// that a region can be searched as one and each candidate confirmed in its line. Not when
/// it holds a text anchor (`\A`, `\z`, or `^` and `$` with multi-line mode turned off): a
/// region has those only at its two ends, where every line has them at its own, so the
/// region's search would miss lines that match alone. Such a pattern is tried line by line.
fn across_lines(source: &str, ignore_case: bool) -> bool {
    use regex_syntax::hir::Look;
    regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .case_insensitive(ignore_case)
        .build()
        .parse(source)
        .is_ok_and(|hir| {
            let looks = hir.properties().look_set();
            !looks.contains(Look::Start) && !looks.contains(Look::End)
        })
}

/// A result for `line` (valid UTF-8, without terminator) whose first match starts at byte
/// `at`. A line longer than `MAX_LINE_CHARS` is shown as a window that starts at most
/// `WINDOW_BEFORE` characters before the match and is as full as the line allows.
fn matched_line(rel: &str, line_no: u64, line: &[u8], at: usize) -> GrepMatch {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    // Characters before the match: the bytes that start a character (not 0b10xxxxxx).
    let before = line[..at.min(line.len())]
        .iter()
        .filter(|b| (**b as i8) >= -0x40)
        .count();
    let chars = text.chars().count();
    let text_truncated = chars > MAX_LINE_CHARS;
    let start = if text_truncated {
        before
            .saturating_sub(WINDOW_BEFORE)
            .min(chars - MAX_LINE_CHARS)
    } else {
        0
    };
    GrepMatch {
        path: rel.to_owned(),
        line: line_no,
        column: before as u64 + 1,
        text: if text_truncated {
            text.chars().skip(start).take(MAX_LINE_CHARS).collect()
        } else {
            text.into_owned()
        },
        text_start_column: start as u64 + 1,
        text_truncated,
    }
}

/// The regex crate's multi-line message, reduced to its last (explaining) line.
fn last_line(text: &str) -> String {
    let last = text
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or(text)
        .trim();
    last.trim_start_matches("error: ").to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: &[u8], query: &str) -> Vec<(u64, u64, String)> {
        let regex = Regex::new(&regex::escape(query)).unwrap();
        let mut out = Vec::new();
        let end = search_lines(text, (1, 0), "f", &regex, 100, &mut out);
        assert_eq!(end, 1 + text.iter().filter(|b| **b == b'\n').count() as u64);
        out.into_iter()
            .map(|m| (m.line, m.column, m.text))
            .collect()
    }

    #[test]
    fn one_result_per_line_with_line_and_character_column() {
        assert_eq!(
            lines_of("a\nxx yy xx\nnone\nété xx\r\n".as_bytes(), "xx"),
            vec![(2, 1, "xx yy xx".to_owned()), (4, 5, "été xx".to_owned())]
        );
    }

    #[test]
    fn a_long_line_is_shown_as_a_window_around_the_match() {
        let regex = Regex::new("needle").unwrap();
        let found = |text: String| {
            let mut out = Vec::new();
            search_lines(text.as_bytes(), (1, 0), "f", &regex, 10, &mut out);
            out.remove(0)
        };
        // Far along: the window starts 100 characters before the match.
        let m = found(format!(
            "{}needle{}\n",
            "é".repeat(100_000),
            "y".repeat(1000)
        ));
        assert_eq!((m.column, m.text_start_column), (100_001, 99_901));
        assert!(m.text_truncated);
        assert_eq!(m.text.chars().count(), MAX_LINE_CHARS);
        assert!(m.text.starts_with(&format!("{}needle", "é".repeat(100))));
        // Near the end: the window is as full as the line allows.
        let m = found(format!("{} needle\n", "x".repeat(2000)));
        assert_eq!((m.column, m.text_start_column), (2002, 1508));
        assert_eq!(m.text, format!("{} needle", "x".repeat(493)));
        // Near the start: the line's beginning.
        let m = found(format!("a needle{}\n", "z".repeat(600)));
        assert_eq!((m.column, m.text_start_column), (3, 1));
        assert_eq!(m.text.chars().count(), MAX_LINE_CHARS);
        // A short line is whole.
        let m = found("the needle\n".to_owned());
        assert_eq!((m.text_start_column, m.text_truncated), (1, false));
    }

    fn search_bytes(bytes: &[u8], encoding: Option<&str>) -> FileOutcome {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, bytes).unwrap();
        let regex = Regex::new("caf").unwrap();
        let search = Search {
            regex: &regex,
            across_lines: true,
            encoding: text::encoding_for(encoding).unwrap(),
            wanted: 2,
            resume: None,
            max_line_bytes: MAX_LINE_BYTES,
        };
        let file = std::fs::File::open(&path).unwrap();
        search.file(file, "f", &mut vec![0u8; BLOCK])
    }

    /// The lines of `bytes` that `pattern` matches, searched as `grep --regex` searches.
    fn matching_lines(bytes: &[u8], pattern: &str) -> Vec<u64> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, bytes).unwrap();
        let regex = RegexBuilder::new(pattern).multi_line(true).build().unwrap();
        let search = Search {
            regex: &regex,
            across_lines: across_lines(pattern, false),
            encoding: UTF_8,
            wanted: 100,
            resume: None,
            max_line_bytes: MAX_LINE_BYTES,
        };
        let file = std::fs::File::open(&path).unwrap();
        let outcome = search.file(file, "f", &mut vec![0u8; BLOCK]);
        outcome.matches.iter().map(|m| m.line).collect()
    }

    #[test]
    fn no_empty_line_is_found_after_the_last_line_end() {
        for bytes in [&b"x\n"[..], b"a\nb", b"a\nb\n", b"a\nb\r"] {
            assert_eq!(matching_lines(bytes, "^$"), [0u64; 0], "{bytes:?}");
        }
        assert_eq!(matching_lines(b"a\n\nb\n", "^$"), [2]);
        assert_eq!(matching_lines(b"a\n\n", "^\\s*$"), [2]);
    }

    #[test]
    fn text_anchors_hold_at_each_line_whatever_its_line_ends() {
        for (lines, pattern, want) in [
            (&["ne", "ne", "ne"][..], "\\An", &[1u64, 2, 3][..]),
            (&["ne", "ne", "ne"], "e\\z", &[1, 2, 3]),
            (&["ne", "xe", "ny"], "(?-m)^n", &[1, 3]),
            (&["ne", "nx"], "(?-m)e$", &[1]),
        ] {
            for end in ["\n", "\r\n", "\r"] {
                let mut text = lines.join(end);
                assert_eq!(matching_lines(text.as_bytes(), pattern), want, "{text:?}");
                text.push_str(end);
                assert_eq!(matching_lines(text.as_bytes(), pattern), want, "{text:?}");
            }
        }
        assert!(across_lines("^a|b$", false) && !across_lines("\\Aa", false));
    }

    #[test]
    fn a_file_that_does_not_decode_gives_no_matches_and_is_counted() {
        // The bad byte after the matches, and after more matches than are wanted.
        for bytes in [&b"caf\xe9\n"[..], b"cafe\ncafe\ncafe\nok\n\xff\n"] {
            let outcome = search_bytes(bytes, None);
            assert!(outcome.matches.is_empty(), "{bytes:?}");
            assert!(outcome.skipped && outcome.undecodable, "{bytes:?}");
        }
        let outcome = search_bytes(b"caf\xe9\n", Some("latin1"));
        assert!(!outcome.skipped);
        assert_eq!(outcome.matches[0].text, "café");
        let outcome = search_bytes(b"caf\xc3\xa9\n", None);
        assert_eq!(outcome.matches[0].text, "café");
    }

    /// Searches `bytes` for "needle" as grep does, with lines longer than `LIMIT` refused:
    /// the production limit made small, so that its edges are cheap to reach.
    fn search_limited(bytes: &[u8]) -> FileOutcome {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, bytes).unwrap();
        let regex = Regex::new("needle").unwrap();
        let search = Search {
            regex: &regex,
            across_lines: true,
            encoding: UTF_8,
            wanted: 100,
            resume: None,
            max_line_bytes: LIMIT,
        };
        let file = std::fs::File::open(&path).unwrap();
        search.file(file, "f", &mut vec![0u8; BLOCK])
    }
    const LIMIT: usize = 3 * BLOCK + 7;

    fn lines(outcome: &FileOutcome) -> Vec<u64> {
        outcome.matches.iter().map(|m| m.line).collect()
    }

    #[test]
    fn lines_end_where_read_says_whatever_the_blocks() {
        // A CRLF whose CR ends a block: no empty line between them.
        let mut text = "a\n".repeat(BLOCK / 2).into_bytes();
        text.truncate(BLOCK - 1);
        text.extend_from_slice(b"\r\nneedle\n");
        let before = text.iter().filter(|b| **b == b'\n').count() as u64;
        assert_eq!(lines(&search_limited(&text)), [before]);
        // Lines ended by lone CRs only, more bytes of them than the longest line: each is a
        // line of its own, not one line too long to search.
        let mut text = "line\r".repeat(LIMIT / 5 + 1);
        text.push_str("needle\r");
        let outcome = search_limited(text.as_bytes());
        assert_eq!(
            (outcome.skipped, lines(&outcome)),
            (false, vec![(LIMIT / 5 + 2) as u64])
        );
    }

    #[test]
    fn a_line_up_to_the_limit_is_searched_and_a_longer_one_skips_the_file() {
        // A line of the longest length allowed, ended each way, or the file's last.
        let mut line = "x".repeat(LIMIT - 6);
        line.push_str("needle");
        for (text, want) in [
            (format!("{line}\nneedle\n"), &[1u64, 2][..]),
            (format!("{line}\r\nneedle\n"), &[1, 2]),
            (format!("{line}\rneedle\n"), &[1, 2]),
            (line.clone(), &[1]),
        ] {
            let outcome = search_limited(text.as_bytes());
            assert_eq!((outcome.skipped, &lines(&outcome)[..]), (false, want));
        }
        // One byte more, however it ends, and no match of the file counts.
        for end in ["\n", "\r", "\r\n", ""] {
            let line = "x".repeat(LIMIT + 1);
            let outcome = search_limited(format!("needle\n{line}{end}needle\n").as_bytes());
            assert!(outcome.skipped && outcome.matches.is_empty(), "{end:?}");
        }
    }
}
