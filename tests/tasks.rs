//! The tasks extension (SEP-2663): raw HTTP/1.1 against the conformance fixture
//! served in-process on port 0, and the same flow over stdio through the real binary.

mod common;
use common::http_client::Stream;
use common::{BIN, Http, HttpReply, InProcess};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

const V: &str = "2026-07-28";
const TASKS: &str = "io.modelcontextprotocol/tasks";

fn with_tasks() -> Value {
    json!({ "extensions": { TASKS: {} } })
}

fn body(id: i64, method: &str, mut params: Value, capabilities: &Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A modern POST with the standard headers; `Mcp-Name` mirrors `name` when given.
fn post(
    s: &InProcess,
    method: &str,
    name: Option<&str>,
    params: Value,
    capabilities: &Value,
) -> HttpReply {
    let mut h = vec![("MCP-Protocol-Version", V), ("Mcp-Method", method)];
    if let Some(n) = name {
        h.push(("Mcp-Name", n));
    }
    s.post(&h, &body(1, method, params, capabilities))
}

/// The JSON-RPC response in a reply, JSON or SSE alike (a tool that takes time
/// streams its SSE body in HTTP/1.1 chunks; the library's framer de-chunks it).
fn response(r: &HttpReply) -> Value {
    r.response()
        .unwrap_or_else(|| panic!("no JSON-RPC response in {}", r.text()))
}

fn call(s: &InProcess, tool: &str, arguments: Value, capabilities: &Value) -> (u16, Value) {
    let r = post(
        s,
        "tools/call",
        Some(tool),
        json!({"name": tool, "arguments": arguments}),
        capabilities,
    );
    (r.status, response(&r))
}

fn task_method(s: &InProcess, method: &str, id: &str, extra: Value) -> (u16, Value) {
    let mut params = json!({ "taskId": id });
    if let (Value::Object(p), Value::Object(e)) = (&mut params, extra) {
        p.extend(e);
    }
    let r = post(s, method, Some(id), params, &with_tasks());
    (r.status, response(&r))
}

/// Creates a task with `tool` and returns its CreateTaskResult.
fn create(s: &InProcess, tool: &str, arguments: Value) -> Value {
    let (status, r) = call(s, tool, arguments, &with_tasks());
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["result"]["resultType"], "task", "{r}");
    r["result"].clone()
}

/// Waits until the task shows `status` (or any terminal status), and returns what
/// `tasks/get` says then. The wait is the wire's own: a `subscriptions/listen`
/// stream for the task (SEP-2663 `notifications/tasks`, one per change of status),
/// opened first; then one `tasks/get`, for a status reached before the stream was
/// open; then the stream's notifications until one shows it (each within
/// `http_client::WAIT`).
fn poll(s: &InProcess, id: &str, status: &str) -> Value {
    let reached = |t: &Value| {
        t["status"] == status
            || ["completed", "failed", "cancelled"].contains(&t["status"].as_str().unwrap_or(""))
    };
    let mut listen = Stream::open(
        &s.addr,
        "POST",
        &[
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
            ("MCP-Protocol-Version", V),
            ("Mcp-Method", "subscriptions/listen"),
        ],
        &body(
            9999,
            "subscriptions/listen",
            json!({"notifications": {"taskIds": [id]}}),
            &with_tasks(),
        ),
    );
    assert_eq!(listen.status, 200);
    assert_eq!(
        listen.message()["method"],
        "notifications/subscriptions/acknowledged"
    );
    let get = || {
        let (code, r) = task_method(s, "tasks/get", id, json!({}));
        assert_eq!(code, 200, "{r}");
        r["result"].clone()
    };
    let now = get();
    if reached(&now) {
        return now;
    }
    loop {
        let note = listen.message();
        assert_eq!(note["method"], "notifications/tasks", "{note}");
        if reached(&note["params"]) {
            return get();
        }
    }
}

