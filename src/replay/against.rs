//! `mcp-raw replay FILE --against TARGET`: the recorded client side sent again to a
//! live server, in order, every message with its recorded bytes, through links that
//! record what comes back (so `diff FILE OUT` can compare the two sessions).
//!
//! What is not sent as recorded, and why: the session id (the live server mints its
//! own; MCP 2025-11-25 `basic/transports` "Session Management": the client sends the
//! one it was given); the client's answers to server requests, which are sent when the
//! live server asks, with the live request's id; and a GET that opened a stream,
//! which waits for what a server pushes unprompted and would not end (a GET the
//! server refused is sent again).

use super::script::{Script, Step};
use crate::client::http_link::{HttpLink, Posted};
use crate::client::stdio_link::{Output, Spawn, StdioLink};
use crate::client::wire_print::Printer;
use crate::jsonrpc::{self, Message};
use crate::wire::http::SESSION_ID;
use anyhow::{Context, bail};
use hyper::Method;
use serde_json::{Value, json};
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
    /// Requests skipped (GET streams).
    pub skipped: usize,
}

/// Replays `script` against `target`, each wait for the server bounded by `timeout`.
pub async fn run(
    mut script: Script,
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
    script: &mut Script,
    spawn: &Spawn,
    printer: &Printer,
    timeout: Duration,
) -> anyhow::Result<Outcome> {
    let mut link = StdioLink::spawn_with(spawn, printer)?;
    let mut outcome = Outcome::default();
    let steps = std::mem::take(&mut script.steps);
    for step in &steps {
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
    script: &mut Script,
    url: &str,
    printer: &Printer,
    timeout: Duration,
) -> anyhow::Result<Outcome> {
    let mut link = HttpLink::new(url, printer)?;
    link.timeout = timeout;
    let mut outcome = Outcome::default();
    let mut session: Option<String> = None;
    let steps = std::mem::take(&mut script.steps);
    for step in &steps {
        let method = step.method.as_deref().unwrap_or("POST");
        if method == "GET" && step.streamed {
            outcome.skipped += 1;
            continue;
        }
        if step.is_answer() {
            continue;
        }
        let headers = live_headers(step, session.as_deref());
        let answer_headers = headers.clone();
        let method = Method::from_bytes(method.as_bytes()).context("a recorded HTTP method")?;
        let body = step.body.clone().map(|b| b.to_vec()).unwrap_or_default();
        let mut answering = |r: &jsonrpc::Request| -> Option<Posted> {
            let answer = answer_for(script, r);
            Some((answer_headers.clone(), serde_json::to_vec(&answer).ok()?))
        };
        let reply = link
            .exchange_answering(method, &headers, body, &mut answering)
            .await
            .with_context(|| format!("replaying {}", what(step)))?;
        outcome.sent += 1;
        if let Some(id) = reply.headers.get(SESSION_ID).and_then(|v| v.to_str().ok()) {
            session = Some(id.to_owned());
        }
    }
    Ok(outcome)
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
fn answer_for(script: &mut Script, r: &jsonrpc::Request) -> Value {
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
