//! `tap --http --intercept` (and the proxy's plain and decrypted connections): what
//! the relay does with a piece that could be held (`cut.rs` cuts them). A JSON-RPC
//! message the filter matches — a POST's body, a JSON response's body, one event's
//! `data` in an event stream — waits for the page's decision or the deadline; then:
//!
//! - forwarded, or let go at the deadline: its bytes go on exactly as they came;
//! - changed: the new body goes on with framing of its own — the head's
//!   `Content-Length` rewritten (every other header line as it came, in its case and
//!   order), or a chunked body sent as one chunk and the original last chunk and
//!   trailers; an edited event keeps its other fields (`id`, `event`, `retry`) and
//!   gets one `data:` line in place of its first;
//! - dropped: a request never reaches the target, and the tap answers it in its
//!   place on the connection: `502 Bad Gateway`, a plain-text body that says it was
//!   dropped at the tap; a JSON response is replaced by the same 502; an event is
//!   just not passed on (a chunked stream's chunk that held nothing else is left
//!   out whole, its size line and its CRLF).
//!
//! The recording marks each step (`held`, `forwarded`, `changed` with the new body,
//! `dropped`, `expired`) on the lane where the bytes are recorded, and the bytes
//! passed on follow as their own event, so the lane's bytes stay what crossed.
//! A hold whose connection fails while it waits is marked `dropped`
//! (`Interceptor::hold`): its message never crossed.

use super::cut::{Events, Message};
use super::sse_edit::{data_of, one_line, split_events, with_data};
use crate::tap::intercept::{Decision, Interceptor, Outcome, mark};
use crate::wire::event::{Dir, HoldStep, Lane};
use crate::wire::recorder::Recorder;
use bytes::Bytes;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// The largest body (or event) kept whole to be held, by default
/// (`--intercept-max-bytes`): a longer one passes as it comes, never held.
pub const DEFAULT_MAX_BYTES: usize = 4 << 20;

/// One connection's holding: the tap's holds, and the answers the tap owes the
/// client for requests it dropped.
pub(crate) struct Holding {
    /// The filter, the waiting list, the deadline.
    pub(super) intercept: Arc<Interceptor>,
    /// `--intercept-max-bytes`.
    pub(super) max: usize,
    /// The tap's answers to dropped requests, each after how many of the target's
    /// answers it goes (HTTP/1.1 answers in the order asked, RFC 9112 §9.3.2).
    owed: Mutex<VecDeque<(u64, Bytes)>>,
    /// Woken when an answer is owed.
    pub(super) owed_now: tokio::sync::Notify,
}

impl Holding {
    /// Holding with `intercept`, keeping bodies up to `max` bytes.
    pub(crate) fn new(intercept: Arc<Interceptor>, max: usize) -> Holding {
        Holding {
            intercept,
            max,
            owed: Mutex::default(),
            owed_now: tokio::sync::Notify::new(),
        }
    }

    /// A dropped request is answered by the tap after `after` answers of the target.
    pub(super) fn owe(&self, after: u64, answer: Bytes) {
        crate::lock::Locked::locked(&self.owed).push_back((after, answer));
        self.owed_now.notify_one();
    }

    /// The answer owed once `answered` of the target's answers have gone, if any.
    pub(super) fn due(&self, answered: u64) -> Option<Bytes> {
        let mut owed = crate::lock::Locked::locked(&self.owed);
        if owed.front().is_some_and(|(after, _)| *after <= answered) {
            return owed.pop_front().map(|(_, a)| a);
        }
        None
    }
}

/// What the relay sends for a piece after its hold.
pub(super) enum Send {
    /// These bytes.
    Bytes(Bytes),
    /// Nothing: the request was dropped (the tap owes its answer).
    Dropped(u64),
}

