//! The conformance fixture (`mcp-raw serve --fixture conformance`) over stdio, in both
//! eras, through the real binary: one JSON-RPC message per line, asserted exactly.
//! The official conformance suite never drives stdio; these tests prove the same
//! features work here (and pin what the suite does not check).

mod common;
use common::{BIN, PNG, content_cases};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long an expected line may take.
const WAIT: Duration = Duration::from_secs(5);
const MODERN: &str = "2026-07-28";

/// `mcp-raw serve --fixture conformance` on pipes; killed on drop. stdout lines are
/// read on a thread so every wait is bounded.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn spawn() -> Server {
        let mut child = Command::new(BIN)
            .args(["serve", "--fixture", "conformance"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcp-raw serve --fixture conformance");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
        }
    }

    /// A legacy session: `initialize` declaring `capabilities`, then
    /// `notifications/initialized`.
    fn legacy(capabilities: Value) -> Server {
        let mut s = Server::spawn();
        s.send(
            &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":capabilities,
            "clientInfo":{"name":"fixture-test","version":"0"}}}),
        );
        let r = s.recv();
        assert_eq!(r["id"], 0);
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{r}");
        assert_eq!(
            r["result"]["capabilities"],
            json!({"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},
                   "prompts":{"listChanged":true},"completions":{},"logging":{}})
        );
        s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        s
    }

    fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write to the server's stdin");
        self.stdin.flush().unwrap();
    }

    /// The next stdout line, raw.
    fn recv_line(&self) -> String {
        self.lines
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("no line from the server within {WAIT:?}"))
    }

    /// The next stdout line, as JSON.
    fn recv(&self) -> Value {
        let line = self.recv_line();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
    }

    /// The next line if one comes within `d`.
    fn recv_within(&self, d: Duration) -> Option<Value> {
        self.lines
            .recv_timeout(d)
            .ok()
            .map(|l| serde_json::from_str(&l).unwrap())
    }

    /// Sends a request and returns the next line, which must be its response.
    fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}));
        let r = self.recv();
        assert_eq!(r["id"], id, "expected the response to {id} next, got {r}");
        r
    }
}

/// The modern per-request `_meta`, with these client capabilities.
fn meta_with(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "fixture-test", "version": "0"}
    })
}

/// `params` made modern (capabilities `{}`).
fn modern(params: Value) -> Value {
    modern_with(params, json!({}))
}

fn modern_with(mut params: Value, caps: Value) -> Value {
    params["_meta"] = meta_with(caps);
    params
}

/// What the server puts in every modern result's `_meta`.
fn server_info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "mcp-raw", "version": env!("CARGO_PKG_VERSION")}})
}

fn error_of(r: &Value) -> (i64, String) {
    let e = &r["error"];
    assert!(e.is_object(), "expected an error response, got {r}");
    assert!(r.get("result").is_none());
    (
        e["code"].as_i64().unwrap(),
        e["message"].as_str().unwrap().to_owned(),
    )
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {result}"))
}

fn call_tool(name: &str) -> Value {
    json!({"name": name})
}

#[test]
fn every_content_type_tool_answers_exactly_in_both_eras() {
    let mut s = Server::legacy(json!({}));
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
        let line = s.recv_line();
        assert!(
            line.starts_with(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":"#
            )),
            "{line}"
        );
        let r: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            r["result"],
            json!({"resultType":"complete","content":content,"_meta":server_info()}),
            "{tool}"
        );
    }
}

