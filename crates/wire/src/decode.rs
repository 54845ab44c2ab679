//! From wire events to what they mean, per lane and direction: an HTTP lane is read
//! with [`http1`] (heads, chunks, bodies), its event-stream bodies with
//! [`sse`], a stdio lane with [`line`](mod@super::line); every payload they
//! delimit is classified. The views and the transcript render these facts next to
//! the bytes they came from.

use super::classify::{Class, classify};
use super::event::{Dir, Event, Lane, LaneKind, What};
use super::http1::{self, Head, Part, Side};
use super::line::{self, Frame, Oddities};
use super::sse;
use bytes::Bytes;
use std::collections::HashMap;

/// Default of the largest message a view holds whole (a stdio line, an HTTP head, a
/// body, an SSE event): past it the view says how long it was; the transcript's
/// bytes keep all of it.
pub const DEFAULT_MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// Where a payload was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A whole HTTP body that is not an event stream.
    Body,
    /// The `data:` of an SSE event.
    SseData,
    /// A stdio line.
    Line,
}

/// One thing a lane's bytes turned out to hold.
#[derive(Debug, Clone, PartialEq)]
pub enum Fact {
    /// An HTTP start line and headers.
    Head(Head),
    /// A chunk-size line: the size it announces (0 ends the body).
    Chunk {
        /// The line as sent.
        line: Bytes,
        /// The size it announces.
        size: u64,
    },
    /// An SSE event, complete (its blank line arrived, or the stream ended in it).
    Sse(sse::Event),
    /// A payload and what it is.
    Payload {
        /// Exactly as they crossed.
        bytes: Bytes,
        /// Where they were found.
        source: Source,
        /// For lines: CR, BOM, not UTF-8.
        odd: Oddities,
        /// What they are.
        class: Class,
    },
    /// A stdio line, a body or an SSE event over the view's cap: its length (so far,
    /// for an event cut off).
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// A line of a stdio server's stderr.
    Stderr(Bytes),
    /// An HTTP message ended.
    End,
    /// Bytes that break the framing.
    Invalid(String),
}

impl Fact {
    /// The transcript's name for this kind of fact.
    pub fn name(&self) -> &'static str {
        match self {
            Fact::Head(_) => "head",
            Fact::Chunk { .. } => "chunk",
            Fact::Sse(_) => "sse",
            Fact::Payload { .. } => "message",
            Fact::TooLong { .. } => "too-long",
            Fact::Stderr(_) => "stderr",
            Fact::End => "end",
            Fact::Invalid(_) => "invalid",
        }
    }
}

/// The body of the HTTP message being read.
enum Body {
    /// Collected whole, classified at its end.
    Whole(Vec<u8>),
    /// A form body (`application/x-www-form-urlencoded`), collected whole; it is
    /// not JSON and is not read as JSON.
    Form(Vec<u8>),
    /// An event stream: each event as it completes.
    Events(sse::Decoder),
    /// Over the cap: the rest of this body is only counted.
    Skipped(usize),
}

/// One direction of one lane.
enum Reader {
    Http { framer: http1::Framer, body: Body },
    Lines(line::Framer),
}

/// Reads every lane of a recording.
pub struct Decoder {
    /// One reader per lane and direction, made at its first bytes, dropped at its close.
    readers: HashMap<(Lane, Dir), Reader>,
    /// The largest message held whole.
    max: usize,
    /// Which HTTP exchanges are MCP's; the payloads of the others are `other`.
    endpoint: super::http::endpoint::Endpoint,
    /// Per HTTP lane: for each request whose response has not begun, whether it is
    /// outside MCP (HTTP/1.1 answers in order).
    asked: HashMap<Lane, std::collections::VecDeque<bool>>,
    /// Per lane and direction: is the message being read outside MCP?
    outside: HashMap<(Lane, Dir), bool>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::with_max(DEFAULT_MAX_MESSAGE)
    }
}

impl Decoder {
    /// A decoder with the default cap.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// A decoder that holds messages up to `max` bytes whole.
    pub fn with_max(max: usize) -> Decoder {
        Decoder {
            readers: HashMap::new(),
            max,
            endpoint: Default::default(),
            asked: HashMap::new(),
            outside: HashMap::new(),
        }
    }

    /// The facts one event completes, in order.
    pub fn feed(&mut self, event: &Event) -> Vec<Fact> {
        let mut facts = self.facts(event);
        if event.lane.kind == LaneKind::Http {
            self.mark_outside(event, &mut facts);
        }
        facts
    }

