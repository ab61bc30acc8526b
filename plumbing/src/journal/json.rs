//! Reading the journal's records from JSON, as `journal-begin` accepts them.

use super::{Item, NewOperation};
use crate::error::{Error, Result};
use crate::oid::ObjectId;
use crate::resolve::Kind;
use crate::strict_json::StrictObject;
use serde_json::Value;

impl NewOperation {
    /// Reads an operation to record from its JSON form (a `journal-begin` request). It is
    /// recorded as a script's: not under the lock, since a script's steps are separate
    /// processes and only the script can resolve its operation.
    pub fn from_json(spec: &Value) -> Result<NewOperation> {
        let obj = spec
            .as_object()
            .ok_or_else(|| Error::invalid("the operation must be a JSON object"))?;
        let obj = StrictObject::new(obj, "operation field").only(&[
            "kind",
            "summary",
            "target_path",
            "source_path",
            "metadata",
            "items",
            "undoes",
        ])?;
        let text =
            |key: &str| -> Result<Option<String>> { Ok(obj.string(key)?.map(str::to_owned)) };
        let metadata = obj.object("metadata")?.cloned().unwrap_or_default();
        let items = match obj.array("items")? {
            Some(items) => items.iter().map(Item::from_json).collect::<Result<_>>()?,
            None => Vec::new(),
        };
        Ok(NewOperation {
            kind: text("kind")?.ok_or_else(|| Error::invalid("an operation needs a kind"))?,
            summary: text("summary")?.unwrap_or_default(),
            target_path: text("target_path")?,
            source_path: text("source_path")?,
            undoes: text("undoes")?,
            metadata,
            items,
            actor: None,
            task_id: None,
            under_lock: false,
        })
    }
}

impl Item {
    /// Reads an item from its JSON form (as `journal-begin` accepts it).
    pub fn from_json(value: &Value) -> Result<Item> {
        let obj = value
            .as_object()
            .ok_or_else(|| Error::invalid("an item must be a JSON object"))?;
        let obj = StrictObject::new(obj, "item field").only(&[
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
        ])?;
        let hash = |key: &str| -> Result<Option<ObjectId>> {
            obj.string(key)?.map(ObjectId::parse).transpose()
        };
        let mode = |key: &str| -> Result<Option<u32>> {
            obj.get(key)
                .map(|v| {
                    v.as_u64()
                        .and_then(|m| u32::try_from(m).ok())
                        .filter(|m| *m <= 0o7777)
                        .ok_or_else(|| obj.wrong(key, "a permission mode such as 420 (0o644)"))
                })
                .transpose()
        };
        let path = obj
            .string("path")?
            .ok_or_else(|| Error::invalid("an item needs a path"))?
            .to_owned();
        let before_hash = hash("before_hash")?;
        let after_hash = hash("after_hash")?;
        let before_exists = obj.flag("before_exists")?.unwrap_or(before_hash.is_some());
        let after_exists = obj.flag("after_exists")?.unwrap_or(after_hash.is_some());
        let change = match obj.string("change")? {
            Some(c) => c,
            None => match (before_exists, after_exists) {
                (false, true) => "created",
                (true, false) => "deleted",
                _ => "modified",
            },
        }
        .to_owned();
        let kind = match obj.string("kind")? {
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
            history_skipped: obj.flag("history_skipped")?.unwrap_or(false),
        })
    }
}
