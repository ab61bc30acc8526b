//! Progress of work that can take seconds (walking a big tree, verifying a big store,
//! applying thousands of steps), told to whoever listens.
//!
//! The `keeper` command line installs a [`Reporter`] that draws on a terminal; the library and
//! the MCP server install none, so a [`Task`] then costs one atomic load per step. Reporting is
//! never part of a result: it goes nowhere near stdout or a JSON document.

use std::sync::OnceLock;

/// Receives the progress of the running task.
pub trait Reporter: Send + Sync {
    /// `done` units of `task` are finished, out of `total` when known.
    fn update(&self, task: &str, done: u64, total: Option<u64>);
    /// The task ended (finished or failed): whatever was drawn should go.
    fn finish(&self);
}

static REPORTER: OnceLock<Box<dyn Reporter>> = OnceLock::new();

/// Installs the process's reporter; only the first call has an effect.
pub fn set_reporter(reporter: Box<dyn Reporter>) {
    let _ = REPORTER.set(reporter);
}

/// One unit of long work being counted.
pub struct Task {
    name: &'static str,
    total: Option<u64>,
    done: u64,
}

impl Task {
    /// Starts counting the task `name`, with `total` units when known; nothing is reported
    /// until the first step.
    pub fn new(name: &'static str, total: Option<u64>) -> Task {
        Task {
            name,
            total,
            done: 0,
        }
    }

    /// `n` more units are done.
    pub fn step(&mut self, n: u64) {
        self.done += n;
        if let Some(reporter) = REPORTER.get() {
            reporter.update(self.name, self.done, self.total);
        }
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        if let Some(reporter) = REPORTER.get() {
            reporter.finish();
        }
    }
}
