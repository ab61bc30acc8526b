//! What the server does with one line of stdin before the protocol handler sees it.
//!
//! The MCP stdio transport is one JSON-RPC message per line. A line that is not UTF-8, or not
//! JSON at all, would otherwise vanish or end the session; the specification asks for a parse
//! error instead, so the server answers it itself and reads on. A line longer than the server
//! can hold is answered the same way after it has been skipped.
//!
//! The envelope is checked here too, because rmcp answers what it cannot decode with the wrong
//! code or without the request's id: a message that is not a JSON-RPC 2.0 request,
//! notification or response is -32600 (Invalid Request) with its id when the id is readable,
//! and a `tools/call` or `initialize` whose params do not have the shape the method takes is
//! -32602 (Invalid params), not -32601 (Method not found); so is any other request that rmcp
//! cannot decode once its envelope is right (params of another shape than its method takes,
//! a `_meta` that is not an object). `t/fuzz`'s `mcp_request` target
//! compiles this file unchanged, so the fuzzer decodes lines exactly as the server does.

use filekeeper::plumbing::strict_json::{ParseError, parse_unique};
use rmcp::model::ClientJsonRpcMessage;
use serde_json::{Map, Value};

/// What to do with one line.
#[derive(Debug)]
pub enum Line {
    /// Hand this message, decoded as the protocol handler takes it, to the handler; the
    /// [`Awaited`] says what it does to the set of requests waiting for an answer.
    Request(Box<ClientJsonRpcMessage>, Awaited),
    /// Answer with this JSON-RPC error and read on.
    Reply(String),
    /// Nothing to do: the line is blank, or a notification or response the protocol handler
    /// could not decode (neither gets an answer).
    Blank,
}

/// What a message passed to the protocol handler means for the requests awaiting an answer.
/// An id is held as its JSON text (`1`, `"a"`), the form the handler's answer carries it in.
#[derive(Debug, PartialEq)]
pub enum Awaited {
    /// A request: the handler owes an answer to this id.
    Answer(String),
    /// `notifications/cancelled`: the handler drops its answer to this id, if still owed.
    Cancel(String),
    /// Neither: a notification or a response, which get no answer.
    Nothing,
}

impl Awaited {
    fn of(message: &Value) -> Awaited {
        let id_text = |id: &Value| serde_json::to_string(id).unwrap_or_default();
        let id = message.get("id").filter(|id| !id.is_null());
        match (message.get("method").and_then(Value::as_str), id) {
            (Some(_), Some(id)) => Awaited::Answer(id_text(id)),
            (Some("notifications/cancelled"), None) => message
                .pointer("/params/requestId")
                .map_or(Awaited::Nothing, |id| Awaited::Cancel(id_text(id))),
            _ => Awaited::Nothing,
        }
    }
}

/// Classifies one whole line, newline included or not.
pub fn classify(bytes: &[u8]) -> Line {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Line::Reply(error(-32700, "parse error: the line is not valid UTF-8"));
    };
    let line = text.trim_end_matches(['\n', '\r']);
    if line.trim().is_empty() {
        return Line::Blank;
    }
    // Parsed into a `Value`, not skipped over: skipping accepts what the protocol handler
    // then cannot decode (a lone surrogate escape, a number out of f64's range) and would
    // drop without an answer. A name given twice in one object is refused, not read as the
    // last: `"dry_run": true, "dry_run": false` cannot say which was meant.
    let message = match parse_unique(line) {
        Ok(message) => message,
        Err(ParseError::Syntax(e)) => return unparsed(line, &e),
        Err(ParseError::Repeated { at, name }) => return repeated(line, &at, &name),
    };
    if let Some((id, code, message)) = envelope_problem(&message) {
        return Line::Reply(reply(id, code, &message));
    }
    // A well-formed envelope that the protocol handler still cannot decode has params (or a
    // `_meta`) of the wrong shape for its method. rmcp would answer it -32600 with no id at
    // all; the answer is -32602 with the request's id, and nothing for a notification or a
    // response, which get no answer.
    let Ok(decoded) = serde_json::from_str::<ClientJsonRpcMessage>(line) else {
        let id = message.get("id").filter(|id| !id.is_null());
        return match (message.get("method"), id) {
            (Some(_), Some(id)) => Line::Reply(reply(
                id.clone(),
                -32602,
                "invalid params: the params do not have the shape this method takes",
            )),
            _ => Line::Blank,
        };
    };
    Line::Request(Box::new(decoded), Awaited::of(&message))
}

