//! Spans from calls: one per MCP operation (a request and its answer, as
//! [`crate::stats::live::Live`] hands them back), named and attributed per
//! OpenTelemetry's MCP semantic conventions (`docs/gen-ai/mcp.md`: span name
//! `{mcp.method.name} {target}`, kind CLIENT on the sender's side, SERVER on the
//! receiver's). The wire is the spine: every span is a rendering of recorded events,
//! its times the events' stamps on the recording's clock.
//!
//! The kind: SERVER for a request that arrived, CLIENT for one sent. A server's (or a
//! bridge's) recording: the client's requests are SERVER spans, its own requests to
//! the client (sampling, elicitation) CLIENT. A client's: the reverse. A tap relays
//! each request to the server it fronts and waits for the answer as a client would:
//! its spans are those of a client (a request from the client, CLIENT; one from the
//! server, SERVER), so a trace shows the tap's span beside the server's. A bridge's
//! requests to its stdio children are CLIENT spans.
//!
//! A 2026-07-28 operation answered `input_required` and retried with the
//! `requestState` it was given (MCP 2026-07-28 `basic/patterns/mrtr`) becomes one
//! operation span with each attempt as a child, linked by the exact `requestState`
//! string (never by the request id, which a retry may reuse or change). Read live, a
//! link is made when the retry arrives: a state issued twice is refused (both rounds
//! then stand alone) and counted in [`Spans::ambiguous`].
//!
//! A request whose `params._meta` carries a W3C `traceparent` continues that trace:
//! its span's parent is the remote span (the conventions' "Context propagation").

use super::proto::{KIND_CLIENT, KIND_SERVER, KeyValue, STATUS_ERROR, Span, Status};
use crate::stats::items::{Call, Outcome};
use crate::wire::event::Dir;
use std::collections::HashMap;
use std::time::Duration;

/// The recorder's standpoint, from its transcript header's `role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `serve`, `bridge`: requests from the client are served here.
    Server,
    /// `client`, and the tap, which relays each request to the server it fronts and
    /// waits for the answer as a client would.
    Client,
}

impl Role {
    /// The standpoint of a transcript header's role: `server` and `bridge` serve;
    /// `client` and `tap` send.
    pub fn of(role: &str) -> Role {
        match role {
            "server" | "bridge" => Role::Server,
            _ => Role::Client,
        }
    }

    /// The span kind of a request sent `from`: a request that arrives is SERVER, one
    /// that leaves is CLIENT.
    pub fn kind(self, from: Dir) -> i32 {
        match (self, from) {
            (Role::Server, Dir::ToServer) | (Role::Client, Dir::ToClient) => KIND_SERVER,
            _ => KIND_CLIENT,
        }
    }
}

/// One operation's duration, for the `mcp.*.operation.duration` histograms.
#[derive(Debug, Clone)]
pub struct Measure {
    /// SERVER or CLIENT: which metric.
    pub kind: i32,
    /// Seconds, first attempt sent to final answer.
    pub seconds: f64,
    /// The operation span's attributes (the metric keeps those the conventions list).
    pub attributes: Vec<KeyValue>,
}

/// What one call turned into.
#[derive(Debug, Default)]
pub struct Made {
    /// Spans ended by it: the call's own, and its operation's when it was the last
    /// round.
    pub spans: Vec<Span>,
    /// An operation ended.
    pub measure: Option<Measure>,
}

/// A trace position: the ids a new span takes its trace and parent from.
#[derive(Debug, Clone)]
struct Context {
    /// The trace.
    trace_id: [u8; 16],
    /// The parent span, if any.
    parent: Option<[u8; 8]>,
    /// `tracestate`, passed on.
    state: String,
    /// W3C trace flags of the parent (sampled, bit 0), and whether it is remote.
    flags: u32,
}

/// An operation still asking for input: its span is sent when its last round ends.
#[derive(Debug, Clone)]
struct Open {
    /// Its trace and parent.
    context: Context,
    /// The operation span's id, the attempts' parent.
    span_id: [u8; 8],
    /// Its first round.
    first: Call,
    /// When the last round was answered (a retry must come after it).
    answered: Duration,
}

/// Sessions seen: for the session duration metrics.
#[derive(Debug, Clone)]
pub struct Session {
    /// First request sent.
    pub first: Duration,
    /// Last answer (or request).
    pub last: Duration,
    /// `mcp.protocol.version` seen on it.
    pub version: Option<String>,
}

