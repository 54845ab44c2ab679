//! A client for a server served on the test's own runtime ([`super::serve_here`]),
//! perhaps on tokio's paused clock (`#[tokio::test(start_paused = true)]`): the
//! connection is a tokio `TcpStream`, and every wait is a `tokio::time` wait, so a
//! test of a 1-second timeout takes no wall time and the server's clocks and the
//! test's are the same clock. While every task waits (the server on its timer, the
//! client on a read), the paused clock jumps to the next timer.
//!
//! Also here: what the library reports through the `log` facade, kept in memory
//! ([`logged`]) so a test can compare the whole line a server reported.
#![allow(dead_code)]

use super::HttpReply;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// A raw client connection on the test's runtime that reads whatever arrives.
pub struct Conn {
    pub stream: TcpStream,
    /// Everything received so far.
    pub got: Vec<u8>,
    /// The server closed the connection (EOF or reset).
    pub closed: bool,
}

impl Conn {
    pub async fn open(addr: &str) -> Conn {
        Conn {
            stream: TcpStream::connect(addr).await.unwrap(),
            got: Vec::new(),
            closed: false,
        }
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    /// Reads until `done` holds of what arrived, the server closes, or `within`
    /// (on the runtime's clock) ends.
    pub async fn read_until(&mut self, within: Duration, done: impl Fn(&[u8]) -> bool) {
        let deadline = Instant::now() + within;
        let mut buf = vec![0u8; 64 * 1024];
        while !self.closed && !done(&self.got) {
            match tokio::time::timeout_at(deadline, self.stream.read(&mut buf)).await {
                Err(_) => return,
                Ok(Ok(0)) | Ok(Err(_)) => self.closed = true,
                Ok(Ok(n)) => self.got.extend_from_slice(&buf[..n]),
            }
        }
    }

    /// Waits for the server to close; how long that took on the runtime's clock, or
    /// `None` if it did not within `within`.
    pub async fn closed_within(&mut self, within: Duration) -> Option<Duration> {
        let start = Instant::now();
        self.read_until(within, |_| false).await;
        self.closed.then(|| start.elapsed())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.got).into_owned()
    }

    /// The first response received, read by the library's framer.
    pub fn reply(&self) -> HttpReply {
        super::http_client::reply_in(&self.got)
    }
}

/// `POST /mcp` with the usual headers, `extra` header lines and `Connection: close`,
/// on a fresh connection: the whole response.
pub async fn post(addr: &str, extra: &[(&str, &str)], body: &str) -> HttpReply {
    let mut headers = vec![
        ("Connection", "close"),
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
    ];
    headers.extend_from_slice(extra);
    request(addr, "POST", &headers, body).await
}

/// `METHOD /mcp` with exactly these headers (plus Host and Content-Length) on a
/// fresh connection, read to the close: the whole response.
pub async fn request(addr: &str, method: &str, headers: &[(&str, &str)], body: &str) -> HttpReply {
    let mut c = Conn::open(addr).await;
    c.send(&super::http_client::request_bytes(
        addr, method, headers, body,
    ))
    .await;
    c.read_until(super::http_client::WAIT, |_| false).await;
    assert!(c.closed, "no close after the response: {}", c.text());
    c.reply()
}

/// The status a `tools/list` in legacy session `sid` gets: 200 while the session
/// lives, 404 once it has ended.
pub async fn list_status(addr: &str, sid: &str) -> u16 {
    post(
        addr,
        &[
            ("Mcp-Session-Id", sid),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    )
    .await
    .status
}

/// initialize + notifications/initialized; the session id.
pub async fn open_session(addr: &str, version: &str) -> String {
    let r = post(addr, &[], &super::initialize(version)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let id = r.header("mcp-session-id").expect("session id").to_owned();
    let r = post(
        addr,
        &[("Mcp-Session-Id", &id)],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(r.status, 202);
    id
}

/// Starts keeping what is logged through the `log` facade (call it before the server
/// that logs starts).
pub fn capture_log() {
    capture();
}

/// Every line logged through the `log` facade in this test process so far (the
/// capture is installed by the first call). Tests run in parallel, so look for the
/// whole line a test's own server must have written, never count all lines.
pub fn logged() -> Vec<String> {
    capture().lock().unwrap().clone()
}

fn capture() -> &'static Mutex<Vec<String>> {
    static LINES: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    static LOGGER: Capture = Capture;
    LINES.get_or_init(|| {
        if log::set_logger(&LOGGER).is_ok() {
            log::set_max_level(log::LevelFilter::Trace);
        }
        Mutex::new(Vec::new())
    })
}

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata) -> bool {
        true
    }

    fn log(&self, record: &log::Record) {
        capture().lock().unwrap().push(record.args().to_string());
    }

    fn flush(&self) {}
}
