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
//! `position` is the path's UTF-8 bytes for list and search, the line (8 bytes, big-endian)
//! then the path for grep, and the sequence number (8 bytes, big-endian) for history. The tag
//! is the first 16 bytes of the HMAC over everything before it.

use crate::{Code, Error, Result, Workspace};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use filekeeper_plumbing::cursor_key::KeyPlace;
use filekeeper_plumbing::{Argument, words};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

const VERSION: u8 = 1;
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
    /// A matching line (grep, which returns one result per line).
    Line { path: String, line: u64 },
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
    /// it is truncated; only the way on is missing.
    pub(crate) fn issue_cursor(&self, query: &Query, position: &Position) -> Option<String> {
        let (place, key) = self.inner.cursor_signing_key().ok()?;
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
            Position::Line { path, line } => {
                bytes.extend_from_slice(&line.to_be_bytes());
                bytes.extend_from_slice(path.as_bytes());
            }
            Position::Seq(seq) => bytes.extend_from_slice(&seq.to_be_bytes()),
        }
        let mut mac = mac(&key);
        mac.update(&bytes);
        bytes.extend_from_slice(&mac.finalize().into_bytes()[..TAG_BYTES]);
        Some(URL_SAFE_NO_PAD.encode(bytes))
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
            Family::Grep => Position::Line {
                line: u64::from_be_bytes(number(rest)?),
                path: text(&rest[8..])?,
            },
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
            },
            Position::Line {
                path: String::new(),
                line: u64::MAX,
            },
        ] {
            let token = ws.issue_cursor(&query, &position).unwrap();
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
        let token = ws.issue_cursor(&query, &Position::Seq(7)).unwrap();
        assert_eq!(
            ws.open_cursor(&query, Some(&token)).unwrap(),
            Some(Position::Seq(7))
        );
        assert_eq!(ws.open_cursor(&query, None).unwrap(), None);
    }

    #[test]
    fn every_changed_byte_and_every_cut_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path(), "a");
        let query = Query::new(Family::List, &[b"."]);
        let token = ws
            .issue_cursor(&query, &Position::Path("docs/x.md".into()))
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
        let token = a.issue_cursor(&query, &Position::Path("x".into())).unwrap();
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
        let token_b = b.issue_cursor(&query, &Position::Path("x".into())).unwrap();
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
