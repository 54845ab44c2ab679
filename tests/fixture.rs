//! The conformance fixture's scenarios, each written once and run over both
//! transports: `stdio::NAME` through the real binary on pipes, `http::NAME` over
//! Streamable HTTP with the server in-process (see `tests/common/wire.rs`). What only
//! one transport has (SSE ids, resumption, GET streams, sessions, stdio ordering)
//! stays in `tests/fixture_stdio.rs` and `tests/fixture_http.rs`.

mod common;
use common::wire::*;
use common::{PNG, content_cases};
use serde_json::{Value, json};

/// Each scenario becomes a test per transport.
macro_rules! over_both {
    ($($name:ident),* $(,)?) => {
        mod stdio {
            $(#[test]
            fn $name() {
                super::$name(super::Transport::Stdio)
            })*
        }
        mod http {
            $(#[test]
            fn $name() {
                super::$name(super::Transport::Http)
            })*
        }
    };
}

over_both!(
    every_content_type_tool_answers_exactly_in_both_eras,
    a_tool_failure_is_an_is_error_result_in_both_eras,
    progress_comes_only_with_a_token_in_order_before_the_result_in_both_eras,
    legacy_logging_is_off_until_set_level_and_follows_the_level,
    modern_logging_follows_each_requests_log_level_only,
    legacy_sampling_round_trip,
    legacy_elicitation_round_trips,
    legacy_sampling_and_elicitation_are_refused_without_the_capability,
    mrtr_single_inputs_round_trip,
    mrtr_multiple_inputs_in_one_round,
    mrtr_multi_round_takes_three_rounds_with_different_states,
    mrtr_request_state_intact_tampered_oversized_and_foreign,
    mrtr_asks_by_declared_capabilities_and_32021_refuses_what_is_missing,
    mrtr_tools_in_a_legacy_session_say_they_need_a_modern_request,
    resources_list_read_templates_and_unknown_in_both_eras,
    prompts_list_get_arguments_and_errors_in_both_eras,
    completion_suggests_prompt_argument_values_in_both_eras,
    subscriptions_listen_refuses_a_malformed_filter,
    new_methods_refuse_bad_params_with_32602_naming_the_field,
);

/// What a requestState whose seal fails says (2026-07-28 multi round-trip requests:
/// the server checks the integrity of the state it sealed).
const SEAL_BROKEN: &str = "requestState integrity check failed: the seal does not match (altered, forged, or sealed with another key: replicas must share one --state-key-file)";

fn irr(requests: Value) -> Value {
    json!({"resultType":"input_required","inputRequests":requests,"_meta":server_info()})
}

fn elicit(message: &str, field: &str, kind: &str) -> Value {
    json!({"method":"elicitation/create","params":{"message":message,"requestedSchema":{
        "type":"object","properties":{field:{"type":kind}},"required":[field]}}})
}

fn sample(text: &str, max: u64) -> Value {
    json!({"method":"sampling/createMessage","params":{
        "messages":[{"role":"user","content":{"type":"text","text":text}}],"maxTokens":max}})
}

fn accept(content: Value) -> Value {
    json!({"action":"accept","content":content})
}

fn sampled(text: &str) -> Value {
    json!({"role":"assistant","content":{"type":"text","text":text},"model":"test-model","stopReason":"endTurn"})
}

fn roots() -> Value {
    json!({"roots":[{"uri":"file:///test/root","name":"Test Root"}]})
}

/// Every capability an MRTR tool may ask for.
fn asking() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

/// A modern `tools/call` of `tool` with these extra params, declaring [`asking`].
fn mrtr(tool: &str, extra: Value) -> Value {
    let mut p = modern_with(json!({"name": tool}), asking());
    if let Value::Object(m) = extra {
        for (k, v) in m {
            p[k] = v;
        }
    }
    p
}

/// Runs the three rounds of `test_input_required_result_multi_round` through `call`
/// (id, params) → result, and checks each round.
fn multi_round(mut call: impl FnMut(i64, Value) -> Value) {
    let tool = "test_input_required_result_multi_round";
    let r1 = call(1, mrtr(tool, json!({})));
    assert_eq!(r1["resultType"], "input_required");
    assert_eq!(
        r1["inputRequests"],
        json!({"step1": elicit("Step 1: What is your name?", "name", "string")})
    );
    let state1 = r1["requestState"].as_str().unwrap().to_owned();

    let r2 = call(
        2,
        mrtr(
            tool,
            json!({"inputResponses":{"step1":accept(json!({"name":"Alice"}))},"requestState":state1}),
        ),
    );
    assert_eq!(r2["resultType"], "input_required");
    assert_eq!(
        r2["inputRequests"],
        json!({"step2": elicit("Step 2: What is your favorite color?", "color", "string")})
    );
    let state2 = r2["requestState"].as_str().unwrap().to_owned();
    assert_ne!(state1, state2, "each round seals its own state");

    let r3 = call(
        3,
        mrtr(
            tool,
            json!({"inputResponses":{"step2":accept(json!({"color":"blue"}))},"requestState":state2}),
        ),
    );
    // Complete, exactly: no requestState any more.
    assert_eq!(
        r3,
        json!({"resultType":"complete","content":[{"type":"text","text":"Multi-round complete for Alice who likes blue"}],"_meta":server_info()})
    );

    // The state, not the answers, says which round it is: round 1's state with a
    // step-2 answer starts over.
    let again = call(
        4,
        mrtr(
            tool,
            json!({"inputResponses":{"step2":accept(json!({"color":"blue"}))},"requestState":state1}),
        ),
    );
    assert_eq!(
        again["inputRequests"]["step1"]["method"],
        "elicitation/create"
    );
}

