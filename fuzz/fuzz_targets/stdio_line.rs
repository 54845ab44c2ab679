//! Feeds arbitrary bytes to the stdio line framer `transport::stdio::read_line`
//! through a `BufReader` of 1 to 8 bytes, so lines arrive split across reads, and
//! calls it until `Eof`. The first byte picks the capacity, the second the line cap
//! `max` (0 to 63, so long lines are common); the rest is the input.
//!
//! Must hold: the loop ends (one call per line, `Eof` right after the last); a
//! `Ready` line has at most `max` bytes and no `\n`; and the sequence of `Ready` /
//! `TooLong` is exactly what splitting the input on `\n` gives: a piece longer than
//! `max` (counting a trailing `\r`) is `TooLong`, any other is `Ready` with the `\r`
//! of its `\r\n` dropped (a last line cut by EOF keeps a final `\r`), and an empty
//! last piece (input ending in `\n`) is no line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_raw::transport::stdio::{Line, read_line};
use std::io::BufReader;

fuzz_target!(|data: &[u8]| {
    let [cap, max, input @ ..] = data else { return };
    let capacity = usize::from(cap % 8) + 1;
    let max = usize::from(max % 64);

    // What the framer must produce.
    let mut pieces: Vec<&[u8]> = input.split(|b| *b == b'\n').collect();
    if pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    let ended = input.ends_with(b"\n");
    let expected: Vec<Result<&[u8], ()>> = pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if p.len() > max {
                Err(())
            } else if i + 1 < pieces.len() || ended {
                Ok(p.strip_suffix(b"\r").unwrap_or(p))
            } else {
                // A last line cut by EOF keeps a final `\r`: no `\r\n` ended it.
                Ok(*p)
            }
        })
        .collect();

    let mut reader = BufReader::with_capacity(capacity, input);
    let mut buf = Vec::new();
    let mut got = 0;
    loop {
        assert!(got <= expected.len(), "more lines than the input holds");
        let line = read_line(&mut reader, &mut buf, max).expect("reading a slice cannot fail");
        match line {
            Line::Eof => break,
            Line::Ready => {
                assert!(buf.len() <= max, "{} bytes over the cap {max}", buf.len());
                assert!(!buf.contains(&b'\n'));
                assert_eq!(expected[got], Ok(&buf[..]), "line {got}");
            }
            Line::TooLong => assert_eq!(expected[got], Err(()), "line {got}"),
        }
        got += 1;
    }
    assert_eq!(got, expected.len(), "lines lost before Eof");
    // Eof stays Eof.
    assert_eq!(read_line(&mut reader, &mut buf, max).unwrap(), Line::Eof);
});
