//! `mcp-raw replay FILE --against TARGET`: the recorded client side sent again to a
//! live server, in order, every message with its recorded bytes, through links that
//! record what comes back (so `diff FILE OUT` can compare the two sessions).
//!
//! What is not sent as recorded, and why: the session id (the live server mints its
//! own; MCP 2025-11-25 `basic/transports` "Session Management": the client sends the
//! one it was given); the client's answers to server requests, which are sent when the
//! live server asks, with the live request's id; and a GET that opened a stream,
//! which waits for what a server pushes and would not end: it is opened again and
//! followed in the background for the rest of the replay, where the server's
//! questions on it are answered from the recording (a GET the server refused is sent
//! again as it was).

use super::script::{Source, Step};
use crate::client::http_link::{Answering, HttpLink, Posted};
use crate::client::stdio_link::{Output, Spawn, StdioLink};
use crate::client::wire_print::Printer;
use crate::jsonrpc::{self, Message};
use crate::lock::Locked;
use crate::wire::http::SESSION_ID;
use anyhow::{Context, bail};
use hyper::Method;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the replay talks to.
pub enum Target {
    /// A stdio server to spawn.
    Stdio(Spawn),
    /// A Streamable HTTP endpoint.
    Http(String),
}

/// What a replay did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Client messages sent (answers included).
    pub sent: usize,
    /// GET streams opened again and followed in the background.
    pub followed: usize,
    /// GETs not sent: those that resumed a stream with `Last-Event-ID`, whose ids
    /// were the recorded server's (the live one numbers its own events).
    pub skipped: usize,
}

/// Replays `script` against `target`, each wait for the server bounded by `timeout`.
/// The recording is read as the replay goes, a step when it is to be sent.
pub async fn run(
    mut script: Source,
    target: Target,
    printer: &Printer,
    timeout: Duration,
) -> anyhow::Result<Outcome> {
    match target {
        Target::Stdio(spawn) => stdio(&mut script, &spawn, printer, timeout).await,
        Target::Http(url) => http(&mut script, &url, printer, timeout).await,
    }
}

async fn stdio(
    script: &mut Source,
    spawn: &Spawn,
    printer: &Printer,
    timeout: Duration,
) -> anyhow::Result<Outcome> {
    let mut link = StdioLink::spawn_with(spawn, printer)?;
    let mut outcome = Outcome::default();
    while let Some(step) = script.next_step()? {
        let step = &step;
        let (Some(body), false) = (&step.body, step.is_answer()) else {
            continue;
        };
        link.send(body).await?;
        outcome.sent += 1;
        let Some(id) = step.request_id() else {
            continue;
        };
        // Read until this request's response, answering what the server asks.
        loop {
            let line = match link.receive(timeout).await? {
                None => bail!(
                    "no response to request id {id} ({}) within {timeout:?}",
                    method_of(step)
                ),
                Some(Output::TooLong(_)) => continue,
                Some(Output::Line(line)) => line,
            };
            match jsonrpc::parse(&line) {
                Ok(jsonrpc::Parsed::One(Message::Response(r)))
                    if r.id.as_ref().map(|i| i.to_value().to_string()) == Some(id.clone()) =>
                {
                    break;
                }
                Ok(jsonrpc::Parsed::One(Message::Request(r))) => {
                    let answer = answer_for(script, &r);
                    link.send(&serde_json::to_vec(&answer)?).await?;
                    outcome.sent += 1;
                }
                _ => {}
            }
        }
    }
    link.close(Duration::from_secs(5)).await?;
    Ok(outcome)
}

