//! Reading directories ahead of a walk, on other threads.
//!
//! A walk spends about half its time in the kernel opening and reading directories, and the
//! other half deciding about each entry (ignore rules, the caller's glob). Both happened on
//! one thread, where ripgrep's `--files` walks on every core: 1.9 times as long on a tree of
//! 300,000 files. Here the walk's own thread still decides about every entry in the walk's
//! order, while helper threads open and read (and sort) the directories it will enter next,
//! in the order it will enter them.
//!
//! The order is kept by a stack: when the walk enters a directory, its subdirectories go on
//! top, first one uppermost, so a helper always reads the directory the walk will need
//! soonest of those not read yet. The walk takes a directory's listing when it gets there;
//! one a helper has not started yet it reads itself (no waiting), one being read it waits
//! for. At most [`MAX_READ_AHEAD`] listings wait to be taken, each holding its directory
//! open, so a wide tree cannot exhaust descriptors. A directory the walk passes over
//! (ignored, before a resume point, a name that is not UTF-8) is dropped as it passes it,
//! read or not, and jobs it is done with are taken off the stack, so none keeps its parent
//! open after the walk has left it.
//!
//! Every directory is opened exactly as the walk opens it (relative to its parent's handle,
//! `O_NOFOLLOW | O_DIRECTORY`), so reading ahead never reaches outside the workspace. What
//! changes is when: a directory may be read some way ahead of the walk, so a directory moved
//! meanwhile is listed as it was when read, as it would be by a slower walk that read it then.

use super::{Listing, read_listing};
use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::{Arc, Condvar, Mutex};

/// Listings read but not yet taken, at most.
const MAX_READ_AHEAD: usize = 128;
/// Helper threads, at most (one fewer than the cores, so the walk keeps one).
const MAX_HELPERS: usize = 3;

/// A directory to read: its parent's handle and its name.
struct Job {
    parent: Arc<OwnedFd>,
    name: Vec<u8>,
    /// The workspace-relative path, the key the walk asks by.
    key: Vec<u8>,
}

enum State {
    /// On the stack, not started.
    Waiting,
    /// A helper is reading it.
    Reading,
    /// A helper is reading it, but the walk passed it over meanwhile: the helper drops the
    /// listing when it is done.
    Unwanted,
    /// Read (`None`: it could not be opened or read).
    Done(Option<Listing>),
    /// The walk took it, or dropped it, before a helper started it.
    Gone,
}

struct Shared {
    stack: Vec<Job>,
    states: HashMap<Vec<u8>, State>,
    /// How many `Done` listings wait to be taken.
    done: usize,
    closed: bool,
}

impl Shared {
    /// Drops, from the top of the stack, the jobs the walk took or passed over, so that none
    /// keeps its parent directory open once the walk is past it. The walk goes in the stack's
    /// order, so what it is done with gathers on top.
    fn drop_stale_top(&mut self) {
        while let Some(job) = self.stack.last() {
            match self.states.get(&job.key) {
                Some(State::Waiting) => return,
                Some(State::Gone) => {
                    self.states.remove(&job.key);
                }
                _ => {}
            }
            self.stack.pop();
        }
    }
}

/// The read-ahead of one walk: its helpers stop when it is dropped.
pub(super) struct ReadAhead {
    shared: Arc<(Mutex<Shared>, Condvar)>,
    gitignore: bool,
}

impl ReadAhead {
    /// Starts helpers, or `None` on a machine with one core (the walk reads everything
    /// itself). `gitignore`: whether listings include the directory's `.gitignore`.
    pub(super) fn start(gitignore: bool) -> Option<ReadAhead> {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let helpers = cores.saturating_sub(1).min(MAX_HELPERS);
        if helpers == 0 {
            return None;
        }
        let shared = Arc::new((
            Mutex::new(Shared {
                stack: Vec::new(),
                states: HashMap::new(),
                done: 0,
                closed: false,
            }),
            Condvar::new(),
        ));
        for _ in 0..helpers {
            let shared = Arc::clone(&shared);
            let spawned = std::thread::Builder::new()
                .name("walk-read-ahead".into())
                .spawn(move || help(&shared, gitignore));
            if spawned.is_err() {
                break;
            }
        }
        Some(ReadAhead { shared, gitignore })
    }

