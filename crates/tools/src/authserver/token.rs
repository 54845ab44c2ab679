//! The token endpoint (OAuth 2.1 §3.2): it authenticates the client (Basic,
//! `client_secret_post`, or none for a public client), then grants by
//! `grant_type`: `authorization_code` (with the PKCE verifier, §4.1.3),
//! `refresh_token` (§4.3, rotated on each use, expiring after `--refresh-ttl`; a
//! spent one used again revokes its whole family, §4.3.1), `client_credentials` (§4.2,
//! confidential clients only). Each issues an RFC 9068 JWT access token for the
//! `resource` asked for.

use super::state::{Grant, Refresh};
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
    let (grant, family) = match get("grant_type") {
        Some("authorization_code") => {
            let (Some(code), Some(verifier)) = (get("code"), get("code_verifier")) else {
                return bad("invalid_request", "code and code_verifier are required");
            };
            // RFC 7636 §4.1: code-verifier = 43*128unreserved, unreserved = ALPHA /
            // DIGIT / "-" / "." / "_" / "~". Checked before the code is spent: a
            // malformed request does not use it up.
            if let Err(why) = verifier_format(verifier) {
                return bad("invalid_request", &why);
            }
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
            (
                Grant {
                    client_id,
                    resource: issued.resource,
                    scope: issued.scope,
                },
                None,
            )
        }
        Some("refresh_token") => {
            let Some(refresh) = get("refresh_token") else {
                return bad("invalid_request", "refresh_token is required");
            };
            let mut st = server.state();
            let Some(old) = st.refresh.get(refresh).cloned() else {
                return bad(
                    "invalid_grant",
                    "the refresh token is unknown, expired or revoked",
                );
            };
            if old.grant.client_id != client_id {
                return bad(
                    "invalid_grant",
                    "the refresh token was issued to another client",
                );
            }
            if old.expires <= Instant::now() {
                st.refresh.remove(refresh);
                return bad(
                    "invalid_grant",
                    "the refresh token has expired (auth-server --refresh-ttl)",
                );
            }
            // OAuth 2.1 §4.3.1 (RFC 9700 §4.14.2): a rotated refresh token used
            // again means two parties hold it, and the server cannot tell which is
            // the client: every token of the family is revoked.
            if old.spent {
                let revoked = st.revoke_family(old.family);
                return bad(
                    "invalid_grant",
                    &format!(
                        "the refresh token was used already: its family ({revoked} refresh token(s), the one issued in its place included) is revoked (OAuth 2.1 section 4.3.1)"
                    ),
                );
            }
            // Its successor needs a place: refused now, the token stays usable.
            st.sweep();
            if st.refresh.len() >= server.config.max_refresh {
                return full(st.refresh.len());
            }
            if let Some(r) = st.refresh.get_mut(refresh) {
                r.spent = true;
            }
            (
                Grant {
                    client_id,
                    ..old.grant
                },
                Some(old.family),
            )
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
            (
                Grant {
                    client_id,
                    resource: resource.to_owned(),
                    scope,
                },
                None,
            )
        }
        Some(other) => {
            return bad(
                "unsupported_grant_type",
                &format!("grant_type {other:?} is not served here"),
            );
        }
        None => return bad("invalid_request", "grant_type is required"),
    };
    issue(server, grant, with_refresh.then_some(family))
}

/// RFC 7636 §4.1: 43 to 128 characters of `[A-Za-z0-9-._~]`. The refusal gives the
/// length and the first character out of place, not the verifier.
pub fn verifier_format(verifier: &str) -> Result<(), String> {
    let len = verifier.chars().count();
    if !(43..=128).contains(&len) {
        return Err(format!(
            "the code_verifier has {len} characters; RFC 7636 section 4.1 wants 43 to 128"
        ));
    }
    if let Some(c) = verifier
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "-._~".contains(*c)))
    {
        return Err(format!(
            "the code_verifier holds {c:?}; RFC 7636 section 4.1 allows only A-Z a-z 0-9 - . _ ~"
        ));
    }
    Ok(())
}

/// An access token for `grant`, and a new refresh token when `refresh` says so (not
/// for client_credentials, which can simply ask again, RFC 6749 §4.4.3): in the
/// family given (a rotation), or a new one (a code exchange).
fn issue(server: &AuthServer, grant: Grant, refresh: Option<Option<u64>>) -> Answer {
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
    if let Some(family) = refresh {
        let Ok(token) = crate::keys::random_token() else {
            return bad("server_error", "no randomness");
        };
        let mut st = server.state();
        st.sweep();
        if st.refresh.len() >= server.config.max_refresh {
            return full(st.refresh.len());
        }
        let family = family.unwrap_or_else(|| {
            st.next_family += 1;
            st.next_family
        });
        st.refresh.insert(
            token.clone(),
            Refresh {
                grant,
                family,
                expires: Instant::now() + server.config.refresh_ttl,
                spent: false,
            },
        );
        body["refresh_token"] = json!(token);
    }
    Answer::Json(StatusCode::OK, body)
}

/// `503 temporarily_unavailable`: `alive` refresh tokens fill `--max-refresh-tokens`.
fn full(alive: usize) -> Answer {
    oauth_error(
        StatusCode::SERVICE_UNAVAILABLE,
        "temporarily_unavailable",
        &format!(
            "{alive} refresh tokens are alive, the most this server keeps (auth-server --max-refresh-tokens); retry once some expire"
        ),
    )
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
