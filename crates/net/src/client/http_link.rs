//! The client side of Streamable HTTP: one keep-alive HTTP/1.1 connection (reopened if
//! the server closes it), every request and response printed in full. Over `http://`
//! or `https://`: TLS sits below the recording (plaintext in, plaintext out), each
//! connection's handshake recorded as its facts ([`super::tls`]).

use super::auth::credential::Credential;
use super::wire_print::Printer;
use crate::jsonrpc;
use crate::wire::event::{Dir, LaneKind, What};
use crate::wire::recorded::Recorded;
use crate::wire::recorder::Recorder;
use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{HeaderMap, Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::time::Duration;

/// Default of `--timeout`: how long to wait for the server's next bytes.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Default of `--max-response-bytes`: the largest response body the client reads
/// whole (a JSON response, the event stream of one request), and the largest single
/// event of a long-lived stream.
pub const DEFAULT_MAX_BODY: usize = 16 << 20;

/// Default of `--max-oauth-bytes`: the largest body of an OAuth document or answer
/// (resource and authorization server metadata, registration, token): small JSON
/// objects, read whole before they are parsed.
pub const DEFAULT_MAX_DOCUMENT: usize = 1 << 20;

/// What to do with a request the server sends on a response stream (legacy
/// `sampling/createMessage`, `ping`…): the headers and body of the POST that carries
/// the client's response back, or `None` to leave it unanswered.
pub type OnRequest<'a> = &'a mut (dyn FnMut(&jsonrpc::Request) -> Option<Posted> + Send);

/// An owned [`OnRequest`], for a stream read in the background.
pub type Answering = dyn FnMut(&jsonrpc::Request) -> Option<Posted> + Send;

/// A POST to send: its headers and its body.
pub type Posted = (Vec<(String, String)>, Vec<u8>);

/// How long, after a POST's stream brought its response, the client waits for the
/// stream's end before it drops the connection instead (a stream that ends is one
/// the view shows whole and a connection the next request can use).
const STREAM_END_GRACE: Duration = Duration::from_millis(50);

/// The responses a client awaits, shared by the streams of one session: a response
/// read on a stream other than its request's own (the session's `GET` stream) is
/// handed over here, so the wait for it ends wherever it arrives.
#[derive(Debug, Default)]
pub struct Delivered {
    /// Each awaited id, with its response once one arrived elsewhere.
    awaited:
        std::sync::Mutex<std::collections::HashMap<jsonrpc::RequestId, Option<jsonrpc::Response>>>,
    /// Woken when a response is handed over.
    arrival: tokio::sync::Notify,
}

impl Delivered {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<
        '_,
        std::collections::HashMap<jsonrpc::RequestId, Option<jsonrpc::Response>>,
    > {
        self.awaited
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// From now on a response to `id` is awaited.
    pub fn expect(&self, id: &jsonrpc::RequestId) {
        self.lock().insert(id.clone(), None);
    }

    /// The response to `id` if it arrived elsewhere; `id` is no longer awaited.
    pub fn take(&self, id: &jsonrpc::RequestId) -> Option<jsonrpc::Response> {
        self.lock().remove(id).flatten()
    }

    /// Has the response to `id` arrived elsewhere?
    pub fn has(&self, id: &jsonrpc::RequestId) -> bool {
        matches!(self.lock().get(id), Some(Some(_)))
    }

    /// Keeps `response` if its id is awaited (a response nobody awaits is not kept:
    /// a server cannot fill memory with them).
    fn offer(&self, response: &jsonrpc::Response) {
        let Some(id) = &response.id else { return };
        let mut awaited = self.lock();
        if let Some(slot @ None) = awaited.get_mut(id) {
            *slot = Some(response.clone());
            drop(awaited);
            self.arrival.notify_waiters();
        }
    }

    /// Completes once a response to `id` has arrived elsewhere.
    pub async fn arrived(&self, id: &jsonrpc::RequestId) {
        loop {
            // Created before the check: a hand-over between the two still wakes it.
            let woken = self.arrival.notified();
            if self.has(id) {
                return;
            }
            woken.await;
        }
    }
}

/// How a response body is read.
struct Reading<'a> {
    /// The longest wait for the body's next bytes; `None`: a stream read until it
    /// ends or is stopped, keeping no body.
    between: Option<Duration>,
    /// The request whose response ends the read (see [`HttpLink::exchange_awaiting`]).
    awaited: Option<&'a jsonrpc::RequestId>,
}

/// The error of a body over its limit: whose, how big it is allowed to be, and what
/// showed it was bigger.
fn too_big(authority: &str, status: &StatusCode, limit: usize, seen: &str) -> String {
    format!(
        "the HTTP {status} response body from {authority} is larger than {limit} bytes ({seen}): not read further (--max-response-bytes, --max-oauth-bytes for OAuth documents)"
    )
}

/// Did the peer reset the connection (a TLS server that read a plaintext request
/// closes with it unread, and the kernel answers with a reset)?
fn reset(e: &hyper::Error) -> bool {
    std::error::Error::source(e)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionReset)
}

