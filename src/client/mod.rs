//! The demo clients: each spawns the real server binary and prints the wire.

pub mod http_demo;
pub mod script;
pub mod stdio_demo;
pub mod wire_print;
