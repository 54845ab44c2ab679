//! `mcp-raw tap`: a client talks to a server with the tap in between, and what the
//! client saw (its own recording) is byte for byte what the tap recorded, both ways;
//! the server's exit status comes back through the tap. The stdio tap runs as the
//! real binary (its pipes and exit status are the subject); the HTTP relay runs
//! in-process (common::tools_inproc::TapPeer, the library's relay as the CLI sets
//! it up).

mod common;

use common::BIN;
use common::cli_inproc::cli_here;
use common::client_inproc::demo_http;
use common::tools_inproc::{TapFlags, TapPeer};
use mcp_raw_wire::event::{Dir, Event, LaneKind};
use mcp_raw_wire::recorder::concat;
use mcp_raw_wire::transcript;
use std::collections::BTreeSet;
use std::process::{Command, Stdio};

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("tap", name)
}

fn read(path: &std::path::Path) -> (transcript::Header, Vec<Event>) {
    let text = std::fs::read_to_string(path).expect("the recording exists");
    transcript::read(&text).expect("a transcript mcp-raw reads")
}

/// Each lane's bytes one way, concatenated: the set of them, so lanes numbered
/// differently by the two recorders still compare.
fn per_lane(events: &[Event], dir: Dir) -> BTreeSet<Vec<u8>> {
    let lanes: BTreeSet<String> = events
        .iter()
        .filter(|e| e.lane.kind != LaneKind::Stderr)
        .map(|e| e.lane.label())
        .collect();
    lanes
        .iter()
        .map(|l| concat(events, |e| &e.lane.label() == l && e.dir == dir))
        .filter(|b| !b.is_empty())
        .collect()
}

/// stdio: the client spawns the tap in place of the server; the client's view of
/// both directions equals the tap's, and the calls succeed through it.
#[test]
fn stdio_tap_passes_every_byte_and_records_them() {
    let dir = scratch("stdio");
    let (mine, tapped) = (dir.join("client.jsonl"), dir.join("tap.jsonl"));
    // The client in-process; the stdio tap it spawns is a process (its pipes, the
    // server's exit status passed on), and so is the server the tap spawns.
    let out = cli_here([
        "client",
        "--call",
        "add={\"a\":2,\"b\":3}",
        "--record",
        mine.to_str().unwrap(),
        "--",
        BIN,
        "tap",
        "--record",
        tapped.to_str().unwrap(),
        "--",
        BIN,
        "serve",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (header, tap_events) = read(&tapped);
    assert_eq!(
        (header.role.as_str(), header.transport.as_str()),
        ("tap", "stdio")
    );
    let (_, client_events) = read(&mine);
    for d in [Dir::ToServer, Dir::ToClient] {
        let tap = concat(&tap_events, |e| {
            e.lane.kind == LaneKind::Stdio && e.dir == d
        });
        let client = concat(&client_events, |e| {
            e.lane.kind == LaneKind::Stdio && e.dir == d
        });
        assert!(!tap.is_empty());
        assert_eq!(tap, client, "{d:?} differs");
    }
    // `show` renders the tap's recording, one lane and one direction at a time.
    // Show's --lane/--dir flags as the CLI applies them.
    let tapped = tapped.to_str().unwrap();
    let only = cli_here([
        "show", tapped, "--lane", "stdio", "--dir", "s2c", "--color", "never",
    ]);
    let only = String::from_utf8_lossy(&only.stdout);
    assert!(only.contains("<<< ") && !only.contains(">>> "), "{only}");
    // Show's --lane refusal (stderr, exit status).
    let bad = cli_here(["show", tapped, "--lane", "c7"]);
    assert_eq!(
        bad.status.code(),
        Some(2),
        "a --lane the recording lacks is usage"
    );
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr),
        "mcp-raw show: --lane \"c7\": this recording has no such lane (it has: stdio, stderr)\n"
    );
    // The server's stderr went through the tap to the client, and is on its own lane.
    assert!(
        !concat(&tap_events, |e| e.lane.kind == LaneKind::Stderr).is_empty(),
        "the server's log was recorded"
    );
}

