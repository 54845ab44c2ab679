//! What the client presents on each request to the MCP server once it holds a token:
//! `Authorization: Bearer <token>` (RFC 6750 §2.1), or for a DPoP-bound token
//! `Authorization: DPoP <token>` and a fresh `DPoP` proof (RFC 9449 §7.1), signed for
//! that request's method and URL. [`crate::client::http_link::HttpLink`] asks for the
//! headers as it sends each request.

use super::dpop::{self, DpopKey};
use hyper::HeaderMap;
use std::sync::{Arc, Mutex};

/// An access token and how to present it.
#[derive(Clone)]
pub struct Credential {
    /// The token, as the token endpoint issued it (never put in a URL).
    pub access_token: String,
    /// Set for a DPoP-bound token (`token_type` `DPoP`, RFC 9449 §5).
    pub dpop: Option<Proofs>,
}

/// The key that proves possession, and the resource server's latest nonce.
#[derive(Clone)]
pub struct Proofs {
    /// The client's DPoP key for this run.
    pub key: Arc<DpopKey>,
    /// The last `DPoP-Nonce` the resource server sent (§9), shared with the links
    /// that talk to the same server (a background stream's included).
    pub nonce: Arc<Mutex<Option<String>>>,
}

impl Credential {
    /// A plain bearer token: `Authorization: Bearer <token>`.
    pub fn bearer(access_token: String) -> Credential {
        Credential {
            access_token,
            dpop: None,
        }
    }

    /// The headers for one request: `Authorization`, and `DPoP` with a new proof.
    pub fn headers(&self, method: &str, url: &str) -> anyhow::Result<Vec<(String, String)>> {
        let Some(proofs) = &self.dpop else {
            return Ok(vec![(
                "authorization".to_owned(),
                format!("Bearer {}", self.access_token),
            )]);
        };
        let nonce = proofs.nonce.lock().ok().and_then(|n| n.clone());
        let proof = proofs
            .key
            .proof(method, url, Some(&self.access_token), nonce.as_deref())?;
        Ok(vec![
            // RFC 9449 §7.1: the DPoP scheme, not Bearer, for a DPoP-bound token.
            (
                "authorization".to_owned(),
                format!("DPoP {}", self.access_token),
            ),
            ("dpop".to_owned(), proof),
        ])
    }

    /// Keeps a `DPoP-Nonce` the server sent with a response, for the next proofs
    /// (§9: the server may send a new one with any response).
    pub fn note_nonce(&self, headers: &HeaderMap) {
        if let (Some(proofs), Some(nonce)) = (
            &self.dpop,
            headers
                .get(dpop::NONCE_HEADER)
                .and_then(|v| v.to_str().ok()),
        ) && let Ok(mut slot) = proofs.nonce.lock()
        {
            *slot = Some(nonce.to_owned());
        }
    }

    /// Whether a response asks for a nonce this credential has not used yet: `401`
    /// with `WWW-Authenticate: DPoP error="use_dpop_nonce"` (§9).
    pub fn wants_nonce(&self, challenge_error: Option<&str>) -> bool {
        self.dpop.is_some() && challenge_error == Some(dpop::USE_DPOP_NONCE)
    }
}
