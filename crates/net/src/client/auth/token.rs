//! The token endpoint, for every grant (OAuth 2.1 §3.2): one form-encoded POST, the
//! client authenticated the way the server takes it, a DPoP proof when the token is
//! to be bound to a key, and a JSON token response back:
//!
//! ```text
//! POST /token  Authorization: Basic …   DPoP: …
//!   grant_type=…&resource=…&…          ← {"access_token":…,"token_type":"Bearer","expires_in":3600,"refresh_token":…}
//! ```

use super::assertion::{self, ClientKey};
use super::credential::Proofs;
use super::dpop;
use super::form;
use crate::client::http_link::HttpLink;
use anyhow::{Context, bail};
use base64::Engine;
use hyper::{Method, StatusCode};
use serde_json::Value;
use std::time::Duration;

/// How this client is known to one authorization server.
#[derive(Debug, Clone, PartialEq)]
pub struct Registration {
    /// The client id the authorization server knows this client by.
    pub client_id: String,
    /// Absent for a public client.
    pub client_secret: Option<String>,
    /// What the server said at registration (`token_endpoint_auth_method`), if it did.
    pub auth_method: Option<String>,
}

/// The authorization server as the token request needs it.
pub struct Server<'a> {
    /// Its issuer identifier: the `aud` of a client assertion (RFC 7523 §3).
    pub issuer: &'a str,
    /// Its metadata (RFC 8414): `token_endpoint` and the auth methods it lists.
    pub metadata: &'a Value,
}

/// How the client proves who it is at the token endpoint.
pub struct Client<'a> {
    /// How the client authenticates there.
    pub registration: &'a Registration,
    /// For `private_key_jwt` (`--client-key`).
    pub key: Option<&'a ClientKey>,
    /// How long a client assertion is valid (`--assertion-lifetime`).
    pub lifetime: Duration,
}

/// A successful token response (RFC 6749 §5.1).
#[derive(Debug, Clone)]
pub struct Tokens {
    /// The token to present.
    pub access_token: String,
    /// `Bearer`, `DPoP`, or `N_A` for a token exchange's non-access token.
    pub token_type: String,
    /// For the refresh grant later (§6), when the server issued one.
    pub refresh_token: Option<String>,
    /// The scope granted, when the server says (it may differ from the one asked).
    pub scope: Option<String>,
    /// What a token exchange issued (RFC 8693 §2.2.1), e.g. an ID-JAG.
    pub issued_token_type: Option<String>,
}

/// POSTs `params` to the token endpoint (the server's metadata names it) and reads
/// the token response. With `dpop`, each attempt carries a proof, with the
/// authorization server's last nonce if it sent one; a `use_dpop_nonce` answer is
/// retried once with the new nonce (RFC 9449 §8).
pub async fn request(
    link: &HttpLink,
    server: &Server<'_>,
    client: &Client<'_>,
    dpop: Option<&Proofs>,
    params: &[(&str, &str)],
    what: &str,
) -> anyhow::Result<Tokens> {
    let endpoint = server.metadata["token_endpoint"]
        .as_str()
        .context("the authorization server metadata has no token_endpoint")?;
    // The client's secret or assertion goes in this request: HTTPS or loopback only
    // (the one check every OAuth URL passes).
    super::discovery::secure(&format!("the endpoint of the {what}"), endpoint)?;
    let mut there = link.elsewhere(endpoint)?;
    let mut retried = false;
    loop {
        let (mut headers, body) = authenticated(server, client, params)?;
        if let Some(proofs) = dpop {
            let nonce = proofs.nonce.lock().ok().and_then(|n| n.clone());
            headers.push((
                "dpop".to_owned(),
                proofs.key.proof("POST", endpoint, None, nonce.as_deref())?,
            ));
        }
        let reply = there
            .exchange(
                Method::POST,
                &headers,
                form::encode_owned(&body).into_bytes(),
            )
            .await
            .with_context(|| format!("POST {endpoint} ({what})"))?;
        let doc: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
        // RFC 9449 §8: the nonce comes in `DPoP-Nonce`, with the refusal or with any
        // later response (§8.2), and goes in the next proofs to this server.
        let offered = reply
            .headers
            .get(dpop::NONCE_HEADER)
            .and_then(|v| v.to_str().ok());
        if let (Some(proofs), Some(offered)) = (dpop, offered)
            && let Ok(mut slot) = proofs.nonce.lock()
        {
            *slot = Some(offered.to_owned());
        }
        // "the authorization server … responds with an HTTP 400 … error
        // use_dpop_nonce"; the client retries with the nonce, once: a second refusal
        // of a fresh nonce is a refusal.
        if dpop.is_some()
            && offered.is_some()
            && !retried
            && reply.status == StatusCode::BAD_REQUEST
            && doc["error"] == dpop::USE_DPOP_NONCE
        {
            retried = true;
            continue;
        }
        return tokens(reply.status, doc, what);
    }
}

