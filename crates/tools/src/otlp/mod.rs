//! OpenTelemetry out of the wire: a recording's events (live, or a whole transcript)
//! rendered as OTLP spans and metrics per the MCP semantic conventions, and sent to a
//! collector over OTLP/HTTP.
//!
//! - [`proto`]: the OTLP messages, declared with the official field numbers (prost).
//! - [`spans`]: calls → spans (names, kinds, attributes, retries, trace context).
//! - [`hops`]: the OAuth exchanges (metadata, register, authorize, token) as HTTP hops.
//! - [`metrics`]: the conventions' duration histograms.
//! - [`json`]: the OTLP/JSON encoding of the same messages.
//! - [`post`]: one POST to a collector (TCP or TLS), its answer read.
//! - [`attributes`]: a call's span attributes, status and name per the conventions.
//! - [`context`]: W3C trace context: `traceparent` read, fresh ids.
//! - [`exporter`]: batches and bounded queues between the wire and the collector.
//! - `sender`: the sender's thread, each export encoded, POSTed and counted.

pub mod attributes;
pub mod context;
pub mod exporter;
pub mod hops;
pub mod json;
pub mod metrics;
pub mod post;
pub mod proto;
mod sender;
pub mod spans;

/// The instrumentation scope every span and metric carries: `mcp-raw` and its version.
pub fn scope() -> proto::InstrumentationScope {
    proto::InstrumentationScope {
        name: "mcp-raw".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    }
}
