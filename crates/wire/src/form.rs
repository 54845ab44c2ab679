//! `application/x-www-form-urlencoded`, both ways: the body of a token request and the
//! query of an authorization request (OAuth 2.1 §4.1.1, §4.1.3), and the query of the
//! redirect that brings the code back.

/// `a=1&b=x%20y`, each name and value percent-encoded (unreserved characters kept).
pub fn encode(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", escape(k), escape(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// [`encode`] for owned pairs (a body built up as it goes).
pub fn encode_owned(pairs: &[(String, String)]) -> String {
    let borrowed: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    encode(&borrowed)
}

/// Percent-encodes all but the unreserved characters of RFC 3986 §2.3.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The pairs of a query string (`+` is a space; bad escapes are kept as they are).
pub fn decode(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (unescape(k), unescape(v))
        })
        .collect()
}

/// One percent-encoded name or value decoded (`+` is a space).
pub fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| Some((hex(*bytes.get(i + 1)?)?, hex(*bytes.get(i + 2)?)?)))
            .flatten();
        match (bytes[i], escaped) {
            (b'+', _) => out.push(b' '),
            (_, Some((hi, lo))) => {
                out.push(hi << 4 | lo);
                i += 2;
            }
            (b, None) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let q = encode(&[
            ("redirect_uri", "http://127.0.0.1:1/cb?x=1"),
            ("scope", "a b"),
        ]);
        assert_eq!(
            q,
            "redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcb%3Fx%3D1&scope=a%20b"
        );
        assert_eq!(
            decode(&q),
            vec![
                (
                    "redirect_uri".to_owned(),
                    "http://127.0.0.1:1/cb?x=1".to_owned()
                ),
                ("scope".to_owned(), "a b".to_owned())
            ]
        );
        assert_eq!(decode("a=%zz&b=1+2&c=%4")[0].1, "%zz");
        assert_eq!(decode("b=1+2")[0].1, "1 2");
        assert_eq!(decode("c=%4")[0].1, "%4");
    }
}