/// An HTTP connection to an MCP endpoint (or an OAuth URL), opened lazily and
/// recorded: every byte both ways becomes events on the printer's recorder.
pub struct HttpLink {
    sender: Option<SendRequest<Full<Bytes>>>,
    /// A second connection for the client's answers to requests that arrive while a
    /// response is still streaming on the first (HTTP/1.1 carries one at a time).
    aside: Option<SendRequest<Full<Bytes>>>,
    /// `host:port`, for connecting (and the `Host` header of an `http://` link).
    authority: String,
    /// The `Host` header (RFC 9110 §7.2): `host:port`, or over `https://` the
    /// authority as the URL gave it (443 left out when it was).
    host_header: String,
    /// The host alone: the name TLS checks the certificate against.
    host: String,
    /// An `https://` URL: each connection runs a TLS handshake first.
    https: bool,
    /// The TLS setup (`--cacert`, `--insecure`, `--cert`…), shared with the links
    /// made from this one: used only by `https://` connections.
    pub tls: std::sync::Arc<super::tls::Tls>,
    /// Why the last `https://` connection's task ended, when TLS ended it (an alert
    /// after the handshake): hyper reports such a connection only as "canceled".
    tls_failure: std::sync::Arc<std::sync::Mutex<Option<String>>>,
    /// The MCP endpoint's path, e.g. `/mcp`.
    path: String,
    /// The URL as given, without its query: what a DPoP proof's `htu` names (RFC
    /// 9449 §4.2), the port left out when the user left it out.
    target: String,
    /// Every connection's bytes go through it, as they cross.
    recorder: Recorder,
    /// Headers sent with every request (`--header`), after the protocol's own.
    pub extra_headers: Vec<(String, String)>,
    /// The access token once authorized: its `Authorization` (and, DPoP-bound, a
    /// fresh `DPoP` proof) made for each request as it is sent.
    pub credential: Option<Credential>,
    /// Told the status of the next response head, once it arrives (a background
    /// stream reports that it is open).
    head_signal: Option<tokio::sync::oneshot::Sender<StatusCode>>,
    /// How long a response may keep the client waiting for its next bytes (its head,
    /// or the next piece of its body): a long stream lives as long as it moves.
    pub timeout: Duration,
    /// The largest body read whole (`--max-response-bytes`), and the largest event
    /// of a stream read as it goes: a server cannot make the client hold an
    /// unbounded body in memory. Past it, the exchange fails and the connection is
    /// dropped.
    pub max_body: usize,
    /// The responses awaited in this session: one read on any of this link's
    /// streams (the background `GET` included) is handed over there.
    pub delivered: Option<std::sync::Arc<Delivered>>,
    /// What [`HttpLink::elsewhere`] links get as their `max_body`
    /// (`--max-oauth-bytes`): the OAuth documents and answers fetched there are
    /// small, so a tighter bound.
    pub max_document: usize,
}

