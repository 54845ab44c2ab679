//! `--metrics ADDR` and its limits: the Prometheus listener `serve`, `tap` and
//! `bridge` share.

use super::secs;
use std::time::Duration;

// `--metrics ADDR`: Prometheus metrics rendered from the recorder's events, served at
// http://ADDR/metrics (one group, flattened into each program's flags).
#[derive(clap::Args, Debug, Clone)]
pub struct MetricsArgs {
    /// Serve Prometheus metrics (text format 0.0.4) at http://ADDR/metrics, counted
    /// from the bytes that crossed: requests by method and outcome, latency, sessions,
    /// SSE streams, limits' refusals, bytes. ADDR: a PORT (on 127.0.0.1) or IP:PORT;
    /// port 0 picks one (stderr says which). An IP that is not loopback is served as
    /// typed, with a warning.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<String>,
    /// With --metrics: scrapes served at once; one more is answered 503.
    #[arg(long, value_name = "N", default_value_t = 16, requires = "metrics")]
    pub metrics_max_connections: usize,
    /// With --metrics: largest scrape request head in bytes; larger gets 431.
    #[arg(long, value_name = "N", default_value_t = 8192, requires = "metrics")]
    pub metrics_max_head_bytes: usize,
    /// With --metrics: seconds a scrape's request head may take to arrive; then 408
    /// (0: no limit).
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = secs, requires = "metrics")]
    pub metrics_timeout: Duration,
    /// With --metrics: legacy sessions followed at most; more are counted in
    /// mcp_raw_sessions_untracked_total, not in mcp_raw_sessions_open.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 100_000,
        requires = "metrics"
    )]
    pub metrics_max_sessions: usize,
    /// With --metrics: wire events waiting for the metrics' thread at most; past it
    /// events are dropped from the metrics (mcp_raw_dropped_events_total), never
    /// waited for.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::offload::QUEUE, requires = "metrics")]
    pub metrics_queue: usize,
}
