//! What a recording is read into, one item each: a request with its answer
//! ([`Call`]), a notification, an HTTP head that names a session or carries a
//! credential, a stdio server's log line, a tool as a `tools/list` defined it.

use crate::wire::event::Dir;
use serde_json::Value;
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
    /// The request's id as JSON text (`7`, `"a"`): OpenTelemetry's `jsonrpc.request.id`.
    pub id: String,
    /// What the operation acts on, for a span's name (`{method} {target}`): `params.name`
    /// of `tools/call` and `prompts/get`, `params.uri` of the `resources/*` requests.
    pub target: Option<String>,
    /// The protocol revision the request declared: its `_meta`
    /// `io.modelcontextprotocol/protocolVersion` (2026-07-28), else the
    /// `MCP-Protocol-Version` header of the HTTP request that carried it (MCP 2025-11-25
    /// `basic/transports` "Protocol Version Header").
    pub version: Option<String>,
    /// `params._meta.traceparent` and `tracestate`, as sent: a W3C trace context the
    /// sender propagated (OpenTelemetry's MCP conventions carry it in `_meta`).
    pub trace: Option<(String, Option<String>)>,
    /// The status of the HTTP response that carried the answer.
    pub status: Option<u16>,
    /// The error response's `error.message`.
    pub error_message: Option<String>,
    /// The lane's peer as its open event named it (an address, or a command line).
    pub peer: Option<String>,
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