/// One response, read to its end.
pub struct HttpReply {
    /// The status the server answered with.
    pub status: StatusCode,
    /// Its headers, as hyper parsed them (the view shows them as sent).
    pub headers: HeaderMap,
    /// The whole body, de-chunked (as much as came, when `cut`).
    pub body: Bytes,
    /// Why an event stream ended before its end: the connection dropped mid-body.
    /// What came is kept, so a legacy client can resume after the last event id.
    pub cut: Option<String>,
}

impl HttpReply {
    /// Is the body an event stream?
    pub fn is_sse(&self) -> bool {
        self.headers
            .get(hyper::header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
    }

    /// The payloads of the body: the whole body, or each SSE event's data (empty
    /// priming events skipped).
    fn payloads(&self) -> Vec<Vec<u8>> {
        if self.is_sse() {
            self.events()
                .into_iter()
                .filter(|e| !e.data.is_empty())
                .map(|e| e.data.into_bytes())
                .collect()
        } else if self.body.is_empty() {
            Vec::new()
        } else {
            vec![self.body.to_vec()]
        }
    }

    /// The last `id:` of an event stream: where a resumption starts.
    pub fn last_event_id(&self) -> Option<String> {
        self.events().into_iter().rev().find_map(|e| e.id)
    }

    /// The last `retry:` of an event stream: how long to wait before resuming.
    pub fn retry(&self) -> Option<Duration> {
        self.events()
            .into_iter()
            .rev()
            .find_map(|e| e.retry)
            .map(Duration::from_millis)
    }

    /// The events of an event stream that were dispatched (ended by their blank
    /// line): an event cut off by the stream's end counts for nothing, its `id:`
    /// included (WHATWG "dispatch the event").
    fn events(&self) -> Vec<crate::wire::sse::Event> {
        if !self.is_sse() {
            return Vec::new();
        }
        crate::wire::sse::decode(&String::from_utf8_lossy(&self.body))
    }

    /// Every JSON value in the body (for views that show what came, valid or not).
    pub fn messages(&self) -> Vec<Value> {
        self.payloads()
            .iter()
            .filter_map(|p| serde_json::from_slice(p).ok())
            .collect()
    }

    /// Every JSON-RPC message in the body, read and checked by [`jsonrpc::parse`]
    /// (the same reading the server does): a payload that is not one message of the
    /// four shapes is left out here (the view has flagged it).
    pub fn rpc_messages(&self) -> Vec<jsonrpc::Message> {
        self.payloads()
            .iter()
            .filter_map(|p| match jsonrpc::parse(p) {
                Ok(jsonrpc::Parsed::One(m)) => Some(m),
                _ => None,
            })
            .collect()
    }

    /// The last message of the body: for a request, its response.
    pub fn message(&self) -> Option<Value> {
        self.messages().pop()
    }
}

impl HttpLink {
    /// Parses `http://host:port/path`; connects lazily, on the first exchange.
    pub fn new(url: &str, printer: &Printer) -> anyhow::Result<HttpLink> {
        HttpLink::open(url, printer.recorder().clone(), DEFAULT_TIMEOUT)
    }

    /// A link to another URL (an authorization server, a metadata document), recorded
    /// like this one, each connection a lane of its own; none of this link's extra
    /// headers go there.
    pub fn elsewhere(&self, url: &str) -> anyhow::Result<HttpLink> {
        let mut there = HttpLink::open(url, self.recorder.clone(), self.timeout)?;
        there.tls = self.tls.clone();
        there.max_body = self.max_document;
        there.max_document = self.max_document;
        Ok(there)
    }

