//! The OAuth hops: a client's HTTP exchanges with an authorization server (and the
//! resource's metadata) that carry no JSON-RPC, so no MCP span: the protected
//! resource's and the authorization server's metadata (RFC 9728 §3, RFC 8414 §3),
//! registration (RFC 7591 §3), the authorization request (OAuth 2.1 §4.1.1) and the
//! token requests (§3.2). Each becomes a span of its own, named per the HTTP
//! conventions (`{http.request.method} {path}`), from its request head to its
//! response head on the same lane (HTTP/1.1: answers come in order).
//!
//! A hop is known by its path (`/.well-known/oauth-*`, `/.well-known/openid-configuration`,
//! a last segment `register`, `authorize` or `token`) or by a form body
//! (`application/x-www-form-urlencoded`: what a token endpoint takes).

use super::attributes::address;
use super::context::{fresh_span_id, fresh_trace_id};
use super::proto::{KIND_CLIENT, KIND_SERVER, KeyValue, STATUS_ERROR, Span, Status};
use super::spans::{Role, Spans};
use crate::wire::decode::Fact;
use crate::wire::event::{Event, What};
use std::collections::HashMap;
use std::time::Duration;

/// Hops awaited at once at most (requests sent, not answered): past it a hop gets no span.
const MAX_PENDING: usize = 1024;

/// One OAuth exchange, answered.
#[derive(Debug, Clone)]
pub struct Hop {
    /// `GET`, `POST`.
    pub method: String,
    /// The request's path, without its query (which carries codes and state).
    pub path: String,
    /// When its head was sent.
    pub sent: Duration,
    /// When the response's head came.
    pub answered: Duration,
    /// The response's status.
    pub status: u16,
    /// The lane's peer as its open event named it.
    pub peer: Option<String>,
}

/// The reader: request heads awaiting their response, by lane.
#[derive(Debug, Default)]
pub struct Hops {
    /// Lane → the hop's request, awaiting its answer.
    pending: HashMap<String, Hop>,
    /// Lane → its peer.
    peers: HashMap<String, String>,
    /// Lane → the status of the last response head on it (for a request answered
    /// by an HTTP error and no JSON-RPC: a 401, a 413).
    statuses: HashMap<String, u16>,
    /// Lane → its directions closed so far: it is forgotten when both are (as the
    /// stats reader gives up its unanswered requests then).
    closes: HashMap<String, u8>,
    /// Hops answered since last taken.
    pub done: Vec<Hop>,
}

impl Hops {
    /// Notes a lane's open event (its peer).
    pub fn event(&mut self, e: &Event) {
        if let What::Open(peer) = &e.what {
            self.peers.insert(e.lane.label(), peer.clone());
        }
    }

    /// Forgets `e`'s lane if `e` closed its second direction: call after the
    /// event's calls are read.
    pub fn after(&mut self, e: &Event) {
        if let What::Close(_) = &e.what {
            let lane = e.lane.label();
            let closed = self.closes.entry(lane.clone()).or_default();
            *closed += 1;
            if *closed < 2 {
                return;
            }
            self.closes.remove(&lane);
            self.peers.remove(&lane);
            self.pending.remove(&lane);
            self.statuses.remove(&lane);
        }
    }

    /// The status of the last response head on `lane`.
    pub fn status(&self, lane: &str) -> Option<u16> {
        self.statuses.get(lane).copied()
    }

    /// Reads one framing fact of `e`.
    pub fn fact(&mut self, e: &Event, f: &Fact) {
        let Fact::Head(head) = f else { return };
        let lane = e.lane.label();
        if let Some(status) = head.status() {
            self.statuses.insert(lane.clone(), status);
            if let Some(mut hop) = self.pending.remove(&lane) {
                hop.answered = e.t;
                hop.status = status;
                self.done.push(hop);
            }
            return;
        }
        let mut words = head.start_line.split(' ');
        let (Some(method), Some(target)) = (words.next(), words.next()) else {
            return;
        };
        let path = target.split(['?', '#']).next().unwrap_or(target);
        let form = head
            .header("content-type")
            .is_some_and(|t| t.trim().starts_with("application/x-www-form-urlencoded"));
        if !(is_oauth_path(path) || form) || self.pending.len() >= MAX_PENDING {
            return;
        }
        self.pending.insert(
            lane.clone(),
            Hop {
                method: method.to_owned(),
                path: path.to_owned(),
                sent: e.t,
                answered: e.t,
                status: 0,
                peer: self.peers.get(&lane).cloned(),
            },
        );
    }
}

/// A path of an OAuth step.
fn is_oauth_path(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or("");
    path.starts_with("/.well-known/oauth-")
        || path.starts_with("/.well-known/openid-configuration")
        || matches!(last, "register" | "authorize" | "token")
}

impl Spans {
    /// An OAuth hop's span: kind as the recorder's standpoint (the client sends
    /// them, a protected server answers its metadata), named and attributed per the
    /// HTTP conventions; ERROR for a status of 400 and above on the client's side,
    /// 500 and above on the server's (the HTTP conventions' "Status").
    pub fn hop(&self, h: &Hop) -> Span {
        let kind = match self.role {
            Role::Server => KIND_SERVER,
            Role::Client => KIND_CLIENT,
        };
        let mut a = vec![
            KeyValue::str("http.request.method", &h.method),
            KeyValue::str("url.path", &h.path),
            KeyValue::int("http.response.status_code", i64::from(h.status)),
            KeyValue::str("network.transport", "tcp"),
            KeyValue::str("network.protocol.name", "http"),
            KeyValue::str("network.protocol.version", "1.1"),
        ];
        if let Some((ak, pk)) = self.peer_keys
            && let Some((host, port)) = h.peer.as_deref().and_then(address)
        {
            a.push(KeyValue::str(ak, host));
            a.push(KeyValue::int(pk, i64::from(port)));
        }
        let failed = h.status >= if kind == KIND_CLIENT { 400 } else { 500 };
        if failed {
            a.push(KeyValue::str("error.type", h.status.to_string()));
        }
        let trace_id = fresh_trace_id();
        Span {
            trace_id: trace_id.to_vec(),
            span_id: fresh_span_id().to_vec(),
            trace_state: String::new(),
            parent_span_id: Vec::new(),
            name: format!("{} {}", h.method, h.path),
            kind,
            start_time_unix_nano: self.at(h.sent),
            end_time_unix_nano: self.at(h.answered),
            attributes: a,
            status: failed.then(|| Status {
                message: String::new(),
                code: STATUS_ERROR,
            }),
            // W3C flags: sampled; OTLP bit 8: whether the parent is remote is known (no parent).
            flags: 0x101,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oauth_paths_are_known_and_others_are_not() {
        for p in [
            "/.well-known/oauth-authorization-server",
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/openid-configuration",
            "/register",
            "/oauth/authorize",
            "/token",
        ] {
            assert!(is_oauth_path(p), "{p}");
        }
        for p in ["/mcp", "/", "/tokens", "/sse"] {
            assert!(!is_oauth_path(p), "{p}");
        }
    }
}
