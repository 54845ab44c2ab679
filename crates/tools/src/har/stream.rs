//! A recording's HTTP lanes read as a stream into HAR entries (`export har`): each
//! lane's two directions framed as their events come (the framer of [`super::lane`]),
//! each request paired with the final response that answers it in order, and the
//! entry made as soon as both are read. Entries come out in the order they are
//! finished; [`Entries::watermark`] says which of them may be written, so that the
//! document lists them in the order their requests began (HAR 1.2 §entries), as
//! [`super::export::export`] sorts them whole.
//!
//! Held in memory: per open lane, the message being read and the requests still
//! waiting for their responses; never a finished entry (the caller holds what it
//! cannot write yet). A lane closed both ways is let go: its requests left
//! unanswered are entries with no response then, as they are at the recording's end
//! (nothing crosses a lane after its close). A lane's open note and TLS facts are the
//! first it had when the entry is made (mcp-raw records both before the first byte).

use super::export::{entry, is_interim};
use super::lane::{Message, Reader};
use mcp_raw_wire::event::{Dir, Event, Lane, LaneKind, What};
use mcp_raw_wire::http1::Side;
use mcp_raw_wire::transcript::Header;
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::time::Duration;

/// Where an entry goes in the document: when its request began, its lane's place
/// among the HTTP lanes (by their first event), the request's place on its lane.
pub type Key = (Duration, usize, usize);

/// The HAR entries of a recording read event by event.
pub struct Entries {
    /// The header's start, in microseconds since the epoch (each entry's date).
    started: Option<i64>,
    /// Each HTTP lane open (not closed both ways yet).
    lanes: HashMap<Lane, LaneState>,
    /// HTTP lanes seen so far (the next one's place).
    seen: usize,
    /// The latest event's stamp: a request not begun yet begins no earlier.
    now: Duration,
    /// An event came stamped before one already read: the order of what is still
    /// to come cannot be known, so nothing may be written before the end.
    disordered: bool,
    /// Entries made and not taken yet.
    made: Vec<(Key, Value)>,
}

/// One HTTP lane being read.
struct LaneState {
    /// Its place among the HTTP lanes.
    place: usize,
    /// Its label, as entries name it.
    label: String,
    /// Its first open note.
    open: Option<String>,
    /// Its first TLS facts.
    tls: Option<mcp_raw_wire::tls::TlsFacts>,
    /// The client's direction.
    requests: Reader,
    /// The server's direction.
    responses: Reader,
    /// Requests read whole whose final response is not, with their place.
    waiting: VecDeque<(usize, Message)>,
    /// Final responses read before their request ended, each with its interim ones.
    early: VecDeque<(Message, Vec<String>)>,
    /// Interim responses (1xx) waiting for the final one they precede.
    interim: Vec<String>,
    /// Requests read whole so far.
    count: usize,
    /// Which directions closed: c2s, s2c.
    closed: [bool; 2],
}

impl Entries {
    /// Nothing read yet, of a recording with `header`.
    pub fn new(header: &Header) -> Entries {
        Entries {
            started: mcp_raw_wire::clock::parse_rfc3339_micros(&header.started),
            lanes: HashMap::new(),
            seen: 0,
            now: Duration::ZERO,
            disordered: false,
            made: Vec::new(),
        }
    }

    /// Whether the recording had an HTTP lane so far.
    pub fn any_http(&self) -> bool {
        self.seen > 0
    }

    /// Reads one event.
    pub fn feed(&mut self, e: &Event) {
        if e.t < self.now {
            self.disordered = true;
        }
        self.now = self.now.max(e.t);
        if e.lane.kind != LaneKind::Http {
            return;
        }
        let seen = &mut self.seen;
        let lane = self.lanes.entry(e.lane).or_insert_with(|| {
            *seen += 1;
            LaneState::new(*seen - 1, e.lane.label())
        });
        match &e.what {
            What::Open(note) if lane.open.is_none() => lane.open = Some(note.clone()),
            What::Tls(facts) if lane.tls.is_none() => lane.tls = Some((**facts).clone()),
            What::Close(_) => lane.closed[usize::from(e.dir == Dir::ToClient)] = true,
            _ => {}
        }
        match e.dir {
            Dir::ToServer => lane.requests.feed(e),
            Dir::ToClient => lane.responses.feed(e),
        }
        lane.pair(self.started, &mut self.made);
        if lane.closed == [true, true]
            && let Some(lane) = self.lanes.remove(&e.lane)
        {
            lane.end(self.started, &mut self.made);
        }
    }

    /// The entries made since last asked, in the order they were finished.
    pub fn take(&mut self) -> Vec<(Key, Value)> {
        std::mem::take(&mut self.made)
    }
    /// What may be written now: every entry whose key is below this one (`None`:
    /// every entry taken so far). An entry not made yet has a key at least this.
    pub fn watermark(&self) -> Option<Key> {
        if self.disordered {
            return Some((Duration::ZERO, 0, 0));
        }
        let mut low: Key = (self.now, 0, 0);
        for lane in self.lanes.values() {
            if let Some((i, m)) = lane.waiting.front() {
                low = low.min((m.first, lane.place, *i));
            }
            if let Some(t) = lane.requests.begun() {
                low = low.min((t, lane.place, lane.count));
            }
        }
        Some(low)
    }

