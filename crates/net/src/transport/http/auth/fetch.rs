//! The protected resource's own HTTP client: the few requests it makes to its
//! authorization server (the metadata, the key set, an introspection). Each opens one
//! connection on its own lane of the server's recorder, so `serve --trace` shows
//! them beside the MCP traffic, byte for byte. Over `https://` the client's TLS
//! (`client::tls`, with `--auth-cacert`) sits below the recording: the lane shows the
//! plaintext and starts with the handshake's facts.

use crate::wire::event::{Dir, LaneKind};
use crate::wire::recorded::Recorded;
use crate::wire::recorder::Recorder;
use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use std::time::Duration;

/// How the resource server reaches its authorization server.
#[derive(Debug, Clone)]
pub struct Fetcher {
    /// The server's recorder: each fetch is a lane of its trace and record.
    pub recorder: Option<Recorder>,
    /// Connecting plus the whole answer (`--auth-fetch-timeout`).
    pub timeout: Duration,
    /// Largest answer body read (`--auth-fetch-max-bytes`); a bigger one is an error.
    pub max_bytes: usize,
    /// The TLS of `https://` requests (the system's roots and `--auth-cacert`), shared
    /// by every fetch so a later one can resume an earlier session.
    pub tls: std::sync::Arc<crate::client::tls::Tls>,
}

/// An answer: its status and its body parsed as JSON.
#[derive(Debug)]
pub struct Answer {
    /// Its HTTP status.
    pub status: StatusCode,
    /// Its body, parsed.
    pub json: Value,
}

impl Fetcher {
    /// `GET url`, expecting JSON.
    pub async fn get(&self, url: &str) -> anyhow::Result<Answer> {
        self.send(Method::GET, url, None, None).await
    }

    /// `POST url` with a form body and HTTP Basic client authentication.
    pub async fn post_form(
        &self,
        url: &str,
        form: String,
        basic: Option<String>,
    ) -> anyhow::Result<Answer> {
        self.send(Method::POST, url, Some(form), basic).await
    }

    async fn send(
        &self,
        method: Method,
        url: &str,
        form: Option<String>,
        basic: Option<String>,
    ) -> anyhow::Result<Answer> {
        let work = self.exchange(method.clone(), url, form, basic);
        tokio::time::timeout(self.timeout, work)
            .await
            .with_context(|| format!("{method} {url}: no whole answer within {:?}", self.timeout))?
            .with_context(|| format!("{method} {url}"))
    }

    async fn exchange(
        &self,
        method: Method,
        url: &str,
        form: Option<String>,
        basic: Option<String>,
    ) -> anyhow::Result<Answer> {
        let uri: Uri = url.parse().with_context(|| format!("not a URL: {url:?}"))?;
        let https = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => bail!("only http:// and https:// URLs are fetched, not {url:?}"),
        };
        let host = uri.host().context("the URL has no host")?;
        let authority = format!(
            "{host}:{}",
            uri.port_u16().unwrap_or(if https { 443 } else { 80 })
        );
        let started = std::time::Instant::now();
        let stream = tokio::net::TcpStream::connect(&authority)
            .await
            .with_context(|| format!("cannot connect to {authority}"))?;
        stream.set_nodelay(true)?;
        let recorder = self.recorder.clone().unwrap_or_else(Recorder::none);
        let lane = recorder.lane(LaneKind::Http);
        if !https {
            let stream = Recorded::new(
                stream,
                recorder,
                lane,
                Dir::ToClient,
                Some(format!(
                    "connected to {authority} (the authorization server)"
                )),
            );
            return self.request(stream, method, &uri, host, form, basic).await;
        }
        let (stream, facts) = self.tls.connect(stream, host, &authority, started).await?;
        let stream = Recorded::new(
            stream,
            recorder.clone(),
            lane,
            Dir::ToClient,
            Some(format!(
                "connected to {authority} (the authorization server, TLS)"
            )),
        );
        recorder.emit(
            lane,
            Dir::ToClient,
            crate::wire::event::What::Tls(Box::new(facts)),
        );
        self.request(stream, method, &uri, host, form, basic).await
    }

    /// One request on `stream` (plaintext, or the plaintext inside TLS), its answer
    /// read whole up to `max_bytes`.
    async fn request<I>(
        &self,
        stream: I,
        method: Method,
        uri: &Uri,
        host: &str,
        form: Option<String>,
        basic: Option<String>,
    ) -> anyhow::Result<Answer>
    where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(connection);
        let path = uri.path_and_query().map_or("/", |pq| pq.as_str());
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header(
                hyper::header::HOST,
                uri.authority().map_or(host, |a| a.as_str()),
            )
            .header(hyper::header::ACCEPT, "application/json");
        if let Some(credentials) = basic {
            request = request.header(hyper::header::AUTHORIZATION, credentials);
        }
        let body = match form {
            Some(form) => {
                request = request.header(
                    hyper::header::CONTENT_TYPE,
                    "application/x-www-form-urlencoded",
                );
                Full::new(Bytes::from(form))
            }
            None => Full::new(Bytes::new()),
        };
        let response = sender.send_request(request.body(body)?).await?;
        let status = response.status();
        let bytes = Limited::new(response.into_body(), self.max_bytes)
            .collect()
            .await
            .map_err(|e| {
                anyhow::anyhow!("reading the body (at most {} bytes): {e}", self.max_bytes)
            })?
            .to_bytes();
        let json = serde_json::from_slice(&bytes).with_context(|| {
            format!(
                "{status}: the body is not JSON: {:?}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
            )
        })?;
        Ok(Answer { status, json })
    }
}
