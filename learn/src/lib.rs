#![warn(missing_docs)]
//! `learn`: the whole of MCP's 2025-11-25 wire in a few small files of plain Rust,
//! with no dependencies at all: the seed's six files (a core that does not know its
//! transport, a stdio server, a Streamable HTTP server, three tools, a stdio client
//! and an HTTP client), plus the JSON they need and a last page on 2026-07-28.
//!
//! Read in this order:
//!
//! ```text
//! lib.rs            this page
//! json.rs           JSON by hand: a value and its writer
//! parse.rs          the JSON parser, which says what is wrong and where
//! rpc.rs            the protocol: the four shapes, the lifecycle, tools/list, tools/call
//! tools.rs          get_current_time, echo, add: plain values with a JSON Schema
//! server.rs         stdio: one message per line; stdout is only protocol
//! client.rs         spawns a stdio server and drives one session, printing >>> and <<<
//! http.rs           HTTP/1.1 by hand: read a request, write a response
//! http_server.rs    Streamable HTTP on std::net: /mcp, sessions, JSON or SSE, 202
//! http_client.rs    the same session as real HTTP requests
//! modern.rs         what 2026-07-28 changes: no handshake, no session, _meta
//! bin/demo.rs       `cargo run -p learn --bin demo`
//! bin/demo-http.rs  `cargo run -p learn --bin demo-http`
//! ```

pub mod client;
pub mod http;
pub mod http_client;
pub mod http_server;
pub mod json;
pub mod modern;
pub mod parse;
pub mod rpc;
pub mod server;
pub mod tools;
