//! Secrets made on the spot: random tokens (a PKCE verifier, a `state`, a code), the
//! PKCE S256 transform, and signing keys: an ES256 (ECDSA P-256, SHA-256) key pair from the
//! OS's randomness, as jsonwebtoken signs with it (PKCS#8) and as a JWK publishes
//! its public half (RFC 7518 §6.2.1: `kty` EC, `crv` P-256, `x`, `y` base64url).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::pkcs8::EncodePrivateKey;
use serde_json::Value;

/// 32 bytes from the OS CSPRNG, base64url (43 characters): a verifier, a `state`,
/// an authorization code, a refresh token.
pub fn random_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// PKCE's S256 (RFC 7636 §4.2): `BASE64URL(SHA256(ASCII(code_verifier)))`.
pub fn s256(verifier: &str) -> String {
    use sha2::{Digest, Sha256};
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// A fresh P-256 key pair.
pub struct Es256Key {
    /// The private half, for `jsonwebtoken::encode`.
    pub encoding: jsonwebtoken::EncodingKey,
    /// The public half as a JWK (RFC 7518 §6.2.1); the caller adds a `kid`.
    pub public_jwk: Value,
}

impl Es256Key {
    /// A new key from the OS's randomness.
    pub fn generate() -> anyhow::Result<Es256Key> {
        // 32 random bytes are a valid P-256 scalar unless they are 0 or at least the
        // group order (odds about 2^-32): try again then.
        let secret = loop {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
            if let Ok(key) = p256::SecretKey::from_slice(&bytes) {
                break key;
            }
        };
        let der = secret
            .to_pkcs8_der()
            .map_err(|e| anyhow::anyhow!("cannot encode the key: {e}"))?;
        let encoding = jsonwebtoken::EncodingKey::from_ec_der(der.as_bytes());
        let jwk =
            jsonwebtoken::jwk::Jwk::from_encoding_key(&encoding, jsonwebtoken::Algorithm::ES256)
                .map_err(|e| anyhow::anyhow!("no public JWK for the key: {e}"))?;
        Ok(Es256Key {
            encoding,
            public_jwk: serde_json::to_value(jwk)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_it_signs_its_jwk_verifies() {
        let key = Es256Key::generate().unwrap();
        let header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        let token = jsonwebtoken::encode(
            &header,
            &json!({"sub": "x", "exp": 4_000_000_000u64}),
            &key.encoding,
        )
        .unwrap();
        let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(key.public_jwk).unwrap();
        let decoding = jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap();
        let mut v = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        v.validate_aud = false;
        let data = jsonwebtoken::decode::<Value>(&token, &decoding, &v).unwrap();
        assert_eq!(data.claims["sub"], "x");
    }
}