/// The answer to a line that does not parse. JSON whose only fault is a lone surrogate
/// escape (`"\ud800"`, which no UTF-8 string can hold) in a request is answered with the
/// request's id, -32602: the client can match the answer to the call and see what was wrong.
/// Anything else is -32700 with a null id, as JSON-RPC has it.
fn unparsed(line: &str, why: &serde_json::Error) -> Line {
    let not_json = || Line::Reply(error(-32700, "parse error: the line is not JSON"));
    let Some(mended) = without_lone_surrogates(line) else {
        let beyond = why.to_string().starts_with("number out of range");
        return beyond
            .then(|| beyond_f64(line))
            .flatten()
            .unwrap_or_else(not_json);
    };
    // Only a request has an id to answer with, and only one whose id is the client's (not
    // one that held the surrogate). Everything else about it is judged as for any other
    // line: a name given twice, an envelope that is wrong anyway.
    let message = match parse_unique(&mended) {
        Ok(message) => message,
        Err(ParseError::Syntax(_)) => return not_json(),
        Err(ParseError::Repeated { at, name }) => return repeated(&mended, &at, &name),
    };
    let id = message.get("id").filter(|id| !id.is_null());
    let mended_id = id.is_some_and(|id| id.as_str().is_some_and(|id| id.contains('\u{fffd}')));
    let (Some(_), Some(id), false) = (message.get("method"), id, mended_id) else {
        return not_json();
    };
    if let Some((id, code, message)) = envelope_problem(&message) {
        return Line::Reply(reply(id, code, &message));
    }
    Line::Reply(reply(
        id.clone(),
        -32602,
        "invalid params: a string holds a lone surrogate escape (\\ud800 to \\udfff not in a pair), which no UTF-8 text can hold; send text as UTF-8, and bytes where a tool takes them as base64",
    ))
}

/// The answer to a request that is JSON but holds a number beyond a 64-bit float (`1e400`),
/// which the grammar allows and no argument can take: -32602 with the request's id, so the
/// client can tell which call it was. Read without the numbers' values (serde skips what it
/// ignores without converting it); `None` when the line is not that.
fn beyond_f64(line: &str) -> Option<Line> {
    #[derive(serde::Deserialize)]
    struct Head {
        id: Option<Value>,
        method: Option<serde::de::IgnoredAny>,
    }
    let head: Head = serde_json::from_str(line).ok()?;
    let id = head.id.filter(|id| !id.is_null())?;
    head.method?;
    Some(Line::Reply(reply(
        id,
        -32602,
        "invalid params: a number is beyond what a 64-bit float holds (such as 1e400); no argument takes one",
    )))
}

/// `line` with each lone surrogate escape replaced by `\ufffd`, or `None` when it has none.
fn without_lone_surrogates(line: &str) -> Option<String> {
    let unit = |at: usize| {
        line.get(at..at + 6)
            .filter(|e| e.starts_with("\\u"))
            .and_then(|e| u16::from_str_radix(&e[2..], 16).ok())
    };
    let (mut out, mut copied, mut found) = (String::with_capacity(line.len()), 0, false);
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(u) = unit(i) else {
            i += 2; // another escape: the backslash and what it escapes
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&u)
            && unit(i + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            i += 12;
        } else if (0xD800..0xE000).contains(&u) {
            out.push_str(&line[copied..i]);
            out.push_str("\\ufffd");
            (copied, found) = (i + 6, true);
            i += 6;
        } else {
            i += 6;
        }
    }
    found.then(|| out + &line[copied..])
}

