//! The server side of TLS, for every listener that takes `--tls-cert FILE --tls-key
//! FILE` (`serve --http`, `bridge`, `replay --http`, `auth-server`, the tap): the
//! certificate and key read into a rustls server configuration, and one accept per
//! connection, under a deadline, that yields the plaintext stream and the handshake's
//! facts. TLS sits below the recording layer, as on the client: what is recorded is
//! the plaintext HTTP, and each accepted connection's handshake is one
//! [`What::Tls`](crate::wire::event::What) event on its lane.
//!
//! Nothing here runs for a plain listener: without the flags there is no
//! [`Acceptor`], and the accept loops take the path they always took.

use crate::wire::tls::{Cert, TlsFacts};
use anyhow::{Context, bail};
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use sha2::Digest;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

/// A listener's TLS: the certificate it presents, ready to accept connections.
pub struct Acceptor {
    /// rustls's acceptor over the configuration built from the files.
    acceptor: tokio_rustls::TlsAcceptor,
}

impl std::fmt::Debug for Acceptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Acceptor")
    }
}

impl Acceptor {
    /// The acceptor the flags ask for: none without them; both are needed, and each
    /// file must hold what its flag says (the error names the flag and the path).
    /// `client_ca` (`--tls-client-ca`): require each client's certificate, signed by
    /// one of its CAs (mTLS).
    pub fn from_flags(
        cert: Option<&Path>,
        key: Option<&Path>,
        client_ca: Option<&Path>,
    ) -> anyhow::Result<Option<Acceptor>> {
        match (cert, key) {
            (None, None) => match client_ca {
                Some(_) => bail!("--tls-client-ca needs --tls-cert and --tls-key"),
                None => Ok(None),
            },
            (Some(cert), Some(key)) => Acceptor::load(cert, key, client_ca).map(Some),
            (Some(_), None) => bail!("--tls-cert needs --tls-key (the certificate's private key)"),
            (None, Some(_)) => bail!("--tls-key needs --tls-cert (the certificate it belongs to)"),
        }
    }

    /// Reads a PEM certificate chain (leaf first) and its private key (PKCS#8,
    /// PKCS#1 or SEC1) and checks that the key is the certificate's; with
    /// `client_ca`, the roots a client's certificate must chain to.
    pub fn load(cert: &Path, key: &Path, client_ca: Option<&Path>) -> anyhow::Result<Acceptor> {
        let text = std::fs::read(cert)
            .with_context(|| format!("--tls-cert {}: cannot read it", cert.display()))?;
        let chain = CertificateDer::pem_slice_iter(&text)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                anyhow::anyhow!("--tls-cert {}: not PEM certificates: {e}", cert.display())
            })?;
        if chain.is_empty() {
            bail!(
                "--tls-cert {}: no \"-----BEGIN CERTIFICATE-----\" in it",
                cert.display()
            );
        }
        let private = PrivateKeyDer::from_pem_file(key).map_err(|e| {
            anyhow::anyhow!("--tls-key {}: no private key read: {e}", key.display())
        })?;
        // ring, as the client's TLS (no OpenSSL); see client/tls.rs for why its
        // deprecated provider is still the one.
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        // TLS 1.3 (RFC 8446) and 1.2 (RFC 5246); RFC 8996 retired 1.0 and 1.1.
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .context("TLS protocol versions")?;
        let builder = match client_ca {
            None => builder.with_no_client_auth(),
            Some(path) => {
                // RFC 8446 §4.3.2 CertificateRequest: the client must answer with a
                // chain to one of these roots, or the handshake fails.
                let text = std::fs::read(path).with_context(|| {
                    format!("--tls-client-ca {}: cannot read it", path.display())
                })?;
                let mut roots = rustls::RootCertStore::empty();
                for der in CertificateDer::pem_slice_iter(&text) {
                    let der = der.map_err(|e| {
                        anyhow::anyhow!(
                            "--tls-client-ca {}: not PEM certificates: {e}",
                            path.display()
                        )
                    })?;
                    roots.add(der).with_context(|| {
                        format!(
                            "--tls-client-ca {}: a certificate is not usable as a trust anchor",
                            path.display()
                        )
                    })?;
                }
                if roots.is_empty() {
                    bail!(
                        "--tls-client-ca {}: no \"-----BEGIN CERTIFICATE-----\" in it",
                        path.display()
                    );
                }
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                )
                .build()
                .context("--tls-client-ca")?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder.with_single_cert(chain, private).map_err(|e| {
            anyhow::anyhow!(
                "--tls-key {} does not fit --tls-cert {}: {e}",
                key.display(),
                cert.display()
            )
        })?;
        // The HTTP under this TLS is HTTP/1.1 only (RFC 7301 §3.1 ALPN `http/1.1`): a
        // client that offers only h2 gets no_application_protocol, not a stream it
        // cannot read.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Acceptor {
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
        })
    }

    /// Runs the server side of the handshake on a connection accepted at `started`,
    /// within `deadline` (the listener's header timeout: a client that opens a
    /// connection and sends half a ClientHello holds a slot no longer than one that
    /// sends half a request head); `clock` names it in the error (`--header-timeout`).
    /// A client that speaks plain HTTP to this port gets a plaintext `400` saying to
    /// use `https://` before the close. The error says what went wrong, for the
    /// listener's log line.
    pub async fn accept(
        &self,
        tcp: TcpStream,
        deadline: Duration,
        clock: &str,
        started: Instant,
    ) -> Result<(TlsStream<TcpStream>, TlsFacts), String> {
        let handshake = async {
            // A TLS connection opens with a handshake record: content type 22
            // (RFC 8446 §5.1, RFC 5246 §6.2.1). Anything else is not TLS.
            let mut first = [0u8; 1];
            match tcp.peek(&mut first).await {
                Ok(0) => return Err("closed before sending anything".to_owned()),
                Ok(_) if first[0] != 22 => return Err(refuse_plaintext(tcp, first[0]).await),
                Ok(_) => {}
                Err(e) => return Err(format!("reading the ClientHello failed: {e}")),
            }
            self.acceptor
                .accept(tcp)
                .await
                .map_err(|e| format!("TLS handshake failed: {e}"))
        };
        let stream = match tokio::time::timeout(deadline, handshake).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(why)) => return Err(why),
            Err(_) => {
                return Err(format!(
                    "no complete TLS handshake within {} s ({clock})",
                    deadline.as_secs_f64()
                ));
            }
        };
        let handshake_us = started.elapsed().as_micros() as u64;
        let (tcp, conn) = stream.get_ref();
        let mut facts = settled(conn, handshake_us);
        facts.sni = conn.server_name().map(str::to_owned);
        // No SNI (the client named an IP address): the address it reached.
        facts.server_name = match &facts.sni {
            Some(sni) => sni.clone(),
            None => tcp
                .local_addr()
                .map(|a| a.ip().to_string())
                .unwrap_or_default(),
        };
        facts.accepted = true;
        facts.client_cert = !facts.chain.is_empty();
        Ok((stream, facts))
    }
}

