//! A HAR file turned into a transcript: each entry a lane of its own (`c1`, `c2`…),
//! its request and response bytes rebuilt from what the HAR says — start lines,
//! headers in their order, bodies, `Content-Length` as the HAR gives it — at the times
//! its `startedDateTime` and `timings` say. What a HAR cannot carry is never invented:
//! each lane's open note says which of its bytes are not exact (the chunking, header
//! case a producer may have lowercased, an HTTP/2 capture written as HTTP/1.1, a
//! length computed), so `show`, `check`, `diff` and `ui` read it knowing that.

use super::HarError;
use base64::Engine;
use bytes::Bytes;
use mcp_raw_wire::event::{Dir, Event, Lane, LaneKind, What};
use mcp_raw_wire::transcript::Header;
use serde_json::Value;
use std::time::Duration;

/// A HAR's transcript: its header and events, in time order.
pub struct Imported {
    /// `import` over `http`, started when the first entry did.
    pub header: Header,
    /// Every entry's events, sorted by time.
    pub events: Vec<Event>,
}

fn at<'a>(v: &'a Value, path: &str, key: &str) -> Result<&'a Value, HarError> {
    v.get(key)
        .ok_or_else(|| HarError::new(format!("{path}.{key}"), "missing"))
}

fn str_at<'a>(v: &'a Value, path: &str, key: &str) -> Result<&'a str, HarError> {
    at(v, path, key)?.as_str().ok_or_else(|| {
        HarError::new(
            format!("{path}.{key}"),
            format!("must be a string, got {}", v[key]),
        )
    })
}

/// `[{name, value}…]` in their order.
fn header_list(v: &Value, path: &str) -> Result<Vec<(String, String)>, HarError> {
    let list = at(v, path, "headers")?.as_array().ok_or_else(|| {
        HarError::new(
            format!("{path}.headers"),
            "must be an array of {name, value}",
        )
    })?;
    list.iter()
        .enumerate()
        .map(|(i, h)| {
            let p = format!("{path}.headers[{i}]");
            Ok((
                str_at(h, &p, "name")?.to_owned(),
                str_at(h, &p, "value")?.to_owned(),
            ))
        })
        .collect()
}

/// A body's bytes: `text`, decoded when `encoding` (or our `_encoding`) says base64.
fn body(v: Option<&Value>, path: &str) -> Result<Vec<u8>, HarError> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let text = match v.get("text") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(t) => t.as_str().ok_or_else(|| {
            HarError::new(format!("{path}.text"), format!("must be a string, got {t}"))
        })?,
    };
    let enc = v
        .get("encoding")
        .or_else(|| v.get("_encoding"))
        .and_then(Value::as_str);
    match enc {
        Some("base64") => base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| HarError::new(format!("{path}.text"), format!("not base64: {e}"))),
        _ => Ok(text.as_bytes().to_vec()),
    }
}

/// An HTTP/1.x version as the start line says it; anything else (h2, HTTP/2.0, h3)
/// is written as HTTP/1.1, and noted.
fn version(v: &str, notes: &mut Vec<String>) -> String {
    if v.eq_ignore_ascii_case("HTTP/1.1") || v.eq_ignore_ascii_case("HTTP/1.0") {
        v.to_ascii_uppercase()
    } else {
        notes.push(format!(
            "the HAR says HTTP version {v:?}: written as HTTP/1.1 framing, which it did not cross as"
        ));
        "HTTP/1.1".into()
    }
}

