//! `mcp-raw serve`'s flags: the transport, the server, the shared store, the trace.

use super::listener::{HttpLimits, ProtectArgs, TlsListen};
use super::{EraArg, TraceView, secs};
use crate::cli::color::ColorChoice;
use mcp_raw_net::transport::http;
use mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
use std::path::PathBuf;
use std::time::Duration;

macro_rules! serve_examples {
    () => {
        "Examples:
  mcp-raw serve
      (stdio: what a client spawns; try it with `mcp-raw client -- mcp-raw serve`)
  mcp-raw serve --http --port 3100 --trace oneline
  mcp-raw serve --http --fixture conformance --record server.jsonl
  mcp-raw serve --http --auth-server http://127.0.0.1:3200"
    };
}
pub(crate) use serve_examples;

// `mcp-raw serve`'s arguments. No group of its own (`group(skip)`), as when they were
// the fields of its variant: nothing more to build at each start.
#[derive(clap::Args)]
#[group(skip)]
pub struct ServeArgs {
    /// Serve Streamable HTTP instead of stdio.
    #[arg(long)]
    pub http: bool,
    /// Address to bind with --http. Loopback by default: a local server should
    /// not be reachable from the network.
    #[arg(long, default_value = "127.0.0.1", requires = "http")]
    pub host: String,
    /// Port to bind with --http (0 picks a free one; the log line says which).
    #[arg(short, long, default_value_t = 3100, requires = "http")]
    pub port: u16,
    /// Largest accepted message in bytes: an HTTP body (413 beyond it) or a stdio
    /// line (-32600 beyond it).
    #[arg(long, default_value_t = 4 * 1024 * 1024)]
    pub max_body_bytes: usize,
    /// On stdio with stderr a file or /dev/null, the most bytes of log lines
    /// waiting for the log's writer thread (it writes them every 20 ms); past it,
    /// lines are dropped and counted, and the answers never wait for stderr. (A
    /// pipe or terminal on stderr gets each line at once.)
    #[arg(long, value_name = "N", default_value_t = mcp_raw_net::transport::log::MAX_PENDING, conflicts_with = "http")]
    pub max_log_backlog: usize,
    /// With --http, also answer to this host name in Host and Origin (repeatable;
    /// loopback names are always accepted, any other is refused with 403 to stop
    /// DNS rebinding).
    #[arg(long = "allow-host", value_name = "NAME", requires = "http")]
    pub allow_hosts: Vec<String>,
    /// With --http, listen on a --host that is not loopback even without
    /// --auth-server (anyone who can reach it can use the server).
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// With --http, start every legacy session id with PREFIX (visible ASCII, at
    /// most 64 bytes), so a load balancer routes a session's requests to the replica
    /// that holds it by the id alone (deploy/nginx gives each replica its own).
    #[arg(long, value_name = "PREFIX", default_value = "", requires = "http",
          value_parser = |s: &str| http::sessions::IdPrefix::new(s))]
    pub session_id_prefix: http::sessions::IdPrefix,
    #[command(flatten)]
    pub limits: HttpLimits,
    #[command(flatten)]
    pub protect: ProtectArgs,
    #[command(flatten)]
    pub tls: TlsListen,
    /// Protocol eras to serve: legacy (initialize handshake, 2024-11-05 to
    /// 2025-11-25), modern (stateless 2026-07-28, per-request _meta), or both,
    /// chosen per request.
    #[arg(long, value_enum, default_value_t = EraArg::Both)]
    pub era: EraArg,
    /// What the server offers: demo (get_current_time, echo, add) or
    /// conformance (the tools, resources and prompts the official conformance
    /// suite checks).
    #[arg(long, value_enum, default_value_t = FixtureArg::Demo)]
    pub fixture: FixtureArg,
    /// With --fixture conformance: most tasks kept at once (the oldest finished one
    /// makes room; when all run, a call that would create one gets an error). With
    /// --store: most tasks running at once on this replica (finished ones stay in
    /// Redis until their TTL).
    #[arg(long, value_name = "N", default_value_t = mcp_raw_core::tasks::MAX_TASKS)]
    pub max_tasks: usize,
    /// With --fixture conformance: seconds a task stays readable after its creation
    /// (its ttlMs).
    #[arg(long, value_name = "SECS", default_value = "600", value_parser = secs)]
    pub task_ttl: Duration,
    /// Seal MRTR requestState with the key in FILE (at least 32 bytes; one trailing
    /// newline is dropped) instead of a key drawn per process, so every replica
    /// behind a load balancer opens what another sealed. Give all replicas the same
    /// file; `head -c 32 /dev/urandom > FILE` makes one.
    #[arg(long, value_name = "FILE", env = mcp_raw_core::state_key::ENV)]
    pub state_key_file: Option<PathBuf>,
    /// With --http and --fixture conformance: keep the tasks extension's records and
    /// the subscription hub's events in Redis (redis://HOST:PORT[/DB], or
    /// rediss://HOST:PORT[/DB] for TLS; never a password: see --store-auth-file),
    /// so replicas behind a load balancer serve each other's tasks and listeners.
    /// Without it, one process keeps both in memory.
    // Read by `serve` (store::redis::Target::parse), not by clap: clap's refusal
    // would print the value whole, a password with it.
    #[arg(long, value_name = "URL", requires = "http")]
    pub store: Option<String>,
    /// With --store: the prefix of every Redis key and of the pub/sub channel
    /// (PREFIX:task:ID, PREFIX:lease:ID, PREFIX:bus).
    #[arg(
        long,
        value_name = "PREFIX",
        default_value = "mcp-raw",
        requires = "store"
    )]
    pub store_prefix: String,
    /// With --store: seconds a connection to Redis or one command may take before
    /// the request gets a -32603 error quoting it.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = secs, requires = "store")]
    pub store_timeout: Duration,
    /// With --store: the largest Redis reply read (a task record holds its result).
    #[arg(long, value_name = "N", default_value_t = mcp_raw_net::store::redis::DEFAULT_MAX_REPLY, requires = "store")]
    pub store_max_reply_bytes: usize,
    /// With --store: seconds a replica's lease on a task it runs lasts without
    /// renewal (renewed every third of it); when it lapses (the replica died), the
    /// next reader turns the task failed.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = secs, requires = "store")]
    pub task_lease: Duration,
    /// With --store: print every byte to and from Redis on stderr, `[redis cmd] >`
    /// for a command and `<` for its reply (`[redis bus]` for the pub/sub
    /// connection), CR and LF escaped.
    #[arg(long, requires = "store")]
    pub store_trace: bool,
    /// With --store rediss://: a PEM file of CA certificates trusted for Redis's
    /// certificate, besides the system's store (repeatable). Default: the system's
    /// store only.
    #[arg(long, value_name = "FILE", requires = "store")]
    pub store_cacert: Vec<PathBuf>,
    /// With --store rediss://: a PEM client certificate (leaf first) presented to
    /// Redis, which asks for one unless it runs with `tls-auth-clients no`. Needs
    /// --store-key. Default: none.
    #[arg(long, value_name = "FILE", requires = "store")]
    pub store_cert: Option<PathBuf>,
    /// With --store-cert: its private key, PEM.
    #[arg(long, value_name = "FILE", requires = "store_cert")]
    pub store_key: Option<PathBuf>,
    /// With --store: a file holding Redis AUTH's credentials on one line,
    /// `user:password` (an ACL user) or `password` (the default user); never on
    /// the command line, never printed. Default: no AUTH.
    #[arg(long, value_name = "FILE", requires = "store")]
    pub store_auth_file: Option<PathBuf>,
    /// Print every byte in and out on stderr (never stdout) as it crosses, in the
    /// readable text view, or `--trace raw` for the bytes verbatim, or `--trace
    /// oneline` for a line per message.
    #[arg(long, value_enum, value_name = "VIEW", num_args = 0..=1, default_missing_value = "readable")]
    pub trace: Option<TraceView>,
    /// Write every byte in and out to FILE as a JSON Lines transcript (its format:
    /// the book's reference chapter, docs/en/src/reference/transcript.md).
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
    /// With --trace or --record: the largest message (line, head, body, SSE event)
    /// the trace reads whole; a longer one is shown as too long, and recorded all
    /// the same.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
    /// With --trace or --record: show tokens and secrets (Authorization headers,
    /// OAuth token fields) as they are; by default they are masked with '*' on
    /// HTTP (stdio recordings are never masked).
    #[arg(long)]
    pub show_secrets: bool,
    /// Colour --trace: auto (only when stderr is a terminal and NO_COLOR is unset),
    /// always, or never [default: auto]
    #[arg(long, value_enum, value_name = "WHEN")]
    pub color: Option<ColorChoice>,
    /// With --trace or --record: also mask the value of this header (any case;
    /// repeatable), as Authorization, Cookie and X-Api-Key always are. HTTP only:
    /// stdio recordings are never masked.
    #[arg(long = "redact-header", value_name = "NAME")]
    pub redact_headers: Vec<String>,
    #[command(flatten)]
    pub otlp: super::OtlpArgs,
}

/// `--fixture` on the command line.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum FixtureArg {
    Demo,
    Conformance,
}
