//! What the core hands back for one message ([`Reply`]), and what a request that takes
//! time can do while it runs ([`Context`]): send notifications (progress, log
//! messages) ahead of its response and, in the legacy era, ask the client something
//! (`sampling/createMessage`, `elicitation/create`) and wait for the answer. The core
//! still does no I/O: these are channels and futures the transport drives.

use crate::jsonrpc::{ErrorObject, Payload, RequestId, Response};
use crate::lock::Locked;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::{mpsc, oneshot};

pub use super::future::{BoxFuture, now_or_later};

/// The core's answer to one message.
pub enum Reply {
    /// Nothing goes back: a notification, or a response from the peer.
    None,
    /// The response, ready now.
    Now(Response),
    /// The response, ready now, to a request whose answer is a stream (`tools/call`:
    /// the way a tool that takes time sends progress or asks the client before its
    /// result). HTTP frames it as a one-event SSE stream, so the answer has one form
    /// whether the tool took time or not; stdio sends it like [`Reply::Now`].
    Streamed(Response),
    /// The response will come later; messages may precede it.
    Later(Pending),
    /// `notifications/cancelled`: the transport stops this in-flight request and
    /// sends no response for it (2025-11-25 `basic/utilities/cancellation`).
    Cancel(RequestId),
}

/// A request still running. The transport sends everything `outbox` yields (in
/// order), then the response; dropping it cancels the request.
pub struct Pending {
    /// The request this answers; the transport cancels by it.
    pub id: RequestId,
    /// Notifications (and, legacy, requests to the client) to send before the response.
    pub outbox: mpsc::UnboundedReceiver<Out>,
    /// The response, once the work is done.
    pub response: BoxFuture<Response>,
    /// Its answer is a stream even when the response comes before any message (see
    /// [`Reply::Streamed`]); a modern HTTP POST then still answers with SSE.
    pub streamed: bool,
}

/// What a running request hands its transport before the response.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// A message for the client: a notification, or (legacy) a request to it.
    Message(Value),
    /// Legacy HTTP: close this connection now, without ending the stream; the client
    /// waits `retry_ms` and resumes with `Last-Event-ID` (2025-11-25
    /// `basic/transports` "Sending Messages" rule 6). Other transports ignore it.
    Pause {
        /// How long the client should wait before resuming.
        retry_ms: u64,
    },
}

impl Pending {
    /// A pending response to `id`: `result` resolves to the result or the error.
    pub fn new(
        id: RequestId,
        outbox: mpsc::UnboundedReceiver<Out>,
        result: impl Future<Output = Result<Value, ErrorObject>> + Send + 'static,
    ) -> Pending {
        let response_id = id.clone();
        Pending {
            id,
            outbox,
            streamed: false,
            response: Box::pin(async move {
                Response {
                    id: Some(response_id),
                    outcome: result.await.map(Payload::from),
                    dress: None,
                }
            }),
        }
    }

    /// The same, its response written with `dressing` (a 2026-07-28 result).
    pub fn dressed(mut self, dressing: crate::jsonrpc::Dressing) -> Pending {
        let response = self.response;
        self.response = Box::pin(async move {
            let mut response = response.await;
            response.dress = Some(dressing);
            response
        });
        self
    }
}

/// Log levels, least to most severe (RFC 5424, as MCP `server/utilities/logging`).
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The severity rank of a level name; `None` for an unknown name.
pub fn log_rank(level: &str) -> Option<usize> {
    LOG_LEVELS.iter().position(|l| *l == level)
}

/// Everything an asynchronous tool or prompt gets.
pub struct Call {
    /// The request's `arguments`: the same type every handler reads (`get`, or the
    /// whole map through `Deref`).
    pub arguments: crate::arguments::Arguments<'static>,
    /// The whole `params` of the request (MRTR follow-ups carry `inputResponses`
    /// and `requestState` there).
    pub params: Value,
    /// What the call can do while it runs: report progress, log, ask the client.
    pub ctx: Context,
    /// Is this a modern (2026-07-28) request? Then the server asks the client with
    /// an `InputRequiredResult`, not with a request on the stream.
    pub modern: bool,
    /// Present when the tool may answer with a task instead of its result (the request
    /// declared the tasks extension, SEP-2663): `tasks.create(work)` returns the
    /// `CreateTaskResult` to answer. `None`: answer the result itself.
    pub tasks: Option<std::sync::Arc<super::tasks::Store>>,
}

