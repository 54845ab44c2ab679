// Over 500 lines on purpose: the four shapes, their rules and the error table are one page a learner reads top to bottom.
//! JSON-RPC 2.0: the four message shapes every MCP transport carries.
//!
//! ```text
//! request       {"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}   has `id`: answer it
//! notification  {"jsonrpc":"2.0","method":"notifications/initialized"}      no `id`: never answered
//! success       {"jsonrpc":"2.0","id":1,"result":{...}}
//! error         {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"..."}}
//! ```
//!
//! [`parse`] turns the bytes of one message into a [`Message`] or into the error
//! response the peer must receive (`-32700` for bad JSON, `-32600` for JSON that is not
//! a JSON-RPC 2.0 message). Rules: JSON-RPC 2.0 §4–§5 and MCP 2025-11-25
//! `basic/index` ("Messages": ids are strings or integers, never `null`).

mod params;
mod payload;
pub mod splice;
mod tape;

pub use params::{Field, Params};
pub use payload::{Payload, Rendered};
pub use tape::check::is_json;
pub use tape::raw::{Doc, Raw};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tape::read::{self, Members, Version};

/// Every error code on the wire, in one table. The first five are JSON-RPC 2.0 §5.1
/// and mean the same in both eras; the rest are MCP's, from the server-defined range
/// (-32000 to -32099), each with the revision that uses it.
pub mod code {
    /// The bytes are not JSON. Both eras.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON, but not a valid JSON-RPC 2.0 message (or not acceptable here). Both eras.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No handler for this method. Both eras (2026-07-28 HTTP: status 404).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The method exists but its `params` are wrong. Both eras.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed for a reason that is not the client's fault. Both eras.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Legacy: the HTTP `Mcp-Session-Id` names no live session (this server's
    /// choice of code; the status, 404, is the spec's).
    pub const SESSION_NOT_FOUND: i64 = -32001;
    /// Legacy: a request other than `initialize`/`ping` before the handshake finished
    /// (the code the original project and most SDKs use).
    pub const SERVER_NOT_INITIALIZED: i64 = -32002;
    /// 2026-07-28 HeaderMismatch: a mirrored header (`MCP-Protocol-Version`,
    /// `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) is missing, malformed, repeated or
    /// differs from the body (`basic/transports/streamable-http` "Server Validation").
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28 MissingRequiredClientCapability (`basic/index` "_meta"); this server
    /// also answers it in legacy sessions when a tool would ask the client for what
    /// it did not declare at `initialize`.
    pub const MISSING_CAPABILITY: i64 = -32021;
    /// 2026-07-28 UnsupportedProtocolVersion (`basic/versioning`): `data` lists the
    /// versions the server supports and the one requested.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A request id: a string or an integer (MCP forbids `null` and fractions).
/// Kept as the exact JSON value so it is echoed back byte-for-byte.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct RequestId(Value);

impl RequestId {
    /// Accepts `"abc"` and `7`; refuses `null`, `1.5`, objects, arrays, booleans.
    pub fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(_) => Some(RequestId(v.clone())),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(RequestId(v.clone())),
            _ => None,
        }
    }

    /// The id as the JSON value it was sent as.
    pub fn to_value(&self) -> Value {
        self.0.clone()
    }

    /// Writes the id as JSON (`7`, `"abc"`), as it was sent: straight into `out`,
    /// without the `fmt` machinery a `Display` of it goes through.
    pub fn write_json(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer(out, &self.0).map_err(std::io::Error::from)
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId(Value::String(s))
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId(Value::from(n))
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A request: the sender waits for a [`Response`] with the same `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Echoed in the response, so the client can match it.
    pub id: RequestId,
    /// What to do (`tools/call`, `initialize`, …).
    pub method: String,
    /// `None` when the member is absent; otherwise always a JSON object: [`classify`]
    /// refuses `null`, arrays and scalars before any handler runs. Read from a
    /// frame, it is the object's text until a handler wants a `Value` ([`Params`]).
    pub params: Option<Params>,
}

/// A notification: no `id`, so nobody waits and nothing is ever sent back.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// What happened (`notifications/initialized`, …).
    pub method: String,
    /// As for [`Request::params`]: absent, or an object.
    pub params: Option<Params>,
}

impl Request {
    /// A request with this id, method and params.
    pub fn new(id: impl Into<RequestId>, method: impl Into<String>, params: Option<Value>) -> Self {
        Request {
            id: id.into(),
            method: method.into(),
            params: params.map(Params::Value),
        }
    }

    /// The request as JSON, members in wire order: `jsonrpc`, `id`, `method`, `params`.
    pub fn to_value(&self) -> Value {
        call_value(Some(&self.id), &self.method, self.params.as_deref())
    }

    /// The exact bytes: one compact JSON object, no newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_value().to_string().into_bytes()
    }
}

impl Notification {
    /// A notification with this method and params.
    pub fn new(method: impl Into<String>, params: Option<Value>) -> Self {
        Notification {
            method: method.into(),
            params: params.map(Params::Value),
        }
    }

    /// The notification as JSON, members in wire order: `jsonrpc`, `method`, `params`.
    pub fn to_value(&self) -> Value {
        call_value(None, &self.method, self.params.as_deref())
    }

    /// The exact bytes: one compact JSON object, no newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_value().to_string().into_bytes()
    }
}

/// A request (with its `id`) or a notification (without) as JSON, members in wire
/// order; `params` only when present.
fn call_value(id: Option<&RequestId>, method: &str, params: Option<&Value>) -> Value {
    let mut m = Map::new();
    m.insert("jsonrpc".into(), Value::from("2.0"));
    if let Some(id) = id {
        m.insert("id".into(), id.to_value());
    }
    m.insert("method".into(), Value::from(method));
    if let Some(p) = params {
        m.insert("params".into(), p.clone());
    }
    Value::Object(m)
}

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorObject {
    /// Which error (the `code` constants below).
    pub code: i64,
    /// What went wrong, in words, quoting the input.
    pub message: String,
    /// Details a program can read (`-32022`'s supported versions, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with this code and message, no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32602 Invalid params` with this message.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        ErrorObject::new(code::INVALID_PARAMS, message)
    }
}

