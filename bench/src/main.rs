//! `mcp-bench`: mcp-raw's benchmark. One load generator for every peer (mcp-raw, the
//! official SDKs, the floors), peers interleaved within each repetition, and one
//! table of medians with each peer's ratio to the floor of the same repetition.
//! `bench/run` builds everything and calls `mcp-bench run`; see the book's
//! `docs/en/src/internals/performance.md`.
//!
//! ```text
//! mcp-bench run PEERS.txt [--reps N] [--secs S] [--warm S] [--only a,b] [--eras legacy,modern] [--sessions N] [--starts N] [--strict]
//! mcp-bench callgrind "MCP-RAW COMMAND"      instructions per call under valgrind
//! mcp-bench callgrind-tools MCP-RAW SHORT LONG   the transcript tools' instructions per event
//! mcp-bench builds NAME=BIN NAME=BIN [--reps N] [--starts N]   size, cold start, idle RSS of builds side by side
//! mcp-bench link-order BIN OUT | --check BIN FILE   the functions serving runs (link/order.txt)
//! mcp-bench tools RECORDING MCP-RAW [--reps N]   show, check, stats against their floors
//! mcp-bench floor-pipe | floor-http PORT | floor-read FILE | floor-parse FILE   the floors
//! mcp-bench http ADDR [--clients N] [--secs S] [--warm S] [--era legacy|modern]
//!                                           HTTP's workload against a running server
//! ```

mod builds;
mod callgrind;
mod callgrind_tools;
mod cpu;
mod floor;
mod http;
mod link_order;
mod messages;
mod peer;
mod procfs;
mod table;
mod tools;
mod workload;

use cpu::Placement;
use messages::Era;
use table::{Better, Table};
use workload::Window;

use std::time::Duration;

/// What `run` was asked for.
struct Options {
    /// The peer table (`bench/peers.txt`).
    peers: String,
    /// Repetitions; the table shows medians.
    reps: usize,
    /// Warm-up and measured window of each throughput workload.
    window: Window,
    /// Only these peers (and the floor), when given.
    only: Option<Vec<String>>,
    /// The eras to run.
    eras: Vec<Era>,
    /// Sessions opened for the per-session RSS row.
    sessions: usize,
    /// Process starts per cold-start measurement.
    starts: usize,
    /// Fail (exit 1) if any workload failed for any peer (CI's smoke run).
    strict: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("floor-pipe") => floor::pipe().map_err(|e| e.to_string()),
        Some("floor-http") => match args.get(1).and_then(|p| p.parse().ok()) {
            Some(port) => floor::http(port).map_err(|e| e.to_string()),
            None => Err("usage: mcp-bench floor-http PORT".into()),
        },
        Some("callgrind") => match args.get(1) {
            Some(cmd) => callgrind::report(cmd),
            None => Err("usage: mcp-bench callgrind \"MCP-RAW COMMAND\"".into()),
        },
        Some("callgrind-tools") => callgrind_tools::main(&args[1..]),
        Some("builds") => builds::main(&args[1..]),
        Some("tools") => tools::main(&args[1..]),
        Some("floor-read") => match args.get(1) {
            Some(file) => tools::floor_read(file),
            None => Err("usage: mcp-bench floor-read FILE".into()),
        },
        Some("floor-parse") => match args.get(1) {
            Some(file) => tools::floor_parse(file),
            None => Err("usage: mcp-bench floor-parse FILE".into()),
        },
        Some("link-order") => link_order::main(&args[1..]),
        Some("run") => options(&args[1..]).and_then(|o| run(&o)),
        Some("http") => against(&args[1..]),
        _ => Err("usage: mcp-bench run PEERS.txt [options] | callgrind CMD | builds NAME=BIN NAME=BIN | link-order BIN OUT | floor-pipe | floor-http PORT".into()),
    };
    if let Err(e) = result {
        eprintln!("mcp-bench: {e}");
        std::process::exit(1);
    }
}

