//! The flags and OpenTelemetry's standard variables (OpenTelemetry "OTLP Exporter
//! Configuration") read into the exporter's settings, each variable below its flag:
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (a base: `/v1/traces` and `/v1/metrics` appended),
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and `_METRICS_ENDPOINT` (used as given),
//! `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`, values percent-decoded),
//! `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds), and
//! each signal's own `…_TRACES_HEADERS`, `…_TRACES_PROTOCOL`, `…_TRACES_TIMEOUT` (and
//! `…_METRICS_…`), which win over the general ones for that signal,
//! `OTEL_EXPORTER_OTLP_CERTIFICATE` (roots for an `https://` collector),
//! `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. A bad value is an error that
//! quotes it.

use mcp_raw_tools::otlp::exporter::{self, Own, Settings};
use mcp_raw_tools::otlp::post::Endpoint;
use mcp_raw_tools::otlp::proto::KeyValue;
use std::time::Duration;

/// What the flags say, whichever program's they are.
pub struct Flags<'a> {
    /// `--otlp` / `--endpoint`.
    pub endpoint: Option<&'a str>,
    /// `--otlp-protocol` / `--protocol`.
    pub protocol: Option<&'a str>,
    /// `--otlp-header` / `--header`.
    pub headers: &'a [String],
    /// `--otlp-timeout` / `--timeout`.
    pub timeout: Option<Duration>,
    /// Spans per export.
    pub batch: usize,
    /// Spans queued at most.
    pub queue: usize,
    /// Between exports.
    pub interval: Duration,
}

/// The settings the flags and `env` give, or `None` when no endpoint is named;
/// a bad value is an error that quotes it.
pub fn settings(
    f: Flags<'_>,
    env: &dyn Fn(&str) -> Option<String>,
    max_message: usize,
) -> Result<Option<Settings>, String> {
    let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    if let Some(base) = f.endpoint {
        Endpoint::parse(base)?;
    }
    let (traces, metrics) = match f.endpoint {
        Some(base) => (
            Some(Endpoint::join(base, "/v1/traces")),
            Some(Endpoint::join(base, "/v1/metrics")),
        ),
        None => {
            let base = var("OTEL_EXPORTER_OTLP_ENDPOINT");
            let signal = |specific: &str, path: &str| {
                var(specific).or_else(|| base.as_deref().map(|b| Endpoint::join(b, path)))
            };
            (
                signal("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/v1/traces"),
                signal("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "/v1/metrics"),
            )
        }
    };
    if traces.is_none() && metrics.is_none() {
        return Ok(None);
    }
    let endpoint = |url: Option<String>| -> Result<Option<Endpoint>, String> {
        url.map(|u| Endpoint::parse(&u)).transpose()
    };
    // Each of protocol, headers and timeout: the flag, else the signal's own variable
    // (`…_TRACES_…`, `…_METRICS_…`), else the general one, else the default.
    let protocol_of = |name: &str| -> Result<Option<bool>, String> {
        var(name).map(|v| protocol(name, &v)).transpose()
    };
    let json = match f.protocol {
        Some(p) => protocol("--otlp-protocol", p)?,
        None => protocol_of("OTEL_EXPORTER_OTLP_PROTOCOL")?.unwrap_or(false),
    };
    let mut flag_headers = Vec::new();
    for h in f.headers {
        let (name, value) = h
            .split_once('=')
            .filter(|(n, _)| !n.trim().is_empty())
            .ok_or_else(|| format!("--otlp-header {h:?}: expected NAME=VALUE"))?;
        let (name, value) = (name.trim().to_owned(), value.trim().to_owned());
        check_header(&name, &value).map_err(|e| format!("--otlp-header {h:?}: {e}"))?;
        flag_headers.push((name, value));
    }
    let headers_of = |name: &str| -> Result<Option<Vec<(String, String)>>, String> {
        let Some(v) = var(name) else {
            return Ok(None);
        };
        let mut headers = pairs(&v).map_err(|e| format!("{name}: {e}"))?;
        // A flag wins over the variable for the same name.
        for (name, value) in &flag_headers {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            headers.push((name.clone(), value.clone()));
        }
        Ok(Some(headers))
    };
    let headers = headers_of("OTEL_EXPORTER_OTLP_HEADERS")?.unwrap_or_else(|| flag_headers.clone());
    let timeout_of = |name: &str| -> Result<Option<Duration>, String> {
        var(name)
            .map(|ms| {
                ms.trim()
                    .parse()
                    .map(Duration::from_millis)
                    .map_err(|_| format!("{name} {ms:?}: expected milliseconds"))
            })
            .transpose()
    };
    let timeout = match f.timeout {
        Some(t) => t,
        None => timeout_of("OTEL_EXPORTER_OTLP_TIMEOUT")?.unwrap_or(exporter::TIMEOUT),
    };
    let own = |signal: &str| -> Result<Own, String> {
        Ok(Own {
            headers: headers_of(&format!("OTEL_EXPORTER_OTLP_{signal}_HEADERS"))?,
            json: match f.protocol {
                Some(_) => None,
                None => protocol_of(&format!("OTEL_EXPORTER_OTLP_{signal}_PROTOCOL"))?,
            },
            timeout: match f.timeout {
                Some(_) => None,
                None => timeout_of(&format!("OTEL_EXPORTER_OTLP_{signal}_TIMEOUT"))?,
            },
        })
    };
    let (traces_own, metrics_own) = (own("TRACES")?, own("METRICS")?);
    let mut resource = match var("OTEL_RESOURCE_ATTRIBUTES") {
        Some(v) => pairs(&v).map_err(|e| format!("OTEL_RESOURCE_ATTRIBUTES: {e}"))?,
        None => Vec::new(),
    };
    // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES; with
    // neither, the program's own name.
    if let Some(name) = var("OTEL_SERVICE_NAME") {
        resource.retain(|(k, _)| k != "service.name");
        resource.insert(0, ("service.name".into(), name));
    } else if !resource.iter().any(|(k, _)| k == "service.name") {
        resource.insert(0, ("service.name".into(), "mcp-raw".into()));
    }
    resource.push(("service.version".into(), env!("CARGO_PKG_VERSION").into()));
    Ok(Some(Settings {
        traces: endpoint(traces)?,
        metrics: endpoint(metrics)?,
        headers,
        json,
        timeout,
        batch: f.batch.max(1),
        queue: f.queue.max(1),
        interval: f.interval.max(Duration::from_millis(10)),
        resource: resource.iter().map(|(k, v)| KeyValue::str(k, v)).collect(),
        max_message,
        cacert: cacert(var("OTEL_EXPORTER_OTLP_CERTIFICATE"))?,
        injects: false,
        traces_own,
        metrics_own,
    }))
}

/// `OTEL_EXPORTER_OTLP_CERTIFICATE`: a PEM file of roots for an `https://` collector,
/// read now so that a bad one stops the program before it starts.
fn cacert(path: Option<String>) -> Result<Vec<std::path::PathBuf>, String> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let files = vec![std::path::PathBuf::from(path.trim())];
    mcp_raw_net::client::tls::Tls::new(mcp_raw_net::client::tls::TlsOptions {
        cacert: files.clone(),
        ..Default::default()
    })
    .map_err(|e| format!("OTEL_EXPORTER_OTLP_CERTIFICATE {path:?}: {e:#}"))?;
    Ok(files)
}

