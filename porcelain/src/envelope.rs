//! The response envelope every surface uses: one JSON object whose first field is `ok`.

use crate::Error;
use serde_json::{Map, Value};

/// A success document: `ok: true`, then the result's fields, flat.
pub fn success_document(fields: Map<String, Value>) -> Value {
    let mut doc = Map::new();
    doc.insert("ok".into(), Value::Bool(true));
    doc.extend(fields);
    Value::Object(doc)
}

/// The fields of a result: `workspace` (the name, or null for a `--root` workspace) first,
/// then the serialized result's own fields.
pub fn result_fields(workspace: Option<&str>, value: impl serde::Serialize) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("workspace".into(), workspace.into());
    if let Ok(Value::Object(map)) = serde_json::to_value(value) {
        out.extend(map);
    }
    out
}

/// A failure document: exactly `ok` and `error`, and `error` exactly `code`, `message`,
/// `retryable` and `details`.
pub fn error_document(err: &Error) -> Value {
    let mut error = Map::new();
    error.insert("code".into(), err.code.as_str().into());
    error.insert("message".into(), err.message.clone().into());
    error.insert("retryable".into(), err.retryable.into());
    error.insert("details".into(), Value::Object(err.details.clone()));
    let mut doc = Map::new();
    doc.insert("ok".into(), Value::Bool(false));
    doc.insert("error".into(), Value::Object(error));
    Value::Object(doc)
}
