// Over 500 lines: unit tests only, one scenario of the core after another.
//! The core, driven message by message with no I/O.

use super::*;
use crate::jsonrpc::{Parsed, parse};
use serde_json::json;

fn session() -> Session {
    Session::new(Server::new(crate::content::demo::tool_set(), Eras::Both))
}

/// Feeds one raw message and returns the reply as JSON (or `None`).
fn send(s: &mut Session, raw: Value) -> Option<Value> {
    let bytes = serde_json::to_vec(&raw).unwrap();
    let reply = match parse(&bytes) {
        Ok(Parsed::One(m)) => match s.handle(m) {
            context::Reply::Now(r) | context::Reply::Streamed(r) => Some(r),
            context::Reply::None => None,
            _ => panic!("not an immediate reply"),
        },
        Ok(Parsed::Batch(_)) => panic!("batch"),
        Err(e) => Some(e),
    };
    reply.map(|r| serde_json::from_slice(&r.to_bytes()).unwrap())
}

fn init(version: &str) -> Value {
    json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name":"t","version":"1"}}})
}

fn ready() -> Session {
    let mut s = session();
    send(&mut s, init(LATEST_VERSION)).unwrap();
    assert_eq!(
        send(
            &mut s,
            json!({"jsonrpc":"2.0","method":"notifications/initialized"})
        ),
        None
    );
    s
}

fn call(s: &mut Session, name: &str, args: Value) -> Value {
    send(
        s,
        json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":name,"arguments":args}}),
    )
    .unwrap()
}

#[test]
fn initialize_answers_version_capabilities_and_server_info() {
    let mut s = session();
    let r = send(&mut s, init("2025-11-25")).unwrap();
    assert_eq!(r["id"], 0);
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(r["result"]["capabilities"], json!({"tools": {}}));
    assert_eq!(r["result"]["serverInfo"]["name"], "mcp-raw");
    assert_eq!(
        r["result"]["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(
        s.phase(),
        Phase::Initializing {
            version: "2025-11-25"
        }
    );
}

#[test]
fn supported_versions_are_echoed_others_get_the_latest() {
    for v in SUPPORTED_VERSIONS {
        let r = send(&mut session(), init(v)).unwrap();
        assert_eq!(r["result"]["protocolVersion"], v);
    }
    for v in ["2023-01-01", "2099-01-01", "latest"] {
        let r = send(&mut session(), init(v)).unwrap();
        assert_eq!(r["result"]["protocolVersion"], LATEST_VERSION, "{v}");
    }
}

#[test]
fn initialize_with_bad_params_is_invalid_params() {
    for params in [
        json!({}),
        json!({"protocolVersion": 5}),
        json!({"protocolVersion":"2025-11-25","clientInfo":"x"}),
    ] {
        let mut s = session();
        let r = send(
            &mut s,
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":params}),
        )
        .unwrap();
        assert_eq!(r["error"]["code"], -32602, "{params}");
        assert_eq!(s.phase(), Phase::AwaitingInitialize);
    }
    let r = send(
        &mut session(),
        json!({"jsonrpc":"2.0","id":1,"method":"initialize"}),
    )
    .unwrap();
    assert_eq!(r["error"]["code"], -32602);
}

#[test]
fn second_initialize_is_an_error() {
    let mut s = ready();
    let r = send(&mut s, init(LATEST_VERSION)).unwrap();
    assert_eq!(r["error"]["code"], -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("already"));
    assert_eq!(
        s.phase(),
        Phase::Ready {
            version: LATEST_VERSION
        }
    );
}

#[test]
fn requests_before_initialized_get_32002_but_ping_works() {
    let mut s = session();
    for method in ["tools/list", "tools/call", "bogus"] {
        let r = send(&mut s, json!({"jsonrpc":"2.0","id":1,"method":method})).unwrap();
        assert_eq!(r["error"]["code"], -32002, "{method}");
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("Server not initialized")
        );
    }
    let r = send(&mut s, json!({"jsonrpc":"2.0","id":2,"method":"ping"})).unwrap();
    assert_eq!(r, json!({"jsonrpc":"2.0","id":2,"result":{}}));

    // After initialize but before notifications/initialized: still refused.
    send(&mut s, init(LATEST_VERSION)).unwrap();
    let r = send(
        &mut s,
        json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}),
    )
    .unwrap();
    assert_eq!(r["error"]["code"], -32002);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("notifications/initialized")
    );
}

