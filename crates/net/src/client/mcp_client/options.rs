//! The client's settings and their defaults: the eras it may speak, the waits
//! (the stdio probe's "reasonable timeout" of 2026-07-28 `basic/transports/stdio`
//! "Backward Compatibility", a server's start, each request, a task), the limits
//! on resumes, `retry:` waits and `input_required` rounds, and what it answers.

use crate::client::answers::Answers;
use crate::client::auth::AuthConfig;
use crate::protocol::Eras;
use crate::protocol::trace_context::TraceParent;
use serde_json::{Value, json};
use std::time::Duration;

/// Settings of one client.
pub struct Options {
    /// The eras this client may speak: `Both` makes it dual-era.
    pub eras: Eras,
    /// `capabilities` (legacy) or `_meta` clientCapabilities (modern).
    pub capabilities: Value,
    /// How long the stdio `server/discover` probe waits before calling the server
    /// legacy ("does not respond within a reasonable timeout").
    pub probe_timeout: Duration,
    /// How long any other request may take.
    pub timeout: Duration,
    /// How long a server may take to give its first answer (to `initialize`, or a
    /// late one to the stdio probe): a slow start is not a legacy server.
    pub startup_timeout: Duration,
    /// What to answer when the server asks (`ping`, roots, sampling, elicitation);
    /// the capabilities declared include what these make true.
    pub answers: Answers,
    /// `--progress`: ask for progress notifications on every request that does work.
    pub progress: bool,
    /// `--max-resumes`: how many times a legacy stream is resumed before the client
    /// gives up on its response.
    pub max_resumes: usize,
    /// `--max-retry-wait`: the longest `retry:` the client honours before resuming.
    pub max_retry_wait: Duration,
    /// `--max-input-rounds`: the most `input_required` rounds one request may take.
    pub max_input_rounds: usize,
    /// stdio: how long the server may take to exit after its stdin closes, and again
    /// after SIGTERM, before the next step (`--shutdown-timeout`).
    pub shutdown_timeout: Duration,
    /// `--log-level`: the log messages wanted (legacy: `logging/setLevel` after the
    /// handshake; modern: `_meta` of every request).
    pub log_level: Option<String>,
    /// `--task-timeout`: how long a task a server runs for a `tools/call` is followed
    /// before the client cancels it and gives up.
    pub task_timeout: Duration,
    /// HTTP: how to authorize when the server answers `401` (OAuth 2.1, [`crate::client::auth`]).
    pub auth: AuthConfig,
    /// `--trace-context`: put a W3C `traceparent` (and the `tracestate`) in every
    /// request's `params._meta`, as OpenTelemetry's MCP conventions carry it; `None`:
    /// the requests' bytes are left as they are.
    pub trace_context: Option<TraceSeed>,
}

/// Where the client's trace starts: the trace it continues, or a new one.
#[derive(Debug, Clone, Default)]
pub struct TraceSeed {
    /// The caller's span (`TRACEPARENT` in the environment, as OpenTelemetry passes
    /// context to a process): every request is sent from a span of its trace. `None`:
    /// one new trace for the whole run.
    pub parent: Option<TraceParent>,
    /// The `tracestate` that travels with it, as given.
    pub state: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            eras: Eras::Both,
            capabilities: json!({}),
            probe_timeout: Duration::from_secs(3),
            startup_timeout: Duration::from_secs(30),
            answers: Answers::default(),
            timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(5),
            progress: false,
            max_resumes: 5,
            max_retry_wait: Duration::from_secs(10),
            max_input_rounds: 8,
            log_level: None,
            task_timeout: Duration::from_secs(300),
            auth: AuthConfig::default(),
            trace_context: None,
        }
    }
}
