//! Dynamic client registration (RFC 7591 §3): a client posts its metadata and gets
//! a `client_id` (and a secret, unless it asks for `token_endpoint_auth_method:
//! none`, a public client).

use super::state::Client;
use super::{Answer, AuthServer, oauth_error};
use hyper::StatusCode;
use serde_json::{Value, json};

/// `POST /register` with a JSON body: the new client, or why not.
pub fn register(server: &AuthServer, headers: &hyper::HeaderMap, body: &[u8]) -> Answer {
    // RFC 7591 §3.1: the client metadata is sent "using the application/json format";
    // anything else is not a registration request (and a form post from a web page,
    // which needs no CORS preflight, cannot make one).
    let ct = headers
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .eq_ignore_ascii_case("application/json")
    {
        return oauth_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "invalid_request",
            &format!("Content-Type must be application/json (RFC 7591 §3.1), got {ct:?}"),
        );
    }
    let Ok(Value::Object(mut meta)) = serde_json::from_slice::<Value>(body) else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "the registration request must be a JSON object (RFC 7591 §3.1)",
        );
    };
    let redirect_uris: Vec<String> = match meta.get("redirect_uris") {
        Some(Value::Array(uris)) if !uris.is_empty() => {
            match uris.iter().map(|u| u.as_str().map(str::to_owned)).collect() {
                Some(all) => all,
                None => {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_redirect_uri",
                        "redirect_uris must be strings",
                    );
                }
            }
        }
        _ => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_redirect_uri",
                "redirect_uris is required and must be a non-empty array (RFC 7591 §2)",
            );
        }
    };
    // OAuth 2.1 §2.3.1 / MCP: redirects go to loopback (a native client) or HTTPS.
    if let Some(bad) = redirect_uris.iter().find(|u| !allowed_redirect(u)) {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_redirect_uri",
            &format!("{bad:?} is neither a loopback http:// URI nor https://"),
        );
    }
    let method = meta
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
        .unwrap_or("client_secret_basic")
        .to_owned();
    if !matches!(
        method.as_str(),
        "client_secret_basic" | "client_secret_post" | "none"
    ) {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            &format!("token_endpoint_auth_method {method:?} is not supported"),
        );
    }
    let (id, secret) = match (crate::keys::random_token(), crate::keys::random_token()) {
        (Ok(id), Ok(secret)) => (id, (method != "none").then_some(secret)),
        _ => {
            return oauth_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "no randomness",
            );
        }
    };
    {
        let mut state = server.state();
        if state.clients.len() >= server.config.max_clients {
            return oauth_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "temporarily_unavailable",
                &format!(
                    "{} clients are registered already (auth-server --max-clients)",
                    server.config.max_clients
                ),
            );
        }
        state.clients.insert(
            id.clone(),
            Client {
                secret: secret.clone(),
                redirect_uris: redirect_uris.clone(),
            },
        );
    }
    // RFC 7591 §3.2.1: the answer repeats the metadata, with the id (and secret).
    meta.insert("client_id".into(), json!(id));
    meta.insert("token_endpoint_auth_method".into(), json!(method));
    meta.insert("redirect_uris".into(), json!(redirect_uris));
    meta.insert(
        "client_id_issued_at".into(),
        json!(super::token::now_secs()),
    );
    if let Some(secret) = secret {
        meta.insert("client_secret".into(), json!(secret));
        meta.insert("client_secret_expires_at".into(), json!(0));
    }
    Answer::Json(StatusCode::CREATED, Value::Object(meta))
}

/// A loopback `http://` redirect (RFC 8252 §7.3) or any `https://` one.
pub fn allowed_redirect(uri: &str) -> bool {
    if uri.starts_with("https://") {
        return true;
    }
    let Some(rest) = uri.strip_prefix("http://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    matches!(
        crate::wire::http::authority_host(authority),
        Some("127.0.0.1" | "localhost" | "::1")
    )
}
