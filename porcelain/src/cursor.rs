//! Cursors: the opaque tokens with which a bounded `list`, `search`, `grep` or `history list`
//! continues where its previous page ended.
//!
//! A cursor holds the position of the last entry returned in the listing's stable order (a
//! path, a path and line, an operation's sequence number), never an offset, so entries added
//! or removed before it between two pages shift nothing. It also holds what it belongs to: the
//! workspace and a fingerprint of the query (the command and every argument that selects
//! entries; the page size is not one of them). The whole is signed with HMAC-SHA256 under the
//! workspace's cursor key (`plumbing::cursor_key`), so a cursor this workspace did not issue
//! for this query is INVALID_CURSOR rather than a page of something else.
//!
//! The token, before base64url (no padding):
//!
//! ```text
//! version (1) | family (1) | key place (1) | workspace (6) | query (8) | position | tag (16)
//! ```
//!
//! `position` is the path's UTF-8 bytes for list and search; for grep the line (8 bytes,
//! big-endian), then the first 8 bytes of the SHA-256 of the file's bytes up to the end of
//! that line, then the path; and the sequence number (8 bytes, big-endian) for history. The
//! tag is the first 16 bytes of the HMAC over everything before it.
//!
//! A grep cursor is a line number, and a line number means something only in the file as it
//! was: a line inserted or removed above it would make the next page repeat or skip a match.
//! So the cursor also holds a digest of everything up to its line, and a file whose first
//! lines changed since is INVALID_CURSOR (`changed`) instead of a page that is off by some
//! lines.

use crate::{Code, Error, Result, Workspace};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use filekeeper_plumbing::cursor_key::KeyPlace;
use filekeeper_plumbing::{Argument, words};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

const VERSION: u8 = 2;
const TAG_BYTES: usize = 16;
const HEADER_BYTES: usize = 1 + 1 + 1 + 6 + 8;
/// A token longer than this is refused before it is decoded: no position comes near it.
const MAX_TOKEN_CHARS: usize = 16 * 1024;

/// Which command a cursor continues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    List = 1,
    Search = 2,
    Grep = 3,
    History = 4,
}

impl Family {
    fn of(byte: u8) -> Option<Family> {
        Some(match byte {
            1 => Family::List,
            2 => Family::Search,
            3 => Family::Grep,
            4 => Family::History,
            _ => return None,
        })
    }
}

/// Where the previous page ended: the last entry it returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Position {
    /// A workspace-relative path (list, search).
    Path(String),
    /// A matching line (grep, which returns one result per line), with the digest of its
    /// file up to the end of that line ([`through_line`]).
    Line {
        path: String,
        line: u64,
        through: [u8; 8],
    },
    /// An operation's sequence number (history, newest first).
    Seq(i64),
}

/// A query as its cursors know it: the command and a fingerprint of its arguments.
pub(crate) struct Query {
    family: Family,
    fingerprint: [u8; 8],
}

impl Query {
    /// The query of `family` with these arguments, each given as bytes (an absent option as
    /// an empty slice next to a flag saying so, where absent and empty differ).
    pub(crate) fn new(family: Family, arguments: &[&[u8]]) -> Query {
        let mut hash = Sha256::new();
        hash.update([family as u8]);
        for argument in arguments {
            // Length-prefixed, so no two argument lists hash the same bytes.
            hash.update((argument.len() as u64).to_be_bytes());
            hash.update(argument);
        }
        let digest = hash.finalize();
        let mut fingerprint = [0u8; 8];
        fingerprint.copy_from_slice(&digest[..8]);
        Query {
            family,
            fingerprint,
        }
    }
}

/// An optional argument as bytes for [`Query::new`]: a marker byte, then its text.
pub(crate) fn optional(value: Option<&str>) -> Vec<u8> {
    match value {
        None => vec![0],
        Some(text) => [&[1u8][..], text.as_bytes()].concat(),
    }
}

fn workspace_tag(ws: &Workspace) -> [u8; 6] {
    use std::os::unix::ffi::OsStrExt;
    let digest = Sha256::digest(ws.inner.root.host_path().as_os_str().as_bytes());
    let mut tag = [0u8; 6];
    tag.copy_from_slice(&digest[..6]);
    tag
}

