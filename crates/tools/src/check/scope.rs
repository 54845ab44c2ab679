//! One conversation's state, and the rules about messages: ids, the lifecycle,
//! capabilities, cancellation, progress, ping, the modern result. A conversation is a
//! stdio pipe, a legacy HTTP session, or one modern POST; [`super::Checker`] says which
//! a message belongs to and hands it here, transport-free.

use super::rules::{self, Rule};
use super::{Finding, Spot};
use crate::jsonrpc::{self, Message};
use crate::protocol::capabilities;
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

    #[allow(clippy::too_many_arguments)]
    fn request(
        &mut self,
        from: Dir,
        id: &Value,
        method: &str,
        params: Option<&Value>,
        modern: bool,
        at: &Spot,
        out: &mut Vec<Finding>,
    ) {
        let key = (from, id.to_string());
        if let Some(earlier) = self.open.get(&key) {
            out.push(at.finding(
                rules::DUPLICATE_ID,
                format!(
                    "request {method} reuses id {id}, and request {} ({}) with that id is still unanswered",
                    earlier.method, earlier.at
                ),
            ));
        } else if !modern && self.used.contains(&key) {
            out.push(at.finding(
                rules::DUPLICATE_ID,
                format!("request {method} reuses id {id}, used before in this session"),
            ));
        }
        self.modern |= modern;
        match from {
            Dir::ToServer if !modern => self.client_request(id, method, params, at, out),
            Dir::ToServer => {}
            Dir::ToClient => self.server_request(method, at, out),
        }
        let meta = params.and_then(|p| p.get("_meta"));
        let token = meta
            .and_then(|m| m.get("progressToken"))
            .map(Value::to_string);
        let task = params
            .and_then(|p| p.get("task"))
            .is_some_and(Value::is_object);
        if let Some(t) = &token {
            self.tokens.insert(
                (from, t.clone()),
                Token {
                    active: true,
                    last: None,
                },
            );
        }
        let declared = meta
            .and_then(|m| m.get(capabilities::CLIENT_CAPABILITIES))
            .cloned();
        self.used.insert(key.clone());
        self.open.insert(
            key,
            Open {
                method: method.to_owned(),
                at: at.clone(),
                token,
                task,
                modern,
                declared,
            },
        );
    }

    /// A legacy client's request: the lifecycle, then what the server declared.
    fn client_request(
        &mut self,
        id: &Value,
        method: &str,
        params: Option<&Value>,
        at: &Spot,
        out: &mut Vec<Finding>,
    ) {
        if method == "initialize" {
            self.legacy = true;
            self.phase = Phase::Initializing(id.to_string());
            self.client_caps = params.and_then(|p| p.get("capabilities")).cloned();
            return;
        }
        if method == "ping" || !self.from_start {
            return;
        }
        match self.phase {
            Phase::Start => self.once(
                rules::FIRST_NOT_INITIALIZE,
                at,
                format!("request {method} before any initialize"),
                out,
            ),
            Phase::Initializing(_) => out.push(at.finding(
                rules::BEFORE_INITIALIZE_RESULT,
                format!("request {method} while initialize is unanswered"),
            )),
            Phase::Initialized => self.once(
                rules::INITIALIZED_MISSING,
                at,
                format!("request {method} before notifications/initialized"),
                out,
            ),
            Phase::Operating => {}
        }
        if let (Some(caps), Some((capability, sub))) = (
            &self.server_caps,
            capabilities::server_capability_for(method),
        ) {
            let slot = caps.get(capability);
            let missing = match sub {
                None => !slot.is_some_and(Value::is_object),
                Some(sub) => slot.and_then(|s| s.get(sub)) != Some(&Value::Bool(true)),
            };
            if missing {
                let name = sub.map_or(capability.to_owned(), |s| format!("{capability}.{s}"));
                out.push(at.finding(
                    rules::SERVER_CAPABILITY,
                    format!("request {method}, but the server's initialize result declared no {name} capability"),
                ));
            }
        }
    }

    /// A request from the server: forbidden in 2026-07-28; else the lifecycle and what
    /// the client declared.
    fn server_request(&mut self, method: &str, at: &Spot, out: &mut Vec<Finding>) {
        if self.modern && !self.legacy {
            out.push(at.finding(
                rules::MODERN_SERVER_REQUEST,
                format!("the server sent request {method} to a 2026-07-28 client"),
            ));
            return;
        }
        if !self.from_start || method == "ping" {
            return;
        }
        if self.phase != Phase::Operating {
            out.push(at.finding(
                rules::SERVER_REQUEST_BEFORE_INITIALIZED,
                format!("request {method} before notifications/initialized"),
            ));
        }
        if let Some(caps) = &self.client_caps
            && let Err(e) = capabilities::may_ask(caps, method)
        {
            out.push(at.finding(rules::CLIENT_CAPABILITY, e.message));
        }
    }

    fn notification(
        &mut self,
        from: Dir,
        method: &str,
        params: Option<&Value>,
        at: &Spot,
        out: &mut Vec<Finding>,
    ) {
        match method {
            "notifications/initialized"
                if from == Dir::ToServer && self.phase == Phase::Initialized =>
            {
                self.phase = Phase::Operating;
            }
            "notifications/cancelled" => {
                let Some(id) = params.and_then(|p| p.get("requestId")) else {
                    return;
                };
                let key = (from, id.to_string());
                if from == Dir::ToServer
                    && matches!(&self.phase, Phase::Initializing(init) if *init == key.1)
                {
                    out.push(at.finding(
                        rules::CANCEL_INITIALIZE,
                        format!("notifications/cancelled names initialize's id {id}"),
                    ));
                } else if self.from_start && !self.used.contains(&key) {
                    out.push(at.finding(
                        rules::CANCEL_UNKNOWN,
                        format!("notifications/cancelled names id {id}, which this side never sent a request with"),
                    ));
                }
                self.cancelled.insert(key);
            }
            "notifications/progress" => self.progress(from, params, at, out),
            _ => {}
        }
    }

    fn progress(&mut self, from: Dir, params: Option<&Value>, at: &Spot, out: &mut Vec<Finding>) {
        let Some(token) = params.and_then(|p| p.get("progressToken")) else {
            return;
        };
        let requester = other(from);
        let value = params
            .and_then(|p| p.get("progress"))
            .and_then(Value::as_f64);
        match self.tokens.get_mut(&(requester, token.to_string())) {
            None if self.from_start => out.push(at.finding(
                rules::PROGRESS_UNKNOWN_TOKEN,
                format!("progress token {token} was given by no request"),
            )),
            None => {}
            Some(t) => {
                if !t.active {
                    out.push(at.finding(
                        rules::PROGRESS_UNKNOWN_TOKEN,
                        format!("progress token {token}: its request was already answered"),
                    ));
                }
                if let (Some(last), Some(now)) = (t.last, value)
                    && now <= last
                {
                    out.push(at.finding(
                        rules::PROGRESS_NOT_INCREASING,
                        format!("progress {now} after {last} for token {token}"),
                    ));
                }
                t.last = value.or(t.last);
            }
        }
    }

    fn response(
        &mut self,
        from: Dir,
        id: &Value,
        outcome: Result<Value, jsonrpc::ErrorObject>,
        at: &Spot,
        out: &mut Vec<Finding>,
    ) {
        if from == Dir::ToServer && self.modern && !self.legacy {
            out.push(at.finding(
                rules::MODERN_CLIENT_RESPONSE,
                format!("the client sent a response (id {id}) to a 2026-07-28 server"),
            ));
        }
        let key = (other(from), id.to_string());
        let Some(open) = self.open.remove(&key) else {
            if self.answered.contains(&key) {
                out.push(at.finding(
                    rules::ANSWERED_TWICE,
                    format!("a second response to id {id}"),
                ));
            } else if self.from_start && !self.cancelled.contains(&key) {
                out.push(at.finding(
                    rules::RESPONSE_TO_NOTHING,
                    format!("a response to id {id}, which the peer never used for a request"),
                ));
            }
            return;
        };
        self.answered.insert(key);
        if let Some(t) = &open.token
            && !open.task
            && let Some(token) = self.tokens.get_mut(&(other(from), t.clone()))
        {
            token.active = false;
        }
        let Ok(result) = outcome else {
            if open.method == "initialize" {
                self.phase = Phase::Start;
            }
            return;
        };
        match open.method.as_str() {
            "initialize" if !open.modern => {
                self.phase = Phase::Initialized;
                self.server_caps = result.get("capabilities").cloned();
                self.version = result
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            "ping" => {
                let extra: Vec<&String> = result
                    .as_object()
                    .map(|o| {
                        o.keys()
                            .filter(|k| !matches!(k.as_str(), "_meta" | "resultType"))
                            .collect()
                    })
                    .unwrap_or_default();
                if !result.is_object() || !extra.is_empty() {
                    out.push(at.finding(
                        rules::PING_RESULT,
                        format!("ping answered with {}", short(&result)),
                    ));
                }
            }
            _ => {}
        }
        if open.modern && from == Dir::ToClient {
            if result.get("resultType").is_none() {
                out.push(at.finding(
                    rules::MODERN_RESULT_TYPE,
                    format!("the result of {} (id {id}) has no resultType", open.method),
                ));
            }
            if let Err(e) = capabilities::check_input_requests(
                open.declared.as_ref().unwrap_or(&Value::Null),
                &result,
            ) {
                out.push(at.finding(rules::CLIENT_CAPABILITY, e.message));
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
