//! HTTP lanes: each request head is paired with the response head that follows it on
//! the same connection (HTTP/1.1 answers in order), and the pair — an exchange — is
//! placed in its conversation: the legacy session its `Mcp-Session-Id` names, or, for
//! `initialize` and for a 2026-07-28 POST, a conversation of its own (`initialize`'s
//! becomes the session the response head names). The rules about heads, sessions and
//! event streams are here; the messages in bodies go to [`Scope`].

use super::rules;
use super::scope::{Scope, short};
use super::{Finding, Spot, quote};
use crate::protocol::meta;
use crate::wire::decode::{Fact, Source};
use crate::wire::event::Dir;
use crate::wire::http::endpoint::Endpoint;
use crate::wire::http::mirror;
use crate::wire::http1::Head;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};

/// Which conversation an exchange belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Conv {
    /// A legacy session, by the id the server issued.
    Session(String),
    /// A legacy server that issued no session id: every request without one.
    Sessionless,
    /// One exchange's own: `initialize` until its response names the session, or a
    /// stateless 2026-07-28 request.
    Own(u64),
}

/// One request and its response.
#[derive(Debug)]
struct Exchange {
    /// Its number, for an [`Conv::Own`] conversation.
    n: u64,
    /// The request's head.
    head: Head,
    /// The conversation, once the body (or its absence) told which.
    conv: Option<Conv>,
    /// The ids (as JSON text) of the requests the body carried.
    requests: Vec<String>,
    /// The body carried messages, none of them requests: the server answers 202.
    no_requests: bool,
    /// The body was `initialize`.
    initialize: bool,
    /// The modern headers did not match the body: the server must refuse.
    mismatch: bool,
    /// The response's status, once its head arrived.
    status: Option<u16>,
    /// The response had a body.
    answered_with_body: bool,
    /// The stream promised resumption: an event with an `id:` or a `retry:`.
    resumable: bool,
    /// The `id:` of the SSE event whose data comes next.
    event_id: Option<String>,
    /// Not an MCP exchange: a well-known metadata document, or a request to another
    /// path than the MCP endpoint (an authorization server's `/token`, a resource
    /// server's own key-set fetch). OAuth has its own RFCs; MCP's rules do not
    /// apply, so nothing in it is checked.
    outside: bool,
}

impl Exchange {
    fn method(&self) -> &str {
        self.head.method().unwrap_or("")
    }

    fn session(&self) -> Option<&str> {
        self.head.header(crate::wire::http::SESSION_ID)
    }
}

/// One connection.
#[derive(Debug, Default)]
struct Lane {
    /// The request being read.
    reading: Option<Exchange>,
    /// Requests sent, their responses not begun.
    waiting: VecDeque<Exchange>,
    /// The exchange whose response is being read.
    answering: Option<Exchange>,
}

/// Every HTTP lane of a recording.
#[derive(Debug, Default)]
pub struct State {
    lanes: HashMap<u32, Lane>,
    scopes: HashMap<Conv, Scope>,
    /// Session ids the server issued, in order.
    issued: Vec<String>,
    /// SSE event ids seen, per conversation (unique across all its streams).
    event_ids: HashMap<Conv, HashSet<String>>,
    /// The next exchange's number.
    next: u64,
    /// Which exchanges are MCP's ([`Endpoint`]).
    endpoint: Endpoint,
}

impl State {
    /// Checks one fact of HTTP lane `lane`, read in direction `dir`.
    pub fn fact(&mut self, lane: u32, dir: Dir, fact: &Fact, at: &Spot, out: &mut Vec<Finding>) {
        let mut l = self.lanes.remove(&lane).unwrap_or_default();
        match dir {
            Dir::ToServer => self.request_fact(&mut l, fact, at, out),
            Dir::ToClient => self.response_fact(&mut l, fact, at, out),
        }
        self.lanes.insert(lane, l);
    }

