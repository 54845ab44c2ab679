//! Where connections are accepted: `TCP_NODELAY`, one task per connection (never one
//! per message), at most `--max-connections` at once, and an accept loop that backs
//! off instead of spinning when the process runs out of file descriptors.
//!
//! Every HTTP listener of mcp-raw takes its connections here and serves them through
//! [`conn`]'s clocks: `serve --http` and `bridge` (the MCP endpoint, [`super::App`]),
//! `auth-server` and `replay --http`. Each is a [`Site`] (what answers a request) and a
//! [`Listening`] (the limits, the TLS, the recorder).

use super::conn;
pub use super::conn::{Listening, Site};
use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// The first pause after a failed accept; it doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(10);
const MAX_BACKOFF: Duration = Duration::from_secs(1);

/// Binds `host:port` with a listen queue of `backlog` connections (`--backlog`):
/// connections the kernel has completed but the server has not yet accepted. tokio's
/// `TcpListener::bind` asks for 128, which a burst of a few hundred connects
/// overflows (the client's SYN is dropped and retried a second later).
pub async fn bind(host: &str, port: u16, backlog: u32) -> io::Result<TcpListener> {
    let mut last = None;
    for addr in tokio::net::lookup_host((host, port)).await? {
        let socket = if addr.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        socket.set_reuseaddr(true)?;
        match socket.bind(addr).and_then(|()| socket.listen(backlog)) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no address to bind")))
}

/// Accepts connections on `listener` until `shutdown` completes, each served by `site`.
pub async fn accept_loop<S: Site>(
    listener: TcpListener,
    site: Arc<S>,
    how: Arc<Listening>,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(how.limits.max_connections));
    let mut failures = Failures::default();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return Ok(()),
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => {
                failures.recovered();
                accepted
            }
            Err(e) => {
                // EMFILE/ENFILE (out of descriptors), ENOBUFS, ENOMEM: retrying at once
                // fails again at once, so wait, and say so at most once a second.
                // Others (a peer that reset before we accepted) are per connection.
                if is_resource_exhaustion(&e) {
                    let pause = failures.failed(&e, how.who);
                    tokio::select! {
                        () = tokio::time::sleep(pause) => {}
                        () = &mut shutdown => return Ok(()),
                    }
                }
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            tokio::spawn(refuse(
                stream,
                how.limits.max_connections,
                how.max_connections_flag,
            ));
            continue;
        };
        match &how.tls {
            None => {
                tokio::spawn(conn::serve(
                    site.clone(),
                    how.clone(),
                    stream,
                    Some(permit),
                    peer.to_string(),
                    None,
                ));
            }
            Some(tls) => {
                tokio::spawn(serve_tls(
                    site.clone(),
                    how.clone(),
                    tls.clone(),
                    stream,
                    permit,
                    peer,
                ));
            }
        }
    }
}

/// A connection on a TLS listener: the handshake first, under the header timeout and
/// holding the connection's slot (a half-done handshake counts against
/// `--max-connections` as a half-sent head does), then the plaintext served as on a
/// plain listener, with the handshake's facts on the lane. A failed handshake is one
/// log line; the listener goes on.
async fn serve_tls<S: Site>(
    site: Arc<S>,
    how: Arc<Listening>,
    tls: Arc<crate::transport::tls::Acceptor>,
    stream: TcpStream,
    permit: tokio::sync::OwnedSemaphorePermit,
    peer: std::net::SocketAddr,
) {
    let started = std::time::Instant::now();
    match tls
        .accept(
            stream,
            how.limits.header_timeout,
            "--header-timeout",
            started,
        )
        .await
    {
        Ok((stream, facts)) => {
            conn::serve(
                site,
                how,
                stream,
                Some(permit),
                peer.to_string(),
                Some(Box::new(facts)),
            )
            .await
        }
        Err(why) => log::warn!(
            "[mcp-raw] {}TLS connection from {peer} refused: {why}",
            how.who
        ),
    }
}

fn is_resource_exhaustion(e: &io::Error) -> bool {
    // EMFILE 24, ENFILE 23, ENOBUFS 105, ENOMEM 12 on Linux.
    matches!(e.raw_os_error(), Some(24 | 23 | 105 | 12)) || e.kind() == io::ErrorKind::OutOfMemory
}

/// Failed accepts in a row: the backoff and the once-a-second log line.
#[derive(Default)]
struct Failures {
    /// Failures since the last successful accept.
    streak: u32,
    /// When the last log line was written.
    logged: Option<Instant>,
    /// Failures not logged since then.
    unlogged: u64,
}

impl Failures {
    /// Counts one failure; returns how long to pause. `who` names the listener.
    fn failed(&mut self, e: &io::Error, who: &str) -> Duration {
        self.streak = self.streak.saturating_add(1);
        self.unlogged += 1;
        let now = Instant::now();
        if self
            .logged
            .is_none_or(|t| now.duration_since(t) >= Duration::from_secs(1))
        {
            log::warn!(
                "[mcp-raw] {who}accept failed: {e} ({} time(s) since the last report); pausing accepts",
                self.unlogged
            );
            self.logged = Some(now);
            self.unlogged = 0;
        }
        FIRST_BACKOFF
            .saturating_mul(1 << self.streak.min(8).saturating_sub(1))
            .min(MAX_BACKOFF)
    }

    fn recovered(&mut self) {
        if self.streak > 0 {
            log::warn!(
                "[mcp-raw] accepting again after {} failed accept(s)",
                self.streak
            );
        }
        self.streak = 0;
    }
}

/// One connection too many: a `503` that says why, written only if the socket can
/// take it now (never waiting on this client), then the connection is closed.
async fn refuse(mut stream: TcpStream, limit: usize, flag: &str) {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32603,"message":"Service Unavailable: {limit} connections are open, the most this server takes ({flag}); retry later"}}}}"#
    );
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    // Read what the client already sent, so closing does not reset the connection
    // under the response (unread input makes the kernel send RST).
    let mut sink = [0u8; 4096];
    while let Ok(n) = stream.try_read(&mut sink) {
        if n == 0 {
            break;
        }
    }
    if stream.try_write(response.as_bytes()).is_ok() {
        let _ = tokio::time::timeout(Duration::from_millis(100), stream.shutdown()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_to_a_second_and_logging_is_throttled() {
        let mut f = Failures::default();
        let e = io::Error::from_raw_os_error(24);
        let pauses: Vec<_> = (0..10).map(|_| f.failed(&e, "")).collect();
        assert_eq!(pauses[0], Duration::from_millis(10));
        assert_eq!(pauses[1], Duration::from_millis(20));
        assert_eq!(pauses[9], MAX_BACKOFF);
        assert!(pauses.windows(2).all(|w| w[0] <= w[1]));
        // Ten failures within a second: one line, the rest counted.
        assert_eq!(f.unlogged, 9);
        assert!(is_resource_exhaustion(&e));
        assert!(!is_resource_exhaustion(&io::Error::from_raw_os_error(103)));
    }
}
