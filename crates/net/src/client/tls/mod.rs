//! The client's TLS, for `https://` URLs (the MCP endpoint and the OAuth documents
//! fetched from there): rustls with ring, the platform trust store plus `--cacert`,
//! `--insecure`, a client certificate (`--cert`/`--key`, mTLS) and an NSS key log
//! (`--keylog`, `SSLKEYLOGFILE`). TLS sits below the recording layer: what is
//! recorded is the plaintext HTTP, exactly as over `http://`, and each connection's
//! handshake becomes one [`What::Tls`](crate::wire::event::What) event.
//!
//! Nothing here runs for `http://`: the trust store is read on the first `https://`
//! connection.
//!
//! One job a file: this one, the setup (flags, files, the configuration built once)
//! and the handshake; `verify.rs` the chain check that keeps why it refused;
//! `refusal.rs` a failure, and a certificate, in words.
//!
//! Enforces: TLS 1.3 (RFC 8446) or 1.2 (RFC 5246), nothing older (RFC 8996); ALPN
//! `http/1.1` offered (RFC 7301 §3.1); SNI for a host name, none for an IP address
//! (RFC 6066 §3).

mod refusal;
mod verify;

pub use crate::transport::tls::describe;
pub use refusal::{after_handshake, after_handshake_advised};

use crate::lock::Locked;
use crate::wire::tls::TlsFacts;
use anyhow::{Context, bail};
use refusal::{reason, refused};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, RootCertStore};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use verify::Watch;

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
        let mut file = self.file.locked();
        // A full disk loses key log lines, not the session.
        let _ = file.write_all(line.as_bytes());
    }
}