#[test]
fn only_the_fixture_advertises_and_serves_tasks() {
    let demo = InProcess::demo();
    let r = post(&demo, "server/discover", None, json!({}), &with_tasks());
    assert!(
        r.json()["result"]["capabilities"]
            .get("extensions")
            .is_none()
    );
    let r = post(
        &demo,
        "tasks/get",
        Some("x"),
        json!({"taskId": "x"}),
        &with_tasks(),
    );
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (404, json!(-32601))
    );

    let s = InProcess::conformance();
    let r = post(&s, "server/discover", None, json!({}), &json!({}));
    assert_eq!(
        r.json()["result"]["capabilities"]["extensions"],
        json!({ TASKS: {} })
    );
    // Not in the legacy era: the extension does not exist before 2026-07-28.
    let r = s.post(&[], &common::initialize("2025-11-25"));
    assert!(
        r.json()["result"]["capabilities"]
            .get("extensions")
            .is_none()
    );
}

#[test]
fn a_task_is_created_polled_and_completed_with_its_result_inlined() {
    let s = InProcess::conformance();
    let created = create(&s, "slow_compute", json!({"seconds": 0.3, "label": "L"}));
    assert_eq!(created["status"], "working");
    assert!(created["ttlMs"].as_u64().unwrap() > 0);
    assert!(created["pollIntervalMs"].as_u64().unwrap() > 0);
    for absent in ["result", "error", "inputRequests", "requestState"] {
        assert!(created.get(absent).is_none(), "{absent}");
    }
    let id = created["taskId"].as_str().unwrap();
    // Durable before the response: found at once, answered as plain JSON.
    let r = post(
        &s,
        "tasks/get",
        Some(id),
        json!({"taskId": id}),
        &with_tasks(),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let t = &r.json()["result"];
    assert_eq!(t["resultType"], "complete");
    assert_eq!(t["status"], "working");
    assert!(t.get("result").is_none());
    let done = poll(&s, id, "completed");
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "Computed L in 0.3 s.");
    // Cancelling a finished task: the same empty ack, nothing changes.
    let (code, ack) = task_method(&s, "tasks/cancel", id, json!({}));
    assert_eq!(code, 200);
    let ack = ack["result"].as_object().unwrap();
    assert!(
        ack.keys().all(|k| k == "resultType" || k == "_meta"),
        "{ack:?}"
    );
    assert_eq!(poll(&s, id, "completed")["status"], "completed");
}

#[test]
fn tool_errors_complete_and_json_rpc_errors_fail() {
    let s = InProcess::conformance();
    let tool_error = create(&s, "failing_job", json!({}));
    let protocol_error = create(&s, "protocol_error_job", json!({}));
    let t = poll(&s, tool_error["taskId"].as_str().unwrap(), "completed");
    assert_eq!(
        (t["status"].clone(), t["result"]["isError"].clone()),
        (json!("completed"), json!(true))
    );
    let t = poll(&s, protocol_error["taskId"].as_str().unwrap(), "failed");
    assert_eq!(t["status"], "failed");
    assert_eq!(t["error"]["code"], -32603);
    assert!(t["statusMessage"].is_string() && t.get("result").is_none());
}

#[test]
fn without_the_extension_there_are_no_tasks() {
    let s = InProcess::conformance();
    let none = json!({});
    // A task-capable tool answers synchronously instead...
    let (status, r) = call(&s, "slow_compute", json!({"seconds": 0}), &none);
    assert_eq!(status, 200);
    assert_eq!(r["result"]["resultType"], "complete");
    assert!(r["result"].get("taskId").is_none());
    // ...a task-only tool is refused, naming the extension...
    let (status, r) = call(&s, "failing_job", json!({}), &none);
    assert_eq!((status, r["error"]["code"].clone()), (400, json!(-32021)));
    assert_eq!(
        r["error"]["data"],
        json!({"requiredCapabilities": {"extensions": {TASKS: {}}}})
    );
    // ...and so are the tasks methods, before the task id is even looked at.
    for (method, extra) in [
        ("tasks/get", json!({})),
        ("tasks/update", json!({"inputResponses": {}})),
        ("tasks/cancel", json!({})),
    ] {
        let mut params = json!({"taskId": "gate"});
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let r = post(&s, method, Some("gate"), params, &none);
        assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (400, json!(-32021)),
            "{method}"
        );
    }
}

