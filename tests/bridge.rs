//! `mcp-raw bridge`, through the real binary: `bridge --port 0 -- mcp-raw serve`
//! driven with raw HTTP in both eras. A legacy session gets its own child (spawned at
//! initialize, killed by DELETE, after which its id is 404); modern requests reach
//! the shared child; children that exit or write garbage give clear JSON-RPC errors
//! while the bridge goes on serving; the --record file holds the HTTP lanes and each
//! child's stdio lanes.

mod common;

use common::http_client::{Reply, exchange, request_bytes};
use common::{BIN, HttpServer, initialize};
use mcp_raw_wire::event::{Dir, LaneKind};
use mcp_raw_wire::recorder::concat;
use mcp_raw_wire::transcript;
use serde_json::{Value, json};
use std::process::Command;
use std::time::{Duration, Instant};

const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("Content-Type", "application/json");

fn bridge(extra: &[&str], server: &[&str]) -> HttpServer {
    // The bridge's children, their stderr echoed and its log lines read, are processes of its own: a process.
    let mut command = Command::new(BIN);
    command
        .args(["bridge", "--port", "0"])
        .args(extra)
        .arg("--")
        .args(server);
    HttpServer::spawn(command)
}

fn post(b: &HttpServer, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut all = vec![ACCEPT, JSON];
    all.extend_from_slice(headers);
    exchange(&b.addr, &request_bytes(&b.addr, "POST", &all, body))
}

/// The JSON-RPC response of a reply, whether JSON or an SSE stream.
fn response(r: &Reply) -> Value {
    r.response()
        .unwrap_or_else(|| panic!("no response in {}: {}", r.status, r.text()))
}

/// Waits until the bridge's log says `what` (each line read wakes the wait).
fn logs(b: &HttpServer, what: &str) -> bool {
    b.wait_logged(what, Duration::from_secs(5))
}

fn modern(
    method: &str,
    name: Option<&str>,
    params: Value,
) -> (Vec<(&'static str, String)>, String) {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
    });
    let mut headers = vec![
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", method.to_owned()),
    ];
    if let Some(n) = name {
        headers.push(("Mcp-Name", n.to_owned()));
    }
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
    (headers, body.to_string())
}

