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

use super::CHUNK;
use super::rewrite::HostRewriter;
use crate::lock::Locked;
use crate::wire::event::{Dir, Lane, LaneKind, What};
use crate::wire::http1;
use crate::wire::recorder::Recorder;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
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

/// Where the tap forwards to: `http://HOST:PORT/PATH` or `https://…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `https://`: the tap opens TLS to the target (and checks its certificate).
    pub tls: bool,
    /// The host to connect to, a name or an address.
    pub host: String,
    /// Its port (80 when the URL has none, 443 for `https://`).
    pub port: u16,
    /// The path, only shown: requests keep the path the client sent.
    pub path: String,
}

impl Target {
    /// Reads `http://HOST[:PORT][/PATH]` or `https://…`.
    pub fn parse(url: &str) -> Result<Target, String> {
        let (tls, rest) = match (url.strip_prefix("http://"), url.strip_prefix("https://")) {
            (Some(rest), _) => (false, rest),
            (_, Some(rest)) => (true, rest),
            _ => {
                return Err(format!(
                    "--target {url:?}: must start with http:// or https://"
                ));
            }
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        // `[v6]:port`, `[v6]`, `host:port` or `host`.
        let (host, port) = match authority.strip_prefix('[') {
            Some(v6) => {
                let (host, after) = v6
                    .split_once(']')
                    .ok_or_else(|| format!("--target {url:?}: no ']' after an IPv6 address"))?;
                (host, after.strip_prefix(':'))
            }
            None => match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            },
        };
        let port = match port {
            Some(p) => p
                .parse::<u16>()
                .map_err(|_| format!("--target {url:?}: bad port {p:?}"))?,
            None if tls => 443,
            None => 80,
        };
        if host.is_empty() {
            return Err(format!("--target {url:?}: no host"));
        }
        Ok(Target {
            tls,
            host: host.to_owned(),
            port,
            path: path.to_owned(),
        })
    }

    /// `host:port`, as a `Host` header says it.
    pub fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The URL, for messages.
    pub fn url(&self) -> String {
        format!(
            "{}://{}{}",
            if self.tls { "https" } else { "http" },
            self.authority(),
            self.path
        )
    }
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
    let config = Arc::new(config);
    let max = config.max_connections;
    super::accept_each(listener, max, "tap", shutdown, move |client, peer| {
        let config = config.clone();
        async move { relay(client, peer, &config).await }
    })
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
    let connected = tokio::time::timeout(
        config.connect_timeout,
        TcpStream::connect((config.target.host.as_str(), config.target.port)),
    )
    .await;
    let upstream = match connected {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            let why = format!("connecting to {target} failed: {e}");
            return bad_gateway(client, peer, lane, config, &why).await;
        }
        Err(_) => {
            let why = format!(
                "connecting to {target} took longer than {:?} (--connect-timeout)",
                config.connect_timeout
            );
            return bad_gateway(client, peer, lane, config, &why).await;
        }
    };
    // Nagle's algorithm would hold a small write (an SSE event) back waiting for an
    // ACK: each chunk must leave as soon as it is written. (The client's socket was
    // set so at accept.)
    let _ = upstream.set_nodelay(true);
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
    let sides = Sides::new(recorder, lane, target_lane);
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

/// The header and idle clocks of one relayed connection.
#[derive(Debug, Clone, Copy)]
pub(super) struct Clocks {
    /// `--header-timeout`.
    pub header_timeout: Duration,
    /// `--idle-timeout`.
    pub idle_timeout: Duration,
}

/// Copies both ways between the client's halves and the target's, recording on
/// `sides`, until both directions end, one fails, or a clock runs out. Any byte
/// stream: TCP for `tap --http`, TLS for the proxy's decrypted connections.
pub(super) async fn pipe<CR, CW, UR, UW>(
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

/// The lanes one connection is recorded on.
pub(super) struct Sides<'a> {
    /// Where the events go.
    recorder: &'a Recorder,
    /// The client's side (the only lane without `--rewrite-host`).
    client: Lane,
    /// The target's side, when it differs (`--rewrite-host`).
    target: Option<Lane>,
    /// Where each direction is in its HTTP messages, for the header and idle clocks.
    watch: std::sync::Mutex<Watch>,
    /// Woken when `watch` moves a clock.
    changed: tokio::sync::Notify,
}

impl<'a> Sides<'a> {
    /// The lanes of one connection: the client's, and the target's when it differs.
    pub(super) fn new(recorder: &'a Recorder, client: Lane, target: Option<Lane>) -> Sides<'a> {
        Sides {
            recorder,
            client,
            target,
            watch: std::sync::Mutex::new(Watch::new()),
            changed: tokio::sync::Notify::new(),
        }
    }

    /// Bytes the client sent before the relay began (the proxy read the first head to
    /// learn the target): recorded, and counted by the header and idle clocks.
    pub(super) fn client_sent(&self, bytes: &[u8]) {
        self.recorder.bytes(self.client, Dir::ToServer, bytes);
        self.watch().requested(bytes);
    }

    fn watch(&self) -> std::sync::MutexGuard<'_, Watch> {
        self.watch.locked()
    }

