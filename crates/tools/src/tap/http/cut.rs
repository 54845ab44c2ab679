//! `tap --http --intercept`: one direction's bytes cut where a held message needs
//! them cut, and nowhere else. Bytes that cannot carry a message the filter could
//! hold (a GET, a 202, an HTML page, the framing between events) come out as they
//! went in, as soon as they can; what could be held comes out whole — a request or a
//! JSON response, head and body ([`Piece::Message`]), or a stretch of an event
//! stream that ends at an event's end ([`Piece::Events`]) — so the relay can hold it
//! and, when it is edited, frame the new body itself (RFC 9112 §6: the
//! `Content-Length`, or the chunks, of what was sent change; every other byte of the
//! head stays in its case and order).
//!
//! The framing is read with the wire view's framer (`wire::http1`), one part at a
//! time, so each part's end is known to the byte.

use crate::wire::http1::{Framer, Head, Part, Side};
use bytes::Bytes;

/// A stretch of one direction's bytes, in order.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Piece {
    /// Bytes passed on as they came, and how many messages (final responses, or
    /// requests) end in them: what the relay counts to put the tap's own answer to a
    /// dropped request in its place.
    Raw(Bytes, u64),
    /// A whole message whose body may be JSON-RPC: a POST (requests), or a final
    /// response with a JSON body or an event stream of a known length.
    Message(Message),
    /// Part of an event stream's body (`text/event-stream`) ending at the end of an
    /// event: the events in it may be held one by one.
    Events(Events),
}

/// A whole HTTP message, head and body, as it came.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Message {
    /// Its exact bytes.
    pub raw: Bytes,
    /// Its head, read.
    pub head: Head,
    /// Where, in `raw`, the head ends and the body begins.
    pub body_at: usize,
    /// The body, de-chunked.
    pub body: Bytes,
    /// For a chunked body: where, in `raw`, its last chunk (`0\r\n`) begins; its
    /// trailers and the blank line after it are kept when the body is framed anew.
    pub last_chunk: Option<usize>,
}

/// Part of an event stream's body, ending at the end of an event.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Events {
    /// Its exact bytes.
    pub raw: Bytes,
    /// How many of them come before its first chunk-size line (the end of the
    /// previous chunk: its CRLF); none when the body is not chunked.
    pub prefix: usize,
    /// The body's bytes in it, de-chunked: whole events.
    pub text: Bytes,
    /// Chunked: new text goes out as one chunk of its own.
    pub chunked: bool,
}

/// Where one direction is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    /// Between messages, or inside a head.
    Between,
    /// Inside a message passed on as it comes.
    Passing,
    /// Inside a message kept whole (it may be held).
    Keeping,
    /// Inside an event stream's body (chunked, or read to the close).
    Stream {
        /// Chunked (else read to the close).
        chunked: bool,
    },
    /// The framing broke, or the connection asked to leave HTTP (an upgrade):
    /// everything passes as it comes.
    Opaque,
}

/// Cuts one direction's bytes into [`Piece`]s.
pub(super) struct Cutter {
    /// Requests or responses.
    side: Side,
    /// The framing, read.
    framer: Framer,
    /// The bytes taken in and not yet handed out.
    raw: Vec<u8>,
    /// Of `raw`, how many the framer has read into parts.
    read: usize,
    /// Where this direction is.
    state: State,
    /// The head of the message being kept.
    head: Option<Head>,
    /// The body of the message being kept, or of the events being gathered.
    body: Vec<u8>,
    /// Where, in `raw`, the kept message's last chunk begins.
    last_chunk: Option<usize>,
    /// Where, in `raw`, the kept message's head ends.
    body_at: usize,
    /// Where, in `raw`, the gathered events' first chunk-size line begins.
    first_size: Option<usize>,
    /// The largest body kept whole (`--intercept-max-bytes`): a longer one is passed
    /// on as it comes, never held.
    max: usize,
    /// The message being read counts (a request, or a final response: not 1xx).
    counts: bool,
    /// Where, in `raw`, each counted message read and not yet handed out ends.
    ends: Vec<usize>,
    /// The message being read asks for an upgrade (or is a 101): after it the
    /// connection is opaque.
    upgrading: bool,
}

impl Cutter {
    /// A cutter for one direction, keeping bodies up to `max` bytes.
    pub(super) fn new(side: Side, max_head: usize, max: usize) -> Cutter {
        Cutter {
            side,
            framer: Framer::new(side, max_head),
            raw: Vec::new(),
            read: 0,
            state: State::Between,
            head: None,
            body: Vec::new(),
            last_chunk: None,
            body_at: 0,
            first_size: None,
            max,
            counts: false,
            ends: Vec::new(),
            upgrading: false,
        }
    }

