//! OTLP/JSON (`--otlp-protocol http/json`): the same messages in the protobuf JSON
//! mapping as OTLP specifies it (`docs/specification.md` "JSON Protobuf Encoding"):
//! lowerCamelCase field names, `traceId`/`spanId`/`parentSpanId` as hex (not base64),
//! enums as integers, 64-bit integers as decimal strings.

use super::proto::{
    AnyValue, ExportMetricsServiceRequest, ExportTraceServiceRequest, InstrumentationScope,
    KeyValue, Resource, Span, Value as Any,
};
use serde_json::{Map, Value, json};

/// `ExportTraceServiceRequest` as OTLP/JSON.
pub fn traces(r: &ExportTraceServiceRequest) -> Value {
    let resource_spans: Vec<Value> = r
        .resource_spans
        .iter()
        .map(|rs| {
            json!({
                "resource": resource(rs.resource.as_ref()),
                "scopeSpans": rs.scope_spans.iter().map(|ss| json!({
                    "scope": scope(ss.scope.as_ref()),
                    "spans": ss.spans.iter().map(span).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "resourceSpans": resource_spans })
}

/// `ExportMetricsServiceRequest` as OTLP/JSON.
pub fn metrics(r: &ExportMetricsServiceRequest) -> Value {
    let resource_metrics: Vec<Value> = r
        .resource_metrics
        .iter()
        .map(|rm| {
            json!({
                "resource": resource(rm.resource.as_ref()),
                "scopeMetrics": rm.scope_metrics.iter().map(|sm| json!({
                    "scope": scope(sm.scope.as_ref()),
                    "metrics": sm.metrics.iter().map(|m| {
                        let points: Vec<Value> = m.histogram.iter().flat_map(|h| &h.data_points).map(|p| json!({
                            "attributes": attributes(&p.attributes),
                            "startTimeUnixNano": p.start_time_unix_nano.to_string(),
                            "timeUnixNano": p.time_unix_nano.to_string(),
                            "count": p.count.to_string(),
                            "sum": p.sum,
                            "bucketCounts": p.bucket_counts.iter().map(u64::to_string).collect::<Vec<_>>(),
                            "explicitBounds": p.explicit_bounds,
                            "min": p.min,
                            "max": p.max,
                        })).collect();
                        json!({
                            "name": m.name,
                            "description": m.description,
                            "unit": m.unit,
                            "histogram": {
                                "dataPoints": points,
                                "aggregationTemporality": m.histogram.as_ref().map_or(0, |h| h.aggregation_temporality),
                            },
                        })
                    }).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "resourceMetrics": resource_metrics })
}

fn resource(r: Option<&Resource>) -> Value {
    json!({ "attributes": attributes(r.map_or(&[][..], |r| &r.attributes)) })
}

fn scope(s: Option<&InstrumentationScope>) -> Value {
    match s {
        Some(s) => json!({ "name": s.name, "version": s.version }),
        None => json!({}),
    }
}

fn span(s: &Span) -> Value {
    let mut o = Map::new();
    o.insert("traceId".into(), hex(&s.trace_id).into());
    o.insert("spanId".into(), hex(&s.span_id).into());
    if !s.trace_state.is_empty() {
        o.insert("traceState".into(), s.trace_state.clone().into());
    }
    if !s.parent_span_id.is_empty() {
        o.insert("parentSpanId".into(), hex(&s.parent_span_id).into());
    }
    o.insert("flags".into(), s.flags.into());
    o.insert("name".into(), s.name.clone().into());
    o.insert("kind".into(), s.kind.into());
    o.insert(
        "startTimeUnixNano".into(),
        s.start_time_unix_nano.to_string().into(),
    );
    o.insert(
        "endTimeUnixNano".into(),
        s.end_time_unix_nano.to_string().into(),
    );
    o.insert("attributes".into(), attributes(&s.attributes));
    if let Some(st) = &s.status {
        o.insert(
            "status".into(),
            json!({ "message": st.message, "code": st.code }),
        );
    }
    Value::Object(o)
}

fn attributes(kvs: &[KeyValue]) -> Value {
    kvs.iter()
        .map(|kv| json!({ "key": kv.key, "value": any(kv.value.as_ref()) }))
        .collect()
}

fn any(v: Option<&AnyValue>) -> Value {
    match v.and_then(|v| v.value.as_ref()) {
        Some(Any::String(s)) => json!({ "stringValue": s }),
        Some(Any::Int(i)) => json!({ "intValue": i.to_string() }),
        Some(Any::Double(d)) => json!({ "doubleValue": d }),
        None => json!({}),
    }
}

/// Lowercase hex, as OTLP/JSON writes ids.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
