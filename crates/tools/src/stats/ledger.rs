//! A recording read into what `stats` and `check`'s contracts count: every request
//! paired with its answer (its method, its tool, when it was sent and answered, its
//! bytes each way, how it ended), every notification, every tool definition a
//! `tools/list` returned.
//!
//! Pairing follows JSON-RPC 2.0 §5 (a response carries its request's id) within one
//! conversation: a stdio pipe, a legacy HTTP session (MCP 2025-11-25
//! `basic/transports` "Session Management": the `Mcp-Session-Id` the request carried),
//! or, without a session (`initialize`, a 2026-07-28 stateless POST), the connection
//! whose response carries the answer (HTTP/1.1 answers in order on a connection).

use crate::wire::decode::{Decoder, Fact};
use crate::wire::event::{Dir, Event, LaneKind, What};
use crate::wire::http::SESSION_ID;
use crate::wire::http::mirror::PROTOCOL_VERSION;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::time::Duration;

pub use super::items::{Call, HeadSeen, KEEP, LogLine, Note, Outcome, ToolDef};

/// Everything read from one recording.
#[derive(Debug, Default)]
pub struct Ledger {
    /// Requests, in the order sent.
    pub calls: Vec<Call>,
    /// Notifications, in order.
    pub notes: Vec<Note>,
    /// Tool definitions, in the order listed (a tool listed twice appears twice).
    pub tools: Vec<ToolDef>,
    /// Events read.
    pub events: usize,
    /// The first event's time.
    pub first: Option<Duration>,
    /// The last event's time.
    pub last: Option<Duration>,
    /// Responses that named no request open in their conversation.
    pub stray: usize,
    /// HTTP heads carrying a session id or an `Authorization`.
    pub heads: Vec<HeadSeen>,
    /// stdio servers' stderr lines.
    pub logs: Vec<LogLine>,
    /// `serverInfo.name` per conversation (session, else lane).
    pub server_names: HashMap<String, String>,
}

impl Ledger {
    /// The recording's span: last event minus first.
    pub fn duration(&self) -> Duration {
        match (self.first, self.last) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => Duration::ZERO,
        }
    }

    /// Reads a whole recording.
    pub fn read(events: &[Event], max: usize) -> Ledger {
        let mut b = Ledger::build(max);
        for e in events {
            b.feed(e);
        }
        b.finish()
    }

    /// A ledger read from events fed one at a time (a recording streamed).
    pub fn build(max: usize) -> Building {
        Building(Reader::new(max, false))
    }

    /// [`Ledger::build`] for counting only: no request's params or result is kept
    /// (`stats`: its memory is the calls' figures, not their contents).
    pub fn build_counting(max: usize) -> Building {
        let mut r = Reader::new(max, false);
        r.keep = false;
        Building(r)
    }
}

/// A [`Ledger`] being read, an event at a time.
pub struct Building(Reader);

impl Building {
    /// Reads one event.
    pub fn feed(&mut self, e: &Event) {
        self.0.event(e, &mut |_, _| {});
    }

    /// The ledger: every request in the order sent, answered or not.
    pub fn finish(self) -> Ledger {
        let mut r = self.0;
        let mut calls = std::mem::take(&mut r.finished);
        calls.extend(r.open.drain().map(|(_, c)| c));
        calls.sort_by_key(|(seq, _)| *seq);
        r.ledger.calls = calls.into_iter().map(|(_, c)| c).collect();
        r.ledger
    }
}

/// What one HTTP lane's exchanges say about sessions.
#[derive(Default)]
pub(super) struct LaneState {
    /// The `MCP-Protocol-Version` header of the request being read.
    version: Option<String>,
    /// The status of the response being read.
    status: Option<u16>,
    /// What the lane's open event said (the peer's address; a process's command).
    peer: Option<String>,
    /// How many of its two directions have closed: at two, a live reader forgets it.
    closed: u8,
    /// The session each request sent (in order), for its response to inherit.
    asked: VecDeque<Option<String>>,
    /// The session of the request being read.
    request: Option<String>,
    /// The session of the exchange whose response is being read.
    response: Option<String>,
    /// A session id the response head issued (`initialize`'s answer).
    issued: Option<String>,
}

