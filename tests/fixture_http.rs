//! The conformance fixture (what `mcp-raw serve --http --fixture conformance` serves,
//! run in-process on port 0) over Streamable HTTP, in both eras, in raw HTTP/1.1
//! bytes read back through the library's framers. Streaming bodies are read
//! incrementally (chunked transfer encoding, then SSE events) on one connection while
//! other requests go out on others. These pin what the official suite does not
//! check: exact event ids and order, resumption, cancellation, per-session delivery.

mod common;
use common::http_client::{Json, Next, Stream, WAIT, event_id};
use common::{InProcess, PNG, content_cases};
use serde_json::{Value, json};
use std::time::Duration;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

/// The fixture, served in-process: spawning the binary adds nothing here.
fn fixture() -> InProcess {
    InProcess::conformance()
}

/// POST /mcp with the standard Accept and Content-Type plus `extra`.
fn post(addr: &str, extra: &[(&str, &str)], body: &str) -> Stream {
    let mut h = vec![
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
    ];
    h.extend_from_slice(extra);
    Stream::open(addr, "POST", &h, body)
}

fn rpc(id: Value, method: &str, params: Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string()
}

/// A legacy session declaring `capabilities`; returns its id.
fn session(addr: &str, capabilities: Value) -> String {
    let r = post(
        addr,
        &[],
        &rpc(
            json!(0),
            "initialize",
            json!({"protocolVersion":LEGACY,"capabilities":capabilities,"clientInfo":{"name":"fixture-test","version":"0"}}),
        ),
    )
    .finish();
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["result"]["protocolVersion"], LEGACY);
    let id = r.header("mcp-session-id").unwrap().to_owned();
    let r = post(
        addr,
        &legacy_headers(&id),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .finish();
    assert_eq!(r.status, 202);
    id
}

fn legacy_headers(session: &str) -> [(&str, &str); 2] {
    [
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", LEGACY),
    ]
}

/// A legacy request in `session`.
fn legacy(addr: &str, session: &str, id: i64, method: &str, params: Value) -> Stream {
    post(
        addr,
        &legacy_headers(session),
        &rpc(json!(id), method, params),
    )
}

/// A POST of a message that is not a request (notification, response): 202, empty.
fn accepted(addr: &str, session: &str, message: Value) {
    let r = post(addr, &legacy_headers(session), &message.to_string()).finish();
    assert_eq!(r.status, 202, "{}", r.text());
    assert!(r.body.is_empty());
}

fn meta_with(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "fixture-test", "version": "0"}
    })
}

/// A modern request with the mirrored headers; `params._meta` is filled in (capabilities
/// `{}`) unless `params` already has one.
fn modern(addr: &str, id: i64, method: &str, mut params: Value) -> Stream {
    if params.get("_meta").is_none() {
        params["_meta"] = meta_with(json!({}));
    }
    let name = match method {
        "tools/call" | "prompts/get" => params["name"].as_str().map(str::to_owned),
        "resources/read" => params["uri"].as_str().map(str::to_owned),
        _ => None,
    };
    let mut h = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
    if let Some(n) = &name {
        h.push(("Mcp-Name", n));
    }
    post(addr, &h, &rpc(json!(id), method, params))
}

fn with_caps(mut params: Value, caps: Value) -> Value {
    params["_meta"] = meta_with(caps);
    params
}

fn server_info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "mcp-raw", "version": env!("CARGO_PKG_VERSION")}})
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
}

/// Asserts the priming event of a legacy stream: an id `<stream>-0`, empty data.
fn priming(s: &mut Stream) -> u64 {
    let e = s.event();
    assert_eq!(e.data, "", "the first event primes the stream: {e:?}");
    assert_eq!(e.retry, None);
    let (stream, n) = event_id(&e);
    assert_eq!(n, 0, "{e:?}");
    stream
}

fn assert_sse_headers(s: &Stream) {
    assert_eq!(s.status, 200);
    assert_eq!(s.header("content-type"), Some("text/event-stream"));
    assert_eq!(s.header("cache-control"), Some("no-cache"));
    assert_eq!(s.header("x-accel-buffering"), Some("no"));
}

const ERROR_TEXT: &str = "This tool intentionally returns an error for testing";

#[test]
fn content_tools_answer_one_sse_event_each_in_both_eras() {
    let s = fixture();
    let sid = session(&s.addr, json!({}));
    let mut cases: Vec<(&str, Value)> = content_cases()
        .into_iter()
        .map(|(t, c)| (t, json!({"content": c})))
        .collect();
    cases.push((
        "test_error_handling",
        json!({"content":[{"type":"text","text":ERROR_TEXT}],"isError":true}),
    ));
    for (i, (tool, result)) in cases.into_iter().enumerate() {
        let id = i as i64 + 1;
        let mut r = legacy(&s.addr, &sid, id, "tools/call", json!({"name":tool}));
        assert_sse_headers(&r);
        let e = r.event();
        assert_eq!(e.id, None, "an immediate result is one plain event");
        assert_eq!(
            e.json(),
            json!({"jsonrpc":"2.0","id":id,"result":result}),
            "{tool}"
        );
        r.end();

        let mut r = modern(&s.addr, id, "tools/call", json!({"name":tool}));
        assert_sse_headers(&r);
        assert_eq!(r.header("mcp-session-id"), None);
        let e = r.event();
        assert_eq!(e.id, None);
        let mut want = json!({"resultType":"complete"});
        for (k, v) in result.as_object().unwrap() {
            want[k] = v.clone();
        }
        want["_meta"] = server_info();
        assert_eq!(
            e.json(),
            json!({"jsonrpc":"2.0","id":id,"result":want}),
            "{tool}"
        );
        r.end();
    }
}

