//! A recording's HTTP lanes as HAR 1.2 (the W3C draft "HTTP Archive (HAR) format",
//! version 1.2): an entry per request, built from the bytes that crossed — heads as
//! sent (names in their case and order), bodies de-chunked, SSE as its text — never
//! from parsed JSON. What HAR has no field for goes in custom fields, which the format
//! allows when their names start with `_`: `_mcpRaw` (the lane, the exact chunk-size
//! lines, a message cut short) and `_tls` (the handshake's facts).

use super::lane::Message;
use base64::Engine;
use mcp_raw_wire::event::Event;
use mcp_raw_wire::transcript::Header;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// Why a recording has no HAR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoHttp {
    /// The recording's transport, as its header says.
    pub transport: String,
}

impl std::fmt::Display for NoHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the recording has no HTTP lanes (its transport is {:?}): HAR holds HTTP exchanges only",
            self.transport
        )
    }
}

/// The HAR document of a recording, or [`NoHttp`] when it has no HTTP lane: its
/// entries as [`super::stream::Entries`] reads them, in their order.
pub fn export(header: &Header, events: &[Event], version: &str) -> Result<Value, NoHttp> {
    let mut reader = super::stream::Entries::new(header);
    for e in events {
        reader.feed(e);
    }
    if !reader.any_http() {
        return Err(NoHttp {
            transport: header.transport.clone(),
        });
    }
    let mut entries = reader.finish();
    // Entries in the order their requests began (HAR 1.2 §entries: sorted by time).
    entries.sort_by_key(|(key, _)| *key);
    let mut doc = document(header, version);
    doc["log"]["entries"] = Value::Array(entries.into_iter().map(|(_, e)| e).collect());
    Ok(doc)
}

/// The document with no entry yet (its `entries` an empty list).
pub fn document(header: &Header, version: &str) -> Value {
    json!({
        "log": {
            "version": "1.2",
            "creator": {"name": "mcp-raw", "version": version},
            "comment": format!("the HTTP that crossed, from an mcp-raw recording ({} of {}, started {})", header.role, header.transport, header.started),
            "entries": [],
        }
    })
}

/// A 1xx response other than 101 is interim: the final one follows (RFC 9110 §15.2).
pub(crate) fn is_interim(m: &Message) -> bool {
    m.head
        .status()
        .is_some_and(|s| (100..200).contains(&s) && s != 101)
}

/// Milliseconds, to the microsecond, as HAR's timings are.
fn ms(d: Duration) -> Value {
    json!((d.as_micros() as f64) / 1000.0)
}

/// One entry: a request, its final response if one came, on the lane `label` whose
/// open note and TLS facts are `open` and `tls`.
pub(crate) fn entry(
    label: &str,
    open: Option<&str>,
    tls: Option<&mcp_raw_wire::tls::TlsFacts>,
    request: &Message,
    response: Option<&Message>,
    started: Option<i64>,
) -> Value {
    let scheme = if tls.is_some() { "https" } else { "http" };
    let req = request_json(request, scheme);
    // To the microsecond (ISO 8601 allows any fraction): entries keep their order.
    let when = started.map_or_else(
        || "1970-01-01T00:00:00.000000Z".to_owned(),
        |us| mcp_raw_wire::clock::format_unix_micros(us + request.first.as_micros() as i64),
    );
    let send = request.last.saturating_sub(request.first);
    let (res, wait, receive) = match response {
        Some(r) => (
            response_json(r),
            r.first.saturating_sub(request.last),
            r.last.saturating_sub(r.first),
        ),
        None => (no_response(), Duration::ZERO, Duration::ZERO),
    };
    let mut raw = Map::new();
    raw.insert("lane".into(), json!(label));
    if let Some(f) = framing(request) {
        raw.insert("request".into(), f);
    }
    match response {
        Some(r) => {
            if let Some(f) = framing(r) {
                raw.insert("response".into(), f);
            }
        }
        None => {
            raw.insert(
                "response".into(),
                json!({"missing": "no response crossed on this lane for this request"}),
            );
        }
    }
    let mut e = Map::new();
    e.insert("startedDateTime".into(), json!(when));
    e.insert("time".into(), ms(send + wait + receive));
    e.insert("request".into(), req);
    e.insert("response".into(), res);
    e.insert("cache".into(), json!({}));
    e.insert(
        "timings".into(),
        json!({"send": ms(send), "wait": ms(wait), "receive": ms(receive)}),
    );
    if let Some(ip) = open.and_then(server_ip) {
        e.insert("serverIPAddress".into(), json!(ip));
    }
    e.insert("connection".into(), json!(label));
    if let Some(tls) = tls {
        e.insert("_tls".into(), tls.to_json());
    }
    e.insert("_mcpRaw".into(), Value::Object(raw));
    Value::Object(e)
}

