//! mcp-raw's hostile input for stdio framing (its tests/stdio.rs and
//! tests/wire_hostile.rs), against the learn stdio server: bad JSON, values that are
//! not messages, blank, CRLF, overlong and unterminated lines, invalid UTF-8,
//! batches, nesting 200 deep, EOF mid-line, a reader that goes away.
//!
//! Each input goes to both servers (`demo serve` and `mcp-raw serve`, same flags):
//! learn's answers must be mcp-raw's, byte for byte, each a JSON-RPC error with the
//! right code that says what was wrong, and a `ping` after the bad lines must still
//! be answered (the server keeps serving). Both exit 0 at the end of input.
//!
//! Over HTTP the same for the refusals (406, 415, 400, 404, 405, 403): learn's
//! response bytes are mcp-raw's, `date` aside.

mod common;

use common::{learn_bin, mcp_raw};
use learn::json::{self, Json};
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;
const PING: &str = "{\"jsonrpc\":\"2.0\",\"id\":\"still-here\",\"method\":\"ping\"}\n";

/// Feeds `input` to a server's stdin, closes it, returns (stdout, exit success);
/// fails if the server is still running after 30 s.
fn feed(program: &str, args: &[&str], input: &[u8]) -> (String, bool) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{program} {args:?} still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    let out = reader.join().expect("the reader");
    (String::from_utf8(out).expect("stdout is UTF-8"), status.success())
}

/// Both servers on `input`; asserts equal answers, each line's error code in
/// `codes` order (0 for a success), and returns learn's lines.
fn both(input: &[u8], learn_flags: &[&str], raw_flags: &[&str], codes: &[i64]) -> Vec<String> {
    let demo = learn_bin("demo").display().to_string();
    let (learn, learn_ok) = feed(&demo, &[&["serve"], learn_flags].concat(), input);
    let (raw, raw_ok) =
        feed(&mcp_raw().display().to_string(), &[&["serve"], raw_flags].concat(), input);
    assert!(learn_ok && raw_ok, "exit: learn {learn_ok}, mcp-raw {raw_ok}");
    assert_eq!(learn, raw, "learn's answers (left) are not mcp-raw's (right)");
    let lines: Vec<String> = learn.lines().map(str::to_owned).collect();
    let got: Vec<i64> = lines
        .iter()
        .map(|l| {
            let v = json::parse(l.as_bytes()).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"));
            v.get("error")
                .and_then(|e| e.get("code"))
                .and_then(Json::as_f64)
                .map_or(0, |c| c as i64)
        })
        .collect();
    assert_eq!(got, codes, "{learn}");
    lines
}

#[test]
fn bad_json_and_values_that_are_not_messages_get_errors_and_the_server_keeps_reading() {
    let bad: &[&[u8]] = &[
        b"this is not json",
        b"{\"a\":",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} x",
        b"\xff\xfe",
        b"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\\qing\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\x01\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\\ud800\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":01,\"method\":\"ping\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":-,\"method\":\"ping\"}",
        b"{\"jsonrpc\":\"2.0\" \"id\":1}",
        b"{jsonrpc:\"2.0\"}",
        b"[1,2",
        b"[1,]",
        b"{\"a\":1,}",
        b"{\"a\" 1}",
        b"{\"a\":1 \"b\":2}",
        b"[1 2]",
        b"{\"a\":\"\\udc00\"}",
        b"{\"a\":\"\\ud800\\u0041\"}",
        b"{\"a\":1e}",
        b"{\"a\":1.}",
        b"{\"a\":[1,",
        b"{\"a\":1,",
        b"{\"a\"",
        b"{",
        b"[",
        b"tru",
        b"nul ",
        b"\"str\"",
        b"null",
        b"5",
        b"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
        b"{\"id\":1,\"method\":\"ping\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}",
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":[1]}",
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"result\":{}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{},\"error\":{\"code\":1,\"message\":\"x\"}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":\"x\"}}",
        b"{\"jsonrpc\":\"2.0\",\"result\":{}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":8}",
    ];
    let mut input: Vec<u8> = bad.join(&b'\n');
    input.push(b'\n');
    input.extend_from_slice("[".repeat(200).as_bytes());
    input.push(b'\n');
    input.extend_from_slice(PING.as_bytes());
    let mut codes = vec![-32700; 29];
    codes.extend([-32600; 16]);
    codes.push(-32700); // 200 deep
    codes.push(0); // the ping after them all
    let lines = both(&input, &[], &[], &codes);
    assert!(lines[3].contains("Parse error: expected value at line 1 column 1"), "{}", lines[3]);
    assert_eq!(
        lines.last().map(String::as_str),
        Some(r#"{"jsonrpc":"2.0","id":"still-here","result":{}}"#)
    );
}

#[test]
fn batches_are_refused_before_and_after_the_handshake() {
    let input =
        format!("[]\n[{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}]\n{INIT}[]\n{PING}");
    let lines = both(input.as_bytes(), &[], &[], &[-32600, -32600, 0, -32600, 0]);
    assert!(
        lines[0].contains("cannot open a session") && lines[3].contains("removed in 2025-06-18"),
        "{lines:?}"
    );
}