async fn http(
    script: &mut Source,
    url: &str,
    printer: &Printer,
    timeout: Duration,
) -> anyhow::Result<Outcome> {
    let mut link = HttpLink::new(url, printer)?;
    link.timeout = timeout;
    let mut outcome = Outcome::default();
    let mut session: Option<String> = None;
    // The recording (its answers above all), shared with the streams followed in
    // the background.
    let answers = Arc::new(Mutex::new(std::mem::replace(script, Source::empty())));
    let mut background = Vec::new();
    let result = async {
        loop {
            let next = answers.locked().next_step()?;
            let Some(step) = next else {
                break;
            };
            let step = &step;
            let method = step.method.as_deref().unwrap_or("POST");
            if step.is_answer() {
                continue;
            }
            let headers = live_headers(step, session.as_deref());
            let resuming = headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case("last-event-id"));
            if method == "GET" && step.streamed && resuming {
                outcome.skipped += 1;
                continue;
            }
            if method == "GET" && step.streamed {
                // 2025-11-25 `basic/transports` "Listening for Messages from the
                // Server": the server may send its requests on this stream, and
                // waits for their answers before it answers ours.
                let answering = answering(&answers, answer_headers(&headers));
                background.push(link.listen_in_background(headers, answering).await);
                outcome.followed += 1;
                continue;
            }
            let method = Method::from_bytes(method.as_bytes()).context("a recorded HTTP method")?;
            let body = step.body.clone().map(|b| b.to_vec()).unwrap_or_default();
            let mut answer = answering(&answers, headers.clone());
            let awaited = step
                .message
                .as_ref()
                .filter(|_| step.request_id().is_some())
                .and_then(|m| jsonrpc::RequestId::from_value(&m["id"]));
            let reply = match &awaited {
                Some(id) => {
                    link.exchange_awaiting(method, &headers, body, id, &mut *answer)
                        .await
                }
                None => {
                    link.exchange_answering(method, &headers, body, &mut *answer)
                        .await
                }
            }
            .with_context(|| format!("replaying {}", what(step)))?;
            outcome.sent += 1;
            if let Some(id) = reply.headers.get(SESSION_ID).and_then(|v| v.to_str().ok()) {
                session = Some(id.to_owned());
            }
        }
        anyhow::Ok(())
    }
    .await;
    for task in background {
        task.abort();
    }
    result.map(|()| outcome)
}

/// How a server request on an HTTP stream is answered: with the recording's answer,
/// POSTed with `headers`.
fn answering(answers: &Arc<Mutex<Source>>, headers: Vec<(String, String)>) -> Box<Answering> {
    let answers = Arc::clone(answers);
    Box::new(move |r: &jsonrpc::Request| -> Option<Posted> {
        let answer = {
            let mut script = answers.locked();
            answer_for(&mut script, r)
        };
        Some((headers.clone(), serde_json::to_vec(&answer).ok()?))
    })
}

/// The headers of a POST that carries an answer, from those of a stream's GET: the
/// session's own (id, version) kept, the body declared JSON, both response kinds
/// accepted (2025-11-25 `basic/transports` "Sending Messages to the Server").
fn answer_headers(get: &[(String, String)]) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = get
        .iter()
        .filter(|(n, _)| {
            !n.eq_ignore_ascii_case("accept")
                && !n.eq_ignore_ascii_case("last-event-id")
                && !n.eq_ignore_ascii_case("content-type")
        })
        .cloned()
        .collect();
    headers.push(("content-type".into(), "application/json".into()));
    headers.push((
        "accept".into(),
        "application/json, text/event-stream".into(),
    ));
    headers
}

/// The recorded headers, with the live session id in place of the recorded one.
fn live_headers(step: &Step, session: Option<&str>) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    for (n, v) in &step.headers {
        if n.eq_ignore_ascii_case(SESSION_ID) {
            if let Some(live) = session {
                headers.push((n.clone(), live.to_owned()));
            }
        } else {
            headers.push((n.clone(), v.clone()));
        }
    }
    headers
}

/// The recording's answer to this server request, or an error saying there is none.
fn answer_for(script: &mut Source, r: &jsonrpc::Request) -> Value {
    let id = r.id.to_value();
    script.answer(&r.method, &id).unwrap_or_else(|| {
        json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": jsonrpc::code::METHOD_NOT_FOUND,
            "message": format!("the recording being replayed holds no answer to {} (the server asked it more often than when recorded, or never)", r.method),
        }})
    })
}

fn method_of(step: &Step) -> String {
    step.message
        .as_ref()
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned()
}

fn what(step: &Step) -> String {
    match (&step.method, &step.message) {
        (Some(m), Some(_)) => format!("{m} {}", method_of(step)),
        (Some(m), None) => m.clone(),
        (None, _) => method_of(step),
    }
}
