//! `tap --remote URL`: a stdio front for a Streamable HTTP server. The client starts
//! the tap as it would start a stdio server and writes one JSON-RPC message a line;
//! the tap sends each as a POST to `URL` and writes back, a line each, what the server
//! answers: a JSON body, or each event of an SSE stream the moment it comes (so a
//! server's request or progress in the middle of a call reaches the client at once).
//! `wrap` puts a client's remote (URL) servers behind it.
//!
//! What it records: the stdio lane as the client wrote and read it, and each HTTP
//! connection to the server as its bytes crossed (the same recorded link `client`
//! uses). The HTTP is the tap's, not the client's: a client that speaks HTTP itself
//! is seen as it is through `tap --http` instead.
//!
//! The transport's rules it keeps, in the client's place (2025-11-25
//! `basic/transports` "Streamable HTTP"): every POST accepts `application/json` and
//! `text/event-stream`; the `Mcp-Session-Id` the server gives with `initialize` goes on
//! every later request, and `MCP-Protocol-Version` with the version `initialize`
//! agreed ("Protocol Version Header"); once the client has sent
//! `notifications/initialized` a `GET` opens the session's stream for what the server
//! sends unprompted (a `405` means it offers none); at the client's end, a `DELETE`
//! ends the session ("Session Management"). A 2026-07-28 request (its `_meta` names
//! the version) carries the mirrored headers of that revision instead
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and the `Mcp-Param-*` a listed
//! tool's `x-mcp-header` annotations ask for: "Request Metadata").

mod lines;

use crate::client::http_link::HttpLink;
use crate::client::tls::Tls;
use crate::wire::event::{Dir, LaneKind, What};
use crate::wire::http::{mirror, x_mcp_header};
use crate::wire::lock::Locked;
use crate::wire::recorder::Recorder;
use hyper::Method;
use lines::{Out, read_lines};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// JSON-RPC 2.0 §5.1 "Internal error": the code of the answer the tap writes itself
/// when the server gave none it could pass on (it could not be reached, or answered
/// a request with an HTTP error and no JSON-RPC body).
const NO_ANSWER: i64 = -32603;

/// `_meta`'s key by which a 2026-07-28 request names its revision (`basic/index`).
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// How the relay runs.
pub struct Config {
    /// The client's side: what it writes (the tap's stdin, from the binary).
    pub input: Box<dyn Read + Send>,
    /// The client's side: where its answers go (the tap's stdout, from the binary).
    pub output: Box<dyn Write + Send>,
    /// The server's MCP endpoint, `http://` or `https://`.
    pub url: String,
    /// Headers sent with every request (`--header`, a configuration's `headers`).
    pub headers: Vec<(String, String)>,
    /// Where both sides' bytes go.
    pub recorder: Recorder,
    /// `--timeout`: the longest wait for the server's next bytes on a POST.
    pub timeout: Duration,
    /// `--max-response-bytes`: the largest body or event read from the server.
    pub max_body: usize,
    /// `--max-message-bytes`: the longest line read from the client.
    pub max_line: usize,
    /// `--cacert`, `--insecure`: how an `https://` server is trusted.
    pub tls: Arc<Tls>,
    /// `--trace-context`: trace context put into the client's requests before they
    /// are POSTed (the stdio lane shows the client's line, the HTTP lane the POST).
    pub trace: Option<super::trace::Injector>,
}

/// How each request reaches the server: [`Config`] without the client's streams,
/// shared by the requests in flight.
struct Link {
    /// [`Config::url`].
    url: String,
    /// [`Config::headers`].
    headers: Vec<(String, String)>,
    /// [`Config::recorder`].
    recorder: Recorder,
    /// [`Config::timeout`].
    timeout: Duration,
    /// [`Config::max_body`].
    max_body: usize,
    /// [`Config::tls`].
    tls: Arc<Tls>,
}

