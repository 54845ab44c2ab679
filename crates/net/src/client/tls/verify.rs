//! The chain check: webpki against the roots (`--cacert` and the system's), the host
//! name checked even without roots, `--insecure` letting a refused chain through
//! while the handshake's own signature is still checked (RFC 8446 §4.4.3). A
//! refusal keeps its reason and the leaf it refused, for the error to say: the alert
//! on the wire is `bad_certificate` whatever the reason (RFC 8446 §6.2).

use super::refusal::Refusal;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{WebPkiServerVerifier, verify_server_name};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};
use std::sync::Arc;

/// The chain check: webpki against the roots; a refusal carries the leaf it refused.
/// One for the whole run, stateless: rustls resumes a session only under the
/// verifier that checked it.
pub(super) struct Watch {
    /// The check against the roots (`None`: no roots, only with `--insecure`).
    pub(super) webpki: Option<Arc<WebPkiServerVerifier>>,
    /// ring's signature algorithms.
    pub(super) provider: Arc<CryptoProvider>,
    /// `--insecure`: a refused chain is let through.
    pub(super) insecure: bool,
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
