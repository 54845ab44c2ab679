#![warn(missing_docs)]
//! # mcp-raw-wire — MCP's bytes: JSON-RPC messages, framing, the recording and its views
//!
//! The bottom layer of mcp-raw's workspace: what both sides of the wire speak, below
//! the server and the client alike. It imports nothing of mcp-raw's; every other crate
//! stands on it (`mcp-raw-core`, `mcp-raw-net`, `mcp-raw-tools`, the `mcp-raw` binary).
//!
//! - The message layer: [`jsonrpc`], the four shapes, the rules and the error table;
//!   bytes become a [`jsonrpc::Message`] through [`jsonrpc::parse`].
//! - The recording spine: [`event`] (one read or write), [`recorder`] (stamps and
//!   orders them, feeds the sinks; [`redact`] masks secrets first; [`behind`] moves a
//!   sink off the wire's path), [`recorded`] (the I/O wrappers that produce them).
//! - Framing, read from bytes as they arrive: [`line`](mod@line) (stdio), [`http1`] (HTTP/1.1
//!   heads, chunks, bodies), [`sse`] (event streams); [`decode`] runs them per lane and
//!   [`classify`] says what each payload is.
//! - The renderings: [`transcript`] (the versioned JSONL record) and [`text`] (the
//!   `>>>`/`<<<` view, which [`select`] narrows to some messages and [`explain`]
//!   annotates); [`oneline`], a line per message; [`rows`], each event as the JSON
//!   rows the page draws; [`html`], the page's files, and the page frozen with a
//!   recording's rows into one self-contained file.
//! - The HTTP binding's vocabulary both sides use: [`http`]; OAuth's body and query
//!   format, `application/x-www-form-urlencoded`: [`form`]; its well-known URLs:
//!   [`oauth`].
//! - Time as the wire writes it: [`clock`]; and one way to take a lock, for every
//!   crate: [`lock`].
//!
//! ## Layout
//! ```text
//! lib.rs                the recording spine and the views, named in order
//! event.rs              a wire event: lane, direction, time offset, exact bytes
//! recorder.rs           the one recording layer: stamps, orders, feeds the sinks
//! behind.rs             a sink on a thread of its own, behind a bounded queue (--record-buffer)
//! redact.rs             secrets masked before the sinks see them, same length
//! recorded.rs           I/O wrappers that turn every read and write into an event
//! line.rs               stdio lines as bytes: CR, BOM, not-UTF-8 kept; Incomplete, TooLong
//! http1.rs              HTTP/1.1 read from bytes: heads as sent, chunks, bodies
//! sse.rs                Server-Sent Events: encode; decode incrementally, every byte kept
//! decode.rs             per lane: bytes → heads, chunks, SSE events, payloads
//! classify.rs           what a payload is: JSON-RPC shape, method, id, era
//! tls.rs                a TLS handshake's facts: version, cipher, ALPN, SNI, the peer's chain
//! transcript.rs         the JSONL transcript, version 4: its lines as JSON, read back, pretty JSON
//! transcript_write.rs   the transcript written: lines made straight from events, in one write
//! pretty_doc.rs         `show --pretty`: one pretty JSON document, written event by event
//! stream.rs             a transcript read line by line: its header, then its events on demand
//! term.rs               a peer's text made safe for a terminal: control bytes escaped
//! text.rs               the >>> / <<< text view: raw (every byte) or readable
//! pretty.rs             a payload laid out for a reader: JSON indented, bytes marked
//! oneline.rs            --oneline: a line per message (shape, method, tool, id, status, size)
//! select.rs             show --method/--id/--era: the messages a view keeps
//! asked.rs              the requests a view saw unanswered, by id, bounded
//! explain.rs            show --explain: each message's shape, era, method and section
//! html.rs               the page's files (page/), and show --html: that page frozen, rows inline
//! rows.rs               the live page's rows: each event's heads, SSE events, messages as JSON
//! markup.rs             one escaper for HTML and XML (the page, JUnit)
//! form.rs               application/x-www-form-urlencoded both ways (OAuth bodies, queries)
//! oauth.rs              OAuth's well-known URLs, one way for whoever looks or serves
//! http/                 the HTTP binding's vocabulary
//!   mod.rs              the endpoint, Mcp-Session-Id, the status of a modern error
//!   endpoint.rs         which exchanges are MCP's (not OAuth's): one rule for views and check
//!   mirror.rs           Mcp-Method / Mcp-Name / Mcp-Param-*, the Base64 sentinel
//!   x_mcp_header.rs     x-mcp-header annotations: checked, mirrored, validated
//! jsonrpc/              the four message shapes; bytes → Message; every error code
//!   mod.rs              Request, Notification, Response (and its Dress), the shape rules
//!   params.rs           Params: a request's params as sent, or a Value; Field
//!   tape/               the fast reader behind parse(): an optimisation, proven equal
//!                       to serde_json (unit tests, the json_check fuzz target)
//!     mod.rs            what it is and why; its files
//!     check.rs          is this frame JSON (exactly as serde_json decides)? and its tape
//!     raw.rs            a checked frame's values, found on its tape, built on demand
//!     read.rs           bytes → a message's six members, checked once and read in place
//!     spare.rs          the tape and text buffers a frame's read keeps, reused per thread
//!   payload.rs          Payload, Rendered: a result as a value or as bytes written once
//!   splice.rs           members put into a request's params._meta in place (the rest as sent)
//!   tests.rs            the message layer's unit tests: shapes, refusals, ids, parse
//! clock.rs              RFC 3339 UTC time for get_current_time
//! lock.rs               one way to take a lock: a poisoned one still gives its guard
//! ```

// Refusals travel as values (`Result<_, Response>`): an error response is what the
// peer must receive, built once on the cold path, so the size of the `Err` variant
// does not matter.
#![allow(clippy::result_large_err)]

pub mod asked;
pub mod behind;
pub mod classify;
pub mod clock;
pub mod decode;
pub mod event;
pub mod explain;
pub mod form;
pub mod html;
pub mod http;
pub mod http1;
pub mod jsonrpc;
pub mod line;
pub mod lock;
pub mod markup;
pub mod oauth;
pub mod oneline;
pub mod pretty;
pub mod pretty_doc;
pub mod recorded;
pub mod recorder;
pub mod redact;
pub mod rows;
pub mod select;
pub mod sse;
pub mod stream;
pub mod term;
pub mod text;
pub mod tls;
pub mod transcript;
pub mod transcript_write;
