//! The client's TLS, for `https://` URLs (the MCP endpoint and the OAuth documents
//! fetched from there): rustls with ring, the platform trust store plus `--cacert`,
//! `--insecure`, a client certificate (`--cert`/`--key`, mTLS) and an NSS key log
//! (`--keylog`, `SSLKEYLOGFILE`). TLS sits below the recording layer: what is
//! recorded is the plaintext HTTP, exactly as over `http://`, and each connection's
//! handshake becomes one [`What::Tls`](crate::wire::event::What) event.
//!
//! Nothing here runs for `http://`: the trust store is read on the first `https://`
//! connection.

use crate::wire::tls::{Cert, TlsFacts};
use anyhow::{Context, bail};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{WebPkiServerVerifier, verify_server_name};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use sha2::Digest;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// What the TLS flags say.
#[derive(Debug, Clone, Default)]
pub struct TlsOptions {
    /// `--cacert FILE` (repeatable): PEM certificates trusted as roots, besides the
    /// system's.
    pub cacert: Vec<PathBuf>,
    /// `--insecure`: connect even when the server's chain does not verify.
    pub insecure: bool,
    /// `--cert FILE`: the client's certificate chain, PEM, leaf first (mTLS).
    pub cert: Option<PathBuf>,
    /// `--key FILE`: the private key of `--cert`, PEM (PKCS#8, PKCS#1 or SEC1).
    pub key: Option<PathBuf>,
    /// `--keylog FILE` (or `SSLKEYLOGFILE`): where each session's secrets go, in the
    /// NSS key log format Wireshark reads.
    pub keylog: Option<PathBuf>,
}

/// The client's TLS setup, shared by every link of one run (so a second connection
/// to a server can resume the first one's session).
pub struct Tls {
    /// The flags, read when the configuration is built.
    options: TlsOptions,
    /// `--cacert`'s certificates and `--cert`/`--key`, read (and checked) up front.
    files: Files,
    /// Built on the first `https://` connection: reading the system trust store costs
    /// milliseconds a plain-HTTP run need not spend.
    built: OnceLock<Result<Built, String>>,
    /// The ALPN protocols offered (RFC 7301 §3.1): `http/1.1` for the HTTP client,
    /// none for Redis, whose TLS port does not negotiate one.
    alpn: Vec<Vec<u8>>,
    /// What a refusal tells the user to try: the flags of the command connecting.
    advice: Advice,
}

/// What a refusal tells the user to try, in the flags of the command that connects
/// (`client`'s by default, `serve --store`'s for Redis).
#[derive(Debug, Clone, Copy)]
pub struct Advice {
    /// The plaintext scheme a server that does not answer in TLS is told to use
    /// instead (`http://`, `redis://`).
    pub plain: &'static str,
    /// The flag that adds a root (`--cacert`), suggested for an unknown issuer.
    pub cacert: &'static str,
    /// The flag that skips the check, where there is one (`--insecure`).
    pub insecure: Option<&'static str>,
    /// The flags that present a client certificate (`--cert FILE --key FILE`).
    pub cert: &'static str,
}

/// `client`'s flags.
const CLIENT_ADVICE: Advice = Advice {
    plain: "http://",
    cacert: "--cacert",
    insecure: Some("--insecure"),
    cert: "--cert FILE --key FILE",
};

/// The files the flags name, read.
struct Files {
    /// `--cacert`'s roots.
    roots: Vec<CertificateDer<'static>>,
    /// `--cert` and `--key`.
    identity: Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>,
    /// `--keylog`, opened for appending.
    keylog: Option<Arc<KeyLogTo>>,
}

/// The configuration every connection uses: one, so that a later connection can
/// resume an earlier session (rustls resumes only under the same verifier).
struct Built {
    /// Protocol versions, roots, client certificate, key log, resumption store.
    connector: tokio_rustls::TlsConnector,
    /// The chain check against the roots; `None` when there are none (only with
    /// `--insecure`).
    webpki: Option<Arc<WebPkiServerVerifier>>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls")
            .field("options", &self.options)
            .finish()
    }
}

