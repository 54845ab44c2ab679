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
//!
//! This file reads what a client asks and picks the way to serve it; the rest is one
//! job a file:
//!
//! ```text
//! ask.rs       the proxy request: its head read, its first line (CONNECT or absolute)
//! decrypt.rs   a host decrypted: both TLS handshakes, then the plaintext relayed
//! tunnel.rs    a host not decrypted: an opaque tunnel, its bytes counted
//! plain.rs     an absolute-form request: plain HTTP relayed to one host
//! ```

mod ask;
mod decrypt;
mod plain;
mod tunnel;

use super::ca::Ca;
use super::{host_port, own_response};
use crate::client::tls::Tls;
use crate::wire::event::{Dir, Lane, LaneKind, What};
use crate::wire::recorder::Recorder;
use ask::{Ask, HeadError, ask, read_head};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
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
    /// `--intercept`: messages held in flight on the connections the proxy reads
    /// (plain HTTP and decrypted TLS; an opaque tunnel's bytes cannot be); none:
    /// every byte passes as it comes.
    pub intercept: Option<std::sync::Arc<crate::tap::intercept::Interceptor>>,
    /// `--intercept-max-bytes`: the largest body (or event) kept whole to be held.
    pub intercept_max: usize,
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
    let who = "tap --proxy";
    super::accept_each(
        listener,
        config.max_connections,
        config,
        who,
        shutdown,
        |client, peer, config| async move { serve(client, peer, &config).await },
    )
    .await
}

/// A client connection whose proxy request names a host: what each way of serving
/// it (decrypted, an opaque tunnel, plain HTTP) starts from.
struct Asked {
    /// The client's connection.
    client: TcpStream,
    /// Its address.
    peer: SocketAddr,
    /// Its lane.
    lane: Lane,
    /// The host the request names.
    host: String,
    /// And its port.
    port: u16,
    /// The proxy request's head, as it came.
    head: Vec<u8>,
    /// What the client sent after the head, before the proxy answered.
    rest: Vec<u8>,
}

impl Asked {
    /// `host:port`, for messages.
    fn target(&self) -> String {
        host_port(&self.host, self.port)
    }
}

/// One client connection: its proxy request read, then served.
async fn serve(mut client: TcpStream, peer: SocketAddr, config: &Config) {
    let recorder = &config.recorder;
    let lane = recorder.lane(LaneKind::Http);
    let _ = client.set_nodelay(true);
    let accepted = || opened(recorder, lane, format!("proxy: accepted from {peer}"));
    let (head, rest) =
        match read_head(&mut client, config.header_timeout, config.max_head_bytes).await {
            Ok(read) => read,
            Err(HeadError::Gone(why)) => {
                accepted();
                recorder.emit(lane, Dir::ToServer, What::Close(format!("{why}: closed")));
                return;
            }
            Err(HeadError::TooLong(why)) => {
                accepted();
                // RFC 9110 §15.5.1 (400); what was read is not recorded: it is no request.
                return answer(&mut client, lane, recorder, &[], "400 Bad Request", &why).await;
            }
        };
    let (connect, host, port) = match ask(&head) {
        Err(why) => {
            accepted();
            // RFC 9110 §15.5.1: 400, the request is malformed.
            return answer(&mut client, lane, recorder, &head, "400 Bad Request", &why).await;
        }
        Ok(Ask::Connect { host, port }) => (true, host, port),
        Ok(Ask::Plain { host, port }) => (false, host, port),
    };
    let mut asked = Asked {
        client,
        peer,
        lane,
        host,
        port,
        head,
        rest,
    };
    if !connect {
        return plain::plain(asked, config).await;
    }
    if !decrypts(&config.decrypt, &asked.host) {
        return tunnel::tunnel(asked, config).await;
    }
    if !asked.rest.is_empty() {
        let text = format!("proxy: CONNECT {} from {peer}", asked.target());
        opened(recorder, lane, text);
        let why = format!(
            "{} bytes came after the CONNECT head before the proxy answered it (to decrypt, the proxy reads the client's TLS only after its 200)",
            asked.rest.len()
        );
        let (client, head) = (&mut asked.client, &asked.head);
        return answer(client, lane, recorder, head, "400 Bad Request", &why).await;
    }
    decrypt::decrypted(asked, config).await
}

/// Records a lane's opening: what its connection is, in words.
fn opened(recorder: &Recorder, lane: Lane, text: String) {
    recorder.emit(lane, Dir::ToServer, What::Open(text));
}

/// The proxy's own answer (400, 502) to the request `head` (recorded first, unless
/// empty): recorded, written, and the connection closed.
async fn answer(
    client: &mut TcpStream,
    lane: Lane,
    recorder: &Recorder,
    head: &[u8],
    status: &str,
    why: &str,
) {
    if !head.is_empty() {
        recorder.bytes(lane, Dir::ToServer, head);
    }
    let body = format!("mcp-raw tap --proxy: {why}\n");
    let response = own_response(status, &body);
    recorder.bytes(lane, Dir::ToClient, response.as_bytes());
    let _ = client.write_all(response.as_bytes()).await;
    let _ = client.shutdown().await;
    recorder.emit(
        lane,
        Dir::ToClient,
        What::Close(format!("{status} sent: {why}")),
    );
}

/// `CONNECT`'s answer when the tunnel is open (RFC 9110 §9.3.6: any 2xx).
const ESTABLISHED: &[u8] = b"HTTP/1.1 200 Connection Established\r\n\r\n";

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
}
