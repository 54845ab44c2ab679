//! The server as an OAuth 2.1 protected resource (`serve --http --auth-server URL`),
//! per MCP 2025-11-25 `basic/authorization` (unchanged in 2026-07-28). Every request
//! to `/mcp` must carry `Authorization: Bearer <token>` (RFC 6750 §2.1) for a token
//! this server can check; the one document anybody may read is the protected
//! resource metadata that says where to get one:
//!
//! ```text
//! POST /mcp  (no token)                       → 401  WWW-Authenticate: Bearer resource_metadata="…", scope="…"
//! GET  /.well-known/oauth-protected-resource/mcp
//!                                             → 200  {resource, authorization_servers: [URL], …}
//!      … the client gets a token from URL …
//! POST /mcp  Authorization: Bearer eyJ…       → 200  (the token verified: signature, iss, aud, exp)
//! POST /mcp  Authorization: Bearer <no scope> → 403  WWW-Authenticate: Bearer error="insufficient_scope", scope="…"
//! ```
//!
//! [`metadata`] is the document, [`challenge`] the refusals, [`jwt`] and
//! [`introspect`] the two ways a token is checked, [`issuer`] what is known of the
//! authorization server, [`fetch`] how the server asks it (on lanes of its trace).

pub mod challenge;
pub mod fetch;
pub mod introspect;
pub mod issuer;
pub mod jwt;
pub mod metadata;

use super::reply::{self, HttpResponse};
use challenge::Problem;
use hyper::header::AUTHORIZATION;
use hyper::{HeaderMap, Method, StatusCode};
use jwt::Refusal;
use std::time::Duration;

/// How the server is protected (the `serve --auth-*` flags).
#[derive(Debug, Clone)]
pub struct Settings {
    /// The authorization server's issuer URL (`--auth-server`): listed in the
    /// metadata, the `iss` tokens must carry, where its keys are found.
    pub issuer: String,
    /// This resource's canonical URI (`--resource`; by default
    /// `http://ADDR/mcp` from the bound address): the audience a token must name
    /// (RFC 8707 resource indicators) and the metadata's `resource`.
    pub resource: String,
    /// Scopes every request needs (`--required-scope`, repeatable); a token without
    /// one of them gets `403 insufficient_scope`.
    pub required_scopes: Vec<String>,
    /// Check tokens by RFC 7662 introspection with these credentials, instead of
    /// verifying them as JWTs against the key set (`--introspection-client-id`,
    /// `--introspection-client-secret`).
    pub introspection: Option<introspect::Credentials>,
    /// Time allowed for each request to the authorization server
    /// (`--auth-fetch-timeout`).
    pub fetch_timeout: Duration,
    /// Largest answer read from the authorization server (`--auth-fetch-max-bytes`).
    pub fetch_max_bytes: usize,
    /// Shortest time between two fetches of its key set (`--jwks-refresh`).
    pub jwks_refresh: Duration,
    /// How long a failed request to it is remembered before it is tried again
    /// (`--auth-retry`); meanwhile a request needing it gets `503` at once.
    pub retry: Duration,
    /// Clock skew allowed on `exp` and `nbf`, in seconds (`--token-leeway`).
    pub leeway: u64,
    /// The TLS of requests to an `https://` authorization server: the system's trust
    /// store, plus `--auth-cacert`; the client's connector (read on the first
    /// `https://` request, never for `http://`).
    pub tls: std::sync::Arc<crate::client::tls::Tls>,
}

impl Settings {
    /// Refuses an issuer the server must not talk to: MCP 2025-11-25
    /// `basic/authorization` "Communication Security" (all authorization server
    /// endpoints MUST be HTTPS), the same rule as the client's, by the same function:
    /// plain `http://` on a loopback address only, or every token and the
    /// introspection secret would cross the network in clear.
    pub fn check(&self) -> Result<(), String> {
        crate::wire::oauth::https_or_loopback("--auth-server", &self.issuer).map(drop)
    }

    /// The defaults for `issuer`, before the resource is known.
    pub fn new(issuer: &str) -> Settings {
        Settings {
            issuer: issuer.to_owned(),
            resource: String::new(),
            required_scopes: Vec::new(),
            introspection: None,
            fetch_timeout: Duration::from_secs(10),
            fetch_max_bytes: 1024 * 1024,
            jwks_refresh: Duration::from_secs(60),
            retry: Duration::from_secs(5),
            leeway: 30,
            tls: Default::default(),
        }
    }
}

