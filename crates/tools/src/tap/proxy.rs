//! The forward proxy: `mcp-raw tap --proxy --listen ADDR`, set as a client's
//! `HTTPS_PROXY`. A client asks it for a tunnel with `CONNECT host:port` (RFC 9110
//! §9.3.6); for a host that `--decrypt-host` matches (all, by default) the proxy
//! answers `200`, plays the server's part of TLS with a leaf certificate for that host
//! signed by the local CA (`mcp-raw ca`), opens its own TLS connection to the real
//! host (the client's connector: system roots and `--cacert`), and relays the
//! plaintext HTTP between the two, recording it as the HTTP tap does — the URLs the
//! client uses never change, so OAuth's redirects and metadata work as they are.
//! Another host gets an opaque tunnel: bytes copied both ways, counted, not recorded.
//! A request in absolute form (`GET http://host/…`, RFC 9112 §3.2.2) is relayed to
//! its host in plain HTTP, the connection recorded as the HTTP tap records one.
//!
//! Each decrypted connection is one lane with two TLS facts: first what the client
//! negotiated with the proxy, then what the proxy negotiated with the real host (its
//! chain too); the plaintext between is the same on both sides, recorded once.

use super::CHUNK;
use super::ca::Ca;
use super::http::{Clocks, Sides, pipe};
use crate::client::tls::Tls;
use crate::lock::Locked;
use crate::wire::event::{Dir, Lane, LaneKind, What};
use crate::wire::recorder::Recorder;
use crate::wire::tls::TlsFacts;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The limits of the proxy and their defaults (the others are the HTTP tap's:
/// [`super::http::limits`]).
pub mod limits {
    /// The longest proxy request head (`CONNECT`, or absolute form) read
    /// (`--max-head-bytes`); longer gets 400.
    pub const MAX_HEAD_BYTES: usize = 16 * 1024;
}

/// What the proxy needs to run.
pub struct Config {
    /// Where every relayed byte goes (`--record`, `--trace`).
    pub recorder: Recorder,
    /// The local CA that signs each decrypted host's leaf.
    pub ca: Ca,
    /// `--decrypt-host`: the hosts whose TLS is opened; empty means all.
    pub decrypt: Vec<String>,
    /// The TLS client towards the real hosts (`--cacert`, `--insecure`).
    pub tls: Tls,
    /// `--connect-timeout`: connecting (and the TLS handshake) to a host.
    pub connect_timeout: Duration,
    /// `--max-connections`: client connections served at once.
    pub max_connections: usize,
    /// `--header-timeout`: how long the proxy request head, the client's TLS
    /// handshake inside a tunnel, and each relayed request head may take.
    pub header_timeout: Duration,
    /// `--max-head-bytes`: the longest proxy request head; without it a client could
    /// send header lines forever.
    pub max_head_bytes: usize,
    /// `--idle-timeout`: a connection (or tunnel) with nothing in flight this long is
    /// closed.
    pub idle_timeout: Duration,
}

/// Does `host` match one of `patterns` (none: every host matches)? A pattern is a
/// host name, any case, where `*` stands for any run of characters
/// (`*.example.com`).
pub fn decrypts(patterns: &[String], host: &str) -> bool {
    patterns.is_empty() || patterns.iter().any(|p| glob(p.as_bytes(), host.as_bytes()))
}

fn glob(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|i| glob(rest, &text[i..])),
        Some((c, rest)) => text
            .split_first()
            .is_some_and(|(t, more)| t.eq_ignore_ascii_case(c) && glob(rest, more)),
    }
}

/// Accepts connections until `shutdown` resolves, serving each on its own task
/// (at most `--max-connections` at once).
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let config = Arc::new(config);
    let max = config.max_connections;
    super::accept_each(
        listener,
        max,
        "tap --proxy",
        shutdown,
        move |client, peer| {
            let config = config.clone();
            async move { serve(client, peer, &config).await }
        },
    )
    .await
}

/// A proxy request's first line, read.
#[derive(Debug, PartialEq, Eq)]
enum Ask {
    /// `CONNECT host:port`.
    Connect { host: String, port: u16 },
    /// An absolute-form request to `http://host:port/…`.
    Plain { host: String, port: u16 },
}

