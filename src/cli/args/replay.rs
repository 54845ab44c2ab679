//! `mcp-raw replay`'s flags: the recording, the live server (`--against`) or the
//! mock's transport, the view.

use super::listener::{ListenerClocks, TlsListen};
use super::secs;
use super::view::View;
use std::path::PathBuf;
use std::time::Duration;

macro_rules! replay_examples {
    () => {
        "Examples:
  mcp-raw replay session.jsonl
      (a mock server, on the transport the session was recorded on)
  mcp-raw replay --http --port 3000 session.jsonl
  mcp-raw replay session.jsonl --against http://127.0.0.1:3100/mcp --record again.jsonl
  mcp-raw diff session.jsonl again.jsonl"
    };
}
pub(crate) use replay_examples;

/// How `replay` matches and answers, said before its exit status.
macro_rules! replay_matching {
    () => {
        "Serving: a live request gets the reply recorded for the first unused recorded request with the same method and params (--ignore left out), its ids rewritten; one the recording does not hold gets -32601 or -32602 naming what it expected next. --against: the live server's session id replaces the recorded one; the recording's answers to server requests are sent when the live server asks (with its ids); its GET streams are followed, those resuming a recorded stream (Last-Event-ID) skipped."
    };
}
pub(crate) use replay_matching;

// `mcp-raw replay`'s arguments.
#[derive(clap::Args)]
#[group(skip)]
pub struct ReplayArgs {
    /// A JSON Lines transcript written by --record.
    pub file: PathBuf,
    /// The live server: an http:// URL, or a stdio server's command line (or give
    /// the command after `--`).
    #[arg(long, value_name = "TARGET")]
    pub against: Option<String>,
    /// The stdio server's program and arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
    /// Seconds to wait for the server's next bytes of an answer (SSE keep-alive
    /// comments do not count: they cannot hold a wait open).
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = secs)]
    pub timeout: Duration,
    /// Serving (no --against): over Streamable HTTP even when the recording was
    /// made over stdio (by default the mock speaks the transport recorded).
    #[arg(long, conflicts_with = "against")]
    pub http: bool,
    /// Serving over HTTP: the port (0 picks a free one; the first line on stderr
    /// says which).
    #[arg(short, long, value_name = "PORT", default_value_t = 3000)]
    pub port: u16,
    #[command(flatten)]
    pub tls: TlsListen,
    /// Serving over HTTP: seconds a request head (or, with --tls-cert, the TLS
    /// handshake) may take once begun; then the connection is closed [default: 30]
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub header_timeout: Option<Duration>,
    #[command(flatten)]
    pub clocks: ListenerClocks,
    /// Serving: what to leave out when matching a live request to a recorded one
    /// (as for `diff --ignore`: id, time, uuid, or a path such as params._meta).
    /// Default: id, time, uuid.
    #[arg(long, value_name = "WHAT")]
    pub ignore: Vec<String>,
    #[command(flatten)]
    pub view: View,
}