impl Default for Tls {
    /// The system's roots, nothing else.
    fn default() -> Tls {
        Tls {
            options: TlsOptions::default(),
            files: Files {
                roots: Vec::new(),
                identity: None,
                keylog: None,
            },
            built: OnceLock::new(),
            alpn: vec![b"http/1.1".to_vec()],
            advice: CLIENT_ADVICE,
        }
    }
}

impl Tls {
    /// Reads the files the options name; an unreadable or empty one is an error that
    /// names it.
    pub fn new(options: TlsOptions) -> anyhow::Result<Tls> {
        let mut roots = Vec::new();
        for path in &options.cacert {
            let certs = read_certs(path).with_context(|| format!("--cacert {}", path.display()))?;
            roots.extend(certs);
        }
        let identity = match (&options.cert, &options.key) {
            (None, None) => None,
            (Some(cert), Some(key)) => {
                let chain =
                    read_certs(cert).with_context(|| format!("--cert {}", cert.display()))?;
                let key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
                    anyhow::anyhow!("--key {}: no private key read: {e}", key.display())
                })?;
                Some((chain, key))
            }
            (Some(_), None) => bail!("--cert needs --key (the certificate's private key)"),
            (None, Some(_)) => bail!("--key needs --cert (the certificate it belongs to)"),
        };
        let keylog = match &options.keylog {
            Some(path) => Some(Arc::new(KeyLogTo::open(path)?)),
            None => None,
        };
        Ok(Tls {
            options,
            files: Files {
                roots,
                identity,
                keylog,
            },
            built: OnceLock::new(),
            alpn: vec![b"http/1.1".to_vec()],
            advice: CLIENT_ADVICE,
        })
    }

    /// The same setup for another protocol over TLS (the Redis store): `alpn` offered
    /// instead of `http/1.1` (empty: none), and refusals that suggest `advice`'s
    /// scheme and flags.
    pub fn for_protocol(mut self, alpn: Vec<Vec<u8>>, advice: Advice) -> Tls {
        self.alpn = alpn;
        self.advice = advice;
        self
    }

    /// Is `--insecure` on?
    pub fn insecure(&self) -> bool {
        self.options.insecure
    }

    fn built(&self) -> anyhow::Result<&Built> {
        self.built
            .get_or_init(|| self.build().map_err(|e| format!("{e:#}")))
            .as_ref()
            .map_err(|e| anyhow::anyhow!("{e}"))
    }

    fn build(&self) -> anyhow::Result<Built> {
        // ring: no OpenSSL, no cmake. rustls 0.23.48 deprecates ring's provider because it
        // lacks the post-quantum hybrid key exchange (X25519MLKEM768); X25519 and the
        // NIST curves it has are what TLS 1.3 servers accept today.
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut store = RootCertStore::empty();
        // The platform's store; certificates it cannot read are skipped, as curl does.
        let native = rustls_native_certs::load_native_certs();
        for cert in native.certs {
            let _ = store.add(cert);
        }
        for cert in &self.files.roots {
            store
                .add(cert.clone())
                .context("--cacert: a certificate is not usable as a trust anchor")?;
        }
        let webpki = if store.is_empty() {
            if !self.options.insecure {
                bail!(
                    "no trusted root certificates: the system store is empty or unreadable (is ca-certificates installed?) and no --cacert was given"
                );
            }
            None
        } else {
            Some(
                WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider.clone())
                    .build()
                    .context("the trust store")?,
            )
        };
        let watch = Arc::new(Watch {
            webpki: webpki.clone(),
            provider: provider.clone(),
            insecure: self.options.insecure,
        });
        // TLS 1.3 (RFC 8446) first, 1.2 (RFC 5246) for servers that have no 1.3;
        // nothing older: RFC 8996 deprecates TLS 1.0 and 1.1.
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .context("TLS protocol versions")?
            .dangerous()
            .with_custom_certificate_verifier(watch);
        let mut config = match &self.files.identity {
            Some((chain, key)) => builder
                .with_client_auth_cert(chain.clone(), key.clone_key())
                .context("--cert/--key: the key does not fit the certificate")?,
            None => builder.with_no_client_auth(),
        };
        // The HTTP client speaks HTTP/1.1 only (RFC 7301 §3.1 ALPN, `http/1.1`); the
        // store offers none.
        config.alpn_protocols = self.alpn.clone();
        if let Some(keylog) = &self.files.keylog {
            config.key_log = keylog.clone();
        }
        Ok(Built {
            connector: tokio_rustls::TlsConnector::from(Arc::new(config)),
            webpki,
        })
    }

    /// Runs the TLS handshake over `tcp` for `host` (`authority` names the server in
    /// errors); `started` is when the TCP connection began. Returns the stream and
    /// what the handshake settled, or an error that says why the server was refused
    /// and names its certificate.
    pub async fn connect(
        &self,
        tcp: TcpStream,
        host: &str,
        authority: &str,
        started: Instant,
    ) -> anyhow::Result<(TlsStream<TcpStream>, TlsFacts)> {
        let built = self.built()?;
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let name = ServerName::try_from(bare.to_owned())
            .map_err(|e| anyhow::anyhow!("{host:?} is not a host name TLS can check: {e}"))?;
        let sni = match &name {
            ServerName::DnsName(d) => Some(d.as_ref().to_owned()),
            _ => None,
        };
        let stream = match built.connector.connect(name.clone(), tcp).await {
            Ok(stream) => stream,
            Err(e) => return Err(anyhow::anyhow!(refused(&e, authority, &self.advice))),
        };
        let handshake_us = started.elapsed().as_micros() as u64;
        let (_, conn) = stream.get_ref();
        let peer = conn.peer_certificates().unwrap_or_default();
        // With --insecure the verifier let the chain through: say what it would have
        // found (checked again here; the verifier keeps no state per connection).
        let unverified = match (self.options.insecure, peer.split_first()) {
            (false, _) => None,
            (true, None) => Some("the server sent no certificate".to_owned()),
            (true, Some((leaf, rest))) => {
                let verdict = match &built.webpki {
                    Some(webpki) => webpki
                        .verify_server_cert(leaf, rest, &name, &[], UnixTime::now())
                        .map(|_| ()),
                    None => Err(rustls::Error::InvalidCertificate(
                        CertificateError::UnknownIssuer,
                    )),
                };
                verdict.err().map(|e| reason(&e))
            }
        };
        let mut facts = crate::transport::tls::settled(conn, handshake_us);
        facts.sni = sni;
        facts.server_name = bare.to_owned();
        facts.insecure = self.options.insecure;
        facts.unverified = unverified;
        facts.client_cert = self.files.identity.is_some();
        Ok((stream, facts))
    }
}

