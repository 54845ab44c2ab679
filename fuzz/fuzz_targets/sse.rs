//! Feeds arbitrary bytes to the incremental SSE decoder `wire::sse::Decoder`, cut in
//! two at a point the first byte chooses, then round-trips text through
//! `wire::sse::encode` and the whole-body `decode`.
//!
//! Must hold: nothing panics; the cut changes nothing; the exact bytes of the
//! yielded events, then what is still pending, are the input (no byte lost, none
//! invented); for any data without `\r`, `decode(encode(None, None, data))` is exactly
//! one event whose data is `data`, and with an `id` (no `\r`/`\n`/NUL) and a `retry`,
//! `decode(encode(id, retry, data))` gives them back as well.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_raw_wire::sse::{Decoder, decode, encode};

fuzz_target!(|bytes: &[u8]| {
    let Some((&first, input)) = bytes.split_first() else {
        return;
    };

    // Arbitrary bytes, whole and cut.
    let mut whole = Decoder::new();
    let events = whole.feed(input);
    let cut = usize::from(first) % (input.len() + 1);
    let mut pieces = Decoder::new();
    let mut cut_events = pieces.feed(&input[..cut]);
    cut_events.extend(pieces.feed(&input[cut..]));
    assert_eq!(events, cut_events, "cut at {cut}");
    let pending = whole.pending().to_vec();
    let mut seen: Vec<u8> = events.iter().flat_map(|e| e.raw.iter().copied()).collect();
    seen.extend_from_slice(&pending);
    assert_eq!(seen, input);
    // What is pending at the end comes back as one cut-off event, byte for byte.
    match whole.finish() {
        Some(tail) => assert_eq!(tail.raw, pending),
        None => assert!(pending.is_empty()),
    }

    let Ok(text) = std::str::from_utf8(input) else {
        return;
    };
    // Round trip of the data alone.
    let data: String = text.chars().filter(|c| *c != '\r').collect();
    let body = encode(None, None, data.as_bytes());
    let body = std::str::from_utf8(&body).expect("encoding UTF-8 keeps it UTF-8");
    let events = decode(body);
    assert_eq!(events.len(), 1, "{body:?} -> {events:?}");
    assert_eq!(events[0].data, data);
    assert_eq!(events[0].id, None);
    assert_eq!(events[0].retry, None);
    assert_eq!(events[0].event, None);

    // With an id and a retry: the id is the data's first line, the retry its length.
    let id: String = data.split('\n').next().unwrap_or("").replace('\0', "");
    let retry = data.len() as u64;
    let body = encode(Some(&id), Some(retry), data.as_bytes());
    let events = decode(std::str::from_utf8(&body).unwrap());
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data, data);
    assert_eq!(events[0].id.as_deref(), Some(id.as_str()));
    assert_eq!(events[0].retry, Some(retry));
});
