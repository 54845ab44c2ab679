//! `--trace-context` (client, tap): the trace the requests join, read from
//! `TRACEPARENT` and `TRACESTATE` in the environment, as OpenTelemetry hands context
//! to a process it starts; none there: a new trace for the run.

use super::exit::usage;
use mcp_raw_core::trace_context::TraceParent;

/// The caller's `traceparent` (checked: one that is not is a usage error quoting
/// it) and `tracestate`, when the environment gives them.
pub fn from_env() -> anyhow::Result<(Option<TraceParent>, Option<String>)> {
    let parent = match std::env::var("TRACEPARENT") {
        Ok(text) if !text.trim().is_empty() => {
            Some(TraceParent::parse(text.trim()).map_err(|e| {
                usage(format!(
                    "--trace-context: TRACEPARENT in the environment: {e}"
                ))
            })?)
        }
        _ => None,
    };
    let state = std::env::var("TRACESTATE")
        .ok()
        .filter(|s| !s.trim().is_empty());
    Ok((parent, state))
}
