//! The conformance fixture (`mcp-raw serve --fixture conformance`) over stdio,
//! through the real binary: what only stdio has — notifications on the one pipe, a
//! listen that ends on cancel, the order of lines after a cancellation. The scenarios
//! both transports share are in `tests/fixture.rs`.

mod common;
use common::wire::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// How long an expected line may take.
const WAIT: Duration = Duration::from_secs(5);

#[test]
fn legacy_resource_updates_reach_only_subscribed_uris_on_stdio() {
    let mut s = Wire::legacy(Transport::Stdio, json!({}));
    let trigger =
        |uri: &str| json!({"name":"test_trigger_resource_update","arguments":{"uri":uri}});
    // Not subscribed: the next line is the trigger's result (a notification would
    // be written first: the hub delivers before the tool returns).
    let r = s.call(1, "tools/call", trigger("test://watched-resource"));
    assert!(r["result"].is_object());

    assert_eq!(
        s.call(
            2,
            "resources/subscribe",
            json!({"uri":"test://watched-resource"})
        ),
        json!({"jsonrpc":"2.0","id":2,"result":{}})
    );
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":trigger("test://watched-resource")}));
    assert_eq!(
        s.recv(),
        json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource"}})
    );
    assert_eq!(s.recv()["id"], 3);
    // Another URI: nothing.
    let r = s.call(4, "tools/call", trigger("test://static-text"));
    assert!(r["result"].is_object());

    assert_eq!(
        s.call(
            5,
            "resources/unsubscribe",
            json!({"uri":"test://watched-resource"})
        ),
        json!({"jsonrpc":"2.0","id":5,"result":{}})
    );
    let r = s.call(6, "tools/call", trigger("test://watched-resource"));
    assert!(r["result"].is_object());

    // Subscribing to a resource that does not exist: -32002 with the uri.
    let r = s.call(7, "resources/subscribe", json!({"uri":"test://nope"}));
    assert_eq!(r["error"]["code"], -32002);
    assert_eq!(r["error"]["data"], json!({"uri":"test://nope"}));
}

#[test]
fn legacy_list_changes_are_announced_on_stdio() {
    let mut s = Wire::legacy(Transport::Stdio, json!({}));
    for (id, tool, method, what) in [
        (
            1,
            "test_trigger_tool_change",
            "notifications/tools/list_changed",
            "ToolsChanged",
        ),
        (
            2,
            "test_trigger_prompt_change",
            "notifications/prompts/list_changed",
            "PromptsChanged",
        ),
    ] {
        s.send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":call_tool(tool)}));
        assert_eq!(
            s.recv(),
            json!({"jsonrpc":"2.0","method":method,"params":{}})
        );
        let r = s.recv();
        assert_eq!(r["id"], id);
        assert_eq!(
            text_of(&r["result"]),
            format!("Announced {what} to 1 listener(s).")
        );
    }
}

fn listen(id: &str, filter: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"subscriptions/listen","params":modern(json!({"notifications":filter}))})
}

fn tag(m: &Value) -> Option<&str> {
    m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].as_str()
}

