//! Secrets masked before a recording's sinks see them (the client's default;
//! `--show-secrets` turns it off). A secret keeps its length, each byte replaced by
//! `*`, so a masked head still frames as it did (`Content-Length`, chunk sizes) and
//! the view shows where a token was and how long it was, never what it was.
//!
//! What is a secret, wherever it crosses on an HTTP lane: the value of an
//! `Authorization`, `Proxy-Authorization` or `DPoP` header (the scheme word,
//! `Bearer`, `Basic`, stays readable); each cookie's value in `Cookie` and the
//! cookie's value in `Set-Cookie` (RFC 6265 §4.1, §4.2: names and attributes stay
//! readable); the whole value of an API-key or token header (`X-Api-Key`, `Api-Key`,
//! any name ending in `-api-key`, `-apikey`, `-token` or `-secret`) and of every
//! header named with `--redact-header`; a JSON string under a token key
//! (`access_token`, `refresh_token`, `id_token`, `client_secret`, `code_verifier`,
//! `client_assertion`, `subject_token`, `assertion`, `registration_access_token`
//! (RFC 7591 §3.2.1), `password`); and the same names, plus `code`, `token` (an
//! introspection request's, RFC 7662 §2.1) and `password` (RFC 6749 §4.3.2), as form
//! or query parameters (a token request's body, a redirect's URL).
//!
//! Only HTTP lanes are masked: a stdio lane carries JSON-RPC, and a stdio server's
//! secrets (an environment variable echoed, a tool's result) are the protocol's
//! payload, recorded as they crossed.
//! Masking is per read or write: a secret split across two reads has only the part
//! in a read that also holds its name masked (a token response body usually comes in
//! one read).

/// Headers whose value is `Scheme credentials` (RFC 9110 §11.4, RFC 9449 §4.1):
/// the credentials are masked, the scheme word kept.
const HEADERS: [&[u8]; 3] = [b"authorization", b"proxy-authorization", b"dpop"];
/// Headers that are a secret whole, whatever their shape.
const WHOLE_HEADERS: [&[u8]; 2] = [b"x-api-key", b"api-key"];
/// Name endings that make a header a secret whole (`X-Goog-Api-Key`,
/// `X-Auth-Token`, `X-Client-Secret`).
const WHOLE_SUFFIXES: [&[u8]; 4] = [b"-api-key", b"-apikey", b"-token", b"-secret"];
const JSON_KEYS: [&[u8]; 10] = [
    b"access_token",
    b"refresh_token",
    b"id_token",
    b"client_secret",
    b"code_verifier",
    b"client_assertion",
    b"subject_token",
    b"assertion",
    b"registration_access_token",
    b"password",
];
const FORM_KEYS: [&[u8]; 11] = [
    b"access_token",
    b"refresh_token",
    b"id_token",
    b"client_secret",
    b"code_verifier",
    b"client_assertion",
    b"subject_token",
    b"assertion",
    b"code",
    b"token",
    b"password",
];

/// The bytes with every secret masked, or `None` when there is none.
pub fn mask(bytes: &[u8]) -> Option<Vec<u8>> {
    mask_with(bytes, &[])
}

/// [`mask`], with the values of the headers named in `more` (lower case,
/// `--redact-header`) masked whole too.
pub fn mask_with(bytes: &[u8], more: &[Vec<u8>]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut spans = Vec::new();
    headers(bytes, more, &mut spans);
    json(bytes, &mut spans);
    form(bytes, &mut spans);
    for (from, to) in spans {
        let buf = out.get_or_insert_with(|| bytes.to_vec());
        for b in &mut buf[from..to] {
            *b = b'*';
        }
    }
    out
}

/// How much of a header's value is a secret.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// `Scheme credentials`: the credentials.
    Scheme,
    /// `a=1; b=2` (`Cookie`): each value.
    Cookies,
    /// `a=1; Path=/` (`Set-Cookie`): the first pair's value.
    SetCookie,
    /// All of it.
    Whole,
}

