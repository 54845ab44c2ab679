//! One connection's life: hyper's HTTP/1.1 engine over the socket, with the clocks
//! hyper does not keep for us and the close it does not do.
//!
//! - **Header timeout**: a request head that has started must be complete within
//!   `header_timeout` (a fresh connection counts as started at accept): a client that
//!   sends half a request line, or nothing, is closed.
//! - **Idle timeout**: between requests, with nothing in flight, a keep-alive
//!   connection lives `idle_timeout`. A request in flight (a long SSE stream) is never
//!   idle.
//! - **Write timeout**: a client that stops reading (its socket takes nothing for
//!   `write_timeout`) is closed, long streams included; one that reads slowly but
//!   reads is not.
//! - **Lingering close**: when the server closes a connection the client may still be
//!   sending on (a `413` sent before the body was read), closing at once would make
//!   the kernel answer the unread bytes with a reset, which destroys the response
//!   before a client that writes its whole body first (Python's `http.client`) reads
//!   it. So the socket's write side is shut down and the rest is read and discarded,
//!   up to `linger_bytes` or `linger_timeout` (as Apache's `lingering_close` and
//!   nginx's `lingering_close` do).
//!
//! The clocks live in `Watched`, the I/O object under hyper: a read that would wait
//! past the deadline fails with `TimedOut`, and hyper closes the connection.

use super::limits::Limits;
use crate::lock::Locked;
use crate::wire::event::{Dir, LaneKind, What};
use crate::wire::recorded::Recorded;
use crate::wire::recorder::Recorder;
use bytes::Bytes;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::{Instant, Sleep};

/// What a listener answers: each request of each connection.
pub trait Site: Send + Sync + 'static {
    /// The body of its responses (a stream, for SSE).
    type Body: hyper::body::Body<Data = Bytes, Error: Into<Box<dyn std::error::Error + Send + Sync>>>
        + Send
        + Unpin
        + 'static;
    /// The response to one request.
    fn answer(
        self: Arc<Self>,
        req: Request<hyper::body::Incoming>,
    ) -> impl Future<Output = Response<Self::Body>> + Send + 'static;
    /// A connection has closed (after its lingering close, if any).
    fn closed(&self) {}
}

/// How a listener takes its connections; the same rules for every listener.
pub struct Listening {
    /// The connection clocks (header, idle, write), head sizes, `max_connections` and
    /// the lingering close; the rest of [`Limits`] is the site's own business.
    pub limits: Limits,
    /// Terminate TLS on every connection (`--tls-cert`); none: plain HTTP.
    pub tls: Option<Arc<crate::transport::tls::Acceptor>>,
    /// Each connection a lane, every byte an event (`--trace`, `--record`).
    pub recorder: Option<Recorder>,
    /// Who is speaking in a log line: `""` for `serve`, `"auth-server: "`, `"replay: "`.
    pub who: &'static str,
    /// The flag a `503` for one connection too many names (`serve --max-connections`).
    pub max_connections_flag: &'static str,
}

/// Serves one connection until it closes. `permit` is its slot under
/// `--max-connections`, held until the socket is really gone (lingering included).
/// With a recorder (`serve --trace`, `--record`), the connection is a lane and every
/// byte hyper reads or writes on it is an event: recorded below hyper, so what is
/// shown is what crossed the socket, not what hyper made of it. On a TLS listener
/// `io` is the plaintext inside TLS and `tls` the handshake's facts, the lane's
/// first event.
pub async fn serve<S: Site, I: Io>(
    site: Arc<S>,
    how: Arc<Listening>,
    io: I,
    permit: Option<OwnedSemaphorePermit>,
    peer: String,
    tls: Option<Box<crate::wire::tls::TlsFacts>>,
) {
    match how.recorder.clone() {
        None => serve_io(site, &how.limits, io, permit).await,
        Some(recorder) => {
            let lane = recorder.lane(LaneKind::Http);
            let io = Recorded::new(
                io,
                recorder.clone(),
                lane,
                Dir::ToServer,
                Some(format!(
                    "accepted from {peer}{}",
                    if tls.is_some() { " (TLS)" } else { "" }
                )),
            );
            if let Some(facts) = tls {
                recorder.emit(lane, Dir::ToServer, What::Tls(facts));
            }
            serve_io(site, &how.limits, io, permit).await
        }
    }
}

