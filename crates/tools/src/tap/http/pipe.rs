//! One relayed connection's two directions, copied as they come: each read written on
//! in one write and recorded, the target's first bytes held until they show a status
//! line (RFC 9112 §4), and the header and idle clocks of `serve --http` enforced from
//! the bytes that pass (`watch.rs` reads where they are).

use super::super::CHUNK;
use super::super::rewrite::HostRewriter;
use super::cut::{Cutter, Piece};
use super::gateway::{gateway_error, not_http};
use super::hold;
use super::sides::Sides;
use super::watch::Clocks;
use crate::wire::event::Dir;
use crate::wire::http1::Side;
use bytes::Bytes;
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
/// Under `--intercept` a request that may be held is passed on whole, after its
/// hold (`hold.rs`); the rest as it comes.
async fn to_target(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    sides: &Sides<'_>,
    mut rewriter: Option<HostRewriter>,
) -> Result<(), ()> {
    let mut buf = vec![0u8; CHUNK];
    let mut cutter = sides
        .holding
        .as_ref()
        .map(|h| Cutter::new(Side::Request, super::limits::MAX_HEAD_BYTES, h.max));
    // Requests passed on to the target: the tap's answer to a dropped one goes after
    // the target's answers to these.
    let mut sent = 0u64;
    // While a request is held the client is still read (one read at most, kept
    // here for after the hold), so a client that resets its connection ends the
    // hold instead of leaving it waiting for nobody; `early_eof`: it closed its
    // sending side meanwhile.
    let (mut early, mut early_eof) = (Vec::new(), false);
    let mut spare = vec![0u8; CHUNK];
    loop {
        let n = if !early.is_empty() {
            let k = early.len();
            buf[..k].copy_from_slice(&early);
            early.clear();
            k
        } else if std::mem::take(&mut early_eof) {
            0
        } else {
            match from.read(&mut buf).await {
                Ok(n) => n,
                Err(e) => {
                    sides.close(Dir::ToServer, &format!("reading the client failed: {e}"));
                    return Err(());
                }
            }
        };
        let read = &buf[..n];
        if n > 0 && sides.watch().requested(read) {
            sides.changed.notify_one();
        }
        if rewriter.is_some() && sides.target.is_some() && n > 0 {
            // Two sides: the client's records what it sent, as it came.
            sides.recorder.bytes(sides.client, Dir::ToServer, read);
        }
        // Without --intercept a read goes on as it is, not copied; with it, the
        // cutter's pieces.
        let pieces: Vec<Bytes> = match (&mut cutter, &sides.holding) {
            (Some(c), Some(h)) => {
                let active = h.intercept.active();
                let pieces = if n == 0 {
                    c.finish(active)
                } else {
                    c.feed(read, active)
                };
                let mut out = Vec::new();
                for piece in pieces {
                    match piece {
                        Piece::Raw(b, ends) => {
                            sent += ends;
                            out.push(b);
                        }
                        Piece::Events(e) => out.push(e.raw),
                        Piece::Message(m) => {
                            // What was read so far goes first: the hold keeps its
                            // place in the stream.
                            if let Err(()) = send(&mut to, sides, &mut rewriter, &out).await {
                                return Err(());
                            }
                            out.clear();
                            let lane = sides.target.unwrap_or(sides.client);
                            held(sides, true);
                            let holding = hold::message(h, sides.recorder, lane, Dir::ToServer, m);
                            tokio::pin!(holding);
                            let sending = loop {
                                let listen = early.is_empty() && !early_eof && n > 0;
                                tokio::select! {
                                    sending = &mut holding => break sending,
                                    r = from.read(&mut spare), if listen => match r {
                                        Ok(0) => early_eof = true,
                                        Ok(k) => early.extend_from_slice(&spare[..k]),
                                        Err(e) => {
                                            // Returning drops the hold: it is marked
                                            // dropped, its request never sent.
                                            sides.close(
                                                Dir::ToServer,
                                                &format!("reading the client failed while a request was held: {e}"),
                                            );
                                            return Err(());
                                        }
                                    },
                                }
                            };
                            held(sides, false);
                            match sending {
                                hold::Send::Bytes(b) => {
                                    sent += 1;
                                    out.push(b);
                                }
                                hold::Send::Dropped(number) => {
                                    h.owe(sent, hold::dropped_answer(number, "this request"));
                                }
                            }
                        }
                    }
                }
                out
            }
            _ => Vec::new(),
        };
        let sent_on = if cutter.is_some() {
            send(&mut to, sides, &mut rewriter, &pieces).await
        } else {
            send(&mut to, sides, &mut rewriter, &[read]).await
        };
        if sent_on.is_err() {
            return Err(());
        }
        if n == 0 {
            // The client's EOF, passed on as ours (a half close): the target sees the
            // request stream end as the client ended it.
            if let (Some(rw), Some(lane)) = (&mut rewriter, sides.target) {
                let rest = rw.finish();
                if !rest.is_empty() {
                    sides.recorder.bytes(lane, Dir::ToServer, &rest);
                    let _ = to.write_all(&rest).await;
                }
            }
            let _ = to.shutdown().await;
            sides.close(
                Dir::ToServer,
                "EOF from the client: passed on to the target",
            );
            return Ok(());
        }
    }
}

