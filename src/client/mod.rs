//! The client side: links that move bytes to a server (a child's stdio, an HTTP
//! connection), each recording what crosses, and a dual-era MCP client on top of
//! them. The programs built on it (`mcp-raw client`, the demos, the conformance
//! client) live with the command line, in `src/cli/`, outside the library.

pub mod answers;
pub mod ask_user;
pub mod auth;
pub mod http_link;
pub mod mcp_client;
pub mod stdio_link;
pub mod task_handle;
pub mod task_store;
pub mod tasks;
pub mod wire_print;
