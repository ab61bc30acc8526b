//! Reading the journal's records from JSON, as `journal-begin` accepts them.

use super::Item;
use crate::error::{Error, Result};
use crate::oid::ObjectId;
use crate::resolve::Kind;
use serde_json::Value;

impl Item {
    /// Reads an item from its JSON form (as `journal-begin` accepts it).
    pub fn from_json(value: &Value) -> Result<Item> {
        let obj = value
            .as_object()
            .ok_or_else(|| Error::invalid("an item must be a JSON object"))?;
        const KNOWN: &[&str] = &[
            "path",
            "change",
            "kind",
            "before_exists",
            "after_exists",
            "before_hash",
            "after_hash",
            "before_mode",
            "after_mode",
            "history_skipped",
        ];
        if let Some(unknown) = obj.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(Error::invalid(format!("unknown item field {unknown:?}")));
        }
        let text = |key: &str| -> Result<Option<String>> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(Error::invalid(format!("item field {key} must be a string"))),
            }
        };
        let flag = |key: &str| -> Result<Option<bool>> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Bool(b)) => Ok(Some(*b)),
                Some(_) => Err(Error::invalid(format!(
                    "item field {key} must be true or false"
                ))),
            }
        };
        let mode = |key: &str| -> Result<Option<u32>> {
            match obj.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_u64()
                    .and_then(|m| u32::try_from(m).ok())
                    .filter(|m| *m <= 0o7777)
                    .map(Some)
                    .ok_or_else(|| {
                        Error::invalid(format!(
                            "item field {key} must be a permission mode such as 420 (0o644)"
                        ))
                    }),
            }
        };
        let path = text("path")?.ok_or_else(|| Error::invalid("an item needs a path"))?;
        let before_hash = text("before_hash")?
            .map(|h| ObjectId::parse(&h))
            .transpose()?;
        let after_hash = text("after_hash")?
            .map(|h| ObjectId::parse(&h))
            .transpose()?;
        let before_exists = flag("before_exists")?.unwrap_or(before_hash.is_some());
        let after_exists = flag("after_exists")?.unwrap_or(after_hash.is_some());
        let change = match text("change")? {
            Some(c) => c,
            None => match (before_exists, after_exists) {
                (false, true) => "created",
                (true, false) => "deleted",
                _ => "modified",
            }
            .to_owned(),
        };
        let kind = match text("kind")?.as_deref() {
            None | Some("file") => Kind::File,
            Some("directory") => Kind::Directory,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "item kind must be file or directory, not {other:?}"
                )));
            }
        };
        Ok(Item {
            path,
            change,
            kind,
            before_exists,
            after_exists,
            before_hash,
            after_hash,
            before_mode: mode("before_mode")?,
            after_mode: mode("after_mode")?,
            history_skipped: flag("history_skipped")?.unwrap_or(false),
        })
    }
}
