//! The mock's transports: stdio (one message per line in, the recorded reply out,
//! one write per reply) and Streamable HTTP (a POST answered as the recording
//! answered it: 202, JSON or an event stream; a fresh `Mcp-Session-Id` at
//! `initialize` when the recording had sessions). Both record what they move, like
//! every other program here.

use super::mock::Mock;
use crate::jsonrpc::code;
use crate::lock::Locked;
use crate::transport::http::Limits;
use crate::transport::http::listen::{self, Listening, Site};
use crate::wire::event::{Dir, LaneKind};
use crate::wire::recorder::Recorder;
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::HeaderValue;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use std::io::{BufRead, Read, Write};
use std::sync::{Arc, Mutex};

/// Serves `mock` on `input` and `out` (the program's stdin and stdout) until `input`
/// ends; a line over `max` bytes (`--max-message-bytes`) is refused.
pub fn stdio(
    mut mock: Mock,
    recorder: Recorder,
    max: usize,
    mut input: impl BufRead,
    mut out: impl Write,
) -> anyhow::Result<()> {
    let lane = recorder.lane(LaneKind::Stdio);
    let mut line = Vec::new();
    // What a reply still holds after a server request, until the client answers it
    // (by that request's id, as JSON text): the recorded order, question then answer.
    let mut waiting: std::collections::HashMap<String, Vec<Value>> = Default::default();
    loop {
        line.clear();
        let n = input
            .by_ref()
            .take(max as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(());
        }
        recorder.bytes(lane, Dir::ToServer, &line);
        if line.len() > max && line.last() != Some(&b'\n') {
            // The rest of an overlong line: read (and recorded) but not held.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                let n = input
                    .by_ref()
                    .take(64 * 1024)
                    .read_until(b'\n', &mut rest)?;
                recorder.bytes(lane, Dir::ToServer, &rest);
                if n == 0 || rest.last() == Some(&b'\n') {
                    break;
                }
            }
        }
        let reply = match serde_json::from_slice::<Value>(&line) {
            _ if line.len() > max => vec![error(
                code::INVALID_REQUEST,
                format!("replay: a line over {max} bytes (--max-message-bytes)"),
            )],
            Ok(v) => match mock.serve(&v) {
                Some(s) => s.messages,
                // A client's answer: the rest of the reply it was waited for.
                None => v
                    .get("id")
                    .and_then(|id| waiting.remove(&id.to_string()))
                    .unwrap_or_default(),
            },
            Err(_) if line.iter().all(u8::is_ascii_whitespace) => Vec::new(),
            Err(e) => vec![error(
                code::PARSE_ERROR,
                format!(
                    "Parse error: {e}: {}",
                    String::from_utf8_lossy(&line).trim_end()
                ),
            )],
        };
        let reply = hold_after_question(reply, &mut waiting);
        if reply.is_empty() {
            continue;
        }
        let mut bytes = Vec::new();
        for m in &reply {
            bytes.extend_from_slice(&serde_json::to_vec(m)?);
            bytes.push(b'\n');
        }
        // Recorded before it is written: the client's next line answers it.
        recorder.bytes(lane, Dir::ToClient, &bytes);
        out.write_all(&bytes)?;
        out.flush()?;
    }
}

/// The messages up to and including the first server request; the rest waits in
/// `waiting` for the client's answer to it.
fn hold_after_question(
    mut reply: Vec<Value>,
    waiting: &mut std::collections::HashMap<String, Vec<Value>>,
) -> Vec<Value> {
    let question = reply
        .iter()
        .position(|m| m.get("method").is_some() && m.get("id").is_some());
    if let Some(i) = question
        && i + 1 < reply.len()
    {
        let rest = reply.split_off(i + 1);
        if let Some(id) = reply[i].get("id") {
            waiting.insert(id.to_string(), rest);
        }
    }
    reply
}

fn error(c: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": c, "message": message}})
}

/// A response body: written whole, or an event stream fed as the exchange goes on.
type Body = BoxBody<Bytes, std::convert::Infallible>;

/// An event stream's body: each event as it is sent on the channel; the stream ends
/// when the last sender is dropped.
struct Pushed(tokio::sync::mpsc::UnboundedReceiver<Bytes>);