/// Round 1 of `tool`: its `requestState`.
fn first_state(s: &mut Wire, id: i64, tool: &str) -> String {
    let r = s.call(id, "tools/call", mrtr(tool, json!({})));
    assert_eq!(r["result"]["resultType"], "input_required");
    assert_eq!(
        r["result"]["inputRequests"],
        json!({"confirm": elicit("Please confirm", "ok", "boolean")})
    );
    r["result"]["requestState"].as_str().unwrap().to_owned()
}

fn every_content_type_tool_answers_exactly_in_both_eras(t: Transport) {
    let mut s = Wire::legacy(t, json!({}));
    for (i, (tool, content)) in content_cases().into_iter().enumerate() {
        let id = 10 + i as i64;
        let r = s.call(id, "tools/call", call_tool(tool));
        assert_eq!(
            r,
            json!({"jsonrpc":"2.0","id":id,"result":{"content":content}}),
            "{tool}"
        );
        // Modern: the same content, resultType first, serverInfo in _meta.
        let id = 20 + i as i64;
        s.send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":modern(call_tool(tool))}));
        // The line byte for byte: the members in this order, no space.
        let line = s.recv_line();
        assert_eq!(
            line.trim_end_matches(['\r', '\n']),
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":{},"_meta":{}}}}}"#,
                content,
                server_info()
            ),
            "{tool}"
        );
    }
}

fn a_tool_failure_is_an_is_error_result_in_both_eras(t: Transport) {
    let mut s = Wire::legacy(t, json!({}));
    let want =
        json!([{"type":"text","text":"This tool intentionally returns an error for testing"}]);
    let r = s.call(1, "tools/call", call_tool("test_error_handling"));
    assert_eq!(
        r,
        json!({"jsonrpc":"2.0","id":1,"result":{"content":want,"isError":true}})
    );
    let r = s.call(2, "tools/call", modern(call_tool("test_error_handling")));
    assert!(r.get("error").is_none());
    assert_eq!(
        r["result"],
        json!({"resultType":"complete","content":want,"isError":true,"_meta":server_info()})
    );
}

fn progress_comes_only_with_a_token_in_order_before_the_result_in_both_eras(t: Transport) {
    let mut s = Wire::legacy(t, json!({}));
    for (id, token, is_modern) in [
        (1, json!("progress-test-1"), false),
        (2, json!(42), false),
        (3, json!("modern-token"), true),
        (4, json!(7), true),
    ] {
        let mut params = json!({"name":"test_tool_with_progress"});
        if is_modern {
            params = modern(params);
        }
        params["_meta"]["progressToken"] = token.clone();
        s.send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":params}));
        for i in 0..3 {
            assert_progress(&s.recv(), &token, i);
        }
        let r = s.recv();
        assert_eq!(r["id"], id, "the result follows the third progress: {r}");
        assert_eq!(text_of(&r["result"]), "Progress test completed.");
        assert_eq!(r["result"].get("resultType").is_some(), is_modern);
    }
    // Without a token: not one notification, the next line is the result.
    for (id, params) in [
        (5, call_tool("test_tool_with_progress")),
        (6, modern(call_tool("test_tool_with_progress"))),
    ] {
        let r = s.call(id, "tools/call", params);
        assert_eq!(text_of(&r["result"]), "Progress test completed.");
    }
}

fn legacy_logging_is_off_until_set_level_and_follows_the_level(t: Transport) {
    let mut s = Wire::legacy(t, json!({}));
    // No logging/setLevel yet: the next line is the result.
    let r = s.call(1, "tools/call", call_tool("test_tool_with_logging"));
    assert_eq!(text_of(&r["result"]), "Logging test completed.");

    // "error" is more severe than the tool's "info" messages: still none.
    let r = s.call(2, "logging/setLevel", json!({"level":"error"}));
    assert_eq!(r, json!({"jsonrpc":"2.0","id":2,"result":{}}));
    let r = s.call(3, "tools/call", call_tool("test_logging_tool"));
    assert_eq!(text_of(&r["result"]), "Logging test completed.");

    let r = s.call(4, "logging/setLevel", json!({"level":"info"}));
    assert_eq!(r, json!({"jsonrpc":"2.0","id":4,"result":{}}));
    for (id, tool) in [(5, "test_tool_with_logging"), (6, "test_logging_tool")] {
        s.send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":call_tool(tool)}));
        for data in LOG_LINES {
            assert_log(&s.recv(), data);
        }
        let r = s.recv();
        assert_eq!(r["id"], id);
        assert_eq!(text_of(&r["result"]), "Logging test completed.");
    }
}

