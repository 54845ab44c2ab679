//! What a server offers, as plain values built from the core's types
//! ([`crate::protocol::tools`], [`prompts`](crate::protocol::prompts),
//! [`resources`](crate::protocol::resources)): the demo's three tools and the
//! conformance fixture, side by side. `mcp-raw serve --fixture` picks one.

pub mod conformance;
pub mod demo;