/// A message of the connection is held (or no longer): the clocks wait for it.
fn held(sides: &Sides<'_>, now: bool) {
    sides.watch().hold(now);
    sides.changed.notify_one();
}

/// Passes `pieces` on to the target (through the rewriter, if any), each recorded
/// before it is written: the target's answer, read by the other half, can never be
/// recorded ahead of the request it answers.
async fn send(
    to: &mut (impl AsyncWrite + Unpin),
    sides: &Sides<'_>,
    rewriter: &mut Option<HostRewriter>,
    pieces: &[impl AsRef<[u8]>],
) -> Result<(), ()> {
    for piece in pieces {
        let fed;
        let (out, lane): (&[u8], _) = match (rewriter.as_mut(), sides.target) {
            (Some(rw), Some(target)) => {
                fed = rw.feed(piece.as_ref());
                (&fed, target)
            }
            _ => (piece.as_ref(), sides.client),
        };
        if out.is_empty() {
            continue;
        }
        sides.recorder.bytes(lane, Dir::ToServer, out);
        if let Err(e) = to.write_all(out).await {
            sides.close(
                Dir::ToServer,
                &format!("writing the target failed: {e} (the last {} bytes recorded were not passed on)", out.len()),
            );
            return Err(());
        }
    }
    Ok(())
}