/// A response: `result` or `error`, never both. `id` is `None` only for an error
/// about a message whose id could not be read (serialized as `"id": null`).
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The request's id; `None` (`null` on the wire) when it could not be read.
    pub id: Option<RequestId>,
    /// `result` or `error`.
    pub outcome: Result<Payload, ErrorObject>,
    /// How `result` is written, when the era that answered adds members of its own
    /// to every result (2026-07-28: `resultType`, `_meta` serverInfo); `None`: as it
    /// is. An error is always written as it is.
    pub dress: Option<Dressing>,
}

/// Writes a result the way the era that answered wants it on the wire. Members an
/// era adds to every result cost a rebuilt map and a dozen allocations per answer
/// when built into the result's `Value`; written as the bytes go out, they cost none.
pub trait Dress: Send + Sync + std::fmt::Debug {
    /// Appends `result`, dressed, to `out` as one compact JSON object.
    fn write(&self, result: &Payload, out: &mut Vec<u8>) -> serde_json::Result<()>;
}

/// A shared [`Dress`]. Two are equal when they are the same object.
#[derive(Clone, Debug)]
pub struct Dressing(pub std::sync::Arc<dyn Dress>);

impl PartialEq for Dressing {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::addr_eq(
            std::sync::Arc::as_ptr(&self.0),
            std::sync::Arc::as_ptr(&other.0),
        )
    }
}

impl Response {
    /// A success: `{"jsonrpc":"2.0","id":…,"result":…}`.
    pub fn success(id: RequestId, result: impl Into<Payload>) -> Self {
        Response {
            id: Some(id),
            outcome: Ok(result.into()),
            dress: None,
        }
    }

    /// An error response.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Response {
            id,
            outcome: Err(error),
            dress: None,
        }
    }

    /// The exact bytes of this response: one compact JSON object, no newline.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Sized for a typical answer, so the buffer does not grow (and copy) several
        // times on the way.
        let mut bytes = Vec::with_capacity(512);
        self.write_to(&mut bytes);
        bytes
    }

    /// Appends the exact bytes of this response to `out` (a frame being built around
    /// it: an SSE event's `data:` line).
    pub fn write_to(&self, out: &mut Vec<u8>) {
        // Members in wire order: `jsonrpc`, `id`, then `result` or `error`. The fixed
        // parts are written as bytes; only the values go through the serializer.
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        match &self.id {
            Some(id) => {
                let _ = id.write_json(&mut *out);
            }
            None => out.extend_from_slice(b"null"),
        }
        // Serializing owned, already-valid JSON values into memory cannot fail.
        match (&self.outcome, &self.dress) {
            (Ok(result), dress) => {
                out.extend_from_slice(b",\"result\":");
                let _ = match dress {
                    // The result written by the era that answered.
                    Some(dressing) => dressing.0.write(result, out),
                    None => result.write_to(out),
                };
            }
            (Err(error), _) => {
                out.extend_from_slice(b",\"error\":");
                let _ = serde_json::to_writer(&mut *out, error);
            }
        }
        out.push(b'}');
    }
}