fn modern_logging_follows_each_requests_log_level_only(t: Transport) {
    // A legacy session on the same pipe asked for debug: modern requests are
    // stateless and do not inherit it.
    let mut s = Wire::legacy(t, json!({}));
    assert_eq!(
        s.call(1, "logging/setLevel", json!({"level":"debug"}))["result"],
        json!({})
    );
    let r = s.call(2, "tools/call", modern(call_tool("test_logging_tool")));
    assert_eq!(text_of(&r["result"]), "Logging test completed.");

    let with_level = |level: &str| {
        let mut p = modern(call_tool("test_tool_with_logging"));
        p["_meta"]["io.modelcontextprotocol/logLevel"] = json!(level);
        p
    };
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":with_level("info")}));
    for data in LOG_LINES {
        assert_log(&s.recv(), data);
    }
    let r = s.recv();
    assert_eq!(r["id"], 3);
    assert_eq!(r["result"]["resultType"], "complete");

    let r = s.call(4, "tools/call", with_level("error"));
    assert_eq!(text_of(&r["result"]), "Logging test completed.");

    let r = s.call(5, "tools/call", with_level("loud"));
    let (code, message) = error_of(&r);
    assert_eq!(code, -32602);
    assert_eq!(
        message,
        r#"params._meta["io.modelcontextprotocol/logLevel"] must be a log level such as "info", got "loud""#
    );
}

fn legacy_sampling_round_trip(t: Transport) {
    let mut s = Wire::legacy(t, json!({"sampling":{}}));
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"What is 2+2?"}}}));
    let ask = s.recv();
    assert_eq!(
        ask,
        json!({"jsonrpc":"2.0","id":"mcp-raw-0","method":"sampling/createMessage","params":{
            "messages":[{"role":"user","content":{"type":"text","text":"What is 2+2?"}}],"maxTokens":100}})
    );
    // While the tool waits, the session goes on serving; a response nobody asked
    // for is ignored silently.
    assert_eq!(
        s.call(2, "ping", json!({})),
        json!({"jsonrpc":"2.0","id":2,"result":{}})
    );
    s.send(&json!({"jsonrpc":"2.0","id":"mcp-raw-99","result":{}}));
    s.send(&json!({"jsonrpc":"2.0","id":"mcp-raw-0","result":{
        "role":"assistant","content":{"type":"text","text":"4"},"model":"test-model","stopReason":"endTurn"}}));
    assert_eq!(
        s.recv(),
        json!({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"LLM response: 4"}]}})
    );
    // Each server request gets a fresh id.
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"again"}}}));
    let ask = s.recv();
    assert_eq!(ask["id"], "mcp-raw-1");
    assert_eq!(ask["method"], "sampling/createMessage");
    // The client refuses: its error becomes the call's error, code kept.
    s.send(&json!({"jsonrpc":"2.0","id":"mcp-raw-1","error":{"code":-1,"message":"User rejected sampling request"}}));
    let r = s.recv();
    assert_eq!(r["id"], 3);
    let (code, message) = error_of(&r);
    assert_eq!(code, -1);
    assert_eq!(
        message,
        "the client refused sampling/createMessage: User rejected sampling request"
    );
}

fn legacy_elicitation_round_trips(t: Transport) {
    let mut s = Wire::legacy(t, json!({"elicitation":{}}));
    s.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"Who are you?"}}}));
    assert_eq!(
        s.recv(),
        json!({"jsonrpc":"2.0","id":"mcp-raw-0","method":"elicitation/create","params":{
            "message":"Who are you?",
            "requestedSchema":{"type":"object","properties":{"username":{"type":"string"},"email":{"type":"string"}},"required":["username","email"]}}})
    );
    s.send(&json!({"jsonrpc":"2.0","id":"mcp-raw-0","result":{"action":"accept","content":{"username":"alice","email":"a@example.com"}}}));
    assert_eq!(
        s.recv(),
        json!({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text",
            "text":"User response: action=accept, content={\"username\":\"alice\",\"email\":\"a@example.com\"}"}]}})
    );

    // A form whose fields all have defaults (SEP-1034), declined.
    s.send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_elicitation_sep1034_defaults"}}));
    let ask = s.recv();
    assert_eq!(ask["id"], "mcp-raw-1");
    let props = &ask["params"]["requestedSchema"]["properties"];
    assert_eq!(props["name"]["default"], "John Doe");
    assert_eq!(props["age"]["type"], "integer");
    assert_eq!(props["age"]["default"], 30);
    assert_eq!(props["score"]["default"], 95.5);
    assert_eq!(
        props["status"]["enum"],
        json!(["active", "inactive", "pending"])
    );
    assert_eq!(props["status"]["default"], "active");
    assert_eq!(props["verified"]["default"], true);
    assert_eq!(ask["params"]["requestedSchema"]["required"], json!([]));
    s.send(&json!({"jsonrpc":"2.0","id":"mcp-raw-1","result":{"action":"decline"}}));
    let r = s.recv();
    assert_eq!(r["id"], 2);
    assert_eq!(
        text_of(&r["result"]),
        "User response: action=decline, content=null"
    );

    // SEP-1330: every enum style in one form, cancelled.
    s.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_elicitation_sep1330_enums"}}));
    let ask = s.recv();
    assert_eq!(ask["id"], "mcp-raw-2");
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
    s.send(&json!({"jsonrpc":"2.0","id":"mcp-raw-2","result":{"action":"cancel"}}));
    let r = s.recv();
    assert_eq!(r["id"], 3);
    assert_eq!(
        text_of(&r["result"]),
        "User response: action=cancel, content=null"
    );
}

