//! Feeds arbitrary UTF-8 to the SSE decoder `transport::sse::decode` (non-UTF-8
//! inputs are skipped), then round-trips the same text through `sse::encode`.
//!
//! Must hold: `decode` never panics and yields at most one event per blank line;
//! for any data without `\r`, `decode(encode(None, None, data))` is exactly one
//! event whose data is `data`, and with an `id` (no `\r`/`\n`) and a `retry`,
//! `decode(encode(id, retry, data))` gives them back as well.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_raw::transport::sse::{decode, encode};

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };

    // Arbitrary bodies.
    let events = decode(text);
    let blank_lines = text
        .split('\n')
        .filter(|l| l.is_empty() || *l == "\r")
        .count();
    assert!(
        events.len() <= blank_lines,
        "{} events, {blank_lines} blank lines",
        events.len()
    );

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
    let id = data.split('\n').next().unwrap_or("");
    let retry = data.len() as u64;
    let body = encode(Some(id), Some(retry), data.as_bytes());
    let events = decode(std::str::from_utf8(&body).unwrap());
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data, data);
    assert_eq!(events[0].id.as_deref(), Some(id));
    assert_eq!(events[0].retry, Some(retry));
});
