//! What both sides of the wire speak, below the server and the client alike.
//!
//! - The recording spine: [`event`] (one read or write), [`recorder`] (stamps and
//!   orders them, feeds the sinks; [`redact`] masks secrets first), [`recorded`] (the
//!   I/O wrappers that produce them).
//! - Framing, read from bytes as they arrive: [`line`](mod@line) (stdio), [`http1`] (HTTP/1.1
//!   heads, chunks, bodies), [`sse`] (event streams); [`decode`] runs them per lane and
//!   [`classify`] says what each payload is.
//! - The renderings: [`transcript`] (the versioned JSONL record) and [`text`] (the
//!   `>>>`/`<<<` view, which [`select`] narrows to some messages and [`explain`]
//!   annotates); [`oneline`], a line per message; [`html`], one self-contained page
//!   of a recording.
//! - The HTTP binding's vocabulary both sides use: [`http`]; OAuth's body and query
//!   format, `application/x-www-form-urlencoded`: [`form`]; its well-known URLs:
//!   [`oauth`].

pub mod asked;
pub mod classify;
pub mod decode;
pub mod event;
pub mod explain;
pub mod form;
pub mod html;
pub mod http;
pub mod http1;
pub mod line;
pub mod oauth;
pub mod oneline;
pub mod recorded;
pub mod recorder;
pub mod redact;
pub mod select;
pub mod sse;
pub mod term;
pub mod text;
pub mod tls;
pub mod transcript;
