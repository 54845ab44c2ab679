//! The workloads. Each starts a fresh peer process, warms it up, then measures a
//! window: calls answered in it, each call's latency, and the server's CPU time
//! across it (read from /proc at the window's edges, so start-up is not counted).

use crate::cpu::{Pinned, Placement};
use crate::http::Conn;
use crate::messages::{self, Era};
use crate::peer::{HttpProc, Peer, StdioProc};
use crate::procfs;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

/// How long each throughput workload warms up and then measures.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// Unmeasured calls first (JIT warm-up for Node, caches for everyone).
    pub warm: Duration,
    /// The measured window.
    pub measure: Duration,
}

/// What one throughput workload measured.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// Calls answered inside the window.
    pub calls: u64,
    /// The window's real length.
    pub elapsed: Duration,
    /// Each measured call's latency (request written → answer read).
    pub latencies: Vec<Duration>,
    /// Server CPU (user + system) across the window.
    pub cpu: Duration,
    /// The server's peak RSS at the end, KiB.
    pub peak_kib: u64,
}

impl Run {
    /// Calls per second.
    pub fn rate(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Server CPU per call, µs.
    pub fn cpu_us(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / (self.calls.max(1) as f64)
    }

    /// The `q` quantile of the latencies (0.5, 0.99).
    pub fn quantile(&mut self, q: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        self.latencies.sort_unstable();
        let i = ((self.latencies.len() - 1) as f64 * q).round() as usize;
        self.latencies[i]
    }
}

/// The phases a measured workload goes through, shared with its client threads.
const WARM: u8 = 0;
const MEASURE: u8 = 1;
const STOP: u8 = 2;

/// Checks one answer: a floor's is not looked at; a peer's must be an echo result
/// (and, in 2026-07-28, a modern one).
fn check(peer: &Peer, era: Era, body: &[u8]) -> Result<(), String> {
    let ok = peer.floor
        || match era {
            Era::Legacy => messages::is_echo_result(body),
            Era::Modern => messages::is_modern_result(body),
        };
    if ok {
        Ok(())
    } else {
        let shown = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
        Err(format!(
            "{}: not an echo result in {}: {shown}",
            peer.name,
            era.version()
        ))
    }
}

/// Reads stdio lines until one that answers a request (has an `"id"`), skipping
/// notifications the peer may send.
pub fn read_answer(proc_: &mut StdioProc, line: &mut Vec<u8>) -> Result<(), String> {
    loop {
        proc_.read_line(line)?;
        if messages::contains(line, b"\"id\"") {
            return Ok(());
        }
    }
}

/// The 2025-11-25 handshake over stdio; nothing in 2026-07-28.
/// The pipe floor (`floor`) answers every line, the notification too; that answer
/// is read and dropped.
pub fn stdio_handshake(
    floor: bool,
    proc_: &mut StdioProc,
    era: Era,
    line: &mut Vec<u8>,
) -> Result<(), String> {
    if era == Era::Legacy {
        proc_.send_line(&messages::initialize(0))?;
        read_answer(proc_, line)?;
        proc_.send_line(messages::INITIALIZED)?;
        if floor {
            read_answer(proc_, line)?;
        }
    }
    Ok(())
}

/// stdio with `depth` calls in flight (1: sequential, write, wait, repeat): a new call
/// is written for every answer read (those read together are answered with one
/// write). The server and this thread run where `placement` says.
pub fn stdio_pipelined(
    peer: &Peer,
    era: Era,
    w: Window,
    depth: usize,
    placement: Placement,
) -> Result<Run, String> {
    let _pinned = Pinned::thread(placement)?;
    let mut p = StdioProc::spawn(&peer.stdio, placement)?;
    let mut line = Vec::with_capacity(4096);
    stdio_handshake(peer.floor, &mut p, era, &mut line)?;
    let pid = p.pid();
    let mut sent: Vec<Instant> = Vec::with_capacity(1 << 20);
    // Index 0 is unused: ids start at 1.
    sent.push(Instant::now());
    let mut out = Vec::with_capacity(64 * 1024);
    let mut oldest = 1usize;
    let mut write_calls =
        |n: usize, sent: &mut Vec<Instant>, p: &mut StdioProc| -> Result<(), String> {
            out.clear();
            for _ in 0..n {
                let id = sent.len() as u64;
                out.extend_from_slice(messages::echo(era, id).as_bytes());
                out.push(b'\n');
                sent.push(Instant::now());
            }
            p.send(&out)
        };
    write_calls(depth, &mut sent, &mut p)?;
    let start = Instant::now();
    let mut phase = WARM;
    let mut run = Run::default();
    let (mut t0, mut cpu0) = (start, Duration::ZERO);
    let mut refill = 0;
    loop {
        read_answer(&mut p, &mut line)?;
        check(peer, era, &line)?;
        let id = match messages::response_id(&line) {
            Some(id) if !peer.floor && (id as usize) < sent.len() => id as usize,
            _ => oldest,
        };
        oldest += 1;
        let now = Instant::now();
        if phase == MEASURE {
            run.calls += 1;
            run.latencies.push(now - sent[id]);
        }
        if phase == WARM && now - start >= w.warm {
            phase = MEASURE;
            t0 = now;
            cpu0 = procfs::cpu(pid)?;
        } else if phase == MEASURE && now - t0 >= w.measure {
            run.elapsed = now - t0;
            run.cpu = procfs::cpu(pid)? - cpu0;
            phase = STOP;
        }
        if phase == STOP {
            // Drain what is still in flight, then stop.
            if oldest >= sent.len() {
                break;
            }
            continue;
        }
        refill += 1;
        if p.stdout.buffer().is_empty() {
            write_calls(refill, &mut sent, &mut p)?;
            refill = 0;
        }
    }
    run.peak_kib = procfs::peak(pid)?;
    Ok(run)
}

/// The 2025-11-25 handshake over HTTP: `initialize`, then `notifications/initialized`
/// with the session id (if the server gave one). Returns the session id.
pub fn http_handshake(conn: &mut Conn, era: Era, id: u64) -> Result<Option<String>, String> {
    if era == Era::Modern {
        return Ok(None);
    }
    let r = conn.post(era, None, "initialize", &messages::initialize(id))?;
    if r.status != 200 {
        return Err(format!(
            "initialize: HTTP {}: {}",
            r.status,
            String::from_utf8_lossy(&r.body)
        ));
    }
    let session = r.session;
    let r = conn.post(
        era,
        session.as_deref(),
        "notifications/initialized",
        messages::INITIALIZED,
    )?;
    if r.status >= 300 {
        return Err(format!("notifications/initialized: HTTP {}", r.status));
    }
    Ok(session)
}

/// HTTP with `clients` concurrent clients, each on its own keep-alive connection
/// (and, in 2025-11-25, its own session), one call at a time each. `clients = 1`
/// is the sequential workload. The server and the client threads run where
/// `placement` says.
pub fn http_concurrent(
    peer: &Peer,
    era: Era,
    w: Window,
    clients: usize,
    placement: Placement,
) -> Result<Run, String> {
    let server = HttpProc::spawn(&peer.http, placement)?;
    http_clients(
        &server.addr,
        Some(server.pid()),
        peer,
        era,
        w,
        clients,
        placement,
    )
}

/// [`http_concurrent`]'s clients against a server already listening at `addr`
/// (`mcp-bench http ADDR`, the yardstick `mcp-raw load` is compared with); the
/// server's CPU and peak RSS are read when its `pid` is known.
pub fn http_clients(
    addr: &str,
    pid: Option<u32>,
    peer: &Peer,
    era: Era,
    w: Window,
    clients: usize,
    placement: Placement,
) -> Result<Run, String> {
    let phase = Arc::new(AtomicU8::new(WARM));
    let ready = Arc::new(Barrier::new(clients + 1));
    let results = Arc::new(Mutex::new(Vec::new()));
    let mut threads = Vec::new();
    for c in 0..clients {
        let (phase, ready, results) = (phase.clone(), ready.clone(), results.clone());
        let (addr, peer) = (addr.to_owned(), peer.clone());
        threads.push(std::thread::spawn(move || {
            let outcome = (|| -> Result<(u64, Vec<Duration>), String> {
                let _pinned = Pinned::thread(placement)?;
                let setup = Conn::open(&addr).and_then(|mut conn| {
                    let session = http_handshake(&mut conn, era, 0)?;
                    Ok((conn, session))
                });
                ready.wait();
                let (mut conn, session) = setup?;
                let (mut calls, mut lat) = (0u64, Vec::with_capacity(1 << 16));
                let mut id = (c as u64) << 40;
                loop {
                    let p = phase.load(Ordering::Relaxed);
                    if p == STOP {
                        return Ok((calls, lat));
                    }
                    id += 1;
                    let t = Instant::now();
                    let r = conn.post(
                        era,
                        session.as_deref(),
                        "tools/call",
                        &messages::echo(era, id),
                    )?;
                    let took = t.elapsed();
                    if r.status != 200 {
                        return Err(format!(
                            "{}: tools/call: HTTP {}: {}",
                            peer.name,
                            r.status,
                            String::from_utf8_lossy(&r.body)
                        ));
                    }
                    check(&peer, era, &r.body)?;
                    if p == MEASURE && phase.load(Ordering::Relaxed) == MEASURE {
                        calls += 1;
                        lat.push(took);
                    }
                }
            })();
            if let Ok(mut r) = results.lock() {
                r.push(outcome);
            }
        }));
    }
    ready.wait();
    std::thread::sleep(w.warm);
    let cpu0 = pid.map(procfs::cpu).transpose()?;
    let t0 = Instant::now();
    phase.store(MEASURE, Ordering::Relaxed);
    std::thread::sleep(w.measure);
    phase.store(STOP, Ordering::Relaxed);
    let elapsed = t0.elapsed();
    let cpu = match (pid, cpu0) {
        (Some(pid), Some(cpu0)) => procfs::cpu(pid)? - cpu0,
        _ => Duration::ZERO,
    };
    for t in threads {
        let _ = t.join();
    }
    let mut run = Run {
        elapsed,
        cpu,
        peak_kib: pid.map(procfs::peak).transpose()?.unwrap_or(0),
        ..Run::default()
    };
    let results = std::mem::take(&mut *results.lock().map_err(|_| "poisoned")?);
    for r in results {
        let (calls, lat) = r?;
        run.calls += calls;
        run.latencies.extend(lat);
    }
    Ok(run)
}

/// Cold start over stdio: from `spawn` to the first answer read (`initialize`'s in
/// 2025-11-25, the first call's in 2026-07-28). The median of `n` starts.
pub fn cold_start(peer: &Peer, era: Era, n: usize) -> Result<Duration, String> {
    let mut times = Vec::with_capacity(n);
    let mut line = Vec::new();
    for _ in 0..n {
        let t = Instant::now();
        let mut p = StdioProc::spawn(&peer.stdio, Placement::Free)?;
        let first = match era {
            Era::Legacy => messages::initialize(1),
            Era::Modern => messages::echo(era, 1),
        };
        p.send_line(&first)?;
        read_answer(&mut p, &mut line)?;
        times.push(t.elapsed());
        if era == Era::Modern {
            check(peer, era, &line)?;
        }
    }
    times.sort_unstable();
    Ok(times[n / 2])
}

/// Idle RSS, KiB: a fresh peer after its handshake and one call, left alone for
/// 300 ms. `http` picks the transport.
pub fn idle_rss(peer: &Peer, era: Era, http: bool) -> Result<u64, String> {
    if http {
        let server = HttpProc::spawn(&peer.http, Placement::Free)?;
        let mut conn = Conn::open(&server.addr)?;
        let session = http_handshake(&mut conn, era, 0)?;
        let r = conn.post(
            era,
            session.as_deref(),
            "tools/call",
            &messages::echo(era, 1),
        )?;
        check(peer, era, &r.body)?;
        std::thread::sleep(Duration::from_millis(300));
        procfs::rss(server.pid())
    } else {
        let mut p = StdioProc::spawn(&peer.stdio, Placement::Free)?;
        let mut line = Vec::new();
        stdio_handshake(peer.floor, &mut p, era, &mut line)?;
        p.send_line(&messages::echo(era, 1))?;
        read_answer(&mut p, &mut line)?;
        check(peer, era, &line)?;
        std::thread::sleep(Duration::from_millis(300));
        procfs::rss(p.pid())
    }
}

/// What opening many 2025-11-25 sessions costs: RSS after `n` sessions (each
/// `initialize` + `notifications/initialized`, none closed) minus RSS after the
/// first 50, divided by the sessions between. `None` when the server keeps no
/// sessions (its `initialize` answer has no `Mcp-Session-Id`).
pub fn session_rss(peer: &Peer, n: usize) -> Result<Option<f64>, String> {
    let server = HttpProc::spawn(&peer.http, Placement::Free)?;
    let mut conn = Conn::open(&server.addr)?;
    let first = 50;
    let mut before = 0;
    for i in 0..n {
        let session = http_handshake(&mut conn, Era::Legacy, i as u64)?;
        if session.is_none() && !peer.floor {
            return Ok(None);
        }
        if i + 1 == first {
            std::thread::sleep(Duration::from_millis(100));
            before = procfs::rss(server.pid())?;
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    let after = procfs::rss(server.pid())?;
    Ok(Some(
        (after.saturating_sub(before)) as f64 / (n - first) as f64,
    ))
}
