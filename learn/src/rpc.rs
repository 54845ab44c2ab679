//! The protocol, knowing nothing of its transport: bytes of one message in, the
//! bytes of its answer (if any) out. `server.rs` feeds it lines from stdin;
//! `http_server.rs` feeds it POST bodies. Both get the same answers.
//!
//! MCP is JSON-RPC 2.0 (2025-11-25 `basic`, "Messages"). A message is one of four
//! shapes, told apart by which members it has:
//!
//! | shape        | members                 | answered?                      |
//! |--------------|-------------------------|--------------------------------|
//! | request      | `id`, `method`          | always, with the same `id`     |
//! | notification | `method`, no `id`       | never                          |
//! | success      | `id`, `result`          | (it is an answer)              |
//! | error        | `id`, `error`           | (it is an answer)              |

use crate::json::{self, Json};
use crate::tools;

/// The one revision this server speaks (the seed's; `modern.rs` shows the next).
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// JSON-RPC 2.0 §5.1 error codes, and the one MCP servers use for "too early".
pub mod code {
    /// The bytes are not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON, but not a JSON-RPC message.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The method exists; its params are wrong (an unknown tool too).
    pub const INVALID_PARAMS: i64 = -32602;
    /// A request before the handshake. The spec names no code for it; JSON-RPC
    /// leaves -32000 to -32099 to servers, and -32002 is what the seed and mcp-raw use.
    pub const SERVER_NOT_INITIALIZED: i64 = -32002;
}

/// A message, sorted into its shape.
#[derive(Debug)]
pub enum Message {
    /// Has `id` and `method`: the sender waits for an answer carrying that `id`.
    Request {
        /// A string or an integer, echoed in the answer.
        id: Json,
        /// What to do: `initialize`, `tools/call`, …
        method: String,
        /// Its arguments, an object (or absent).
        params: Option<Json>,
    },
    /// Has `method` and no `id`: nobody waits, so nothing is ever sent back.
    Notification {
        /// What happened: `notifications/initialized`, …
        method: String,
    },
    /// Has `result` or `error`: an answer. This server asks nothing, so it reads
    /// one only to ignore it.
    Response,
}

/// What one body or line holds: a message, or a JSON array (a JSON-RPC batch).
#[derive(Debug)]
pub enum Incoming {
    /// One message.
    One(Message),
    /// `[…]`: JSON-RPC 2.0 §6 batches, which 2025-06-18 removed from MCP.
    Batch,
}

/// `{"jsonrpc":"2.0","id":ID,"result":RESULT}`.
pub fn success(id: &Json, result: Json) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// `{"jsonrpc":"2.0","id":ID,"error":{"code":C,"message":M}}`. `id` is `null` when
/// the message's id could not be read (JSON-RPC 2.0 §5).
pub fn error(id: Option<&Json>, code: i64, message: &str) -> String {
    let id = id.unwrap_or(&Json::Null);
    let message = Json::str(message);
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message}}}}}"#)
}

