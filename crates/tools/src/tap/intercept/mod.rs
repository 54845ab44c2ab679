//! `tap --intercept FILTER`: mitmproxy's breakpoints, for MCP. A message that matches
//! the filter is held in flight, and everything after it in its direction waits
//! behind it (order is never changed); the live page (`--ui`) shows it waiting and
//! lets the person forward it, edit it or drop it. With no decision by the deadline
//! (`--intercept-timeout`) it is forwarded unchanged. Nothing is held without a
//! filter.
//!
//! The recording marks each step on the lane where the message would have crossed
//! ([`What::Intercept`]): `held` (with the message as it arrived), then `forwarded`,
//! `changed` (with the edited message: both versions are in the file), `dropped` or
//! `expired`; the bytes passed on follow as their own event, so the lane's bytes
//! are still exactly what reached the peer.
//!
//! This file is the filter and the waiting list, shared by every kind of tap: the
//! stdio tap holds whole lines ([`Interceptor::pass`], a copy's thread blocked), the
//! HTTP tap and the proxy hold a POST's body, a JSON answer or one SSE event
//! ([`Interceptor::hold`], a task waiting; `http/hold.rs` frames what goes on).
//!
//! The filter: words, each `KEY:PATTERN`, all of which must match (`*` matches any
//! run of characters):
//!
//! ```text
//! method:tools/call            a request or notification with this method
//! tool:delete_*                a tools/call of a tool whose name matches
//! dir:c2s  dir:s2c             only messages going this way
//! id:7                         a message with this id (as JSON: 7, "a")
//! ```

use crate::lock::Locked;
use crate::wire::event::{Dir, HoldStep, Intercepted, Lane, What};
use crate::wire::recorder::Recorder;
use bytes::Bytes;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, RwLock, mpsc};
use std::time::Duration;

mod filter;
pub use filter::Filter;

/// How long a held message waits for a decision by default (`--intercept-timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// What the person decided for a held message.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Pass it on as it arrived.
    Forward,
    /// Pass this on instead (the edited message, without its line end).
    Change(Bytes),
    /// Never pass it on.
    Drop,
}

/// One message held: what the page shows as waiting.
#[derive(Debug, Clone)]
pub struct Waiting {
    /// Its number.
    pub hold: u64,
    /// Which way it was going.
    pub dir: Dir,
    /// As it arrived.
    pub bytes: Bytes,
}

/// How a held message's holder is woken: a stdio copy's thread blocks on a channel,
/// an HTTP relay's task awaits one.
type Wake = Box<dyn FnOnce(Decision) + Send>;

/// What became of a held message: a decision, or the deadline.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The page decided.
    Decided(Decision),
    /// No decision by `--intercept-timeout`: forwarded unchanged.
    Expired,
}

/// The tap's holds: the filter (settable from the page), the deadline, and the
/// messages waiting, each with the way to wake what holds it.
pub struct Interceptor {
    /// What is held; none: nothing (set from the page, or cleared).
    filter: RwLock<Option<Filter>>,
    /// How long a held message waits before it is forwarded unchanged.
    timeout: Duration,
    /// The next hold's number.
    next: AtomicU64,
    /// The messages waiting for a decision.
    waiting: Mutex<HashMap<u64, (Waiting, Wake)>>,
}

/// A hold's place on the waiting list, taken off when its waiter is gone (a relayed
/// connection that closed while its message was held): the page stops offering it.
struct Listed<'a> {
    /// Whose list.
    holds: &'a Interceptor,
    /// The hold's number.
    hold: u64,
    /// Where a hold whose waiter went away undecided is marked `dropped` (its
    /// message never crossed; the lane's close says why), so the page stops showing
    /// it waiting; none once it is settled, or for a stdio copy (which never goes
    /// away undecided).
    unsettled: Option<(&'a Recorder, Lane, Dir)>,
}

impl Drop for Listed<'_> {
    fn drop(&mut self) {
        self.holds.waiting.locked().remove(&self.hold);
        if let Some((recorder, lane, dir)) = self.unsettled.take() {
            mark(
                recorder,
                lane,
                dir,
                self.hold,
                HoldStep::Dropped,
                Bytes::new(),
            );
        }
    }
}

