//! What a payload is, for a wire view: the JSON-RPC shape (through [`jsonrpc::parse`],
//! the same reading the server does), the method and id, and which era it declares.
//! This describes; it decides nothing (the server's era rule lives in the core).

use crate::jsonrpc::{self, Message, Parsed};
use serde_json::Value;

/// The `_meta` keys by which a 2026-07-28 request declares itself (`basic/index`
/// "`_meta`"); a modern result carries `serverInfo` there.
const MODERN_REQUEST_KEYS: [&str; 3] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
];
const MODERN_RESULT_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// One payload's classification.
#[derive(Debug, Clone, PartialEq)]
pub struct Class {
    /// `request`, `notification`, `response`, `error`, `batch`, `invalid` (JSON, but
    /// not JSON-RPC), `not-json`, `blank`, `form` (an HTTP body sent as
    /// `application/x-www-form-urlencoded`: OAuth's token and introspection requests,
    /// never JSON-RPC and not meant to be), or `other` (a body of an HTTP exchange
    /// outside MCP: a metadata document, a token response; see
    /// [`crate::http::endpoint`]).
    pub shape: &'static str,
    /// A request's or notification's method.
    pub method: Option<String>,
    /// A request's or response's id, as sent.
    pub id: Option<Value>,
    /// An error response's code.
    pub code: Option<i64>,
    /// `modern` when `_meta` carries the per-request fields (or a result the modern
    /// `serverInfo`), `legacy` for `initialize` and its result; else unmarked.
    pub era: Option<&'static str>,
    /// For `invalid` and `not-json`: what is wrong, as the parser says it.
    pub problem: Option<String>,
}

impl Class {
    fn new(shape: &'static str) -> Class {
        Class {
            shape,
            method: None,
            id: None,
            code: None,
            era: None,
            problem: None,
        }
    }

    /// A form body's class: nothing to read in it as JSON.
    pub fn form() -> Class {
        Class::new("form")
    }

    /// A body outside MCP's exchanges: not read as JSON-RPC.
    pub fn other() -> Class {
        Class::new("other")
    }

    /// Is it a JSON-RPC message (or batch)?
    pub fn is_message(&self) -> bool {
        !matches!(
            self.shape,
            "invalid" | "not-json" | "blank" | "form" | "other"
        )
    }

    /// One line for a view: `request tools/call #2 (modern)`.
    pub fn summary(&self) -> String {
        let mut s = self.shape.to_owned();
        if let Some(m) = &self.method {
            s.push(' ');
            s.push_str(m);
        }
        if let Some(id) = &self.id {
            s.push_str(&format!(" #{id}"));
        }
        if let Some(code) = self.code {
            s.push_str(&format!(" {code}"));
        }
        if let Some(era) = self.era {
            s.push_str(&format!(" ({era})"));
        }
        if let Some(p) = &self.problem {
            s.push_str(&format!(": {p}"));
        }
        s
    }
}

/// Classifies the bytes of one frame (an HTTP body, an SSE event's data, a line).
pub fn classify(bytes: &[u8]) -> Class {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Class::new("blank");
    }
    match jsonrpc::parse(bytes) {
        Ok(Parsed::Batch(items)) => Class {
            problem: Some(format!("{} element(s)", items.len())),
            ..Class::new("batch")
        },
        Ok(Parsed::One(message)) => of_message(&message),
        Err(refusal) => {
            let (shape, problem) = match refusal.outcome {
                Err(e) if e.code == jsonrpc::code::PARSE_ERROR => ("not-json", e.message),
                Err(e) => ("invalid", e.message),
                Ok(_) => ("invalid", String::new()),
            };
            Class {
                problem: Some(problem),
                ..Class::new(shape)
            }
        }
    }
}

/// Classifies a message already parsed.
pub fn of_message(message: &Message) -> Class {
    match message {
        Message::Request(r) => Class {
            method: Some(r.method.clone()),
            id: Some(r.id.to_value()),
            era: request_era(&r.method, r.params.as_deref()),
            ..Class::new("request")
        },
        Message::Notification(n) => Class {
            method: Some(n.method.clone()),
            era: request_era(&n.method, n.params.as_deref()),
            ..Class::new("notification")
        },
        Message::Response(r) => match &r.outcome {
            Ok(result) => Class {
                id: r.id.as_ref().map(|id| id.to_value()),
                era: result_era(result),
                ..Class::new("response")
            },
            Err(e) => Class {
                id: Some(r.id.as_ref().map_or(Value::Null, |id| id.to_value())),
                code: Some(e.code),
                ..Class::new("error")
            },
        },
    }
}

fn request_era(method: &str, params: Option<&Value>) -> Option<&'static str> {
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    if meta.is_some_and(|m| MODERN_REQUEST_KEYS.iter().any(|k| m.contains_key(*k))) {
        return Some("modern");
    }
    (method == "initialize").then_some("legacy")
}

fn result_era(result: &Value) -> Option<&'static str> {
    if result
        .get("_meta")
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(MODERN_RESULT_KEY))
    {
        return Some("modern");
    }
    (result.get("protocolVersion").is_some() && result.get("serverInfo").is_some())
        .then_some("legacy")
}

/// A message payload's JSON-RPC values: a batch's items, or the one message; none
/// when the bytes are not JSON (what `check` and the views say of them instead).
pub fn messages(bytes: &[u8]) -> Vec<serde_json::Value> {
    match serde_json::from_slice(bytes) {
        Ok(serde_json::Value::Array(items)) => items,
        Ok(one) => vec![one],
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_eras() {
        let c = classify(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#);
        assert_eq!(c.summary(), "request tools/list #2 (modern)");
        let c = classify(br#"{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}"#);
        assert_eq!(c.summary(), "error #\"a\" -32601");
        assert_eq!(classify(b"hello").shape, "not-json");
        assert_eq!(classify(br#"{"id":1}"#).shape, "invalid");
        assert_eq!(classify(b" \r").shape, "blank");
        assert_eq!(classify(b"[1,2]").summary(), "batch: 2 element(s)");
    }
}
