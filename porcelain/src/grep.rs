//! Finding content: `grep`. Literal by default, a regular expression on request; one result
//! per matching line, in walk order, using every core.

use crate::listing::{bound, glob, glob_matches};
use crate::text::BINARY_SNIFF_BYTES;
use crate::{Code, Error, Result, Workspace};
use filekeeper_plumbing::resolve::{Intent, Kind};
use filekeeper_plumbing::walk::{self, Entry, EntryKind, WalkOptions};
use regex::bytes::{Regex, RegexBuilder};
use serde::Serialize;
use std::io::Read;

/// A matching line's text is cut to this many characters.
const MAX_LINE_CHARS: usize = 500;
/// Files are read in blocks of this size; only whole lines are searched.
const BLOCK: usize = 256 * 1024;
/// A line longer than this ends the search of its file (counted as skipped).
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Files handed to the worker threads at a time; results stay in walk order.
const BATCH: usize = 256;

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
#[derive(Clone, Debug, Serialize)]
pub struct GrepMatch {
    pub path: String,
    /// 1-based line number.
    pub line: u64,
    /// 1-based column, in characters, of the first match on the line.
    pub column: u64,
    /// The line without its terminator, cut to 500 characters.
    pub text: String,
    pub text_truncated: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct GrepResult {
    pub path: String,
    pub query: String,
    pub matches: Vec<GrepMatch>,
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
            "max_results",
        )? as usize;
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
            .build()
            .map_err(|e| {
                Error::new(
                    Code::InvalidPattern,
                    format!("invalid regular expression: {}", last_line(&e.to_string())),
                )
                .with("pattern", query)
            })?;
        let matcher = options.glob.as_deref().map(glob).transpose()?;
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
            let outcome = search_file(file, &start.rel, &regex, max + 1);
            absorb(&mut result, outcome, max);
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
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8);
        let mut batch: Vec<Entry> = Vec::with_capacity(BATCH);
        loop {
            batch.clear();
            for entry in walk.by_ref() {
                let entry = entry?;
                if entry.kind != EntryKind::File {
                    continue;
                }
                if let (Some(m), Some(p)) = (&matcher, options.glob.as_deref()) {
                    if !glob_matches(m, p, &entry.rel[prefix_len..]) {
                        continue;
                    }
                }
                batch.push(entry);
                if batch.len() == BATCH {
                    break;
                }
            }
            if batch.is_empty() {
                break;
            }
            let wanted = max + 1 - result.matches.len().min(max + 1);
            for outcome in search_batch(&batch, &regex, wanted, threads) {
                absorb(&mut result, outcome, max);
                if result.truncated {
                    break;
                }
            }
            if result.truncated {
                break;
            }
        }
        result.ignored = walk.ignored;
        result.files_skipped += walk.unreadable.len() as u64;
        Ok(result)
    }
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

/// Searches a batch on `threads` threads, returning outcomes in the batch's order.
fn search_batch(batch: &[Entry], regex: &Regex, wanted: usize, threads: usize) -> Vec<FileOutcome> {
    let one = |entry: &Entry| match entry.open() {
        Ok(file) => search_file(file, &entry.rel, regex, wanted),
        Err(_) => FileOutcome {
            matches: Vec::new(),
            skipped: true,
        },
    };
    if threads == 1 || batch.len() < 2 {
        return batch.iter().map(one).collect();
    }
    let chunk = batch.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = batch
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Searches one file block by block, whole lines at a time; stops after `wanted` matches.
fn search_file(mut file: std::fs::File, rel: &str, regex: &Regex, wanted: usize) -> FileOutcome {
    let mut outcome = FileOutcome {
        matches: Vec::new(),
        skipped: false,
    };
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK);
    let mut line_no: u64 = 1;
    let mut first = true;
    let mut eof = false;
    while !eof {
        let start = buf.len();
        buf.resize(start + BLOCK, 0);
        let n = loop {
            match file.read(&mut buf[start..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    outcome.skipped = true;
                    return outcome;
                }
            }
        };
        buf.truncate(start + n);
        eof = n == 0;
        if first {
            first = false;
            if buf[..buf.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
                outcome.skipped = true;
                return outcome;
            }
        }
        // Search the whole lines; keep the unterminated tail for the next block.
        let end = if eof {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf) {
                Some(i) => i + 1,
                None if buf.len() > MAX_LINE_BYTES => {
                    outcome.skipped = true;
                    return outcome;
                }
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
        if outcome.matches.len() >= wanted {
            return outcome;
        }
        buf.drain(..end);
    }
    outcome
}

/// Finds matching lines in `region` (whole lines, starting at line `line_no`); returns the
/// line number after the region.
fn search_lines(
    region: &[u8],
    mut line_no: u64,
    rel: &str,
    regex: &Regex,
    wanted: usize,
    out: &mut Vec<GrepMatch>,
) -> u64 {
    let mut counted_to = 0;
    let mut at = 0;
    while at < region.len() && out.len() < wanted {
        let Some(m) = regex.find_at(region, at) else {
            break;
        };
        let line_start = memchr::memrchr(b'\n', &region[..m.start()]).map_or(0, |i| i + 1);
        let line_end =
            memchr::memchr(b'\n', &region[m.start()..]).map_or(region.len(), |i| m.start() + i);
        line_no += memchr::memchr_iter(b'\n', &region[counted_to..line_start]).count() as u64;
        counted_to = line_start;
        let mut line = &region[line_start..line_end];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        let text = String::from_utf8_lossy(line);
        let column = String::from_utf8_lossy(&region[line_start..m.start()])
            .chars()
            .count() as u64
            + 1;
        let text_truncated = text.chars().count() > MAX_LINE_CHARS;
        out.push(GrepMatch {
            path: rel.to_owned(),
            line: line_no,
            column,
            text: if text_truncated {
                text.chars().take(MAX_LINE_CHARS).collect()
            } else {
                text.into_owned()
            },
            text_truncated,
        });
        // One result per line: continue after this line. An empty match must still advance.
        at = (line_end + 1).max(m.end()).max(at + 1);
    }
    line_no + memchr::memchr_iter(b'\n', &region[counted_to..]).count() as u64
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
