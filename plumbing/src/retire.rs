//! Freeing a replaced or removed file off the caller's path.
//!
//! When a rename or unlink drops a file's last name and nothing holds it open, the kernel
//! frees its inode and blocks inside that system call. That is not free: on ext4 mounted with
//! `discard` it waits for the device to trim the blocks (0.1–0.2 ms for a small file on the
//! machine in `docs/performance.md`), and a large file's extents take longer still. So a step
//! that replaces or removes a file first opens it with `O_PATH` ([`hold`]); the rename or
//! unlink then only drops a name, and the file is freed when the returned [`Retired`] is
//! dropped, which hands the descriptor to a background thread to close.
//!
//! Nothing about durability changes: the name is gone (and its directory fsynced) exactly as
//! before, and a file nobody can reach any more is freed by the kernel whenever its last
//! descriptor closes, including at process exit or after a crash.
//!
//! Only local disk filesystems are held this way (ext4, XFS, Btrfs, F2FS): elsewhere a name
//! dropped while the file is open does not simply vanish. NFS renames such a file to
//! `.nfsXXXX` until it is closed, and FUSE filesystems to `.fuse_hidden*`: names a walk would
//! see, and a directory a recursive delete could not remove. tmpfs frees in memory, so holding
//! gains nothing there.

use rustix::fs::{Mode, OFlags};
use std::ffi::OsStr;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::OnceLock;
use std::sync::mpsc::SyncSender;

/// Descriptors waiting for the closing thread. Bounded, so a burst of steps can never pile
/// up descriptors toward the process's limit: when it is full, a descriptor is closed where
/// it is dropped, as if it had never been held.
const QUEUE: usize = 16;

/// An open `O_PATH` descriptor of a file about to lose its name; dropping it closes the
/// descriptor on the closing thread.
#[derive(Debug)]
pub struct Retired(Option<OwnedFd>);

/// Holds the file `name` in `dir` open until the returned value is dropped, when `dir` is on a
/// filesystem where that is worth it. Best effort: when there is nothing to open (no such
/// file) or the open fails, nothing is held.
pub fn hold(dir: BorrowedFd<'_>, name: &OsStr) -> Retired {
    if !worth_holding(dir) {
        return Retired(None);
    }
    held(dir, name)
}

fn held(dir: BorrowedFd<'_>, name: &OsStr) -> Retired {
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    Retired(rustix::fs::openat(dir, name, flags, Mode::empty()).ok())
}

/// Whether `dir` is on a local disk filesystem (see the module's documentation).
fn worth_holding(dir: BorrowedFd<'_>) -> bool {
    const EXT4: u64 = 0xEF53; // ext2 and ext3 too
    const XFS: u64 = 0x5846_5342;
    const BTRFS: u64 = 0x9123_683E;
    const F2FS: u64 = 0xF2F5_2010;
    rustix::fs::fstatfs(dir)
        .is_ok_and(|fs| matches!(fs.f_type as u64 & 0xFFFF_FFFF, EXT4 | XFS | BTRFS | F2FS))
}

impl Drop for Retired {
    fn drop(&mut self) {
        // A descriptor the queue refuses comes back in the error and is closed right here.
        if let (Some(fd), Some(closer)) = (self.0.take(), closer()) {
            let _ = closer.try_send(fd);
        }
    }
}

/// The closing thread's queue, started on first use; `None` (close in place) when a thread
/// cannot be started.
fn closer() -> Option<&'static SyncSender<OwnedFd>> {
    static CLOSER: OnceLock<Option<SyncSender<OwnedFd>>> = OnceLock::new();
    CLOSER
        .get_or_init(|| {
            let (sender, received) = std::sync::mpsc::sync_channel::<OwnedFd>(QUEUE);
            std::thread::Builder::new()
                .name("filekeeper-close".into())
                .spawn(move || received.into_iter().for_each(drop))
                .ok()
                .map(|_| sender)
        })
        .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn dir(root: &std::path::Path) -> OwnedFd {
        rustix::fs::open(root, OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).unwrap()
    }

    #[test]
    fn a_held_file_outlives_its_name_until_released() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("old"), b"old bytes").unwrap();
        let ino = std::fs::metadata(root.path().join("old")).unwrap().ino();
        let dir = dir(root.path());
        let held = held(dir.as_fd(), OsStr::new("old"));
        std::fs::remove_file(root.path().join("old")).unwrap();
        let fd = held.0.as_ref().expect("the file is held");
        let stat = rustix::fs::fstat(fd).unwrap();
        assert_eq!(
            (stat.st_ino, stat.st_nlink),
            (ino, 0),
            "the unnamed file is still there"
        );
        drop(held);
    }

    #[test]
    fn holding_nothing_is_harmless() {
        let root = tempfile::tempdir().unwrap();
        let dir = dir(root.path());
        let held = held(dir.as_fd(), OsStr::new("absent"));
        assert!(held.0.is_none());
        drop(held);
    }

    /// The descriptors open on files under `dir`.
    fn open_under(dir: &std::path::Path) -> usize {
        std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
            .filter(|target| target.parent() == Some(dir))
            .count()
    }

    #[test]
    fn every_released_descriptor_is_closed() {
        // Many more than the queue holds: each is closed, by the thread or in place.
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().canonicalize().unwrap(); // as /proc/self/fd shows it
        let dir = dir(&root);
        let names: Vec<String> = (0..10 * QUEUE).map(|i| format!("f{i}")).collect();
        for name in &names {
            std::fs::write(root.join(name), b"x").unwrap();
        }
        let held: Vec<Retired> = names
            .iter()
            .map(|n| held(dir.as_fd(), OsStr::new(n)))
            .collect();
        assert_eq!(open_under(&root), names.len());
        drop(held);
        // The closing thread drains the queue; wait for it without sleeping blindly.
        let drained = (0..100_000).any(|_| {
            std::thread::yield_now();
            open_under(&root) == 0
        });
        assert!(drained, "descriptors were left open");
    }

    #[test]
    fn a_file_on_a_filesystem_outside_the_list_is_not_held() {
        // procfs stands in for NFS and FUSE, which a test cannot mount.
        let proc = dir(std::path::Path::new("/proc/self"));
        assert!(!worth_holding(proc.as_fd()));
        assert!(hold(proc.as_fd(), OsStr::new("status")).0.is_none());
    }

    use std::os::fd::AsFd;
}
