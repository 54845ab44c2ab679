//! One HTTP response read to its end, and what is in its body: the whole JSON body, or
//! an event stream's dispatched events (WHATWG HTML "Server-sent events": an event
//! counts once its blank line came), their `id:` and `retry:` for a resumption
//! (2025-11-25 `basic/transports` "Resumability and Redelivery"), and the JSON-RPC
//! messages in them as [`jsonrpc::parse`] reads them.

use crate::jsonrpc;
use bytes::Bytes;
use hyper::{HeaderMap, StatusCode};
use serde_json::Value;
use std::time::Duration;

/// One response, read to its end.
pub struct HttpReply {
    /// The status the server answered with.
    pub status: StatusCode,
    /// Its headers, as hyper parsed them (the view shows them as sent).
    pub headers: HeaderMap,
    /// The whole body, de-chunked (as much as came, when `cut`).
    pub body: Bytes,
    /// Why an event stream ended before its end: the connection dropped mid-body.
    /// What came is kept, so a legacy client can resume after the last event id.
    pub cut: Option<String>,
}

impl HttpReply {
    /// Is the body an event stream?
    pub fn is_sse(&self) -> bool {
        self.headers
            .get(hyper::header::CONTENT_TYPE)
            .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
    }

    /// The payloads of the body: the whole body, or each SSE event's data (empty
    /// priming events skipped).
    fn payloads(&self) -> Vec<Vec<u8>> {
        if self.is_sse() {
            self.events()
                .into_iter()
                .filter(|e| !e.data.is_empty())
                .map(|e| e.data.into_bytes())
                .collect()
        } else if self.body.is_empty() {
            Vec::new()
        } else {
            vec![self.body.to_vec()]
        }
    }

    /// The last `id:` of an event stream: where a resumption starts.
    pub fn last_event_id(&self) -> Option<String> {
        self.events().into_iter().rev().find_map(|e| e.id)
    }

    /// The last `retry:` of an event stream: how long to wait before resuming.
    pub fn retry(&self) -> Option<Duration> {
        self.events()
            .into_iter()
            .rev()
            .find_map(|e| e.retry)
            .map(Duration::from_millis)
    }

    /// The events of an event stream that were dispatched (ended by their blank
    /// line): an event cut off by the stream's end counts for nothing, its `id:`
    /// included (WHATWG "dispatch the event").
    fn events(&self) -> Vec<crate::wire::sse::Event> {
        if !self.is_sse() {
            return Vec::new();
        }
        crate::wire::sse::decode(&String::from_utf8_lossy(&self.body))
    }

    /// Every JSON value in the body (for views that show what came, valid or not).
    pub fn messages(&self) -> Vec<Value> {
        self.payloads()
            .iter()
            .filter_map(|p| serde_json::from_slice(p).ok())
            .collect()
    }

    /// Every JSON-RPC message in the body, read and checked by [`jsonrpc::parse`]
    /// (the same reading the server does): a payload that is not one message of the
    /// four shapes is left out here (the view has flagged it).
    pub fn rpc_messages(&self) -> Vec<jsonrpc::Message> {
        self.payloads()
            .iter()
            .filter_map(|p| match jsonrpc::parse(p) {
                Ok(jsonrpc::Parsed::One(m)) => Some(m),
                _ => None,
            })
            .collect()
    }

    /// The last message of the body: for a request, its response.
    pub fn message(&self) -> Option<Value> {
        self.messages().pop()
    }
}
