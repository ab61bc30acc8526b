//! The progress line `keeper` draws on stderr while long work runs.
//!
//! Installed only when stderr is a terminal and the output is neither `--json` nor `--quiet`,
//! so a script or a pipe never sees it. It appears only once a task has run for a moment
//! (quick commands never flash anything), is redrawn a few times a second, and is erased when
//! the task ends, leaving the terminal as it was.

use filekeeper::plumbing::progress::Reporter;
use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a task runs before its progress shows; `FILEKEEPER_PROGRESS_DELAY_MS` changes it
/// (the tests set 0, to see the line without waiting for it).
const DEFAULT_DELAY: Duration = Duration::from_millis(400);
const REDRAW_EVERY: Duration = Duration::from_millis(100);
const BAR_WIDTH: u64 = 24;

pub struct TerminalProgress {
    delay: Duration,
    state: Mutex<State>,
}

struct State {
    started: Option<Instant>,
    drawn: Option<Instant>,
}

impl TerminalProgress {
    pub fn install() {
        let delay = std::env::var("FILEKEEPER_PROGRESS_DELAY_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(DEFAULT_DELAY, Duration::from_millis);
        filekeeper::plumbing::progress::set_reporter(Box::new(TerminalProgress {
            delay,
            state: Mutex::new(State {
                started: None,
                drawn: None,
            }),
        }));
    }
}

/// `verifying objects [#########---------------] 3712/10000` or, with no total,
/// `searching files 48211`.
fn line(task: &str, done: u64, total: Option<u64>) -> String {
    match total {
        Some(total) if total > 0 => {
            let filled = (done.min(total) * BAR_WIDTH / total) as usize;
            format!(
                "{task} [{}{}] {done}/{total}",
                "#".repeat(filled),
                "-".repeat(BAR_WIDTH as usize - filled)
            )
        }
        _ => format!("{task} {done}"),
    }
}

impl Reporter for TerminalProgress {
    fn update(&self, task: &str, done: u64, total: Option<u64>) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let now = Instant::now();
        let started = *state.started.get_or_insert(now);
        let due = now.duration_since(started) >= self.delay
            && state
                .drawn
                .is_none_or(|at| now.duration_since(at) >= REDRAW_EVERY);
        if due {
            state.drawn = Some(now);
            // One write per redraw, so the terminal never shows a half-drawn line.
            let text = format!("\r\x1b[K{}", line(task, done, total));
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }

    fn finish(&self) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        if state.drawn.is_some() {
            let _ = std::io::stderr().write_all(b"\r\x1b[K");
        }
        *state = State {
            started: None,
            drawn: None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::line;

    #[test]
    fn a_known_total_draws_a_bar_and_an_unknown_one_a_count() {
        assert_eq!(
            line("verifying objects", 5, Some(10)),
            "verifying objects [############------------] 5/10"
        );
        assert_eq!(line("searching files", 7, None), "searching files 7");
        assert_eq!(line("applying changes", 0, Some(0)), "applying changes 0");
    }
}
