//! The sessions the demos drive, as data: what to send, why, and what must come back.
//! Each demo numbers the requests as it sends them and checks every reply, so a demo
//! that prints a wrong wire also fails.

use mcp_raw_core::{LATEST_VERSION, meta};
use mcp_raw_wire::http::mirror;
use mcp_raw_wire::jsonrpc::code;
use mcp_raw_wire::jsonrpc::code::HEADER_MISMATCH;
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

/// One message of a session.
pub struct Step {
    /// The one-line caption printed before the exchange (empty: none).
    pub caption: &'static str,
    pub method: &'static str,
    pub params: Option<Value>,
    /// A notification carries no `id`; everything else is a request.
    pub notification: bool,
    pub expect: Expect,
    /// Modern era: the protocol version put in `_meta` (and, on HTTP, the headers).
    /// `None`: a legacy message, sent inside a session.
    pub modern: Option<&'static str>,
    /// HTTP only: a header sent with a wrong value on purpose, to show `-32020`.
    pub wrong_header: Option<(&'static str, &'static str)>,
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
            modern: None,
            wrong_header: None,
        }
    }

    /// The same step in the modern era: `_meta` declares `version`.
    fn modern(mut self, version: &'static str) -> Step {
        self.modern = Some(version);
        self
    }

    /// The message: with `id` for a request, without for a notification; a modern
    /// step's params carry `_meta`.
    pub fn to_message(&self, id: i64) -> Value {
        let mut m = json!({ "jsonrpc": "2.0" });
        if !self.notification {
            m["id"] = json!(id);
        }
        m["method"] = json!(self.method);
        let mut params = self.params.clone();
        if let Some(version) = self.modern {
            let p = params.get_or_insert_with(|| json!({}));
            p["_meta"] = json!({
                meta::PROTOCOL_VERSION: version,
                meta::CLIENT_CAPABILITIES: {},
                meta::CLIENT_INFO: { "name": "mcp-raw-demo", "version": env!("CARGO_PKG_VERSION") },
            });
        }
        if let Some(p) = params {
            m["params"] = p;
        }
        m
    }

    /// HTTP headers of a modern step: the standard mirrored headers, one of them
    /// replaced when the step shows a mismatch.
    pub fn modern_headers(&self, message: &Value) -> Vec<(String, String)> {
        let Some(version) = self.modern else {
            return Vec::new();
        };
        let mut headers = mirror::standard_headers(version, self.method, message.get("params"));
        if let Some((name, value)) = self.wrong_header {
            for (n, v) in &mut headers {
                if n.eq_ignore_ascii_case(name) {
                    *v = value.to_owned();
                }
            }
        }
        headers
    }

    /// The HTTP status this step must get: legacy errors ride in a `200`; modern
    /// ones carry their own status.
    pub fn http_status(&self) -> u16 {
        match (self.expect, self.modern) {
            (Expect::Nothing, _) => 202,
            (Expect::Error(c), Some(_)) => mcp_raw_wire::http::status_for(c).as_u16(),
            _ => 200,
        }
    }
}

/// The first caption of the legacy demos.
pub const SHAPES: &str = "MCP is JSON-RPC 2.0. Four shapes: request (\"id\" + \"method\"), notification (\"method\", no \"id\"), success response (\"id\" + \"result\"), error response (\"id\" + \"error\").";

/// The closing caption of every demo.
pub const AFTER: &str = "Each message above is the whole protocol at that step; an SDK builds and parses these for you.";

/// Where the legacy demos point next.
pub const TRY_ERAS: &str = "Next: `-- --era modern` shows the stateless 2026-07-28 wire (no handshake, no session); `-- --era both` makes the same call in each era, one after the other, against one server.";

pub fn call(name: &str, arguments: Value) -> Option<Value> {
    Some(json!({ "name": name, "arguments": arguments }))
}

