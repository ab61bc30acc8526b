//! Tool arguments: the JSON Schema `tools/list` shows, generated from a tool's argument struct,
//! and the strict reading of a call's arguments against it.
//!
//! A call's arguments are checked against the schema before serde sees them, so that every
//! refusal is INVALID_ARGUMENT naming the argument, in the words below: an unknown name, a
//! missing required argument, a wrong JSON type, a word outside a choice. Null is the same as
//! leaving an argument out. What passes the check deserializes.

use filekeeper::{Error, Result};
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The input schema of the tool whose arguments are `T`: an object of exactly the declared
/// properties, in declaration order.
///
/// Each property says what `tools/list` has always said of an argument: its JSON type (for an
/// array, of strings), its description, and for a choice its words. The integer formats and
/// bounds, the defaults and the null alternative of an optional argument that schemars adds
/// are left out; the descriptions state the defaults, and [`parse`] checks the rest.
pub fn schema<T: JsonSchema>() -> JsonObject {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    let generated = settings.into_generator().into_root_schema_for::<T>();
    let properties: JsonObject = generated
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, property)| (name.clone(), argument(property)))
        .collect();
    let required = generated
        .get("required")
        .cloned()
        .unwrap_or_else(|| json!([]));
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), required);
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

/// One property as generated, reduced to its type, description, choices and items (null,
/// which an optional argument's type and choices gain, is never listed).
fn argument(generated: &Value) -> Value {
    let mut out = JsonObject::new();
    let kind = match &generated["type"] {
        Value::Array(kinds) => kinds.iter().find(|k| *k != "null").cloned(),
        kind => Some(kind.clone()),
    };
    out.insert("type".into(), kind.unwrap_or(Value::Null));
    if let Some(description) = generated.get("description") {
        out.insert("description".into(), description.clone());
    }
    if let Some(Value::Array(choices)) = generated.get("enum") {
        let words: Vec<Value> = choices.iter().filter(|c| !c.is_null()).cloned().collect();
        out.insert("enum".into(), Value::Array(words));
    }
    if out["type"] == "array" {
        out.insert("items".into(), json!({"type": "string"}));
    }
    Value::Object(out)
}

/// Reads a call's arguments as `T`, refusing names `schema` does not declare and values of the
/// wrong type, each as INVALID_ARGUMENT naming the argument. Arguments are checked in the
/// order the tool declares them, after the names.
pub fn parse<T: DeserializeOwned>(schema: &JsonObject, given: Option<JsonObject>) -> Result<T> {
    let empty = JsonObject::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut given = given.unwrap_or_default();
    if let Some(unknown) = given.keys().find(|k| !properties.contains_key(*k)) {
        return Err(refused(format!("unknown argument {unknown:?}"), unknown));
    }
    given.retain(|_, value| !value.is_null());
    let required = |name: &str| {
        schema["required"]
            .as_array()
            .is_some_and(|required| required.iter().any(|r| r == name))
    };
    for (name, property) in properties {
        match given.get_mut(name) {
            None if required(name) => {
                return Err(refused(format!("argument {name} is required"), name));
            }
            None => {}
            Some(value) => check(name, property, value)?,
        }
    }
    serde_json::from_value(Value::Object(given))
        .map_err(|e| Error::invalid(e.to_string()).recovery(ARGUMENTS_RECOVERY))
}

/// Where a caller finds what a tool takes: the recovery of every refused argument, as the
/// command line's usage errors point to `keeper help`.
const ARGUMENTS_RECOVERY: &str =
    "the tool's inputSchema, in tools/list, names its arguments and the type of each";

/// INVALID_ARGUMENT about the argument `name`.
fn refused(message: String, name: &str) -> Error {
    Error::invalid(message)
        .with("argument", name)
        .recovery(ARGUMENTS_RECOVERY)
}

/// Whether `value` is of the type `property` declares. A whole number written with a
/// fraction (`2.0`) is the integer it equals, as JSON Schema's `integer` says (a client's
/// JSON encoder may write any number that way); it is rewritten as that integer.
fn check(name: &str, property: &Value, value: &mut Value) -> Result<()> {
    let wrong = |what: &str| Err(refused(format!("argument {name} must be {what}"), name));
    match property["type"].as_str() {
        Some("string") => {
            let Some(word) = value.as_str() else {
                return wrong("a string");
            };
            if let Some(choices) = property.get("enum").and_then(Value::as_array)
                && !choices.iter().any(|choice| choice == word)
            {
                return Err(refused(
                    format!("{name} must be {}, not {word:?}", alternatives(choices)),
                    name,
                ));
            }
            Ok(())
        }
        Some("integer") if value.as_u64().is_none() => match whole(value) {
            Some(n) => {
                *value = Value::from(n);
                Ok(())
            }
            None => wrong("a non-negative integer"),
        },
        Some("boolean") if !value.is_boolean() => wrong("true or false"),
        Some("array")
            if !value
                .as_array()
                .is_some_and(|v| v.iter().all(Value::is_string)) =>
        {
            wrong("an array of strings")
        }
        _ => Ok(()),
    }
}