/// The head and body of one message, framed as its headers say; `ours` when mcp-raw
/// exported the HAR (`_mcpRaw`), whose text is the body as it crossed.
fn message(
    start: String,
    headers: &[(String, String)],
    body: &[u8],
    chunks: Option<&Value>,
    request: bool,
    ours: bool,
    notes: &mut Vec<String>,
) -> Vec<u8> {
    let side = if request { "request" } else { "response" };
    let mut out = start.into_bytes();
    out.extend_from_slice(b"\r\n");
    let find = |n: &str| headers.iter().find(|(h, _)| h.eq_ignore_ascii_case(n));
    let chunked = find("transfer-encoding").is_some_and(|(_, v)| v.contains("chunked"));
    let mut computed = None;
    if !chunked && find("content-length").is_none() && !body.is_empty() && request {
        // Without a length a request has no body (RFC 9112 §6.3): the length is
        // computed, not the HAR's.
        computed = Some(body.len());
        notes.push(format!(
            "the {side}'s Content-Length is computed ({} bytes): the HAR has none",
            body.len()
        ));
    }
    if let Some((_, v)) = find("content-length")
        && v.trim().parse::<usize>().ok() != Some(body.len())
        && !chunked
    {
        notes.push(format!(
            "the {side}'s Content-Length says {v:?}, its HAR body has {} bytes: kept as the HAR says",
            body.len()
        ));
    }
    if let Some((_, coding)) = find("content-encoding")
        && !coding.trim().eq_ignore_ascii_case("identity")
        && !body.is_empty()
        && !ours
    {
        notes.push(format!(
            "the {side} says Content-Encoding {coding:?}: a HAR's text is usually the decoded body, so these bytes may not be the ones that crossed"
        ));
    }
    for (n, v) in headers.iter().filter(|(n, _)| !n.starts_with(':')) {
        out.extend_from_slice(format!("{n}: {v}\r\n").as_bytes());
    }
    if let Some(len) = computed {
        out.extend_from_slice(format!("Content-Length: {len}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    if !chunked {
        out.extend_from_slice(body);
        return out;
    }
    let lines: Vec<&str> = chunks
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let sizes: Option<Vec<usize>> = lines
        .iter()
        .map(|l| {
            let hex = l.split([';', '\r']).next().unwrap_or("").trim();
            usize::from_str_radix(hex, 16).ok()
        })
        .collect();
    match sizes {
        Some(sizes)
            if !sizes.is_empty()
                && sizes.iter().sum::<usize>() == body.len()
                && sizes.last() == Some(&0) =>
        {
            // The chunk-size lines as they crossed (mcp-raw's own `_mcpRaw`).
            let mut rest = body;
            for (line, size) in lines.iter().zip(sizes) {
                out.extend_from_slice(line.as_bytes());
                let (chunk, tail) = rest.split_at(size);
                out.extend_from_slice(chunk);
                if size > 0 {
                    out.extend_from_slice(b"\r\n");
                }
                rest = tail;
            }
            out.extend_from_slice(b"\r\n");
            notes.push(format!(
                "the {side}'s chunk-size lines are as they crossed (_mcpRaw); trailers, if any, are not in a HAR"
            ));
        }
        _ => {
            if !body.is_empty() {
                out.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
                out.extend_from_slice(body);
                out.extend_from_slice(b"\r\n");
            }
            out.extend_from_slice(b"0\r\n\r\n");
            notes.push(format!(
                "the {side}'s chunking is not exact: a HAR holds the body de-chunked, written here as one chunk"
            ));
        }
    }
    out
}

/// What a producer may have done to a side's header names: lowercased them all, or
/// put them in alphabetical order (three or more, so that it is not chance alone).
fn header_doubts(side: &str, headers: &[(String, String)], notes: &mut Vec<String>) {
    let names: Vec<String> = headers
        .iter()
        .filter(|(n, _)| !n.starts_with(':'))
        .map(|(n, _)| n.to_ascii_lowercase())
        .collect();
    if !names.is_empty()
        && headers
            .iter()
            .all(|(n, _)| n.bytes().all(|b| !b.is_ascii_uppercase()))
    {
        notes.push(format!(
            "every {side} header name is lowercase: the producer may have lowercased them"
        ));
    }
    if names.len() >= 3 && names.windows(2).all(|w| w[0] <= w[1]) {
        notes.push(format!(
            "the {side} headers are in alphabetical order: the producer may have sorted them"
        ));
    }
}

/// A HAR timing in milliseconds (`-1`: not known, taken as 0).
fn timing(t: &Value, key: &str) -> Duration {
    let ms = t.get(key).and_then(Value::as_f64).unwrap_or(0.0);
    if ms.is_finite() && ms > 0.0 {
        Duration::from_secs_f64(ms / 1000.0)
    } else {
        Duration::ZERO
    }
}

/// The HAR document's transcript, or where it is malformed.
pub fn import(har: &Value) -> Result<Imported, HarError> {
    let log = at(har, "$", "log")?;
    let entries = at(log, "$.log", "entries")?
        .as_array()
        .ok_or_else(|| HarError::new("$.log.entries", "must be an array"))?;
    let mut starts = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let p = format!("$.log.entries[{i}]");
        let when = str_at(e, &p, "startedDateTime")?;
        starts.push(
            mcp_raw_wire::clock::parse_rfc3339_micros(when).ok_or_else(|| {
                HarError::new(
                    format!("{p}.startedDateTime"),
                    format!("not an ISO 8601 date and time: {when:?}"),
                )
            })?,
        );
    }
    // Time 0 at the first entry's millisecond (the header's precision): every entry's
    // own stamp kept to the microsecond from there.
    let base = starts.iter().copied().min().unwrap_or(0).div_euclid(1000) * 1000;
    let mut events = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let p = format!("$.log.entries[{i}]");
        let lane = Lane {
            id: u32::try_from(i + 1).unwrap_or(u32::MAX),
            kind: LaneKind::Http,
        };
        let t0 = Duration::from_micros(u64::try_from(starts[i] - base).unwrap_or(0));
        events.extend(entry(e, &p, lane, t0)?);
    }
    events.sort_by_key(|e| e.t);
    Ok(Imported {
        header: Header {
            role: "import".into(),
            transport: "http".into(),
            started: mcp_raw_wire::clock::format_unix_millis(base.div_euclid(1000)),
        },
        events,
    })
}

