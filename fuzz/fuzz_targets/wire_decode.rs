//! Feeds arbitrary bytes to the wire view's decoder (`wire::decode::Decoder`: HTTP/1.1
//! framing, SSE, stdio lines, classification) as one lane's direction, once whole
//! and once cut into pieces of 1 to 16 bytes, then closes the lane. The first byte
//! picks the lane (an HTTP request stream, an HTTP response stream, or a stdio
//! server's stdout) and the piece size; the rest is the input.
//!
//! The high bit of the first byte sets a small cap (48 bytes) on what the decoder
//! holds whole, so the too-long paths run too.
//!
//! Must hold: nothing panics; the facts do not depend on how the bytes were cut
//! (what a view shows is a property of the bytes, not of the reads); on stdio, the
//! payloads are exactly the input's lines (a line over the cap is too long, with its
//! length); and the text view renders both ways, raw and readable.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_raw_wire::decode::{Decoder, Fact};
use mcp_raw_wire::event::{Dir, Event, Lane, LaneKind, What};
use std::time::Duration;

fn event(lane: Lane, dir: Dir, what: What) -> Event {
    Event {
        t: Duration::ZERO,
        lane,
        dir,
        what,
    }
}

fn facts(events: &[Event], max: usize) -> Vec<Fact> {
    let mut d = Decoder::with_max(max);
    events.iter().flat_map(|e| d.feed(e)).collect()
}

fuzz_target!(|data: &[u8]| {
    let [pick, input @ ..] = data else { return };
    let (kind, dir) = match pick % 3 {
        0 => (LaneKind::Http, Dir::ToServer),
        1 => (LaneKind::Http, Dir::ToClient),
        _ => (LaneKind::Stdio, Dir::ToClient),
    };
    let lane = Lane { id: 1, kind };
    let piece = usize::from(pick / 3 % 16) + 1;
    // Half the inputs run against a small cap, so the too-long paths are taken.
    let max = if pick & 0x80 != 0 { 48 } else { 1 << 20 };
    let close = event(lane, dir, What::Close("EOF".into()));

    let whole = vec![
        event(lane, dir, What::Bytes(bytes::Bytes::copy_from_slice(input))),
        close.clone(),
    ];
    let mut cut: Vec<Event> = input
        .chunks(piece)
        .map(|c| event(lane, dir, What::Bytes(bytes::Bytes::copy_from_slice(c))))
        .collect();
    cut.push(close);

    let a = facts(&whole, max);
    let b = facts(&cut, max);
    assert_eq!(a, b, "the facts depend on the cuts ({piece}-byte pieces)");

    if kind == LaneKind::Stdio {
        let mut lines: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        let got: Vec<Result<&[u8], usize>> = a
            .iter()
            .filter_map(|f| match f {
                Fact::Payload { bytes, .. } => Some(Ok(&bytes[..])),
                Fact::TooLong { len } => Some(Err(*len)),
                _ => None,
            })
            .collect();
        let want: Vec<Result<&[u8], usize>> = lines
            .iter()
            .map(|l| if l.len() > max { Err(l.len()) } else { Ok(*l) })
            .collect();
        assert_eq!(got, want, "stdio payloads are the lines, verbatim; longer ones too long");
    }

    for raw in [true, false] {
        let _ = mcp_raw_wire::text::render(&cut, raw, raw, 64);
    }
});
