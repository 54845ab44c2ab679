//! `mcp-raw replay --against` and `mcp-raw diff`, through the real binary: a session
//! recorded once, sent again to the same server (no difference) and to a changed one
//! (`diff` names the changed message and exits 1), over stdio and HTTP. The live HTTP
//! server a replay runs against, and the HTTP mock a client talks to, are peers, run
//! in-process (`common::InProcess`, `common::tools_inproc::MockPeer`); the stdio mock
//! and every command under test are the binary.

mod common;

use common::cli_inproc::{Ran, cli_here};
use common::tools_inproc::{self, MockPeer};
use common::{BIN, InProcess, golden};
use serde_json::Value;
use std::process::Command;

/// Under the normalizer's scratch directory, so that the paths `diff` prints become
/// `<scratch>/…` in a compared output.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = golden::scratch().join(format!("replay-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// `mcp-raw ARGS…`, run to its end in-process: replay against a server, diff and
/// check as the CLI runs them (their exit statuses; a stdio server is spawned as
/// the process it is).
fn mcp_raw(args: &[&str]) -> Ran {
    cli_here(args)
}

/// `mcp-raw ARGS…`, which must succeed.
fn run(args: &[&str]) -> Ran {
    let out = mcp_raw(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn p(path: &std::path::Path) -> &str {
    path.to_str().unwrap()
}

/// `mcp-raw client --era ERA [--call CALL…] --record FILE -- mcp-raw serve`: a
/// stdio session recorded.
fn record_stdio(file: &std::path::Path, era: &str, calls: &[&str]) {
    let mut args = vec!["client", "--era", era];
    for call in calls {
        args.extend(["--call", call]);
    }
    args.extend(["--record", p(file), "--", BIN, "serve"]);
    run(&args);
}

/// `mcp-raw replay FILE --color never --record AGAIN -- SERVER…`: the recording's
/// client side sent again to a stdio server.
fn replay_stdio(file: &std::path::Path, again: &std::path::Path, server: &[&str]) {
    let mut args = vec![
        "replay",
        p(file),
        "--color",
        "never",
        "--record",
        p(again),
        "--",
    ];
    args.extend(server);
    run(&args);
}

fn diff(a: &std::path::Path, b: &std::path::Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["diff", p(a), p(b)];
    args.extend(extra);
    let out = mcp_raw(&args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn stdio_replay_against_the_same_and_a_changed_server() {
    let dir = scratch("stdio");
    let (orig, same, changed) = (
        dir.join("orig.jsonl"),
        dir.join("same.jsonl"),
        dir.join("changed.jsonl"),
    );
    for era in ["legacy", "modern"] {
        record_stdio(&orig, era, &["add={\"a\":2,\"b\":3}", "get_current_time"]);
        replay_stdio(&orig, &same, &[BIN, "serve"]);
        // The same server: the same messages, but for ids and the time.
        let (code, text) = diff(&orig, &same, &[]);
        assert_eq!(code, 0, "{era}: {text}");
        let counted = match era {
            "legacy" => "A: 5 c2s, 4 s2c messages; B: 5 c2s, 4 s2c",
            _ => "A: 4 c2s, 4 s2c messages; B: 4 c2s, 4 s2c",
        };
        assert_eq!(text, format!("0 differences ({counted})\n"), "{era}");
        // Compared exactly, the time differs (in the one place it is).
        let (code, text) = diff(&orig, &same, &["--ignore", "none"]);
        assert_eq!(code, 1, "{era}: {text}");
        // (A substring: the line names each side's event number, which depends on
        // how the pipe's reads grouped the server's output; the time itself is what
        // the normalizer would hide.)
        assert!(
            text.contains("(response to tools/call): result.content[0].text: \"20"),
            "{era}: {text}"
        );
        // A changed server: diff names the message and the field.
        let changed_server = format!(
            "{}/tests/servers/changed_answers.py",
            env!("CARGO_MANIFEST_DIR")
        );
        replay_stdio(&orig, &changed, &["python3", &changed_server, BIN, "serve"]);
        let (code, text) = diff(&orig, &changed, &["--format", "json"]);
        assert_eq!(code, 1, "{era}: {text}");
        let doc: Value = serde_json::from_str(&text).unwrap();
        let d = doc["differences"].as_array().unwrap();
        assert_eq!(d.len(), 1, "{era}: {text}");
        assert_eq!(d[0]["dir"], "s2c");
        assert_eq!(d[0]["what"], "response to tools/call");
        assert!(
            d[0]["detail"]
                .as_str()
                .unwrap()
                .starts_with("result.content[0].text: \"5\" (A, event"),
            "{text}"
        );
        // --ignore a path: that difference goes.
        let (code, _) = diff(
            &orig,
            &changed,
            &["--ignore", "id,time,result.content[].text"],
        );
        assert_eq!(code, 0);
    }
}

#[test]
fn http_replay_mints_its_own_session_and_matches() {
    let dir = scratch("http");
    let (orig, again) = (dir.join("orig.jsonl"), dir.join("again.jsonl"));
    // `serve --http`: the demo tools, both eras.
    let first = InProcess::demo();
    run(&[
        "client",
        "--era",
        "legacy",
        "--call",
        "add={\"a\":2,\"b\":3}",
        "--record",
        p(&orig),
        &format!("http://{}/mcp", first.addr),
    ]);
    drop(first);
    let second = InProcess::demo();
    let out = run(&[
        "replay",
        p(&orig),
        "--color",
        "never",
        "--record",
        p(&again),
        "--against",
        &format!("http://{}/mcp", second.addr),
    ]);
    let shown = String::from_utf8_lossy(&out.stdout);
    // The whole view: the replay's own session (a new Mcp-Session-Id from the
    // second server, normalized), every exchange of the recording sent again.
    golden::check("replay/http-against.txt", &shown);
    let (code, text) = diff(&orig, &again, &[]);
    assert_eq!(code, 0, "{text}");
    // Both recordings are clean by `check` too: the whole report.
    for (f, want) in [
        (
            &orig,
            "0 errors, 0 warnings in 8 messages (18 events, 45 rules checked)\n",
        ),
        (
            &again,
            "0 errors, 0 warnings in 8 messages (15 events, 45 rules checked)\n",
        ),
    ] {
        let (status, report) = tools_inproc::check(f);
        assert_eq!((status, report.as_str()), (0, want), "{}", f.display());
    }
}

#[test]
fn replay_and_diff_with_a_bad_file_or_two_targets_say_why() {
    let unreadable =
        "mcp-raw replay: cannot read /nonexistent.jsonl: No such file or directory (os error 2)\n";
    for (args, stderr) in [
        (
            &["replay", "/nonexistent.jsonl", "--", "true"][..],
            unreadable,
        ),
        (&["replay", "/nonexistent.jsonl"][..], unreadable),
        // Both a target and a command.
        (
            &[
                "replay",
                "/nonexistent.jsonl",
                "--against",
                "http://127.0.0.1:1/mcp",
                "--",
                "true",
            ][..],
            "mcp-raw replay: give the server either as --against TARGET or after `--`, not both\n",
        ),
        (
            &["diff", "/nonexistent.jsonl", "/x"][..],
            "mcp-raw diff: cannot read /nonexistent.jsonl: No such file or directory (os error 2)\n",
        ),
    ] {
        let out = mcp_raw(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), stderr, "{args:?}");
    }
}

/// `replay FILE` as the server: mcp-raw's client run again against the recording gets
/// the same answers (`diff` finds nothing), over stdio and HTTP, both eras; a request
/// the recording does not hold gets an error naming what it expected.
#[test]
fn a_recording_served_as_a_mock_answers_the_same_client_the_same() {
    let dir = scratch("mock");
    let live = InProcess::demo();
    for era in ["legacy", "modern"] {
        for http in [false, true] {
            let name = format!("{era}-{}", if http { "http" } else { "stdio" });
            let (orig, again) = (
                dir.join(format!("{name}.jsonl")),
                dir.join(format!("{name}-again.jsonl")),
            );
            let client = |record: &std::path::Path, target: Option<String>, server: &[&str]| {
                let mut args = vec![
                    "client",
                    "--era",
                    era,
                    "--progress",
                    "--call",
                    "add={\"a\":2,\"b\":3}",
                    "--call",
                    "get_current_time",
                    "--record",
                    p(record),
                ];
                match &target {
                    Some(url) => args.push(url),
                    None => {
                        args.extend(["--", BIN]);
                        args.extend(server);
                    }
                };
                run(&args)
            };
            if http {
                client(&orig, Some(format!("http://{}/mcp", live.addr)), &[]);
                // `replay FILE --port 0`, in-process: the client is under test.
                let mock = MockPeer::http(&orig);
                client(&again, Some(mock.url.clone()), &[]);
            } else {
                client(&orig, None, &["serve"]);
                client(&again, None, &["replay", orig.to_str().unwrap()]);
            }
            let (code, text) = diff(&orig, &again, &[]);
            assert_eq!(code, 0, "{name}: {text}");
        }
    }
    // A call the recording does not hold.
    let orig = dir.join("legacy-stdio.jsonl");
    let out = mcp_raw(&[
        "client",
        "--era",
        "legacy",
        "--call",
        "add={\"a\":2,\"b\":4}",
        "--",
        BIN,
        "replay",
        p(&orig),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    // The whole view: the -32602 error naming what the recording expected next.
    golden::check("replay/mock-unrecorded-call.txt", &text);
}

/// The mock's limit: a line over --max-message-bytes gets -32600 naming the flag, and
/// the mock goes on serving the next line.
#[test]
fn the_mock_refuses_an_overlong_line_and_goes_on() {
    use std::io::{BufRead, BufReader, Write};
    let dir = scratch("limit");
    let orig = dir.join("orig.jsonl");
    record_stdio(&orig, "legacy", &[]);
    // Replay over stdio (its pipes): a process.
    let mut mock = Command::new(BIN)
        .arg("replay")
        .arg(&orig)
        .args(["--max-message-bytes", "200"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut to = mock.stdin.take().unwrap();
    let mut from = BufReader::new(mock.stdout.take().unwrap());
    writeln!(
        to,
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"x\":\"{}\"}}}}",
        "y".repeat(500)
    )
    .unwrap();
    let mut line = String::new();
    from.read_line(&mut line).unwrap();
    assert_eq!(
        line,
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"replay: a line over 200 bytes (--max-message-bytes)\"}}\n"
    );
    writeln!(to, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"mcp-raw","version":"0.1.0"}}}}}}"#).unwrap();
    line.clear();
    from.read_line(&mut line).unwrap();
    // Still serving: the recorded answer, byte for byte.
    assert_eq!(
        line,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"mcp-raw\",\"version\":\"0.1.0\"}}}\n"
    );
    drop(to);
    let _ = mock.wait();
}

/// `replay FILE --http`: a session recorded over stdio, served over Streamable HTTP
/// (with a session id minted at initialize), answers the same client the same.
#[test]
fn a_stdio_recording_served_over_http() {
    let dir = scratch("cross");
    let (orig, again) = (dir.join("stdio.jsonl"), dir.join("http.jsonl"));
    record_stdio(&orig, "legacy", &["add={\"a\":2,\"b\":3}"]);
    // `replay FILE --http --port 0`, in-process.
    let mock = MockPeer::http(&orig);
    let url = mock.url.clone();
    let out = run(&[
        "client",
        "--era",
        "legacy",
        "--call",
        "add={\"a\":2,\"b\":3}",
        "--color",
        "never",
        "--record",
        p(&again),
        &url,
    ]);
    drop(mock);
    // The whole view: the mock's own session id (normalized) at initialize, the
    // GET refused with 405 and a plain-text body, no JSON-RPC message.
    golden::check(
        "replay/stdio-served-over-http.txt",
        &String::from_utf8_lossy(&out.stdout),
    );
    // The messages are the same; only the transport differs (and the client's GET,
    // which has no stdio counterpart, is refused with 405 and no message).
    let (code, text) = diff(&orig, &again, &[]);
    assert_eq!(code, 0, "{text}");
}

/// Issue 30 §10: the mock answers only its own (loopback) names in Host and Origin,
/// as `serve --http` does (DNS rebinding).
#[test]
fn the_http_mock_refuses_a_foreign_host_or_origin() {
    // The recording kept in tests/golden/show/ (`demo-http --era both`), served
    // by `replay FILE --port 0` in-process: its guard is the library's.
    let mock = MockPeer::http(&golden::dir().join("show/recording.jsonl"));
    let addr = mock.addr.clone();
    let init = common::initialize("2025-11-25");
    let send = |host: &str, origin: Option<&str>| {
        let mut req = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n"
        );
        if let Some(o) = origin {
            req.push_str(&format!("Origin: {o}\r\n"));
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n{init}", init.len()));
        common::http_client::exchange(&addr, req.as_bytes())
    };
    let evil = send("evil.example", None);
    let evil_origin = send(&addr, Some("http://evil.example"));
    let own = send(&addr, Some(&format!("http://{addr}")));
    drop(mock);
    assert_eq!(evil.status, 403, "{}", evil.text());
    assert_eq!(
        evil.text(),
        "Forbidden: Host \"evil.example\" is not a host this server answers to (localhost, 127.0.0.1, [::1], or one given with --allow-host); DNS-rebinding protection"
    );
    assert_eq!(evil_origin.status, 403, "{}", evil_origin.text());
    assert_eq!(own.status, 200, "{}", own.text());
}

/// `replay --against` reads the recording as it sends it: a line that is not an
/// event halfway through ends the replay there — the messages before it were sent
/// (the record of the replay holds them) — and the error names the file and the
/// line (exit 2).
#[test]
fn a_bad_line_midway_ends_replay_with_its_line_number() {
    let dir = scratch("midway");
    let (orig, broken, again) = (
        dir.join("orig.jsonl"),
        dir.join("broken.jsonl"),
        dir.join("again.jsonl"),
    );
    record_stdio(
        &orig,
        "legacy",
        &[
            "add={\"a\":2,\"b\":3}",
            "add={\"a\":4,\"b\":5}",
            "get_current_time",
        ],
    );
    let text = std::fs::read_to_string(&orig).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Cut after the first tools/call was sent (and answered).
    let cut = 1 + lines
        .iter()
        .position(|l| l.contains("\\\"result\\\"") && l.contains("\\\"content\\\""))
        .expect("an answered call");
    std::fs::write(&broken, common::with_line_at(&text, cut, "not an event")).unwrap();
    let out = mcp_raw(&[
        "replay",
        p(&broken),
        "--color",
        "never",
        "--record",
        p(&again),
        "--",
        BIN,
        "serve",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", out.err());
    assert_eq!(
        out.err(),
        format!(
            "mcp-raw replay: {} is not a transcript mcp-raw can read: line {}: not JSON (expected ident at line 1 column 2): not an event\n",
            broken.display(),
            cut + 1
        )
    );
    // What came before the bad line was sent (the session's start and the first
    // call), nothing after it.
    let (code, text) = diff(&orig, &again, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.starts_with("c2s message 5 (request tools/call): only in A"),
        "{text}"
    );
    assert!(
        text.ends_with("4 differences (A: 6 c2s, 5 s2c messages; B: 4 c2s, 3 s2c)\n"),
        "{text}"
    );
    // Bad before the first message: refused before the server is started.
    let early = dir.join("early.jsonl");
    std::fs::write(&early, format!("{}\nnot an event\n", lines[0])).unwrap();
    let out = mcp_raw(&["replay", p(&early), "--", "/nonexistent/server"]);
    assert_eq!(out.status.code(), Some(2), "{}", out.err());
    assert_eq!(
        out.err(),
        format!(
            "mcp-raw replay: {} is not a transcript mcp-raw can read: line 2: not JSON (expected ident at line 1 column 2): not an event\n",
            early.display()
        )
    );
}
