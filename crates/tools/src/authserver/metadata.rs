//! The authorization server metadata document (RFC 8414 §2), at
//! `/.well-known/oauth-authorization-server` (and, for clients that look there
//! first, `/.well-known/openid-configuration`).

use super::AuthServer;
use serde_json::{Value, json};

/// The metadata document of `server`.
pub fn document(server: &AuthServer) -> Value {
    let i = &server.issuer;
    json!({
        "issuer": i,
        "authorization_endpoint": format!("{i}/authorize"),
        "token_endpoint": format!("{i}/token"),
        "registration_endpoint": format!("{i}/register"),
        "jwks_uri": format!("{i}/jwks"),
        "scopes_supported": server.config.scopes,
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        // MCP basic/authorization: clients MUST use S256 and MUST refuse a server
        // whose metadata does not list code_challenge_methods_supported.
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        // RFC 9207: every redirect carries `iss`, against mix-up attacks.
        "authorization_response_iss_parameter_supported": true,
    })
}
