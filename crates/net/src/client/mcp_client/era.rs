//! Era detection: which era a server speaks, learned once per server. The modern
//! probe (`server/discover`) goes first; any non-modern answer, a result that is no
//! discover result, or (stdio) silence means the legacy `initialize` handshake — the
//! fallback MCP 2026-07-28 `basic/versioning` "Backward Compatibility" and
//! `basic/transports/stdio` prescribe, never keyed to one error code. When the wire
//! alone does not say why (a `server/discover` result that is no `DiscoverResult`),
//! the reason is kept as the era note the program shows as a caption.
//!
//! Enforces: 2026-07-28 `server/discover` "DiscoverResult" (supportedVersions,
//! capabilities), `basic/index` "Error Codes" (what only a modern server sends),
//! `-32022` with `data.supported`; 2025-11-25 `basic/lifecycle` (initialize, the
//! version agreed, `notifications/initialized`).

use super::stdio::stdio_answer;
use super::{Link, McpClient, RpcError, client_info, rpc_error};
use crate::jsonrpc::Response;
use crate::jsonrpc::code::HEADER_MISMATCH;
use crate::protocol::{Eras, LATEST_VERSION, SUPPORTED_VERSIONS, meta};
use anyhow::{Context, bail};
use hyper::StatusCode;
use serde_json::{Value, json};
use std::collections::HashMap;

/// The era a server turned out to speak, and the version in use with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spoken {
    /// 2025-11-25 or earlier: `initialize` and a session.
    Legacy {
        /// The version `initialize` agreed.
        version: String,
    },
    /// 2026-07-28: stateless, `_meta` on every request.
    Modern {
        /// The version every request declares.
        version: String,
    },
}

impl std::fmt::Display for Spoken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Spoken::Legacy { version } => {
                write!(f, "the legacy era, {version} (initialize handshake)")
            }
            Spoken::Modern { version } => write!(
                f,
                "the modern era, {version} (stateless, per-request _meta)"
            ),
        }
    }
}

/// What this process has learned about servers, keyed by server (a URL's
/// `host:port`, or a command line): the era is a property of the server, so it is
/// probed once and reused ("Clients SHOULD cache the result").
#[derive(Debug, Default)]
pub struct EraCache(HashMap<String, Spoken>);

impl EraCache {
    /// What `server` was found to speak, if known.
    pub fn get(&self, server: &str) -> Option<&Spoken> {
        self.0.get(server)
    }

    /// Records what a server speaks (e.g. from an earlier run).
    pub fn insert(&mut self, server: &str, spoken: Spoken) {
        self.0.insert(server.to_owned(), spoken);
    }
}

/// The modern versions this client speaks, newest first.
pub(super) const MODERN: [&str; 1] = meta::MODERN_VERSIONS;

/// Codes that only a modern server sends (2026-07-28 `basic/index` "Error Codes").
pub(super) fn is_modern_error(code: i64) -> bool {
    matches!(
        code,
        HEADER_MISMATCH
            | crate::jsonrpc::code::MISSING_CAPABILITY
            | crate::jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION
    )
}

/// What the era probe learned.
enum Probe {
    Modern(String),
    Legacy,
    /// stdio: no answer in time to the probe with this id and version.
    Silent {
        id: i64,
        version: String,
    },
}

impl McpClient {
    /// Era detection: the modern probe first; a legacy answer means `initialize`
    /// (unless this client speaks only the modern era).
    pub(super) async fn detect(&mut self) -> anyhow::Result<Spoken> {
        match self.probe().await? {
            Probe::Modern(version) => Ok(Spoken::Modern { version }),
            Probe::Legacy | Probe::Silent { .. } if self.options.eras == Eras::Modern => bail!(
                "the server does not speak {} ({}); this client was told to speak only the modern era",
                MODERN.join(", "),
                self.era_note
                    .as_deref()
                    .unwrap_or("no modern answer to server/discover")
            ),
            Probe::Legacy => match (self.initialize().await, &self.era_note) {
                (Err(e), Some(note)) => Err(e.context(note.clone())),
                (outcome, _) => outcome,
            },
            Probe::Silent { id, version } => self.initialize_or_late_answer(id, version).await,
        }
    }

    /// stdio, after a silent probe: a legacy server that ignores `server/discover`,
    /// or one still starting? `initialize` goes out, and whichever answer comes
    /// first decides: a late modern answer to the probe means modern, an answer to
    /// `initialize` means legacy. So a slow start is never taken for the legacy era.
    async fn initialize_or_late_answer(
        &mut self,
        probe: i64,
        version: String,
    ) -> anyhow::Result<Spoken> {
        let (init, message) = self.build("initialize", self.initialize_params(), None)?;
        let Link::Stdio(stdio) = &mut self.link else {
            bail!("only a stdio probe can be silent")
        };
        stdio.send(&serde_json::to_vec(&message)?).await?;
        let startup = self.options.startup_timeout;
        let mut waiting = vec![probe, init];
        loop {
            let answer =
                stdio_answer(&mut self.link, &self.options.answers, &waiting, startup).await?;
            let Some((id, response)) = answer else {
                bail!(
                    "no answer to initialize (nor to server/discover) within {startup:?} (--startup-timeout)"
                );
            };
            if id == init {
                return self.finish_initialize(response, None).await;
            }
            match &response.outcome {
                Ok(_) => return Ok(Spoken::Modern { version }),
                Err(e) if is_modern_error(e.code) => return Ok(Spoken::Modern { version }),
                // A legacy refusal of the probe: the initialize answer is coming.
                Err(_) => waiting.retain(|w| *w != probe),
            }
        }
    }

