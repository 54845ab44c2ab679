//! Resend, from the page: a request the HTTP tap relayed, its JSON edited on the
//! page, sent again through the tap. The page's server plays a client to the tap's
//! own listener: it writes the recorded request head (its header lines in their case
//! and order, `Content-Length` set to the new body's, `Connection: close`) and the
//! edited body on a new connection, and the tap relays and records it as any
//! client's, so its answer arrives on the page as the rows of a new connection, with
//! nothing on the wire that a real client could not have sent.
//!
//! What is refused, said: an event that is not a request's body on an HTTP lane, a
//! body that is not JSON, a recording whose credentials are masked (resent masked,
//! and said so: the server will likely refuse it; `--show-secrets` keeps them).

use super::export;
use super::feed::Feed;
use crate::wire::event::{Dir, LaneKind, What};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long a resent request's connection is read (so its answer, SSE included,
/// reaches the tap and the page) before it is let go.
pub const READ_FOR: Duration = Duration::from_secs(300);

/// Where event `n` stands among the `len` events a page's server keeps from `first`
/// on, or why it is not there (let go, or not yet had).
fn index(first: usize, len: usize, n: usize) -> Result<usize, String> {
    n.checked_sub(first).filter(|i| *i < len).ok_or_else(|| {
        format!(
            "event {n} is not among the events this page's server keeps ({first}–{})",
            first + len
        )
    })
}

/// Is event `n` of `feed` bytes a client sent (the message a live session's resend
/// starts from)? Why not, otherwise.
pub fn sent_by_client(feed: &Feed, n: usize) -> Result<(), String> {
    let (first, kept) = feed.kept();
    let (event, _) = &kept[index(first, kept.len(), n)?];
    if !matches!(event.what, What::Bytes(_)) || event.dir != Dir::ToServer {
        return Err(format!(
            "event {n} is no bytes a client sent (a lane's opening, close or mark, or the server's)"
        ));
    }
    Ok(())
}

/// The bytes to send for event `n` of `feed` with `edited` as its body, and a
/// warning when the recorded head's credentials are masked.
pub fn request(feed: &Feed, n: usize, edited: &str) -> Result<(Vec<u8>, Option<String>), String> {
    serde_json::from_str::<serde_json::Value>(edited)
        .map_err(|e| format!("the edited message is not JSON: {e}"))?;
    let (first, kept) = feed.kept();
    let (event, _) = &kept[index(first, kept.len(), n)?];
    if !matches!(event.what, What::Bytes(_)) {
        return Err(format!(
            "event {n} is no bytes a client sent (a connection's opening, close or handshake)"
        ));
    }
    if event.lane.kind != LaneKind::Http || event.dir != Dir::ToServer {
        return Err(format!(
            "event {n} is not a request a client sent over HTTP: only those can be resent through the tap"
        ));
    }
    // The whole HTTP message the event is part of, as it crossed.
    let picked = export::events_of(&kept, first, &[n]);
    let mut message = Vec::new();
    for e in picked
        .iter()
        .filter(|e| e.lane == event.lane && e.dir == Dir::ToServer)
    {
        if let What::Bytes(b) = &e.what {
            message.extend_from_slice(b);
        }
    }
    let Some(end) = message.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Err(format!(
            "event {n}'s request head is not whole in the recording"
        ));
    };
    let head = String::from_utf8_lossy(&message[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let start = lines.next().unwrap_or_default();
    if !start.starts_with("POST ") {
        return Err(format!(
            "event {n} is part of {start:?}: only a POST carries a message to resend"
        ));
    }
    let mut out = format!("{start}\r\n");
    let mut masked = Vec::new();
    for line in lines {
        let name = line.split(':').next().unwrap_or_default().trim();
        let lower = name.to_ascii_lowercase();
        // Framing is the resend's own: its body's length, and one request only.
        if matches!(
            lower.as_str(),
            "content-length" | "transfer-encoding" | "connection"
        ) {
            continue;
        }
        let value = line.split_once(':').map_or("", |(_, v)| v).trim();
        if value.len() >= 2
            && value
                .rsplit(' ')
                .next()
                .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b == b'*'))
        {
            masked.push(name.to_owned());
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        edited.len()
    ));
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(edited.as_bytes());
    let warning = (!masked.is_empty()).then(|| {
        format!(
            "the recording masks {} (the tap records secrets masked): resent as masked; run the tap with --show-secrets to resend them",
            masked.join(", ")
        )
    });
    Ok((bytes, warning))
}

/// Sends `bytes` to the tap at `to` on a new connection; its answer is read (and
/// dropped: the tap records it) for [`READ_FOR`] at most. Returns the connection's
/// own address, which the tap's recording names when it opens the lane.
pub async fn send(to: SocketAddr, bytes: Vec<u8>) -> Result<SocketAddr, String> {
    let mut sock = tokio::net::TcpStream::connect(to)
        .await
        .map_err(|e| format!("cannot reach the tap at {to}: {e}"))?;
    let _ = sock.set_nodelay(true);
    let from = sock
        .local_addr()
        .map_err(|e| format!("the resend's connection: {e}"))?;
    sock.write_all(&bytes)
        .await
        .map_err(|e| format!("writing the request to the tap at {to}: {e}"))?;
    tokio::spawn(async move {
        let mut sink = [0u8; 16 * 1024];
        let read = async {
            while let Ok(n) = sock.read(&mut sink).await {
                if n == 0 {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(READ_FOR, read).await;
    });
    Ok(from)
}
