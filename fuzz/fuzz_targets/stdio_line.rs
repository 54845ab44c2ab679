//! Feeds arbitrary bytes to the stdio line framer `wire::line::Framer` in pieces of 1
//! to 8 bytes (every other one through `read_from`, as the server reads), so lines
//! arrive split across reads, taking frames until `Incomplete`
//! after each piece and calling `finish` at the end. The first byte picks the piece
//! size, the second the line cap `max` (0 to 63, so long lines are common); the rest
//! is the input.
//!
//! Must hold: the frames are exactly what splitting the input on `\n` gives, bytes
//! kept verbatim (a `\r` stays): a piece longer than `max` is `TooLong` with its
//! length, any other is `Line` with its bytes; an empty last piece (input ending in
//! `\n`) is no line. The framer never buffers more than `max` bytes of a line, and
//! `finish` returns nothing once the input is used up.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_raw_wire::line::{Frame, Framer};

fuzz_target!(|data: &[u8]| {
    let [piece, max, input @ ..] = data else { return };
    let piece = usize::from(piece % 8) + 1;
    let max = usize::from(max % 64);

    // What the framer must produce.
    let mut pieces: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
    if pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    let expected: Vec<Result<&[u8], usize>> = pieces
        .iter()
        .map(|p| if p.len() > max { Err(p.len()) } else { Ok(*p) })
        .collect();

    let mut framer = Framer::new(max);
    let mut got: Vec<Frame> = Vec::new();
    for (i, chunk) in input.chunks(piece).enumerate() {
        // Every other piece is read in (`read_from`, the server's way), the rest fed.
        if i % 2 == 0 {
            framer.feed(chunk);
        } else {
            let mut reader = chunk;
            while framer.read_from(&mut reader).is_ok_and(|n| n > 0) {}
        }
        loop {
            match framer.next_frame() {
                Frame::Incomplete => break,
                f => got.push(f),
            }
        }
        assert!(
            framer.pending() <= max + piece,
            "{} bytes buffered with a cap of {max}",
            framer.pending()
        );
    }
    got.extend(framer.finish());
    assert!(framer.finish().is_none(), "finish is idempotent");
    assert_eq!(got.len(), expected.len(), "{got:?} vs {expected:?}");
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        match (g, e) {
            (Frame::Line(l), Ok(want)) => assert_eq!(&l[..], *want, "line {i}"),
            (Frame::TooLong { len, head }, Err(want)) => {
                assert_eq!(len, want, "line {i}");
                assert!(head.len() <= 64);
            }
            _ => panic!("line {i}: got {g:?}, expected {e:?}"),
        }
    }
});
