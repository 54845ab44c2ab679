//! `diff` and `export har` read a recording as a stream: their peak memory, measured
//! by the kernel (`ru_maxrss` from `wait4`), stays near a trivial run's on a
//! recording whose whole read takes several times more. Each is the real binary in a
//! process of its own: the process's peak memory is what is measured.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

mod common;

use common::BIN;
use std::process::{Command, Stdio};

/// Messages in each recording: 20,000 (3.5 MB of JSON Lines over stdio, 5.1 MB over
/// HTTP). Read whole (the debug build of 084bb4b, before streaming) the three runs
/// below peaked at 181, 182 and 228 MiB, a trivial run at 15; streamed, at 17.5.
const MESSAGES: usize = 20_000;

/// The most a streamed run may add to a trivial run's peak.
const ALLOWED_MIB: u64 = 32;

/// `mcp-raw ARGS…` with its output to /dev/null: its exit status and peak RSS in KiB.
// The child is reaped by `wait4` (which reports its rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn peak(args: &[&str]) -> (i32, u64) {
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcp-raw runs");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage filled by wait4 for our own child, reaped here once.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4");
    (libc::WEXITSTATUS(status), usage.ru_maxrss as u64)
}

const HEADER_STDIO: &str = "{\"transcript\":\"mcp-raw\",\"version\":4,\"role\":\"client\",\"transport\":\"stdio\",\"started\":\"2026-12-07T00:00:00Z\"}\n";
const HEADER_HTTP: &str = "{\"transcript\":\"mcp-raw\",\"version\":4,\"role\":\"client\",\"transport\":\"http\",\"started\":\"2026-12-07T00:00:00Z\"}\n";

/// A call and its answer, `MESSAGES / 2` times: over stdio, or POSTed on one
/// keep-alive HTTP connection.
fn recording(http: bool) -> String {
    let mut text = String::from(if http { HEADER_HTTP } else { HEADER_STDIO });
    let mut t = 0u64;
    let mut line = |dir: &str, what: String| {
        t += 137;
        let lane = if http { "c1" } else { "stdio" };
        let l = serde_json::json!({"t": t as f64 / 1e6, "lane": lane, "dir": dir, "text": what});
        text.push_str(&format!("{l}\n"));
    };
    for i in 0..MESSAGES / 2 {
        let ask = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"message {i}"}}}}}}"#
        );
        let tell = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"message {i}"}}]}}}}"#
        );
        if http {
            line(
                "c2s",
                format!(
                    "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{ask}",
                    ask.len()
                ),
            );
            line(
                "s2c",
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{tell}",
                    tell.len()
                ),
            );
        } else {
            line("c2s", format!("{ask}\n"));
            line("s2c", format!("{tell}\n"));
        }
    }
    text
}

#[test]
fn diff_and_export_har_stay_within_a_bound_on_a_big_recording() {
    let dir = common::scratch("memory", "big");
    let (stdio, http, tiny) = (
        dir.join("stdio.jsonl"),
        dir.join("http.jsonl"),
        dir.join("tiny.jsonl"),
    );
    std::fs::write(&stdio, recording(false)).unwrap();
    std::fs::write(&http, recording(true)).unwrap();
    std::fs::write(&tiny, HEADER_STDIO).unwrap();
    let p = |f: &std::path::Path| f.to_str().unwrap().to_owned();
    // The floor: the same binary on a recording with no event.
    let (code, floor) = peak(&["diff", &p(&tiny), &p(&tiny)]);
    assert_eq!(code, 0);
    for args in [
        vec!["diff".to_owned(), p(&stdio), p(&stdio)],
        vec!["diff".to_owned(), p(&http), p(&stdio)],
        vec!["export".to_owned(), "har".to_owned(), p(&http)],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, kib) = peak(&args);
        assert!(code <= 1, "{args:?}: exit {code}");
        eprintln!("{args:?}: {kib} KiB (floor {floor} KiB)");
        assert!(
            kib < floor + ALLOWED_MIB * 1024,
            "{args:?}: {kib} KiB, the floor {floor} KiB: more than {ALLOWED_MIB} MiB above it"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
