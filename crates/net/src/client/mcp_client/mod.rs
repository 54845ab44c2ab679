//! A dual-era MCP client over either link. It finds out which era a server speaks the
//! way MCP 2026-07-28 `basic/versioning` "Backward Compatibility" prescribes, then
//! builds every request for that era: legacy requests inside an `initialize`d session,
//! modern ones each carrying `_meta` (and, on HTTP, the mirrored headers).
//!
//! This file holds the client itself: its [`Options`], connecting, building a
//! request (a fresh id, the per-request `_meta` of 2026-07-28 `basic/index`
//! "Request Metadata", `--progress` tokens per 2025-11-25
//! `basic/utilities/progress`), sending it on whichever link, and the rounds of a
//! request that needs input first (2026-07-28 `basic/patterns/mrtr`), with the one
//! retry a `-32022` allows. The rest, one job a file:
//!
//! - `era.rs`: era detection, `server/discover` or `initialize`, and the fallback's
//!   caption.
//! - `stdio.rs`: the stdio path, line by line.
//! - `http.rs`: the HTTP path: headers mirrored, OAuth and nonce retries, the
//!   legacy session and its resumed streams.
//! - `tools.rs`: `tools/list` and `tools/call`, `x-mcp-header` and task support.
//! - `options.rs`: the settings and their defaults.
//! - `resend.rs`: a request edited on the page (`client --ui`), sent again on the
//!   live session.

mod build;
use build::client_info;
mod era;
mod http;
mod options;
mod resend;
mod stdio;
mod tools;

pub use era::{EraCache, Spoken};
pub use options::{Options, TraceSeed};
pub use resend::Resent;

use super::answers::Answers;
use super::auth::Authorizer;
use super::http_link::HttpLink;
use super::stdio_link::StdioLink;
use crate::jsonrpc::{Notification, Response};
use crate::protocol::Eras;
use crate::protocol::trace_context::TraceParent;
use crate::wire::http::x_mcp_header::HeaderParam;
use anyhow::{Context, bail};
use era::{MODERN, mutual_version};
use hyper::{Method, StatusCode};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::time::Duration;

/// How the client reaches the server.
pub enum Link {
    /// A child process's stdin and stdout.
    Stdio(StdioLink),
    /// A Streamable HTTP endpoint.
    Http(HttpLink),
}

/// A JSON-RPC error the server answered with (and the HTTP status it came with).
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The JSON-RPC error code.
    pub code: i64,
    /// Its message.
    pub message: String,
    /// Its data.
    pub data: Option<Value>,
    /// HTTP: the status it came with.
    pub status: Option<StatusCode>,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.code, self.message)?;
        if let Some(status) = self.status {
            write!(f, " (HTTP {status})")?;
        }
        Ok(())
    }
}

/// One server's answer: the response message (if any), checked by
/// [`jsonrpc::parse`], and, on HTTP, its status.
struct Answer {
    /// The id the request went out with.
    id: i64,
    response: Option<Response>,
    status: Option<StatusCode>,
}

/// A dual-era MCP client over one link: it learns the server's era, then sends
/// requests in it, answers the server's questions and follows its tasks.
pub struct McpClient {
    link: Link,
    spoken: Spoken,
    options: Options,
    next_id: i64,
    /// Legacy HTTP: the `Mcp-Session-Id` the server minted.
    session: Option<String>,
    /// Modern HTTP: the `x-mcp-header` arguments of each listed tool.
    header_params: HashMap<String, Vec<HeaderParam>>,
    /// Modern HTTP: the tools `tools/list` dropped for an invalid `x-mcp-header`,
    /// each with why: such a tool must not be called (its headers cannot be made),
    /// so a call to it is refused rather than sent.
    excluded: HashMap<String, String>,
    /// Each listed tool's `execution.taskSupport` (legacy task augmentation).
    task_support: HashMap<String, Value>,
    /// Legacy: the `capabilities` the server answered `initialize` with (whether it
    /// runs `tools/call` as tasks).
    server_capabilities: Value,
    /// HTTP: the OAuth state (registrations, the redirect listener), used when a
    /// request is refused with `401` or `403 insufficient_scope`.
    authorizer: Authorizer,
    /// Legacy HTTP: the session's GET stream, read in the background on its own
    /// connection, where a server sends the requests and notifications not tied to
    /// one of ours (2025-11-25 `basic/transports` "Listening for Messages from the
    /// Server"); its requests are answered as they come.
    background: Option<tokio::task::JoinHandle<()>>,
    /// Why the era probe decided as it did, when that is not plain from the wire
    /// (a result to `server/discover` that is no discover result): the program
    /// shows it, since the bytes alone look like a modern answer.
    era_note: Option<String>,
    /// `--trace-context` without a parent: the run's own trace, made at the first
    /// request; each request is sent from a new span of it.
    trace: Option<TraceParent>,
}