/// Reads a proxy request's first line; an error says what is wrong, quoting it.
fn ask(head: &[u8]) -> Result<Ask, String> {
    let line_end = head.iter().position(|&b| b == b'\n').unwrap_or(head.len());
    let line = String::from_utf8_lossy(&head[..line_end]);
    let line = line.trim_end_matches('\r');
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!(
            "the request line {line:?} is not METHOD TARGET HTTP/1.1 (RFC 9112 §3)"
        ));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(format!(
            "the request line {line:?}: {version:?} is not HTTP/1.x"
        ));
    }
    if method == "CONNECT" {
        // RFC 9110 §9.3.6: CONNECT's target is authority-form, host and port both.
        let (host, port) = authority(target).ok_or_else(|| {
            format!("CONNECT {target:?}: the target must be HOST:PORT (RFC 9110 §9.3.6)")
        })?;
        let port = port.ok_or_else(|| {
            format!("CONNECT {target:?}: no port (RFC 9110 §9.3.6 requires one, e.g. {target}:443)")
        })?;
        return Ok(Ask::Connect { host, port });
    }
    let Some(rest) = target.strip_prefix("http://") else {
        return Err(format!(
            "{method} {target:?}: a proxy takes CONNECT HOST:PORT or an absolute http:// URL (RFC 9112 §3.2.2)"
        ));
    };
    let auth = rest.split(['/', '?']).next().unwrap_or("");
    let (host, port) =
        authority(auth).ok_or_else(|| format!("{method} {target:?}: no host in the URL"))?;
    Ok(Ask::Plain {
        host,
        port: port.unwrap_or(80),
    })
}

/// `host:port`, `[v6]:port`, or a bare host: the host (brackets off) and the port.
fn authority(text: &str) -> Option<(String, Option<u16>)> {
    let (host, port) = match text.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = v6.split_once(']')?;
            (host, after.strip_prefix(':'))
        }
        None => match text.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (text, None),
        },
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._:".contains(&b));
    if !host_ok {
        return None;
    }
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok().filter(|&p| p != 0)?),
        None => None,
    };
    Some((host.to_owned(), port))
}

