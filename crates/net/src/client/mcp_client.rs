//! A dual-era MCP client over either link. It finds out which era a server speaks the
//! way MCP 2026-07-28 `basic/versioning` "Backward Compatibility" prescribes, then
//! builds every request for that era: legacy requests inside an `initialize`d session,
//! modern ones each carrying `_meta` (and, on HTTP, the mirrored headers).

use super::answers::Answers;
use super::auth::{AuthConfig, Authorizer};
use super::http_link::{HttpLink, HttpReply, Posted};
use super::stdio_link::StdioLink;
use super::task_handle as tasks;
use crate::jsonrpc::code::HEADER_MISMATCH;
use crate::jsonrpc::{self, Message, Notification, Parsed, Request, RequestId, Response};
use crate::protocol::{Eras, LATEST_VERSION, SUPPORTED_VERSIONS, meta};
use crate::wire::http::mirror;
use crate::wire::http::x_mcp_header::{self, HeaderParam};
use anyhow::{Context, bail};
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

/// Settings of one client.
pub struct Options {
    /// The eras this client may speak: `Both` makes it dual-era.
    pub eras: Eras,
    /// `capabilities` (legacy) or `_meta` clientCapabilities (modern).
    pub capabilities: Value,
    /// How long the stdio `server/discover` probe waits before calling the server
    /// legacy ("does not respond within a reasonable timeout").
    pub probe_timeout: Duration,
    /// How long any other request may take.
    pub timeout: Duration,
    /// How long a server may take to give its first answer (to `initialize`, or a
    /// late one to the stdio probe): a slow start is not a legacy server.
    pub startup_timeout: Duration,
    /// What to answer when the server asks (`ping`, roots, sampling, elicitation);
    /// the capabilities declared include what these make true.
    pub answers: Answers,
    /// `--progress`: ask for progress notifications on every request that does work.
    pub progress: bool,
    /// `--max-resumes`: how many times a legacy stream is resumed before the client
    /// gives up on its response.
    pub max_resumes: usize,
    /// `--max-retry-wait`: the longest `retry:` the client honours before resuming.
    pub max_retry_wait: Duration,
    /// `--max-input-rounds`: the most `input_required` rounds one request may take.
    pub max_input_rounds: usize,
    /// stdio: how long the server may take to exit after its stdin closes, and again
    /// after SIGTERM, before the next step (`--shutdown-timeout`).
    pub shutdown_timeout: Duration,
    /// `--log-level`: the log messages wanted (legacy: `logging/setLevel` after the
    /// handshake; modern: `_meta` of every request).
    pub log_level: Option<String>,
    /// `--task-timeout`: how long a task a server runs for a `tools/call` is followed
    /// before the client cancels it and gives up.
    pub task_timeout: Duration,
    /// HTTP: how to authorize when the server answers `401` (OAuth 2.1, [`super::auth`]).
    pub auth: AuthConfig,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            eras: Eras::Both,
            capabilities: json!({}),
            probe_timeout: Duration::from_secs(3),
            startup_timeout: Duration::from_secs(30),
            answers: Answers::default(),
            timeout: Duration::from_secs(10),
            shutdown_timeout: Duration::from_secs(5),
            progress: false,
            max_resumes: 5,
            max_retry_wait: Duration::from_secs(10),
            max_input_rounds: 8,
            log_level: None,
            task_timeout: Duration::from_secs(300),
            auth: AuthConfig::default(),
        }
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
}

/// The modern versions this client speaks, newest first.
const MODERN: [&str; 1] = meta::MODERN_VERSIONS;

