//! What both sides of the wire speak, below the server and the client alike: the
//! vocabulary of the HTTP binding (header names, mirrored values, the status of each
//! error) and Server-Sent Events framing, encoded and decoded incrementally. The server's transports validate with it, the client builds its requests
//! with it; neither imports the other.

pub mod http;
pub mod sse;
