//! The programs behind the command line, outside the library: they use its public
//! API like any other program would.
//!
//! ```text
//! args.rs               every subcommand and flag (clap derive; `///` is the help)
//! serve.rs              `serve`: the server, its transport, its recorder
//! show.rs               `show FILE`: a transcript rendered again
//! check.rs              `check FILE`, `tap --check`: the spec's rules, reported
//! diff.rs               `diff A B`: two recordings, message by message
//! exit.rs               the one exit-status rule, and each subcommand's line of it
//! replay.rs             `replay FILE --against TARGET`: the client side sent again
//! record.rs             `--trace` and `--record`: the sinks a recorder feeds
//! client.rs             `client TARGET`: any server's wire
//! conformance_client.rs `conformance-client`: what the official suite drives
//! demo_stdio.rs         `demo`: spawns `mcp-raw serve`, drives it over pipes
//! demo_http.rs          `demo-http`: spawns `mcp-raw serve --http`
//! demo_auth.rs          `demo-http --auth`: spawns `auth-server` and a protected `serve --http`
//! bridge.rs             `bridge -- SERVER_CMD`: the flags → a forwarding core behind the HTTP transport
//! tap.rs                `tap`: the flags → a stdio tap or an HTTP tap, and its exit status
//! auth_server.rs        `auth-server`: the flags → the loopback authorization server
//! script.rs             the sessions the demos drive, and what each reply must be
//! ```

pub mod args;
pub mod auth_server;
pub mod bridge;
pub mod check;
pub mod client;
pub mod conformance_client;
pub mod demo_auth;
pub mod demo_http;
pub mod demo_stdio;
pub mod diff;
pub mod exit;
pub mod record;
pub mod replay;
pub mod script;
pub mod serve;
pub mod show;
pub mod tap;

/// A runtime for the async programs.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}