/// A plain-HTTP client on the TLS port: a `400` it can read (as nginx answers "The
/// plain HTTP request was sent to HTTPS port"), written only if the socket takes it
/// now; the reason, for the log line.
async fn refuse_plaintext(mut tcp: TcpStream, first: u8) -> String {
    let body = "This port speaks TLS: use https:// (the request was sent in plain HTTP)\n";
    let response = format!(
        "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    // Read what it sent first, so the close does not reset the connection under
    // the response (unread input makes the kernel send RST).
    let mut sink = [0u8; 4096];
    while let Ok(n) = tcp.try_read(&mut sink) {
        if n == 0 {
            break;
        }
    }
    if tcp.try_write(response.as_bytes()).is_ok() {
        let _ = tokio::time::timeout(Duration::from_millis(100), tcp.shutdown()).await;
    }
    if first.is_ascii_alphabetic() {
        "the client spoke plain HTTP to the TLS port (answered 400: use https://)".to_owned()
    } else {
        format!("the client did not open with a TLS handshake (first byte 0x{first:02x})")
    }
}

/// What any finished handshake settled, from either side: version, cipher suite,
/// ALPN, resumption, the peer's chain. The side-specific facts (SNI, the name
/// checked, `--insecure`, a client certificate) are the caller's to fill.
pub fn settled(conn: &rustls::CommonState, handshake_us: u64) -> TlsFacts {
    TlsFacts {
        version: match conn.protocol_version() {
            Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3".to_owned(),
            Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2".to_owned(),
            Some(other) => format!("{other:?}"),
            None => "unknown".to_owned(),
        },
        cipher: conn
            .negotiated_cipher_suite()
            .map(|s| format!("{:?}", s.suite()))
            .unwrap_or_default(),
        alpn: conn
            .alpn_protocol()
            .map(|p| String::from_utf8_lossy(p).into_owned()),
        sni: None,
        server_name: String::new(),
        resumed: matches!(conn.handshake_kind(), Some(rustls::HandshakeKind::Resumed)),
        handshake_us,
        insecure: false,
        unverified: None,
        client_cert: false,
        accepted: false,
        chain: conn
            .peer_certificates()
            .map(|c| c.iter().map(|d| describe(d)).collect())
            .unwrap_or_default(),
    }
}
/// A time in seconds since 1970 as the transcript writes times.
pub(crate) fn unix(secs: i64) -> String {
    crate::clock::format_unix_millis(secs.saturating_mul(1000))
}

/// A certificate's facts, read from its DER; one that does not parse says so.
pub fn describe(der: &CertificateDer<'_>) -> Cert {
    let sha256 = sha2::Sha256::digest(der.as_ref())
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":");
    match x509_parser::parse_x509_certificate(der.as_ref()) {
        Ok((_, cert)) => Cert {
            subject: printable(&cert.subject().to_string()),
            issuer: printable(&cert.issuer().to_string()),
            not_before: unix(cert.validity().not_before.timestamp()),
            not_after: unix(cert.validity().not_after.timestamp()),
            sha256,
        },
        Err(e) => Cert {
            subject: format!("(not a readable X.509 certificate: {e})"),
            issuer: String::new(),
            not_before: String::new(),
            not_after: String::new(),
            sha256,
        },
    }
}

/// A name from the wire, its control characters escaped: it is shown on terminals.
fn printable(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}
