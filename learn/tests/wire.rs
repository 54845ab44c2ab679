//! The learn crate tells the truth: its server sends what mcp-raw's server sends,
//! byte for byte, and its clients send what mcp-raw's clients send.
//!
//! How it is compared. Every session is recorded by mcp-raw itself: `mcp-raw tap
//! --record` between a learn client and the server (stdio, or `tap --http` as a
//! reverse proxy), or the `--record` of mcp-raw's own `demo`, `demo-http` and
//! `client`. From each transcript the wire is taken as it crossed: per lane and
//! direction, the concatenated bytes of every `text` event (the server's stderr lane
//! is left out; it is logs, not protocol). The only bytes rewritten before comparing
//! are those that differ from run to run: session ids, the time (the
//! `get_current_time` result, HTTP `date:` headers) and loopback ports
//! ([`common::normalize`]). Everything else, member order, spacing, every header
//! line and status, must be equal.
//!
//! Which sessions are compared. The learn demos send, message for message, the
//! session `mcp-raw demo` / `demo-http` send (the seed's), so:
//! - learn's demo against learn's server = learn's demo against mcp-raw's server =
//!   `mcp-raw demo` against mcp-raw's server (all three wires equal);
//! - `mcp-raw demo` cannot be pointed at another server, so for mcp-raw's client
//!   against learn's server the session is `mcp-raw client --era legacy` with the
//!   same four calls (its own shape: initialize, tools/list, calls, end), compared
//!   with the same command against mcp-raw's server.
//!
//! Both over stdio and over Streamable HTTP.

mod common;

use common::{learn_bin, mcp_raw, normalize, run, scratch, start, wire};
use std::path::Path;
use std::process::Command;

/// The calls `mcp-raw client` makes after listing the tools: the demo's four.
const CALLS: [&str; 4] = [
    "get_current_time",
    r#"echo={"message":"hello, wire"}"#,
    r#"add={"a":2,"b":40}"#,
    r#"add={"a":"two","b":3}"#,
];

/// Asserts two recorded wires are equal, lane by lane, and not empty.
fn assert_same_wire(what: &str, left: &Path, right: &Path) -> Vec<((String, String), String)> {
    let (a, b) = (wire(left), wire(right));
    assert!(
        a.iter().any(|((_, dir), bytes)| dir == "s2c" && !bytes.is_empty()),
        "{what}: no server bytes in {}",
        left.display()
    );
    assert_eq!(
        a.len(),
        b.len(),
        "{what}: lanes {:?} vs {:?}",
        a.iter().map(|l| &l.0).collect::<Vec<_>>(),
        b.iter().map(|l| &l.0).collect::<Vec<_>>()
    );
    for ((lane_a, bytes_a), (lane_b, bytes_b)) in a.iter().zip(&b) {
        assert_eq!(lane_a, lane_b, "{what}: lanes differ");
        if bytes_a != bytes_b {
            let line = bytes_a.lines().zip(bytes_b.lines()).position(|(x, y)| x != y);
            panic!(
                "{what}: lane {lane_a:?} differs (first at line {line:?}):\n--- {}\n{bytes_a}\n--- {}\n{bytes_b}",
                left.display(),
                right.display()
            );
        }
    }
    a
}