    /// Sends `server/discover` in the preferred modern version. `Some(version)` when
    /// the server is modern; `None` when it is legacy: any other error, a non-modern
    /// HTTP refusal, or (stdio) silence. The fallback is never keyed to one error
    /// code (2026-07-28 `basic/transports/stdio` "Backward Compatibility").
    async fn probe(&mut self) -> anyhow::Result<Probe> {
        let mut version = MODERN[0].to_owned();
        for _ in 0..2 {
            let timeout = self.options.probe_timeout;
            let answer = self
                .send("server/discover", json!({}), Some(&version), timeout)
                .await?;
            let Some(response) = answer.response else {
                return Ok(Probe::Silent {
                    id: answer.id,
                    version,
                });
            };
            if let Ok(result) = &response.outcome {
                // Only a discover result is a modern answer: any server can answer
                // an unknown method with some result (`{}`), and a legacy one that
                // does is not thereby modern (2026-07-28 `server/discover`
                // "DiscoverResult": supportedVersions, capabilities).
                return Ok(match discover_result(result, &version) {
                    Ok(version) => Probe::Modern(version),
                    Err(why) => {
                        self.era_note = Some(format!(
                            "server/discover was answered, but not with a discover result ({why}): taken for a legacy server, so initialize follows"
                        ));
                        Probe::Legacy
                    }
                });
            }
            let error = rpc_error(&response, answer.status);
            match (error.code, &self.link) {
                (crate::jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION, _) => {
                    match mutual_version(&error) {
                        Some(v) => version = v,
                        None => {
                            bail!("the server is modern but supports none of our versions: {error}")
                        }
                    }
                }
                (code, _) if is_modern_error(code) => return Ok(Probe::Modern(version)),
                (crate::jsonrpc::code::METHOD_NOT_FOUND, Link::Http(_))
                    if error.status == Some(StatusCode::NOT_FOUND) =>
                {
                    return Ok(Probe::Modern(version));
                }
                _ => return Ok(Probe::Legacy),
            }
        }
        bail!("the server kept refusing our protocol version")
    }

    /// The legacy handshake: `initialize`, then `notifications/initialized`.
    pub(super) async fn initialize(&mut self) -> anyhow::Result<Spoken> {
        let params = self.initialize_params();
        // The first answer of a server that may still be starting.
        let timeout = self.options.startup_timeout.max(self.options.timeout);
        let answer = self.send("initialize", params, None, timeout).await?;
        let response = answer
            .response
            .with_context(|| format!("no answer to initialize within {timeout:?}"))?;
        self.finish_initialize(response, answer.status).await
    }

    fn initialize_params(&self) -> Value {
        json!({
            "protocolVersion": LATEST_VERSION,
            "capabilities": self.capabilities(false),
            "clientInfo": client_info(),
        })
    }

    /// The rest of the handshake once `initialize` is answered: the version checked,
    /// then `notifications/initialized`.
    async fn finish_initialize(
        &mut self,
        response: Response,
        status: Option<StatusCode>,
    ) -> anyhow::Result<Spoken> {
        let Ok(result) = &response.outcome else {
            bail!("initialize failed: {}", rpc_error(&response, status));
        };
        self.server_capabilities = result["capabilities"].clone();
        let version = result["protocolVersion"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if !SUPPORTED_VERSIONS.contains(&version.as_str()) {
            bail!(
                "the server answered protocol version {version:?}, which this client does not speak"
            );
        }
        self.spoken = Spoken::Legacy {
            version: version.clone(),
        };
        self.notify("notifications/initialized", None).await?;
        if self.session.is_some() {
            let headers = self.get_headers();
            let on_request = Box::new(self.answering());
            if let Link::Http(http) = &self.link {
                self.background = Some(http.listen_in_background(headers, on_request).await);
            }
        }
        Ok(Spoken::Legacy { version })
    }
}

/// Is this `server/discover` result a discover result (2026-07-28 `server/discover`
/// "DiscoverResult")? It must list `supportedVersions` (strings) and carry a
/// `capabilities` object; `serverInfo` is not required here, as a server may send it
/// in `_meta`. The version to speak is `asked` when listed, else the newest listed
/// that this client speaks. `Err` says what is missing.
fn discover_result(result: &Value, asked: &str) -> Result<String, String> {
    let Some(object) = result.as_object() else {
        return Err(format!("the result is {result}, not an object"));
    };
    let versions = match object.get("supportedVersions") {
        None => return Err("it has no supportedVersions".into()),
        Some(Value::Array(v)) if !v.is_empty() && v.iter().all(Value::is_string) => v,
        Some(other) => {
            return Err(format!(
                "supportedVersions is {other}, not a non-empty array of version strings"
            ));
        }
    };
    match object.get("capabilities") {
        Some(Value::Object(_)) => {}
        None => return Err("it has no capabilities".into()),
        Some(other) => return Err(format!("capabilities is {other}, not an object")),
    }
    let listed = |v: &str| versions.iter().any(|s| s.as_str() == Some(v));
    if listed(asked) {
        return Ok(asked.to_owned());
    }
    MODERN
        .iter()
        .find(|v| listed(v))
        .map(|v| (*v).to_owned())
        .ok_or_else(|| {
            format!(
                "its supportedVersions {} hold none of the modern versions this client speaks ({})",
                Value::Array(versions.clone()),
                MODERN.join(", ")
            )
        })
}

/// From a `-32022` error's `data.supported`, the newest version this client speaks.
pub(super) fn mutual_version(error: &RpcError) -> Option<String> {
    let supported = error.data.as_ref()?.get("supported")?.as_array()?;
    MODERN
        .iter()
        .find(|v| supported.iter().any(|s| s.as_str() == Some(v)))
        .map(|v| (*v).to_owned())
}