/// hyper's HTTP/1.1 engine on one connection, under the clocks of `limits`: the one
/// server builder every listener uses.
async fn serve_io<S: Site, I: Io>(
    site: Arc<S>,
    limits: &Limits,
    io: I,
    permit: Option<OwnedSemaphorePermit>,
) {
    let mut builder = http1::Builder::new();
    // A head over the limit gets 431 from hyper, and the connection closes.
    builder.max_header_size(limits.max_header_bytes);
    if limits.max_headers != super::limits::DEFAULT_MAX_HEADERS {
        builder.max_headers(limits.max_headers);
    }
    let activity = Arc::new(Activity::new());
    let counted = site.clone();
    let watched = Watched::new(io, activity.clone(), limits.clone(), permit);
    let service = service_fn(move |req| {
        let site = site.clone();
        let guard = InFlight::start(activity.clone());
        // The site's future is made inside this one, where it runs: made outside and
        // moved in, its state (several KiB for the MCP endpoint) was copied per request.
        async move {
            let response = site.answer(req).await;
            Ok::<_, Infallible>(response.map(|body| Tracked {
                body,
                _guard: guard,
            }))
        }
    });
    // A client that hangs up mid-request is its own problem, not the server's.
    let _ = builder
        .serve_connection(TokioIo::new(watched), service)
        .await;
    counted.closed();
}

/// A byte stream a connection can run on: a TCP socket, or an in-memory pipe in tests
/// and fuzzing.
pub trait Io: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> Io for T {}

/// What the clocks need to know about a connection: is a request in flight, and
/// since when has it been waiting for what.
struct Activity {
    inner: Mutex<ActivityInner>,
}

struct ActivityInner {
    /// Requests whose response has not been written out yet (more than one only
    /// when pipelined).
    in_flight: usize,
    /// When the head now being read began: its first byte, or the accept of a fresh
    /// connection. `None` between requests.
    head_started: Option<Instant>,
    /// When the last response finished: the idle clock starts here.
    idle_since: Instant,
    /// The reader to wake when the last request ends, so it arms the idle clock.
    reader: Option<Waker>,
}

/// Which clock ran out.
#[derive(Clone, Copy)]
enum Clock {
    Header,
    Idle,
}

impl Activity {
    fn new() -> Self {
        let now = Instant::now();
        Activity {
            inner: Mutex::new(ActivityInner {
                in_flight: 0,
                head_started: Some(now),
                idle_since: now,
                reader: None,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ActivityInner> {
        // Each update is one assignment: a poisoned lock holds consistent data.
        self.inner.locked()
    }

    /// Bytes arrived: between requests, they start a head.
    fn bytes_read(&self) {
        let mut a = self.lock();
        if a.in_flight == 0 && a.head_started.is_none() {
            a.head_started = Some(Instant::now());
        }
    }

    /// The deadline that applies now, if any; `reader` is kept to be woken when a
    /// deadline appears.
    fn deadline(&self, limits: &Limits, reader: &Waker) -> Option<(Instant, Clock)> {
        let mut a = self.lock();
        if a.in_flight > 0 {
            a.reader = Some(reader.clone());
            return None;
        }
        Some(match a.head_started {
            Some(t) => (t + limits.header_timeout, Clock::Header),
            None => (a.idle_since + limits.idle_timeout, Clock::Idle),
        })
    }
}

/// A request in flight, from its head to the last byte of its response (the guard
/// travels inside the response body, which hyper drops once it is written).
struct InFlight(Arc<Activity>);

impl InFlight {
    fn start(activity: Arc<Activity>) -> Self {
        {
            let mut a = activity.lock();
            a.in_flight += 1;
            a.head_started = None;
        }
        InFlight(activity)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut a = self.0.lock();
        a.in_flight -= 1;
        if a.in_flight == 0 {
            a.idle_since = Instant::now();
            if let Some(w) = a.reader.take() {
                w.wake();
            }
        }
    }
}

/// A response body that marks its request done when dropped.
struct Tracked<B> {
    /// The response body itself.
    body: B,
    /// Dropped with the body: the request is no longer in flight.
    _guard: InFlight,
}

impl<B: hyper::body::Body + Unpin> hyper::body::Body for Tracked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// The socket under hyper, keeping the header and idle clocks and closing lingeringly.
struct Watched<I: Io> {
    /// The socket; `None` only after `drop` moved it into the lingering task.
    io: Option<I>,
    /// Shared with the service, which marks requests in flight.
    activity: Arc<Activity>,
    /// The timeouts and the lingering bounds.
    limits: Limits,
    /// Fires at the deadline that applies (header or idle).
    timer: Pin<Box<Sleep>>,
    /// The deadline `timer` is set to, so it is reset only when that changes.
    armed: Option<Instant>,
    /// Fires when a blocked write has waited `write_timeout`.
    write_timer: Pin<Box<Sleep>>,
    /// The deadline `write_timer` is set to.
    write_armed: Option<Instant>,
    /// Since when the socket has refused every write; `None` while writes go through.
    write_blocked: Option<Instant>,
    /// The client closed its side: nothing is left to drain.
    eof: bool,
    /// A clock ran out: the client is stuck, so it gets no lingering.
    timed_out: bool,
    /// This connection's slot under `--max-connections`, freed with the socket.
    permit: Option<OwnedSemaphorePermit>,
}

impl<I: Io> Watched<I> {
    fn new(
        io: I,
        activity: Arc<Activity>,
        limits: Limits,
        permit: Option<OwnedSemaphorePermit>,
    ) -> Self {
        Watched {
            io: Some(io),
            activity,
            limits,
            timer: Box::pin(tokio::time::sleep_until(Instant::now())),
            armed: None,
            write_timer: Box::pin(tokio::time::sleep_until(Instant::now())),
            write_armed: None,
            write_blocked: None,
            eof: false,
            timed_out: false,
            permit,
        }
    }
}

fn gone() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "connection already closed")
}

impl<I: Io> AsyncRead for Watched<I> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let Some(io) = this.io.as_mut() else {
            return Poll::Ready(Err(gone()));
        };
        let before = buf.filled().len();
        match Pin::new(io).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() == before {
                    this.eof = true;
                } else {
                    this.activity.bytes_read();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => {
                let Some((deadline, clock)) = this.activity.deadline(&this.limits, cx.waker())
                else {
                    return Poll::Pending;
                };
                if this.armed != Some(deadline) {
                    this.timer.as_mut().reset(deadline);
                    this.armed = Some(deadline);
                }
                if this.timer.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.timed_out = true;
                let why = match clock {
                    Clock::Header => format!(
                        "no complete request head within {} s (serve --header-timeout)",
                        this.limits.header_timeout.as_secs_f64()
                    ),
                    Clock::Idle => format!(
                        "idle for {} s between requests (serve --idle-timeout)",
                        this.limits.idle_timeout.as_secs_f64()
                    ),
                };
                Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, why)))
            }
        }
    }
}

