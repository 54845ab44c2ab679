//! `show --explain`: what a message is and which rule governs it, in a line or two,
//! for any recording: its JSON-RPC shape, the era it declares, what its method does
//! and where the spec says so, and, for an HTTP head, what its status or headers mean
//! on the MCP wire. Captions only; nothing here decides anything.

use super::classify::Class;
use super::http1::Head;
use crate::jsonrpc::code;
use serde_json::Value;

/// The method of each request seen, by id, so that a response can say what it
/// answers (bounded: `wire::asked`).
#[derive(Debug, Default)]
pub struct Asked(super::asked::Asked<String>);

impl Asked {
    /// Remembers a request's method; for a response, the method of the request it
    /// answers (once).
    pub fn answers(&mut self, class: &Class) -> Option<String> {
        let id = class.id.as_ref()?.to_string();
        match class.shape {
            "request" => {
                if let Some(m) = &class.method {
                    self.0.ask(id, m.clone());
                }
                None
            }
            "response" | "error" => self.0.answer(&id),
            _ => None,
        }
    }
}

/// The captions for one payload. `answers` is the method of the request a response
/// answers, when the view saw that request.
pub fn message(class: &Class, payload: Option<&Value>, answers: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let id = class.id.as_ref().map(Value::to_string).unwrap_or_default();
    match class.shape {
        "request" => out.push(format!(
            "a request, id {id}: the peer answers it with exactly one response carrying the same id (JSON-RPC 2.0 §4; MCP basic \"Requests\": a string or an integer, never null, never reused)"
        )),
        "notification" => out.push(
            "a notification: no id, so no answer, ever (JSON-RPC 2.0 §4.1: the receiver MUST NOT reply)".to_owned(),
        ),
        "response" => out.push(format!(
            "the result for request {id}{} (JSON-RPC 2.0 §5: the same id as the request)",
            answers.map(|m| format!(", {m}")).unwrap_or_default()
        )),
        "error" => out.push(format!(
            "an error for request {id}{}: {} (JSON-RPC 2.0 §5.1)",
            answers.map(|m| format!(", {m}")).unwrap_or_default(),
            class.code.map_or_else(String::new, error_code)
        )),
        "batch" => out.push(
            "a batch: a JSON array of messages, allowed up to 2025-03-26 only (removed in 2025-06-18)".to_owned(),
        ),
        _ => {}
    }
    if class.era == Some("modern") && class.shape != "response" {
        out.push(
            "2026-07-28: the message carries its own protocol version, capabilities and client info in params._meta (basic/index \"_meta\"): no handshake, no session".to_owned(),
        );
    }
    if let Some(m) = class.method.as_deref().and_then(method) {
        out.push(m.to_owned());
    }
    if let Some(result) = payload.and_then(|p| p.get("result")) {
        if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            out.push(
                "input_required: the server needs answers first; the client asks its user or model each inputRequests entry and sends the request again with inputResponses and the opaque requestState (2026-07-28 basic/patterns/mrtr)".to_owned(),
            );
        }
        if result.get("isError") == Some(&Value::Bool(true)) {
            out.push(
                "isError: true: the tool ran and failed; that is a result the model should see, not a protocol error (server/tools \"Error Handling\")".to_owned(),
            );
        }
    }
    out
}