/// What the session has learned from the server, shared by the requests in flight.
#[derive(Default)]
struct Session {
    /// `Mcp-Session-Id`, from the response to `initialize`.
    id: Option<String>,
    /// The version `initialize` agreed on: `MCP-Protocol-Version` from then on.
    version: Option<String>,
    /// Whether the session's `GET` stream has been opened.
    listening: bool,
    /// `x-mcp-header` annotations of the tools a `tools/list` listed, by tool name.
    header_params: HashMap<String, Vec<x_mcp_header::HeaderParam>>,
}

/// Runs the relay until the client closes its stdin and the requests in flight are
/// answered (or time out); returns the exit status (0).
pub fn run(config: Config) -> anyhow::Result<i32> {
    let Config {
        input,
        output,
        url,
        headers,
        recorder,
        timeout,
        max_body,
        max_line,
        tls,
        trace,
    } = config;
    let config = Link {
        url,
        headers,
        recorder,
        timeout,
        max_body,
        tls,
    };
    // A link made now: a bad URL is refused before the client's first line.
    HttpLink::recorded(&config.url, Recorder::none())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let recorder = config.recorder.clone();
    let lane = recorder.lane(LaneKind::Stdio);
    recorder.emit(
        lane,
        Dir::ToServer,
        What::Open(format!("relaying stdio to {}", config.url)),
    );
    let out = Out::start(output, recorder.clone(), lane);
    let (lines, mut from_client) = tokio::sync::mpsc::channel::<Vec<u8>>(16);
    let reader_out = out.clone();
    std::thread::Builder::new()
        .name("tap --remote stdin".into())
        .spawn(move || read_lines(input, &recorder, lane, max_line, trace, &lines, &reader_out))?;
    // One relay, cloned for each message in flight: the link, the session, the client.
    let relay = Relay {
        config: Arc::new(config),
        session: Arc::new(Mutex::new(Session::default())),
        out: out.clone(),
    };
    runtime.block_on(async move {
        let mut in_flight = tokio::task::JoinSet::new();
        let mut listening = None;
        while let Some(line) = from_client.recv().await {
            let opens_stream = Relay::prepare(&line);
            // In the order the client wrote them: the next message goes once the
            // server has taken this one (its response head came, or it failed), as
            // a stdio server would read them one after the other.
            let (taken, head) = tokio::sync::oneshot::channel();
            let one = relay.clone();
            in_flight.spawn(async move {
                one.forward(line, taken).await;
            });
            let _ = tokio::time::timeout(relay.config.timeout, head).await;
            if opens_stream && listening.is_none() {
                // The session's stream, once the client has said it is ready.
                while in_flight.join_next().await.is_some() {}
                listening = Some(tokio::spawn(relay.clone().listen()));
            }
        }
        // The client closed its stdin: the answers still coming, then the end.
        let drain = async { while in_flight.join_next().await.is_some() {} };
        let _ = tokio::time::timeout(relay.config.timeout, drain).await;
        if let Some(task) = listening {
            task.abort();
        }
        relay.end_session().await;
    });
    out.close("the client closed its stdin");
    Ok(0)
}

/// A JSON-RPC error response for `id`, as the tap writes it.
fn error(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": format!("tap --remote: {message}")}})
        .to_string()
}

/// What each message on its way needs; cloned for each one in flight.
#[derive(Clone)]
struct Relay {
    /// How a request reaches the server.
    config: Arc<Link>,
    /// What the session has learned, shared by every request.
    session: Arc<Mutex<Session>>,
    /// The client's stdout.
    out: Out,
}

impl Relay {
    /// Whether this line is `notifications/initialized` (then the session's stream
    /// opens once it has been sent).
    fn prepare(line: &[u8]) -> bool {
        serde_json::from_slice::<Value>(line)
            .is_ok_and(|m| m["method"] == "notifications/initialized" && m.get("id").is_none())
    }

