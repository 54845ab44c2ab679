//! The Streamable HTTP transport, served in-process on an ephemeral port (the same
//! server `serve --http` runs, flags mapped to its `http::Config`), in raw HTTP/1.1
//! bytes. Only the refusal of a bad `--session-id-prefix` runs the binary: its exit
//! status and stderr are the subject.

mod common;
use common::{Http, InProcess, demo_server, initialize};
use serde_json::json;

const LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

fn session_header(id: &str) -> [(&str, &str); 1] {
    [("Mcp-Session-Id", id)]
}

#[test]
fn initialize_mints_a_uuid_session_and_answers_json() {
    let s = InProcess::demo();
    let r = s.post(&[], &initialize("2025-11-25"));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.text(),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"mcp-raw","version":"{}"}}}}}}"#,
            env!("CARGO_PKG_VERSION")
        )
    );
    let id = r.header("mcp-session-id").unwrap();
    let uuid = uuid::Uuid::parse_str(id).unwrap();
    assert_eq!(uuid.get_version_num(), 4);
    let body = r.json();
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(body["result"]["serverInfo"]["name"], "mcp-raw");

    let other = s.post(&[], &initialize("2025-11-25"));
    assert_ne!(
        other.header("mcp-session-id"),
        Some(id),
        "each initialize gets a new id"
    );
}

/// `--session-id-prefix`: a replica behind a load balancer names itself in every id
/// it issues (deploy/nginx routes by it); the id still opens its session, and a
/// prefix that is not visible ASCII never starts a server.
#[test]
fn a_session_id_prefix_starts_every_id_and_must_be_visible_ascii() {
    let s = InProcess::with(demo_server(), common::prefixed("r7."));
    let r = s.post(&[], &initialize("2025-11-25"));
    let id = r.header("mcp-session-id").unwrap().to_owned();
    let uuid = id.strip_prefix("r7.").expect("the prefix comes first");
    assert_eq!(uuid::Uuid::parse_str(uuid).unwrap().get_version_num(), 4);
    let r = s.post(&session_header(&id), LIST);
    assert_eq!(r.status, 200, "{}", r.text());

    let long = "x".repeat(65);
    for (bad, says) in [
        (
            "r 1",
            "a session id holds visible ASCII only (0x21 to 0x7E, 2025-11-25 basic/transports §Session Management); \"r 1\" has ' '".to_owned(),
        ),
        (
            &*long,
            format!("a session id prefix is at most 64 bytes, \"{long}\" has 65"),
        ),
    ] {
        // --session-id-prefix refused by the CLI (its stderr, its exit status).
        let out = common::cli_inproc::cli_here([
            "serve",
            "--http",
            "--port",
            "0",
            "--session-id-prefix",
            bad,
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert_eq!(
            stderr,
            format!(
                "error: invalid value '{bad}' for '--session-id-prefix <PREFIX>': {says}\n\nFor more information, try '--help'.\n"
            )
        );
    }
}

#[test]
fn initialize_carrying_a_session_id_is_400() {
    let s = InProcess::demo();
    let id = s.open_session("2025-11-25");
    let r = s.post(&session_header(&id), &initialize("2025-11-25"));
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["error"]["message"],
        "Bad Request: initialize must be sent without Mcp-Session-Id: it starts a new session"
    );
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: initialize must be sent without Mcp-Session-Id: it starts a new session"}}"#
    );
}

#[test]
fn a_failed_initialize_creates_no_session() {
    let s = InProcess::demo();
    let r = s.post(
        &[],
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["error"]["code"], -32602);
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"initialize: missing params.protocolVersion"}}"#
    );
    assert_eq!(r.header("mcp-session-id"), None);
}

#[test]
fn missing_session_is_400_and_unknown_is_404() {
    let s = InProcess::demo();
    let r = s.post(&[], LIST);
    assert_eq!(r.status, 400);
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Mcp-Session-Id header is required; send initialize first to get one"}}"#
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    let e = r.json();
    assert_eq!(e["id"], serde_json::Value::Null);
    assert_eq!(
        e["error"]["message"],
        "Bad Request: Mcp-Session-Id header is required; send initialize first to get one"
    );

    let r = s.post(&session_header("no-such-session"), LIST);
    assert_eq!(r.status, 404);
    assert_eq!(
        r.json()["error"]["message"],
        "Session not found: \"no-such-session\" is unknown or was terminated; send initialize without Mcp-Session-Id to start a new session"
    );
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found: \"no-such-session\" is unknown or was terminated; send initialize without Mcp-Session-Id to start a new session"}}"#
    );

    let r = s.post(&session_header("bad id"), LIST);
    assert_eq!(
        r.status, 400,
        "a session id with a space is not visible ASCII"
    );
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Mcp-Session-Id must be visible ASCII (0x21-0x7E), got \"bad id\""}}"#
    );
}