/// One incoming message, sorted into its shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// Has an `id` and a `method`: answer it.
    Request(Request),
    /// A `method` and no `id`: never answered.
    Notification(Notification),
    /// A response the peer sent us (to a request we made). MCP lets a client send
    /// these; a server that made no request accepts them silently.
    Response(Response),
}

/// What [`parse`] found in the bytes.
#[derive(Debug, PartialEq)]
pub enum Parsed {
    /// One message.
    One(Message),
    /// A top-level JSON array: a JSON-RPC batch (allowed by 2025-03-26 and earlier,
    /// removed in 2025-06-18). The elements are not yet checked.
    Batch(Vec<Value>),
}

/// Parses the bytes of one transport frame (a stdio line, an HTTP body).
/// On failure returns the error response to send back.
pub fn parse(bytes: &[u8]) -> Result<Parsed, Response> {
    Ok(match parse_top::<Value>(bytes, false)? {
        Lifted::One(message, _) => Parsed::One(message),
        Lifted::Batch(items) => Parsed::Batch(items),
    })
}

/// What `params._meta` can be read into by [`parse_lifting`]: from the bytes by
/// serde_json (a frame the checker refused, for serde_json's error), or from the
/// frame where it lies.
pub trait Lift: DeserializeOwned {
    /// `_meta`, read where it lies; `None` when it does not read as one (the frame is
    /// then read by serde_json, whose error the peer gets). By default through
    /// serde_json, from its text.
    fn from_raw(raw: Raw<'_>) -> Option<Self> {
        serde_json::from_str(raw.text()).ok()
    }
}

/// `_meta` as a plain value.
impl Lift for Value {
    fn from_raw(raw: Raw<'_>) -> Option<Value> {
        Some(raw.to_value())
    }
}

/// What [`parse_lifting`] found: [`Parsed`], with a request's or notification's
/// `params._meta` read into an `M` instead of into its `params`.
#[derive(Debug, PartialEq)]
pub enum Lifted<M> {
    /// One message, and its `params._meta` if it had one (then its `params` holds
    /// every other member, as sent).
    One(Message, Option<M>),
    /// A batch, its items untouched.
    Batch(Vec<Value>),
}

/// [`parse`], with `params._meta` read straight into an `M` (a server's typed view
/// of it) instead of into `params`: an MCP `_meta` is metadata about the message,
/// and reading it into a `Value` only to read it again costs a map and a string
/// per member. The same bytes are accepted and refused, with the same errors.
pub fn parse_lifting<M: Lift>(bytes: &[u8]) -> Result<Lifted<M>, Response> {
    parse_top(bytes, true)
}

fn parse_top<M: Lift>(bytes: &[u8], lift: bool) -> Result<Lifted<M>, Response> {
    let mut members = Members::default();
    let top = read::top_with::<M>(bytes, lift, &mut members).map_err(|e| {
        Response::error(
            None,
            ErrorObject::new(code::PARSE_ERROR, format!("Parse error: {e}")),
        )
    })?;
    match top {
        read::Top::Array(items) => Ok(Lifted::Batch(items)),
        read::Top::Object => {
            let meta = members.meta.take();
            classify_members(&mut members).map(|message| Lifted::One(message, meta))
        }
        read::Top::Scalar(value) => Err(not_an_object(&value)),
    }
}

/// Sorts one JSON value into a [`Message`], or explains (`-32600`) why it is none.
pub fn classify(value: Value) -> Result<Message, Response> {
    match value {
        Value::Object(obj) => classify_members(&mut Members::from_map(obj)),
        other => Err(not_an_object(&other)),
    }
}

fn not_an_object(value: &Value) -> Response {
    invalid(None, format!("expected a JSON object, got {}", kind(value)))
}

