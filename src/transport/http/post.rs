//! One `POST /mcp`, up to the point where the eras part: headers checked, body read
//! and parsed, era chosen. The session path continues in [`super::legacy`], the
//! stateless path in [`super::modern`].

use super::reply::{self, HttpResponse};
use super::{App, guard, legacy, modern};
use crate::jsonrpc::{self, Message, Parsed};
use crate::protocol::{Eras, SUPPORTED_VERSIONS, meta};
use crate::wire::http::mirror;
use hyper::{HeaderMap, Request, StatusCode};

pub async fn handle(app: &App, request: Request<hyper::body::Incoming>) -> HttpResponse {
    match handle_inner(app, request).await {
        Ok(r) | Err(r) => r,
    }
}

async fn handle_inner(
    app: &App,
    request: Request<hyper::body::Incoming>,
) -> Result<HttpResponse, HttpResponse> {
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    guard::check_accept(headers)?;
    guard::check_content_type(headers)?;
    let bytes = guard::read_body(body, headers, &app.limits).await?;
    let parsed =
        jsonrpc::parse(&bytes).map_err(|e| reply::rpc_error(StatusCode::BAD_REQUEST, e))?;
    if is_modern(app.server.eras, headers, &parsed) {
        Ok(modern::post(app, headers, parsed).await)
    } else {
        legacy::post(app, headers, parsed)
    }
}

/// Picks the era of one POST on a dual-era endpoint, in this order:
/// 1. `MCP-Protocol-Version` names a modern revision → modern (a stray
///    `Mcp-Session-Id` is then ignored, as 2026-07-28 says);
/// 2. `Mcp-Session-Id` present → legacy session traffic;
/// 3. `MCP-Protocol-Version` present and not a legacy revision (`v999.0.0`) → modern,
///    so a modern client hears `-32022` rather than "no session";
/// 4. the body carries the modern `_meta` fields → modern (a modern request that
///    forgot its header still gets a modern error);
/// 5. anything else (`initialize` above all) → legacy.
fn is_modern(eras: Eras, headers: &HeaderMap, parsed: &Parsed) -> bool {
    match eras {
        Eras::Legacy => return false,
        Eras::Modern => return true,
        Eras::Both => {}
    }
    if mirror::names_version(headers, &meta::MODERN_VERSIONS) {
        return true;
    }
    if headers.contains_key(crate::wire::http::SESSION_ID) {
        return false;
    }
    if headers.contains_key(mirror::PROTOCOL_VERSION)
        && !mirror::names_version(headers, &SUPPORTED_VERSIONS)
    {
        return true;
    }
    match parsed {
        Parsed::One(Message::Request(r)) => meta::is_modern(r.params.as_ref()),
        Parsed::One(Message::Notification(n)) => meta::is_modern(n.params.as_ref()),
        _ => false,
    }
}
