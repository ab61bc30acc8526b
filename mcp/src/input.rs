//! Where requests come from: stdin, read through the runtime's event loop when that is safe.
//!
//! A pipe or a socket, which is what MCP clients give a server, is read by the protocol thread
//! itself, so a request costs one wake-up: the client's write wakes the thread that answers. (A
//! reading thread of its own cost a second wake-up per request, the hand-over to the protocol
//! thread: a small read took 0.127 ms over raw JSON-RPC then, 0.107–0.115 ms now.) That needs
//! `O_NONBLOCK`, a flag of the open file description, which every process sharing it sees;
//! [`Flags`] puts it back when the server ends, so a shell that handed its pipe on gets it back
//! as it was.
//!
//! Anything else stays blocking and is read by a thread of its own: a terminal or a file, and a
//! stdin that is stdout's description too (one socket on both, say), where nonblocking reads
//! would make our blocking writes fail. That thread is never joined, so a server whose session
//! has ended exits even while a terminal waits for a line (tokio's own stdin would hold it).

use rustix::fs::{FileType, OFlags};
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, ReadBuf};

/// Stdin's file status flags as the server found them; dropping this sets them back.
pub struct Flags(Option<OFlags>);

impl Flags {
    pub fn capture() -> Flags {
        Flags(rustix::fs::fcntl_getfl(std::io::stdin()).ok())
    }
}

impl Drop for Flags {
    fn drop(&mut self) {
        if let Some(flags) = self.0 {
            let _ = rustix::fs::fcntl_setfl(std::io::stdin(), flags);
        }
    }
}

/// Stdin as the runtime reads it (see the module's documentation). Must run inside the runtime.
pub fn stdin() -> Box<dyn AsyncRead + Unpin + Send> {
    let stdin = std::io::stdin();
    let Ok(input) = rustix::fs::fstat(&stdin) else {
        return Box::new(threaded());
    };
    let shared = rustix::fs::fstat(std::io::stdout())
        .is_ok_and(|out| (out.st_dev, out.st_ino) == (input.st_dev, input.st_ino));
    let kind = FileType::from_raw_mode(input.st_mode);
    if shared || !matches!(kind, FileType::Fifo | FileType::Socket) {
        return Box::new(threaded());
    }
    // Put back at once if the nonblocking path fails after setting O_NONBLOCK: the thread
    // needs blocking reads. (On success, the server's own `Flags` puts them back at exit.)
    let found = Flags::capture();
    if let Ok(fd) = stdin.as_fd().try_clone_to_owned() {
        if kind == FileType::Fifo {
            if let Ok(pipe) = tokio::net::unix::pipe::Receiver::from_owned_fd(fd) {
                std::mem::forget(found);
                return Box::new(pipe);
            }
        } else {
            let socket = std::os::unix::net::UnixStream::from(fd);
            if socket.set_nonblocking(true).is_ok()
                && let Ok(socket) = tokio::net::UnixStream::from_std(socket)
            {
                std::mem::forget(found);
                return Box::new(socket);
            }
        }
    }
    drop(found);
    Box::new(threaded())
}

/// Stdin read by a thread of its own, with blocking reads, handed over in chunks.
struct Threaded {
    chunks: tokio::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    taken: usize,
}

fn threaded() -> Threaded {
    let (sender, chunks) = tokio::sync::mpsc::channel(4);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        loop {
            let mut chunk = vec![0u8; 64 * 1024];
            let read = match stdin.read(&mut chunk) {
                Ok(0) => return,
                Ok(n) => {
                    chunk.truncate(n);
                    Ok(chunk)
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
            let failed = read.is_err();
            if sender.blocking_send(read).is_err() || failed {
                return;
            }
        }
    });
    Threaded {
        chunks,
        chunk: Vec::new(),
        taken: 0,
    }
}

impl AsyncRead for Threaded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.taken == self.chunk.len() {
            match ready!(self.chunks.poll_recv(cx)) {
                None => return Poll::Ready(Ok(())), // the end of input
                Some(Err(e)) => return Poll::Ready(Err(e)),
                Some(Ok(chunk)) => {
                    self.chunk = chunk;
                    self.taken = 0;
                }
            }
        }
        let n = buf.remaining().min(self.chunk.len() - self.taken);
        let start = self.taken;
        buf.put_slice(&self.chunk[start..start + n]);
        self.taken += n;
        Poll::Ready(Ok(()))
    }
}