fn mac(key: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length; this cannot fail.
    <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC accepts every key length")
}

/// The first 8 bytes of the SHA-256 of `reader`'s bytes from the start through the end of
/// line `line` (1-based; a line ends after `\n`, after `\r\n`, or after a lone `\r`, as `read`
/// counts them, or at the end of the file); `None` when the file has fewer lines.
pub(crate) fn through_line(
    mut reader: impl std::io::Read,
    line: u64,
) -> std::io::Result<Option<[u8; 8]>> {
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut ended: u64 = 0;
    // A `\r` just seen: its line ends after it, with the `\n` that follows if one does.
    let mut pending_cr = false;
    // Bytes after the last line end: a last line without a terminator.
    let mut tail = false;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            if pending_cr || tail {
                ended += 1;
            }
            return Ok((ended == line).then(|| digest8(hash)));
        }
        for (i, &b) in buf[..n].iter().enumerate() {
            if pending_cr {
                pending_cr = false;
                if b != b'\n' {
                    // A lone `\r` ended its line before this byte.
                    ended += 1;
                    if ended == line {
                        hash.update(&buf[..i]);
                        return Ok(Some(digest8(hash)));
                    }
                }
            }
            match b {
                b'\n' => {
                    ended += 1;
                    tail = false;
                    if ended == line {
                        hash.update(&buf[..=i]);
                        return Ok(Some(digest8(hash)));
                    }
                }
                b'\r' => {
                    pending_cr = true;
                    tail = false;
                }
                _ => tail = true,
            }
        }
        hash.update(&buf[..n]);
    }
}

fn digest8(hash: Sha256) -> [u8; 8] {
    let mut out = [0u8; 8];
    out.copy_from_slice(&hash.finalize()[..8]);
    out
}

/// INVALID_CURSOR for a grep cursor whose file changed above its line since it was issued.
pub(crate) fn changed_above(path: &str) -> Error {
    refused(
        "changed",
        "stopped in a file whose lines up to the cursor's changed since, so its line number no longer names the same line",
    )
    .path(path)
}

fn refused(reason: &str, why: &str) -> Error {
    Error::worded(Code::InvalidCursor, words![format!("the cursor {why}")])
        .hint(words![
            "run the same query again without ",
            Argument::Cursor,
            " to start from its first page"
        ])
        .with("reason", reason)
}

impl Workspace {
    /// A cursor that continues `query` after `position`. `None` when no key can be kept (a
    /// home and a state directory that cannot be written): the page is still exact, and says
    /// it is truncated; only the way on is missing. A damaged key is STORAGE_ERROR.
    pub(crate) fn issue_cursor(
        &self,
        query: &Query,
        position: &Position,
    ) -> Result<Option<String>> {
        let Some((place, key)) = self.inner.cursor_signing_key()? else {
            return Ok(None);
        };
        let mut bytes = Vec::with_capacity(HEADER_BYTES + 64 + TAG_BYTES);
        bytes.push(VERSION);
        bytes.push(query.family as u8);
        bytes.push(match place {
            KeyPlace::State => 0,
            KeyPlace::Home => 1,
        });
        bytes.extend_from_slice(&workspace_tag(self));
        bytes.extend_from_slice(&query.fingerprint);
        match position {
            Position::Path(path) => bytes.extend_from_slice(path.as_bytes()),
            Position::Line {
                path,
                line,
                through,
            } => {
                bytes.extend_from_slice(&line.to_be_bytes());
                bytes.extend_from_slice(through);
                bytes.extend_from_slice(path.as_bytes());
            }
            Position::Seq(seq) => bytes.extend_from_slice(&seq.to_be_bytes()),
        }
        let mut mac = mac(&key);
        mac.update(&bytes);
        bytes.extend_from_slice(&mac.finalize().into_bytes()[..TAG_BYTES]);
        Ok(Some(URL_SAFE_NO_PAD.encode(bytes)))
    }

