//! What a transport serves messages through: a [`Core`] opens [`Conversation`]s and
//! says what the transport must know about it (its eras, whether it pushes, its
//! tools' schemas). The protocol core ([`Server`], [`Session`]) is one; the bridge's
//! forwarding core (`mcp_raw_tools::bridge`), which hands each message to a stdio server, is
//! another. The HTTP transport sees only these traits, so every HTTP rule stays in
//! one place whichever core answers behind it.

use super::context::Reply;
use super::subscriptions::Sink;
use super::{Envelope, Eras, Phase, Server, Session};
use crate::jsonrpc::Response;
use serde_json::Value;
use std::sync::Arc;

/// A server a transport can serve: it opens sessions and describes itself.
pub trait Core: Send + Sync + 'static {
    /// A fresh session: one per legacy `Mcp-Session-Id`, and one per modern request,
    /// which ends with it.
    fn open(self: Arc<Self>) -> Box<dyn Conversation>;
    /// The eras it serves, for the era rule ([`super::era::choose`]).
    fn eras(&self) -> Eras;
    /// It may push messages nobody asked for (list changes, resource updates): a
    /// legacy client may open a GET stream for them.
    fn pushes(&self) -> bool;
    /// Each tool's name and `inputSchema`, known up front (a transport reads its
    /// `x-mcp-header` annotations once).
    fn tool_schemas(&self) -> Vec<(String, Value)>;
    /// It passes messages on as they came (the bridge), so `params._meta` must stay
    /// in `params`. Otherwise a transport reads `_meta` straight into the envelope's
    /// `Meta` and leaves it out of `params` ([`super::Incoming::read`]).
    fn keeps_meta(&self) -> bool {
        false
    }
}

/// One session of a [`Core`]: the one door messages go through.
pub trait Conversation: Send {
    /// Handles one message ([`Session::handle`]).
    fn handle(&mut self, envelope: Envelope<'_>) -> Reply;
    /// Handles a JSON-RPC batch ([`Session::handle_batch`]).
    fn handle_batch(&mut self, items: Vec<Value>) -> Result<Vec<Response>, Response>;
    /// Where messages nobody asked for go from now on ([`Session::set_push`]).
    fn set_push(&mut self, sink: Sink);
    /// The handshake is done (`notifications/initialized` came): a session that never
    /// gets there expires sooner.
    fn ready(&self) -> bool;
}

impl Core for Server {
    fn open(self: Arc<Self>) -> Box<dyn Conversation> {
        Box::new(Session::new(self))
    }
    fn eras(&self) -> Eras {
        self.eras
    }
    fn pushes(&self) -> bool {
        self.features.list_changed
    }
    fn tool_schemas(&self) -> Vec<(String, Value)> {
        self.tools
            .iter()
            .map(|t| (t.name.to_owned(), t.input_schema.clone()))
            .collect()
    }
}

impl Conversation for Session {
    fn handle(&mut self, envelope: Envelope<'_>) -> Reply {
        Session::handle(self, envelope)
    }
    fn handle_batch(&mut self, items: Vec<Value>) -> Result<Vec<Response>, Response> {
        Session::handle_batch(self, items)
    }
    fn set_push(&mut self, sink: Sink) {
        Session::set_push(self, sink);
    }
    fn ready(&self) -> bool {
        matches!(self.phase(), Phase::Ready { .. })
    }
}
