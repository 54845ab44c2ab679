//! Streamable HTTP in the stateless 2026-07-28 era, and both eras on one endpoint,
//! served in-process (the server `serve --http [--era ERA]` runs) in raw HTTP/1.1
//! bytes.

mod common;
use common::{Http, InProcess, initialize};
use mcp_raw_core::{Eras, Server};

/// `serve --http --era ERA` (the demo tools), in-process.
fn era(eras: Eras) -> InProcess {
    InProcess::start(Server::new(mcp_raw_core::content::demo::tool_set(), eras))
}
use serde_json::{Value, json};

const V: &str = "2026-07-28";

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"}
    })
}

fn body(id: i64, method: &str, mut params: Value) -> String {
    params["_meta"] = meta();
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string()
}

/// The standard headers a modern client sends for this method (and name).
fn std_headers<'a>(method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![("MCP-Protocol-Version", V), ("Mcp-Method", method)];
    if let Some(n) = name {
        h.push(("Mcp-Name", n));
    }
    h
}

fn error_code(r: &common::HttpReply) -> Value {
    r.json()["error"]["code"].clone()
}

#[test]
fn discover_and_list_are_stateless_json() {
    let s = InProcess::demo();
    let r = s.post(
        &std_headers("server/discover", None),
        &body(1, "server/discover", json!({})),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.header("mcp-session-id"),
        None,
        "no session is ever minted"
    );
    let d = r.json();
    assert_eq!(d["result"]["resultType"], "complete");
    assert_eq!(d["result"]["supportedVersions"], json!([V]));
    assert_eq!(
        d["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-raw"
    );
    assert!(d["result"]["ttlMs"].is_u64() && d["result"]["cacheScope"] == "public");

    let r = s.post(
        &std_headers("tools/list", None),
        &body(2, "tools/list", json!({})),
    );
    assert_eq!(r.status, 200);
    let l = r.json();
    assert_eq!(l["result"]["tools"].as_array().unwrap().len(), 3);
    assert_eq!(l["result"]["cacheScope"], "public");
}

#[test]
fn tools_call_streams_one_event_with_result_type() {
    let s = InProcess::demo();
    let r = s.post(
        &std_headers("tools/call", Some("echo")),
        &body(
            3,
            "tools/call",
            json!({"name":"echo","arguments":{"message":"hi"}}),
        ),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert_eq!(r.header("x-accel-buffering"), Some("no"));
    let msgs = r.sse_messages();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0]["result"]["resultType"], "complete");
    assert_eq!(msgs[0]["result"]["content"][0]["text"], "hi");

    let r = s.post(
        &std_headers("tools/call", Some("add")),
        &body(
            4,
            "tools/call",
            json!({"name":"add","arguments":{"a":"x","b":1}}),
        ),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.sse_messages()[0]["result"]["isError"], true);
}