    /// The position a caller's cursor continues from, checked: issued by this workspace's
    /// key, for this workspace and this query. `None` without a cursor.
    pub(crate) fn open_cursor(
        &self,
        query: &Query,
        token: Option<&str>,
    ) -> Result<Option<Position>> {
        let Some(token) = token else {
            return Ok(None);
        };
        let malformed = || {
            refused(
                "malformed",
                "is not one that Filekeeper issued: it is cut short, garbled or from another version",
            )
        };
        if token.len() > MAX_TOKEN_CHARS {
            return Err(malformed());
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(token.trim())
            .map_err(|_| malformed())?;
        if bytes.len() < HEADER_BYTES + TAG_BYTES || bytes[0] != VERSION {
            return Err(malformed());
        }
        let (body, tag) = bytes.split_at(bytes.len() - TAG_BYTES);
        let place = match body[2] {
            0 => KeyPlace::State,
            1 => KeyPlace::Home,
            _ => return Err(malformed()),
        };
        let not_signed = || {
            refused(
                "signature",
                "was not signed by this workspace: it was changed, it comes from another workspace, or the key that signed it is gone",
            )
        };
        let key = self.inner.cursor_key(place)?.ok_or_else(not_signed)?;
        let mut mac = mac(&key);
        mac.update(body);
        mac.verify_truncated_left(tag).map_err(|_| not_signed())?;
        if body[3..9] != workspace_tag(self) {
            return Err(refused(
                "other_workspace",
                "was issued by another workspace",
            ));
        }
        let family = Family::of(body[1]).ok_or_else(malformed)?;
        if family != query.family || body[9..17] != query.fingerprint {
            return Err(refused(
                "other_query",
                "belongs to another query: another command, path, pattern or option",
            ));
        }
        let rest = &body[HEADER_BYTES..];
        let text = |bytes: &[u8]| String::from_utf8(bytes.to_vec()).map_err(|_| malformed());
        let number = |bytes: &[u8]| -> Result<[u8; 8]> {
            bytes
                .get(..8)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(malformed)
        };
        let position = match family {
            Family::List | Family::Search => Position::Path(text(rest)?),
            Family::Grep if rest.len() >= 16 => Position::Line {
                line: u64::from_be_bytes(number(rest)?),
                through: number(&rest[8..])?,
                path: text(&rest[16..])?,
            },
            Family::Grep => return Err(malformed()),
            Family::History if rest.len() == 8 => Position::Seq(i64::from_be_bytes(number(rest)?)),
            Family::History => return Err(malformed()),
        };
        Ok(Some(position))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Filekeeper;

    fn workspace(dir: &std::path::Path, name: &str) -> Workspace {
        let root = dir.join(name);
        std::fs::create_dir_all(&root).unwrap();
        Filekeeper::new(Some(&dir.join("home")))
            .unwrap()
            .workspace(None, Some(&root))
            .unwrap()
    }

    fn code_and_reason(err: Error) -> (Code, String) {
        (err.code, err.details["reason"].as_str().unwrap().to_owned())
    }

    #[test]
    fn a_cursor_comes_back_as_the_position_it_was_issued_for() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path(), "a");
        let query = Query::new(Family::Grep, &[b"src", b"needle"]);
        for position in [
            Position::Line {
                path: "src/é.rs".into(),
                line: 42,
                through: *b"\x00\x01\x02\x03\x04\x05\x06\xff",
            },
            Position::Line {
                path: String::new(),
                line: u64::MAX,
                through: [0; 8],
            },
        ] {
            let token = ws.issue_cursor(&query, &position).unwrap().unwrap();
            assert!(
                token
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            );
            assert_eq!(
                ws.open_cursor(&query, Some(&token)).unwrap(),
                Some(position)
            );
        }
        let query = Query::new(Family::History, &[]);
        let token = ws.issue_cursor(&query, &Position::Seq(7)).unwrap().unwrap();
        assert_eq!(
            ws.open_cursor(&query, Some(&token)).unwrap(),
            Some(Position::Seq(7))
        );
        assert_eq!(ws.open_cursor(&query, None).unwrap(), None);
    }