#[test]
fn blank_crlf_overlong_and_unterminated_lines() {
    let long = format!("{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"{}\"}}", "x".repeat(300));
    let input = format!("\n\r\n   \t\n{PING}{long}\n{}\r\n{}", PING.trim_end(), PING.trim_end());
    let lines = both(
        input.as_bytes(),
        &["--max-line-bytes", "100"],
        &["--max-body-bytes", "100"],
        &[0, -32600, 0, 0],
    );
    assert_eq!(
        lines[1],
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: message longer than 100 bytes; skipped to the next newline"}}"#
    );
}

#[test]
fn a_line_over_the_default_limit_is_skipped_whole() {
    // 5 MiB in one line, past the 4 MiB default, then a ping.
    let mut input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"".to_vec();
    input.resize(5 << 20, b'x');
    input.extend_from_slice(b"\"}\n");
    input.extend_from_slice(PING.as_bytes());
    both(&input, &[], &[], &[-32600, 0]);
}

#[test]
fn requests_in_the_wrong_phase_or_with_wrong_params() {
    let input = format!(
        "{}{INIT}{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":7}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":[]}}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":3}}}"#,
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"add","arguments":{"a":1.5}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
        r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"echo","arguments":{"message":"é\"\n\u0001"}}}"#,
    );
    let lines = both(
        input.as_bytes(),
        &[],
        &[],
        &[-32002, 0, -32600, -32602, -32602, -32602, -32602, 0, 0, 0],
    );
    assert!(
        lines[7].contains(r#""isError":true"#) && lines[8].contains("missing required argument"),
        "{lines:?}"
    );
}

#[test]
fn end_of_input_and_a_reader_that_went_away() {
    // Nothing at all: exit 0, no output.
    both(b"", &[], &[], &[]);
    // EOF in the middle of a line: what came is still read (here, a parse error).
    both(b"{\"jsonrpc\":\"2.0\",\"id\":1,", &[], &[], &[-32700]);
    // The client stops reading: the server leaves quietly (exit 0), no panic.
    let mut child = Command::new(learn_bin("demo"))
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    for _ in 0..100 {
        if stdin.write_all(PING.as_bytes()).is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr.lines().last(),
        Some("[learn] stdout closed (client gone): exiting"),
        "{stderr}"
    );
}

/// One raw HTTP/1.1 exchange on a fresh connection: the response's bytes, normalized.
fn exchange(url: &str, request: &str) -> String {
    let authority = url.trim_start_matches("http://").split('/').next().expect("host:port");
    let mut stream = std::net::TcpStream::connect(authority).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    stream.write_all(request.replace("HOST", authority).as_bytes()).expect("send");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response); // `connection: close` below: read to the end
    // mcp-raw's hyper also says `connection: close` when it refused before reading a
    // body; learn reads every body first, so its connection could stay open.
    common::normalize(&String::from_utf8_lossy(&response).replace("connection: close\r\n", ""))
}

#[test]
fn http_refusals_are_mcp_raws_byte_for_byte() {
    let learn = common::start(
        Command::new(learn_bin("demo-http")).args(["serve", "--port", "0"]),
        "listening on ",
    );
    let raw = common::start(
        Command::new(mcp_raw()).args(["serve", "--http", "--port", "0"]),
        "listening on ",
    );
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}"#;
    let post = |headers: &str, body: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nhost: HOST\r\nconnection: close\r\n{headers}content-length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let both = "accept: application/json, text/event-stream\r\ncontent-type: application/json\r\n";
    let cases = [
        post("accept: application/json\r\ncontent-type: application/json\r\n", init),
        post("accept: application/json, text/event-stream\r\ncontent-type: text/plain\r\n", init),
        post(both, "{bad"),
        post(both, "[]"),
        post(both, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        post(
            &format!("{both}mcp-session-id: nope\r\n"),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        ),
        post(&format!("{both}mcp-session-id: nope\r\n"), init),
        post(&format!("{both}mcp-session-id: a b\r\n"), init),
        "PUT /mcp HTTP/1.1\r\nhost: HOST\r\nconnection: close\r\n\r\n".to_owned(),
        "DELETE /mcp HTTP/1.1\r\nhost: HOST\r\nconnection: close\r\n\r\n".to_owned(),
        "DELETE /mcp HTTP/1.1\r\nhost: HOST\r\nmcp-session-id: nope\r\nconnection: close\r\n\r\n"
            .to_owned(),
        "GET /mcp HTTP/1.1\r\nhost: HOST\r\nconnection: close\r\n\r\n".to_owned(),
        "GET /other HTTP/1.1\r\nhost: HOST\r\nconnection: close\r\n\r\n".to_owned(),
    ];
    for request in &cases {
        let (a, b) = (exchange(&learn.url, request), exchange(&raw.url, request));
        assert!(a.starts_with("HTTP/1.1 4"), "{a}");
        assert_eq!(a, b, "learn (left) and mcp-raw (right) answer differently to:\n{request}");
    }
    // The DNS-rebinding refusal: same status and code; mcp-raw's message also names
    // its --allow-host flag, which learn does not have.
    let evil = post(&format!("{both}origin: http://evil.example\r\n"), init);
    for answer in [exchange(&learn.url, &evil), exchange(&raw.url, &evil)] {
        assert!(
            answer.starts_with("HTTP/1.1 403 Forbidden\r\n")
                && answer.contains("DNS-rebinding protection"),
            "{answer}"
        );
    }
}
