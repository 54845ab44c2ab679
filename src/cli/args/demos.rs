//! The flags of the scripted clients: `demo`, `demo-http` and the hidden
//! `conformance-client`.

use super::EraArg;
use super::view::View;

macro_rules! demo_examples {
    () => {
        "Examples:
  mcp-raw demo
  mcp-raw demo --era both --oneline
  mcp-raw demo --raw"
    };
}
pub(crate) use demo_examples;

macro_rules! demo_http_examples {
    () => {
        "Examples:
  mcp-raw demo-http --era modern
  mcp-raw demo-http --auth
  mcp-raw demo-http --port 0 --raw"
    };
}
pub(crate) use demo_http_examples;

// `mcp-raw demo`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct DemoArgs {
    /// The wire to show: legacy (the original project's session), modern
    /// (stateless 2026-07-28), or both: the same call in each era, one after the other, against one dual-era server.
    #[arg(long, value_enum, default_value_t = EraArg::Legacy)]
    pub era: EraArg,
    #[command(flatten)]
    pub view: View,
}

// `mcp-raw demo-http`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct DemoHttpArgs {
    /// Port the spawned server listens on (0 picks a free one).
    #[arg(short, long, default_value_t = 3100)]
    pub port: u16,
    /// The wire to show: legacy (the original project's session), modern
    /// (stateless 2026-07-28), or both: the same call in each era, one after the other, against one dual-era server.
    #[arg(long, value_enum, default_value_t = EraArg::Legacy)]
    pub era: EraArg,
    /// Show authorization instead: spawn `mcp-raw auth-server` too, protect the
    /// server with it, and walk the OAuth flow hop by hop (401, metadata,
    /// registration, code + PKCE, token, refresh, 403, 401).
    #[arg(long, conflicts_with = "era")]
    pub auth: bool,
    #[command(flatten)]
    pub view: View,
}

// `mcp-raw conformance-client`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct ConformanceClientArgs {
    /// The mock server's URL, appended by the suite.
    pub url: String,
    #[command(flatten)]
    pub view: View,
}