    /// A link to the server, set up as the flags say.
    fn link(&self) -> anyhow::Result<HttpLink> {
        let mut link = HttpLink::recorded(&self.config.url, self.config.recorder.clone())?;
        link.tls = self.config.tls.clone();
        link.extra_headers = self.config.headers.clone();
        link.timeout = self.config.timeout;
        link.max_body = self.config.max_body;
        Ok(link)
    }

    /// The headers of a POST carrying `message`: the mirrored 2026-07-28 ones when
    /// its `_meta` names that revision, else the session's.
    fn headers(&self, message: &Value) -> Vec<(String, String)> {
        let method = message["method"].as_str();
        let params = message.get("params");
        if let (Some(method), Some(version)) = (
            method,
            params.and_then(|p| p["_meta"][VERSION_KEY].as_str()),
        ) {
            let mut h = mirror::standard_headers(version, method, params);
            if method == "tools/call"
                && let Some(Some(name)) = mirror::name_source(method, params)
                && let Some(annotated) = self.session.locked().header_params.get(name)
            {
                h.extend(x_mcp_header::headers_for(
                    annotated,
                    &message["params"]["arguments"],
                ));
            }
            return h;
        }
        let mut h = mirror::post_headers();
        self.session_headers(&mut h);
        h
    }

    /// `Mcp-Session-Id` and `MCP-Protocol-Version`, once the session has them.
    fn session_headers(&self, h: &mut Vec<(String, String)>) {
        let session = self.session.locked();
        if let Some(id) = &session.id {
            h.push(("mcp-session-id".to_owned(), id.clone()));
        }
        if let Some(version) = &session.version {
            h.push((mirror::PROTOCOL_VERSION.to_owned(), version.clone()));
        }
    }

    /// POSTs one client line and writes back what comes; a request the server left
    /// unanswered gets the tap's error, saying why.
    async fn forward(self, line: Vec<u8>, taken: tokio::sync::oneshot::Sender<hyper::StatusCode>) {
        let message: Value = serde_json::from_slice(&line).unwrap_or(Value::Null);
        let id = message
            .get("id")
            .filter(|_| message.get("method").is_some());
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        let headers = self.headers(&message);
        // A 2026-07-28 subscription stream may stay quiet for long: no wait limit.
        let until_end = method != "subscriptions/listen";
        let mut answered = false;
        let mut seen = Vec::new();
        // What the session learns from these answers is learned before the client
        // reads them: its next request must carry it.
        let learn = matches!(method.as_str(), "initialize" | "tools/list");
        let mut held = Vec::new();
        let result = match self.link() {
            Ok(mut link) => {
                link.on_head(taken);
                let out = self.out.clone();
                let mut each = |data: &str| {
                    if data.trim().is_empty() {
                        return;
                    }
                    if id.is_some() && answers(data, id) {
                        seen.push(data.to_owned());
                    }
                    if learn {
                        held.push(data.as_bytes().to_vec());
                    } else {
                        out.send(data.as_bytes().to_vec());
                    }
                };
                link.relay(Method::POST, &headers, line, until_end, &mut each)
                    .await
            }
            Err(e) => Err(e),
        };
        if !seen.is_empty() {
            answered = true;
        }
        let reply = match result {
            Ok(reply) => reply,
            Err(e) => {
                for message in held {
                    self.out.send(message);
                }
                if let Some(id) = id.filter(|_| !answered) {
                    let why = format!("no answer from {}: {e:#}", self.config.url);
                    self.out.send(error(id, NO_ANSWER, &why).into_bytes());
                }
                return;
            }
        };
        let body = if reply.is_sse() {
            None
        } else {
            Some(reply.body.clone())
        };
        if let Some(body) = body
            .as_ref()
            .filter(|b| !b.iter().all(u8::is_ascii_whitespace))
        {
            let text = String::from_utf8_lossy(body).into_owned();
            if is_json_rpc(&text) {
                answered |= id.is_some() && answers(&text, id);
                seen.push(text.clone());
                held.push(body.to_vec());
                if !learn {
                    for message in held.drain(..) {
                        self.out.send(message);
                    }
                }
            }
        }
        if method == "initialize" && reply.status.is_success() {
            self.learn_session(&reply.headers, &seen);
        }
        if method == "tools/list" {
            self.learn_tools(&seen);
        }
        for message in held {
            self.out.send(message);
        }
        if let Some(id) = id.filter(|_| !answered) {
            let why = match &reply.cut {
                Some(cut) => format!("the server's stream ended before the answer ({cut})"),
                None => format!(
                    "HTTP {} from {} with no JSON-RPC answer{}",
                    reply.status,
                    self.config.url,
                    body.map(|b| format!(": {}", String::from_utf8_lossy(&b[..b.len().min(200)])))
                        .unwrap_or_default()
                ),
            };
            self.out.send(error(id, NO_ANSWER, &why).into_bytes());
        }
    }

