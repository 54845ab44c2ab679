//! Building HTTP responses. Every body is complete before it is sent, so hyper writes
//! head and body together with a `Content-Length`.

use crate::jsonrpc::{ErrorObject, Response};
use bytes::Bytes;
use http_body_util::Full;
use hyper::StatusCode;
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderValue};

/// The response body type of the HTTP transport.
pub type Body = Full<Bytes>;
pub type HttpResponse = hyper::Response<Body>;

const JSON: HeaderValue = HeaderValue::from_static("application/json");
const EVENT_STREAM: HeaderValue = HeaderValue::from_static("text/event-stream");

/// `200` with one JSON-RPC message (or a batch array) as `application/json`.
pub fn json(body: Vec<u8>) -> HttpResponse {
    with_type(StatusCode::OK, JSON, body)
}

/// `200` as `text/event-stream`: one SSE event holding the response, then the stream
/// ends. A long call would send progress notifications as earlier events here.
pub fn sse(message: &Response) -> HttpResponse {
    let mut r = with_type(
        StatusCode::OK,
        EVENT_STREAM,
        crate::transport::sse::encode_event(&message.to_bytes()),
    );
    let headers = r.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Tells proxies such as nginx not to buffer the stream (2026-07-28 SHOULD).
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// `202 Accepted`, empty body: the answer to a POST of a notification or a response
/// (2025-11-25 `basic/transports` "Sending Messages to the Server", rule 4).
pub fn accepted() -> HttpResponse {
    let mut r = hyper::Response::new(Body::default());
    *r.status_mut() = StatusCode::ACCEPTED;
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
    with_type(status, JSON, response.to_bytes())
}

fn with_type(status: StatusCode, content_type: HeaderValue, body: Vec<u8>) -> HttpResponse {
    let mut r = hyper::Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut().insert(CONTENT_TYPE, content_type);
    r
}