/// Reads every certificate of a PEM file; none is an error.
fn read_certs(path: &Path) -> anyhow::Result<Vec<CertificateDer<'static>>> {
    let text = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let certs = CertificateDer::pem_slice_iter(&text)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| anyhow::anyhow!("not PEM certificates: {e}"))?;
    if certs.is_empty() {
        bail!("no \"-----BEGIN CERTIFICATE-----\" in it");
    }
    Ok(certs)
}

/// A refused chain: why, and the leaf it was about (so the error can name it).
#[derive(Debug)]
struct Refusal {
    /// webpki's verdict.
    error: rustls::Error,
    /// The certificate the server presented.
    leaf: CertificateDer<'static>,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&reason(&self.error))
    }
}

impl std::error::Error for Refusal {}

/// The chain check: webpki against the roots; a refusal carries the leaf it refused.
/// One for the whole run, stateless: rustls resumes a session only under the
/// verifier that checked it.
struct Watch {
    /// The check against the roots (`None`: no roots, only with `--insecure`).
    webpki: Option<Arc<WebPkiServerVerifier>>,
    /// ring's signature algorithms.
    provider: Arc<CryptoProvider>,
    /// `--insecure`: a refused chain is let through.
    insecure: bool,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("insecure", &self.insecure)
            .finish()
    }
}

