//! Transports move bytes in and out of the protocol core; they hold no protocol logic.

pub mod http;
pub mod log;
pub mod stdio;
pub mod tls;

/// Writes a one-line summary of an incoming message into the server's stderr log:
/// `request tools/call (id 7)`, `notification notifications/initialized`, `response to
/// id 3`. Straight bytes, no `fmt` machinery: it runs for every message, and the
/// formatter (a `Display` for the id through `serde_json`'s `fmt` adapter) cost more
/// than the rest of the line (callgrind: ~700 instructions of a 16,000-instruction
/// stdio call, ~150 written this way).
pub fn describe(message: &crate::jsonrpc::Message, log: &mut impl std::io::Write) {
    use crate::jsonrpc::Message;
    let _ = match message {
        Message::Request(r) => log
            .write_all(b"request ")
            .and_then(|()| log.write_all(r.method.as_bytes()))
            .and_then(|()| log.write_all(b" (id "))
            .and_then(|()| r.id.write_json(&mut *log))
            .and_then(|()| log.write_all(b")")),
        Message::Notification(n) => log
            .write_all(b"notification ")
            .and_then(|()| log.write_all(n.method.as_bytes())),
        Message::Response(r) => match &r.id {
            Some(id) => log
                .write_all(b"response to id ")
                .and_then(|()| id.write_json(&mut *log)),
            None => log.write_all(b"response without id"),
        },
    };
}