#[test]
fn modern_listen_acknowledges_tags_filters_and_ends_on_cancel_on_stdio() {
    let mut s = Wire::fresh(Transport::Stdio);
    s.send(&listen("tools-listener", json!({"toolsListChanged":true})));
    assert_eq!(
        s.recv(),
        json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{
            "_meta":{"io.modelcontextprotocol/subscriptionId":"tools-listener"},
            "notifications":{"toolsListChanged":true}}})
    );
    s.send(&listen(
        "prompts-listener",
        json!({"promptsListChanged":true,"resourceSubscriptions":["test://static-text","test://nope"]}),
    ));
    // The acknowledgment names only what will be honored: unknown URIs are dropped.
    assert_eq!(
        s.recv(),
        json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{
            "_meta":{"io.modelcontextprotocol/subscriptionId":"prompts-listener"},
            "notifications":{"promptsListChanged":true,"resourceSubscriptions":["test://static-text"]}}})
    );

    // A tool change, then a prompt change. Each listener's stream keeps order, so
    // once the prompts listener's prompt change is seen, a tool change it should
    // not have got would already be there.
    let trigger = |id: i64, tool: &str| json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":modern(call_tool(tool))});
    s.send(&trigger(1, "test_trigger_tool_change"));
    s.send(&trigger(2, "test_trigger_prompt_change"));
    let mut seen = Vec::new();
    let deadline = Instant::now() + WAIT;
    let done = |seen: &[Value]| {
        let has = |f: &dyn Fn(&Value) -> bool| seen.iter().any(f);
        has(&|m| m["id"] == 1)
            && has(&|m| m["id"] == 2)
            && has(&|m| tag(m) == Some("tools-listener"))
            && has(&|m| tag(m) == Some("prompts-listener"))
    };
    while !done(&seen) {
        assert!(Instant::now() < deadline, "missing messages: {seen:#?}");
        seen.push(s.recv());
    }
    let tagged = |t: &str| -> Vec<&Value> { seen.iter().filter(|m| tag(m) == Some(t)).collect() };
    assert_eq!(
        tagged("tools-listener"),
        [
            &json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{
            "_meta":{"io.modelcontextprotocol/subscriptionId":"tools-listener"}}})
        ]
    );
    assert_eq!(
        tagged("prompts-listener"),
        [
            &json!({"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{
            "_meta":{"io.modelcontextprotocol/subscriptionId":"prompts-listener"}}})
        ]
    );

    // A resource update for the URI the prompts listener subscribed to.
    s.send(
        &json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":modern(
        json!({"name":"test_trigger_resource_update","arguments":{"uri":"test://static-text"}}))}),
    );
    let mut update = None;
    let mut result = false;
    while update.is_none() || !result {
        let m = s.recv();
        if m["id"] == 3 {
            result = true;
        } else if tag(&m).is_some() {
            update = Some(m);
        }
    }
    assert_eq!(
        update.unwrap(),
        json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{
            "uri":"test://static-text","_meta":{"io.modelcontextprotocol/subscriptionId":"prompts-listener"}}})
    );

    // Cancelling a listen ends it: no response for it, no more tagged messages.
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"tools-listener"}}));
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"prompts-listener"}}));
    s.send(&json!({"jsonrpc":"2.0","id":4,"method":"ping"}));
    assert_eq!(s.recv(), json!({"jsonrpc":"2.0","id":4,"result":{}}));
    s.send(&trigger(5, "test_trigger_tool_change"));
    s.send(&trigger(6, "test_trigger_prompt_change"));
    let mut after = Vec::new();
    while !after.iter().any(|m: &Value| m["id"] == 6) {
        after.push(s.recv());
    }
    while let Some(m) = s.recv_within(Duration::from_millis(200)) {
        after.push(m);
    }
    for m in &after {
        assert!(tag(m).is_none(), "a cancelled listener still hears: {m}");
        assert!(
            m["id"] != "tools-listener" && m["id"] != "prompts-listener",
            "a cancelled listen was answered: {m}"
        );
    }
}

/// A stdio client that never initializes (it speaks only 2026-07-28) hears no
/// legacy push notifications: in 2026-07-28 change notifications travel only on
/// `subscriptions/listen` streams, and in 2025-11-25 the session's push starts only
/// after `notifications/initialized`.
#[test]
fn a_stdio_client_that_never_initialized_gets_no_legacy_notifications() {
    let mut s = Wire::fresh(Transport::Stdio);
    s.send(&listen("p", json!({"promptsListChanged":true})));
    assert_eq!(
        s.recv()["method"],
        "notifications/subscriptions/acknowledged"
    );
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":modern(call_tool("test_trigger_tool_change"))}));
    let r = s.recv();
    assert_eq!(
        r["id"], 1,
        "expected the trigger's result next, got an unsolicited message: {r}"
    );
}

#[test]
fn cancelling_an_in_flight_call_sends_no_response_in_both_eras() {
    let mut s = Wire::legacy(Transport::Stdio, json!({}));
    for (cancelled, next, is_modern) in [(1, 2, false), (3, 4, true)] {
        let era = |p: Value| if is_modern { modern(p) } else { p };
        s.send(&json!({"jsonrpc":"2.0","id":cancelled,"method":"tools/call","params":era(call_tool("test_tool_with_progress"))}));
        s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":cancelled,"reason":"test"}}));
        s.send(&json!({"jsonrpc":"2.0","id":100 + cancelled,"method":"ping"}));
        assert_eq!(
            s.recv(),
            json!({"jsonrpc":"2.0","id":100 + cancelled,"result":{}}),
            "the ping is answered first"
        );
        // The same tool again, started later: had the cancelled call survived, its
        // response would arrive first.
        let token = json!(format!("after-{cancelled}"));
        let mut params = era(call_tool("test_tool_with_progress"));
        params["_meta"]["progressToken"] = token.clone();
        s.send(&json!({"jsonrpc":"2.0","id":next,"method":"tools/call","params":params}));
        for i in 0..3 {
            assert_progress(&s.recv(), &token, i);
        }
        let r = s.recv();
        assert_eq!(
            r["id"], next,
            "no response for the cancelled {cancelled}: {r}"
        );
        assert!(
            s.recv_within(Duration::from_millis(150)).is_none(),
            "nothing more"
        );
    }
    // Cancelling what is not running (done, or unknown) changes nothing.
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}));
    s.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}));
    assert_eq!(s.call(9, "ping", json!({}))["result"], json!({}));
}
