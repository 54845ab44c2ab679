//! The one response the HTTP tap writes itself: `502 Bad Gateway` (RFC 9110 §15.6.3),
//! when the target cannot be reached, or answers with something that is not HTTP,
//! or closes without a word while a request waits. The body says which, in words.

use super::super::{CHUNK, own_response};
use super::Config;
use super::limits;
use super::sides::Sides;
use crate::wire::event::{Dir, Lane, What};
use std::net::SocketAddr;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Why `held` is not an HTTP response, quoting its start.
pub(super) fn not_http(held: &[u8]) -> String {
    let start = &held[..held.len().min(40)];
    format!(
        "its answer is not HTTP (a response starts with a status line, \"HTTP/1.1 200 OK\"; it sent {:?}{})",
        String::from_utf8_lossy(start),
        if held.len() > start.len() { "…" } else { "" }
    )
}

/// The target answered with something that is not HTTP (or nothing): the client gets
/// a `502` saying so (RFC 9110 §15.6.3: an invalid response from the server a
/// gateway needed), and the connection ends. The target's bytes are recorded on its
/// side when there are two lanes; on one lane, the client's `502` is what is
/// recorded and the close says what the target sent.
pub(super) async fn gateway_error(
    to: &mut (impl AsyncWrite + Unpin),
    sides: &Sides<'_>,
    target: &str,
    why: &str,
    held: &[u8],
) -> Result<(), ()> {
    if let Some(lane) = sides.target
        && !held.is_empty()
    {
        sides.recorder.bytes(lane, Dir::ToClient, held);
    }
    let body = format!("mcp-raw tap: the target {target} gave no valid HTTP response: {why}\n");
    let response = own_response("502 Bad Gateway", &body);
    sides
        .recorder
        .bytes(sides.client, Dir::ToClient, response.as_bytes());
    let _ = to.write_all(response.as_bytes()).await;
    let _ = to.shutdown().await;
    sides.close(Dir::ToClient, &format!("502 sent: {why}"));
    // Err: the client's side ends too (its connection is closed after the 502).
    Err(())
}

/// The target cannot be reached: the client gets the one response the tap writes
/// itself, after its request head is read (so the recording shows what was answered).
pub(super) async fn bad_gateway(
    mut client: impl AsyncRead + AsyncWrite + Unpin,
    peer: SocketAddr,
    lane: Lane,
    config: &Config,
    why: &str,
) {
    let recorder = &config.recorder;
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Open(format!("accepted from {peer}; the target is unreachable")),
    );
    let mut buf = vec![0u8; CHUNK];
    let mut seen = Vec::new();
    // Read the request head (its blank line) or give up after the linger time.
    let _ = tokio::time::timeout(limits::LINGER, async {
        while !has_head_end(&seen) {
            match client.read(&mut buf).await {
                Ok(n) if n > 0 => {
                    recorder.bytes(lane, Dir::ToServer, &buf[..n]);
                    seen.extend_from_slice(&buf[..n]);
                }
                _ => break,
            }
        }
    })
    .await;
    // RFC 9110 §15.6.3: 502 says a gateway got no valid response from the server it
    // needed; the body says which and why, in plain words.
    let body = format!(
        "mcp-raw tap: cannot reach the target {}: {why}\n",
        config.target.url()
    );
    let response = own_response("502 Bad Gateway", &body);
    if client.write_all(response.as_bytes()).await.is_err() {
        recorder.emit(
            lane,
            Dir::ToClient,
            What::Close("the client is gone".into()),
        );
        return;
    }
    recorder.bytes(lane, Dir::ToClient, response.as_bytes());
    let _ = client.shutdown().await;
    recorder.emit(lane, Dir::ToClient, What::Close("502 sent: closing".into()));
    // A lingering close: what the client still sends is read (and recorded) until it
    // closes, so its kernel does not answer our close with a reset.
    let _ = tokio::time::timeout(limits::LINGER, async {
        while let Ok(n) = client.read(&mut buf).await {
            if n == 0 {
                break;
            }
            recorder.bytes(lane, Dir::ToServer, &buf[..n]);
        }
    })
    .await;
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Close("closed after the 502".into()),
    );
}

/// Has a request head ended (`\r\n\r\n`, or a bare `\n\n`)?
fn has_head_end(bytes: &[u8]) -> bool {
    bytes.windows(4).any(|w| w == b"\r\n\r\n") || bytes.windows(2).any(|w| w == b"\n\n")
}
