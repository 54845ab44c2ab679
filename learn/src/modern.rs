//! What 2026-07-28 changes. Everything before this file is 2025-11-25, the seed's
//! revision; the next one keeps JSON-RPC, the four shapes, the tools and both
//! transports, and drops the session (2026-07-28 `basic/versioning`, `basic/index`,
//! `basic/transports`; mcp-raw speaks both eras, `mcp-raw demo --era both`):
//!
//! - **No handshake.** No `initialize`, no `notifications/initialized`, no
//!   -32002: the first request may be a `tools/call`. `server/discover`
//!   (2026-07-28 `server/discover`) tells the versions, capabilities and name of a
//!   server to a client that asks.
//! - **Every request says who it is**, in `params._meta`: the protocol version, the
//!   client's capabilities and its name, under `io.modelcontextprotocol/…` keys
//!   ([`modern_call`] builds one). The state `rpc.rs` keeps in a `Session` travels
//!   in each message instead, so any replica of a server can answer any request.
//! - **Every result says it is done**: `"resultType":"complete"`, and names the
//!   server in its own `_meta`.
//! - **Over HTTP, no `Mcp-Session-Id`**, no DELETE, no GET stream: a POST is the
//!   whole exchange. Its headers repeat what routers need without reading the body
//!   ([`modern_headers`]): `MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name`
//!   for a `tools/call`.

use crate::json::Json;

/// The revision this file describes.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The `_meta` every 2026-07-28 request carries in place of the handshake.
pub fn request_meta() -> Json {
    Json::object([
        ("io.modelcontextprotocol/protocolVersion", Json::str(MODERN_VERSION)),
        ("io.modelcontextprotocol/clientCapabilities", Json::object([])),
        (
            "io.modelcontextprotocol/clientInfo",
            Json::object([("name", Json::str("mcp-raw-demo")), ("version", Json::str("0.1.0"))]),
        ),
    ])
}

/// A 2026-07-28 `tools/call`: the 2025-11-25 one, plus `params._meta`.
pub fn modern_call(id: u64, name: &str, arguments: Json) -> String {
    let params = Json::object([
        ("name", Json::str(name)),
        ("arguments", arguments),
        ("_meta", request_meta()),
    ]);
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
}

/// The headers a 2026-07-28 POST of `tools/call name` adds, after `content-type`.
pub fn modern_headers(name: &str) -> String {
    format!(
        "mcp-protocol-version: {MODERN_VERSION}\r\nmcp-method: tools/call\r\nmcp-name: {name}\r\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes `mcp-raw demo --era both --raw` sends for its modern call.
    #[test]
    fn a_modern_call_is_what_mcp_raw_sends() {
        let args =
            Json::object([("a", Json::Number("2".into())), ("b", Json::Number("40".into()))]);
        assert_eq!(
            modern_call(3, "add", args),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcp-raw-demo","version":"0.1.0"}}}}"#
        );
        assert!(modern_headers("add").ends_with("mcp-name: add\r\n"));
    }
}
