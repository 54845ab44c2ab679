//! # mcp-raw — the Model Context Protocol by hand, every byte visible
//!
//! ## Layout
//! ```text
//! jsonrpc.rs            the four message shapes; bytes → Message, error codes
//! protocol/             the transport-agnostic core, both eras
//!   mod.rs              Server, Eras, Session::handle: which era serves a request
//!   legacy.rs           legacy dispatch, gated by the lifecycle phase
//!   lifecycle.rs        initialize, version negotiation, -32002, batches
//!   meta.rs             modern per-request _meta: version, capabilities, -32022
//!   modern.rs           modern dispatch: server/discover, resultType, caching hints
//!   tasks.rs            the tasks extension: task store, tasks/get, tasks/update, tasks/cancel
//!   tools.rs            tools/list, tools/call, where a tool failure becomes isError
//! tools/                tools as plain values {name, description, input_schema, handler}
//!   demo.rs             get_current_time, echo, add
//! transport/            moving bytes in and out; no protocol logic
//!   stdio.rs            one JSON message per line on stdin/stdout, logs on stderr
//!   sse.rs              Server-Sent Events framing (encode and decode)
//!   http/               Streamable HTTP on one endpoint, /mcp
//!     mod.rs            accept loop, TCP_NODELAY, routing by method
//!     guard.rs          Origin, Accept, Content-Type, body-size checks
//!     post.rs           a POST: parse, then choose the era
//!     legacy.rs         session path: Mcp-Session-Id and MCP-Protocol-Version checks
//!     sessions.rs       Mcp-Session-Id: minting, lookup, termination
//!     modern.rs         stateless path: header/body validation, -32020, 400/404
//!     mirror.rs         Mcp-Method / Mcp-Name / Mcp-Param-*, the Base64 sentinel
//!     reply.rs          building HTTP responses (JSON, SSE, 202, errors)
//! client/               the demos that print the wire
//!   wire_print.rs       >>> / <<< printer, pretty and coloured on a TTY
//!   stdio_demo.rs       spawns `mcp-raw serve`, drives a session over pipes
//!   http_demo.rs        spawns `mcp-raw serve --http`, drives it with real HTTP
//! clock.rs              RFC 3339 UTC time for get_current_time
//! main.rs               the thin CLI
//! ```

// Refusals travel as values (`Result<_, Response>`): an error response or an HTTP
// error is what the peer must receive, built once on the cold path, so the size of
// the `Err` variant does not matter.
#![allow(clippy::result_large_err)]

pub mod client;
pub mod clock;
pub mod fixture;
pub mod jsonrpc;
pub mod prompts;
pub mod protocol;
pub mod resources;
pub mod tools;
pub mod transport;
