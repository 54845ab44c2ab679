//! What a server offers, as plain values built from the core's types
//! ([`crate::tools`], [`prompts`](crate::prompts),
//! [`resources`](crate::resources)): the demo's three tools and the
//! conformance fixture, side by side. `mcp-raw serve --fixture` picks one.

pub mod conformance;
pub mod demo;
