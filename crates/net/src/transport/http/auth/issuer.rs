//! What the resource server knows of its authorization server: the metadata document
//! (RFC 8414, or OpenID Connect Discovery), fetched the first time a token needs it,
//! and the key set it signs tokens with (`jwks_uri`, RFC 7517), fetched again when a
//! token names a key the cached set lacks, at most once per `--jwks-refresh`, so a
//! stream of tokens with made-up key ids cannot turn the server into a fetch loop.

use super::fetch::Fetcher;
use crate::lock::Locked;
use anyhow::{Context, bail};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use serde_json::Value;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// One authorization server, as this resource server sees it.
pub struct Issuer {
    /// Its issuer identifier (`--auth-server`), exactly as tokens must name it in `iss`.
    pub url: String,
    fetch: Fetcher,
    /// The shortest time between two key-set fetches (`--jwks-refresh`).
    refresh: Duration,
    /// How long a failed fetch is remembered (`--auth-retry`): requests meanwhile get
    /// its error at once instead of each waiting out a fetch of their own.
    retry: Duration,
    /// The metadata and keys fetched so far. Held only to read or store them, never
    /// across a fetch: a token whose key is known is checked at once, however slow
    /// the authorization server is to answer someone else's fetch.
    state: Mutex<State>,
    /// One fetch at a time: the others that need one wait for it and then find its
    /// result, instead of fetching the same thing again.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct State {
    /// The metadata document, once fetched and checked.
    metadata: Option<Value>,
    /// The key set and when it was fetched.
    keys: Option<(JwkSet, Instant)>,
    /// The last fetch that failed (metadata or key set): why, and when.
    failed: Option<(String, Instant)>,
}

impl State {
    /// The error of a fetch that failed less than `retry` ago.
    fn recent_failure(&self, retry: Duration) -> Option<anyhow::Error> {
        self.failed
            .as_ref()
            .filter(|(_, at)| at.elapsed() < retry)
            .map(|(why, at)| {
                anyhow::anyhow!(
                    "{why} ({:.1} s ago; tried again after --auth-retry)",
                    at.elapsed().as_secs_f64()
                )
            })
    }
}