/// Reads one message, or gives the error response that says why it is not one.
pub fn read(bytes: &[u8]) -> Result<Incoming, String> {
    let value = json::parse(bytes)
        .map_err(|e| error(None, code::PARSE_ERROR, &format!("Parse error: {e}")))?;
    let invalid = |id: Option<&Json>, why: &str| {
        error(id, code::INVALID_REQUEST, &format!("Invalid Request: {why}"))
    };
    let members = match &value {
        Json::Object(members) => members,
        Json::Array(_) => return Ok(Incoming::Batch),
        other => {
            return Err(invalid(None, &format!("expected a JSON object, got {}", other.kind())));
        }
    };
    let has = |name: &str| members.iter().any(|(k, _)| k == name);
    // The id is read first, so that even a refusal carries it back.
    let raw_id = value.get("id");
    let id = raw_id.filter(|id| id.is_integer() || matches!(id, Json::Str(_)));
    match value.get("jsonrpc") {
        Some(Json::Str(v)) if v == "2.0" => {}
        Some(other) => {
            return Err(invalid(id, &format!("\"jsonrpc\" must be \"2.0\", got {other}")));
        }
        None => return Err(invalid(id, "missing \"jsonrpc\": \"2.0\"")),
    }
    // JSON-RPC 2.0 §4: "An identifier … MUST contain a String, Number, or NULL"; MCP
    // (2025-11-25 `basic` "Requests") narrows it: a string or an integer, never null.
    // The one null id allowed is in an error about an unreadable message.
    let null_id_error = raw_id == Some(&Json::Null) && has("error") && !has("method");
    if let (Some(raw), None, false) = (raw_id, id, null_id_error) {
        return Err(invalid(None, &format!("\"id\" must be a string or an integer, got {raw}")));
    }
    if let Some(method) = value.get("method") {
        let Json::Str(method) = method else {
            return Err(invalid(id, &format!("\"method\" must be a string, got {method}")));
        };
        for answer in ["result", "error"] {
            if has(answer) {
                return Err(invalid(
                    id,
                    &format!(
                        "a message has \"method\" (a request or notification) or \"{answer}\" (a response), not both"
                    ),
                ));
            }
        }
        // MCP params are named: an object, or absent (2025-11-25 `basic`, the schema's
        // `params?: { … }`).
        let params = value.get("params").cloned();
        if let Some(p) = params.as_ref().filter(|p| !matches!(p, Json::Object(_))) {
            let mut shown = p.to_string();
            if shown.len() > 80 {
                let cut = (0..=80).rev().find(|&i| shown.is_char_boundary(i)).unwrap_or(0);
                shown.truncate(cut);
                shown.push('…');
            }
            let why = format!(
                "\"params\" must be an object (MCP params are named) or absent, got {} {shown}",
                p.kind()
            );
            return Err(invalid(id, &why));
        }
        let method = method.clone();
        return Ok(Incoming::One(match id {
            Some(id) => Message::Request { id: id.clone(), method, params },
            None => Message::Notification { method },
        }));
    }
    match (value.get("result"), value.get("error")) {
        (Some(_), None) if id.is_some() => Ok(Incoming::One(Message::Response)),
        (Some(_), None) => Err(invalid(None, "a response must carry the \"id\" it answers")),
        (None, Some(e)) => match (
            e.get("code").filter(|c| c.is_integer()),
            e.get("message").and_then(Json::as_str),
        ) {
            (Some(_), Some(_)) => Ok(Incoming::One(Message::Response)),
            _ => Err(invalid(id, &format!("malformed \"error\" member: {e}"))),
        },
        (Some(_), Some(_)) => Err(invalid(id, "a response has \"result\" or \"error\", not both")),
        (None, None) => Err(invalid(
            id,
            "no \"method\", \"result\" or \"error\": not a request, notification or response",
        )),
    }
}

/// Where a session is in its lifecycle (2025-11-25 `basic/lifecycle`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase {
    /// Nothing yet: only `initialize` (and `ping`) are served.
    AwaitingInitialize,
    /// `initialize` was answered; the client has not yet said `notifications/initialized`.
    Initializing,
    /// "Operation": every method is served.
    Ready,
}

/// One client's session: on stdio the whole process, over HTTP one `Mcp-Session-Id`.
#[derive(Debug)]
pub struct Session {
    /// The lifecycle phase, which decides what a request may do.
    pub phase: Phase,
}

impl Default for Session {
    fn default() -> Self {
        Session { phase: Phase::AwaitingInitialize }
    }
}

impl Session {
    /// Why a batch is refused: 2025-11-25 has none (removed in 2025-06-18,
    /// "Changelog"), and before the handshake no revision is agreed at all.
    pub fn batch_refusal(&self) -> String {
        let why = match self.phase {
            Phase::AwaitingInitialize => {
                "a JSON-RPC batch cannot open a session; send initialize on its own".to_owned()
            }
            _ => format!(
                "JSON-RPC batches are not supported in protocol version {PROTOCOL_VERSION} (removed in 2025-06-18); send one message at a time"
            ),
        };
        error(None, code::INVALID_REQUEST, &format!("Invalid Request: {why}"))
    }

