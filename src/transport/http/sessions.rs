//! `Mcp-Session-Id` (2025-11-25 `basic/transports` "Session Management"): the server
//! mints an id in the response to `initialize`; the client sends it on every later
//! request; `DELETE` ends it. Each id maps to its own protocol-core [`Session`].

use crate::jsonrpc::RequestId;
use crate::protocol::Session;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// A session nobody has used for this long is ended (the spec lets a server end a
/// session at any time; its id then gets `404`), so abandoned sessions do not pile up.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// The most sessions alive at once; past it, `initialize` is refused with 503 until
/// some end, so one client cannot exhaust the server's memory.
pub const MAX_SESSIONS: usize = 10_000;

/// The header that carries the session id.
pub const HEADER: &str = "mcp-session-id";

/// One live session: its protocol state and its requests still streaming.
pub struct Entry {
    pub session: Session,
    /// The session's request streams, kept so a client can resume them.
    pub streams: super::resume::Streams,
    /// A switch per running request: `notifications/cancelled` flips it, which ends
    /// that request's SSE stream without a response.
    in_flight: HashMap<RequestId, oneshot::Sender<()>>,
    /// When a request last named this session.
    last_used: Instant,
}

impl Entry {
    /// Registers a running request; returns the receiver its stream watches.
    pub fn track(&mut self, id: RequestId) -> oneshot::Receiver<()> {
        // Streams that ended dropped their receivers: forget them.
        self.in_flight.retain(|_, tx| !tx.is_closed());
        let (tx, rx) = oneshot::channel();
        self.in_flight.insert(id, tx);
        rx
    }

    /// Stops a running request. Returns whether one was running.
    pub fn cancel(&mut self, id: &RequestId) -> bool {
        self.in_flight
            .remove(id)
            .is_some_and(|tx| tx.send(()).is_ok())
    }
}

/// The live sessions of one HTTP server.
pub struct Sessions {
    /// Locked only while one message runs through the core (handlers return at once;
    /// anything slow continues in its response stream), so sessions never wait on
    /// each other for I/O.
    live: Mutex<HashMap<String, Entry>>,
    limit: usize,
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions::with_limit(MAX_SESSIONS)
    }
}

impl Sessions {
    /// Stores a freshly initialized session under a new id and returns the id: a UUID
    /// v4 from the OS CSPRNG, visible ASCII only, as the spec requires.
    pub fn with_limit(limit: usize) -> Self {
        Sessions {
            live: Mutex::default(),
            limit,
        }
    }

    /// `None` when the limit is reached (after ending idle sessions).
    pub fn insert(&self, session: Session) -> Option<String> {
        let id = uuid::Uuid::new_v4().to_string();
        let entry = Entry {
            session,
            streams: Default::default(),
            in_flight: HashMap::new(),
            last_used: Instant::now(),
        };
        let mut live = self.lock();
        live.retain(|_, e| e.last_used.elapsed() < IDLE_TIMEOUT);
        if live.len() >= self.limit {
            return None;
        }
        live.insert(id.clone(), entry);
        Some(id)
    }

    /// Runs `f` on the session `id`, or returns `None` when no such session lives.
    pub fn with<R>(&self, id: &str, f: impl FnOnce(&mut Entry) -> R) -> Option<R> {
        self.lock().get_mut(id).map(|entry| {
            entry.last_used = Instant::now();
            f(entry)
        })
    }

    /// Ends a session; later requests with its id get `404`. Returns whether it lived.
    pub fn remove(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // A panic while holding the lock cannot leave a map half-updated (each
        // operation is one call), so a poisoned lock is still safe to use.
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Eras, Server};

    fn session() -> Session {
        Session::new(Server::new(crate::tools::demo::tool_set(), Eras::Both))
    }

    #[test]
    fn the_limit_refuses_new_sessions_until_one_ends() {
        let sessions = Sessions::with_limit(2);
        let a = sessions.insert(session()).unwrap();
        let b = sessions.insert(session()).unwrap();
        assert_ne!(a, b);
        assert!(sessions.insert(session()).is_none());
        assert!(sessions.remove(&a));
        assert!(sessions.insert(session()).is_some());
        assert!(sessions.with(&b, |_| ()).is_some());
        assert!(sessions.with(&a, |_| ()).is_none());
    }
}
