//! One session of the bridge, as the HTTP transport sees it ([`Conversation`]). A
//! legacy session drives its own child from `initialize` on; a modern request goes
//! to the child modern requests share. Requests are written to the child and
//! answered with [`Reply::Later`], resolved when the child's line with their id
//! comes; notifications and responses from the client are written to the child and
//! answered with nothing.

use super::{Bridge, Linked};
use crate::jsonrpc::{ErrorObject, Message, Notification, Request, RequestId, Response, code};
use crate::protocol::context::{Pending, Reply};
use crate::protocol::subscriptions::Sink;
use crate::protocol::{Conversation, Core, Envelope, Era, era, streams};
use serde_json::{Value, json};
use std::sync::{Arc, Weak};

/// A session of the bridge.
pub struct Forwarding {
    /// What every session shares: how to spawn, the modern child.
    bridge: Arc<Bridge>,
    /// This legacy session's own child, from `initialize` on.
    own: Option<Arc<Linked>>,
    /// A GET stream opened before the child was there (handed over at spawn).
    push: Option<Sink>,
    /// `notifications/initialized` came: the handshake is done.
    ready: bool,
}

impl Forwarding {
    /// The forwarding conversation of one HTTP session (or request) on `bridge`.
    pub fn new(bridge: Arc<Bridge>) -> Forwarding {
        Forwarding {
            bridge,
            own: None,
            push: None,
            ready: false,
        }
    }

    /// A legacy message of this session.
    fn legacy(&mut self, message: Message) -> Reply {
        if self.own.is_none() {
            match &message {
                // 2025-11-25 `basic/lifecycle`: initialize starts the session, so it
                // starts the session's process.
                Message::Request(r) if r.method == "initialize" => {
                    match Linked::spawn(&self.bridge.spawn, false, "a legacy session") {
                        Ok(linked) => {
                            if let Some(sink) = self.push.take() {
                                linked.routes().set_push(sink);
                            }
                            self.own = Some(linked);
                        }
                        Err(why) => return error_now(r.id.clone(), why),
                    }
                }
                Message::Request(r) => {
                    return error_now(
                        r.id.clone(),
                        "this session has no stdio server: initialize first".into(),
                    );
                }
                _ => return Reply::None,
            }
        }
        let Some(linked) = self.own.clone() else {
            return Reply::None;
        };
        match message {
            Message::Request(request) => forward(&linked, request),
            Message::Notification(n) => {
                match n.method.as_str() {
                    "notifications/initialized" => self.ready = true,
                    // 2025-11-25 `basic/utilities/cancellation`: the child hears the
                    // client's notification as it was sent; the transport stops the
                    // stream without a response.
                    "notifications/cancelled" => {
                        if let Reply::Cancel(id) = crate::protocol::cancelled(n.params.as_deref()) {
                            linked.routes().forget(&id);
                            linked.child.send(n.to_bytes());
                            return Reply::Cancel(id);
                        }
                    }
                    _ => {}
                }
                linked.child.send(n.to_bytes());
                Reply::None
            }
            // The client's answer to a request of the child's (sampling, elicitation,
            // roots): the child waits for it by the id it chose.
            Message::Response(r) => {
                linked.child.send(r.to_bytes());
                Reply::None
            }
        }
    }
}

impl Conversation for Forwarding {
    fn handle(&mut self, envelope: Envelope<'_>) -> Reply {
        let Envelope {
            message,
            facts,
            meta,
        } = envelope;
        match (
            era::choose(self.bridge.eras(), &facts, Some(&meta)),
            message,
        ) {
            (Era::Modern, Message::Request(request)) => match self.bridge.modern_child() {
                Ok(linked) => forward(&linked, request),
                Err(why) => error_now(request.id, why),
            },
            // 2026-07-28 HTTP carries no client notifications or responses (the
            // transport answers them itself); nothing to forward.
            (Era::Modern, _) => Reply::None,
            (Era::Legacy, message) => self.legacy(message),
        }
    }

