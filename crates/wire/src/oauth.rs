//! OAuth's well-known URLs, built one way for the client that looks for them and the
//! protected resource and authorization server that serve them (MCP 2025-11-25
//! `basic/authorization`, "Protected Resource Metadata Discovery Requirements" and
//! "Authorization Server Metadata Discovery").

/// The well-known prefix of protected resource metadata (RFC 9728 §3).
pub const PROTECTED_RESOURCE: &str = "/.well-known/oauth-protected-resource";

/// `http://a.example:9000/x/y/` → (`http://a.example:9000`, `/x/y`): the origin, and
/// the path without its trailing `/` (empty for the root).
pub fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let (origin, path) = match url[after_scheme..].find('/') {
        Some(i) => url.split_at(after_scheme + i),
        None => (url, ""),
    };
    (origin, path.trim_end_matches('/'))
}

/// Where the protected resource metadata of `resource` is, in the order a client
/// tries them: the path-inserted URL (RFC 9728 §3.1: the well-known string goes
/// between the host and the path), then the root.
pub fn resource_metadata_urls(resource: &str) -> Vec<String> {
    let (origin, path) = split_origin(resource);
    let root = format!("{origin}{PROTECTED_RESOURCE}");
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(format!("{root}{path}"));
    }
    urls.push(root);
    urls
}

/// Where the metadata of the authorization server `issuer` is, in the spec's order:
/// with a path, RFC 8414 path-inserted, OpenID Connect path-inserted, OpenID Connect
/// path-appended; without, the two roots.
pub fn server_metadata_urls(issuer: &str) -> Vec<String> {
    let (origin, path) = split_origin(issuer);
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// A URL as the OAuth checks compare it: scheme and host lower-cased (RFC 3986
/// §3.1 and §3.2.2: both are case-insensitive, so `HTTP://Auth.Example` is
/// `http://auth.example`), the port made explicit, the path as given (without its
/// query). Every rule about where a token or a secret may go reads this, never the
/// text: a prefix test on the text is fooled by `HTTP://`, `http://a@b` and the like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// `http` or `https`, lower-cased (nothing else is an OAuth URL here).
    pub scheme: String,
    /// The host, lower-cased, an IPv6 literal without its brackets.
    pub host: String,
    /// The port, 80 or 443 when the URL names none.
    pub port: u16,
    /// The path, `/` when empty.
    pub path: String,
}

impl Parsed {
    /// Whether two URLs have the same origin (RFC 6454 §4: scheme, host, port).
    pub fn same_origin(&self, other: &Parsed) -> bool {
        self.scheme == other.scheme && self.host == other.host && self.port == other.port
    }

    /// Whether the host is a loopback one: `localhost` or a loopback address.
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self
                .host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }
}

/// Parses an absolute `http://` or `https://` URL; anything else (no scheme, no host,
/// another scheme, `http://` alone) is refused with the reason.
pub fn parse(url: &str) -> Result<Parsed, String> {
    let uri: hyper::Uri = url
        .parse()
        .map_err(|e| format!("{url:?} is not a URL ({e})"))?;
    let scheme = uri
        .scheme_str()
        .ok_or_else(|| format!("{url:?} has no scheme"))?
        .to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        other => return Err(format!("{url:?}: {other}:// is not an http(s) URL")),
    };
    let host = uri
        .host()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| format!("{url:?} has no host"))?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
        .to_ascii_lowercase();
    let path = match uri.path() {
        "" => "/".to_owned(),
        p => p.to_owned(),
    };
    Ok(Parsed {
        scheme,
        host,
        port: uri.port_u16().unwrap_or(default_port),
        path,
    })
}