/// What a call produced: a result now, or one still running.
pub enum Outcome {
    /// The result (or error), ready now: a value, or an object already written
    /// out ([`crate::jsonrpc::Rendered`]: a tool's text answer).
    Now(Result<Payload, ErrorObject>),
    /// A result still being made, and the messages it sends before it.
    Later(
        BoxFuture<Result<Value, ErrorObject>>,
        mpsc::UnboundedReceiver<Out>,
    ),
}

impl Outcome {
    /// A result (or error) ready now, built as a value.
    pub fn value(result: Result<Value, ErrorObject>) -> Outcome {
        Outcome::Now(result.map(Payload::from))
    }
}

/// The facts of the request a running tool may need (see [`Context`]), lent by the
/// session: a tool that answers at once reads what it needs here, and only one that
/// runs on ([`Env::call`]) takes its own copies (each an `Arc` count changed, an
/// atomic operation: three of them and their drops a request, for nothing, when
/// every request took them).
pub struct Env<'a> {
    /// Legacy sessions: how to ask the client.
    pub peer: Option<&'a std::sync::Arc<Peer>>,
    /// `_meta.progressToken`, read once with the rest of `_meta`.
    pub progress_token: Option<&'a Value>,
    /// The least severe log level to send; `None`: no log messages.
    pub log_level: Option<usize>,
    /// What the client declared (legacy: at `initialize`; modern: in `_meta`),
    /// shared: every request of a session reads the same declaration, and a deep
    /// copy per request was a dozen allocations for a real client's capabilities.
    pub client_capabilities: &'a std::sync::Arc<Value>,
    /// A 2026-07-28 request: questions to the client become `InputRequiredResult`s.
    pub modern: bool,
    /// Server-wide change notifications.
    pub hub: &'a std::sync::Arc<super::subscriptions::Hub>,
    /// The task store, when this request may be answered with a task: a modern request
    /// that declared the tasks extension, to a server that offers it.
    pub tasks: Option<&'a std::sync::Arc<super::tasks::Store>>,
}

impl Env<'_> {
    /// The [`Call`] an asynchronous tool or prompt runs with, and the outbox its
    /// messages come out of.
    pub fn call(
        self,
        params: Option<&Value>,
        arguments: serde_json::Map<String, Value>,
    ) -> (Call, mpsc::UnboundedReceiver<Out>) {
        let (ctx, outbox) = Context::new(
            self.peer.cloned(),
            self.progress_token.cloned(),
            self.log_level,
            self.client_capabilities.clone(),
            self.hub.clone(),
        );
        let call = Call {
            arguments: arguments.into(),
            params: params.cloned().unwrap_or(Value::Null),
            ctx,
            modern: self.modern,
            tasks: self.tasks.cloned(),
        };
        (call, outbox)
    }
}

/// What a running request can do besides returning its result.
#[derive(Clone)]
pub struct Context {
    outbox: mpsc::UnboundedSender<Out>,
    /// Legacy sessions only: the way to ask the client and hear its answer.
    peer: Option<std::sync::Arc<Peer>>,
    /// `params._meta.progressToken`, if the client asked for progress.
    pub progress_token: Option<Value>,
    /// The least severe level to send; `None` sends no log messages at all.
    pub log_level: Option<usize>,
    /// The capabilities the client declared (legacy: at `initialize`; modern: in
    /// this request's `_meta`), shared with the session that holds them.
    pub client_capabilities: std::sync::Arc<Value>,
    /// Server-wide change notifications (list changes, resource updates).
    pub hub: std::sync::Arc<super::subscriptions::Hub>,
}

