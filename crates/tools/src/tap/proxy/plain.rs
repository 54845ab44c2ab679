//! A request in absolute form (`GET http://host/…`, RFC 9112 §3.2.2): the connection
//! relayed to that host in plain HTTP as the HTTP tap relays one, and kept to it: a
//! later request for another host ends the client's side.

use super::ask::{Ask, ask};
use super::{Asked, Config, answer, opened};
use crate::tap::http::{Clocks, Sides, pipe};
use crate::tap::{connect, host_port};
use crate::wire::event::{Dir, Lane, What};
use crate::wire::recorder::Recorder;
use tokio::io::{AsyncRead, AsyncWriteExt};

/// An absolute-form request (`GET http://host/…`): the connection relayed to that
/// host as the HTTP tap relays one, its first head included.
pub(super) async fn plain(asked: Asked, config: &Config) {
    let (target, mut client) = (asked.target(), asked.client);
    let (lane, peer, host, port) = (asked.lane, asked.peer, asked.host.as_str(), asked.port);
    let (head, rest) = (&asked.head, asked.rest);
    let recorder = &config.recorder;
    let mut upstream = match connect(host, port, config.connect_timeout).await {
        Ok(s) => s,
        Err(why) => {
            opened(
                recorder,
                lane,
                format!("proxy: accepted from {peer}; {target} is unreachable"),
            );
            return answer(&mut client, lane, recorder, head, "502 Bad Gateway", &why).await;
        }
    };
    let local = upstream
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    opened(
        recorder,
        lane,
        format!(
            "proxy: accepted from {peer}, relayed in plain HTTP as {local} → {target} (the connection stays with this host)"
        ),
    );
    let sides =
        Sides::new(recorder, lane, None).holding(config.intercept.clone(), config.intercept_max);
    let mut framer =
        crate::wire::http1::Framer::new(crate::wire::http1::Side::Request, config.max_head_bytes);
    let pending = if config.intercept.is_some() {
        // Holding: the first request goes through the relay whole, head and all, so
        // it may be held like any other (the framer below reads it again).
        [&head[..], &rest].concat()
    } else {
        // The first head now; what came after it goes through the same check as
        // the client's later reads.
        sides.client_sent(head);
        if upstream.write_all(head).await.is_err() {
            recorder.emit(
                lane,
                Dir::ToServer,
                What::Close(format!("writing {target} failed")),
            );
            return;
        }
        // The first head was read already: the framer starts after it.
        let _ = framer.feed(head);
        rest
    };
    let clocks = Clocks {
        header_timeout: config.header_timeout,
        idle_timeout: config.idle_timeout,
    };
    let (client_r, client_w) = client.into_split();
    let client_r = SameHost {
        recorder,
        lane,
        inner: client_r,
        pending,
        framer,
        host: host.to_owned(),
        port,
        done: false,
    };
    pipe(
        (client_r, client_w),
        upstream.into_split(),
        &sides,
        None,
        &format!("http://{target}"),
        clocks,
    )
    .await;
}

/// The client's side of an absolute-form connection: its bytes as they come, until
/// a request head names another host (a client may reuse its connection to a proxy
/// for any origin, RFC 9112 §3.2.2): from there it is the client's end of input (the
/// target still answers what it had, then closes), so nothing meant for one host
/// reaches another.
struct SameHost<'a, R> {
    /// Where the reason is recorded.
    recorder: &'a Recorder,
    /// The connection's lane.
    lane: Lane,
    /// The client's read half.
    inner: R,
    /// Bytes read with the first head, handed out before the next read.
    pending: Vec<u8>,
    /// Finds each request head in what the client sends.
    framer: crate::wire::http1::Framer,
    /// The host this connection is relayed to.
    host: String,
    /// And its port.
    port: u16,
    /// A head for another host came: end of input from here on.
    done: bool,
}

impl<R: AsyncRead + Unpin> AsyncRead for SameHost<'_, R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        if this.done {
            return std::task::Poll::Ready(Ok(()));
        }
        if this.pending.is_empty() {
            match std::pin::Pin::new(&mut this.inner).poll_read(cx, buf) {
                std::task::Poll::Ready(Ok(())) => {}
                other => return other,
            }
        } else {
            let n = this.pending.len().min(buf.remaining());
            buf.put_slice(&this.pending[..n]);
            this.pending.drain(..n);
        }
        let parts = this.framer.feed(&buf.filled()[before..]);
        for part in parts {
            let crate::wire::http1::Part::Head(head) = part else {
                continue;
            };
            let target = head.start_line.split(' ').nth(1).unwrap_or("");
            let same = match ask(&head.raw) {
                Ok(Ask::Plain { host, port }) => {
                    host.eq_ignore_ascii_case(&this.host) && port == this.port
                }
                _ => false,
            };
            if !same {
                // What this read took is not passed on: it is for another host.
                buf.set_filled(before);
                this.pending.clear();
                this.done = true;
                this.recorder.emit(
                    this.lane,
                    Dir::ToServer,
                    What::Close(format!(
                        "a request for {target:?} on a connection relayed to {}: not passed on, the client's side ends here (the proxy relays a connection to one host; the client must open another)",
                        host_port(&this.host, this.port)
                    )),
                );
                return std::task::Poll::Ready(Ok(()));
            }
        }
        std::task::Poll::Ready(Ok(()))
    }
}
