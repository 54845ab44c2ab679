//! The local certificate authority of `tap --proxy` (`mcp-raw ca`): a key and a
//! self-signed CA certificate in the user's config directory, and, made from them on
//! the fly, a leaf certificate for each host the proxy decrypts.
//!
//! A program that trusts this CA accepts any certificate it signs, for any host: so
//! anyone who can read the key can impersonate any site to that program. The key is
//! written `0600`, never through a symbolic link, and refused when others can read it.

use crate::lock::Locked;
use anyhow::{Context, bail};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The CA's certificate, in the CA directory (PEM, `0644`: it is public).
pub const CERT_FILE: &str = "ca.pem";
/// The CA's private key, in the CA directory (PKCS#8 PEM, `0600`).
pub const KEY_FILE: &str = "ca.key";
/// How long a new CA is valid, in days.
pub const CA_DAYS: i64 = 365;
/// How long a leaf made for a host is valid, in days (it lives in memory only).
pub const LEAF_DAYS: i64 = 30;
/// Most hosts whose leaf is kept; past it the cache starts again (a leaf costs one
/// key generation and signature to make again, so this bounds memory, not service).
pub const MAX_LEAVES: usize = 4096;

/// `$XDG_CONFIG_HOME/mcp-raw`, else `~/.config/mcp-raw` (the XDG Base Directory
/// specification's default for user configuration).
pub fn default_dir() -> anyhow::Result<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_CONFIG_HOME").filter(|x| !x.is_empty()) {
        return Ok(PathBuf::from(x).join("mcp-raw"));
    }
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).context(
        "neither XDG_CONFIG_HOME nor HOME is set: give the CA's directory with --dir DIR",
    )?;
    Ok(PathBuf::from(home).join(".config").join("mcp-raw"))
}

/// The certificate's and the key's paths in `dir`.
pub fn paths(dir: &Path) -> (PathBuf, PathBuf) {
    (dir.join(CERT_FILE), dir.join(KEY_FILE))
}

/// Does `dir` hold a CA (either file)?
pub fn exists(dir: &Path) -> bool {
    let (cert, key) = paths(dir);
    cert.symlink_metadata().is_ok() || key.symlink_metadata().is_ok()
}

/// Makes a new CA in `dir` (created `0700` if missing); refuses to replace one. Returns
/// the certificate's path.
pub fn create(dir: &Path) -> anyhow::Result<PathBuf> {
    if exists(dir) {
        bail!(
            "{} already holds a CA (mcp-raw ca rotate replaces it)",
            dir.display()
        );
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder
        .create(dir)
        .with_context(|| format!("cannot create {}", dir.display()))?;
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params
        .distinguished_name
        .push(DnType::CommonName, format!("mcp-raw local CA ({})", who()));
    params
        .distinguished_name
        .push(DnType::OrganizationName, "mcp-raw tap --proxy");
    // RFC 5280 §4.2.1.9: a CA; path length 0, it signs leaves only.
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    // §4.2.1.3: keyCertSign is what lets it sign certificates.
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    validity(&mut params, CA_DAYS);
    // ECDSA P-256 with SHA-256: rcgen's default, and what every TLS stack accepts.
    let key = KeyPair::generate().context("generating the CA's key")?;
    let cert = params.self_signed(&key).context("signing the CA")?;
    let (cert_path, key_path) = paths(dir);
    write_new(&key_path, key.serialize_pem().as_bytes(), 0o600)?;
    write_new(&cert_path, cert.pem().as_bytes(), 0o644)?;
    Ok(cert_path)
}

/// Removes the CA's files from `dir`; returns those that were there.
pub fn delete(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let (cert, key) = paths(dir);
    let mut gone = Vec::new();
    for path in [key, cert] {
        // remove_file on a symbolic link removes the link, never what it points to.
        match std::fs::remove_file(&path) {
            Ok(()) => gone.push(path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => bail!("cannot remove {}: {e}", path.display()),
        }
    }
    Ok(gone)
}

/// Writes a file that must not exist yet (`O_EXCL`: a symbolic link at the path is
/// an error, not followed), with `mode`.
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `user@host`, for the CA's name: whose machine trusts it.
fn who() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "user".to_owned());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{user}@{host}")
}

/// Valid from yesterday (a clock a little behind still accepts it) to `days` from
/// today, midnight UTC (RFC 5280 §4.1.2.5).
fn validity(params: &mut CertificateParams, days: i64) {
    let ymd = |days: i64| {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
            .saturating_add(days.saturating_mul(86_400_000));
        // RFC 3339: `YYYY-MM-DDT…`.
        let text = crate::clock::format_unix_millis(ms);
        let num = |r: std::ops::Range<usize>| text.get(r).and_then(|t| t.parse::<i32>().ok());
        rcgen::date_time_ymd(
            num(0..4).unwrap_or(2026),
            num(5..7).unwrap_or(1) as u8,
            num(8..10).unwrap_or(1) as u8,
        )
    };
    params.not_before = ymd(-1);
    params.not_after = ymd(days);
}

