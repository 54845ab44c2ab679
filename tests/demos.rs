//! Both demos run end to end against the real binary; their output must show the key
//! exchanges (and each demo checks every reply itself, failing on a wrong wire).

mod common;
use common::{BIN, unstamped};
use std::process::Command;

fn demo(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{args:?} failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !stdout.contains('\x1b'),
        "piped output must not be coloured"
    );
    unstamped(&stdout)
}

#[test]
fn stdio_demo_shows_the_whole_session() {
    let out = demo(&["demo"]);
    for needle in [
        ">>> {",
        "<<< {",
        "\"code\": -32002",
        "\"method\": \"initialize\"",
        "\"protocolVersion\": \"2025-11-25\"",
        "\"method\": \"notifications/initialized\"",
        "a notification is never answered",
        "\"name\": \"get_current_time\"",
        "\"text\": \"hello, wire\"",
        "\"text\": \"42\"",
        "\"message\": \"Method not found: bogus\"",
        "\"isError\": true",
        "[server stderr]",
        "exit status: 0",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
    // The notification's caption comes before ping's answer, with no reply between.
    let note = out
        .find("\"method\": \"notifications/initialized\"")
        .unwrap();
    let next_reply = out[note..].find("<<< {").unwrap() + note;
    assert!(
        out[next_reply..].starts_with(r#"<<< {"jsonrpc": "2.0", "id": 3, "result": {}}"#),
        "{}",
        &out[next_reply..]
    );
}

#[test]
fn stdio_demo_raw_prints_exact_lines() {
    let out = demo(&["demo", "--raw"]);
    assert!(
        out.contains(r#">>> {"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        "{out}"
    );
    assert!(out.contains(r#"<<< {"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found: bogus"}}"#));
}

#[test]
fn http_demo_shows_every_exchange() {
    let out = demo(&["demo-http", "--port", "0"]);
    for needle in [
        ">>> POST /mcp HTTP/1.1",
        ">>> accept: application/json, text/event-stream",
        "<<< HTTP/1.1 400 Bad Request",
        "<<< HTTP/1.1 200 OK",
        "<<< mcp-session-id: ",
        "<<< HTTP/1.1 202 Accepted",
        "<<< content-type: text/event-stream",
        "<<< data: {\n<<<   \"jsonrpc\": \"2.0\"",
        "\"isError\": true",
        "<<< HTTP/1.1 404 Not Found",
        ">>> GET /mcp HTTP/1.1",
        "<<< HTTP/1.1 405 Method Not Allowed",
        "<<< allow: POST, DELETE",
        ">>> DELETE /mcp HTTP/1.1",
        "<<< HTTP/1.1 204 No Content",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
    // The 404 after DELETE is the last exchange.
    let delete = out.find(">>> DELETE").unwrap();
    assert!(out[delete..].contains("<<< HTTP/1.1 404 Not Found"));
}

#[test]
fn stdio_demo_modern_shows_the_stateless_wire() {
    // `cargo demo -- --era modern` passes `demo -- --era modern` to the binary.
    let out = demo(&["demo", "--", "--era", "modern"]);
    for needle in [
        "\"method\": \"server/discover\"",
        "\"io.modelcontextprotocol/protocolVersion\": \"2026-07-28\"",
        "\"supportedVersions\": [\"2026-07-28\"]",
        "\"resultType\": \"complete\"",
        "\"ttlMs\": ",
        "\"code\": -32601",
        "\"code\": -32022",
        "\"isError\": true",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
    assert!(
        !out.contains("\"method\": \"initialize\""),
        "no handshake:\n{out}"
    );
}

#[test]
fn http_demo_modern_shows_headers_and_statuses() {
    let out = demo(&["demo-http", "--port", "0", "--era", "modern"]);
    for needle in [
        ">>> mcp-protocol-version: 2026-07-28",
        ">>> mcp-method: server/discover",
        ">>> mcp-name: get_current_time",
        ">>> mcp-name: echo",
        "<<< HTTP/1.1 404 Not Found",
        "\"code\": -32022",
        "\"code\": -32020",
        "<<< allow: POST",
        ">>> DELETE /mcp HTTP/1.1",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
    assert!(
        !out.contains("mcp-session-id"),
        "no session anywhere:\n{out}"
    );
    assert_eq!(
        out.matches("<<< HTTP/1.1 405 Method Not Allowed").count(),
        2
    );
}

#[test]
fn both_era_demos_put_the_two_wires_side_by_side() {
    let out = demo(&["demo", "--era", "both"]);
    let init = out.find("\"method\": \"initialize\"").unwrap();
    let modern = out
        .find("\"io.modelcontextprotocol/protocolVersion\"")
        .unwrap();
    assert!(init < modern, "legacy first, then modern");
    assert_eq!(
        out.matches("\"text\": \"42\"").count(),
        2,
        "the same call in both eras"
    );

    let out = demo(&["demo-http", "--port", "0", "--era", "both"]);
    assert!(out.contains("<<< mcp-session-id: ") && out.contains("<<< HTTP/1.1 204 No Content"));
    assert!(out.contains(">>> mcp-method: tools/call") && out.contains(">>> mcp-name: add"));
    assert!(out.contains("\"resultType\": \"complete\""));
    assert!(out.contains("there is nothing to DELETE"));
}