/// The span builder for one recording.
pub struct Spans {
    /// The recorder's standpoint.
    role: Role,
    /// The recording's time 0, nanoseconds since the Unix epoch.
    base_ns: u64,
    /// A bridge's recording: its HTTP lanes are served, its children's stdio lanes
    /// are where it is the client.
    bridge: bool,
    /// What a lane's peer is to this recorder: `client.*` to a server, `server.*` to
    /// a client, nothing to a tap (its lanes face both ways).
    peer_keys: Option<(&'static str, &'static str)>,
    /// Operations awaiting a retry, by the exact `requestState` their last answer issued.
    open: HashMap<String, Open>,
    /// States refused as links (issued twice).
    pub ambiguous: u64,
    /// Sessions by id.
    pub sessions: HashMap<String, Session>,
}

/// The conventions' bucket boundaries for the MCP duration histograms, in seconds.
pub const BUCKETS: &[f64] = &[
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

impl Spans {
    /// A builder for a recording made by `role` (`server`, `client`, `tap`, `bridge`),
    /// whose time 0 was `started_us` microseconds after the Unix epoch.
    pub fn new(role: &str, started_us: i64) -> Spans {
        Spans {
            role: Role::of(role),
            base_ns: u64::try_from(started_us).unwrap_or(0).saturating_mul(1000),
            bridge: role == "bridge",
            peer_keys: match role {
                "server" | "bridge" => Some(("client.address", "client.port")),
                "client" => Some(("server.address", "server.port")),
                _ => None,
            },
            open: HashMap::new(),
            ambiguous: 0,
            sessions: HashMap::new(),
        }
    }

    /// The recorder's standpoint.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The span kind of `c`: by the recorder's standpoint and the request's
    /// direction; a bridge's requests to its stdio children are its own (CLIENT).
    fn kind(&self, c: &Call) -> i32 {
        if self.bridge && !http_lane(&c.lane) {
            return Role::Client.kind(c.from);
        }
        self.role.kind(c.from)
    }

    /// The recording's time `t` as nanoseconds since the Unix epoch.
    pub fn at(&self, t: Duration) -> u64 {
        self.base_ns
            .saturating_add(u64::try_from(t.as_nanos()).unwrap_or(u64::MAX))
    }

    /// The spans (and the operation, if one ended) of one answered call.
    pub fn call(&mut self, c: &Call) -> Made {
        self.session(c);
        let kind = self.kind(c);
        let asks = c.modern && c.outcome == Outcome::InputRequired;
        // A retry: the exact state an earlier answer issued (MCP 2026-07-28
        // `basic/patterns/mrtr`: the client echoes `requestState` unchanged), the same
        // method, sent after that answer.
        let retry_of = c
            .state_in
            .as_deref()
            .filter(|_| c.modern)
            .and_then(|s| {
                let o = self.open.get(s)?;
                (o.first.method == c.method && c.sent >= o.answered).then(|| s.to_owned())
            })
            .and_then(|s| self.open.remove(&s));
        if let Some(op) = retry_of {
            let attempt = self.span(c, kind, &op.context_child(), fresh_span_id());
            if asks && let Some(state) = &c.state_out {
                let mut op = op;
                op.answered = c.answered.unwrap_or(c.sent);
                self.keep_open(state.clone(), op);
                return Made {
                    spans: vec![attempt],
                    measure: None,
                };
            }
            return self.close(op, c, kind, attempt);
        }
        if asks && let Some(state) = &c.state_out {
            let context = self.context_of(c);
            let op = Open {
                span_id: fresh_span_id(),
                context,
                first: c.clone(),
                answered: c.answered.unwrap_or(c.sent),
            };
            let attempt = self.span(c, kind, &op.context_child(), fresh_span_id());
            self.keep_open(state.clone(), op);
            return Made {
                spans: vec![attempt],
                measure: None,
            };
        }
        let span = self.span(c, kind, &self.context_of(c), fresh_span_id());
        let measure = Measure {
            kind,
            seconds: c.latency().unwrap_or_default().as_secs_f64(),
            attributes: span.attributes.clone(),
        };
        Made {
            spans: vec![span],
            measure: Some(measure),
        }
    }

    /// An OAuth hop's span: kind as the recorder's standpoint (the client sends
    /// them, a protected server answers its metadata), named and attributed per the
    /// HTTP conventions; ERROR for a status of 400 and above on the client's side,
    /// 500 and above on the server's (the HTTP conventions' "Status").
    pub fn hop(&self, h: &super::hops::Hop) -> Span {
        let kind = match self.role {
            Role::Server => KIND_SERVER,
            Role::Client => KIND_CLIENT,
        };
        let mut a = vec![
            KeyValue::str("http.request.method", &h.method),
            KeyValue::str("url.path", &h.path),
            KeyValue::int("http.response.status_code", i64::from(h.status)),
            KeyValue::str("network.transport", "tcp"),
            KeyValue::str("network.protocol.name", "http"),
            KeyValue::str("network.protocol.version", "1.1"),
        ];
        if let Some((ak, pk)) = self.peer_keys
            && let Some((host, port)) = h.peer.as_deref().and_then(address)
        {
            a.push(KeyValue::str(ak, host));
            a.push(KeyValue::int(pk, i64::from(port)));
        }
        let failed = h.status >= if kind == KIND_CLIENT { 400 } else { 500 };
        if failed {
            a.push(KeyValue::str("error.type", h.status.to_string()));
        }
        let context = Context {
            trace_id: fresh_trace_id(),
            parent: None,
            state: String::new(),
            flags: 0x101,
        };
        Span {
            trace_id: context.trace_id.to_vec(),
            span_id: fresh_span_id().to_vec(),
            trace_state: String::new(),
            parent_span_id: Vec::new(),
            name: format!("{} {}", h.method, h.path),
            kind,
            start_time_unix_nano: self.at(h.sent),
            end_time_unix_nano: self.at(h.answered),
            attributes: a,
            status: failed.then(|| Status {
                message: String::new(),
                code: STATUS_ERROR,
            }),
            flags: context.flags,
        }
    }

    /// The operations still asking for input at the end: their spans, ending at
    /// their last answer, status unset (the recording ends before the operation).
    pub fn finish(&mut self) -> Vec<Span> {
        let open: Vec<Open> = self.open.drain().map(|(_, o)| o).collect();
        open.into_iter()
            .map(|o| {
                let kind = self.kind(&o.first);
                let mut span = self.span(&o.first, kind, &o.context, o.span_id);
                span.end_time_unix_nano = self.at(o.answered);
                span.status = None;
                span
            })
            .collect()
    }

    /// Keeps `op` awaiting the retry that echoes `state`; a state already awaited
    /// (two answers issued it) links neither: the earlier operation is closed as
    /// it stands when the recording ends and this one is dropped from linking.
    fn keep_open(&mut self, state: String, op: Open) {
        if self.open.contains_key(&state) {
            self.ambiguous += 1;
            return;
        }
        self.open.insert(state, op);
    }

    /// The operation span of `op`, ended by its final round `last`.
    fn close(&mut self, op: Open, last: &Call, kind: i32, attempt: Span) -> Made {
        let mut span = self.span(&op.first, kind, &op.context, op.span_id);
        span.end_time_unix_nano = self.at(last.answered.unwrap_or(last.sent));
        // The operation ends as its last round did.
        span.status = attempt.status.clone();
        span.attributes
            .retain(|kv| !ENDING.contains(&kv.key.as_str()));
        span.attributes.extend(
            attempt
                .attributes
                .iter()
                .filter(|kv| ENDING.contains(&kv.key.as_str()))
                .cloned(),
        );
        let seconds = last
            .answered
            .unwrap_or(last.sent)
            .saturating_sub(op.first.sent)
            .as_secs_f64();
        let measure = Measure {
            kind,
            seconds,
            attributes: span.attributes.clone(),
        };
        Made {
            spans: vec![attempt, span],
            measure: Some(measure),
        }
    }

    /// Where a request's span sits: under the remote span its `traceparent` names
    /// (W3C Trace Context §3.2), else at the root of a new trace.
    fn context_of(&self, c: &Call) -> Context {
        if let Some((parent, state)) = &c.trace
            && let Some((trace_id, span_id, flags)) = traceparent(parent)
        {
            return Context {
                trace_id,
                parent: Some(span_id),
                state: state.clone().unwrap_or_default(),
                // OTLP's Span.flags: the W3C flags, and bits 8 and 9 (has-is-remote,
                // is-remote) saying the parent came from another process.
                flags: u32::from(flags) | 0x300,
            };
        }
        Context {
            trace_id: fresh_trace_id(),
            parent: None,
            state: String::new(),
            flags: 0x101,
        }
    }

    /// One span for `c`.
    fn span(&self, c: &Call, kind: i32, at: &Context, span_id: [u8; 8]) -> Span {
        let (attributes, status) = self.attributes(c);
        Span {
            trace_id: at.trace_id.to_vec(),
            span_id: span_id.to_vec(),
            trace_state: at.state.clone(),
            parent_span_id: at.parent.map(|p| p.to_vec()).unwrap_or_default(),
            name: name(c),
            kind,
            start_time_unix_nano: self.at(c.sent),
            end_time_unix_nano: self.at(c.answered.unwrap_or(c.sent)),
            attributes,
            status,
            flags: at.flags,
        }
    }

    /// The conventions' attributes of `c`'s span, and its status.
    fn attributes(&self, c: &Call) -> (Vec<KeyValue>, Option<Status>) {
        let mut a = vec![KeyValue::str("mcp.method.name", &c.method)];
        if let Some(id) = request_id(&c.id) {
            a.push(KeyValue::str("jsonrpc.request.id", id));
        }
        if let Some(s) = &c.session {
            a.push(KeyValue::str("mcp.session.id", s));
        }
        if let Some(v) = version(c) {
            a.push(KeyValue::str("mcp.protocol.version", v));
        }
        match (c.method.as_str(), &c.target) {
            ("tools/call", Some(t)) => {
                a.push(KeyValue::str("gen_ai.tool.name", t));
                a.push(KeyValue::str("gen_ai.operation.name", "execute_tool"));
            }
            ("prompts/get", Some(t)) => a.push(KeyValue::str("gen_ai.prompt.name", t)),
            (m, Some(t)) if m.starts_with("resources/") => {
                a.push(KeyValue::str("mcp.resource.uri", t))
            }
            _ => {}
        }
        let status = match &c.outcome {
            // The conventions: `error.type` is the JSON-RPC error code as a string,
            // the status ERROR with the error's message.
            Outcome::Error(code) => {
                a.push(KeyValue::str("rpc.response.status_code", code.to_string()));
                a.push(KeyValue::str("error.type", code.to_string()));
                Some(Status {
                    message: c.error_message.clone().unwrap_or_default(),
                    code: STATUS_ERROR,
                })
            }
            // A CallToolResult with `isError: true` (MCP 2025-11-25 `server/tools`
            // "Error Handling"): `error.type` is `tool_error`.
            Outcome::ToolError => {
                a.push(KeyValue::str("error.type", "tool_error"));
                Some(Status {
                    message: String::new(),
                    code: STATUS_ERROR,
                })
            }
            // No JSON-RPC answer: an HTTP error status says why (`error.type` the
            // status code, as the HTTP conventions have it), else the lane closed.
            Outcome::Unanswered => match c.status.filter(|s| *s >= 400) {
                Some(s) => {
                    a.push(KeyValue::str("error.type", s.to_string()));
                    Some(Status {
                        message: format!("HTTP {s} and no JSON-RPC answer"),
                        code: STATUS_ERROR,
                    })
                }
                None => {
                    a.push(KeyValue::str("error.type", "_OTHER"));
                    Some(Status {
                        message: "no answer: the lane closed first".to_owned(),
                        code: STATUS_ERROR,
                    })
                }
            },
            Outcome::Ok | Outcome::InputRequired => None,
        };
        if http_lane(&c.lane) {
            a.push(KeyValue::str("network.transport", "tcp"));
            a.push(KeyValue::str("network.protocol.name", "http"));
            a.push(KeyValue::str("network.protocol.version", "1.1"));
            if let Some(s) = c.status {
                a.push(KeyValue::int("http.response.status_code", i64::from(s)));
            }
            // The lane's peer: the client to a server (or bridge), the server to a
            // client. A tap has both on its lanes; it names neither.
            if let Some((ak, pk)) = self.peer_keys
                && let Some((host, port)) = c.peer.as_deref().and_then(address)
            {
                a.push(KeyValue::str(ak, host));
                a.push(KeyValue::int(pk, i64::from(port)));
            }
        } else {
            // stdio (MCP 2025-11-25 `basic/transports`): the conventions' `pipe`.
            a.push(KeyValue::str("network.transport", "pipe"));
        }
        (a, status)
    }

    /// Notes the session `c` belongs to: its first and last times, its version.
    fn session(&mut self, c: &Call) {
        let Some(id) = &c.session else { return };
        let end = c.answered.unwrap_or(c.sent);
        let s = self.sessions.entry(id.clone()).or_insert(Session {
            first: c.sent,
            last: end,
            version: None,
        });
        s.first = s.first.min(c.sent);
        s.last = s.last.max(end);
        if s.version.is_none() {
            s.version = version(c).map(str::to_owned);
        }
    }
}

/// An HTTP connection's lane (`c1`, `c2`…), not a process's pipes (`stdio`, `stdio2`).
fn http_lane(label: &str) -> bool {
    label.starts_with('c') && label[1..].bytes().all(|b| b.is_ascii_digit())
}

/// The attributes an operation takes from its last round, not its first.
const ENDING: &[&str] = &[
    "rpc.response.status_code",
    "error.type",
    "http.response.status_code",
];

impl Open {
    /// The attempts' context: the operation's trace, under its span.
    fn context_child(&self) -> Context {
        Context {
            trace_id: self.context.trace_id,
            parent: Some(self.span_id),
            state: self.context.state.clone(),
            flags: (self.context.flags & 0xff) | 0x100,
        }
    }
}

/// `{mcp.method.name} {target}`, the target a tool's or a prompt's name; else the
/// method alone. A resource's URI is not a target: the conventions ("Client" span)
/// keep it out of the name by default, as a high-cardinality value (it is the
/// `mcp.resource.uri` attribute).
pub fn name(c: &Call) -> String {
    match (&c.target, c.method.as_str()) {
        (Some(t), "tools/call" | "prompts/get") => format!("{} {t}", c.method),
        _ => c.method.clone(),
    }
}

/// The revision a request declared; `initialize` declares the one it asks for in
/// `params.protocolVersion` (MCP 2025-11-25 `basic/lifecycle`).
fn version(c: &Call) -> Option<&str> {
    c.version.as_deref().or_else(|| {
        c.params
            .as_ref()
            .filter(|_| c.method == "initialize")
            .and_then(|p| p.get("protocolVersion"))
            .and_then(|v| v.as_str())
    })
}

/// `jsonrpc.request.id`: the id as a string (`7`, `request-7`); none for `null`
/// (the conventions: not captured when null or omitted).
fn request_id(json: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(serde_json::Value::String(s)) => Some(s),
        Ok(serde_json::Value::Null) => None,
        Ok(v) => Some(v.to_string()),
        Err(_) => (!json.is_empty()).then(|| json.to_owned()),
    }
}

