//! The protected resource metadata document (RFC 9728 §2), served without a token
//! to anyone who asks, at the well-known URL RFC 9728 §3.1 builds from the resource
//! (`/.well-known/oauth-protected-resource` with the resource's path appended:
//! `/.well-known/oauth-protected-resource/mcp`) and at the root form the MCP
//! 2025-11-25 `basic/authorization` discovery falls back to. It names the
//! authorization server a client must get its token from (MCP: servers MUST
//! implement RFC 9728 and list at least one in `authorization_servers`).

use crate::wire::oauth;
use serde_json::{Value, json};

/// The document for `resource`, issued by `issuer`, with `scopes`.
pub fn document(resource: &str, issuer: &str, scopes: &[String]) -> Value {
    let mut doc = json!({
        "resource": resource,
        "authorization_servers": [issuer],
        // RFC 6750 §2.1 only: a token in a query or a form body is never read
        // (MCP: access tokens MUST NOT be in the URI query string).
        "bearer_methods_supported": ["header"],
        "resource_name": "mcp-raw",
    });
    if !scopes.is_empty() {
        doc["scopes_supported"] = json!(scopes);
    }
    doc
}

/// The metadata URL of `resource`: `http://h:p/mcp` →
/// `http://h:p/.well-known/oauth-protected-resource/mcp` (RFC 9728 §3.1), the first a
/// client tries ([`oauth::resource_metadata_urls`]).
pub fn url(resource: &str) -> String {
    oauth::resource_metadata_urls(resource)
        .into_iter()
        .next()
        .unwrap_or_default()
}

/// The request paths the document is served at: every URL a client tries.
pub fn paths(resource: &str) -> Vec<String> {
    oauth::resource_metadata_urls(resource)
        .iter()
        .map(|u| oauth::split_origin(u).1.to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_well_known_string_goes_between_host_and_path() {
        assert_eq!(
            url("http://127.0.0.1:3100/mcp"),
            "http://127.0.0.1:3100/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            paths("http://127.0.0.1:3100/mcp"),
            [
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource"
            ]
        );
        let doc = document("http://r/mcp", "http://as", &["mcp:tools".into()]);
        assert_eq!(doc["authorization_servers"][0], "http://as");
        assert_eq!(doc["scopes_supported"][0], "mcp:tools");
    }
}
