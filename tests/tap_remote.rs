//! `mcp-raw tap --remote URL`: a client writes JSON-RPC lines to the tap's stdin as to
//! a stdio server, and reads back, a line each, what the Streamable HTTP server at URL
//! answered. The tap runs as the real binary (its stdin and stdout are the client's
//! transport: the process is the subject); the server runs in-process on port 0.
//! What crosses is compared as bytes: each line the tap writes is the server's own
//! JSON, and the recording's HTTP lanes hold every line the client wrote, as a body.

mod common;

use common::cli_inproc::cli_here;
use common::{BIN, InProcess};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A `tap --remote` process, its stdin to write lines to and its stdout's lines.
struct Remote {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Remote {
    fn start(url: &str, record: &std::path::Path, extra: &[&str]) -> Remote {
        // The tap's stdin and stdout are the client's stdio transport: a process.
        let mut child = Command::new(BIN)
            .args(["tap", "--remote", url, "--record"])
            .arg(record)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let stdin = child.stdin.take();
        Remote {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(10))
            .expect("a line from the tap within 10 s")
    }

    /// Closes stdin (the client is done) and waits for the exit status.
    fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        for _ in 0..200 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!("the tap did not end within 10 s of its stdin closing");
    }
}

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("tap_remote", name).join("tap.jsonl")
}

/// Each event of the recording: (lane, dir, bytes).
fn events(record: &std::path::Path) -> Vec<(String, String, Vec<u8>)> {
    let text = std::fs::read_to_string(record).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e.get("fact").is_none())
        .map(|e| {
            let bytes = e["text"].as_str().unwrap_or_default().as_bytes().to_vec();
            (
                e["lane"].as_str().unwrap_or_default().to_owned(),
                e["dir"].as_str().unwrap_or_default().to_owned(),
                bytes,
            )
        })
        .collect()
}

/// All bytes of one side: the stdio lane, or the HTTP lanes together.
fn side(events: &[(String, String, Vec<u8>)], stdio: bool, dir: &str) -> Vec<u8> {
    events
        .iter()
        .filter(|(lane, d, _)| d == dir && (lane == "stdio") == stdio && lane != "stderr")
        .flat_map(|(_, _, b)| b.clone())
        .collect()
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

#[test]
fn a_legacy_session_is_relayed_line_for_line_with_its_session_and_end() {
    let server = InProcess::demo();
    let record = scratch("legacy");
    let mut tap = Remote::start(&format!("http://{}/mcp", server.addr), &record, &[]);
    tap.send(INITIALIZE);
    assert_eq!(
        tap.next(),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"mcp-raw","version":"{}"}}}}}}"#,
            env!("CARGO_PKG_VERSION")
        )
    );
    tap.send(INITIALIZED);
    tap.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#);
    // The answer came as one SSE event: its data, as the server wrote it, one line.
    assert_eq!(
        tap.next(),
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"5"}]}}"#
    );
    tap.send(r#"{"jsonrpc":"2.0","id":3,"method":"nope"}"#);
    assert_eq!(
        tap.next(),
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: nope"}}"#
    );
    assert_eq!(tap.finish(), Some(0));

    let events = events(&record);
    let (to_server, to_client) = (side(&events, false, "c2s"), side(&events, false, "s2c"));
    let to_server = String::from_utf8_lossy(&to_server);
    // Every line the client wrote is a POST body, as written.
    for line in String::from_utf8_lossy(&side(&events, true, "c2s")).lines() {
        assert!(to_server.contains(line), "not on the HTTP side: {line}");
    }
    // Every line the tap wrote is what the server sent.
    let to_client = String::from_utf8_lossy(&to_client);
    for line in String::from_utf8_lossy(&side(&events, true, "s2c")).lines() {
        assert!(to_client.contains(line), "not from the server: {line}");
    }
    // The session as a client keeps it: the id and version on the later requests,
    // the session's GET stream once initialized, a DELETE at the end.
    let session = to_client
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .expect("the server gave a session id")
        .trim();
    let posts_after = to_server.split("POST /mcp").skip(2).collect::<Vec<_>>();
    assert_eq!(posts_after.len(), 3, "{to_server}");
    for post in posts_after {
        let head = post.split("\r\n\r\n").next().unwrap();
        assert!(
            head.contains(&format!("mcp-session-id: {session}\r\n")),
            "{head}"
        );
        assert!(
            head.contains("mcp-protocol-version: 2025-11-25\r\n"),
            "{head}"
        );
    }
    assert!(to_server.contains("GET /mcp HTTP/1.1\r\n"), "{to_server}");
    assert!(
        to_server.contains("DELETE /mcp HTTP/1.1\r\n"),
        "{to_server}"
    );
}