#[test]
fn notifications_are_never_answered() {
    let mut s = session();
    assert_eq!(
        send(
            &mut s,
            json!({"jsonrpc":"2.0","method":"notifications/unknown"})
        ),
        None
    );
    // initialized before initialize changes nothing.
    assert_eq!(
        send(
            &mut s,
            json!({"jsonrpc":"2.0","method":"notifications/initialized"})
        ),
        None
    );
    assert_eq!(s.phase(), Phase::AwaitingInitialize);
    let mut s = ready();
    assert_eq!(
        send(
            &mut s,
            json!({"jsonrpc":"2.0","method":"bogus","params":{}})
        ),
        None
    );
}

#[test]
fn responses_from_the_client_are_accepted_silently() {
    let mut s = ready();
    assert_eq!(
        send(&mut s, json!({"jsonrpc":"2.0","id":99,"result":{}})),
        None
    );
    assert_eq!(
        send(
            &mut s,
            json!({"jsonrpc":"2.0","id":99,"error":{"code":1,"message":"x"}})
        ),
        None
    );
}

#[test]
fn tools_list_has_name_description_and_schema() {
    let mut s = ready();
    let r = send(
        &mut s,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
    )
    .unwrap();
    let tools = r["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 3);
    for t in tools {
        assert!(t["name"].is_string() && t["description"].is_string());
        assert_eq!(t["inputSchema"]["type"], "object");
    }
    assert_eq!(
        tools[1]["inputSchema"]["properties"]["message"]["type"],
        "string"
    );
}

#[test]
fn tools_call_wraps_the_result_as_text_content() {
    let mut s = ready();
    let r = call(&mut s, "echo", json!({"message": "hello"}));
    assert_eq!(
        r,
        json!({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}})
    );
    let r = call(&mut s, "add", json!({"a": 2, "b": 40}));
    assert_eq!(r["result"]["content"][0]["text"], "42");
    let r = call(&mut s, "get_current_time", json!({}));
    assert!(crate::clock::looks_like_rfc3339_utc(
        r["result"]["content"][0]["text"].as_str().unwrap()
    ));
    // Absent arguments are an empty object.
    let r = send(
        &mut s,
        json!({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_current_time"}}),
    )
    .unwrap();
    assert!(r["result"]["content"][0]["text"].is_string());
}

#[test]
fn a_tool_failure_is_a_result_with_is_error() {
    let mut s = ready();
    let r = call(&mut s, "add", json!({"a": "two", "b": 3}));
    assert!(r.get("error").is_none());
    assert_eq!(r["result"]["isError"], true);
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("\"a\""), "{text}");
}

#[test]
fn tools_call_protocol_errors_are_invalid_params() {
    let mut s = ready();
    let r = call(&mut s, "nope", json!({}));
    assert_eq!(r["error"]["code"], -32602);
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Unknown tool: nope")
    );
    for params in [
        json!({}),
        json!({"name": 3}),
        json!({"name":"echo","arguments":[1]}),
    ] {
        let r = send(
            &mut s,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":params}),
        )
        .unwrap();
        assert_eq!(r["error"]["code"], -32602, "{params}");
    }
    let r = send(
        &mut s,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call"}),
    )
    .unwrap();
    assert_eq!(r["error"]["code"], -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("params"));
}

#[test]
fn unknown_method_names_the_method() {
    let mut s = ready();
    let r = send(&mut s, json!({"jsonrpc":"2.0","id":"x","method":"bogus"})).unwrap();
    assert_eq!(
        r,
        json!({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found: bogus"}})
    );
}

#[test]
fn batches_only_in_batching_revisions() {
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
    let note = json!({"jsonrpc":"2.0","method":"notifications/x"});

    let mut s = ready();
    let e = s.handle_batch(vec![list.clone()]).unwrap_err();
    assert_eq!(e.outcome.unwrap_err().code, -32600);

    let mut s = session();
    assert!(s.handle_batch(vec![init("2025-03-26")]).is_err());
    send(&mut s, init("2025-03-26")).unwrap();
    send(
        &mut s,
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    );
    let out = s.handle_batch(vec![list, note.clone(), json!(5)]).unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].id, Some(1.into()));
    assert_eq!(out[1].outcome.as_ref().unwrap_err().code, -32600);
    assert!(s.handle_batch(vec![note]).unwrap().is_empty());
    assert!(s.handle_batch(vec![]).is_err());
    assert!(s.handle_batch(vec![init("2025-03-26")]).is_err());
}

