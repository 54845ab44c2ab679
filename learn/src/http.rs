//! HTTP/1.1 by hand, as much as the MCP endpoint needs (RFC 9112): read a request
//! (request line, headers, a `content-length` body), write a response (status line,
//! headers, body). No chunked bodies, no pipelining tricks: one request, one
//! response, then the next on the same connection. And the two small things the
//! server needs from HTTP besides: is a `Host`/`Origin` this machine, a session id.

use crate::rpc;
use crate::tools::civil_from_days;
use std::io::{BufRead, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The HTTP server's limits, each with a default and a flag (`demo-http serve`).
#[derive(Debug, Clone)]
pub struct Limits {
    /// The largest POST body read (`--max-body-bytes`); a larger one gets 413.
    pub max_body: usize,
    /// Sessions kept at once (`--max-sessions`); one more `initialize` gets 503.
    pub max_sessions: usize,
    /// How long a connection may sit silent before it is closed (`--idle-secs`).
    pub idle: Duration,
    /// Connections served at once, a thread each (`--max-connections`); one more
    /// gets 503 and is closed.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body: 4 * 1024 * 1024,
            max_sessions: 1000,
            idle: Duration::from_secs(60),
            max_connections: 256,
        }
    }
}

/// The longest request head (request line and headers) read.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// One HTTP response, before it is written.
pub struct Reply {
    /// `200 OK`, `404 Not Found`, …
    pub status: &'static str,
    /// Headers in the order they are sent (lower case, as HTTP/2 would have them).
    pub headers: Vec<(&'static str, String)>,
    /// The body; `content-length` is added from it.
    pub body: String,
}

impl Reply {
    /// `status` with a JSON body (a JSON-RPC message).
    pub fn json(status: &'static str, body: String) -> Reply {
        Reply { status, headers: vec![("content-type", "application/json".into())], body }
    }

    /// An HTTP refusal: a JSON-RPC error with no id, as the spec's examples give.
    pub fn refuse(status: &'static str, code: i64, why: &str) -> Reply {
        Reply::json(status, rpc::error(None, code, why))
    }

