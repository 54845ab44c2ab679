//! Instructions per call under `valgrind --tool=callgrind`: the same count whatever
//! else the machine is doing, so a change's effect shows on a noisy machine.
//!
//! Each workload runs twice, with `FEW` and `MANY` calls; the difference of the two
//! totals divided by `MANY - FEW` is the cost of one call with start-up and
//! shutdown cancelled out. Shown for stdio and HTTP, in both eras.

use crate::cpu::Placement;
use crate::http::Conn;
use crate::messages::{self, Era};
use crate::peer::{HttpProc, StdioProc};
use crate::workload;
use std::process::Command;
use std::time::{Duration, Instant};

/// Calls in the short run.
const FEW: u64 = 200;
/// Calls in the long run.
const MANY: u64 = 2200;

/// Prints a Markdown table of instructions per call for `command` (mcp-raw's
/// binary; `serve` and `serve --http --port {port}` are appended).
pub fn report(command: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("mcp-bench-callgrind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    println!(
        "| workload | {} | {} |",
        Era::Legacy.version(),
        Era::Modern.version()
    );
    println!("|---|---|---|");
    let parts: Vec<String> = command.split(' ').map(str::to_owned).collect();
    for http in [false, true] {
        let mut cells = Vec::new();
        for era in [Era::Legacy, Era::Modern] {
            let mut totals = Vec::new();
            for calls in [FEW, MANY] {
                let out = dir.join(format!(
                    "{}-{}-{calls}.out",
                    if http { "http" } else { "stdio" },
                    era.version()
                ));
                drive(&argv(&out, &parts, http), era, calls, http)?;
                totals.push(total(&out)?);
            }
            let per_call = (totals[1] as f64 - totals[0] as f64) / (MANY - FEW) as f64;
            cells.push(format!("{per_call:.0}"));
        }
        println!(
            "| {}, instructions per `tools/call` | {} | {} |",
            if http {
                "HTTP, sequential keep-alive"
            } else {
                "stdio, sequential"
            },
            cells[0],
            cells[1]
        );
    }
    println!("\nWhere a call's instructions go (inclusive, per call, from callgrind_annotate):\n");
    println!("| part | stdio 2025-11-25 | stdio 2026-07-28 | HTTP 2025-11-25 | HTTP 2026-07-28 |");
    println!("|---|---|---|---|---|");
    let mut columns = Vec::new();
    for http in [false, true] {
        for era in [Era::Legacy, Era::Modern] {
            let file = |calls: u64| {
                dir.join(format!(
                    "{}-{}-{calls}.out",
                    if http { "http" } else { "stdio" },
                    era.version()
                ))
            };
            let (few, many) = (annotate(&file(FEW), true)?, annotate(&file(MANY), true)?);
            columns.push(
                PARTS
                    .iter()
                    .map(|(_, names)| {
                        let sum = |m: &[(String, u64)]| -> u64 {
                            names
                                .iter()
                                .map(|n| {
                                    m.iter()
                                        .filter(|(f, _)| f == n)
                                        .map(|(_, v)| *v)
                                        .max()
                                        .unwrap_or(0)
                                })
                                .sum()
                        };
                        (sum(&many) as f64 - sum(&few) as f64) / (MANY - FEW) as f64
                    })
                    .collect::<Vec<f64>>(),
            );
        }
    }
    for (i, (label, _)) in PARTS.iter().enumerate() {
        // "—": the part is not a function of its own in that build (inlined).
        let cells: Vec<String> = columns
            .iter()
            .map(|c| {
                if c[i] < 1.0 {
                    "—".to_owned()
                } else {
                    format!("{:.0}", c[i])
                }
            })
            .collect();
        println!("| {label} | {} |", cells.join(" | "));
    }
    println!("\nThe callgrind files are in {}.", dir.display());
    Ok(())
}

/// The parts of a call the profile table names: a label and the functions (as
/// callgrind_annotate spells them) whose inclusive cost it sums.
const PARTS: [(&str, &[&str]); 9] = [
    (
        "reading the message (`Incoming::read`: the frame checked once, then read where it lies)",
        &["mcp_raw_core::envelope::Incoming::read"],
    ),
    (
        "… of which: checking the frame and leaving its tape (`check::scan`)",
        &["mcp_raw_wire::jsonrpc::tape::check::scan"],
    ),
    (
        "hashing map keys (SipHash: serde_json's `preserve_order` maps; all callers)",
        &["core::hash::BuildHasher::hash_one"],
    ),
    (
        "checking `_meta`'s fields (`Meta::fields`) and freeing them",
        &[
            "mcp_raw_core::meta::Meta::fields",
            "core::ptr::drop_in_place<mcp_raw_core::meta::Found>",
        ],
    ),
    (
        "the protocol core (`Session::handle`: era, lifecycle, dispatch, the tool, the result)",
        &["mcp_raw_core::Session::handle_envelope"],
    ),
    (
        "writing the answer's JSON (`Response::write_to`)",
        &["mcp_raw_wire::jsonrpc::Response::write_to"],
    ),
    (
        "… of which: a 2026-07-28 result's `resultType` and `_meta`, written as it goes out",
        &["<mcp_raw_core::modern::Modern as mcp_raw_wire::jsonrpc::Dress>::write"],
    ),
    (
        "hyper reading the request head",
        &["<hyper::proto::h1::role::Server as hyper::proto::h1::Http1Transaction>::parse"],
    ),
    (
        "malloc + free (all callers)",
        &[
            "./malloc/./malloc/malloc.c:malloc",
            "./malloc/./malloc/malloc.c:free",
        ],
    ),
];