/// The answer to a message with an object that names `name` twice (the object at the JSON
/// pointer `at`): -32602 within the params (a tool's arguments included), -32600 in the
/// envelope, with the request's id. What would be answered otherwise is answered first: a
/// line that is not JSON at all (-32700), an envelope that is wrong anyway (a batch, say).
/// A notification or a response gets no answer, as ever.
fn repeated(line: &str, at: &str, name: &str) -> Line {
    let Ok(message) = serde_json::from_str::<Value>(line) else {
        return Line::Reply(error(-32700, "parse error: the line is not JSON"));
    };
    if let Some((id, code, message)) = envelope_problem(&message) {
        return Line::Reply(reply(id, code, &message));
    }
    let Some(id) = message.get("id").filter(|id| !id.is_null()) else {
        return Line::Blank;
    };
    if message.get("method").is_none() {
        return Line::Blank;
    }
    let (code, what) = if at == "/params" || at.starts_with("/params/") {
        (-32602, "invalid params")
    } else {
        (-32600, "invalid request")
    };
    let object = match at {
        "" => "the message".to_owned(),
        "/params/arguments" => "the tool's arguments".to_owned(),
        _ => format!("the object at {at}"),
    };
    Line::Reply(reply(
        id.clone(),
        code,
        &format!("{what}: {object} names {name:?} twice; send each name once"),
    ))
}

/// What is wrong with a message's JSON-RPC envelope, as (the id to answer with, code,
/// message); None when it is a well-formed request, notification or response.
fn envelope_problem(message: &Value) -> Option<(Value, i64, String)> {
    let invalid =
        |id: &Value, what: &str| Some((id.clone(), -32600, format!("invalid request: {what}")));
    let Some(object) = message.as_object() else {
        return invalid(
            &Value::Null,
            "a message must be one JSON object (batches are not supported)",
        );
    };
    let id = match object.get("id") {
        None | Some(Value::Null) => Value::Null,
        Some(id @ Value::String(_)) => id.clone(),
        // A fractional id (`1.0`) comes back from the protocol handler as another number,
        // and the answer owed to it would never be seen as given.
        Some(id @ Value::Number(n)) if n.is_i64() || n.is_u64() => id.clone(),
        Some(_) => return invalid(&Value::Null, "an id must be a string or an integer"),
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(&id, "jsonrpc must be \"2.0\"");
    }
    let method = match object.get("method") {
        Some(Value::String(method)) => method,
        Some(_) => return invalid(&id, "method must be a string"),
        // A response to something the server asked: the protocol handler's business.
        None if object.contains_key("result") || object.contains_key("error") => return None,
        None => return invalid(&id, "a request needs a method"),
    };
    // `"params": null` is what some clients send for "no params"; rmcp takes it so.
    let params = object.get("params").filter(|p| !p.is_null());
    if params.is_some_and(|p| !p.is_object() && !p.is_array()) {
        return invalid(&id, "params must be an object or an array");
    }
    let shape = match method.as_str() {
        "tools/call" => tools_call_problem(params),
        "initialize" => initialize_problem(params),
        _ => None,
    };
    shape.map(|what| (id, -32602, format!("invalid params: {what}")))
}

/// `tools/call` takes `{"name": string, "arguments"?: object}`.
fn tools_call_problem(params: Option<&Value>) -> Option<&'static str> {
    let Some(params) = params.and_then(Value::as_object) else {
        return Some("tools/call takes an object with the tool's name and arguments");
    };
    if !params.get("name").is_some_and(Value::is_string) {
        return Some("name must be the tool's name, a string");
    }
    match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => None,
        Some(_) => Some("arguments must be an object"),
    }
}

/// `initialize` takes a protocolVersion string, a capabilities object, and clientInfo with a
/// name and a version.
fn initialize_problem(params: Option<&Value>) -> Option<&'static str> {
    let Some(params) = params.and_then(Value::as_object) else {
        return Some("initialize takes an object");
    };
    let string = |m: &Map<String, Value>, key: &str| m.get(key).is_some_and(Value::is_string);
    if !string(params, "protocolVersion") {
        return Some("protocolVersion must be a string");
    }
    if !params.get("capabilities").is_some_and(Value::is_object) {
        return Some("capabilities must be an object");
    }
    match params.get("clientInfo").and_then(Value::as_object) {
        Some(info) if string(info, "name") && string(info, "version") => None,
        _ => Some("clientInfo must be an object with a name and a version"),
    }
}

/// The answer to a line longer than `max_line` bytes, which was skipped unread.
pub fn too_long(max_line: usize) -> String {
    error(
        -32600,
        &format!("invalid request: the line is longer than {max_line} bytes"),
    )
}

/// A JSON-RPC error for a message whose id could not be read.
fn error(code: i64, message: &str) -> String {
    reply(Value::Null, code, message)
}

