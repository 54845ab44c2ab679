//! The protocol core: one [`Session`] per MCP session, fed [`Message`]s, answering
//! with [`Response`]s. It never sees bytes, sockets or pipes; stdio and HTTP both call
//! [`Session::handle`] (the original project's `rpc.js` `handleMessage()`).
//!
//! A stdio process is one session; an HTTP server keeps one per `Mcp-Session-Id`.

mod lifecycle;
mod tools;

pub use lifecycle::{LATEST_VERSION, SUPPORTED_VERSIONS, supports_batches};

use crate::jsonrpc::{ErrorObject, Message, Request, Response, code};
use crate::tools::ToolSet;
use serde_json::Value;
use std::sync::Arc;

/// What every session of one server shares: the tools and the server's identity.
pub struct Server {
    pub tools: ToolSet,
    /// `serverInfo.name` in the `initialize` result.
    pub name: &'static str,
    /// `serverInfo.version`: the crate version.
    pub version: &'static str,
}

impl Server {
    pub fn new(tools: ToolSet) -> Arc<Server> {
        Arc::new(Server {
            tools,
            name: "mcp-raw",
            version: env!("CARGO_PKG_VERSION"),
        })
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

/// The state of one session. Small on purpose: a phase and a shared pointer.
pub struct Session {
    server: Arc<Server>,
    phase: Phase,
}

impl Session {
    pub fn new(server: Arc<Server>) -> Self {
        Session {
            server,
            phase: Phase::AwaitingInitialize,
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

    /// Handles one message. Requests always get `Some(response)`; notifications and
    /// the peer's responses always get `None` (JSON-RPC 2.0 §4.1: a notification is
    /// never answered, not even when its method is unknown).
    pub fn handle(&mut self, message: Message) -> Option<Response> {
        match message {
            Message::Request(request) => Some(self.handle_request(request)),
            Message::Notification(n) => {
                if n.method == "notifications/initialized" {
                    lifecycle::initialized(&mut self.phase);
                }
                None
            }
            Message::Response(_) => None,
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
                Ok(message) => self.handle(message),
                Err(error) => Some(error),
            })
            .collect())
    }

    fn handle_request(&mut self, request: Request) -> Response {
        let Request { id, method, params } = request;
        let params = params.as_ref();
        let outcome = match (method.as_str(), self.phase) {
            ("initialize", _) => lifecycle::initialize(&self.server, &mut self.phase, params),
            ("ping", _) => Ok(Value::Object(Default::default())),
            (_, Phase::AwaitingInitialize | Phase::Initializing { .. }) => {
                Err(lifecycle::not_initialized(&method, self.phase))
            }
            ("tools/list", Phase::Ready { .. }) => Ok(tools::list(&self.server.tools)),
            ("tools/call", Phase::Ready { .. }) => tools::call(&self.server.tools, params),
            (other, Phase::Ready { .. }) => Err(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: {other}"),
            )),
        };
        Response {
            id: Some(id),
            outcome,
        }
    }
}

#[cfg(test)]
mod tests;