    /// A payload of an exchange outside MCP ([`super::http::endpoint`]) is not read as
    /// JSON-RPC: its class becomes `other` (a form stays `form`).
    fn mark_outside(&mut self, event: &Event, facts: &mut [Fact]) {
        let key = (event.lane, event.dir);
        for fact in facts {
            match fact {
                Fact::Head(head) if head.method().is_some() => {
                    let outside = self.endpoint.outside(head);
                    self.asked.entry(event.lane).or_default().push_back(outside);
                    self.outside.insert(key, outside);
                }
                Fact::Head(head) if !head.status().is_some_and(|s| (100..200).contains(&s)) => {
                    let outside = self
                        .asked
                        .get_mut(&event.lane)
                        .and_then(|q| q.pop_front())
                        .unwrap_or(false);
                    self.outside.insert(key, outside);
                }
                Fact::Payload { class, .. }
                    if self.outside.get(&key) == Some(&true) && class.shape != "form" =>
                {
                    *class = Class::other();
                }
                _ => {}
            }
        }
    }

    fn facts(&mut self, event: &Event) -> Vec<Fact> {
        let key = (event.lane, event.dir);
        if matches!(event.what, What::Close(_)) {
            self.outside.remove(&key);
            if event.dir == Dir::ToClient {
                self.asked.remove(&event.lane);
            }
        }
        match &event.what {
            What::Open(_) | What::Tls(_) | What::Intercept(_) => Vec::new(),
            What::Bytes(bytes) => {
                let reader = self
                    .readers
                    .entry(key)
                    .or_insert_with(|| new_reader(event.lane.kind, event.dir, self.max));
                read(reader, event.lane.kind, bytes, self.max)
            }
            What::Close(_) => match self.readers.remove(&key) {
                Some(mut reader) => finish(&mut reader, event.lane.kind, self.max),
                None => Vec::new(),
            },
        }
    }
}

fn new_reader(kind: LaneKind, dir: Dir, max: usize) -> Reader {
    match kind {
        LaneKind::Http => Reader::Http {
            framer: http1::Framer::new(
                match dir {
                    Dir::ToServer => Side::Request,
                    Dir::ToClient => Side::Response,
                },
                max,
            ),
            body: Body::Whole(Vec::new()),
        },
        LaneKind::Stdio | LaneKind::Stderr => Reader::Lines(line::Framer::new(max)),
    }
}

fn read(reader: &mut Reader, kind: LaneKind, bytes: &[u8], max: usize) -> Vec<Fact> {
    match reader {
        Reader::Http { framer, body } => {
            let parts = framer.feed(bytes);
            http_facts(parts, body, max)
        }
        Reader::Lines(framer) => {
            framer.feed(bytes);
            let mut facts = Vec::new();
            loop {
                match framer.next_frame() {
                    Frame::Incomplete => return facts,
                    frame => facts.push(line_fact(frame, kind)),
                }
            }
        }
    }
}

fn finish(reader: &mut Reader, kind: LaneKind, max: usize) -> Vec<Fact> {
    match reader {
        Reader::Http { framer, body } => {
            let parts = framer.finish();
            let mut facts = Vec::new();
            // A stream cut off inside an event: what arrived of it.
            if let Body::Events(d) = body
                && let Some(e) = d.finish()
            {
                facts.extend(sse_facts(e));
            }
            facts.extend(http_facts(parts, body, max));
            facts
        }
        Reader::Lines(framer) => framer
            .finish()
            .map(|f| line_fact(f, kind))
            .into_iter()
            .collect(),
    }
}