/// Target → client: each read recorded, then written on at once (on both sides' lanes
/// when there are two; the bytes are the same). Until the target's first bytes show
/// a status line (`HTTP/`, RFC 9112 §4) they are held back: a target that answers
/// with something else, or closes without a word while a request waits, gets the
/// client a `502` instead of bytes it cannot read or a bare close. Under
/// `--intercept` a JSON answer, or an event stream's events, may be held
/// (`hold.rs`), and the tap's answers to dropped requests go in their places.
async fn to_client(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    sides: &Sides<'_>,
    target: &str,
) -> Result<(), ()> {
    let mut buf = vec![0u8; CHUNK];
    // The first bytes, held until they show whether they are HTTP.
    let mut first: Option<Vec<u8>> = Some(Vec::new());
    let mut cutter = sides
        .holding
        .as_ref()
        .map(|h| Cutter::new(Side::Response, super::limits::MAX_HEAD_BYTES, h.max));
    // The target's answers passed on: the tap's own to a dropped request goes after
    // as many as came before the request.
    let mut answered = 0u64;
    // An event stream's chunk was left out whole (its events dropped): the CRLF that
    // ended it, the next bytes, is left out too.
    let mut skip_crlf = false;
    loop {
        if let Some(h) = &sides.holding {
            owed(&mut to, sides, h, answered).await?;
        }
        let read = async {
            match &sides.holding {
                Some(h) => {
                    tokio::select! {
                        r = from.read(&mut buf) => Some(r),
                        () = h.owed_now.notified() => None,
                    }
                }
                None => Some(from.read(&mut buf).await),
            }
        };
        let n = match read.await {
            None => continue,
            Some(Ok(0)) => {
                if let Some(h) = &sides.holding {
                    // An answer the tap owes may have come due as the target closed.
                    owed(&mut to, sides, h, answered).await?;
                }
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
                if let (Some(c), Some(h)) = (&mut cutter, &sides.holding) {
                    let pieces = c.finish(h.intercept.active());
                    if pass(&mut to, sides, h, pieces, &mut answered, &mut skip_crlf)
                        .await
                        .is_err()
                    {
                        return Err(());
                    }
                }
                let _ = to.shutdown().await;
                sides.close(
                    Dir::ToClient,
                    "EOF from the target: passed on to the client",
                );
                return Ok(());
            }
            Some(Ok(n)) => n,
            Some(Err(e)) => {
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
        if let (Some(c), Some(h)) = (&mut cutter, &sides.holding) {
            // Two sides: the target's records what it sent, as it came; the
            // client's what was passed on.
            if let Some(lane) = sides.target {
                sides.recorder.bytes(lane, Dir::ToClient, read);
            }
            let pieces = c.feed(read, h.intercept.active());
            if pass(&mut to, sides, h, pieces, &mut answered, &mut skip_crlf)
                .await
                .is_err()
            {
                return Err(());
            }
            continue;
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

/// Passes the target's `pieces` on to the client under `--intercept`: each that may
/// be held after its hold, each recorded on the client's lane before it is written;
/// `answered` counts the target's answers passed on; `skip_crlf`: the next bytes
/// begin with the end of a chunk left out.
async fn pass(
    to: &mut (impl AsyncWrite + Unpin),
    sides: &Sides<'_>,
    h: &hold::Holding,
    pieces: Vec<Piece>,
    answered: &mut u64,
    skip_crlf: &mut bool,
) -> Result<(), ()> {
    let lane = sides.client;
    for piece in pieces {
        let (out, ends, skip) = match piece {
            Piece::Raw(b, ends) => (b, ends, false),
            Piece::Message(m) => {
                held(sides, true);
                let sending = hold::message(h, sides.recorder, lane, Dir::ToClient, m).await;
                held(sides, false);
                match sending {
                    hold::Send::Bytes(b) => (b, 1, false),
                    // An answer is never dropped without one in its place.
                    hold::Send::Dropped(_) => (Bytes::new(), 1, false),
                }
            }
            Piece::Events(e) => {
                held(sides, true);
                let (b, skip) = hold::events(h, sides.recorder, lane, e).await;
                held(sides, false);
                (b, 0, skip)
            }
        };
        // A chunk left out whole: the CRLF that ended it, next, is left out too.
        let out = hold::without_chunk_end(out, skip_crlf);
        *skip_crlf |= skip;
        if !out.is_empty() {
            sides.recorder.bytes(lane, Dir::ToClient, &out);
            if let Err(e) = to.write_all(&out).await {
                sides.close(
                    Dir::ToClient,
                    &format!(
                        "writing the client failed: {e} (the last {} bytes recorded were not passed on)",
                        out.len()
                    ),
                );
                return Err(());
            }
        }
        *answered += ends;
        // The tap's answers owed after this one go now, in their places.
        owed(to, sides, h, *answered).await?;
    }
    Ok(())
}

/// Writes the tap's answers to dropped requests that are due once `answered` of the
/// target's answers have gone, each recorded on the client's lane (it is what the
/// client got).
async fn owed(
    to: &mut (impl AsyncWrite + Unpin),
    sides: &Sides<'_>,
    h: &hold::Holding,
    answered: u64,
) -> Result<(), ()> {
    while let Some(answer) = h.due(answered) {
        sides.watch().answered_by_tap();
        sides.changed.notify_one();
        sides.recorder.bytes(sides.client, Dir::ToClient, &answer);
        if let Err(e) = to.write_all(&answer).await {
            sides.close(Dir::ToClient, &format!("writing the client failed: {e}"));
            return Err(());
        }
    }
    Ok(())
}