impl ServerCertVerifier for Watch {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let verdict = match &self.webpki {
            Some(webpki) => webpki.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            ),
            None => Err(rustls::Error::InvalidCertificate(
                CertificateError::UnknownIssuer,
            )),
        };
        // Without roots (only with --insecure), the name is still worth reporting.
        let verdict = verdict.and_then(|ok| {
            if self.webpki.is_none() {
                let cert = rustls::server::ParsedCertificate::try_from(end_entity)?;
                verify_server_name(&cert, server_name)?;
            }
            Ok(ok)
        });
        match verdict {
            Err(_) if self.insecure => Ok(ServerCertVerified::assertion()),
            // The alert sent is bad_certificate (RFC 8446 §6.2) whatever the reason:
            // the reason and the certificate stay here, for the error to say.
            Err(error @ rustls::Error::InvalidCertificate(_)) => {
                Err(rustls::Error::InvalidCertificate(CertificateError::Other(
                    rustls::OtherError(Arc::new(Refusal {
                        error,
                        leaf: end_entity.clone().into_owned(),
                    })),
                )))
            }
            other => other,
        }
    }

    // The handshake's own signature is checked even with --insecure: it proves the
    // server holds the key of the certificate it sent (RFC 8446 §4.4.3).
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// Why a handshake failed, in words, naming the server's certificate when the
/// failure is about it.
fn refused(e: &std::io::Error, authority: &str, advice: &Advice) -> String {
    let plain = advice.plain;
    let tls = e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>());
    let refusal = match tls {
        Some(rustls::Error::InvalidCertificate(CertificateError::Other(other))) => {
            other.0.downcast_ref::<Refusal>()
        }
        _ => None,
    };
    let named = refusal
        .map(|r| {
            let c = describe(&r.leaf);
            format!(
                " (certificate subject {}, issuer {}, valid {} to {}, SHA-256 {})",
                c.subject, c.issuer, c.not_before, c.not_after, c.sha256
            )
        })
        .unwrap_or_default();
    match tls {
        Some(rustls::Error::InvalidCertificate(_)) => {
            let why = match refusal {
                Some(r) => reason(&r.error),
                None => tls.map(reason).unwrap_or_default(),
            };
            let unknown_issuer = matches!(
                refusal.map(|r| &r.error),
                Some(rustls::Error::InvalidCertificate(
                    CertificateError::UnknownIssuer
                ))
            );
            let skip = advice
                .insecure
                .map(|flag| format!("{flag} skips the check"));
            let hint = match (unknown_issuer, skip) {
                (true, Some(skip)) => {
                    format!(" ({} FILE trusts another root; {skip})", advice.cacert)
                }
                (true, None) => format!(" ({} FILE trusts another root)", advice.cacert),
                (false, Some(skip)) => format!(" ({skip})"),
                (false, None) => String::new(),
            };
            format!("TLS: the certificate of {authority} was refused: {why}{named}{hint}")
        }
        Some(rustls::Error::InvalidMessage(_))
        | Some(rustls::Error::InappropriateMessage { .. }) => {
            format!(
                "TLS: {authority} did not answer in TLS ({e}): is it a plain {plain} server? Then use {plain}"
            )
        }
        Some(rustls::Error::AlertReceived(alert)) => format!(
            "TLS: {authority} ended the handshake with the alert {alert:?}{}",
            if *alert == rustls::AlertDescription::CertificateRequired {
                format!(": it requires a client certificate ({})", advice.cert)
            } else {
                String::new()
            }
        ),
        Some(other) => format!("TLS handshake with {authority} failed: {other}{named}"),
        None if e.kind() == std::io::ErrorKind::UnexpectedEof => format!(
            "TLS: {authority} closed the connection during the handshake{named}: it may not speak TLS, or it refused this client (a client certificate it requires?)"
        ),
        None => format!("TLS handshake with {authority} failed: {e}{named}"),
    }
}

