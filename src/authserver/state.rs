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

#[derive(Default)]
/// Everything the authorization server holds between requests.
pub struct State {
    /// By client id.
    pub clients: HashMap<String, Client>,
    /// Codes handed out and not yet exchanged, by code.
    pub codes: HashMap<String, Code>,
    /// Refresh tokens alive, by token.
    pub refresh: HashMap<String, Grant>,
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

    /// Drops the codes past their time, so unexchanged ones do not pile up.
    pub fn sweep(&mut self) {
        let now = Instant::now();
        self.codes.retain(|_, c| c.expires > now);
    }
}