/// Codes that only a modern server sends (2026-07-28 `basic/index` "Error Codes").
fn is_modern_error(code: i64) -> bool {
    matches!(
        code,
        HEADER_MISMATCH
            | crate::jsonrpc::code::MISSING_CAPABILITY
            | crate::jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION
    )
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
        if let (Spoken::Legacy { .. }, Some(level)) =
            (&client.spoken, client.options.log_level.clone())
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

    /// Era detection: the modern probe first; a legacy answer means `initialize`
    /// (unless this client speaks only the modern era).
    async fn detect(&mut self) -> anyhow::Result<Spoken> {
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

    /// The era and version the server speaks.
    pub fn spoken(&self) -> &Spoken {
        &self.spoken
    }

    /// Why the era was decided as it was, when the wire alone does not say (a
    /// `server/discover` result that was not a discover result).
    pub fn era_note(&self) -> Option<&str> {
        self.era_note.as_deref()
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
    async fn initialize(&mut self) -> anyhow::Result<Spoken> {
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

    /// The headers of a legacy `GET /mcp`: the stream's media type, the session.
    fn get_headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![("accept".to_owned(), "text/event-stream".to_owned())];
        headers.extend(
            self.legacy_headers()
                .into_iter()
                .filter(|(n, _)| n == "mcp-session-id" || n == mirror::PROTOCOL_VERSION),
        );
        headers
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

    /// `tools/list`, following `nextCursor`. On modern HTTP every tool's
    /// `x-mcp-header` annotations are checked; a tool with an invalid one is dropped
    /// with a warning on stderr, as the spec requires.
    pub async fn list_tools(&mut self) -> anyhow::Result<Vec<Value>> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let result = self
                .request("tools/list", params)
                .await?
                .map_err(|e| anyhow::anyhow!("tools/list failed: {e}"))?;
            tools.extend(result["tools"].as_array().cloned().unwrap_or_default());
            for tool in result["tools"].as_array().into_iter().flatten() {
                if let Some(name) = tool["name"].as_str() {
                    self.task_support
                        .insert(name.to_owned(), tool["execution"]["taskSupport"].clone());
                }
            }
            match result.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => break,
            }
        }
        if self.mirrors_headers() {
            tools.retain(|tool| {
                let name = tool["name"].as_str().unwrap_or_default().to_owned();
                match x_mcp_header::header_params(&tool["inputSchema"]) {
                    Ok(params) => {
                        self.header_params.insert(name, params);
                        true
                    }
                    Err(why) => {
                        log::warn!("[mcp-raw client] warning: dropping tool {name:?}: {why}");
                        self.excluded.insert(name, why);
                        false
                    }
                }
            });
        }
        Ok(tools)
    }

    /// Why `tools/list` dropped the tool `name` (an invalid `x-mcp-header`), if it
    /// did: such a tool is not called.
    pub fn excluded(&self, name: &str) -> Option<&str> {
        self.excluded.get(name).map(String::as_str)
    }

    /// `tools/call` with these arguments. A call the server runs as a task is
    /// followed to its end ([`super::tasks`]): the result is the tool's. A tool
    /// [`excluded`](Self::excluded) by the listing is refused, not called.
    pub async fn call_tool(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> anyhow::Result<Result<Value, RpcError>> {
        // 2026-07-28 `server/tools` "x-mcp-header": a tool with an invalid
        // annotation is dropped from the list (its headers cannot be made right);
        // a dropped tool is not called either.
        if let Some(why) = self.excluded(name) {
            bail!("tool {name:?} was excluded by tools/list and is not called: {why}");
        }
        let mut params = json!({ "name": name, "arguments": arguments });
        let legacy = matches!(self.spoken, Spoken::Legacy { .. });
        let support = self
            .task_support
            .get(name)
            .map(|s| json!({ "execution": { "taskSupport": s } }));
        let opted_in = self.options.answers.tasks.is_some();
        if legacy && tasks::augment_legacy(&self.server_capabilities, support.as_ref(), opted_in) {
            params["task"] = json!({ "ttl": tasks::TTL_MS });
        }
        let result = match self.request("tools/call", params).await? {
            Ok(result) => result,
            Err(e) => return Ok(Err(e)),
        };
        let limit = self.options.task_timeout;
        if legacy && let Some(seen) = tasks::Seen::legacy_created(&result) {
            return self.follow_legacy_task(seen, limit).await;
        }
        if !legacy
            && result["resultType"] == "task"
            && let Some(seen) = tasks::Seen::modern(&result)
        {
            return self.follow_modern_task(seen, limit).await;
        }
        Ok(Ok(result))
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
        tokio::pin!(stop);
        if let Link::Stdio(_) = &self.link {
            if let Some(version) = &modern {
                let (_, message) = self.build("subscriptions/listen", filter, Some(version))?;
                let bytes = serde_json::to_vec(&message)?;
                if let Link::Stdio(stdio) = &mut self.link {
                    stdio.send(&bytes).await?;
                }
            }
            let Link::Stdio(stdio) = &mut self.link else {
                unreachable!("matched above")
            };
            loop {
                tokio::select! {
                    () = &mut stop => return Ok("interrupted".into()),
                    line = stdio.receive(Duration::MAX) => match line {
                        Ok(Some(super::stdio_link::Output::Line(line))) => {
                            if let Ok(Parsed::One(Message::Request(r))) = jsonrpc::parse(&line) {
                                stdio.send(&self.options.answers.respond(&r).to_bytes()).await?;
                            }
                        }
                        Ok(Some(_)) => {}
                        Ok(None) | Err(_) => return Ok("the server closed its stdout".into()),
                    },
                }
            }
        }
        let (method, headers, body) = match &modern {
            Some(version) => {
                let (_, message) = self.build("subscriptions/listen", filter, Some(version))?;
                let headers =
                    self.modern_headers(version, "subscriptions/listen", &message["params"]);
                (Method::POST, headers, serde_json::to_vec(&message)?)
            }
            None => {
                // The background GET gives way to this one, watched in the open.
                if let Some(task) = self.background.take() {
                    task.abort();
                }
                (Method::GET, self.get_headers(), Vec::new())
            }
        };
        let answering = self.answering();
        let Link::Http(http) = &mut self.link else {
            unreachable!("stdio returned above")
        };
        let mut answer = answering;
        let (reply, stopped) = http
            .stream(method, &headers, body, stop, &mut answer)
            .await?;
        Ok(match (stopped, reply.status.is_success()) {
            (true, _) => "interrupted".into(),
            (false, true) => "the server ended the stream".into(),
            (false, false) => format!("the server refused to open a stream: HTTP {}", reply.status),
        })
    }

    /// Ends the connection: a legacy HTTP session is DELETEd, a stdio child gets EOF.
    pub async fn close(self) -> anyhow::Result<()> {
        if let Some(task) = &self.background {
            task.abort();
        }
        // 2025-11-25 `basic/transports` "Protocol Version Header": the version goes
        // "on all subsequent requests", the DELETE that ends the session included.
        let delete_headers: Vec<(String, String)> = self
            .legacy_headers()
            .into_iter()
            .filter(|(n, _)| n == "mcp-session-id" || n == mirror::PROTOCOL_VERSION)
            .collect();
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

    /// Does this connection mirror `x-mcp-header` arguments? Only modern HTTP: other
    /// transports MAY ignore the annotations.
    fn mirrors_headers(&self) -> bool {
        matches!(
            (&self.link, &self.spoken),
            (Link::Http(_), Spoken::Modern { .. })
        )
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

    /// Builds one request: a fresh id, and for a modern one (`modern` is its
    /// version) the per-request `_meta`.
    fn build(
        &mut self,
        method: &str,
        mut params: Value,
        modern: Option<&str>,
    ) -> anyhow::Result<(i64, Value)> {
        let id = self.next_id;
        self.next_id += 1;
        // `--progress`: a token on every request that does work (2025-11-25
        // `basic/utilities/progress`); the handshake and the probe carry none.
        let progress = self.options.progress
            && !matches!(
                method,
                "initialize" | "server/discover" | "ping" | "logging/setLevel"
            )
            && !method.ends_with("/list");
        // `--log-level` in the modern era travels with each request.
        let log_level = modern.and(self.options.log_level.clone());
        if modern.is_some() || progress {
            let meta = params
                .as_object_mut()
                .context("params must be an object")?
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                if let Some(version) = modern {
                    meta.insert(meta::PROTOCOL_VERSION.into(), json!(version));
                    meta.insert(meta::CLIENT_CAPABILITIES.into(), self.capabilities(true));
                    meta.insert(meta::CLIENT_INFO.into(), client_info());
                }
                if let Some(level) = log_level {
                    meta.insert(meta::LOG_LEVEL.into(), json!(level));
                }
                if progress {
                    meta.insert("progressToken".into(), json!(format!("progress-{id}")));
                }
            }
        }
        Ok((id, Request::new(id, method, Some(params)).to_value()))
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
        match &mut self.link {
            Link::Stdio(stdio) => {
                stdio.send(&bytes).await?;
                let response = stdio_answer(&mut self.link, &self.options.answers, &[id], timeout)
                    .await?
                    .map(|(_, r)| r);
                Ok(Answer {
                    id,
                    response,
                    status: None,
                })
            }
            Link::Http(_) => {
                let headers = match modern {
                    Some(version) => self.modern_headers(version, method, &message["params"]),
                    None => self.legacy_headers(),
                };
                let delivered = match &self.link {
                    Link::Http(http) => http.delivered.clone(),
                    Link::Stdio(_) => None,
                };
                let awaited = RequestId::from(id);
                if let Some(d) = &delivered {
                    d.expect(&awaited);
                }
                let outcome = self
                    .post_and_resume(&headers, bytes, id, method, modern)
                    .await;
                let Some(d) = delivered else { return outcome };
                let mut answer = match outcome {
                    Ok(answer) => answer,
                    Err(e) => {
                        d.take(&awaited);
                        return Err(e);
                    }
                };
                // The response may have come on the session's GET stream instead, or
                // may still come there after this stream ended without it.
                if answer.response.is_none()
                    && answer.status.is_some_and(|s| s.is_success())
                    && self.background.is_some()
                {
                    let _ = tokio::time::timeout(timeout, d.arrived(&awaited)).await;
                }
                if let Some(response) = d.take(&awaited)
                    && answer.response.is_none()
                {
                    answer.response = Some(response);
                }
                Ok(answer)
            }
        }
    }

    /// HTTP: POSTs a request and reads its answer; a legacy stream that ends without
    /// the response is resumed ([`McpClient::resume`]).
    async fn post_and_resume(
        &mut self,
        headers: &[(String, String)],
        bytes: Vec<u8>,
        id: i64,
        method: &str,
        modern: Option<&str>,
    ) -> anyhow::Result<Answer> {
        let reply = self.post(headers, bytes, Some(id)).await?;
        if method == "initialize"
            && let Some(sid) = reply
                .headers
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            self.session = Some(sid.to_owned());
        }
        let answer = answer_for(&reply, id);
        if answer.response.is_none() && modern.is_none() {
            return self.resume(&reply, id, answer).await;
        }
        Ok(answer)
    }

    /// Legacy HTTP: the request's event stream ended without its response. When the
    /// stream gave its events ids, the rest is fetched with `GET` and `Last-Event-ID`
    /// after the `retry:` the server asked for (2025-11-25 `basic/transports`
    /// "Resumability and Redelivery"), until the response comes or the server has
    /// nothing more.
    async fn resume(
        &mut self,
        reply: &HttpReply,
        id: i64,
        mut answer: Answer,
    ) -> anyhow::Result<Answer> {
        let (mut last, mut retry) = (reply.last_event_id(), reply.retry());
        let arrived = |link: &Link| match link {
            Link::Http(http) => http
                .delivered
                .as_ref()
                .is_some_and(|d| d.has(&RequestId::from(id))),
            Link::Stdio(_) => false,
        };
        for _ in 0..self.options.max_resumes {
            let Some(event_id) = last.clone() else { break };
            if arrived(&self.link) {
                break;
            }
            let wait = retry.unwrap_or(Duration::from_millis(500));
            tokio::time::sleep(wait.min(self.options.max_retry_wait)).await;
            let mut headers = self.get_headers();
            headers.push(("last-event-id".to_owned(), event_id));
            let mut answering = self.answering();
            let Link::Http(http) = &mut self.link else {
                break;
            };
            // The resumed stream is read up to the response and no further: the
            // server may keep it open as the session's stream.
            let resumed = http
                .exchange_awaiting(
                    Method::GET,
                    &headers,
                    Vec::new(),
                    &RequestId::from(id),
                    &mut answering,
                )
                .await?;
            if !resumed.status.is_success() || !resumed.is_sse() {
                break;
            }
            answer = answer_for(&resumed, id);
            if answer.response.is_some() {
                break;
            }
            last = resumed.last_event_id().or(last);
            retry = resumed.retry().or(retry);
        }
        Ok(answer)
    }

    /// POSTs a message on the HTTP link. A refusal that authorization can lift (`401`,
    /// `403 insufficient_scope`) runs the OAuth flow and sends the message again with
    /// `Authorization: Bearer` (2025-11-25 `basic/authorization` "Access Token
    /// Usage"), at most `max_rounds` times for one message.
    /// `awaited`: the id of the request the body carries, whose response ends the
    /// read of an event stream (see [`HttpLink::exchange_awaiting`]).
    async fn post(
        &mut self,
        headers: &[(String, String)],
        body: Vec<u8>,
        awaited: Option<i64>,
    ) -> anyhow::Result<HttpReply> {
        let awaited = awaited.map(RequestId::from);
        let mut rounds = 0;
        let mut nonce_retried = false;
        loop {
            let mut answer = self.answering();
            let Link::Http(http) = &mut self.link else {
                bail!("not an HTTP link")
            };
            let reply = match &awaited {
                Some(id) => {
                    http.exchange_awaiting(Method::POST, headers, body.clone(), id, &mut answer)
                        .await?
                }
                None => {
                    http.exchange_answering(Method::POST, headers, body.clone(), &mut answer)
                        .await?
                }
            };
            // RFC 9449 §9: a resource server that wants a nonce in the proof says
            // so with a 401; the same request goes again, its proof carrying the
            // nonce (once: a fresh nonce refused again is a real refusal).
            if let Some(credential) = &http.credential
                && !nonce_retried
                && Authorizer::wants_nonce(reply.status, &reply.headers, credential)
            {
                nonce_retried = true;
                continue;
            }
            if !Authorizer::is_challenge(reply.status, &reply.headers) {
                return Ok(reply);
            }
            if rounds >= self.authorizer.max_rounds() {
                // The flow ran its rounds and the server still refuses: that is
                // the answer, said as such (not a missing response, not an era).
                bail!(give_up(reply.status, &reply.headers, rounds));
            }
            rounds += 1;
            let credential = self
                .authorizer
                .authorize(http, reply.status, &reply.headers, rounds == 1)
                .await
                .with_context(|| format!("authorizing after HTTP {}", reply.status))?;
            http.credential = Some(credential);
        }
    }

    /// How a request the server sends on an HTTP stream is answered (legacy: the
    /// response is POSTed in the session, 2025-11-25 `basic/transports` "Sending
    /// Messages to the Server").
    fn answering(&self) -> impl FnMut(&Request) -> Option<Posted> + Send + use<> {
        let answers = self.options.answers.clone();
        let headers = self.legacy_headers();
        move |request: &Request| Some((headers.clone(), answers.respond(request).to_bytes()))
    }

    /// Legacy HTTP headers: the session id and negotiated version once known.
    fn legacy_headers(&self) -> Vec<(String, String)> {
        let mut h = mirror::post_headers();
        if let Some(id) = &self.session {
            h.push(("mcp-session-id".to_owned(), id.clone()));
        }
        if let Spoken::Legacy { version } = &self.spoken {
            h.push((mirror::PROTOCOL_VERSION.to_owned(), version.clone()));
        }
        h
    }

    /// Modern HTTP headers ("Request Metadata"): the standard mirrored ones, plus the
    /// `x-mcp-header` arguments of a listed tool.
    fn modern_headers(&self, version: &str, method: &str, params: &Value) -> Vec<(String, String)> {
        let mut h = mirror::standard_headers(version, method, Some(params));
        if method == "tools/call"
            && let Some(Some(name)) = mirror::name_source(method, Some(params))
            && let Some(annotated) = self.header_params.get(name)
        {
            h.extend(x_mcp_header::headers_for(annotated, &params["arguments"]));
        }
        h
    }
}

/// What to say when the authorization rounds for one request are spent and the
/// server still answers with a challenge: `403 insufficient_scope` means the
/// authorization server kept issuing tokens without the scope the resource asks
/// for (2025-11-25 `basic/authorization` "Scope Challenge Handling"), a `401` that
/// the tokens it issued were refused.
fn give_up(status: StatusCode, headers: &hyper::HeaderMap, rounds: usize) -> String {
    let challenge = headers
        .get_all(hyper::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(super::auth::challenge::parse)
        .next();
    let param = |name: &str| {
        challenge
            .as_ref()
            .and_then(|c| c.param(name))
            .map(str::to_owned)
    };
    let tries = if rounds == 1 { "try" } else { "tries" };
    if status == StatusCode::FORBIDDEN {
        let scope = param("scope").map_or_else(
            || "the scope it asks for (the challenge names none)".to_owned(),
            |s| format!("scope {s:?}"),
        );
        format!(
            "the server still refuses with HTTP 403 insufficient_scope after {rounds} authorization {tries} (--max-auth-rounds): the authorization server kept issuing tokens without {scope}"
        )
    } else {
        let error = param("error").map_or_else(String::new, |e| format!(" {e}"));
        format!(
            "the server still refuses with HTTP {status}{error} after {rounds} authorization {tries} (--max-auth-rounds): it does not accept the tokens the authorization server issues"
        )
    }
}

fn client_info() -> Value {
    json!({ "name": "mcp-raw", "version": env!("CARGO_PKG_VERSION") })
}

/// The response to request `id` in an HTTP reply (JSON body, or one of the SSE
/// events); none for `202` or a body that holds no such response.
fn answer_for(reply: &HttpReply, id: i64) -> Answer {
    let mut responses: Vec<Response> = reply
        .rpc_messages()
        .into_iter()
        .filter_map(|m| match m {
            Message::Response(r) => Some(r),
            _ => None,
        })
        .collect();
    let wanted = Some(RequestId::from(id));
    let response = match responses.iter().position(|r| r.id == wanted) {
        Some(i) => Some(responses.swap_remove(i)),
        // A transport-level refusal may carry an error without an id (JSON-RPC 2.0
        // §5: `"id": null` when the request's id could not be read).
        None => responses
            .pop()
            .filter(|r| r.id.is_none() && r.outcome.is_err()),
    };
    Answer {
        id,
        response,
        status: Some(reply.status),
    }
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

/// stdio: the next response to one of `ids`, read within `timeout`. Lines that
/// answer something else, notifications and lines that are not JSON-RPC were shown
/// by the link as they came and are passed over here.
async fn stdio_answer(
    link: &mut Link,
    answers: &Answers,
    ids: &[i64],
    timeout: Duration,
) -> anyhow::Result<Option<(i64, Response)>> {
    let Link::Stdio(stdio) = link else {
        bail!("not a stdio link")
    };
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let Some(out) = stdio.receive(left).await? else {
            return Ok(None);
        };
        let super::stdio_link::Output::Line(line) = out else {
            continue;
        };
        match jsonrpc::parse(&line) {
            // A request from the server is answered at once, whatever we wait for.
            Ok(Parsed::One(Message::Request(request))) => {
                stdio.send(&answers.respond(&request).to_bytes()).await?;
            }
            Ok(Parsed::One(Message::Response(response))) => {
                if let Some(id) = ids
                    .iter()
                    .find(|id| response.id == Some(RequestId::from(**id)))
                {
                    return Ok(Some((*id, response)));
                }
            }
            _ => {}
        }
    }
}

fn rpc_error(response: &Response, status: Option<StatusCode>) -> RpcError {
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
fn mutual_version(error: &RpcError) -> Option<String> {
    let supported = error.data.as_ref()?.get("supported")?.as_array()?;
    MODERN
        .iter()
        .find(|v| supported.iter().any(|s| s.as_str() == Some(v)))
        .map(|v| (*v).to_owned())
}