fn shape(name: &[u8], more: &[Vec<u8>]) -> Option<Shape> {
    let lower = name.to_ascii_lowercase();
    if HEADERS.contains(&lower.as_slice()) {
        Some(Shape::Scheme)
    } else if lower == b"cookie" {
        Some(Shape::Cookies)
    } else if lower == b"set-cookie" {
        Some(Shape::SetCookie)
    } else if WHOLE_HEADERS.contains(&lower.as_slice())
        || WHOLE_SUFFIXES.iter().any(|s| lower.ends_with(s))
        || more.contains(&lower)
    {
        Some(Shape::Whole)
    } else {
        None
    }
}

/// `Name: value` lines: the part of the value that is a secret.
fn headers(b: &[u8], more: &[Vec<u8>], spans: &mut Vec<(usize, usize)>) {
    let mut line_start = 0;
    while line_start < b.len() {
        let end = find(&b[line_start..], b"\n").map_or(b.len(), |i| line_start + i);
        let line = &b[line_start..end];
        // A header name is a token (RFC 9110 §5.1): no space before the colon, so
        // a JSON body's `"key": value` is never taken for one.
        if let Some(colon) = line.iter().position(|&c| c == b':')
            && colon > 0
            && line[..colon]
                .iter()
                .all(|c| c.is_ascii_graphic() && *c != b'"')
            && let Some(shape) = shape(&line[..colon], more)
        {
            let mut v = line_start + colon + 1;
            let stop = if line.last() == Some(&b'\r') {
                end - 1
            } else {
                end
            };
            while v < stop && (b[v] == b' ' || b[v] == b'\t') {
                v += 1;
            }
            if shape == Shape::Whole {
                if v < stop {
                    spans.push((v, stop));
                }
            } else if shape != Shape::Scheme {
                cookie_values(b, v, stop, shape == Shape::Cookies, spans);
            } else {
                // Keep a scheme word (`Bearer`, `Basic`, `DPoP`) readable.
                let word_end = (v..stop).find(|&i| b[i] == b' ').unwrap_or(v);
                let secret_from = if word_end > v { word_end + 1 } else { v };
                if secret_from < stop {
                    spans.push((secret_from, stop));
                }
            }
        }
        line_start = end + 1;
    }
}

/// The values of `name=value` pairs separated by `;` in `b[from..stop]`: every pair
/// (`Cookie`), or only the first (`Set-Cookie`: the rest are attributes).
fn cookie_values(b: &[u8], from: usize, stop: usize, all: bool, spans: &mut Vec<(usize, usize)>) {
    let mut at = from;
    while at < stop {
        let pair_end = (at..stop).find(|&i| b[i] == b';').unwrap_or(stop);
        match (at..pair_end).find(|&i| b[i] == b'=') {
            Some(eq) if eq + 1 < pair_end => spans.push((eq + 1, pair_end)),
            // A cookie with no `=` is a value alone (RFC 6265 §5.2 reads it so).
            None if pair_end > at => spans.push((at, pair_end)),
            _ => {}
        }
        if !all {
            break;
        }
        at = pair_end + 1;
        while at < stop && b[at] == b' ' {
            at += 1;
        }
    }
}

/// `"key": "value"` for the token keys: the value's characters.
fn json(b: &[u8], spans: &mut Vec<(usize, usize)>) {
    for key in JSON_KEYS {
        let mut at = 0;
        while let Some(i) = find(&b[at..], key) {
            let start = at + i;
            at = start + key.len();
            if start == 0 || b[start - 1] != b'"' || b.get(at) != Some(&b'"') {
                continue;
            }
            let mut j = at + 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if b.get(j) != Some(&b':') {
                continue;
            }
            j += 1;
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                continue;
            }
            let from = j + 1;
            let mut k = from;
            while k < b.len() && b[k] != b'"' {
                k += if b[k] == b'\\' { 2 } else { 1 };
            }
            spans.push((from, k.min(b.len())));
        }
    }
}

