//! Authorization on the wire: what the client does when an MCP server over HTTP says
//! `401 Unauthorized` (or `403` with `insufficient_scope`), per MCP 2025-11-25
//! `basic/authorization` (the same in 2026-07-28). Each hop is an HTTP exchange the
//! view shows:
//!
//! ```text
//! POST /mcp                                   ← 401, WWW-Authenticate: Bearer resource_metadata=…
//! GET  /.well-known/oauth-protected-resource… ← {resource, authorization_servers, scopes_supported}
//! GET  /.well-known/oauth-authorization-server← {issuer, authorization_endpoint, token_endpoint, …}
//! POST /register                              ← {client_id, client_secret}        (RFC 7591)
//! GET  /authorize?…code_challenge…            ← 302 Location: <redirect>?code=…   (PKCE S256)
//! POST /token  code + code_verifier           ← {access_token, token_type}
//! POST /mcp    Authorization: Bearer …        ← 200
//! ```
//!
//! [`challenge`] reads `WWW-Authenticate`, [`discovery`] finds and checks the metadata,
//! [`grant`] registers and runs the code grant, [`pkce`] and [`form`] are the small
//! pieces. [`Authorizer`] ties them together and remembers each authorization
//! server's registration (a new server means a new registration, SEP-2352).

pub mod challenge;
pub mod discovery;
pub use crate::wire::form;
pub mod grant;
pub mod pkce;

use crate::client::http_link::HttpLink;
use anyhow::{Context, bail};
use challenge::Challenge;
use grant::Registration;
use hyper::{HeaderMap, StatusCode};
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;

/// How the client may authorize (`--client-id`, `--client-secret`,
/// `--client-metadata-url`, `--scope`, `--auth-timeout`).
#[derive(Debug, Clone)]
pub struct AuthConfig {
    /// A pre-registered client id (used before any registration).
    pub client_id: Option<String>,
    /// Its secret, for a confidential client.
    pub client_secret: Option<String>,
    /// A client ID metadata document URL, used as the client id where the server
    /// supports them (`client_id_metadata_document_supported`).
    pub client_metadata_url: Option<String>,
    /// The scope to ask for, instead of the one the server suggests.
    pub scope: Option<String>,
    /// How long a person may take to approve in a browser.
    pub wait: Duration,
    /// The most authorization rounds one request may cause (a server that keeps
    /// answering 403 must not loop the client forever).
    pub max_rounds: usize,
}

impl Default for AuthConfig {
    fn default() -> Self {
        AuthConfig {
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            scope: None,
            wait: Duration::from_secs(300),
            max_rounds: 3,
        }
    }
}

/// The client's authorization state: its configuration, a loopback listener for the
/// redirect, and what each authorization server knows it as.
pub struct Authorizer {
    config: AuthConfig,
    /// Where the browser's redirect lands: `http://127.0.0.1:PORT/callback`.
    listener: Option<tokio::net::TcpListener>,
    /// Per issuer: how this client is registered there.
    registrations: HashMap<String, Registration>,
}

impl Authorizer {
    pub fn new(config: AuthConfig) -> Authorizer {
        Authorizer {
            config,
            listener: None,
            registrations: HashMap::new(),
        }
    }

    pub fn max_rounds(&self) -> usize {
        self.config.max_rounds
    }

    /// Whether a response is a refusal that authorization can lift: `401`, or `403`
    /// with `error="insufficient_scope"` (2025-11-25 "Scope Challenge Handling").
    pub fn is_challenge(status: StatusCode, headers: &HeaderMap) -> bool {
        match status {
            StatusCode::UNAUTHORIZED => true,
            StatusCode::FORBIDDEN => challenge_of(headers)
                .is_some_and(|c| c.param("error") == Some("insufficient_scope")),
            _ => false,
        }
    }

