//! One conversation's state, and the rules about messages: ids, the lifecycle,
//! capabilities, cancellation, progress, ping, the modern result. A conversation is a
//! stdio pipe, a legacy HTTP session, or one modern POST; [`super::Checker`] says which
//! a message belongs to and hands it here, transport-free.
//!
//! This file holds a conversation's state and reads each message; the rules are in
//! one file per kind of message:
//!
//! ```text
//! request.rs        ids never reused, the lifecycle, capabilities declared, progress tokens
//! notification.rs   cancellation and progress notifications
//! response.rs       answers: to nothing, twice, initialize's result, ping, resultType
//! ```

mod notification;
mod request;
mod response;

use super::rules::{self, Rule};
use super::{Finding, Spot};
use crate::jsonrpc::{self, Message};
use crate::wire::classify;
use crate::wire::event::Dir;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// An id, as the key it is compared by: its JSON text, so `1` and `"1"` differ, as
/// JSON-RPC says they do.
type Key = (Dir, String);

/// Where the lifecycle of a legacy conversation is (MCP 2025-11-25 `basic/lifecycle`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// Nothing yet.
    Start,
    /// `initialize` sent (its id), no response yet.
    Initializing(String),
    /// `initialize` answered; `notifications/initialized` not yet sent.
    Initialized,
    /// The operation phase.
    Operating,
}

/// A request still waiting for its response.
#[derive(Debug, Clone)]
struct Open {
    /// Its method, for the findings about its response.
    method: String,
    /// Where it was sent, for `jsonrpc/unanswered`.
    at: Spot,
    /// `_meta.progressToken`, which stays valid while it runs.
    token: Option<String>,
    /// A task-augmented request: its progress token outlives its response
    /// (2025-11-25 `basic/utilities/progress` 3).
    task: bool,
    /// A 2026-07-28 request: its result must carry `resultType`, its questions may only
    /// ask for what it declared.
    modern: bool,
    /// The capabilities a modern request declared in its `_meta`.
    declared: Option<Value>,
}

/// A progress token's history.
#[derive(Debug, Clone, Default)]
struct Token {
    /// Its request is still running (or is a task).
    active: bool,
    /// The last `progress` value, which each notification must exceed.
    last: Option<f64>,
}

/// One conversation.
#[derive(Debug)]
pub struct Scope {
    /// The recording shows it from its first message (a spawned stdio server, an HTTP
    /// session from its `initialize`). When it does not (the recording joined late),
    /// the rules that need its beginning are skipped rather than guessed.
    pub from_start: bool,
    /// `initialize` was seen: the legacy lifecycle applies.
    pub legacy: bool,
    /// A 2026-07-28 request was seen (`_meta` carries the protocol version).
    pub modern: bool,
    /// The version `initialize`'s result named.
    pub version: Option<String>,
    phase: Phase,
    /// What the client declared in `initialize`.
    client_caps: Option<Value>,
    /// What the server declared in its `initialize` result.
    server_caps: Option<Value>,
    /// Requests awaiting a response, by sender and id.
    open: HashMap<Key, Open>,
    /// Every id each side has used (legacy ids are never reused in a session).
    used: HashSet<Key>,
    /// Ids answered, so a second answer is told from an answer to nothing.
    answered: HashSet<Key>,
    /// Ids cancelled: their response may or may not come.
    cancelled: HashSet<Key>,
    /// Progress tokens, by the side whose request gave them.
    tokens: HashMap<Key, Token>,
    /// Rules reported once per conversation (the lifecycle ones would repeat on
    /// every later message otherwise).
    once: HashSet<&'static str>,
}

impl Scope {
    /// A conversation's scope; `from_start` when the recording saw it begin (so a
    /// missing `initialize` is the client's fault, not the recording's).
    pub fn new(from_start: bool) -> Scope {
        Scope {
            from_start,
            legacy: false,
            modern: false,
            version: None,
            phase: Phase::Start,
            client_caps: None,
            server_caps: None,
            open: HashMap::new(),
            used: HashSet::new(),
            answered: HashSet::new(),
            cancelled: HashSet::new(),
            tokens: HashMap::new(),
            once: HashSet::new(),
        }
    }

