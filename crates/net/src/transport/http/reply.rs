//! Building HTTP responses. A body is either complete (hyper writes head and body
//! together, with a `Content-Length`) or an SSE stream that sends each message of a
//! running request as it comes, then the response, then ends.

use super::resume::Reader;
use crate::jsonrpc::{ErrorObject, Response};
use crate::protocol::context::{BoxFuture, Out, Pending};
use crate::wire::sse::encode_event;
use bytes::Bytes;
use hyper::StatusCode;
use hyper::body::Frame;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};
use serde_json::Value;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// A response of the HTTP transport.
pub type HttpResponse = hyper::Response<Body>;

/// The response body of the HTTP transport.
pub enum Body {
    /// All of it at once (or nothing, for `202` and `204`).
    Full(Option<Bytes>),
    /// An SSE stream fed directly by a running request (modern era).
    Stream(Box<SseStream>),
    /// An SSE stream read from a session's resumable log (legacy era).
    Resume(Box<Reader>),
}

impl Default for Body {
    fn default() -> Self {
        Body::Full(None)
    }
}

/// The events of one running request: its messages as they are sent, then its
/// response. Dropping the stream (the client went away) drops the request, which is
/// how a closed stream cancels it (2026-07-28 `basic/patterns/cancellation`).
pub struct SseStream {
    /// A message already taken from the outbox, sent first.
    first: Option<Value>,
    outbox: mpsc::UnboundedReceiver<Out>,
    response: Option<BoxFuture<Response>>,
    /// The response, once ready, held back until the outbox is drained.
    last: Option<Response>,
    /// A legacy GET stream: no response ever; it ends when its session does.
    push: bool,
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let event = match self.get_mut() {
            Body::Full(bytes) => {
                return Poll::Ready(
                    bytes
                        .take()
                        .filter(|b| !b.is_empty())
                        .map(|b| Ok(Frame::data(b))),
                );
            }
            Body::Stream(stream) => stream.poll_event(cx),
            Body::Resume(reader) => reader.poll_event(cx),
        };
        event.map(|e| e.map(|b| Ok(Frame::data(b))))
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Body::Full(None))
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        match self {
            Body::Full(b) => {
                hyper::body::SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64))
            }
            _ => hyper::body::SizeHint::default(),
        }
    }
}

impl SseStream {
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        if let Some(m) = self.first.take() {
            return Poll::Ready(Some(event(&serde_json::to_vec(&m).unwrap_or_default())));
        }
        // Messages the request sent come first, in order. (A pause is a legacy
        // resumability hint: a modern stream is not resumable, so it is skipped.)
        loop {
            match self.outbox.poll_recv(cx) {
                Poll::Ready(Some(Out::Message(m))) => {
                    return Poll::Ready(Some(event(&serde_json::to_vec(&m).unwrap_or_default())));
                }
                Poll::Ready(Some(Out::Pause { .. })) => {}
                // A push stream whose session ended: nothing will come any more.
                Poll::Ready(None) if self.push => return Poll::Ready(None),
                Poll::Ready(None) | Poll::Pending => break,
            }
        }

        if let Some(response) = &mut self.response {
            match response.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(r) => {
                    self.response = None;
                    self.last = Some(r);
                }
            }
        }
        // The request is done: anything it sent last, then its response, then the end.
        while let Ok(out) = self.outbox.try_recv() {
            if let Out::Message(m) = out {
                return Poll::Ready(Some(event(&serde_json::to_vec(&m).unwrap_or_default())));
            }
        }
        Poll::Ready(self.last.take().map(|r| event(&r.to_bytes())))
    }
}

fn event(message: &[u8]) -> Bytes {
    Bytes::from(encode_event(message))
}

const JSON: HeaderValue = HeaderValue::from_static("application/json");
const EVENT_STREAM: HeaderValue = HeaderValue::from_static("text/event-stream");

/// `200` with one JSON-RPC message (or a batch array) as `application/json`.
pub fn json(body: Vec<u8>) -> HttpResponse {
    with_type(StatusCode::OK, JSON, Body::Full(Some(Bytes::from(body))))
}

/// `200` as `text/event-stream`: one SSE event holding the response, then the stream
/// ends. A long call sends its progress notifications as earlier events ([`stream`]).
pub fn sse(message: &Response) -> HttpResponse {
    let frame = crate::wire::sse::encode_json_event(|out| message.write_to(out));
    sse_headers(with_type(
        StatusCode::OK,
        EVENT_STREAM,
        Body::Full(Some(Bytes::from(frame))),
    ))
}

