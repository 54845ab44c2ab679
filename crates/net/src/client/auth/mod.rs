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
//! [`grant`] registers and runs the code grant, [`extension`] the grants without a
//! browser (client credentials, jwt-bearer, enterprise-managed), [`token`] is the
//! token endpoint they all POST to, [`assertion`] and [`dpop`] sign the client's JWTs,
//! [`credential`] is what each request to the MCP server presents, [`pkce`] and
//! [`form`] are the small pieces. [`Authorizer`] ties them together and remembers each authorization
//! server's registration (a new server means a new registration, SEP-2352);
//! [`AuthConfig`] (`config.rs`) is what the flags ask of it.

pub mod assertion;
pub mod challenge;
mod config;
pub mod credential;
pub mod discovery;
pub mod dpop;
pub mod extension;
pub use crate::wire::form;
pub mod grant;
pub mod pkce;
pub mod token;

pub use config::{AuthConfig, DpopUse, Grant};

use crate::client::http_link::HttpLink;
use anyhow::{Context, bail};
use challenge::Challenge;
use credential::{Credential, Proofs};
use dpop::DpopKey;
use hyper::{HeaderMap, StatusCode};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use token::Registration;
use token::Tokens;

/// What the client keeps after a grant, to refresh the token without asking again
/// (RFC 6749 §6).
struct Held {
    refresh_token: String,
    issuer: String,
    metadata: Value,
    resource: String,
    /// Whether the token was DPoP-bound: a refreshed one is asked for the same way.
    dpop: bool,
}

/// The client's authorization state: its configuration, a loopback listener for the
/// redirect, and what each authorization server knows it as.
pub struct Authorizer {
    config: AuthConfig,
    /// Where the browser's redirect lands: `http://127.0.0.1:PORT/callback`.
    listener: Option<tokio::net::TcpListener>,
    /// Per issuer: how this client is registered there.
    registrations: HashMap<String, Registration>,
    /// The refresh token of the last grant, if one was issued.
    held: Option<Held>,
    /// The DPoP key, made on first use and kept: every token is bound to it.
    dpop_key: Option<Arc<DpopKey>>,
    /// The resource server's last `DPoP-Nonce`, kept across new tokens (§9).
    rs_nonce: Arc<Mutex<Option<String>>>,
    /// The authorization server's, for the next token request (a refresh) (§8).
    as_nonce: Arc<Mutex<Option<String>>>,
    /// The scope the last authorization asked for, kept for a step-up (SEP-2350).
    requested_scope: Option<String>,
}

impl Authorizer {
    /// An authorizer with `config`, no registration yet.
    pub fn new(config: AuthConfig) -> Authorizer {
        Authorizer {
            config,
            listener: None,
            registrations: HashMap::new(),
            held: None,
            dpop_key: None,
            rs_nonce: Arc::new(Mutex::new(None)),
            as_nonce: Arc::new(Mutex::new(None)),
            requested_scope: None,
        }
    }

    /// The most authorization rounds one request may take (`--max-auth-rounds`).
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

    /// Whether a `401` only asks the request again with the nonce it carries (RFC
    /// 9449 §9: `WWW-Authenticate: DPoP error="use_dpop_nonce"` and `DPoP-Nonce`);
    /// `credential` has noted the nonce already.
    pub fn wants_nonce(status: StatusCode, headers: &HeaderMap, credential: &Credential) -> bool {
        status == StatusCode::UNAUTHORIZED
            && headers.contains_key(dpop::NONCE_HEADER)
            && credential.wants_nonce(
                challenge_of(headers)
                    .as_ref()
                    .and_then(|c| c.param("error")),
            )
    }

