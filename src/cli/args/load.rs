//! `mcp-raw load`'s flags: the target, the clients, the mix, the loop and its
//! bounds, the figures' format and the thresholds that fail a run.

use super::{EraArg, secs};
use std::path::PathBuf;
use std::time::Duration;

/// `load --help`'s examples.
macro_rules! load_examples {
    () => {
        r#"Examples:
  mcp-raw load --clients 32 --duration 10 --call echo='{"message": "hi"}' http://127.0.0.1:3100/mcp
  mcp-raw load --clients 4 --requests 1000 --call add='{"a": 2, "b": 3}' -- mcp-raw serve
      (stdio: each client spawns a server process of its own)
  mcp-raw load --rate 200 --duration 30 --ramp-up 5 --scenario mix.json --format json URL
  mcp-raw load --max-p99 50 --max-errors 0 --duration 5 --call echo URL
      (a CI gate: exit 1 when the p99 is over 50 ms or any call failed)
  mcp-raw load --clients 8 --duration 10 --mix-from session.jsonl URL
      (the calls a recorded client made, as often as it made them)

A scenario file: {"calls": [{"tool": "echo", "arguments": {...}, "weight": 3},
{"method": "resources/list", "params": {}, "weight": 1}]}. Without --call,
--scenario or --mix-from the mix is tools/list. Without --duration or --requests a run lasts 10 s.
Closed loop: each client sends its next call when its last is answered. Open loop
(--rate): call k is due k / RATE seconds after the start; when every client is busy
it goes late, and is counted as behind. Latency runs from a call's send to its
answer (a tool run as a task: to its final result); connecting and the tools/list
each client makes first are not counted. Failures by kind: jsonrpc CODE, isError,
http STATUS, timeout, transport, connect."#
    };
}
pub(crate) use load_examples;

// `mcp-raw load`'s arguments.
#[derive(clap::Args)]
pub struct LoadArgs {
    /// `http://host:port/path` or `https://host/path`, or a stdio server's command
    /// line, split like a shell would. Or leave it out and give the command after
    /// `--`.
    #[arg(required_unless_present = "command", conflicts_with = "command")]
    pub target: Option<String>,
    /// The stdio server's program and arguments, taken as they are: `-- CMD ARG…`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
    /// Clients, each a session of its own with one call in flight at most.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub clients: u32,
    /// Eras the clients may speak: both detects the server's (server/discover, then
    /// initialize); modern or legacy insist on one.
    #[arg(long, value_enum, default_value_t = EraArg::Both)]
    pub era: EraArg,
    /// A tool call in the mix: NAME or NAME={"json":"arguments"} (repeatable; each
    /// weighs 1).
    #[arg(long = "call", value_name = "NAME[=JSON]")]
    pub calls: Vec<String>,
    /// A JSON file of weighted calls (tools or any method), added to the --calls.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// A recording (`--record` of a client or server) whose client requests make the
    /// mix, added to the --calls: each kind (method and params; a tool and its
    /// arguments) weighted by how often it was sent. Left out: initialize,
    /// server/discover, logging/setLevel, subscriptions/listen, tasks/*,
    /// notifications, responses, the server's requests, the later rounds of a
    /// 2026-07-28 operation; _meta is dropped from params.
    #[arg(long, value_name = "FILE")]
    pub mix_from: Option<PathBuf>,
    /// Open loop: calls per second over all clients (above 0); without it, a closed
    /// loop.
    #[arg(long, value_name = "R", value_parser = rate)]
    pub rate: Option<f64>,
    /// Seconds over which the clients start, evenly (client i at SECS × i / N).
    #[arg(long, value_name = "SECS", default_value = "0", value_parser = secs)]
    pub ramp_up: Duration,
    /// Seconds after which no call starts (10 when neither this nor --requests).
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub duration: Option<Duration>,
    /// Exactly this many calls over all clients.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub requests: Option<u64>,
    /// Seconds a call may take; then it counts as a timeout.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = secs)]
    pub timeout: Duration,
    /// Seconds a server may take to answer its first request (a stdio server's start).
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = secs)]
    pub startup_timeout: Duration,
    /// HTTP: a header sent with every request, "Name: value" (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// https: trust the CA certificates in this PEM file too, besides the system's
    /// trust store (repeatable).
    #[arg(long = "cacert", value_name = "FILE")]
    pub cacert: Vec<PathBuf>,
    /// HTTP, a server that answers 401: run the OAuth flow once, on a first
    /// connection, and give its token to every client (without it each client runs
    /// its own flow; a --header Authorization needs neither).
    #[arg(long)]
    pub share_token: bool,
    /// text (a table per method and per tool) or json (one document, for CI).
    #[arg(long, value_enum, default_value_t = LoadFormat::Text)]
    pub format: LoadFormat,
    /// Exit 1 when the p99 latency of all calls is over MS milliseconds.
    #[arg(long, value_name = "MS", value_parser = millis)]
    pub max_p99: Option<Duration>,
    /// Exit 1 when more than N calls (or connections) failed.
    #[arg(long, value_name = "N")]
    pub max_errors: Option<u64>,
    /// Record the first N clients' sessions, every byte each way, one transcript
    /// each (`--sample-dir`), for `show`, `check` and `stats` (0: none).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub record_sample: u32,
    /// Where --record-sample writes its transcripts: DIR/client-I.jsonl.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub sample_dir: PathBuf,
    /// No progress on stderr (by default: a line kept current on a terminal, a line
    /// a second otherwise).
    #[arg(long, short)]
    pub quiet: bool,
}

/// `load --format`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LoadFormat {
    Text,
    Json,
}

/// `--rate R`: calls per second, above 0.
fn rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if r > 0.0 && r <= 1e7 => Ok(r),
        _ => Err(format!(
            "expected calls per second above 0 (at most 10000000), got {text:?}"
        )),
    }
}

/// `--max-p99 MS`: milliseconds, 0 or more.
fn millis(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(ms) if (0.0..1e9).contains(&ms) => Ok(Duration::from_secs_f64(ms / 1e3)),
        _ => Err(format!(
            "expected milliseconds (0 or more, e.g. 50 or 2.5), got {text:?}"
        )),
    }
}
