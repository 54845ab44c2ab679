//! One relayed connection's two directions, copied as they come: each read written on
//! in one write and recorded, the target's first bytes held until they show a status
//! line (RFC 9112 §4), and the header and idle clocks of `serve --http` enforced from
//! the bytes that pass (`watch.rs` reads where they are).

use super::super::CHUNK;
use super::super::rewrite::HostRewriter;
use super::gateway::{gateway_error, not_http};
use super::sides::Sides;
use super::watch::Clocks;
use crate::wire::event::{Dir, Lane};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Copies both ways between the client's halves and the target's, recording on
/// `sides`, until both directions end, one fails, or a clock runs out. Any byte
/// stream: TCP for `tap --http`, TLS for the proxy's decrypted connections.
pub(crate) async fn pipe<CR, CW, UR, UW>(
    (client_r, client_w): (CR, CW),
    (upstream_r, upstream_w): (UR, UW),
    sides: &Sides<'_>,
    rewriter: Option<HostRewriter>,
    url: &str,
    config: Clocks,
) where
    CR: AsyncRead + Unpin,
    CW: AsyncWrite + Unpin,
    UR: AsyncRead + Unpin,
    UW: AsyncWrite + Unpin,
{
    let c2s = to_target(client_r, upstream_w, sides, rewriter);
    let s2c = to_client(upstream_r, client_w, sides, url);
    tokio::pin!(c2s, s2c);
    // A direction that ends cleanly (EOF, passed on as a half close) lets the other
    // go on — a client may close its sending side and still read its answer. One that
    // fails (a reset, a write nobody reads) ends the connection on both sides.
    let (mut c2s_done, mut s2c_done) = (false, false);
    while !(c2s_done && s2c_done) {
        let deadline = sides.watch().deadline(&config);
        let clock = async {
            match deadline {
                Some((at, _)) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        let failed = tokio::select! {
            r = &mut c2s, if !c2s_done => { c2s_done = true; r.is_err() }
            r = &mut s2c, if !s2c_done => { s2c_done = true; r.is_err() }
            // A head began or ended, a response ended: the clock is set again.
            () = sides.changed.notified() => false,
            () = clock => {
                // The deadline may have moved since it was set (bytes on an opaque
                // connection): only one still past ends the connection.
                let Some((at, why)) = sides.watch().deadline(&config) else { continue };
                if at > std::time::Instant::now() {
                    continue;
                }
                // Dropping both halves closes both sockets: the target sees the
                // connection end as the client's would.
                if !c2s_done {
                    sides.close(Dir::ToServer, &why);
                }
                if !s2c_done {
                    sides.close(Dir::ToClient, &why);
                }
                return;
            }
        };
        if failed {
            let why = "dropped: the other direction failed";
            if !c2s_done {
                sides.close(Dir::ToServer, why);
            }
            if !s2c_done {
                sides.close(Dir::ToClient, why);
            }
            return;
        }
    }
}

/// Client → target: each read recorded, then written on at once. With a rewriter,
/// the client's side records what was read and the target's side what was sent.
async fn to_target(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    sides: &Sides<'_>,
    mut rewriter: Option<HostRewriter>,
) -> Result<(), ()> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(n) => n,
            Err(e) => {
                sides.close(Dir::ToServer, &format!("reading the client failed: {e}"));
                return Err(());
            }
        };
        let read = &buf[..n];
        if n > 0 && sides.watch().requested(read) {
            sides.changed.notify_one();
        }
        let send = match (&mut rewriter, n) {
            (None, _) => None,
            (Some(rw), 0) => Some(rw.finish()),
            (Some(rw), _) => Some(rw.feed(read)),
        };
        if n == 0 {
            // The client's EOF, passed on as ours (a half close): the target sees the
            // request stream end as the client ended it.
            if let (Some(rest), Some(lane)) = (&send, sides.target)
                && !rest.is_empty()
            {
                sides.recorder.bytes(lane, Dir::ToServer, rest);
                let _ = to.write_all(rest).await;
            }
            let _ = to.shutdown().await;
            sides.close(
                Dir::ToServer,
                "EOF from the client: passed on to the target",
            );
            return Ok(());
        }
        let (out, lane): (&[u8], Lane) = match (&send, sides.target) {
            (Some(out), Some(target)) => {
                sides.recorder.bytes(sides.client, Dir::ToServer, read);
                (out, target)
            }
            _ => (read, sides.client),
        };
        if out.is_empty() {
            continue;
        }
        // Recorded before it is passed on: the target's answer, read by the other
        // half, can never be recorded ahead of the request it answers.
        sides.recorder.bytes(lane, Dir::ToServer, out);
        if let Err(e) = to.write_all(out).await {
            sides.close(
                Dir::ToServer,
                &format!("writing the target failed: {e} (the last {} bytes recorded were not passed on)", out.len()),
            );
            return Err(());
        }
    }
}

/// Target → client: each read recorded, then written on at once (on both sides' lanes
/// when there are two; the bytes are the same). Until the target's first bytes show
/// a status line (`HTTP/`, RFC 9112 §4) they are held back: a target that answers
/// with something else, or closes without a word while a request waits, gets the
/// client a `502` instead of bytes it cannot read or a bare close.
async fn to_client(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    sides: &Sides<'_>,
    target: &str,
) -> Result<(), ()> {
    let mut buf = vec![0u8; CHUNK];
    // The first bytes, held until they show whether they are HTTP.
    let mut first: Option<Vec<u8>> = Some(Vec::new());
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) => {
                if let Some(held) = first.take() {
                    let waiting = sides.watch().in_flight();
                    if !held.is_empty() || waiting {
                        let why = if held.is_empty() {
                            "it closed the connection without answering".to_owned()
                        } else {
                            not_http(&held)
                        };
                        return gateway_error(&mut to, sides, target, &why, &held).await;
                    }
                }
                let _ = to.shutdown().await;
                sides.close(
                    Dir::ToClient,
                    "EOF from the target: passed on to the client",
                );
                return Ok(());
            }
            Ok(n) => n,
            Err(e) => {
                sides.close(Dir::ToClient, &format!("reading the target failed: {e}"));
                return Err(());
            }
        };
        let mut read = &buf[..n];
        let joined;
        if let Some(held) = first.as_mut() {
            held.extend_from_slice(read);
            let prefix = held.len().min(5);
            if held[..prefix] != b"HTTP/"[..prefix] {
                let held = first.take().unwrap_or_default();
                return gateway_error(&mut to, sides, target, &not_http(&held), &held).await;
            }
            if held.len() < 5 {
                continue;
            }
            joined = first.take().unwrap_or_default();
            read = &joined;
        }
        if sides.watch().answered(read) {
            sides.changed.notify_one();
        }
        for lane in sides.target.into_iter().chain([sides.client]) {
            sides.recorder.bytes(lane, Dir::ToClient, read);
        }
        if let Err(e) = to.write_all(read).await {
            sides.close(
                Dir::ToClient,
                &format!(
                    "writing the client failed: {e} (the last {} bytes recorded were not passed on)",
                    read.len()
                ),
            );
            return Err(());
        }
    }
}
