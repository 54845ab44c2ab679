//! `--metrics ADDR`: the recorder's sink that feeds the metrics' watcher
//! ([`mcp_raw_tools::metrics`]), and the listener that serves `GET /metrics` on a
//! thread of its own (plain HTTP/1.1, one request per connection, bounded: head
//! size, head time, connections). The listener lives as long as the sink: when the
//! program's recorder is dropped, it stops.

use super::args::metrics::MetricsArgs;
use super::console::Console;
use mcp_raw_tools::metrics::{self, Expiry, Metrics, page};
use mcp_raw_tools::offload::Offload;
use mcp_raw_wire::event::Event;
use mcp_raw_wire::recorder::Sink;
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Tells the metrics, if any, how the HTTP server ends sessions on its own
/// (`--init-timeout`, `--session-timeout`), so `mcp_raw_sessions_open` ends them too.
pub fn expire(metrics: Option<&Metrics>, limits: &mcp_raw_net::transport::http::Limits) {
    if let Some(m) = metrics {
        m.expire(Expiry {
            unused: limits.init_timeout,
            idle: limits.session_timeout,
        });
    }
}

/// The sink: the watcher's queue, and the listener it keeps alive.
struct MetricsSink {
    /// Hands each event to the watcher.
    offload: Offload,
    /// Stops the listener when the sink (the recorder) goes.
    _listener: Listener,
}

impl Sink for MetricsSink {
    fn event(&mut self, event: &Event) {
        self.offload.event(event);
    }
}

/// The listener's thread, stopped on drop.
struct Listener {
    /// Set when the listener must stop accepting.
    stop: Arc<AtomicBool>,
    /// Where it listens: a connection there wakes its accept to see `stop`.
    addr: SocketAddr,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let mut wake = self.addr;
        if wake.ip().is_unspecified() {
            wake.set_ip(IpAddr::V4(Ipv4Addr::LOCALHOST));
        }
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
    }
}

/// The listener's bounds, from the flags.
#[derive(Clone, Copy)]
struct Bounds {
    /// `--metrics-max-connections`.
    connections: usize,
    /// `--metrics-max-head-bytes`.
    head: usize,
    /// `--metrics-timeout`.
    timeout: Duration,
}

/// Starts the watcher and the listener when `--metrics` is given, its sink added to
/// `sinks` (messages read up to `max_message` bytes, as the recorder's other views);
/// says on stderr where. The metrics are handed back for [`expire`].
pub fn add(
    sinks: &mut Vec<Box<dyn Sink>>,
    args: &MetricsArgs,
    max_message: usize,
    console: &Console,
) -> anyhow::Result<Option<Metrics>> {
    let Some(text) = &args.metrics else {
        return Ok(None);
    };
    let addr = address(text).map_err(super::exit::usage)?;
    let listener = TcpListener::bind(addr)
        .map_err(|e| anyhow::anyhow!("--metrics {addr}: cannot listen: {e}"))?;
    let addr = listener.local_addr()?;
    let started = metrics::start(max_message, args.metrics_max_sessions, args.metrics_queue)?;
    let stop = Arc::new(AtomicBool::new(false));
    let bounds = Bounds {
        connections: args.metrics_max_connections.max(1),
        head: args.metrics_max_head_bytes.max(64),
        timeout: super::args::off_if_zero(args.metrics_timeout),
    };
    let serving = started.metrics.clone();
    let stopped = stop.clone();
    std::thread::Builder::new()
        .name("mcp-raw-metrics-listener".to_owned())
        .spawn(move || accept(listener, serving, bounds, stopped))?;
    if !addr.ip().is_loopback() {
        console.say(format_args!(
            "[mcp-raw] WARNING: --metrics {addr} is not loopback: anyone who can reach it reads the counts (methods, sessions, sizes; never content)"
        ));
    }
    console.say(format_args!(
        "[mcp-raw] Prometheus metrics at http://{addr}{}",
        page::PATH
    ));
    sinks.push(Box::new(MetricsSink {
        offload: started.sink,
        _listener: Listener { stop, addr },
    }));
    Ok(Some(started.metrics))
}

/// `--metrics ADDR`: a bare port means 127.0.0.1; otherwise an IP and a port, no host
/// name (a name could resolve beyond loopback without the user seeing it).
fn address(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().map_err(|_| {
        format!("--metrics {text:?}: expected a PORT or IP:PORT (e.g. 9464 or 127.0.0.1:9464)")
    })
}

/// Accepts until stopped, each connection on a thread of its own, at most
/// `bounds.connections` at once (one more gets 503).
fn accept(listener: TcpListener, metrics: Metrics, bounds: Bounds, stop: Arc<AtomicBool>) {
    let busy = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(mut conn) = conn else { continue };
        if busy.fetch_add(1, Ordering::SeqCst) >= bounds.connections {
            busy.fetch_sub(1, Ordering::SeqCst);
            let _ = conn.set_write_timeout(Some(Duration::from_secs(1)));
            if conn.write_all(&page::busy(bounds.connections)).is_ok() {
                // Briefly, on the accepting thread: a refusal must stay cheap.
                linger(&mut conn, Duration::from_millis(50));
            }
            continue;
        }
        let (metrics, busy) = (metrics.clone(), busy.clone());
        let spawned = std::thread::Builder::new()
            .name("mcp-raw-metrics-scrape".to_owned())
            .spawn(move || {
                serve(conn, &metrics, bounds);
                busy.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            log::warn!("--metrics: could not start a thread for a scrape");
        }
    }
}

/// One connection: its request head read within the bounds, answered, closed.
fn serve(mut conn: TcpStream, metrics: &Metrics, bounds: Bounds) {
    let _ = conn.set_write_timeout(Some(bounds.timeout.max(Duration::from_secs(1))));
    let deadline = Instant::now() + bounds.timeout;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 2048];
    let response = loop {
        match page::head_end(&buf) {
            Some(end) if end <= bounds.head => break page::answer(&buf[..end], metrics),
            Some(_) => break page::too_large(bounds.head),
            None if buf.len() > bounds.head => break page::too_large(bounds.head),
            None => {}
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || conn.set_read_timeout(Some(left)).is_err() {
            break page::too_slow(bounds.timeout.as_secs_f64());
        }
        match conn.read(&mut chunk) {
            // The peer stopped sending before a whole head: answer what it sent.
            Ok(0) if buf.is_empty() => return,
            Ok(0) => break page::answer(&buf, metrics),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break page::too_slow(bounds.timeout.as_secs_f64()),
        }
    };
    if conn.write_all(&response).is_ok() {
        linger(&mut conn, Duration::from_millis(200));
    }
}

/// After the answer: the write side shut, and what the peer still sends read and
/// dropped for up to `wait` (1 MiB at most) before the close, so a peer whose request
/// was not read whole gets the answer rather than a reset (RFC 9112 §9.6).
fn linger(conn: &mut TcpStream, wait: Duration) {
    let _ = conn.shutdown(std::net::Shutdown::Write);
    let _ = conn.set_read_timeout(Some(wait));
    let end = Instant::now() + wait;
    let mut chunk = [0u8; 2048];
    let mut drained = 0usize;
    while drained < 1 << 20 && Instant::now() < end {
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}