/// `host:port` for messages and Host lines (IPv6 in brackets).
fn joined(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Reads up to the end of the request head; returns the head and what came after it.
async fn read_head(
    client: &mut TcpStream,
    timeout: Duration,
    max: usize,
) -> Result<(Vec<u8>, Vec<u8>), HeadError> {
    let mut seen = Vec::new();
    let mut buf = vec![0u8; 4096];
    let read = tokio::time::timeout(timeout, async {
        loop {
            if let Some(end) = head_end(&seen)
                && end <= max
            {
                let rest = seen.split_off(end);
                return Ok((seen, rest));
            }
            if seen.len() > max {
                // (a head that ended past the limit is as long)
                return Err(HeadError::TooLong(format!(
                    "the request head passed {max} bytes without ending (tap --max-head-bytes)"
                )));
            }
            match client.read(&mut buf).await {
                Ok(0) => {
                    return Err(HeadError::Gone(
                        "the client closed before its request head ended".into(),
                    ));
                }
                Ok(n) => seen.extend_from_slice(&buf[..n]),
                Err(e) => return Err(HeadError::Gone(format!("reading the client failed: {e}"))),
            }
        }
    })
    .await;
    read.unwrap_or_else(|_| {
        Err(HeadError::Gone(format!(
            "no complete request head within {} s (tap --header-timeout)",
            timeout.as_secs_f64()
        )))
    })
}

/// Why no proxy request head was read.
enum HeadError {
    /// Too long: answered with 400.
    TooLong(String),
    /// Closed, failed or too slow: the connection is closed.
    Gone(String),
}

/// Where a head ends (after its blank line), if it has.
fn head_end(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
}

/// One client connection: its proxy request read, then served.
async fn serve(mut client: TcpStream, peer: SocketAddr, config: &Config) {
    let recorder = &config.recorder;
    let lane = recorder.lane(LaneKind::Http);
    let _ = client.set_nodelay(true);
    let (head, rest) =
        match read_head(&mut client, config.header_timeout, config.max_head_bytes).await {
            Ok(read) => read,
            Err(HeadError::Gone(why)) => {
                recorder.emit(
                    lane,
                    Dir::ToServer,
                    What::Open(format!("proxy: accepted from {peer}")),
                );
                recorder.emit(lane, Dir::ToServer, What::Close(format!("{why}: closed")));
                return;
            }
            Err(HeadError::TooLong(why)) => {
                recorder.emit(
                    lane,
                    Dir::ToServer,
                    What::Open(format!("proxy: accepted from {peer}")),
                );
                // RFC 9110 §15.5.1 (400); what was read is not recorded: it is no request.
                return answer(&mut client, lane, recorder, "400 Bad Request", &why).await;
            }
        };
    match ask(&head) {
        Err(why) => {
            recorder.emit(
                lane,
                Dir::ToServer,
                What::Open(format!("proxy: accepted from {peer}")),
            );
            recorder.bytes(lane, Dir::ToServer, &head);
            // RFC 9110 §15.5.1: 400, the request is malformed.
            answer(&mut client, lane, recorder, "400 Bad Request", &why).await;
        }
        Ok(Ask::Connect { host, port }) => {
            if !rest.is_empty() && decrypts(&config.decrypt, &host) {
                recorder.emit(
                    lane,
                    Dir::ToServer,
                    What::Open(format!(
                        "proxy: CONNECT {} from {peer}",
                        joined(&host, port)
                    )),
                );
                recorder.bytes(lane, Dir::ToServer, &head);
                let why = format!(
                    "{} bytes came after the CONNECT head before the proxy answered it (to decrypt, the proxy reads the client's TLS only after its 200)",
                    rest.len()
                );
                return answer(&mut client, lane, recorder, "400 Bad Request", &why).await;
            }
            if decrypts(&config.decrypt, &host) {
                decrypted(client, peer, lane, (&host, port), &head, config).await
            } else {
                tunnel(client, peer, lane, (&host, port), (&head, rest), config).await
            }
        }
        Ok(Ask::Plain { host, port }) => {
            plain(client, peer, lane, &host, port, head, rest, config).await
        }
    }
}

/// The proxy's own answer (400, 502): recorded, written, and the connection closed.
async fn answer(client: &mut TcpStream, lane: Lane, recorder: &Recorder, status: &str, why: &str) {
    let body = format!("mcp-raw tap --proxy: {why}\n");
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    recorder.bytes(lane, Dir::ToClient, response.as_bytes());
    let _ = client.write_all(response.as_bytes()).await;
    let _ = client.shutdown().await;
    recorder.emit(
        lane,
        Dir::ToClient,
        What::Close(format!("{status} sent: {why}")),
    );
}

/// Connects to `host:port` within the connect timeout; an error in words.
async fn connect(host: &str, port: u16, config: &Config) -> Result<TcpStream, String> {
    let target = joined(host, port);
    match tokio::time::timeout(config.connect_timeout, TcpStream::connect((host, port))).await {
        Ok(Ok(s)) => {
            let _ = s.set_nodelay(true);
            Ok(s)
        }
        Ok(Err(e)) => Err(format!("connecting to {target} failed: {e}")),
        Err(_) => Err(format!(
            "connecting to {target} took longer than {:?} (--connect-timeout)",
            config.connect_timeout
        )),
    }
}

const ESTABLISHED: &[u8] = b"HTTP/1.1 200 Connection Established\r\n\r\n";

/// A host to decrypt: the real host's TLS first (so a failure there is the client's
/// 502, RFC 9110 §15.6.3), then `200`, then the client's TLS with a leaf for `host`,
/// then the plaintext relayed, recorded once on the connection's lane.
async fn decrypted(
    mut client: TcpStream,
    peer: SocketAddr,
    lane: Lane,
    (host, port): (&str, u16),
    head: &[u8],
    config: &Config,
) {
    let recorder = &config.recorder;
    let target = joined(host, port);
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Open(format!(
            "proxy, client side: CONNECT {target} from {peer}; TLS terminated here with a leaf for {host} signed by the mcp-raw CA (decrypted)"
        )),
    );
    let started = Instant::now();
    let upstream = async {
        let tcp = connect(host, port, config).await?;
        let local = tcp.local_addr().map(|a| a.to_string()).unwrap_or_default();
        let tls = tokio::time::timeout(
            config.connect_timeout,
            config.tls.connect(tcp, host, &target, started),
        )
        .await
        .map_err(|_| {
            format!(
                "the TLS handshake with {target} took longer than {:?} (--connect-timeout)",
                config.connect_timeout
            )
        })?
        .map_err(|e| format!("{e:#}"))?;
        Ok::<_, String>((tls, local))
    }
    .await;
    let ((upstream, facts), local) = match upstream {
        Ok(u) => u,
        Err(why) => {
            // The CONNECT as it came, then the proxy's answer to it.
            recorder.bytes(lane, Dir::ToServer, head);
            return answer(&mut client, lane, recorder, "502 Bad Gateway", &why).await;
        }
    };
    let leaf = match config.ca.server_config(host) {
        Ok(c) => c,
        Err(why) => {
            recorder.bytes(lane, Dir::ToServer, head);
            return answer(
                &mut client,
                lane,
                recorder,
                "502 Bad Gateway",
                &format!("{why:#}"),
            )
            .await;
        }
    };
    if client.write_all(ESTABLISHED).await.is_err() {
        recorder.emit(
            lane,
            Dir::ToClient,
            What::Close("the client is gone".into()),
        );
        return;
    }
    let accepted = Instant::now();
    // The handshake is what comes before the first request head: its clock.
    let handshake = tokio::time::timeout(
        config.header_timeout,
        tokio_rustls::TlsAcceptor::from(leaf).accept(client),
    )
    .await;
    let client = match handshake {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            let why = format!(
                "the client's TLS handshake failed: {e}; a client that does not trust the mcp-raw CA refuses the proxy's leaf for {host} (`mcp-raw ca` prints how to trust it)"
            );
            recorder.emit(lane, Dir::ToServer, What::Close(why));
            return;
        }
        Err(_) => {
            let why = format!(
                "the client's TLS handshake took longer than {} s (tap --header-timeout): closed",
                config.header_timeout.as_secs_f64()
            );
            recorder.emit(lane, Dir::ToServer, What::Close(why));
            return;
        }
    };
    // One lane: the plaintext is the same on both sides (nothing is rewritten); the
    // two handshakes' facts come first, the client's side, then the target's.
    recorder.emit(
        lane,
        Dir::ToClient,
        What::Tls(Box::new(server_facts(client.get_ref().1, host, accepted))),
    );
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Open(format!(
            "proxy, target side: connected {local} → {target} over TLS; the plaintext below is what crossed both"
        )),
    );
    recorder.emit(lane, Dir::ToClient, What::Tls(Box::new(facts)));
    let sides = Sides::new(recorder, lane, None);
    let clocks = Clocks {
        header_timeout: config.header_timeout,
        idle_timeout: config.idle_timeout,
    };
    pipe(
        tokio::io::split(client),
        tokio::io::split(upstream),
        &sides,
        None,
        &format!("https://{target}"),
        clocks,
    )
    .await;
}

