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
use crate::wire::event::{Dir, Event, LaneKind};
use crate::wire::http::SESSION_ID;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::time::Duration;

/// How a request ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// No answer in the recording.
    Unanswered,
    /// A result.
    Ok,
    /// A 2026-07-28 result asking for input (`resultType: "input_required"`,
    /// `basic/patterns/mrtr`): a round of an operation, not its end.
    InputRequired,
    /// A `tools/call` result with `isError: true` (MCP 2025-11-25 `server/tools`
    /// "Error Handling": the tool failed, the protocol did not).
    ToolError,
    /// A JSON-RPC error response, its code.
    Error(i64),
}

impl Outcome {
    /// An error of either kind: what `--max-errors` and the `errors` column count.
    pub fn is_error(&self) -> bool {
        matches!(self, Outcome::ToolError | Outcome::Error(_))
    }
}

/// One request and its answer.
#[derive(Debug, Clone)]
pub struct Call {
    /// The request's method.
    pub method: String,
    /// For `tools/call`, `params.name`: the tool.
    pub tool: Option<String>,
    /// Who sent the request (`ToServer`: the client).
    pub from: Dir,
    /// The lane the request travelled on.
    pub lane: String,
    /// The legacy session it belongs to (the `Mcp-Session-Id` sent, or the one
    /// `initialize`'s answer issued).
    pub session: Option<String>,
    /// Its `_meta` declares 2026-07-28.
    pub modern: bool,
    /// When it was sent.
    pub sent: Duration,
    /// When its answer came.
    pub answered: Option<Duration>,
    /// The request's bytes as they crossed.
    pub request_bytes: usize,
    /// The answer's bytes as they crossed.
    pub response_bytes: usize,
    /// How it ended.
    pub outcome: Outcome,
    /// `params.requestState` it echoed (a retry of an operation).
    pub state_in: Option<String>,
    /// `result.requestState` of an input-required answer (the next round must echo it).
    pub state_out: Option<String>,
    /// The event that carried the request, from 1.
    pub event: usize,
    /// The request's params, kept for the methods whose content `check`'s security
    /// rules read ([`KEEP`]).
    pub params: Option<Value>,
    /// The answer's result, kept likewise (and every result asking for input).
    pub result: Option<Value>,
    /// The event that carried the answer, and its lane.
    pub answer_at: Option<(usize, String)>,
}

/// The methods whose params and results a [`Call`] keeps: what the security rules
/// read (tools and prompts listed, tool results, resources read, the server's
/// sampling and elicitation requests, `initialize`'s server name).
pub const KEEP: &[&str] = &[
    "initialize",
    "tools/list",
    "prompts/list",
    "tools/call",
    "resources/read",
    "sampling/createMessage",
    "elicitation/create",
];

impl Call {
    /// Answer time minus send time.
    pub fn latency(&self) -> Option<Duration> {
        self.answered.map(|a| a.saturating_sub(self.sent))
    }
}

/// One notification.
#[derive(Debug, Clone)]
pub struct Note {
    /// Its method.
    pub method: String,
    /// Who sent it.
    pub from: Dir,
    /// The lane it travelled on.
    pub lane: String,
    /// Its legacy session, if any.
    pub session: Option<String>,
    /// Its bytes.
    pub bytes: usize,
    /// The event that carried it, from 1.
    pub event: usize,
    /// Its params, kept for `notifications/message` (a log the server sends).
    pub params: Option<Value>,
    /// When.
    pub t: Duration,
}

/// An HTTP head that says something the security rules read.
#[derive(Debug, Clone)]
pub struct HeadSeen {
    /// The event that carried it.
    pub event: usize,
    /// Its lane.
    pub lane: String,
    /// Which way.
    pub dir: Dir,
    /// When.
    pub t: Duration,
    /// A response's `Mcp-Session-Id`: a session issued (or repeated).
    pub session: Option<String>,
    /// A request's `Authorization` value.
    pub authorization: Option<String>,
    /// A request's `Host`.
    pub host: Option<String>,
}