    #[test]
    fn through_line_digests_up_to_the_end_of_the_line_as_read_counts_lines() {
        let d = |text: &[u8]| {
            let mut out = [0u8; 8];
            out.copy_from_slice(&Sha256::digest(text)[..8]);
            out
        };
        let at = |text: &[u8], line| through_line(text, line).unwrap();
        let text = b"one\ntwo\r\nthree\rfour";
        assert_eq!(at(text, 1), Some(d(b"one\n")));
        assert_eq!(at(text, 2), Some(d(b"one\ntwo\r\n")));
        assert_eq!(at(text, 3), Some(d(b"one\ntwo\r\nthree\r")));
        assert_eq!(
            at(text, 4),
            Some(d(text)),
            "an unterminated last line ends the file"
        );
        assert_eq!(at(text, 5), None);
        assert_eq!(at(b"a\r", 1), Some(d(b"a\r")), "a lone CR at the end");
        assert_eq!(at(b"a\n", 2), None, "no line after the last newline");
        assert_eq!(at(b"", 1), None);
        // A CR at the end of one read and LF at the start of the next are one line end.
        let mut long = vec![b'x'; 64 * 1024 - 1];
        long.extend_from_slice(b"\r\nnext\n");
        assert_eq!(at(&long, 1), Some(d(&long[..64 * 1024 + 1])));
        assert_eq!(at(&long, 2), Some(d(&long)));
    }

    #[test]
    fn every_changed_byte_and_every_cut_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path(), "a");
        let query = Query::new(Family::List, &[b"."]);
        let token = ws
            .issue_cursor(&query, &Position::Path("docs/x.md".into()))
            .unwrap()
            .unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        for i in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[i] ^= 0x01;
            let err = ws
                .open_cursor(&query, Some(&URL_SAFE_NO_PAD.encode(&changed)))
                .unwrap_err();
            assert_eq!(err.code, Code::InvalidCursor, "byte {i}");
        }
        for cut in 0..token.len() {
            let err = ws.open_cursor(&query, Some(&token[..cut])).unwrap_err();
            assert_eq!(err.code, Code::InvalidCursor, "cut at {cut}");
        }
        let (_, reason) = code_and_reason(ws.open_cursor(&query, Some("%%%")).unwrap_err());
        assert_eq!(reason, "malformed");
    }

    #[test]
    fn another_query_or_workspace_is_refused_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (workspace(dir.path(), "a"), workspace(dir.path(), "b"));
        let query = Query::new(Family::List, &[b"."]);
        let token = a
            .issue_cursor(&query, &Position::Path("x".into()))
            .unwrap()
            .unwrap();
        let other = Query::new(Family::List, &[b"src"]);
        let search = Query::new(Family::Search, &[b"."]);
        for q in [&other, &search] {
            let err = a.open_cursor(q, Some(&token)).unwrap_err();
            assert_eq!(
                code_and_reason(err),
                (Code::InvalidCursor, "other_query".into())
            );
        }
        // Both sign with the home's key (neither has state): the workspace tag tells them apart.
        let err = b.open_cursor(&query, Some(&token)).unwrap_err();
        assert_eq!(
            code_and_reason(err),
            (Code::InvalidCursor, "other_workspace".into())
        );
        // With state of its own, b signs with its own key, and a's cursors fail its signature.
        b.inner.state(true).unwrap();
        let err = b.open_cursor(&query, Some(&token)).unwrap_err();
        assert_eq!(
            code_and_reason(err),
            (Code::InvalidCursor, "other_workspace".into())
        );
        let token_b = b
            .issue_cursor(&query, &Position::Path("x".into()))
            .unwrap()
            .unwrap();
        let err = a.open_cursor(&query, Some(&token_b)).unwrap_err();
        assert_eq!(
            code_and_reason(err),
            (Code::InvalidCursor, "signature".into())
        );
    }

    #[test]
    fn the_refusal_says_how_to_start_again() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path(), "a");
        let err = ws
            .open_cursor(&Query::new(Family::List, &[]), Some("AAAA"))
            .unwrap_err();
        assert!(!err.retryable);
        assert!(
            err.details["recovery"]
                .as_str()
                .unwrap()
                .contains("without cursor")
        );
    }
}
