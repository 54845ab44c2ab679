//! The responses a session awaits, shared by its streams: a response read on a stream
//! other than its request's own (the legacy session's `GET` stream, 2025-11-25
//! `basic/transports` "Listening for Messages from the Server": the server MAY send
//! a response there) is handed over here, so the wait for it ends wherever it
//! arrives. Only awaited ids are kept: a server cannot fill memory with responses.

use crate::jsonrpc;
use crate::lock::Locked;

/// The responses a client awaits, shared by the streams of one session: a response
/// read on a stream other than its request's own (the session's `GET` stream) is
/// handed over here, so the wait for it ends wherever it arrives.
#[derive(Debug, Default)]
pub struct Delivered {
    /// Each awaited id, with its response once one arrived elsewhere.
    awaited:
        std::sync::Mutex<std::collections::HashMap<jsonrpc::RequestId, Option<jsonrpc::Response>>>,
    /// Woken when a response is handed over.
    arrival: tokio::sync::Notify,
}

impl Delivered {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<
        '_,
        std::collections::HashMap<jsonrpc::RequestId, Option<jsonrpc::Response>>,
    > {
        self.awaited.locked()
    }

    /// From now on a response to `id` is awaited.
    pub fn expect(&self, id: &jsonrpc::RequestId) {
        self.lock().insert(id.clone(), None);
    }

    /// The response to `id` if it arrived elsewhere; `id` is no longer awaited.
    pub fn take(&self, id: &jsonrpc::RequestId) -> Option<jsonrpc::Response> {
        self.lock().remove(id).flatten()
    }

    /// Has the response to `id` arrived elsewhere?
    pub fn has(&self, id: &jsonrpc::RequestId) -> bool {
        matches!(self.lock().get(id), Some(Some(_)))
    }

    /// Keeps `response` if its id is awaited (a response nobody awaits is not kept:
    /// a server cannot fill memory with them).
    pub(super) fn offer(&self, response: &jsonrpc::Response) {
        let Some(id) = &response.id else { return };
        let mut awaited = self.lock();
        if let Some(slot @ None) = awaited.get_mut(id) {
            *slot = Some(response.clone());
            drop(awaited);
            self.arrival.notify_waiters();
        }
    }

    /// Completes once a response to `id` has arrived elsewhere.
    pub async fn arrived(&self, id: &jsonrpc::RequestId) {
        loop {
            // Created before the check: a hand-over between the two still wakes it.
            let woken = self.arrival.notified();
            if self.has(id) {
                return;
            }
            woken.await;
        }
    }
}
