//! `Mcp-Session-Id` (2025-11-25 `basic/transports` "Session Management"): the server
//! mints an id in the response to `initialize`; the client sends it on every later
//! request; `DELETE` ends it. Each id maps to its own protocol-core [`Session`](crate::protocol::Session).

use super::auth::Principal;
use super::limits::Limits;
use crate::jsonrpc::RequestId;
use crate::lock::Locked;
use crate::protocol::Conversation;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::oneshot;
// tokio's clock, not std's: the sweeper's ticks and a session's age are read on the
// same clock, so a test on tokio's paused clock drives expiry without waiting.
use tokio::time::Instant;

/// One live session: its protocol state and its requests still streaming.
pub struct Entry {
    /// The session's protocol state (the core's, or a bridge's child process).
    pub session: Box<dyn Conversation>,
    /// The session's request streams, kept so a client can resume them.
    pub streams: super::resume::Streams,
    /// A switch per running request: `notifications/cancelled` flips it, which ends
    /// that request's SSE stream without a response; dropping it (the session ended)
    /// stops the request too.
    in_flight: HashMap<RequestId, oneshot::Sender<()>>,
    /// When a request last named this session.
    last_used: Instant,
    /// On a protected server, whose token made it (at `initialize`): a request
    /// with another principal's token finds no such session (MCP 2025-11-25
    /// "Security Best Practices", Session Hijacking). `None` when unprotected.
    owner: Option<Principal>,
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

    /// How many of its requests are still running.
    pub fn running(&self) -> usize {
        self.in_flight.values().filter(|tx| !tx.is_closed()).count()
    }

    /// Why this session should end now, if it should: it never finished the handshake
    /// within `init_timeout`, or nobody used it for `session_timeout`.
    fn expired(&self, now: Instant, init_timeout: Duration, idle: Duration) -> Option<Ended> {
        let unused = now.saturating_duration_since(self.last_used);
        let ready = self.session.ready();
        if !ready && unused >= init_timeout {
            Some(Ended::NeverInitialized)
        } else if unused >= idle {
            Some(Ended::Idle)
        } else {
            None
        }
    }
}

/// Why a session ended without a DELETE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// `initialize` was answered, `notifications/initialized` never came
    /// (2025-11-25 `basic/lifecycle`: the client MUST send it).
    NeverInitialized,
    /// Not used for the session timeout.
    Idle,
}

/// The live sessions of one HTTP server.
pub struct Sessions {
    /// Locked only while one message runs through the core (handlers return at once;
    /// anything slow continues in its response stream), so sessions never wait on
    /// each other for I/O.
    live: Mutex<HashMap<String, Entry>>,
    /// `--max-sessions`.
    limit: usize,
    /// `--init-timeout`: the life of a session that has not finished its handshake.
    init_timeout: Duration,
    /// `--session-timeout`: the life of an unused initialized session.
    idle_timeout: Duration,
    /// Some session ended since the sweeper last gave memory back.
    ended: AtomicBool,
    /// `--resume-events` and `--resume-streams`, for each new session's streams.
    resume_events: usize,
    resume_streams: usize,
    /// Put before each new id (a replica's name behind a load balancer).
    id_prefix: IdPrefix,
}

/// The longest `--session-id-prefix`: a name, not a payload.
pub const MAX_ID_PREFIX: usize = 64;

/// What comes before every session id this server issues: checked to be visible ASCII
/// (2025-11-25 `basic/transports` §Session Management: "The session ID MUST only
/// contain visible ASCII characters (ranging from 0x21 to 0x7E)"), so prefix + UUID is
/// still a valid id. Empty by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdPrefix(String);