/// What an error code means, and in which era.
fn error_code(c: i64) -> String {
    let meaning = match c {
        code::PARSE_ERROR => "-32700 Parse error: the bytes are not JSON",
        code::INVALID_REQUEST => {
            "-32600 Invalid Request: JSON, but not an acceptable JSON-RPC message"
        }
        code::METHOD_NOT_FOUND => "-32601 Method not found",
        code::INVALID_PARAMS => "-32602 Invalid params: the method exists, its params are wrong",
        code::INTERNAL_ERROR => "-32603 Internal error",
        code::SERVER_NOT_INITIALIZED => {
            "-32002: a request before the 2025-11-25 handshake finished"
        }
        code::HEADER_MISMATCH => {
            "-32020 HeaderMismatch (2026-07-28): a mirrored HTTP header differs from the body"
        }
        code::MISSING_CAPABILITY => {
            "-32021 MissingRequiredClientCapability (2026-07-28): the request did not declare what it needs"
        }
        code::UNSUPPORTED_PROTOCOL_VERSION => {
            "-32022 UnsupportedProtocolVersion (2026-07-28): data lists the versions the server speaks"
        }
        -32099..=-32000 => {
            return format!(
                "{c}: a server-defined code (JSON-RPC reserves -32099..-32000 for them)"
            );
        }
        _ => return format!("{c}: an application code"),
    };
    meaning.to_owned()
}

/// What a method does, and where the spec says so.
fn method(name: &str) -> Option<&'static str> {
    Some(match name {
        "initialize" => {
            "initialize opens a 2025-11-25 session: the client offers a protocolVersion, its capabilities and clientInfo; the server answers with the version it agrees to and its own capabilities (basic/lifecycle \"Initialization\")"
        }
        "notifications/initialized" => {
            "the client's last handshake step: the session is now in operation (basic/lifecycle \"Initialization\")"
        }
        "ping" => {
            "either side checks the other is there; the answer MUST be an empty result (basic/utilities/ping; 2026-07-28 removed it)"
        }
        "server/discover" => {
            "2026-07-28: what the server is and offers, asked without any handshake (server/discover)"
        }
        "subscriptions/listen" => {
            "2026-07-28: one long-lived request on which list changes and resource updates arrive as notifications (basic/patterns/subscriptions)"
        }
        "tools/list" => {
            "the tools the server offers, each with a JSON Schema for its arguments (server/tools \"Listing Tools\")"
        }
        "tools/call" => {
            "runs one tool: a tool's own failure comes back as a result with isError: true, a protocol failure as a JSON-RPC error (server/tools \"Calling Tools\")"
        }
        "resources/list" => "the resources the server can be read for, by URI (server/resources)",
        "resources/templates/list" => {
            "URI templates for resources the server can produce (server/resources \"Resource Templates\")"
        }
        "resources/read" => {
            "the contents of one resource, by URI: text or base64 blob (server/resources \"Reading Resources\")"
        }
        "resources/subscribe" => {
            "asks for notifications/resources/updated when one resource changes; needs resources.subscribe (server/resources \"Subscriptions\")"
        }
        "resources/unsubscribe" => {
            "stops the updates resources/subscribe asked for (server/resources \"Subscriptions\")"
        }
        "prompts/list" => "the prompt templates the server offers (server/prompts)",
        "prompts/get" => {
            "one prompt, its arguments filled in, as messages (server/prompts \"Getting a Prompt\")"
        }
        "completion/complete" => {
            "suggestions for a prompt argument or a resource template variable (server/utilities/completion)"
        }
        "logging/setLevel" => {
            "the lowest log level the client wants as notifications/message (server/utilities/logging)"
        }
        "notifications/message" => {
            "a log message from the server, at a syslog level (server/utilities/logging)"
        }
        "notifications/progress" => {
            "progress of the request whose _meta.progressToken it names; progress MUST increase (basic/utilities/progress)"
        }
        "notifications/cancelled" => {
            "the sender gives up on a request it sent; the receiver stops and does not answer (basic/utilities/cancellation)"
        }
        "notifications/tools/list_changed" => {
            "the tool list changed: list it again (server/tools \"List Changed Notification\")"
        }
        "notifications/prompts/list_changed" => {
            "the prompt list changed: list it again (server/prompts)"
        }
        "notifications/resources/list_changed" => {
            "the resource list changed: list it again (server/resources)"
        }
        "notifications/resources/updated" => {
            "a subscribed resource changed: read it again (server/resources \"Subscriptions\")"
        }
        "notifications/roots/list_changed" => {
            "the client's roots changed: the server may ask roots/list again (client/roots)"
        }
        "sampling/createMessage" => {
            "the server asks the client's model for a completion; only a client that declared sampling may be asked (client/sampling)"
        }
        "elicitation/create" => {
            "the server asks the user for input, a form or a URL to open; only a client that declared elicitation may be asked (client/elicitation)"
        }
        "roots/list" => {
            "the server asks which filesystem roots it may work in; only a client that declared roots may be asked (client/roots)"
        }
        "tasks/get" => {
            "the state of a task: working, input_required, completed, failed or cancelled (tasks)"
        }
        "tasks/result" => {
            "the result of a task, waiting for it to finish (2025-11-25 basic/utilities/tasks)"
        }
        "tasks/list" => "the tasks the receiver holds (2025-11-25 basic/utilities/tasks)",
        "tasks/cancel" => "ends a task; it moves to cancelled (tasks)",
        "tasks/update" => {
            "2026-07-28 tasks extension: answers a task that asked for input (extensions/tasks)"
        }
        "notifications/tasks/status" => "a task changed state (tasks)",
        _ => return None,
    })
}

