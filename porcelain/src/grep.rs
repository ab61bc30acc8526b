//! Finding content: `grep`. Literal by default, a regular expression on request; one result
//! per matching line, in walk order, using every core.

use crate::listing::{bound, glob, glob_matches};
use crate::text::BINARY_SNIFF_BYTES;
use crate::{Code, Error, Result, Workspace};
use filekeeper_plumbing::resolve::{Intent, Kind};
use filekeeper_plumbing::walk::{self, Entry, EntryKind, WalkOptions};
use regex::bytes::{Regex, RegexBuilder};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

/// A matching line's text is cut to this many characters.
const MAX_LINE_CHARS: usize = 500;
/// Files are read in blocks of this size; only whole lines are searched.
const BLOCK: usize = 256 * 1024;
/// A line longer than this ends the search of its file (counted as skipped).
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Files handed from the walker to a searcher at a time.
const BATCH: usize = 64;

#[derive(Clone, Debug, Default)]
pub struct GrepOptions {
    /// Treat the query as a regular expression (Rust `regex` syntax) instead of literal text.
    pub regex: bool,
    /// Only files whose path below the searched directory matches this glob.
    pub glob: Option<String>,
    pub ignore_case: bool,
    /// At most this many results (default and ceiling: `max_search_results`).
    pub max_results: Option<u64>,
}

/// One matching line.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct GrepMatch {
    pub path: String,
    /// 1-based line number.
    pub line: u64,
    /// 1-based column, in characters, of the first match on the line.
    pub column: u64,
    /// The line without its terminator, cut to 500 characters.
    pub text: String,
    /// The line was longer than `text` shows.
    pub text_truncated: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct GrepResult {
    /// The directory or file searched, as given.
    pub path: String,
    pub query: String,
    /// In stable order: by path, then line.
    pub matches: Vec<GrepMatch>,
    /// More lines matched than were returned.
    pub truncated: bool,
    pub files_searched: u64,
    /// Binary files, unreadable files and files with a line too long to search.
    pub files_skipped: u64,
    /// Paths passed over by ignore rules.
    pub ignored: u64,
}

struct FileOutcome {
    matches: Vec<GrepMatch>,
    skipped: bool,
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
            return Err(Error::invalid("the query is empty"));
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
        let root = &self.inner.root;
        let start = root.resolve(path, Intent::Read)?;
        let mut result = GrepResult {
            path: path.to_owned(),
            query: query.to_owned(),
            matches: Vec::new(),
            truncated: false,
            files_searched: 0,
            files_skipped: 0,
            ignored: 0,
        };
        if start.kind == Some(Kind::File) {
            let file = start.open_file()?;
            let outcome = search_file(file, &start.rel, &regex, max + 1, &mut vec![0u8; BLOCK]);
            absorb(&mut result, outcome, max);
            return Ok(result);
        }
        let prefix_len = if start.rel == "." {
            0
        } else {
            start.rel.len() + 1
        };
        let walk = walk::walk(
            root,
            &start,
            WalkOptions {
                recursive: true,
                max_depth: limits.max_recursion_depth as usize,
                respect_ignore: true,
            },
        )?;
        let keep = |rel: &str| match (&matcher, options.glob.as_deref()) {
            (Some(m), Some(p)) => glob_matches(m, p, &rel[prefix_len..]),
            _ => true,
        };
        let (ignored, unreadable) = pipeline(walk, keep, &regex, max, &mut result)?;
        result.ignored = ignored;
        result.files_skipped += unreadable;
        Ok(result)
    }
}

