//! The client side: links that move bytes to a server (a child's stdio, an HTTP
//! connection), each recording what crosses, and a dual-era MCP client on top of
//! them. The programs built on it (`mcp-raw client`, the demos, the conformance
//! client) live with the command line, in `src/cli/`, outside the library.
//!
//! The larger parts are folders with one job a file: [`mcp_client`] (the client
//! itself; era detection, the stdio path and the HTTP path each on their own),
//! [`http_link`] (the link, its connections, one exchange's read, the reply),
//! [`tls`] (the setup, the chain check, a refusal in words).
//!
//! ## Calling a server, and keeping what crossed
//!
//! The client learns the server's era by itself; every byte both ways goes through
//! the printer's recorder, here into memory, where a test can read the exact wire.
//!
//! ```
//! use mcp_raw_net::client::http_link::HttpLink;
//! use mcp_raw_net::client::mcp_client::{EraCache, Link, McpClient, Options};
//! use mcp_raw_net::client::wire_print::{Printer, Screen};
//! use mcp_raw_wire::event::Dir;
//! use mcp_raw_wire::recorder::Memory;
//! use serde_json::json;
//!
//! # fn main() -> anyhow::Result<()> {
//! tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(async {
//!     // mcp-raw's own HTTP server with the demo tools, in-process on a free port.
//!     let server = mcp_raw_core::Server::new(
//!         mcp_raw_core::content::demo::tool_set(),
//!         mcp_raw_core::Eras::Both,
//!     );
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//!     let url = format!("http://{}/mcp", listener.local_addr()?);
//!     let config = mcp_raw_net::transport::http::Config::default();
//!     tokio::spawn(mcp_raw_net::transport::http::run(listener, server, config, std::future::pending()));
//!
//!     let memory = Memory::default();
//!     let printer = Printer::sinks_only(vec![Box::new(memory.clone())], 1 << 20, Screen::new(std::io::sink()));
//!     let link = Link::Http(HttpLink::new(&url, &printer)?);
//!     let mut client = McpClient::connect(link, &url, Options::default(), &mut EraCache::default()).await?;
//!     let result = client.call_tool("add", json!({"a": 2, "b": 3})).await?;
//!     assert_eq!(result.expect("a result")["content"][0]["text"], "5");
//!     client.close().await?;
//!
//!     // What the client sent, byte for byte, across every connection it opened.
//!     let sent: Vec<u8> = memory.events().iter()
//!         .filter(|e| e.dir == Dir::ToServer)
//!         .flat_map(|e| match &e.what {
//!             mcp_raw_wire::event::What::Bytes(b) => b.to_vec(),
//!             _ => Vec::new(),
//!         })
//!         .collect();
//!     assert!(String::from_utf8_lossy(&sent).contains(r#""method":"tools/call""#));
//!     Ok(())
//! })
//! # }
//! ```

pub mod answers;
pub mod ask_user;
pub mod auth;
pub mod http_link;
pub mod mcp_client;
pub mod stdio_link;
pub mod task_handle;
pub mod task_store;
pub mod tasks;
pub mod tls;
pub mod wire_print;
