//! Reading a JSON object strictly: a name the reader does not know is refused rather than
//! ignored, so a misspelt field is an error instead of a silent default, and a field of the
//! wrong type is an INVALID_ARGUMENT that says which field and what it must be.
//!
//! `journal-begin`'s operations and items and the MCP server's tool arguments are read this
//! way, so they refuse the same mistakes in the same words.
//!
//! [`parse_unique`] reads the text itself, refusing an object that names a field twice. A
//! plain parse keeps the last of the two, so `{"expected_hash": "sha256:…",
//! "expected_hash": null}` would drop its guard, and `{"dry_run": true, "dry_run": false}`
//! would change files, both answering ok: which of two values a caller meant cannot be known.

use crate::error::{Error, Result};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// Why a text is not a JSON value with unique names.
#[derive(Debug)]
pub enum ParseError {
    /// Not JSON at all (or trailing text after the value).
    Syntax(serde_json::Error),
    /// An object names a field twice.
    Repeated {
        /// The object's JSON pointer (RFC 6901), empty for the outermost value.
        at: String,
        /// The name it gives twice.
        name: String,
    },
}

/// Parses `text` as one JSON value, as `serde_json::from_str::<Value>` does, except that an
/// object naming a field twice is [`ParseError::Repeated`] instead of keeping the last.
pub fn parse_unique(text: &str) -> std::result::Result<Value, ParseError> {
    let path = RefCell::new(Vec::new());
    let repeated = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = Unique {
        path: &path,
        repeated: &repeated,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value));
    match (parsed, repeated.into_inner()) {
        (Ok(value), _) => Ok(value),
        (Err(_), Some((at, name))) => Err(ParseError::Repeated { at, name }),
        (Err(e), None) => Err(ParseError::Syntax(e)),
    }
}

/// Builds a [`Value`] like serde_json's own visitor, keeping the path it is at so that a
/// repeated name can be reported where it is.
#[derive(Clone, Copy)]
struct Unique<'s> {
    path: &'s RefCell<Vec<String>>,
    repeated: &'s RefCell<Option<(String, String)>>,
}

impl Unique<'_> {
    /// The JSON pointer of the value being read.
    fn pointer(&self) -> String {
        self.path
            .borrow()
            .iter()
            .map(|step| format!("/{}", step.replace('~', "~0").replace('/', "~1")))
            .collect()
    }

    /// Reads the next value with `read`, one step (`step`) further down.
    fn below<T, E>(
        &self,
        step: String,
        read: impl FnOnce(Self) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        self.path.borrow_mut().push(step);
        let out = read(*self);
        self.path.borrow_mut().pop();
        out
    }
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(value) = self.below(out.len().to_string(), |s| seq.next_element_seed(s))? {
            out.push(value);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(name) = map.next_key::<String>()? {
            if out.contains_key(&name) {
                *self.repeated.borrow_mut() = Some((self.pointer(), name));
                return Err(de::Error::custom("a name repeated in an object"));
            }
            let value = self.below(name.clone(), |s| map.next_value_seed(s))?;
            out.insert(name, value);
        }
        Ok(Value::Object(out))
    }
}

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
    fn parse_unique_reads_what_serde_json_reads() {
        for text in [
            r#"{"a": [1, -2, 3.5, 1e2, "x", null, true, {"b": {}}], "c": {"d": [[]]}}"#,
            "  7 ",
            r#""\u00e9""#,
            "[]",
            r#"{"a": 18446744073709551615, "b": -9223372036854775808}"#,
        ] {
            assert_eq!(
                parse_unique(text).unwrap(),
                serde_json::from_str::<Value>(text).unwrap(),
                "{text}"
            );
        }
        for text in ["", "{", r#"{"a": 1} x"#, "[1,]", r#""\ud800""#, "1e400"] {
            assert!(
                matches!(parse_unique(text), Err(ParseError::Syntax(_))),
                "{text}"
            );
        }
    }

    #[test]
    fn parse_unique_names_a_repeated_name_and_where_its_object_is() {
        let repeated = |text: &str| match parse_unique(text) {
            Err(ParseError::Repeated { at, name }) => (at, name),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(repeated(r#"{"a": 1, "a": 1}"#), (String::new(), "a".into()));
        assert_eq!(
            repeated(r#"{"params": {"arguments": {"dry_run": true, "dry_run": false}}}"#),
            ("/params/arguments".into(), "dry_run".into())
        );
        assert_eq!(
            repeated(r#"{"x": [0, {"a/b~": {"k": 1, "k": 2}}]}"#),
            ("/x/1/a~1b~0".into(), "k".into())
        );
        // The same name in two objects is no repetition.
        assert!(parse_unique(r#"{"a": {"k": 1}, "b": {"k": 1}, "k": 0}"#).is_ok());
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
