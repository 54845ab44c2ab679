//! Signed JWTs the client makes itself (RFC 7523): the `client_assertion` that
//! authenticates it at a token endpoint instead of a secret (`private_key_jwt`, RFC
//! 7523 §2.2 and §3), from a private key the authorization server knows the public
//! half of:
//!
//! ```text
//! POST /token
//! grant_type=client_credentials&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer
//!   &client_assertion=eyJhbGciOiJFUzI1NiIs…   {"iss":client_id,"sub":client_id,"aud":issuer,"exp":…,"jti":…}
//! ```

use super::pkce::random_token;
use anyhow::{Context, bail};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// `client_assertion_type` for a JWT (RFC 7523 §2.2).
pub const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// Default of `--assertion-lifetime`: how long a client assertion is valid. RFC 7523
/// §3 item 4 lets the server reject one that expires "unreasonably far in the future".
pub const DEFAULT_LIFETIME: Duration = Duration::from_secs(60);

/// A private key for `private_key_jwt` (`--client-key FILE`), with its algorithm.
#[derive(Clone)]
pub struct ClientKey {
    /// The PKCS#8 (or PKCS#1 RSA) key jsonwebtoken signs with.
    key: EncodingKey,
    /// `ES256`, `RS256`, `EdDSA`…: the JWS `alg`, which must fit the key.
    pub alg: Algorithm,
}

impl std::fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClientKey({:?}, private key not shown)", self.alg)
    }
}

impl ClientKey {
    /// Reads a PEM private key for `alg` (`ES256` when none is named).
    pub fn from_pem(pem: &[u8], alg: Option<&str>) -> anyhow::Result<ClientKey> {
        let alg: Algorithm = alg
            .unwrap_or("ES256")
            .parse()
            .map_err(|e| anyhow::anyhow!("{:?} is not a JWS algorithm: {e}", alg))?;
        use Algorithm::*;
        let key = match alg {
            ES256 | ES384 => EncodingKey::from_ec_pem(pem),
            RS256 | RS384 | RS512 | PS256 | PS384 | PS512 => EncodingKey::from_rsa_pem(pem),
            EdDSA => EncodingKey::from_ed_pem(pem),
            other => bail!(
                "{other:?} is a shared-secret algorithm: private_key_jwt needs an asymmetric key (RFC 7523 §2.2)"
            ),
        }
        .with_context(|| format!("the client key is not a PEM private key for {alg:?}"))?;
        let key = ClientKey { key, alg };
        // The PEM read is only its framing: a key of the wrong kind for `alg` (or EC
        // not in PKCS#8) fails when it signs, so it signs once now, not at the 401.
        key.sign(None, &json!({}))
            .with_context(|| format!("the client key cannot sign {alg:?}"))?;
        Ok(key)
    }

    /// Signs `claims` with this key, `typ` in the header when given.
    pub fn sign(&self, typ: Option<&str>, claims: &serde_json::Value) -> anyhow::Result<String> {
        let mut header = Header::new(self.alg);
        header.typ = typ.map(str::to_owned);
        jsonwebtoken::encode(&header, claims, &self.key).context("signing a JWT")
    }
}

/// The `client_assertion` for `client_id` at the authorization server `audience`
/// (RFC 7523 §3): `iss` and `sub` are the client id (item 1, 2: "the client_id of
/// the OAuth client"), `aud` the authorization server's issuer identifier (item 3),
/// `exp` soon (item 4), `jti` unique so it cannot be replayed (item 7).
pub fn client_assertion(
    key: &ClientKey,
    client_id: &str,
    audience: &str,
    lifetime: Duration,
) -> anyhow::Result<String> {
    let now = now_secs();
    key.sign(
        None,
        &json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + lifetime.as_secs().max(1),
            "jti": random_token()?,
        }),
    )
}

/// Seconds since the Unix epoch, for `iat` and `exp`.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation};

    /// A P-256 key made for the tests (openssl ecparam -name prime256v1 -genkey |
    /// openssl pkcs8 -topk8 -nocrypt), and its public half.
    const PRIVATE: &str = include_str!("../../../../../tests/keys/client-es256.pem");
    const PUBLIC: &str = include_str!("../../../../../tests/keys/client-es256.pub.pem");

    #[test]
    fn a_client_assertion_names_the_client_twice_and_the_server_once() {
        let key = ClientKey::from_pem(PRIVATE.as_bytes(), None).unwrap();
        let jwt = client_assertion(&key, "cli", "http://as:1", DEFAULT_LIFETIME).unwrap();
        let mut v = Validation::new(Algorithm::ES256);
        v.set_audience(&["http://as:1"]);
        let claims = jsonwebtoken::decode::<serde_json::Value>(
            &jwt,
            &DecodingKey::from_ec_pem(PUBLIC.as_bytes()).unwrap(),
            &v,
        )
        .unwrap()
        .claims;
        assert_eq!(
            (claims["iss"].as_str(), claims["sub"].as_str()),
            (Some("cli"), Some("cli"))
        );
        assert_eq!(
            claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(),
            60
        );
        assert_eq!(claims["aud"], "http://as:1");
        assert_eq!(claims["jti"].as_str().map(str::len), Some(43));
        assert!(ClientKey::from_pem(b"not a key", None).is_err());
        assert!(ClientKey::from_pem(PRIVATE.as_bytes(), Some("HS256")).is_err());
        assert!(ClientKey::from_pem(PRIVATE.as_bytes(), Some("ES384")).is_err());
    }
}