/// MCP 2025-11-25 `basic/authorization` "Communication Security": all authorization
/// server endpoints MUST be served over HTTPS. `http://` is allowed on a loopback
/// address only (nothing leaves the machine); any other `http://` URL is refused
/// before a token or a secret is sent to it. The one check for every OAuth URL, the
/// client's and the protected resource's: `what` names the URL in the refusal.
pub fn https_or_loopback(what: &str, url: &str) -> Result<Parsed, String> {
    let parsed = parse(url).map_err(|e| format!("{what}: {e}"))?;
    if parsed.scheme == "http" && !parsed.is_loopback() {
        return Err(format!(
            "{what} is {url:?}: authorization endpoints MUST be served over HTTPS (MCP basic/authorization \"Communication Security\"); plain http:// is accepted on a loopback address only"
        ));
    }
    Ok(parsed)
}

/// RFC 9728 §3.3 and §7.3: the protected resource metadata's `resource` must be the
/// server the client talks to, or cover it: the same origin, and a path that is the
/// server's or a prefix of it ending on a segment boundary (`/a` covers `/a/mcp`, not
/// `/ab`). Compared parsed, so case and default ports do not matter and nothing that
/// is not a URL (`http://`) covers anything.
pub fn resource_covers(resource: &str, server: &str) -> Result<bool, String> {
    let r = parse(resource)?;
    let s = parse(server)?;
    let (rp, sp) = (r.path.trim_end_matches('/'), s.path.trim_end_matches('/'));
    let path_ok = sp == rp || (sp.starts_with(rp) && sp[rp.len()..].starts_with('/'));
    Ok(r.same_origin(&s) && path_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_well_known_urls_come_in_the_specs_order() {
        assert_eq!(
            resource_metadata_urls("http://h:1/public/mcp/"),
            [
                "http://h:1/.well-known/oauth-protected-resource/public/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            resource_metadata_urls("http://h:1"),
            ["http://h:1/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            server_metadata_urls("http://a.example/tenant1"),
            [
                "http://a.example/.well-known/oauth-authorization-server/tenant1",
                "http://a.example/.well-known/openid-configuration/tenant1",
                "http://a.example/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            server_metadata_urls("http://127.0.0.1:9000/"),
            [
                "http://127.0.0.1:9000/.well-known/oauth-authorization-server",
                "http://127.0.0.1:9000/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn oauth_urls_are_compared_parsed_and_lower_cased() {
        for ok in [
            "http://127.0.0.1:9000",
            "http://localhost/token",
            "HTTP://LOCALHOST/token",
            "http://[::1]:80/authorize",
            "http://127.5.6.7",
            "https://auth.example.com",
        ] {
            assert!(https_or_loopback("x", ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://auth.example.com",
            "HTTP://auth.example.com/token",
            "Http://10.0.0.1/token",
            "http://localhost.evil.example",
            "http://127.0.0.1@evil.example/",
            "http://",
            "ftp://127.0.0.1/",
            "/token",
        ] {
            assert!(https_or_loopback("token_endpoint", bad).is_err(), "{bad}");
        }
        let p = parse("HTTP://Example.COM/A").unwrap();
        assert_eq!(
            (p.scheme.as_str(), p.host.as_str(), p.port),
            ("http", "example.com", 80)
        );
        assert_eq!(p.path, "/A");
    }

    #[test]
    fn a_resource_covers_its_server_on_a_segment_boundary() {
        let covers = |r, s| resource_covers(r, s).unwrap_or(false);
        assert!(covers("http://h:1/mcp", "http://h:1/mcp"));
        assert!(covers("http://h:1", "http://h:1/mcp"));
        assert!(covers("HTTP://H:1/", "http://h:1/mcp"));
        assert!(covers("http://h:80/mcp", "http://h/mcp"));
        assert!(covers("http://h:1/a", "http://h:1/a/mcp"));
        assert!(!covers("http://h:1/m", "http://h:1/mcp"));
        assert!(!covers("http://h:1/mcp", "http://h:2/mcp"));
        assert!(!covers("https://h:1/mcp", "http://h:1/mcp"));
        assert!(!covers("http://evil:1/mcp", "http://h:1/mcp"));
        assert!(resource_covers("http://", "http://h:1/mcp").is_err());
    }
}
