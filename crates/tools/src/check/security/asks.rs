//! The server's questions: a sampling request's bound (MCP 2025-11-25 `client/sampling`),
//! an elicitation's fields and URL (`client/elicitation`), legacy requests and the
//! 2026-07-28 input requests alike.

use super::{ELICITATION_SECRET, ELICITATION_URL, Options, SAMPLING_UNBOUNDED, Scan, Spot};
use serde_json::Value;

impl Scan {
    /// A server's sampling or elicitation request.
    pub(super) fn question(&mut self, method: &str, p: &Value, at: &Spot, options: &Options) {
        match method {
            "sampling/createMessage" => {
                let max = p.get("maxTokens");
                let why = match max.and_then(Value::as_u64) {
                    None => Some(format!(
                        "maxTokens is {}",
                        max.map_or("missing".into(), |v| v.to_string())
                    )),
                    Some(0) => Some("maxTokens is 0".into()),
                    Some(n) if n > options.sampling_max_tokens => Some(format!(
                        "maxTokens {n} is above {} (--sampling-max-tokens)",
                        options.sampling_max_tokens
                    )),
                    Some(_) => None,
                };
                if let Some(why) = why {
                    self.out.push(
                        at.finding(SAMPLING_UNBOUNDED, format!("sampling/createMessage: {why}")),
                    );
                }
            }
            "elicitation/create" => {
                let mode = p.get("mode").and_then(Value::as_str).unwrap_or("form");
                if mode == "url" {
                    let url = p.get("url").and_then(Value::as_str).unwrap_or("");
                    if let Some(why) = doubtful_url(url) {
                        self.out.push(at.finding(
                            ELICITATION_URL,
                            format!("elicitation/create (url mode) to {url:?}: {why}"),
                        ));
                    }
                    return;
                }
                let props = p
                    .get("requestedSchema")
                    .and_then(|s| s.get("properties"))
                    .and_then(Value::as_object);
                for (key, field) in props.into_iter().flatten() {
                    let mut said = vec![key.as_str()];
                    for k in ["title", "description"] {
                        if let Some(t) = field.get(k).and_then(Value::as_str) {
                            said.push(t);
                        }
                    }
                    if let Some(word) = said.iter().find_map(|t| sensitive(t)) {
                        self.out.push(at.finding(
                            ELICITATION_SECRET,
                            format!("elicitation/create (form mode) asks for field {key:?}, which says {word:?}"),
                        ));
                        return;
                    }
                }
            }
            _ => {}
        }
    }
}

/// Words that make a form field a request for a secret.
fn sensitive(text: &str) -> Option<&'static str> {
    const WORDS: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "secret",
        "api key",
        "api_key",
        "apikey",
        "access token",
        "access_token",
        "auth token",
        "private key",
        "credential",
        "credit card",
        "card number",
        "cvv",
        "social security",
        "ssn",
    ];
    let lower = text.to_lowercase();
    WORDS.iter().copied().find(|w| lower.contains(w))
}

/// Why a URL-mode elicitation's URL is doubtful: not https (loopback aside), or a host
/// in punycode (`xn--`) or with letters of a look-alike script.
fn doubtful_url(url: &str) -> Option<String> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Some("not an absolute URL".into());
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host_port.starts_with('[') {
        host_port.split(']').next().map(|h| &h[1..]).unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    }
    .to_lowercase();
    let loopback = matches!(host.as_str(), "localhost" | "127.0.0.1" | "::1");
    if !scheme.eq_ignore_ascii_case("https") && !loopback {
        return Some(format!("{scheme}, not https"));
    }
    if host.split('.').any(|label| label.starts_with("xn--")) {
        return Some(format!(
            "the host {host:?} is punycode (a look-alike can hide in it)"
        ));
    }
    if !host.is_ascii() {
        return Some(format!("the host {host:?} is not ASCII"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_fields() {
        assert_eq!(doubtful_url("https://example.com/auth"), None);
        assert_eq!(doubtful_url("http://localhost:8080/cb"), None);
        assert_eq!(
            doubtful_url("http://example.com/x"),
            Some("http, not https".into())
        );
        assert!(doubtful_url("https://xn--pple-43d.com/").is_some());
        assert!(doubtful_url("https://аpple.com/").is_some());
        assert_eq!(sensitive("Your GitHub password"), Some("password"));
        assert_eq!(sensitive("Your favourite colour"), None);
    }
}