impl McpClient {
    /// Connects: learns the server's era (from `cache`, or by probing) and, for a
    /// legacy server, performs the `initialize` handshake. `key` names the server in
    /// the cache.
    pub async fn connect(
        link: Link,
        key: &str,
        options: Options,
        cache: &mut EraCache,
    ) -> anyhow::Result<McpClient> {
        let mut link = link;
        if let Link::Http(http) = &mut link {
            http.delivered = Some(std::sync::Arc::default());
        }
        let mut client = McpClient {
            authorizer: Authorizer::new(options.auth.clone()),
            link,
            spoken: Spoken::Modern {
                version: MODERN[0].to_owned(),
            },
            options,
            next_id: 1,
            session: None,
            header_params: HashMap::new(),
            excluded: HashMap::new(),
            task_support: HashMap::new(),
            server_capabilities: Value::Null,
            background: None,
            era_note: None,
            trace: None,
        };
        // Only a dual-era client has anything to learn, so only it uses the cache.
        let eras = client.options.eras;
        let cached = if eras == Eras::Both {
            cache.get(key).cloned()
        } else {
            None
        };
        let spoken = match (eras, cached) {
            (Eras::Legacy, _) => client.initialize().await?,
            (_, Some(modern @ Spoken::Modern { .. })) => modern,
            (_, Some(Spoken::Legacy { .. })) => match client.initialize().await {
                Ok(spoken) => spoken,
                // The cached assumption failed: probe afresh.
                Err(_) => client.detect().await?,
            },
            (_, None) => client.detect().await?,
        };
        client.spoken = spoken.clone();
        cache.insert(key, spoken);
        // MCP 2025-11-25 `server/utilities/logging` "Capabilities": "Servers that emit
        // log message notifications MUST declare the `logging` capability". A server
        // without it has no `logging/setLevel` to call: the client says so, asks nothing.
        let logs = client.server_capabilities.get("logging").is_some();
        if let (Spoken::Legacy { .. }, Some(level), false) =
            (&client.spoken, client.options.log_level.as_ref(), logs)
        {
            log::warn!(
                "[mcp-raw client] warning: --log-level {level}: the server did not declare the logging capability; no logging/setLevel sent"
            );
        }
        if let (Spoken::Legacy { .. }, Some(level), true) =
            (&client.spoken, client.options.log_level.clone(), logs)
            && let Err(e) = client
                .request("logging/setLevel", json!({ "level": level }))
                .await?
        {
            // A server without the logging capability may refuse it: the session
            // goes on, without its logs.
            log::warn!("[mcp-raw client] warning: logging/setLevel {level} refused: {e}");
        }
        Ok(client)
    }

    /// A stdio server's process id (none over HTTP, or once it has exited).
    pub fn server_pid(&self) -> Option<u32> {
        match &self.link {
            Link::Stdio(stdio) => stdio.pid(),
            Link::Http(_) => None,
        }
    }

    /// The era and version the server speaks.
    pub fn spoken(&self) -> &Spoken {
        &self.spoken
    }

    /// Why the era was decided as it was, when the wire alone does not say (a
    /// `server/discover` result that was not a discover result).
    pub fn era_note(&self) -> Option<&str> {
        self.era_note.as_deref()
    }