fn assert_progress(m: &Value, token: &Value, i: usize) {
    assert_eq!(m["method"], "notifications/progress", "{m}");
    assert!(m.get("id").is_none());
    let p = &m["params"];
    assert_eq!(&p["progressToken"], token);
    assert_eq!(p["progress"].as_f64(), Some([0.0, 50.0, 100.0][i]), "{m}");
    assert_eq!(p["total"].as_f64(), Some(100.0));
    assert_eq!(p["message"], format!("step {} of 3", i + 1));
}

#[test]
fn legacy_progress_streams_are_primed_numbered_and_ordered() {
    let s = fixture();
    let sid = session(&s.addr, json!({}));
    let token = json!("progress-test-1");
    let mut r = legacy(
        &s.addr,
        &sid,
        7,
        "tools/call",
        json!({"name":"test_tool_with_progress","_meta":{"progressToken":token}}),
    );
    assert_sse_headers(&r);
    let stream = priming(&mut r);
    for i in 0..3 {
        let e = r.event();
        assert_eq!(event_id(&e), (stream, i as u64 + 1), "{e:?}");
        assert_progress(&e.json(), &token, i);
    }
    let e = r.event();
    assert_eq!(event_id(&e), (stream, 4));
    assert_eq!(
        e.json(),
        json!({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Progress test completed."}]}})
    );
    r.end();

    // Without a token: the priming event, then the result; a new stream number.
    let mut r = legacy(
        &s.addr,
        &sid,
        8,
        "tools/call",
        json!({"name":"test_tool_with_progress"}),
    );
    let next = priming(&mut r);
    assert_ne!(next, stream);
    let e = r.event();
    assert_eq!(event_id(&e), (next, 1));
    assert_eq!(e.json()["id"], 8);
    r.end();
}

#[test]
fn modern_progress_streams_carry_no_ids_and_no_priming() {
    let s = fixture();
    let token = json!(99);
    let mut params = with_caps(json!({"name":"test_tool_with_progress"}), json!({}));
    params["_meta"]["progressToken"] = token.clone();
    let mut r = modern(&s.addr, 1, "tools/call", params);
    assert_sse_headers(&r);
    for i in 0..3 {
        let e = r.event();
        assert_eq!((e.id.clone(), e.retry), (None, None));
        assert_progress(&e.json(), &token, i);
    }
    let m = r.message();
    assert_eq!(m["id"], 1);
    assert_eq!(m["result"]["resultType"], "complete");
    assert_eq!(text_of(&m["result"]), "Progress test completed.");
    r.end();

    let mut r = modern(
        &s.addr,
        2,
        "tools/call",
        json!({"name":"test_tool_with_progress"}),
    );
    assert_eq!(r.message()["id"], 2);
    r.end();
}

const LOG_LINES: [&str; 3] = [
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
];

fn assert_log(m: &Value, data: &str) {
    assert_eq!(
        m,
        &json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":data}})
    );
}

#[test]
fn legacy_logging_follows_each_sessions_level() {
    let s = fixture();
    let loud = session(&s.addr, json!({}));
    let quiet = session(&s.addr, json!({}));
    let r = legacy(
        &s.addr,
        &loud,
        1,
        "logging/setLevel",
        json!({"level":"info"}),
    )
    .finish();
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);

    let mut r = legacy(
        &s.addr,
        &loud,
        2,
        "tools/call",
        json!({"name":"test_tool_with_logging"}),
    );
    priming(&mut r);
    for data in LOG_LINES {
        assert_log(&r.message(), data);
    }
    assert_eq!(text_of(&r.message()["result"]), "Logging test completed.");
    r.end();

    let mut r = legacy(
        &s.addr,
        &quiet,
        2,
        "tools/call",
        json!({"name":"test_tool_with_logging"}),
    );
    priming(&mut r);
    assert_eq!(text_of(&r.message()["result"]), "Logging test completed.");
    r.end();
}

#[test]
fn modern_logging_follows_the_requests_log_level() {
    let s = fixture();
    let mut params = with_caps(json!({"name":"test_tool_with_logging"}), json!({}));
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let mut r = modern(&s.addr, 1, "tools/call", params);
    for data in LOG_LINES {
        assert_log(&r.message(), data);
    }
    assert_eq!(r.message()["result"]["resultType"], "complete");
    r.end();

    let mut r = modern(
        &s.addr,
        2,
        "tools/call",
        json!({"name":"test_logging_tool"}),
    );
    let m = r.message();
    assert_eq!(m["id"], 2, "no log message without a logLevel: {m}");
    r.end();
}

fn sampling_ask(prompt: &str, id: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"sampling/createMessage","params":{
        "messages":[{"role":"user","content":{"type":"text","text":prompt}}],"maxTokens":100}})
}

