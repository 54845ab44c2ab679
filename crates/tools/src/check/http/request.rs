//! One side of an HTTP exchange: the request. Its head's rules (`Accept` lists both
//! answer forms, MCP 2025-11-25 `basic/transports` "Sending Messages to the Server" 2;
//! MCP-Protocol-Version names the session's version, "Protocol Version Header"; a
//! 2026-07-28 request's mirrored headers match its body, `streamable-http` "Request
//! Metadata"), then its body placed in its conversation and handed to [`Scope`].

use super::super::scope::Scope;
use super::super::{Finding, Spot, quote, rules};
use super::{Exchange, Lane, State};
use crate::protocol::meta;
use crate::wire::decode::{Fact, Source};
use crate::wire::event::Dir;
use crate::wire::http::mirror;
use crate::wire::http1::Head;
use serde_json::Value;

impl State {
    /// A request head's part in the session's story: a DELETE noted (the client
    /// ended its session, "Session Management" 5), a resumption (`Last-Event-ID`) timed
    /// against the `retry:` of the stream it resumes.
    fn deletes_and_resumes(&mut self, head: &Head, at: &Spot, out: &mut Vec<Finding>) {
        let Some(id) = head.header(crate::wire::http::SESSION_ID) else {
            return;
        };
        if head.method() == Some("DELETE") {
            self.deleted.insert(id.to_owned());
        }
        if head.header("last-event-id").is_some()
            && let Some((ended, ms)) = self.resume_after.get(id)
        {
            let waited = at.t.saturating_sub(*ended);
            if waited < std::time::Duration::from_millis(*ms) {
                out.push(at.finding(
                    rules::SSE_RETRY_IGNORED,
                    format!(
                        "{} {} ms after the stream ended; its retry: asked for {ms} ms",
                        head.start_line,
                        waited.as_millis()
                    ),
                ));
            }
        }
    }

    /// One fact of a request: its head, a body, its end.
    pub(super) fn request_fact(
        &mut self,
        l: &mut Lane,
        fact: &Fact,
        at: &Spot,
        out: &mut Vec<Finding>,
    ) {
        match fact {
            Fact::Head(head) => {
                self.next += 1;
                let outside = self.endpoint.outside(head);
                if !outside {
                    accept(head, at, out);
                    self.deletes_and_resumes(head, at, out);
                }
                l.reading = Some(Exchange {
                    n: self.next,
                    head: head.clone(),
                    conv: None,
                    requests: Vec::new(),
                    no_requests: false,
                    initialize: false,
                    mismatch: false,
                    status: None,
                    answered_with_body: false,
                    resumable: false,
                    event_id: None,
                    retry: None,
                    outside,
                });
            }
            Fact::Payload {
                bytes,
                source: Source::Body,
                class,
                ..
            } => {
                let Some(ex) = l.reading.as_mut().filter(|ex| !ex.outside) else {
                    return;
                };
                if !class.is_message() {
                    let rule = match class.shape {
                        "not-json" => rules::NOT_JSON,
                        _ => rules::INVALID_MESSAGE,
                    };
                    out.push(at.finding(
                        rule,
                        format!(
                            "{} body {} ({})",
                            ex.method(),
                            quote(bytes),
                            class.problem.as_deref().unwrap_or("not a message")
                        ),
                    ));
                    return;
                }
                let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
                    return;
                };
                ex.initialize =
                    class.method.as_deref() == Some("initialize") && class.era != Some("modern");
                let modern = class.era == Some("modern") || names_modern(&ex.head);
                let conv = self.conv_for(ex, modern, at, out);
                if modern && class.shape == "request" {
                    ex.mismatch = mirror_mismatch(&ex.head, &value, at, out);
                }
                let scope = self
                    .scopes
                    .entry(conv.clone())
                    .or_insert_with(|| Scope::new(false));
                if modern {
                    scope.modern = true;
                } else if !ex.initialize {
                    protocol_version(scope, &ex.head, at, out);
                }
                ex.requests = ids_of_requests(&value);
                ex.no_requests = ex.requests.is_empty();
                ex.conv = Some(conv);
                scope.payload(Dir::ToServer, value, at, out);
            }
            Fact::End => {
                let Some(mut ex) = l.reading.take() else {
                    return;
                };
                if ex.conv.is_none() && !ex.outside {
                    let modern = names_modern(&ex.head);
                    let conv = self.conv_for(&ex, modern, at, out);
                    if let Some(scope) = self.scopes.get(&conv)
                        && !names_modern(&ex.head)
                    {
                        protocol_version(scope, &ex.head, at, out);
                    }
                    ex.conv = Some(conv);
                }
                l.waiting.push_back(ex);
            }
            _ => {}
        }
    }
}