    /// Gets a token for a refused request to `link`'s server: a `401` for a token
    /// held is first answered with the refresh grant (RFC 6749 §6); otherwise, or if
    /// that is refused, the whole flow runs. `may_refresh` is false once a refreshed
    /// token was refused for the same request (the server may have moved to another
    /// authorization server, whose tokens the old refresh token cannot get).
    pub async fn authorize(
        &mut self,
        link: &HttpLink,
        status: StatusCode,
        headers: &HeaderMap,
        may_refresh: bool,
    ) -> anyhow::Result<Credential> {
        if status == StatusCode::UNAUTHORIZED
            && may_refresh
            && let Some(held) = self.held.take()
        {
            match self.refresh(link, &held).await {
                Ok(credential) => return Ok(credential),
                Err(e) => log::warn!(
                    "[mcp-raw client] the refresh grant did not work ({e:#}); authorizing anew"
                ),
            }
        }
        let server = link.url();
        let challenge = challenge_of(headers).unwrap_or_default();
        let prm = discovery::resource_metadata(link, &server, challenge.param("resource_metadata"))
            .await?;
        let issuer = prm["authorization_servers"][0]
            .as_str()
            .context("the protected resource metadata lists no authorization_servers")?
            .to_owned();
        let metadata = discovery::server_metadata(link, &issuer).await?;
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
        // SEP-2350: on a step-up, ask for what was asked before as well as what the
        // challenge names, so the new token does not lose the scope the old one had.
        let scope = match (&self.requested_scope, scope) {
            (Some(before), Some(now)) if status == StatusCode::FORBIDDEN => {
                Some(scope_union(before, &now))
            }
            (_, scope) => scope,
        };
        self.requested_scope = scope.clone();
        let resource = prm["resource"].as_str().unwrap_or(&server).to_owned();
        // RFC 9449 §7.1: a resource may offer both schemes, each its own challenge.
        let dpop_offered = headers
            .get_all(hyper::header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(challenge::parse)
            .any(|c| c.scheme.eq_ignore_ascii_case("dpop"));
        let dpop = self.dpop_for(dpop_offered, &prm, &metadata)?;
        let target = extension::Target {
            server: token::Server {
                issuer: &issuer,
                metadata: &metadata,
            },
            resource: &resource,
            scope: scope.as_deref(),
        };
        let tokens = match self.config.grant {
            Grant::AuthorizationCode => self.code_grant(link, &target, dpop.as_ref()).await?,
            Grant::ClientCredentials => {
                let registration = self.pre_registered(&issuer, "client_credentials")?;
                let client = self.client(&registration);
                extension::client_credentials(link, &target, &client, dpop.as_ref()).await?
            }
            Grant::JwtBearer => {
                let assertion = self
                    .config
                    .assertion
                    .as_ref()
                    .context("the jwt-bearer grant needs --assertion")?
                    .read()
                    .context("the jwt-bearer assertion (--assertion)")?;
                let registration = self.config.flags_registration();
                let client = self.client(&registration);
                extension::jwt_bearer(link, &target, &client, dpop.as_ref(), &assertion).await?
            }
            Grant::IdJag => {
                let idp = self
                    .config
                    .enterprise
                    .clone()
                    .context("the id-jag grant needs --idp-token-endpoint and --id-token")?;
                let registration = self.pre_registered(&issuer, "id-jag")?;
                let client = self.client(&registration);
                extension::id_jag(link, &idp, &target, &client, dpop.as_ref()).await?
            }
        };
        Ok(self.keep(tokens, &issuer, &metadata, &resource, dpop))
    }

    /// The code grant: registration, the browser (or the server's own redirect),
    /// the code exchanged for tokens.
    async fn code_grant(
        &mut self,
        link: &HttpLink,
        t: &extension::Target<'_>,
        dpop: Option<&Proofs>,
    ) -> anyhow::Result<Tokens> {
        let (issuer, metadata) = (t.server.issuer, t.server.metadata);
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
        let redirect_uri = self.redirect_uri().await?;
        let registration = self
            .registration(link, issuer, metadata, &redirect_uri)
            .await?;
        let request = grant::Request {
            metadata,
            issuer,
            registration: &registration,
            redirect_uri: &redirect_uri,
            resource: t.resource,
            scope: t.scope,
            wait: self.config.wait,
        };
        let pkce = pkce::Pkce::new()?;
        let listener = self.listener.as_ref().context("the redirect listener")?;
        let code = grant::authorize(link, listener, &request, &pkce).await?;
        let client = self.client(&registration);
        grant::token(link, &request, &client, dpop, &code, &pkce).await
    }

    /// RFC 6749 §6: `grant_type=refresh_token`, the same client authentication as
    /// the grant that issued it, and the resource again (RFC 8707 §2.2); a new
    /// refresh token replaces the old when the server sends one.
    async fn refresh(&mut self, link: &HttpLink, held: &Held) -> anyhow::Result<Credential> {
        let registration = self
            .registrations
            .get(&held.issuer)
            .cloned()
            .unwrap_or_else(|| self.config.flags_registration());
        let client = self.client(&registration);
        let server = token::Server {
            issuer: &held.issuer,
            metadata: &held.metadata,
        };
        let dpop = self
            .dpop_key
            .clone()
            .filter(|_| held.dpop)
            .map(|key| Proofs {
                key,
                nonce: self.as_nonce.clone(),
            });
        let params = [
            ("grant_type", "refresh_token"),
            ("refresh_token", held.refresh_token.as_str()),
            ("resource", held.resource.as_str()),
        ];
        let mut tokens = token::request(
            link,
            &server,
            &client,
            dpop.as_ref(),
            &params,
            "refresh token request",
        )
        .await?;
        if tokens.refresh_token.is_none() {
            tokens.refresh_token = Some(held.refresh_token.clone());
        }
        Ok(self.keep(tokens, &held.issuer, &held.metadata, &held.resource, dpop))
    }

    /// Keeps the refresh token, and makes the credential the requests present: a
    /// `DPoP` token with proofs, anything else as a bearer token (RFC 9449 §5: a
    /// server may answer a proof with a plain Bearer token).
    fn keep(
        &mut self,
        tokens: Tokens,
        issuer: &str,
        metadata: &Value,
        resource: &str,
        dpop: Option<Proofs>,
    ) -> Credential {
        let bound = tokens.token_type.eq_ignore_ascii_case("DPoP");
        self.held = tokens.refresh_token.map(|refresh_token| Held {
            refresh_token,
            issuer: issuer.to_owned(),
            metadata: metadata.clone(),
            resource: resource.to_owned(),
            dpop: bound,
        });
        Credential {
            access_token: tokens.access_token,
            dpop: dpop.filter(|_| bound).map(|p| Proofs {
                key: p.key,
                nonce: self.rs_nonce.clone(),
            }),
        }
    }

    /// The DPoP key when this token should be bound to one (`--dpop`; `offered`: the
    /// refusal challenged with the DPoP scheme), made once.
    fn dpop_for(
        &mut self,
        offered: bool,
        prm: &Value,
        metadata: &Value,
    ) -> anyhow::Result<Option<Proofs>> {
        let wanted = match self.config.dpop {
            DpopUse::Never => false,
            DpopUse::Always => true,
            DpopUse::Auto => offered || prm["dpop_bound_access_tokens_required"] == true,
        };
        if !wanted {
            return Ok(None);
        }
        // RFC 9449 §5.1: the algorithms the server takes; this client signs ES256.
        if let Some(algs) = metadata["dpop_signing_alg_values_supported"].as_array()
            && !algs.iter().any(|a| a == "ES256")
        {
            bail!(
                "the authorization server's dpop_signing_alg_values_supported {algs:?} lacks ES256, the only one this client signs"
            );
        }
        let key = match &self.dpop_key {
            Some(key) => key.clone(),
            None => self.dpop_key.insert(Arc::new(DpopKey::generate()?)).clone(),
        };
        // Proofs to the authorization server carry its nonce, not the resource's.
        Ok(Some(Proofs {
            key,
            nonce: self.as_nonce.clone(),
        }))
    }

    /// The client as the token endpoint sees it.
    fn client<'a>(&'a self, registration: &'a Registration) -> token::Client<'a> {
        token::Client {
            registration,
            key: self.config.client_key.as_ref(),
            lifetime: self.config.assertion_lifetime,
        }
    }

    /// A grant with no registration step needs the client's id from the command line.
    fn pre_registered(&mut self, issuer: &str, grant: &str) -> anyhow::Result<Registration> {
        let id = self
            .config
            .client_id
            .clone()
            .with_context(|| format!("the {grant} grant needs --client-id"))?;
        let registration = Registration {
            client_id: id,
            client_secret: self.config.client_secret.clone(),
            auth_method: None,
        };
        self.registrations
            .insert(issuer.to_owned(), registration.clone());
        Ok(registration)
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

/// The scopes of `a` then those of `b` not in `a`, space-separated (RFC 6749 §3.3:
/// a scope is a set of space-delimited strings).
fn scope_union(a: &str, b: &str) -> String {
    let mut all: Vec<&str> = a.split_whitespace().collect();
    for s in b.split_whitespace() {
        if !all.contains(&s) {
            all.push(s);
        }
    }
    all.join(" ")
}

/// The first `Bearer` or `DPoP` challenge (RFC 9449 §7.1: a resource server that
/// wants DPoP-bound tokens challenges with the `DPoP` scheme).
fn challenge_of(headers: &HeaderMap) -> Option<Challenge> {
    Challenge::oauth(
        headers
            .get_all(hyper::header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok()),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_step_up_keeps_the_scope_asked_before() {
        assert_eq!(super::scope_union("a b", "b c"), "a b c");
        assert_eq!(super::scope_union("a", "a"), "a");
    }
}
