//! The metrics listener's answers: `GET /metrics` (or `HEAD`) gets the exposition;
//! any other path `404`, any other method `405`, a request that is not HTTP/1.x
//! `400`, a head too large `431`, each with a line saying why. One request per
//! connection (`Connection: close`): a scraper opens one per scrape.

use super::Metrics;
use super::exposition::CONTENT_TYPE;

/// The path the exposition is served at (Prometheus's default `metrics_path`).
pub const PATH: &str = "/metrics";

/// Where a request head ends (the index past its blank line), if it has.
pub fn head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// The response to one request head (its bytes up to and including the blank line).
pub fn answer(head: &[u8], metrics: &Metrics) -> Vec<u8> {
    let line_end = head
        .windows(2)
        .position(|w| w == b"\r\n")
        .unwrap_or(head.len());
    let line = String::from_utf8_lossy(&head[..line_end]);
    let mut words = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return bad_request(&line);
    };
    // RFC 9112 §3: request-line = method SP request-target SP HTTP-version.
    if !version.starts_with("HTTP/1.") || method.is_empty() || !target.starts_with('/') {
        return bad_request(&line);
    }
    let path = target.split('?').next().unwrap_or(target);
    if path != PATH {
        return plain(
            "404 Not Found",
            &format!("no metrics at {path:?}: they are at {PATH}\n"),
            &[],
        );
    }
    match method {
        "GET" => respond(
            "200 OK",
            CONTENT_TYPE,
            metrics.render().as_bytes(),
            &[],
            true,
        ),
        "HEAD" => respond(
            "200 OK",
            CONTENT_TYPE,
            metrics.render().as_bytes(),
            &[],
            false,
        ),
        other => plain(
            "405 Method Not Allowed",
            &format!("{other:?} is not served here: {PATH} answers GET and HEAD\n"),
            &[("Allow", "GET, HEAD")],
        ),
    }
}

/// `400`: the request line quoted (at most 200 characters of it).
fn bad_request(line: &str) -> Vec<u8> {
    let quoted: String = line.chars().take(200).collect();
    plain(
        "400 Bad Request",
        &format!("not an HTTP/1.1 request line: {quoted:?} (expected GET {PATH} HTTP/1.1)\n"),
        &[],
    )
}

/// `431`: the head was longer than the listener reads.
pub fn too_large(max: usize) -> Vec<u8> {
    plain(
        "431 Request Header Fields Too Large",
        &format!("the request head is over {max} bytes (--metrics-max-head-bytes)\n"),
        &[],
    )
}

/// `408`: the head did not arrive in time.
pub fn too_slow(secs: f64) -> Vec<u8> {
    plain(
        "408 Request Timeout",
        &format!("no complete request head within {secs} s (--metrics-timeout)\n"),
        &[],
    )
}

/// `503`: too many connections open.
pub fn busy(max: usize) -> Vec<u8> {
    plain(
        "503 Service Unavailable",
        &format!("{max} scrapes are being served already (--metrics-max-connections); retry\n"),
        &[("Retry-After", "1")],
    )
}

/// A `text/plain` answer.
fn plain(status: &str, text: &str, extra: &[(&str, &str)]) -> Vec<u8> {
    respond(
        status,
        "text/plain; charset=utf-8",
        text.as_bytes(),
        extra,
        true,
    )
}

/// A whole response: status line, headers, and the body unless `with_body` is false
/// (`HEAD`: the same headers, no body; RFC 9110 §9.3.2).
fn respond(
    status: &str,
    content_type: &str,
    body: &[u8],
    extra: &[(&str, &str)],
    with_body: bool,
) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in extra {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    if with_body {
        out.extend_from_slice(body);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics() -> Metrics {
        super::super::start(1 << 20, 10, 16).unwrap().metrics
    }

    fn status(r: &[u8]) -> String {
        String::from_utf8_lossy(r)
            .lines()
            .next()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn routes_and_refusals() {
        let m = metrics();
        let ok = answer(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", &m);
        assert_eq!(status(&ok), "HTTP/1.1 200 OK");
        let text = String::from_utf8(ok).unwrap();
        assert!(text.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
        assert!(text.contains("# TYPE mcp_raw_requests_total counter\n"));
        let head = answer(b"HEAD /metrics HTTP/1.1\r\n\r\n", &m);
        assert!(head.ends_with(b"\r\n\r\n"));
        assert_eq!(
            status(&answer(b"GET /other HTTP/1.1\r\n\r\n", &m)),
            "HTTP/1.1 404 Not Found"
        );
        let post = answer(b"POST /metrics HTTP/1.1\r\n\r\n", &m);
        assert_eq!(status(&post), "HTTP/1.1 405 Method Not Allowed");
        assert!(String::from_utf8_lossy(&post).contains("Allow: GET, HEAD\r\n"));
        let bad = answer(b"\x16\x03\x01 garbage\r\n\r\n", &m);
        assert_eq!(status(&bad), "HTTP/1.1 400 Bad Request");
        assert!(String::from_utf8_lossy(&bad).contains("garbage"));
    }
}
