//! The response envelope every surface uses: one JSON object whose first field is `ok`.
//!
//! The surfaces assemble a success as fields (`ok`, then `workspace` where there is one, then
//! the result's fields, flat); [`Success`] and [`Document`] are those shapes as types, which is
//! what the published schemas (`docs/schemas/`) are generated from. A failure is serialized
//! from [`Failure`] itself.

use crate::{Code, Error};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A boolean that is always `B`: the `ok` of a success (`true`) or a failure (`false`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Always<const B: bool>;

/// `ok` of a success.
pub type True = Always<true>;
/// `ok` of a failure.
pub type False = Always<false>;

impl<const B: bool> Serialize for Always<B> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bool(B)
    }
}

impl<const B: bool> JsonSchema for Always<B> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        if B { "True" } else { "False" }.into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "boolean", "const": B})
    }
}

/// A success document of a command that works in a workspace: `ok`, `workspace`, then the
/// result's own fields.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(rename = "{T}Success")]
pub struct Success<T> {
    /// Always true.
    pub ok: True,
    /// The workspace's registered name, or null for a workspace named by its root alone.
    pub workspace: Option<String>,
    /// The result, its fields flat after `workspace`.
    #[serde(flatten)]
    pub result: T,
}

/// A success document without a `workspace` field: `ok`, then the result's fields.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(rename = "{T}Document")]
pub struct Document<T> {
    /// Always true.
    pub ok: True,
    /// The result, its fields flat after `ok`.
    #[serde(flatten)]
    pub result: T,
}

/// A failure document: exactly `ok` and `error`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Failure {
    /// Always false.
    pub ok: False,
    /// What went wrong.
    pub error: ErrorBody,
}

/// What went wrong: exactly `code`, `message`, `retryable` and `details`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ErrorBody {
    /// The stable error code to branch on (`CONTENT_CONFLICT`, ...); docs/errors.md lists
    /// every one.
    pub code: Code,
    /// For people; not a contract. Never holds a host path.
    pub message: String,
    /// Whether the identical request could succeed if retried.
    pub retryable: bool,
    /// Structured facts about the failure (docs/errors.md lists each code's): `path` is the
    /// caller's own spelling, `recovery` says how to proceed when a changed request can
    /// succeed.
    pub details: Map<String, Value>,
}

impl From<&Error> for ErrorBody {
    fn from(err: &Error) -> ErrorBody {
        ErrorBody {
            code: err.code,
            message: err.message.clone(),
            retryable: err.retryable,
            details: err.details.clone(),
        }
    }
}

impl From<&Error> for Failure {
    fn from(err: &Error) -> Failure {
        Failure {
            ok: Always,
            error: err.into(),
        }
    }
}

/// The fields of `value` (a struct's, in declaration order).
pub fn fields_of(value: impl Serialize) -> Map<String, Value> {
    crate::plumbing::commands::fields_of(value)
}

/// A success document: `ok: true`, then the result's fields, flat.
pub fn success_document(fields: Map<String, Value>) -> Value {
    let mut doc = Map::new();
    doc.insert("ok".into(), Value::Bool(true));
    doc.extend(fields);
    Value::Object(doc)
}

/// The fields of a result: `workspace` (the name, or null for a workspace named by its root
/// alone) first, then the serialized result's own fields: with `ok` in front, a [`Success`].
pub fn result_fields(workspace: Option<&str>, value: impl serde::Serialize) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("workspace".into(), workspace.into());
    out.extend(fields_of(value));
    out
}

/// A failure document: exactly `ok` and `error`, and `error` exactly `code`, `message`,
/// `retryable` and `details`.
pub fn error_document(err: &Error) -> Value {
    serde_json::to_value(Failure::from(err)).unwrap_or_default()
}