/// An error after the handshake (a TLS 1.3 server refuses a client certificate only
/// once the client has finished, RFC 8446 §4.4.2.4: the refusal comes with the first
/// read) in words, when TLS is what failed.
pub fn after_handshake(e: &(dyn std::error::Error + 'static), authority: &str) -> Option<String> {
    after_handshake_advised(e, authority, &CLIENT_ADVICE)
}

/// [`after_handshake`], suggesting `advice`'s flags (the store's, for Redis).
pub fn after_handshake_advised(
    e: &(dyn std::error::Error + 'static),
    authority: &str,
    advice: &Advice,
) -> Option<String> {
    let mut cause = Some(e);
    while let Some(c) = cause {
        let tls = c
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|inner| inner.downcast_ref::<rustls::Error>())
            .or_else(|| c.downcast_ref::<rustls::Error>());
        if let Some(rustls::Error::AlertReceived(alert)) = tls {
            return Some(format!(
                "TLS: {authority} ended the connection with the alert {alert:?}{}",
                if *alert == rustls::AlertDescription::CertificateRequired {
                    format!(": it requires a client certificate ({})", advice.cert)
                } else {
                    String::new()
                }
            ));
        }
        if let Some(tls) = tls {
            return Some(format!("TLS: the connection to {authority} failed: {tls}"));
        }
        cause = c.source();
    }
    None
}

/// A certificate verdict in words.
fn reason(e: &rustls::Error) -> String {
    let rustls::Error::InvalidCertificate(c) = e else {
        return e.to_string();
    };
    match c {
        CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
            let when = match c {
                CertificateError::ExpiredContext { time, not_after } => format!(
                    " (notAfter {}, now {})",
                    unix(not_after.as_secs() as i64),
                    unix(time.as_secs() as i64)
                ),
                _ => String::new(),
            };
            format!("it has expired{when}")
        }
        CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
            "it is not valid yet (its notBefore is in the future)".to_owned()
        }
        CertificateError::UnknownIssuer => {
            "it is not signed by a trusted CA (self-signed, or an unknown issuer)".to_owned()
        }
        CertificateError::NotValidForName => "it is not valid for this host name".to_owned(),
        CertificateError::NotValidForNameContext {
            expected,
            presented,
        } => format!(
            "it is not valid for {} (it names {})",
            server_name_text(expected),
            if presented.is_empty() {
                "no host".to_owned()
            } else {
                presented
                    .iter()
                    .map(|p| name_of(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ),
        CertificateError::BadSignature => "its signature does not verify".to_owned(),
        CertificateError::Revoked => "it has been revoked".to_owned(),
        other => format!("{other:?}"),
    }
}

/// `DnsName("a.test")` (how rustls lists a certificate's names) as `a.test`.
fn name_of(presented: &str) -> &str {
    match presented.split_once('(') {
        Some((_, inner)) => inner.trim_end_matches(')').trim_matches('"'),
        None => presented,
    }
}

fn server_name_text(name: &ServerName<'_>) -> String {
    match name {
        ServerName::DnsName(d) => d.as_ref().to_owned(),
        ServerName::IpAddress(ip) => std::net::IpAddr::from(*ip).to_string(),
        other => format!("{other:?}"),
    }
}

fn unix(secs: i64) -> String {
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

/// An NSS key log (the format of Firefox's and curl's `SSLKEYLOGFILE`): a line per
/// secret, `LABEL CLIENT_RANDOM SECRET` in hex, which Wireshark reads to decrypt a
/// capture of the same connections.
struct KeyLogTo {
    /// The file, appended to; created `0600` (it holds session keys).
    file: Mutex<std::fs::File>,
}

impl std::fmt::Debug for KeyLogTo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyLogTo")
    }
}

impl KeyLogTo {
    fn open(path: &Path) -> anyhow::Result<KeyLogTo> {
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(path).with_context(|| {
            format!("--keylog {}: cannot open it for appending", path.display())
        })?;
        Ok(KeyLogTo {
            file: Mutex::new(file),
        })
    }
}

impl rustls::KeyLog for KeyLogTo {
    fn log(&self, label: &str, client_random: &[u8], secret: &[u8]) {
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let line = format!("{label} {} {}\n", hex(client_random), hex(secret));
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        // A full disk loses key log lines, not the session.
        let _ = file.write_all(line.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificates_names_are_shown_bare() {
        assert_eq!(name_of("DnsName(\"other.test\")"), "other.test");
        assert_eq!(name_of("IpAddress(10.0.0.1)"), "10.0.0.1");
        assert_eq!(name_of("plain"), "plain");
        assert_eq!(printable("CN=a\u{1b}[31m"), "CN=a\\u{1b}[31m");
    }
}