impl Context {
    /// A context whose messages go to the returned receiver.
    pub fn new(
        peer: Option<std::sync::Arc<Peer>>,
        progress_token: Option<Value>,
        log_level: Option<usize>,
        client_capabilities: std::sync::Arc<Value>,
        hub: std::sync::Arc<super::subscriptions::Hub>,
    ) -> (Context, mpsc::UnboundedReceiver<Out>) {
        let (outbox, rx) = mpsc::unbounded_channel();
        let ctx = Context {
            outbox,
            peer,
            progress_token,
            log_level,
            client_capabilities,
            hub,
        };
        (ctx, rx)
    }

    /// Sends a notification on this request's stream.
    pub fn notify(&self, method: &str, params: Value) {
        // The receiver is gone only when the request was cancelled: nobody listens.
        let _ = self.outbox.send(Out::Message(
            crate::jsonrpc::Notification::new(method, Some(params)).to_value(),
        ));
    }

    /// Asks the transport to close the connection and have the client reconnect after
    /// `retry_ms` (legacy HTTP polling); a no-op elsewhere.
    pub fn pause(&self, retry_ms: u64) {
        let _ = self.outbox.send(Out::Pause { retry_ms });
    }

    /// `notifications/progress` for this request, if the client asked for progress
    /// (`basic/utilities/progress`: only with the token the request carried).
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params = json!({ "progressToken": token, "progress": progress });
        if let Some(t) = total {
            params["total"] = json!(t);
        }
        if let Some(m) = message {
            params["message"] = json!(m);
        }
        self.notify("notifications/progress", params);
    }

    /// `notifications/message` at `level`, if the client asked for that level or a
    /// less severe one (`server/utilities/logging`).
    pub fn log(&self, level: &str, data: Value) {
        let (Some(min), Some(rank)) = (self.log_level, log_rank(level)) else {
            return;
        };
        if rank >= min {
            self.notify(
                "notifications/message",
                json!({ "level": level, "data": data }),
            );
        }
    }

    /// Does the client declare this capability (`sampling`, `elicitation`, ...)?
    pub fn client_has(&self, capability: &str) -> bool {
        self.client_capabilities
            .get(capability)
            .is_some_and(Value::is_object)
    }

    /// Legacy only: sends a request to the client on this request's stream and waits
    /// for the client's response (2025-11-25 `basic/transports`: the server MAY send
    /// requests on the SSE stream before its response).
    pub async fn ask_client(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        let peer = self.peer.as_ref().ok_or_else(|| {
            ErrorObject::new(
                crate::jsonrpc::code::INTERNAL_ERROR,
                "this request cannot reach the client",
            )
        })?;
        // The server MUST NOT ask for what the client did not declare
        // (2025-11-25 `client/sampling`, `client/elicitation`, `client/roots`).
        super::capabilities::may_ask(&self.client_capabilities, method)?;
        let (id, answer) = peer.expect_response();
        let _ = self.outbox.send(Out::Message(
            crate::jsonrpc::Request::new(id, method, Some(params)).to_value(),
        ));

        let response = answer.await.map_err(|_| {
            ErrorObject::new(
                crate::jsonrpc::code::INTERNAL_ERROR,
                format!("{method}: the session ended before the client answered"),
            )
        })?;
        response.outcome.map(Payload::into_value).map_err(|e| {
            ErrorObject::new(
                e.code,
                format!("the client refused {method}: {}", e.message),
            )
        })
    }
}

/// The server-to-client requests of one legacy session that await an answer.
#[derive(Default)]
pub struct Peer {
    next_id: AtomicU64,
    waiting: Mutex<HashMap<RequestId, oneshot::Sender<Response>>>,
}

impl Peer {
    /// Reserves an id and a slot for the client's answer to it.
    fn expect_response(&self) -> (RequestId, oneshot::Receiver<Response>) {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        // A string id, so it can never collide with a number the client uses.
        let id = RequestId::from(format!("mcp-raw-{n}"));
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id.clone(), tx);
        (id, rx)
    }

    /// Hands a response from the client to the request waiting for it. Returns
    /// whether one was waiting (an unexpected response is ignored).
    pub fn resolve(&self, response: Response) -> bool {
        let Some(id) = response.id.clone() else {
            return false;
        };
        match self.lock().remove(&id) {
            Some(tx) => tx.send(response).is_ok(),
            None => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, oneshot::Sender<Response>>> {
        self.waiting.locked()
    }
}
