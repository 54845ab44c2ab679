//! `mcp-raw bridge`'s flags: the server command, the listener (serve's HTTP flags,
//! always on), the children, the trace.

use super::listener::{HttpLimits, ProtectArgs, TlsListen};
use super::{TraceStyle, TraceView, secs};
use mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
use std::path::PathBuf;
use std::time::Duration;

macro_rules! bridge_examples {
    () => {
        "Examples:
  mcp-raw bridge --port 3300 -- npx -y @modelcontextprotocol/server-everything
  mcp-raw bridge --port 0 --trace oneline -- mcp-raw serve --fixture conformance"
    };
}
pub(crate) use bridge_examples;

// `mcp-raw bridge`'s arguments. `mut_args` is here, on the struct, so that it runs
// after the flattened limits are added (inside the subcommand's deferred build).
#[derive(clap::Args)]
#[command(mut_args(http_always))]
pub struct BridgeArgs {
    /// The stdio server's program and arguments, after `--`, taken as they are.
    #[arg(last = true, value_name = "SERVER_CMD", required = true)]
    pub command: Vec<String>,
    /// Address to bind. Loopback by default: a local server should not be reachable
    /// from the network.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to bind (0 picks a free one; the first line on stderr says which).
    #[arg(short, long, default_value_t = 3100)]
    pub port: u16,
    /// Largest accepted message in bytes: an HTTP body (413 beyond it), and a line
    /// the child writes (longer fails the requests waiting on it).
    #[arg(long, default_value_t = 4 * 1024 * 1024)]
    pub max_body_bytes: usize,
    /// Also answer to this host name in Host and Origin (repeatable; loopback names
    /// are always accepted, any other is refused with 403 to stop DNS rebinding).
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
    #[command(flatten)]
    pub limits: HttpLimits,
    #[command(flatten)]
    pub protect: ProtectArgs,
    #[command(flatten)]
    pub tls: TlsListen,
    /// Listen on a --host that is not loopback even without --auth-server (anyone
    /// who can reach it can run the server command's tools).
    #[arg(long)]
    pub allow_remote: bool,
    /// Most stdio servers running at once (a legacy session is one; modern requests
    /// share one); an initialize beyond gets a JSON-RPC error saying so.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::bridge::child::MAX_CHILDREN)]
    pub max_children: usize,
    /// Seconds a forwarded request waits for the stdio server's answer; then the
    /// caller gets a -32603 error saying so and the server notifications/cancelled
    /// (subscriptions/listen is exempt).
    #[arg(long, value_name = "SECS", default_value = "300", value_parser = secs)]
    pub request_timeout: Duration,
    /// Seconds to wait, once a child closed its stdout, for its exit status (quoted
    /// in the errors of the requests it left unanswered).
    #[arg(long, value_name = "SECS", default_value = "1", value_parser = secs)]
    pub exit_wait: Duration,
    /// Seconds the child spawned at start to read the tools' schemas may take (0:
    /// no such probe; modern Mcp-Param-* headers are then not checked).
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = secs)]
    pub probe_timeout: Duration,
    /// Most pages of tools/list the start-up probe reads.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub probe_pages: usize,
    /// Print every byte on stderr as it crosses, HTTP and the children's pipes, in
    /// the readable text view, or `--trace raw` for the bytes verbatim, or `--trace
    /// oneline` for a line per message.
    #[arg(long, value_enum, value_name = "VIEW", num_args = 0..=1, default_missing_value = "readable")]
    pub trace: Option<TraceView>,
    /// Write every byte to FILE as a JSON Lines transcript (role "bridge"): the HTTP
    /// connections (c1, c2…) and each child's stdin/stdout (stdio1…) and stderr
    /// (stderr1…).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub record_queue: super::RecordQueue,
    /// Show every byte in and out live in a web page on 127.0.0.1 (its URL, with a
    /// random token, printed on stderr): the messages as a list or a sequence, each
    /// opening to its exact bytes.
    #[arg(long)]
    pub ui: bool,
    #[command(flatten)]
    pub ui_page: super::UiPage,
    #[command(flatten)]
    pub metrics: super::metrics::MetricsArgs,
    /// With --trace or --record: the largest message the views read whole; a longer
    /// one is shown as too long, and recorded all the same.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
    /// With --trace or --record: show tokens and secrets as they crossed; by default
    /// they are masked with '*' on the HTTP connections (the children's stdio lanes
    /// are never masked).
    #[arg(long)]
    pub show_secrets: bool,
    #[command(flatten)]
    pub style: TraceStyle,
    #[command(flatten)]
    pub otlp: super::OtlpArgs,
}

/// The HTTP limits are serve's flags, which there need `--http`; HTTP is all the
/// bridge speaks, so for it that requirement (and the help's "With --http:") goes.
fn http_always(arg: clap::Arg) -> clap::Arg {
    let help = arg.get_help().map(|h| h.to_string()).and_then(|h| {
        let rest = h.strip_prefix("With --http: ")?;
        let mut chars = rest.chars();
        let first = chars.next()?;
        Some(first.to_uppercase().chain(chars).collect::<String>())
    });
    let arg = arg.requires(clap::builder::Resettable::<clap::Id>::Reset);
    match help {
        Some(h) => arg.help(h),
        None => arg,
    }
}