    /// Takes in one read; returns the pieces it completes. `holding`: a filter is in
    /// force (without one nothing is kept: every byte passes as it comes).
    pub(super) fn feed(&mut self, bytes: &[u8], holding: bool) -> Vec<Piece> {
        self.raw.extend_from_slice(bytes);
        self.framer.push(bytes);
        let mut out = Vec::new();
        while let Some(part) = self.framer.next_part() {
            let end = self.raw.len() - self.framer.buffered();
            self.read = end;
            self.part(part, end, holding, &mut out);
        }
        // Whatever the framer took and handed out no part for (the bytes after a
        // break in the framing, which it drops unread) is read too.
        self.read = if self.state == State::Opaque {
            self.raw.len()
        } else {
            self.raw.len() - self.framer.buffered()
        };
        match self.state {
            // Inside a body passed on: what is read goes at once.
            State::Passing | State::Opaque => self.hand_out(self.read, &mut out),
            State::Stream { .. } => {
                if self.body.is_empty() {
                    // Only framing since the last event: on at once, but for a
                    // chunk-size line whose chunk has not come yet (new text goes
                    // out with a size line of its own, in its place).
                    let upto = self.first_size.unwrap_or(self.read);
                    self.hand_out(upto, &mut out);
                } else if self.body.len() > self.max {
                    // An event longer than the largest kept: on as it comes.
                    self.body.clear();
                    self.first_size = None;
                    self.hand_out(self.read, &mut out);
                }
            }
            State::Keeping if self.body.len() > self.max => {
                // Too long to hold: on as it comes, and the rest of it after it.
                self.state = State::Passing;
                self.head = None;
                self.body.clear();
                self.last_chunk = None;
                self.hand_out(self.read, &mut out);
            }
            _ => {}
        }
        out
    }

    /// One part read, ending at `end` in `raw` (beginning at `start`).
    fn part(&mut self, part: Part, end: usize, holding: bool, out: &mut Vec<Piece>) {
        if self.state == State::Opaque {
            // Handed out as it comes, whatever the framer still makes of it.
            return;
        }
        match part {
            Part::Invalid(_) => {
                self.state = State::Opaque;
            }
            Part::Head(head) => {
                let keep = holding && self.keeps(&head);
                let stream = holding && self.side == Side::Response && head.is_sse();
                // An event stream is cut at its events when it is chunked or read to
                // the close; with a Content-Length its length could not change.
                let cuttable = head_is_chunked(&head) || head.header("content-length").is_none();
                self.counts = self.side == Side::Request || head.status().is_some_and(|s| s >= 200);
                if keep {
                    self.state = State::Keeping;
                    self.head = Some(head);
                    self.body_at = end;
                    self.body.clear();
                    self.last_chunk = None;
                } else {
                    // The head goes on at once (an event stream's first of all: its
                    // client waits for it).
                    self.hand_out(end, out);
                    self.state = if stream && cuttable && head.status() == Some(200) {
                        State::Stream {
                            chunked: head_is_chunked(&head),
                        }
                    } else {
                        State::Passing
                    };
                    self.body.clear();
                    self.first_size = None;
                    // An upgrade asked for, or switched to (RFC 9110 §7.8, §15.2.2):
                    // what follows may be another protocol; it passes as it comes.
                    let upgrade = match self.side {
                        Side::Request => head.header("upgrade").is_some(),
                        Side::Response => head.status() == Some(101),
                    };
                    self.upgrading = upgrade;
                }
            }
            Part::ChunkSize { line, size } => {
                let line_at = end - line.len();
                match self.state {
                    State::Keeping if size == 0 => self.last_chunk = Some(line_at),
                    State::Stream { .. } if self.first_size.is_none() && size > 0 => {
                        self.first_size = Some(line_at);
                    }
                    _ => {}
                }
            }
            Part::Body(b) => match self.state {
                State::Keeping => self.body.extend_from_slice(&b),
                State::Stream { chunked } => {
                    self.body.extend_from_slice(&b);
                    if ends_an_event(&self.body) {
                        self.events(chunked, out);
                    }
                }
                _ => {}
            },
            Part::End => {
                if std::mem::take(&mut self.counts) {
                    self.ends.push(end);
                }
                match self.state {
                    State::Keeping => {
                        let last_chunk = self.last_chunk.take();
                        let raw: Vec<u8> = self.raw.drain(..end).collect();
                        self.shift(end);
                        if let Some(head) = self.head.take() {
                            out.push(Piece::Message(Message {
                                raw: Bytes::from(raw),
                                head,
                                body_at: self.body_at,
                                body: Bytes::from(std::mem::take(&mut self.body)),
                                last_chunk,
                            }));
                        }
                    }
                    State::Stream { .. } if !self.body.is_empty() => {
                        // The stream ended inside an event: what is left goes as it
                        // came (an event never ended is never dispatched).
                        self.body.clear();
                        self.first_size = None;
                        self.hand_out(end, out);
                    }
                    _ => self.hand_out(end, out),
                }
                if self.state != State::Opaque {
                    self.state = if std::mem::take(&mut self.upgrading) {
                        State::Opaque
                    } else {
                        State::Between
                    };
                }
            }
        }
    }

