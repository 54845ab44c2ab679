//! Feeds a whole HTTP/1.1 request (or any bytes) to the real server in-process:
//! `transport::http::conn::serve` over a `tokio::io::duplex` pipe, with one `App`
//! (the conformance fixture, both eras, default limits) and one current-thread
//! runtime with a paused clock for the whole run. The client writes the input, waits
//! until the server has been idle for 200 ms of virtual time, shuts down its write
//! side and reads for 200 ms more. The first byte picks what goes before the rest of
//! the input:
//!
//! - 0: nothing, the input is the whole request;
//! - 1: a legacy `POST /mcp` head with `Content-Length`, the input its body;
//! - 2: a modern `POST /mcp` head, `MCP-Protocol-Version: 2026-07-28` and the
//!   `Mcp-Method` / `Mcp-Name` the body names, the input its body;
//! - 3: a `POST /mcp` head with `Transfer-Encoding: chunked`, the input the chunks.
//!
//! Must hold: nothing panics (the server task included: libFuzzer's panic hook
//! aborts on a panic in any task); whatever comes back, if anything, begins with
//! `HTTP/1.1 ` (or `HTTP/1.0 `, the answer to an HTTP/1.0 request). Each legacy
//! session the input opened is ended afterwards, so inputs do not pile up sessions.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_raw_core::Eras;
use mcp_raw_net::transport::http::{App, Config, conn};
use mcp_raw_wire::http::mirror;
use serde_json::Value;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::runtime::Runtime;

const WAIT: Duration = Duration::from_millis(200);

fn world() -> &'static (Runtime, Arc<App>) {
    static WORLD: OnceLock<(Runtime, Arc<App>)> = OnceLock::new();
    WORLD.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        let app = App::new(mcp_raw_core::content::conformance::server(Eras::Both), Config::default());
        (runtime, app)
    })
}

fuzz_target!(|data: &[u8]| {
    let [mode, rest @ ..] = data else { return };
    let request = match mode % 4 {
        0 => rest.to_vec(),
        1 => post(&[], rest),
        2 => post(&modern_headers(rest), rest),
        _ => chunked(rest),
    };
    let (runtime, app) = world();
    let response = runtime.block_on(exchange(app.clone(), request));
    if !response.is_empty() {
        // hyper answers an HTTP/1.0 request in HTTP/1.0 (RFC 9110 §6.2).
        assert!(
            response.starts_with(b"HTTP/1.1 ") || response.starts_with(b"HTTP/1.0 "),
            "the server answered {:?}",
            String::from_utf8_lossy(&response[..response.len().min(200)])
        );
    }
    for id in session_ids(&response) {
        app.sessions.remove(&id, None);
    }
});

/// Sends `request` on a fresh connection; returns what the server wrote back. The
/// write side stays open until the server has been idle for [`WAIT`] (hyper drops a
/// request in flight when the client half-closes), then it is shut down and the
/// client reads for up to [`WAIT`] more, or until the server closes.
async fn exchange(app: Arc<App>, request: Vec<u8>) -> Vec<u8> {
    let (client, server) = tokio::io::duplex(64 * 1024);
    let task = tokio::spawn(conn::serve(app.clone(), app.listening.clone(), server, None, "fuzz".into(), None));
    let (mut from_server, mut to_server) = tokio::io::split(client);
    let mut response = Vec::new();
    {
        let write = async {
            // The server may close before it has read everything: not an error here.
            let _ = to_server.write_all(&request).await;
            tokio::time::sleep(WAIT).await;
            let _ = to_server.shutdown().await;
            tokio::time::sleep(WAIT).await;
        };
        let read = async {
            let mut chunk = [0u8; 16 * 1024];
            while let Ok(n @ 1..) = from_server.read(&mut chunk).await {
                response.extend_from_slice(&chunk[..n]);
            }
        };
        tokio::select! {
            () = write => {}
            () = read => {}
        }
    }
    if task.is_finished() {
        if let Err(e) = task.await {
            assert!(!e.is_panic(), "the connection task panicked: {e}");
        }
    } else {
        task.abort();
    }
    response
}

fn post(extra: &[(String, String)], body: &[u8]) -> Vec<u8> {
    let mut head = String::from("POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n");
    let mut headers = mirror::post_headers();
    headers.extend_from_slice(extra);
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

fn chunked(rest: &[u8]) -> Vec<u8> {
    let mut head = String::from("POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n");
    for (name, value) in mirror::post_headers() {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("transfer-encoding: chunked\r\n\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(rest);
    out
}

/// The modern headers for `body`: the version, and the method and name it holds when
/// it is a JSON object with a `method`.
fn modern_headers(body: &[u8]) -> Vec<(String, String)> {
    const MODERN: &str = "2026-07-28";
    let mut headers = match serde_json::from_slice::<Value>(body) {
        Ok(v) => match v.get("method").and_then(Value::as_str) {
            Some(method) => mirror::standard_headers(MODERN, method, v.get("params")),
            None => vec![(mirror::PROTOCOL_VERSION.to_owned(), MODERN.to_owned())],
        },
        Err(_) => vec![(mirror::PROTOCOL_VERSION.to_owned(), MODERN.to_owned())],
    };
    // `standard_headers` repeats Accept and Content-Type, which `post` adds.
    let standard = mirror::post_headers();
    headers.retain(|h| !standard.contains(h));
    headers
}

/// Every `Mcp-Session-Id` the server handed out in `response`.
fn session_ids(response: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(response);
    text.split("\r\n")
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .collect()
}
