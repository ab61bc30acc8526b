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