    /// Batches (2025-03-26 and before) are not forwarded: their one JSON array of
    /// answers would wait on every item, and the core's batch door answers at once.
    fn handle_batch(&mut self, _items: Vec<Value>) -> Result<Vec<Response>, Response> {
        Err(Response::error(
            None,
            ErrorObject::new(
                code::INVALID_REQUEST,
                "Invalid Request: the bridge forwards one message per POST; send the batch's messages one by one",
            ),
        ))
    }

    fn set_push(&mut self, sink: Sink) {
        match &self.own {
            Some(linked) => linked.routes().set_push(sink),
            None => self.push = Some(sink),
        }
    }

    fn ready(&self) -> bool {
        self.ready
    }
}

/// Writes `request` to the child; its response comes later, when the child's line
/// with its id does.
fn forward(linked: &Arc<Linked>, mut request: Request) -> Reply {
    let client_id = request.id.clone();
    let started = match linked.routes().start(&mut request) {
        Ok(started) => started,
        Err(why) => return error_now(client_id, why),
    };
    // 2025-11-25 `basic/transports` "stdio": one message per line, no embedded
    // newline; compact JSON escapes every newline inside its strings.
    if !linked.child.send(request.to_bytes()) {
        linked.routes().forget(&started.child_id);
        let why = format!(
            "the stdio server (child {}) takes no more input",
            linked.child.number
        );
        return error_now(client_id, why);
    }
    let guard = CancelOnDrop {
        linked: Arc::downgrade(linked),
        child_id: started.child_id,
        done: false,
    };
    let answer = started.answer;
    let id = client_id.clone();
    // A `subscriptions/listen` is answered when the client ends it (2026-07-28
    // `basic/patterns/subscriptions`): no deadline for it.
    let limit = (request.method != "subscriptions/listen").then_some(linked.request_timeout);
    let (number, method) = (linked.child.number, request.method.clone());
    let response = Box::pin(async move {
        // The whole guard moves into the future: dropping the future drops it.
        let mut guard = guard;
        let response = match limit {
            Some(limit) => match tokio::time::timeout(limit, answer).await {
                Ok(response) => response,
                // The guard is dropped unanswered: the child hears
                // notifications/cancelled for it (2025-11-25
                // `basic/utilities/cancellation`), and the caller an error.
                Err(_) => {
                    return Response::error(
                        Some(id),
                        ErrorObject::new(
                            code::INTERNAL_ERROR,
                            format!(
                                "the stdio server (child {number}) did not answer {method} within {} s (bridge --request-timeout); the request was cancelled at the server",
                                limit.as_secs_f64()
                            ),
                        ),
                    );
                }
            },
            None => answer.await,
        };
        guard.answered();
        response.unwrap_or_else(|_| {
            Response::error(
                Some(id),
                ErrorObject::new(
                    code::INTERNAL_ERROR,
                    "the bridge stopped waiting for the stdio server's answer",
                ),
            )
        })
    });
    Reply::Later(Pending {
        streamed: streams(&request.method),
        id: client_id,
        outbox: started.outbox,
        response,
    })
}

/// `-32603` now: the child cannot be reached.
fn error_now(id: RequestId, why: String) -> Reply {
    Reply::Now(Response::error(
        Some(id),
        ErrorObject::new(code::INTERNAL_ERROR, why),
    ))
}

/// Dropped before its response came, a forwarded request is cancelled at the child
/// too: the client closed a modern stream (2026-07-28
/// `basic/patterns/cancellation`), or the session ended.
struct CancelOnDrop {
    /// The child, if it still lives.
    linked: Weak<Linked>,
    /// The request's id as the child knows it.
    child_id: RequestId,
    /// The response came: nothing to cancel.
    done: bool,
}

impl CancelOnDrop {
    fn answered(&mut self) {
        self.done = true;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let Some(linked) = self.linked.upgrade() else {
            return;
        };
        if linked.routes().forget(&self.child_id) {
            let cancel = Notification::new(
                "notifications/cancelled",
                Some(json!({
                    "requestId": self.child_id.to_value(),
                    "reason": "the HTTP client stopped waiting for this request",
                })),
            );
            linked.child.send(cancel.to_bytes());
        }
    }
}