fn sampled(id: &str, text: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"result":{"role":"assistant","content":{"type":"text","text":text},"model":"test-model","stopReason":"endTurn"}})
}

#[test]
fn legacy_sampling_round_trip_over_http() {
    let s = fixture();
    let a = session(&s.addr, json!({"sampling":{}}));
    let b = session(&s.addr, json!({"sampling":{}}));
    let mut call = legacy(
        &s.addr,
        &a,
        5,
        "tools/call",
        json!({"name":"test_sampling","arguments":{"prompt":"What is 2+2?"}}),
    );
    assert_sse_headers(&call);
    let stream = priming(&mut call);
    let e = call.event();
    assert_eq!(event_id(&e), (stream, 1));
    assert_eq!(e.json(), sampling_ask("What is 2+2?", "mcp-raw-0"));

    // The answer without a session is refused; in another session it reaches
    // nobody (each session has its own table of questions) and changes nothing.
    let r = post(&s.addr, &[], &sampled("mcp-raw-0", "wrong").to_string()).finish();
    assert_eq!(r.status, 400);
    accepted(&s.addr, &b, sampled("mcp-raw-0", "wrong"));
    accepted(&s.addr, &a, sampled("mcp-raw-0", "4"));
    let e = call.event();
    assert_eq!(event_id(&e), (stream, 2));
    assert_eq!(
        e.json(),
        json!({"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"LLM response: 4"}]}})
    );
    call.end();
}

#[test]
fn legacy_elicitation_round_trip_over_http() {
    let s = fixture();
    let sid = session(&s.addr, json!({"elicitation":{}}));
    let mut call = legacy(
        &s.addr,
        &sid,
        1,
        "tools/call",
        json!({"name":"test_elicitation","arguments":{"message":"Who are you?"}}),
    );
    priming(&mut call);
    assert_eq!(
        call.message(),
        json!({"jsonrpc":"2.0","id":"mcp-raw-0","method":"elicitation/create","params":{
            "message":"Who are you?",
            "requestedSchema":{"type":"object","properties":{"username":{"type":"string"},"email":{"type":"string"}},"required":["username","email"]}}})
    );
    accepted(
        &s.addr,
        &sid,
        json!({"jsonrpc":"2.0","id":"mcp-raw-0","result":{"action":"accept","content":{"username":"testuser","email":"test@example.com"}}}),
    );
    let m = call.message();
    assert_eq!(m["id"], 1);
    assert_eq!(
        text_of(&m["result"]),
        "User response: action=accept, content={\"username\":\"testuser\",\"email\":\"test@example.com\"}"
    );
    call.end();

    // SEP-1330: every enum style in one form.
    let mut call = legacy(
        &s.addr,
        &sid,
        2,
        "tools/call",
        json!({"name":"test_elicitation_sep1330_enums"}),
    );
    priming(&mut call);
    let ask = call.message();
    assert_eq!(ask["id"], "mcp-raw-1");
    let props = &ask["params"]["requestedSchema"]["properties"];
    assert_eq!(
        props["untitledSingle"],
        json!({"type":"string","enum":["option1","option2","option3"]})
    );
    assert_eq!(
        props["titledSingle"]["oneOf"][0],
        json!({"const":"value1","title":"First Option"})
    );
    assert_eq!(
        props["legacyEnum"]["enumNames"],
        json!(["Option One", "Option Two", "Option Three"])
    );
    assert_eq!(
        props["untitledMulti"]["items"]["enum"],
        json!(["option1", "option2", "option3"])
    );
    assert_eq!(
        props["titledMulti"]["items"]["anyOf"][2],
        json!({"const":"value3","title":"Third Choice"})
    );
    accepted(
        &s.addr,
        &sid,
        json!({"jsonrpc":"2.0","id":"mcp-raw-1","result":{"action":"cancel"}}),
    );
    assert_eq!(
        text_of(&call.message()["result"]),
        "User response: action=cancel, content=null"
    );
    call.end();
}

/// A legacy session that did not declare `sampling` is never sent
/// `sampling/createMessage` (2025-11-25 `client/sampling`): the call is refused with
/// -32021 and no request goes on the stream.
#[test]
fn legacy_sampling_is_refused_without_the_capability_over_http() {
    let s = fixture();
    let sid = session(&s.addr, json!({"elicitation":{}}));
    let mut call = legacy(
        &s.addr,
        &sid,
        1,
        "tools/call",
        json!({"name":"test_sampling","arguments":{"prompt":"hi"}}),
    );
    let mut e = call.event();
    if e.data.is_empty() {
        e = call.event(); // past the priming event
    }
    let m = e.json();
    assert!(
        m.get("method").is_none(),
        "the server asked a client without the sampling capability: {m}"
    );
    assert_eq!(m["id"], 1);
    assert_eq!(m["error"]["code"], -32021, "{m}");
    assert_eq!(
        m["error"]["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );
}

fn elicit(message: &str, field: &str, kind: &str) -> Value {
    json!({"method":"elicitation/create","params":{"message":message,"requestedSchema":{
        "type":"object","properties":{field:{"type":kind}},"required":[field]}}})
}

fn accept(content: Value) -> Value {
    json!({"action":"accept","content":content})
}

/// One MRTR round over HTTP: a modern `tools/call` of `tool` plus `extra` params,
/// declaring every capability the server may ask for (unless `extra` has `_meta`);
/// returns the JSON-RPC message answering it.
fn round(addr: &str, id: i64, tool: &str, extra: Value) -> Value {
    let mut params = with_caps(
        json!({"name": tool}),
        json!({"elicitation": {}, "sampling": {}, "roots": {}}),
    );
    for (k, v) in extra.as_object().unwrap() {
        params[k] = v.clone();
    }
    let r = modern(addr, id, "tools/call", params).finish();
    let m = r.only_message();
    assert_eq!(m["id"], id, "{m}");
    m
}

#[test]
fn mrtr_single_multiple_and_multi_round_over_http() {
    let s = fixture();
    let a = &s.addr;
    // One question.
    let tool = "test_input_required_result_elicitation";
    let m = round(a, 1, tool, json!({}));
    assert_eq!(
        m["result"],
        json!({"resultType":"input_required","inputRequests":{"user_name":elicit("What is your name?","name","string")},"_meta":server_info()})
    );
    let m = round(
        a,
        2,
        tool,
        json!({"inputResponses":{"user_name":accept(json!({"name":"Bob"}))}}),
    );
    assert_eq!(m["result"]["resultType"], "complete");
    assert_eq!(text_of(&m["result"]), "Hello, Bob!");

    // Three at once, with a state.
    let tool = "test_input_required_result_multiple_inputs";
    let m = round(a, 3, tool, json!({}));
    let keys: Vec<&String> = m["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["user_name", "greeting", "client_roots"]);
    let methods: Vec<&Value> = m["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .map(|r| &r["method"])
        .collect();
    assert_eq!(
        methods,
        [
            &json!("elicitation/create"),
            &json!("sampling/createMessage"),
            &json!("roots/list")
        ]
    );
    let state = m["result"]["requestState"].as_str().unwrap().to_owned();
    let m = round(
        a,
        4,
        tool,
        json!({"requestState":state,"inputResponses":{
            "user_name":accept(json!({"name":"Bob"})),
            "greeting":{"role":"assistant","content":{"type":"text","text":"Hi"},"model":"m"},
            "client_roots":{"roots":[]}}}),
    );
    assert_eq!(
        text_of(&m["result"]),
        "All three inputs received: name, greeting and roots."
    );

    // Three rounds, a different state each time.
    let tool = "test_input_required_result_multi_round";
    let m = round(a, 5, tool, json!({}));
    assert_eq!(
        m["result"]["inputRequests"],
        json!({"step1":elicit("Step 1: What is your name?","name","string")})
    );
    let s1 = m["result"]["requestState"].as_str().unwrap().to_owned();
    let m = round(
        a,
        6,
        tool,
        json!({"requestState":s1,"inputResponses":{"step1":accept(json!({"name":"Alice"}))}}),
    );
    assert_eq!(
        m["result"]["inputRequests"],
        json!({"step2":elicit("Step 2: What is your favorite color?","color","string")})
    );
    let s2 = m["result"]["requestState"].as_str().unwrap().to_owned();
    assert_ne!(s1, s2);
    let m = round(
        a,
        7,
        tool,
        json!({"requestState":s2,"inputResponses":{"step2":accept(json!({"color":"blue"}))}}),
    );
    assert_eq!(
        m["result"],
        json!({"resultType":"complete","content":[{"type":"text","text":"Multi-round complete for Alice who likes blue"}],"_meta":server_info()})
    );
}

#[test]
fn mrtr_request_state_checks_and_32021_over_http() {
    let s = fixture();
    let a = &s.addr;
    let tool = "test_input_required_result_tampered_state";
    let confirm = json!({"confirm": accept(json!({"ok": true}))});
    let m = round(a, 1, tool, json!({}));
    let state = m["result"]["requestState"].as_str().unwrap().to_owned();
    let m = round(
        a,
        2,
        tool,
        json!({"requestState":state,"inputResponses":confirm}),
    );
    assert_eq!(text_of(&m["result"]), "Confirmed: state-ok");
    for (id, bad, why) in [
        (
            3,
            format!("{state}-TAMPERED"),
            "requestState integrity check failed",
        ),
        (4, "A".repeat(8 * 1024 + 1), "longer than 8192 bytes"),
    ] {
        let m = round(
            a,
            id,
            tool,
            json!({"requestState":bad,"inputResponses":confirm}),
        );
        assert!(m.get("result").is_none(), "refused, never a result: {m}");
        assert_eq!(m["error"]["code"], -32602, "{m}");
        let message = m["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("requestState integrity check failed") && message.contains(why),
            "{message}"
        );
    }

    // A capability the tool needs and the request did not declare: 400, -32021.
    let r = modern(
        a,
        5,
        "tools/call",
        json!({"name":"test_missing_capability"}),
    )
    .finish();
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json(),
        json!({"jsonrpc":"2.0","id":5,"error":{"code":-32021,
            "message":"Missing required client capability: sampling (tool test_missing_capability needs it; declare it in params._meta[\"io.modelcontextprotocol/clientCapabilities\"] in 2026-07-28, in initialize's capabilities in 2025-11-25)",
            "data":{"requiredCapabilities":{"sampling":{}}}}})
    );
    let r = modern(
        a,
        6,
        "tools/call",
        with_caps(
            json!({"name":"test_missing_capability"}),
            json!({"sampling":{}}),
        ),
    )
    .finish();
    assert_eq!(r.status, 200);
    assert_eq!(
        text_of(&r.only_message()["result"]),
        "The client declared sampling."
    );
}

/// A `-32602` raised inside a running tool (a bad `requestState` or
/// `inputResponses`) is still answered with `400` JSON, like every other modern
/// refusal: the server waits for the first thing the request produces before it
/// chooses between a JSON answer and an SSE stream.
#[test]
fn mrtr_refusals_carry_400_like_every_other_modern_refusal() {
    let s = fixture();
    let r = modern(
        &s.addr,
        1,
        "tools/call",
        json!({"name":"test_input_required_result_request_state","requestState":"x.y","inputResponses":{}}),
    )
    .finish();
    assert_eq!(r.json()["error"]["code"], -32602);
    assert_eq!(r.status, 400, "{}", r.text());
}

#[test]
fn resources_over_http_in_both_eras() {
    let s = fixture();
    let a = &s.addr;
    let sid = session(a, json!({}));
    let r = legacy(a, &sid, 1, "resources/list", json!({})).finish();
    assert_eq!(r.status, 200);
    let uris: Vec<Value> = r.json()["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].clone())
        .collect();
    assert_eq!(
        uris,
        [
            json!("test://static-text"),
            json!("test://static-binary"),
            json!("test://watched-resource")
        ]
    );
    let r = legacy(
        a,
        &sid,
        2,
        "resources/read",
        json!({"uri":"test://static-binary"}),
    )
    .finish();
    assert_eq!(
        r.json()["result"],
        json!({"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":PNG}]})
    );
    // Legacy: not found is -32002, inside a 200.
    let r = legacy(a, &sid, 3, "resources/read", json!({"uri":"test://nope"})).finish();
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json(),
        json!({"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found: test://nope","data":{"uri":"test://nope"}}})
    );

    // Modern: JSON results with cache hints; not found is -32602 with a 400.
    let r = modern(a, 4, "resources/templates/list", json!({})).finish();
    assert_eq!(r.status, 200);
    let t = r.json();
    assert_eq!(
        t["result"]["resourceTemplates"][0]["uriTemplate"],
        "test://template/{id}/data"
    );
    assert_eq!(
        (
            t["result"]["ttlMs"].clone(),
            t["result"]["cacheScope"].clone()
        ),
        (json!(60000), json!("public"))
    );
    let r = modern(
        a,
        5,
        "resources/read",
        json!({"uri":"test://template/abc/data"}),
    )
    .finish();
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["result"]["contents"],
        json!([{"uri":"test://template/abc/data","mimeType":"application/json","text":"{\"id\":\"abc\",\"templateTest\":true,\"data\":\"Data for ID: abc\"}"}])
    );
    let uri = "test://nonexistent-resource-for-conformance-testing";
    let r = modern(a, 6, "resources/read", json!({"uri":uri})).finish();
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json(),
        json!({"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":format!("Resource not found: {uri}"),"data":{"uri":uri}}})
    );
    // resources/read needs Mcp-Name = the uri.
    let body = rpc(
        json!(7),
        "resources/read",
        json!({"uri":"test://static-text","_meta":meta_with(json!({}))}),
    );
    let r = post(
        a,
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "resources/read"),
        ],
        &body,
    )
    .finish();
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32020);
}

