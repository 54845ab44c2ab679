//! `mcp-raw tap`'s flags: stdio, `--http` (a reverse proxy) or `--proxy` (a forward
//! one), where it listens, its clocks, the trace.

use super::listener::TlsListen;
use super::{TraceStyle, TraceView, secs};
use mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
use std::path::PathBuf;
use std::time::Duration;

macro_rules! tap_examples {
    () => {
        "Examples:
  mcp-raw tap --record tap.jsonl -- npx -y @modelcontextprotocol/server-everything
      (give the client this command line in place of the server's)
  mcp-raw tap --http --listen 127.0.0.1:3200 --target http://127.0.0.1:3100/mcp --trace oneline
  mcp-raw tap --check -- mcp-raw serve
  mcp-raw tap --proxy --listen 127.0.0.1:8080 --decrypt-host '*.example.com' --record proxy.jsonl
      (then HTTPS_PROXY=http://127.0.0.1:8080 for the client; `mcp-raw ca` first)
  mcp-raw tap --remote https://mcp.example.com/mcp --record remote.jsonl
      (a stdio command for a client, in front of a Streamable HTTP server)"
    };
}
pub(crate) use tap_examples;

// `mcp-raw tap`'s arguments.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("web").args(["http", "proxy"]).multiple(false)))]
#[command(group(clap::ArgGroup::new("trusting").args(["http", "proxy", "remote"]).multiple(false)))]
pub struct TapArgs {
    /// The stdio server's program and arguments, after `--`, taken as they are.
    #[arg(last = true, value_name = "SERVER_CMD")]
    pub command: Vec<String>,
    /// Relay Streamable HTTP (a reverse proxy) instead of a stdio server.
    #[arg(long)]
    pub http: bool,
    /// Be a forward proxy (set it as the client's HTTPS_PROXY): CONNECT tunnels,
    /// TLS opened with leaves from the local CA (`mcp-raw ca`) for the hosts
    /// --decrypt-host matches, the plaintext recorded; absolute-form http:// requests
    /// relayed. Uses --listen and the limits of --http.
    #[arg(long)]
    pub proxy: bool,
    /// Stand in as a stdio server for the Streamable HTTP server at URL: each line
    /// the client writes is POSTed there, each answer (each SSE event as it comes)
    /// written back a line; the session's id, version headers, GET stream and DELETE
    /// kept as a client keeps them. Records the stdio side and the HTTP side.
    #[arg(long, value_name = "URL")]
    pub remote: Option<String>,
    /// With --remote: a header sent with every request, `NAME: VALUE` (repeatable;
    /// an API key, a bearer token: masked in the recording unless --show-secrets).
    // (Checked with --remote by src/cli/tap.rs, not by clap's `requires`, which clap
    // leaves unchecked whenever an argument that excludes --remote is present.)
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// With --remote: seconds to wait for the server's next bytes on a POST (its
    /// head, or the next piece of its body) before the request gets an error
    /// [default: 60].
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub timeout: Option<Duration>,
    /// With --remote: the largest response body, or single SSE event, read from the
    /// server; past it the request gets an error [default: 16777216].
    #[arg(long, value_name = "N")]
    pub max_response_bytes: Option<usize>,
    /// With --proxy: decrypt only hosts matching PATTERN (repeatable; a host name,
    /// `*` for any characters: `*.example.com`); others pass as opaque tunnels.
    /// [default: every host]
    #[arg(long = "decrypt-host", value_name = "PATTERN", requires = "proxy")]
    pub decrypt_hosts: Vec<String>,
    /// With --proxy: the directory of the CA made by `mcp-raw ca` [default:
    /// $XDG_CONFIG_HOME/mcp-raw, else ~/.config/mcp-raw]
    #[arg(long, value_name = "DIR", requires = "proxy")]
    pub ca_dir: Option<PathBuf>,
    /// With --proxy, --remote, or --http and an https:// --target: also trust the
    /// CA certificates in this PEM FILE (repeatable) for the real host's
    /// certificate, besides the system's trust store.
    #[arg(long = "cacert", value_name = "FILE", requires = "trusting")]
    pub cacert: Vec<PathBuf>,
    /// With --proxy, --remote, or --http and an https:// --target: relay even when
    /// the real host's certificate does not verify (warned on every run; each lane's
    /// tls event says why) [default: off].
    #[arg(long, requires = "trusting")]
    pub insecure: bool,
    #[command(flatten)]
    pub tls: TlsListen,
    /// With --proxy: the longest proxy request head (`CONNECT HOST:PORT`, or a
    /// request with an absolute http:// URL); longer gets 400.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::tap::proxy::limits::MAX_HEAD_BYTES, requires = "proxy")]
    pub max_head_bytes: usize,
    /// With --http or --proxy: where the tap listens, ADDRESS:PORT or a bare PORT (on
    /// 127.0.0.1); port 0 picks a free one (the first line on stderr says which).
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:3200",
        requires = "web"
    )]
    pub listen: String,
    /// With --http or --proxy: allow a --listen address that is not loopback (anyone who can
    /// reach it can talk to the target through the tap).
    #[arg(long, requires = "web")]
    pub allow_remote: bool,
    /// With --http: the server the tap forwards to, http://HOST:PORT/PATH or
    /// https://… (the path is only shown: requests keep the path the client sent).
    #[arg(long, value_name = "URL", requires = "http")]
    pub target: Option<String>,
    /// With --http: rewrite the Host line of each request head to the target's
    /// HOST:PORT (nothing else changes); the recording then shows both sides, each on
    /// its own lane.
    #[arg(long, requires = "web")]
    pub rewrite_host: bool,
    /// With --http or --proxy: seconds connecting to the target may take, its TLS
    /// handshake included (an https:// --target, a decrypted host); then the client
    /// gets 502 Bad Gateway.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = secs, requires = "web")]
    pub connect_timeout: Duration,
    /// With --http or --proxy: most client connections relayed at once; more wait in the
    /// kernel's listen queue until one ends.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::tap::http::limits::MAX_CONNECTIONS, requires = "web")]
    pub max_connections: usize,
    /// With --http or --proxy: seconds a request head may take once begun (and a new
    /// connection before its first byte, or the client's TLS handshake with --proxy or
    /// --tls-cert); then the connection is closed, as `serve --http` does; 0 turns the
    /// clock off.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = secs, requires = "web")]
    pub header_timeout: Duration,
    /// With --http or --proxy: seconds a connection (or opaque tunnel) may sit with no request in flight (a long
    /// SSE stream is in flight); then it is closed, as `serve --http` does; 0 turns
    /// the clock off.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs, requires = "web")]
    pub idle_timeout: Duration,
    /// Stdio: seconds the server's pipes may stay open after it exits (a child of its
    /// own holding them) before the tap exits anyway.
    #[arg(long, value_name = "SECS", default_value = "2", value_parser = secs, conflicts_with = "web")]
    pub drain_timeout: Duration,
    /// Print every byte both ways on stderr as it passes, in the readable text view,
    /// or `--trace raw` for the bytes verbatim, or `--trace oneline` for a line per
    /// message (the server's own stderr passes through to stderr too).
    #[arg(long, value_enum, value_name = "VIEW", num_args = 0..=1, default_missing_value = "readable")]
    pub trace: Option<TraceView>,
    /// Write every byte both ways to FILE as a JSON Lines transcript (role "tap").
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub record_queue: super::RecordQueue,
    /// Write each session to a file of its own in DIR (made if absent), named by
    /// --name and the start time: NAME_YYYYMMDDTHHMMSSmmmZ_pPID.jsonl (`wrap` sets
    /// this to the state directory's sessions/; `mcp-raw sessions` lists them). A
    /// directory that cannot be written is said on stderr and the server runs
    /// unrecorded.
    #[arg(long, value_name = "DIR", conflicts_with = "record")]
    pub record_dir: Option<PathBuf>,
    /// With --record-dir: the name the session's file begins with, CLIENT/SERVER
    /// (`wrap` writes it; `/` and any character outside [A-Za-z0-9.-] become `_`).
    #[arg(
        long,
        value_name = "NAME",
        default_value = "tap",
        requires = "record_dir"
    )]
    pub name: String,
    /// With --record-dir: at start, delete the directory's recordings older than
    /// this many days; 0 keeps them all.
    #[arg(
        long,
        value_name = "DAYS",
        default_value_t = 30,
        requires = "record_dir"
    )]
    pub record_dir_max_age: u64,
    /// With --record-dir: at start, delete the oldest recordings until the
    /// directory's total is under N bytes; 0 sets no limit.
    #[arg(long, value_name = "N", default_value_t = 1 << 30, requires = "record_dir")]
    pub record_dir_max_bytes: u64,
    /// Show every byte in and out live in a web page on 127.0.0.1 (its URL, with a
    /// random token, printed on stderr): the messages as a list or a sequence, each
    /// opening to its exact bytes. A request can be edited and resent from the page:
    /// over stdio it is written to the server between the client's lines (which then
    /// pass whole) and its answer kept from the client; over HTTP it goes through the
    /// tap on a new connection.
    #[arg(long)]
    pub ui: bool,
    /// stdio and --remote: put a W3C traceparent (and tracestate) in the params._meta
    /// of each request the client sends without one, as OpenTelemetry's MCP
    /// conventions carry trace context: each from a span of its own, in the trace
    /// named by TRACEPARENT/TRACESTATE in the environment, else a new trace for the
    /// run. Every other byte of the line stays; the server gets, and the recording
    /// shows, the changed line
    #[arg(long)]
    pub trace_context: bool,
    #[command(flatten)]
    pub ui_page: super::UiPage,
    #[command(flatten)]
    pub metrics: super::metrics::MetricsArgs,
    /// With --ui: hold each JSON-RPC message that matches FILTER in flight until it
    /// is forwarded, edited or dropped on the page (what follows it that way waits
    /// behind it): stdio lines; with --http or --proxy, a POST's body, a JSON
    /// answer, or one event of an event stream. FILTER: words KEY:PATTERN, all of
    /// which must match, `*` any run: method:tools/call, tool:delete_*, dir:c2s, id:7.
    #[arg(long, value_name = "FILTER")]
    pub intercept: Option<String>,
    /// With --ui: offer holding on the page with no filter yet (the page sets one;
    /// nothing is held until it does).
    #[arg(long)]
    pub intercept_ui: bool,
    /// Seconds a held message waits for a decision; then it is forwarded unchanged.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs)]
    pub intercept_timeout: Duration,
    /// With --http or --proxy and --intercept: the largest body (or event) kept
    /// whole so it can be held; a longer one passes as it comes, never held.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::tap::http::hold::DEFAULT_MAX_BYTES, requires = "web")]
    pub intercept_max_bytes: usize,
    /// Check every message as it passes (the rules of `mcp-raw check`): each
    /// violation on stderr as it happens, a summary when the tap ends. The tap's exit
    /// status stays the server's.
    #[arg(long)]
    pub check: bool,
    /// With --trace or --record: the largest message the views read whole; a longer
    /// one is shown as too long, and recorded and passed on all the same.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
    /// With --trace, --record or --check: show tokens and secrets (Authorization and
    /// DPoP values, OAuth token fields, codes and secrets in forms) as they crossed;
    /// by default the views and the record mask them with '*', same length. What is
    /// passed on is never changed either way. Only HTTP is masked: a stdio tap's
    /// record holds the bytes as they crossed.
    #[arg(long)]
    pub show_secrets: bool,
    #[command(flatten)]
    pub style: TraceStyle,
    #[command(flatten)]
    pub otlp: super::OtlpArgs,
}
