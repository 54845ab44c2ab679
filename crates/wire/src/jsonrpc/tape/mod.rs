//! The tape reader: how [`parse`](super::parse) reads a frame fast, and nothing
//! else. What a message is (the four shapes, the rules, the error table) is said in
//! `jsonrpc/mod.rs`; this folder is an optimisation behind the same `parse()`, and
//! reading it is not needed to learn the wire.
//!
//! The slow, obvious way would read each frame into a `serde_json::Value` and take it
//! apart. Here, one pass ([`check::scan`]) says whether serde_json would accept the
//! frame and leaves a tape (where each value starts and ends); the message's members
//! are then found by hopping along that tape ([`raw`], [`read`]), `params` stays as
//! its text until a handler wants a `Value`, and the buffers are reused from frame to
//! frame ([`spare`]). The two ways must agree on every input: the unit tests here and
//! the `json_check` fuzz target compare this pass with serde_json on every input they
//! make, and a frame the pass refuses is read by serde_json, whose error is the one
//! the peer gets.
//!
//! ```text
//! check.rs   is this frame JSON, exactly as serde_json decides? and its tape
//! raw.rs     a checked frame's values, found on its tape, built on demand
//! read.rs    bytes → a message's six members, checked once and read in place
//! spare.rs   the tape and text buffers a frame's read keeps, reused per thread
//! ```

pub mod check;
pub mod raw;
pub mod read;
pub mod spare;
