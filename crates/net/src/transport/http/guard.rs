//! The checks a request passes before its body is read: `Origin` (DNS rebinding),
//! `Accept`, `Content-Type`, and the body size. Each failure is an HTTP status with a
//! body that says what was wrong.

use super::names;
use super::reply::{self, HttpResponse};
use crate::jsonrpc::code;
pub use crate::wire::http::authority_host;
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::StatusCode;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderMap, HeaderName, ORIGIN};

/// The host names this server answers to: the loopback names always, plus those
/// given with `serve --allow-host`.
#[derive(Debug, Clone)]
pub struct AllowedHosts(Vec<String>);

impl AllowedHosts {
    /// The loopback names plus `extra` (`--allow-host`).
    pub fn new(extra: &[String]) -> Self {
        let mut names: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(String::from).to_vec();
        names.extend(
            extra
                .iter()
                .map(|h| h.trim_matches(['[', ']']).to_ascii_lowercase()),
        );
        AllowedHosts(names)
    }

    fn allows(&self, name: &str) -> bool {
        self.0.iter().any(|n| n.eq_ignore_ascii_case(name))
    }
}

impl Default for AllowedHosts {
    fn default() -> Self {
        AllowedHosts::new(&[])
    }
}

/// DNS-rebinding protection (2025-11-25 / 2026-07-28 `basic/transports` "Security
/// Warning": servers MUST validate `Origin`, answering 403 when it is invalid). A web
/// page on `evil.example` whose name an attacker re-points at 127.0.0.1 sends
/// `Host: evil.example` and `Origin: http://evil.example`; both must name a host this
/// server answers to, or the request is refused before anything else happens.
pub fn check_host_and_origin(
    headers: &HeaderMap,
    allowed: &AllowedHosts,
) -> Result<(), HttpResponse> {
    foreign_host(headers, allowed).map_or(Ok(()), |why| {
        Err(reply::error(
            StatusCode::FORBIDDEN,
            code::INVALID_REQUEST,
            why,
        ))
    })
}

/// The rule of [`check_host_and_origin`] for a server with responses of its own
/// (`auth-server`, `replay`'s mock): why the request is refused with `403`, if it is.
pub fn foreign_host(headers: &HeaderMap, allowed: &AllowedHosts) -> Option<String> {
    let refuse = |what: &str, value: &hyper::header::HeaderValue| {
        Some(format!(
            "Forbidden: {what} {value:?} is not a host this server answers to (localhost, 127.0.0.1, [::1], or one given with --allow-host); DNS-rebinding protection"
        ))
    };
    if let Some(host) = headers.get(HOST)
        && !host
            .to_str()
            .ok()
            .and_then(authority_host)
            .is_some_and(|h| allowed.allows(h))
    {
        return refuse("Host", host);
    }
    if let Some(origin) = headers.get(ORIGIN)
        && !origin
            .to_str()
            .ok()
            .and_then(origin_host)
            .is_some_and(|h| allowed.allows(h))
    {
        return refuse("Origin", origin);
    }
    None
}

/// `http://localhost:3000` → `localhost`; `null`, a path, another scheme → `None`.
pub fn origin_host(origin: &str) -> Option<&str> {
    let (scheme, rest) = origin.split_once("://")?;
    if !matches!(scheme, "http" | "https") || rest.contains('/') {
        return None;
    }
    authority_host(rest)
}

/// The headers a request may carry once at most. Two `Mcp-Method` headers
/// (`tools/call`, then `tools/list`) would let an intermediary that reads the last
/// value, or the comma-joined list, route or authorize a different request from the
/// one this server runs; the same for the session, the version, the name and the
/// mirrored parameters. RFC 9110 §5.3 allows repeating a field only when its value
/// is a comma-separated list, which none of these is; RFC 9112 §3.2 requires `400`
/// for a repeated `Host`.
const SINGLETONS: [HeaderName; 8] = [
    HOST,
    ORIGIN,
    CONTENT_TYPE,
    names::LAST_EVENT_ID,
    names::SESSION_ID,
    names::PROTOCOL_VERSION,
    names::METHOD,
    names::NAME,
];

