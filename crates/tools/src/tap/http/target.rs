//! `tap --http --target URL`: where the tap forwards to, read by hand
//! (`http://HOST[:PORT][/PATH]` or `https://…`, RFC 3986 §3.2 for the authority).

/// Where the tap forwards to: `http://HOST:PORT/PATH` or `https://…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `https://`: the tap opens TLS to the target (and checks its certificate).
    pub tls: bool,
    /// The host to connect to, a name or an address.
    pub host: String,
    /// Its port (80 when the URL has none, 443 for `https://`).
    pub port: u16,
    /// The path, only shown: requests keep the path the client sent.
    pub path: String,
}

impl Target {
    /// Reads `http://HOST[:PORT][/PATH]` or `https://…`.
    pub fn parse(url: &str) -> Result<Target, String> {
        let (tls, rest) = match (url.strip_prefix("http://"), url.strip_prefix("https://")) {
            (Some(rest), _) => (false, rest),
            (_, Some(rest)) => (true, rest),
            _ => {
                return Err(format!(
                    "--target {url:?}: must start with http:// or https://"
                ));
            }
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        // `[v6]:port`, `[v6]`, `host:port` or `host`.
        let (host, port) = match authority.strip_prefix('[') {
            Some(v6) => {
                let (host, after) = v6
                    .split_once(']')
                    .ok_or_else(|| format!("--target {url:?}: no ']' after an IPv6 address"))?;
                (host, after.strip_prefix(':'))
            }
            None => match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            },
        };
        let port = match port {
            Some(p) => p
                .parse::<u16>()
                .map_err(|_| format!("--target {url:?}: bad port {p:?}"))?,
            None if tls => 443,
            None => 80,
        };
        if host.is_empty() {
            return Err(format!("--target {url:?}: no host"));
        }
        Ok(Target {
            tls,
            host: host.to_owned(),
            port,
            path: path.to_owned(),
        })
    }

    /// `host:port`, as a `Host` header says it.
    pub fn authority(&self) -> String {
        super::super::host_port(&self.host, self.port)
    }

    /// The URL, for messages.
    pub fn url(&self) -> String {
        format!(
            "{}://{}{}",
            if self.tls { "https" } else { "http" },
            self.authority(),
            self.path
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_say_their_authority() {
        let t = Target::parse("http://127.0.0.1:3100/mcp").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("127.0.0.1", 3100, "/mcp")
        );
        assert_eq!(t.authority(), "127.0.0.1:3100");
        let t = Target::parse("http://[::1]:8080").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("::1", 8080, "/")
        );
        assert_eq!(t.authority(), "[::1]:8080");
        assert_eq!(Target::parse("http://localhost/x").unwrap().port, 80);
        let t = Target::parse("https://example.com/mcp").unwrap();
        assert!(t.tls);
        assert_eq!(t.port, 443);
        assert_eq!(t.url(), "https://example.com:443/mcp");
        assert!(
            Target::parse("ftp://a:1/")
                .unwrap_err()
                .contains("http:// or https://")
        );
        assert!(
            Target::parse("http://a:x/")
                .unwrap_err()
                .contains("bad port")
        );
    }
}