fn reply(id: Value, code: i64, message: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message}
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(line: &str) -> Box<ClientJsonRpcMessage> {
        Box::new(serde_json::from_str(line).unwrap())
    }

    /// rmcp's messages have no equality; a passed-on message compares by its encoding.
    impl PartialEq for Line {
        fn eq(&self, other: &Line) -> bool {
            match (self, other) {
                (Line::Request(a, x), Line::Request(b, y)) => {
                    serde_json::to_value(a).unwrap() == serde_json::to_value(b).unwrap() && x == y
                }
                (Line::Reply(a), Line::Reply(b)) => a == b,
                (Line::Blank, Line::Blank) => true,
                _ => false,
            }
        }
    }

    #[test]
    fn a_json_line_is_a_request_without_its_line_ending() {
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        let expected = Line::Request(decoded(line), Awaited::Answer("1".to_owned()));
        assert_eq!(classify(format!("{line}\r\n").as_bytes()), expected);
        assert_eq!(classify(format!("{line}\n").as_bytes()), expected);
    }

    #[test]
    fn blank_lines_are_skipped() {
        assert_eq!(classify(b"\n"), Line::Blank);
        assert_eq!(classify(b"  \t\r\n"), Line::Blank);
    }

    #[test]
    fn garbage_gets_a_parse_error_with_a_null_id() {
        for bad in [
            &b"{\"a\":\n"[..],
            b"hello\n",
            b"\xff\xfe{}\n",
            b"{\"a\":\"\\ud800\"}\n",
            b"{\"id\":1,\"a\":\"\\ud800\"\n",
            b"{\"a\":1e400}\n",
            b"{\"id\":1e400,\"method\":\"tools/call\"}\n",
        ] {
            let Line::Reply(reply) = classify(bad) else {
                panic!("{bad:?} was not answered");
            };
            let reply: serde_json::Value = serde_json::from_str(&reply).unwrap();
            assert_eq!(reply["error"]["code"], -32700, "{bad:?}");
            assert!(reply["id"].is_null());
        }
    }

    #[test]
    fn a_lone_surrogate_escape_is_answered_with_the_requests_id() {
        let call = |text: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"file_write","arguments":{{"path":"a","content":"{text}"}}}}}}"#
            )
        };
        for text in [r"a\ud800b", r"\udc00", r"\ud800\ud800", r"x\\\udfff"] {
            let reply = answer(&call(text));
            assert_eq!(reply["id"], 7, "{text}");
            assert_eq!(reply["error"]["code"], -32602, "{text}");
            assert!(
                reply["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("lone surrogate"),
                "{reply}"
            );
        }
        // A pair is one character, and an escaped backslash before `u` no escape at all.
        assert!(without_lone_surrogates(r#""\ud83d\ude00""#).is_none());
        assert!(without_lone_surrogates(r#""\\ud800""#).is_none());
        // A wrong envelope is answered as such, and an id that held the surrogate is none
        // the client sent.
        let bad = r#"{"jsonrpc":"1.0","id":3,"method":"tools/call","params":{"a":"\ud800"}}"#;
        assert_eq!(answer(bad)["error"]["code"], -32600);
        let bad = r#"{"jsonrpc":"2.0","id":"\ud800","method":"tools/call","params":{}}"#;
        assert_eq!(answer(bad)["error"]["code"], -32700);
        assert!(answer(bad)["id"].is_null());
        // Without a request's id there is none to answer with: a parse error, as before.
        let note = r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\ud800"}}"#;
        assert_eq!(answer(note)["error"]["code"], -32700);
    }

    #[test]
    fn a_number_beyond_a_float_is_answered_with_the_requests_id() {
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"file_read","arguments":{"path":"a","from_line":1e400}}}"#;
        let reply = answer(call);
        assert_eq!(reply["error"]["code"], -32602);
        assert_eq!(reply["id"], 7);
        // In the id itself, or in a notification: none to answer with.
        let bad = r#"{"jsonrpc":"2.0","id":1e400,"method":"tools/call","params":{}}"#;
        assert_eq!(answer(bad)["error"]["code"], -32700);
        let note = r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"a":1e400}}"#;
        assert_eq!(answer(note)["error"]["code"], -32700);
    }

    fn answer(line: &str) -> Value {
        let Line::Reply(reply) = classify(line.as_bytes()) else {
            panic!("{line} was passed on");
        };
        serde_json::from_str(&reply).unwrap()
    }

    #[test]
    fn well_formed_messages_pass_to_the_handler() {
        let answer = |id: &str| Awaited::Answer(id.to_owned());
        for (line, awaited) in [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"file_read","arguments":{"path":"a"}}}"#,
                answer("1"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"workspace_info"}}"#,
                answer(r#""x""#),
            ),
            (
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
                answer("2"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":null}"#,
                answer("4"),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":null}"#,
                Awaited::Nothing,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                Awaited::Nothing,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\u0061"}}"#,
                Awaited::Cancel(r#""a""#.to_owned()),
            ),
            (r#"{"jsonrpc":"2.0","id":3,"result":{}}"#, Awaited::Nothing),
            (
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
                answer("0"),
            ),
        ] {
            assert_eq!(
                classify(line.as_bytes()),
                Line::Request(decoded(line), awaited),
                "{line}"
            );
        }
    }

    #[test]
    fn an_invalid_envelope_is_an_invalid_request_with_its_id_when_readable() {
        for (line, id) in [
            (
                r#"{"jsonrpc":"1.0","id":7,"method":"tools/list"}"#,
                Value::from(7),
            ),
            (r#"{"id":"a","method":"tools/list"}"#, Value::from("a")),
            (r#"{"jsonrpc":"2.0","id":8,"method":5}"#, Value::from(8)),
            (r#"{"jsonrpc":"2.0","id":9}"#, Value::from(9)),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"x"}"#,
                Value::from(10),
            ),
            ("[]", Value::Null),
            ("42", Value::Null),
            (r#""tools/list""#, Value::Null),
        ] {
            let reply = answer(line);
            assert_eq!(reply["error"]["code"], -32600, "{line}");
            assert_eq!(reply["id"], id, "{line}");
        }
    }

    #[test]
    fn malformed_tools_call_and_initialize_params_are_invalid_params() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":[]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":true}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"x","capabilities":[],"clientInfo":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":[]}}"#,
        ] {
            let reply = answer(line);
            assert_eq!(reply["error"]["code"], -32602, "{line}");
            assert_eq!(reply["id"], 1, "{line}");
        }
    }

    #[test]
    fn a_name_given_twice_is_refused_never_read_as_the_last() {
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"file_delete","arguments":{"path":"a","dry_run":true,"dry_run":false}}}"#,
                -32602,
                r#"invalid params: the tool's arguments names "dry_run" twice; send each name once"#,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"file_read","name":"file_delete","arguments":{}}}"#,
                -32602,
                r#"invalid params: the object at /params names "name" twice; send each name once"#,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}"#,
                -32600,
                r#"invalid request: the message names "method" twice; send each name once"#,
            ),
        ];
        for (line, code, message) in cases {
            let reply = answer(line);
            assert_eq!(reply["error"]["code"], code, "{line}");
            assert_eq!(reply["error"]["message"], message, "{line}");
            assert_eq!(reply["id"], 1, "{line}");
        }
        // A notification or a response gets no answer, repeated names or not; a line that
        // is not JSON after the repetition is still a parse error.
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{"a":1,"a":2}}"#,
            r#"{"jsonrpc":"2.0","method":"a","method":"b"}"#,
            r#"{"jsonrpc":"2.0","id":77,"result":{"a":1,"a":2}}"#,
        ] {
            assert_eq!(classify(line.as_bytes()), Line::Blank, "{line}");
        }
        let reply = answer(r#"{"jsonrpc":"2.0","id":1,"a":1,"a":2,"#);
        assert_eq!(reply["error"]["code"], -32700);
        // A fractional id is an invalid request: the answer would carry another number.
        let reply = answer(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#);
        assert_eq!(reply["error"]["code"], -32600);
    }

    #[test]
    fn an_undecodable_notification_or_response_gets_no_answer() {
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":5}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":5}"#,
        ] {
            assert_eq!(classify(line.as_bytes()), Line::Blank, "{line}");
        }
    }

    #[test]
    fn an_overlong_line_is_an_invalid_request_naming_the_limit() {
        let reply: serde_json::Value = serde_json::from_str(&too_long(10)).unwrap();
        assert_eq!(reply["error"]["code"], -32600);
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("10 bytes")
        );
    }
}
