//! The conformance fixture (what `mcp-raw serve --http --fixture conformance` serves,
//! run in-process on port 0) over Streamable HTTP, in both eras, in raw HTTP/1.1
//! bytes read back through the library's framers. Streaming bodies are read
//! incrementally (chunked transfer encoding, then SSE events) on one connection while
//! other requests go out on others. These pin what the official suite does not
//! check: exact event ids and order, resumption, cancellation, per-session delivery.

mod common;
use common::http_client::{Json, Next, Stream, WAIT, event_id};
use common::wire::{
    LEGACY, LOG_LINES, MODERN, assert_log, assert_progress, meta_with, server_info, text_of,
};
use common::{InProcess, content_cases};
use serde_json::{Value, json};
use std::time::Duration;

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

/// A modern `resources/read` must mirror its uri in `Mcp-Name`: without it, 400 and
/// -32020 (the header checks come before the method runs).
#[test]
fn a_modern_resources_read_needs_mcp_name() {
    let s = fixture();
    let body = rpc(
        json!(7),
        "resources/read",
        json!({"uri":"test://static-text","_meta":meta_with(json!({}))}),
    );
    let r = post(
        &s.addr,
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
    assert_eq!(
        r.text(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: GET needs the Mcp-Session-Id of the session to listen to"}}"#
    );
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
        assert_eq!(
            r.text(),
            format!(
                r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32600,"message":"Bad Request: Last-Event-ID \"{last}\" names no stream of this session (expected <stream>-<n>, as sent in an id: line)"}}}}"#
            )
        );
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
