//! The HTTP tap: `mcp-raw tap --http --listen ADDR --target URL`, a reverse proxy at
//! the TCP level. Each connection the client opens is met by one connection to the
//! target, and the bytes are copied both ways as they arrive: request heads with their
//! header names in the client's case and order, bodies, chunk-size lines, every SSE
//! event the moment the server flushes it, long GET streams, DELETE — the tap does not
//! parse HTTP to pass it on, so it cannot re-render it.
//!
//! MCP 2025-11-25 `basic/transports` "Streamable HTTP" puts every message on its own
//! POST (answered with JSON or an SSE stream) plus an optional GET stream, and a client
//! may keep several open at once: HTTP/1.1 has no multiplexing, so each is its own TCP
//! connection, and each connection is its own lane here (`c1`, `c2`…).
//!
//! What the recording shows: without `--rewrite-host` the bytes on both sides of the
//! tap are the same, and each connection is one lane (what the tap read from one side
//! and wrote to the other). With `--rewrite-host` the two sides differ, so each gets its
//! own lane: the client's side (what the client sent, what it was sent back) and, on
//! the next lane number, the target's side (what the tap sent the target, what the
//! target answered); the lane's opening says which is which.
//!
//! TLS on either side sits below the recording, as in the client and the server: an
//! `https://` target is reached with the client's connector (`client::tls`, with the
//! tap's `--cacert`/`--insecure`), and `--tls-cert`/`--tls-key` make the tap's own
//! listener speak TLS (`transport::tls`). The bytes recorded are the plaintext HTTP
//! both ways; each handshake is a `tls` event on its lane. A plain relay takes none
//! of those paths.
//!
//! This file takes a connection and reaches the target; the rest is one job a file:
//!
//! ```text
//! target.rs    --target's URL, read
//! pipe.rs      both directions copied and recorded, the clocks enforced
//! sides.rs     the lanes a connection is recorded on, and its watch
//! watch.rs     where each direction is in its HTTP messages; the clocks
//! gateway.rs   the one response the tap writes itself: a 502
//! cut.rs       --intercept: one direction's bytes cut where a held message needs it
//! hold.rs      --intercept: a message held, then passed on, framed anew, or dropped
//! sse_edit.rs  --intercept: an event stream's events, their data, an event edited
//! ```

mod cut;
mod gateway;
pub mod hold;
mod pipe;
mod sides;
mod sse_edit;
mod target;
mod watch;

pub(crate) use pipe::pipe;
pub(crate) use sides::Sides;
pub use target::Target;
pub(crate) use watch::Clocks;

use super::rewrite::HostRewriter;
use crate::wire::event::{Dir, Lane, LaneKind, What};
use crate::wire::recorder::Recorder;
use gateway::bad_gateway;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};

/// The limits of the HTTP tap and their defaults.
pub mod limits {
    use std::time::Duration;
    /// How long connecting to the target may take before the client gets a 502.
    pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
    /// Most client connections relayed at once; more wait in the listen queue.
    pub const MAX_CONNECTIONS: usize = 1024;
    /// With `--rewrite-host`: the longest request head looked for; a longer one is
    /// passed on unchanged, and so is the rest of its connection.
    pub const MAX_HEAD_BYTES: usize = 64 * 1024;
    /// After a 502, how long the tap keeps reading what the client still sends, so it
    /// reads the answer instead of a reset.
    pub const LINGER: Duration = Duration::from_secs(2);
    /// How long a request head may take once begun, and a new connection before its
    /// first byte (`--header-timeout`, as `serve --header-timeout`).
    pub const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
    /// How long a connection may sit with no request in flight (`--idle-timeout`, as
    /// `serve --idle-timeout`): a long SSE stream is in flight, never idle.
    pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
}

