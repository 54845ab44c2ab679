//! The authorization endpoint (OAuth 2.1 §4.1.1): it checks the request and, with
//! nobody to ask, approves it at once: `302` to the client's redirect with a one-use
//! `code`, the client's `state`, and `iss` (RFC 9207). A request whose client or
//! redirect cannot be trusted is answered here, never redirected (RFC 6749
//! §4.1.2.1: the server MUST NOT redirect to an unverified URI).

use super::register::allowed_redirect;
use super::state::Code;
use super::{Answer, AuthServer, oauth_error};
use crate::wire::form;
use hyper::StatusCode;
use std::time::Instant;

/// `GET /authorize?QUERY`: the redirect with a code, or the refusal.
pub fn authorize(server: &AuthServer, query: &str) -> Answer {
    let params = form::decode(query);
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let (Some(client_id), Some(redirect_uri)) = (get("client_id"), get("redirect_uri")) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "client_id and redirect_uri are required",
        );
    };
    let known = server.state().clients.get(client_id).cloned();
    let Some(client) = known else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client",
            &format!("no client {client_id:?} is registered here"),
        );
    };
    let registered = if client.redirect_uris.is_empty() {
        allowed_redirect(redirect_uri) && redirect_uri.starts_with("http://")
    } else {
        client.redirect_uris.iter().any(|u| u == redirect_uri)
    };
    if !registered {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            &format!("redirect_uri {redirect_uri:?} is not registered for this client"),
        );
    }
    // From here on, errors go back to the client on its redirect (RFC 6749 §4.1.2.1).
    let state = get("state");
    let back = |pairs: &[(&str, &str)]| {
        let mut all: Vec<(&str, &str)> = pairs.to_vec();
        if let Some(s) = state {
            all.push(("state", s));
        }
        all.push(("iss", &server.issuer));
        let sep = if redirect_uri.contains('?') { '&' } else { '?' };
        Answer::Redirect(format!("{redirect_uri}{sep}{}", form::encode(&all)))
    };
    let refuse = |error: &str, why: &str| back(&[("error", error), ("error_description", why)]);
    if get("response_type") != Some("code") {
        return refuse(
            "unsupported_response_type",
            "only response_type=code is served",
        );
    }
    // OAuth 2.1 §4.1.1: PKCE is required; MCP requires S256.
    let Some(challenge) = get("code_challenge") else {
        return refuse(
            "invalid_request",
            "code_challenge is required (PKCE, RFC 7636)",
        );
    };
    if get("code_challenge_method") != Some("S256") {
        return refuse("invalid_request", "code_challenge_method must be S256");
    }
    // RFC 8707 §2: the resource the token is for. MCP clients MUST send it, and
    // this server issues no token without an audience.
    let Some(resource) = get("resource") else {
        return refuse(
            "invalid_target",
            "resource is required: the MCP server the token is for (RFC 8707)",
        );
    };
    let scope = match super::token::granted_scope(server, get("scope")) {
        Ok(s) => s,
        Err(why) => return refuse("invalid_scope", &why),
    };
    let Ok(code) = crate::keys::random_token() else {
        return refuse("server_error", "no randomness");
    };
    {
        let mut st = server.state();
        st.sweep();
        // RFC 6749 §4.1.2.1: temporarily_unavailable, "due to a temporary
        // overloading": codes are exchanged or expire within --code-ttl.
        if st.codes.len() >= server.config.max_codes {
            return refuse(
                "temporarily_unavailable",
                &format!(
                    "{} authorization codes are waiting for their exchange, the most this server keeps (auth-server --max-codes); retry once some are exchanged or expired",
                    st.codes.len()
                ),
            );
        }
        st.codes.insert(
            code.clone(),
            Code {
                client_id: client_id.to_owned(),
                redirect_uri: redirect_uri.to_owned(),
                challenge: challenge.to_owned(),
                resource: resource.to_owned(),
                scope,
                expires: Instant::now() + server.config.code_ttl,
            },
        );
    }
    back(&[("code", &code)])
}
