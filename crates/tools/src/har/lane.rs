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

/// One direction being read: the framer, the message it is in, and where in the
/// direction's bytes the framer's parts ended.
pub(crate) struct Reader {
    /// The HTTP/1.1 framer over this direction's bytes.
    framer: Framer,
    /// The messages read to their end (or cut).
    pub(crate) out: Vec<Message>,
    /// The message whose head was read and whose end was not yet.
    current: Option<Message>,
    /// Bytes handed to the framer so far.
    pushed: usize,
    /// Where the current message's head ended, in the direction's bytes.
    head_end: usize,
    /// The stamp of the event holding the next message's first byte.
    next_first: Option<Duration>,
}

impl Reader {
    /// A reader of one direction: requests or responses.
    pub(crate) fn new(side: Side) -> Reader {
        Reader {
            framer: Framer::new(side, MAX_HEAD),
            out: Vec::new(),
            current: None,
            pushed: 0,
            head_end: 0,
            next_first: None,
        }
    }

    /// One event of this lane and direction.
    pub(crate) fn feed(&mut self, e: &Event) {
        match &e.what {
            What::Bytes(b) => {
                if self.next_first.is_none() && !b.is_empty() {
                    self.next_first = Some(e.t);
                }
                self.framer.push(b);
                self.pushed += b.len();
                while let Some(p) = self.framer.next_part() {
                    self.part(p, e.t);
                }
            }
            // The direction closed: a body read to the close ends here (RFC 9112
            // §6.3 item 8), anything else open is cut short.
            What::Close(_) => {
                for p in self.framer.finish() {
                    self.part(p, e.t);
                }
            }
            _ => {}
        }
    }

    /// The recording has ended: a message begun and not ended is cut.
    pub(crate) fn end(&mut self) {
        if let Some(mut m) = self.current.take() {
            m.cut = Some("the recording ends before the message does".into());
            m.body_wire = self.pushed.saturating_sub(self.head_end);
            self.out.push(m);
        }
    }

    /// When the message being read (or the next, its first bytes in) began.
    pub(crate) fn begun(&self) -> Option<Duration> {
        self.current.as_ref().map(|m| m.first).or(self.next_first)
    }

    /// Where the last part handed out ended, in the direction's bytes.
    fn consumed(&self) -> usize {
        self.pushed - self.framer.buffered()
    }

    /// One part the framer handed out, from an event stamped `t`.
    fn part(&mut self, part: Part, t: Duration) {
        let consumed = self.consumed();
        match part {
            Part::Head(head) => {
                self.head_end = consumed;
                self.current = Some(Message {
                    head,
                    body: Vec::new(),
                    chunks: Vec::new(),
                    body_wire: 0,
                    first: self.next_first.take().unwrap_or(t),
                    last: t,
                    cut: None,
                });
            }
            Part::ChunkSize { line, .. } => {
                if let Some(m) = self.current.as_mut() {
                    m.chunks.push(String::from_utf8_lossy(&line).into_owned());
                }
            }
            Part::Body(b) => {
                if let Some(m) = self.current.as_mut() {
                    m.body.extend_from_slice(&b);
                    m.last = t;
                }
            }
            Part::End => {
                if let Some(mut m) = self.current.take() {
                    m.body_wire = consumed.saturating_sub(self.head_end);
                    m.last = t;
                    self.out.push(m);
                }
                // Bytes already pushed past this end belong to the next message.
                self.next_first = (self.pushed > consumed).then_some(t);
            }
            Part::Invalid(why) => {
                if let Some(mut m) = self.current.take() {
                    m.body_wire = self.pushed.saturating_sub(self.head_end);
                    m.last = t;
                    m.cut = Some(why);
                    self.out.push(m);
                }
            }
        }
    }
}

/// Reads one direction's events of `lane` into its messages.
fn direction(events: &[Event], lane: Lane, dir: Dir, side: Side) -> Vec<Message> {
    let mut r = Reader::new(side);
    for e in events.iter().filter(|e| e.lane == lane && e.dir == dir) {
        r.feed(e);
    }
    r.end();
    r.out
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

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_raw_wire::event::LaneKind;

    fn ev(t_ms: u64, dir: Dir, what: What) -> Event {
        Event {
            t: Duration::from_millis(t_ms),
            lane: Lane {
                id: 1,
                kind: LaneKind::Http,
            },
            dir,
            what,
        }
    }

    fn bytes(t_ms: u64, dir: Dir, b: &'static [u8]) -> Event {
        ev(t_ms, dir, What::Bytes(bytes::Bytes::from_static(b)))
    }

    #[test]
    fn a_body_to_the_close_ends_there_and_a_cut_one_says_so() {
        let events = vec![
            bytes(
                1,
                Dir::ToServer,
                b"GET / HTTP/1.1\r\nHost: a\r\n\r\nPOST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nabc",
            ),
            bytes(2, Dir::ToClient, b"HTTP/1.0 200 OK\r\n\r\nto the "),
            bytes(3, Dir::ToClient, b"close"),
            ev(4, Dir::ToClient, What::Close("EOF".into())),
            ev(5, Dir::ToServer, What::Close("reset".into())),
        ];
        let (_, m) = lanes(&events).remove(0);
        assert_eq!(m.responses.len(), 1);
        let r = &m.responses[0];
        assert_eq!(r.body, b"to the close");
        assert_eq!(
            (r.first, r.last),
            (Duration::from_millis(2), Duration::from_millis(4))
        );
        assert_eq!(r.cut, None);
        assert_eq!(m.requests.len(), 2);
        // Both requests' first byte came in the one read at 1 ms.
        assert_eq!(m.requests[1].first, Duration::from_millis(1));
        assert_eq!(m.requests[1].body, b"abc");
        assert_eq!(
            m.requests[1].cut.as_deref(),
            Some("the connection closed before the body's end")
        );
        assert_eq!(m.requests[1].body_wire, 3);
    }
}