/// `Accept` on a POST lists both answer forms; on a GET, the event stream.
fn accept(head: &Head, at: &Spot, out: &mut Vec<Finding>) {
    let method = head.method().unwrap_or("");
    let values: Vec<String> = head
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("accept"))
        .map(|(_, v)| v.to_ascii_lowercase())
        .collect();
    let lists = |mime: &str| {
        values
            .iter()
            .flat_map(|v| v.split(','))
            .map(|m| m.split(';').next().unwrap_or("").trim().to_owned())
            .any(|m| m == mime || m == "*/*")
    };
    let missing: Vec<&str> = match method {
        "POST" => ["application/json", "text/event-stream"]
            .into_iter()
            .filter(|m| !lists(m))
            .collect(),
        "GET" => ["text/event-stream"]
            .into_iter()
            .filter(|m| !lists(m))
            .collect(),
        _ => Vec::new(),
    };
    if !missing.is_empty() {
        out.push(at.finding(
            rules::HTTP_ACCEPT,
            format!(
                "{method} with Accept {:?}: it does not list {}",
                values.join(", "),
                missing.join(" or ")
            ),
        ));
    }
}

/// Does `MCP-Protocol-Version` name a 2026-07-28 version?
fn names_modern(head: &Head) -> bool {
    head.header(mirror::PROTOCOL_VERSION)
        .is_some_and(|v| meta::MODERN_VERSIONS.contains(&v))
}

/// A legacy request after `initialize`: `MCP-Protocol-Version` must name the version
/// the session agreed.
fn protocol_version(scope: &Scope, head: &Head, at: &Spot, out: &mut Vec<Finding>) {
    let Some(agreed) = &scope.version else { return };
    match head.header(mirror::PROTOCOL_VERSION) {
        Some(sent) if sent == agreed => {}
        Some(sent) => out.push(at.finding(
            rules::HTTP_PROTOCOL_VERSION,
            format!(
                "{}: MCP-Protocol-Version {sent:?}, the session agreed {agreed:?}",
                head.start_line
            ),
        )),
        None => out.push(at.finding(
            rules::HTTP_PROTOCOL_VERSION,
            format!(
                "{} without MCP-Protocol-Version (the session agreed {agreed:?})",
                head.start_line
            ),
        )),
    }
}

/// A 2026-07-28 request: the mirrored headers against its body ([`mirror`] says
/// which header mirrors what). True when they differ.
fn mirror_mismatch(head: &Head, body: &Value, at: &Spot, out: &mut Vec<Finding>) -> bool {
    let method = body.get("method").and_then(Value::as_str).unwrap_or("");
    let params = body.get("params");
    let version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(meta::PROTOCOL_VERSION));
    let mut wrong = Vec::new();
    match (head.header(mirror::PROTOCOL_VERSION), version) {
        (None, _) => wrong.push("MCP-Protocol-Version is missing".to_owned()),
        (Some(h), Some(Value::String(b))) if h == b => {}
        (Some(h), b) => wrong.push(format!(
            "MCP-Protocol-Version {h:?}, the body's _meta says {}",
            b.map_or("nothing".into(), Value::to_string)
        )),
    }
    match head.header(mirror::METHOD) {
        None => wrong.push("Mcp-Method is missing".to_owned()),
        Some(h) if h == method => {}
        Some(h) => wrong.push(format!("Mcp-Method {h:?}, the body's method {method:?}")),
    }
    if let Some(Some(name)) = mirror::name_source(method, params) {
        match head.header(mirror::NAME).map(mirror::decode) {
            None => wrong.push(format!("Mcp-Name is missing ({method} needs it)")),
            Some(Ok(h)) if h == name => {}
            Some(Ok(h)) => wrong.push(format!("Mcp-Name {h:?}, the body's {name:?}")),
            Some(Err(e)) => wrong.push(format!("Mcp-Name: {e}")),
        }
    }
    if wrong.is_empty() {
        return false;
    }
    out.push(at.finding(
        rules::HEADER_MISMATCH,
        format!("{method}: {}", wrong.join("; ")),
    ));
    true
}

/// The ids, as JSON text, of the requests in a body (one message or a batch).
fn ids_of_requests(value: &Value) -> Vec<String> {
    let one = |v: &Value| {
        (v.get("method").is_some())
            .then(|| v.get("id"))
            .flatten()
            .map(Value::to_string)
    };
    match value {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        v => one(v).into_iter().collect(),
    }
}
