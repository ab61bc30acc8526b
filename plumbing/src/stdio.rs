//! The standard streams of a process that writes files.
//!
//! A process started with stdin, stdout or stderr closed hands that descriptor number to the
//! next file it opens. Ours would then print its JSON into a journal, a blob or a user's
//! staged file. So, as git does, each binary first opens `/dev/null` on any of the three that
//! is closed: output meant for a closed stream is then lost, as its caller asked, and nothing
//! else is touched.

use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use std::os::fd::{BorrowedFd, IntoRawFd};

/// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed.
pub fn open_missing_standard_streams() {
    for fd in 0..=2 {
        // SAFETY: only asks whether the number is open; nothing is read or written through it.
        let open = rustix::io::fcntl_getfd(unsafe { BorrowedFd::borrow_raw(fd) });
        if open != Err(Errno::BADF) {
            continue;
        }
        // The lowest free number is `fd` itself: every lower one is open by now.
        match rustix::fs::open("/dev/null", OFlags::RDWR, Mode::empty()) {
            // Kept open for the life of the process, as the stream it stands in for.
            Ok(null) => _ = null.into_raw_fd(),
            Err(_) => return,
        }
    }
}
