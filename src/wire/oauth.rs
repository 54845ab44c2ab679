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
}