    /// After `initialize`: the session id the server gave, and the version agreed.
    fn learn_session(&self, headers: &hyper::HeaderMap, answers: &[String]) {
        let mut session = self.session.locked();
        if let Some(id) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) {
            session.id = Some(id.to_owned());
        }
        let version = answers.iter().find_map(|a| {
            serde_json::from_str::<Value>(a).ok()?["result"]["protocolVersion"]
                .as_str()
                .map(str::to_owned)
        });
        if version.is_some() {
            session.version = version;
        }
    }

    /// After `tools/list`: each tool's `x-mcp-header` annotations (a tool whose
    /// annotations do not read is left without: the server will say what it misses).
    fn learn_tools(&self, answers: &[String]) {
        let mut session = self.session.locked();
        for answer in answers {
            let Ok(doc) = serde_json::from_str::<Value>(answer) else {
                continue;
            };
            for tool in doc["result"]["tools"].as_array().into_iter().flatten() {
                if let (Some(name), Ok(params)) = (
                    tool["name"].as_str(),
                    x_mcp_header::header_params(&tool["inputSchema"]),
                ) && !params.is_empty()
                {
                    session.header_params.insert(name.to_owned(), params);
                }
            }
        }
    }

    /// The session's `GET` stream, each event passed on as it comes, until it ends
    /// or the relay does; a server without one (`405`) is left at that.
    async fn listen(self) {
        if self.session.locked().id.is_none() || self.session.locked().listening {
            return;
        }
        self.session.locked().listening = true;
        let mut headers = vec![("accept".to_owned(), "text/event-stream".to_owned())];
        self.session_headers(&mut headers);
        let Ok(mut link) = self.link() else { return };
        let out = self.out.clone();
        let mut each = |data: &str| {
            if !data.trim().is_empty() {
                out.send(data.as_bytes().to_vec());
            }
        };
        let _ = link
            .relay(Method::GET, &headers, Vec::new(), false, &mut each)
            .await;
    }

    /// The client is gone: its session ended with a `DELETE` (a server that does not
    /// allow that answers `405`, which ends nothing more).
    async fn end_session(self) {
        if self.session.locked().id.is_none() {
            return;
        }
        let mut headers = Vec::new();
        self.session_headers(&mut headers);
        if let Ok(mut link) = self.link() {
            let _ = link.exchange(Method::DELETE, &headers, Vec::new()).await;
        }
    }
}

/// Is `text` a JSON-RPC message (or batch): something for the client, not an HTML
/// error page?
fn is_json_rpc(text: &str) -> bool {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => m.get("jsonrpc").is_some(),
        Ok(Value::Array(items)) => items.iter().any(|i| i.get("jsonrpc").is_some()),
        _ => false,
    }
}

/// Is `data` the response to the request `id`?
fn answers(data: &str, id: Option<&Value>) -> bool {
    let Some(id) = id else { return false };
    serde_json::from_str::<Value>(data).is_ok_and(|m| {
        m.get("method").is_none()
            && m.get("id") == Some(id)
            && (m.get("result").is_some() || m.get("error").is_some())
    })
}
