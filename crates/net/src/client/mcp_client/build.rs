//! Where a request is built: a fresh id, and what goes into its `params._meta` — the
//! 2026-07-28 per-request fields (`basic/index` "`_meta`": protocol version, client
//! capabilities, client info), `--log-level`, a `--progress` token, and
//! `--trace-context`'s `traceparent`.

use super::McpClient;
use crate::jsonrpc::Request;
use crate::protocol::meta;
use crate::protocol::trace_context::{self, TraceParent};
use anyhow::Context;
use serde_json::{Map, Value, json};

impl McpClient {
    /// Builds one request: a fresh id, and for a modern one (`modern` is its
    /// version) the per-request `_meta`.
    pub(super) fn build(
        &mut self,
        method: &str,
        mut params: Value,
        modern: Option<&str>,
    ) -> anyhow::Result<(i64, Value)> {
        let id = self.next_id;
        self.next_id += 1;
        // `--progress`: a token on every request that does work (2025-11-25
        // `basic/utilities/progress`); the handshake and the probe carry none.
        let progress = self.options.progress
            && !matches!(
                method,
                "initialize" | "server/discover" | "ping" | "logging/setLevel"
            )
            && !method.ends_with("/list");
        // `--log-level` in the modern era travels with each request.
        let log_level = modern.and(self.options.log_level.clone());
        // `--trace-context`: the request is sent from a span of its own, child of the
        // run's trace (OpenTelemetry's MCP conventions: `traceparent` in `_meta`).
        let trace = self.options.trace_context.as_ref().map(|seed| {
            let run = match seed.parent {
                Some(parent) => parent,
                None => *self
                    .trace
                    .get_or_insert_with(|| TraceParent::new_trace(trace_context::random())),
            };
            (run.from_span(trace_context::random()), seed.state.clone())
        });
        if modern.is_some() || progress || trace.is_some() {
            let meta = params
                .as_object_mut()
                .context("params must be an object")?
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                if let Some(version) = modern {
                    meta.insert(meta::PROTOCOL_VERSION.into(), json!(version));
                    meta.insert(meta::CLIENT_CAPABILITIES.into(), self.capabilities(true));
                    meta.insert(meta::CLIENT_INFO.into(), client_info());
                }
                if let Some(level) = log_level {
                    meta.insert(meta::LOG_LEVEL.into(), json!(level));
                }
                if progress {
                    meta.insert("progressToken".into(), json!(format!("progress-{id}")));
                }
                if let Some((tp, state)) = trace {
                    meta.insert(trace_context::TRACEPARENT.into(), json!(tp.to_string()));
                    if let Some(state) = state {
                        meta.insert(trace_context::TRACESTATE.into(), json!(state));
                    }
                }
            }
        }
        Ok((id, Request::new(id, method, Some(params)).to_value()))
    }
}

pub(super) fn client_info() -> Value {
    json!({ "name": "mcp-raw", "version": env!("CARGO_PKG_VERSION") })
}
