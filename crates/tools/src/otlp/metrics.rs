//! The MCP conventions' histograms (`docs/gen-ai/mcp.md` "Metrics"):
//! `mcp.server.operation.duration` and `mcp.client.operation.duration` per
//! operation, `mcp.server.session.duration` and `mcp.client.session.duration` per
//! session, in seconds with the conventions' bucket boundaries, cumulative: each
//! export repeats the totals since the start.

use super::proto::{
    CUMULATIVE, ExportMetricsServiceRequest, Histogram, HistogramDataPoint, KIND_SERVER, KeyValue,
    Metric, Resource, ResourceMetrics, ScopeMetrics,
};
use super::spans::{BUCKETS, Measure};
use std::collections::BTreeMap;

/// The operation metrics' attributes, as the conventions list them (a span's others,
/// such as the request id, would make a point per request).
const OPERATION_KEYS: &[&str] = &[
    "mcp.method.name",
    "error.type",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "rpc.response.status_code",
    "gen_ai.operation.name",
    "mcp.protocol.version",
    "network.protocol.name",
    "network.protocol.version",
    "network.transport",
];

/// The metric names, with what they measure.
const METRICS: &[(&str, &str)] = &[
    (
        "mcp.server.operation.duration",
        "MCP request duration as observed on the receiver from the time it was received until the result is sent.",
    ),
    (
        "mcp.client.operation.duration",
        "The duration of the MCP request as observed on the sender from the time it was sent until the response is received.",
    ),
    (
        "mcp.server.session.duration",
        "The duration of the MCP session as observed on the MCP server.",
    ),
    (
        "mcp.client.session.duration",
        "The duration of the MCP session as observed on the MCP client.",
    ),
];

/// A point's key: the metric's name and the attribute set, as text pairs.
type Key = (&'static str, Vec<(String, String)>);

/// One histogram point.
#[derive(Debug, Clone, Default)]
struct Point {
    /// Values counted.
    count: u64,
    /// Their sum.
    sum: f64,
    /// Per bucket (one more than [`BUCKETS`]).
    buckets: Vec<u64>,
    /// Smallest.
    min: f64,
    /// Largest.
    max: f64,
}

/// The histograms, by metric and attribute set.
#[derive(Debug, Default)]
pub struct Metrics {
    /// (metric, attributes) → point.
    points: BTreeMap<Key, Point>,
    /// Since when they count, nanoseconds since the Unix epoch.
    start_ns: u64,
    /// Something was recorded since the last export.
    pub changed: bool,
}

impl Metrics {
    /// Histograms counting from `start_ns`.
    pub fn new(start_ns: u64) -> Metrics {
        Metrics {
            start_ns,
            ..Default::default()
        }
    }

    /// Counts an operation.
    pub fn operation(&mut self, m: &Measure) {
        let name = if m.kind == KIND_SERVER {
            "mcp.server.operation.duration"
        } else {
            "mcp.client.operation.duration"
        };
        let attrs = m
            .attributes
            .iter()
            .filter(|kv| OPERATION_KEYS.contains(&kv.key.as_str()))
            .map(|kv| (kv.key.clone(), text(kv)))
            .collect();
        self.record(name, attrs, m.seconds);
    }

    /// Counts a session of `seconds`, seen by a server (`server`) or a client.
    pub fn session(&mut self, server: bool, seconds: f64, attrs: Vec<(String, String)>) {
        let name = if server {
            "mcp.server.session.duration"
        } else {
            "mcp.client.session.duration"
        };
        self.record(name, attrs, seconds);
    }

    fn record(&mut self, name: &'static str, attrs: Vec<(String, String)>, v: f64) {
        let p = self.points.entry((name, attrs)).or_insert_with(|| Point {
            buckets: vec![0; BUCKETS.len() + 1],
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            ..Default::default()
        });
        p.count += 1;
        p.sum += v;
        p.min = p.min.min(v);
        p.max = p.max.max(v);
        // OTLP's explicit buckets: bucket i counts values in (bounds[i-1], bounds[i]].
        let i = BUCKETS
            .iter()
            .position(|b| v <= *b)
            .unwrap_or(BUCKETS.len());
        p.buckets[i] += 1;
        self.changed = true;
    }

    /// Values counted, over every point.
    pub fn count(&self) -> u64 {
        self.points.values().map(|p| p.count).sum()
    }

    /// The export request at `now_ns`, for `resource`; `None` when nothing was counted.
    pub fn request(
        &self,
        resource: &[KeyValue],
        now_ns: u64,
    ) -> Option<ExportMetricsServiceRequest> {
        if self.points.is_empty() {
            return None;
        }
        let mut metrics = Vec::new();
        for (name, description) in METRICS {
            let data_points: Vec<HistogramDataPoint> = self
                .points
                .iter()
                .filter(|((n, _), _)| n == name)
                .map(|((_, attrs), p)| HistogramDataPoint {
                    start_time_unix_nano: self.start_ns,
                    time_unix_nano: now_ns.max(self.start_ns),
                    count: p.count,
                    sum: Some(p.sum),
                    bucket_counts: p.buckets.clone(),
                    explicit_bounds: BUCKETS.to_vec(),
                    attributes: attrs.iter().map(|(k, v)| KeyValue::str(k, v)).collect(),
                    min: Some(p.min),
                    max: Some(p.max),
                })
                .collect();
            if data_points.is_empty() {
                continue;
            }
            metrics.push(Metric {
                name: (*name).to_owned(),
                description: (*description).to_owned(),
                unit: "s".to_owned(),
                histogram: Some(Histogram {
                    data_points,
                    aggregation_temporality: CUMULATIVE,
                }),
            });
        }
        Some(ExportMetricsServiceRequest {
            resource_metrics: vec![ResourceMetrics {
                resource: Some(Resource {
                    attributes: resource.to_vec(),
                }),
                scope_metrics: vec![ScopeMetrics {
                    scope: Some(super::scope()),
                    metrics,
                }],
            }],
        })
    }
}

/// An attribute's value as text (the metric attributes are all strings).
fn text(kv: &KeyValue) -> String {
    use super::proto::Value;
    match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Int(i)) => i.to_string(),
        Some(Value::Double(d)) => d.to_string(),
        None => String::new(),
    }
}