/// Refuses a request that repeats a header of `SINGLETONS` or an `Mcp-Param-*`
/// header: `400`, with `-32020` (header mismatch) when the request looks modern
/// (`modern()`, asked only then: the server speaks only 2026-07-28, or a version
/// header names it, or it mirrors `Mcp-Method`) and `-32600` otherwise.
pub fn check_singletons(
    headers: &HeaderMap,
    modern: impl FnOnce() -> bool,
) -> Result<(), HttpResponse> {
    // A name seen once has one value: only a map with more values than names can
    // repeat one, so the common request is cleared without a lookup.
    if headers.len() == headers.keys_len() {
        return Ok(());
    }
    let repeated = headers.keys().find(|name| {
        (SINGLETONS.contains(name)
            || name
                .as_str()
                .starts_with(crate::wire::http::mirror::PARAM_PREFIX))
            && headers.get_all(*name).iter().nth(1).is_some()
    });
    let Some(name) = repeated else {
        return Ok(());
    };
    let values: Vec<_> = headers.get_all(name).iter().collect();
    let (code, what) = if modern() {
        (crate::jsonrpc::code::HEADER_MISMATCH, "Header mismatch")
    } else {
        (code::INVALID_REQUEST, "Bad Request")
    };
    Err(reply::error(
        StatusCode::BAD_REQUEST,
        code,
        format!(
            "{what}: the {name} header appears {} times ({values:?}); send it once",
            values.len()
        ),
    ))
}

/// A POST's `Accept` must list both `application/json` and `text/event-stream`
/// (2025-11-25 `basic/transports` "Sending Messages", rule 2); wildcards count.
pub fn check_accept(headers: &HeaderMap) -> Result<(), HttpResponse> {
    // One pass over every media range of every Accept line, parameters (`;q=…`)
    // dropped: each wanted type counts when listed as itself, as `top/*`, or as `*/*`.
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(ACCEPT) {
        for range in value.as_bytes().split(|&b| b == b',') {
            let range = range.split(|&b| b == b';').next().unwrap_or_default();
            let range = range.trim_ascii();
            json |= covers(range, b"application/json");
            sse |= covers(range, b"text/event-stream");
        }
    }
    if json && sse {
        return Ok(());
    }
    let accept = headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    Err(reply::error(
        StatusCode::NOT_ACCEPTABLE,
        code::INVALID_REQUEST,
        format!(
            "Not Acceptable: Accept must list both application/json and text/event-stream, got {:?}",
            accept
        ),
    ))
}

/// Does the media range `range` (from Accept) cover the type `want` (`top/sub`)?
fn covers(range: &[u8], want: &[u8]) -> bool {
    if range.eq_ignore_ascii_case(want) || range == b"*/*" {
        return true;
    }
    let top = want.split(|&b| b == b'/').next().unwrap_or_default();
    range
        .strip_suffix(b"/*")
        .is_some_and(|range_top| range_top.eq_ignore_ascii_case(top))
}

/// A POST body must be JSON: `Content-Type: application/json` (parameters allowed).
pub fn check_content_type(headers: &HeaderMap) -> Result<(), HttpResponse> {
    let ct = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let media = ct.split(';').next().unwrap_or("").trim();
    if media.eq_ignore_ascii_case("application/json") {
        return Ok(());
    }
    Err(reply::error(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        code::INVALID_REQUEST,
        format!("Unsupported Media Type: Content-Type must be application/json, got {ct:?}"),
    ))
}