/// `key=value` after the start, `&`, `?` or a line break: the value.
fn form(b: &[u8], spans: &mut Vec<(usize, usize)>) {
    for key in FORM_KEYS {
        let mut at = 0;
        while let Some(i) = find(&b[at..], key) {
            let start = at + i;
            at = start + key.len();
            let before_ok = start == 0 || matches!(b[start - 1], b'&' | b'?' | b'\n');
            if !before_ok || b.get(at) != Some(&b'=') {
                continue;
            }
            let from = at + 1;
            let to = (from..b.len())
                .find(|&k| matches!(b[k], b'&' | b' ' | b'\r' | b'\n' | b'#'))
                .unwrap_or(b.len());
            if to > from {
                spans.push((from, to));
            }
        }
    }
}

/// Where `needle` first occurs in `hay`: memchr's substring search, vectorised (each
/// HTTP read on a masked lane is searched for every key, on the wire's path).
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_json_and_forms_keep_their_length_and_lose_their_secret() {
        let head = b"POST /mcp HTTP/1.1\r\nauthorization: Bearer abc.def\r\nx: y\r\n\r\n";
        let m = mask(head).unwrap();
        assert_eq!(m.len(), head.len());
        assert!(m.windows(22).any(|w| w == b"authorization: Bearer "));
        assert!(String::from_utf8_lossy(&m).contains("Bearer *******\r\n"));
        let body = br#"{"access_token": "tok\"en", "token_type":"Bearer","refresh_token":"r1"}"#;
        let m = String::from_utf8(mask(body).unwrap()).unwrap();
        assert_eq!(
            m,
            r#"{"access_token": "*******", "token_type":"Bearer","refresh_token":"**"}"#
        );
        let form = b"grant_type=authorization_code&code=xyz&code_verifier=v123&client_id=c";
        let m = String::from_utf8(mask(form).unwrap()).unwrap();
        assert_eq!(
            m,
            "grant_type=authorization_code&code=***&code_verifier=****&client_id=c"
        );
        let url = b"GET /callback?code=abc&state=s HTTP/1.1\r\n";
        assert!(
            String::from_utf8(mask(url).unwrap())
                .unwrap()
                .contains("code=***&state=s")
        );
        assert_eq!(
            mask(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"),
            None
        );
        // "code" inside a JSON-RPC error is not a form field.
        assert_eq!(mask(br#"{"error":{"code":-32601}}"#), None);
    }

    #[test]
    fn cookies_api_keys_introspection_and_passwords() {
        let head = b"GET / HTTP/1.1\r\nCookie: sid=abc; theme=dark\r\nSet-Cookie: sid=xyz; Path=/; HttpOnly\r\nX-Api-Key: k123\r\nX-Auth-Token: t9\r\nX-Mine: m1\r\nMcp-Session-Id: s1\r\n\r\n";
        let m = String::from_utf8(mask_with(head, &[b"x-mine".to_vec()]).unwrap()).unwrap();
        assert!(m.contains("Cookie: sid=***; theme=****\r\n"), "{m}");
        assert!(
            m.contains("Set-Cookie: sid=***; Path=/; HttpOnly\r\n"),
            "{m}"
        );
        assert!(m.contains("X-Api-Key: ****\r\n"), "{m}");
        assert!(m.contains("X-Auth-Token: **\r\n"), "{m}");
        assert!(m.contains("X-Mine: **\r\n"), "{m}");
        assert!(m.contains("Mcp-Session-Id: s1\r\n"), "{m}");
        let m = String::from_utf8(mask(head).unwrap()).unwrap();
        assert!(m.contains("X-Mine: m1\r\n"), "{m}");
        let form = b"token=eyJ.a.b&token_type_hint=access_token";
        assert_eq!(
            String::from_utf8(mask(form).unwrap()).unwrap(),
            "token=*******&token_type_hint=access_token"
        );
        let form = b"grant_type=password&username=u&password=hunter2";
        assert_eq!(
            String::from_utf8(mask(form).unwrap()).unwrap(),
            "grant_type=password&username=u&password=*******"
        );
        let body = br#"{"client_id":"c","registration_access_token":"rat"}"#;
        assert_eq!(
            String::from_utf8(mask(body).unwrap()).unwrap(),
            r#"{"client_id":"c","registration_access_token":"***"}"#
        );
    }
}
