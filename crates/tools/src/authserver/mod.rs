//! `mcp-raw auth-server`: a small OAuth 2.1 authorization server on loopback, for
//! the `demo-http --auth` walk-through and for tests. It approves every request
//! without a person (its `/authorize` redirects at once), so it is a teaching and
//! testing piece, not a server to protect anything real with. What it does do, it
//! does by the RFCs, so each exchange on the wire is the real one:
//!
//! ```text
//! GET  /.well-known/oauth-authorization-server   RFC 8414 metadata        (metadata.rs)
//! GET  /jwks                                     its ES256 key, RFC 7517
//! POST /register                                 RFC 7591 registration    (register.rs)
//! GET  /authorize?…code_challenge…               302 → redirect_uri?code  (authorize.rs)
//! POST /token                                    code + PKCE, refresh_token,
//!                                                client_credentials       (token.rs)
//! ```
//!
//! Access tokens are JWTs (RFC 9068, `typ: at+jwt`) with `aud` = the `resource`
//! the client asked for (RFC 8707), which `serve --auth-server` checks.

pub mod authorize;
pub mod metadata;
pub mod register;
pub mod state;
pub mod token;

use crate::keys::Es256Key;
use crate::lock::Locked;
use crate::transport::http::Limits;
use crate::transport::http::listen::{self, Listening, Site};
use crate::wire::recorder::Recorder;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use state::State;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the authorization server allows (the `auth-server` flags).
#[derive(Debug, Clone)]
pub struct Config {
    /// The scopes it issues (`--scope`, repeatable); a request for another gets
    /// `invalid_scope`.
    pub scopes: Vec<String>,
    /// Pre-registered clients, `ID` or `ID:SECRET` (`--client`).
    pub clients: Vec<String>,
    /// How long an access token lasts (`--token-ttl`).
    pub token_ttl: Duration,
    /// How long an authorization code may wait for its exchange (`--code-ttl`).
    pub code_ttl: Duration,
    /// Most clients registered at once, dynamically or not (`--max-clients`).
    pub max_clients: usize,
    /// Largest request body read (`--max-body-bytes`).
    pub max_body: usize,
    /// Its listener's connection clocks (`--header-timeout`, `--idle-timeout`,
    /// `--write-timeout`) and bounds, as `serve --http` keeps them.
    pub listener: Limits,
    /// Most authorization codes waiting for their exchange (`--max-codes`): each
    /// `/authorize` stores one, so without a bound a loop of them grows the map
    /// until memory runs out.
    pub max_codes: usize,
    /// Most refresh tokens kept, spent ones included (`--max-refresh-tokens`).
    pub max_refresh: usize,
    /// How long a refresh token lasts (`--refresh-ttl`).
    pub refresh_ttl: Duration,
}

/// The defaults of `--max-codes`, `--max-refresh-tokens` and `--refresh-ttl`.
pub const MAX_CODES: usize = 1000;
/// See [`MAX_CODES`].
pub const MAX_REFRESH: usize = 10_000;
/// See [`MAX_CODES`]: one day.
pub const REFRESH_TTL: Duration = Duration::from_secs(24 * 3600);

impl Default for Config {
    fn default() -> Self {
        Config {
            scopes: vec!["mcp:tools".into()],
            clients: Vec::new(),
            token_ttl: Duration::from_secs(3600),
            code_ttl: Duration::from_secs(60),
            max_clients: 1000,
            max_body: 64 * 1024,
            listener: Limits::default(),
            max_codes: MAX_CODES,
            max_refresh: MAX_REFRESH,
            refresh_ttl: REFRESH_TTL,
        }
    }
}

/// One running authorization server.
pub struct AuthServer {
    /// Its issuer identifier: `http://ADDR`, also the prefix of every endpoint.
    pub issuer: String,
    /// What it issues and its limits.
    pub config: Config,
    /// The key access tokens are signed with; its public half is at `/jwks`.
    key: Es256Key,
    /// The `kid` of that key.
    kid: String,
    /// Clients, codes and refresh tokens.
    state: Mutex<State>,
}

/// An answer: status and JSON body (`Cache-Control: no-store` on all, RFC 6749
/// §5.1 requires it of token responses), or a redirect.
pub enum Answer {
    /// A status and a JSON body.
    Json(StatusCode, Value),
    /// `302 Found` to this `Location`.
    Redirect(String),
}

