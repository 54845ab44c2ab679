//! A JWT access token checked the way RFC 9068 §4 ("Validating JWT Access Tokens")
//! lays out, against the authorization server's own keys: the header's `typ` is
//! `at+jwt`, its `alg` an asymmetric one the key is for (never `none`, never an HMAC
//! secret a client could guess at), the signature verifies, `iss` is the
//! authorization server, `aud` names this resource, `exp` is still ahead.

use super::Granted;
use super::issuer::Issuer;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;

/// Why a token was refused: the `error_description` of the `invalid_token` answer.
#[derive(Debug)]
pub enum Refusal {
    /// The token is bad (malformed, forged, expired, for someone else).
    Invalid(String),
    /// The token could not be checked: the authorization server or its keys are out
    /// of reach (a `503`, not the client's fault).
    Unverifiable(anyhow::Error),
}

/// The claims read from a verified token.
#[derive(Deserialize)]
struct Claims {
    /// RFC 9068 §2.2.3 / RFC 8693 §4.2: the granted scopes, space-separated.
    #[serde(default)]
    scope: Option<String>,
}

/// The algorithms accepted: the asymmetric ones. RFC 8725 §3.1: a recipient MUST
/// allow only the algorithms it expects; an HMAC `alg` with the issuer's public key
/// as the "secret" is the classic forgery.
const ACCEPTED: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Verifies `token` for `resource`, with `leeway` seconds of clock skew on `exp`.
pub async fn verify(
    token: &str,
    issuer: &Issuer,
    resource: &str,
    leeway: u64,
) -> Result<Granted, Refusal> {
    let header = jsonwebtoken::decode_header(token)
        .map_err(|e| Refusal::Invalid(format!("not a JWT access token ({e})")))?;
    // RFC 9068 §4: the resource server MUST verify that `typ` is `at+jwt` (or
    // `application/at+jwt`); an ID token or any other JWT is not an access token.
    let typ = header.typ.as_deref().unwrap_or("");
    if !typ.eq_ignore_ascii_case("at+jwt") && !typ.eq_ignore_ascii_case("application/at+jwt") {
        return Err(Refusal::Invalid(format!(
            "the JWT's typ is {typ:?}, not at+jwt (RFC 9068 §4: only access tokens are accepted)"
        )));
    }
    if !ACCEPTED.contains(&header.alg) {
        return Err(Refusal::Invalid(format!(
            "alg {:?} is not accepted (only asymmetric signatures, RFC 8725 §3.1)",
            header.alg
        )));
    }
    let jwk = issuer
        .key(header.kid.as_deref(), header.alg)
        .await
        .map_err(Refusal::Unverifiable)?
        .ok_or_else(|| {
            Refusal::Invalid(format!(
                "no key {:?} for {:?} signatures in the authorization server's key set (a key's alg, when given, must be the token's, and its use sig or absent: RFC 7517 §4.2, §4.4)",
                header.kid.as_deref().unwrap_or("(no kid)"),
                header.alg
            ))
        })?;
    let key = DecodingKey::from_jwk(&jwk).map_err(|e| {
        Refusal::Unverifiable(anyhow::anyhow!("the key set's key is unusable: {e}"))
    })?;
    let mut validation = Validation::new(header.alg);
    validation.set_issuer(&[&issuer.url]);
    validation.set_audience(&[resource]);
    validation.set_required_spec_claims(&["exp", "iss", "aud"]);
    validation.leeway = leeway;
    validation.validate_nbf = true;
    let data = jsonwebtoken::decode::<Value>(token, &key, &validation).map_err(|e| {
        Refusal::Invalid(match e.kind() {
            ErrorKind::ExpiredSignature => "the token has expired (exp is past)".into(),
            ErrorKind::ImmatureSignature => "the token is not valid yet (nbf is ahead)".into(),
            ErrorKind::InvalidAudience => format!(
                "the token is not for this resource: its aud does not name {resource} (RFC 8707, MCP basic/authorization \"Token Audience Binding\")"
            ),
            ErrorKind::InvalidIssuer => {
                format!("the token was not issued by {} (iss)", issuer.url)
            }
            ErrorKind::InvalidSignature => "the signature does not verify".into(),
            ErrorKind::MissingRequiredClaim(c) => format!("the token has no {c} claim"),
            other => format!("the token does not verify: {other:?}"),
        })
    })?;
    refuse_bound(&data.claims)?;
    let principal = super::Principal::of(&data.claims);
    let claims: Claims = serde_json::from_value(data.claims)
        .map_err(|e| Refusal::Invalid(format!("the token's claims are malformed: {e}")))?;
    Ok(Granted {
        scopes: split_scopes(claims.scope.as_deref()),
        principal,
    })
}

/// A token bound to a key (`cnf`, RFC 7800 §3.1; a DPoP-bound one carries
/// `cnf.jkt`, RFC 9449 §6) may be used only with a proof of possession of that key.
/// This server does not verify DPoP proofs yet, so it accepts no bound token: taking
/// one as a plain bearer token would let anyone who copied it use it, the very thing
/// binding prevents (RFC 9449 §7.1: a bound token presented as Bearer is refused).
pub fn refuse_bound(claims: &Value) -> Result<(), Refusal> {
    match claims.get("cnf") {
        Some(cnf) => Err(Refusal::Invalid(format!(
            "the token is bound to a key (cnf {cnf}); this server does not verify DPoP proofs, so it accepts no sender-constrained token (RFC 9449 §7.1)"
        ))),
        None => Ok(()),
    }
}

/// `"a b  c"` → `[a, b, c]` (RFC 6749 §3.3: space-delimited, case-sensitive).
pub fn split_scopes(scope: Option<&str>) -> Vec<String> {
    scope
        .unwrap_or("")
        .split(' ')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}