impl IdPrefix {
    /// `text` as a prefix, or why it cannot be one (quoting it).
    pub fn new(text: &str) -> Result<IdPrefix, String> {
        if text.len() > MAX_ID_PREFIX {
            return Err(format!(
                "a session id prefix is at most {MAX_ID_PREFIX} bytes, {text:?} has {}",
                text.len()
            ));
        }
        if let Some(c) = text.chars().find(|c| !('\x21'..='\x7e').contains(c)) {
            return Err(format!(
                "a session id holds visible ASCII only (0x21 to 0x7E, 2025-11-25 basic/transports \
                 §Session Management); {text:?} has {c:?}"
            ));
        }
        Ok(IdPrefix(text.to_owned()))
    }

    /// The prefix as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Sessions {
    /// No sessions yet, within `limits`.
    pub fn new(limits: &Limits) -> Self {
        Sessions {
            live: Mutex::default(),
            limit: limits.max_sessions,
            init_timeout: limits.init_timeout,
            idle_timeout: limits.session_timeout,
            ended: AtomicBool::new(false),
            resume_events: limits.resume_events,
            resume_streams: limits.resume_streams,
            id_prefix: IdPrefix::default(),
        }
    }

    /// The same, every new id starting with `prefix`.
    pub fn with_id_prefix(mut self, prefix: IdPrefix) -> Self {
        self.id_prefix = prefix;
        self
    }

    /// The most sessions kept at once.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Stores a freshly initialized session under a new id and returns the id: the
    /// prefix, then a UUID v4 from the OS CSPRNG, visible ASCII only, as the spec
    /// requires. `None` when the limit is reached (after ending expired sessions).
    /// `owner`: whose token initialized it, on a protected server.
    pub fn insert(
        &self,
        session: Box<dyn Conversation>,
        owner: Option<Principal>,
    ) -> Option<String> {
        let id = format!("{}{}", self.id_prefix.as_str(), uuid::Uuid::new_v4());
        let entry = Entry {
            session,
            streams: super::resume::Streams::new(self.resume_events, self.resume_streams),
            in_flight: HashMap::new(),
            last_used: Instant::now(),
            owner,
        };
        let mut live = self.lock();
        if live.len() >= self.limit {
            let ended = self.sweep_locked(&mut live);
            drop(live);
            report(&ended, self.len());
            live = self.lock();
        }
        if live.len() >= self.limit {
            return None;
        }
        live.insert(id.clone(), entry);
        Some(id)
    }

    /// Runs `f` on the session `id` as `who` (the request's principal on a protected
    /// server), or returns `None` when no such session lives for `who`: another
    /// principal's session is as absent as an unknown one (a `404`, which tells the
    /// caller nothing about whether the id exists).
    pub fn with<R>(
        &self,
        id: &str,
        who: Option<&Principal>,
        f: impl FnOnce(&mut Entry) -> R,
    ) -> Option<R> {
        self.lock()
            .get_mut(id)
            .filter(|entry| entry.owner.as_ref() == who)
            .map(|entry| {
                entry.last_used = Instant::now();
                f(entry)
            })
    }

    /// Ends a session `who` owns; later requests with its id get `404`. Dropping its
    /// entry stops every request of it still running (their streams end, their
    /// memory is freed). Returns how many were running, or `None` when no such
    /// session lived for `who`.
    pub fn remove(&self, id: &str, who: Option<&Principal>) -> Option<usize> {
        let entry = {
            let mut live = self.lock();
            if live.get(id)?.owner.as_ref() != who {
                return None;
            }
            let entry = live.remove(id)?;
            shrink(&mut live);
            entry
        };
        let running = entry.running();
        drop(entry);
        self.ended.store(true, Ordering::Relaxed);
        Some(running)
    }

    /// Ends every expired session; returns how many ended, and why.
    pub fn sweep(&self) -> Vec<(Ended, usize)> {
        let ended = self.sweep_locked(&mut self.lock());
        report(&ended, self.len());
        ended
    }

