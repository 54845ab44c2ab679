//! The session both demos drive, as data: what to send, why, and what must come back.
//! Each demo numbers the requests as it sends them and checks every reply, so a demo
//! that prints a wrong wire also fails.

use serde_json::{Value, json};

/// What a step must get back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A success response.
    Result,
    /// An error response with this code.
    Error(i64),
    /// A success response whose result has `isError: true` (a tool failure).
    ToolError,
    /// Nothing: the step is a notification.
    Nothing,
}

/// One message of the session.
pub struct Step {
    /// The one-line caption printed before the exchange.
    pub caption: &'static str,
    pub method: &'static str,
    pub params: Option<Value>,
    /// A notification carries no `id`; everything else is a request.
    pub notification: bool,
    pub expect: Expect,
}

impl Step {
    fn request(
        caption: &'static str,
        method: &'static str,
        params: Option<Value>,
        expect: Expect,
    ) -> Step {
        Step {
            caption,
            method,
            params,
            notification: false,
            expect,
        }
    }

    /// The message bytes: with `id` for a request, without for a notification.
    pub fn to_message(&self, id: i64) -> Value {
        let mut m = json!({ "jsonrpc": "2.0" });
        if !self.notification {
            m["id"] = json!(id);
        }
        m["method"] = json!(self.method);
        if let Some(p) = &self.params {
            m["params"] = p.clone();
        }
        m
    }
}

/// The protocol version the demos ask for.
pub const DEMO_VERSION: &str = crate::protocol::LATEST_VERSION;

/// The first caption of both demos.
pub const SHAPES: &str = "MCP is JSON-RPC 2.0. Four shapes: request (\"id\" + \"method\"), notification (\"method\", no \"id\"), success response (\"id\" + \"result\"), error response (\"id\" + \"error\").";

/// The caption of the last line of both demos.
pub const AFTER: &str = "Each message above is the whole protocol at that step; an SDK builds and parses these for you.";

pub fn call(name: &str, arguments: Value) -> Option<Value> {
    Some(json!({ "name": name, "arguments": arguments }))
}

/// The request sent before `initialize`.
pub fn too_early() -> Step {
    Step::request(
        "A request before the handshake: every method but initialize and ping is refused with -32002.",
        "tools/list",
        None,
        Expect::Error(crate::jsonrpc::code::SERVER_NOT_INITIALIZED),
    )
}

pub fn initialize() -> Step {
    Step::request(
        "The handshake: the client proposes a protocol version and introduces itself; the server answers with its version, capabilities and serverInfo.",
        "initialize",
        Some(json!({
            "protocolVersion": DEMO_VERSION,
            "capabilities": {},
            "clientInfo": { "name": "mcp-raw-demo", "version": env!("CARGO_PKG_VERSION") }
        })),
        Expect::Result,
    )
}

pub fn initialized() -> Step {
    Step {
        caption: "A notification (no \"id\"): the client confirms the handshake. Nobody waits for a notification, so the server sends nothing back.",
        method: "notifications/initialized",
        params: None,
        notification: true,
        expect: Expect::Nothing,
    }
}

/// The session after the handshake: list, call each tool, an unknown method, a
/// failing tool.
pub fn operation() -> Vec<Step> {
    vec![
        Step::request(
            "Normal operation. tools/list: each tool's name, description and a hand-written JSON Schema for its arguments.",
            "tools/list",
            None,
            Expect::Result,
        ),
        Step::request(
            "tools/call finds the tool by params.name and runs it; the return value comes back wrapped as text content.",
            "tools/call",
            call("get_current_time", json!({})),
            Expect::Result,
        ),
        Step::request(
            "tools/call echo",
            "tools/call",
            call("echo", json!({ "message": "hello, wire" })),
            Expect::Result,
        ),
        Step::request(
            "tools/call add",
            "tools/call",
            call("add", json!({ "a": 2, "b": 40 })),
            Expect::Result,
        ),
        Step::request(
            "An unknown method is a protocol error: an error response with -32601 naming the method.",
            "bogus",
            None,
            Expect::Error(crate::jsonrpc::code::METHOD_NOT_FOUND),
        ),
        Step::request(
            "A failing tool is not a protocol error: the response is a result with isError: true, so the model can read what went wrong.",
            "tools/call",
            call("add", json!({ "a": "two", "b": 3 })),
            Expect::ToolError,
        ),
    ]
}

/// Checks a reply against what the step expects; the error says what differed.
pub fn check(expect: Expect, reply: Option<&Value>) -> Result<(), String> {
    let ok = match (expect, reply) {
        (Expect::Nothing, None) => true,
        (Expect::Result, Some(r)) => {
            r.get("result").is_some() && r["result"]["isError"] != json!(true)
        }
        (Expect::ToolError, Some(r)) => r["result"]["isError"] == json!(true),
        (Expect::Error(code), Some(r)) => r["error"]["code"] == json!(code),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "expected {expect:?}, got {}",
            reply.map_or("nothing".to_owned(), |r| r.to_string())
        ))
    }
}
