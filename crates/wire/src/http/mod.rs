//! The Streamable HTTP binding's vocabulary (MCP 2025-11-25 `basic/transports`,
//! 2026-07-28 `basic/transports/streamable-http`): the endpoint, the header names,
//! the values mirrored from the body ([`mirror`], [`x_mcp_header`]) and the HTTP
//! status a modern JSON-RPC error travels with ([`status_for`]); which exchanges of a
//! recording are MCP's at all ([`endpoint`]).

pub mod endpoint;
pub mod mirror;
pub mod x_mcp_header;

use crate::jsonrpc::code;
use hyper::StatusCode;

/// The path of the single MCP endpoint (the spec leaves it to the server; this
/// project serves `/mcp`).
pub const ENDPOINT: &str = "/mcp";

/// The header that carries a legacy session's id (2025-11-25 "Session Management");
/// 2026-07-28 has no sessions and ignores it.
pub const SESSION_ID: &str = "mcp-session-id";

/// The HTTP status of a modern JSON-RPC error (2026-07-28
/// `basic/transports/streamable-http`): an unknown method → 404 ("Protocol Version
/// Header"), a server fault → 500, any other refusal of the request (bad `_meta`,
/// header mismatch, unsupported version, missing capability, bad params) → 400. In the
/// legacy era a JSON-RPC error travels inside a `200`.
pub fn status_for(code: i64) -> StatusCode {
    match code {
        code::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        code::INTERNAL_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    }
}

/// `127.0.0.1:3100` → `127.0.0.1`; `[::1]:80` → `::1`; a bad port → `None`.
pub fn authority_host(authority: &str) -> Option<&str> {
    let (host, tail) = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']')?,
        None => match authority.rsplit_once(':') {
            Some((h, p)) => (h, &authority[h.len()..][..p.len() + 1]),
            None => (authority, ""),
        },
    };
    let port_ok = tail.is_empty()
        || tail.strip_prefix(':').is_some_and(|p| {
            !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
        });
    (port_ok && !host.is_empty()).then_some(host)
}
