//! What the authorization flags say: which grant, the client's identity (id, secret,
//! key, metadata document URL), the assertion or identity provider of the grants
//! without a browser, when to bind tokens with DPoP (RFC 9449), and the limits.

use super::assertion::{self, ClientKey};
use super::extension::{Enterprise, Given};
use super::token::Registration;
use std::time::Duration;

/// Which grant gets the token (`--grant`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Grant {
    /// A person approves in a browser: authorization code + PKCE (OAuth 2.1 §4.1).
    #[default]
    AuthorizationCode,
    /// The client acts for itself with its own credentials (RFC 6749 §4.4).
    ClientCredentials,
    /// A JWT from elsewhere (a workload identity) is the grant (RFC 7523 §2.1).
    JwtBearer,
    /// Enterprise-managed: the user's ID token exchanged at the IdP for an ID-JAG,
    /// then the ID-JAG as a jwt-bearer grant (RFC 8693, SEP-990).
    IdJag,
}

/// When to ask for DPoP-bound tokens (`--dpop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DpopUse {
    /// When the resource asks for them: a `DPoP` challenge, or
    /// `dpop_bound_access_tokens_required` in its metadata (RFC 9728 §2).
    #[default]
    Auto,
    /// On every token request and every request to the server.
    Always,
    /// Never, even when the resource asks.
    Never,
}

/// How the client may authorize (`--grant`, `--client-id`, `--client-secret`,
/// `--client-key`, `--client-metadata-url`, `--assertion`, `--id-token` and the IdP
/// flags, `--dpop`, `--scope`, `--auth-timeout`, `--assertion-lifetime`).
#[derive(Debug, Clone)]
pub struct AuthConfig {
    /// Which grant gets the token.
    pub grant: Grant,
    /// A pre-registered client id (used before any registration).
    pub client_id: Option<String>,
    /// Its secret, for a confidential client.
    pub client_secret: Option<String>,
    /// Its private key, for `private_key_jwt` instead of a secret (RFC 7523 §2.2).
    pub client_key: Option<ClientKey>,
    /// A client ID metadata document URL, used as the client id where the server
    /// supports them (`client_id_metadata_document_supported`).
    pub client_metadata_url: Option<String>,
    /// The JWT of the jwt-bearer grant (a workload identity token).
    pub assertion: Option<Given>,
    /// The identity provider of the id-jag grant.
    pub enterprise: Option<Enterprise>,
    /// When to bind tokens to a DPoP key.
    pub dpop: DpopUse,
    /// The scope to ask for, instead of the one the server suggests.
    pub scope: Option<String>,
    /// How long a person may take to approve in a browser.
    pub wait: Duration,
    /// How long a client assertion the client signs is valid.
    pub assertion_lifetime: Duration,
    /// The most authorization rounds one request may cause (a server that keeps
    /// answering 403 must not loop the client forever).
    pub max_rounds: usize,
}

impl Default for AuthConfig {
    fn default() -> Self {
        AuthConfig {
            grant: Grant::default(),
            client_id: None,
            client_secret: None,
            client_key: None,
            client_metadata_url: None,
            assertion: None,
            enterprise: None,
            dpop: DpopUse::default(),
            scope: None,
            wait: Duration::from_secs(300),
            assertion_lifetime: assertion::DEFAULT_LIFETIME,
            max_rounds: 3,
        }
    }
}

impl AuthConfig {
    /// How this client is known when only the flags say (`--client-id`,
    /// `--client-secret`): no registration made, the auth method left to the
    /// server's metadata.
    pub(super) fn flags_registration(&self) -> Registration {
        Registration {
            client_id: self.client_id.clone().unwrap_or_default(),
            client_secret: self.client_secret.clone(),
            auth_method: None,
        }
    }
}
