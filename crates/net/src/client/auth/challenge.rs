//! `WWW-Authenticate`: what a protected MCP server says when it refuses a request
//! (MCP 2025-11-25 `basic/authorization` "Authorization Server Location" and "Scope
//! Challenge Handling"; the header's grammar is RFC 9110 §11.6.1, the Bearer
//! parameters RFC 6750 §3 and RFC 9728 §5.1):
//!
//! ```text
//! WWW-Authenticate: Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp",
//!                   scope="files:read", error="insufficient_scope"
//! ```

use std::collections::HashMap;

/// One challenge: its scheme and its parameters (names lower-cased).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Challenge {
    /// `Bearer` (compared without case).
    pub scheme: String,
    /// `resource_metadata`, `scope`, `error`, `error_description`…
    pub params: HashMap<String, String>,
}

impl Challenge {
    /// The Bearer challenge among the header values, if one is there.
    pub fn bearer<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Challenge> {
        values
            .into_iter()
            .flat_map(parse)
            .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
    }

    /// The first `Bearer` or `DPoP` challenge: the schemes of OAuth access tokens
    /// (RFC 6750 §3, RFC 9449 §7.1).
    pub fn oauth<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Challenge> {
        values.into_iter().flat_map(parse).find(|c| {
            c.scheme.eq_ignore_ascii_case("bearer") || c.scheme.eq_ignore_ascii_case("dpop")
        })
    }

    /// The value of parameter `name` (`resource_metadata`, `scope`, `error`).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.get(name).map(String::as_str)
    }
}

/// Every challenge in one header value: `Scheme a=b, c="d", Other x=y`.
pub fn parse(value: &str) -> Vec<Challenge> {
    let mut out: Vec<Challenge> = Vec::new();
    let mut rest = value.trim();
    while !rest.is_empty() {
        // A token followed by `=` is a parameter of the current challenge; a token
        // followed by a space or the end starts a new challenge.
        let end = rest
            .find(|c: char| c == '=' || c == ',' || c.is_whitespace())
            .unwrap_or(rest.len());
        let (token, after) = rest.split_at(end);
        let after_trim = after.trim_start();
        if after_trim.starts_with('=') && !out.is_empty() && !token.is_empty() {
            let (value, remaining) = param_value(after_trim[1..].trim_start());
            if let Some(current) = out.last_mut() {
                current.params.insert(token.to_ascii_lowercase(), value);
            }
            rest = remaining.trim_start().trim_start_matches(',').trim_start();
        } else if token.is_empty() {
            rest = after_trim.trim_start_matches(',').trim_start();
        } else {
            out.push(Challenge {
                scheme: token.to_owned(),
                params: HashMap::new(),
            });
            rest = after_trim.trim_start_matches(',').trim_start();
        }
    }
    out
}

/// A quoted string (with `\` escapes) or a token, and what follows it.
fn param_value(s: &str) -> (String, &str) {
    if let Some(quoted) = s.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (value, &quoted[i + 1..]),
                c => value.push(c),
            }
        }
        return (value, "");
    }
    let end = s.find(',').unwrap_or(s.len());
    (s[..end].trim().to_owned(), &s[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parameters_quoted_or_not_among_other_challenges() {
        let c = Challenge::bearer([
            r#"Basic realm="x", Bearer resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", scope="a b", error=insufficient_scope, error_description="say \"no\"""#,
        ])
        .unwrap();
        assert_eq!(c.scheme, "Bearer");
        assert_eq!(
            c.param("resource_metadata"),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.param("scope"), Some("a b"));
        assert_eq!(c.param("error"), Some("insufficient_scope"));
        assert_eq!(c.param("error_description"), Some("say \"no\""));
        assert_eq!(parse("Bearer").len(), 1);
        assert!(Challenge::bearer(["Basic realm=x"]).is_none());
        let d =
            Challenge::oauth([r#"DPoP error="use_dpop_nonce", resource_metadata="http://h/prm""#])
                .unwrap();
        assert_eq!(
            (d.scheme.as_str(), d.param("error")),
            ("DPoP", Some("use_dpop_nonce"))
        );
    }
}