// ---- The modern era (2026-07-28) and era selection ----

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    })
}

fn modern(s: &mut Session, id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = modern_meta();
    send(
        s,
        json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}),
    )
    .unwrap()
}

fn server_with(eras: Eras) -> Session {
    Session::new(Server::new(crate::content::demo::tool_set(), eras))
}

#[test]
fn discover_names_versions_capabilities_and_server() {
    let r = modern(&mut session(), 1, "server/discover", json!({}));
    let result = &r["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(result["capabilities"], json!({"tools": {}}));
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-raw"
    );
    assert_eq!(result["ttlMs"], super::modern::TTL_MS);
    assert_eq!(result["cacheScope"], "public");
    // resultType comes first on the wire.
    assert_eq!(
        result.as_object().unwrap().keys().next().unwrap(),
        "resultType"
    );
}

#[test]
fn modern_requests_need_no_handshake_and_carry_result_type() {
    let mut s = session();
    let list = modern(&mut s, 1, "tools/list", json!({}));
    assert_eq!(list["result"]["resultType"], "complete");
    assert_eq!(list["result"]["ttlMs"], super::modern::TTL_MS);
    assert_eq!(list["result"]["cacheScope"], "public");
    let names: Vec<_> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(
        names,
        [json!("get_current_time"), json!("echo"), json!("add")]
    );
    let again = modern(&mut s, 2, "tools/list", json!({}));
    assert_eq!(
        again["result"]["tools"], list["result"]["tools"],
        "deterministic order"
    );

    let call = modern(
        &mut s,
        3,
        "tools/call",
        json!({"name":"add","arguments":{"a":1,"b":2}}),
    );
    assert_eq!(call["result"]["resultType"], "complete");
    assert_eq!(call["result"]["content"][0]["text"], "3");
    assert!(call["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    let failed = modern(
        &mut s,
        4,
        "tools/call",
        json!({"name":"add","arguments":{"a":"x","b":2}}),
    );
    assert_eq!(failed["result"]["isError"], true);
    assert_eq!(failed["result"]["resultType"], "complete");
    // The legacy session was never touched.
    assert_eq!(s.phase(), Phase::AwaitingInitialize);
}

#[test]
fn modern_errors_follow_the_2026_codes() {
    let mut s = session();
    // Missing _meta fields: -32602.
    for meta in [
        json!({"io.modelcontextprotocol/clientCapabilities": {}}),
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}),
    ] {
        let r = send(
            &mut s,
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": meta}}),
        )
        .unwrap();
        assert_eq!(r["error"]["code"], -32602, "{meta}");
    }
    // Unsupported version: -32022 with data.
    let r = send(
        &mut s,
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{
            "io.modelcontextprotocol/protocolVersion": "v999.0.0",
            "io.modelcontextprotocol/clientCapabilities": {}}}}),
    )
    .unwrap();
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(
        r["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "v999.0.0"})
    );
    // Removed and unknown methods: -32601, never -32002.
    for m in ["initialize", "ping", "logging/setLevel", "bogus"] {
        let r = modern(&mut s, 3, m, json!({}));
        assert_eq!(r["error"]["code"], -32601, "{m}");
        assert_eq!(r["id"], 3);
    }
    let r = modern(&mut s, 4, "tools/call", json!({"name": "nope"}));
    assert_eq!(r["error"]["code"], -32602);
}

