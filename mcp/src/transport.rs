//! The session's transport: request lines from stdin, answers as lines on stdout.
//!
//! Each line is decoded once, by [`line::classify`], which answers what the protocol handler
//! would answer wrongly or not at all; what it accepts goes to the handler already decoded,
//! through a channel ([`Handler`]). The handler's answers are encoded once, straight onto
//! stdout ([`Stdout`]). (Until 2026-12-02 a line was decoded again by rmcp's own codec on the
//! far side of an in-memory pipe, and each answer crossed a second pipe and was read back for
//! its id: a third of a small read's instructions.)

use crate::answers::Owed;
use crate::line;
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, NumberOrString, ServerJsonRpcMessage};
use rmcp::service::RoleServer;
use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// Stdout, where every answer is written as one whole line, so that the handler's answers and
/// the server's own replies never interleave.
pub struct Stdout {
    /// The requests passed to the handler and not yet answered (see `answers`).
    owed: Owed,
    /// Told the first error writing stdout: no answer can reach the client any more, which
    /// ends the session.
    broken: Mutex<Option<oneshot::Sender<io::Error>>>,
}

impl Stdout {
    pub fn new(broken: oneshot::Sender<io::Error>) -> Stdout {
        Stdout {
            owed: Owed::default(),
            broken: Mutex::new(Some(broken)),
        }
    }

    /// Writes `line` (which ends in `\n`) and flushes it. The write is a plain blocking one on
    /// the runtime's thread: a pipe write returns at once unless the client has stopped
    /// reading, and then there is nothing better to do than wait for it.
    pub fn write(&self, line: &[u8]) -> io::Result<()> {
        let mut stdout = io::stdout().lock();
        let written = stdout.write_all(line).and_then(|()| stdout.flush());
        if let Err(e) = &written {
            let broken = self.broken.lock().map(|mut b| b.take());
            if let Ok(Some(broken)) = broken {
                let _ = broken.send(io::Error::new(e.kind(), e.to_string()));
            }
        }
        written
    }

    /// Writes one of the handler's messages; an answer owed is owed no longer once written.
    fn answer(&self, message: &ServerJsonRpcMessage) -> io::Result<()> {
        let id = match message {
            JsonRpcMessage::Response(response) => Some(&response.id),
            JsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
        line.push(b'\n');
        self.write(&line)?;
        if let Some(id) = id {
            self.owed.remove(&id_text(id));
        }
        Ok(())
    }
}

/// An id as JSON text, the form [`line::Awaited`] holds it in.
fn id_text(id: &NumberOrString) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

/// The protocol handler's end: the requests [`read_requests`] decoded, and stdout.
pub struct Handler {
    requests: mpsc::UnboundedReceiver<ClientJsonRpcMessage>,
    out: Arc<Stdout>,
}

impl Handler {
    pub fn new(requests: mpsc::UnboundedReceiver<ClientJsonRpcMessage>, out: Arc<Stdout>) -> Self {
        Handler { requests, out }
    }
}

impl rmcp::transport::Transport<RoleServer> for Handler {
    type Error = io::Error;

    /// Writes the message at once, in the order the handler sends it. A failed write is not
    /// the handler's to report: [`Stdout`] has told the session, which ends with a message
    /// that says stdout failed.
    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let _ = self.out.answer(&item);
        std::future::ready(Ok(()))
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.requests.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Reads request lines from `input` and passes each, decoded, to the protocol handler
/// (`to_handler`), or answers it at once on `out` (see `line`). At the end of input it waits
/// until every request passed on has been answered on `out` or cancelled, then closes the
/// handler's side, which ends the session. With `debug_log`, each line is logged
/// on stderr.
pub async fn read_requests(
    input: impl tokio::io::AsyncRead + Unpin,
    to_handler: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    out: Arc<Stdout>,
    max_line: usize,
    debug_log: bool,
) {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    let owed = &out.owed;
    let mut input = tokio::io::BufReader::with_capacity(64 * 1024, input);
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match (&mut input)
            .take(max_line as u64 + 1)
            .read_until(b'\n', &mut bytes)
            .await
        {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let reply = if bytes.len() > max_line && !bytes.ends_with(b"\n") {
            // Too long to hold: skip to the end of the line and say so, rather than buffer
            // without bound or drop the request unanswered.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                match (&mut input)
                    .take(1 << 20)
                    .read_until(b'\n', &mut rest)
                    .await
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) if rest.ends_with(b"\n") => break,
                    Ok(_) => {}
                }
            }
            line::too_long(max_line)
        } else {
            match line::classify(&bytes) {
                line::Line::Blank => continue,
                line::Line::Reply(reply) => reply,
                line::Line::Request(message, awaited) => {
                    if debug_log {
                        crate::debug(&describe(&bytes));
                    }
                    match awaited {
                        line::Awaited::Answer(id) => owed.add(id),
                        line::Awaited::Cancel(id) => owed.remove(&id),
                        line::Awaited::Nothing => {}
                    }
                    if to_handler.send(*message).is_err() {
                        return; // the handler has gone: nothing more can be answered
                    }
                    continue;
                }
            }
        };
        if debug_log {
            let code = serde_json::from_str::<serde_json::Value>(&reply)
                .ok()
                .and_then(|r| r.pointer("/error/code").and_then(|c| c.as_i64()));
            crate::debug(&format!(
                "a line the protocol handler cannot take -> {}",
                code.unwrap_or_default()
            ));
        }
        if out.write(format!("{reply}\n").as_bytes()).is_err() {
            break;
        }
    }
    if debug_log && owed.count() > 0 {
        crate::debug(&format!(
            "end of input; waiting for {} answers before the session ends",
            owed.count()
        ));
    }
    owed.settled().await;
    // Dropping `to_handler` here ends the handler's input: the session ends.
}

/// The debug line for a request passed to the protocol handler: its method, and for a tool
/// call the tool (which `call_tool` logs again with its outcome).
fn describe(line: &[u8]) -> String {
    let short = crate::short;
    let message: serde_json::Value = serde_json::from_slice(line).unwrap_or_default();
    let method = message.get("method").and_then(|m| m.as_str());
    let tool = message
        .pointer("/params/name")
        .and_then(|n| n.as_str())
        .filter(|_| method == Some("tools/call"));
    match (method, tool) {
        (Some(method), Some(tool)) => format!("request {} {}", short(method), short(tool)),
        (Some(method), None) if message.get("id").is_some() => {
            format!("request {}", short(method))
        }
        (Some(method), None) => format!("notification {}", short(method)),
        (None, _) => "response from the client".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request is owed under its id as read from the client's line, and cleared under its
    /// id as the handler's answer carries it: the two texts must be the same.
    #[test]
    fn an_answer_clears_the_id_its_request_was_owed_under() {
        for id in ["7", "-3", r#""a,\"b""#, r#""\u0061""#, r#""é""#] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let line::Line::Request(message, line::Awaited::Answer(owed)) =
                line::classify(line.as_bytes())
            else {
                panic!("{line} was not passed on as a request");
            };
            let JsonRpcMessage::Request(request) = *message else {
                panic!("{line} was not decoded as a request");
            };
            let answer =
                ServerJsonRpcMessage::response(rmcp::model::ServerResult::empty(()), request.id);
            let JsonRpcMessage::Response(response) = &answer else {
                unreachable!()
            };
            assert_eq!(id_text(&response.id), owed, "{line}");
        }
    }
}