    /// `status` and no body (202, 204).
    pub fn empty(status: &'static str) -> Reply {
        Reply { status, headers: Vec::new(), body: String::new() }
    }
}

/// A request as read off the socket.
pub struct Request {
    /// `POST`, `GET`, …
    pub method: String,
    /// The path, without any `?query`.
    pub path: String,
    /// Headers, names lower-cased (HTTP names are case-insensitive, RFC 9110 §5.1).
    pub headers: Vec<(String, String)>,
    /// The body, `content-length` bytes of it.
    pub body: Vec<u8>,
}

impl Request {
    /// The value of header `name` (lower case), if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Reads one request: the head up to the empty line, then `content-length` bytes.
/// `Ok(None)` when the client closed (or idled out) between requests.
pub fn read_request(input: &mut impl BufRead, max_body: usize) -> Result<Option<Request>, Reply> {
    let bad = |why: &str| {
        Reply::refuse("400 Bad Request", rpc::code::INVALID_REQUEST, &format!("Bad Request: {why}"))
    };
    let mut lines = Vec::new();
    let mut head_bytes = 0;
    loop {
        let mut line = Vec::new();
        let n = input
            .by_ref()
            .take((MAX_HEAD_BYTES + 1 - head_bytes) as u64)
            .read_until(b'\n', &mut line)
            .unwrap_or(0);
        head_bytes += n;
        if n == 0 && lines.is_empty() {
            return Ok(None);
        }
        if head_bytes > MAX_HEAD_BYTES {
            return Err(Reply::refuse(
                "431 Request Header Fields Too Large",
                rpc::code::INVALID_REQUEST,
                &format!(
                    "Request Header Fields Too Large: the head exceeds {MAX_HEAD_BYTES} bytes"
                ),
            ));
        }
        if n == 0 || !line.ends_with(b"\n") {
            return Err(bad("the connection ended inside the request head"));
        }
        let line = String::from_utf8(line).map_err(|_| bad("the request head is not UTF-8"))?;
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break; // the empty line that ends the head (RFC 9112 §2.1)
        }
        lines.push(line.to_owned());
    }
    // `POST /mcp HTTP/1.1`
    let mut first = lines[0].split(' ');
    let (Some(method), Some(target), Some(_version)) = (first.next(), first.next(), first.next())
    else {
        return Err(bad(&format!("not an HTTP request line: {:?}", lines[0])));
    };
    let mut headers = Vec::new();
    for line in &lines[1..] {
        let Some((name, value)) = line.split_once(':') else {
            return Err(bad(&format!("a header line without ':': {line:?}")));
        };
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let mut request = Request {
        method: method.to_owned(),
        path: target.split('?').next().unwrap_or_default().to_owned(),
        headers,
        body: Vec::new(),
    };
    if request.header("transfer-encoding").is_some() {
        return Err(Reply::refuse(
            "411 Length Required",
            rpc::code::INVALID_REQUEST,
            "Length Required: send the body with Content-Length; this server reads no chunked bodies",
        ));
    }
    let length = match request.header("content-length") {
        None => 0,
        Some(n) => n
            .parse::<usize>()
            .map_err(|_| bad(&format!("Content-Length is not a number: {n:?}")))?,
    };
    if length > max_body {
        return Err(Reply::refuse(
            "413 Payload Too Large",
            rpc::code::INVALID_REQUEST,
            &format!(
                "Payload Too Large: the body exceeds the {}-byte limit (--max-body-bytes)",
                max_body
            ),
        ));
    }
    request.body = vec![0; length];
    input.read_exact(&mut request.body).map_err(|_| bad("the connection ended inside the body"))?;
    Ok(Some(request))
}

/// Writes the status line, the headers, `content-length` and `date`, the body.
pub fn write_reply(out: &mut TcpStream, reply: Reply, keep_open: bool) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {}\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    // RFC 9110 §8.6: no Content-Length on a 204.
    if !reply.status.starts_with("204") {
        head.push_str(&format!("content-length: {}\r\n", reply.body.len()));
    }
    if !keep_open {
        head.push_str("connection: close\r\n");
    }
    head.push_str(&format!("date: {}\r\n\r\n", http_date()));
    // One write for head and body: two small writes would wait on each other (Nagle's
    // algorithm holds the second until the first is acknowledged, ~40 ms).
    out.write_all((head + &reply.body).as_bytes())?;
    out.flush()
}

/// The HTTP date of now, `Mon, 07 Dec 2026 13:38:19 GMT` (RFC 9110 §5.6.7), for
/// the `date` header every response carries (RFC 9110 §6.6.1).
pub fn http_date() -> String {
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let (days, secs) = ((now.as_secs() / 86_400) as i64, now.as_secs() % 86_400);
    let (y, m, d) = civil_from_days(days);
    // 1970-01-01 was a Thursday.
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][days.rem_euclid(7) as usize];
    let month =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            [m as usize - 1];
    let (h, min, s) = (secs / 3600, secs % 3600 / 60, secs % 60);
    format!("{weekday}, {d:02} {month} {y} {h:02}:{min:02}:{s:02} GMT")
}

/// Is a `Host` (`127.0.0.1:3100`) or `Origin` (`http://localhost:3100`) this machine?
pub fn is_local(value: &str) -> bool {
    let authority =
        value.strip_prefix("http://").or_else(|| value.strip_prefix("https://")).unwrap_or(value);
    let host = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    ["localhost", "127.0.0.1", "::1"].iter().any(|h| h.eq_ignore_ascii_case(host))
}

/// A random UUID (version 4): the spec wants a session id "globally unique and
/// cryptographically secure", so the bytes come from the OS (`/dev/urandom`).
pub fn new_session_id() -> String {
    let mut b = [0u8; 16];
    if std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b)).is_err() {
        // No /dev/urandom (not Unix): std's randomly keyed hasher, seeded by the OS.
        use std::hash::{BuildHasher, Hasher};
        for half in b.chunks_mut(8) {
            let n = std::collections::hash_map::RandomState::new().build_hasher().finish();
            half.copy_from_slice(&n.to_le_bytes());
        }
    }
    b[6] = (b[6] & 0x0f) | 0x40; // version 4
    b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}