#[test]
fn both_eras_share_one_stdio_process() {
    let mut s = session();
    assert!(modern(&mut s, 1, "tools/list", json!({}))["result"].is_object());
    send(&mut s, init(LATEST_VERSION)).unwrap();
    send(
        &mut s,
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    );
    let legacy = send(
        &mut s,
        json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
    )
    .unwrap();
    assert!(
        legacy["result"].get("resultType").is_none(),
        "legacy results are unchanged"
    );
    assert_eq!(
        modern(&mut s, 3, "tools/list", json!({}))["result"]["resultType"],
        "complete"
    );
}

#[test]
fn a_modern_only_server_refuses_initialize_naming_its_versions() {
    let mut s = server_with(Eras::Modern);
    let r = send(&mut s, init("2025-11-25")).unwrap();
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(
        r["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2025-11-25"})
    );
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2026-07-28")
    );
    // Without _meta every request is a malformed modern one.
    let r = send(
        &mut s,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
    )
    .unwrap();
    assert_eq!(r["error"]["code"], -32602);
}

#[test]
fn a_legacy_only_server_treats_modern_meta_as_legacy() {
    let mut s = server_with(Eras::Legacy);
    let r = modern(&mut s, 1, "server/discover", json!({}));
    assert_eq!(
        r["error"]["code"], -32002,
        "a legacy error: the client falls back"
    );
    send(&mut s, init(LATEST_VERSION)).unwrap();
    send(
        &mut s,
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    );
    assert_eq!(
        modern(&mut s, 2, "server/discover", json!({}))["error"]["code"],
        -32601
    );
    assert!(
        modern(&mut s, 3, "tools/list", json!({}))["result"]
            .get("resultType")
            .is_none()
    );
}

/// `tools/call` reads `params.name` and `params.arguments` where they lie in the
/// frame. Its answers are byte for byte those to the same message built as a `Value`
/// (what a batch item, or a message built in code, is): every shape of name and
/// arguments, good and bad, escapes and repeated members included.
#[test]
fn tools_call_answers_the_same_read_in_place_or_from_a_value() {
    let frames = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ech\u006f","arguments":{"message":"a \"q\" \\ \u00e9 \ud83d\ude00 \n"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"message":"x","message":"last"},"name":"echo"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":7}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":null}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[1]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1.5,"b":-2e1}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":[1, 2],"b":1}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":18446744073709551615,"b":1}}}"#,
        r#" { "params" : { "_meta" : { "progressToken" : 1 } , "name" : "echo" , "arguments" : { "message" : "spaced" } } , "method" : "tools/call" , "id" : "s" , "jsonrpc" : "2.0" } "#,
    ];
    for frame in frames {
        let in_place = match parse(frame.as_bytes()) {
            Ok(Parsed::One(m)) => m,
            other => panic!("{frame}: {other:?}"),
        };
        let params_sent = match &in_place {
            crate::jsonrpc::Message::Request(r) => {
                matches!(r.params, Some(crate::jsonrpc::Params::Sent(_)) | None)
            }
            _ => false,
        };
        assert!(params_sent, "{frame}: not read in place");
        let built = crate::jsonrpc::classify(serde_json::from_str(frame).unwrap()).unwrap();
        let answer = |m| match ready().handle(m) {
            context::Reply::Now(r) | context::Reply::Streamed(r) => r.to_bytes(),
            _ => panic!("{frame}: not an immediate reply"),
        };
        let (a, b) = (answer(in_place), answer(built));
        assert_eq!(
            String::from_utf8_lossy(&a),
            String::from_utf8_lossy(&b),
            "{frame}"
        );
    }
}

/// A tool's text result, written as bytes, is the `CallToolResult` a value would
/// write, text escaped as serde_json escapes it.
#[test]
fn a_text_result_is_the_json_of_its_value() {
    for (text, is_error) in [
        ("hi", false),
        ("", true),
        ("a \"q\" \\ \u{1} \u{7f} é 😀\n\t", false),
    ] {
        let mut want = json!({"content": [{"type": "text", "text": text}]});
        if is_error {
            want["isError"] = json!(true);
        }
        let mut got = Vec::new();
        crate::jsonrpc::Payload::from(super::tools::text_result(text, is_error))
            .write_to(&mut got)
            .unwrap();
        assert_eq!(got, serde_json::to_vec(&want).unwrap(), "{text:?}");
    }
}
