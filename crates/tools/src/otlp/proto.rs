//! The OTLP messages mcp-raw sends, declared by hand with the field numbers of the
//! official definitions (opentelemetry-proto v1: `collector/trace/v1/trace_service.proto`,
//! `collector/metrics/v1/metrics_service.proto`, `trace/v1/trace.proto`,
//! `metrics/v1/metrics.proto`, `common/v1/common.proto`, `resource/v1/resource.proto`);
//! only the fields we fill. prost's derive encodes them; a field left out here is
//! simply absent on the wire, which protobuf reads as its default. The tests decode
//! what we send with the official package, not with these.

/// `ExportTraceServiceRequest`: the body of `POST /v1/traces`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExportTraceServiceRequest {
    /// Spans grouped by the resource (the program) that made them.
    #[prost(message, repeated, tag = "1")]
    pub resource_spans: Vec<ResourceSpans>,
}

/// `ResourceSpans`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResourceSpans {
    /// Who made the spans: `service.name` and the other resource attributes.
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    /// The spans, by instrumentation scope.
    #[prost(message, repeated, tag = "2")]
    pub scope_spans: Vec<ScopeSpans>,
}

/// `ScopeSpans`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScopeSpans {
    /// The instrumentation that made them: `mcp-raw` and its version.
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    /// The spans.
    #[prost(message, repeated, tag = "2")]
    pub spans: Vec<Span>,
}

/// `Resource`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Resource {
    /// `service.name`, `OTEL_RESOURCE_ATTRIBUTES`' pairs.
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
}

/// `InstrumentationScope`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InstrumentationScope {
    /// The instrumentation's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its version.
    #[prost(string, tag = "2")]
    pub version: String,
}

/// `Span`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Span {
    /// 16 bytes: the trace.
    #[prost(bytes = "vec", tag = "1")]
    pub trace_id: Vec<u8>,
    /// 8 bytes: this span.
    #[prost(bytes = "vec", tag = "2")]
    pub span_id: Vec<u8>,
    /// The W3C `tracestate` received with the parent, passed on.
    #[prost(string, tag = "3")]
    pub trace_state: String,
    /// 8 bytes, or empty for a root span.
    #[prost(bytes = "vec", tag = "4")]
    pub parent_span_id: Vec<u8>,
    /// `{mcp.method.name} {target}`.
    #[prost(string, tag = "5")]
    pub name: String,
    /// `SpanKind`: 2 server, 3 client (`SPAN_KIND_*`).
    #[prost(int32, tag = "6")]
    pub kind: i32,
    /// Start, nanoseconds since the Unix epoch.
    #[prost(fixed64, tag = "7")]
    pub start_time_unix_nano: u64,
    /// End, likewise.
    #[prost(fixed64, tag = "8")]
    pub end_time_unix_nano: u64,
    /// The conventions' attributes.
    #[prost(message, repeated, tag = "9")]
    pub attributes: Vec<KeyValue>,
    /// ERROR for a JSON-RPC error or an `isError` result.
    #[prost(message, optional, tag = "15")]
    pub status: Option<Status>,
    /// W3C trace flags (bit 0: sampled) and, bits 8–9, whether the parent is remote.
    #[prost(fixed32, tag = "16")]
    pub flags: u32,
}

/// `SpanKind` SERVER.
pub const KIND_SERVER: i32 = 2;
/// `SpanKind` CLIENT.
pub const KIND_CLIENT: i32 = 3;
/// `StatusCode` ERROR.
pub const STATUS_ERROR: i32 = 2;

/// `Status`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Status {
    /// The JSON-RPC error's message.
    #[prost(string, tag = "2")]
    pub message: String,
    /// `StatusCode`: 0 unset, 1 ok, 2 error.
    #[prost(int32, tag = "3")]
    pub code: i32,
}

/// `KeyValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValue {
    /// The attribute's name.
    #[prost(string, tag = "1")]
    pub key: String,
    /// Its value.
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

