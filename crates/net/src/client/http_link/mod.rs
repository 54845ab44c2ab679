//! The client side of Streamable HTTP: one keep-alive HTTP/1.1 connection (reopened if
//! the server closes it), every request and response printed in full. Over `http://`
//! or `https://`: TLS sits below the recording (plaintext in, plaintext out), each
//! connection's handshake recorded as its facts ([`super::tls`]).
//!
//! One job a file: this one, the link and what a caller asks of it (an exchange, a
//! stream, a background stream) and the headers every request carries;
//! `conn.rs` its connections, `read.rs` one exchange read within its limits,
//! `reply.rs` what a response holds, `delivered.rs` responses handed between streams.
//!
//! Enforces: RFC 9110 §7.2 (`Host`: the authority as given over `https://`), §11.6.2
//! (one `Authorization`: a token replaces a `--header` one); RFC 9449 §4.2 (a DPoP
//! proof's `htu` is the URL without its query).

mod conn;
mod delivered;
mod read;
mod reply;

pub use delivered::Delivered;
pub use read::EachEvent;
pub use reply::HttpReply;

use read::Reading;

use super::auth::credential::Credential;
use super::wire_print::Printer;
use crate::jsonrpc;
use crate::wire::recorder::Recorder;
use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http1::SendRequest;
use hyper::{Method, StatusCode, Uri};
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
        self.read_whole(method, headers, body, None, on_request)
            .await
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
        self.read_whole(method, headers, body, Some(awaited), on_request)
            .await
    }

    /// An exchange whose body is read whole, each wait for its next bytes at most
    /// `timeout`; with `awaited`, up to that response (wherever it arrives).
    async fn read_whole(
        &mut self,
        method: Method,
        headers: &[(String, String)],
        body: Vec<u8>,
        awaited: Option<&jsonrpc::RequestId>,
        on_request: OnRequest<'_>,
    ) -> anyhow::Result<HttpReply> {
        let between = Some(self.timeout);
        // The response may come on another of the session's streams instead.
        let delivered = awaited.and(self.delivered.clone());
        let elsewhere = async move {
            match (&delivered, awaited) {
                (Some(d), Some(id)) => d.arrived(id).await,
                _ => std::future::pending().await,
            }
        };
        let read = Reading {
            between,
            awaited,
            each_event: None,
        };
        let (reply, _) = self
            .send(method, headers, body, read, elsewhere, on_request)
            .await?;
        Ok(reply)
    }

    /// Like [`HttpLink::exchange`], for a relay (`tap --remote`): each event of an
    /// event stream is handed to `each` the moment it is dispatched, a request, a
    /// notification or a response alike, so what the server sends reaches the relay's
    /// client as it comes; the body is read to its end (each wait for its next bytes
    /// at most `timeout`) and kept, as by `exchange`. With `until_end` false the
    /// wait between events has no limit (a `GET` stream that may stay quiet).
    pub async fn relay(
        &mut self,
        method: Method,
        headers: &[(String, String)],
        body: Vec<u8>,
        until_end: bool,
        each: EachEvent<'_>,
    ) -> anyhow::Result<HttpReply> {
        let read = Reading {
            between: until_end.then_some(self.timeout),
            awaited: None,
            each_event: Some(each),
        };
        let (reply, _) = self
            .send(
                method,
                headers,
                body,
                read,
                std::future::pending(),
                &mut |_| None,
            )
            .await?;
        Ok(reply)
    }

    /// Tells `signal` the status of the next response head as soon as it arrives (a
    /// relay sends the next message only once the server has taken this one).
    pub fn on_head(&mut self, signal: tokio::sync::oneshot::Sender<StatusCode>) {
        self.head_signal = Some(signal);
    }

    /// A link to `url` whose connections are recorded on `recorder` (one lane each),
    /// for a program with no printer (the relay of `tap --remote`).
    pub fn recorded(url: &str, recorder: Recorder) -> anyhow::Result<HttpLink> {
        HttpLink::open(url, recorder, DEFAULT_TIMEOUT)
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
            each_event: None,
        };
        self.send(method, headers, body, read, stop, on_request)
            .await
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
