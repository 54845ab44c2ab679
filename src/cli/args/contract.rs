//! `check`'s contract flags: what a session must and must not do, for a CI gate
//! (each broken term a finding, exit 1). The terms themselves are
//! `mcp_raw_tools::check::contract`'s.

use mcp_raw_tools::check::contract::{self, Latency};
use std::path::PathBuf;
use std::time::Duration;

// `check`'s contract terms, flattened into its arguments.
#[derive(clap::Args, Default)]
#[group(skip)]
pub struct ContractArgs {
    /// A tool the session must call (tools/call) at least once (repeatable).
    #[arg(long, value_name = "NAME")]
    pub expect_tool: Vec<String>,
    /// A tool the session must never call: each call is a finding (repeatable).
    #[arg(long, value_name = "NAME")]
    pub forbid_tool: Vec<String>,
    /// A method that must be sent at least once, a request or a notification,
    /// by either side (repeatable).
    #[arg(long, value_name = "M")]
    pub expect_method: Vec<String>,
    /// The longest the recording may span, first event to last, in seconds.
    #[arg(long, value_name = "SECS", value_parser = contract::parse_duration)]
    pub max_duration: Option<Duration>,
    /// A latency limit: pNN=MS, of all requests or of one method's
    /// (p99=250,method=tools/call); nearest-rank percentile of the answered
    /// requests, none answered passes (repeatable).
    #[arg(long, value_name = "pNN=MS[,method=M]", value_parser = Latency::parse)]
    pub max_latency: Vec<Latency>,
    /// The most errors allowed: JSON-RPC error responses and tools/call results
    /// with isError: true.
    #[arg(long, value_name = "N")]
    pub max_errors: Option<usize>,
    /// A JSON file of terms, keyed by these flags' names ({"expect-tool": ["add"],
    /// "max-latency": ["p99=250"], "max-errors": 0, …}, and "allow": the rules
    /// --allow silences); they add to the flags'.
    #[arg(long, value_name = "FILE")]
    pub contract: Option<PathBuf>,
}