    fn close(&self, dir: Dir, why: &str) {
        for lane in std::iter::once(self.client).chain(self.target) {
            self.recorder.emit(lane, dir, What::Close(why.to_owned()));
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

/// Why `held` is not an HTTP response, quoting its start.
fn not_http(held: &[u8]) -> String {
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
async fn gateway_error(
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
    let response = format!(
        "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    sides
        .recorder
        .bytes(sides.client, Dir::ToClient, response.as_bytes());
    let _ = to.write_all(response.as_bytes()).await;
    let _ = to.shutdown().await;
    sides.close(Dir::ToClient, &format!("502 sent: {why}"));
    // Err: the client's side ends too (its connection is closed after the 502).
    Err(())
}

/// Where one connection's two directions are in their HTTP messages (read with the
/// wire view's framer, never to change a byte): what the header and idle clocks of
/// `serve --http` need (`transport/http/conn.rs`), kept for a relay that does not
/// parse HTTP to pass it on.
struct Watch {
    /// The client's requests.
    requests: http1::Framer,
    /// The target's responses.
    responses: http1::Framer,
    /// Request heads complete.
    asked: u64,
    /// Final responses (not 1xx) complete.
    answered: u64,
    /// Since when a request head has been arriving (or, on a new connection, since
    /// it was accepted): the header clock runs from here.
    head_started: Option<std::time::Instant>,
    /// Since when nothing has been in flight: the idle clock runs from here.
    idle_since: std::time::Instant,
    /// A response head was final (not 1xx), so its end counts as an answer.
    final_head: bool,
    /// The framing broke, or the connection switched protocols (101): requests and
    /// responses cannot be told apart any more, so only silence is measured.
    opaque: bool,
    /// The last read, either way: an opaque connection silent for the idle timeout
    /// is closed, so bytes that are not HTTP cannot hold a relay slot forever.
    last_activity: std::time::Instant,
}

impl Watch {
    fn new() -> Watch {
        let now = std::time::Instant::now();
        Watch {
            requests: http1::Framer::new(http1::Side::Request, limits::MAX_HEAD_BYTES),
            responses: http1::Framer::new(http1::Side::Response, limits::MAX_HEAD_BYTES),
            asked: 0,
            answered: 0,
            // RFC 9112 §9.3 lets a server close a connection that sends nothing; as
            // `serve` does, a new connection counts as a head begun.
            head_started: Some(now),
            idle_since: now,
            final_head: false,
            opaque: false,
            last_activity: now,
        }
    }

    /// The client sent `bytes`; whether a clock moved.
    fn requested(&mut self, bytes: &[u8]) -> bool {
        self.last_activity = std::time::Instant::now();
        let before = (self.head_started, self.asked, self.opaque);
        for part in self.requests.feed(bytes) {
            match part {
                http1::Part::Head(_) => {
                    self.asked += 1;
                    self.head_started = None;
                }
                http1::Part::Invalid(_) => self.opaque = true,
                _ => {}
            }
        }
        if self.head_started.is_none() && self.requests.head_in_progress() > 0 {
            self.head_started = Some(std::time::Instant::now());
        }
        (self.head_started, self.asked, self.opaque) != before
    }

    /// The target sent `bytes`; whether a clock moved.
    fn answered(&mut self, bytes: &[u8]) -> bool {
        self.last_activity = std::time::Instant::now();
        let before = (self.answered, self.opaque);
        for part in self.responses.feed(bytes) {
            match part {
                http1::Part::Head(head) => {
                    let status = head.status().unwrap_or(0);
                    // 101: what follows is another protocol (RFC 9110 §15.2.2).
                    self.opaque |= status == 101;
                    self.final_head = status >= 200;
                }
                http1::Part::End if self.final_head => {
                    self.answered += 1;
                    self.final_head = false;
                    if self.answered >= self.asked {
                        self.idle_since = std::time::Instant::now();
                    }
                }
                http1::Part::Invalid(_) => self.opaque = true,
                _ => {}
            }
        }
        (self.answered, self.opaque) != before
    }

    /// A request is waiting for its answer.
    fn in_flight(&self) -> bool {
        self.asked > self.answered
    }

    /// When the connection is to be closed, and why; `None` while a request is in
    /// flight and no head is arriving.
    fn deadline(&self, config: &Clocks) -> Option<(std::time::Instant, String)> {
        if self.opaque {
            return Some((
                self.last_activity.checked_add(config.idle_timeout)?,
                format!(
                    "no bytes either way for {} s on a connection that is no longer HTTP (tap --idle-timeout): closed",
                    config.idle_timeout.as_secs_f64()
                ),
            ));
        }
        if let Some(t) = self.head_started {
            return Some((
                t.checked_add(config.header_timeout)?,
                format!(
                    "no complete request head within {} s (tap --header-timeout): closed",
                    config.header_timeout.as_secs_f64()
                ),
            ));
        }
        if self.in_flight() {
            return None;
        }
        Some((
            self.idle_since.checked_add(config.idle_timeout)?,
            format!(
                "idle for {} s between requests (tap --idle-timeout): closed",
                config.idle_timeout.as_secs_f64()
            ),
        ))
    }
}

/// The target cannot be reached: the client gets the one response the tap writes
/// itself, after its request head is read (so the recording shows what was answered).
async fn bad_gateway(
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
    let response = format!(
        "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_say_their_authority() {
        let t = Target::parse("http://127.0.0.1:3100/mcp").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("127.0.0.1", 3100, "/mcp")
        );
        assert_eq!(t.authority(), "127.0.0.1:3100");
        let t = Target::parse("http://[::1]:8080").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("::1", 8080, "/")
        );
        assert_eq!(t.authority(), "[::1]:8080");
        assert_eq!(Target::parse("http://localhost/x").unwrap().port, 80);
        let t = Target::parse("https://example.com/mcp").unwrap();
        assert!(t.tls);
        assert_eq!(t.port, 443);
        assert_eq!(t.url(), "https://example.com:443/mcp");
        assert!(
            Target::parse("ftp://a:1/")
                .unwrap_err()
                .contains("http:// or https://")
        );
        assert!(
            Target::parse("http://a:x/")
                .unwrap_err()
                .contains("bad port")
        );
    }
}