/// A legacy server must not ask what the client did not declare in `initialize`
/// (2025-11-25 `client/sampling`, `client/elicitation`): the `tools/call` is refused
/// with -32602 naming the capability, and no request is written to stdout.
fn legacy_sampling_and_elicitation_are_refused_without_the_capability(t: Transport) {
    let mut s = Wire::legacy(t, json!({}));
    for (id, tool, args, cap, asking) in [
        (
            1,
            "test_sampling",
            json!({"prompt":"hi"}),
            "sampling",
            "sampling/createMessage",
        ),
        (
            2,
            "test_elicitation",
            json!({"message":"hi"}),
            "elicitation",
            "elicitation/create",
        ),
    ] {
        s.send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":args}}));
        let r = s.recv();
        assert!(
            r.get("method").is_none(),
            "{tool}: the server asked a client without the {cap} capability: {r}"
        );
        assert_eq!(r["id"], id);
        let (code, message) = error_of(&r);
        assert_eq!(code, -32021, "{tool}");
        assert_eq!(
            message,
            format!(
                r#"Missing required client capability: {cap} (asking the client {asking} needs it; declare it in params._meta["io.modelcontextprotocol/clientCapabilities"] in 2026-07-28, in initialize's capabilities in 2025-11-25)"#
            ),
            "{tool}"
        );
        assert_eq!(r["error"]["data"]["requiredCapabilities"][cap], json!({}));
    }
}

fn mrtr_single_inputs_round_trip(t: Transport) {
    let mut s = Wire::fresh(t);
    // Elicitation: no requestState needed.
    let tool = "test_input_required_result_elicitation";
    let r = s.call(1, "tools/call", mrtr(tool, json!({})));
    let asked = irr(json!({"user_name": elicit("What is your name?", "name", "string")}));
    assert_eq!(r["result"], asked);
    assert!(r["result"].get("requestState").is_none());
    let r = s.call(
        2,
        "tools/call",
        mrtr(
            tool,
            json!({"inputResponses":{"user_name":accept(json!({"name":"Alice"})),"extra":{"x":1}}}),
        ),
    );
    assert_eq!(
        r["result"],
        json!({"resultType":"complete","content":[{"type":"text","text":"Hello, Alice!"}],"_meta":server_info()})
    );
    // Responses without the asked key: asked again.
    let r = s.call(
        3,
        "tools/call",
        mrtr(tool, json!({"inputResponses":{"wrong_key":{"a":1}}})),
    );
    assert_eq!(r["result"], asked);
    // Malformed responses: -32602 naming the field, never a complete result.
    for (id, responses, said) in [
        (
            4,
            json!({"user_name": 12345}),
            "params.inputResponses.user_name must be an object (the client's result), got a number",
        ),
        (
            5,
            Value::Null,
            "params.inputResponses must be an object keyed like the inputRequests, got null",
        ),
        (
            6,
            json!([1]),
            "params.inputResponses must be an object keyed like the inputRequests, got an array",
        ),
    ] {
        let r = s.call(
            id,
            "tools/call",
            mrtr(tool, json!({"inputResponses": responses})),
        );
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602, "{r}");
        assert_eq!(message, said);
    }

    // Sampling and roots: one key each.
    let tool = "test_input_required_result_sampling";
    let r = s.call(7, "tools/call", mrtr(tool, json!({})));
    assert_eq!(
        r["result"],
        irr(json!({"capital_question": sample("What is the capital of France?", 100)}))
    );
    let r = s.call(
        8,
        "tools/call",
        mrtr(
            tool,
            json!({"inputResponses":{"capital_question":sampled("Paris")}}),
        ),
    );
    assert_eq!(text_of(&r["result"]), "Sampling result: Paris");
    let tool = "test_input_required_result_list_roots";
    let r = s.call(9, "tools/call", mrtr(tool, json!({})));
    assert_eq!(
        r["result"],
        irr(json!({"client_roots": {"method":"roots/list","params":{}}}))
    );
    let r = s.call(
        10,
        "tools/call",
        mrtr(tool, json!({"inputResponses":{"client_roots":roots()}})),
    );
    assert_eq!(text_of(&r["result"]), "Found 1 root(s)");
}