/// Walks on one thread, searches on the others, and absorbs outcomes here in walk order, so
/// the answer is the same whatever the scheduling. Files travel in batches, so threads hand
/// work over a few hundred times rather than once per file. Stops everything once truncated.
fn pipeline(
    mut walk: walk::Walk,
    keep: impl Fn(&str) -> bool + Send,
    regex: &Regex,
    max: usize,
    result: &mut GrepResult,
) -> Result<(u64, u64)> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let stop = AtomicBool::new(false);
    let (files_tx, files_rx) = mpsc::sync_channel::<(usize, Vec<Entry>)>(4 * workers);
    let (out_tx, out_rx) = mpsc::channel::<(usize, Vec<FileOutcome>)>();
    let files_rx = Mutex::new(files_rx);
    std::thread::scope(|scope| {
        let stop = &stop;
        let walker = scope.spawn(move || -> Result<(u64, u64)> {
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
            Ok((walk.ignored, walk.unreadable.len() as u64))
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
                            Ok(file) => search_file(file, &entry.rel, regex, max + 1, &mut buf),
                            Err(_) => FileOutcome {
                                matches: Vec::new(),
                                skipped: true,
                            },
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
    for m in outcome.matches {
        if result.matches.len() == max {
            result.truncated = true;
            return;
        }
        result.matches.push(m);
    }
}

/// Searches one file block by block, whole lines at a time; stops after `wanted` matches.
/// `buf` is the worker's reusable block buffer (at least `BLOCK` bytes).
fn search_file(
    mut file: std::fs::File,
    rel: &str,
    regex: &Regex,
    wanted: usize,
    buf: &mut Vec<u8>,
) -> FileOutcome {
    let mut outcome = FileOutcome {
        matches: Vec::new(),
        skipped: false,
    };
    let mut line_no: u64 = 1;
    // buf[..filled] holds bytes read but not yet searched (an unterminated tail).
    let mut filled = 0;
    let mut first = true;
    loop {
        if buf.len() - filled < BLOCK / 2 {
            if buf.len() >= MAX_LINE_BYTES {
                outcome.skipped = true;
                return outcome;
            }
            let grown = buf.len() * 2;
            buf.resize(grown, 0);
        }
        let n = match file.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => {
                outcome.skipped = true;
                return outcome;
            }
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
            if buf[..n].starts_with(b"\xEF\xBB\xBF") {
                skip_bom = 3;
            }
        }
        if skip_bom > 0 {
            buf.copy_within(skip_bom..n, 0);
        }
        filled += n - skip_bom;
        // Search the whole lines; keep the unterminated tail for the next read.
        let end = if eof {
            filled
        } else {
            match memchr::memrchr(b'\n', &buf[..filled]) {
                Some(i) => i + 1,
                None => continue,
            }
        };
        line_no = search_lines(
            &buf[..end],
            line_no,
            rel,
            regex,
            wanted,
            &mut outcome.matches,
        );
        if eof || outcome.matches.len() >= wanted {
            return outcome;
        }
        buf.copy_within(end..filled, 0);
        filled -= end;
    }
}

/// Finds matching lines in `region` (whole lines, starting at line `line_no`); returns the
/// line number after the region. A match must lie within one line, and lines end where
/// `read` says they do (`\n`, `\r\n` or a lone `\r`), so a reported line number can be passed
/// straight to `read --from-line`.
fn search_lines(
    region: &[u8],
    line_no: u64,
    rel: &str,
    regex: &Regex,
    wanted: usize,
    out: &mut Vec<GrepMatch>,
) -> u64 {
    if memchr::memchr(b'\r', region).is_some() {
        return search_lines_with_cr(region, line_no, rel, regex, wanted, out);
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
        let line_start = memchr::memrchr(b'\n', &region[..m.start()]).map_or(0, |i| i + 1);
        let line_end =
            memchr::memchr(b'\n', &region[line_start..]).map_or(region.len(), |i| line_start + i);
        line_no += memchr::memchr_iter(b'\n', &region[counted_to..line_start]).count() as u64;
        counted_to = line_start;
        let line = &region[line_start..line_end];
        if let Some(found) = regex.find(line) {
            out.push(matched_line(rel, line_no, line, found.start()));
        }
        at = line_end + 1;
    }
    line_no + memchr::memchr_iter(b'\n', &region[counted_to..]).count() as u64
}

/// The general path: split at every terminator and try each line.
fn search_lines_with_cr(
    region: &[u8],
    mut line_no: u64,
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
            && let Some(found) = regex.find(line)
        {
            out.push(matched_line(rel, line_no, line, found.start()));
        }
        line_no += 1;
        start = next;
    }
    line_no
}

/// A result for `line` (without terminator) whose first match starts at byte `at`.
fn matched_line(rel: &str, line_no: u64, line: &[u8], at: usize) -> GrepMatch {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    let column = String::from_utf8_lossy(&line[..at.min(line.len())])
        .chars()
        .count() as u64
        + 1;
    let text_truncated = text.chars().count() > MAX_LINE_CHARS;
    GrepMatch {
        path: rel.to_owned(),
        line: line_no,
        column,
        text: if text_truncated {
            text.chars().take(MAX_LINE_CHARS).collect()
        } else {
            text.into_owned()
        },
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
        let end = search_lines(text, 1, "f", &regex, 100, &mut out);
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
    fn long_lines_are_cut() {
        let mut text = "x".repeat(2000);
        text.push('\n');
        let regex = Regex::new("x").unwrap();
        let mut out = Vec::new();
        search_lines(text.as_bytes(), 1, "f", &regex, 10, &mut out);
        assert!(out[0].text_truncated);
        assert_eq!(out[0].text.chars().count(), MAX_LINE_CHARS);
    }
}