/// Reads the whole body, refusing with `413` once it passes `--max-body-bytes`
/// (checked against `Content-Length` up front and again while streaming) and with
/// `408` when it has not all arrived within `--body-timeout`. Both refusals close
/// the connection (`Connection: close`): the rest of that body is never read as a
/// request; the lingering close in [`super::conn`] discards it.
pub async fn read_body(
    body: hyper::body::Incoming,
    headers: &HeaderMap,
    limits: &super::Limits,
) -> Result<Bytes, HttpResponse> {
    let limit = limits.max_body;
    let too_large = || {
        closing(reply::error(
            StatusCode::PAYLOAD_TOO_LARGE,
            code::INVALID_REQUEST,
            format!(
                "Payload Too Large: the body exceeds the {limit}-byte limit (serve --max-body-bytes)"
            ),
        ))
    };
    let declared = headers
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    let collect = Limited::new(body, limit).collect();
    let Ok(read) = tokio::time::timeout(limits.body_timeout, collect).await else {
        return Err(closing(reply::error(
            StatusCode::REQUEST_TIMEOUT,
            code::INVALID_REQUEST,
            format!(
                "Request Timeout: the body did not arrive in full within {} s (serve --body-timeout)",
                limits.body_timeout.as_secs_f64()
            ),
        )));
    };
    match read {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Err(e) => Err(reply::error(
            StatusCode::BAD_REQUEST,
            code::INVALID_REQUEST,
            format!("Bad Request: could not read the body: {e}"),
        )),
    }
}

/// A refusal given before the request's body was read, while some of it may still be
/// on its way: hyper then closes the connection rather than read a body nobody asked
/// for, so the response says so (RFC 9112 §9.6: a server that will close "SHOULD send
/// a "close" connection option in its final response"), and a client does not send
/// its next request into a closing socket. Without a body to come, nothing changes.
pub fn refused_unread(body_coming: bool, r: HttpResponse) -> HttpResponse {
    if body_coming { closing(r) } else { r }
}

/// Marks a response as the last on its connection (RFC 9112 §9.6).
fn closing(mut r: HttpResponse) -> HttpResponse {
    r.headers_mut().insert(
        hyper::header::CONNECTION,
        hyper::header::HeaderValue::from_static("close"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    #[test]
    fn loopback_origins_and_hosts() {
        let allowed = AllowedHosts::default();
        let ok = |o: &str| origin_host(o).is_some_and(|h| allowed.allows(h));
        for good in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8443",
            "http://[::1]:1",
            "http://LOCALHOST",
        ] {
            assert!(ok(good), "{good}");
        }
        for bad in [
            "http://evil.example",
            "null",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example:80",
            "http://localhost:abc",
            "http://[::2]:80",
            "file://localhost",
            "http://localhost/path",
        ] {
            assert!(!ok(bad), "{bad}");
        }
        assert_eq!(authority_host("127.0.0.1:3100"), Some("127.0.0.1"));
        assert_eq!(authority_host("[::1]:80"), Some("::1"));
        assert_eq!(authority_host("localhost"), Some("localhost"));
        assert_eq!(authority_host("localhost:"), None);
        assert_eq!(authority_host("evil.example:99999999"), None);
    }

    #[test]
    fn allow_host_adds_names() {
        let allowed = AllowedHosts::new(&["mcp.example.com".into()]);
        let mut h = HeaderMap::new();
        h.insert(HOST, HeaderValue::from_static("mcp.example.com:8080"));
        h.insert(ORIGIN, HeaderValue::from_static("https://mcp.example.com"));
        assert!(check_host_and_origin(&h, &allowed).is_ok());
        assert!(check_host_and_origin(&h, &AllowedHosts::default()).is_err());
    }

    fn headers(name: hyper::header::HeaderName, v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(v).unwrap());
        h
    }

    #[test]
    fn accept_needs_both_types() {
        assert!(check_accept(&headers(ACCEPT, "application/json, text/event-stream")).is_ok());
        assert!(
            check_accept(&headers(
                ACCEPT,
                "text/event-stream;q=1, application/json;q=0.9"
            ))
            .is_ok()
        );
        assert!(check_accept(&headers(ACCEPT, "*/*")).is_ok());
        assert!(check_accept(&headers(ACCEPT, "application/json")).is_err());
        assert!(check_accept(&headers(ACCEPT, "text/html")).is_err());
        assert!(check_accept(&HeaderMap::new()).is_err());
    }

    #[test]
    fn content_type_must_be_json() {
        assert!(
            check_content_type(&headers(CONTENT_TYPE, "application/json; charset=utf-8")).is_ok()
        );
        assert!(check_content_type(&headers(CONTENT_TYPE, "text/plain")).is_err());
        assert!(check_content_type(&HeaderMap::new()).is_err());
    }
}
