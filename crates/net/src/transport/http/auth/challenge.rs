//! The refusals of a protected resource, each an HTTP status with a
//! `WWW-Authenticate: Bearer …` challenge (RFC 6750 §3) that tells the client where
//! to go next, and a JSON-RPC error body that says the same in words:
//!
//! ```text
//! 401  Bearer resource_metadata="…", scope="…"                      no token at all (§3.1: no error code)
//! 401  Bearer error="invalid_token", error_description="…", …       forged, expired, someone else's
//! 400  Bearer error="invalid_request", …                            not a Bearer header one can read
//! 403  Bearer error="insufficient_scope", scope="…", …              a good token without the scope
//! ```
//!
//! MCP 2025-11-25 `basic/authorization` ("Protected Resource Metadata Discovery
//! Requirements"): servers MUST use `WWW-Authenticate` to point at their metadata,
//! and SHOULD include `scope` to say what to ask for.

use super::super::reply::{self, HttpResponse};
use crate::jsonrpc::code;
use hyper::StatusCode;
use hyper::header::{HeaderValue, WWW_AUTHENTICATE};

/// What went wrong, in RFC 6750 §3.1's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// No credentials offered: a plain challenge.
    Missing,
    /// The `Authorization` header is there but not a readable Bearer token.
    InvalidRequest,
    /// The token is not good here.
    InvalidToken,
    /// The token is good but lacks a scope this resource requires.
    InsufficientScope,
}

/// The refusal for `problem`: its status, its challenge (pointing at
/// `resource_metadata`, asking for `scope`), and `description` in the body and, for
/// an error, in `error_description`.
pub fn refuse(
    problem: Problem,
    resource_metadata: &str,
    scope: &str,
    description: &str,
) -> HttpResponse {
    let (status, error) = match problem {
        Problem::Missing => (StatusCode::UNAUTHORIZED, None),
        Problem::InvalidRequest => (StatusCode::BAD_REQUEST, Some("invalid_request")),
        Problem::InvalidToken => (StatusCode::UNAUTHORIZED, Some("invalid_token")),
        Problem::InsufficientScope => (StatusCode::FORBIDDEN, Some("insufficient_scope")),
    };
    let mut params = Vec::new();
    if let Some(error) = error {
        params.push(format!("error=\"{error}\""));
        params.push(format!("error_description=\"{}\"", quotable(description)));
    }
    params.push(format!(
        "resource_metadata=\"{}\"",
        quotable(resource_metadata)
    ));
    if !scope.is_empty() {
        params.push(format!("scope=\"{}\"", quotable(scope)));
    }
    let reason = status.canonical_reason().unwrap_or("Refused");
    let mut response = reply::error(
        status,
        code::INVALID_REQUEST,
        format!("{reason}: {description}"),
    );
    if let Ok(value) = HeaderValue::from_str(&format!("Bearer {}", params.join(", "))) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

/// RFC 6750 §3: `error_description` and `scope` values MUST NOT contain `"` or `\`
/// and are printable ASCII; anything else is replaced so the header stays valid.
fn quotable(s: &str) -> String {
    s.replace('§', "section ")
        .chars()
        .map(|c| match c {
            '"' => '\'',
            '\\' => '/',
            ' '..='~' => c,
            _ => '?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn challenge(r: &HttpResponse) -> &str {
        r.headers()[WWW_AUTHENTICATE].to_str().unwrap()
    }

    #[test]
    fn a_missing_token_gets_a_plain_challenge() {
        let r = refuse(
            Problem::Missing,
            "http://h/.well-known/x",
            "mcp",
            "no token",
        );
        assert_eq!(r.status(), 401);
        assert_eq!(
            challenge(&r),
            r#"Bearer resource_metadata="http://h/.well-known/x", scope="mcp""#
        );
    }

    #[test]
    fn errors_are_named_and_quoted_safely() {
        let r = refuse(Problem::InvalidToken, "m", "", "bad \"sig\" \\ é");
        assert_eq!(r.status(), 401);
        assert_eq!(
            challenge(&r),
            r#"Bearer error="invalid_token", error_description="bad 'sig' / ?", resource_metadata="m""#
        );
        let r = refuse(Problem::InsufficientScope, "m", "a b", "needs b");
        assert_eq!(r.status(), 403);
        assert!(challenge(&r).contains(r#"error="insufficient_scope""#));
        assert!(challenge(&r).ends_with(r#"scope="a b""#));
    }
}
