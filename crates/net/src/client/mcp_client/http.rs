//! The HTTP path: each message POSTed to the one MCP endpoint, with the headers its
//! era wants. Legacy: `Mcp-Session-Id` and `MCP-Protocol-Version` once known, the
//! session's `GET` stream read in the background, a stream that ends without its
//! response resumed with `Last-Event-ID` after the server's `retry:`. Modern: the
//! standard headers mirrored from the body and a listed tool's `x-mcp-header`
//! arguments. A `401` (or `403 insufficient_scope`) runs OAuth and the message goes
//! again; a DPoP nonce asked for is retried once.
//!
//! Enforces: 2025-11-25 `basic/transports` ("Sending Messages to the Server",
//! "Listening for Messages from the Server", "Resumability and Redelivery",
//! "Protocol Version Header", "Session Management"); 2026-07-28 `basic/transports`
//! "Request Metadata" and `server/tools` "x-mcp-header"; 2025-11-25
//! `basic/authorization` "Access Token Usage", "Scope Challenge Handling"; RFC 9449
//! §9 (the DPoP nonce); JSON-RPC 2.0 §5 (an error with `"id": null`).

use super::{Answer, Link, McpClient, Spoken};
use crate::client::auth::Authorizer;
use crate::client::http_link::{HttpReply, Posted};
use crate::jsonrpc::{Message, Request, RequestId, Response};
use crate::wire::http::mirror;
use crate::wire::http::x_mcp_header;
use anyhow::{Context, bail};
use hyper::{Method, StatusCode};
use serde_json::Value;
use std::time::Duration;

impl McpClient {
    /// HTTP: POSTs one built request (`message`, as `bytes`) with its era's headers
    /// and waits for its response, wherever in the session it arrives.
    pub(super) async fn send_http(
        &mut self,
        id: i64,
        method: &str,
        message: &Value,
        bytes: Vec<u8>,
        modern: Option<&str>,
        timeout: Duration,
    ) -> anyhow::Result<Answer> {
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

    /// HTTP's [`listen`](McpClient::listen): modern, a `subscriptions/listen` POST
    /// (version `modern`) whose SSE stream carries what it asked for; legacy, the
    /// session's `GET /mcp`, watched in the open.
    pub(super) async fn listen_http(
        &mut self,
        filter: Value,
        modern: Option<String>,
        stop: impl std::future::Future<Output = ()>,
    ) -> anyhow::Result<String> {
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
            unreachable!("listen_http is called for an HTTP link")
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

    /// The headers that name a legacy session: `Mcp-Session-Id`, and the version,
    /// which goes "on all subsequent requests" (2025-11-25 `basic/transports`
    /// "Protocol Version Header"), the `GET` and the `DELETE` included.
    pub(super) fn session_headers(&self) -> Vec<(String, String)> {
        self.legacy_headers()
            .into_iter()
            .filter(|(n, _)| n == "mcp-session-id" || n == mirror::PROTOCOL_VERSION)
            .collect()
    }

    /// The headers of a legacy `GET /mcp`: the stream's media type, the session.
    pub(super) fn get_headers(&self) -> Vec<(String, String)> {
        let mut headers = vec![("accept".to_owned(), "text/event-stream".to_owned())];
        headers.extend(self.session_headers());
        headers
    }

    /// Does this connection mirror `x-mcp-header` arguments? Only modern HTTP: other
    /// transports MAY ignore the annotations.
    pub(super) fn mirrors_headers(&self) -> bool {
        matches!(
            (&self.link, &self.spoken),
            (Link::Http(_), Spoken::Modern { .. })
        )
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
    pub(super) async fn post(
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
    pub(super) fn answering(&self) -> impl FnMut(&Request) -> Option<Posted> + Send + use<> {
        let answers = self.options.answers.clone();
        let headers = self.legacy_headers();
        move |request: &Request| Some((headers.clone(), answers.respond(request).to_bytes()))
    }

    /// Legacy HTTP headers: the session id and negotiated version once known.
    pub(super) fn legacy_headers(&self) -> Vec<(String, String)> {
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
        .flat_map(crate::client::auth::challenge::parse)
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
