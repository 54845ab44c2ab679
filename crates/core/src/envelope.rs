//! What a transport hands the core: one message and the few transport facts the era
//! rule needs ([`Facts`]), with what the message's `_meta` says read once ([`Meta`]).

use super::meta::Meta;
use crate::jsonrpc::{self, Lifted, Message, Parsed, Response};

/// One message on its way into the core ([`super::Session::handle`]).
#[derive(Debug, Clone)]
pub struct Envelope<'a> {
    /// The JSON-RPC message itself.
    pub message: Message,
    /// What the transport saw around it (HTTP headers); nothing on stdio.
    pub facts: Facts<'a>,
    /// What `params._meta` says, read once: its modern mark (the era rule), its
    /// progress token, and the modern fields the HTTP header checks and the modern
    /// dispatch check ([`Meta::fields`]).
    pub meta: Meta,
}

impl<'a> Envelope<'a> {
    /// A message with the transport facts it arrived with; `_meta` read once.
    pub fn new(message: Message, facts: Facts<'a>) -> Self {
        let params = match &message {
            Message::Request(r) => r.params.as_deref(),
            Message::Notification(n) => n.params.as_deref(),
            Message::Response(_) => None,
        };
        let meta = Meta::read(params);
        Envelope {
            message,
            facts,
            meta,
        }
    }
}

/// What one read of a transport yields once parsed: one message in its envelope, or
/// a batch. It lives for one request, so its size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Incoming<'a> {
    /// One message, with its transport facts and `_meta`.
    One(Envelope<'a>),
    /// A JSON array of messages: legacy revisions before 2025-06-18 only
    /// ([`super::Session::handle_batch`] opens each item itself).
    Batch(Vec<serde_json::Value>),
}

impl<'a> Incoming<'a> {
    /// Reads one frame's bytes (a stdio line, a POST body) into what the core takes,
    /// with the transport facts it arrived with. `params._meta` is read straight
    /// into the envelope's [`Meta`] ([`crate::jsonrpc::parse_lifting`]) and the
    /// message's `params` holds the rest, unless the core passes messages on as they
    /// came (`keep_meta`: [`super::Core::keeps_meta`]). Bytes that are no message
    /// get the error response to send back.
    pub fn read(bytes: &[u8], facts: Facts<'a>, keep_meta: bool) -> Result<Incoming<'a>, Response> {
        if keep_meta {
            return Ok(match jsonrpc::parse(bytes)? {
                Parsed::One(message) => Incoming::One(Envelope::new(message, facts)),
                Parsed::Batch(items) => Incoming::Batch(items),
            });
        }
        Ok(match jsonrpc::parse_lifting::<Meta>(bytes)? {
            Lifted::One(message, meta) => {
                // A response has no `params`: whatever such a member held is not
                // its `_meta` (as `Envelope::new` reads none).
                let meta = match &message {
                    Message::Response(_) => Meta::default(),
                    _ => meta.unwrap_or_default(),
                };
                Incoming::One(Envelope {
                    message,
                    facts,
                    meta,
                })
            }
            Lifted::Batch(items) => Incoming::Batch(items),
        })
    }
}

/// A message with no transport facts: what a stdio line is.
impl From<Message> for Envelope<'static> {
    fn from(message: Message) -> Self {
        Envelope::new(message, Facts::default())
    }
}

/// How a request reached the server; the era rule differs a little per door
/// ([`super::era::choose`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Door {
    /// A JSON-RPC message: a stdio line, an HTTP POST body.
    #[default]
    Message,
    /// HTTP `GET /mcp`: open (or resume) a legacy session's stream.
    Get,
    /// HTTP `DELETE /mcp`: end a legacy session.
    Delete,
    /// HTTP headers whose body is not read yet: which era's error code a refusal
    /// speaks.
    Headers,
}

/// The transport facts the era rule reads. `Default` is stdio: a message, no headers.
#[derive(Debug, Clone, Default)]
pub struct Facts<'a> {
    /// Which door the request came through.
    pub door: Door,
    /// Every `MCP-Protocol-Version` header value, raw (HTTP only; a repeated one is
    /// refused, so past that check there is at most one).
    pub protocol_versions: Vec<&'a [u8]>,
    /// `Mcp-Session-Id` is present: a legacy client names its session in it.
    pub session_id: bool,
    /// `Mcp-Method` is present: only a 2026-07-28 client mirrors the method.
    pub method_header: bool,
}

impl Facts<'_> {
    /// Does an `MCP-Protocol-Version` value name one of `versions`?
    pub fn names_version(&self, versions: &[&str]) -> bool {
        self.protocol_versions
            .iter()
            .any(|v| versions.iter().any(|known| *v == known.as_bytes()))
    }
}
