//! Fault injection for the t/ crash and fault-sweep tests: named crash points, named failure
//! points, and the numbered count of every effectful call that the sweep fails or dies at.
//!
//! Every hook is armed only in a build with the `crash-points` feature (the one `make test`
//! builds). In any other build each one is empty or the bare call, so no environment variable
//! can crash or fail a user's keeper.

use std::io;

/// The environment variable that names a crash point for tests.
pub const CRASH_ENV: &str = "FILEKEEPER_TEST_CRASH_AT";

/// Kills the process on the spot when `FILEKEEPER_TEST_CRASH_AT` names this point.
///
/// The t/ crash tests use it to stop a command between two durable steps exactly where a
/// power cut or a SIGKILL could, and then check what a fresh process finds. `abort` skips
/// every destructor and buffered flush, as a real crash would. Only a build with the
/// `crash-points` feature (the one `make test` builds) has them: in any other build this is
/// an empty function, so no stray environment variable can crash a user's keeper.
///
/// A crash point is also where a test can play another program that changes the workspace
/// at that exact moment: see [`INTERFERE_AT_ENV`].
#[inline(always)]
pub fn crash_point(name: &str) {
    #[cfg(feature = "crash-points")]
    if std::env::var_os(CRASH_ENV).is_some_and(|v| v == name) {
        std::process::abort();
    }
    #[cfg(feature = "crash-points")]
    if std::env::var_os(INTERFERE_AT_ENV).is_some_and(|v| v == name) {
        interfere();
    }
    #[cfg(not(feature = "crash-points"))]
    let _ = name;
}

/// The environment variable that names the crash point at which the command in
/// [`INTERFERE_ENV`] runs (with `sh -c`, waited for) instead of a crash: another program's
/// change made at an exact moment of an operation, so that the t/ tests can show what keeper
/// does about it without racing the clock.
pub const INTERFERE_AT_ENV: &str = "FILEKEEPER_TEST_INTERFERE_AT";

/// The shell command of [`INTERFERE_AT_ENV`].
pub const INTERFERE_ENV: &str = "FILEKEEPER_TEST_INTERFERE";

#[cfg(feature = "crash-points")]
fn interfere() {
    if let Some(command) = std::env::var_os(INTERFERE_ENV) {
        // The test checks the command's effect; a command that failed shows there.
        let _ = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .status();
    }
}

/// The environment variable that names a failure point for tests.
pub const FAIL_ENV: &str = "FILEKEEPER_TEST_FAIL_AT";

/// Fails with an injected I/O error (EIO) when `FILEKEEPER_TEST_FAIL_AT` names this point, so
/// tests can exercise the paths that handle a failing step (rollback, PARTIAL_RECOVERY). The
/// same variable may name a [`counted`] call instead (`remove object`, say): every call of
/// that name then fails with EIO, wherever it falls in the numbering. Like the crash points,
/// only the `crash-points` build has them.
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
    /// The error the call named `call` returns when the sweep fails it with `errno`.
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
/// with `FILEKEEPER_TEST_FAULT=N:eio` (or `enospc`, `enotempty`) the Nth call fails without
/// running, and
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
                "enotempty" => Fault::Fail(39),
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
        if std::env::var_os(super::FAIL_ENV).is_some_and(|v| v == name) {
            return Err(E::injected(name, 5));
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