impl hyper::body::Body for Pushed {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        self.0
            .poll_recv(cx)
            .map(|event| event.map(|b| Ok(hyper::body::Frame::data(b))))
    }
}

/// Streams waiting for a client's answer: by the id (as JSON text) of the server
/// request it answers, the rest of the reply and the stream it goes on.
type Waiting =
    std::collections::HashMap<String, (Vec<Value>, tokio::sync::mpsc::UnboundedSender<Bytes>)>;

/// Sends `messages` on `stream` as SSE events up to and including the first server
/// request; the rest waits in `waiting` for the client's answer to it, on the same
/// stream (MCP 2025-11-25 `basic/transports` "Sending Messages to the Server" 6: the
/// server MAY send requests and notifications before the response, on the stream
/// it opened for the POST). Once all is sent, the stream's sender is dropped: it ends.
fn push(
    messages: Vec<Value>,
    stream: tokio::sync::mpsc::UnboundedSender<Bytes>,
    waiting: &Mutex<Waiting>,
) {
    let mut held = Default::default();
    let now = hold_after_question(messages, &mut held);
    for m in &now {
        let event = crate::wire::sse::encode_event(m.to_string().as_bytes());
        let _ = stream.send(Bytes::from(event));
    }
    if let Some((id, rest)) = held.into_iter().next() {
        waiting.locked().insert(id, (rest, stream));
    }
}

/// Serves `mock` over Streamable HTTP on `listener` until the task is dropped; a
/// body over `max` bytes is refused with 413. The connections are taken and clocked
/// as every mcp-raw listener's are (`transport::http::listen`, the clocks of
/// `limits`); with `tls`, each connection's TLS handshake comes first (its facts the
/// lane's first event), under the header timeout.
pub async fn http(
    mock: Mock,
    listener: tokio::net::TcpListener,
    recorder: Recorder,
    max: usize,
    tls: Option<Arc<crate::transport::tls::Acceptor>>,
    limits: Limits,
) -> anyhow::Result<()> {
    // A recording with initialize is a legacy session: the client expects an id.
    let sessions = mock
        .exchanges
        .iter()
        .any(|x| x.request["method"] == "initialize");
    let site = Arc::new(Replayed {
        mock: Mutex::new(mock),
        waiting: Default::default(),
        sessions,
        max,
    });
    let how = Arc::new(Listening {
        limits,
        tls,
        recorder: Some(recorder),
        who: "replay: ",
        max_connections_flag: "replay's connection limit",
    });
    listen::accept_loop(listener, site, how, std::future::pending()).await?;
    Ok(())
}

/// The mock as a listener's site: what it answers, and what it holds between requests.
struct Replayed {
    /// The recording's exchanges, each matched once.
    mock: Mutex<Mock>,
    /// The rest of an answer held back until the client answers a question.
    waiting: Mutex<Waiting>,
    /// The recording is a legacy session: answers carry a session id.
    sessions: bool,
    /// A body over this many bytes is refused with 413 (`--max-message-bytes`).
    max: usize,
}

impl Site for Replayed {
    type Body = Body;

    async fn answer(self: Arc<Self>, req: Request<hyper::body::Incoming>) -> Response<Body> {
        answer(&self.mock, &self.waiting, req, self.sessions, self.max).await
    }
}

