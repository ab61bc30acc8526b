//! Reading a JSON object strictly: a name the reader does not know is refused rather than
//! ignored, so a misspelt field is an error instead of a silent default, and a field of the
//! wrong type is an INVALID_ARGUMENT that says which field and what it must be.
//!
//! `journal-begin`'s operations and items and the MCP server's tool arguments are read this
//! way, so they refuse the same mistakes in the same words.

use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// The fields of one JSON object, read strictly. A null field reads as an absent one.
#[derive(Clone, Copy, Debug)]
pub struct StrictObject<'a> {
    map: &'a Map<String, Value>,
    /// What a field is called in messages: `item field`, `operation field`, `argument`.
    noun: &'static str,
    /// The error detail that names the offending field, for readers that report one.
    detail: Option<&'static str>,
}

impl<'a> StrictObject<'a> {
    /// A reader of `map` whose messages call a field a `noun` ("unknown {noun} ...").
    pub fn new(map: &'a Map<String, Value>, noun: &'static str) -> Self {
        StrictObject {
            map,
            noun,
            detail: None,
        }
    }

    /// Also names the offending field in the error detail `detail` of every error.
    pub fn naming_in(self, detail: &'static str) -> Self {
        StrictObject {
            detail: Some(detail),
            ..self
        }
    }

    /// Refuses the object if it has a field not in `known`.
    pub fn only(self, known: &[&str]) -> Result<Self> {
        match self.map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(unknown) => Err(self.named(
                Error::invalid(format!("unknown {} {unknown:?}", self.noun)),
                unknown,
            )),
            None => Ok(self),
        }
    }

    /// The field's value; `None` when it is absent or null.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// A string field.
    pub fn string(&self, key: &str) -> Result<Option<&'a str>> {
        self.typed(key, "a string", Value::as_str)
    }

    /// A `true` or `false` field.
    pub fn flag(&self, key: &str) -> Result<Option<bool>> {
        self.typed(key, "true or false", Value::as_bool)
    }

    /// A non-negative integer field.
    pub fn u64(&self, key: &str) -> Result<Option<u64>> {
        self.typed(key, "a non-negative integer", Value::as_u64)
    }

    /// A field that is itself a JSON object.
    pub fn object(&self, key: &str) -> Result<Option<&'a Map<String, Value>>> {
        self.typed(key, "a JSON object", Value::as_object)
    }

    /// An array field.
    pub fn array(&self, key: &str) -> Result<Option<&'a Vec<Value>>> {
        self.typed(key, "an array", Value::as_array)
    }

    /// The error for a field that is there but is not `what` ("{noun} {key} must be {what}").
    pub fn wrong(&self, key: &str, what: &str) -> Error {
        self.named(
            Error::invalid(format!("{} {key} must be {what}", self.noun)),
            key,
        )
    }

    /// The error for a required field that is absent or null.
    pub fn missing(&self, key: &str) -> Error {
        self.named(
            Error::invalid(format!("{} {key} is required", self.noun)),
            key,
        )
    }

    fn typed<T>(
        &self,
        key: &str,
        what: &str,
        read: impl FnOnce(&'a Value) -> Option<T>,
    ) -> Result<Option<T>> {
        self.get(key)
            .map(|v| read(v).ok_or_else(|| self.wrong(key, what)))
            .transpose()
    }

    fn named(&self, err: Error, key: &str) -> Error {
        match self.detail {
            Some(detail) => err.with(detail, key),
            None => err,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn an_unknown_name_is_refused_and_named() {
        let m = map(json!({"path": "a", "pth": "b"}));
        let err = StrictObject::new(&m, "argument")
            .naming_in("argument")
            .only(&["path"])
            .unwrap_err();
        assert_eq!(err.code, Code::InvalidArgument);
        assert_eq!(err.message, r#"unknown argument "pth""#);
        assert_eq!(err.details["argument"], "pth");
    }

    #[test]
    fn null_reads_as_absent_and_a_wrong_type_says_what_it_must_be() {
        let m = map(json!({"a": null, "b": 7, "c": "x"}));
        let obj = StrictObject::new(&m, "item field")
            .only(&["a", "b", "c"])
            .unwrap();
        assert_eq!(obj.string("a").unwrap(), None);
        assert_eq!(obj.u64("b").unwrap(), Some(7));
        assert_eq!(obj.string("c").unwrap(), Some("x"));
        let err = obj.flag("b").unwrap_err();
        assert_eq!(err.message, "item field b must be true or false");
        assert!(err.details.is_empty());
    }
}