#[test]
fn lifecycle_is_enforced_per_session() {
    let s = InProcess::demo();
    let r = s.post(&[], &initialize("2025-11-25"));
    let id = r.header("mcp-session-id").unwrap().to_owned();
    let r = s.post(&session_header(&id), LIST);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["error"]["code"], -32002);
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"Server not initialized: initialize was answered, but tools/list waits for notifications/initialized"}}"#
    );
    let r = s.post(
        &session_header(&id),
        r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#,
    );
    assert_eq!(r.json(), json!({"jsonrpc":"2.0","id":9,"result":{}}));
}

#[test]
fn tools_list_is_json_and_tools_call_is_one_sse_event() {
    let s = InProcess::demo();
    let id = s.open_session("2025-11-25");
    let r = s.post(&session_header(&id), LIST);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["tools"].as_array().unwrap().len(), 3);

    let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#;
    let r = s.post(&session_header(&id), call);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert_eq!(r.header("cache-control"), Some("no-cache"));
    assert_eq!(
        r.text(),
        "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\n\n"
    );

    let bad = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":"x","b":1}}}"#;
    let msgs = s.post(&session_header(&id), bad).sse_messages();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0]["result"]["isError"], true);
    assert_eq!(
        s.post(&session_header(&id), bad).text(),
        "data: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"argument \\\"a\\\" must be a number, got a string (\\\"x\\\")\"}],\"isError\":true}}\n\n"
    );

    let r = s.post(
        &session_header(&id),
        r#"{"jsonrpc":"2.0","id":5,"method":"bogus"}"#,
    );
    assert_eq!(
        r.json()["error"],
        json!({"code":-32601,"message":"Method not found: bogus"})
    );
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found: bogus"}}"#
    );
}

#[test]
fn notifications_and_responses_get_202_with_no_body() {
    let s = InProcess::demo();
    let id = s.open_session("2025-11-25");
    for body in [
        r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
        r#"{"jsonrpc":"2.0","id":77,"result":{}}"#,
    ] {
        let r = s.post(&session_header(&id), body);
        assert_eq!(r.status, 202, "{body}");
        assert!(r.body.is_empty());
    }
}

#[test]
fn get_is_405_with_allow_and_a_reason() {
    let s = InProcess::demo();
    let id = s.open_session("2025-11-25");
    let r = s.request(
        "GET",
        &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &id)],
        "",
    );
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST, DELETE"));
    assert_eq!(
        r.text(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Method Not Allowed: this server offers no GET stream because it never pushes messages unprompted; every response arrives on the POST that asked for it\"}}"
    );
    let r = s.request("PUT", &[], "");
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST, DELETE"));
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Method Not Allowed: PUT /mcp; use POST to send messages, DELETE to end a session"}}"#
    );
}

#[test]
fn delete_ends_a_session_and_its_id_is_then_404() {
    let s = InProcess::demo();
    let id = s.open_session("2025-11-25");
    assert_eq!(s.request("DELETE", &[], "").status, 400);
    assert_eq!(s.request("DELETE", &session_header("nope"), "").status, 404);
    assert_eq!(s.request("DELETE", &session_header(&id), "").status, 204);
    assert_eq!(s.post(&session_header(&id), LIST).status, 404);
    assert_eq!(s.request("DELETE", &session_header(&id), "").status, 404);
}

#[test]
fn protocol_version_header_must_be_supported() {
    let s = InProcess::demo();
    let id = s.open_session("2025-11-25");
    let r = s.post(
        &[
            ("Mcp-Session-Id", &id),
            ("MCP-Protocol-Version", "1999-01-01"),
        ],
        LIST,
    );
    assert_eq!(r.status, 400);
    assert_eq!(
        r.text(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Bad Request: Unsupported MCP-Protocol-Version \\\"1999-01-01\\\"; supported: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05\"}}"
    );
    for v in ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] {
        let r = s.post(
            &[("Mcp-Session-Id", &id), ("MCP-Protocol-Version", v)],
            LIST,
        );
        assert_eq!(r.status, 200, "{v}");
    }
    // Absent: treated as 2025-03-26, which is supported.
    assert_eq!(s.post(&session_header(&id), LIST).status, 200);
}