/// A server's request in the middle of a call (legacy: on the call's own SSE stream)
/// reaches the client at once, and the client's answer goes back: the call's result
/// can only come after it.
#[test]
fn a_servers_request_mid_call_reaches_the_client_before_the_answer() {
    let server = InProcess::conformance();
    let record = scratch("elicitation");
    let mut tap = Remote::start(&format!("http://{}/mcp", server.addr), &record, &[]);
    tap.send(INITIALIZE);
    let _ = tap.next();
    tap.send(INITIALIZED);
    tap.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"who?"}}}"#);
    let asked: Value = serde_json::from_str(&tap.next()).unwrap();
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    let answer = serde_json::json!({
        "jsonrpc": "2.0",
        "id": asked["id"],
        "result": {"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}}
    });
    tap.send(&answer.to_string());
    let result: Value = serde_json::from_str(&tap.next()).unwrap();
    assert_eq!(result["id"], 2, "{result}");
    let text = result["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("ada@example.com"), "{result}");
    assert_eq!(tap.finish(), Some(0));
}

/// A 2026-07-28 request carries that revision's mirrored headers, taken from its body:
/// `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and the `Mcp-Param-Value` that
/// the listed tool's `x-mcp-header` annotation asks for (Base64 for a value that is not
/// plain ASCII). The server refuses a request without them, so its answer proves them.
#[test]
fn modern_requests_carry_the_mirrored_headers_of_their_body() {
    let server = InProcess::conformance();
    let record = scratch("modern");
    let mut tap = Remote::start(&format!("http://{}/mcp", server.addr), &record, &[]);
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    tap.send(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{meta}}}}}"#
    ));
    let listed: Value = serde_json::from_str(&tap.next()).unwrap();
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    tap.send(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"test_custom_header","arguments":{{"value":"héllo"}},{meta}}}}}"#
    ));
    let called: Value = serde_json::from_str(&tap.next()).unwrap();
    assert_eq!(called["result"]["content"][0]["text"], "héllo", "{called}");
    assert_eq!(tap.finish(), Some(0));
    let events = events(&record);
    let to_server = String::from_utf8_lossy(&side(&events, false, "c2s")).into_owned();
    let call = to_server
        .split("POST /mcp")
        .find(|p| p.contains("test_custom_header\",\"arguments"))
        .unwrap();
    let head = call.split("\r\n\r\n").next().unwrap();
    for header in [
        "mcp-protocol-version: 2026-07-28\r\n",
        "mcp-method: tools/call\r\n",
        "mcp-name: test_custom_header\r\n",
        "mcp-param-value: =?base64?aMOpbGxv?=\r\n",
    ] {
        assert!(head.contains(header), "no {header:?} in\n{head}");
    }
    // Stateless: no session, so no GET stream and no DELETE.
    assert!(!to_server.contains("DELETE /mcp"), "{to_server}");
}

/// What the server cannot answer is still answered: a request to a server that is
/// not there, or one that answers with an HTTP error and no JSON-RPC body, gets the
/// tap's error naming why; a notification gets nothing; the tap goes on.
#[test]
fn a_request_the_server_leaves_unanswered_gets_an_error_saying_why() {
    let record = scratch("unreachable");
    let mut tap = Remote::start("http://127.0.0.1:1/mcp", &record, &[]);
    tap.send(INITIALIZED);
    tap.send(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#);
    let said: Value = serde_json::from_str(&tap.next()).unwrap();
    assert_eq!(said["id"], "a");
    assert_eq!(said["error"]["code"], -32603);
    let message = said["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "tap --remote: no answer from http://127.0.0.1:1/mcp: cannot connect to 127.0.0.1:1"
        ),
        "{message}"
    );
    assert_eq!(tap.finish(), Some(0));

    let server = InProcess::demo();
    let record = scratch("not-found");
    let url = format!("http://{}/elsewhere", server.addr);
    let mut tap = Remote::start(&url, &record, &[]);
    tap.send(INITIALIZE);
    // What the server sent is passed on (its error, about no request it could
    // read), then the request gets the tap's answer.
    let first: Value = serde_json::from_str(&tap.next()).unwrap();
    assert_eq!(first["id"], Value::Null, "{first}");
    let said: Value = serde_json::from_str(&tap.next()).unwrap();
    assert_eq!(said["id"], 1);
    let message = said["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "tap --remote: HTTP 404 Not Found from {url} with no JSON-RPC answer"
        )),
        "{message}"
    );
    assert_eq!(tap.finish(), Some(0));
}

