//! The protocol core: one [`Session`] per MCP session, fed [`Message`]s, answering
//! with [`Response`]s. It never sees bytes, sockets or pipes; stdio and HTTP both call
//! [`Session::handle`] (the original project's `rpc.js` `handleMessage()`).
//!
//! Two eras share it. Legacy (2024-11-05 … 2025-11-25): an `initialize` handshake
//! opens a session whose state lives in [`Session`]. Modern (2026-07-28): no
//! handshake; every request carries its version and capabilities in `_meta` and is
//! served statelessly by [`modern`]. A stdio process is one session; an HTTP server
//! keeps one per `Mcp-Session-Id` and serves modern requests without any.

pub mod context;
mod legacy;
mod lifecycle;
pub mod meta;
pub mod modern;
mod tools;

pub use lifecycle::{LATEST_VERSION, SUPPORTED_VERSIONS, supports_batches};

use crate::jsonrpc::{Message, Request, Response};
use crate::tools::ToolSet;
use context::{Peer, Reply};
use serde_json::Value;
use std::sync::Arc;

/// Which protocol eras a server serves (`mcp-raw serve --era`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eras {
    /// Only the `initialize` handshake revisions; `_meta` fields are not looked at.
    Legacy,
    /// Only 2026-07-28; `initialize` is refused with the supported versions.
    Modern,
    /// Both, chosen per request: a "dual-era" server (2026-07-28 `basic/versioning`).
    Both,
}

/// Optional server features beyond tools, declared in the capabilities.
#[derive(Debug, Clone, Copy, Default)]
pub struct Features {
    /// `logging/setLevel` (legacy) and per-request `logLevel` (modern).
    pub logging: bool,
}

/// What every session of one server shares: the tools, the eras, the identity.
pub struct Server {
    pub tools: ToolSet,
    pub eras: Eras,
    pub features: Features,
    /// `serverInfo.name` in the `initialize` result.
    pub name: &'static str,
    /// `serverInfo.version`: the crate version.
    pub version: &'static str,
}

impl Server {
    pub fn new(tools: ToolSet, eras: Eras) -> Arc<Server> {
        Server::with_features(tools, eras, Features::default())
    }

    pub fn with_features(tools: ToolSet, eras: Eras, features: Features) -> Arc<Server> {
        Arc::new(Server {
            tools,
            eras,
            features,
            name: "mcp-raw",
            version: env!("CARGO_PKG_VERSION"),
        })
    }

    /// `{name, version}`: `serverInfo` (legacy) or `_meta` serverInfo (modern).
    pub fn info(&self) -> Value {
        serde_json::json!({ "name": self.name, "version": self.version })
    }

    /// The capabilities declared by `initialize` and `server/discover`.
    pub fn capabilities(&self) -> Value {
        let mut caps = serde_json::json!({ "tools": {} });
        if self.features.logging {
            caps["logging"] = serde_json::json!({});
        }
        caps
    }

    /// Is this request served by the modern, stateless era?
    pub fn is_modern(&self, request: &Request) -> bool {
        match self.eras {
            Eras::Legacy => false,
            Eras::Modern => true,
            Eras::Both => meta::is_modern(request.params.as_ref()),
        }
    }
}

/// Where a session is in the lifecycle (MCP 2025-11-25 `basic/lifecycle`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Nothing yet: only `initialize` and `ping` are served.
    AwaitingInitialize,
    /// `initialize` answered; waiting for `notifications/initialized`.
    Initializing { version: &'static str },
    /// Handshake done: normal operation under the negotiated version.
    Ready { version: &'static str },
}

/// The state of one session. Small on purpose: the phase, what the client declared,
/// and the table of questions the server has asked the client.
pub struct Session {
    server: Arc<Server>,
    phase: Phase,
    /// `capabilities` from `initialize`.
    client_capabilities: Value,
    /// Set by `logging/setLevel`; `None` until then: no log messages.
    log_level: Option<usize>,
    /// Server-to-client requests waiting for the client's response.
    peer: Arc<Peer>,
}

impl Session {
    pub fn new(server: Arc<Server>) -> Self {
        Session {
            server,
            phase: Phase::AwaitingInitialize,
            client_capabilities: Value::Object(Default::default()),
            log_level: None,
            peer: Arc::default(),
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The protocol version agreed in `initialize`, once it has been answered.
    pub fn protocol_version(&self) -> Option<&'static str> {
        match self.phase {
            Phase::AwaitingInitialize => None,
            Phase::Initializing { version } | Phase::Ready { version } => Some(version),
        }
    }

    /// Handles one message, choosing the era per request (the stdio rule: a request
    /// carrying modern `_meta` is served statelessly, anything else by this session).
    pub fn handle(&mut self, message: Message) -> Reply {
        match message {
            Message::Request(request) if self.server.is_modern(&request) => {
                modern::handle(&self.server, request)
            }
            other => self.handle_legacy(other),
        }
    }

    /// Handles one message in this legacy session. A request is always answered
    /// (now or later); a notification never is (JSON-RPC 2.0 §4.1, not even when its
    /// method is unknown); a response from the client goes to the server request
    /// that waits for it.
    pub fn handle_legacy(&mut self, message: Message) -> Reply {
        match message {
            Message::Request(request) => self.legacy_request(request),
            Message::Notification(n) => match n.method.as_str() {
                "notifications/initialized" => {
                    lifecycle::initialized(&mut self.phase);
                    Reply::None
                }
                "notifications/cancelled" => cancelled(n.params.as_ref()),
                _ => Reply::None,
            },
            Message::Response(response) => {
                self.peer.resolve(response);
                Reply::None
            }
        }
    }

    /// Handles a JSON-RPC batch (a JSON array), allowed only by the revisions before
    /// 2025-06-18, which removed batching. Returns the responses to send back as one
    /// array (empty when the batch held only notifications), or the single error
    /// response that refuses the whole batch.
    pub fn handle_batch(&mut self, items: Vec<Value>) -> Result<Vec<Response>, Response> {
        lifecycle::check_batch(self.protocol_version(), &items)?;
        Ok(items
            .into_iter()
            .filter_map(|item| match crate::jsonrpc::classify(item) {
                Ok(message) => match self.handle_legacy(message) {
                    Reply::Now(r) => Some(r),
                    // A batch is answered by one JSON array, so nothing in it can
                    // stream: a tool that takes time is refused here.
                    Reply::Later(p) => Some(Response::error(
                        Some(p.id),
                        crate::jsonrpc::ErrorObject::new(
                            crate::jsonrpc::code::INVALID_REQUEST,
                            "Invalid Request: this tool streams its answer; call it outside a batch",
                        ),
                    )),
                    Reply::None | Reply::Cancel(_) => None,
                },
                Err(error) => Some(error),
            })
            .collect())
    }
}

/// `notifications/cancelled {requestId, reason?}` → stop that request. A malformed
/// one changes nothing: a notification cannot be refused.
pub fn cancelled(params: Option<&Value>) -> Reply {
    match params
        .and_then(|p| p.get("requestId"))
        .and_then(crate::jsonrpc::RequestId::from_value)
    {
        Some(id) => Reply::Cancel(id),
        None => Reply::None,
    }
}

#[cfg(test)]
mod tests;
