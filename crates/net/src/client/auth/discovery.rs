//! Where the authorization server is, and what it offers (MCP 2025-11-25
//! `basic/authorization` "Authorization Server Discovery"):
//!
//! 1. the protected resource metadata (RFC 9728): the URL in the 401's
//!    `resource_metadata`, else the well-known URLs, path-inserted first, then the root;
//! 2. the authorization server metadata (RFC 8414, or OpenID Connect Discovery) of the
//!    first of its `authorization_servers`, at the well-known URLs in the spec's order.
//!
//! Each document is checked before it is believed: the resource must be the server
//! the client is talking to (RFC 9728 §3.3), the issuer the one asked about (RFC 8414
//! §3.3).

use crate::client::http_link::HttpLink;
use crate::wire::oauth;
use anyhow::{Context, bail};
use hyper::Method;
use serde_json::Value;

/// The protected resource metadata URLs to try, in order (2025-11-25 "Protected
/// Resource Metadata Discovery Requirements"): the 401's `resource_metadata`, then the
/// well-known URLs ([`oauth::resource_metadata_urls`]).
pub fn resource_metadata_urls(server: &str, from_header: Option<&str>) -> Vec<String> {
    let mut urls: Vec<String> = from_header.map(str::to_owned).into_iter().collect();
    urls.extend(oauth::resource_metadata_urls(server));
    urls
}

/// GETs a JSON document; `None` when it is not there (any non-2xx).
pub async fn fetch_json(link: &HttpLink, url: &str) -> anyhow::Result<Option<Value>> {
    let mut there = link.elsewhere(url)?;
    let reply = there
        .exchange(
            Method::GET,
            &[("accept".to_owned(), "application/json".to_owned())],
            Vec::new(),
        )
        .await
        .with_context(|| format!("GET {url}"))?;
    if !reply.status.is_success() {
        return Ok(None);
    }
    let doc: Value = serde_json::from_slice(&reply.body)
        .with_context(|| format!("GET {url}: the body is not JSON"))?;
    Ok(Some(doc))
}

/// The protected resource metadata, from the first URL that has it, checked.
pub async fn resource_metadata(
    link: &HttpLink,
    server: &str,
    from_header: Option<&str>,
) -> anyhow::Result<Value> {
    for url in resource_metadata_urls(server, from_header) {
        if let Some(doc) = fetch_json(link, &url).await? {
            check_resource(&doc, server)?;
            return Ok(doc);
        }
    }
    bail!(
        "no protected resource metadata for {server} (tried the 401's resource_metadata and the well-known URLs)"
    )
}

/// RFC 9728 §3.3: the metadata's `resource` names this server: the server's URL, or
/// a prefix of it ending at a path boundary (a resource that covers several
/// endpoints), compared parsed ([`oauth::resource_covers`]). Anything else could send
/// the token somewhere else.
pub fn check_resource(doc: &Value, server: &str) -> anyhow::Result<()> {
    let resource = doc["resource"]
        .as_str()
        .context("the protected resource metadata has no \"resource\"")?;
    let covers = oauth::resource_covers(resource, server).map_err(|e| {
        anyhow::anyhow!(
            "the protected resource metadata's resource is not a URL: {e} (RFC 9728 §2)"
        )
    })?;
    if !covers {
        bail!(
            "the protected resource metadata names resource {resource:?}, not this server ({server}): refusing to authorize for it (RFC 9728 §3.3)"
        );
    }
    Ok(())
}

/// The authorization server metadata of `issuer`, from the first URL that has it,
/// checked: its `issuer` must be `issuer`, character for character.
pub async fn server_metadata(link: &HttpLink, issuer: &str) -> anyhow::Result<Value> {
    secure("the authorization server", issuer)?;
    for url in oauth::server_metadata_urls(issuer) {
        if let Some(doc) = fetch_json(link, &url).await? {
            if doc["issuer"].as_str() != Some(issuer) {
                bail!(
                    "the authorization server metadata at {url} names issuer {}, not {issuer:?} (RFC 8414 §3.3): refusing it",
                    doc["issuer"]
                );
            }
            for endpoint in [
                "authorization_endpoint",
                "token_endpoint",
                "registration_endpoint",
            ] {
                if let Some(at) = doc[endpoint].as_str() {
                    secure(endpoint, at)?;
                }
            }
            return Ok(doc);
        }
    }
    bail!("no authorization server metadata for {issuer} at any well-known URL")
}

/// MCP 2025-11-25 `basic/authorization` "Communication Security": every
/// authorization server URL the client uses is HTTPS or loopback, checked by the one
/// function that parses it ([`oauth::https_or_loopback`]) before anything is sent.
pub fn secure(what: &str, url: &str) -> anyhow::Result<()> {
    oauth::https_or_loopback(what, url)
        .map(drop)
        .map_err(anyhow::Error::msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn authorization_endpoints_are_https_or_loopback() {
        for ok in [
            "http://127.0.0.1:9000",
            "http://localhost/token",
            "http://[::1]:80/authorize",
            "http://127.5.6.7",
            "https://auth.example.com",
        ] {
            assert!(secure("x", ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://auth.example.com",
            "http://10.0.0.1/token",
            "http://localhost.evil.example",
            "HTTP://auth.example.com/token",
        ] {
            let e = secure("token_endpoint", bad).unwrap_err().to_string();
            assert!(e.contains("HTTPS") && e.contains(bad), "{e}");
        }
    }

    #[test]
    fn the_401s_url_comes_before_the_well_known_ones() {
        assert_eq!(
            resource_metadata_urls("http://h:1/public/mcp", None),
            vec![
                "http://h:1/.well-known/oauth-protected-resource/public/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            resource_metadata_urls("http://h:1/", Some("http://x/m"))[0],
            "http://x/m"
        );
    }

    #[test]
    fn the_resource_must_cover_this_server() {
        let doc = |r: &str| json!({ "resource": r });
        assert!(check_resource(&doc("http://h:1/mcp"), "http://h:1/mcp").is_ok());
        assert!(check_resource(&doc("http://h:1"), "http://h:1/mcp").is_ok());
        assert!(check_resource(&doc("http://h:1/m"), "http://h:1/mcp").is_err());
        assert!(check_resource(&doc("http://evil:1/mcp"), "http://h:1/mcp").is_err());
        assert!(check_resource(&doc("http://"), "http://h:1/mcp").is_err());
    }
}
