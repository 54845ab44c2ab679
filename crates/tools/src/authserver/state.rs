//! What the authorization server remembers: its clients, the codes it handed out
//! and not yet exchanged, and the refresh tokens alive.

use std::collections::HashMap;
use std::time::Instant;

/// A registered client.
#[derive(Debug, Clone)]
pub struct Client {
    /// Its secret; none for a public client (`token_endpoint_auth_method: none`).
    pub secret: Option<String>,
    /// Where a code may be sent (RFC 6749 §3.1.2.2: registered, compared exactly).
    /// Empty for a pre-registered client, which may use any loopback redirect
    /// (RFC 8252 §7.3).
    pub redirect_uris: Vec<String>,
}

/// A code waiting for its exchange (one use, RFC 6749 §4.1.2).
#[derive(Debug, Clone)]
pub struct Code {
    /// The client the code was issued to; only it may exchange it.
    pub client_id: String,
    /// The redirect the code went to; the token request must name it again.
    pub redirect_uri: String,
    /// PKCE: `S256(code_verifier)` from the authorization request.
    pub challenge: String,
    /// The resource the token will be for (RFC 8707).
    pub resource: String,
    /// The scope granted, space-separated.
    pub scope: String,
    /// After this the code is refused.
    pub expires: Instant,
}

/// What a refresh token renews.
#[derive(Debug, Clone)]
pub struct Grant {
    /// The client the refresh token belongs to.
    pub client_id: String,
    /// The resource its access tokens are for.
    pub resource: String,
    /// The scope they carry.
    pub scope: String,
}

/// A refresh token issued: what it renews, its family, its life.
#[derive(Debug, Clone)]
pub struct Refresh {
    /// What it renews.
    pub grant: Grant,
    /// The grant it descends from (the code exchange that issued the first token):
    /// a token used twice revokes every token of its family.
    pub family: u64,
    /// After this it is refused (`--refresh-ttl`), and forgotten at the next sweep.
    pub expires: Instant,
    /// It was used once and replaced (rotation): kept until it expires only so a
    /// second use is recognised as a replay (OAuth 2.1 §4.3.1, RFC 9700 §4.14.2).
    pub spent: bool,
}

#[derive(Default)]
/// Everything the authorization server holds between requests.
pub struct State {
    /// By client id.
    pub clients: HashMap<String, Client>,
    /// Codes handed out and not yet exchanged, by code (at most `--max-codes`).
    pub codes: HashMap<String, Code>,
    /// Refresh tokens issued and not expired, spent ones included, by token (at most
    /// `--max-refresh-tokens`).
    pub refresh: HashMap<String, Refresh>,
    /// The number of the next refresh token family.
    pub next_family: u64,
}

impl State {
    /// A client known from the command line (`--client ID[:SECRET]`).
    pub fn preregister(&mut self, id: &str, secret: Option<String>) {
        self.clients.insert(
            id.to_owned(),
            Client {
                secret,
                redirect_uris: Vec::new(),
            },
        );
    }

    /// Drops the codes and refresh tokens past their time, so unexchanged codes and
    /// unused tokens do not pile up.
    pub fn sweep(&mut self) {
        let now = Instant::now();
        self.codes.retain(|_, c| c.expires > now);
        self.refresh.retain(|_, r| r.expires > now);
    }

    /// Revokes every refresh token of `family`; returns how many were alive.
    pub fn revoke_family(&mut self, family: u64) -> usize {
        let before = self.refresh.len();
        self.refresh.retain(|_, r| r.family != family);
        before - self.refresh.len()
    }
}
