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
    pub client_id: String,
    /// The redirect the code went to; the token request must name it again.
    pub redirect_uri: String,
    /// PKCE: `S256(code_verifier)` from the authorization request.
    pub challenge: String,
    /// The resource the token will be for (RFC 8707).
    pub resource: String,
    pub scope: String,
    /// After this the code is refused.
    pub expires: Instant,
}

/// What a refresh token renews.
#[derive(Debug, Clone)]
pub struct Grant {
    pub client_id: String,
    pub resource: String,
    pub scope: String,
}

#[derive(Default)]
pub struct State {
    pub clients: HashMap<String, Client>,
    pub codes: HashMap<String, Code>,
    pub refresh: HashMap<String, Grant>,
}

impl State {
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