    /// Runs the whole flow for a refused request to `link`'s server and returns the
    /// access token to retry with.
    pub async fn authorize(
        &mut self,
        link: &HttpLink,
        headers: &HeaderMap,
    ) -> anyhow::Result<String> {
        let server = link.url();
        let challenge = challenge_of(headers).unwrap_or_default();
        let prm = discovery::resource_metadata(link, &server, challenge.param("resource_metadata"))
            .await?;
        let issuer = prm["authorization_servers"][0]
            .as_str()
            .context("the protected resource metadata lists no authorization_servers")?
            .to_owned();
        let metadata = discovery::server_metadata(link, &issuer).await?;
        // "MCP clients MUST refuse to proceed" without PKCE S256 (2025-11-25
        // "Authorization Code Protection").
        let s256 = metadata["code_challenge_methods_supported"]
            .as_array()
            .is_some_and(|m| m.iter().any(|v| v == "S256"));
        if !s256 {
            bail!(
                "the authorization server {issuer} does not list PKCE S256 (code_challenge_methods_supported): refusing to proceed"
            );
        }
        // Scope selection strategy: the challenge's scope, else all that the resource
        // supports, else none.
        let scope = self
            .config
            .scope
            .clone()
            .or_else(|| challenge.param("scope").map(str::to_owned))
            .or_else(|| {
                prm["scopes_supported"].as_array().map(|s| {
                    s.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" ")
                })
            })
            .filter(|s| !s.is_empty());
        let redirect_uri = self.redirect_uri().await?;
        let registration = self
            .registration(link, &issuer, &metadata, &redirect_uri)
            .await?;
        let resource = prm["resource"].as_str().unwrap_or(&server).to_owned();
        let request = grant::Request {
            metadata: &metadata,
            issuer: &issuer,
            registration: &registration,
            redirect_uri: &redirect_uri,
            resource: &resource,
            scope: scope.as_deref(),
            wait: self.config.wait,
        };
        let pkce = pkce::Pkce::new()?;
        let listener = self.listener.as_ref().context("the redirect listener")?;
        let code = grant::authorize(link, listener, &request, &pkce).await?;
        let token = grant::token(link, &request, &code, &pkce).await?;
        token["access_token"]
            .as_str()
            .map(str::to_owned)
            .context("the token response has no access_token")
    }

    /// The loopback redirect URI, its listener bound on first use (2025-11-25
    /// "Communication Security": a native client's redirect is a loopback URL).
    async fn redirect_uri(&mut self) -> anyhow::Result<String> {
        if self.listener.is_none() {
            self.listener = Some(
                tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .context("binding the loopback redirect listener")?,
            );
        }
        let port = self
            .listener
            .as_ref()
            .map_or(Ok(0), |l| l.local_addr().map(|a| a.port()))?;
        Ok(format!("http://127.0.0.1:{port}/callback"))
    }

    /// How this client is known to `issuer`, in the spec's order of preference
    /// (2025-11-25 "Client Registration Approaches"): pre-registered, a client ID
    /// metadata document, dynamic registration.
    async fn registration(
        &mut self,
        link: &HttpLink,
        issuer: &str,
        metadata: &Value,
        redirect_uri: &str,
    ) -> anyhow::Result<Registration> {
        if let Some(known) = self.registrations.get(issuer) {
            return Ok(known.clone());
        }
        let registration = if let Some(id) = &self.config.client_id {
            Registration {
                client_id: id.clone(),
                client_secret: self.config.client_secret.clone(),
                auth_method: None,
            }
        } else if let (Some(url), true) = (
            &self.config.client_metadata_url,
            metadata["client_id_metadata_document_supported"] == true,
        ) {
            Registration {
                client_id: url.clone(),
                client_secret: None,
                auth_method: Some("none".to_owned()),
            }
        } else if let Some(endpoint) = metadata["registration_endpoint"].as_str() {
            grant::register(link, endpoint, redirect_uri).await?
        } else {
            bail!(
                "the authorization server {issuer} offers no registration endpoint: give --client-id (and --client-secret)"
            )
        };
        self.registrations
            .insert(issuer.to_owned(), registration.clone());
        Ok(registration)
    }
}

fn challenge_of(headers: &HeaderMap) -> Option<Challenge> {
    Challenge::bearer(
        headers
            .get_all(hyper::header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok()),
    )
}