    /// `http://host:port/path`, or `https://host/path` with the authority as given
    /// (a port 443 not written stays unwritten, as the server's resource metadata
    /// names it, RFC 9728 §3.3): the URL this link talks to.
    pub fn url(&self) -> String {
        if self.https {
            format!("https://{}{}", self.host_header, self.path)
        } else {
            format!("http://{}{}", self.authority, self.path)
        }
    }

    /// A request's headers: the protocol's, then `--header`'s, then the
    /// credential's, made for this request (none before authorization). Once a token
    /// is in hand it replaces a `--header` Authorization: one request, one
    /// `Authorization` (RFC 9110 §11.6.2).
    fn all_headers(
        &self,
        method: &Method,
        headers: &[(String, String)],
    ) -> anyhow::Result<Vec<(String, String)>> {
        let mut all = headers.to_vec();
        let Some(credential) = &self.credential else {
            all.extend(self.extra_headers.iter().cloned());
            return Ok(all);
        };
        all.extend(
            self.extra_headers
                .iter()
                .filter(|(n, _)| {
                    !n.eq_ignore_ascii_case("authorization") && !n.eq_ignore_ascii_case("dpop")
                })
                .cloned(),
        );
        all.extend(credential.headers(method.as_str(), &self.target)?);
        Ok(all)
    }

    fn open(url: &str, recorder: Recorder, timeout: Duration) -> anyhow::Result<HttpLink> {
        let uri: Uri = url.parse().with_context(|| format!("not a URL: {url:?}"))?;
        let https = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            Some(other) => bail!("{other}:// is not supported: give an http:// or https:// URL"),
            None => bail!("{url:?} has no scheme; expected http://host:port/path"),
        };
        let host = uri.host().context("URL without host")?;
        let default_port = if https { 443 } else { 80 };
        let authority = format!("{host}:{}", uri.port_u16().unwrap_or(default_port));
        let host_header = match (https, uri.authority()) {
            (true, Some(given)) => given.as_str().rsplit('@').next().unwrap_or(host).to_owned(),
            _ => authority.clone(),
        };
        let path = match uri.path() {
            "" => "/".to_owned(),
            p => uri.path_and_query().map_or(p, |pq| pq.as_str()).to_owned(),
        };
        let target = super::auth::dpop::htu(url).to_owned();
        Ok(HttpLink {
            sender: None,
            aside: None,
            host: host.to_owned(),
            authority,
            host_header,
            https,
            tls: std::sync::Arc::default(),
            tls_failure: std::sync::Arc::default(),
            path,
            target,
            recorder,
            extra_headers: Vec::new(),
            credential: None,
            head_signal: None,
            timeout,
            max_body: DEFAULT_MAX_BODY,
            max_document: DEFAULT_MAX_DOCUMENT,
            delivered: None,
        })
    }

