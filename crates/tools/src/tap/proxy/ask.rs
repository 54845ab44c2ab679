//! The proxy request: its head read (bounded in size and time), and its first line,
//! which names the host: `CONNECT host:port` (RFC 9110 §9.3.6, authority form) or a
//! request in absolute form, `GET http://host/…` (RFC 9112 §3.2.2).

use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// A proxy request's first line, read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Ask {
    /// `CONNECT host:port`.
    Connect { host: String, port: u16 },
    /// An absolute-form request to `http://host:port/…`.
    Plain { host: String, port: u16 },
}

/// Reads a proxy request's first line; an error says what is wrong, quoting it.
pub(super) fn ask(head: &[u8]) -> Result<Ask, String> {
    let line_end = head.iter().position(|&b| b == b'\n').unwrap_or(head.len());
    let line = String::from_utf8_lossy(&head[..line_end]);
    let line = line.trim_end_matches('\r');
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!(
            "the request line {line:?} is not METHOD TARGET HTTP/1.1 (RFC 9112 §3)"
        ));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(format!(
            "the request line {line:?}: {version:?} is not HTTP/1.x"
        ));
    }
    if method == "CONNECT" {
        // RFC 9110 §9.3.6: CONNECT's target is authority-form, host and port both.
        let (host, port) = authority(target).ok_or_else(|| {
            format!("CONNECT {target:?}: the target must be HOST:PORT (RFC 9110 §9.3.6)")
        })?;
        let port = port.ok_or_else(|| {
            format!("CONNECT {target:?}: no port (RFC 9110 §9.3.6 requires one, e.g. {target}:443)")
        })?;
        return Ok(Ask::Connect { host, port });
    }
    let Some(rest) = target.strip_prefix("http://") else {
        return Err(format!(
            "{method} {target:?}: a proxy takes CONNECT HOST:PORT or an absolute http:// URL (RFC 9112 §3.2.2)"
        ));
    };
    let auth = rest.split(['/', '?']).next().unwrap_or("");
    let (host, port) =
        authority(auth).ok_or_else(|| format!("{method} {target:?}: no host in the URL"))?;
    Ok(Ask::Plain {
        host,
        port: port.unwrap_or(80),
    })
}

/// `host:port`, `[v6]:port`, or a bare host: the host (brackets off) and the port.
fn authority(text: &str) -> Option<(String, Option<u16>)> {
    let (host, port) = match text.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = v6.split_once(']')?;
            (host, after.strip_prefix(':'))
        }
        None => match text.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (text, None),
        },
    };
    let host_ok = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._:".contains(&b));
    if !host_ok {
        return None;
    }
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok().filter(|&p| p != 0)?),
        None => None,
    };
    Some((host.to_owned(), port))
}

/// Reads up to the end of the request head; returns the head and what came after it.
pub(super) async fn read_head(
    client: &mut TcpStream,
    timeout: Duration,
    max: usize,
) -> Result<(Vec<u8>, Vec<u8>), HeadError> {
    let mut seen = Vec::new();
    let mut buf = vec![0u8; 4096];
    let read = tokio::time::timeout(timeout, async {
        loop {
            if let Some(end) = head_end(&seen)
                && end <= max
            {
                let rest = seen.split_off(end);
                return Ok((seen, rest));
            }
            if seen.len() > max {
                // (a head that ended past the limit is as long)
                return Err(HeadError::TooLong(format!(
                    "the request head passed {max} bytes without ending (tap --max-head-bytes)"
                )));
            }
            match client.read(&mut buf).await {
                Ok(0) => {
                    return Err(HeadError::Gone(
                        "the client closed before its request head ended".into(),
                    ));
                }
                Ok(n) => seen.extend_from_slice(&buf[..n]),
                Err(e) => return Err(HeadError::Gone(format!("reading the client failed: {e}"))),
            }
        }
    })
    .await;
    read.unwrap_or_else(|_| {
        Err(HeadError::Gone(format!(
            "no complete request head within {} s (tap --header-timeout)",
            timeout.as_secs_f64()
        )))
    })
}

/// Why no proxy request head was read.
pub(super) enum HeadError {
    /// Too long: answered with 400.
    TooLong(String),
    /// Closed, failed or too slow: the connection is closed.
    Gone(String),
}

/// Where a head ends (after its blank line), if it has.
fn head_end(bytes: &[u8]) -> Option<usize> {
    bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_requests_are_read_or_refused_with_the_reason() {
        assert_eq!(
            ask(b"CONNECT localhost:443 HTTP/1.1\r\n\r\n"),
            Ok(Ask::Connect {
                host: "localhost".into(),
                port: 443
            })
        );
        assert_eq!(
            ask(b"CONNECT [::1]:8443 HTTP/1.1\r\n\r\n"),
            Ok(Ask::Connect {
                host: "::1".into(),
                port: 8443
            })
        );
        assert!(
            ask(b"CONNECT localhost HTTP/1.1\r\n\r\n")
                .unwrap_err()
                .contains("no port")
        );
        assert!(
            ask(b"CONNECT a b:1 HTTP/1.1\r\n\r\n")
                .unwrap_err()
                .contains("METHOD")
        );
        assert!(
            ask(b"GET /mcp HTTP/1.1\r\n\r\n")
                .unwrap_err()
                .contains("absolute")
        );
        assert_eq!(
            ask(b"POST http://127.0.0.1:3100/mcp HTTP/1.1\r\n\r\n"),
            Ok(Ask::Plain {
                host: "127.0.0.1".into(),
                port: 3100
            })
        );
    }
}