/// The facts of the client's side of a decrypted connection: what it negotiated with
/// the proxy, which accepted it (no peer chain: a client sends none; the leaf is the
/// proxy's own), through the one reading of a handshake both sides share.
fn server_facts(conn: &rustls::ServerConnection, host: &str, started: Instant) -> TlsFacts {
    let mut facts = crate::transport::tls::settled(conn, started.elapsed().as_micros() as u64);
    facts.sni = conn.server_name().map(str::to_owned);
    facts.server_name = host.to_owned();
    facts.accepted = true;
    facts
}

/// A host not decrypted: `200`, then bytes copied both ways, counted, not recorded.
async fn tunnel(
    mut client: TcpStream,
    peer: SocketAddr,
    lane: Lane,
    (host, port): (&str, u16),
    (head, rest): (&[u8], Vec<u8>),
    config: &Config,
) {
    let recorder = &config.recorder;
    let target = joined(host, port);
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Open(format!(
            "proxy: opaque tunnel, CONNECT {target} from {peer} (not decrypted: no --decrypt-host matches {host}); its bytes are counted, not recorded"
        )),
    );
    let mut upstream = match connect(host, port, config).await {
        Ok(s) => s,
        Err(why) => {
            // The CONNECT as it came, then the proxy's answer to it.
            recorder.bytes(lane, Dir::ToServer, head);
            return answer(&mut client, lane, recorder, "502 Bad Gateway", &why).await;
        }
    };
    if client.write_all(ESTABLISHED).await.is_err() || upstream.write_all(&rest).await.is_err() {
        recorder.emit(
            lane,
            Dir::ToClient,
            What::Close("opaque tunnel: a side is gone".into()),
        );
        return;
    }
    let last = std::sync::Mutex::new(Instant::now());
    let (sent, received) = (AtomicU64::new(0), AtomicU64::new(0));
    let (cr, cw) = client.into_split();
    let (ur, uw) = upstream.into_split();
    let up = count(cr, uw, &last, &sent);
    let down = count(ur, cw, &last, &received);
    tokio::pin!(up, down);
    let (mut up_done, mut down_done) = (false, false);
    let mut why = "both sides closed".to_owned();
    while !(up_done && down_done) {
        let since = *last.locked();
        let clock = async {
            match since.checked_add(config.idle_timeout) {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = &mut up, if !up_done => up_done = true,
            () = &mut down, if !down_done => down_done = true,
            () = clock => {
                // Bytes may have moved the clock since it was set.
                let since = *last.locked();
                if since.elapsed() >= config.idle_timeout {
                    why = format!(
                        "no bytes either way for {} s (tap --idle-timeout): closed",
                        config.idle_timeout.as_secs_f64()
                    );
                    break;
                }
            }
        }
    }
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Close(format!(
            "opaque tunnel to {target} ended ({why}): {} bytes client → {target}, {} bytes {target} → client",
            sent.load(Ordering::Relaxed),
            received.load(Ordering::Relaxed)
        )),
    );
}