#[test]
fn prompts_and_completion_over_http_in_both_eras() {
    let s = fixture();
    let a = &s.addr;
    let sid = session(a, json!({}));
    let args = json!({"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1","arg2":"testValue2"}});
    let text = "Prompt with arguments: arg1='testValue1', arg2='testValue2'";
    let r = legacy(a, &sid, 1, "prompts/get", args.clone()).finish();
    assert_eq!(r.json()["result"]["messages"][0]["content"]["text"], text);
    let r = modern(a, 2, "prompts/get", args).finish();
    assert_eq!(r.status, 200);
    let m = r.json();
    assert_eq!(m["result"]["resultType"], "complete");
    assert_eq!(m["result"]["messages"][0]["content"]["text"], text);

    // A missing required argument: -32602 naming it; 200 in a session, 400 modern.
    let missing = json!({"name":"test_prompt_with_arguments","arguments":{"arg2":"x"}});
    let r = legacy(a, &sid, 3, "prompts/get", missing.clone()).finish();
    assert_eq!(r.status, 200);
    let e = r.json();
    assert_eq!(e["error"]["code"], -32602);
    assert!(
        e["error"]["message"].as_str().unwrap().contains("\"arg1\""),
        "{e}"
    );
    let r = modern(a, 4, "prompts/get", missing).finish();
    assert_eq!(r.status, 400);
    let e = r.json();
    assert_eq!(
        (e["id"].clone(), e["error"]["code"].clone()),
        (json!(4), json!(-32602))
    );
    assert!(
        e["error"]["message"].as_str().unwrap().contains("\"arg1\""),
        "{e}"
    );
    let r = modern(a, 5, "prompts/get", json!({"name":"nope"})).finish();
    assert_eq!(r.status, 400);
    assert!(r.text().contains("Unknown prompt: nope"), "{}", r.text());

    let complete = json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"test"}});
    let r = legacy(a, &sid, 6, "completion/complete", complete.clone()).finish();
    assert_eq!(
        r.json()["result"],
        json!({"completion":{"values":["test","testValue1"],"total":2,"hasMore":false}})
    );
    let r = modern(a, 7, "completion/complete", complete).finish();
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["result"],
        json!({"resultType":"complete","completion":{"values":["test","testValue1"],"total":2,"hasMore":false},"_meta":server_info()})
    );
}

