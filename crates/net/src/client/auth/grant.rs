//! The authorization code grant with PKCE, hop by hop (MCP 2025-11-25
//! `basic/authorization`, OAuth 2.1 §4.1): register the client (or use a registration
//! given), send the user to the authorization endpoint, take the code from the redirect,
//! exchange it for a token. Every hop is an ordinary HTTP exchange, recorded like the
//! rest of the wire.

use super::credential::Proofs;
use super::form;
use super::pkce::{Pkce, random_token};
use super::token::{self, Registration};
use crate::client::http_link::HttpLink;
use anyhow::{Context, bail};
use hyper::Method;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Dynamic client registration (RFC 7591): a native client with a loopback redirect.
pub async fn register(
    link: &HttpLink,
    endpoint: &str,
    redirect_uri: &str,
) -> anyhow::Result<Registration> {
    let body = json!({
        "client_name": "mcp-raw",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        // SEP-837: a desktop program with a loopback redirect is a native client.
        "application_type": "native",
    });
    super::discovery::secure("the registration_endpoint", endpoint)?;
    let mut there = link.elsewhere(endpoint)?;
    let reply = there
        .exchange(
            Method::POST,
            &[
                ("content-type".to_owned(), "application/json".to_owned()),
                ("accept".to_owned(), "application/json".to_owned()),
            ],
            serde_json::to_vec(&body)?,
        )
        .await
        .with_context(|| format!("POST {endpoint} (client registration)"))?;
    let doc: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
    if !reply.status.is_success() {
        bail!(
            "client registration at {endpoint} refused: HTTP {} {}",
            reply.status,
            doc
        );
    }
    Ok(Registration {
        client_id: doc["client_id"]
            .as_str()
            .context("the registration response has no client_id")?
            .to_owned(),
        client_secret: doc["client_secret"].as_str().map(str::to_owned),
        auth_method: doc["token_endpoint_auth_method"]
            .as_str()
            .map(str::to_owned),
    })
}

/// What one authorization round needs.
pub struct Request<'a> {
    /// The authorization server's metadata (its endpoints).
    pub metadata: &'a Value,
    /// Its issuer, which the redirect's `iss` must name (RFC 9207).
    pub issuer: &'a str,
    /// How this client is registered there.
    pub registration: &'a Registration,
    /// Where the code comes back.
    pub redirect_uri: &'a str,
    /// RFC 8707: the resource, exactly as the protected resource metadata names it.
    pub resource: &'a str,
    /// The scope to ask for.
    pub scope: Option<&'a str>,
    /// How long a person may take to approve in a browser.
    pub wait: Duration,
}

