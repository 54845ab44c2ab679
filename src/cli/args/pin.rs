//! `mcp-raw pin`'s flags: the trusted recording, and where its tools' hashes go.

use mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
use std::path::PathBuf;

macro_rules! pin_examples {
    () => {
        "Examples:
  mcp-raw pin trusted.jsonl --out tools.pin.json
  mcp-raw check --baseline tools.pin.json today.jsonl
      (each tool changed since is an error, each new one a warning)

Each tool is keyed SERVER/TOOL (serverInfo.name, or - when the recording does not
show it); each part (description, title, inputSchema, outputSchema, annotations) is the
SHA-256 of its canonical JSON (members sorted by name, no whitespace)."
    };
}
pub(crate) use pin_examples;

// `mcp-raw pin`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct PinArgs {
    /// A JSON Lines transcript written by --record (or a session's short name)
    /// whose tools/list answers are trusted.
    pub file: PathBuf,
    /// Write the pin file here instead of stdout.
    #[arg(long, value_name = "OUT")]
    pub out: Option<PathBuf>,
    /// The largest message read whole; a longer one is skipped.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
}
