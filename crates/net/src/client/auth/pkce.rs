//! PKCE (RFC 7636), which MCP requires with `S256` (2025-11-25 `basic/authorization`
//! "Authorization Code Protection"): a random verifier stays with the client, its
//! SHA-256 goes in the authorization request, the verifier itself in the token
//! request, so a stolen code is useless alone.

/// A verifier (43 characters: 32 random bytes, base64url) and its challenge.
pub struct Pkce {
    /// The secret, sent only with the code in the token request.
    pub verifier: String,
    /// Its S256, sent in the authorization request.
    pub challenge: String,
}

impl Pkce {
    /// A fresh verifier and its challenge.
    pub fn new() -> anyhow::Result<Pkce> {
        let verifier = random_token()?;
        let challenge = crate::keys::s256(&verifier);
        Ok(Pkce {
            verifier,
            challenge,
        })
    }
}

pub use crate::keys::random_token;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_is_the_verifiers_sha256() {
        // The expected value computed apart, with Python's hashlib and base64:
        // urlsafe_b64encode(sha256(verifier)) without its padding.
        let verifier = "dBjftJeZ4CVP-mJ92K1qUYhsNCxYB1Fmc3pKH5cTaW0";
        let challenge = crate::keys::s256(verifier);
        assert_eq!(challenge, "rUGNDUpLao1EZ4h6AxfRp1SqExAHiYhLF_AbnrJ-5V0");
        let p = Pkce::new().unwrap();
        assert_eq!(p.verifier.len(), 43);
        assert_ne!(p.verifier, Pkce::new().unwrap().verifier);
    }
}