    /// One message in; the bytes of its answer out, or `None` for a notification or
    /// a response (2025-11-25 `basic` "Notifications": the receiver MUST NOT send a
    /// response).
    pub fn handle(&mut self, message: Message) -> Option<String> {
        match message {
            Message::Request { id, method, params } => {
                Some(match self.request(&method, params.as_ref()) {
                    Ok(result) => success(&id, result),
                    Err((code, message)) => error(Some(&id), code, &message),
                })
            }
            Message::Notification { method } => {
                // The client accepts the handshake: now operation begins.
                if method == "notifications/initialized" && self.phase == Phase::Initializing {
                    self.phase = Phase::Ready;
                }
                None // any other notification is heard and needs nothing
            }
            Message::Response => None,
        }
    }

    /// The method table, gated by the phase.
    fn request(&mut self, method: &str, params: Option<&Json>) -> Result<Json, (i64, String)> {
        match (method, self.phase) {
            ("initialize", Phase::AwaitingInitialize) => self.initialize(params),
            ("initialize", _) => Err((
                code::INVALID_REQUEST,
                "Invalid Request: initialize was already received in this session; a session is initialized once".into(),
            )),
            // `basic/utilities/ping`: allowed at any time, answered with an empty result.
            ("ping", _) => Ok(Json::object([])),
            // `basic/lifecycle` "Initialization": "The client SHOULD NOT send requests
            // other than pings before the server has responded to the initialize
            // request"; this server also waits for notifications/initialized.
            (_, Phase::AwaitingInitialize) => Err((
                code::SERVER_NOT_INITIALIZED,
                format!("Server not initialized: {method} is served only after initialize and notifications/initialized"),
            )),
            (_, Phase::Initializing) => Err((
                code::SERVER_NOT_INITIALIZED,
                format!("Server not initialized: initialize was answered, but {method} waits for notifications/initialized"),
            )),
            ("tools/list", Phase::Ready) => Ok(tools::list()),
            ("tools/call", Phase::Ready) => tools::call(params),
            _ => Err((code::METHOD_NOT_FOUND, format!("Method not found: {method}"))),
        }
    }

    /// `initialize`: agree a version, say what this server can do, say who it is.
    fn initialize(&mut self, params: Option<&Json>) -> Result<Json, (i64, String)> {
        let bad = |why: String| Err((code::INVALID_PARAMS, format!("initialize: {why}")));
        let Some(params) = params else {
            return bad(
                "params must be an object with protocolVersion, capabilities and clientInfo".into(),
            );
        };
        match params.get("protocolVersion") {
            Some(Json::Str(_)) => {}
            Some(other) => {
                return bad(format!(
                    "params.protocolVersion must be a string, got {}",
                    other.kind()
                ));
            }
            None => return bad("missing params.protocolVersion".into()),
        }
        for field in ["capabilities", "clientInfo"] {
            if let Some(v) = params.get(field).filter(|v| !matches!(v, Json::Object(_))) {
                return bad(format!("params.{field} must be an object, got {}", v.kind()));
            }
        }
        self.phase = Phase::Initializing;
        // "Version Negotiation": a server that does not support the requested
        // version answers with one it does; this one knows only 2025-11-25.
        Ok(Json::object([
            ("protocolVersion", Json::str(PROTOCOL_VERSION)),
            // Only tools: no resources, prompts or logging (`basic/lifecycle`
            // "Capability Negotiation").
            ("capabilities", Json::object([("tools", Json::object([]))])),
            // The teaching form of mcp-raw's server, answering as it does.
            (
                "serverInfo",
                Json::object([
                    ("name", Json::str("mcp-raw")),
                    ("version", Json::str(env!("CARGO_PKG_VERSION"))),
                ]),
            ),
        ]))
    }
}