/// `mcp-bench http ADDR …`: the HTTP workload's clients (each on its keep-alive
/// connection and, in 2025-11-25, its session; `echo` calls one at a time) against a
/// server already listening at ADDR (host:port, path /mcp): the yardstick
/// `scripts/load-vs-bench.sh` compares `mcp-raw load` with. One line on stdout,
/// `calls_per_s=… p50_us=… p99_us=… calls=…`.
fn against(args: &[String]) -> Result<(), String> {
    let mut addr = None;
    let (mut clients, mut era) = (1usize, Era::Legacy);
    let mut w = Window {
        warm: Duration::from_millis(500),
        measure: Duration::from_secs(2),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs a value"))
        };
        match a.as_str() {
            "--clients" => {
                clients = value()?
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or("--clients: want a positive count")?
            }
            "--secs" | "--warm" => {
                let v = value()?;
                let d = v
                    .parse::<f64>()
                    .ok()
                    .filter(|s| *s >= 0.0 && *s < 3600.0)
                    .map(Duration::from_secs_f64)
                    .ok_or_else(|| format!("{a}: want seconds, got {v:?}"))?;
                if a == "--secs" {
                    w.measure = d
                } else {
                    w.warm = d
                }
            }
            "--era" => {
                era = match value()?.as_str() {
                    "legacy" => Era::Legacy,
                    "modern" => Era::Modern,
                    other => return Err(format!("--era: unknown era {other:?} (legacy, modern)")),
                }
            }
            a if !a.starts_with('-') && addr.is_none() => addr = Some(a.to_owned()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let addr =
        addr.ok_or("usage: mcp-bench http ADDR [--clients N] [--secs S] [--warm S] [--era E]")?;
    let peer = peer::Peer {
        name: addr.clone(),
        floor: false,
        eras: vec![era],
        stdio: Vec::new(),
        http: Vec::new(),
    };
    let mut r = workload::http_clients(&addr, None, &peer, era, w, clients, Placement::Free)?;
    let (p50, p99) = (r.quantile(0.5), r.quantile(0.99));
    println!(
        "calls_per_s={:.1} p50_us={:.1} p99_us={:.1} calls={}",
        r.rate(),
        p50.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6,
        r.calls
    );
    Ok(())
}

fn options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        peers: String::new(),
        reps: 3,
        window: Window {
            warm: Duration::from_millis(500),
            measure: Duration::from_secs(2),
        },
        only: None,
        eras: vec![Era::Legacy, Era::Modern],
        sessions: 2000,
        starts: 10,
        strict: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs a value"))
        };
        let secs = |v: String| -> Result<Duration, String> {
            v.parse::<f64>()
                .ok()
                .filter(|s| *s > 0.0 && *s < 3600.0)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| format!("{a}: want seconds between 0 and 3600, got {v:?}"))
        };
        let count = |v: String| -> Result<usize, String> {
            v.parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{a}: want a positive count, got {v:?}"))
        };
        match a.as_str() {
            "--reps" => o.reps = count(value()?)?,
            "--secs" => o.window.measure = secs(value()?)?,
            "--warm" => o.window.warm = secs(value()?)?,
            "--sessions" => o.sessions = count(value()?)?.max(100),
            "--starts" => o.starts = count(value()?)?,
            "--strict" => o.strict = true,
            "--only" => o.only = Some(value()?.split(',').map(str::to_owned).collect()),
            "--eras" => {
                o.eras = value()?
                    .split(',')
                    .map(|e| match e {
                        "legacy" => Ok(Era::Legacy),
                        "modern" => Ok(Era::Modern),
                        other => Err(format!("--eras: unknown era {other:?} (legacy, modern)")),
                    })
                    .collect::<Result<_, _>>()?
            }
            p if !p.starts_with('-') && o.peers.is_empty() => o.peers = p.to_owned(),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if o.peers.is_empty() {
        return Err("run: name the peer table (bench/peers.txt)".into());
    }
    Ok(o)
}

/// The throughput workloads: (name, transport is HTTP, depth or clients, where they
/// run). The sequential ones run twice: left free, as a user's machine would run
/// them, and on one core, where each call's own cost is what is measured (see
/// `cpu.rs`).
const THROUGHPUT: [(&str, bool, usize, Placement); 6] = [
    ("stdio, sequential", false, 1, Placement::Free),
    ("stdio, sequential, one core", false, 1, Placement::OneCore),
    ("stdio, 64 in flight", false, 64, Placement::Free),
    ("HTTP, sequential keep-alive", true, 1, Placement::Free),
    (
        "HTTP, sequential keep-alive, one core",
        true,
        1,
        Placement::OneCore,
    ),
    ("HTTP, 32 concurrent clients", true, 32, Placement::Free),
];

/// The rows each throughput workload fills, and which way is better.
const METRICS: [(&str, Better); 5] = [
    ("calls/s", Better::Higher),
    ("p50 µs", Better::Lower),
    ("p99 µs", Better::Lower),
    ("server CPU µs/call", Better::Lower),
    ("peak RSS MiB", Better::Lower),
];