impl<I: Io> Watched<I> {
    /// One write attempt, under the write clock: a client whose socket has taken
    /// nothing for `write_timeout` (it stopped reading, and the kernel's buffers are
    /// full) fails the write with `TimedOut`, and hyper closes the connection.
    fn write_with(
        &mut self,
        cx: &mut Context<'_>,
        write: impl FnOnce(Pin<&mut I>, &mut Context<'_>) -> Poll<io::Result<usize>>,
    ) -> Poll<io::Result<usize>> {
        let Some(io) = self.io.as_mut() else {
            return Poll::Ready(Err(gone()));
        };
        match write(Pin::new(io), cx) {
            Poll::Pending => {
                let since = *self.write_blocked.get_or_insert_with(Instant::now);
                let deadline = since + self.limits.write_timeout;
                if self.write_armed != Some(deadline) {
                    self.write_timer.as_mut().reset(deadline);
                    self.write_armed = Some(deadline);
                }
                if self.write_timer.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                self.timed_out = true;
                Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the client read nothing for {} s (serve --write-timeout)",
                        self.limits.write_timeout.as_secs_f64()
                    ),
                )))
            }
            ready => {
                self.write_blocked = None;
                ready
            }
        }
    }
}

impl<I: Io> AsyncWrite for Watched<I> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .write_with(cx, |io, cx| io.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .write_with(cx, |io, cx| io.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.io.as_ref().is_some_and(|io| io.is_write_vectored())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().io.as_mut() {
            Some(io) => Pin::new(io).poll_flush(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut().io.as_mut() {
            Some(io) => Pin::new(io).poll_shutdown(cx),
            None => Poll::Ready(Ok(())),
        }
    }
}

impl<I: Io> Drop for Watched<I> {
    fn drop(&mut self) {
        // Linger only for a client that may still be sending: not one that closed
        // its side, and not one a clock gave up on.
        if self.eof || self.timed_out || self.limits.linger_timeout.is_zero() {
            return;
        }
        let (Some(io), Ok(runtime)) = (self.io.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let limits = self.limits.clone();
        // The connection's slot stays taken until the socket is really closed.
        let permit = self.permit.take();
        runtime.spawn(async move {
            linger(io, &limits).await;
            drop(permit);
        });
    }
}

/// Shuts down the write side (the client sees the end of the response), then reads
/// and discards what the client still sends, up to the limits; then the socket closes.
async fn linger<I: AsyncRead + AsyncWrite + Unpin>(mut io: I, limits: &Limits) {
    let drain = async {
        let _ = io.shutdown().await;
        let mut left = limits.linger_bytes;
        let mut buf = [0u8; 16 * 1024];
        while left > 0 {
            match io.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n as u64),
            }
        }
    };
    let _ = tokio::time::timeout(limits.linger_timeout, drain).await;
}