    /// The direction closed: a body read to the close ends here (and may be held);
    /// whatever is left goes as it came.
    pub(super) fn finish(&mut self, holding: bool) -> Vec<Piece> {
        let mut out = Vec::new();
        for part in self.framer.finish() {
            let end = self.raw.len();
            self.read = end;
            self.part(part, end, holding, &mut out);
        }
        let left = self.raw.len();
        self.hand_out(left, &mut out);
        out
    }

    /// Is this head's message kept whole? A request: a POST (2025-11-25
    /// `basic/transports`: every JSON-RPC message a client sends is the body of a
    /// POST). A response: a final one whose body is JSON (`application/json`).
    fn keeps(&self, head: &Head) -> bool {
        match self.side {
            // A client that sent `Expect: 100-continue` waits for the server's 100
            // before its body (RFC 9110 §10.1.1): kept, the head would never reach the
            // server; it passes as it comes.
            Side::Request => head.method() == Some("POST") && head.header("expect").is_none(),
            Side::Response => {
                let json = head.header("content-type").is_some_and(|v| {
                    v.trim_start()
                        .to_ascii_lowercase()
                        .starts_with("application/json")
                });
                // An event stream of a known length is whole when it ends: kept
                // whole, its events held one by one, its length set anew.
                let sized_stream = head.is_sse()
                    && !head_is_chunked(head)
                    && head.header("content-length").is_some();
                head.status().is_some_and(|s| s >= 200) && (json || sized_stream)
            }
        }
    }

    /// Hands out `raw[..end]` as it came.
    fn hand_out(&mut self, end: usize, out: &mut Vec<Piece>) {
        let raw: Vec<u8> = self.raw.drain(..end).collect();
        let ends = self.shift(end);
        // A message may end where the last piece did (a GET has no body): its end
        // is counted all the same.
        if end > 0 || ends > 0 {
            out.push(Piece::Raw(Bytes::from(raw), ends));
        }
    }

    /// Gathered events, whole, handed out.
    fn events(&mut self, chunked: bool, out: &mut Vec<Piece>) {
        let end = self.read;
        // Read to the close, the raw bytes are the text: nothing comes before it.
        let prefix = if chunked {
            self.first_size.unwrap_or(end)
        } else {
            0
        };
        let raw: Vec<u8> = self.raw.drain(..end).collect();
        self.shift(end);
        self.first_size = None;
        out.push(Piece::Events(Events {
            raw: Bytes::from(raw),
            prefix,
            text: Bytes::from(std::mem::take(&mut self.body)),
            chunked,
        }));
    }

    /// `n` bytes were handed out from the front of `raw`: the offsets kept move;
    /// returns how many counted messages ended in them.
    fn shift(&mut self, n: usize) -> u64 {
        self.read -= n;
        let before = self.ends.len();
        self.ends.retain(|e| *e > n || (n == 0 && *e > 0));
        for e in &mut self.ends {
            *e -= n;
        }
        let ended = (before - self.ends.len()) as u64;
        if let Some(f) = self.first_size.as_mut() {
            *f = f.saturating_sub(n);
        }
        if let Some(l) = self.last_chunk.as_mut() {
            *l = l.saturating_sub(n);
        }
        ended
    }
}

/// Do these event-stream bytes end at an event's end (a blank line, with any of
/// the three line ends)?
fn ends_an_event(body: &[u8]) -> bool {
    body.ends_with(b"\n\n") || body.ends_with(b"\r\r") || body.ends_with(b"\r\n\r\n")
}

/// Is the body chunked (the last transfer coding, RFC 9112 §6.3)?
fn head_is_chunked(head: &Head) -> bool {
    head.headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("transfer-encoding"))
        .flat_map(|(_, v)| v.split(','))
        .last()
        .is_some_and(|c| c.trim().eq_ignore_ascii_case("chunked"))
}
