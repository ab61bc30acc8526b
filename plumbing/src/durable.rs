//! Small durable-I/O primitives shared by the object store, the publisher and the registry.
//!
//! The rule every caller follows: data is fsynced before the rename that names it, and the
//! directory holding the new name is fsynced after the rename, so a crash shows either the
//! old entry or the complete new one.

use crate::fault::counted;
use std::fs::{self, File};
use std::io;
use std::path::Path;

/// Sixteen random hex digits, for operation ids and temporary file names.
pub fn random_hex16() -> String {
    let mut bytes = [0u8; 8];
    let mut filled = 0;
    while filled < bytes.len() {
        match rustix::rand::getrandom(&mut bytes[filled..], rustix::rand::GetRandomFlags::empty()) {
            Ok(n) => filled += n,
            Err(rustix::io::Errno::INTR) => continue,
            // getrandom(2) cannot fail on a supported kernel once the pool is ready; fall back
            // to a process-unique value rather than aborting an operation over a name.
            Err(_) => return fallback_unique_hex(),
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn fallback_unique_hex() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mixed =
        nanos ^ (u64::from(std::process::id()) << 32) ^ COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{mixed:016x}")
}

/// The process's file-creation mask, read from `/proc/self/status` (changing the umask to
/// read it would race with other threads); 022 where it cannot be read.
pub fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

/// The permission bits a new file gets: 0666 less the process umask.
pub fn new_file_mode() -> u32 {
    0o666 & !umask()
}

/// The user a new file belongs to: the process's effective user.
pub fn new_file_owner() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Whether this process may give a file it owns the group `gid` (`fchown`): root may give any
/// group, another user only its own groups.
pub fn may_give_group(gid: u32) -> bool {
    use rustix::process::{getegid, geteuid, getgroups};
    geteuid().is_root()
        || getegid().as_raw() == gid
        || getgroups().is_ok_and(|groups| groups.iter().any(|g| g.as_raw() == gid))
}

/// Fsyncs a directory so that entries created or renamed in it survive a crash.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    counted("sync directory", || File::open(dir)?.sync_all())
}

/// Creates `dir` if missing. Returns whether it was created, so the caller knows the parent
/// directory needs an fsync.
pub fn create_dir_if_missing(dir: &Path) -> io::Result<bool> {
    match counted("create directory", || fs::create_dir(dir)) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Replaces `path` with `bytes` atomically and durably: temp file beside it, fsync, rename,
/// directory fsync. For Filekeeper's own small files in the home (`config.toml`), never for
/// workspace files, which go through [`crate::publish`].
pub fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".fk-tmp-{}", random_hex16()));
    let result = (|| {
        let mut file = counted("create temporary file", || {
            fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp)
        })?;
        counted("write file data", || io::Write::write_all(&mut file, bytes))?;
        counted("sync file", || file.sync_all())?;
        counted("rename into place", || fs::rename(&tmp, path))?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_names_differ() {
        let a = random_hex16();
        let b = random_hex16();
        assert_eq!(a.len(), 16);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn replace_file_leaves_only_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("state.txt");
        replace_file(&target, b"one").unwrap();
        replace_file(&target, b"two").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