/// `GET /mcp` for a session's push stream.
fn get_stream(addr: &str, session: &str) -> Stream {
    let s = Stream::open(
        addr,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", LEGACY),
        ],
        "",
    );
    assert_sse_headers(&s);
    s
}

fn trigger(addr: &str, session: &str, id: i64, tool: &str, args: Value) -> String {
    let r = legacy(
        addr,
        session,
        id,
        "tools/call",
        json!({"name":tool,"arguments":args}),
    )
    .finish();
    let events = r.events();
    let m = events.last().unwrap().json();
    assert_eq!(m["id"], id, "{m}");
    text_of(&m["result"]).to_owned()
}

#[test]
fn legacy_resource_updates_reach_only_the_subscribed_session() {
    let s = fixture();
    let a = &s.addr;
    let subscriber = session(a, json!({}));
    let other = session(a, json!({}));
    let _no_stream = session(a, json!({}));
    let mut sub_get = get_stream(a, &subscriber);
    let mut other_get = get_stream(a, &other);
    let r = legacy(
        a,
        &subscriber,
        1,
        "resources/subscribe",
        json!({"uri":"test://watched-resource"}),
    )
    .finish();
    assert_eq!(r.text(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);

    let said = trigger(
        a,
        &other,
        2,
        "test_trigger_resource_update",
        json!({"uri":"test://watched-resource"}),
    );
    assert_eq!(
        said,
        "Announced ResourceUpdated(\"test://watched-resource\") to 1 listener(s)."
    );
    assert_eq!(
        sub_get.message(),
        json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource"}})
    );
    // A list change goes to every session with a GET stream; for the other session
    // it is the first thing its stream carries: it never got the update.
    let said = trigger(a, &other, 3, "test_trigger_tool_change", json!({}));
    assert_eq!(said, "Announced ToolsChanged to 2 listener(s).");
    let changed = json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}});
    assert_eq!(other_get.message(), changed);
    assert_eq!(sub_get.message(), changed);

    // After unsubscribing: nobody hears the update.
    let r = legacy(
        a,
        &subscriber,
        4,
        "resources/unsubscribe",
        json!({"uri":"test://watched-resource"}),
    )
    .finish();
    assert_eq!(r.json()["result"], json!({}));
    let said = trigger(
        a,
        &other,
        5,
        "test_trigger_resource_update",
        json!({"uri":"test://watched-resource"}),
    );
    assert_eq!(
        said,
        "Announced ResourceUpdated(\"test://watched-resource\") to 0 listener(s)."
    );

    // A newer GET takes over: the older stream ends, the newer one hears.
    let mut newer = get_stream(a, &subscriber);
    sub_get.end();
    trigger(a, &other, 6, "test_trigger_prompt_change", json!({}));
    let prompts =
        json!({"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{}});
    assert_eq!(newer.message(), prompts);
    assert_eq!(other_get.message(), prompts);
    // Ending a session ends its GET stream.
    let r = Stream::open(a, "DELETE", &[("Mcp-Session-Id", &other)], "").finish();
    assert_eq!(r.status, 204);
    other_get.end();
}

#[test]
fn get_streams_need_a_live_session_and_sse() {
    let s = fixture();
    let a = &s.addr;
    let sid = session(a, json!({}));
    let r = Stream::open(a, "GET", &[("Accept", "text/event-stream")], "").finish();
    assert_eq!(r.status, 400);
    assert!(r.text().contains("Mcp-Session-Id"), "{}", r.text());
    let r = Stream::open(
        a,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", "no-such"),
        ],
        "",
    )
    .finish();
    assert_eq!(r.status, 404);
    let r = Stream::open(
        a,
        "GET",
        &[("Accept", "application/json"), ("Mcp-Session-Id", &sid)],
        "",
    )
    .finish();
    assert_eq!(r.status, 406);
}

