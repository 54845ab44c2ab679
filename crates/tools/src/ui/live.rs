//! A live session the page's resends go into, other than an HTTP tap's listener
//! (which is reached as a client reaches it, `resend.rs`): the server behind a stdio
//! tap (`tap::resend`), or the session of `mcp-raw client --ui`. The page's server
//! hands the edited message over as text and answers the page with what the session
//! says: what was sent, or a refusal with its HTTP status and words.

use hyper::StatusCode;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;

/// A refusal the page shows as it is: the status and the whole text
/// (`Conflict: …`, said as every refusal of the page's server is).
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The HTTP status that fits: 409 for what the session's state forbids now,
    /// 422 for a message that can never be resent, 502 for a session that failed.
    pub status: StatusCode,
    /// What was wrong, in words, quoting it.
    pub message: String,
}

impl Refusal {
    /// A refusal with `status`, its reason phrase before `why`.
    pub fn new(status: StatusCode, why: impl std::fmt::Display) -> Refusal {
        // RFC 9110 §15.5.21 names 422 "Unprocessable Content" (hyper still says
        // RFC 4918's "Entity"), as the page's other refusals do.
        let reason = match status {
            StatusCode::UNPROCESSABLE_ENTITY => "Unprocessable Content",
            _ => status.canonical_reason().unwrap_or("Refused"),
        };
        Refusal {
            status,
            message: format!("{reason}: resend: {why}"),
        }
    }
}

/// What a resend answers the page with once sent (202): a JSON object.
pub type Sent = Result<Value, Refusal>;

/// A session that takes the page's resends.
pub trait Live: Send + Sync {
    /// What the page resends here, for `/info` (`resend_rows`): `"requests"`, a
    /// client→server request row's message (its JSON only; the session adds its
    /// own framing).
    fn rows(&self) -> &'static str {
        "requests"
    }

    /// Sends `message` (the edited JSON, as text) on the session.
    fn send(&self, message: String) -> Pin<Box<dyn Future<Output = Sent> + Send + '_>>;
}

/// The JSON-RPC message the page asks to resend, or why it cannot be: bad JSON, a
/// batch, a response, a notification (it gets no answer to show). Returns the
/// message and its id.
pub fn request_of(message: &str) -> Result<(Value, Value), Refusal> {
    let unprocessable = |why: String| Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, why);
    let m: Value = serde_json::from_str(message)
        .map_err(|e| unprocessable(format!("the edited message is not JSON: {e}")))?;
    if m.is_array() {
        return Err(unprocessable(
            "a batch (a JSON array): the page resends one request at a time".into(),
        ));
    }
    let Some(object) = m.as_object() else {
        return Err(unprocessable(format!(
            "{m} is not a JSON-RPC message (an object)"
        )));
    };
    let id = object.get("id").cloned();
    let method = object.get("method").and_then(Value::as_str);
    match (method, id) {
        (Some(_), Some(id)) if id.is_string() || id.is_i64() || id.is_u64() => Ok((m, id)),
        // JSON-RPC 2.0 §4 and MCP 2025-11-25 `basic` "Requests": an id is a string
        // or an integer, never null.
        (Some(_), Some(id)) => Err(unprocessable(format!(
            "\"id\" {id} is not a string or an integer (MCP 2025-11-25 basic: a request's id MUST be one)"
        ))),
        (Some(method), None) => Err(unprocessable(format!(
            "{method:?} is a notification (no \"id\"): it gets no answer to show; the page resends requests (give it an \"id\")"
        ))),
        (None, Some(id)) if object.contains_key("result") || object.contains_key("error") => {
            Err(unprocessable(format!(
                "a response (to id {id}): it answers what the server asked the client, once, and only the client may; the page resends requests"
            )))
        }
        (None, _) => Err(unprocessable(
            "no \"method\": not a request; the page resends requests".into(),
        )),
    }
}
