//! A session with the real `filekeeper-mcp` binary over stdio, in raw JSON-RPC lines: the
//! helper the integration tests share. (Each test crate compiles it on its own and uses only
//! part of it.)
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

pub struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    /// Starts the server on `root` as a transient workspace, with its home in `home`, records
    /// `actor` on its mutations, and completes the initialize handshake.
    pub fn start(root: &Path, home: &Path, actor: &str) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_filekeeper-mcp"))
            .arg("--root")
            .arg(root)
            .args(["--actor", actor])
            .env("FILEKEEPER_HOME", home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut session = Session {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            next_id: 1,
        };
        let init = session.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": actor, "version": "1"}
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "filekeeper-mcp");
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    /// Writes one message as one line.
    pub fn send(&mut self, message: Value) {
        self.send_line(&message.to_string());
    }

    /// Writes `line` as it is, and a newline.
    pub fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns the response with its id, skipping anything else.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server closed stdout"
            );
            let message: Value = serde_json::from_str(&line).expect("stdout carries only JSON-RPC");
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Calls `tool` and returns the whole result (`structuredContent`, `content`, `isError`).
    pub fn call_result(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        response["result"].clone()
    }

    /// Calls `tool` and returns its structured result.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.call_result(tool, arguments)["structuredContent"].clone()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