#[test]
fn validation_order_and_statuses() {
    let s = InProcess::demo();
    // 1. No MCP-Protocol-Version header (the _meta makes it modern): -32020.
    let r = s.post(
        &[("Mcp-Method", "tools/list")],
        &body(10, "tools/list", json!({})),
    );
    assert_eq!((r.status, error_code(&r)), (400, json!(-32020)));
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":10,"error":{"code":-32020,"message":"Header mismatch: the MCP-Protocol-Version header is required and must equal params._meta[\"io.modelcontextprotocol/protocolVersion\"]"}}"#
    );
    assert_eq!(r.json()["id"], 10, "errors echo the request id");

    // 2. _meta missing or incomplete: -32602 with 400.
    let r = s.post(
        &std_headers("server/discover", None),
        r#"{"jsonrpc":"2.0","id":11,"method":"server/discover","params":{}}"#,
    );
    assert_eq!((r.status, error_code(&r)), (400, json!(-32602)));
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"params._meta must carry \"io.modelcontextprotocol/protocolVersion\" and \"io.modelcontextprotocol/clientCapabilities\": in 2026-07-28 every request declares its protocol version and client capabilities (basic/index \"_meta\")"}}"#
    );
    let no_caps = json!({"jsonrpc":"2.0","id":12,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":V}}});
    let r = s.post(&std_headers("server/discover", None), &no_caps.to_string());
    assert_eq!((r.status, error_code(&r)), (400, json!(-32602)));
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":12,"error":{"code":-32602,"message":"params._meta must carry \"io.modelcontextprotocol/clientCapabilities\": in 2026-07-28 every request declares its protocol version and client capabilities (basic/index \"_meta\")"}}"#
    );
    // clientInfo is optional.
    let no_info = json!({"jsonrpc":"2.0","id":13,"method":"server/discover","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":V,"io.modelcontextprotocol/clientCapabilities":{}}}});
    assert_eq!(
        s.post(&std_headers("server/discover", None), &no_info.to_string())
            .status,
        200
    );

    // 3. Header and _meta disagree: -32020 wins over the unsupported version.
    let v999 = |id: i64| {
        json!({"jsonrpc":"2.0","id":id,"method":"server/discover","params":{"_meta":{
            "io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}})
        .to_string()
    };
    let r = s.post(&std_headers("server/discover", None), &v999(14));
    assert_eq!((r.status, error_code(&r)), (400, json!(-32020)));
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":14,"error":{"code":-32020,"message":"Header mismatch: MCP-Protocol-Version header \"2026-07-28\" does not match params._meta version \"v999.0.0\""}}"#
    );

    // 4. Both say v999.0.0: -32022 listing what is supported.
    let r = s.post(
        &[
            ("MCP-Protocol-Version", "v999.0.0"),
            ("Mcp-Method", "server/discover"),
        ],
        &v999(15),
    );
    assert_eq!((r.status, error_code(&r)), (400, json!(-32022)));
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":15,"error":{"code":-32022,"message":"Unsupported protocol version: v999.0.0 (this server serves 2026-07-28 per request)","data":{"supported":["2026-07-28"],"requested":"v999.0.0"}}}"#
    );
    assert_eq!(
        r.json()["error"]["data"],
        json!({"supported": [V], "requested": "v999.0.0"})
    );

    // 5. Unknown and removed methods: 404 with -32601.
    for m in [
        "unknown/method",
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
    ] {
        let r = s.post(&std_headers(m, None), &body(16, m, json!({})));
        assert_eq!((r.status, error_code(&r)), (404, json!(-32601)), "{m}");
        let why = if m == "unknown/method" {
            String::new()
        } else {
            " (removed in 2026-07-28: there is no handshake or session; each request carries its own _meta)".to_owned()
        };
        assert_eq!(
            r.text(),
            format!(
                r#"{{"jsonrpc":"2.0","id":16,"error":{{"code":-32601,"message":"Method not found: {m}{why}"}}}}"#
            )
        );
    }
}

#[test]
fn mirrored_headers_must_match_the_body() {
    let s = InProcess::demo();
    let call = body(
        20,
        "tools/call",
        json!({"name":"echo","arguments":{"message":"x"}}),
    );
    let cases: [(&[(&str, &str)], u16); 7] = [
        (&[("MCP-Protocol-Version", V)], 400), // no Mcp-Method
        (
            &[("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")],
            400,
        ), // wrong method
        (
            &[("MCP-Protocol-Version", V), ("Mcp-Method", "tools/call")],
            400,
        ), // no Mcp-Name
        (
            &[
                ("MCP-Protocol-Version", V),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "add"),
            ],
            400,
        ),
        (
            &[
                ("MCP-Protocol-Version", V),
                ("Mcp-Method", "TOOLS/CALL"),
                ("Mcp-Name", "echo"),
            ],
            400,
        ), // values are case-sensitive
        (
            &[
                ("MCP-Protocol-Version", V),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "=?base64?!!?="),
            ],
            400,
        ),
        (
            &[
                ("mcp-protocol-version", V),
                ("MCP-METHOD", " tools/call "),
                ("mcp-name", "=?base64?ZWNobw==?="),
            ],
            200,
        ), // names any case, OWS trimmed, Base64
    ];
    // What each 400 says, in the order of the cases (the whole body).
    let mut mismatches = [
        r#"the Mcp-Method header is required"#,
        r#"Mcp-Method header \"tools/list\" does not match body method \"tools/call\""#,
        r#"the Mcp-Name header is required for tools/call"#,
        r#"Mcp-Name header value \"add\" does not match body value \"echo\""#,
        r#"Mcp-Method header \"TOOLS/CALL\" does not match body method \"tools/call\""#,
        r#"Mcp-Name: invalid Base64 in \"=?base64?!!?=\": Invalid symbol 33, offset 0."#,
    ]
    .into_iter();
    for (headers, status) in cases {
        let r = s.post(headers, &call);
        assert_eq!(r.status, status, "{headers:?}: {}", r.text());
        if status == 400 {
            let says = mismatches.next().unwrap();
            assert_eq!(
                r.text(),
                format!(
                    r#"{{"jsonrpc":"2.0","id":20,"error":{{"code":-32020,"message":"Header mismatch: {says}"}}}}"#
                ),
                "{headers:?}"
            );
        }
    }
    assert_eq!(mismatches.next(), None, "every 400 case was seen");
}