/// Copies `from` to `to` until EOF or an error (the EOF passed on as a half close),
/// adding each write to `total` and stamping `last`.
async fn count(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    last: &std::sync::Mutex<Instant>,
    total: &AtomicU64,
) {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        *last.locked() = Instant::now();
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
        total.fetch_add(n as u64, Ordering::Relaxed);
    }
    let _ = to.shutdown().await;
}

/// An absolute-form request (`GET http://host/…`): the connection relayed to that
/// host as the HTTP tap relays one, its first head included.
#[allow(clippy::too_many_arguments)]
async fn plain(
    mut client: TcpStream,
    peer: SocketAddr,
    lane: Lane,
    host: &str,
    port: u16,
    head: Vec<u8>,
    rest: Vec<u8>,
    config: &Config,
) {
    let recorder = &config.recorder;
    let target = joined(host, port);
    let mut upstream = match connect(host, port, config).await {
        Ok(s) => s,
        Err(why) => {
            recorder.emit(
                lane,
                Dir::ToServer,
                What::Open(format!(
                    "proxy: accepted from {peer}; {target} is unreachable"
                )),
            );
            recorder.bytes(lane, Dir::ToServer, &head);
            return answer(&mut client, lane, recorder, "502 Bad Gateway", &why).await;
        }
    };
    let local = upstream
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Open(format!(
            "proxy: accepted from {peer}, relayed in plain HTTP as {local} → {target} (the connection stays with this host)"
        )),
    );
    let sides = Sides::new(recorder, lane, None);
    // The first head now; what came after it goes through the same check as the
    // client's later reads.
    sides.client_sent(&head);
    if upstream.write_all(&head).await.is_err() {
        recorder.emit(
            lane,
            Dir::ToServer,
            What::Close(format!("writing {target} failed")),
        );
        return;
    }
    let clocks = Clocks {
        header_timeout: config.header_timeout,
        idle_timeout: config.idle_timeout,
    };
    let (client_r, client_w) = client.into_split();
    let mut framer =
        crate::wire::http1::Framer::new(crate::wire::http1::Side::Request, config.max_head_bytes);
    // The first head was read already: the framer starts after it.
    let _ = framer.feed(&head);
    let client_r = SameHost {
        recorder,
        lane,
        inner: client_r,
        pending: rest,
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
                        joined(&this.host, this.port)
                    )),
                );
                return std::task::Poll::Ready(Ok(()));
            }
        }
        std::task::Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_hosts() {
        let p = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(decrypts(&[], "anything.test"));
        assert!(decrypts(&p(&["*.example.com"]), "mcp.Example.com"));
        assert!(!decrypts(&p(&["*.example.com"]), "example.com"));
        assert!(decrypts(&p(&["localhost", "a.test"]), "a.test"));
        assert!(!decrypts(&p(&["localhost"]), "127.0.0.1"));
    }

    #[test]
    fn proxy_requests_are_read_or_refused_with_the_reason() {
        assert_eq!(
            ask(b"CONNECT localhost:443 HTTP/1.1\r\n\r\n"),
            Ok(Ask::Connect {
                host: "localhost".into(),
                port: 443
            })
        );
        assert_eq!(
            ask(b"CONNECT [::1]:8443 HTTP/1.1\r\n\r\n"),
            Ok(Ask::Connect {
                host: "::1".into(),
                port: 8443
            })
        );
        assert!(
            ask(b"CONNECT localhost HTTP/1.1\r\n\r\n")
                .unwrap_err()
                .contains("no port")
        );
        assert!(
            ask(b"CONNECT a b:1 HTTP/1.1\r\n\r\n")
                .unwrap_err()
                .contains("METHOD")
        );
        assert!(
            ask(b"GET /mcp HTTP/1.1\r\n\r\n")
                .unwrap_err()
                .contains("absolute")
        );
        assert_eq!(
            ask(b"POST http://127.0.0.1:3100/mcp HTTP/1.1\r\n\r\n"),
            Ok(Ask::Plain {
                host: "127.0.0.1".into(),
                port: 3100
            })
        );
    }
}
