//! One OTLP/HTTP export: `POST` of an encoded request to a collector's endpoint
//! (OTLP `docs/specification.md` "OTLP/HTTP": `Content-Type: application/x-protobuf`
//! or `application/json`, a 2xx answer is success), over TCP or, for `https://`,
//! the client's TLS (rustls, the system's roots). One connection per export,
//! `Connection: close`: exports are seconds apart, and a collector that hangs holds
//! nothing of ours past the timeout the caller puts around this.

use anyhow::{Context as _, anyhow, bail};
use mcp_raw_net::client::tls::Tls;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest response head read from a collector.
const MAX_HEAD: usize = 16 * 1024;
/// How much of an error response's body is quoted.
const MAX_QUOTE: usize = 512;

/// A collector's URL, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// As given (what reports quote).
    pub url: String,
    /// `https://`.
    pub tls: bool,
    /// The host, brackets removed from an IPv6 literal.
    pub host: String,
    /// The port (80, 443 by default).
    pub port: u16,
    /// The path the export is posted to (`/v1/traces`).
    pub path: String,
    /// `Host:`'s value: the URL's authority.
    pub authority: String,
}

impl Endpoint {
    /// Reads `http://HOST[:PORT][/PATH]` or `https://…`; anything else is refused
    /// with what was wrong.
    pub fn parse(url: &str) -> Result<Endpoint, String> {
        let (tls, rest) = if let Some(r) = url.strip_prefix("http://") {
            (false, r)
        } else if let Some(r) = url.strip_prefix("https://") {
            (true, r)
        } else {
            return Err(format!(
                "{url:?}: an OTLP/HTTP endpoint starts with http:// or https://"
            ));
        };
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let path = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_owned()
        };
        if authority.is_empty() || authority.contains('@') {
            return Err(format!("{url:?}: no host (or a user in it)"));
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, after) = v6
                .split_once(']')
                .ok_or_else(|| format!("{url:?}: an IPv6 host without its ]"))?;
            (h.to_owned(), after.strip_prefix(':'))
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_owned(), Some(p)),
                None => (authority.to_owned(), None),
            }
        };
        let port = match port {
            None => {
                if tls {
                    443
                } else {
                    80
                }
            }
            Some(p) => p
                .parse()
                .map_err(|_| format!("{url:?}: the port {p:?} is not a number from 0 to 65535"))?,
        };
        Ok(Endpoint {
            url: url.to_owned(),
            tls,
            host,
            port,
            path,
            authority: authority.to_owned(),
        })
    }

    /// This endpoint's base with `suffix` appended to its path
    /// (`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`).
    pub fn join(base: &str, suffix: &str) -> String {
        format!("{}{suffix}", base.trim_end_matches('/'))
    }
}

/// Posts `body` to `to`; `Ok` on a 2xx, else the status and the start of the body
/// (or the I/O error) as the error.
pub async fn post(
    to: &Endpoint,
    content_type: &str,
    headers: &[(String, String)],
    body: &[u8],
    tls: &Tls,
) -> anyhow::Result<u16> {
    let tcp = tokio::net::TcpStream::connect((to.host.as_str(), to.port))
        .await
        .with_context(|| format!("cannot connect to {}", to.authority))?;
    let _ = tcp.set_nodelay(true);
    if to.tls {
        let (stream, _) = tls
            .connect(tcp, &to.host, &to.authority, std::time::Instant::now())
            .await?;
        exchange(stream, to, content_type, headers, body).await
    } else {
        exchange(tcp, to, content_type, headers, body).await
    }
}

async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    mut s: S,
    to: &Endpoint,
    content_type: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> anyhow::Result<u16> {
    let mut head = format!(
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nUser-Agent: mcp-raw/{}\r\nConnection: close\r\n",
        to.path,
        to.authority,
        body.len(),
        env!("CARGO_PKG_VERSION"),
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).await?;
    s.write_all(body).await?;
    s.flush().await?;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let end = loop {
        if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if got.len() > MAX_HEAD {
            bail!("the collector's response head is over {MAX_HEAD} bytes");
        }
        let n = s.read(&mut buf).await?;
        if n == 0 {
            bail!("the collector closed the connection without answering");
        }
        got.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&got[..end]).into_owned();
    let status: u16 = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| {
            anyhow!(
                "the collector answered something other than HTTP: {:?}",
                head.lines().next().unwrap_or("")
            )
        })?;
    if (200..300).contains(&status) {
        return Ok(status);
    }
    // The error's body says why (OTLP: a google.rpc.Status, or text): quote its start.
    let mut rest = got[end..].to_vec();
    while rest.len() < MAX_QUOTE {
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => rest.extend_from_slice(&buf[..n]),
        }
    }
    rest.truncate(MAX_QUOTE);
    let text: String = String::from_utf8_lossy(&rest)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    Err(anyhow!(
        "the collector answered {}{}",
        head.lines().next().unwrap_or("").trim(),
        if text.trim().is_empty() {
            String::new()
        } else {
            format!(": {}", text.trim())
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_read_and_refused() {
        let e = Endpoint::parse("http://127.0.0.1:4318/v1/traces").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.path.as_str()),
            ("127.0.0.1", 4318, "/v1/traces")
        );
        let e = Endpoint::parse("https://[::1]/x").unwrap();
        assert_eq!((e.host.as_str(), e.port, e.tls), ("::1", 443, true));
        assert!(Endpoint::parse("ftp://x").unwrap_err().contains("http://"));
        assert!(
            Endpoint::parse("http://h:99999/")
                .unwrap_err()
                .contains("99999")
        );
        assert_eq!(
            Endpoint::join("http://h:1/", "/v1/traces"),
            "http://h:1/v1/traces"
        );
    }
}