/// A server that writes something that is not JSON on stdout: the tap passes it on
/// untouched (the client's view has it), and the exit status is the server's.
#[test]
fn stdout_pollution_and_the_exit_status_pass_through() {
    // The stdio tap passes its server's exit status on: a process.
    let out = Command::new(BIN)
        .args([
            "tap",
            "--",
            "sh",
            "-c",
            "printf 'hello \\377 not json\\n'; cat; exit 7",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r\n")?;
            drop(stdin);
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert_eq!(
        out.stdout,
        b"hello \xff not json\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r\n"
    );
    // The stdio tap's exit status for a server it cannot spawn (it fails before it
    // reads or writes a byte of the process's stdio).
    let missing = cli_here(["tap", "--", "/nonexistent/server"]);
    assert_eq!(missing.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&missing.stderr),
        "mcp-raw tap: cannot spawn the server \"/nonexistent/server\": No such file or directory (os error 2)\n"
    );
    // Tap without arguments is a usage error (exit status 2).
    let none = cli_here(["tap"]);
    assert_eq!(none.status.code(), Some(2));
}

/// `tap --http --listen 127.0.0.1:0 --target TARGET --record FILE`, in-process: the
/// relay's bytes and its answers are the subject, not its process (the stdio tap
/// above stays a process: its pipes and exit status are what it is).
fn http_tap(target: &str, record: &std::path::Path) -> TapPeer {
    TapPeer::http(
        target,
        TapFlags {
            record: Some(record),
            ..TapFlags::default()
        },
    )
}

/// HTTP, both eras: every connection the client made, each way, holds the same bytes
/// in the client's recording and in the tap's.
#[test]
fn http_tap_relays_byte_for_byte_in_both_eras() {
    let server = demo_http("both");
    let dir = scratch("http");
    for era in ["legacy", "modern"] {
        let (mine, tapped) = (
            dir.join(format!("{era}-client.jsonl")),
            dir.join(format!("{era}-tap.jsonl")),
        );
        let tap = http_tap(&format!("http://{}/mcp", server.addr), &tapped);
        // The client (`client URL --era ERA --call add --record FILE`) is the library's,
        // in-process, as the tap is.
        let options = mcp_raw_net::client::mcp_client::Options {
            eras: common::client_inproc::eras(era),
            ..Default::default()
        };
        let driven = common::client_inproc::drive_http_recording(
            &tap.url,
            options,
            &[("add", serde_json::json!({"a": 1, "b": 2}))],
            Some(&mine),
        );
        let sum = if era == "legacy" {
            r#"{"content":[{"type":"text","text":"3"}]}"#
        } else {
            r#"{"resultType":"complete","content":[{"type":"text","text":"3"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcp-raw","version":"0.1.0"}}}"#
        };
        assert_eq!(driven.results, [Ok(sum.to_owned())], "{}", driven.view);
        drop(tap);
        let (header, tap_events) = read(&tapped);
        assert_eq!(header.transport, "http");
        let (_, client_events) = read(&mine);
        for d in [Dir::ToServer, Dir::ToClient] {
            let tap = per_lane(&tap_events, d);
            assert!(!tap.is_empty(), "{era}: nothing recorded {d:?}");
            assert_eq!(tap, per_lane(&client_events, d), "{era}: {d:?} differs");
        }
    }
}

/// A target nobody listens on: the client gets a 502 that says why.
#[test]
fn an_unreachable_target_gets_a_502() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = scratch("gateway");
    let tap = http_tap(
        &format!("http://127.0.0.1:{port}/mcp"),
        &dir.join("t.jsonl"),
    );
    let mut s = std::net::TcpStream::connect(&tap.addr).unwrap();
    use std::io::{Read, Write};
    s.write_all(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    // The whole answer: the tap's own 502, saying which target and why.
    let body = format!(
        "mcp-raw tap: cannot reach the target http://127.0.0.1:{port}/mcp: connecting to \
         127.0.0.1:{port} failed: Connection refused (os error 111)\n"
    );
    assert_eq!(
        reply,
        format!(
            "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    );
}

/// A server that closes its stdout and goes on running: its client (the test, reading
/// the tap's stdout) sees the end at once, as it would without the tap, while the tap
/// keeps fd 1 a valid descriptor (now /dev/null), never a closed number the next file
/// opened could take (issue 30 §27).
#[cfg(target_os = "linux")]
#[test]
fn the_servers_stdout_closing_closes_ours_and_fd_1_stays_valid() {
    use std::io::Read;
    let started = std::time::Instant::now();
    // The stdio tap's fd 1 after its server closes stdout: a process.
    let mut tap = Command::new(BIN)
        .args([
            "tap",
            "--",
            "sh",
            "-c",
            "sleep 0.3; exec 1>&-; exec sleep 20",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = Vec::new();
    tap.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    let took = started.elapsed();
    // The tap is still running (its server sleeps): fd 1 is /dev/null, not closed.
    let fd1 = std::fs::read_link(format!("/proc/{}/fd/1", tap.id()));
    let still_running = tap.try_wait().unwrap().is_none();
    // SIGTERM, which the tap passes on to its server (a SIGKILL would leave it).
    let _ = Command::new("kill").arg(tap.id().to_string()).status();
    let _ = tap.wait();
    assert!(out.is_empty(), "{out:?}");
    assert!(
        took < std::time::Duration::from_secs(10),
        "the client saw the end only after {took:?}"
    );
    assert!(
        still_running,
        "the tap exited with its server still running"
    );
    assert_eq!(
        fd1.expect("fd 1 of the tap is open").to_str(),
        Some("/dev/null")
    );
}

/// The CLI's flags reach the HTTP relay: the other HTTP tap tests run the library's
/// relay in-process, so this one runs `mcp-raw tap --http … --redact-header X-Mine
/// --record FILE` as the binary (how the CLI turns its flags into the relay's
/// settings is the subject: a process). A `ping` crosses; the client gets the
/// server's bytes unchanged, and the record holds them with `X-Mine`'s value masked a
/// `*` per byte, exactly.
#[test]
fn the_binary_hands_its_flags_to_the_http_relay() {
    use std::io::{Read, Write};
    let dir = scratch("binary-flags");
    let record = dir.join("tap.jsonl");
    let server = demo_http("legacy");
    let mut command = Command::new(BIN);
    command
        .args(["tap", "--http", "--listen", "127.0.0.1:0", "--target"])
        .arg(format!("http://{}/mcp", server.addr))
        .args(["--redact-header", "X-Mine", "--record"])
        .arg(&record);
    let tap = common::HttpServer::spawn(command);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Mine: SECRETMINE8\r\nX-Plain: visible\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut s = std::net::TcpStream::connect(&tap.addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut reply = Vec::new();
    let _ = s.read_to_end(&mut reply);
    assert!(
        reply.starts_with(b"HTTP/1.1 200 OK\r\n"),
        "{}",
        String::from_utf8_lossy(&reply)
    );
    // SIGTERM: the tap writes out its recording and ends, as a service manager
    // stops it.
    tap.terminate();
    let (_, events) = read(&record);
    let way = |d: Dir| concat(&events, |e| e.lane.kind == LaneKind::Http && e.dir == d);
    assert_eq!(
        String::from_utf8_lossy(&way(Dir::ToServer)),
        request.replace("SECRETMINE8", "***********")
    );
    assert_eq!(way(Dir::ToClient), reply);
}

/// `tap --trace-context` (stdio): each request the client sends reaches the server
/// with a `traceparent` (and the `tracestate`) first in its `params._meta`, in the
/// trace `TRACEPARENT` names, each from a span of its own; every other byte of the
/// line is the client's. Compared byte for byte: the tap's line, with the members it
/// added taken out, is the client's line as the client recorded it. Notifications
/// and the server's lines pass as they came. An HTTP tap refuses the flag.
#[test]
fn stdio_tap_puts_trace_context_in_each_request_and_nothing_else() {
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    for era in ["legacy", "modern"] {
        let dir = scratch(&format!("trace-{era}"));
        let (mine, tapped) = (dir.join("client.jsonl"), dir.join("tap.jsonl"));
        // The binary: TRACEPARENT is the environment of this run (the tap inherits it).
        let out = Command::new(BIN)
            .env("TRACEPARENT", format!("00-{trace}-00f067aa0ba902b7-01"))
            .env("TRACESTATE", "v=1")
            .args(["client", "--era", era, "--call", "add={\"a\":2,\"b\":3}"])
            .args(["--record", mine.to_str().unwrap(), "--", BIN, "tap"])
            .args(["--trace-context", "--record", tapped.to_str().unwrap()])
            .args(["--", BIN, "serve"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines = |path: &std::path::Path, d: Dir| -> Vec<String> {
            let (_, events) = read(path);
            let bytes = concat(&events, |e| e.lane.kind == LaneKind::Stdio && e.dir == d);
            String::from_utf8(bytes)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect()
        };
        let (client, tap) = (lines(&mine, Dir::ToServer), lines(&tapped, Dir::ToServer));
        assert_eq!(client.len(), tap.len(), "{era}");
        let mut spans = BTreeSet::new();
        let mut requests = 0;
        for (c, t) in client.iter().zip(&tap) {
            let m: serde_json::Value = serde_json::from_str(c).unwrap();
            if m.get("id").is_none() {
                assert_eq!(t, c, "{era}: a notification passes as it came");
                continue;
            }
            requests += 1;
            let at = t
                .find("\"traceparent\":\"00-")
                .unwrap_or_else(|| panic!("{t}"));
            let tp = &t[at + 15..at + 15 + 55];
            assert_eq!(&tp[3..35], trace, "{tp}");
            spans.insert(tp[36..52].to_owned());
            let added = format!("\"traceparent\":\"{tp}\",\"tracestate\":\"v=1\"");
            let undone = if m["params"]["_meta"].is_object() {
                t.replacen(&format!("{added},"), "", 1)
            } else if m.get("params").is_some() {
                t.replacen(&format!("\"_meta\":{{{added}}},"), "", 1)
                    .replacen(&format!("\"_meta\":{{{added}}}"), "", 1)
            } else {
                t.replacen(&format!(",\"params\":{{\"_meta\":{{{added}}}}}"), "", 1)
            };
            assert_eq!(&undone, c, "{era}: only the trace context was added");
        }
        assert!(requests >= 3, "{era}: {requests}");
        assert_eq!(spans.len(), requests, "{era}: a span per request");
        assert!(!spans.contains("00f067aa0ba902b7"));
        // The server's side is not touched.
        assert_eq!(
            lines(&mine, Dir::ToClient),
            lines(&tapped, Dir::ToClient),
            "{era}"
        );
    }
    let refused = cli_here([
        "tap",
        "--http",
        "--trace-context",
        "--target",
        "http://127.0.0.1:9/mcp",
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "mcp-raw tap: --trace-context is for a stdio tap (tap -- SERVER) or --remote URL: an HTTP tap passes request bodies as they came\n"
    );
}

/// A disk that falls behind: the recording goes to a FIFO that the test reads 8 KiB
/// at a time, every 10 ms (about 800 KB/s), while a client sends 300 calls of 2 KiB
/// each through the tap (a process: its recording's writer, its stdio and its exit
/// are the subject) with a queue of 32 KiB (`--record-buffer`). By default the relay
/// waits for the writer and the recording is whole: every call and every answer, no
/// gap. With `--lossy-record` the relay does not wait: events are dropped, the file
/// says where (`dropped` lines whose counts add up to what the tap says it dropped on
/// stderr), and every call is still answered.
#[test]
fn a_disk_that_falls_behind_is_waited_for_or_with_lossy_record_dropped() {
    use std::io::{BufRead, Read, Write};
    for lossy in [false, true] {
        let dir = scratch(if lossy {
            "slow-disk-lossy"
        } else {
            "slow-disk"
        });
        let fifo = dir.join("record.fifo");
        let _ = std::fs::remove_file(&fifo);
        assert!(
            Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut file = std::fs::File::open(&fifo).unwrap();
                let (mut got, mut chunk) = (Vec::new(), vec![0u8; 8192]);
                loop {
                    match file.read(&mut chunk) {
                        Ok(0) | Err(_) => return got,
                        Ok(n) => got.extend_from_slice(&chunk[..n]),
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            })
        };
        let mut command = Command::new(BIN);
        command.args(["tap", "--record"]).arg(&fifo);
        command.args(["--record-buffer", "32768"]);
        if lossy {
            command.arg("--lossy-record");
        }
        let mut tap = command
            .args(["--", BIN, "serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = tap.stdin.take().unwrap();
        let mut stdout = std::io::BufReader::new(tap.stdout.take().unwrap());
        let writer = std::thread::spawn(move || {
            let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
            let mut all = format!(
                "{init}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n"
            );
            let text = "x".repeat(2048);
            for id in 1..=300 {
                all.push_str(&format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{text}\"}}}}}}\n"
                ));
            }
            stdin.write_all(all.as_bytes()).unwrap();
            stdin
        });
        let mut answers = 0;
        let mut line = String::new();
        while answers < 301 && stdout.read_line(&mut line).unwrap() > 0 {
            answers += usize::from(line.contains("\"result\""));
            line.clear();
        }
        assert_eq!(answers, 301, "every call answered (lossy: {lossy})");
        drop(writer.join().unwrap());
        let status = tap.wait().unwrap();
        let mut stderr = String::new();
        tap.stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert!(status.success(), "{status:?} {stderr}");
        let recorded = String::from_utf8(reader.join().unwrap()).unwrap();
        let lines: Vec<serde_json::Value> = recorded
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let dropped: u64 = lines
            .iter()
            .filter(|v| v["fact"] == "dropped")
            .map(|v| v["events"].as_u64().unwrap())
            .sum();
        let (_, events) = transcript::read(&recorded).unwrap();
        let calls = |d: Dir| {
            String::from_utf8(concat(&events, |e| {
                e.lane.kind == LaneKind::Stdio && e.dir == d
            }))
            .unwrap()
            .matches("\"jsonrpc\"")
            .count()
        };
        if lossy {
            assert!(dropped > 0, "nothing dropped: {stderr}");
            assert!(
                stderr.contains(&format!("--lossy-record dropped {dropped} events")),
                "{stderr}"
            );
            assert!(calls(Dir::ToServer) + calls(Dir::ToClient) < 603);
        } else {
            assert_eq!(dropped, 0, "{stderr}");
            assert!(!stderr.contains("dropped"), "{stderr}");
            assert_eq!((calls(Dir::ToServer), calls(Dir::ToClient)), (302, 301));
        }
    }
}
