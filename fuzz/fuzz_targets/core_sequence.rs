//! Feeds the protocol core (`protocol::Session` over the conformance fixture) an
//! arbitrary sequence of messages. The first byte picks the eras the server serves
//! (legacy, modern or both); the rest is split on `\n`, each line goes through the
//! server's read (`protocol::Incoming::read`, `_meta` read typed), a single message
//! to `Session::handle`, a batch to `Session::handle_batch`. A `Reply::Later` is driven on a current-thread runtime
//! with a paused clock, so tools that sleep finish at once and one that waits for ever
//! times out at once (5 s of virtual time), then it is dropped. When it asks the
//! client something (a legacy server-to-client request) and the next line is a
//! response, that response is sent back as the answer, under the id asked.
//!
//! Must hold: nothing panics; a request is answered (now or later) with its own id; a
//! notification or a response is never answered; a batch gets at most one response
//! per element; every response is well-formed on the wire; every message a running
//! request sends ahead of its response is a JSON-RPC notification or request.
#![no_main]

use checks::check_response;
use libfuzzer_sys::fuzz_target;
use mcp_raw_wire::jsonrpc::{self, Message, Parsed, RequestId};
use mcp_raw_core::context::{Out, Pending, Reply};
use mcp_raw_core::{Eras, Facts, Incoming, Session};
use serde_json::Value;
use std::time::Duration;

/// How long a pending request may run, in virtual time.
const PATIENCE: Duration = Duration::from_secs(5);

fuzz_target!(|data: &[u8]| {
    let [era, rest @ ..] = data else { return };
    let eras = match era % 3 {
        0 => Eras::Legacy,
        1 => Eras::Modern,
        _ => Eras::Both,
    };
    // A runtime per input: what a tool spawned (a task's work) ends with it.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(run(eras, rest));
});

async fn run(eras: Eras, input: &[u8]) {
    let mut session = Session::new(mcp_raw_core::content::conformance::server(eras));
    let mut lines = input.split(|b| *b == b'\n').peekable();
    while let Some(line) = lines.next() {
        match Incoming::read(line, Facts::default(), false) {
            Err(refusal) => check_response(&refusal),
            Ok(Incoming::Batch(items)) => {
                let n = items.len();
                match session.handle_batch(items) {
                    Ok(replies) => {
                        assert!(replies.len() <= n, "{} replies to {n} items", replies.len());
                        replies.iter().for_each(check_response);
                    }
                    Err(refusal) => check_response(&refusal),
                }
            }
            Ok(Incoming::One(envelope)) => {
                let asked = match &envelope.message {
                    Message::Request(r) => Some(r.id.clone()),
                    _ => None,
                };
                let reply = session.handle(envelope);
                match (asked, reply) {
                    (Some(id), Reply::Now(r) | Reply::Streamed(r)) => {
                        assert_eq!(r.id.as_ref(), Some(&id), "answered with another id");
                        check_response(&r);
                    }
                    (Some(id), Reply::Later(pending)) => {
                        assert_eq!(pending.id, id, "pending under another id");
                        drive(&mut session, &mut lines, pending).await;
                    }
                    (Some(id), Reply::None | Reply::Cancel(_)) => {
                        panic!("request {id} got no answer")
                    }
                    (None, Reply::Now(r) | Reply::Streamed(r)) => {
                        panic!("a notification or response answered: {r:?}")
                    }
                    (None, Reply::Later(p)) => {
                        panic!("a notification or response answered later: {}", p.id)
                    }
                    (None, Reply::None | Reply::Cancel(_)) => {}
                }
            }
        }
    }
}

/// Runs a pending request to its response (or until [`PATIENCE`] runs out), checking
/// what it sends on the way and answering its questions from the next input line.
async fn drive<'a>(
    session: &mut Session,
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a [u8]>>,
    pending: Pending,
) {
    let Pending {
        id,
        mut outbox,
        response,
        ..
    } = pending;
    let deadline = tokio::time::sleep(PATIENCE);
    tokio::pin!(deadline, response);
    loop {
        tokio::select! {
            biased;
            Some(out) = outbox.recv() => {
                let Out::Message(m) = out else { continue };
                let asked = check_outgoing(&m);
                if let Some(asked) = asked {
                    answer(session, lines, asked);
                }
            }
            r = &mut response => {
                assert_eq!(r.id.as_ref(), Some(&id), "answered later with another id");
                check_response(&r);
                // What it sent in the poll that finished it comes before the response.
                while let Ok(out) = outbox.try_recv() {
                    if let Out::Message(m) = out {
                        check_outgoing(&m);
                    }
                }
                break;
            }
            () = &mut deadline => break,
        }
    }
}

/// A message sent ahead of a response: a notification, or a request to the client
/// (whose id it returns).
fn check_outgoing(m: &Value) -> Option<RequestId> {
    let bytes = serde_json::to_vec(m).unwrap();
    match jsonrpc::parse(&bytes) {
        Ok(Parsed::One(Message::Notification(_))) => None,
        Ok(Parsed::One(Message::Request(r))) => Some(r.id),
        other => panic!("a running request sent {m}, which parses as {other:?}"),
    }
}

/// If the next line is a response, it answers the server's question `asked`.
fn answer<'a>(
    session: &mut Session,
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a [u8]>>,
    asked: RequestId,
) {
    let Some(line) = lines.peek() else { return };
    let Ok(Parsed::One(Message::Response(mut r))) = jsonrpc::parse(line) else {
        return;
    };
    lines.next();
    r.id = Some(asked);
    match session.handle(Message::Response(r)) {
        Reply::None => {}
        _ => panic!("a response from the client was answered"),
    }
}
