//! The token endpoint (OAuth 2.1 §3.2): it authenticates the client (Basic,
//! `client_secret_post`, or none for a public client), then grants by
//! `grant_type`: `authorization_code` (with the PKCE verifier, §4.1.3),
//! `refresh_token` (§4.3, rotated on each use), `client_credentials` (§4.2,
//! confidential clients only). Each issues an RFC 9068 JWT access token for the
//! `resource` asked for.

use super::state::Grant;
use super::{Answer, AuthServer, oauth_error};
use crate::wire::form;
use base64::Engine;
use hyper::{HeaderMap, StatusCode};
use serde_json::json;
use std::time::Instant;

/// Seconds since 1970, for `iat`, `exp` and `client_id_issued_at`.
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The scope granted for a request of `asked` (all supported ones when none is
/// asked for): every scope asked must be one this server issues.
pub fn granted_scope(server: &AuthServer, asked: Option<&str>) -> Result<String, String> {
    let supported = &server.config.scopes;
    let Some(asked) = asked.filter(|a| !a.trim().is_empty()) else {
        return Ok(supported.join(" "));
    };
    match asked
        .split(' ')
        .find(|s| !s.is_empty() && !supported.iter().any(|k| k == s))
    {
        Some(unknown) => Err(format!(
            "scope {unknown:?} is not issued here (scopes_supported: {})",
            supported.join(" ")
        )),
        None => Ok(asked.to_owned()),
    }
}

/// `POST /token` with a form body: the tokens, or the OAuth error.
pub fn token(server: &AuthServer, headers: &HeaderMap, body: &[u8]) -> Answer {
    let params = form::decode(&String::from_utf8_lossy(body));
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let client_id = match authenticate(server, headers, get("client_id"), get("client_secret")) {
        Ok(id) => id,
        Err(answer) => return answer,
    };
    let confidential = server
        .state()
        .clients
        .get(&client_id)
        .is_some_and(|c| c.secret.is_some());
    let with_refresh = get("grant_type") != Some("client_credentials");
    let grant = match get("grant_type") {
        Some("authorization_code") => {
            let (Some(code), Some(verifier)) = (get("code"), get("code_verifier")) else {
                return bad("invalid_request", "code and code_verifier are required");
            };
            let Some(issued) = server.state().codes.remove(code) else {
                return bad("invalid_grant", "the code is unknown or was used already");
            };
            if issued.expires < Instant::now() {
                return bad(
                    "invalid_grant",
                    "the code has expired (auth-server --code-ttl)",
                );
            }
            if issued.client_id != client_id {
                return bad("invalid_grant", "the code was issued to another client");
            }
            if get("redirect_uri") != Some(issued.redirect_uri.as_str()) {
                return bad(
                    "invalid_grant",
                    "redirect_uri differs from the authorization request's",
                );
            }
            // RFC 7636 §4.6: S256(code_verifier) must equal the code_challenge.
            if crate::keys::s256(verifier) != issued.challenge {
                return bad(
                    "invalid_grant",
                    "the code_verifier does not match the code_challenge (PKCE)",
                );
            }
            if let Some(r) = get("resource")
                && r != issued.resource
            {
                return bad(
                    "invalid_target",
                    "resource differs from the authorization request's",
                );
            }
            Grant {
                client_id,
                resource: issued.resource,
                scope: issued.scope,
            }
        }
        Some("refresh_token") => {
            let Some(refresh) = get("refresh_token") else {
                return bad("invalid_request", "refresh_token is required");
            };
            let Some(old) = server.state().refresh.remove(refresh) else {
                return bad(
                    "invalid_grant",
                    "the refresh token is unknown or was used already",
                );
            };
            if old.client_id != client_id {
                return bad(
                    "invalid_grant",
                    "the refresh token was issued to another client",
                );
            }
            Grant { client_id, ..old }
        }
        Some("client_credentials") => {
            if !confidential {
                return bad(
                    "unauthorized_client",
                    "client_credentials is for clients with a secret",
                );
            }
            let Some(resource) = get("resource") else {
                return bad(
                    "invalid_target",
                    "resource is required: the MCP server the token is for (RFC 8707)",
                );
            };
            let scope = match granted_scope(server, get("scope")) {
                Ok(s) => s,
                Err(why) => return bad("invalid_scope", &why),
            };
            Grant {
                client_id,
                resource: resource.to_owned(),
                scope,
            }
        }
        Some(other) => {
            return bad(
                "unsupported_grant_type",
                &format!("grant_type {other:?} is not served here"),
            );
        }
        None => return bad("invalid_request", "grant_type is required"),
    };
    issue(server, grant, with_refresh)
}

/// An access token for `grant`, and a new refresh token (not for client_credentials,
/// which can simply ask again, RFC 6749 §4.4.3).
fn issue(server: &AuthServer, grant: Grant, with_refresh: bool) -> Answer {
    let now = now_secs();
    let ttl = server.config.token_ttl.as_secs();
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.typ = Some("at+jwt".into());
    header.kid = Some(server.kid.clone());
    let Ok(jti) = crate::keys::random_token() else {
        return bad("server_error", "no randomness");
    };
    // RFC 9068 §2.2: iss, exp, aud, sub, client_id, iat, jti are required.
    let claims = json!({
        "iss": server.issuer,
        "aud": grant.resource,
        "sub": grant.client_id,
        "client_id": grant.client_id,
        "scope": grant.scope,
        "iat": now,
        "exp": now + ttl,
        "jti": jti,
    });
    let access = match jsonwebtoken::encode(&header, &claims, &server.key.encoding) {
        Ok(t) => t,
        Err(e) => return bad("server_error", &format!("cannot sign the token: {e}")),
    };
    let mut body = json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": ttl,
        "scope": grant.scope,
    });
    if with_refresh && let Ok(refresh) = crate::keys::random_token() {
        body["refresh_token"] = json!(refresh);
        server.state().refresh.insert(refresh, grant);
    }
    Answer::Json(StatusCode::OK, body)
}

fn bad(error: &str, why: &str) -> Answer {
    oauth_error(StatusCode::BAD_REQUEST, error, why)
}

/// The client of a token request: `Authorization: Basic` (RFC 6749 §2.3.1, the id
/// and secret form-encoded), or `client_id` (and `client_secret`) in the body.
/// A wrong secret is `401 invalid_client` (§5.2).
fn authenticate(
    server: &AuthServer,
    headers: &HeaderMap,
    form_id: Option<&str>,
    form_secret: Option<&str>,
) -> Result<String, Answer> {
    let basic = headers
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Basic ")
                .or_else(|| v.strip_prefix("basic "))
        })
        .and_then(|b| {
            base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .ok()
        })
        .and_then(|b| String::from_utf8(b).ok());
    let (id, secret) = match &basic {
        Some(pair) => {
            let (id, secret) = pair.split_once(':').unwrap_or((pair, ""));
            (form::unescape(id), Some(form::unescape(secret)))
        }
        None => match form_id {
            Some(id) => (id.to_owned(), form_secret.map(str::to_owned)),
            None => {
                return Err(oauth_error(
                    StatusCode::UNAUTHORIZED,
                    "invalid_client",
                    "no client authentication: send Basic credentials or client_id",
                ));
            }
        },
    };
    let client = server.state().clients.get(&id).cloned();
    let ok = match client {
        None => false,
        Some(c) => match (&c.secret, &secret) {
            (None, _) => true,
            (Some(want), Some(got)) => want == got,
            (Some(_), None) => false,
        },
    };
    if ok {
        Ok(id)
    } else {
        Err(oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            &format!("client {id:?} is unknown or its secret is wrong"),
        ))
    }
}
