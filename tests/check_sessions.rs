//! `check`'s rules about how a legacy HTTP session is ended and resumed, the ones real
//! clients and servers get wrong: a server that answers an ended session with
//! anything but 404 (`http/ended-session-not-404`) or a session it does not know with
//! 400 (`http/unknown-session-400`), a client that never sends DELETE
//! (`http/session-not-deleted`), a client that resumes a stream sooner than its
//! `retry:` asked (`sse/retry-ignored`). Each on a recording written by hand with
//! known stamps (tests/common/made.rs) that breaks it, and one that does not; run
//! through the command line in-process.

mod common;
use common::cli_inproc::cli_here;
use common::made::{Made, request, result};
use serde_json::{Value, json};

fn scratch(name: &str) -> std::path::PathBuf {
    common::scratch("check-sessions", name).join("r.jsonl")
}

/// The rules `check --format json` reports for `m`, each with its message.
fn findings(name: &str, m: &Made) -> Vec<(String, String)> {
    let file = scratch(name);
    m.write(&file);
    let out = cli_here(["check", "--format", "json", file.to_str().unwrap()]);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), out.err()));
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// A legacy session `s1` begun on lane c1: initialize (its response issues `s1`),
/// then notifications/initialized.
fn session() -> Made {
    let mut m = Made::new("http");
    m.post(
        0,
        "c1",
        None,
        request(
            1,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        ),
    )
    .reply(
        5,
        "c1",
        Some("s1"),
        result(
            1,
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}),
        ),
    )
    .post(
        6,
        "c1",
        Some("s1"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .bytes(7, "c1", "s2c", "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n");
    m
}

/// A request head of `method` for session `id` on `lane` (no body).
fn head(m: &mut Made, ms: u64, lane: &str, method: &str, id: &str, extra: &str) {
    m.bytes(
        ms,
        lane,
        "c2s",
        &format!(
            "{method} /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-11-25\r\nmcp-session-id: {id}\r\n{extra}\r\n"
        ),
    );
}

fn status(m: &mut Made, ms: u64, lane: &str, line: &str) {
    m.bytes(
        ms,
        lane,
        "s2c",
        &format!("HTTP/1.1 {line}\r\ncontent-length: 0\r\n\r\n"),
    );
}

#[test]
fn a_session_ended_by_delete_is_404_from_then_on() {
    // Broken: after the DELETE was accepted, a request for the session got 400.
    let mut m = session();
    head(&mut m, 10, "c1", "DELETE", "s1", "");
    status(&mut m, 11, "c1", "204 No Content");
    m.post(20, "c2", Some("s1"), request(2, "ping", json!({})));
    status(&mut m, 21, "c2", "400 Bad Request");
    let found = findings("ended-400", &m);
    assert!(
        found.contains(&(
            "http/ended-session-not-404".into(),
            "POST /mcp HTTP/1.1 for session \"s1\", whose DELETE the server accepted".into()
        )),
        "{found:?}"
    );
    // Kept: 404.
    let mut m = session();
    head(&mut m, 10, "c1", "DELETE", "s1", "");
    status(&mut m, 11, "c1", "204 No Content");
    m.post(20, "c2", Some("s1"), request(2, "ping", json!({})));
    status(&mut m, 21, "c2", "404 Not Found");
    let found = findings("ended-404", &m);
    assert!(
        found
            .iter()
            .all(|(r, _)| r != "http/ended-session-not-404" && r != "http/session-not-deleted"),
        "{found:?}"
    );
}

#[test]
fn a_session_the_server_never_issued_answered_400_is_said() {
    let mut m = session();
    m.post(20, "c2", Some("s-forged"), request(2, "ping", json!({})));
    status(&mut m, 21, "c2", "400 Bad Request");
    head(&mut m, 30, "c1", "DELETE", "s1", "");
    status(&mut m, 31, "c1", "204 No Content");
    let found = findings("unknown-400", &m);
    assert!(
        found.contains(&(
            "http/unknown-session-400".into(),
            "400 for session \"s-forged\", which the server never issued here".into()
        )),
        "{found:?}"
    );
    // 404 for it is what the spec asks: only the unknown id itself is said (a warning
    // that was there before: the client named a session nobody issued).
    let mut m = session();
    m.post(20, "c2", Some("s-forged"), request(2, "ping", json!({})));
    status(&mut m, 21, "c2", "404 Not Found");
    head(&mut m, 30, "c1", "DELETE", "s1", "");
    status(&mut m, 31, "c1", "204 No Content");
    let rules: Vec<String> = findings("unknown-404", &m)
        .into_iter()
        .map(|f| f.0)
        .collect();
    assert!(
        !rules.contains(&"http/unknown-session-400".to_owned()),
        "{rules:?}"
    );
}

#[test]
fn a_session_never_deleted_is_said_at_its_issue() {
    let m = session();
    let found = findings("not-deleted", &m);
    assert!(
        found.contains(&(
            "http/session-not-deleted".into(),
            "session \"s1\", issued here, ends with the recording: no DELETE sent".into()
        )),
        "{found:?}"
    );
    // A DELETE the server refused (405: it does not let clients end sessions) still
    // counts as the client's: it asked.
    let mut m = session();
    head(&mut m, 10, "c1", "DELETE", "s1", "");
    status(&mut m, 11, "c1", "405 Method Not Allowed");
    let rules: Vec<String> = findings("deleted-405", &m)
        .into_iter()
        .map(|f| f.0)
        .collect();
    assert!(
        !rules.contains(&"http/session-not-deleted".to_owned()),
        "{rules:?}"
    );
}

/// A GET stream that sets `retry: 3000` and ends at 100 ms; a resumption at 500 ms is
/// too soon, one at 3200 ms is not.
fn resumed_at(ms: u64) -> Made {
    let mut m = session();
    head(&mut m, 20, "c2", "GET", "s1", "");
    m.bytes(
        21,
        "c2",
        "s2c",
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
    );
    m.bytes(
        22,
        "c2",
        "s2c",
        "1f\r\nid: e1\r\nretry: 3000\r\ndata: \r\n\r\n\r\n",
    );
    m.bytes(100, "c2", "s2c", "0\r\n\r\n");
    head(&mut m, ms, "c3", "GET", "s1", "last-event-id: e1\r\n");
    status(&mut m, ms + 1, "c3", "405 Method Not Allowed");
    head(&mut m, ms + 10, "c1", "DELETE", "s1", "");
    status(&mut m, ms + 11, "c1", "204 No Content");
    m
}

#[test]
fn a_stream_resumed_sooner_than_its_retry_is_said() {
    let found = findings("retry-soon", &resumed_at(500));
    assert!(
        found.contains(&(
            "sse/retry-ignored".into(),
            "GET /mcp HTTP/1.1 400 ms after the stream ended; its retry: asked for 3000 ms".into()
        )),
        "{found:?}"
    );
    let rules: Vec<String> = findings("retry-later", &resumed_at(3200))
        .into_iter()
        .map(|f| f.0)
        .collect();
    assert!(
        !rules.contains(&"sse/retry-ignored".to_owned()),
        "{rules:?}"
    );
}
