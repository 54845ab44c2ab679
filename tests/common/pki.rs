//! Certificates for the TLS tests, made with rcgen: a CA of the test's own, and the
//! leaves it signs (or a leaf that signs itself), written as PEM files into the test's
//! scratch directory, where the binary under test and the servers read them.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    date_time_ymd,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The certificates of one test, as PEM files in its scratch directory.
pub struct Pki {
    /// The scratch directory the PEM files are written to.
    pub dir: PathBuf,
    /// The CA's certificate and key, for signing more.
    ca: Issuer<'static, KeyPair>,
}

impl Pki {
    /// A CA named "mcp-raw test CA", in `scratch(test, name)`.
    pub fn new(test: &str, name: &str) -> Pki {
        Pki::named(test, name, "mcp-raw test CA")
    }

    /// A CA whose common name is `cn`.
    pub fn named(test: &str, name: &str, cn: &str) -> Pki {
        let dir = super::scratch(test, name);
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, cn);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        std::fs::write(dir.join("ca.pem"), cert.pem()).unwrap();
        Pki {
            dir,
            ca: Issuer::new(params, key),
        }
    }

    /// A file of the directory, as a string for a command line.
    pub fn path(&self, file: &str) -> String {
        self.dir.join(file).to_str().unwrap().to_owned()
    }

    /// A leaf named `cn` for `names`, valid `from`..`to` (years), signed by the CA
    /// (or by itself): writes NAME.pem and NAME.key.
    pub fn leaf(&self, name: &str, cn: &str, names: &[&str], years: (i32, i32), self_signed: bool) {
        let mut params =
            CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .unwrap();
        params.distinguished_name.push(DnType::CommonName, cn);
        params.not_before = date_time_ymd(years.0, 1, 1);
        params.not_after = date_time_ymd(years.1, 1, 1);
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let key = KeyPair::generate().unwrap();
        let cert = if self_signed {
            params.self_signed(&key).unwrap()
        } else {
            params.signed_by(&key, &self.ca).unwrap()
        };
        std::fs::write(self.dir.join(format!("{name}.pem")), cert.pem()).unwrap();
        std::fs::write(self.dir.join(format!("{name}.key")), key.serialize_pem()).unwrap();
    }

    /// The good leaf: localhost and 127.0.0.1, valid now.
    pub fn good(&self) {
        self.leaf(
            "good",
            "localhost",
            &["localhost", "127.0.0.1"],
            (2020, 2090),
            false,
        );
    }

    /// A client's certificate for mTLS, signed by the CA: me.pem and me.key.
    pub fn client(&self) {
        self.leaf("me", "mcp-raw test client", &[], (2020, 2090), false);
    }

    /// A key that fits no certificate: other.key.
    pub fn other_key(&self) {
        let key = KeyPair::generate().unwrap();
        std::fs::write(self.dir.join("other.key"), key.serialize_pem()).unwrap();
    }

    /// `--tls-cert good.pem --tls-key good.key`.
    pub fn flags(&self) -> Vec<String> {
        vec![
            "--tls-cert".into(),
            self.path("good.pem"),
            "--tls-key".into(),
            self.path("good.key"),
        ]
    }
}

/// The `"tls"` objects of a transcript (this version: 2 and later have TLS facts), in order.
pub fn tls_events(record: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(record).unwrap();
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(
        header["version"],
        mcp_raw_wire::transcript::VERSION,
        "{header}"
    );
    lines
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("tls").is_some())
        .map(|v| v["tls"].clone())
        .collect()
}

/// `openssl x509 -fingerprint -sha256` of a PEM file: `AB:CD:…`, as a program we
/// did not write computes it.
pub fn openssl_fingerprint(pem: &str) -> String {
    let out = Command::new("openssl")
        .args(["x509", "-noout", "-fingerprint", "-sha256", "-in", pem])
        .output()
        .expect("openssl");
    let line = String::from_utf8(out.stdout).unwrap();
    line.trim().rsplit('=').next().unwrap().to_ascii_uppercase()
}