    /// Sends a request in the spoken era and returns its result, or the server's
    /// JSON-RPC error. A modern `-32022` is retried once with a version both sides
    /// speak.
    pub async fn request(
        &mut self,
        method: &str,
        params: Value,
    ) -> anyhow::Result<Result<Value, RpcError>> {
        let timeout = self.options.timeout;
        self.request_within(method, params, timeout).await
    }

    /// What this client declares, in one era: the capabilities given, and those its
    /// answers make true (a server asks only what was declared).
    fn capabilities(&self, modern: bool) -> Value {
        let mut declared = self.options.capabilities.clone();
        if let (Value::Object(declared), Value::Object(more)) =
            (&mut declared, self.options.answers.capabilities(modern))
        {
            for (k, v) in more {
                declared.entry(k).or_insert(v);
            }
        }
        declared
    }

    /// What the client answers when the server asks.
    pub fn answers(&self) -> &Answers {
        &self.options.answers
    }

    /// [`request`](Self::request), waiting up to `timeout` for the server's next bytes.
    pub async fn request_within(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> anyhow::Result<Result<Value, RpcError>> {
        let mut params = params;
        let (mut version_retries, mut rounds) = (0, 0);
        loop {
            let version = match &self.spoken {
                Spoken::Modern { version } => Some(version.clone()),
                Spoken::Legacy { .. } => None,
            };
            let answer = self
                .send(method, params.clone(), version.as_deref(), timeout)
                .await?;
            let Some(response) = answer.response else {
                bail!(match answer.status {
                    // stdio: the wait ran out.
                    None => format!("no response to {method} within {timeout:?}"),
                    // HTTP: the answer came, without the response in it.
                    Some(status) if !status.is_success() => format!(
                        "{method}: the server answered HTTP {status} with no JSON-RPC response in its body"
                    ),
                    Some(status) => format!(
                        "{method}: the server's HTTP {status} answer holds no JSON-RPC response to it (id {})",
                        answer.id
                    ),
                });
            };
            if let Ok(result) = response.outcome {
                // 2026-07-28 `basic/patterns/mrtr`: the server needs input first. The
                // same request goes again, with the answers and the opaque state.
                if version.is_some() && result["resultType"] == "input_required" {
                    rounds += 1;
                    let max = self.options.max_input_rounds;
                    if rounds > max {
                        bail!(
                            "{method}: still input_required after {max} rounds (--max-input-rounds)"
                        );
                    }
                    self.fulfil(method, &result, &mut params)?;
                    continue;
                }
                return Ok(Ok(result.into_value()));
            }
            let error = rpc_error(&response, answer.status);
            match (&mut self.spoken, mutual_version(&error)) {
                (Spoken::Modern { version }, Some(v))
                    if error.code == crate::jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION
                        && version_retries == 0 =>
                {
                    version_retries += 1;
                    *version = v
                }
                (Spoken::Modern { .. }, Some(_))
                    if error.code == crate::jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION =>
                {
                    bail!("{method}: the server kept refusing our protocol version")
                }
                _ => return Ok(Err(error)),
            }
        }
    }

    /// Answers an `InputRequiredResult`: each of its `inputRequests` from the
    /// configured answers, into `params.inputResponses`, and its `requestState`
    /// echoed as it came (or dropped when it sent none).
    fn fulfil(&self, method: &str, result: &Value, params: &mut Value) -> anyhow::Result<()> {
        let requests = result["inputRequests"]
            .as_object()
            .with_context(|| format!("{method}: input_required without an inputRequests object"))?;
        let mut responses = Map::new();
        for (key, asked) in requests {
            let asked_method = asked["method"].as_str().unwrap_or("");
            let answer = self
                .options
                .answers
                .result(asked_method, asked.get("params"))
                .map_err(|e| {
                anyhow::anyhow!(
                    "{method}: the server asks {asked_method} (input {key:?}), which this client cannot answer: {}",
                    e.message
                )
            })?;
            responses.insert(key.clone(), answer);
        }
        let p = params.as_object_mut().context("params must be an object")?;
        p.insert("inputResponses".into(), Value::Object(responses));
        match result.get("requestState") {
            Some(state) => p.insert("requestState".into(), state.clone()),
            None => p.remove("requestState"),
        };
        Ok(())
    }

    /// Listens for what the server sends unprompted (list changes, resource updates)
    /// until the stream ends or `stop` completes (Ctrl-C); every message is shown as
    /// it arrives, by the link's recorder. Returns how it ended.
    ///
    /// - Legacy HTTP: `GET /mcp` in the session (2025-11-25 `basic/transports`
    ///   "Listening for Messages from the Server").
    /// - Modern (2026-07-28): a `subscriptions/listen` request whose SSE stream (on
    ///   stdio: whose later lines) carries the notifications it asked for.
    /// - Legacy stdio: the server's stdout, which carries them anyway.
    pub async fn listen(
        &mut self,
        stop: impl std::future::Future<Output = ()>,
    ) -> anyhow::Result<String> {
        let filter = json!({ "notifications": {
            "toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true } });
        let modern = match &self.spoken {
            Spoken::Modern { version } => Some(version.clone()),
            Spoken::Legacy { .. } => None,
        };
        match &self.link {
            Link::Stdio(_) => self.listen_stdio(filter, modern, stop).await,
            Link::Http(_) => self.listen_http(filter, modern, stop).await,
        }
    }

    /// Ends the connection: a legacy HTTP session is DELETEd, a stdio child gets EOF.
    pub async fn close(self) -> anyhow::Result<()> {
        if let Some(task) = &self.background {
            task.abort();
        }
        // 2025-11-25 `basic/transports` "Protocol Version Header": the version goes
        // "on all subsequent requests", the DELETE that ends the session included.
        let delete_headers = self.session_headers();
        match self.link {
            Link::Http(mut http) => {
                if self.session.is_some() {
                    http.exchange(Method::DELETE, &delete_headers, Vec::new())
                        .await?;
                }
                Ok(())
            }
            Link::Stdio(stdio) => {
                let exit = stdio.close(self.options.shutdown_timeout).await?;
                if exit.stopped.is_some() {
                    log::warn!("[mcp-raw client] warning: the server exited with {exit}");
                } else if !exit.status.success() {
                    bail!("the server exited with {exit}");
                }
                Ok(())
            }
        }
    }

    async fn notify(&mut self, method: &str, params: Option<Value>) -> anyhow::Result<()> {
        let bytes = Notification::new(method, params).to_bytes();
        match &mut self.link {
            Link::Stdio(stdio) => stdio.send(&bytes).await,
            Link::Http(_) => {
                let headers = self.legacy_headers();
                let reply = self.post(&headers, bytes, None).await?;
                if !reply.status.is_success() {
                    bail!("{method}: HTTP {}", reply.status);
                }
                Ok(())
            }
        }
    }

    /// Builds and sends one request: `modern` is the version to put in `_meta` (and
    /// the headers), `None` for a legacy request.
    async fn send(
        &mut self,
        method: &str,
        params: Value,
        modern: Option<&str>,
        timeout: Duration,
    ) -> anyhow::Result<Answer> {
        let (id, message) = self.build(method, params, modern)?;
        let bytes = serde_json::to_vec(&message)?;
        match &self.link {
            Link::Stdio(_) => self.send_stdio(id, &bytes, timeout).await,
            Link::Http(_) => {
                self.send_http(id, method, &message, bytes, modern, timeout)
                    .await
            }
        }
    }
}

pub(super) fn rpc_error(response: &Response, status: Option<StatusCode>) -> RpcError {
    match &response.outcome {
        Err(e) => RpcError {
            code: e.code,
            message: e.message.clone(),
            data: e.data.clone(),
            status,
        },
        Ok(_) => RpcError {
            code: 0,
            message: "(a success, not an error)".into(),
            data: None,
            status,
        },
    }
}
