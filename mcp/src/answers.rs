//! The requests still owed an answer, so that the end of stdin does not cut one off.
//!
//! A client that closes stdin has said it will send nothing more, not that it wants no more
//! answers: a script pipes a few calls and closes its end, and a write still waiting for the
//! workspace lock then would be made and journaled with its answer never sent. The session
//! therefore ends only once every request read before the end has been answered on stdout, or
//! cancelled by the client (the protocol handler drops the answer to a cancelled request).

use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::Notify;

/// The ids of the requests passed to the protocol handler and not yet answered, each as its
/// JSON text, with how many times it is owed (a client may reuse an id).
#[derive(Default)]
pub struct Owed {
    ids: Mutex<HashMap<String, usize>>,
    settled: Notify,
}

impl Owed {
    /// A request with this id was passed to the protocol handler.
    pub fn add(&self, id: String) {
        *self.lock().entry(id).or_default() += 1;
    }

    /// The answer to `id` was written, or the request was cancelled: it is owed no longer.
    pub fn remove(&self, id: &str) {
        let mut ids = self.lock();
        if let Some(count) = ids.get_mut(id) {
            *count -= 1;
            if *count == 0 {
                ids.remove(id);
            }
        }
        if ids.is_empty() {
            // A stored permit: a waiter that checks and then waits cannot miss it.
            self.settled.notify_one();
        }
    }

    /// How many answers are owed.
    pub fn count(&self) -> usize {
        self.lock().values().sum()
    }

    /// Returns once no answer is owed.
    pub async fn settled(&self) {
        while self.count() > 0 {
            self.settled.notified().await;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        // The map is left consistent by every holder, so a poisoned lock is still usable.
        self.ids
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn settled_waits_for_every_owed_answer() {
        let owed = std::sync::Arc::new(Owed::default());
        owed.add("1".into());
        owed.add("1".into());
        owed.add("2".into());
        owed.remove("9"); // never owed: changes nothing
        assert_eq!(owed.count(), 3);
        let waiter = tokio::spawn({
            let owed = owed.clone();
            async move { owed.settled().await }
        });
        owed.remove("1");
        owed.remove("2");
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished(), "one answer to id 1 is still owed");
        owed.remove("1");
        waiter.await.unwrap();
        assert_eq!(owed.count(), 0);
    }
}