/// A non-negative whole number written as a float, below 2^53. From 2^53 on, a float has
/// no fraction to show: `9007199254740993.5` is read as `9007199254740994`, another integer
/// than the one written, so such a number is refused rather than taken for one.
fn whole(value: &Value) -> Option<u64> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    let float = value.as_f64()?;
    (float.fract() == 0.0 && (0.0..EXACT).contains(&float)).then_some(float as u64)
}

/// `"a", "b" or "c"`.
fn alternatives(choices: &[Value]) -> String {
    let words: Vec<String> = choices.iter().map(Value::to_string).collect();
    match words.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::JsonSchema;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(rename_all = "lowercase")]
    #[schemars(inline)]
    enum Side {
        Left,
        Right,
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    struct Example {
        /// A name.
        name: String,
        /// How many.
        count: Option<u64>,
        /// Whether.
        #[serde(default)]
        flag: bool,
        /// Which.
        side: Option<Side>,
        /// Some paths.
        paths: Option<Vec<String>>,
    }

    fn parse_example(arguments: Value) -> Result<Example> {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object")
        };
        parse(&schema::<Example>(), Some(arguments))
    }

    fn refusal(arguments: Value) -> (String, Value) {
        let err = parse_example(arguments).unwrap_err();
        assert_eq!(err.code, filekeeper::Code::InvalidArgument);
        // Every refusal says where the arguments are described, as the command line's usage
        // errors do (before 2026-12-05 none did).
        assert_eq!(err.details["recovery"], ARGUMENTS_RECOVERY);
        (err.message, err.details["argument"].clone())
    }

    #[test]
    fn the_schema_is_what_tools_list_has_always_shown() {
        assert_eq!(
            Value::Object(schema::<Example>()),
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "A name."},
                    "count": {"type": "integer", "description": "How many."},
                    "flag": {"type": "boolean", "description": "Whether."},
                    "side": {"type": "string", "description": "Which.", "enum": ["left", "right"]},
                    "paths": {"type": "array", "description": "Some paths.", "items": {"type": "string"}},
                },
                "required": ["name"],
                "additionalProperties": false,
            })
        );
    }

    #[test]
    fn null_is_an_argument_left_out() {
        let parsed = parse_example(json!({"name": "n", "count": null, "flag": null})).unwrap();
        assert_eq!(
            parsed,
            Example {
                name: "n".into(),
                count: None,
                flag: false,
                side: None,
                paths: None
            }
        );
    }

    #[test]
    fn a_whole_number_written_with_a_fraction_is_that_integer() {
        for (given, count) in [
            (json!(2.0), 2),
            (json!(0.0), 0),
            (json!(-0.0), 0),
            (json!(9_007_199_254_740_991.0), 9_007_199_254_740_991),
        ] {
            let parsed = parse_example(json!({"name": "n", "count": given})).unwrap();
            assert_eq!(parsed.count, Some(count), "{given}");
        }
        for given in [
            json!(2.5),
            json!(-1.0),
            json!(-0.5),
            json!(9_007_199_254_740_992.0),
            json!(1e19),
        ] {
            let (message, argument) = refusal(json!({"name": "n", "count": given}));
            assert_eq!(message, "argument count must be a non-negative integer");
            assert_eq!(argument, "count");
        }
    }

    #[test]
    fn each_refusal_names_its_argument() {
        let cases = [
            (
                json!({"name": "n", "other": 1}),
                "unknown argument \"other\"",
                "other",
            ),
            (json!({"name": null}), "argument name is required", "name"),
            (json!({"name": 5}), "argument name must be a string", "name"),
            (
                json!({"name": "n", "count": -1}),
                "argument count must be a non-negative integer",
                "count",
            ),
            (
                json!({"name": "n", "flag": "yes"}),
                "argument flag must be true or false",
                "flag",
            ),
            (
                json!({"name": "n", "paths": ["a", 1]}),
                "argument paths must be an array of strings",
                "paths",
            ),
            (
                json!({"name": "n", "side": "up"}),
                "side must be \"left\" or \"right\", not \"up\"",
                "side",
            ),
        ];
        for (arguments, message, argument) in cases {
            assert_eq!(refusal(arguments), (message.to_owned(), json!(argument)));
        }
    }
}
