//! DPoP (RFC 9449): a token bound to a key the client holds, so a stolen token alone
//! is useless. The client makes an ephemeral P-256 key; every request that asks for
//! or uses the token carries a fresh proof, a JWT signed with that key:
//!
//! ```text
//! POST /token        DPoP: eyJ0eXAiOiJkcG9wK2p3dCIs…   {"htm":"POST","htu":"http://as/token","jti":…,"iat":…}
//!                    ← {"access_token":…,"token_type":"DPoP"}           (bound to the key's thumbprint)
//! POST /mcp          Authorization: DPoP <token>
//!                    DPoP: eyJ…   {"htm":"POST","htu":"http://rs/mcp","ath":base64url(sha256(token)),…}
//! ```
//!
//! A server that wants a nonce in the proof answers `use_dpop_nonce` with a
//! `DPoP-Nonce` header; the client signs a new proof with it and sends the request
//! again (§8 at the authorization server, §9 at the resource server).

use super::assertion::now_secs;
use super::pkce::random_token;
use anyhow::Context;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use sha2::{Digest, Sha256};

/// The `DPoP-Nonce` response header (RFC 9449 §8.1).
pub const NONCE_HEADER: &str = "dpop-nonce";

/// The `error` that asks for a nonce, in a token endpoint's JSON body (§8) or a
/// resource server's `WWW-Authenticate` (§9).
pub const USE_DPOP_NONCE: &str = "use_dpop_nonce";

/// The key a DPoP session signs with, and its public half as a JWK.
pub struct DpopKey {
    key: EncodingKey,
    /// The public key, sent in every proof's header (§4.2: `jwk`, no private part).
    jwk: Jwk,
    /// Its RFC 7638 SHA-256 thumbprint: what a bound token's `cnf.jkt` names (§6.1).
    pub thumbprint: String,
}

impl DpopKey {
    /// A fresh P-256 key, signing ES256 (the algorithm the MCP DPoP extension and
    /// every server's `dpop_signing_alg_values_supported` name, §5.1).
    pub fn generate() -> anyhow::Result<DpopKey> {
        let made = crate::keys::Es256Key::generate().context("the DPoP key")?;
        let key = made.encoding;
        let jwk: Jwk = serde_json::from_value(made.public_jwk).context("the DPoP public key")?;
        let thumbprint = jwk
            .thumbprint(ThumbprintHash::SHA256)
            .context("the DPoP key's thumbprint")?;
        Ok(DpopKey {
            key,
            jwk,
            thumbprint,
        })
    }

    /// A proof for one request (§4.2): `typ` `dpop+jwt`, the public key in the
    /// header; `htm` the method, `htu` the URL without query and fragment, a unique
    /// `jti`, `iat` now; with a token, `ath` its hash; with a nonce, `nonce`.
    pub fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> anyhow::Result<String> {
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".to_owned());
        header.jwk = Some(self.jwk.clone());
        let mut claims = json!({
            "jti": random_token()?,
            "htm": method,
            "htu": htu(url),
            "iat": now_secs(),
        });
        if let Some(token) = access_token {
            // §4.2 `ath`: "the base64url-encoded SHA-256 hash of the ASCII encoding
            // of the associated access token's value".
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        jsonwebtoken::encode(&header, &claims, &self.key).context("signing a DPoP proof")
    }
}

/// §4.2 `htu`: "The HTTP target URI … without query and fragment parts".
pub fn htu(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    &url[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation};

    #[test]
    fn a_proof_carries_its_key_and_the_hash_of_the_token() {
        let key = DpopKey::generate().unwrap();
        let proof = key
            .proof("POST", "http://rs:1/mcp?x=1#f", Some("tok"), Some("n1"))
            .unwrap();
        let header = jsonwebtoken::decode_header(&proof).unwrap();
        assert_eq!(header.typ.as_deref(), Some("dpop+jwt"));
        let jwk = header.jwk.unwrap();
        assert_eq!(
            jwk.thumbprint(ThumbprintHash::SHA256).unwrap(),
            key.thumbprint
        );
        assert!(!serde_json::to_string(&jwk).unwrap().contains("\"d\""));
        let mut v = Validation::new(Algorithm::ES256);
        v.required_spec_claims.clear();
        let claims = jsonwebtoken::decode::<serde_json::Value>(
            &proof,
            &DecodingKey::from_jwk(&jwk).unwrap(),
            &v,
        )
        .unwrap()
        .claims;
        assert_eq!(claims["htu"], "http://rs:1/mcp");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["nonce"], "n1");
        // base64url(sha256("tok")), computed apart with Python's hashlib.
        assert_eq!(claims["ath"], "GnZ0607njffhrEOak8P6jjyUV4TU3sn9jjARc4svHWI");
        let again = key.proof("POST", "http://rs:1/mcp", None, None).unwrap();
        assert_ne!(again, proof);
    }
}
