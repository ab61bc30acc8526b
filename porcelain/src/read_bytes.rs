//! `read-bytes`: a bounded range of any file's bytes, binary included, for looking at what a
//! text read refuses.

use crate::{Code, Error, ObjectId, Result, Workspace};
use base64::Engine;
use filekeeper_plumbing::{Argument, words};
use schemars::JsonSchema;
use serde::Serialize;
use std::io::{self, Read};

/// Options of [`Workspace::read_bytes`].
#[derive(Clone, Debug, Default)]
pub struct ReadBytesOptions {
    /// The first byte to return, 0-based (default 0).
    pub offset: Option<u64>,
    /// Most bytes to return (default and ceiling: `max_read_bytes`).
    pub length: Option<u64>,
}

/// A range of a file's bytes.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ByteRange {
    /// The path as given.
    pub path: String,
    /// The bytes returned, base64-encoded (RFC 4648, standard alphabet, with padding).
    pub content: String,
    /// The bytes returned, as they are (what a command line prints, and what Python gets).
    #[serde(skip)]
    pub raw: Vec<u8>,
    /// Where the returned bytes start in the file, 0-based.
    pub offset: u64,
    /// How many bytes were returned: fewer than asked only at the end of the file.
    pub length: u64,
    /// Size of the whole file in bytes.
    pub size_bytes: u64,
    /// Where the next range starts, when the file goes on after the bytes returned; null at
    /// the end of the file.
    pub next_offset: Option<u64>,
    /// The hash of the whole file (`sha256:` and 64 hex digits), from the same pass that read
    /// the returned bytes: ranges read with the same hash come from the same version.
    pub content_hash: String,
}

impl Workspace {
    /// Returns up to `length` bytes of `path` from `offset`, whatever the file holds. The
    /// whole file is read once, to hash it in the same pass that collects the range. An
    /// offset at the end of the file returns no bytes; one beyond it is INVALID_ARGUMENT,
    /// never clamped.
    pub fn read_bytes(&self, path: &str, options: &ReadBytesOptions) -> Result<ByteRange> {
        let length = bound(
            options.length,
            self.inner.limits.max_read_bytes,
            Argument::Length,
        )
        .map_err(|e| e.path(path))?;
        let offset = options.offset.unwrap_or(0);
        let file = self.open_to_read(path)?;
        let (raw, hash, size) = crate::read::read_steadily(&file, path, |f| {
            collect(f, offset, length).map_err(|e| Error::storage("reading file", &e))
        })?;
        if offset > size {
            return Err(Error::worded(
                Code::InvalidArgument,
                words![
                    Argument::Offset,
                    format!(" {offset} is beyond the end of the file, which has {size} bytes")
                ],
            )
            .path(path)
            .with("size_bytes", size));
        }
        let returned = raw.len() as u64;
        let end = offset + returned;
        Ok(ByteRange {
            path: path.to_owned(),
            content: base64::engine::general_purpose::STANDARD.encode(&raw),
            raw,
            offset,
            length: returned,
            size_bytes: size,
            next_offset: (end < size).then_some(end),
            content_hash: hash.to_string(),
        })
    }
}

/// A requested byte count checked against its ceiling: `None` is the ceiling, 0 is
/// INVALID_ARGUMENT and more than the ceiling is LIMIT_EXCEEDED (`max_read_bytes`).
pub(crate) fn bound(requested: Option<u64>, ceiling: u64, argument: Argument) -> Result<u64> {
    match requested {
        None => Ok(ceiling),
        Some(0) => Err(Error::worded(
            Code::InvalidArgument,
            words![argument, " must be at least 1"],
        )),
        Some(n) if n > ceiling => Err(Error::worded(
            Code::LimitExceeded,
            words![
                argument,
                format!(" {n} is above the configured max_read_bytes {ceiling}")
            ],
        )
        .with("limit", ceiling)
        .with("requested", n)),
        Some(n) => Ok(n),
    }
}

/// Reads `reader` to its end: the bytes in `[offset, offset + length)`, the hash of all of
/// them and their count.
fn collect(reader: impl Read, offset: u64, length: u64) -> io::Result<(Vec<u8>, ObjectId, u64)> {
    let mut out = Vec::new();
    let (hash, size) = ObjectId::of_reader(Tee {
        inner: reader,
        at: 0,
        offset,
        end: offset.saturating_add(length),
        out: &mut out,
    })?;
    Ok((out, hash, size))
}

/// A reader that copies the bytes from `offset` to `end` of what passes through it into
/// `out`, so that one pass both hashes the whole file and keeps the range.
struct Tee<'a, R> {
    inner: R,
    at: u64,
    offset: u64,
    end: u64,
    out: &'a mut Vec<u8>,
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let (lo, hi) = (self.at, self.at + n as u64);
        if hi > self.offset && lo < self.end {
            let from = self.offset.saturating_sub(lo) as usize;
            let to = (self.end.min(hi) - lo) as usize;
            self.out.extend_from_slice(&buf[from..to]);
        }
        self.at = hi;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_exactly_the_range_whatever_the_chunks() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        for (offset, length) in [
            (0, 1),
            (0, 200_000),
            (65_535, 2),
            (65_536, 65_536),
            (199_999, 10),
            (200_000, 5),
            (10, 300_000),
        ] {
            let (got, hash, size) = collect(&data[..], offset, length).unwrap();
            let lo = (offset as usize).min(data.len());
            let hi = (offset.saturating_add(length) as usize).min(data.len());
            assert_eq!(got, &data[lo..hi], "{offset} {length}");
            assert_eq!(size, 200_000);
            assert_eq!(hash, ObjectId::of(&data));
        }
    }

    #[test]
    fn a_count_is_bounded() {
        assert_eq!(bound(None, 10, Argument::Length).unwrap(), 10);
        assert_eq!(bound(Some(3), 10, Argument::Length).unwrap(), 3);
        assert_eq!(
            bound(Some(0), 10, Argument::Length).unwrap_err().code,
            Code::InvalidArgument
        );
        let over = bound(Some(11), 10, Argument::Length).unwrap_err();
        assert_eq!(over.code, Code::LimitExceeded);
        assert_eq!(over.details["limit"], 10);
        assert_eq!(over.details["requested"], 11);
    }
}
