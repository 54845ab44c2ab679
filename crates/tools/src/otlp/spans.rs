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
//! A program that put the context there itself (`--trace-context`) sent the request
//! from the span the `traceparent` names: its CLIENT span takes that id, and the
//! receiver's span becomes its child.

use super::attributes::{attributes, http_lane, name, version};
use super::context::{fresh_span_id, fresh_trace_id, traceparent};
use super::proto::{KIND_CLIENT, KIND_SERVER, KeyValue, Span};
use crate::stats::items::{Call, Note, Outcome};
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
    pub(super) role: Role,
    /// The recording's time 0, nanoseconds since the Unix epoch.
    base_ns: u64,
    /// A bridge's recording: its HTTP lanes are served, its children's stdio lanes
    /// are where it is the client.
    bridge: bool,
    /// What a lane's peer is to this recorder: `client.*` to a server, `server.*` to
    /// a client or a tap (whose lane names the server it relays to last).
    pub(super) peer_keys: Option<(&'static str, &'static str)>,
    /// Operations awaiting a retry, by the exact `requestState` their last answer issued.
    open: HashMap<String, Open>,
    /// States refused as links (issued twice).
    pub ambiguous: u64,
    /// Sessions by id.
    pub sessions: HashMap<String, Session>,
    /// The recorder puts a `traceparent` in the requests it sends (`--trace-context`):
    /// on its CLIENT spans, that context names the span itself, not a parent.
    injects: bool,
}

/// The conventions' bucket boundaries for the MCP duration histograms, in seconds.
pub const BUCKETS: &[f64] = &[
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

impl Spans {
    /// A builder for a recording made by `role` (`server`, `client`, `tap`, `bridge`),
    /// whose time 0 was `started_us` microseconds after the Unix epoch; `injects`
    /// when the recorder put the `traceparent` of its requests there itself.
    pub fn new(role: &str, started_us: i64, injects: bool) -> Spans {
        Spans {
            role: Role::of(role),
            base_ns: u64::try_from(started_us).unwrap_or(0).saturating_mul(1000),
            bridge: role == "bridge",
            peer_keys: match role {
                "server" | "bridge" => Some(("client.address", "client.port")),
                // A tap's lane opens "accepted from A, relayed as B → SERVER": its
                // last word is the server it relays to.
                "client" | "tap" => Some(("server.address", "server.port")),
                _ => None,
            },
            open: HashMap::new(),
            ambiguous: 0,
            sessions: HashMap::new(),
            injects,
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
        // The span a request the recorder itself sent from (`--trace-context`): its
        // `traceparent` names it; else a fresh id.
        let own = self.own(c, kind);
        let id = own.as_ref().map_or_else(fresh_span_id, |o| o.1);
        if let Some(op) = retry_of {
            let attempt = self.span(c, kind, &op.context_child(), id);
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
        let context = match &own {
            // The recorder's own span starts its part of the trace: no parent here
            // (the run's parent, if any, never crossed the wire).
            Some((trace_id, _, flags, state)) => Context {
                trace_id: *trace_id,
                parent: None,
                state: state.clone(),
                flags: *flags,
            },
            None => self.context_of(c),
        };
        if asks && let Some(state) = &c.state_out {
            let op = Open {
                span_id: fresh_span_id(),
                context,
                first: c.clone(),
                answered: c.answered.unwrap_or(c.sent),
            };
            let attempt = self.span(c, kind, &op.context_child(), id);
            self.keep_open(state.clone(), op);
            return Made {
                spans: vec![attempt],
                measure: None,
            };
        }
        let span = self.span(c, kind, &context, id);
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

    /// A notification's span: the conventions' spans cover "the request or
    /// notification". Its kind is a request's from the same side, its name its
    /// method; it lasts no time (JSON-RPC acknowledges no notification: the `202` an
    /// HTTP POST of one gets is not paired here), at the root of a trace of its own.
    pub fn note(&mut self, n: &Note) -> Span {
        let kind = if self.bridge && !http_lane(&n.lane) {
            Role::Client.kind(n.from)
        } else {
            self.role.kind(n.from)
        };
        let mut attributes = vec![KeyValue::str("mcp.method.name", &n.method)];
        if let Some(s) = &n.session {
            attributes.push(KeyValue::str("mcp.session.id", s));
        }
        let transport = if http_lane(&n.lane) { "tcp" } else { "pipe" };
        attributes.push(KeyValue::str("network.transport", transport));
        Span {
            trace_id: fresh_trace_id().to_vec(),
            span_id: fresh_span_id().to_vec(),
            trace_state: String::new(),
            parent_span_id: Vec::new(),
            name: n.method.clone(),
            kind,
            start_time_unix_nano: self.at(n.t),
            end_time_unix_nano: self.at(n.t),
            attributes,
            status: None,
            flags: 0x101,
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

    /// A request this recorder sent with a `traceparent` it put there itself
    /// (`client --trace-context`, `tap --trace-context`): the conventions' sender
    /// injects its own span's context, so the span it names is this one (trace,
    /// span id, flags, tracestate), and the receiver's span will be its child.
    fn own(&self, c: &Call, kind: i32) -> Option<([u8; 16], [u8; 8], u32, String)> {
        if !self.injects || kind != KIND_CLIENT {
            return None;
        }
        let (parent, state) = c.trace.as_ref()?;
        let (trace_id, span_id, flags) = traceparent(parent)?;
        Some((
            trace_id,
            span_id,
            u32::from(flags) | 0x100,
            state.clone().unwrap_or_default(),
        ))
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
        let (attributes, status) = attributes(c, self.peer_keys);
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