/// What the HTTP tap needs to run.
pub struct Config {
    /// Where each connection is relayed to.
    pub target: Target,
    /// Where every relayed byte goes (`--record`, `--trace`).
    pub recorder: Recorder,
    /// `--rewrite-host`: the Host line of each request becomes the target's authority.
    pub rewrite_host: bool,
    /// `--connect-timeout`.
    pub connect_timeout: Duration,
    /// `--max-connections`.
    pub max_connections: usize,
    /// `--header-timeout`: a request head begun (or a new connection silent) this
    /// long is closed (a flag of 0 makes it years: off). Without it, half-sent heads
    /// would hold every relay slot (`--max-connections`) forever.
    pub header_timeout: Duration,
    /// `--idle-timeout`: a connection with no request in flight this long is closed
    /// (a flag of 0 makes it years: off).
    pub idle_timeout: Duration,
    /// The TLS an `https://` target is reached with (`--cacert`, `--insecure`); unused
    /// for `http://`.
    pub target_tls: Arc<crate::client::tls::Tls>,
    /// `--tls-cert`/`--tls-key`: the tap's own listener speaks TLS; none: plain.
    pub listen_tls: Option<Arc<crate::transport::tls::Acceptor>>,
    /// `--intercept`: the messages held in flight (`hold.rs`); none: every byte
    /// passes as it comes.
    pub intercept: Option<Arc<super::intercept::Interceptor>>,
    /// `--intercept-max-bytes`: the largest body (or event) kept whole to be held.
    pub intercept_max: usize,
}

/// A stream the relay can cut in two halves, each direction on its own: a TCP
/// socket's own halves (no lock), or a TLS stream's (tokio's split, which locks:
/// TLS records carry both directions' state).
trait Halves: AsyncRead + AsyncWrite + Unpin + Send + 'static {
    /// The reading half.
    type R: AsyncRead + Unpin + Send;
    /// The writing half.
    type W: AsyncWrite + Unpin + Send;
    fn halves(self) -> (Self::R, Self::W);
}

impl Halves for TcpStream {
    type R = OwnedReadHalf;
    type W = OwnedWriteHalf;
    fn halves(self) -> (OwnedReadHalf, OwnedWriteHalf) {
        self.into_split()
    }
}

impl Halves for tokio_rustls::server::TlsStream<TcpStream> {
    type R = tokio::io::ReadHalf<Self>;
    type W = tokio::io::WriteHalf<Self>;
    fn halves(self) -> (Self::R, Self::W) {
        tokio::io::split(self)
    }
}

impl Halves for tokio_rustls::client::TlsStream<TcpStream> {
    type R = tokio::io::ReadHalf<Self>;
    type W = tokio::io::WriteHalf<Self>;
    fn halves(self) -> (Self::R, Self::W) {
        tokio::io::split(self)
    }
}

/// Accepts connections until `shutdown` resolves, relaying each on its own task
/// (at most `--max-connections` at once).
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    super::accept_each(
        listener,
        config.max_connections,
        config,
        "tap",
        shutdown,
        |client, peer, config| async move { relay(client, peer, &config).await },
    )
    .await
}

/// One client connection: on a TLS listener its handshake first (under the header
/// clock, a failure one log line), then relayed.
async fn relay(client: TcpStream, peer: SocketAddr, config: &Config) {
    let Some(tls) = &config.listen_tls else {
        return relay_from(client, peer, config, None).await;
    };
    let started = std::time::Instant::now();
    match tls
        .accept(client, config.header_timeout, "--header-timeout", started)
        .await
    {
        Ok((client, facts)) => relay_from(client, peer, config, Some(Box::new(facts))).await,
        Err(why) => log::warn!("[mcp-raw] tap: TLS connection from {peer} refused: {why}"),
    }
}

