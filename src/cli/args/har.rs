//! `mcp-raw export` and `mcp-raw import`'s flags: a subcommand per format (`har` now;
//! another format is another variant), each with its file and its output.

use mcp_raw_tools::har::DEFAULT_MAX_HAR_BYTES;
use mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
use std::path::PathBuf;

macro_rules! export_examples {
    () => {
        "Examples:
  mcp-raw export har session.jsonl -o session.har
  mcp-raw export har session.jsonl | jq '.log.entries[].request.url'

HAR 1.2: an entry per HTTP request of the recording, built from the bytes that
crossed (headers in their order and case, bodies de-chunked, SSE as its text, masked
secrets still masked), timings from the recording's stamps; the exact chunk-size
lines in _mcpRaw, a lane's TLS facts in _tls."
    };
}
pub(crate) use export_examples;

macro_rules! import_examples {
    () => {
        "Examples:
  mcp-raw import har capture.har -o capture.jsonl
  mcp-raw show capture.jsonl --oneline

Each entry becomes a lane of its own, its request and response bytes rebuilt from the
HAR; each lane's open note says what a HAR could not carry (chunking, header case, an
HTTP/2 capture written as HTTP/1.1, a computed length)."
    };
}
pub(crate) use import_examples;

// `mcp-raw export`'s arguments: the format.
#[derive(clap::Args)]
pub struct ExportArgs {
    #[command(subcommand)]
    pub format: ExportFormat,
}

/// The formats `export` writes.
#[derive(clap::Subcommand)]
pub enum ExportFormat {
    /// HAR 1.2 of a recording's HTTP lanes, from the bytes that crossed.
    #[command(after_help = concat!(export_examples!(), "\n\n", crate::cli::exit::export_exit!()))]
    Har(ExportHarArgs),
    /// A recording's MCP operations as OpenTelemetry spans and metrics, to a
    /// collector over OTLP/HTTP.
    #[command(after_help = concat!(super::otlp::export_otlp_examples!(), "\n\n", crate::cli::exit::export_otlp_exit!()))]
    Otlp(super::ExportOtlpArgs),
}

// `mcp-raw export har`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct ExportHarArgs {
    /// A JSON Lines transcript written by --record, or a session's short name.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Write the HAR to this file instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
}

// `mcp-raw import`'s arguments: the format.
#[derive(clap::Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    pub format: ImportFormat,
}

/// The formats `import` reads.
#[derive(clap::Subcommand)]
pub enum ImportFormat {
    /// A HAR (1.2) file into a transcript: a lane per entry.
    #[command(after_help = concat!(import_examples!(), "\n\n", crate::cli::exit::import_exit!()))]
    Har(ImportHarArgs),
}

// `mcp-raw import har`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct ImportHarArgs {
    /// The HAR file (a browser's, mitmproxy's, another tool's).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The transcript to write (JSON Lines, as --record writes).
    #[arg(short = 'o', long = "output", value_name = "OUT", required = true)]
    pub output: PathBuf,
    /// The largest HAR read: a bigger file is refused before it is read.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_HAR_BYTES)]
    pub max_har_bytes: u64,
    /// The largest message the transcript's facts read whole.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
}
