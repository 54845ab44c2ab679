//! An opaque (or any) access token checked by asking its authorization server:
//! RFC 7662 token introspection. The resource server posts the token with its own
//! client credentials (§2.1: the endpoint MUST require some authorization) and
//! reads `active`, `aud`, `scope`, `exp` back.

use super::Granted;
use super::issuer::Issuer;
use super::jwt::{Refusal, split_scopes};
use crate::wire::form;
use base64::Engine;
use serde_json::Value;

/// The credentials the resource server introspects with
/// (`--introspection-client-id`, `--introspection-client-secret`).
#[derive(Debug, Clone)]
pub struct Credentials {
    /// The resource server's client id at the authorization server.
    pub client_id: String,
    /// Its secret.
    pub client_secret: String,
}

/// Asks `issuer` whether `token` is active and for `resource`.
pub async fn introspect(
    token: &str,
    issuer: &Issuer,
    credentials: &Credentials,
    resource: &str,
) -> Result<Granted, Refusal> {
    let endpoint = issuer
        .endpoint("introspection_endpoint")
        .await
        .map_err(Refusal::Unverifiable)?;
    // RFC 6749 §2.3.1: Basic with the form-encoded id and secret.
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!(
            "{}:{}",
            form::escape(&credentials.client_id),
            form::escape(&credentials.client_secret)
        ))
    );
    let body = form::encode(&[("token", token), ("token_type_hint", "access_token")]);
    let answer = issuer
        .fetch()
        .post_form(&endpoint, body, Some(basic))
        .await
        .map_err(Refusal::Unverifiable)?;
    if !answer.status.is_success() {
        return Err(Refusal::Unverifiable(anyhow::anyhow!(
            "{endpoint} answered {} to the introspection: {}",
            answer.status,
            answer.json
        )));
    }
    let info = answer.json;
    // RFC 7662 §2.2: `active` is REQUIRED; anything but true means not usable.
    if info.get("active") != Some(&Value::Bool(true)) {
        return Err(Refusal::Invalid(
            "the authorization server says the token is not active (RFC 7662 §2.2)".into(),
        ));
    }
    // MCP basic/authorization "Token Audience Binding": a server MUST only accept
    // tokens issued for it. Introspection's `aud` is optional in RFC 7662, so a token
    // whose answer names no audience is refused too: nothing says it is ours.
    let for_us = match info.get("aud") {
        Some(Value::String(a)) => a == resource,
        Some(Value::Array(all)) => all.iter().any(|a| a.as_str() == Some(resource)),
        _ => false,
    };
    if !for_us {
        return Err(Refusal::Invalid(format!(
            "the token is not for this resource: its aud is {}, not {resource}",
            info.get("aud").map_or("absent".into(), Value::to_string)
        )));
    }
    // RFC 9449 §6.2: an introspection answer says a token is DPoP-bound with cnf.
    super::jwt::refuse_bound(&info)?;
    if let Some(iss) = info.get("iss").and_then(Value::as_str)
        && iss != issuer.url
    {
        return Err(Refusal::Invalid(format!(
            "the token was issued by {iss:?}, not {}",
            issuer.url
        )));
    }
    Ok(Granted {
        scopes: split_scopes(info.get("scope").and_then(Value::as_str)),
        principal: super::Principal::of(&info),
    })
}
