//! `tap --trace-context`: the tap adds a W3C `traceparent` (and `tracestate`) to the
//! `params._meta` of each request the client sends that carries none, as
//! OpenTelemetry's MCP conventions carry trace context, so the server's spans join a
//! trace the client knows nothing of. Every other byte of the line stays as the
//! client wrote it ([`crate::jsonrpc::splice`]); the server gets, and the recording
//! shows, the changed line.

use crate::protocol::trace_context::{self, TraceParent};
use std::borrow::Cow;

/// Puts trace context into the client's requests.
#[derive(Debug, Clone)]
pub struct Injector {
    /// The trace every request joins: the tap's caller's (`TRACEPARENT`), or a new
    /// one for the tap's run. Each request is sent from a new span of it.
    run: TraceParent,
    /// The `tracestate` sent beside it, as given (JSON text, quoted).
    state: Option<String>,
}

impl Injector {
    /// Requests join `parent`'s trace, or a new one; `state` travels with them.
    pub fn new(parent: Option<TraceParent>, state: Option<String>) -> Injector {
        Injector {
            run: parent.unwrap_or_else(|| TraceParent::new_trace(trace_context::random())),
            state: state.map(|s| serde_json::Value::from(s).to_string()),
        }
    }

    /// One line of the client's: with trace context when it is a request that has
    /// none, else as it is (a notification, a response, a batch, a line that is not
    /// JSON or not UTF-8, a request whose `_meta` has its own `traceparent`).
    pub fn apply<'a>(&self, line: &'a [u8]) -> Cow<'a, [u8]> {
        let Ok(text) = std::str::from_utf8(line) else {
            return Cow::Borrowed(line);
        };
        let span = self.run.from_span(trace_context::random());
        let mut members = vec![(
            trace_context::TRACEPARENT,
            serde_json::Value::from(span.to_string()).to_string(),
        )];
        if let Some(state) = &self.state {
            members.push((trace_context::TRACESTATE, state.clone()));
        }
        match crate::jsonrpc::splice::meta_insert(text, &members) {
            Some(changed) => Cow::Owned(changed.into_bytes()),
            None => Cow::Borrowed(line),
        }
    }
}