/// A request's key while it awaits its answer: (sender, conversation, id as JSON
/// text).
pub(super) type Key = (Dir, String, String);

/// Reads events into a [`Ledger`].
pub(super) struct Reader {
    /// The same framing every view uses.
    decoder: Decoder,
    /// What is being built.
    pub(super) ledger: Ledger,
    /// Requests awaiting their answer, each with its number in sending order.
    pub(super) open: HashMap<Key, (usize, Call)>,
    /// Requests done with (answered, replaced by a request reusing their id, or,
    /// live, left by a closed lane), with their numbers.
    pub(super) finished: Vec<(usize, Call)>,
    /// The next request's number.
    next: usize,
    /// HTTP lanes' session bookkeeping.
    pub(super) lanes: HashMap<String, LaneState>,
    /// Live: forget a lane once both its directions closed, and give up its requests.
    live: bool,
    /// Keep the params and results of the [`KEEP`] methods (what `check`'s security
    /// rules read); `stats` counts without them.
    pub(super) keep: bool,
    /// Live: requests kept open at most.
    pub(super) max_open: usize,
    /// Live: requests not followed (too many open).
    pub(super) untracked: u64,
}

impl Reader {
    pub(super) fn new(max: usize, live: bool) -> Reader {
        Reader {
            decoder: Decoder::with_max(max),
            ledger: Ledger::default(),
            open: HashMap::new(),
            finished: Vec::new(),
            next: 0,
            lanes: HashMap::new(),
            live,
            keep: true,
            max_open: usize::MAX,
            untracked: 0,
        }
    }

