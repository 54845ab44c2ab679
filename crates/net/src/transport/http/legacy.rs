//! A POST in the legacy era (2025-11-25 `basic/transports` "Session Management"):
//! `initialize` without `Mcp-Session-Id` creates a session; every other message must
//! name a live one (missing → 400, unknown → 404) and a supported
//! `MCP-Protocol-Version`. JSON-RPC errors travel inside `200` responses here.

use super::App;
use super::auth::Principal;
use super::reply::{self, HttpResponse};
use super::sessions::Entry;
use crate::jsonrpc::{Message, code};
use crate::protocol::context::Reply;
use crate::protocol::{Envelope, Incoming, SUPPORTED_VERSIONS};
use crate::transport::stdio::batch_bytes;
use hyper::header::HeaderValue;
use hyper::{HeaderMap, StatusCode};

/// What the spec says to assume when `MCP-Protocol-Version` is absent
/// (2025-11-25 `basic/transports` "Protocol Version Header").
pub const ASSUMED_VERSION: &str = "2025-03-26";

/// A legacy POST: the session checks, then the core.
/// `who`: the principal of the request's token on a protected server; a session is
/// bound to the one that initialized it.
pub async fn post(
    app: &App,
    headers: &HeaderMap,
    who: Option<&Principal>,
    body: Incoming<'_>,
) -> Result<HttpResponse, HttpResponse> {
    let session_id = session_id(headers)?;

    // initialize is the one request sent without a session: it creates one.
    let body = match body {
        Incoming::One(envelope) if is_initialize(&envelope.message) => {
            if session_id.is_some() {
                return Err(bad_request(
                    "initialize must be sent without Mcp-Session-Id: it starts a new session",
                ));
            }
            return Ok(initialize(app, envelope, who.cloned()).await);
        }
        other => other,
    };

    let Some(id) = session_id else {
        return Err(bad_request(
            "Mcp-Session-Id header is required; send initialize first to get one",
        ));
    };
    check_protocol_version(headers)?;
    app.sessions
        .with(id, who, |entry| answer(entry, body))
        .ok_or_else(|| session_not_found(id))
}

fn is_initialize(message: &Message) -> bool {
    matches!(message, Message::Request(r) if r.method == "initialize")
}

/// Runs `initialize` in a fresh session and keeps the session only if it succeeded;
/// its new id goes back in the `Mcp-Session-Id` response header. A core that
/// answers later (a bridge waits for its stdio server) is awaited: the result of
/// `initialize` is one JSON response either way; anything sent before it is dropped,
/// as there is no session yet to send it in (2025-11-25 `basic/lifecycle`).
async fn initialize(app: &App, envelope: Envelope<'_>, owner: Option<Principal>) -> HttpResponse {
    let mut session = app.core.clone().open();
    let response = match session.handle(envelope) {
        Reply::Now(response) | Reply::Streamed(response) => response,
        Reply::Later(pending) => pending.response.await,
        Reply::None | Reply::Cancel(_) => return reply::accepted(),
    };
    let mut http = reply::json(response.to_bytes());
    if response.outcome.is_ok() {
        let Some(id) = app.sessions.insert(session, owner) else {
            return reply::error(
                StatusCode::SERVICE_UNAVAILABLE,
                code::INTERNAL_ERROR,
                format!(
                    "Service Unavailable: {} sessions are open, the most this server keeps (serve --max-sessions); end one with DELETE or retry later",
                    app.sessions.limit()
                ),
            );
        };
        log::warn!(
            "[mcp-raw] session {id} created ({} live)",
            app.sessions.len()
        );
        // A UUID is visible ASCII, always a valid header value.
        if let Ok(value) = HeaderValue::from_str(&id) {
            http.headers_mut().insert(super::names::SESSION_ID, value);
        }
    }
    http
}

/// Runs the message through the session's core; the reply picks the response form.
fn answer(entry: &mut Entry, body: Incoming) -> HttpResponse {
    match body {
        Incoming::One(envelope) => match entry.session.handle(envelope) {
            Reply::Now(response) => reply::json(response.to_bytes()),
            // An answer that is a stream (tools/call) goes on an SSE stream even when
            // it is ready at once: the path a long call uses to send progress events
            // (or ask the client) before its result.
            Reply::Streamed(response) => reply::sse(&response),
            Reply::Later(pending) => {
                let cancel = entry.track(pending.id.clone());
                reply::resumable(entry.streams.start(pending, cancel))
            }
            Reply::Cancel(id) => {
                entry.cancel(&id);
                reply::accepted()
            }
            Reply::None => reply::accepted(),
        },
        Incoming::Batch(items) => match entry.session.handle_batch(items) {
            Ok(replies) if replies.is_empty() => reply::accepted(),
            Ok(replies) => reply::json(batch_bytes(&replies)),
            Err(refusal) => reply::rpc_error(StatusCode::BAD_REQUEST, refusal),
        },
    }
}

/// The `Mcp-Session-Id` value, if present; it must be visible ASCII (0x21–0x7E).
pub fn session_id(headers: &HeaderMap) -> Result<Option<&str>, HttpResponse> {
    match headers.get(super::names::SESSION_ID) {
        None => Ok(None),
        Some(v) => match v.to_str() {
            Ok(s) if !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b)) => Ok(Some(s)),
            _ => Err(bad_request(format!(
                "Mcp-Session-Id must be visible ASCII (0x21-0x7E), got {v:?}"
            ))),
        },
    }
}

/// A present `MCP-Protocol-Version` must name a supported revision, else `400`.
/// Absent, the spec says to assume 2025-03-26, which this server supports.
fn check_protocol_version(headers: &HeaderMap) -> Result<&str, HttpResponse> {
    let Some(value) = headers.get(super::names::PROTOCOL_VERSION) else {
        return Ok(ASSUMED_VERSION);
    };
    match value.to_str() {
        Ok(v) if SUPPORTED_VERSIONS.contains(&v) => Ok(v),
        _ => Err(bad_request(format!(
            "Unsupported MCP-Protocol-Version {value:?}; supported: {}",
            SUPPORTED_VERSIONS.join(", ")
        ))),
    }
}

/// `400 Bad Request` saying `why`.
pub fn bad_request(why: impl std::fmt::Display) -> HttpResponse {
    reply::error(
        StatusCode::BAD_REQUEST,
        code::INVALID_REQUEST,
        format!("Bad Request: {why}"),
    )
}

/// `404 Not Found`: no session `id` (ended, or never issued).
pub fn session_not_found(id: &str) -> HttpResponse {
    reply::error(
        StatusCode::NOT_FOUND,
        code::SESSION_NOT_FOUND,
        format!(
            "Session not found: {id:?} is unknown or was terminated; send initialize without Mcp-Session-Id to start a new session"
        ),
    )
}
