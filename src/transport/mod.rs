//! Transports move bytes in and out of the protocol core; they hold no protocol logic.

pub mod http;
pub mod stdio;

/// A one-line summary of an incoming message for the server's stderr log, written
/// straight into the log (no `String` per message).
pub struct Described<'a>(pub &'a crate::jsonrpc::Message);

impl std::fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::jsonrpc::Message;
        match self.0 {
            Message::Request(r) => write!(f, "request {} (id {})", r.method, r.id),
            Message::Notification(n) => write!(f, "notification {}", n.method),
            Message::Response(r) => match &r.id {
                Some(id) => write!(f, "response to id {id}"),
                None => f.write_str("response without id"),
            },
        }
    }
}