/// The authorization request, and the code the redirect brings back. An
/// authorization server that redirects at once (no person in the loop) is followed
/// here; otherwise the URL is printed and the loopback `listener` waits for the
/// browser's redirect.
pub async fn authorize(
    link: &HttpLink,
    listener: &tokio::net::TcpListener,
    r: &Request<'_>,
    pkce: &Pkce,
) -> anyhow::Result<String> {
    let endpoint = r.metadata["authorization_endpoint"]
        .as_str()
        .context("the authorization server metadata has no authorization_endpoint")?;
    let state = random_token()?;
    let mut query = vec![
        ("response_type", "code"),
        ("client_id", r.registration.client_id.as_str()),
        ("redirect_uri", r.redirect_uri),
        ("code_challenge", pkce.challenge.as_str()),
        ("code_challenge_method", "S256"),
        ("state", state.as_str()),
        ("resource", r.resource),
    ];
    if let Some(scope) = r.scope {
        query.push(("scope", scope));
    }
    super::discovery::secure("the authorization_endpoint", endpoint)?;
    let sep = if endpoint.contains('?') { '&' } else { '?' };
    let url = format!("{endpoint}{sep}{}", form::encode(&query));
    let mut there = link.elsewhere(&url)?;
    let reply = there
        .exchange(Method::GET, &[], Vec::new())
        .await
        .with_context(|| format!("GET {endpoint} (authorization request)"))?;
    let location = reply
        .headers
        .get(hyper::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .filter(|l| reply.status.is_redirection() && l.starts_with(r.redirect_uri));
    let query = match location {
        Some(location) => location.split_once('?').map_or("", |(_, q)| q).to_owned(),
        None => {
            log::warn!(
                "[mcp-raw client] open this URL to authorize (waiting {}s for the redirect to {}):\n  {url}",
                r.wait.as_secs(),
                r.redirect_uri
            );
            tokio::time::timeout(r.wait, callback(listener))
                .await
                .context("no authorization redirect in time (--auth-timeout)")??
        }
    };
    code_from(&query, &state, r)
}

/// The redirect's query checked: no `error`, our `state`, and the right `iss`
/// (RFC 9207 §2.4: compared as strings, and required when the server advertises it).
fn code_from(query: &str, state: &str, r: &Request<'_>) -> anyhow::Result<String> {
    let pairs = form::decode(query);
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if let Some(error) = get("error") {
        bail!(
            "the authorization server refused: {error} {}",
            get("error_description").unwrap_or("")
        );
    }
    if get("state") != Some(state) {
        bail!("the redirect's state does not match the request's: refusing the code");
    }
    match get("iss") {
        Some(iss) if iss != r.issuer => bail!(
            "the redirect's iss {iss:?} is not the issuer {:?} (RFC 9207): refusing the code",
            r.issuer
        ),
        None if r.metadata["authorization_response_iss_parameter_supported"] == true => bail!(
            "the authorization server promises iss in its redirects and this one has none (RFC 9207): refusing the code"
        ),
        _ => {}
    }
    get("code")
        .map(str::to_owned)
        .context("the redirect carries no code")
}

/// One browser redirect on the loopback listener: its query, and a page saying so.
async fn callback(listener: &tokio::net::TcpListener) -> anyhow::Result<String> {
    let (mut conn, _) = listener.accept().await?;
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        let n = conn.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = String::from_utf8_lossy(&head);
    let target = line.split_whitespace().nth(1).unwrap_or("");
    let query = target.split_once('?').map_or("", |(_, q)| q).to_owned();
    let page = "mcp-raw has the authorization response; you can close this window.\n";
    let _ = conn
        .write_all(
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
                page.len()
            )
            .as_bytes(),
        )
        .await;
    Ok(query)
}

/// The token request (OAuth 2.1 §4.1.3): the code, the verifier, the redirect URI
/// and the resource, the client authenticated as [`token::request`] does.
pub async fn token(
    link: &HttpLink,
    r: &Request<'_>,
    client: &token::Client<'_>,
    dpop: Option<&Proofs>,
    code: &str,
    pkce: &Pkce,
) -> anyhow::Result<token::Tokens> {
    let server = token::Server {
        issuer: r.issuer,
        metadata: r.metadata,
    };
    let params = [
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", r.redirect_uri),
        ("code_verifier", pkce.verifier.as_str()),
        ("resource", r.resource),
    ];
    token::request(link, &server, client, dpop, &params, "token request").await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::auth::token::tests::reg;

    #[test]
    fn the_redirect_is_checked_before_its_code_is_taken() {
        let metadata = json!({ "authorization_response_iss_parameter_supported": true });
        let registration = reg(None);
        let r = Request {
            metadata: &metadata,
            issuer: "http://as:1",
            registration: &registration,
            redirect_uri: "http://127.0.0.1:2/callback",
            resource: "http://rs:3/mcp",
            scope: None,
            wait: Duration::from_secs(1),
        };
        assert_eq!(
            code_from("code=k&state=s&iss=http%3A%2F%2Fas%3A1", "s", &r).unwrap(),
            "k"
        );
        let refused = |q: &str| code_from(q, "s", &r).unwrap_err().to_string();
        assert!(refused("code=k&state=x&iss=http%3A%2F%2Fas%3A1").contains("state"));
        assert!(refused("code=k&state=s&iss=http%3A%2F%2Fas%3A1%2F").contains("iss"));
        assert!(refused("code=k&state=s").contains("promises iss"));
        assert!(refused("error=access_denied&state=s").contains("access_denied"));
    }
}
