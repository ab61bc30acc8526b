//! Small durable-I/O primitives shared by the object store, the publisher and the registry.
//!
//! The rule every caller follows: data is fsynced before the rename that names it, and the
//! directory holding the new name is fsynced after the rename, so a crash shows either the
//! old entry or the complete new one.

use std::fs::{self, File};
use std::io;
use std::path::Path;

/// The environment variable that names a crash point for tests.
pub const CRASH_ENV: &str = "FILEKEEPER_TEST_CRASH_AT";

/// Kills the process on the spot when `FILEKEEPER_TEST_CRASH_AT` names this point.
///
/// The t/ crash tests use it to stop a command between two durable steps exactly where a
/// power cut or a SIGKILL could, and then check what a fresh process finds. `abort` skips
/// every destructor and buffered flush, as a real crash would. Only a build with the
/// `crash-points` feature (the one `make test` builds) has them: in any other build this is
/// an empty function, so no stray environment variable can crash a user's keeper.
#[inline(always)]
pub fn crash_point(name: &str) {
    #[cfg(feature = "crash-points")]
    if std::env::var_os(CRASH_ENV).is_some_and(|v| v == name) {
        std::process::abort();
    }
    #[cfg(not(feature = "crash-points"))]
    let _ = name;
}

/// The environment variable that names a failure point for tests.
pub const FAIL_ENV: &str = "FILEKEEPER_TEST_FAIL_AT";

/// Fails with an injected I/O error (EIO) when `FILEKEEPER_TEST_FAIL_AT` names this point, so
/// tests can exercise the paths that handle a failing step (rollback, PARTIAL_RECOVERY). Like
/// the crash points, only the `crash-points` build has them.
pub fn fail_point(name: &str) -> std::io::Result<()> {
    #[cfg(feature = "crash-points")]
    if std::env::var_os(FAIL_ENV).is_some_and(|v| v == name) {
        return Err(std::io::Error::from_raw_os_error(5));
    }
    let _ = name;
    Ok(())
}

/// The environment variable of the I/O fault sweep: `N:eio`, `N:enospc` or `N:die`.
pub const FAULT_ENV: &str = "FILEKEEPER_TEST_FAULT";

/// The environment variable naming a file to which every counted call appends `N name`, so a
/// test can learn how many calls a command makes before it sweeps them.
pub const FAULT_LOG_ENV: &str = "FILEKEEPER_TEST_FAULT_LOG";

/// An error value a counted call can be made to return.
pub trait Injectable {
    fn injected(call: &str, errno: i32) -> Self;
}

impl Injectable for io::Error {
    fn injected(_call: &str, errno: i32) -> Self {
        io::Error::from_raw_os_error(errno)
    }
}

impl Injectable for rustix::io::Errno {
    fn injected(_call: &str, errno: i32) -> Self {
        rustix::io::Errno::from_raw_os_error(errno)
    }
}

impl Injectable for crate::Error {
    fn injected(call: &str, errno: i32) -> Self {
        crate::Error::storage(call, &io::Error::from_raw_os_error(errno))
    }
}

/// Runs one effectful filesystem or journal call. Every call that changes durable state goes
/// through here, so the fault sweep can name one by number (in a fixed order per command,
/// except that a mutation's record, new blobs and staged files run on three threads and
/// interleave: every number is still one call, which one may vary between runs):
/// with `FILEKEEPER_TEST_FAULT=N:eio` (or `enospc`) the Nth call fails without running, and
/// with `N:die` it runs and the process aborts right after it, as a power cut would leave it.
/// Only the `crash-points` build counts; in any other build this is the call itself.
#[inline(always)]
pub fn counted<T, E: Injectable>(
    name: &'static str,
    call: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    #[cfg(feature = "crash-points")]
    {
        sweep::around(name, call)
    }
    #[cfg(not(feature = "crash-points"))]
    {
        let _ = name;
        call()
    }
}

#[cfg(feature = "crash-points")]
mod sweep {
    use super::{FAULT_ENV, FAULT_LOG_ENV, Injectable};
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    enum Fault {
        Fail(i32),
        Die,
    }

    static CALLS: AtomicU64 = AtomicU64::new(0);

    fn planned() -> Option<&'static (u64, Fault)> {
        static PLAN: OnceLock<Option<(u64, Fault)>> = OnceLock::new();
        PLAN.get_or_init(|| {
            let text = std::env::var(FAULT_ENV).ok()?;
            let (at, kind) = text.split_once(':')?;
            let fault = match kind {
                "eio" => Fault::Fail(5),
                "enospc" => Fault::Fail(28),
                "die" => Fault::Die,
                _ => return None,
            };
            Some((at.parse().ok()?, fault))
        })
        .as_ref()
    }

    pub(super) fn around<T, E: Injectable>(
        name: &'static str,
        call: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        let n = CALLS.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some(log) = std::env::var_os(FAULT_LOG_ENV) {
            use std::io::Write;
            let line = format!("{n} {name}\n");
            let _ = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .and_then(|mut f| f.write_all(line.as_bytes()));
        }
        match planned() {
            Some((at, Fault::Fail(errno))) if *at == n => Err(E::injected(name, *errno)),
            Some((at, Fault::Die)) if *at == n => {
                let _ = call();
                std::process::abort()
            }
            _ => call(),
        }
    }
}

/// Whether this build has crash points (so tests can tell a real miss from a disarmed point).
pub const CRASH_POINTS_ARMED: bool = cfg!(feature = "crash-points");

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
