//! The grants of MCP's authorization extensions, where no person approves in a
//! browser: each is one POST to a token endpoint (two for enterprise-managed
//! authorization), shown on the wire like the code grant's hops.
//!
//! ```text
//! client_credentials (RFC 6749 §4.4, io.modelcontextprotocol/oauth-client-credentials)
//!   POST /token  grant_type=client_credentials&resource=…      + Basic, or a client_assertion
//! jwt-bearer (RFC 7523 §2.1, io.modelcontextprotocol/auth/wif)
//!   POST /token  grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<workload JWT>&resource=…
//! id-jag (RFC 8693 + RFC 7523, io.modelcontextprotocol/enterprise-managed-authorization)
//!   POST <IdP>/token  grant_type=…:token-exchange&subject_token=<ID token>&requested_token_type=…:id-jag
//!                     &audience=<AS issuer>&resource=…   ← {"access_token":<ID-JAG>,"issued_token_type":…:id-jag}
//!   POST /token       grant_type=…:jwt-bearer&assertion=<ID-JAG>&resource=…
//! ```

use super::credential::Proofs;
use super::token::Registration;
use super::token::{self, Tokens};
use crate::client::http_link::HttpLink;
use anyhow::{Context, bail};
use std::path::PathBuf;

/// RFC 7523 §2.1: the grant type of a JWT used as an authorization grant.
pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// RFC 8693 §2.1: the grant type of a token exchange.
pub const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// RFC 8693 §3: an OpenID Connect ID token as the subject token.
pub const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The Identity Assertion JWT Authorization Grant (draft-ietf-oauth-identity-assertion-authz-grant §3).
pub const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// A token the client is handed rather than makes: a literal, or a file read each
/// time it is needed (a workload's token is rotated on disk, e.g. Kubernetes'
/// projected service account tokens).
#[derive(Debug, Clone)]
pub enum Given {
    /// Given on the command line.
    Value(String),
    /// Read from this file each time it is needed.
    File(PathBuf),
}

impl Given {
    /// The value, read now.
    pub fn read(&self) -> anyhow::Result<String> {
        match self {
            Given::Value(v) => Ok(v.trim().to_owned()),
            Given::File(path) => std::fs::read_to_string(path)
                .map(|s| s.trim().to_owned())
                .with_context(|| format!("reading {}", path.display())),
        }
    }
}

/// Enterprise-managed authorization: the identity provider that turns the user's ID
/// token into an ID-JAG for the MCP server's authorization server.
#[derive(Debug, Clone)]
pub struct Enterprise {
    /// The IdP's token endpoint (`--idp-token-endpoint`).
    pub token_endpoint: String,
    /// This client's id at the IdP (`--idp-client-id`), and its secret.
    pub client_id: Option<String>,
    /// The IdP client's secret, for Basic authentication there.
    pub client_secret: Option<String>,
    /// The user's ID token from signing in at the IdP (`--id-token FILE`).
    pub id_token: Given,
}

/// What every grant here asks for: the server, the resource, the scope.
pub struct Target<'a> {
    /// The authorization server and how the client is known there.
    pub server: token::Server<'a>,
    /// RFC 8707: the MCP server the token is for.
    pub resource: &'a str,
    /// The scope to ask for.
    pub scope: Option<&'a str>,
}

impl Target<'_> {
    /// `params` with `resource` and, when there is one, `scope` after them.
    fn with<'p>(&'p self, mut params: Vec<(&'p str, &'p str)>) -> Vec<(&'p str, &'p str)> {
        params.push(("resource", self.resource));
        if let Some(scope) = self.scope {
            params.push(("scope", scope));
        }
        params
    }

    /// A grant at the token endpoint of this target's server: `params`, then the
    /// resource and scope ([`Target::with`]).
    async fn request(
        &self,
        link: &HttpLink,
        client: &token::Client<'_>,
        dpop: Option<&Proofs>,
        params: Vec<(&str, &str)>,
        what: &str,
    ) -> anyhow::Result<Tokens> {
        let params = self.with(params);
        token::request(link, &self.server, client, dpop, &params, what).await
    }
}

