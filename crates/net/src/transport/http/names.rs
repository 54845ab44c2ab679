//! The MCP header names the server looks up, typed once. A lookup by `&str` makes
//! `http` parse and lower-case the name on every call (for a name it does not know,
//! a byte-by-byte table walk); a [`HeaderName`] is hashed as it is. The spellings
//! live in [`crate::wire::http`], shared with the client and the views.

use crate::wire::http::{SESSION_ID as SESSION_ID_STR, mirror};
use hyper::header::HeaderName;

/// `Mcp-Session-Id` (2025-11-25 `basic/transports` "Session Management").
pub const SESSION_ID: HeaderName = HeaderName::from_static(SESSION_ID_STR);
/// `MCP-Protocol-Version` (both eras; mirrored from `_meta` in 2026-07-28).
pub const PROTOCOL_VERSION: HeaderName = HeaderName::from_static(mirror::PROTOCOL_VERSION);
/// `Mcp-Method` (2026-07-28 "Standard MCP Request Headers").
pub const METHOD: HeaderName = HeaderName::from_static(mirror::METHOD);
/// `Mcp-Name` (2026-07-28 "Standard MCP Request Headers").
pub const NAME: HeaderName = HeaderName::from_static(mirror::NAME);
/// `Last-Event-ID` (resuming a legacy stream, "Resumability and Redelivery").
pub const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
/// `X-Accel-Buffering: no` on SSE answers: nginx must not buffer a stream.
pub const X_ACCEL_BUFFERING: HeaderName = HeaderName::from_static("x-accel-buffering");
