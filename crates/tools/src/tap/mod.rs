//! The tap: mcp-raw standing in the middle of someone else's conversation, a real
//! client on one side and a real server on the other, passing every byte through
//! unchanged and recording it on the way.
//!
//! ```text
//! stdio.rs      `tap -- SERVER_CMD…`: the client spawns the tap in place of the server;
//!               the tap spawns the server and copies bytes between the two sets of pipes
//! http/         `tap --http`: a reverse proxy at the TCP level, one lane per connection;
//!               the one response it writes itself is a 502 for a target it cannot reach
//! resend.rs     the page's resend on a stdio tap: a line between the client's, its
//!               answer kept from the client
//! rewrite.rs    `--rewrite-host`: the Host line of each request head, and nothing else
//! proxy/        `tap --proxy`: a forward proxy (CONNECT), decrypting chosen hosts' TLS
//! remote/       `tap --remote URL`: a stdio front for a Streamable HTTP server, each
//!               client line POSTed, each answer (or SSE event) written back a line
//! ca.rs         `mcp-raw ca`: the local CA, and the leaf it signs for each decrypted host
//! ```
//!
//! Both halves keep one rule: a chunk read on one side is written to the other side at
//! once, in one write, and then handed to the [`Recorder`](crate::wire::recorder) — the
//! same recording layer the server and the client use, so `--trace`, `--record` and
//! `show` read a tap's transcript like any other. Nothing on the forwarding path parses
//! lines or JSON: stdout pollution, CRs, a BOM, bytes that are not UTF-8 all go through
//! as they came, and the views downstream say what is odd about them.
//!
//! Recording after the write (never holding the recorder's lock across it) keeps one
//! side's stall from stopping the other direction. The price: a time stamp is when the
//! tap finished passing the bytes on, so an answer that comes back within microseconds
//! may be stamped a hair before the end of what it answers. Within one direction the
//! order is exact, and the bytes of each direction, concatenated, are what crossed.

pub mod ca;
pub mod http;
pub mod intercept;
pub mod proxy;
pub mod remote;
#[cfg(unix)]
pub mod resend;
pub mod rewrite;
// Pipes as file descriptors, exit statuses with signals, signals passed on: Unix.
#[cfg(unix)]
pub mod stdio;
pub mod trace;

/// How many bytes one read takes at most: a whole typical message, so a message is
/// usually one read, one write, one event.
pub const CHUNK: usize = 64 * 1024;

/// Accepts connections on `listener` until `shutdown` resolves, each served by
/// `serve` (with the listener's `config`) on a task of its own, at most
/// `max_connections` at once (then the tap stops accepting and the kernel queues the
/// rest). `who` names the listener in the log line of a failed accept (out of file
/// descriptors, say), after which it waits a moment rather than spin. The HTTP tap
/// and the proxy both listen this way.
pub(crate) async fn accept_each<C, F, Fut>(
    listener: tokio::net::TcpListener,
    max_connections: usize,
    config: C,
    who: &str,
    shutdown: impl std::future::Future<Output = ()>,
    serve: F,
) -> std::io::Result<()>
where
    F: Fn(tokio::net::TcpStream, std::net::SocketAddr, std::sync::Arc<C>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let config = std::sync::Arc::new(config);
    let permits = std::sync::Arc::new(tokio::sync::Semaphore::new(max_connections.max(1)));
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            _ = &mut shutdown => return Ok(()),
            p = permits.clone().acquire_owned() => p.map_err(std::io::Error::other)?,
        };
        let accepted = tokio::select! {
            _ = &mut shutdown => return Ok(()),
            a = listener.accept() => a,
        };
        match accepted {
            Ok((client, peer)) => {
                // Nagle's algorithm would hold a small write (an SSE event) back
                // waiting for an ACK: each chunk must leave as soon as it is written.
                let _ = client.set_nodelay(true);
                let served = serve(client, peer, config.clone());
                tokio::spawn(async move {
                    served.await;
                    drop(permit);
                });
            }
            Err(e) => {
                log::warn!("[mcp-raw] {who}: accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        }
    }
}

/// `host:port`, as a `Host` header and the tap's messages say it: an IPv6 address in
/// brackets (RFC 3986 §3.2.2).
pub(crate) fn host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Connects to `host:port` within `timeout`, with Nagle's algorithm off (each chunk
/// leaves as soon as it is written); an error in words, naming `--connect-timeout`.
pub(crate) async fn connect(
    host: &str,
    port: u16,
    timeout: std::time::Duration,
) -> Result<tokio::net::TcpStream, String> {
    let target = host_port(host, port);
    match tokio::time::timeout(timeout, tokio::net::TcpStream::connect((host, port))).await {
        Ok(Ok(s)) => {
            let _ = s.set_nodelay(true);
            Ok(s)
        }
        Ok(Err(e)) => Err(format!("connecting to {target} failed: {e}")),
        Err(_) => Err(format!(
            "connecting to {target} took longer than {timeout:?} (--connect-timeout)"
        )),
    }
}

/// A response the tap writes itself (a 502, the proxy's 400): `status`, a plain-text
/// `body` that says why, and `Connection: close` (RFC 9112 §9.6): the tap closes the
/// connection after it.
pub(crate) fn own_response(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}