/// `200` as `text/event-stream`, fed by a running request until its response
/// (`first`: a message already taken from its outbox).
pub fn stream(first: Option<Value>, pending: Pending) -> HttpResponse {
    let body = Body::Stream(Box::new(SseStream {
        first,
        outbox: pending.outbox,
        response: Some(pending.response),
        last: None,
        push: false,
    }));
    sse_headers(with_type(StatusCode::OK, EVENT_STREAM, body))
}

/// `200` as `text/event-stream` that stays open: whatever the session is pushed, as
/// it comes (the legacy GET stream).
pub fn push_stream(outbox: mpsc::UnboundedReceiver<Out>) -> HttpResponse {
    let body = Body::Stream(Box::new(SseStream {
        first: None,
        outbox,
        response: Some(Box::pin(std::future::pending())),
        last: None,
        push: true,
    }));
    sse_headers(with_type(StatusCode::OK, EVENT_STREAM, body))
}

/// `200` as `text/event-stream`, read from a resumable log (a legacy request's
/// stream, from its start or after a `Last-Event-ID`).
pub fn resumable(reader: Reader) -> HttpResponse {
    sse_headers(with_type(
        StatusCode::OK,
        EVENT_STREAM,
        Body::Resume(Box::new(reader)),
    ))
}

fn sse_headers(mut r: HttpResponse) -> HttpResponse {
    let headers = r.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Tells proxies such as nginx not to buffer the stream (2026-07-28 SHOULD).
    headers.insert(
        super::names::X_ACCEL_BUFFERING,
        HeaderValue::from_static("no"),
    );
    r
}

/// `202 Accepted`, empty body: the answer to a POST of a notification or a response
/// (2025-11-25 `basic/transports` "Sending Messages to the Server", rule 4).
pub fn accepted() -> HttpResponse {
    status(StatusCode::ACCEPTED)
}

/// An empty response with this status.
pub fn status(status: StatusCode) -> HttpResponse {
    let mut r = hyper::Response::new(Body::default());
    *r.status_mut() = status;
    r
}

/// An HTTP error status with a JSON-RPC error body that has no `id`, as the spec
/// allows for transport-level refusals.
pub fn error(status: StatusCode, code: i64, message: impl Into<String>) -> HttpResponse {
    rpc_error(
        status,
        Response::error(None, ErrorObject::new(code, message)),
    )
}

/// An HTTP error status carrying a JSON-RPC error response built by the core.
pub fn rpc_error(status: StatusCode, response: Response) -> HttpResponse {
    with_type(
        status,
        JSON,
        Body::Full(Some(Bytes::from(response.to_bytes()))),
    )
}

fn with_type(status: StatusCode, content_type: HeaderValue, body: Body) -> HttpResponse {
    let mut r = hyper::Response::new(body);
    *r.status_mut() = status;
    r.headers_mut().insert(CONTENT_TYPE, content_type);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::RequestId;
    use http_body_util::BodyExt;
    use serde_json::json;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Sets its flag when dropped: shows whether a request's future was dropped.
    struct Dropped(Arc<AtomicBool>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    fn pending(done: Arc<AtomicBool>) -> (mpsc::UnboundedSender<Out>, Pending) {
        let (tx, outbox) = mpsc::unbounded_channel();
        let guard = Dropped(done);
        let response: BoxFuture<Response> = Box::pin(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
            unreachable!("never completes")
        });
        (
            tx,
            Pending {
                id: RequestId::from(1),
                outbox,
                response,
                streamed: false,
            },
        )
    }

    #[tokio::test]
    async fn a_stream_sends_messages_in_order_then_the_response() {
        let (tx, outbox) = mpsc::unbounded_channel();
        tx.send(Out::Message(json!({"n": 1}))).unwrap();
        tx.send(Out::Pause { retry_ms: 5 }).unwrap();
        tx.send(Out::Message(json!({"n": 2}))).unwrap();
        let pending = Pending::new(RequestId::from(7), outbox, async { Ok(json!({})) });
        let body = stream(Some(json!({"n": 0})), pending).into_body();
        let text = String::from_utf8(body.collect().await.unwrap().to_bytes().to_vec()).unwrap();
        assert_eq!(
            text,
            "data: {\"n\":0}\n\ndata: {\"n\":1}\n\ndata: {\"n\":2}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n"
        );
    }

    #[tokio::test]
    async fn dropping_a_stream_drops_its_request() {
        let done = Arc::new(AtomicBool::new(false));
        let (tx, pending) = pending(done.clone());
        tx.send(Out::Message(json!({"progress": 1}))).unwrap();
        let mut body = stream(None, pending).into_body();
        let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert!(first.starts_with(b"data: {\"progress\":1}"));
        assert!(!done.load(Ordering::SeqCst));
        // The client closes the connection: hyper drops the body.
        drop(body);
        assert!(
            done.load(Ordering::SeqCst),
            "the request was cancelled with its stream"
        );
    }
}
