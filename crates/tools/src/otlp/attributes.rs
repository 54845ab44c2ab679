//! A call's span attributes per OpenTelemetry's MCP semantic conventions
//! (`docs/gen-ai/mcp.md`, the "Client" and "Server" spans), its status, and its name.

use super::proto::{KeyValue, STATUS_ERROR, Status};
use crate::stats::items::{Call, Outcome};

/// The conventions' attributes of `c`'s span, and its status; `peer_keys` names
/// what the lane's peer is to the recorder (`client.*`, `server.*`, or nothing).
pub fn attributes(
    c: &Call,
    peer_keys: Option<(&'static str, &'static str)>,
) -> (Vec<KeyValue>, Option<Status>) {
    let mut a = vec![KeyValue::str("mcp.method.name", &c.method)];
    if let Some(id) = request_id(&c.id) {
        a.push(KeyValue::str("jsonrpc.request.id", id));
    }
    if let Some(s) = &c.session {
        a.push(KeyValue::str("mcp.session.id", s));
    }
    if let Some(v) = version(c) {
        a.push(KeyValue::str("mcp.protocol.version", v));
    }
    match (c.method.as_str(), &c.target) {
        ("tools/call", Some(t)) => {
            a.push(KeyValue::str("gen_ai.tool.name", t));
            a.push(KeyValue::str("gen_ai.operation.name", "execute_tool"));
        }
        ("prompts/get", Some(t)) => a.push(KeyValue::str("gen_ai.prompt.name", t)),
        (m, Some(t)) if m.starts_with("resources/") => a.push(KeyValue::str("mcp.resource.uri", t)),
        _ => {}
    }
    let status = match &c.outcome {
        // The conventions: `error.type` is the JSON-RPC error code as a string,
        // the status ERROR with the error's message.
        Outcome::Error(code) => {
            a.push(KeyValue::str("rpc.response.status_code", code.to_string()));
            a.push(KeyValue::str("error.type", code.to_string()));
            Some(Status {
                message: c.error_message.clone().unwrap_or_default(),
                code: STATUS_ERROR,
            })
        }
        // A CallToolResult with `isError: true` (MCP 2025-11-25 `server/tools`
        // "Error Handling"): `error.type` is `tool_error`.
        Outcome::ToolError => {
            a.push(KeyValue::str("error.type", "tool_error"));
            Some(Status {
                message: String::new(),
                code: STATUS_ERROR,
            })
        }
        // No JSON-RPC answer: an HTTP error status says why (`error.type` the
        // status code, as the HTTP conventions have it), else the lane closed.
        Outcome::Unanswered => match c.status.filter(|s| *s >= 400) {
            Some(s) => {
                a.push(KeyValue::str("error.type", s.to_string()));
                Some(Status {
                    message: format!("HTTP {s} and no JSON-RPC answer"),
                    code: STATUS_ERROR,
                })
            }
            None => {
                a.push(KeyValue::str("error.type", "_OTHER"));
                Some(Status {
                    message: "no answer: the lane closed first".to_owned(),
                    code: STATUS_ERROR,
                })
            }
        },
        Outcome::Ok | Outcome::InputRequired => None,
    };
    if http_lane(&c.lane) {
        a.push(KeyValue::str("network.transport", "tcp"));
        a.push(KeyValue::str("network.protocol.name", "http"));
        a.push(KeyValue::str("network.protocol.version", "1.1"));
        if let Some(s) = c.status {
            a.push(KeyValue::int("http.response.status_code", i64::from(s)));
        }
        // The lane's peer: the client to a server (or bridge), the server to a
        // client or a tap.
        if let Some((ak, pk)) = peer_keys
            && let Some((host, port)) = c.peer.as_deref().and_then(address)
        {
            a.push(KeyValue::str(ak, host));
            a.push(KeyValue::int(pk, i64::from(port)));
        }
    } else {
        // stdio (MCP 2025-11-25 `basic/transports`): the conventions' `pipe`.
        a.push(KeyValue::str("network.transport", "pipe"));
    }
    (a, status)
}

/// An HTTP connection's lane (`c1`, `c2`…), not a process's pipes (`stdio`, `stdio2`).
pub fn http_lane(label: &str) -> bool {
    label.starts_with('c') && label[1..].bytes().all(|b| b.is_ascii_digit())
}

/// `{mcp.method.name} {target}`, the target a tool's or a prompt's name; else the
/// method alone. A resource's URI is not a target: the conventions ("Client" span)
/// keep it out of the name by default, as a high-cardinality value (it is the
/// `mcp.resource.uri` attribute).
pub fn name(c: &Call) -> String {
    match (&c.target, c.method.as_str()) {
        (Some(t), "tools/call" | "prompts/get") => format!("{} {t}", c.method),
        _ => c.method.clone(),
    }
}

/// The revision a request declared; `initialize` declares the one it asks for in
/// `params.protocolVersion` (MCP 2025-11-25 `basic/lifecycle`).
pub fn version(c: &Call) -> Option<&str> {
    c.version.as_deref().or_else(|| {
        c.params
            .as_ref()
            .filter(|_| c.method == "initialize")
            .and_then(|p| p.get("protocolVersion"))
            .and_then(|v| v.as_str())
    })
}

/// `jsonrpc.request.id`: the id as a string (`7`, `request-7`); none for `null`
/// (the conventions: not captured when null or omitted).
fn request_id(json: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(serde_json::Value::String(s)) => Some(s),
        Ok(serde_json::Value::Null) => None,
        Ok(v) => Some(v.to_string()),
        Err(_) => (!json.is_empty()).then(|| json.to_owned()),
    }
}

/// The peer's `IP:PORT` (or `[V6]:PORT`): the last word of a lane's open event
/// (`accepted from 127.0.0.1:49126`).
pub fn address(peer: &str) -> Option<(String, u16)> {
    let addr: std::net::SocketAddr = peer.split_whitespace().last()?.parse().ok()?;
    Some((addr.ip().to_string(), addr.port()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_id_is_its_string_or_its_number() {
        assert_eq!(request_id("7").as_deref(), Some("7"));
        assert_eq!(request_id("\"request-7\"").as_deref(), Some("request-7"));
        assert_eq!(request_id("null"), None);
    }
}