    /// Sends one request with exactly these headers (plus `Host` and, for a body,
    /// `Content-Length`) and reads the whole response; the recorder shows both as
    /// their bytes cross, an event stream event by event. Waiting more than
    /// `timeout` for the next bytes is an error.
    pub async fn exchange(
        &mut self,
        method: Method,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> anyhow::Result<HttpReply> {
        self.exchange_answering(method, headers, body, &mut |_| None)
            .await
    }

    /// Like [`HttpLink::exchange`], answering the requests the server sends on the
    /// response stream as they arrive, through `on_request`.
    pub async fn exchange_answering(
        &mut self,
        method: Method,
        headers: &[(String, String)],
        body: Vec<u8>,
        on_request: OnRequest<'_>,
    ) -> anyhow::Result<HttpReply> {
        let between = Some(self.timeout);
        let (reply, _) = self
            .send(
                method,
                headers,
                body,
                Reading {
                    between,
                    awaited: None,
                },
                std::future::pending(),
                on_request,
            )
            .await?;
        Ok(reply)
    }

    /// Like [`HttpLink::exchange_answering`], for a request whose response is
    /// awaited: an event stream is read until the event that carries the response
    /// to `awaited`, and no further. A server may keep the stream open after it (a
    /// resumed `GET` is also the session's stream, 2025-11-25 `basic/transports`
    /// "Resumability and Redelivery"); the answer is what was waited for, so the
    /// wait ends there, and the unfinished connection is dropped. With
    /// [`HttpLink::delivered`], the wait also ends when the response arrives on
    /// another stream (then it is there, not in the reply).
    pub async fn exchange_awaiting(
        &mut self,
        method: Method,
        headers: &[(String, String)],
        body: Vec<u8>,
        awaited: &jsonrpc::RequestId,
        on_request: OnRequest<'_>,
    ) -> anyhow::Result<HttpReply> {
        let between = Some(self.timeout);
        // The response may come on another of the session's streams instead.
        let delivered = self.delivered.clone();
        let elsewhere = async move {
            match &delivered {
                Some(d) => d.arrived(awaited).await,
                None => std::future::pending().await,
            }
        };
        let (reply, _) = self
            .send(
                method,
                headers,
                body,
                Reading {
                    between,
                    awaited: Some(awaited),
                },
                elsewhere,
                on_request,
            )
            .await?;
        Ok(reply)
    }

    /// Like [`HttpLink::exchange`], for a stream that may stay quiet for long: its
    /// body is read until it ends or `stop` completes (then `true`), with no limit
    /// on the wait between events. The head still must come within `timeout`.
    pub async fn stream(
        &mut self,
        method: Method,
        headers: &[(String, String)],
        body: Vec<u8>,
        stop: impl std::future::Future<Output = ()>,
        on_request: OnRequest<'_>,
    ) -> anyhow::Result<(HttpReply, bool)> {
        let read = Reading {
            between: None,
            awaited: None,
        };
        self.send(method, headers, body, read, stop, on_request)
            .await
    }

    async fn send(
        &mut self,
        method: Method,
        headers: &[(String, String)],
        body: Vec<u8>,
        read: Reading<'_>,
        stop: impl std::future::Future<Output = ()>,
        on_request: OnRequest<'_>,
    ) -> anyhow::Result<(HttpReply, bool)> {
        let Reading { between, awaited } = read;
        let mut builder = Request::builder()
            .method(method.clone())
            .uri(self.path.as_str())
            .header("host", &self.host_header);
        for (name, value) in self.all_headers(&method, headers)? {
            builder = builder.header(name.as_str(), value.as_str());
        }
        if method == Method::POST {
            builder = builder.header("content-length", body.len());
        }
        let request = builder.body(Full::new(Bytes::from(body)))?;
        let timeout = self.timeout;
        // Over https only, a failure is checked for a TLS cause (its words need the authority).
        let tls_authority = self.https.then(|| self.authority.clone());
        let sender = self.ready_sender().await?;
        let response = tokio::time::timeout(timeout, sender.send_request(request))
            .await
            .with_context(|| format!("no response head within {timeout:?} (--timeout)"))?;
        let response = match (response, tls_authority) {
            (Ok(response), _) => response,
            // A TLS server spoken to in plaintext closes the connection or answers
            // with a TLS alert record, which is no HTTP response (RFC 8446 §5.1).
            (Err(e), None) if e.is_parse() || e.is_incomplete_message() || reset(&e) => bail!(
                "{e}: no HTTP response from {}; if it is a TLS server, use https://{}{}",
                self.authority,
                self.host_header,
                self.path
            ),
            (Err(e), None) => return Err(e.into()),
            (Err(e), Some(authority)) => {
                if let Some(said) = super::tls::after_handshake(&e, &authority) {
                    bail!(said);
                }
                // The connection's task may have ended on a TLS alert: its words.
                for _ in 0..20 {
                    if let Some(said) = self.tls_failure.lock().ok().and_then(|mut f| f.take()) {
                        bail!(said);
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                return Err(e.into());
            }
        };
        let (head, mut incoming) = response.into_parts();
        if let Some(credential) = &self.credential {
            credential.note_nonce(&head.headers);
        }
        if let Some(signal) = self.head_signal.take() {
            let _ = signal.send(head.status);
        }
        let max_body = self.max_body;
        let declared = head
            .headers
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if let Some(length) = declared
            && length > max_body as u64
        {
            self.sender = None;
            bail!(too_big(
                &self.authority,
                &head.status,
                max_body,
                &format!("its Content-Length says {length}")
            ));
        }
        // A stream read until it ends or is stopped (`between` is None) keeps no
        // body: its events are acted on as they come, and it may go on for hours.
        let keep = between.is_some();
        let mut body = Vec::new();
        // An event stream is read event by event, so a request in it is answered
        // while the stream goes on (the server waits for the answer to go on).
        let mut events = head
            .headers
            .get(hyper::header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
            .then(crate::wire::sse::Decoder::new);
        tokio::pin!(stop);
        let mut stopped = false;
        let mut cut = None;
        // The awaited response came: the rest of the stream is not read.
        let mut answered = false;
        // When the body last moved. An SSE comment line (`: keep-alive`) does not
        // move it: it keeps proxies from closing an idle stream (WHATWG HTML
        // "Server-sent events", "Authoring notes") and says nothing of the answer,
        // so a server that sends only those cannot hold a wait open for ever.
        let mut moved = tokio::time::Instant::now();
        let mut kept_alive = false;
        while !answered {
            let next = async {
                match between {
                    Some(limit) => {
                        let left = limit.saturating_sub(moved.elapsed());
                        tokio::time::timeout(left, incoming.frame())
                            .await
                            .with_context(|| {
                                let what = if kept_alive {
                                    "nothing but keep-alive comments"
                                } else {
                                    "nothing"
                                };
                                format!(
                                    "the response body stalled: {what} for {limit:?} (--timeout)"
                                )
                            })
                    }
                    None => Ok(incoming.frame().await),
                }
            };
            let frame = tokio::select! {
                frame = next => frame?,
                () = &mut stop => {
                    stopped = true;
                    break;
                }
            };
            match frame {
                None => break,
                // An event stream whose connection drops is a stream that ended
                // early, like one closed cleanly: 2025-11-25 `basic/transports`
                // "Resumability and Redelivery" lets the client resume it either way.
                Some(Err(e)) if events.is_some() => {
                    cut = Some(e.to_string());
                    break;
                }
                Some(frame) => {
                    if let Ok(data) = frame?.into_data() {
                        if keep {
                            if body.len() + data.len() > max_body {
                                self.sender = None;
                                bail!(too_big(
                                    &self.authority,
                                    &head.status,
                                    max_body,
                                    "more than that came"
                                ));
                            }
                            body.extend_from_slice(&data);
                        }
                        let Some(decoder) = &mut events else {
                            moved = tokio::time::Instant::now();
                            continue;
                        };
                        let fed = decoder.feed(&data);
                        // An event with a field, or one begun with a field line.
                        let pending = decoder.pending();
                        if fed.iter().any(crate::wire::sse::Event::has_fields)
                            || pending
                                .first()
                                .is_some_and(|b| !matches!(b, b':' | b'\r' | b'\n'))
                        {
                            moved = tokio::time::Instant::now();
                            kept_alive = false;
                        } else {
                            kept_alive = true;
                        }
                        if decoder.pending().len() > max_body {
                            self.sender = None;
                            bail!(
                                "an event of the event stream from {} is longer than {max_body} bytes (--max-response-bytes) and still not ended: reading stopped",
                                self.authority
                            );
                        }
                        for event in fed {
                            match jsonrpc::parse(event.data.as_bytes()) {
                                Ok(jsonrpc::Parsed::One(jsonrpc::Message::Request(r))) => {
                                    if let Some((headers, answer)) = on_request(&r) {
                                        self.post_aside(&headers, answer).await?;
                                    }
                                }
                                Ok(jsonrpc::Parsed::One(jsonrpc::Message::Response(r))) => {
                                    if awaited.is_some() && r.id.as_ref() == awaited {
                                        answered = true;
                                    } else if let Some(delivered) = &self.delivered {
                                        delivered.offer(&r);
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
        }
        // A POST's stream ends right after its response: the server SHOULD close it
        // then (2025-11-25 `basic/transports` "Sending Messages to the Server"), and
        // its last chunk (`0\r\n\r\n`) is then at most a packet behind. Read for it a
        // moment, so the view shows the stream's end and the connection carries the
        // next request; a stream that goes on (a resumed GET, a server that keeps
        // it open) is dropped.
        if answered {
            let grace = if method == Method::POST {
                STREAM_END_GRACE.min(between.unwrap_or(STREAM_END_GRACE))
            } else {
                Duration::ZERO
            };
            if matches!(
                tokio::time::timeout(grace, incoming.frame()).await,
                Ok(None)
            ) {
                answered = false;
            }
        }
        if stopped || answered || cut.is_some() {
            // The response is unfinished: this connection cannot carry another.
            self.sender = None;
        }
        Ok((
            HttpReply {
                status: head.status,
                headers: head.headers,
                body: body.into(),
                cut,
            },
            stopped,
        ))
    }

    /// Reads a long-lived stream (`GET /mcp` with these headers) on a connection of
    /// its own, in a task, answering its requests through `on_request`; a server
    /// that offers no stream (`405`) just ends it. Abort the task to stop. Returns
    /// once the stream's head has come (or `timeout` passed), so that what the
    /// server sends on it from then on is not lost to a stream not yet open.
    pub async fn listen_in_background(
        &self,
        headers: Vec<(String, String)>,
        mut on_request: Box<Answering>,
    ) -> tokio::task::JoinHandle<()> {
        let (signal, opened) = tokio::sync::oneshot::channel();
        let mut link = HttpLink {
            sender: None,
            aside: None,
            authority: self.authority.clone(),
            host_header: self.host_header.clone(),
            host: self.host.clone(),
            https: self.https,
            tls: self.tls.clone(),
            tls_failure: std::sync::Arc::default(),
            path: self.path.clone(),
            target: self.target.clone(),
            recorder: self.recorder.clone(),
            extra_headers: self.extra_headers.clone(),
            credential: self.credential.clone(),
            head_signal: Some(signal),
            timeout: self.timeout,
            max_body: self.max_body,
            max_document: self.max_document,
            delivered: self.delivered.clone(),
        };
        let task = tokio::spawn(async move {
            // What went wrong here is on the wire already; the session goes on.
            let _ = link
                .stream(
                    Method::GET,
                    &headers,
                    Vec::new(),
                    std::future::pending(),
                    &mut *on_request,
                )
                .await;
        });
        let _ = tokio::time::timeout(self.timeout, opened).await;
        task
    }

    /// The connection, ready for the next request: reused while it lives, reopened
    /// when the server has closed it.
    async fn ready_sender(&mut self) -> anyhow::Result<&mut SendRequest<Full<Bytes>>> {
        if let Some(sender) = &mut self.sender
            && sender.ready().await.is_ok()
        {
            return Ok(self.sender.as_mut().expect("checked above"));
        }
        let sender = self.connect().await?;
        Ok(self.sender.insert(sender))
    }

    /// POSTs the client's answer on the second connection; the server acknowledges it
    /// with `202 Accepted` (read to its end, so the connection can carry the next).
    async fn post_aside(
        &mut self,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> anyhow::Result<()> {
        let ready = match &mut self.aside {
            Some(aside) => aside.ready().await.is_ok(),
            None => false,
        };
        if !ready {
            let aside = self.connect().await?;
            self.aside = Some(aside);
        }
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri(self.path.as_str())
            .header("host", &self.host_header);
        for (name, value) in self.all_headers(&Method::POST, headers)? {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let request = builder
            .header("content-length", body.len())
            .body(Full::new(Bytes::from(body)))?;
        let timeout = self.timeout;
        let aside = self.aside.as_mut().context("the answer connection")?;
        let response = tokio::time::timeout(timeout, aside.send_request(request))
            .await
            .with_context(|| format!("no answer to our response within {timeout:?}"))??;
        let _ = tokio::time::timeout(timeout, response.into_body().collect()).await;
        Ok(())
    }

    /// A new recorded connection: its own lane. Over `https://` the TLS handshake
    /// comes first, then its facts are recorded, then the plaintext as it crosses.
    async fn connect(&mut self) -> anyhow::Result<SendRequest<Full<Bytes>>> {
        let started = std::time::Instant::now();
        let stream = tokio::time::timeout(
            self.timeout,
            tokio::net::TcpStream::connect(&self.authority),
        )
        .await
        .context("connecting timed out")?
        .with_context(|| format!("cannot connect to {}", self.authority))?;
        stream.set_nodelay(true)?;
        if self.https {
            let (stream, facts) = tokio::time::timeout(
                self.timeout,
                self.tls
                    .connect(stream, &self.host, &self.authority, started),
            )
            .await
            .with_context(|| {
                format!(
                    "the TLS handshake with {} did not finish within {:?} (--timeout)",
                    self.authority, self.timeout
                )
            })??;
            let lane = self.recorder.lane(LaneKind::Http);
            let stream = Recorded::new(
                stream,
                self.recorder.clone(),
                lane,
                Dir::ToClient,
                Some(format!("connected to {} (TLS)", self.authority)),
            );
            self.recorder
                .emit(lane, Dir::ToClient, What::Tls(Box::new(facts)));
            let (sender, connection) =
                hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
            let failure = self.tls_failure.clone();
            let authority = self.authority.clone();
            tokio::spawn(async move {
                if let Err(e) = connection.await
                    && let Some(said) = super::tls::after_handshake(&e, &authority)
                    && let Ok(mut slot) = failure.lock()
                {
                    *slot = Some(said);
                }
            });
            return Ok(sender);
        }
        let lane = self.recorder.lane(LaneKind::Http);
        let stream = Recorded::new(
            stream,
            self.recorder.clone(),
            lane,
            Dir::ToClient,
            Some(format!("connected to {}", self.authority)),
        );
        let (sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(connection);
        Ok(sender)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_https_url_keeps_its_authority_as_given_and_connects_to_443() {
        let link = HttpLink::open(
            "https://mcp.example.com/mcp",
            Recorder::none(),
            DEFAULT_TIMEOUT,
        )
        .unwrap();
        assert_eq!(link.url(), "https://mcp.example.com/mcp");
        assert_eq!(link.authority, "mcp.example.com:443");
        assert_eq!(link.host_header, "mcp.example.com");
        assert!(link.https);
        let link =
            HttpLink::open("https://[::1]:8443/mcp", Recorder::none(), DEFAULT_TIMEOUT).unwrap();
        assert_eq!(link.url(), "https://[::1]:8443/mcp");
        assert_eq!(link.authority, "[::1]:8443");
        // Plain http is as it was.
        let link = HttpLink::open(
            "http://127.0.0.1:3000/mcp",
            Recorder::none(),
            DEFAULT_TIMEOUT,
        )
        .unwrap();
        assert_eq!(link.url(), "http://127.0.0.1:3000/mcp");
        assert_eq!(link.host_header, "127.0.0.1:3000");
        assert!(
            HttpLink::open("ftp://x/mcp", Recorder::none(), DEFAULT_TIMEOUT)
                .err()
                .is_some_and(|e| e.to_string().contains("http:// or https://"))
        );
    }
}