/// One client connection (`accepted`: its TLS handshake's facts, on a TLS listener),
/// relayed to its own target connection until both directions end.
async fn relay_from<C: Halves>(
    client: C,
    peer: SocketAddr,
    config: &Config,
    accepted: Option<Box<crate::wire::tls::TlsFacts>>,
) {
    let recorder = &config.recorder;
    let lane = recorder.lane(LaneKind::Http);
    let target = config.target.authority();
    let started = std::time::Instant::now();
    let (host, port) = (config.target.host.as_str(), config.target.port);
    // Nagle's algorithm is off on both sockets: a small write (an SSE event) must
    // leave at once, not wait for an ACK. (The client's was set so at accept.)
    let upstream = match super::connect(host, port, config.connect_timeout).await {
        Ok(s) => s,
        Err(why) => return bad_gateway(client, peer, lane, config, &why).await,
    };
    let local = upstream
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    if !config.target.tls {
        let ends = Ends {
            peer,
            lane,
            local,
            accepted,
            reached: None,
        };
        return pump(client, upstream, ends, config).await;
    }
    // The handshake counts against --connect-timeout, with the TCP connect.
    let left = config.connect_timeout.saturating_sub(started.elapsed());
    let handshake = config
        .target_tls
        .connect(upstream, &config.target.host, &target, started);
    match tokio::time::timeout(left, handshake).await {
        Ok(Ok((upstream, facts))) => {
            let ends = Ends {
                peer,
                lane,
                local,
                accepted,
                reached: Some(Box::new(facts)),
            };
            pump(client, upstream, ends, config).await
        }
        Ok(Err(e)) => bad_gateway(client, peer, lane, config, &format!("{e:#}")).await,
        Err(_) => {
            let why = format!(
                "the TLS handshake with {target} took longer than {:?} (--connect-timeout)",
                config.connect_timeout
            );
            bad_gateway(client, peer, lane, config, &why).await
        }
    }
}

/// What one relayed connection knows of its two ends before the first byte.
struct Ends {
    /// The client's address.
    peer: SocketAddr,
    /// The client's lane.
    lane: Lane,
    /// The tap's address on the target connection.
    local: String,
    /// The client's TLS handshake with the tap (`--tls-cert`).
    accepted: Option<Box<crate::wire::tls::TlsFacts>>,
    /// The tap's TLS handshake with an `https://` target.
    reached: Option<Box<crate::wire::tls::TlsFacts>>,
}

/// Copies both directions of one connection until both end, recording each read.
async fn pump<C: Halves, U: Halves>(client: C, upstream: U, ends: Ends, config: &Config) {
    let recorder = &config.recorder;
    let target = config.target.authority();
    let Ends {
        peer,
        lane,
        local,
        accepted,
        reached,
    } = ends;
    let target_lane = if config.rewrite_host {
        let theirs = recorder.lane(LaneKind::Http);
        recorder.emit(
            lane,
            Dir::ToServer,
            What::Open(format!(
                "client side: accepted from {peer}, relayed to {target} on {}",
                theirs.label()
            )),
        );
        recorder.emit(
            theirs,
            Dir::ToServer,
            What::Open(format!(
                "target side: connected {local} → {target}, for {} (Host rewritten)",
                lane.label()
            )),
        );
        Some(theirs)
    } else {
        recorder.emit(
            lane,
            Dir::ToServer,
            What::Open(format!(
                "accepted from {peer}, relayed as {local} → {target}"
            )),
        );
        None
    };
    if let Some(facts) = accepted {
        recorder.emit(lane, Dir::ToServer, What::Tls(facts));
    }
    if let Some(facts) = reached {
        recorder.emit(target_lane.unwrap_or(lane), Dir::ToClient, What::Tls(facts));
    }
    let sides = Sides::new(recorder, lane, target_lane)
        .holding(config.intercept.clone(), config.intercept_max);
    let (client_r, client_w) = client.halves();
    let (upstream_r, upstream_w) = upstream.halves();
    let rewriter = config
        .rewrite_host
        .then(|| HostRewriter::new(&target, limits::MAX_HEAD_BYTES));
    let clocks = Clocks {
        header_timeout: config.header_timeout,
        idle_timeout: config.idle_timeout,
    };
    pipe(
        (client_r, client_w),
        (upstream_r, upstream_w),
        &sides,
        rewriter,
        &config.target.url(),
        clocks,
    )
    .await;
}
