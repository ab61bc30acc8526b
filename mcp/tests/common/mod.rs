//! A session with the real `filekeeper-mcp` binary over stdio, in raw JSON-RPC lines: the
//! helper the integration tests share. (Each test crate compiles it on its own and uses only
//! part of it.)
#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

pub struct Session {
    child: Child,
    stdin: Box<dyn Write>,
    stdout: BufReader<Box<dyn Read>>,
    next_id: u64,
}

/// How the server's stdin and stdout are connected to the test.
#[derive(Clone, Copy, Debug)]
pub enum Wiring {
    /// Two pipes, as most clients do.
    Pipes,
    /// Stdin one end of a socket pair, stdout a pipe.
    Socket,
    /// Stdin and stdout both the same end of a socket pair, as some clients do.
    SharedSocket,
}

impl Session {
    /// Starts the server on `root` as a transient workspace, with its home in `home`, records
    /// `actor` on its mutations, and completes the initialize handshake.
    pub fn start(root: &Path, home: &Path, actor: &str) -> Session {
        Session::start_wired(root, home, actor, Wiring::Pipes)
    }

    /// [`Session::start`], with stdin and stdout connected as `wiring` says.
    pub fn start_wired(root: &Path, home: &Path, actor: &str, wiring: Wiring) -> Session {
        Session::start_with(root, home, actor, wiring, &[])
    }

    /// [`Session::start_wired`], with more arguments for the server.
    pub fn start_with(
        root: &Path,
        home: &Path,
        actor: &str,
        wiring: Wiring,
        args: &[&str],
    ) -> Session {
        let mut command = Command::new(env!("CARGO_BIN_EXE_filekeeper-mcp"));
        command
            .arg("--root")
            .arg(root)
            .args(["--actor", actor])
            .args(args)
            .env("FILEKEEPER_HOME", home)
            .stderr(Stdio::null());
        let (stdin, stdout, child): (Box<dyn Write>, Box<dyn Read>, Child) = match wiring {
            Wiring::Pipes => {
                let mut child = command
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap();
                let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
                (Box::new(stdin), Box::new(stdout), child)
            }
            Wiring::Socket => {
                let (ours, theirs) = UnixStream::pair().unwrap();
                let mut child = command
                    .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap();
                let stdout = child.stdout.take().unwrap();
                (Box::new(ours), Box::new(stdout), child)
            }
            Wiring::SharedSocket => {
                let (ours, theirs) = UnixStream::pair().unwrap();
                let child = command
                    .stdin(Stdio::from(std::os::fd::OwnedFd::from(
                        theirs.try_clone().unwrap(),
                    )))
                    .stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
                    .spawn()
                    .unwrap();
                (Box::new(ours.try_clone().unwrap()), Box::new(ours), child)
            }
        };
        let mut session = Session {
            stdin,
            stdout: BufReader::new(stdout),
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
