//! A TLS failure in words: why a handshake failed (the certificate's verdict, a
//! server that does not speak TLS, an alert such as `certificate_required`), or a
//! failure after it (a TLS 1.3 server refuses a client certificate only once the
//! client has finished, RFC 8446 §4.4.2.4), each naming the server's certificate
//! where it is about it and the flags that would help; a certificate's facts read
//! from its DER.

use super::{Advice, CLIENT_ADVICE};
use crate::transport::tls::{describe, unix};
use rustls::CertificateError;
use rustls::pki_types::{CertificateDer, ServerName};

/// A refused chain: why, and the leaf it was about (so the error can name it).
#[derive(Debug)]
pub(super) struct Refusal {
    /// webpki's verdict.
    pub(super) error: rustls::Error,
    /// The certificate the server presented.
    pub(super) leaf: CertificateDer<'static>,
}

impl std::error::Error for Refusal {}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&reason(&self.error))
    }
}

/// Why a handshake failed, in words, naming the server's certificate when the
/// failure is about it.
pub(super) fn refused(e: &std::io::Error, authority: &str, advice: &Advice) -> String {
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
pub(super) fn reason(e: &rustls::Error) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificates_names_are_shown_bare() {
        assert_eq!(name_of("DnsName(\"other.test\")"), "other.test");
        assert_eq!(name_of("IpAddress(10.0.0.1)"), "10.0.0.1");
        assert_eq!(name_of("plain"), "plain");
    }
}