async fn answer(
    mock: &Mutex<Mock>,
    waiting: &Mutex<Waiting>,
    req: Request<hyper::body::Incoming>,
    sessions: bool,
    max: usize,
) -> Response<Body> {
    // DNS rebinding: the guard of `serve --http` (MCP 2025-11-25 `basic/transports`
    // "Security Warning"); the mock listens on 127.0.0.1 only.
    if let Some(why) = crate::transport::http::guard::foreign_host(
        req.headers(),
        &crate::transport::http::guard::AllowedHosts::default(),
    ) {
        return status(StatusCode::FORBIDDEN, &why);
    }
    match *req.method() {
        Method::POST => {}
        Method::GET | Method::DELETE => {
            let recorded = mock.locked().bodiless(req.method().as_str());
            return match recorded {
                Some(b) => bodiless(b),
                None if req.method() == Method::DELETE => status(StatusCode::NO_CONTENT, ""),
                None => not_allowed(),
            };
        }
        _ => return not_allowed(),
    }
    let body = match Limited::new(req.into_body(), max).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            return status(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                    "replay: the body could not be read whole ({e}; the limit is {max} bytes, --max-message-bytes)"
                ),
            );
        }
    };
    let live: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            let msg = error(code::PARSE_ERROR, format!("Parse error: {e}"));
            return json_response(StatusCode::BAD_REQUEST, &msg);
        }
    };
    let served = mock.locked().serve(&live);
    if served.is_none()
        && let Some(id) = live.get("id")
    {
        // The client's answer to a recorded server request: the rest of the reply
        // goes on the stream that asked; the answer itself gets 202.
        let held = waiting.locked().remove(&id.to_string());
        if let Some((rest, stream)) = held {
            push(rest, stream, waiting);
        }
    }
    let Some(served) = served.filter(|s| !s.messages.is_empty()) else {
        return status(StatusCode::ACCEPTED, "");
    };
    // A plain JSON reply holds one message, the response; anything the server sent
    // before it (a request of its own, a notification), recorded over stdio or not,
    // needs an event stream.
    let only_the_response =
        served.messages.len() == 1 && served.messages[0].get("method").is_none();
    let mut r = if served.streamed || !only_the_response {
        let (stream, events) = tokio::sync::mpsc::unbounded_channel();
        push(served.messages, stream, waiting);
        let mut r = Response::new(Pushed(events).boxed());
        r.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        r
    } else {
        let last = served.messages.last().cloned().unwrap_or(Value::Null);
        json_response(StatusCode::OK, &last)
    };
    // A session of its own for each initialize, as the recorded server gave one
    // (MCP 2025-11-25 `basic/transports` "Session Management").
    if sessions && live.get("method").and_then(Value::as_str) == Some("initialize") {
        let id = uuid::Uuid::new_v4().to_string();
        if let Ok(v) = id.parse() {
            r.headers_mut().insert(crate::wire::http::SESSION_ID, v);
        }
    }
    r
}

fn not_allowed() -> Response<Body> {
    let mut r = status(
        StatusCode::METHOD_NOT_ALLOWED,
        "replay: the recording holds no more answers to this method",
    );
    r.headers_mut().insert(
        hyper::header::ALLOW,
        HeaderValue::from_static("POST, DELETE"),
    );
    r
}

/// A GET or DELETE answered as recorded: its status, type and body, or the messages
/// a GET stream pushed, as a stream that then ends.
fn bodiless(b: super::mock::Bodiless) -> Response<Body> {
    let body = if b.pushed.is_empty() {
        b.body
    } else {
        let mut body = Vec::new();
        for m in &b.pushed {
            body.extend_from_slice(&crate::wire::sse::encode_event(m.to_string().as_bytes()));
        }
        body
    };
    let mut r = Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() = StatusCode::from_u16(b.status).unwrap_or(StatusCode::OK);
    if let Some(v) = b.content_type.and_then(|c| HeaderValue::from_str(&c).ok()) {
        r.headers_mut().insert(hyper::header::CONTENT_TYPE, v);
    }
    if b.status == 405 {
        r.headers_mut().insert(
            hyper::header::ALLOW,
            HeaderValue::from_static("POST, DELETE"),
        );
    }
    r
}

fn status(s: StatusCode, text: &str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(text.to_owned())).boxed());
    *r.status_mut() = s;
    r
}

fn json_response(s: StatusCode, v: &Value) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(v.to_string())).boxed());
    *r.status_mut() = s;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_waits_after_a_server_request_for_its_answer() {
        let mut waiting = Default::default();
        let reply = vec![
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{}}),
            json!({"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage"}),
            json!({"jsonrpc":"2.0","id":3,"result":{}}),
        ];
        let now = hold_after_question(reply, &mut waiting);
        assert_eq!(now.len(), 2);
        assert_eq!(waiting.get("\"s1\"").map(Vec::len), Some(1));
    }
}
