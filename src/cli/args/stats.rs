//! `mcp-raw stats`' flags: the recordings to measure and how to print the figures.

use mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
use std::path::PathBuf;

macro_rules! stats_examples {
    () => {
        "Examples:
  mcp-raw stats session.jsonl
  mcp-raw stats --format csv a.jsonl b.jsonl > stats.csv
  mcp-raw stats --format json session.jsonl

Latency is the answer's stamp minus the request's; percentiles are the nearest rank. A
2026-07-28 operation runs from its first attempt to its final answer, each retry linked
to the input_required answer before it by the exact requestState (a state issued or
echoed twice is refused as ambiguous, and counted). Context cost: each tool's definition
in tools/list as compact JSON, in bytes and in tokens estimated as ceil(bytes / 4)."
    };
}
pub(crate) use stats_examples;

// `mcp-raw stats`' arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct StatsArgs {
    /// JSON Lines transcripts written by --record, or sessions' short names
    /// (`mcp-raw sessions`); several add up (sessions and lanes then named
    /// FILE:NAME).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// text (a table per section), json (one document) or csv (one table, its
    /// first column the section: method, tool, session, lane, operations,
    /// context, context-total).
    #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
    pub format: StatsFormat,
    /// The largest message read whole; a longer one is skipped (not counted).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
}

/// `stats --format`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StatsFormat {
    Text,
    Json,
    Csv,
}