/// What a verified token grants.
#[derive(Debug)]
pub struct Granted {
    /// Its scopes (RFC 6749 §3.3).
    pub scopes: Vec<String>,
    /// Whom it was issued to: a legacy session made with it is bound to this.
    pub principal: Principal,
}

/// Whom a token speaks for: its subject (`sub`) and the client it was issued to
/// (`client_id`), RFC 9068 §2.2 (both required in a JWT access token) and RFC 7662
/// §2.2 (both optional in an introspection answer). MCP 2025-11-25 "Security Best
/// Practices", Session Hijacking: a server MUST NOT use sessions for authentication,
/// and binds a session to user-specific information: a session made with one
/// principal's token does not exist for a request carrying another's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Principal {
    /// The token's `sub`, when it names one.
    pub subject: Option<String>,
    /// The token's `client_id`, when it names one.
    pub client: Option<String>,
}

impl Principal {
    /// The principal a verified token's claims (or an introspection answer) name.
    pub fn of(claims: &serde_json::Value) -> Principal {
        let text = |name: &str| {
            claims
                .get(name)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        Principal {
            subject: text("sub"),
            client: text("client_id"),
        }
    }
}

/// The protection of one server: its settings, what it knows of the authorization
/// server, and the strings every refusal repeats.
pub struct Protection {
    settings: Settings,
    issuer: issuer::Issuer,
    /// `resource_metadata` in every challenge.
    metadata_url: String,
    /// `scope` in every challenge: the required scopes, space-separated.
    scope: String,
    /// Where the metadata document is served.
    metadata_paths: Vec<String>,
}

impl Protection {
    /// The protection `settings` describe; the authorization server's answers are
    /// recorded on `recorder`.
    pub fn new(settings: Settings, recorder: Option<crate::wire::recorder::Recorder>) -> Self {
        let fetch = fetch::Fetcher {
            recorder,
            timeout: settings.fetch_timeout,
            max_bytes: settings.fetch_max_bytes,
            tls: settings.tls.clone(),
        };
        Protection {
            issuer: issuer::Issuer::new(
                &settings.issuer,
                fetch,
                settings.jwks_refresh,
                settings.retry,
            ),
            metadata_url: metadata::url(&settings.resource),
            scope: settings.required_scopes.join(" "),
            metadata_paths: metadata::paths(&settings.resource),
            settings,
        }
    }

    /// The metadata document, when `path` is where it is served (any method but GET
    /// gets `405`); `None` for every other path.
    pub fn metadata(&self, method: &Method, path: &str) -> Option<HttpResponse> {
        if !self.metadata_paths.iter().any(|p| p == path) {
            return None;
        }
        if method != Method::GET {
            let mut r = reply::error(
                StatusCode::METHOD_NOT_ALLOWED,
                crate::jsonrpc::code::INVALID_REQUEST,
                format!(
                    "Method Not Allowed: {method} {path}; the metadata document is read with GET"
                ),
            );
            r.headers_mut().insert(
                hyper::header::ALLOW,
                hyper::header::HeaderValue::from_static("GET"),
            );
            return Some(r);
        }
        let doc = metadata::document(
            &self.settings.resource,
            &self.issuer.url,
            &self.settings.required_scopes,
        );
        Some(reply::json(doc.to_string().into_bytes()))
    }