    pub(super) fn event(&mut self, e: &Event, facts: &mut dyn FnMut(&Event, &Fact)) {
        self.ledger.events += 1;
        self.ledger.first.get_or_insert(e.t);
        self.ledger.last = Some(e.t);
        let lane = e.lane.label();
        let http = e.lane.kind == LaneKind::Http;
        match &e.what {
            What::Open(peer) => {
                self.lanes.entry(lane.clone()).or_default().peer = Some(peer.clone())
            }
            What::Close(_) if self.live => self.closed(&lane),
            _ => {}
        }
        for fact in self.decoder.feed(e) {
            facts(e, &fact);
            match fact {
                Fact::Stderr(line) => self.ledger.logs.push(LogLine {
                    event: self.ledger.events,
                    lane: lane.clone(),
                    t: e.t,
                    text: String::from_utf8_lossy(&line).into_owned(),
                }),
                Fact::Head(head) if http => {
                    let l = self.lanes.entry(lane.clone()).or_default();
                    let session = head.header(SESSION_ID).map(str::to_owned);
                    let authorization = head.header("authorization").map(str::to_owned);
                    if session.is_some() || authorization.is_some() {
                        self.ledger.heads.push(HeadSeen {
                            event: self.ledger.events,
                            lane: lane.clone(),
                            dir: e.dir,
                            t: e.t,
                            session: session.clone().filter(|_| e.dir == Dir::ToClient),
                            authorization,
                            host: head.header("host").map(str::to_owned),
                        });
                    }
                    if head.method().is_some() {
                        l.request = session.clone();
                        l.asked.push_back(session);
                        l.version = head.header(PROTOCOL_VERSION).map(str::to_owned);
                    } else if !head.status().is_some_and(|s| (100..200).contains(&s)) {
                        l.response = l.asked.pop_front().flatten();
                        l.issued = session;
                        l.status = head.status();
                    }
                }
                Fact::Payload { bytes, class, .. } if class.is_message() => {
                    let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
                        continue;
                    };
                    let session = if http {
                        let l = self.lanes.entry(lane.clone()).or_default();
                        match e.dir {
                            Dir::ToServer => l.request.clone(),
                            Dir::ToClient => l.response.clone(),
                        }
                    } else {
                        None
                    };
                    let at = At {
                        dir: e.dir,
                        lane: &lane,
                        session,
                        t: e.t,
                        event: self.ledger.events,
                    };
                    match value {
                        Value::Array(items) => {
                            for item in items {
                                let n = item.to_string().len();
                                self.message(item, n, &at);
                            }
                        }
                        one => self.message(one, bytes.len(), &at),
                    }
                }
                _ => {}
            }
        }
    }

    fn message(&mut self, m: Value, bytes: usize, at: &At) {
        let id = m.get("id").filter(|id| !id.is_null()).map(Value::to_string);
        let conv = at.session.clone().unwrap_or_else(|| at.lane.to_owned());
        match (m.get("method").and_then(Value::as_str), id) {
            (Some(method), Some(id)) => {
                let params = m.get("params");
                let str_of = |k: &str| {
                    params
                        .and_then(|p| p.get(k))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                };
                let modern = params
                    .and_then(|p| p.get("_meta"))
                    .and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"))
                    .is_some();
                let keep = self.keep && KEEP.contains(&method);
                let meta = params.and_then(|p| p.get("_meta"));
                let meta_str = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str);
                let lane_state = self.lanes.get(at.lane);
                let version = meta_str("io.modelcontextprotocol/protocolVersion")
                    .map(str::to_owned)
                    .or_else(|| lane_state.and_then(|l| l.version.clone()));
                let target = match method {
                    "tools/call" | "prompts/get" => str_of("name"),
                    m if m.starts_with("resources/") => str_of("uri"),
                    _ => None,
                };
                let trace = meta_str("traceparent")
                    .map(|tp| (tp.to_owned(), meta_str("tracestate").map(str::to_owned)));
                let peer = lane_state.and_then(|l| l.peer.clone());
                if self.live && self.open.len() >= self.max_open {
                    self.untracked += 1;
                    return;
                }
                let seq = self.next;
                self.next += 1;
                let call = Call {
                    method: method.to_owned(),
                    tool: if method == "tools/call" {
                        str_of("name")
                    } else {
                        None
                    },
                    from: at.dir,
                    lane: at.lane.to_owned(),
                    session: at.session.clone(),
                    modern,
                    sent: at.t,
                    answered: None,
                    request_bytes: bytes,
                    response_bytes: 0,
                    outcome: Outcome::Unanswered,
                    state_in: str_of("requestState"),
                    state_out: None,
                    event: at.event,
                    params: if keep { params.cloned() } else { None },
                    result: None,
                    answer_at: None,
                    id: id.clone(),
                    target,
                    version,
                    trace,
                    status: None,
                    error_message: None,
                    peer,
                };
                // A request reusing an id still open in its conversation: the earlier
                // one can no longer be told apart, so it stays unanswered.
                if let Some(earlier) = self.open.insert((at.dir, conv, id), (seq, call)) {
                    self.finished.push(earlier);
                }
            }
            (Some(method), None) => self.ledger.notes.push(Note {
                method: method.to_owned(),
                from: at.dir,
                lane: at.lane.to_owned(),
                session: at.session.clone(),
                bytes,
                event: at.event,
                params: if method == "notifications/message" {
                    m.get("params").cloned()
                } else {
                    None
                },
                t: at.t,
            }),
            (None, Some(id)) => self.answer(&m, id, conv, bytes, at),
            (None, None) => {}
        }
    }

    /// A response: the request it answers closed, its outcome and bytes noted.
    fn answer(&mut self, m: &Value, id: String, conv: String, bytes: usize, at: &At) {
        let asker = match at.dir {
            Dir::ToServer => Dir::ToClient,
            Dir::ToClient => Dir::ToServer,
        };
        // Its conversation first; else the lane (a session issued by this very answer).
        let found = self
            .open
            .remove(&(asker, conv, id.clone()))
            .or_else(|| self.open.remove(&(asker, at.lane.to_owned(), id)));
        let Some((seq, mut call)) = found else {
            self.ledger.stray += 1;
            return;
        };
        let lane_state = self.lanes.get(at.lane);
        let issued = lane_state.and_then(|l| l.issued.clone());
        call.status = lane_state.and_then(|l| l.status);
        call.response_bytes = bytes;
        self.fill(&mut call, m, issued, at);
        self.finished.push((seq, call));
    }

    /// Live: a lane closed; once both its directions have, its bookkeeping goes and
    /// the requests it carried that are still open are given up, unanswered.
    fn closed(&mut self, lane: &str) {
        let l = self.lanes.entry(lane.to_owned()).or_default();
        l.closed += 1;
        if l.closed < 2 {
            return;
        }
        self.lanes.remove(lane);
        let gone: Vec<Key> = self
            .open
            .iter()
            .filter(|(_, (_, c))| c.lane == lane)
            .map(|(k, _)| k.clone())
            .collect();
        for k in gone {
            if let Some(c) = self.open.remove(&k) {
                self.finished.push(c);
            }
        }
    }

    /// An answered request's outcome, result and what its answer says of the server.
    fn fill(&mut self, call: &mut Call, m: &Value, issued: Option<String>, at: &At) {
        call.answered = Some(at.t);
        call.answer_at = Some((at.event, at.lane.to_owned()));
        if call.session.is_none() {
            call.session = issued.or_else(|| at.session.clone());
        }
        if let Some(e) = m.get("error") {
            call.outcome = Outcome::Error(e.get("code").and_then(Value::as_i64).unwrap_or(0));
            call.error_message = e.get("message").and_then(Value::as_str).map(str::to_owned);
            return;
        }
        let result = m.get("result").unwrap_or(&Value::Null);
        call.outcome = if result.get("resultType").and_then(Value::as_str) == Some("input_required")
        {
            call.state_out = result
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if self.keep {
                call.result = Some(result.clone());
            }
            Outcome::InputRequired
        } else if result.get("isError") == Some(&Value::Bool(true)) {
            Outcome::ToolError
        } else {
            Outcome::Ok
        };
        if self.keep && KEEP.contains(&call.method.as_str()) {
            call.result = Some(result.clone());
        }
        let conv_key = call.session.clone().unwrap_or_else(|| call.lane.clone());
        let name = result
            .get("serverInfo")
            .or_else(|| {
                result
                    .get("_meta")
                    .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
            })
            .and_then(|i| i.get("name"))
            .and_then(Value::as_str);
        // Live, nothing is kept per conversation past its requests: a long-running
        // server would keep one name per session it ever served.
        if let Some(name) = name.filter(|_| !self.live) {
            self.ledger
                .server_names
                .insert(conv_key.clone(), name.to_owned());
        }
        if call.method == "tools/list"
            && let Some(tools) = result.get("tools").and_then(Value::as_array)
        {
            let server = call.session.clone().unwrap_or_else(|| call.lane.clone());
            for t in tools {
                self.ledger.tools.push(ToolDef {
                    name: t
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    json: t.to_string(),
                    server: server.clone(),
                    event: at.event,
                    lane: at.lane.to_owned(),
                    t: at.t,
                    server_name: self.ledger.server_names.get(&conv_key).cloned(),
                    value: t.clone(),
                });
            }
        }
    }
}

/// Where a message was read.
struct At<'a> {
    /// Which way it went.
    dir: Dir,
    /// Its lane's label.
    lane: &'a str,
    /// Its legacy session, if the exchange named one.
    session: Option<String>,
    /// When.
    t: Duration,
    /// Its event's number.
    event: usize,
}