#[test]
fn foreign_origins_are_403_loopback_origins_pass() {
    let s = InProcess::demo();
    let r = s.post(
        &[("Origin", "http://evil.example")],
        &initialize("2025-11-25"),
    );
    assert_eq!(r.status, 403);
    assert_eq!(
        r.text(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Forbidden: Origin \\\"http://evil.example\\\" is not a host this server answers to (localhost, 127.0.0.1, [::1], or one given with --allow-host); DNS-rebinding protection\"}}"
    );
    assert_eq!(r.header("mcp-session-id"), None);
    assert_eq!(
        s.request("GET", &[("Origin", "https://attacker.test")], "")
            .status,
        403
    );
    for origin in [
        "http://localhost:5173",
        "http://127.0.0.1",
        "http://[::1]:8080",
    ] {
        let r = s.post(&[("Origin", origin)], &initialize("2025-11-25"));
        assert_eq!(r.status, 200, "{origin}");
    }
}

#[test]
fn accept_content_type_and_size_are_checked() {
    let s = InProcess::limited(
        demo_server(),
        mcp_raw_net::transport::http::Limits {
            max_body: 1000,
            ..Default::default()
        },
    );
    let json_only = s.request(
        "POST",
        &[
            ("Accept", "application/json"),
            ("Content-Type", "application/json"),
        ],
        &initialize("2025-11-25"),
    );
    assert_eq!(json_only.status, 406);
    assert_eq!(
        json_only.text(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Not Acceptable: Accept must list both application/json and text/event-stream, got \\\"application/json\\\"\"}}"
    );
    let text = s.request(
        "POST",
        &[
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "text/plain"),
        ],
        &initialize("2025-11-25"),
    );
    assert_eq!(text.status, 415);
    assert_eq!(
        text.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Unsupported Media Type: Content-Type must be application/json, got \"text/plain\""}}"#
    );
    let big = format!(
        r#"{{"jsonrpc":"2.0","method":"x","params":{{"pad":"{}"}}}}"#,
        "a".repeat(2000)
    );
    let r = s.post(&[], &big);
    assert_eq!(r.status, 413);
    assert_eq!(
        r.text(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Payload Too Large: the body exceeds the 1000-byte limit (serve --max-body-bytes)\"}}"
    );

    // Chunked, so no Content-Length to check up front: refused while streaming.
    let chunk = "a".repeat(600);
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n{chunk}\r\n258\r\n{chunk}\r\n0\r\n\r\n",
        s.addr
    );
    assert_eq!(s.raw(req.as_bytes()).status, 413);
}

#[test]
fn malformed_json_is_400_parse_error_and_other_paths_404() {
    let s = InProcess::demo();
    let r = s.post(&[], "{nope");
    assert_eq!(r.status, 400);
    let e = r.json();
    assert_eq!(e["id"], serde_json::Value::Null);
    assert_eq!(e["error"]["code"], -32700);
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: key must be a string at line 1 column 2"}}"#
    );
    let r = s.raw(
        format!(
            "POST /other HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
            s.addr
        )
        .as_bytes(),
    );
    assert_eq!(r.status, 404);
    assert_eq!(
        r.text(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Not Found: /other (the MCP endpoint is /mcp)\"}}"
    );
}

#[test]
fn batches_are_refused_after_2025_06_18_and_served_before() {
    let s = InProcess::demo();
    let id = s.open_session("2025-11-25");
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"}]"#;
    let r = s.post(&session_header(&id), batch);
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32600);
    assert_eq!(
        r.text(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Invalid Request: JSON-RPC batches are not supported in protocol version 2025-11-25 (removed in 2025-06-18); send one message at a time\"}}"
    );

    let old = s.open_session("2025-03-26");
    let r = s.post(&session_header(&old), batch);
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!([{"jsonrpc":"2.0","id":1,"result":{}}]));
    assert_eq!(r.text(), r#"[{"jsonrpc":"2.0","id":1,"result":{}}]"#);
    let r = s.post(
        &session_header(&old),
        r#"[{"jsonrpc":"2.0","method":"notifications/x"}]"#,
    );
    assert_eq!(r.status, 202);
}

#[test]
fn sessions_are_isolated_and_garbage_does_not_stop_the_server() {
    let s = InProcess::demo();
    let a = s.open_session("2025-11-25");
    let r = s.post(&[], &initialize("2025-11-25"));
    let b = r.header("mcp-session-id").unwrap().to_owned();
    // b has not sent notifications/initialized; a has.
    assert_eq!(
        s.post(&session_header(&b), LIST).json()["error"]["code"],
        -32002
    );
    assert!(s.post(&session_header(&a), LIST).json()["result"].is_object());

    // Raw garbage, a half request, then a hang-up.
    let garbage = s.raw(b"\x00\x01GARBAGE\r\n\r\n");
    assert_eq!(garbage.status, 400);
    {
        use std::io::Write;
        let mut half = std::net::TcpStream::connect(&s.addr).unwrap();
        half.write_all(b"POST /mcp HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
            .unwrap();
    }
    assert_eq!(s.request("DELETE", &session_header(&b), "").status, 204);
    assert!(s.post(&session_header(&a), LIST).json()["result"].is_object());
}

#[test]
fn foreign_host_headers_are_403_unless_allowed() {
    let post = |s: &InProcess, host: &str| {
        let body = initialize("2025-11-25");
        s.raw(
            format!(
                "POST /mcp HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
    };
    let s = InProcess::demo();
    let r = post(&s, "evil.example");
    assert_eq!(r.status, 403);
    assert_eq!(
        r.text(),
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"Forbidden: Host \\\"evil.example\\\" is not a host this server answers to (localhost, 127.0.0.1, [::1], or one given with --allow-host); DNS-rebinding protection\"}}"
    );
    assert_eq!(post(&s, "localhost:1234").status, 200);
    assert_eq!(post(&s, "[::1]").status, 200);

    let s = InProcess::with(demo_server(), common::allowing(&["mcp.example.com"]));
    assert_eq!(post(&s, "mcp.example.com:8080").status, 200);
    assert_eq!(post(&s, "evil.example").status, 403);
    let r = s.post(
        &[("Origin", "https://mcp.example.com")],
        &initialize("2025-11-25"),
    );
    assert_eq!(r.status, 200);
}