#[test]
fn wrong_ids_removed_methods_and_routing_headers() {
    let s = InProcess::conformance();
    let (code, r) = task_method(&s, "tasks/get", "no-such-task", json!({}));
    assert_eq!((code, r["error"]["code"].clone()), (400, json!(-32602)));
    assert_eq!(
        r["error"]["message"],
        "Failed to retrieve task: Task not found (no-such-task)"
    );
    for method in ["tasks/result", "tasks/list"] {
        let r = post(&s, method, None, json!({"taskId": "x"}), &with_tasks());
        assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (404, json!(-32601)),
            "{method}"
        );
    }
    let id = create(&s, "slow_compute", json!({"seconds": 60}))["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    // Mcp-Name must mirror params.taskId: wrong or missing is -32020.
    for name in [Some("another-task"), None] {
        let r = post(&s, "tasks/get", name, json!({"taskId": id}), &with_tasks());
        assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (400, json!(-32020)),
            "{name:?}"
        );
    }
    let (code, _) = task_method(&s, "tasks/cancel", &id, json!({}));
    assert_eq!(code, 200);
    let t = poll(&s, &id, "cancelled");
    assert_eq!(t["status"], "cancelled");
}

#[test]
fn input_is_asked_in_tasks_get_and_answered_with_tasks_update() {
    let s = InProcess::conformance();
    let id = create(&s, "multi_input", json!({}))["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let t = poll(&s, &id, "input_required");
    let keys: Vec<&String> = t["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "confirm"]);
    assert_eq!(t["inputRequests"]["name"]["method"], "elicitation/create");
    // One answer (and one for a key never asked, ignored): the other stays pending.
    let (code, ack) = task_method(
        &s,
        "tasks/update",
        &id,
        json!({"inputResponses": {
            "name": {"action": "accept", "content": {"name": "Ada"}},
            "unknown": {"action": "accept"}
        }}),
    );
    assert_eq!(
        (code, ack["result"]["resultType"].clone()),
        (200, json!("complete"))
    );
    let (_, r) = task_method(&s, "tasks/get", &id, json!({}));
    assert_eq!(r["result"]["status"], "input_required");
    assert_eq!(r["result"]["inputRequests"].as_object().unwrap().len(), 1);
    assert!(r["result"]["inputRequests"].get("confirm").is_some());
    // An answer that is not an object is refused.
    let (code, r) = task_method(
        &s,
        "tasks/update",
        &id,
        json!({"inputResponses": {"confirm": 1}}),
    );
    assert_eq!((code, r["error"]["code"].clone()), (400, json!(-32602)));
    task_method(
        &s,
        "tasks/update",
        &id,
        json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
    );
    let done = poll(&s, &id, "completed");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Received both inputs: name \"Ada\" and confirm true."
    );
}

#[test]
fn mrtr_rounds_come_before_the_task() {
    let s = InProcess::conformance();
    let caps = json!({"elicitation": {}, "extensions": {TASKS: {}}});
    let (_, r1) = call(&s, "test_tool_with_task", json!({}), &caps);
    assert_eq!(r1["result"]["resultType"], "input_required");
    assert!(r1["result"].get("taskId").is_none());
    let r = post(
        &s,
        "tools/call",
        Some("test_tool_with_task"),
        json!({"name": "test_tool_with_task", "arguments": {},
               "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}}}),
        &caps,
    );
    let r2 = response(&r);
    assert_eq!(r2["result"]["resultType"], "task", "{r2}");
    assert!(r2["result"].get("requestState").is_none());
    let done = poll(&s, r2["result"]["taskId"].as_str().unwrap(), "completed");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Hello, Alice! (asked with MRTR, answered by a task)"
    );
}

#[test]
fn listening_for_task_ids_needs_the_extension() {
    let s = InProcess::conformance();
    let r = post(
        &s,
        "subscriptions/listen",
        None,
        json!({"notifications": {"taskIds": ["t"]}}),
        &json!({}),
    );
    let e = &r.json()["error"];
    assert_eq!((r.status, e["code"].clone()), (400, json!(-32021)));
    assert_eq!(
        e["data"]["requiredCapabilities"],
        json!({"extensions": {TASKS: {}}})
    );
}

/// One stdio session, spoken line by line; the server's stdout read by a thread of
/// its own and handed over line by line, so that every wait is bounded.
struct Lines {
    stdin: std::process::ChildStdin,
    stdout: std::sync::mpsc::Receiver<String>,
    next: i64,
    /// Notifications met while waiting for responses.
    notes: Vec<Value>,
}

impl Lines {
    /// Sends a request; returns its id.
    fn send(&mut self, method: &str, params: Value) -> i64 {
        self.next += 1;
        let line = body(self.next, method, params, &with_tasks());
        writeln!(self.stdin, "{line}").unwrap();
        self.next
    }

    /// Sends a request and reads up to its response.
    fn ask(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        loop {
            let v = self.next_message();
            if v.get("id").is_none() {
                self.notes.push(v);
            } else {
                assert_eq!(v["id"], id, "{v}");
                return v["result"].clone();
            }
        }
    }

    /// The server's next line, within 5 s, as JSON.
    fn next_message(&mut self) -> Value {
        let line = self
            .stdout
            .recv_timeout(Duration::from_secs(5))
            .expect("a line from the server within 5 s");
        serde_json::from_str(&line).unwrap()
    }

    /// Reads on until a notification for which `wanted` holds is among the notes.
    fn await_note(&mut self, wanted: impl Fn(&Value) -> bool) {
        while !self.notes.iter().any(&wanted) {
            let v = self.next_message();
            assert!(v.get("id").is_none(), "a response nobody asked for: {v}");
            self.notes.push(v);
        }
    }

    /// Asks `tasks/get` until the task shows `status` (at most 5 s): before a
    /// listen stream is open there is nothing else to wait on, so each answer paces
    /// the next question, with no sleep between.
    fn poll(&mut self, task: &Value, status: &str) -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        let mut asked = 0;
        while std::time::Instant::now() < deadline {
            let t = self.ask("tasks/get", json!({ "taskId": task }));
            asked += 1;
            if t["status"] == status {
                return t;
            }
        }
        panic!("task {task} never reached {status} ({asked} tasks/get in 5 s)");
    }
}

/// The core is transport-agnostic: the same task flow, one JSON message per line, and
/// `notifications/tasks` on a `subscriptions/listen` for the task.
#[test]
fn tasks_work_over_stdio_too() {
    // Serve over stdio (its pipes): a process.
    let mut child = Command::new(BIN)
        .args(["serve", "--fixture", "conformance"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut io = Lines {
        stdin: child.stdin.take().unwrap(),
        stdout: lines,
        next: 0,
        notes: Vec::new(),
    };
    let created = io.ask(
        "tools/call",
        json!({"name": "confirm_delete", "arguments": {"filename": "a.txt"}}),
    );
    assert_eq!(created["resultType"], "task", "{created}");
    let task = created["taskId"].clone();
    let asking = io.poll(&task, "input_required");
    assert_eq!(
        asking["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    // A listen stream for this task: its acknowledgment names the task it will hear
    // about. The listen request stays unanswered while the stream is open.
    let listen = io.send(
        "subscriptions/listen",
        json!({"notifications": {"taskIds": [task, "not-a-task"]}}),
    );
    let ack = io.ask(
        "tasks/update",
        json!({"taskId": task, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}}),
    );
    assert_eq!(ack["resultType"], "complete");
    // The listen stream says when the task completes; tasks/get shows it then.
    io.await_note(|n| n["params"]["status"] == "completed");
    let done = io.ask("tasks/get", json!({ "taskId": task }));
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Deleted a.txt. (A fixture: nothing was deleted.)"
    );
    let notes = &io.notes;
    assert_eq!(
        notes[0]["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert_eq!(
        notes[0]["params"]["notifications"],
        json!({ "taskIds": [task] })
    );
    for n in &notes[1..] {
        assert_eq!(n["method"], "notifications/tasks");
        assert_eq!(
            n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            listen
        );
    }
    let statuses: Vec<&Value> = notes[1..].iter().map(|n| &n["params"]["status"]).collect();
    assert_eq!(statuses, [&json!("working"), &json!("completed")]);
    assert_eq!(notes[notes.len() - 1]["params"]["result"], done["result"]);
    drop(io);
    assert!(child.wait().unwrap().success());
}