fn mrtr_multiple_inputs_in_one_round(t: Transport) {
    let mut s = Wire::fresh(t);
    let tool = "test_input_required_result_multiple_inputs";
    let r = s.call(1, "tools/call", mrtr(tool, json!({})));
    let result = &r["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"],
        json!({
            "user_name": elicit("What is your name?", "name", "string"),
            "greeting": sample("Generate a greeting", 50),
            "client_roots": {"method":"roots/list","params":{}}
        })
    );
    // The questions in the order the tool asked them.
    let keys: Vec<&String> = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["user_name", "greeting", "client_roots"]);
    let state = result["requestState"].as_str().unwrap().to_owned();
    assert!(!state.is_empty());
    let all = json!({"user_name":accept(json!({"name":"Alice"})),"greeting":sampled("Hi!"),"client_roots":roots()});
    let r = s.call(
        2,
        "tools/call",
        mrtr(tool, json!({"inputResponses":all,"requestState":state})),
    );
    assert_eq!(
        r["result"],
        json!({"resultType":"complete","content":[{"type":"text","text":"All three inputs received: name, greeting and roots."}],"_meta":server_info()})
    );
    // Two of three, or all three without the state: asked again.
    let two = json!({"user_name":accept(json!({"name":"Alice"})),"greeting":sampled("Hi!")});
    for (id, extra) in [
        (3, json!({"inputResponses":two,"requestState":state})),
        (4, json!({"inputResponses":all})),
    ] {
        let r = s.call(id, "tools/call", mrtr(tool, extra));
        assert_eq!(r["result"]["resultType"], "input_required", "{r}");
        assert_eq!(r["result"]["inputRequests"].as_object().unwrap().len(), 3);
    }
}

fn mrtr_multi_round_takes_three_rounds_with_different_states(t: Transport) {
    let mut s = Wire::fresh(t);
    multi_round(|id, params| s.call(id, "tools/call", params)["result"].clone());
}

fn mrtr_request_state_intact_tampered_oversized_and_foreign(t: Transport) {
    let mut s = Wire::fresh(t);
    let confirm = json!({"confirm": accept(json!({"ok": true}))});
    for tool in [
        "test_input_required_result_request_state",
        "test_input_required_result_tampered_state",
    ] {
        let state = first_state(&mut s, 1, tool);
        let r = s.call(
            2,
            "tools/call",
            mrtr(tool, json!({"inputResponses":confirm,"requestState":state})),
        );
        assert_eq!(text_of(&r["result"]), "Confirmed: state-ok", "{tool}");
        assert_eq!(r["result"]["resultType"], "complete");

        for (id, bad, said) in [
            (3, format!("{state}-TAMPERED"), SEAL_BROKEN),
            (
                4,
                "a".repeat(8 * 1024 + 1),
                "requestState integrity check failed: longer than 8192 bytes",
            ),
        ] {
            let r = s.call(
                id,
                "tools/call",
                mrtr(tool, json!({"inputResponses":confirm,"requestState":bad})),
            );
            let (code, message) = error_of(&r);
            assert_eq!(code, -32602, "{tool}: {r}");
            assert_eq!(message, said, "{tool}");
        }
        // Exactly 8 KiB is not refused for its length (only for not being sealed).
        let r = s.call(
            5,
            "tools/call",
            mrtr(
                tool,
                json!({"inputResponses":confirm,"requestState":"a".repeat(8 * 1024)}),
            ),
        );
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602);
        assert_eq!(
            message,
            "requestState integrity check failed: not a sealed state"
        );
        // Not a string at all.
        let r = s.call(
            6,
            "tools/call",
            mrtr(tool, json!({"inputResponses":confirm,"requestState":5})),
        );
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602);
        assert_eq!(
            message,
            "params.requestState must be the string the server sent, got a number"
        );
    }

    // A state sealed by another server process does not open here (per-process key).
    let tool = "test_input_required_result_request_state";
    let foreign = first_state(&mut Wire::foreign(t), 1, tool);
    let r = s.call(
        7,
        "tools/call",
        mrtr(
            tool,
            json!({"inputResponses":confirm,"requestState":foreign}),
        ),
    );
    let (code, message) = error_of(&r);
    assert_eq!(code, -32602);
    assert_eq!(message, SEAL_BROKEN);
}