/// A header's name must be a token and its value free of line breaks (RFC 9110
/// §5.1, §5.5): what we put in a request head must not split it.
/// An OTLP protocol's name, as `label` gave it: OTLP/JSON (`true`) or protobuf.
fn protocol(label: &str, value: &str) -> Result<bool, String> {
    match value.trim() {
        "http/protobuf" => Ok(false),
        "http/json" => Ok(true),
        "grpc" => Err(format!(
            "{label}: OTLP protocol \"grpc\": mcp-raw speaks OTLP/HTTP only (http/protobuf or http/json)"
        )),
        other => Err(format!(
            "{label}: OTLP protocol {other:?}: expected http/protobuf or http/json"
        )),
    }
}

fn check_header(name: &str, value: &str) -> Result<(), String> {
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    {
        return Err(format!("{name:?} is not a header name"));
    }
    if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
        return Err("a header value cannot hold a line break".into());
    }
    Ok(())
}

/// `k=v,k2=v2` with percent-encoded values (the W3C Baggage shape the OTel variables
/// use).
fn pairs(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for item in text.split(',').filter(|i| !i.trim().is_empty()) {
        let (k, v) = item
            .split_once('=')
            .filter(|(k, _)| !k.trim().is_empty())
            .ok_or_else(|| format!("{item:?}: expected KEY=VALUE"))?;
        let v = percent_decode(v.trim()).ok_or_else(|| format!("{item:?}: a bad %-escape"))?;
        check_header(k.trim(), &v).map_err(|e| format!("{item:?}: {e}"))?;
        out.push((k.trim().to_owned(), v));
    }
    Ok(out)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(endpoint: Option<&str>) -> Flags<'_> {
        Flags {
            endpoint,
            protocol: None,
            headers: &[],
            timeout: None,
            batch: 512,
            queue: 2048,
            interval: Duration::from_secs(5),
        }
    }

    #[test]
    fn the_flag_wins_and_the_variables_fill_in() {
        let vars = |n: &str| match n {
            "OTEL_EXPORTER_OTLP_ENDPOINT" => Some("http://env:4318/".to_owned()),
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT" => Some("http://m:1/custom".to_owned()),
            "OTEL_EXPORTER_OTLP_HEADERS" => Some("a=1,b=x%20y".to_owned()),
            "OTEL_EXPORTER_OTLP_TIMEOUT" => Some("2500".to_owned()),
            "OTEL_EXPORTER_OTLP_PROTOCOL" => Some("http/json".to_owned()),
            "OTEL_SERVICE_NAME" => Some("svc".to_owned()),
            "OTEL_RESOURCE_ATTRIBUTES" => Some("service.name=no,team=t".to_owned()),
            _ => None,
        };
        let s = settings(flags(None), &vars, 100).unwrap().unwrap();
        assert_eq!(s.traces.unwrap().url, "http://env:4318/v1/traces");
        assert_eq!(s.metrics.unwrap().url, "http://m:1/custom");
        assert_eq!(
            s.headers,
            [("a".into(), "1".into()), ("b".into(), "x y".into())]
        );
        assert_eq!(s.timeout, Duration::from_millis(2500));
        assert!(s.json);
        let keys: Vec<String> = s.resource.iter().map(|kv| format!("{kv:?}")).collect();
        assert!(keys[0].contains("\"service.name\"") && keys[0].contains("\"svc\""));
        assert!(!keys.iter().any(|k| k.contains("\"no\"")));
        let s = settings(flags(Some("http://flag:9")), &vars, 100)
            .unwrap()
            .unwrap();
        assert_eq!(s.traces.unwrap().url, "http://flag:9/v1/traces");
        assert_eq!(s.metrics.unwrap().url, "http://flag:9/v1/metrics");
        assert!(settings(flags(None), &|_| None, 100).unwrap().is_none());
    }

    /// A signal's own variable wins over the general one for that signal only; a
    /// flag wins over both.
    #[test]
    fn each_signals_own_variables_win_for_it() {
        let vars = |n: &str| match n {
            "OTEL_EXPORTER_OTLP_ENDPOINT" => Some("http://env:4318".to_owned()),
            "OTEL_EXPORTER_OTLP_HEADERS" => Some("a=1".to_owned()),
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS" => Some("t=2".to_owned()),
            "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL" => Some("http/json".to_owned()),
            "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT" => Some("700".to_owned()),
            _ => None,
        };
        let s = settings(flags(None), &vars, 100).unwrap().unwrap();
        let (t, m) = (s.posting(false), s.posting(true));
        assert_eq!(t.headers, [("t".to_owned(), "2".to_owned())]);
        assert_eq!(m.headers, [("a".to_owned(), "1".to_owned())]);
        assert_eq!((t.json, m.json), (false, true));
        assert_eq!(
            (t.timeout, m.timeout),
            (Duration::from_millis(700), exporter::TIMEOUT)
        );
        let header = ["f=3".to_owned()];
        let mut f = flags(None);
        f.protocol = Some("http/protobuf");
        f.timeout = Some(Duration::from_secs(1));
        f.headers = &header;
        let s = settings(f, &vars, 100).unwrap().unwrap();
        let (t, m) = (s.posting(false), s.posting(true));
        assert_eq!((t.json, m.json), (false, false));
        assert_eq!(
            (t.timeout, m.timeout),
            (Duration::from_secs(1), Duration::from_secs(1))
        );
        assert_eq!(
            t.headers,
            [
                ("t".to_owned(), "2".to_owned()),
                ("f".to_owned(), "3".to_owned())
            ]
        );
        assert_eq!(
            m.headers,
            [
                ("a".to_owned(), "1".to_owned()),
                ("f".to_owned(), "3".to_owned())
            ]
        );
        let bad = |n: &str| (n == "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT").then(|| "soon".to_owned());
        let e = settings(flags(Some("http://h:1")), &bad, 1).unwrap_err();
        assert_eq!(
            e,
            "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT \"soon\": expected milliseconds"
        );
    }

    #[test]
    fn bad_values_are_refused_with_what_was_wrong() {
        let grpc = |n: &str| (n == "OTEL_EXPORTER_OTLP_PROTOCOL").then(|| "grpc".to_owned());
        let e = settings(flags(Some("http://h:1")), &grpc, 1).unwrap_err();
        assert!(e.contains("grpc"), "{e}");
        let e = settings(flags(Some("ftp://h")), &|_| None, 1).unwrap_err();
        assert!(e.contains("ftp://h"), "{e}");
        let bad = ["x\ny=1".to_owned()];
        let mut f = flags(Some("http://h:1"));
        f.headers = &bad;
        assert!(settings(f, &|_| None, 1).is_err());
    }
}
