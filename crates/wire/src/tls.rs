//! What a TLS handshake settled, as one event on the lane it opened: the recording
//! layer sits above TLS (plaintext in, plaintext out), so these facts are all the
//! transcript says about the encryption itself. RFC 8446 (TLS 1.3) and RFC 5246
//! (TLS 1.2) name the parts; RFC 5280 the certificate fields.

use serde_json::{Value, json};

/// One certificate the peer presented, read from its DER (RFC 5280 §4.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cert {
    /// The subject's distinguished name, e.g. `CN=localhost`: who it names.
    pub subject: String,
    /// The issuer's distinguished name: who signed it.
    pub issuer: String,
    /// `notBefore` (RFC 5280 §4.1.2.5), RFC 3339 UTC.
    pub not_before: String,
    /// `notAfter`, RFC 3339 UTC: an expired certificate is told by this.
    pub not_after: String,
    /// SHA-256 of the DER, hex pairs joined by `:` (the form `openssl x509
    /// -fingerprint -sha256` prints): a certificate's identity, whatever its names.
    pub sha256: String,
}

/// The facts of one TLS connection (a lane), recorded once its handshake ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFacts {
    /// The protocol version, `TLSv1.3` or `TLSv1.2`.
    pub version: String,
    /// The cipher suite, by its IANA name.
    pub cipher: String,
    /// The application protocol the server chose by ALPN (RFC 7301), if any.
    pub alpn: Option<String>,
    /// The host name sent in the `server_name` extension (RFC 6066 §3): none for an
    /// IP address, which that section forbids there.
    pub sni: Option<String>,
    /// The name the certificate was checked against (a DNS name or an IP address).
    pub server_name: String,
    /// Was the session resumed from an earlier one (a PSK or session ticket, RFC 8446
    /// §2.2), so no certificate was checked on this connection?
    pub resumed: bool,
    /// From the TCP connection to the end of the handshake, in microseconds.
    pub handshake_us: u64,
    /// `--insecure`: the chain was not required to verify.
    pub insecure: bool,
    /// With `--insecure`, why verification would have failed (or `None`: it passed).
    pub unverified: Option<String>,
    /// Had this client a certificate of its own to present (`--cert`, mTLS), sent if
    /// the server asked for one (RFC 8446 §4.3.2)?
    pub client_cert: bool,
    /// Facts of a connection this side accepted (a TLS listener, `--tls-cert`): the
    /// peer is the client, so `chain` is its certificate chain (empty unless it sent
    /// one) and `sni` the name it asked for. `false`: this side connected.
    pub accepted: bool,
    /// The peer's chain as sent, leaf first.
    pub chain: Vec<Cert>,
}

impl Cert {
    /// The certificate as JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "subject": self.subject,
            "issuer": self.issuer,
            "not_before": self.not_before,
            "not_after": self.not_after,
            "sha256": self.sha256,
        })
    }

    fn from_json(v: &Value) -> Result<Cert, String> {
        let field = |k: &str| {
            v[k].as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("a certificate in \"tls\" needs {k:?}"))
        };
        Ok(Cert {
            subject: field("subject")?,
            issuer: field("issuer")?,
            not_before: field("not_before")?,
            not_after: field("not_after")?,
            sha256: field("sha256")?,
        })
    }
}

impl TlsFacts {
    /// The facts as the transcript's `"tls"` object.
    pub fn to_json(&self) -> Value {
        json!({
            "version": self.version,
            "cipher": self.cipher,
            "alpn": self.alpn,
            "sni": self.sni,
            "server_name": self.server_name,
            "resumed": self.resumed,
            "handshake_us": self.handshake_us,
            "insecure": self.insecure,
            "unverified": self.unverified,
            "client_cert": self.client_cert,
            "accepted": self.accepted,
            "chain": self.chain.iter().map(Cert::to_json).collect::<Vec<_>>(),
        })
    }