impl Interceptor {
    /// Holds what `filter` matches (none: nothing until the page sets one), each
    /// for `timeout` at most.
    pub fn new(filter: Option<Filter>, timeout: Duration) -> Interceptor {
        Interceptor {
            filter: RwLock::new(filter),
            timeout,
            next: AtomicU64::new(1),
            waiting: Mutex::default(),
        }
    }

    /// The filter in force, as written.
    pub fn filter(&self) -> Option<String> {
        self.filter
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .map(|f| f.text().to_owned())
    }

    /// Sets the filter (empty text: none, nothing more is held).
    pub fn set_filter(&self, text: &str) -> Result<(), String> {
        let filter = if text.trim().is_empty() {
            None
        } else {
            Some(Filter::parse(text)?)
        };
        *self
            .filter
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = filter;
        Ok(())
    }

    /// The next number of the tap's own doings (a hold, or a resend from the page:
    /// they share the count, so `#N` on the page names one of them).
    pub fn number(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Is a filter in force (anything to look for)?
    pub fn active(&self) -> bool {
        self.filter
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_some()
    }

    /// Does the filter hold `message` (JSON text) going `dir`? A batch (an array) is
    /// held whole when any of its messages matches; what is not JSON never is.
    pub fn wants(&self, dir: Dir, message: &[u8]) -> bool {
        let filter = self
            .filter
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(f) = filter.as_ref() else {
            return false;
        };
        match serde_json::from_slice::<Value>(message) {
            Ok(Value::Array(batch)) => batch.iter().any(|m| f.matches(dir, m)),
            Ok(m) => f.matches(dir, &m),
            Err(_) => false,
        }
    }

    /// The deadline of a hold.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The messages waiting now.
    pub fn waiting(&self) -> Vec<Waiting> {
        let mut w: Vec<_> = self
            .waiting
            .locked()
            .values()
            .map(|(w, _)| w.clone())
            .collect();
        w.sort_by_key(|w| w.hold);
        w
    }

    /// The page's decision for hold `hold`.
    pub fn decide(&self, hold: u64, decision: Decision) -> Result<(), String> {
        match self.waiting.locked().remove(&hold) {
            Some((_, wake)) => {
                wake(decision);
                Ok(())
            }
            None => Err(format!(
                "hold #{hold} is not waiting (already decided, past its deadline, or never held)"
            )),
        }
    }

    /// Puts `bytes` (the message as it arrived) on the waiting list and marks it
    /// `held` on `lane`; returns its number.
    fn list(&self, recorder: &Recorder, lane: Lane, dir: Dir, bytes: &Bytes, wake: Wake) -> u64 {
        let hold = self.number();
        let waiting = Waiting {
            hold,
            dir,
            bytes: bytes.clone(),
        };
        self.waiting.locked().insert(hold, (waiting, wake));
        mark(recorder, lane, dir, hold, HoldStep::Held, bytes.clone());
        hold
    }

    /// Holds `message` (it matched): marked `held` on `lane`, then waits for the
    /// page's decision or the deadline, blocking the calling thread (a stdio copy:
    /// what follows it that way waits behind it). Returns the hold's number and what
    /// became of it; the caller marks the step and passes the bytes on.
    pub fn hold_blocking(
        &self,
        recorder: &Recorder,
        lane: Lane,
        dir: Dir,
        message: &[u8],
    ) -> (u64, Outcome) {
        let (wake, woken) = mpsc::channel();
        let bytes = Bytes::copy_from_slice(message);
        let hold = self.list(
            recorder,
            lane,
            dir,
            &bytes,
            Box::new(move |d| {
                // The holding thread is gone only when the tap is ending.
                let _ = wake.send(d);
            }),
        );
        let _listed = Listed {
            holds: self,
            hold,
            unsettled: None,
        };
        match woken.recv_timeout(self.timeout) {
            Ok(d) => (hold, Outcome::Decided(d)),
            Err(_) => (hold, Outcome::Expired),
        }
    }

    /// [`Interceptor::hold_blocking`] for a task (an HTTP relay's direction): the
    /// task waits, the runtime's threads do not. A task dropped while it waits (its
    /// connection closed) marks the hold `dropped`: its message never crossed.
    pub async fn hold(
        &self,
        recorder: &Recorder,
        lane: Lane,
        dir: Dir,
        message: Bytes,
    ) -> (u64, Outcome) {
        let (wake, woken) = tokio::sync::oneshot::channel();
        let hold = self.list(
            recorder,
            lane,
            dir,
            &message,
            Box::new(move |d| {
                let _ = wake.send(d);
            }),
        );
        let mut listed = Listed {
            holds: self,
            hold,
            unsettled: Some((recorder, lane, dir)),
        };
        let outcome = match tokio::time::timeout(self.timeout, woken).await {
            Ok(Ok(d)) => Outcome::Decided(d),
            _ => Outcome::Expired,
        };
        // Settled: the caller marks what became of it.
        listed.unsettled = None;
        (hold, outcome)
    }

    /// Passes one whole `line` (its line end included) going `dir` on lane `lane`:
    /// held first when the filter matches it, then recorded and written with
    /// `write` as decided. Blocks the calling thread (the direction's copy) while
    /// the message waits: what follows it that way waits behind it.
    pub fn pass(
        &self,
        recorder: &Recorder,
        lane: Lane,
        dir: Dir,
        line: &[u8],
        write: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        self.pass_with(recorder, lane, dir, line, &mut |b| {
            recorder.bytes(lane, dir, b);
            write(b)
        })
    }

    /// [`pass`](Self::pass), the bytes that cross both recorded and written by
    /// `send` (so a caller can do the two under a lock of its own, which the wait
    /// for a decision is not under: the stdio tap's resends go on meanwhile).
    pub fn pass_with(
        &self,
        recorder: &Recorder,
        lane: Lane,
        dir: Dir,
        line: &[u8],
        send: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        if !self.wants(dir, line) {
            return send(line);
        }
        let (hold, outcome) = self.hold_blocking(recorder, lane, dir, line);
        match outcome {
            Outcome::Decided(Decision::Forward) => {
                mark(recorder, lane, dir, hold, HoldStep::Forwarded, Bytes::new());
                send(line)
            }
            Outcome::Decided(Decision::Change(edited)) => {
                // The same line end as the original's.
                let end = &line[line.trim_ascii_end().len()..];
                let new = [edited.trim_ascii_end(), end].concat();
                mark(
                    recorder,
                    lane,
                    dir,
                    hold,
                    HoldStep::Changed,
                    Bytes::from(new.clone()),
                );
                send(&new)
            }
            Outcome::Decided(Decision::Drop) => {
                mark(recorder, lane, dir, hold, HoldStep::Dropped, Bytes::new());
                Ok(())
            }
            Outcome::Expired => {
                mark(recorder, lane, dir, hold, HoldStep::Expired, Bytes::new());
                send(line)
            }
        }
    }
}

/// Records one step of hold `hold` on `lane` (`bytes`: the message for `held` and
/// `changed`, empty otherwise).
pub fn mark(recorder: &Recorder, lane: Lane, dir: Dir, hold: u64, step: HoldStep, bytes: Bytes) {
    recorder.emit(
        lane,
        dir,
        What::Intercept(Box::new(Intercepted { hold, step, bytes })),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_wanted_when_any_of_its_messages_matches() {
        let holds = Interceptor::new(Filter::parse("tool:delete_*").ok(), DEFAULT_TIMEOUT);
        let call =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all"}}"#;
        let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
        assert!(holds.wants(Dir::ToServer, format!("[{ping},{call}]").as_bytes()));
        assert!(!holds.wants(Dir::ToServer, format!("[{ping}]").as_bytes()));
        assert!(!holds.wants(Dir::ToServer, b"not json"));
        holds.set_filter("").unwrap();
        assert!(!holds.active() && !holds.wants(Dir::ToServer, call.as_bytes()));
    }
}