#[test]
fn a_tool_failure_is_an_is_error_result_in_both_eras() {
    let mut s = Server::legacy(json!({}));
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

/// Asserts `m` is `notifications/progress` step `i` (0, 50, 100 of 100) for `token`.
fn assert_progress(m: &Value, token: &Value, i: usize) {
    assert_eq!(m["jsonrpc"], "2.0");
    assert_eq!(m["method"], "notifications/progress", "{m}");
    assert!(m.get("id").is_none(), "a notification has no id: {m}");
    let p = &m["params"];
    assert_eq!(
        &p["progressToken"], token,
        "the token is echoed as sent: {m}"
    );
    assert_eq!(p["progress"].as_f64(), Some([0.0, 50.0, 100.0][i]), "{m}");
    assert_eq!(p["total"].as_f64(), Some(100.0), "{m}");
    assert_eq!(p["message"], format!("step {} of 3", i + 1));
}

#[test]
fn progress_comes_only_with_a_token_in_order_before_the_result_in_both_eras() {
    let mut s = Server::legacy(json!({}));
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

fn assert_log(m: &Value, data: &str) {
    assert_eq!(
        m,
        &json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":data}})
    );
}

const LOG_LINES: [&str; 3] = [
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
];

#[test]
fn legacy_logging_is_off_until_set_level_and_follows_the_level() {
    let mut s = Server::legacy(json!({}));
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

#[test]
fn modern_logging_follows_each_requests_log_level_only() {
    // A legacy session on the same pipe asked for debug: modern requests are
    // stateless and do not inherit it.
    let mut s = Server::legacy(json!({}));
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
    assert!(
        message.contains("io.modelcontextprotocol/logLevel"),
        "{message}"
    );
}

#[test]
fn legacy_sampling_round_trip_on_stdio() {
    let mut s = Server::legacy(json!({"sampling":{}}));
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
    assert!(
        message.contains("sampling/createMessage") && message.contains("User rejected"),
        "{message}"
    );
}

#[test]
fn legacy_elicitation_round_trips_on_stdio() {
    let mut s = Server::legacy(json!({"elicitation":{}}));
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
}

/// A legacy server must not ask what the client did not declare in `initialize`
/// (2025-11-25 `client/sampling`, `client/elicitation`): the `tools/call` is refused
/// with -32602 naming the capability, and no request is written to stdout.
#[test]
fn legacy_sampling_and_elicitation_are_refused_without_the_capability() {
    let mut s = Server::legacy(json!({}));
    for (id, tool, args, cap) in [
        (1, "test_sampling", json!({"prompt":"hi"}), "sampling"),
        (
            2,
            "test_elicitation",
            json!({"message":"hi"}),
            "elicitation",
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
        assert!(message.contains(cap), "{tool}: {message}");
        assert_eq!(r["error"]["data"]["requiredCapabilities"][cap], json!({}));
    }
}

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

#[test]
fn mrtr_single_inputs_round_trip_on_stdio() {
    let mut s = Server::spawn();
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
    for (id, responses, field) in [
        (
            4,
            json!({"user_name": 12345}),
            "params.inputResponses.user_name",
        ),
        (5, Value::Null, "params.inputResponses"),
        (6, json!([1]), "params.inputResponses"),
    ] {
        let r = s.call(
            id,
            "tools/call",
            mrtr(tool, json!({"inputResponses": responses})),
        );
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602, "{r}");
        assert!(message.contains(field), "{message}");
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

#[test]
fn mrtr_multiple_inputs_in_one_round_on_stdio() {
    let mut s = Server::spawn();
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
    assert_eq!(r3["resultType"], "complete");
    assert_eq!(
        text_of(&r3),
        "Multi-round complete for Alice who likes blue"
    );
    assert!(r3.get("requestState").is_none());

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

#[test]
fn mrtr_multi_round_takes_three_rounds_with_different_states_on_stdio() {
    let mut s = Server::spawn();
    multi_round(|id, params| s.call(id, "tools/call", params)["result"].clone());
}

/// Round 1 of `tool`: its `requestState`.
fn first_state(s: &mut Server, id: i64, tool: &str) -> String {
    let r = s.call(id, "tools/call", mrtr(tool, json!({})));
    assert_eq!(r["result"]["resultType"], "input_required");
    assert_eq!(
        r["result"]["inputRequests"],
        json!({"confirm": elicit("Please confirm", "ok", "boolean")})
    );
    r["result"]["requestState"].as_str().unwrap().to_owned()
}

#[test]
fn mrtr_request_state_intact_tampered_oversized_and_foreign_on_stdio() {
    let mut s = Server::spawn();
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

        for (id, bad, why) in [
            (
                3,
                format!("{state}-TAMPERED"),
                "requestState integrity check failed",
            ),
            (4, "a".repeat(8 * 1024 + 1), "longer than 8192 bytes"),
        ] {
            let r = s.call(
                id,
                "tools/call",
                mrtr(tool, json!({"inputResponses":confirm,"requestState":bad})),
            );
            let (code, message) = error_of(&r);
            assert_eq!(code, -32602, "{tool}: {r}");
            assert!(
                message.starts_with("requestState integrity check failed") && message.contains(why),
                "{tool}: {message}"
            );
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
        assert!(!message.contains("longer than"), "{message}");
        // Not a string at all.
        let r = s.call(
            6,
            "tools/call",
            mrtr(tool, json!({"inputResponses":confirm,"requestState":5})),
        );
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602);
        assert!(message.contains("params.requestState"), "{message}");
    }

    // A state sealed by another server process does not open here (per-process key).
    let tool = "test_input_required_result_request_state";
    let foreign = first_state(&mut Server::spawn(), 1, tool);
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
    assert!(
        message.starts_with("requestState integrity check failed"),
        "{message}"
    );
}

#[test]
fn mrtr_asks_by_declared_capabilities_and_32021_refuses_what_is_missing() {
    let mut s = Server::spawn();
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
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert_eq!(
        r["error"]["data"],
        json!({"requiredCapabilities":{"sampling":{}}})
    );
    assert!(r["error"]["message"].as_str().unwrap().contains("sampling"));
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

#[test]
fn mrtr_tools_in_a_legacy_session_say_they_need_a_modern_request() {
    let mut s = Server::legacy(json!({"sampling":{},"elicitation":{}}));
    let r = s.call(
        1,
        "tools/call",
        call_tool("test_input_required_result_elicitation"),
    );
    assert_eq!(r["result"]["isError"], true);
    assert!(text_of(&r["result"]).contains("2026-07-28"));
    assert!(r["result"].get("resultType").is_none());
}

#[test]
fn resources_list_read_templates_and_unknown_in_both_eras() {
    let mut s = Server::legacy(json!({}));
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

#[test]
fn prompts_list_get_arguments_and_errors_in_both_eras() {
    let mut s = Server::legacy(json!({}));
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
        assert!(
            message.contains("missing required argument \"arg2\""),
            "{message}"
        );
        let r = s.call(7, "prompts/get", era(json!({"name":"no_such_prompt"})));
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602);
        assert!(
            message.contains("Unknown prompt: no_such_prompt"),
            "{message}"
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

#[test]
fn completion_suggests_prompt_argument_values_in_both_eras() {
    let mut s = Server::legacy(json!({}));
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

#[test]
fn legacy_resource_updates_reach_only_subscribed_uris_on_stdio() {
    let mut s = Server::legacy(json!({}));
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
    let mut s = Server::legacy(json!({}));
    for (id, tool, method) in [
        (
            1,
            "test_trigger_tool_change",
            "notifications/tools/list_changed",
        ),
        (
            2,
            "test_trigger_prompt_change",
            "notifications/prompts/list_changed",
        ),
    ] {
        s.send(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":call_tool(tool)}));
        assert_eq!(
            s.recv(),
            json!({"jsonrpc":"2.0","method":method,"params":{}})
        );
        let r = s.recv();
        assert_eq!(r["id"], id);
        assert!(text_of(&r["result"]).starts_with("Announced"));
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
    let mut s = Server::spawn();
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
    let mut s = Server::spawn();
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

/// `subscriptions/listen` refuses a malformed filter with -32602 naming the field:
/// 2026-07-28 defines `notifications` as a required object of booleans and a
/// `resourceSubscriptions` array of strings.
#[test]
fn subscriptions_listen_refuses_a_malformed_filter() {
    let mut s = Server::spawn();
    for (id, params, field) in [
        (1, json!({}), "params.notifications"),
        (2, json!({"notifications":"tools"}), "params.notifications"),
        (
            3,
            json!({"notifications":{"toolsListChanged":"yes"}}),
            "toolsListChanged",
        ),
        (
            4,
            json!({"notifications":{"resourceSubscriptions":"test://static-text"}}),
            "resourceSubscriptions",
        ),
    ] {
        let r = s.call(id, "subscriptions/listen", modern(params));
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602);
        assert!(message.contains(field), "{message}");
    }
}

#[test]
fn cancelling_an_in_flight_call_sends_no_response_in_both_eras() {
    let mut s = Server::legacy(json!({}));
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

#[test]
fn new_methods_refuse_bad_params_with_32602_naming_the_field() {
    let mut s = Server::legacy(json!({}));
    let cases: Vec<(&str, Value, &str)> = vec![
        ("resources/read", json!({}), "params.uri"),
        (
            "resources/read",
            json!({"uri":5}),
            "params.uri must be a string",
        ),
        ("resources/subscribe", json!({}), "params.uri"),
        (
            "resources/subscribe",
            json!({"uri":[]}),
            "params.uri must be a string",
        ),
        ("resources/unsubscribe", json!({}), "params.uri"),
        ("prompts/get", json!({}), "params.name"),
        (
            "prompts/get",
            json!({"name":7}),
            "params.name must be a string",
        ),
        (
            "prompts/get",
            json!({"name":"test_prompt_with_arguments","arguments":[1]}),
            "params.arguments",
        ),
        (
            "prompts/get",
            json!({"name":"test_prompt_with_arguments","arguments":{"arg1":1,"arg2":"b"}}),
            "argument \"arg1\" must be a string",
        ),
        (
            "completion/complete",
            json!({"argument":{"name":"arg1"}}),
            "params.ref",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"}}),
            "params.argument",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{}}),
            "params.argument.name",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":3}}),
            "params.argument.value",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/other"},"argument":{"name":"arg1"}}),
            "params.ref.type",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"arg1"}}),
            "unknown prompt",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"argX"}}),
            "argX",
        ),
        (
            "completion/complete",
            json!({"ref":{"type":"ref/resource","uri":"test://nope/{x}"},"argument":{"name":"x"}}),
            "unknown resource template",
        ),
        ("logging/setLevel", json!({}), "params.level"),
        (
            "logging/setLevel",
            json!({"level":3}),
            "params.level must be a string",
        ),
        ("logging/setLevel", json!({"level":"loud"}), "unknown level"),
        (
            "tools/call",
            json!({"name":"test_simple_text","arguments":"x"}),
            "params.arguments",
        ),
    ];
    for (i, (method, params, field)) in cases.iter().enumerate() {
        let r = s.call(i as i64, method, params.clone());
        let (code, message) = error_of(&r);
        assert_eq!(code, -32602, "{method} {params}: {r}");
        assert!(message.contains(field), "{method} {params}: {message}");
        // The shared methods refuse the same way in the modern era.
        if !method.starts_with("logging/")
            && !method.starts_with("resources/sub")
            && !method.starts_with("resources/unsub")
        {
            let r = s.call(1000 + i as i64, method, modern(params.clone()));
            let (code, message) = error_of(&r);
            assert_eq!(code, -32602, "modern {method} {params}: {r}");
            assert!(
                message.contains(field),
                "modern {method} {params}: {message}"
            );
        }
    }
}