    /// Queues the subdirectories of a directory just entered, given in the walk's order.
    pub(super) fn queue(&self, parent: &Arc<OwnedFd>, children: Vec<(Vec<u8>, Vec<u8>)>) {
        if children.is_empty() {
            return;
        }
        let (lock, wake) = &*self.shared;
        let mut shared = lock.lock().unwrap_or_else(|e| e.into_inner());
        for (name, key) in children.into_iter().rev() {
            shared.states.insert(key.clone(), State::Waiting);
            shared.stack.push(Job {
                parent: Arc::clone(parent),
                name,
                key,
            });
        }
        wake.notify_all();
    }

    /// The listing of the directory at `key` (queued by [`ReadAhead::queue`] with `parent`
    /// and `name`): a helper's, or read now when no helper has started it.
    pub(super) fn take(&self, key: &[u8], parent: &OwnedFd, name: &[u8]) -> Option<Listing> {
        let (lock, wake) = &*self.shared;
        let mut shared = lock.lock().unwrap_or_else(|e| e.into_inner());
        while matches!(shared.states.get(key), Some(State::Reading)) {
            shared = wake.wait(shared).unwrap_or_else(|e| e.into_inner());
        }
        match shared.states.remove(key) {
            Some(State::Done(listing)) => {
                shared.done -= 1;
                wake.notify_all();
                return listing;
            }
            // Usually on top of the stack (the walk takes them in the order they were
            // queued): taken off it here; else a helper drops it when it gets there.
            Some(State::Waiting) if shared.stack.last().is_some_and(|job| job.key == key) => {
                shared.stack.pop();
            }
            Some(State::Waiting) => {
                shared.states.insert(key.to_vec(), State::Gone);
            }
            _ => {}
        }
        drop(shared);
        read_listing(parent, name, self.gitignore).ok()
    }

    /// Drops what was queued under `key` and not taken: a directory the walk passes over
    /// (ignored, before a resume point, a name that is not UTF-8), as soon as it does, so that
    /// its listing does not take a place among the [`MAX_READ_AHEAD`].
    pub(super) fn forget(&self, key: Vec<u8>) {
        let (lock, wake) = &*self.shared;
        let mut shared = lock.lock().unwrap_or_else(|e| e.into_inner());
        match shared.states.remove(&key) {
            Some(State::Done(_)) => shared.done -= 1,
            // Being read: its helper drops the listing.
            Some(State::Reading | State::Unwanted) => {
                shared.states.insert(key, State::Unwanted);
            }
            // Still on the stack: dropped when it comes to the top.
            Some(State::Waiting | State::Gone) => {
                shared.states.insert(key, State::Gone);
            }
            None => return,
        }
        shared.drop_stale_top();
        wake.notify_all();
    }
}

#[cfg(test)]
impl ReadAhead {
    /// Once no helper is reading: how many jobs are on the stack, how many directories the
    /// read-ahead still knows of (in any state), and how many listings wait to be taken.
    pub(super) fn settled(&self) -> (usize, usize, usize) {
        let (lock, wake) = &*self.shared;
        let mut shared = lock.lock().unwrap();
        while shared
            .states
            .values()
            .any(|state| matches!(state, State::Reading | State::Unwanted))
        {
            shared = wake.wait(shared).unwrap();
        }
        (shared.stack.len(), shared.states.len(), shared.done)
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        let (lock, wake) = &*self.shared;
        let mut shared = lock.lock().unwrap_or_else(|e| e.into_inner());
        shared.closed = true;
        shared.stack.clear();
        shared.states.clear();
        wake.notify_all();
    }
}

/// A helper: reads the topmost waiting directory while fewer than [`MAX_READ_AHEAD`]
/// listings wait to be taken, until the walk is dropped.
fn help(shared: &(Mutex<Shared>, Condvar), gitignore: bool) {
    let (lock, wake) = shared;
    let mut guard = lock.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if guard.closed {
            return;
        }
        guard.drop_stale_top();
        if guard.done >= MAX_READ_AHEAD || guard.stack.is_empty() {
            guard = wake.wait(guard).unwrap_or_else(|e| e.into_inner());
            continue;
        }
        let job = guard.stack.pop().expect("a waiting job");
        guard.states.insert(job.key.clone(), State::Reading);
        drop(guard);
        // A panic here must not leave the walk waiting for this listing forever: it is then
        // a directory that could not be read.
        let listing = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read_listing(&job.parent, &job.name, gitignore).ok()
        }))
        .unwrap_or(None);
        guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(guard.states.get(&job.key), Some(State::Reading)) {
            guard.states.insert(job.key, State::Done(listing));
            guard.done += 1;
        } else {
            // Passed over while it was read (or the walk is gone): dropped.
            guard.states.remove(&job.key);
        }
        wake.notify_all();
    }
}
