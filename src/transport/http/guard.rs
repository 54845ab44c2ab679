//! The checks a request passes before its body is read: `Origin` (DNS rebinding),
//! `Accept`, `Content-Type`, and the body size. Each failure is an HTTP status with a
//! body that says what was wrong.

use super::reply::{self, HttpResponse};
use crate::jsonrpc::code;
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::StatusCode;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderMap, ORIGIN};

/// `Origin`, when present, must be a loopback origin (`localhost`, `127.0.0.1`,
/// `[::1]`, any port); anything else is `403` (2025-11-25 `basic/transports`
/// "Security Warning": servers MUST validate `Origin` and answer 403 when invalid).
/// This is what stops a web page on another site from reaching a local server.
pub fn check_origin(headers: &HeaderMap) -> Result<(), HttpResponse> {
    let Some(origin) = headers.get(ORIGIN) else {
        return Ok(());
    };
    let text = origin.to_str().unwrap_or("");
    if is_loopback_origin(text) {
        return Ok(());
    }
    Err(reply::error(
        StatusCode::FORBIDDEN,
        code::INVALID_REQUEST,
        format!(
            "Forbidden: Origin {origin:?} is not a loopback origin; this server only accepts requests from localhost, 127.0.0.1 or [::1] (DNS-rebinding protection)"
        ),
    ))
}

/// `http://localhost:3000` → true; `https://evil.example` or `null` → false.
pub fn is_loopback_origin(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "http" | "https") || rest.contains('/') {
        return false;
    }
    let host = match rest.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, tail)) if tail.is_empty() || is_port(tail) => return addr == "::1",
            _ => return false,
        },
        None => match rest.split_once(':') {
            Some((host, port)) if is_port(&format!(":{port}")) => host,
            Some(_) => return false,
            None => rest,
        },
    };
    host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1"
}

fn is_port(tail: &str) -> bool {
    tail.strip_prefix(':')
        .is_some_and(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// A POST's `Accept` must list both `application/json` and `text/event-stream`
/// (2025-11-25 `basic/transports` "Sending Messages", rule 2); wildcards count.
pub fn check_accept(headers: &HeaderMap) -> Result<(), HttpResponse> {
    let accept = headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    let types: Vec<&str> = accept
        .split(',')
        .map(|t| t.split(';').next().unwrap_or("").trim())
        .collect();
    let covers = |want: &str| {
        let (top, _) = want.split_once('/').unwrap_or((want, ""));
        types.iter().any(|t| {
            t.eq_ignore_ascii_case(want)
                || *t == "*/*"
                || t.eq_ignore_ascii_case(&format!("{top}/*"))
        })
    };
    if covers("application/json") && covers("text/event-stream") {
        return Ok(());
    }
    Err(reply::error(
        StatusCode::NOT_ACCEPTABLE,
        code::INVALID_REQUEST,
        format!(
            "Not Acceptable: Accept must list both application/json and text/event-stream, got {:?}",
            accept
        ),
    ))
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

/// Reads the whole body, refusing with `413` once it passes `limit` bytes (checked
/// against `Content-Length` up front and again while streaming).
pub async fn read_body(
    body: hyper::body::Incoming,
    headers: &HeaderMap,
    limit: usize,
) -> Result<Bytes, HttpResponse> {
    let too_large = || {
        reply::error(
            StatusCode::PAYLOAD_TOO_LARGE,
            code::INVALID_REQUEST,
            format!(
                "Payload Too Large: the body exceeds the {limit}-byte limit (serve --max-body-bytes)"
            ),
        )
    };
    let declared = headers
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Err(e) => Err(reply::error(
            StatusCode::BAD_REQUEST,
            code::INVALID_REQUEST,
            format!("Bad Request: could not read the body: {e}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    #[test]
    fn loopback_origins() {
        for ok in [
            "http://localhost",
            "http://localhost:3000",
            "https://127.0.0.1:8443",
            "http://[::1]:1",
            "http://LOCALHOST",
        ] {
            assert!(is_loopback_origin(ok), "{ok}");
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
            assert!(!is_loopback_origin(bad), "{bad}");
        }
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