/// RFC 6749 §4.4.2: the client's own credentials are the grant; "the client MUST
/// authenticate with the authorization server" (§4.4.2), so a bare client id is refused.
pub async fn client_credentials(
    link: &HttpLink,
    t: &Target<'_>,
    client: &token::Client<'_>,
    dpop: Option<&Proofs>,
) -> anyhow::Result<Tokens> {
    if client.registration.client_secret.is_none() && client.key.is_none() {
        bail!(
            "the client_credentials grant needs a confidential client: give --client-secret or --client-key with --client-id (RFC 6749 §4.4.2)"
        );
    }
    let params = vec![("grant_type", "client_credentials")];
    t.request(
        link,
        client,
        dpop,
        params,
        "client_credentials token request",
    )
    .await
}

/// RFC 7523 §2.1: a JWT someone else signed (a workload identity token) is the
/// grant, in `assertion`. One attempt: a refused assertion is an error to show,
/// not a reason to try another grant (SEP-1933).
pub async fn jwt_bearer(
    link: &HttpLink,
    t: &Target<'_>,
    client: &token::Client<'_>,
    dpop: Option<&Proofs>,
    assertion: &str,
) -> anyhow::Result<Tokens> {
    let params = vec![("grant_type", JWT_BEARER), ("assertion", assertion)];
    t.request(link, client, dpop, params, "jwt-bearer token request")
        .await
}

/// Enterprise-managed authorization (SEP-990): the ID token is exchanged at the IdP
/// for an ID-JAG naming this authorization server and resource (RFC 8693 §2.1), and
/// the ID-JAG is the jwt-bearer grant at the authorization server (RFC 7523 §2.1).
pub async fn id_jag(
    link: &HttpLink,
    idp: &Enterprise,
    t: &Target<'_>,
    client: &token::Client<'_>,
    dpop: Option<&Proofs>,
) -> anyhow::Result<Tokens> {
    let id_token = idp.id_token.read().context("the ID token (--id-token)")?;
    let registration = Registration {
        client_id: idp.client_id.clone().unwrap_or_default(),
        client_secret: idp.client_secret.clone(),
        auth_method: Some(
            if idp.client_secret.is_some() {
                "client_secret_basic"
            } else {
                "none"
            }
            .to_owned(),
        ),
    };
    let at_idp = token::Client {
        registration: &registration,
        key: None,
        lifetime: client.lifetime,
    };
    // The IdP is known by its token endpoint alone: the only metadata it has.
    let idp_metadata = serde_json::json!({ "token_endpoint": idp.token_endpoint });
    let idp_server = token::Server {
        issuer: &idp.token_endpoint,
        metadata: &idp_metadata,
    };
    // RFC 8693 §2.1: `audience` names where the issued token is to be used (the
    // authorization server, by its issuer), `resource` the MCP server behind it.
    let params = t.with(vec![
        ("grant_type", TOKEN_EXCHANGE),
        ("requested_token_type", ID_JAG),
        ("audience", t.server.issuer),
        ("subject_token", id_token.as_str()),
        ("subject_token_type", ID_TOKEN),
    ]);
    let exchanged = token::request(
        link,
        &idp_server,
        &at_idp,
        None,
        &params,
        "token exchange at the identity provider",
    )
    .await?;
    // RFC 8693 §2.2.1: `issued_token_type` is required; the value is in
    // `access_token` whatever its type (`token_type` is `N_A` for a non-access token).
    if exchanged.issued_token_type.as_deref() != Some(ID_JAG) {
        bail!(
            "the identity provider issued {:?}, not an ID-JAG ({ID_JAG}): refusing to present it",
            exchanged.issued_token_type
        );
    }
    jwt_bearer(link, t, client, dpop, &exchanged.access_token).await
}