/// A line of a stdio server's stderr (its log).
#[derive(Debug, Clone)]
pub struct LogLine {
    /// The event that carried it.
    pub event: usize,
    /// Its lane.
    pub lane: String,
    /// When.
    pub t: Duration,
    /// The line, lossy UTF-8.
    pub text: String,
}

/// One tool as a `tools/list` result defined it.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// `name`.
    pub name: String,
    /// The definition re-serialized compactly (no whitespace): what a client would
    /// hand a model, give or take its own wrapping.
    pub json: String,
    /// The conversation whose `tools/list` returned it (session, else lane).
    pub server: String,
    /// The event that carried the list.
    pub event: usize,
    /// The lane that carried it.
    pub lane: String,
    /// When the list arrived.
    pub t: Duration,
    /// The server's own name (`serverInfo.name` of `initialize`'s result, or of a
    /// 2026-07-28 result's `_meta`), when the recording shows it.
    pub server_name: Option<String>,
    /// The definition itself.
    pub value: Value,
}

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
        let mut r = Reader {
            decoder: Decoder::with_max(max),
            ledger: Ledger::default(),
            open: HashMap::new(),
            lanes: HashMap::new(),
        };
        for e in events {
            r.event(e);
        }
        r.ledger
    }
}

/// What one HTTP lane's exchanges say about sessions.
#[derive(Default)]
struct LaneState {
    /// The session each request sent (in order), for its response to inherit.
    asked: VecDeque<Option<String>>,
    /// The session of the request being read.
    request: Option<String>,
    /// The session of the exchange whose response is being read.
    response: Option<String>,
    /// A session id the response head issued (`initialize`'s answer).
    issued: Option<String>,
}

/// Reads events into a [`Ledger`].
struct Reader {
    /// The same framing every view uses.
    decoder: Decoder,
    /// What is being built.
    ledger: Ledger,
    /// Requests awaiting their answer: (sender, conversation, id as JSON text) →
    /// index in `calls`.
    open: HashMap<(Dir, String, String), usize>,
    /// HTTP lanes' session bookkeeping.
    lanes: HashMap<String, LaneState>,
}

impl Reader {
    fn event(&mut self, e: &Event) {
        self.ledger.events += 1;
        self.ledger.first.get_or_insert(e.t);
        self.ledger.last = Some(e.t);
        let lane = e.lane.label();
        let http = e.lane.kind == LaneKind::Http;
        for fact in self.decoder.feed(e) {
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
                    } else if !head.status().is_some_and(|s| (100..200).contains(&s)) {
                        l.response = l.asked.pop_front().flatten();
                        l.issued = session;
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
                let keep = KEEP.contains(&method);
                self.open
                    .insert((at.dir, conv, id), self.ledger.calls.len());
                self.ledger.calls.push(Call {
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
                });
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
        let Some(i) = found else {
            self.ledger.stray += 1;
            return;
        };
        let issued = self.lanes.get(at.lane).and_then(|l| l.issued.clone());
        let call = &mut self.ledger.calls[i];
        call.answered = Some(at.t);
        call.answer_at = Some((at.event, at.lane.to_owned()));
        call.response_bytes = bytes;
        if call.session.is_none() {
            call.session = issued.or_else(|| at.session.clone());
        }
        if let Some(e) = m.get("error") {
            call.outcome = Outcome::Error(e.get("code").and_then(Value::as_i64).unwrap_or(0));
            return;
        }
        let result = m.get("result").unwrap_or(&Value::Null);
        call.outcome = if result.get("resultType").and_then(Value::as_str) == Some("input_required")
        {
            call.state_out = result
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_owned);
            call.result = Some(result.clone());
            Outcome::InputRequired
        } else if result.get("isError") == Some(&Value::Bool(true)) {
            Outcome::ToolError
        } else {
            Outcome::Ok
        };
        if KEEP.contains(&call.method.as_str()) {
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
        if let Some(name) = name {
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
