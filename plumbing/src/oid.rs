//! Object ids: `sha256:` followed by the 64 lowercase hex digits of the SHA-256 of a blob's
//! exact bytes, so `sha256sum FILE` prints the same digits.

use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::fmt;
use std::io::{self, Read};

const PREFIX: &str = "sha256:";

/// The SHA-256 of a blob's exact bytes, which names it in the object store and the journal.
/// Displayed, serialized and parsed as `sha256:` and 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId([u8; 32]);

impl ObjectId {
    /// Parses `sha256:<64 hex>`. Upper-case hex is accepted and normalised.
    pub fn parse(text: &str) -> Result<ObjectId> {
        let bad = || {
            Error::invalid(format!(
                "not an object id: expected sha256: and 64 hex digits, got {:?}",
                truncate(text, 80)
            ))
        };
        let hex = text.strip_prefix(PREFIX).ok_or_else(bad)?;
        if hex.len() != 64 {
            return Err(bad());
        }
        let mut bytes = [0u8; 32];
        for (i, pair) in hex.as_bytes().chunks(2).enumerate() {
            let hi = hex_value(pair[0]).ok_or_else(bad)?;
            let lo = hex_value(pair[1]).ok_or_else(bad)?;
            bytes[i] = hi << 4 | lo;
        }
        Ok(ObjectId(bytes))
    }

    /// The id of these bytes.
    pub fn of(bytes: &[u8]) -> ObjectId {
        ObjectId(Sha256::digest(bytes).into())
    }

    /// Hashes a stream to its end, returning the id and the number of bytes read.
    pub fn of_reader(mut reader: impl Read) -> io::Result<(ObjectId, u64)> {
        // The buffer starts small and doubles while reads fill it: hashing a small file (as
        // every write does to check the file it replaces) zeroed 256 KiB, 32 of a write's
        // page faults, and a large one still reads in 256 KiB pieces after a few reads.
        const MAX_BUF: usize = 256 * 1024;
        let mut hasher = Hasher::default();
        let mut buf = vec![0u8; 8 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            hasher.update(&buf[..n]);
            if n == buf.len() && buf.len() < MAX_BUF {
                buf.resize(buf.len() * 2, 0);
            }
        }
        Ok(hasher.finish())
    }

    /// The 64 hex digits without the `sha256:` prefix.
    pub fn hex(&self) -> String {
        let mut out = String::with_capacity(64);
        for b in self.0 {
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
        out
    }
}

/// An incremental hasher that also counts bytes.
#[derive(Default)]
pub struct Hasher {
    inner: Sha256,
    len: u64,
}

impl Hasher {
    /// Adds the next bytes of the blob.
    pub fn update(&mut self, bytes: &[u8]) {
        self.inner.update(bytes);
        self.len += bytes.len() as u64;
    }

    /// The id of every byte added, and how many there were.
    pub fn finish(self) -> (ObjectId, u64) {
        (ObjectId(self.inner.finalize().into()), self.len)
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PREFIX}{}", self.hex())
    }
}

/// Serialized as its text form, `sha256:` and 64 hex digits.
impl serde::Serialize for ObjectId {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl schemars::JsonSchema for ObjectId {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ObjectId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

impl fmt::Debug for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_of_empty_input_is_the_well_known_sha256() {
        assert_eq!(
            ObjectId::of(b"").to_string(),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn parse_round_trips_and_normalises_case() {
        let id = ObjectId::of(b"hello\n");
        assert_eq!(ObjectId::parse(&id.to_string()).unwrap(), id);
        let upper = format!("sha256:{}", id.hex().to_uppercase());
        assert_eq!(ObjectId::parse(&upper).unwrap(), id);
    }

    #[test]
    fn parse_rejects_malformed_ids() {
        for bad in [
            "",
            "sha256:",
            "sha1:abcd",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85",
            "sha256:g3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ] {
            assert!(ObjectId::parse(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn streaming_hash_matches_one_shot_hash() {
        let data: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
        let (id, len) = ObjectId::of_reader(&data[..]).unwrap();
        assert_eq!(id, ObjectId::of(&data));
        assert_eq!(len, data.len() as u64);
    }
}
