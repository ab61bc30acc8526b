//! `file diff`: the unified diff between two text files of the workspace.

use crate::read_bytes::bound;
use crate::{Code, Error, ObjectId, Result, Workspace};
use filekeeper_plumbing::Argument;
use schemars::JsonSchema;
use serde::Serialize;
use std::io::Read;
use std::time::{Duration, Instant};

/// The line diff gives up refining after this long; the diff is then coarser (a changed
/// region as one block) but still exact. Longer than a mutation's 100 ms, since here the
/// diff is the whole answer.
const DIFF_TIME: Duration = Duration::from_secs(1);

/// Options of [`Workspace::diff_files`].
#[derive(Clone, Debug, Default)]
pub struct DiffOptions {
    /// Most bytes of diff to return (default and ceiling: `max_read_bytes`).
    pub max_bytes: Option<u64>,
}

/// What `file diff` reports.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FileDiff {
    /// The first file, as given: the old side (`--- a/PATH`).
    pub path: String,
    /// The second file, as given: the new side (`+++ b/OTHER`).
    pub other: String,
    /// Whether the two files hold exactly the same bytes; then `diff` is empty.
    pub identical: bool,
    /// The unified diff from `path` to `other` (`--- a/PATH`, `+++ b/OTHER`, three lines of
    /// context), as a mutation's `diffs` write it; empty when the files are identical. When
    /// `truncated`, it ends at the last whole line within the bound.
    pub diff: String,
    /// Lines the diff adds, counted over the whole diff even when the text is truncated.
    pub lines_added: u64,
    /// Lines the diff removes, counted as `lines_added` is.
    pub lines_removed: u64,
    /// Whether `diff` was cut at `max_bytes`: it is then only the start of the diff.
    pub truncated: bool,
    /// The hash of `path` (`sha256:` and 64 hex digits), from the bytes diffed.
    pub path_hash: String,
    /// The hash of `other`, from the bytes diffed.
    pub other_hash: String,
}

impl Workspace {
    /// The unified diff from `path` to `other`, two UTF-8 text files of at most
    /// `max_read_bytes` each. A directory is NOT_A_FILE, binary or undecodable content
    /// BINARY_CONTENT_REFUSED. A diff longer than `max_bytes` is cut at a whole line and
    /// says `truncated`.
    pub fn diff_files(&self, path: &str, other: &str, options: &DiffOptions) -> Result<FileDiff> {
        let limit = self.inner.limits.max_read_bytes;
        let max_bytes =
            bound(options.max_bytes, limit, Argument::MaxBytes).map_err(|e| e.path(path))?;
        let old = self.diff_side(path, limit)?;
        let new = self.diff_side(other, limit)?;
        let (old_hash, new_hash) = (ObjectId::of(&old), ObjectId::of(&new));
        let (old_text, new_text) = (text(path, &old)?, text(other, &new)?);
        let identical = old_hash == new_hash;
        let (diff, added, removed, cut) = if identical {
            (String::new(), 0, 0, false)
        } else {
            let from = format!("a/{}", self.inner.root.relative(path)?);
            let to = format!("b/{}", self.inner.root.relative(other)?);
            let written = crate::diff::changes(
                &from,
                &to,
                old_text,
                new_text,
                3,
                Some(Instant::now() + DIFF_TIME),
                usize::try_from(max_bytes).unwrap_or(usize::MAX),
            );
            (written.text, written.added, written.removed, written.cut)
        };
        Ok(FileDiff {
            path: path.to_owned(),
            other: other.to_owned(),
            identical,
            diff,
            lines_added: added as u64,
            lines_removed: removed as u64,
            truncated: cut,
            path_hash: old_hash.to_string(),
            other_hash: new_hash.to_string(),
        })
    }

    /// The bytes of one side: a regular file of at most `limit` bytes.
    fn diff_side(&self, path: &str, limit: u64) -> Result<Vec<u8>> {
        let file = self.open_to_read(path)?;
        let size = file
            .metadata()
            .map_err(|e| Error::storage("inspecting file", &e))?
            .len();
        // One byte past the limit tells a file above it, even one that grew since it was
        // looked at.
        let bytes = crate::read::read_steadily(&file, path, |f| {
            let mut bytes = Vec::new();
            f.take(limit.saturating_add(1))
                .read_to_end(&mut bytes)
                .map_err(|e| Error::storage("reading file", &e))?;
            Ok(bytes)
        })?;
        let len = size.max(bytes.len() as u64);
        if len > limit {
            return Err(Error::new(
                Code::LimitExceeded,
                format!(
                    "the file is {len} bytes, above max_read_bytes {limit}, the most a diff reads of each file"
                ),
            )
            .path(path)
            .with("limit", limit)
            .with("requested", len));
        }
        Ok(bytes)
    }
}

/// A side's text, or BINARY_CONTENT_REFUSED naming it.
fn text<'a>(path: &str, bytes: &'a [u8]) -> Result<&'a str> {
    let refuse = |why: &str| {
        Error::new(
            Code::BinaryContentRefused,
            format!("refusing to diff: {why}"),
        )
        .path(path)
        .recovery("only UTF-8 text files are diffed; compare the two files' content hashes, or read their bytes")
    };
    if bytes.contains(&0) {
        return Err(refuse("the content is binary (it holds a NUL byte)"));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        refuse(&format!(
            "the content is not valid UTF-8 (byte {})",
            e.valid_up_to()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_and_undecodable_sides_are_refused_by_name() {
        assert_eq!(
            text("a", b"x\0y").unwrap_err().code,
            Code::BinaryContentRefused
        );
        let bad = text("b", b"ok\n\xff").unwrap_err();
        assert_eq!(bad.code, Code::BinaryContentRefused);
        assert_eq!(bad.details["path"], "b");
        assert_eq!(text("c", "é\n".as_bytes()).unwrap(), "é\n");
    }
}