fn entry(e: &Value, p: &str, lane: Lane, t0: Duration) -> Result<Vec<Event>, HarError> {
    let mut notes = Vec::new();
    let rp = format!("{p}.request");
    let req = at(e, p, "request")?;
    let method = str_at(req, &rp, "method")?;
    let url = str_at(req, &rp, "url")?;
    let req_version = version(str_at(req, &rp, "httpVersion")?, &mut notes);
    let req_headers = header_list(req, &rp)?;
    let req_body = body(req.get("postData"), &format!("{rp}.postData"))?;
    // The origin form (RFC 9112 §3.2.1): the path and query of the URL, no fragment.
    let target = url
        .split_once("://")
        .map(|(_, rest)| rest.find('/').map_or("/", |i| &rest[i..]))
        .unwrap_or(url);
    let target = target.split('#').next().unwrap_or(target);
    let raw = e.get("_mcpRaw");
    let chunks = |side: &str| raw.and_then(|r| r.get(side)).and_then(|s| s.get("chunks"));
    let request = message(
        format!("{method} {target} {req_version}"),
        &req_headers,
        &req_body,
        chunks("request"),
        true,
        raw.is_some(),
        &mut notes,
    );
    let sp = format!("{p}.response");
    let res = at(e, p, "response")?;
    let status = at(res, &sp, "status")?.as_u64().ok_or_else(|| {
        HarError::new(
            format!("{sp}.status"),
            format!("must be a number, got {}", res["status"]),
        )
    })?;
    let mut res_headers = Vec::new();
    let response = if status == 0 {
        notes.push("no response: the HAR's status is 0 (none came)".into());
        None
    } else {
        let reason = str_at(res, &sp, "statusText")?;
        let res_version = version(str_at(res, &sp, "httpVersion")?, &mut notes);
        res_headers = header_list(res, &sp)?;
        let content = at(res, &sp, "content")?;
        let res_body = body(Some(content), &format!("{sp}.content"))?;
        Some(message(
            format!("{res_version} {status} {reason}"),
            &res_headers,
            &res_body,
            chunks("response"),
            false,
            raw.is_some(),
            &mut notes,
        ))
    };
    // mcp-raw's own export (`_mcpRaw`) wrote the names as they crossed; another
    // producer may have changed their case or order, which a HAR cannot tell.
    if raw.is_none() {
        for (side, headers) in [("request", &req_headers), ("response", &res_headers)] {
            header_doubts(side, headers, &mut notes);
        }
    }
    let timings = e.get("timings").cloned().unwrap_or(Value::Null);
    let sent =
        t0 + timing(&timings, "blocked") + timing(&timings, "dns") + timing(&timings, "connect");
    let answered = sent + timing(&timings, "send") + timing(&timings, "wait");
    let done = answered + timing(&timings, "receive");
    let exact = if notes.is_empty() {
        "no note: every byte is as the HAR says".to_owned()
    } else {
        format!("not exact: {}", notes.join("; "))
    };
    let server = e
        .get("serverIPAddress")
        .and_then(Value::as_str)
        .map(|ip| format!(", server {ip}"))
        .unwrap_or_default();
    let ev = |t, dir, what| Event { t, lane, dir, what };
    let mut out = vec![
        ev(
            t0,
            Dir::ToServer,
            What::Open(format!(
                "imported from HAR {p} ({method} {url}{server}); {exact}"
            )),
        ),
        ev(sent, Dir::ToServer, What::Bytes(Bytes::from(request))),
    ];
    if let Some(response) = response {
        out.push(ev(
            answered,
            Dir::ToClient,
            What::Bytes(Bytes::from(response)),
        ));
    }
    out.push(ev(
        done,
        Dir::ToServer,
        What::Close("the HAR entry ends".into()),
    ));
    out.push(ev(
        done,
        Dir::ToClient,
        What::Close("the HAR entry ends".into()),
    ));
    Ok(out)
}
