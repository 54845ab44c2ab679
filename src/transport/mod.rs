//! Transports move bytes in and out of the protocol core; they hold no protocol logic.

pub mod http;
pub mod stdio;

/// A one-line summary of an incoming message for the server's stderr log.
pub fn describe(message: &crate::jsonrpc::Message) -> String {
    use crate::jsonrpc::Message;
    match message {
        Message::Request(r) => format!("request {} (id {})", r.method, r.id),
        Message::Notification(n) => format!("notification {}", n.method),
        Message::Response(r) => match &r.id {
            Some(id) => format!("response to id {id}"),
            None => "response without id".to_owned(),
        },
    }
}