/// Bad flags are refused before the tap reads a line (in-process: the command line's
/// own refusals and exit statuses).
#[test]
fn bad_remote_flags_are_refused_before_anything_starts() {
    let out = cli_here(["tap", "--remote", "ftp://example.com/mcp"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.err(),
        "mcp-raw tap: --remote \"ftp://example.com/mcp\": ftp:// is not supported: give an http:// or https:// URL\n"
    );
    let out = cli_here([
        "tap",
        "--remote",
        "http://127.0.0.1:1/mcp",
        "--header",
        "no colon",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.err(),
        "mcp-raw tap: --header \"no colon\": expected 'Name: value'\n"
    );
    let out = cli_here(["tap", "--remote", "http://127.0.0.1:1/mcp", "--http"]);
    assert_eq!(out.status.code(), Some(2), "{}", out.err());
    assert!(
        out.err()
            .starts_with("error: the argument '--remote <URL>' cannot be used with '--http'"),
        "{}",
        out.err()
    );
    let out = cli_here(["tap", "--remote", "http://127.0.0.1:1/mcp", "--", "true"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        out.err(),
        "mcp-raw tap: --remote URL is the server: a server command after `--` is for the stdio tap\n"
    );
    // Refused before the stdio tap would start `true` on this process's stdio.
    for flag in [
        &["--header", "A: b"][..],
        &["--timeout", "5"],
        &["--max-response-bytes", "9"],
    ] {
        let out = cli_here(["tap"].iter().chain(flag).chain(&["--", "true"]).copied());
        assert_eq!(out.status.code(), Some(2), "{flag:?}");
        assert_eq!(
            out.err(),
            "mcp-raw tap: --header, --timeout and --max-response-bytes are for the server of --remote URL\n",
            "{flag:?}"
        );
    }
}

/// A client line over `--max-message-bytes` is not sent: the client gets a parse
/// error saying so (as `serve` answers one), and the next line goes on as usual.
#[test]
fn a_line_over_max_message_bytes_is_refused_and_the_next_goes_on() {
    let server = InProcess::demo();
    let record = scratch("too-long");
    let url = format!("http://{}/mcp", server.addr);
    let mut tap = Remote::start(&url, &record, &["--max-message-bytes", "200"]);
    tap.send(&format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"echo","arguments":{{"message":"{}"}}}}}}"#,
        "x".repeat(300)
    ));
    assert_eq!(
        tap.next(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"tap --remote: a line of more than 200 bytes (--max-message-bytes): not sent"}}"#
    );
    tap.send(INITIALIZE);
    let answer: Value = serde_json::from_str(&tap.next()).unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(tap.finish(), Some(0));
    // Nothing of the long line reached the server.
    let events = events(&record);
    assert!(!String::from_utf8_lossy(&side(&events, false, "c2s")).contains("xxxx"));
}

/// `tap --remote URL --trace-context`: the POSTed body of a request carries a
/// `traceparent` first in its `_meta` (the stdio lane keeps the client's line as
/// written; the HTTP lane shows what the server got); a notification is POSTed as
/// written. With no `TRACEPARENT` in the environment: one new trace for the run.
#[test]
fn trace_context_goes_into_the_posted_requests() {
    let server = InProcess::demo();
    let record = scratch("trace");
    let mut tap = {
        // Remote::start, without TRACEPARENT from the test's own environment.
        let mut child = Command::new(BIN)
            .env_remove("TRACEPARENT")
            .env_remove("TRACESTATE")
            .args(["tap", "--trace-context", "--remote"])
            .arg(format!("http://{}/mcp", server.addr))
            .arg("--record")
            .arg(&record)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let stdin = child.stdin.take();
        Remote {
            child,
            stdin,
            lines,
        }
    };
    tap.send(INITIALIZE);
    tap.next();
    tap.send(INITIALIZED);
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#;
    tap.send(call);
    tap.next();
    assert_eq!(tap.finish(), Some(0));
    let events = events(&record);
    let stdio = String::from_utf8(side(&events, true, "c2s")).unwrap();
    assert_eq!(
        stdio,
        format!("{INITIALIZE}\n{INITIALIZED}\n{call}\n"),
        "the client's lines"
    );
    let http = String::from_utf8(side(&events, false, "c2s")).unwrap();
    let tps: Vec<&str> = http
        .match_indices("{\"_meta\":{\"traceparent\":\"00-")
        .map(|(at, _)| &http[at + 25..at + 25 + 55])
        .collect();
    assert_eq!(tps.len(), 2, "initialize and the call: {http}");
    assert_eq!(tps[0][3..35], tps[1][3..35], "one trace for the run");
    assert_ne!(tps[0][36..52], tps[1][36..52], "a span each");
    assert!(http.contains(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"_meta":{{"traceparent":"{}"}},"name":"add","arguments":{{"a":2,"b":3}}}}}}"#,
        tps[1]
    )), "{http}");
    assert!(http.contains(INITIALIZED), "{http}");
}
