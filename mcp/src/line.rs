//! What the server does with one line of stdin before the protocol handler sees it.
//!
//! The MCP stdio transport is one JSON-RPC message per line. A line that is not UTF-8, or not
//! JSON at all, would otherwise vanish or end the session; the specification asks for a parse
//! error instead, so the server answers it itself and reads on. A line longer than the server
//! can hold is answered the same way after it has been skipped. `t/fuzz`'s `mcp_request`
//! target compiles this file unchanged, so the fuzzer decodes lines exactly as the server does.

/// What to do with one line.
#[derive(Debug, PartialEq)]
pub enum Line<'a> {
    /// Hand this (trimmed of its line ending) to the protocol handler.
    Request(&'a str),
    /// Answer with this JSON-RPC error and read on.
    Reply(String),
    /// Nothing to do: the line is blank.
    Blank,
}

/// Classifies one whole line, newline included or not.
pub fn classify(bytes: &[u8]) -> Line<'_> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Line::Reply(error(-32700, "parse error: the line is not valid UTF-8"));
    };
    let line = text.trim_end_matches(['\n', '\r']);
    if line.trim().is_empty() {
        return Line::Blank;
    }
    // Parsed into a `Value`, not skipped over: skipping accepts what the protocol handler
    // then cannot decode (a lone surrogate escape, a number out of f64's range) and would
    // drop without an answer.
    if serde_json::from_str::<serde_json::Value>(line).is_err() {
        return Line::Reply(error(-32700, "parse error: the line is not JSON"));
    }
    Line::Request(line)
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
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message}
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_line_is_a_request_without_its_line_ending() {
        assert_eq!(classify(b"{\"a\":1}\r\n"), Line::Request("{\"a\":1}"));
        assert_eq!(classify(b"[1,2]"), Line::Request("[1,2]"));
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
            b"{\"a\":1e400}\n",
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