fn http_facts(parts: Vec<Part>, body: &mut Body, max: usize) -> Vec<Fact> {
    let mut facts = Vec::new();
    for part in parts {
        match part {
            Part::Head(head) => {
                *body = if head.is_sse() {
                    Body::Events(sse::Decoder::new())
                } else if head.is_form() {
                    Body::Form(Vec::new())
                } else {
                    Body::Whole(Vec::new())
                };
                facts.push(Fact::Head(head));
            }
            Part::ChunkSize { line, size } => facts.push(Fact::Chunk { line, size }),
            Part::Body(bytes) => match body {
                Body::Whole(all) | Body::Form(all) if all.len() + bytes.len() > max => {
                    *body = Body::Skipped(all.len() + bytes.len());
                }
                Body::Whole(all) | Body::Form(all) => all.extend_from_slice(&bytes),
                Body::Events(d) => {
                    // An event over the cap ends the view of this body: from its first
                    // byte on, the rest is only counted (whether it arrived whole or
                    // is still coming, so the verdict does not depend on the cuts).
                    let mut skipped = None;
                    for e in d.feed(&bytes) {
                        match &mut skipped {
                            Some(n) => *n += e.raw.len(),
                            None if e.raw.len() > max => skipped = Some(e.raw.len()),
                            None => facts.extend(sse_facts(e)),
                        }
                    }
                    let pending = d.pending().len();
                    match skipped {
                        Some(n) => *body = Body::Skipped(n + pending),
                        None if pending > max => *body = Body::Skipped(pending),
                        None => {}
                    }
                }
                Body::Skipped(n) => *n += bytes.len(),
            },
            Part::End => {
                match std::mem::replace(body, Body::Whole(Vec::new())) {
                    Body::Whole(all) if !all.is_empty() => {
                        let class = classify(&all);
                        facts.push(Fact::Payload {
                            bytes: all.into(),
                            source: Source::Body,
                            odd: Oddities::default(),
                            class,
                        });
                    }
                    Body::Form(all) if !all.is_empty() => facts.push(Fact::Payload {
                        bytes: all.into(),
                        source: Source::Body,
                        odd: Oddities::default(),
                        class: Class::form(),
                    }),
                    Body::Events(mut d) => facts.extend(d.finish().into_iter().flat_map(sse_facts)),
                    Body::Skipped(len) => facts.push(Fact::TooLong { len }),
                    Body::Whole(_) | Body::Form(_) => {}
                }
                facts.push(Fact::End);
            }
            Part::Invalid(why) => facts.push(Fact::Invalid(why)),
        }
    }
    facts
}

/// An SSE event, then the message its data holds (a priming event holds none).
fn sse_facts(event: sse::Event) -> Vec<Fact> {
    let payload = (!event.data.is_empty()).then(|| {
        let bytes = Bytes::from(event.data.clone().into_bytes());
        Fact::Payload {
            class: classify(&bytes),
            bytes,
            source: Source::SseData,
            odd: Oddities::default(),
        }
    });
    std::iter::once(Fact::Sse(event)).chain(payload).collect()
}

fn line_fact(frame: Frame, kind: LaneKind) -> Fact {
    match (frame, kind) {
        (Frame::Line(bytes), LaneKind::Stderr) => Fact::Stderr(bytes),
        (Frame::Line(bytes), _) => Fact::Payload {
            odd: Oddities::of(&bytes),
            class: classify(&bytes),
            bytes,
            source: Source::Line,
        },
        (Frame::TooLong { len, .. }, _) => Fact::TooLong { len },
        (Frame::Incomplete, _) => Fact::Invalid("incomplete".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ev(lane: Lane, dir: Dir, bytes: &[u8]) -> Event {
        Event {
            t: Duration::ZERO,
            lane,
            dir,
            what: What::Bytes(Bytes::copy_from_slice(bytes)),
        }
    }

    #[test]
    fn an_sse_response_yields_each_event_as_it_arrives() {
        let lane = Lane {
            id: 1,
            kind: LaneKind::Http,
        };
        let mut d = Decoder::new();
        let facts = d.feed(&ev(
            lane,
            Dir::ToClient,
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\nd\r\nid: 1\ndata:\r\n",
        ));
        assert!(matches!(facts[0], Fact::Head(_)));
        assert!(matches!(facts[1], Fact::Chunk { size: 13, .. }));
        assert_eq!(facts.len(), 2, "the event is not complete yet");
        let facts = d.feed(&ev(
            lane,
            Dir::ToClient,
            b"\r\n1\r\n\n\r\n2c\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n\r\n",
        ));
        let names: Vec<&str> = facts.iter().map(Fact::name).collect();
        assert_eq!(names, ["chunk", "sse", "chunk", "sse", "message"]);
        let Fact::Payload { class, .. } = &facts[4] else {
            unreachable!()
        };
        assert_eq!(class.summary(), "response #1");
    }

    #[test]
    fn stdio_lines_are_classified_with_their_oddities() {
        let lane = Lane {
            id: 0,
            kind: LaneKind::Stdio,
        };
        let mut d = Decoder::new();
        let facts = d.feed(&ev(
            lane,
            Dir::ToClient,
            b"hello\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r\n",
        ));
        let Fact::Payload { class, .. } = &facts[0] else {
            unreachable!()
        };
        assert_eq!(class.shape, "not-json");
        let Fact::Payload { odd, class, .. } = &facts[1] else {
            unreachable!()
        };
        assert!(odd.cr);
        assert_eq!(class.shape, "notification");
    }
}