/// A modern `subscriptions/listen` stream; asserts its acknowledgment.
fn listen(addr: &str, id: i64, filter: Value, honored: Value) -> Stream {
    let mut s = modern(
        addr,
        id,
        "subscriptions/listen",
        json!({"notifications":filter}),
    );
    assert_sse_headers(&s);
    let e = s.event();
    assert_eq!(e.id, None);
    assert_eq!(
        e.json(),
        json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{
            "_meta":{"io.modelcontextprotocol/subscriptionId":id},"notifications":honored}})
    );
    s
}

fn modern_trigger(addr: &str, id: i64, tool: &str, args: Value) -> String {
    let r = modern(
        addr,
        id,
        "tools/call",
        json!({"name":tool,"arguments":args}),
    )
    .finish();
    let m = r.only_message();
    assert_eq!(m["result"]["resultType"], "complete");
    text_of(&m["result"]).to_owned()
}

#[test]
fn modern_listen_acknowledges_then_tags_changes_and_honors_its_filter() {
    let s = fixture();
    let a = &s.addr;
    let mut tools = listen(
        a,
        101,
        json!({"toolsListChanged":true}),
        json!({"toolsListChanged":true}),
    );
    let mut prompts = listen(
        a,
        102,
        json!({"promptsListChanged":true,"toolsListChanged":false,"resourceSubscriptions":["test://watched-resource","test://nope"]}),
        json!({"promptsListChanged":true,"resourceSubscriptions":["test://watched-resource"]}),
    );
    // A legacy session without a GET stream is not a listener.
    let _legacy = session(a, json!({}));

    assert_eq!(
        modern_trigger(a, 1, "test_trigger_tool_change", json!({})),
        "Announced ToolsChanged to 1 listener(s)."
    );
    assert_eq!(
        modern_trigger(a, 2, "test_trigger_prompt_change", json!({})),
        "Announced PromptsChanged to 1 listener(s)."
    );
    assert_eq!(
        modern_trigger(
            a,
            3,
            "test_trigger_resource_update",
            json!({"uri":"test://watched-resource"})
        ),
        "Announced ResourceUpdated(\"test://watched-resource\") to 1 listener(s)."
    );
    assert_eq!(
        tools.message(),
        json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":101}}})
    );
    // The prompts listener's first change is the prompt change: no tool change came.
    assert_eq!(
        prompts.message(),
        json!({"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":102}}})
    );
    assert_eq!(
        prompts.message(),
        json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource","_meta":{"io.modelcontextprotocol/subscriptionId":102}}})
    );
    // The streams stay open: no response ends them.
    assert!(matches!(
        tools.next_within(Duration::from_millis(100)),
        Next::Quiet
    ));
    assert!(matches!(
        prompts.next_within(Duration::from_millis(100)),
        Next::Quiet
    ));
}