#[test]
fn session_headers_are_ignored_in_the_modern_era() {
    let s = InProcess::demo();
    let mut h = std_headers("tools/list", None);
    h.push(("Mcp-Session-Id", "not-a-session"));
    h.push(("Last-Event-ID", "42"));
    let r = s.post(&h, &body(30, "tools/list", json!({})));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("mcp-session-id"), None);
    let get = s.request(
        "GET",
        &[("Accept", "text/event-stream"), ("MCP-Protocol-Version", V)],
        "",
    );
    assert_eq!(get.status, 405);
}

#[test]
fn both_eras_are_served_concurrently_on_one_endpoint() {
    let s = InProcess::demo();
    let session = s.open_session("2025-11-25");
    let legacy = s.post(
        &[
            ("Mcp-Session-Id", &session),
            ("MCP-Protocol-Version", "2025-11-25"),
        ],
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    );
    assert!(legacy.json()["result"].get("resultType").is_none());
    let modern = s.post(
        &std_headers("tools/list", None),
        &body(2, "tools/list", json!({})),
    );
    assert_eq!(modern.json()["result"]["resultType"], "complete");
    // DELETE still ends the legacy session.
    assert_eq!(
        s.request("DELETE", &[("Mcp-Session-Id", &session)], "")
            .status,
        204
    );
    assert_eq!(
        s.post(
            &std_headers("tools/list", None),
            &body(3, "tools/list", json!({}))
        )
        .status,
        200
    );
}

#[test]
fn a_modern_only_server_refuses_legacy_clients_with_its_versions() {
    let s = era(Eras::Modern);
    let r = s.post(&[], &initialize("2025-11-25"));
    assert_eq!((r.status, error_code(&r)), (400, json!(-32022)));
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"This server speaks only protocol version 2026-07-28 (stateless, no initialize handshake); initialize asked for \"2025-11-25\". Send each request with params._meta[\"io.modelcontextprotocol/protocolVersion\"] instead.","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}"#
    );
    assert_eq!(r.header("mcp-session-id"), None);
    let r = s.request("DELETE", &[("Mcp-Session-Id", "x")], "");
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST"));
    // A request without _meta or headers: a malformed modern request.
    let r = s.post(&[], r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!((r.status, error_code(&r)), (400, json!(-32020)));
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch: the MCP-Protocol-Version header is required and must equal params._meta[\"io.modelcontextprotocol/protocolVersion\"]"}}"#
    );
    assert!(
        s.post(
            &std_headers("tools/list", None),
            &body(2, "tools/list", json!({}))
        )
        .status
            == 200
    );
}

#[test]
fn a_legacy_only_server_answers_modern_requests_with_legacy_errors() {
    let s = era(Eras::Legacy);
    let r = s.post(
        &std_headers("server/discover", None),
        &body(1, "server/discover", json!({})),
    );
    assert_eq!(r.status, 400);
    // Not a modern error code: a dual-era client reads this as "legacy, fall back".
    let code = error_code(&r).as_i64().unwrap();
    assert!(![-32020, -32021, -32022, -32601].contains(&code), "{code}");
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Mcp-Session-Id header is required; send initialize first to get one"}}"#
    );
}

#[test]
fn a_dual_era_server_never_lists_the_method_it_refuses() {
    // RFC 9110 §15.5.6: Allow lists what the resource allows. A modern DELETE or GET
    // (2026-07-28 has no sessions and no GET stream) may only POST; a legacy GET on a
    // server that never pushes may POST or DELETE its session.
    let s = InProcess::demo();
    for method in ["DELETE", "GET"] {
        let r = s.request(method, &[("MCP-Protocol-Version", V)], "");
        assert_eq!(r.status, 405, "{method}");
        assert_eq!(r.header("allow"), Some("POST"), "modern {method}");
    }
    let r = s.request(
        "PUT",
        &[
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Session-Id", "x"),
        ],
        "",
    );
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("POST, DELETE"));
}