/// `valgrind --tool=callgrind` writing to `out`, then `command` (mcp-raw's binary,
/// after any valgrind options), then `serve` or `serve --http --port {port}`.
pub fn argv(out: &std::path::Path, command: &[String], http: bool) -> Vec<String> {
    let mut argv: Vec<String> = vec![
        "valgrind".into(),
        "--tool=callgrind".into(),
        format!("--callgrind-out-file={}", out.display()),
    ];
    argv.extend(command.iter().cloned());
    argv.push("serve".into());
    if http {
        argv.extend(["--http".into(), "--port".into(), "{port}".into()]);
    }
    argv
}

/// Runs `argv` (from [`argv`]) through `calls` sequential calls and its shutdown.
pub fn drive(argv: &[String], era: Era, calls: u64, http: bool) -> Result<(), String> {
    if http {
        drive_http(argv, era, calls)
    } else {
        drive_stdio(argv, era, calls)
    }
}

/// `callgrind_annotate FILE` (with `--inclusive=yes` when `inclusive`): (function,
/// instructions), every function listed.
pub fn annotate(path: &std::path::Path, inclusive: bool) -> Result<Vec<(String, u64)>, String> {
    let out = Command::new("callgrind_annotate")
        .arg(format!(
            "--inclusive={}",
            if inclusive { "yes" } else { "no" }
        ))
        .arg("--threshold=100")
        .arg(path)
        .output()
        .map_err(|e| format!("callgrind_annotate: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut rows = Vec::new();
    for line in text.lines() {
        // "  21,605,682 ( 9.87%)  ???:mcp_raw_wire::jsonrpc::parse [/path/mcp-raw]"
        let line = line.trim_start();
        let Some((count, rest)) = line.split_once(' ') else {
            continue;
        };
        let Ok(count) = count.replace(',', "").parse::<u64>() else {
            continue;
        };
        let Some((_, rest)) = rest.split_once(')') else {
            continue;
        };
        let name = rest
            .trim()
            .rsplit_once(" [")
            .map(|(n, _)| n)
            .unwrap_or(rest.trim());
        let name = name.strip_prefix("???:").unwrap_or(name);
        rows.push((name.to_owned(), count));
    }
    Ok(rows)
}

/// `calls` sequential calls over stdio, then stdin closed and the exit waited for
/// (callgrind writes its file at exit).
fn drive_stdio(argv: &[String], era: Era, calls: u64) -> Result<(), String> {
    let mut p = StdioProc::spawn(argv, Placement::Free)?;
    let mut line = Vec::new();
    workload::stdio_handshake(false, &mut p, era, &mut line)?;
    for id in 1..=calls {
        p.send_line(&messages::echo(era, id))?;
        workload::read_answer(&mut p, &mut line)?;
        if !messages::is_echo_result(&line) {
            return Err(format!(
                "not an echo result: {}",
                String::from_utf8_lossy(&line)
            ));
        }
    }
    p.finish(Duration::from_secs(60))
}

/// `calls` sequential calls on one keep-alive connection, then SIGINT (mcp-raw's
/// graceful shutdown) and the exit waited for.
fn drive_http(argv: &[String], era: Era, calls: u64) -> Result<(), String> {
    let server = HttpProc::spawn(argv, Placement::Free)?;
    // valgrind is slow to start; the port may be open before the server serves.
    let mut conn = Conn::open(&server.addr)?;
    let session = workload::http_handshake(&mut conn, era, 0)?;
    for id in 1..=calls {
        let r = conn.post(
            era,
            session.as_deref(),
            "tools/call",
            &messages::echo(era, id),
        )?;
        if !messages::is_echo_result(&r.body) {
            return Err(format!(
                "HTTP {}: not an echo result: {}",
                r.status,
                String::from_utf8_lossy(&r.body)
            ));
        }
    }
    drop(conn);
    let status = std::process::Command::new("kill")
        .args(["-INT", &server.pid().to_string()])
        .status()
        .map_err(|e| format!("kill: {e}"))?;
    if !status.success() {
        return Err("kill -INT failed".into());
    }
    let mut server = server;
    wait(&mut server.child)
}

/// Waits up to 60 s for a child to exit.
fn wait(child: &mut std::process::Child) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            return Ok(());
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err("the server did not exit within 60 s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The `summary:` (or `totals:`) line of a callgrind file: instructions executed.
/// A callgrind output file's total instructions (its `summary:` or `totals:` line).
pub fn total(path: &std::path::Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .ok_or_else(|| format!("{}: no summary line", path.display()))
}