/// The token response read (RFC 6749 §5.1, §5.2): an error says which and why.
fn tokens(status: StatusCode, doc: Value, what: &str) -> anyhow::Result<Tokens> {
    let Some(access_token) = doc["access_token"]
        .as_str()
        .filter(|_| status == StatusCode::OK)
    else {
        let error = doc["error"].as_str().unwrap_or("(no error code)");
        let description = doc["error_description"].as_str().unwrap_or("");
        bail!("the {what} was refused: HTTP {status} {error} {description}");
    };
    Ok(Tokens {
        access_token: access_token.to_owned(),
        token_type: doc["token_type"].as_str().unwrap_or("Bearer").to_owned(),
        refresh_token: doc["refresh_token"].as_str().map(str::to_owned),
        scope: doc["scope"].as_str().map(str::to_owned),
        issued_token_type: doc["issued_token_type"].as_str().map(str::to_owned),
    })
}

/// Names and values: headers, or the fields of a form.
type Pairs = Vec<(String, String)>;

/// The headers and body of one attempt: `params` plus the client's authentication
/// (RFC 6749 §2.3; a client assertion is signed anew each time, its `jti` unique).
fn authenticated(
    server: &Server<'_>,
    client: &Client<'_>,
    params: &[(&str, &str)],
) -> anyhow::Result<(Pairs, Pairs)> {
    let reg = client.registration;
    let mut body: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let mut headers = vec![
        (
            "content-type".to_owned(),
            "application/x-www-form-urlencoded".to_owned(),
        ),
        ("accept".to_owned(), "application/json".to_owned()),
    ];
    let secret = reg.client_secret.as_deref().unwrap_or("");
    match auth_method(server.metadata, reg, client.key.is_some()).as_str() {
        // RFC 6749 §2.3.1: the id and secret, form-encoded, then Basic.
        "client_secret_basic" => {
            let pair = format!("{}:{}", form::escape(&reg.client_id), form::escape(secret));
            let basic = base64::engine::general_purpose::STANDARD.encode(pair);
            headers.push(("authorization".to_owned(), format!("Basic {basic}")));
        }
        "client_secret_post" => {
            body.push(("client_id".to_owned(), reg.client_id.clone()));
            body.push(("client_secret".to_owned(), secret.to_owned()));
        }
        // RFC 7523 §2.2: the assertion and its type; the client_id may be left out,
        // the assertion's `sub` names the client.
        "private_key_jwt" => {
            let key = client.key.context("private_key_jwt needs --client-key")?;
            let jwt =
                assertion::client_assertion(key, &reg.client_id, server.issuer, client.lifetime)?;
            body.push((
                "client_assertion_type".to_owned(),
                assertion::CLIENT_ASSERTION_TYPE.to_owned(),
            ));
            body.push(("client_assertion".to_owned(), jwt));
        }
        // A public client names itself (RFC 6749 §3.2.1); a client with no id at all
        // (a jwt-bearer grant whose assertion is enough) sends nothing.
        _ if !reg.client_id.is_empty() => {
            body.push(("client_id".to_owned(), reg.client_id.clone()))
        }
        _ => {}
    }
    Ok((headers, body))
}

/// How the client authenticates at the token endpoint: what registration said, else
/// the best the server lists for a client with a key, a secret, or neither. RFC 8414
/// §2: a server that lists none takes `client_secret_basic`.
pub fn auth_method(metadata: &Value, reg: &Registration, has_key: bool) -> String {
    if let Some(m) = &reg.auth_method {
        return m.clone();
    }
    let listed: Vec<&str> = metadata["token_endpoint_auth_methods_supported"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_else(|| vec!["client_secret_basic"]);
    let has_secret = reg.client_secret.is_some();
    let mut usable = Vec::new();
    if has_key {
        usable.push("private_key_jwt");
    }
    if has_secret {
        usable.extend(["client_secret_basic", "client_secret_post"]);
    }
    usable
        .into_iter()
        .find(|m| listed.contains(m))
        .unwrap_or("none")
        .to_owned()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use serde_json::json;

    /// A registration with client id `c` (shared with the other grants' tests).
    pub(in crate::client::auth) fn reg(secret: Option<&str>) -> Registration {
        Registration {
            client_id: "c".into(),
            client_secret: secret.map(str::to_owned),
            auth_method: None,
        }
    }

    #[test]
    fn the_token_endpoint_auth_method_follows_the_server() {
        let m = |methods: Value, r: &Registration, key: bool| {
            auth_method(
                &json!({ "token_endpoint_auth_methods_supported": methods }),
                r,
                key,
            )
        };
        assert_eq!(m(json!(["none"]), &reg(Some("s")), false), "none");
        assert_eq!(
            m(json!(["client_secret_post"]), &reg(Some("s")), false),
            "client_secret_post"
        );
        assert_eq!(
            auth_method(&json!({}), &reg(Some("s")), false),
            "client_secret_basic"
        );
        assert_eq!(m(json!(["client_secret_basic"]), &reg(None), false), "none");
        assert_eq!(
            m(
                json!(["client_secret_basic", "private_key_jwt"]),
                &reg(Some("s")),
                true
            ),
            "private_key_jwt"
        );
    }

    #[test]
    fn an_error_response_is_quoted() {
        let e = tokens(
            StatusCode::BAD_REQUEST,
            json!({"error": "invalid_grant", "error_description": "expired"}),
            "token request",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "the token request was refused: HTTP 400 Bad Request invalid_grant expired"
        );
        let t = tokens(
            StatusCode::OK,
            json!({"access_token": "a", "token_type": "DPoP", "refresh_token": "r"}),
            "token request",
        )
        .unwrap();
        assert_eq!(
            (t.token_type.as_str(), t.refresh_token.as_deref()),
            ("DPoP", Some("r"))
        );
    }
}