    /// Ends expired sessions under the lock; the entries are dropped after it is
    /// released (dropping cancels their requests, which takes other locks).
    fn sweep_locked(&self, live: &mut HashMap<String, Entry>) -> Vec<(Ended, usize)> {
        let now = Instant::now();
        let expired: Vec<(String, Ended)> = live
            .iter()
            .filter_map(|(id, e)| {
                e.expired(now, self.init_timeout, self.idle_timeout)
                    .map(|why| (id.clone(), why))
            })
            .collect();
        if !expired.is_empty() {
            self.ended.store(true, Ordering::Relaxed);
        }
        let ended = expired
            .into_iter()
            .filter_map(|(id, why)| live.remove(&id).map(|e| (why, e.running())))
            .collect();
        shrink(live);
        ended
    }

    /// How many sessions are alive.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Is none alive?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // A panic while holding the lock cannot leave a map half-updated (each
        // operation is one call), so a poisoned lock is still safe to use.
        self.live.locked()
    }
}

/// After a burst of sessions has ended, gives the map's empty slots back (a table
/// sized for 10,000 sessions is megabytes), keeping room to grow again cheaply.
fn shrink(live: &mut HashMap<String, Entry>) {
    if live.capacity() > 1024 && live.capacity() > 4 * live.len() {
        live.shrink_to(2 * live.len());
    }
}

/// One log line for the sessions a sweep ended.
fn report(ended: &[(Ended, usize)], live: usize) {
    if ended.is_empty() {
        return;
    }
    let count = |why| ended.iter().filter(|(w, _)| *w == why).count();
    let cancelled: usize = ended.iter().map(|(_, r)| r).sum();
    log::warn!(
        "[mcp-raw] ended {} session(s): {} never sent notifications/initialized (serve --init-timeout), {} idle (serve --session-timeout); {cancelled} running request(s) cancelled; {live} live",
        ended.len(),
        count(Ended::NeverInitialized),
        count(Ended::Idle),
    );
}

/// Ends expired sessions in the background, so their memory goes back even when no
/// new client comes: checks a few times per the shorter of the two timeouts.
pub async fn sweep_every(app: std::sync::Arc<super::App>) {
    let limits = &app.listening.limits;
    let shortest = limits.init_timeout.min(limits.session_timeout);
    let period = (shortest / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        app.sessions.sweep();
        // Sessions ended (by DELETE or here) or connections closed since the last
        // tick, and what they held has had a tick to be dropped: hand the pages back.
        let sessions_ended = app.sessions.ended.swap(false, Ordering::Relaxed);
        let connections_closed = app.closed_connections.swap(0, Ordering::Relaxed) > 0;
        if sessions_ended || connections_closed {
            crate::memory::trim();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Core, Eras, Server};

    fn session() -> Box<dyn Conversation> {
        Server::new(crate::protocol::content::demo::tool_set(), Eras::Both).open()
    }

    #[test]
    fn the_limit_refuses_new_sessions_until_one_ends() {
        let sessions = Sessions::new(&Limits {
            max_sessions: 2,
            ..Limits::default()
        });
        let a = sessions.insert(session(), None).unwrap();
        let b = sessions.insert(session(), None).unwrap();
        assert_ne!(a, b);
        assert!(sessions.insert(session(), None).is_none());
        assert_eq!(sessions.remove(&a, None), Some(0));
        assert!(sessions.insert(session(), None).is_some());
        assert!(sessions.with(&b, None, |_| ()).is_some());
        assert!(sessions.with(&a, None, |_| ()).is_none());
    }

    #[test]
    fn a_session_exists_only_for_the_principal_that_made_it() {
        let sessions = Sessions::new(&Limits::default());
        let alice = Principal {
            subject: Some("alice".into()),
            client: Some("c".into()),
        };
        let mallory = Principal {
            subject: Some("mallory".into()),
            ..alice.clone()
        };
        let id = sessions.insert(session(), Some(alice.clone())).unwrap();
        assert!(sessions.with(&id, Some(&mallory), |_| ()).is_none());
        assert!(sessions.with(&id, None, |_| ()).is_none());
        assert_eq!(sessions.remove(&id, Some(&mallory)), None);
        assert!(sessions.with(&id, Some(&alice), |_| ()).is_some());
        assert_eq!(sessions.remove(&id, Some(&alice)), Some(0));
    }
}