/// `AnyValue`: the kinds we send.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AnyValue {
    /// One of them.
    #[prost(oneof = "Value", tags = "1, 3, 4")]
    pub value: Option<Value>,
}

/// `AnyValue.value`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Value {
    /// `string_value`.
    #[prost(string, tag = "1")]
    String(String),
    /// `int_value`.
    #[prost(int64, tag = "3")]
    Int(i64),
    /// `double_value`.
    #[prost(double, tag = "4")]
    Double(f64),
}

impl KeyValue {
    /// A string attribute.
    pub fn str(key: &str, value: impl Into<String>) -> KeyValue {
        KeyValue {
            key: key.to_owned(),
            value: Some(AnyValue {
                value: Some(Value::String(value.into())),
            }),
        }
    }

    /// An integer attribute.
    pub fn int(key: &str, value: i64) -> KeyValue {
        KeyValue {
            key: key.to_owned(),
            value: Some(AnyValue {
                value: Some(Value::Int(value)),
            }),
        }
    }
}

/// `ExportMetricsServiceRequest`: the body of `POST /v1/metrics`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExportMetricsServiceRequest {
    /// Metrics grouped by resource.
    #[prost(message, repeated, tag = "1")]
    pub resource_metrics: Vec<ResourceMetrics>,
}

/// `ResourceMetrics`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResourceMetrics {
    /// Who measured.
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    /// The metrics, by scope.
    #[prost(message, repeated, tag = "2")]
    pub scope_metrics: Vec<ScopeMetrics>,
}

/// `ScopeMetrics`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScopeMetrics {
    /// `mcp-raw`.
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    /// The metrics.
    #[prost(message, repeated, tag = "2")]
    pub metrics: Vec<Metric>,
}

/// `Metric`, a histogram (the only kind the MCP conventions define).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Metric {
    /// `mcp.server.operation.duration` and the like.
    #[prost(string, tag = "1")]
    pub name: String,
    /// What it measures.
    #[prost(string, tag = "2")]
    pub description: String,
    /// UCUM: `s`.
    #[prost(string, tag = "3")]
    pub unit: String,
    /// `histogram` (field 9 of the `data` oneof).
    #[prost(message, optional, tag = "9")]
    pub histogram: Option<Histogram>,
}

/// `Histogram`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Histogram {
    /// A point per attribute set.
    #[prost(message, repeated, tag = "1")]
    pub data_points: Vec<HistogramDataPoint>,
    /// `AggregationTemporality`: 2, cumulative (each export repeats the totals).
    #[prost(int32, tag = "2")]
    pub aggregation_temporality: i32,
}

/// `AggregationTemporality` CUMULATIVE.
pub const CUMULATIVE: i32 = 2;

/// `HistogramDataPoint`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HistogramDataPoint {
    /// Since when it counts.
    #[prost(fixed64, tag = "2")]
    pub start_time_unix_nano: u64,
    /// When it was read.
    #[prost(fixed64, tag = "3")]
    pub time_unix_nano: u64,
    /// Values counted.
    #[prost(fixed64, tag = "4")]
    pub count: u64,
    /// Their sum.
    #[prost(double, optional, tag = "5")]
    pub sum: Option<f64>,
    /// Per bucket: one more than the bounds.
    #[prost(fixed64, repeated, tag = "6")]
    pub bucket_counts: Vec<u64>,
    /// The buckets' upper bounds.
    #[prost(double, repeated, tag = "7")]
    pub explicit_bounds: Vec<f64>,
    /// The attribute set this point is for.
    #[prost(message, repeated, tag = "9")]
    pub attributes: Vec<KeyValue>,
    /// The smallest value.
    #[prost(double, optional, tag = "11")]
    pub min: Option<f64>,
    /// The largest value.
    #[prost(double, optional, tag = "12")]
    pub max: Option<f64>,
}