/// The shape rules, on the members of an object: which of the four messages it is.
/// (The members are taken out one by one, not moved as a whole.)
fn classify_members<M>(m: &mut Members<M>) -> Result<Message, Response> {
    // Read the id first so that even an invalid request's error carries it.
    let raw_id = m.id.take();
    let id = raw_id.as_ref().and_then(RequestId::from_value);

    match &m.jsonrpc {
        Some(Version::Two) => {}
        Some(Version::Other(other)) => {
            return Err(invalid(
                id,
                format!("\"jsonrpc\" must be \"2.0\", got {other}"),
            ));
        }
        None => return Err(invalid(id, "missing \"jsonrpc\": \"2.0\"")),
    }
    // JSON-RPC 2.0 §5: an error about a message whose id could not be read carries
    // `"id": null`; that is the one place a null id is a valid message.
    let null_id_error = raw_id == Some(Value::Null) && m.error.is_some() && m.method.is_none();
    if let (Some(raw), None, false) = (&raw_id, &id, null_id_error) {
        return Err(invalid(
            None,
            format!("\"id\" must be a string or an integer, got {raw}"),
        ));
    }

    if let Some(method) = m.method.take() {
        let Value::String(method) = method else {
            return Err(invalid(
                id,
                format!("\"method\" must be a string, got {method}"),
            ));
        };
        // A message is one shape: `method` with `result` or `error` is neither a
        // request nor a response (JSON-RPC 2.0 §4, §5).
        let other = if m.result.is_some() {
            Some("result")
        } else if m.error.is_some() {
            Some("error")
        } else {
            None
        };
        if let Some(other) = other {
            return Err(invalid(
                id,
                format!(
                    "a message has \"method\" (a request or notification) or \"{other}\" (a response), not both"
                ),
            ));
        }
        // JSON-RPC 2.0 §4.2 allows an object or an array (never `null`); every MCP
        // method takes named parameters (the schema's `params?: { ... }` in
        // 2025-11-25 and 2026-07-28 `basic/index`), so here it is an object or absent,
        // for every method alike, whether its handler reads params or not.
        let params = m.params.take();
        if let Some(p) = &params
            && !p.is_object()
        {
            let p: &Value = p;
            let shown = truncated(p);
            return Err(invalid(
                id,
                format!(
                    "\"params\" must be an object (MCP params are named) or absent, got {} {shown}",
                    kind(p)
                ),
            ));
        }
        return Ok(match id {
            Some(id) => Message::Request(Request { id, method, params }),
            None => Message::Notification(Notification { method, params }),
        });
    }

    match (m.result.take(), m.error.take()) {
        (Some(result), None) => match id {
            Some(id) => Ok(Message::Response(Response::success(id, result))),
            None => Err(invalid(None, "a response must carry the \"id\" it answers")),
        },
        (None, Some(error)) => {
            let error = error_object(&error).ok_or_else(|| {
                invalid(id.clone(), format!("malformed \"error\" member: {error}"))
            })?;
            Ok(Message::Response(Response::error(id, error)))
        }
        (Some(_), Some(_)) => Err(invalid(
            id,
            "a response has \"result\" or \"error\", not both",
        )),
        (None, None) => Err(invalid(
            id,
            "no \"method\", \"result\" or \"error\": not a request, notification or response",
        )),
    }
}

fn error_object(v: &Value) -> Option<ErrorObject> {
    let obj: &Map<String, Value> = v.as_object()?;
    Some(ErrorObject {
        code: obj.get("code")?.as_i64()?,
        message: obj.get("message")?.as_str()?.to_owned(),
        data: obj.get("data").cloned(),
    })
}

fn invalid(id: Option<RequestId>, why: impl std::fmt::Display) -> Response {
    Response::error(
        id,
        ErrorObject::new(code::INVALID_REQUEST, format!("Invalid Request: {why}")),
    )
}

/// A value for an error message: its JSON, cut at 80 bytes.
fn truncated(v: &Value) -> String {
    let mut text = v.to_string();
    if text.len() > 80 {
        let mut cut = 80;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

/// The member `key` of a JSON object (`None` for any other value, or when absent).
/// A message's objects are small (`params`, `arguments`: a handful of members), and
/// for those comparing names costs ~10 instructions a member where the map's own
/// lookup hashes `key` with SipHash first (~300 in callgrind); a large object is
/// looked up by hash as usual. Object keys are unique, so both find the same member.
pub fn member<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.as_object().and_then(|map| object_member(map, key))
}

/// [`member`], for an object already in hand (a tool's `arguments`).
pub fn object_member<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() <= 8 {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

/// The JSON type name of a value, for error messages.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod built {
    use super::*;

    /// What the builders write, [`parse`] reads back as the same message, and the
    /// bytes are the compact wire form.
    #[test]
    fn the_four_shapes_round_trip() {
        let r = Request::new(7, "tools/list", Some(serde_json::json!({"cursor": "c"})));
        assert_eq!(
            r.to_bytes(),
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"c"}}"#
        );
        let n = Notification::new("notifications/initialized", None);
        assert_eq!(
            n.to_bytes(),
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        );
        let ok = Response::success(RequestId::from("a".to_owned()), serde_json::json!({}));
        let err = Response::error(None, ErrorObject::new(code::PARSE_ERROR, "Parse error: x"));
        for (bytes, want) in [
            (r.to_bytes(), Message::Request(r)),
            (n.to_bytes(), Message::Notification(n)),
            (ok.to_bytes(), Message::Response(ok)),
            (err.to_bytes(), Message::Response(err)),
        ] {
            assert_eq!(parse(&bytes), Ok(Parsed::One(want)));
        }
    }
}

#[cfg(test)]
mod tests;
