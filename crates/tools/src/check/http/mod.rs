//! HTTP lanes: each request head is paired with the response head that follows it on
//! the same connection (HTTP/1.1 answers in order), and the pair — an exchange — is
//! placed in its conversation: the legacy session its `Mcp-Session-Id` names, or, for
//! `initialize` and for a 2026-07-28 POST, a conversation of its own (`initialize`'s
//! becomes the session the response head names). The rules about heads, sessions and
//! event streams are here; the messages in bodies go to [`Scope`].
//!
//! MCP 2025-11-25 `basic/transports` "Streamable HTTP" and 2026-07-28's stateless
//! HTTP are the rules; this file pairs the exchanges and places them, and each side
//! of an exchange has its file:
//!
//! ```text
//! request.rs    a request: Accept, MCP-Protocol-Version, the mirrored headers, its body
//! response.rs   a response: sessions issued, status and Content-Type, SSE event ids
//! ```

mod request;
mod response;

use super::rules;
use super::scope::Scope;
use super::{Finding, Spot};
use crate::wire::decode::Fact;
use crate::wire::event::Dir;
use crate::wire::http::endpoint::Endpoint;
use crate::wire::http1::Head;
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
    /// The last `retry:` the stream set (milliseconds): how long a client waits
    /// before it resumes it.
    retry: Option<u64>,
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
    /// Where each issued session's id was issued (its initialize's response head).
    issued_at: HashMap<String, Spot>,
    /// Sessions the client sent a DELETE for.
    deleted: HashSet<String>,
    /// Sessions a DELETE ended (answered 2xx): the server must answer 404 from then.
    ended: HashSet<String>,
    /// Per session, when its last stream that set `retry:` ended, and that time.
    resume_after: HashMap<String, (std::time::Duration, u64)>,
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

    /// What is still wrong when the recording ends (requests never answered, sessions
    /// never deleted).
    pub fn finish(&mut self, out: &mut Vec<Finding>) {
        for id in self.issued.iter().filter(|id| !self.deleted.contains(*id)) {
            if let Some(at) = self.issued_at.get(id) {
                out.push(at.finding(
                    rules::SESSION_NOT_DELETED,
                    format!("session {id:?}, issued here, ends with the recording: no DELETE sent"),
                ));
            }
        }
        let mut convs: Vec<Conv> = self.scopes.keys().cloned().collect();
        convs.sort_by_key(|c| format!("{c:?}"));
        for c in convs {
            if let Some(mut s) = self.scopes.remove(&c) {
                s.finish(out);
            }
        }
    }
}