#[test]
fn both_eras_through_the_bridge_and_a_recording_of_every_lane() {
    let dir = std::env::temp_dir().join(format!("mcp-raw-bridge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("bridge.jsonl");
    let b = bridge(
        &["--record", record.to_str().unwrap()],
        &[BIN, "serve", "--fixture", "conformance"],
    );

    // Legacy: initialize spawns this session's child.
    let init = post(&b, &[], &initialize("2025-11-25"));
    assert_eq!(init.status, 200, "{}", init.text());
    let sid = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let r = response(&init);
    assert_eq!(r["id"], 1);
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{r}");
    assert_eq!(r["result"]["serverInfo"]["name"], "mcp-raw");
    assert!(logs(&b, "spawned for a legacy session"), "{}", b.logged());
    let session = [
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let n = post(
        &b,
        &session,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(n.status, 202);
    let list = post(
        &b,
        &session,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(list.status, 200);
    let tools = response(&list)["result"]["tools"].clone();
    assert!(
        tools
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "test_simple_text"),
        "{tools}"
    );
    let call = post(
        &b,
        &session,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}"#,
    );
    // The whole stream: its priming event, then the child's answer, as the child
    // wrote it (the client's id 3 kept).
    assert_eq!(
        call.text(),
        "id: 2-0\ndata: \n\nid: 2-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"This is a simple text response for testing.\"}]}}\n\n"
    );

    // A progress notification travels on its request's stream, before the response.
    let call = post(
        &b,
        &session,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"p"}}}"#,
    );
    let progress = |n: u32, at: &str| {
        format!(
            "id: 3-{n}\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"p\",\"progress\":{at},\"total\":100.0,\"message\":\"step {n} of 3\"}}}}\n\n"
        )
    };
    assert_eq!(
        call.text(),
        format!(
            "id: 3-0\ndata: \n\n{}{}{}id: 3-4\ndata: {{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"Progress test completed.\"}}]}}}}\n\n",
            progress(1, "0.0"),
            progress(2, "50.0"),
            progress(3, "100.0")
        )
    );

    // Modern: the shared child answers; the id is the client's again.
    let (headers, body) = modern("tools/list", None, json!({}));
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = post(&b, &headers, &body);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = response(&r);
    assert_eq!(r["id"], 9);
    assert!(r["result"]["tools"].is_array(), "{r}");
    assert!(logs(&b, "spawned for modern (2026-07-28) requests"));
    let (headers, body) = modern(
        "tools/call",
        Some("test_simple_text"),
        json!({"name": "test_simple_text", "arguments": {}}),
    );
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // The whole stream: the shared child's answer under the client's id 9 again.
    assert_eq!(
        post(&b, &headers, &body).text(),
        format!(
            "data: {{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{{\"resultType\":\"complete\",\"content\":[{{\"type\":\"text\",\"text\":\"This is a simple text response for testing.\"}}],\"_meta\":{{\"io.modelcontextprotocol/serverInfo\":{{\"name\":\"mcp-raw\",\"version\":\"{}\"}}}}}}}}\n\n",
            env!("CARGO_PKG_VERSION")
        )
    );

    // A session id the bridge never minted: 404, from the same HTTP rules as serve's.
    let r = post(
        &b,
        &[
            ("Mcp-Session-Id", "no-such-session"),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#,
    );
    assert_eq!(r.status, 404, "{}", r.text());
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found: \"no-such-session\" is unknown or was terminated; send initialize without Mcp-Session-Id to start a new session"}}"#
    );

    // DELETE ends the session and its child; the id is 404 from then on.
    let gone = exchange(
        &b.addr,
        &request_bytes(&b.addr, "DELETE", &[("Mcp-Session-Id", &sid)], ""),
    );
    assert_eq!(gone.status, 204);
    assert!(
        logs(&b, "killed: what it served has ended"),
        "{}",
        b.logged()
    );
    let r = post(
        &b,
        &session,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#,
    );
    assert_eq!(r.status, 404);

    // The recording: HTTP connections and each child's pipes, in both directions.
    std::thread::sleep(Duration::from_millis(100));
    let text = std::fs::read_to_string(&record).unwrap();
    let (header, events) = transcript::read(&text).expect("a transcript mcp-raw reads");
    assert_eq!(header.role, "bridge");
    let lanes: std::collections::BTreeSet<String> = events.iter().map(|e| e.lane.label()).collect();
    assert!(lanes.contains("c1"), "{lanes:?}");
    for kind in [LaneKind::Http, LaneKind::Stdio] {
        for d in [Dir::ToServer, Dir::ToClient] {
            let bytes = concat(&events, |e| e.lane.kind == kind && e.dir == d);
            assert!(!bytes.is_empty(), "{kind:?} {d:?} recorded nothing");
        }
    }
    assert!(events.iter().any(|e| e.lane.kind == LaneKind::Stderr));
    // The session's child heard the client's tools/call, line for line.
    let to_children = String::from_utf8(concat(&events, |e| {
        e.lane.kind == LaneKind::Stdio && e.dir == Dir::ToServer
    }))
    .unwrap();
    assert!(
        to_children.contains(r#""id":3,"method":"tools/call""#),
        "{to_children}"
    );
    // The shared child saw a unique id, not the client's 9.
    assert!(to_children.contains(r#""id":"bridge-"#), "{to_children}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_child_that_exits_gives_an_error_and_the_bridge_goes_on() {
    let mut b = bridge(&["--probe-timeout", "0"], &["sh", "-c", "exit 3"]);
    for child in 1..=2 {
        let r = post(&b, &[], &initialize("2025-11-25"));
        assert_eq!(r.status, 200);
        assert!(
            r.header("mcp-session-id").is_none(),
            "a failed initialize keeps no session"
        );
        let e = &response(&r)["error"];
        assert_eq!(e["code"], -32603, "{e}");
        let message = e["message"].as_str().unwrap();
        assert_eq!(
            message,
            format!("the stdio server (child {child}) is gone: it exited with exit status: 3")
        );
    }
    let (headers, body) = modern("tools/list", None, json!({}));
    let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = post(&b, &headers, &body);
    let e = &response(&r)["error"];
    assert_eq!(e["code"], -32603, "{e}");
    assert!(b.alive(), "the bridge keeps serving");
}

#[test]
fn a_child_that_writes_garbage_gives_an_error_quoting_it() {
    let mut b = bridge(
        &["--probe-timeout", "0"],
        &[
            "sh",
            "-c",
            "while read line; do echo 'not json at all'; done",
        ],
    );
    let r = post(&b, &[], &initialize("2025-11-25"));
    let e = &response(&r)["error"];
    assert_eq!(e["code"], -32603, "{e}");
    let message = e["message"].as_str().unwrap();
    assert_eq!(
        message,
        "the stdio server (child 1) wrote a line that is not JSON (expected ident at line 1 column 2): \"not json at all\""
    );
    assert!(logs(&b, "not json at all"));
    assert!(b.alive());
}

#[test]
fn the_first_line_names_the_port_and_the_command() {
    let b = bridge(&["--probe-timeout", "0"], &["sh", "-c", "exit 0"]);
    assert!(b.addr.starts_with("127.0.0.1:"), "{}", b.addr);
    assert!(b.addr.split(':').nth(1).unwrap().parse::<u16>().unwrap() > 0);
}

#[test]
fn an_expired_session_takes_its_child_with_it() {
    let b = bridge(
        &["--probe-timeout", "0", "--init-timeout", "0.2"],
        &[BIN, "serve"],
    );
    let r = post(&b, &[], &initialize("2025-11-25"));
    assert_eq!(r.status, 200, "{}", r.text());
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    // No notifications/initialized: the session ends after --init-timeout.
    assert!(
        logs(&b, "never sent notifications/initialized"),
        "{}",
        b.logged()
    );
    assert!(
        logs(&b, "killed: what it served has ended"),
        "{}",
        b.logged()
    );
    let r = post(
        &b,
        &[
            ("Mcp-Session-Id", &sid),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(r.status, 404);
}

/// 2026-07-28: closing the stream cancels the request; the shared child hears
/// `notifications/cancelled` with the id it knows.
#[test]
fn a_closed_modern_request_is_cancelled_at_the_child() {
    use std::io::Write;
    let b = bridge(&[], &[BIN, "serve", "--fixture", "conformance"]);
    let (headers, body) = modern(
        "tools/call",
        Some("slow_compute"),
        json!({"name": "slow_compute", "arguments": {"seconds": 5}}),
    );
    let mut all: Vec<(&str, &str)> = vec![ACCEPT, JSON];
    all.extend(headers.iter().map(|(k, v)| (*k, v.as_str())));
    let mut sock = std::net::TcpStream::connect(&b.addr).unwrap();
    sock.write_all(&request_bytes(&b.addr, "POST", &all, &body))
        .unwrap();
    assert!(
        logs(&b, "recv request tools/call (id \"bridge-"),
        "{}",
        b.logged()
    );
    drop(sock);
    assert!(logs(&b, "cancelled request \"bridge-"), "{}", b.logged());
}

/// Issue 30 §16: the bridge's own cap on children; a place comes back when its
/// session ends.
#[test]
fn the_bridge_runs_at_most_max_children() {
    let b = bridge(
        &["--probe-timeout", "0", "--max-children", "1"],
        &[BIN, "serve"],
    );
    let r = post(&b, &[], &initialize("2025-11-25"));
    assert_eq!(r.status, 200, "{}", r.text());
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let r = post(&b, &[], &initialize("2025-11-25"));
    assert!(r.header("mcp-session-id").is_none(), "{}", r.text());
    let e = &response(&r)["error"];
    assert_eq!(e["code"], -32603, "{e}");
    assert_eq!(
        e["message"],
        "the bridge runs 1 stdio servers already, the most it keeps (bridge --max-children 1): end a session with DELETE, or retry later"
    );
    let r = exchange(
        &b.addr,
        &request_bytes(&b.addr, "DELETE", &[("Mcp-Session-Id", &sid)], ""),
    );
    assert_eq!(r.status, 204, "{}", r.text());
    let r = post(&b, &[], &initialize("2025-11-25"));
    assert!(r.header("mcp-session-id").is_some(), "{}", r.text());
}

/// Issue 30 §16: a child that never answers costs the caller --request-timeout, then
/// a JSON-RPC error that says so; the child hears notifications/cancelled.
#[test]
fn a_child_that_never_answers_times_out() {
    let dir = common::scratch("bridge", "silent");
    // What the child hears goes into a FIFO this test reads: each line awaited as it
    // comes, no polling of a file.
    let heard = dir.join("heard");
    assert!(
        Command::new("mkfifo")
            .arg(&heard)
            .status()
            .is_ok_and(|s| s.success()),
        "mkfifo {}",
        heard.display()
    );
    let (lines, said) = std::sync::mpsc::channel();
    {
        let heard = heard.clone();
        std::thread::spawn(move || {
            use std::io::BufRead;
            // Opening blocks until the child opens its end.
            let fifo = std::fs::File::open(&heard).unwrap();
            for line in std::io::BufReader::new(fifo).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
    }
    let script = format!("cat > {}", heard.display());
    let b = bridge(
        &["--probe-timeout", "0", "--request-timeout", "1"],
        &["sh", "-c", &script],
    );
    let started = Instant::now();
    let r = post(&b, &[], &initialize("2025-11-25"));
    let waited = started.elapsed();
    assert!(r.header("mcp-session-id").is_none(), "{}", r.text());
    let e = &response(&r)["error"];
    assert_eq!(e["code"], -32603, "{e}");
    let message = e["message"].as_str().unwrap();
    assert_eq!(
        message,
        "the stdio server (child 1) did not answer initialize within 1 s (bridge --request-timeout); the request was cancelled at the server"
    );
    assert!(waited >= Duration::from_millis(900), "{waited:?}");
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    // The child heard initialize, then its cancellation (2025-11-25
    // basic/utilities/cancellation), each line whole.
    let first = said
        .recv_timeout(Duration::from_secs(5))
        .expect("initialize");
    assert_eq!(
        first,
        initialize("2025-11-25"),
        "the client's line, as it sent it"
    );
    let second = said
        .recv_timeout(Duration::from_secs(5))
        .expect("notifications/cancelled");
    assert_eq!(
        second,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"the HTTP client stopped waiting for this request"}}"#
    );
}

/// Issue 30 §16: like `tap`, beyond loopback only with --allow-remote, unless
/// --auth-server protects it; `serve --http` the same.
#[test]
fn a_bridge_or_server_beyond_loopback_needs_allow_remote() {
    for sub in [&["bridge"][..], &["serve", "--http"][..]] {
        // --allow-remote is the CLI's own refusal (its stderr, its exit status): a process.
        let mut command = Command::new(BIN);
        command.args(sub).args(["--host", "0.0.0.0", "--port", "0"]);
        if sub[0] == "bridge" {
            command.args(["--probe-timeout", "0", "--", BIN, "serve"]);
        }
        let out = command.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{sub:?}: {err}");
        assert_eq!(
            err,
            "mcp-raw: --host 0.0.0.0: not a loopback address, and no --auth-server protects it (anyone who can reach it could use it); add --allow-remote to listen there anyway\n",
            "{sub:?}"
        );
        for allowed in [
            &["--allow-remote"][..],
            &["--auth-server", "http://127.0.0.1:1"][..],
        ] {
            // --allow-remote is the CLI's own refusal (its stderr, its exit status): a process.
            let mut command = Command::new(BIN);
            command
                .args(sub)
                .args(["--host", "0.0.0.0", "--port", "0"])
                .args(allowed);
            if sub[0] == "bridge" {
                command.args(["--probe-timeout", "0", "--", BIN, "serve"]);
            }
            let server = HttpServer::spawn(command);
            assert!(server.addr.starts_with("0.0.0.0:"), "{}", server.addr);
        }
    }
}