/// The peer's `IP:PORT` (or `[V6]:PORT`): the last word of a lane's open event
/// (`accepted from 127.0.0.1:49126`).
fn address(peer: &str) -> Option<(String, u16)> {
    let addr: std::net::SocketAddr = peer.split_whitespace().last()?.parse().ok()?;
    Some((addr.ip().to_string(), addr.port()))
}

/// A W3C `traceparent` (Trace Context Level 1 §3.2: `00-{32 hex}-{16 hex}-{2 hex}`;
/// a later version may append fields after a dash): trace id, parent id, flags. An
/// all-zero id, version `ff`, or any other shape is invalid: the span starts a new
/// trace (§3.2.2.3, §3.2.2.4).
pub fn traceparent(text: &str) -> Option<([u8; 16], [u8; 8], u8)> {
    let t = text.trim();
    let b = t.as_bytes();
    if b.len() < 55 || b[2] != b'-' || b[35] != b'-' || b[52] != b'-' {
        return None;
    }
    let version = hex::<1>(&t[0..2])?[0];
    if version == 0xff || (version == 0 && b.len() != 55) || (b.len() > 55 && b[55] != b'-') {
        return None;
    }
    let trace = hex::<16>(&t[3..35])?;
    let span = hex::<8>(&t[36..52])?;
    let flags = hex::<1>(&t[53..55])?[0];
    if trace == [0; 16] || span == [0; 8] {
        return None;
    }
    Some((trace, span, flags))
}