    /// Reads a transcript's `"tls"` object back.
    pub fn from_json(v: &Value) -> Result<TlsFacts, String> {
        let text = |k: &str| {
            v[k].as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("\"tls\" needs {k:?}"))
        };
        let optional = |k: &str| v[k].as_str().map(str::to_owned);
        let chain = match &v["chain"] {
            Value::Array(certs) => certs
                .iter()
                .map(Cert::from_json)
                .collect::<Result<_, _>>()?,
            Value::Null => Vec::new(),
            other => return Err(format!("\"tls\".\"chain\" must be an array, got {other}")),
        };
        Ok(TlsFacts {
            version: text("version")?,
            cipher: text("cipher")?,
            alpn: optional("alpn"),
            sni: optional("sni"),
            server_name: optional("server_name").unwrap_or_default(),
            resumed: v["resumed"].as_bool().unwrap_or(false),
            handshake_us: v["handshake_us"].as_u64().unwrap_or(0),
            insecure: v["insecure"].as_bool().unwrap_or(false),
            unverified: optional("unverified"),
            client_cert: v["client_cert"].as_bool().unwrap_or(false),
            accepted: v["accepted"].as_bool().unwrap_or(false),
            chain,
        })
    }

    /// One line: what was negotiated, as a view's caption when the lane opens.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "TLS{}: {} {}",
            if self.accepted { " (accepted)" } else { "" },
            self.version,
            self.cipher
        );
        if let Some(alpn) = &self.alpn {
            s.push_str(&format!(", ALPN {alpn}"));
        }
        match &self.sni {
            Some(sni) => s.push_str(&format!(", SNI {sni}")),
            None if self.accepted => {
                s.push_str(&format!(", no SNI (reached at {})", self.server_name))
            }
            None => s.push_str(", no SNI (IP address)"),
        }
        s.push_str(if self.resumed {
            ", resumed session"
        } else {
            ", full handshake"
        });
        s.push_str(&format!(" in {:.1} ms", self.handshake_us as f64 / 1000.0));
        if self.client_cert && self.accepted {
            s.push_str(", the client sent a certificate");
        } else if self.client_cert {
            s.push_str(", client certificate ready (--cert)");
        }
        if self.insecure {
            match &self.unverified {
                Some(why) => s.push_str(&format!(", NOT VERIFIED (--insecure): {why}")),
                None => s.push_str(", --insecure (the chain would have verified)"),
            }
        }
        s
    }

    /// A line per certificate of the chain, leaf first.
    pub fn chain_lines(&self) -> Vec<String> {
        self.chain
            .iter()
            .enumerate()
            .map(|(n, c)| {
                format!(
                    "{}cert {n}: {} (issuer {}), valid {} to {}, SHA-256 {}",
                    if self.accepted { "client " } else { "" },
                    c.subject,
                    c.issuer,
                    c.not_before,
                    c.not_after,
                    c.sha256
                )
            })
            .collect()
    }

    /// What `--explain` adds: what each fact means, with its RFC.
    pub fn explain(&self) -> Vec<String> {
        let mut out = vec![format!(
            "{}: the record layer's protocol ({}); what is shown above and below is the plaintext inside it",
            self.version,
            if self.version == "TLSv1.3" {
                "RFC 8446"
            } else {
                "RFC 5246; TLS 1.3, RFC 8446, is the current version"
            }
        )];
        out.push(match &self.sni {
            Some(sni) => format!("SNI {sni}: the host name sent in the clear in ClientHello (RFC 6066 §3)"),
            None => format!(
                "no SNI: {} is an IP address, which RFC 6066 §3 does not allow in server_name; the certificate must name the address",
                self.server_name
            ),
        });
        if let Some(alpn) = &self.alpn {
            out.push(format!(
                "ALPN {alpn}: the application protocol agreed in the handshake (RFC 7301)"
            ));
        }
        if self.resumed {
            out.push(
                "resumed: keys from an earlier session (RFC 8446 §2.2), no certificate was sent this time".into(),
            );
        }
        if self.insecure {
            out.push("--insecure: the server's certificate was not required to verify; anyone on the path could have been this server".into());
        }
        out
    }
}
