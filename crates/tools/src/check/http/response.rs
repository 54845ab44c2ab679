//! The other side of an HTTP exchange: the response. Its head (the session id issued,
//! never changed, MCP 2025-11-25 `basic/transports` "Session Management" 1; `202` for
//! a POST of no requests and a Content-Type that answers requests, "Sending Messages
//! to the Server" 4 and 5), its SSE events (ids unique in a session, "Resumability and
//! Redelivery" 1), its body handed to [`Scope`], and what its end settles.

use super::super::scope::{Scope, short};
use super::super::{Finding, Spot, quote, rules};
use super::{Conv, Exchange, Lane, State};
use crate::wire::decode::{Fact, Source};
use crate::wire::event::Dir;
use crate::wire::http1::Head;
use serde_json::Value;

impl State {
    /// One fact of a response: its head, an SSE event, a body, its end.
    pub(super) fn response_fact(
        &mut self,
        l: &mut Lane,
        fact: &Fact,
        at: &Spot,
        out: &mut Vec<Finding>,
    ) {
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
                ex.retry = event.retry.or(ex.retry);
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
        self.session_status(ex, status, at, out);
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
                    self.issued_at.insert(issued.to_owned(), at.clone());
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

    /// What a status says of the session a request named: a DELETE accepted ends it,
    /// and from then on (2025-11-25 `basic/transports` "Session Management" 3) its id
    /// is answered 404, as an id the server never issued should be.
    fn session_status(&mut self, ex: &Exchange, status: u16, at: &Spot, out: &mut Vec<Finding>) {
        let Some(id) = ex.session() else { return };
        if self.ended.contains(id) && status != 404 {
            out.push(at.finding(
                rules::ENDED_SESSION_NOT_404,
                format!(
                    "{} for session {id:?}, whose DELETE the server accepted",
                    ex.head.start_line
                ),
            ));
        } else if status == 400 && !self.issued.is_empty() && !self.issued.iter().any(|i| i == id) {
            out.push(at.finding(
                rules::UNKNOWN_SESSION_400,
                format!("400 for session {id:?}, which the server never issued here"),
            ));
        }
        if ex.method() == "DELETE" && (200..300).contains(&status) {
            self.ended.insert(id.to_owned());
        }
    }

    fn response_end(&mut self, ex: Exchange, at: &Spot, out: &mut Vec<Finding>) {
        let status = ex.status.unwrap_or(0);
        if let (Some(ms), Some(id)) = (ex.retry, ex.session()) {
            self.resume_after.insert(id.to_owned(), (at.t, ms));
        }
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
}
