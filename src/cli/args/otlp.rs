//! `--otlp URL` and its companions, flattened into `serve`, `tap`, `client` and
//! `bridge`; `export otlp`'s flags are in `har.rs` beside `export har`'s.

use super::secs;
use std::time::Duration;

// `--otlp` and its companions (no group of their own: they are flattened).
#[derive(clap::Args, Clone, Default)]
#[group(skip)]
pub struct OtlpArgs {
    /// Send a span per MCP operation and the MCP duration metrics to this
    /// OpenTelemetry collector (OTLP/HTTP: URL/v1/traces, URL/v1/metrics), batched,
    /// never slowing the wire (OTEL_EXPORTER_OTLP_ENDPOINT and the other standard
    /// variables are read when this is not given).
    #[arg(long, value_name = "URL")]
    pub otlp: Option<String>,
    /// With --otlp: http/protobuf or http/json [default: http/protobuf, or
    /// OTEL_EXPORTER_OTLP_PROTOCOL].
    #[arg(long, value_name = "PROTOCOL")]
    pub otlp_protocol: Option<String>,
    /// With --otlp: a header sent with each export, e.g. `authorization=Bearer T`
    /// (repeatable; besides OTEL_EXPORTER_OTLP_HEADERS).
    #[arg(long, value_name = "NAME=VALUE")]
    pub otlp_header: Vec<String>,
    /// With --otlp: seconds one export may take before it counts as failed
    /// [default: 10, or OTEL_EXPORTER_OTLP_TIMEOUT in ms].
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub otlp_timeout: Option<Duration>,
    /// With --otlp: spans per export.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::otlp::exporter::BATCH, value_parser = positive)]
    pub otlp_batch: usize,
    /// With --otlp: spans waiting for the collector at most; past it whole batches
    /// are dropped and counted, never waited for.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::otlp::exporter::QUEUE, value_parser = positive)]
    pub otlp_queue: usize,
    /// With --otlp: seconds between exports of a batch not yet full, and of the
    /// metrics.
    #[arg(long, value_name = "SECS", value_parser = secs, default_value = "5")]
    pub otlp_interval: Duration,
}

macro_rules! export_otlp_examples {
    () => {
        "Examples:
  mcp-raw export otlp session.jsonl --endpoint http://127.0.0.1:4318
  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 mcp-raw export otlp session.jsonl

A span per MCP operation (a request and its answer), named, attributed and kinded
per OpenTelemetry's MCP semantic conventions, timed by the recording's stamps from
its header's start; a 2026-07-28 operation retried with requestState is one span
with its attempts as children; a request carrying a traceparent in params._meta
continues that trace. The MCP duration histograms go to /v1/metrics."
    };
}
pub(crate) use export_otlp_examples;

// `mcp-raw export otlp`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct ExportOtlpArgs {
    /// A JSON Lines transcript written by --record, or a session's short name.
    #[arg(value_name = "FILE")]
    pub file: std::path::PathBuf,
    /// The collector's OTLP/HTTP base URL: spans to URL/v1/traces, metrics to
    /// URL/v1/metrics [default: OTEL_EXPORTER_OTLP_ENDPOINT, or the _TRACES_ and
    /// _METRICS_ variables as given].
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// http/protobuf or http/json [default: http/protobuf, or
    /// OTEL_EXPORTER_OTLP_PROTOCOL].
    #[arg(long, value_name = "PROTOCOL")]
    pub protocol: Option<String>,
    /// A header sent with each export (repeatable; besides OTEL_EXPORTER_OTLP_HEADERS).
    #[arg(long, value_name = "NAME=VALUE")]
    pub header: Vec<String>,
    /// Seconds one export may take before it counts as failed [default: 10, or
    /// OTEL_EXPORTER_OTLP_TIMEOUT in ms].
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub timeout: Option<Duration>,
    /// Spans per export.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::otlp::exporter::BATCH, value_parser = positive)]
    pub batch: usize,
}

/// A count of 1 or more.
fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "expected a whole number of 1 or more, got {text:?}"
        )),
    }
}