/// The request sent before `initialize`.
pub fn too_early() -> Step {
    Step::request(
        "A request before the handshake: every method but initialize and ping is refused with -32002.",
        "tools/list",
        None,
        Expect::Error(code::SERVER_NOT_INITIALIZED),
    )
}

pub fn initialize() -> Step {
    Step::request(
        "The handshake: the client proposes a protocol version and introduces itself; the server answers with its version, capabilities and serverInfo.",
        "initialize",
        Some(json!({
            "protocolVersion": LATEST_VERSION,
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
        modern: None,
        wrong_header: None,
    }
}

/// A plain request with no caption (e.g. the `ping` that proves silence).
pub fn bare(method: &'static str, expect: Expect) -> Step {
    Step::request("", method, None, expect)
}

/// The one call the `--era both` demos make in each era.
pub fn sample_call() -> Step {
    Step::request(
        "",
        "tools/call",
        call("add", json!({ "a": 2, "b": 40 })),
        Expect::Result,
    )
}

/// The same call in the modern era.
pub fn sample_call_modern() -> Step {
    sample_call().modern(meta::MODERN_VERSIONS[0])
}

/// The legacy session after the handshake: list, call each tool, an unknown
/// method, a failing tool.
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
            Expect::Error(code::METHOD_NOT_FOUND),
        ),
        failing_tool(),
    ]
}

fn failing_tool() -> Step {
    Step::request(
        "A failing tool is not a protocol error: the response is a result with isError: true, so the model can read what went wrong.",
        "tools/call",
        call("add", json!({ "a": "two", "b": 3 })),
        Expect::ToolError,
    )
}

/// The modern session: no handshake; every request stands alone. `http` adds the
/// step that only HTTP has (a mirrored header that disagrees with the body).
pub fn modern_session(http: bool) -> Vec<Step> {
    let v = meta::MODERN_VERSIONS[0];
    let mut steps = vec![
        Step::request(
            "2026-07-28: no initialize. server/discover (optional for clients, a MUST for servers) tells versions, capabilities and identity; every request carries its own version and capabilities in params._meta.",
            "server/discover",
            None,
            Expect::Result,
        )
        .modern(v),
        Step::request(
            "tools/list: the same tools, plus resultType (every modern result has one) and caching hints ttlMs / cacheScope.",
            "tools/list",
            None,
            Expect::Result,
        )
        .modern(v),
        Step::request(
            "tools/call: the same handlers, the same content; the result also says resultType: complete and names the server in _meta.",
            "tools/call",
            call("get_current_time", json!({})),
            Expect::Result,
        )
        .modern(v),
        Step::request("tools/call echo", "tools/call", call("echo", json!({ "message": "hello, wire" })), Expect::Result).modern(v),
        Step::request("tools/call add", "tools/call", call("add", json!({ "a": 2, "b": 40 })), Expect::Result).modern(v),
        Step::request(
            if http {
                "An unknown method: -32601, and on HTTP the status says it too: 404."
            } else {
                "An unknown method: -32601, as before."
            },
            "bogus",
            None,
            Expect::Error(code::METHOD_NOT_FOUND),
        )
        .modern(v),
        Step::request(
            "A version the server does not speak: -32022 UnsupportedProtocolVersion, with data.supported so the client can retry.",
            "tools/list",
            None,
            Expect::Error(mcp_raw_wire::jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION),
        )
        .modern("2024-01-01"),
    ];
    if http {
        let mut mismatch = Step::request(
            "Mcp-Name must equal params.name: a load balancer may route on the header while the server runs the body, so a mismatch is refused with -32020 HeaderMismatch.",
            "tools/call",
            call("add", json!({ "a": 1, "b": 2 })),
            Expect::Error(HEADER_MISMATCH),
        )
        .modern(v);
        mismatch.wrong_header = Some((mirror::NAME, "echo"));
        steps.push(mismatch);
    }
    steps.push(failing_tool().modern(v));
    steps
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
