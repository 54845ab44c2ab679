//! One exchange on the link: the request sent, then its response read within the
//! limits — the head within `--timeout`, a body no larger than `--max-response-bytes`
//! (a declared `Content-Length` checked first), an event stream event by event so a
//! server's request in it is answered while it goes on, keep-alive comments not
//! counted as progress, the read ended by the awaited response, a stop, or the
//! stream's end; a TLS or plaintext-to-TLS failure said in words.
//!
//! Enforces: 2025-11-25 `basic/transports` "Sending Messages to the Server" (a POST's
//! stream ends after its response), "Resumability and Redelivery" (a cut stream is an
//! ended one); WHATWG HTML "Server-sent events" (comments, dispatch); RFC 8446 §5.1
//! (an alert record is no HTTP response); RFC 9449 §8 (a `DPoP-Nonce` kept).

use super::{HttpLink, HttpReply, OnRequest};
use crate::jsonrpc;
use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, StatusCode};
use std::time::Duration;

/// How long, after a POST's stream brought its response, the client waits for the
/// stream's end before it drops the connection instead (a stream that ends is one
/// the view shows whole and a connection the next request can use).
const STREAM_END_GRACE: Duration = Duration::from_millis(50);

/// How a response body is read.
pub(super) struct Reading<'a> {
    /// The longest wait for the body's next bytes; `None`: a stream read until it
    /// ends or is stopped, keeping no body.
    pub(super) between: Option<Duration>,
    /// The request whose response ends the read (see [`HttpLink::exchange_awaiting`]).
    pub(super) awaited: Option<&'a jsonrpc::RequestId>,
    /// Handed each event's data as it is dispatched, whatever it holds (see
    /// [`HttpLink::relay`]).
    pub(super) each_event: Option<EachEvent<'a>>,
}

/// What [`HttpLink::relay`] hands each event to: its `data`, as the stream spelled it.
pub type EachEvent<'a> = &'a mut (dyn FnMut(&str) + Send);

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

impl HttpLink {
    /// The request as it goes out: the request line with the endpoint's path, `Host`
    /// (RFC 9110 §7.2), [every header](HttpLink::all_headers), and for a POST its
    /// `Content-Length`.
    pub(super) fn request(
        &self,
        method: &Method,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> anyhow::Result<hyper::Request<Full<Bytes>>> {
        let mut builder = hyper::Request::builder()
            .method(method.clone())
            .uri(self.path.as_str())
            .header("host", &self.host_header);
        for (name, value) in self.all_headers(method, headers)? {
            builder = builder.header(name.as_str(), value.as_str());
        }
        if method == Method::POST {
            builder = builder.header("content-length", body.len());
        }
        Ok(builder.body(Full::new(Bytes::from(body)))?)
    }

    pub(super) async fn send(
        &mut self,
        method: Method,
        headers: &[(String, String)],
        body: Vec<u8>,
        read: Reading<'_>,
        stop: impl std::future::Future<Output = ()>,
        on_request: OnRequest<'_>,
    ) -> anyhow::Result<(HttpReply, bool)> {
        let Reading {
            between,
            awaited,
            mut each_event,
        } = read;
        let request = self.request(&method, headers, body)?;
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
                if let Some(said) = crate::client::tls::after_handshake(&e, &authority) {
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
                            if let Some(each) = each_event.as_mut()
                                && event.has_data()
                            {
                                each(&event.data);
                            }
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
}