impl AuthServer {
    /// A server for `issuer` (`http://ADDR`), with a fresh signing key and the
    /// pre-registered clients of `config`.
    pub fn new(issuer: String, config: Config) -> anyhow::Result<AuthServer> {
        let mut state = State::default();
        for client in &config.clients {
            let (id, secret) = match client.split_once(':') {
                Some((id, secret)) => (id, Some(secret.to_owned())),
                None => (client.as_str(), None),
            };
            state.preregister(id, secret);
        }
        Ok(AuthServer {
            issuer,
            config,
            key: Es256Key::generate()?,
            kid: format!("mcp-raw-{}", &crate::keys::random_token()?[..8]),
            state: Mutex::new(state),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.locked()
    }

    /// The key set at `/jwks`.
    fn jwks(&self) -> Value {
        let mut jwk = self.key.public_jwk.clone();
        jwk["kid"] = json!(self.kid);
        jwk["alg"] = json!("ES256");
        jwk["use"] = json!("sig");
        json!({ "keys": [jwk] })
    }

    /// One request: its path and method pick the endpoint.
    async fn answer(&self, req: Request<hyper::body::Incoming>) -> Answer {
        // DNS rebinding: the same guard as `serve --http` (MCP 2025-11-25
        // `basic/transports` "Security Warning"); this server binds loopback only,
        // so only the loopback names are its own.
        if let Some(why) = crate::transport::http::guard::foreign_host(
            req.headers(),
            &crate::transport::http::guard::AllowedHosts::default(),
        ) {
            return oauth_error(StatusCode::FORBIDDEN, "invalid_request", &why);
        }
        let method = req.method().clone();
        let path = req.uri().path().to_owned();
        let query = req.uri().query().unwrap_or("").to_owned();
        let headers = req.headers().clone();
        let body = match Limited::new(req.into_body(), self.config.max_body)
            .collect()
            .await
        {
            Ok(b) => b.to_bytes(),
            Err(e) => {
                return oauth_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "invalid_request",
                    &format!(
                        "the body could not be read within {} bytes (auth-server --max-body-bytes): {e}",
                        self.config.max_body
                    ),
                );
            }
        };
        match (method, path.as_str()) {
            (
                Method::GET,
                "/.well-known/oauth-authorization-server" | "/.well-known/openid-configuration",
            ) => Answer::Json(StatusCode::OK, metadata::document(self)),
            (Method::GET, "/jwks") => Answer::Json(StatusCode::OK, self.jwks()),
            (Method::POST, "/register") => register::register(self, &headers, &body),
            (Method::GET, "/authorize") => authorize::authorize(self, &query),
            (Method::POST, "/token") => token::token(self, &headers, &body),
            (m, p) => oauth_error(
                StatusCode::NOT_FOUND,
                "invalid_request",
                &format!(
                    "no endpoint {m} {p} (see {}/.well-known/oauth-authorization-server)",
                    self.issuer
                ),
            ),
        }
    }
}

/// An OAuth error response (RFC 6749 §5.2): `{error, error_description}`.
pub fn oauth_error(status: StatusCode, error: &str, description: &str) -> Answer {
    Answer::Json(
        status,
        json!({ "error": error, "error_description": description }),
    )
}

fn response(answer: Answer) -> Response<Full<Bytes>> {
    let mut r = match answer {
        Answer::Json(status, body) => {
            let mut r = Response::new(Full::new(Bytes::from(body.to_string())));
            *r.status_mut() = status;
            r.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            r
        }
        Answer::Redirect(location) => {
            let mut r = Response::new(Full::new(Bytes::new()));
            *r.status_mut() = StatusCode::FOUND;
            if let Ok(v) = HeaderValue::from_str(&location) {
                r.headers_mut().insert(hyper::header::LOCATION, v);
            }
            r
        }
    };
    r.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Serves `server` on `listener` until the task is dropped; each connection on its
/// own lane of `recorder`. The connections are taken and clocked as every mcp-raw
/// listener's are (`transport::http::listen`): its `--header-timeout` on a head and
/// on a TLS handshake, `--idle-timeout` and `--write-timeout` on the connection.
pub async fn serve(
    listener: tokio::net::TcpListener,
    server: Arc<AuthServer>,
    recorder: Option<Recorder>,
    tls: Option<Arc<crate::transport::tls::Acceptor>>,
) -> std::io::Result<()> {
    let limits = server.config.listener.clone();
    let how = Arc::new(Listening {
        limits,
        tls,
        recorder,
        who: "auth-server: ",
        max_connections_flag: "auth-server's connection limit",
    });
    listen::accept_loop(listener, server, how, std::future::pending()).await
}

/// The authorization server as a listener's site.
impl Site for AuthServer {
    type Body = Full<Bytes>;

    async fn answer(self: Arc<Self>, req: Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
        response(AuthServer::answer(&self, req).await)
    }
}