fn run(o: &Options) -> Result<(), String> {
    let failures = std::cell::Cell::new(0usize);
    let failed = |what: &str, peer: &str, e: &str| {
        failures.set(failures.get() + 1);
        eprintln!("   {what}, {peer}: failed: {e}");
    };
    let mut peers = peer::load(&o.peers)?;
    if let Some(only) = &o.only {
        peers.retain(|p| p.floor || only.contains(&p.name));
    }
    let mut tables: Vec<(Era, Table)> = o
        .eras
        .iter()
        .map(|&e| {
            let t = Table::new(peers.iter().map(|p| p.name.clone()).collect(), "floor");
            (e, t)
        })
        .collect();
    for rep in 0..o.reps {
        for (era, table) in tables.iter_mut() {
            let era = *era;
            eprintln!("== repetition {} of {}, {}", rep + 1, o.reps, era.version());
            for (name, is_http, n, placement) in THROUGHPUT {
                for p in peers.iter().filter(|p| p.eras.contains(&era)) {
                    if (is_http && p.http.is_empty()) || (!is_http && p.stdio.is_empty()) {
                        continue;
                    }
                    let result = if is_http {
                        workload::http_concurrent(p, era, o.window, n, placement)
                    } else {
                        workload::stdio_pipelined(p, era, o.window, n, placement)
                    };
                    let mut r = match result {
                        Ok(r) => r,
                        Err(e) => {
                            failed(name, &p.name, &e);
                            for (m, better) in METRICS {
                                table.put(name, m, better, &p.name, rep, None);
                            }
                            continue;
                        }
                    };
                    eprintln!(
                        "   {name}, {}: {:.0} calls/s, {:.1} µs CPU/call",
                        p.name,
                        r.rate(),
                        r.cpu_us()
                    );
                    table.put(
                        name,
                        "calls/s",
                        Better::Higher,
                        &p.name,
                        rep,
                        Some(r.rate()),
                    );
                    let (p50, p99) = (r.quantile(0.5), r.quantile(0.99));
                    table.put(
                        name,
                        "p50 µs",
                        Better::Lower,
                        &p.name,
                        rep,
                        Some(p50.as_secs_f64() * 1e6),
                    );
                    table.put(
                        name,
                        "p99 µs",
                        Better::Lower,
                        &p.name,
                        rep,
                        Some(p99.as_secs_f64() * 1e6),
                    );
                    table.put(
                        name,
                        "server CPU µs/call",
                        Better::Lower,
                        &p.name,
                        rep,
                        Some(r.cpu_us()),
                    );
                    table.put(
                        name,
                        "peak RSS MiB",
                        Better::Lower,
                        &p.name,
                        rep,
                        Some(r.peak_kib as f64 / 1024.0),
                    );
                }
            }
            for p in peers
                .iter()
                .filter(|p| p.eras.contains(&era) && !p.stdio.is_empty())
            {
                let v = workload::cold_start(p, era, o.starts)
                    .map_err(|e| failed("cold start", &p.name, &e))
                    .ok();
                table.put(
                    "stdio cold start",
                    "ms to first answer",
                    Better::Lower,
                    &p.name,
                    rep,
                    v.map(|d| d.as_secs_f64() * 1e3),
                );
            }
            for (label, is_http) in [("idle RSS, stdio", false), ("idle RSS, HTTP", true)] {
                for p in peers.iter().filter(|p| p.eras.contains(&era)) {
                    if (is_http && p.http.is_empty()) || (!is_http && p.stdio.is_empty()) {
                        continue;
                    }
                    let v = workload::idle_rss(p, era, is_http)
                        .map_err(|e| failed(label, &p.name, &e))
                        .ok();
                    table.put(
                        label,
                        "MiB",
                        Better::Lower,
                        &p.name,
                        rep,
                        v.map(|k| k as f64 / 1024.0),
                    );
                }
            }
            if era == Era::Legacy {
                let label = format!("{} open sessions", o.sessions);
                for p in peers
                    .iter()
                    .filter(|p| p.eras.contains(&era) && !p.http.is_empty())
                {
                    match workload::session_rss(p, o.sessions) {
                        Ok(Some(kib)) => table.put(
                            &label,
                            "KiB per session",
                            Better::Absolute,
                            &p.name,
                            rep,
                            Some(kib),
                        ),
                        Ok(None) => eprintln!("   {label}, {}: keeps no sessions", p.name),
                        Err(e) => {
                            failed(&label, &p.name, &e);
                            table.put(
                                &label,
                                "KiB per session",
                                Better::Absolute,
                                &p.name,
                                rep,
                                None,
                            );
                        }
                    }
                }
            }
        }
    }
    for (era, table) in &tables {
        println!(
            "\n### {} ({})\n",
            era.version(),
            if *era == Era::Legacy {
                "initialize + Mcp-Session-Id"
            } else {
                "stateless, _meta per request"
            }
        );
        print!("{}", table.markdown());
    }
    match failures.get() {
        n if n > 0 && o.strict => Err(format!("{n} measurements failed (see above)")),
        _ => Ok(()),
    }
}
