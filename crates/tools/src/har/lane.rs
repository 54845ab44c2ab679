//! One HTTP lane of a recording read back into its messages: each direction's bytes
//! run through the HTTP/1.1 framer (RFC 9112), every message with its head as sent,
//! its body de-chunked, the chunk-size lines exactly as they crossed, its place in
//! the lane's bytes and the stamps of its first and last byte.

use mcp_raw_wire::event::{Dir, Event, Lane, What};
use mcp_raw_wire::http1::{Framer, Head, Part, Side};
use std::time::Duration;

/// The longest head the framer reads (a recording's heads are what crossed; this only
/// bounds a lane that is not HTTP at all).
const MAX_HEAD: usize = 1 << 20;

/// One HTTP message as it crossed.
#[derive(Debug, Clone)]
pub struct Message {
    /// The start line and headers, exactly as sent.
    pub head: Head,
    /// The body, de-chunked (what HAR's `text` holds).
    pub body: Vec<u8>,
    /// Each chunk-size line as sent (`1a\r\n`, `0\r\n`): the chunking HAR cannot hold.
    pub chunks: Vec<String>,
    /// The message's bytes on the wire after its head (chunk lines and all).
    pub body_wire: usize,
    /// When its first byte crossed.
    pub first: Duration,
    /// When its last byte crossed.
    pub last: Duration,
    /// `None` when it ended as its framing says; else why it did not.
    pub cut: Option<String>,
}

/// One lane's messages, each way.
#[derive(Debug, Default)]
pub struct LaneMessages {
    /// What the client sent, in order.
    pub requests: Vec<Message>,
    /// What the server sent, in order.
    pub responses: Vec<Message>,
    /// The lane's open note (`connected to 127.0.0.1:3000`, `accepted from …`).
    pub open: Option<String>,
    /// The TLS facts when the lane is HTTPS.
    pub tls: Option<mcp_raw_wire::tls::TlsFacts>,
}

/// Reads one direction's events of `lane` into its messages.
fn direction(events: &[Event], lane: Lane, dir: Dir, side: Side) -> Vec<Message> {
    let mut framer = Framer::new(side, MAX_HEAD);
    let mut out = Vec::new();
    let mut current: Option<Message> = None;
    // Bytes handed to the framer, and where the last part handed out ended.
    let mut pushed = 0usize;
    let mut consumed = 0usize;
    let mut head_end = 0usize;
    // The stamp of the event holding the byte at the next message's start.
    let mut next_first: Option<Duration> = None;
    for e in events.iter().filter(|e| e.lane == lane && e.dir == dir) {
        let parts: Vec<Part> = match &e.what {
            What::Bytes(b) => {
                if next_first.is_none() && !b.is_empty() {
                    next_first = Some(e.t);
                }
                framer.push(b);
                pushed += b.len();
                while let Some(p) = framer.next_part() {
                    consumed = pushed - framer.buffered();
                    step(
                        p,
                        e.t,
                        consumed,
                        &mut head_end,
                        &mut current,
                        &mut out,
                        &mut next_first,
                        pushed,
                    );
                }
                continue;
            }
            What::Close(_) => framer.finish(),
            _ => continue,
        };
        for p in parts {
            step(
                p,
                e.t,
                consumed,
                &mut head_end,
                &mut current,
                &mut out,
                &mut next_first,
                pushed,
            );
        }
    }
    if let Some(mut m) = current.take() {
        m.cut = Some("the recording ends before the message does".into());
        out.push(m);
    }
    out
}

/// One part into the message being read.
#[allow(clippy::too_many_arguments)]
fn step(
    part: Part,
    t: Duration,
    consumed: usize,
    head_end: &mut usize,
    current: &mut Option<Message>,
    out: &mut Vec<Message>,
    next_first: &mut Option<Duration>,
    pushed: usize,
) {
    match part {
        Part::Head(head) => {
            *head_end = consumed;
            *current = Some(Message {
                head,
                body: Vec::new(),
                chunks: Vec::new(),
                body_wire: 0,
                first: next_first.take().unwrap_or(t),
                last: t,
                cut: None,
            });
        }
        Part::ChunkSize { line, .. } => {
            if let Some(m) = current.as_mut() {
                m.chunks.push(String::from_utf8_lossy(&line).into_owned());
            }
        }
        Part::Body(b) => {
            if let Some(m) = current.as_mut() {
                m.body.extend_from_slice(&b);
                m.last = t;
            }
        }
        Part::End => {
            if let Some(mut m) = current.take() {
                m.body_wire = consumed.saturating_sub(*head_end);
                m.last = t;
                out.push(m);
            }
            // Bytes already pushed past this end belong to the next message.
            *next_first = (pushed > consumed).then_some(t);
        }
        Part::Invalid(why) => {
            if let Some(mut m) = current.take() {
                m.body_wire = pushed.saturating_sub(*head_end);
                m.last = t;
                m.cut = Some(why);
                out.push(m);
            }
        }
    }
}

/// Every HTTP lane of a recording, in the order they opened, with its messages.
pub fn lanes(events: &[Event]) -> Vec<(Lane, LaneMessages)> {
    let mut order: Vec<Lane> = Vec::new();
    for e in events {
        if e.lane.kind == mcp_raw_wire::event::LaneKind::Http && !order.contains(&e.lane) {
            order.push(e.lane);
        }
    }
    order
        .into_iter()
        .map(|lane| {
            let mut m = LaneMessages {
                requests: direction(events, lane, Dir::ToServer, Side::Request),
                responses: direction(events, lane, Dir::ToClient, Side::Response),
                ..LaneMessages::default()
            };
            for e in events.iter().filter(|e| e.lane == lane) {
                match &e.what {
                    What::Open(note) if m.open.is_none() => m.open = Some(note.clone()),
                    What::Tls(facts) if m.tls.is_none() => m.tls = Some((**facts).clone()),
                    _ => {}
                }
            }
            (lane, m)
        })
        .collect()
}