/// The learn demo through `mcp-raw tap --record FILE -- SERVER…`.
fn learn_demo_stdio(record: &Path, server: &[&str]) {
    let out = run(
        Command::new(learn_bin("demo"))
            .arg("--")
            .arg(mcp_raw())
            .arg("tap")
            .arg("--record")
            .arg(record)
            .arg("--")
            .args(server),
        60,
    );
    assert!(
        out.status.success(),
        "learn demo: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn stdio_learn_demo_learn_server_mcp_raw_server_and_mcp_raw_demo_are_one_wire() {
    let dir = scratch("stdio-demo");
    let learn_server = learn_bin("demo").display().to_string();
    let raw = mcp_raw().display().to_string();
    learn_demo_stdio(&dir.join("learn-learn.jsonl"), &[&learn_server, "serve"]);
    learn_demo_stdio(&dir.join("learn-raw.jsonl"), &[&raw, "serve"]);
    let out = run(
        Command::new(&raw)
            .args(["demo", "--color", "never", "--record"])
            .arg(dir.join("raw-raw.jsonl")),
        60,
    );
    assert!(out.status.success(), "mcp-raw demo: {}", String::from_utf8_lossy(&out.stderr));

    let wire = assert_same_wire(
        "learn server vs mcp-raw server",
        &dir.join("learn-learn.jsonl"),
        &dir.join("learn-raw.jsonl"),
    );
    assert_same_wire(
        "learn demo vs mcp-raw demo",
        &dir.join("learn-learn.jsonl"),
        &dir.join("raw-raw.jsonl"),
    );
    // What was compared is the whole session: nine answers, the time normalized.
    let answers = &wire.iter().find(|((_, dir), _)| dir == "s2c").expect("server bytes").1;
    assert_eq!(answers.lines().count(), 9, "{answers}");
    assert!(answers.contains(
        r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"<time>"}]}}"#
    ));
    assert!(answers.contains(r#""isError":true"#));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn stdio_mcp_raw_client_gets_the_same_bytes_from_learn_server_and_its_own() {
    let dir = scratch("stdio-client");
    let session = |record: &Path, server: &[&str]| {
        let mut command = Command::new(mcp_raw());
        command.args(["client", "--era", "legacy", "--color", "never", "--record"]).arg(record);
        CALLS.iter().for_each(|c| {
            command.args(["--call", c]);
        });
        let out = run(command.arg("--").args(server), 60);
        // The last call is a tool's failure: mcp-raw's client reports it with status 1.
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "mcp-raw client: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let learn_server = learn_bin("demo").display().to_string();
    session(&dir.join("learn.jsonl"), &[&learn_server, "serve"]);
    session(&dir.join("raw.jsonl"), &[&mcp_raw().display().to_string(), "serve"]);
    let wire = assert_same_wire(
        "mcp-raw client: learn server vs mcp-raw server",
        &dir.join("learn.jsonl"),
        &dir.join("raw.jsonl"),
    );
    let answers = &wire.iter().find(|((_, dir), _)| dir == "s2c").expect("server bytes").1;
    assert!(
        answers.contains(r#""text":"42""#)
            && answers.contains(r#""tools":[{"name":"get_current_time""#),
        "{answers}"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// A learn or mcp-raw HTTP server on a free port.
fn http_server(learn: bool) -> common::Background {
    if learn {
        start(Command::new(learn_bin("demo-http")).args(["serve", "--port", "0"]), "listening on ")
    } else {
        start(Command::new(mcp_raw()).args(["serve", "--http", "--port", "0"]), "listening on ")
    }
}

/// `mcp-raw tap --http` in front of `target`, recording to `record`.
fn http_tap(target: &str, record: &Path) -> common::Background {
    let mut command = Command::new(mcp_raw());
    command
        .args(["tap", "--http", "--listen", "127.0.0.1:0", "--target", target, "--record"])
        .arg(record);
    start(&mut command, "tap listening on ")
}

#[test]
fn http_learn_demo_learn_server_mcp_raw_server_and_mcp_raw_demo_are_one_wire() {
    let dir = scratch("http-demo");
    for (learn, name) in [(true, "learn-learn.jsonl"), (false, "learn-raw.jsonl")] {
        let server = http_server(learn);
        let tap = http_tap(&server.url, &dir.join(name));
        let out = run(Command::new(learn_bin("demo-http")).arg(&tap.url), 60);
        assert!(
            out.status.success(),
            "learn demo-http: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        drop(tap); // ends it, so the record is whole
    }
    let out = run(
        Command::new(mcp_raw())
            .args(["demo-http", "--port", "0", "--color", "never", "--record"])
            .arg(dir.join("raw-raw.jsonl")),
        60,
    );
    assert!(out.status.success(), "mcp-raw demo-http: {}", String::from_utf8_lossy(&out.stderr));

    let wire = assert_same_wire(
        "learn server vs mcp-raw server",
        &dir.join("learn-learn.jsonl"),
        &dir.join("learn-raw.jsonl"),
    );
    assert_same_wire(
        "learn demo-http vs mcp-raw demo-http",
        &dir.join("learn-learn.jsonl"),
        &dir.join("raw-raw.jsonl"),
    );
    let answers = &wire.iter().find(|((_, dir), _)| dir == "s2c").expect("server bytes").1;
    for status in [
        "400 Bad Request",
        "202 Accepted",
        "404 Not Found",
        "405 Method Not Allowed",
        "204 No Content",
    ] {
        assert!(answers.contains(&format!("HTTP/1.1 {status}\r\n")), "no {status} in:\n{answers}");
    }
    assert!(
        answers.contains("content-type: text/event-stream\r\n")
            && answers.contains("mcp-session-id: <session-id>\r\n")
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn http_mcp_raw_client_gets_the_same_bytes_from_learn_server_and_its_own() {
    let dir = scratch("http-client");
    for (learn, name) in [(true, "learn.jsonl"), (false, "raw.jsonl")] {
        let server = http_server(learn);
        let mut command = Command::new(mcp_raw());
        command
            .args(["client", "--era", "legacy", "--color", "never", &server.url, "--record"])
            .arg(dir.join(name));
        CALLS.iter().for_each(|c| {
            command.args(["--call", c]);
        });
        let out = run(&mut command, 60);
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "mcp-raw client: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let wire = assert_same_wire(
        "mcp-raw client: learn server vs mcp-raw server",
        &dir.join("learn.jsonl"),
        &dir.join("raw.jsonl"),
    );
    let answers: String =
        wire.iter().filter(|((_, dir), _)| dir == "s2c").map(|(_, b)| b.as_str()).collect();
    assert!(
        answers.contains("HTTP/1.1 204 No Content\r\n") && answers.contains(r#""text":"42""#),
        "{answers}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn normalize_rewrites_only_ids_times_and_ports() {
    let text = "mcp-session-id: 985887ac-4231-4fd6-b1e0-449464d1c4a0\r\ndate: Mon, 07 Dec 2026 13:38:19 GMT\r\nhost: 127.0.0.1:3100\r\n\"2026-12-07T13:38:06.054Z\" 42";
    assert_eq!(
        normalize(text),
        "mcp-session-id: <session-id>\r\ndate: <http-date>\r\nhost: 127.0.0.1:<port>\r\n\"<time>\" 42"
    );
}
