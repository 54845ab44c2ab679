//! Secrets masked before a recording's sinks see them (the client's default;
//! `--show-secrets` turns it off). A secret keeps its length, each byte replaced by
//! `*`, so a masked head still frames as it did (`Content-Length`, chunk sizes) and
//! the view shows where a token was and how long it was, never what it was.
//!
//! What is a secret, wherever it crosses on an HTTP lane: the value of an
//! `Authorization`, `Proxy-Authorization` or `DPoP` header (the scheme word,
//! `Bearer`, `Basic`, stays readable); a JSON string under a token key
//! (`access_token`, `refresh_token`, `id_token`, `client_secret`, `code_verifier`,
//! `client_assertion`, `subject_token`, `assertion`); and the same names, plus
//! `code`, as form or query parameters (a token request's body, a redirect's URL).
//! Masking is per read or write: a secret split across two reads has only the part
//! in a read that also holds its name masked (a token response body usually comes in
//! one read).

const HEADERS: [&[u8]; 3] = [b"authorization", b"proxy-authorization", b"dpop"];
const JSON_KEYS: [&[u8]; 8] = [
    b"access_token",
    b"refresh_token",
    b"id_token",
    b"client_secret",
    b"code_verifier",
    b"client_assertion",
    b"subject_token",
    b"assertion",
];
const FORM_KEYS: [&[u8]; 9] = [
    b"access_token",
    b"refresh_token",
    b"id_token",
    b"client_secret",
    b"code_verifier",
    b"client_assertion",
    b"subject_token",
    b"assertion",
    b"code",
];

/// The bytes with every secret masked, or `None` when there is none.
pub fn mask(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut spans = Vec::new();
    headers(bytes, &mut spans);
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

/// `Name: Scheme value` lines: the value after the scheme word.
fn headers(b: &[u8], spans: &mut Vec<(usize, usize)>) {
    let mut line_start = 0;
    while line_start < b.len() {
        let end = find(&b[line_start..], b"\n").map_or(b.len(), |i| line_start + i);
        let line = &b[line_start..end];
        if let Some(colon) = line.iter().position(|&c| c == b':') {
            let name = &line[..colon];
            if HEADERS.iter().any(|h| name.eq_ignore_ascii_case(h)) {
                let mut v = line_start + colon + 1;
                let stop = if line.last() == Some(&b'\r') {
                    end - 1
                } else {
                    end
                };
                while v < stop && (b[v] == b' ' || b[v] == b'\t') {
                    v += 1;
                }
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

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
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
}