/// Captions for an HTTP head: what its status or its MCP headers mean.
pub fn head(head: &Head) -> Vec<String> {
    let mut out = Vec::new();
    match (head.method(), head.status()) {
        (Some("POST"), _) => out.push(
            "every client message is a POST of its own to the one MCP endpoint; Accept lists application/json and text/event-stream (basic/transports \"Sending Messages to the Server\")".to_owned(),
        ),
        (Some("GET"), _) if head.header("last-event-id").is_some() => out.push(
            "GET with Last-Event-ID: resume a stream after the last event this client saw (2025-11-25 basic/transports \"Resumability and Redelivery\")".to_owned(),
        ),
        (Some("GET"), _) => out.push(
            "GET: open a stream for what the server sends unprompted (2025-11-25 basic/transports \"Listening for Messages from the Server\"; 2026-07-28 removed it)".to_owned(),
        ),
        (Some("DELETE"), _) => out.push(
            "DELETE with Mcp-Session-Id: the client ends its session (2025-11-25 basic/transports \"Session Management\")".to_owned(),
        ),
        (_, Some(202)) => out.push(
            "202 Accepted, no body: a notification or a response was taken; it has no answer (basic/transports \"Sending Messages to the Server\")".to_owned(),
        ),
        (_, Some(405)) => out.push(
            "405: the endpoint does not offer this method here; Allow lists the ones it does".to_owned(),
        ),
        (_, Some(404)) => out.push(
            "404: to a request with Mcp-Session-Id, the session is gone and a new one starts with initialize (2025-11-25 basic/transports \"Session Management\"); else not the MCP endpoint".to_owned(),
        ),
        _ => {}
    }
    if head.status().is_some() {
        if head.is_sse() {
            out.push(
                "text/event-stream: the answer is a stream of SSE events; notifications (and, 2025-11-25, requests) may come before the response".to_owned(),
            );
        }
        if head.header(super::http::SESSION_ID).is_some() {
            out.push(
                "Mcp-Session-Id: the session's id; the client sends it on every later request (2025-11-25 basic/transports \"Session Management\")".to_owned(),
            );
        }
    } else if head.header(super::http::mirror::METHOD).is_some() {
        out.push(
            "Mcp-Method / Mcp-Name mirror the body so a proxy can route without parsing it; the server rejects any that differ (2026-07-28 basic/transports/streamable-http \"Request Metadata\")".to_owned(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::classify;

    #[test]
    fn a_request_is_explained_by_shape_era_and_method() {
        let c = classify(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#);
        let lines = message(&c, None, None);
        assert!(lines[0].starts_with("a request, id 1"));
        assert!(lines[1].contains("basic/lifecycle"));
        let c = classify(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"x"}}"#);
        let lines = message(&c, None, Some("tools/call"));
        assert!(lines[0].contains("tools/call: -32021 MissingRequiredClientCapability"));
    }
}