    /// Lets a request through, or answers it with the refusal: `401`, `400`, `403`,
    /// or `503` when the token could not be checked at all.
    pub async fn check(&self, headers: &HeaderMap) -> Result<Granted, HttpResponse> {
        let refuse =
            |problem, why: &str| challenge::refuse(problem, &self.metadata_url, &self.scope, why);
        let mut offered = headers.get_all(AUTHORIZATION).iter();
        let (Some(value), None) = (offered.next(), offered.next()) else {
            if headers.contains_key(AUTHORIZATION) {
                return Err(refuse(
                    Problem::InvalidRequest,
                    "the Authorization header appears more than once; send one",
                ));
            }
            return Err(refuse(
                Problem::Missing,
                "this server needs an access token: send Authorization: Bearer <token> (get one from the authorization server its resource_metadata names)",
            ));
        };
        let token = match bearer_token(value.as_bytes()) {
            Ok(token) => token,
            Err(problem) => return Err(refuse(problem.kind(), &problem.to_string())),
        };
        let checked = match &self.settings.introspection {
            Some(credentials) => {
                introspect::introspect(token, &self.issuer, credentials, &self.settings.resource)
                    .await
            }
            None => {
                jwt::verify(
                    token,
                    &self.issuer,
                    &self.settings.resource,
                    self.settings.leeway,
                )
                .await
            }
        };
        let granted = match checked {
            Ok(granted) => granted,
            Err(Refusal::Invalid(why)) => return Err(refuse(Problem::InvalidToken, &why)),
            Err(Refusal::Unverifiable(e)) => {
                // The reason (which may quote the authorization server's own error
                // body, or where its metadata points) is for the operator, on
                // stderr; the caller learns only that the check could not be made.
                log::warn!("[mcp-raw] cannot check a token: {e:#}");
                return Err(reply::error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    crate::jsonrpc::code::INTERNAL_ERROR,
                    format!(
                        "Service Unavailable: the token cannot be checked now, the authorization server {} is out of reach or its answer unusable (the reason is in this server's log)",
                        self.issuer.url
                    ),
                ));
            }
        };
        // MCP basic/authorization "Scope Challenge Handling": a token without a
        // scope the request needs gets 403 with error="insufficient_scope" and the
        // scopes to ask for.
        let missing: Vec<&str> = self
            .settings
            .required_scopes
            .iter()
            .filter(|s| !granted.scopes.contains(s))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(refuse(
                Problem::InsufficientScope,
                &format!(
                    "the token lacks the scope {} (it has {:?})",
                    missing.join(" "),
                    granted.scopes.join(" ")
                ),
            ));
        }
        Ok(granted)
    }
}

/// Why an `Authorization` header gives no token.
#[derive(Debug, PartialEq, Eq)]
pub enum NoToken {
    /// Another scheme (`Basic …`): as good as no credentials for this server.
    Scheme(String),
    /// `Bearer` with nothing usable after it.
    Malformed,
}

impl NoToken {
    /// RFC 6750 §3.1: a request "attempted using an unsupported authentication
    /// method" lacks authentication information, so it gets the plain challenge, no
    /// error code; a malformed Bearer request is `invalid_request`.
    fn kind(&self) -> Problem {
        match self {
            NoToken::Scheme(_) => Problem::Missing,
            NoToken::Malformed => Problem::InvalidRequest,
        }
    }
}

impl std::fmt::Display for NoToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoToken::Scheme(scheme) => write!(
                f,
                "the Authorization scheme is {scheme:?}; this server takes Bearer tokens (RFC 6750 section 2.1)"
            ),
            NoToken::Malformed => f.write_str(
                "the Bearer token is empty or has characters a b64token may not (RFC 6750 section 2.1)",
            ),
        }
    }
}

/// The token of `Bearer <token>` (RFC 6750 §2.1: the scheme is case-insensitive,
/// the token is `b64token`: letters, digits, `-._~+/`, then `=` padding).
pub fn bearer_token(value: &[u8]) -> Result<&str, NoToken> {
    let text = std::str::from_utf8(value).map_err(|_| NoToken::Malformed)?;
    let (scheme, token) = text.split_once(' ').unwrap_or((text, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(NoToken::Scheme(scheme.to_owned()));
    }
    let token = token.trim_start_matches(' ');
    let body = token.trim_end_matches('=');
    if body.is_empty()
        || !body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
    {
        return Err(NoToken::Malformed);
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_are_read_by_rfc_6750() {
        assert_eq!(bearer_token(b"Bearer abc.DEF-_~+/=="), Ok("abc.DEF-_~+/=="));
        assert_eq!(bearer_token(b"bearer x"), Ok("x"));
        assert_eq!(
            bearer_token(b"Basic dXNlcjpwYXNz"),
            Err(NoToken::Scheme("Basic".into()))
        );
        assert_eq!(bearer_token(b"Bearer "), Err(NoToken::Malformed));
        assert_eq!(bearer_token(b"Bearer a b"), Err(NoToken::Malformed));
        assert_eq!(bearer_token(b"Bearer a\"b"), Err(NoToken::Malformed));
    }
}