/// The CA, loaded, with the leaves made so far.
pub struct Ca {
    /// The CA's certificate and key, to sign leaves.
    issuer: Issuer<'static, KeyPair>,
    /// The CA's certificate, sent after each leaf (so a client holding only the CA
    /// as a root can build the chain).
    der: CertificateDer<'static>,
    /// A server configuration per host, made on the first connection to it.
    leaves: Mutex<HashMap<String, Arc<ServerConfig>>>,
}

impl std::fmt::Debug for Ca {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Ca")
    }
}

impl Ca {
    /// Reads the CA in `dir`. The key must be a regular file (not a symbolic link)
    /// that only its owner can read.
    pub fn load(dir: &Path) -> anyhow::Result<Ca> {
        let (cert_path, key_path) = paths(dir);
        let meta = key_path.symlink_metadata().with_context(|| {
            format!(
                "no CA key at {} (create the CA with `mcp-raw ca`, or give --ca-dir DIR)",
                key_path.display()
            )
        })?;
        if meta.file_type().is_symlink() {
            bail!(
                "{} is a symbolic link: the CA's key is read only from a regular file",
                key_path.display()
            );
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                bail!(
                    "{} has mode {mode:04o}: others can read the CA's key (chmod 600 it, or `mcp-raw ca rotate`)",
                    key_path.display()
                );
            }
        }
        let key_pem = std::fs::read_to_string(&key_path)
            .with_context(|| format!("cannot read {}", key_path.display()))?;
        let key = KeyPair::from_pem(&key_pem)
            .with_context(|| format!("{}: not a private key", key_path.display()))?;
        let der = CertificateDer::from_pem_file(&cert_path)
            .map_err(|e| anyhow::anyhow!("{}: no certificate read: {e}", cert_path.display()))?;
        let issuer = Issuer::from_ca_cert_der(&der, key)
            .with_context(|| format!("{}: not a CA certificate", cert_path.display()))?;
        Ok(Ca {
            issuer,
            der,
            leaves: Mutex::new(HashMap::new()),
        })
    }

    /// The TLS server configuration for `host`: a leaf naming it (its subjectAltName,
    /// RFC 5280 §4.2.1.6, is what clients check, RFC 6125), signed by this CA; made
    /// once per host.
    pub fn server_config(&self, host: &str) -> anyhow::Result<Arc<ServerConfig>> {
        let mut leaves = self.leaves.locked();
        if let Some(config) = leaves.get(host) {
            return Ok(config.clone());
        }
        let mut params = CertificateParams::new(vec![host.to_owned()])
            .with_context(|| format!("{host:?} cannot be a certificate's name"))?;
        params.distinguished_name.push(DnType::CommonName, host);
        validity(&mut params, LEAF_DAYS);
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        // OpenSSL's strict mode (Python 3.13's default) wants the authority key
        // identifier (RFC 5280 §4.2.1.1) in every leaf.
        params.use_authority_key_identifier_extension = true;
        let key = KeyPair::generate().context("generating a leaf's key")?;
        let cert = params
            .signed_by(&key, &self.issuer)
            .with_context(|| format!("signing a leaf for {host}"))?;
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
            .context("TLS protocol versions")?
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.der().clone(), self.der.clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
            )
            .context("the leaf's key")?;
        // The proxy relays HTTP/1.1 (RFC 7301 ALPN `http/1.1`): a client offering h2
        // too gets 1.1.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let config = Arc::new(config);
        if leaves.len() >= MAX_LEAVES {
            leaves.clear();
        }
        leaves.insert(host.to_owned(), config.clone());
        Ok(config)
    }
}

/// What each runtime needs to trust the CA at `cert`, one line each.
pub fn trust_lines(cert: &Path) -> Vec<String> {
    let c = cert.display();
    vec![
        format!("Node.js:        NODE_EXTRA_CA_CERTS={c}"),
        format!("Python (ssl, httpx): SSL_CERT_FILE={c}"),
        format!("Python requests: REQUESTS_CA_BUNDLE={c}"),
        format!("curl:           curl --cacert {c} …"),
        format!("mcp-raw client: mcp-raw client --cacert {c} …"),
        format!(
            "Debian system store: sudo cp {c} /usr/local/share/ca-certificates/mcp-raw.crt && sudo update-ca-certificates"
        ),
    ]
}