/// The tap's own answer in place of what was dropped: `502 Bad Gateway` with a body
/// that says so; the connection stays open (the framing is whole).
pub(super) fn dropped_answer(hold: u64, what: &str) -> Bytes {
    let body = format!(
        "mcp-raw tap: hold #{hold}: {what} was dropped at the tap (--intercept) and never delivered\n"
    );
    Bytes::from(format!(
        "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ))
}

/// A whole message that may be held: held when its body matches, then sent as
/// decided. The steps are recorded on `lane`.
pub(super) async fn message(
    holding: &Holding,
    recorder: &Recorder,
    lane: Lane,
    dir: Dir,
    m: Message,
) -> Send {
    if m.head.is_sse() {
        // An event stream of a known length: its events held one by one.
        return match held_events(holding, recorder, lane, &m.body).await {
            Some(text) => Send::Bytes(Bytes::from(reframed(&m, &text))),
            None => Send::Bytes(m.raw),
        };
    }
    if !holding.intercept.wants(dir, &m.body) {
        return Send::Bytes(m.raw);
    }
    let (hold, outcome) = holding
        .intercept
        .hold(recorder, lane, dir, m.body.clone())
        .await;
    match outcome {
        Outcome::Decided(Decision::Forward) => {
            mark(recorder, lane, dir, hold, HoldStep::Forwarded, Bytes::new());
            Send::Bytes(m.raw)
        }
        Outcome::Expired => {
            mark(recorder, lane, dir, hold, HoldStep::Expired, Bytes::new());
            Send::Bytes(m.raw)
        }
        Outcome::Decided(Decision::Change(new)) => {
            mark(recorder, lane, dir, hold, HoldStep::Changed, new.clone());
            Send::Bytes(Bytes::from(reframed(&m, &new)))
        }
        Outcome::Decided(Decision::Drop) => {
            mark(recorder, lane, dir, hold, HoldStep::Dropped, Bytes::new());
            match dir {
                Dir::ToServer => Send::Dropped(hold),
                Dir::ToClient => Send::Bytes(dropped_answer(hold, "the server's answer")),
            }
        }
    }
}

/// `m` with `body` in place of its own, framed as `m` was: a chunked body as one
/// chunk then `m`'s own last chunk and trailers; otherwise `Content-Length` set.
pub(super) fn reframed(m: &Message, body: &[u8]) -> Vec<u8> {
    let head = &m.raw[..m.body_at];
    match m.last_chunk {
        Some(last) => {
            let mut out = head.to_vec();
            if !body.is_empty() {
                // RFC 9112 §7.1: chunk-size in hex, CRLF, the data, CRLF.
                out.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
                out.extend_from_slice(body);
                out.extend_from_slice(b"\r\n");
            }
            out.extend_from_slice(&m.raw[last..]);
            out
        }
        None => {
            let mut out = with_length(head, body.len());
            out.extend_from_slice(body);
            out
        }
    }
}

/// A head with its `Content-Length` value set to `n` (RFC 9112 §6.2), every other
/// byte as it was; one added before the blank line if it had none.
fn with_length(head: &[u8], n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(head.len() + 8);
    let mut found = false;
    let mut rest = head;
    while !rest.is_empty() {
        let end = rest
            .iter()
            .position(|b| *b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        let line = &rest[..end];
        rest = &rest[end..];
        let content = line.trim_ascii_end();
        if content.is_empty() {
            if !found {
                let eol = &line[content.len()..];
                out.extend_from_slice(b"Content-Length: ");
                out.extend_from_slice(n.to_string().as_bytes());
                out.extend_from_slice(eol);
            }
            out.extend_from_slice(line);
            continue;
        }
        match content.iter().position(|b| *b == b':') {
            Some(colon) if content[..colon].eq_ignore_ascii_case(b"content-length") => {
                found = true;
                let value = &content[colon + 1..];
                let lead = value.len() - value.trim_ascii_start().len();
                out.extend_from_slice(&content[..colon + 1 + lead]);
                out.extend_from_slice(n.to_string().as_bytes());
                out.extend_from_slice(&line[content.len()..]);
            }
            _ => out.extend_from_slice(line),
        }
    }
    out
}

/// Part of an event stream, each event whose `data` the filter matches held in
/// turn (what follows waits behind it); sent as it came unless one was changed or
/// dropped, then as one new chunk (chunked) or the new text. Also says whether the
/// CRLF that ends the original chunk, which comes next in the stream, must be left
/// out: when nothing is left of the text, no chunk is sent, so no chunk ends there.
pub(super) async fn events(
    holding: &Holding,
    recorder: &Recorder,
    lane: Lane,
    ev: Events,
) -> (Bytes, bool) {
    let Some(text) = held_events(holding, recorder, lane, &ev.text).await else {
        return (ev.raw, false);
    };
    let mut out = ev.raw[..ev.prefix].to_vec();
    if ev.chunked && text.is_empty() {
        // A chunk of size 0 would end the body (RFC 9112 §7.1): none is sent.
        return (Bytes::from(out), true);
    }
    if ev.chunked {
        // RFC 9112 §7.1: the new text as one chunk; the original chunk's CRLF
        // follows it in the stream.
        out.extend_from_slice(format!("{:x}\r\n", text.len()).as_bytes());
    }
    out.extend_from_slice(&text);
    (Bytes::from(out), false)
}

/// `bytes` without the line end they begin with (the end of a chunk whose data was
/// left out), when `skip` says so; `skip` is then done.
pub(super) fn without_chunk_end(bytes: Bytes, skip: &mut bool) -> Bytes {
    if !*skip || bytes.is_empty() {
        return bytes;
    }
    *skip = false;
    let n = if bytes.starts_with(b"\r\n") {
        2
    } else {
        usize::from(bytes.starts_with(b"\n"))
    };
    bytes.slice(n..)
}

/// Whole events, each whose `data` the filter matches held in turn: the new text
/// when one was changed or dropped, none when all go as they came.
async fn held_events(
    holding: &Holding,
    recorder: &Recorder,
    lane: Lane,
    all: &[u8],
) -> Option<Vec<u8>> {
    let dir = Dir::ToClient;
    let mut text = Vec::with_capacity(all.len());
    let mut touched = false;
    for event in split_events(all) {
        let data = data_of(event);
        if data.is_empty() || !holding.intercept.wants(dir, &data) {
            text.extend_from_slice(event);
            continue;
        }
        let (hold, outcome) = holding
            .intercept
            .hold(recorder, lane, dir, Bytes::from(data))
            .await;
        match outcome {
            Outcome::Decided(Decision::Forward) => {
                mark(recorder, lane, dir, hold, HoldStep::Forwarded, Bytes::new());
                text.extend_from_slice(event);
            }
            Outcome::Expired => {
                mark(recorder, lane, dir, hold, HoldStep::Expired, Bytes::new());
                text.extend_from_slice(event);
            }
            Outcome::Decided(Decision::Change(new)) => {
                let new = one_line(new);
                mark(recorder, lane, dir, hold, HoldStep::Changed, new.clone());
                text.extend_from_slice(&with_data(event, &new));
                touched = true;
            }
            Outcome::Decided(Decision::Drop) => {
                // Not passed on: the client never sees it (the recording's
                // `dropped` step says it was there).
                mark(recorder, lane, dir, hold, HoldStep::Dropped, Bytes::new());
                touched = true;
            }
        }
    }
    touched.then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tap::http::cut::{Cutter, Piece};
    use crate::tap::http::sse_edit::{data_of, with_data};
    use crate::wire::http1::Side;

    fn pieces(side: Side, wire: &[u8], cut: usize) -> Vec<Piece> {
        let mut c = Cutter::new(side, 64 * 1024, 1 << 20);
        let mut out = c.feed(&wire[..cut], true);
        out.extend(c.feed(&wire[cut..], true));
        out.extend(c.finish(true));
        out
    }

    #[test]
    fn posts_come_whole_and_the_rest_as_it_came_however_the_reads_fall() {
        let wire = b"GET /mcp HTTP/1.1\r\nHost: a\r\n\r\nPOST /mcp HTTP/1.1\r\ncontent-LENGTH:  2\r\nX-A: b\r\n\r\n{}DELETE /mcp HTTP/1.1\r\n\r\n";
        for cut in 0..wire.len() {
            let got = pieces(Side::Request, wire, cut);
            let all: Vec<u8> = got
                .iter()
                .flat_map(|p| match p {
                    Piece::Raw(b, _) => b.to_vec(),
                    Piece::Message(m) => m.raw.to_vec(),
                    Piece::Events(e) => e.raw.to_vec(),
                })
                .collect();
            assert_eq!(all, wire, "cut at {cut}");
            let messages: Vec<&Message> = got
                .iter()
                .filter_map(|p| match p {
                    Piece::Message(m) => Some(m),
                    _ => None,
                })
                .collect();
            assert_eq!(messages.len(), 1);
            assert_eq!(&messages[0].body[..], b"{}");
            let ends: u64 = got
                .iter()
                .map(|p| match p {
                    Piece::Raw(_, n) => *n,
                    Piece::Message(_) => 1,
                    Piece::Events(_) => 0,
                })
                .sum();
            assert_eq!(ends, 3, "cut at {cut}: {got:?}");
            assert_eq!(
                reframed(messages[0], b"{\"a\":1}"),
                b"POST /mcp HTTP/1.1\r\ncontent-LENGTH:  7\r\nX-A: b\r\n\r\n{\"a\":1}"
            );
        }
    }

    #[test]
    fn bytes_that_break_the_framing_pass_as_they_came_and_all_after_them() {
        let wire = b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\nmore\r\n\r\nPOST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}";
        for cut in 0..wire.len() {
            // No finish: every byte is out once it has been read.
            let mut c = Cutter::new(Side::Request, 64 * 1024, 1 << 20);
            let mut got = c.feed(&wire[..cut], true);
            got.extend(c.feed(&wire[cut..], true));
            let mut all = Vec::new();
            for p in &got {
                match p {
                    Piece::Raw(b, _) => all.extend_from_slice(b),
                    other => panic!("cut at {cut}: {other:?} after a break"),
                }
            }
            assert_eq!(all, wire, "cut at {cut}");
        }
    }

    #[test]
    fn a_post_that_waits_for_100_continue_passes_its_head_at_once() {
        let mut c = Cutter::new(Side::Request, 64 * 1024, 1 << 20);
        let head = b"POST /mcp HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
        assert_eq!(
            c.feed(head, true),
            [Piece::Raw(Bytes::from_static(head), 0)]
        );
    }

    #[test]
    fn after_an_upgrade_every_byte_passes_at_once() {
        let mut c = Cutter::new(Side::Request, 64 * 1024, 1 << 20);
        let got = c.feed(
            b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\x81\x05hello",
            true,
        );
        let all: Vec<u8> = got
            .iter()
            .flat_map(|p| match p {
                Piece::Raw(b, _) => b.to_vec(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(all.ends_with(b"\x81\x05hello"), "{all:?}");
    }

    #[test]
    fn a_chunked_body_is_framed_anew_with_its_own_last_chunk() {
        let wire = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n1\r\n}\r\n0\r\nX-T: 1\r\n\r\n";
        let got = pieces(Side::Response, wire, 40);
        let [Piece::Message(m)] = &got[..] else {
            panic!("{got:?}")
        };
        assert_eq!(&m.body[..], b"{}");
        assert_eq!(
            reframed(m, b"[1]"),
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n[1]\r\n0\r\nX-T: 1\r\n\r\n"
        );
    }

    #[test]
    fn an_event_stream_is_cut_at_its_events_and_an_edit_keeps_the_other_fields() {
        let wire = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n28\r\nid: 7\r\nevent: message\r\ndata: {\"a\":1}\r\n\r\n\r\n0\r\n\r\n";
        let got = pieces(Side::Response, wire, 90);
        let ev = got
            .iter()
            .find_map(|p| match p {
                Piece::Events(e) => Some(e.clone()),
                _ => None,
            })
            .expect("events");
        assert_eq!(
            &ev.text[..],
            b"id: 7\r\nevent: message\r\ndata: {\"a\":1}\r\n\r\n"
        );
        assert_eq!(&ev.raw[..ev.prefix], b"");
        assert_eq!(
            with_data(&ev.text, b"{\"a\":2}"),
            b"id: 7\r\nevent: message\r\ndata: {\"a\":2}\r\n\r\n"
        );
        assert_eq!(data_of(&ev.text), b"{\"a\":1}");
        assert_eq!(
            &one_line(Bytes::from_static(b"{\"a\":\r 2}"))[..],
            b"{\"a\":2}"
        );
        assert_eq!(split_events(b"data: 1\n\ndata: 2\n\n").len(), 2);
    }
}