/// The server's address, when the lane's open note names one it connected to.
fn server_ip(open: &str) -> Option<String> {
    let rest = open.strip_prefix("connected to ")?;
    let addr = rest.split([' ', ';']).next()?;
    addr.parse::<std::net::SocketAddr>()
        .ok()
        .map(|a| a.ip().to_string())
}

/// What HAR cannot say about a message's framing: its chunk-size lines as sent, and
/// whether it ended as its framing says (`None`: nothing to add).
fn framing(m: &Message) -> Option<Value> {
    let mut f = Map::new();
    if !m.chunks.is_empty() {
        f.insert("chunks".into(), json!(m.chunks));
    }
    if let Some(cut) = &m.cut {
        f.insert("cut".into(), json!(cut));
    }
    (!f.is_empty()).then_some(Value::Object(f))
}

fn headers(m: &Message) -> Value {
    Value::Array(
        m.head
            .headers
            .iter()
            .map(|(n, v)| json!({"name": n, "value": v}))
            .collect(),
    )
}

/// The body as HAR text: UTF-8 as it is, anything else in base64.
fn body_text(body: &[u8]) -> (String, Option<&'static str>) {
    match std::str::from_utf8(body) {
        Ok(t) => (t.to_owned(), None),
        Err(_) => (
            base64::engine::general_purpose::STANDARD.encode(body),
            Some("base64"),
        ),
    }
}

fn request_json(m: &Message, scheme: &str) -> Value {
    let mut words = m.head.start_line.splitn(3, ' ');
    let method = words.next().unwrap_or("");
    let target = words.next().unwrap_or("");
    let version = words.next().unwrap_or("");
    let url = if target.starts_with("http://") || target.starts_with("https://") {
        target.to_owned()
    } else {
        let host = m.head.header("host").unwrap_or("");
        format!("{scheme}://{host}{target}")
    };
    let query: Vec<Value> = target
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or(""))
        .map(|q| {
            mcp_raw_wire::form::decode(q)
                .into_iter()
                .map(|(n, v)| json!({"name": n, "value": v}))
                .collect()
        })
        .unwrap_or_default();
    let mut r = Map::new();
    r.insert("method".into(), json!(method));
    r.insert("url".into(), json!(url));
    r.insert("httpVersion".into(), json!(version));
    r.insert("cookies".into(), json!([]));
    r.insert("headers".into(), headers(m));
    r.insert("queryString".into(), Value::Array(query));
    if !m.body.is_empty() {
        let (text, encoding) = body_text(&m.body);
        let mut post = Map::new();
        post.insert(
            "mimeType".into(),
            json!(m.head.header("content-type").unwrap_or("")),
        );
        post.insert("text".into(), json!(text));
        if let Some(enc) = encoding {
            // HAR 1.2's postData has no `encoding`: a custom field says it.
            post.insert("_encoding".into(), json!(enc));
        }
        r.insert("postData".into(), Value::Object(post));
    }
    r.insert("headersSize".into(), json!(m.head.raw.len()));
    r.insert("bodySize".into(), json!(m.body_wire));
    Value::Object(r)
}

fn response_json(m: &Message) -> Value {
    let mut words = m.head.start_line.splitn(3, ' ');
    let version = words.next().unwrap_or("");
    let status = words
        .next()
        .and_then(|s| s.parse::<u16>().ok())
        .unwrap_or(0);
    let reason = words.next().unwrap_or("");
    let (text, encoding) = body_text(&m.body);
    let mut content = Map::new();
    content.insert("size".into(), json!(m.body.len()));
    content.insert(
        "mimeType".into(),
        json!(m.head.header("content-type").unwrap_or("")),
    );
    if !m.body.is_empty() {
        content.insert("text".into(), json!(text));
        if let Some(enc) = encoding {
            content.insert("encoding".into(), json!(enc));
        }
        // HAR's text is usually the decoded body; here it is what crossed.
        if let Some(coding) = m
            .head
            .header("content-encoding")
            .filter(|c| !c.trim().eq_ignore_ascii_case("identity"))
        {
            content.insert(
                "comment".into(),
                json!(format!(
                    "the body as it crossed, still encoded (Content-Encoding: {coding}), not decoded"
                )),
            );
        }
    }
    json!({
        "status": status,
        "statusText": reason,
        "httpVersion": version,
        "cookies": [],
        "headers": headers(m),
        "content": content,
        "redirectURL": m.head.header("location").unwrap_or(""),
        "headersSize": m.head.raw.len(),
        "bodySize": m.body_wire,
    })
}

/// A request no response answered (the lane closed first): HAR needs a response, and
/// status 0 is how browsers write one that never came.
fn no_response() -> Value {
    json!({
        "status": 0,
        "statusText": "",
        "httpVersion": "",
        "cookies": [],
        "headers": [],
        "content": {"size": 0, "mimeType": ""},
        "redirectURL": "",
        "headersSize": -1,
        "bodySize": -1,
    })
}