    /// Batches exist up to 2025-03-26 only: true when this conversation's version
    /// (negotiated, or 2026-07-28 by its `_meta`) has none. Unknown: false.
    pub fn batches_removed(&self) -> bool {
        match &self.version {
            Some(v) => !crate::protocol::supports_batches(v),
            None => self.modern && !self.legacy,
        }
    }

    /// The ids of the requests a POST body carried, so the exchange can tell what it
    /// answered.
    pub fn is_open(&self, from: Dir, id: &str) -> bool {
        self.open.contains_key(&(from, id.to_owned()))
    }

    /// Forgets a request the HTTP layer answered (a 4xx or 5xx with no JSON-RPC body).
    pub fn close(&mut self, from: Dir, id: &str) {
        if self.open.remove(&(from, id.to_owned())).is_some() {
            self.answered.insert((from, id.to_owned()));
        }
    }

    /// A payload's messages: a batch is first judged as a batch (removed in
    /// 2025-06-18), then read item by item.
    pub fn payload(&mut self, from: Dir, value: Value, at: &Spot, out: &mut Vec<Finding>) {
        match value {
            Value::Array(items) => {
                if self.batches_removed() {
                    let version = self.version.clone().unwrap_or_else(|| "2026-07-28".into());
                    out.push(at.finding(
                        rules::BATCH_REMOVED,
                        format!(
                            "a batch of {} message(s) in protocol version {version}",
                            items.len()
                        ),
                    ));
                }
                for item in items {
                    self.message(from, item, at, out);
                }
            }
            one => self.message(from, one, at, out),
        }
    }

    /// One JSON-RPC message (a batch's items come one by one), sent by `from`.
    pub fn message(&mut self, from: Dir, value: Value, at: &Spot, out: &mut Vec<Finding>) {
        let message = match jsonrpc::classify(value) {
            Ok(m) => m,
            // The payload's class said it is a message; an item of a batch may not be.
            Err(refusal) => {
                let why = refusal.outcome.err().map(|e| e.message).unwrap_or_default();
                out.push(at.finding(rules::INVALID_MESSAGE, format!("batch item: {why}")));
                return;
            }
        };
        let modern = classify::of_message(&message).era == Some("modern");
        match message {
            Message::Request(r) => {
                let params = r.params.as_deref();
                self.request(from, &r.id.to_value(), &r.method, params, modern, at, out)
            }
            Message::Notification(n) => {
                self.notification(from, &n.method, n.params.as_deref(), at, out)
            }
            Message::Response(r) => {
                let Some(id) = r.id else {
                    return; // an error about a message whose id could not be read
                };
                let outcome = r.outcome.map(jsonrpc::Payload::into_value);
                self.response(from, &id.to_value(), outcome, at, out)
            }
        }
    }

    /// The requests still open at the end: each a `jsonrpc/unanswered`, unless it was
    /// cancelled.
    pub fn finish(&mut self, out: &mut Vec<Finding>) {
        let mut open: Vec<(Key, Open)> = self.open.drain().collect();
        open.sort_by_key(|(_, o)| o.at.event);
        for ((from, id), o) in open {
            if self.cancelled.contains(&(from, id.clone())) {
                continue;
            }
            let who = match from {
                Dir::ToServer => "the server",
                Dir::ToClient => "the client",
            };
            out.push(o.at.finding(
                rules::UNANSWERED,
                format!("request {} (id {id}): {who} never answered it", o.method),
            ));
        }
    }

    fn once(&mut self, rule: &'static Rule, at: &Spot, message: String, out: &mut Vec<Finding>) {
        if self.once.insert(rule.id) {
            out.push(at.finding(rule, message));
        }
    }
}

fn other(dir: Dir) -> Dir {
    match dir {
        Dir::ToServer => Dir::ToClient,
        Dir::ToClient => Dir::ToServer,
    }
}

/// A value for a message, cut to a line.
pub fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 120 {
        let cut = (0..=117)
            .rev()
            .find(|i| s.is_char_boundary(*i))
            .unwrap_or(0);
        format!("{}…", &s[..cut])
    } else {
        s
    }
}