    /// The recording has ended: what was begun is cut, each request left is an
    /// entry with no response; returns the entries not taken yet.
    pub fn finish(mut self) -> Vec<(Key, Value)> {
        let mut lanes: Vec<LaneState> = self.lanes.into_values().collect();
        lanes.sort_by_key(|l| l.place);
        for lane in lanes {
            lane.end(self.started, &mut self.made);
        }
        self.made
    }
}

impl LaneState {
    /// A lane first seen, the `place`th HTTP lane.
    fn new(place: usize, label: String) -> LaneState {
        LaneState {
            place,
            label,
            open: None,
            tls: None,
            requests: Reader::new(Side::Request),
            responses: Reader::new(Side::Response),
            waiting: VecDeque::new(),
            early: VecDeque::new(),
            interim: Vec::new(),
            count: 0,
            closed: [false; 2],
        }
    }

    /// Nothing more comes on this lane: what was begun is cut, and each request
    /// left is an entry with no response.
    fn end(mut self, started: Option<i64>, made: &mut Vec<(Key, Value)>) {
        self.requests.end();
        self.responses.end();
        self.pair(started, made);
        for (i, request) in std::mem::take(&mut self.waiting) {
            let e = entry(
                &self.label,
                self.open.as_deref(),
                self.tls.as_ref(),
                &request,
                None,
                started,
            );
            made.push(((request.first, self.place, i), e));
        }
    }

    /// Moves what the framers finished into the lane's lists, and makes the entry
    /// of each request whose final response is read.
    fn pair(&mut self, started: Option<i64>, made: &mut Vec<(Key, Value)>) {
        for request in self.requests.out.drain(..) {
            self.waiting.push_back((self.count, request));
            self.count += 1;
        }
        for response in self.responses.out.drain(..) {
            if is_interim(&response) {
                self.interim.push(response.head.start_line.clone());
            } else {
                self.early
                    .push_back((response, std::mem::take(&mut self.interim)));
            }
        }
        while !self.waiting.is_empty() && !self.early.is_empty() {
            let (Some((i, request)), Some((response, interim))) =
                (self.waiting.pop_front(), self.early.pop_front())
            else {
                break;
            };
            let mut e = entry(
                &self.label,
                self.open.as_deref(),
                self.tls.as_ref(),
                &request,
                Some(&response),
                started,
            );
            if !interim.is_empty() {
                e["_mcpRaw"]["interim"] = json!(interim);
            }
            made.push(((request.first, self.place, i), e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection per request, each closed both ways once answered (the last one
    /// closed unanswered): only the open lanes are kept, and the entries are those
    /// of the whole recording, in its order.
    #[test]
    fn a_lane_closed_both_ways_is_let_go() {
        let mut text = String::from(
            "{\"transcript\":\"mcp-raw\",\"version\":4,\"role\":\"client\",\"transport\":\"http\",\"started\":\"2026-12-01T10:00:00.000Z\"}\n",
        );
        let mut t = 0u64;
        let mut line = |lane: &str, dir: &str, what: &str, body: &str| {
            t += 1000;
            let mut l = json!({"t": t as f64 / 1e6, "lane": lane, "dir": dir});
            l[what] = json!(body);
            text.push_str(&format!("{l}\n"));
        };
        for i in 0..100 {
            let lane = format!("c{}", i + 1);
            line(&lane, "c2s", "open", "connected to 127.0.0.1:3000");
            line(
                &lane,
                "c2s",
                "text",
                "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}",
            );
            if i < 99 {
                line(
                    &lane,
                    "s2c",
                    "text",
                    "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
                );
            }
            line(&lane, "c2s", "close", "EOF");
            line(&lane, "s2c", "close", "EOF");
        }
        let (header, events) = crate::wire::transcript::read(&text).unwrap();
        let mut reader = Entries::new(&header);
        let mut got = Vec::new();
        let mut most_open = 0;
        for e in &events {
            reader.feed(e);
            most_open = most_open.max(reader.lanes.len());
            got.extend(reader.take());
        }
        got.extend(reader.finish());
        assert_eq!(most_open, 1);
        got.sort_by_key(|(key, _)| *key);
        assert_eq!(got.len(), 100);
        for (i, (_, e)) in got.iter().enumerate() {
            assert_eq!(e["connection"], format!("c{}", i + 1));
            let status = if i < 99 { 202 } else { 0 };
            assert_eq!(e["response"]["status"], status, "{i}");
        }
        // The framing of the whole file (lane.rs) finds the same request per lane.
        let lanes = super::super::lane::lanes(&events);
        assert_eq!(lanes.len(), 100);
        assert!(lanes.iter().all(|(_, m)| m.requests.len() == 1));
    }
}