fn mrtr_asks_by_declared_capabilities_and_32021_refuses_what_is_missing(t: Transport) {
    let mut s = Wire::fresh(t);
    let tool = "test_input_required_result_capabilities";
    let r = s.call(
        1,
        "tools/call",
        modern_with(call_tool(tool), json!({"sampling":{}})),
    );
    assert_eq!(
        r["result"],
        irr(json!({"greeting": sample("Generate a greeting", 50)}))
    );
    let r = s.call(
        2,
        "tools/call",
        modern_with(call_tool(tool), json!({"elicitation":{}})),
    );
    assert_eq!(
        r["result"],
        irr(json!({"user_name": elicit("What is your name?", "name", "string")}))
    );
    let r = s.call(3, "tools/call", modern(call_tool(tool)));
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(
        text_of(&r["result"]),
        "The client declared neither elicitation nor sampling: nothing to ask."
    );

    let r = s.call(
        4,
        "tools/call",
        modern(call_tool("test_missing_capability")),
    );
    assert_eq!(
        r,
        json!({"jsonrpc":"2.0","id":4,"error":{"code":-32021,
            "message":"Missing required client capability: sampling (tool test_missing_capability needs it; declare it in params._meta[\"io.modelcontextprotocol/clientCapabilities\"] in 2026-07-28, in initialize's capabilities in 2025-11-25)",
            "data":{"requiredCapabilities":{"sampling":{}}}}})
    );
    // A capability that is not an object does not count as declared.
    let r = s.call(
        5,
        "tools/call",
        modern_with(
            call_tool("test_missing_capability"),
            json!({"sampling":true}),
        ),
    );
    assert_eq!(r["error"]["code"], -32021, "{r}");
    let r = s.call(
        6,
        "tools/call",
        modern_with(call_tool("test_missing_capability"), json!({"sampling":{}})),
    );
    assert_eq!(
        r["result"],
        json!({"resultType":"complete","content":[{"type":"text","text":"The client declared sampling."}],"_meta":server_info()})
    );
}

fn mrtr_tools_in_a_legacy_session_say_they_need_a_modern_request(t: Transport) {
    let mut s = Wire::legacy(t, json!({"sampling":{},"elicitation":{}}));
    let r = s.call(
        1,
        "tools/call",
        call_tool("test_input_required_result_elicitation"),
    );
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(
        text_of(&r["result"]),
        "This tool shows 2026-07-28 multi round-trip requests; call it with a modern request (params._meta)."
    );
    assert!(r["result"].get("resultType").is_none());
}

fn resources_list_read_templates_and_unknown_in_both_eras(t: Transport) {
    let mut s = Wire::legacy(t, json!({}));
    let listing = json!([
        {"uri":"test://static-text","name":"static-text","description":"A static text resource","mimeType":"text/plain"},
        {"uri":"test://static-binary","name":"static-binary","description":"A static binary resource (a 1x1 PNG)","mimeType":"image/png"},
        {"uri":"test://watched-resource","name":"watched-resource","description":"A resource to subscribe to; test_trigger_resource_update announces changes","mimeType":"text/plain"}
    ]);
    let templates = json!([{"uriTemplate":"test://template/{id}/data","name":"template-data","description":"Data for any id","mimeType":"application/json"}]);
    let reads = [
        (
            "test://static-text",
            json!([{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}]),
        ),
        (
            "test://static-binary",
            json!([{"uri":"test://static-binary","mimeType":"image/png","blob":PNG}]),
        ),
        (
            "test://template/123/data",
            json!([{"uri":"test://template/123/data","mimeType":"application/json",
                    "text":"{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}"}]),
        ),
    ];

    // Legacy.
    assert_eq!(
        s.call(1, "resources/list", json!({}))["result"],
        json!({"resources":listing})
    );
    assert_eq!(
        s.call(2, "resources/templates/list", json!({}))["result"],
        json!({"resourceTemplates":templates})
    );
    for (uri, contents) in &reads {
        let r = s.call(3, "resources/read", json!({"uri":uri}));
        assert_eq!(r["result"], json!({"contents":contents}), "{uri}");
    }
    for uri in ["test://nope", "test://template//data"] {
        let r = s.call(4, "resources/read", json!({"uri":uri}));
        assert_eq!(
            r["error"],
            json!({"code":-32002,"message":format!("Resource not found: {uri}"),"data":{"uri":uri}})
        );
    }

    // Modern: the same, dressed; cache hints on lists and reads; -32602 for unknown.
    let cached = |mut v: Value| {
        v["ttlMs"] = json!(60000);
        v["cacheScope"] = json!("public");
        v
    };
    let r = s.call(5, "resources/list", modern(json!({})));
    assert_eq!(
        r["result"],
        cached(json!({"resultType":"complete","resources":listing,"_meta":server_info()}))
    );
    let r = s.call(6, "resources/templates/list", modern(json!({})));
    assert_eq!(
        r["result"],
        cached(
            json!({"resultType":"complete","resourceTemplates":templates,"_meta":server_info()})
        )
    );
    for (uri, contents) in &reads {
        let r = s.call(7, "resources/read", modern(json!({"uri":uri})));
        assert_eq!(
            r["result"],
            cached(json!({"resultType":"complete","contents":contents,"_meta":server_info()})),
            "{uri}"
        );
    }
    let uri = "test://nonexistent-resource-for-conformance-testing";
    let r = s.call(8, "resources/read", modern(json!({"uri":uri})));
    assert_eq!(
        r["error"],
        json!({"code":-32602,"message":format!("Resource not found: {uri}"),"data":{"uri":uri}})
    );
}

