//! The client side: links that move bytes to a server (a child's stdio, an HTTP
//! connection), a dual-era MCP client on top of them, and the demos that print the
//! wire.

pub mod cli_client;
pub mod conformance;
pub mod http_demo;
pub mod http_link;
pub mod mcp_client;
pub mod script;
pub mod stdio_demo;
pub mod stdio_link;
pub mod wire_print;
