//! A POST in the modern, stateless era (MCP 2026-07-28
//! `basic/transports/streamable-http`). No session: `Mcp-Session-Id` and
//! `Last-Event-ID` are ignored and never minted. The mirrored headers must match the
//! body ("Server Validation"), and errors carry HTTP statuses: 400 for malformed or
//! mismatched requests, 404 for an unknown method.

use super::reply::{self, HttpResponse};
use super::{App, names};
use crate::jsonrpc::code::HEADER_MISMATCH;
use crate::jsonrpc::{ErrorObject, Message, Request, Response, code};
use crate::protocol::context::{Out, Pending, Reply};
use crate::protocol::{Incoming, meta};
use crate::wire::http::{mirror, status_for};
use hyper::{HeaderMap, StatusCode};

/// A modern POST: header and body checks, then the core, statelessly.
pub async fn post(app: &App, headers: &HeaderMap, body: Incoming<'_>) -> HttpResponse {
    let envelope = match body {
        Incoming::One(envelope) => envelope,
        Incoming::Batch(_) => {
            return refuse(
                "JSON-RPC batches do not exist in 2026-07-28; send one message per POST",
            );
        }
    };
    let request = match &envelope.message {
        // No client notification is defined for HTTP in 2026-07-28; accept and ignore.
        Message::Notification(_) => return reply::accepted(),
        Message::Response(_) => {
            return refuse(
                "a 2026-07-28 client sends no JSON-RPC responses: server-to-client requests are embedded in results (MRTR)",
            );
        }
        Message::Request(request) => request,
    };
    if let Err(e) = check_headers(app, headers, request, &envelope.meta) {
        return reply::rpc_error(
            status_for(e.code),
            Response::error(Some(request.id.clone()), e),
        );
    }
    // 2026-07-28 keeps no session: the core serves this request with a fresh one that
    // ends with it (the era rule, fed the same facts, takes the stateless path).
    match app.core.clone().open().handle(envelope) {
        Reply::Now(response) => now(response, false),
        Reply::Streamed(response) => now(response, true),
        // Closing this stream is how a modern client cancels the request.
        Reply::Later(pending) => later(pending).await,
        Reply::None | Reply::Cancel(_) => reply::accepted(),
    }
}

/// A response ready now: an error with its HTTP status; a result as JSON, or as a
/// one-event SSE stream when its answer is a stream (`streamed`).
fn now(response: Response, streamed: bool) -> HttpResponse {
    match &response.outcome {
        Err(e) => reply::rpc_error(status_for(e.code), response),
        Ok(_) if streamed => reply::sse(&response),
        Ok(_) => reply::json(response.to_bytes()),
    }
}

/// A request that did not answer at once. Whatever comes first decides the form:
/// a message (progress, a log line, a subscription's acknowledgment) opens an SSE
/// stream that carries it and everything after; the response, if it comes first, is
/// answered like an immediate one, so a refusal still gets its 4xx status.
async fn later(mut pending: Pending) -> HttpResponse {
    let first = tokio::select! {
        biased;
        Some(out) = next_message(&mut pending.outbox) => out,
        response = &mut pending.response => return now(response, pending.streamed),
    };
    reply::stream(Some(first), pending)
}

/// The next message of an outbox, skipping legacy-only pause hints.
async fn next_message(
    outbox: &mut tokio::sync::mpsc::UnboundedReceiver<Out>,
) -> Option<serde_json::Value> {
    loop {
        match outbox.recv().await? {
            Out::Message(m) => return Some(m),
            Out::Pause { .. } => {}
        }
    }
}

/// "Server Validation", in order: `MCP-Protocol-Version` present; `_meta` well
/// formed (`-32602`); header equals `_meta` version; `Mcp-Method` equals `method`;
/// `Mcp-Name` (decoded) equals `params.name` / `params.uri` where required.
/// A legacy `initialize` skips these so the core can answer it with the supported
/// versions, the one message a legacy client can show.
fn check_headers(
    app: &App,
    headers: &HeaderMap,
    request: &Request,
    meta: &meta::Meta,
) -> Result<(), ErrorObject> {
    // Read where it lies: `name` and `arguments` are found without building `params`.
    let params = request.params.as_ref();
    if request.method == "initialize" && !meta.modern {
        return Ok(());
    }
    let version = header(headers, &names::PROTOCOL_VERSION)?.ok_or_else(|| {
        mismatch(format!(
            "the MCP-Protocol-Version header is required and must equal params._meta[\"{}\"]",
            meta::PROTOCOL_VERSION
        ))
    })?;
    let fields = meta.fields()?;
    if fields.protocol_version.as_str() != Some(version) {
        return Err(mismatch(format!(
            "MCP-Protocol-Version header {version:?} does not match params._meta version {}",
            fields.protocol_version
        )));
    }
    match header(headers, &names::METHOD)? {
        None => return Err(mismatch("the Mcp-Method header is required")),
        Some(m) if m != request.method => {
            return Err(mismatch(format!(
                "Mcp-Method header {m:?} does not match body method {:?}",
                request.method
            )));
        }
        Some(_) => {}
    }
    let body = mirror::name_field(&request.method)
        .and_then(|field| params.and_then(|p| p.get(field)))
        .and_then(|field| field.as_str());
    if let Some(body) = body {
        let raw = header(headers, &names::NAME)?.ok_or_else(|| {
            mismatch(format!(
                "the Mcp-Name header is required for {}",
                request.method
            ))
        })?;
        let name = mirror::decode(raw).map_err(|e| mismatch(format!("Mcp-Name: {e}")))?;
        if name != body {
            return Err(mismatch(format!(
                "Mcp-Name header value {name:?} does not match body value {body:?}"
            )));
        }
        // "Custom Headers from Tool Parameters": the tool's annotated arguments.
        if let Some(annotated) = app.param_headers.get(&*body) {
            let arguments = params
                .and_then(|p| p.get("arguments"))
                .map(|a| a.to_value())
                .unwrap_or(std::borrow::Cow::Owned(serde_json::Value::Null));
            let arguments = &*arguments;
            for p in annotated {
                header(headers, &format!("{}{}", mirror::PARAM_PREFIX, p.name))?;
            }
            crate::wire::http::x_mcp_header::check(annotated, arguments, |h| {
                headers.get(h).and_then(|v| v.to_str().ok())
            })
            .map_err(mismatch)?;
        }
    }
    Ok(())
}

/// A header's value with surrounding whitespace trimmed; `Err` when it holds
/// characters outside visible ASCII.
fn header<K>(headers: &HeaderMap, name: K) -> Result<Option<&str>, ErrorObject>
where
    K: hyper::header::AsHeaderName + std::fmt::Display + Copy,
{
    match headers.get(name) {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .map(|s| Some(s.trim_matches([' ', '\t'])))
            .map_err(|_| {
                mismatch(format!(
                    "the {name} header contains characters outside visible ASCII"
                ))
            }),
    }
}

fn mismatch(why: impl std::fmt::Display) -> ErrorObject {
    ErrorObject::new(HEADER_MISMATCH, format!("Header mismatch: {why}"))
}

fn refuse(why: &str) -> HttpResponse {
    reply::error(
        StatusCode::BAD_REQUEST,
        code::INVALID_REQUEST,
        format!("Invalid Request: {why}"),
    )
}