#[test]
fn legacy_reconnection_ends_the_post_stream_and_resumes_on_get() {
    let s = fixture();
    let a = &s.addr;
    let sid = session(a, json!({}));
    let mut post_stream = legacy(
        a,
        &sid,
        9,
        "tools/call",
        json!({"name":"test_reconnection"}),
    );
    assert_sse_headers(&post_stream);
    let stream = priming(&mut post_stream);
    let hint = post_stream.event();
    assert_eq!(event_id(&hint), (stream, 1));
    assert_eq!((hint.retry, hint.data.as_str()), (Some(500), ""));
    // The POST's stream ends here, without the response.
    post_stream.end();

    let resume = |last: &str| {
        let s = Stream::open(
            a,
            "GET",
            &[
                ("Accept", "text/event-stream"),
                ("Mcp-Session-Id", &sid),
                ("Last-Event-ID", last),
            ],
            "",
        );
        assert_sse_headers(&s);
        s
    };
    let want = json!({"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"Reconnection test completed: the result came on the resumed stream."}]}});
    let mut get = resume(hint.id.as_deref().unwrap());
    let e = get.event();
    let (same, n) = event_id(&e);
    assert_eq!(same, stream);
    assert!(n > 1, "{e:?}");
    assert_eq!(e.json(), want);
    get.end();
    // From the priming id: the retry hint again, then the response (the pause is
    // for the first connection only).
    let mut again = resume(&format!("{stream}-0"));
    assert_eq!(again.event(), hint);
    assert_eq!(again.event(), e);
    again.end();
    // After the last event: nothing more, the stream ends.
    resume(e.id.as_deref().unwrap()).end();

    // Ids that name no stream of this session: 400.
    let other = session(a, json!({}));
    for (session_id, last) in [
        (&sid, "99-0".to_owned()),
        (&sid, "garbage".to_owned()),
        (&other, format!("{stream}-0")),
    ] {
        let r = Stream::open(
            a,
            "GET",
            &[
                ("Accept", "text/event-stream"),
                ("Mcp-Session-Id", session_id),
                ("Last-Event-ID", &last),
            ],
            "",
        )
        .finish();
        assert_eq!(r.status, 400, "{last}: {}", r.text());
        assert!(r.text().contains("Last-Event-ID"), "{}", r.text());
    }
}

#[test]
fn a_dropped_legacy_stream_keeps_running_and_resumes_where_it_stopped() {
    let s = fixture();
    let a = &s.addr;
    let sid = session(a, json!({}));
    let token = json!("t");
    let mut first = legacy(
        a,
        &sid,
        3,
        "tools/call",
        json!({"name":"test_tool_with_progress","_meta":{"progressToken":token}}),
    );
    priming(&mut first);
    let e = first.event();
    assert_progress(&e.json(), &token, 0);
    drop(first); // the client goes away mid-call
    let mut get = Stream::open(
        a,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &sid),
            ("Last-Event-ID", e.id.as_deref().unwrap()),
        ],
        "",
    );
    assert_progress(&get.message(), &token, 1);
    assert_progress(&get.message(), &token, 2);
    let m = get.message();
    assert_eq!(m["id"], 3);
    assert_eq!(text_of(&m["result"]), "Progress test completed.");
    get.end();
}