fn prompts_list_get_arguments_and_errors_in_both_eras(t: Transport) {
    let mut s = Wire::legacy(t, json!({}));
    let r = s.call(1, "prompts/list", json!({}));
    let prompts = r["result"]["prompts"].as_array().unwrap();
    let names: Vec<&str> = prompts
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "test_simple_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_input_required_result_prompt"
        ]
    );
    assert!(
        prompts
            .iter()
            .all(|p| !p["description"].as_str().unwrap().is_empty())
    );
    assert!(
        prompts[0].get("arguments").is_none(),
        "no arguments: no key"
    );
    assert_eq!(
        prompts[1]["arguments"],
        json!([{"name":"arg1","description":"First argument","required":true},
               {"name":"arg2","description":"Second argument","required":true}])
    );

    let simple = json!({"description":"A prompt without arguments","messages":[
        {"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}]});
    assert_eq!(
        s.call(2, "prompts/get", json!({"name":"test_simple_prompt"}))["result"],
        simple
    );
    let r = s.call(
        3,
        "prompts/get",
        json!({"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1","arg2":"testValue2"}}),
    );
    assert_eq!(
        r["result"]["messages"],
        json!([{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='testValue1', arg2='testValue2'"}}])
    );
    let r = s.call(
        4,
        "prompts/get",
        json!({"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://x"}}),
    );
    assert_eq!(
        r["result"]["messages"],
        json!([
            {"role":"user","content":{"type":"resource","resource":{"uri":"test://x","mimeType":"text/plain","text":"Embedded resource content for testing."}}},
            {"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}
        ])
    );
    let r = s.call(5, "prompts/get", json!({"name":"test_prompt_with_image"}));
    assert_eq!(
        r["result"]["messages"][0],
        json!({"role":"user","content":{"type":"image","data":PNG,"mimeType":"image/png"}})
    );
    assert_eq!(
        r["result"]["messages"][1]["content"]["text"],
        "Please analyze the image above."
    );

    // Errors, both eras: a missing required argument is named; an unknown prompt too.
    for modern_era in [false, true] {
        let era = |p: Value| if modern_era { modern(p) } else { p };
        let r = s.call(
            6,
            "prompts/get",
            era(json!({"name":"test_prompt_with_arguments","arguments":{"arg1":"x"}})),
        );
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602);
        assert_eq!(
            message,
            r#"prompts/get test_prompt_with_arguments: missing required argument "arg2""#
        );
        let r = s.call(7, "prompts/get", era(json!({"name":"no_such_prompt"})));
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602);
        assert_eq!(
            message,
            "Unknown prompt: no_such_prompt (this server has: test_simple_prompt, test_prompt_with_arguments, test_prompt_with_embedded_resource, test_prompt_with_image, test_input_required_result_prompt)"
        );
    }

    // Modern: lists carry cache hints, a get does not.
    let r = s.call(8, "prompts/list", modern(json!({})));
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["ttlMs"], 60000);
    assert_eq!(r["result"]["prompts"].as_array().unwrap().len(), 5);
    let r = s.call(
        9,
        "prompts/get",
        modern(json!({"name":"test_simple_prompt"})),
    );
    let mut want = simple.clone();
    want["resultType"] = json!("complete");
    assert_eq!(r["result"]["messages"], want["messages"]);
    assert_eq!(r["result"]["resultType"], "complete");
    assert!(r["result"].get("ttlMs").is_none());

    // The prompt that asks first (modern MRTR).
    let p = "test_input_required_result_prompt";
    let r = s.call(10, "prompts/get", modern_with(json!({"name":p}), asking()));
    assert_eq!(
        r["result"],
        irr(
            json!({"user_context": elicit("What context should the prompt use?", "context", "string")})
        )
    );
    let r = s.call(
        11,
        "prompts/get",
        modern(json!({"name":p,"inputResponses":{"user_context":accept(json!({"context":"test context"}))}})),
    );
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(
        r["result"]["messages"],
        json!([{"role":"user","content":{"type":"text","text":"Prompt with context: test context"}}])
    );
}

fn completion_suggests_prompt_argument_values_in_both_eras(t: Transport) {
    let mut s = Wire::legacy(t, json!({}));
    let complete = |value: &str| json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":value}});
    for (typed, values) in [
        ("te", json!(["test", "testValue1"])),
        ("", json!(["test", "testValue1", "other"])),
        ("zzz", json!([])),
    ] {
        let n = values.as_array().unwrap().len();
        let r = s.call(1, "completion/complete", complete(typed));
        assert_eq!(
            r["result"],
            json!({"completion":{"values":values,"total":n,"hasMore":false}}),
            "{typed:?}"
        );
        let r = s.call(2, "completion/complete", modern(complete(typed)));
        assert_eq!(
            r["result"],
            json!({"resultType":"complete","completion":{"values":values,"total":n,"hasMore":false},"_meta":server_info()})
        );
    }
    let r = s.call(
        3,
        "completion/complete",
        json!({"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"1"}}),
    );
    assert_eq!(r["result"]["completion"]["values"], json!([]));
}

/// `subscriptions/listen` refuses a malformed filter with -32602 naming the field:
/// 2026-07-28 defines `notifications` as a required object of booleans and a
/// `resourceSubscriptions` array of strings.
fn subscriptions_listen_refuses_a_malformed_filter(t: Transport) {
    let mut s = Wire::fresh(t);
    for (id, params, said) in [
        (
            1,
            json!({}),
            "subscriptions/listen: missing params.notifications, the filter of what to hear",
        ),
        (
            2,
            json!({"notifications":"tools"}),
            "subscriptions/listen: params.notifications must be an object, got a string",
        ),
        (
            3,
            json!({"notifications":{"toolsListChanged":"yes"}}),
            "subscriptions/listen: params.notifications.toolsListChanged must be a boolean, got a string",
        ),
        (
            4,
            json!({"notifications":{"resourceSubscriptions":"test://static-text"}}),
            r#"subscriptions/listen: params.notifications.resourceSubscriptions must be an array of URI strings, got "test://static-text""#,
        ),
    ] {
        let r = s.call(id, "subscriptions/listen", modern(params));
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602);
        assert_eq!(message, said);
    }
}

fn new_methods_refuse_bad_params_with_32602_naming_the_field(t: Transport) {
    let mut s = Wire::legacy(t, json!({}));
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "resources/read",
            json!({}),
            "resources/read: missing params.uri",
        ),
        (
            "resources/read",
            json!({"uri":5}),
            "resources/read: params.uri must be a string, got a number",
        ),
        (
            "resources/subscribe",
            json!({}),
            "resources/subscribe: missing params.uri",
        ),
        (
            "resources/subscribe",
            json!({"uri":[]}),
            "resources/subscribe: params.uri must be a string, got an array",
        ),
        (
            "resources/unsubscribe",
            json!({}),
            "resources/unsubscribe: missing params.uri",
        ),
        ("prompts/get", json!({}), "prompts/get: missing params.name"),
        (
            "prompts/get",
            json!({"name":7}),
            "prompts/get: params.name must be a string, got a number",
        ),
        (
            "prompts/get",
            json!({"name":"test_prompt_with_arguments","arguments":[1]}),
            "prompts/get: params.arguments must be an object, got an array",
        ),
        (
            "prompts/get",
            json!({"name":"test_prompt_with_arguments","arguments":{"arg1":1,"arg2":"b"}}),
            r#"prompts/get test_prompt_with_arguments: argument "arg1" must be a string, got a number"#,
        ),
        (
            "completion/complete",
            json!({"argument":{"name":"arg1"}}),
            "completion/complete: missing params.ref",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"}}),
            "completion/complete: missing params.argument",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{}}),
            "completion/complete: params.argument.name must be a string",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":3}}),
            "completion/complete: params.argument.value must be a string, got a number",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/other"},"argument":{"name":"arg1"}}),
            r#"completion/complete: params.ref.type must be "ref/prompt" or "ref/resource""#,
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"arg1"}}),
            r#"completion/complete: unknown prompt "nope""#,
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"argX"}}),
            r#"completion/complete: prompt "test_prompt_with_arguments" has no argument "argX""#,
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/resource","uri":"test://nope/{x}"},"argument":{"name":"x"}}),
            r#"completion/complete: unknown resource template "test://nope/{x}""#,
        ),
        (
            "logging/setLevel",
            json!({}),
            "logging/setLevel: missing params.level",
        ),
        (
            "logging/setLevel",
            json!({"level":3}),
            "logging/setLevel: params.level must be a string, got a number",
        ),
        (
            "logging/setLevel",
            json!({"level":"loud"}),
            r#"logging/setLevel: unknown level "loud"; one of debug, info, notice, warning, error, critical, alert, emergency"#,
        ),
        (
            "tools/call",
            json!({"name":"test_simple_text","arguments":"x"}),
            "tools/call: params.arguments must be an object, got a string",
        ),
    ];
    for (i, (method, params, said)) in cases.iter().enumerate() {
        let r = s.call(i as i64, method, params.clone());
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602, "{method} {params}: {r}");
        assert_eq!(message, *said, "{method} {params}");
        // The shared methods refuse the same way in the modern era.
        if !method.starts_with("logging/")
            && !method.starts_with("resources/sub")
            && !method.starts_with("resources/unsub")
        {
            let r = s.call(1000 + i as i64, method, modern(params.clone()));
            let (code, message) = error_of(&r);
            assert_eq!(code, -32602, "modern {method} {params}: {r}");
            assert_eq!(message, *said, "modern {method} {params}");
        }
    }
}