    fn request_fact(&mut self, l: &mut Lane, fact: &Fact, at: &Spot, out: &mut Vec<Finding>) {
        match fact {
            Fact::Head(head) => {
                self.next += 1;
                let outside = self.endpoint.outside(head);
                if !outside {
                    accept(head, at, out);
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

    /// The conversation of a request: by its session id, else its own (initialize,
    /// modern), else the session the client should have named.
    fn conv_for(&mut self, ex: &Exchange, modern: bool, at: &Spot, out: &mut Vec<Finding>) -> Conv {
        if let Some(id) = ex.session() {
            let conv = Conv::Session(id.to_owned());
            if !self.scopes.contains_key(&conv) {
                if !self.issued.is_empty() {
                    out.push(at.finding(
                        rules::SESSION_ID_UNKNOWN,
                        format!(
                            "Mcp-Session-Id {id:?}; the server issued {}",
                            self.issued.join(", ")
                        ),
                    ));
                }
                self.scopes.insert(conv.clone(), Scope::new(false));
            }
            return conv;
        }
        if ex.initialize || modern {
            let conv = Conv::Own(ex.n);
            self.scopes.insert(conv.clone(), Scope::new(true));
            return conv;
        }
        if let Some(last) = self.issued.last() {
            out.push(at.finding(
                rules::SESSION_ID_DROPPED,
                format!(
                    "{} without Mcp-Session-Id, after the server issued {last:?}",
                    ex.head.start_line
                ),
            ));
            return Conv::Session(last.clone());
        }
        Conv::Sessionless
    }

    fn response_fact(&mut self, l: &mut Lane, fact: &Fact, at: &Spot, out: &mut Vec<Finding>) {
        match fact {
            Fact::Head(head) => {
                let status = head.status().unwrap_or(0);
                if (100..200).contains(&status) {
                    return; // 100 Continue: the real head follows
                }
                let Some(mut ex) = l.waiting.pop_front() else {
                    return;
                };
                ex.status = Some(status);
                if !ex.outside {
                    self.response_head(&mut ex, head, at, out);
                }
                l.answering = Some(ex);
            }
            Fact::Sse(event) => {
                let Some(ex) = l.answering.as_mut().filter(|ex| !ex.outside) else {
                    return;
                };
                ex.resumable |= event.id.is_some() || event.retry.is_some();
                ex.event_id = event.id.clone();
                if let (Some(id), Some(conv)) = (&event.id, &ex.conv)
                    && !matches!(conv, Conv::Own(_))
                    && !id.is_empty()
                    && !self
                        .event_ids
                        .entry(conv.clone())
                        .or_default()
                        .insert(id.clone())
                {
                    out.push(at.finding(
                        rules::SSE_DUPLICATE_ID,
                        format!("event id {id:?} was sent before in this session"),
                    ));
                }
            }
            Fact::Payload {
                bytes,
                source,
                class,
                ..
            } => {
                let Some(ex) = l.answering.as_mut().filter(|ex| !ex.outside) else {
                    return;
                };
                ex.answered_with_body = true;
                if !class.is_message() {
                    let rule = match class.shape {
                        "not-json" => rules::NOT_JSON,
                        _ => rules::INVALID_MESSAGE,
                    };
                    // A refusal's body need not be JSON-RPC; only a success's must.
                    if ex.status.is_some_and(|s| (200..300).contains(&s)) {
                        out.push(at.finding(
                            rule,
                            format!(
                                "response to {} carried {} ({})",
                                ex.head.start_line,
                                quote(bytes),
                                class.problem.as_deref().unwrap_or("not a message")
                            ),
                        ));
                    }
                    return;
                }
                if *source == Source::SseData && ex.resumable && ex.event_id.is_none() {
                    out.push(at.finding(
                        rules::SSE_MISSING_ID,
                        format!(
                            "{} without an id: on a stream that sent ids",
                            class.summary()
                        ),
                    ));
                }
                if ex.method() == "GET"
                    && *source == Source::SseData
                    && ex.head.header("last-event-id").is_none()
                    && matches!(class.shape, "response" | "error")
                {
                    out.push(at.finding(
                        rules::HTTP_RESPONSE_ON_GET,
                        format!(
                            "{} on a GET stream opened without Last-Event-ID",
                            class.summary()
                        ),
                    ));
                }
                // A plain JSON body answering requests can carry one thing only: their
                // response. A request or notification there leaves the POST unanswered
                // (a replayed stdio recording did this: its roots/list came back as the
                // tools/call's JSON reply, and the client hung).
                if *source == Source::Body
                    && ex.method() == "POST"
                    && !ex.requests.is_empty()
                    && ex.status.is_some_and(|s| (200..300).contains(&s))
                    && matches!(class.shape, "request" | "notification")
                {
                    out.push(at.finding(
                        rules::HTTP_JSON_NOT_THE_RESPONSE,
                        format!(
                            "the application/json answer to a POST of request {} is {}, not its response",
                            ex.requests.join(", "),
                            class.summary()
                        ),
                    ));
                }
                let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
                    return;
                };
                if ex.mismatch && class.shape == "response" {
                    out.push(at.finding(
                        rules::HEADER_MISMATCH_ACCEPTED,
                        format!("answered with {}", short(&value)),
                    ));
                }
                let conv = ex.conv.clone().unwrap_or(Conv::Sessionless);
                let scope = self.scopes.entry(conv).or_insert_with(|| Scope::new(false));
                scope.payload(Dir::ToClient, value, at, out);
            }
            Fact::End => {
                let Some(ex) = l.answering.take().filter(|ex| !ex.outside) else {
                    return;
                };
                self.response_end(ex, at, out);
            }
            _ => {}
        }
    }

    fn response_head(&mut self, ex: &mut Exchange, head: &Head, at: &Spot, out: &mut Vec<Finding>) {
        let status = ex.status.unwrap_or(0);
        let ok = (200..300).contains(&status);
        if let Some(issued) = head.header(crate::wire::http::SESSION_ID) {
            if issued.is_empty() || !issued.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                out.push(at.finding(
                    rules::SESSION_ID_CHARSET,
                    format!("Mcp-Session-Id {issued:?}"),
                ));
            }
            match ex.session() {
                Some(sent) if sent != issued => out.push(at.finding(
                    rules::SESSION_ID_CHANGED,
                    format!("the request named session {sent:?}, the response {issued:?}"),
                )),
                Some(_) => {}
                None if ex.initialize && ok => {
                    // initialize's own conversation becomes the session.
                    if let Some(own @ Conv::Own(_)) = ex.conv.clone()
                        && let Some(scope) = self.scopes.remove(&own)
                    {
                        let session = Conv::Session(issued.to_owned());
                        self.scopes.insert(session.clone(), scope);
                        ex.conv = Some(session);
                    }
                    self.issued.push(issued.to_owned());
                }
                None => {}
            }
        } else if ex.initialize
            && ok
            && let Some(own @ Conv::Own(_)) = ex.conv.clone()
            && let Some(scope) = self.scopes.remove(&own)
        {
            // A server without sessions: every request without an id is this one's.
            self.scopes.insert(Conv::Sessionless, scope);
            ex.conv = Some(Conv::Sessionless);
        }
        if ex.method() != "POST" || !ok {
            return;
        }
        if ex.no_requests && status != 202 {
            out.push(at.finding(
                rules::HTTP_ACCEPTED_WITH_BODY,
                format!(
                    "{} to a POST of notifications or responses",
                    head.start_line
                ),
            ));
        }
        if !ex.no_requests && !ex.requests.is_empty() {
            let ct = head.header("content-type").unwrap_or("");
            let mime = ct
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if mime != "application/json" && mime != "text/event-stream" {
                out.push(at.finding(
                    rules::HTTP_CONTENT_TYPE,
                    format!(
                        "{} with Content-Type {ct:?} to a POST carrying request(s)",
                        head.start_line
                    ),
                ));
            }
        }
    }

    fn response_end(&mut self, ex: Exchange, at: &Spot, out: &mut Vec<Finding>) {
        let status = ex.status.unwrap_or(0);
        if ex.no_requests && status == 202 && ex.answered_with_body {
            out.push(at.finding(
                rules::HTTP_ACCEPTED_WITH_BODY,
                "202 Accepted with a body, to a POST of notifications or responses",
            ));
        }
        let Some(conv) = ex.conv else { return };
        if status >= 400
            && let Some(scope) = self.scopes.get_mut(&conv)
        {
            // The HTTP status refused these requests.
            for id in &ex.requests {
                scope.close(Dir::ToServer, id);
            }
        }
        if let Conv::Own(_) = conv
            && let Some(mut scope) = self.scopes.remove(&conv)
        {
            scope.finish(out);
        }
    }

    /// What is still wrong when the recording ends (requests never answered).
    pub fn finish(&mut self, out: &mut Vec<Finding>) {
        let mut convs: Vec<Conv> = self.scopes.keys().cloned().collect();
        convs.sort_by_key(|c| format!("{c:?}"));
        for c in convs {
            if let Some(mut s) = self.scopes.remove(&c) {
                s.finish(out);
            }
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