#[test]
fn legacy_cancellation_ends_the_stream_without_a_response() {
    let s = fixture();
    let a = &s.addr;
    let sid = session(a, json!({}));
    let token = json!("c");
    let mut call = legacy(
        a,
        &sid,
        11,
        "tools/call",
        json!({"name":"test_tool_with_progress","_meta":{"progressToken":token}}),
    );
    let stream = priming(&mut call);
    assert_progress(&call.message(), &token, 0);
    accepted(
        a,
        &sid,
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11,"reason":"user"}}),
    );
    // The stream ends, and nothing on it answers request 11.
    loop {
        match call.next_within(WAIT) {
            Next::End => break,
            Next::Event(e) => {
                let m = e.json();
                assert!(
                    m.get("id").is_none(),
                    "a cancelled request was answered: {m}"
                );
            }
            Next::Quiet => panic!("the cancelled stream did not end"),
        }
    }
    // Resuming it later finds no response either.
    let mut get = Stream::open(
        a,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &sid),
            ("Last-Event-ID", &format!("{stream}-0")),
        ],
        "",
    );
    loop {
        match get.next_within(WAIT) {
            Next::End => break,
            Next::Event(e) => assert!(e.json().get("id").is_none(), "{e:?}"),
            Next::Quiet => panic!("the resumed cancelled stream did not end"),
        }
    }
    // The session goes on.
    let r = legacy(a, &sid, 12, "ping", json!({})).finish();
    assert_eq!(r.text(), r#"{"jsonrpc":"2.0","id":12,"result":{}}"#);
}

#[test]
fn bad_params_are_32602_naming_the_field_200_in_a_session_400_modern() {
    let s = fixture();
    let a = &s.addr;
    let sid = session(a, json!({}));
    let cases = [
        ("resources/read", json!({}), "params.uri"),
        ("prompts/get", json!({"arguments":{}}), "params.name"),
        (
            "completion/complete",
            json!({"argument":{"name":"arg1"}}),
            "params.ref",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":1}}),
            "params.argument.value",
        ),
    ];
    for (i, (method, params, field)) in cases.iter().enumerate() {
        let id = i as i64 + 1;
        let r = legacy(a, &sid, id, method, params.clone()).finish();
        assert_eq!(r.status, 200, "{method}");
        let e = r.json();
        assert_eq!(
            (e["id"].clone(), e["error"]["code"].clone()),
            (json!(id), json!(-32602)),
            "{e}"
        );
        assert!(
            e["error"]["message"].as_str().unwrap().contains(field),
            "{e}"
        );
        let r = modern(a, id, method, params.clone()).finish();
        assert_eq!(r.status, 400, "modern {method}: {}", r.text());
        let e = r.json();
        assert_eq!(
            (e["id"].clone(), e["error"]["code"].clone()),
            (json!(id), json!(-32602)),
            "{e}"
        );
        assert!(
            e["error"]["message"].as_str().unwrap().contains(field),
            "{e}"
        );
    }
    for (params, field) in [
        (json!({}), "params.level"),
        (json!({"level":"loud"}), "unknown level"),
    ] {
        let r = legacy(a, &sid, 9, "logging/setLevel", params).finish();
        let e = r.json();
        assert_eq!(e["error"]["code"], -32602);
        assert!(
            e["error"]["message"].as_str().unwrap().contains(field),
            "{e}"
        );
    }
}