impl Issuer {
    /// The authorization server `url`, reached through `fetch`; its key set
    /// refetched at most every `refresh`.
    pub fn new(url: &str, fetch: Fetcher, refresh: Duration, retry: Duration) -> Issuer {
        Issuer {
            url: url.to_owned(),
            fetch,
            refresh,
            retry,
            state: Mutex::new(State::default()),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// The state, locked for a moment (never across an `await`). A panic while it
    /// was held cannot leave it half-updated (each update is one assignment).
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.locked()
    }

    /// How this server reaches the authorization server.
    pub fn fetch(&self) -> &Fetcher {
        &self.fetch
    }

    /// The metadata document, fetched on first use.
    pub async fn metadata(&self) -> anyhow::Result<Value> {
        if let Some(m) = &self.state().metadata {
            return Ok(m.clone());
        }
        let _one = self.fetching.lock().await;
        {
            let state = self.state();
            if let Some(m) = &state.metadata {
                return Ok(m.clone());
            }
            if let Some(e) = state.recent_failure(self.retry) {
                return Err(e);
            }
        }
        let result = self.fetch_metadata().await;
        let mut state = self.state();
        match &result {
            Ok(m) => state.metadata = Some(m.clone()),
            Err(e) => state.failed = Some((format!("{e:#}"), Instant::now())),
        }
        result
    }

    /// The metadata from the first well-known URL that has it, checked.
    async fn fetch_metadata(&self) -> anyhow::Result<Value> {
        let mut tried = Vec::new();
        // The URLs in the order MCP 2025-11-25 `basic/authorization` gives.
        for url in crate::wire::oauth::server_metadata_urls(&self.url) {
            match self.fetch.get(&url).await {
                Ok(answer) if answer.status.is_success() => {
                    // RFC 8414 §3.3: the `issuer` in the document MUST be identical to
                    // the issuer the metadata was fetched for, or it MUST NOT be used.
                    let named = answer.json.get("issuer").and_then(Value::as_str);
                    if named != Some(self.url.as_str()) {
                        bail!(
                            "{url} names issuer {named:?}, not {:?} (RFC 8414 §3.3: it must be identical)",
                            self.url
                        );
                    }
                    return Ok(answer.json);
                }
                Ok(answer) => tried.push(format!("{url}: {}", answer.status)),
                Err(e) => tried.push(format!("{e:#}")),
            }
        }
        bail!(
            "no authorization server metadata for {}: {}",
            self.url,
            tried.join("; ")
        )
    }

    /// An endpoint of the metadata (`jwks_uri`, `introspection_endpoint`), on the
    /// issuer's own origin.
    pub async fn endpoint(&self, name: &str) -> anyhow::Result<String> {
        let metadata = self.metadata().await?;
        let url = metadata
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .with_context(|| format!("the metadata of {} has no {name}", self.url))?;
        same_origin(&self.url, name, &url)?;
        Ok(url)
    }

    /// The key a token's header names (`kid`; with no `kid`, the one key that can
    /// verify `alg`). An unknown `kid` refetches the set, unless it was fetched less
    /// than `--jwks-refresh` ago (the AS may have rotated its keys, RFC 7517 §4.5).
    pub async fn key(
        &self,
        kid: Option<&str>,
        alg: jsonwebtoken::Algorithm,
    ) -> anyhow::Result<Option<Jwk>> {
        let uri = self.endpoint("jwks_uri").await?;
        // What the keys at hand say, without waiting for anybody's fetch: the key,
        // or `None` (no such key, and too soon to fetch again), or a fetch is needed.
        let known = |state: &State| -> Option<Option<Jwk>> {
            if let Some((set, _)) = &state.keys
                && let Some(found) = pick(set, kid, alg)
            {
                return Some(Some(found));
            }
            let stale = state
                .keys
                .as_ref()
                .is_none_or(|(_, at)| at.elapsed() >= self.refresh);
            (!stale).then_some(None)
        };
        if let Some(answer) = known(&self.state()) {
            return Ok(answer);
        }
        let _one = self.fetching.lock().await;
        {
            let state = self.state();
            if let Some(answer) = known(&state) {
                return Ok(answer);
            }
            if let Some(e) = state.recent_failure(self.retry) {
                return Err(e);
            }
        }
        let fetched = self.fetch_keys(&uri).await;
        let mut state = self.state();
        match fetched {
            Ok(set) => {
                let found = pick(&set, kid, alg);
                state.keys = Some((set, Instant::now()));
                Ok(found)
            }
            Err(e) => {
                state.failed = Some((format!("{e:#}"), Instant::now()));
                Err(e)
            }
        }
    }

    /// The key set at `uri`.
    async fn fetch_keys(&self, uri: &str) -> anyhow::Result<JwkSet> {
        let answer = self.fetch.get(uri).await?;
        if !answer.status.is_success() {
            bail!(
                "{uri}: {} (the authorization server's key set)",
                answer.status
            );
        }
        serde_json::from_value(answer.json)
            .with_context(|| format!("{uri} is not a JWK Set (RFC 7517 §5)"))
    }
}

/// mcp-raw's rule for the URLs a metadata document hands the resource server: the
/// key set and the introspection endpoint are on the issuer's origin (RFC 6454 §4:
/// scheme, host, port, compared parsed), or refused with the reason. RFC 8414 allows
/// them anywhere, but then whoever serves the metadata chooses where the server's
/// requests go (the introspection secret and every token with them): server-side
/// request forgery, which MCP 2025-11-25 "Security Best Practices" warns of. Being on
/// the issuer's origin, they pass the issuer's HTTPS-or-loopback check too.
fn same_origin(issuer: &str, name: &str, url: &str) -> anyhow::Result<()> {
    let at = crate::wire::oauth::https_or_loopback(name, url).map_err(anyhow::Error::msg)?;
    let home = crate::wire::oauth::parse(issuer).map_err(anyhow::Error::msg)?;
    if !at.same_origin(&home) {
        bail!(
            "the metadata of {issuer} puts its {name} at {url:?}, not on the issuer's origin: refused (mcp-raw fetches keys and introspects only on the issuer's own scheme, host and port)"
        );
    }
    Ok(())
}

/// The key of `set` a header asks for: by `kid`, or with no `kid` the one key that
/// can verify `alg`. Either way only a key fit for it: RFC 7517 §4.4, a key's `alg`,
/// when present, is the one algorithm it is for, so it must be the header's (a key
/// published for RS256 does not verify a PS256 token); §4.2, a key whose `use` is not
/// `sig` (an encryption key) verifies no signature.
fn pick(set: &JwkSet, kid: Option<&str>, alg: jsonwebtoken::Algorithm) -> Option<Jwk> {
    let fits = |k: &&Jwk| {
        k.common
            .key_algorithm
            .is_none_or(|a| a.to_string() == format!("{alg:?}"))
            && k.common
                .public_key_use
                .as_ref()
                .is_none_or(|u| *u == jsonwebtoken::jwk::PublicKeyUse::Signature)
    };
    match kid {
        Some(kid) => set.find(kid).filter(fits).cloned(),
        None => {
            let mut fitting = set.keys.iter().filter(fits).filter(|k| {
                jsonwebtoken::DecodingKey::from_jwk(k).is_ok_and(|d| d.family() == alg.family())
            });
            match (fitting.next(), fitting.next()) {
                (Some(only), None) => Some(only.clone()),
                _ => None,
            }
        }
    }
}