/// `N` bytes from `2N` lowercase hex digits (W3C: uppercase is invalid).
fn hex<const N: usize>(s: &str) -> Option<[u8; N]> {
    let b = s.as_bytes();
    if b.len() != 2 * N {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = digit(b[2 * i])? << 4 | digit(b[2 * i + 1])?;
    }
    Some(out)
}

/// A random trace id (16 random bytes of a v4 UUID's generator, never all zero).
fn fresh_trace_id() -> [u8; 16] {
    let mut id = *uuid::Uuid::new_v4().as_bytes();
    id[0] |= 1;
    id
}

/// A random span id.
fn fresh_span_id() -> [u8; 8] {
    let u = *uuid::Uuid::new_v4().as_bytes();
    let mut id = [0; 8];
    id.copy_from_slice(&u[..8]);
    id[0] |= 1;
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_reads_the_w3c_shape_and_refuses_the_rest() {
        let (t, s, f) =
            traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        assert_eq!(t[0], 0x4b);
        assert_eq!(s[7], 0xb7);
        assert_eq!(f, 1);
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
            "garbage",
        ] {
            assert_eq!(traceparent(bad), None, "{bad}");
        }
        assert!(
            traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later")
                .is_some()
        );
    }

    #[test]
    fn a_request_id_is_its_string_or_its_number() {
        assert_eq!(request_id("7").as_deref(), Some("7"));
        assert_eq!(request_id("\"request-7\"").as_deref(), Some("request-7"));
        assert_eq!(request_id("null"), None);
    }
}
