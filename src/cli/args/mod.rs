//! The command line: every subcommand and flag, as clap derives them. The `///`
//! comments are the `--help` text. Here: the subcommands, each with its about (its
//! variant's `///`) and its closing text (examples, then exit status), and what
//! several share; each subcommand's flags are in a file of its own.

mod auth_server;
mod bridge;
mod ca;
mod client;
mod completions;
mod contract;
mod demos;
mod har;
mod listener;
mod load;
pub mod metrics;
mod otlp;
mod pin;
mod record_queue;
mod recordings;
mod replay;
mod security;
mod serve;
mod stats;
mod tap;
mod ui;
mod view;
mod wrap;

pub use super::record::TraceView;
pub use auth_server::AuthServerArgs;
pub use bridge::BridgeArgs;
pub use ca::{CaAction, CaArgs};
pub use client::{AskWhen, ClientArgs};
pub use completions::CompletionsArgs;
pub use contract::ContractArgs;
pub use demos::{ConformanceClientArgs, DemoArgs, DemoHttpArgs};
pub use har::{ExportArgs, ExportFormat, ExportHarArgs, ImportArgs, ImportFormat, ImportHarArgs};
pub use listener::TlsListen;
pub use load::{LoadArgs, LoadFormat};
pub use otlp::{ExportOtlpArgs, OtlpArgs};
pub use pin::PinArgs;
pub use record_queue::RecordQueue;
pub use recordings::{CheckArgs, CheckFormat, DiffArgs, ShowArgs, ShowFormat};
pub use replay::ReplayArgs;
pub use security::SecurityArgs;
pub use serve::{FixtureArg, ServeArgs};
pub use stats::{StatsArgs, StatsFormat};
pub use tap::TapArgs;
pub use ui::{UiArgs, UiPage};
pub use view::View;
pub use wrap::{SessionsArgs, WrapAction, WrapArgs};

use super::color::ColorChoice;
use super::exit;
use clap::{Parser, Subcommand};
use mcp_raw_core::Eras;
use std::time::Duration;

/// A hand-written MCP server and client that shows every byte on the wire.
#[derive(Parser)]
#[command(name = "mcp-raw", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Requests a view (--trace, the client's, show's) remembers unanswered, so that
    /// a response's line names what it answers; past it the older half is forgotten
    /// [default: 4096]
    #[arg(long, global = true, value_name = "N")]
    pub max_unanswered: Option<usize>,
}

// Parsed once per process: the size of the `serve` variant (all its limits) costs
// nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
// `defer`: each subcommand's arguments are built only when that subcommand runs
// (or its help is shown), not all of them at every start: building the whole tree
// was most of a cold start (`mcp-bench`'s cold-start row, profiled in callgrind).
// (The `clap::Args` structs carry `//`, not `///`, comments: with `defer`, a
// struct's doc comment would replace its subcommand's about in `--help`.)
//
// Each `after_help` joins the subcommand's examples (a macro beside its flags, "Examples:"
// and its lines) to its exit status (a macro in `exit.rs`) with `concat!`, into one
// literal at compile time: nothing runs for it at start, whatever part of the command
// tree clap builds then.
#[derive(Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Run the MCP server: stdio by default (one JSON-RPC message per line on
    /// stdin/stdout, logs on stderr), or Streamable HTTP on /mcp with --http.
    #[command(after_help = concat!(serve::serve_examples!(), "\n\n", exit::serve_exit!()))]
    Serve(ServeArgs),
    /// Connect to any MCP server (an http:// or https:// URL, or a stdio server's command line),
    /// detect its era, list its tools, call some, and print the whole wire.
    #[command(after_help = concat!(client::client_examples!(), "\n\n", exit::client_exit!()))]
    Client(ClientArgs),
    /// Stand between a real client and a real server, pass every byte on unchanged
    /// both ways, and record it: over stdio, `tap [FLAGS] -- SERVER_CMD ARG…` (the
    /// client runs this in place of the server); over HTTP, `tap --http --listen ADDR
    /// --target URL` (a reverse proxy); or, as a client's HTTPS_PROXY, `tap --proxy
    /// --listen ADDR` (a forward proxy that opens TLS with a local CA's leaves).
    #[command(after_help = concat!(tap::tap_examples!(), "\n\n", exit::tap_exit!()))]
    Tap(TapArgs),
    /// The local certificate authority of `tap --proxy`: `ca` creates it (key 0600 in
    /// the user's config directory) and prints how each runtime trusts it; `ca show`,
    /// `ca rotate`, `ca delete`. Anyone holding its key can impersonate any site to the
    /// programs that trust it: delete it when done.
    #[command(after_help = concat!(ca::ca_examples!(), "\n\n", exit::ca_exit!()))]
    Ca(CaArgs),
    /// Serve a stdio MCP server as Streamable HTTP on /mcp: `bridge --port PORT --
    /// SERVER_CMD ARG…`. Each legacy session gets its own child process (spawned at
    /// initialize, killed when the session ends); modern requests share one.
    #[command(after_help = concat!(bridge::bridge_examples!(), "\n\n", exit::bridge_exit!()))]
    Bridge(BridgeArgs),
    /// A small OAuth 2.1 authorization server on loopback, for trying `serve
    /// --auth-server` and the client's authorization: metadata, key set, dynamic
    /// registration, code + PKCE, refresh tokens, client_credentials. It approves
    /// every request without asking anyone: for demos and tests only.
    #[command(after_help = concat!(auth_server::auth_server_examples!(), "\n\n", exit::auth_server_exit!()))]
    AuthServer(AuthServerArgs),
    /// Print a completion script for your shell: `mcp-raw completions bash >
    /// ~/.local/share/bash-completion/completions/mcp-raw` (zsh: a file `_mcp-raw` on
    /// your $fpath; fish: ~/.config/fish/completions/mcp-raw.fish).
    #[command(after_help = concat!(completions::completions_examples!(), "\n\n", exit::completions_exit!()))]
    Completions(CompletionsArgs),
    /// The client the official conformance suite drives (it passes the server URL and
    /// names the scenario in MCP_CONFORMANCE_SCENARIO). Not for people: hidden.
    #[command(hide = true)]
    ConformanceClient(ConformanceClientArgs),
    /// Check a recorded transcript against JSON-RPC 2.0 and MCP (in the era each
    /// conversation speaks): every violation, where it is, and the spec section.
    #[command(after_help = concat!(recordings::check_examples!(), "\n\n", exit::check_exit!(), " `mcp-raw check --rules` lists every rule."))]
    Check(CheckArgs),
    /// Serve a recording's server side to a live client (a mock server, over the
    /// transport it was recorded on), or with --against send its client side to a live
    /// server again, in order and with the recorded bytes, and show (and --record)
    /// what comes back; compare the two with `mcp-raw diff`.
    #[command(after_help = concat!(replay::replay_examples!(), "\n\n", replay::replay_matching!(), " ", exit::replay_exit!()))]
    Replay(ReplayArgs),
    /// Compare two recordings message by message (each direction in order), leaving
    /// out what --ignore names; exit 1 when they differ.
    #[command(after_help = concat!(recordings::diff_examples!(), "\n\n", exit::diff_exit!()))]
    Diff(DiffArgs),
    /// Render a recorded transcript (from --record) again: the text view (readable, or
    /// --raw for every byte), or --pretty for one indented JSON document.
    #[command(after_help = concat!(recordings::show_examples!(), "\n\n", exit::show_exit!()))]
    Show(ShowArgs),
    /// Open a recorded transcript as a web page on loopback: every message in a list
    /// or as a sequence between client and server, filtered, each opening to its exact
    /// bytes; --follow streams what a running --record appends.
    #[command(after_help = concat!(ui::ui_examples!(), "\n\n", exit::ui_exit!()))]
    Ui(UiArgs),
    /// Put `mcp-raw tap` in front of every stdio server the clients you use start
    /// (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf, Gemini CLI, Codex):
    /// their configurations edited in place, byte for byte undoable; each session
    /// recorded in the state directory (`mcp-raw sessions` lists them).
    #[command(after_help = concat!(wrap::wrap_examples!(), "\n\n", exit::wrap_exit!()))]
    Wrap(WrapArgs),
    /// List the sessions wrapped servers recorded, newest first: messages, errors
    /// and findings of each (`check`'s rules); show, check and ui take the short name.
    #[command(after_help = concat!(wrap::sessions_examples!(), "\n\n", exit::sessions_exit!()))]
    Sessions(SessionsArgs),
    /// Spawn `mcp-raw serve` as a child and drive one whole session over stdio,
    /// printing every message sent (>>>) and received (<<<).
    #[command(after_help = concat!(demos::demo_examples!(), "\n\n", exit::demo_exit!()))]
    Demo(DemoArgs),
    /// Spawn `mcp-raw serve --http` and drive the same session with real HTTP
    /// requests, printing each request and response in full.
    #[command(after_help = concat!(demos::demo_http_examples!(), "\n\n", exit::demo_exit!()))]
    DemoHttp(DemoHttpArgs),
    /// A recording's numbers: per method, tool, session and lane the requests,
    /// errors, latency percentiles and bytes each way; 2026-07-28 operations first
    /// attempt to final answer; what each tool's definition costs a model's context.
    #[command(after_help = concat!(stats::stats_examples!(), "\n\n", exit::stats_exit!()))]
    Stats(StatsArgs),
    /// Put load on a server as real MCP clients do: N clients in either era (each
    /// its own session or process), a mix of calls in a closed or open loop; latency
    /// percentiles per method and tool, failures by kind, throughput, a stdio
    /// server's CPU and peak RSS.
    #[command(after_help = concat!(load::load_examples!(), "\n\n", exit::load_exit!()))]
    Load(LoadArgs),
    /// Hash each tool a trusted recording listed (description, title, schemas,
    /// annotations), for `check --baseline` to find what changed since: the "rug
    /// pull".
    #[command(after_help = concat!(pin::pin_examples!(), "\n\n", exit::pin_exit!()))]
    Pin(PinArgs),
    /// Write a recording in another tool's format: `export har FILE` (HAR 1.2 of its
    /// HTTP lanes, from the bytes that crossed).
    #[command(after_help = concat!(har::export_examples!(), "\n\n", exit::export_exit!()))]
    Export(ExportArgs),
    /// Read another tool's capture into a transcript: `import har FILE -o OUT` (a lane
    /// per HAR entry), for show, check, diff and ui.
    #[command(after_help = concat!(har::import_examples!(), "\n\n", exit::import_exit!()))]
    Import(ImportArgs),
}

// `--color` and `--redact-header` of the programs that trace and record on their own
// (tap, bridge, auth-server): how `--trace` looks, and what it and `--record` mask
// besides the known headers. (`serve` says the second its own way; the client-side
// view colours stdout.) No group of its own: nothing more to build at each start.
#[derive(clap::Args)]
#[group(skip)]
pub struct TraceStyle {
    /// Colour --trace: auto (only when stderr is a terminal and NO_COLOR is unset),
    /// always, or never [default: auto]
    #[arg(long, value_enum, value_name = "WHEN")]
    pub color: Option<ColorChoice>,
    /// With --trace or --record: also mask the value of this header (any case;
    /// repeatable), as Authorization, Cookie and X-Api-Key always are, for an API key
    /// under a name of its own. HTTP lanes only: stdio recordings are never masked.
    #[arg(long = "redact-header", value_name = "NAME")]
    pub redact_headers: Vec<String>,
}

/// `--era` on the command line.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum EraArg {
    Legacy,
    Modern,
    Both,
}

impl From<EraArg> for Eras {
    fn from(e: EraArg) -> Eras {
        match e {
            EraArg::Legacy => Eras::Legacy,
            EraArg::Modern => Eras::Modern,
            EraArg::Both => Eras::Both,
        }
    }
}

/// A timeout of 0 turns that clock off (in practice: three years).
pub fn off_if_zero(d: Duration) -> Duration {
    if d.is_zero() {
        Duration::from_secs(100_000_000)
    } else {
        d
    }
}

/// `SECS` on the command line: a non-negative number of seconds, fractions allowed.
pub(crate) fn secs(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..1e9).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "expected a number of seconds (0 or more, e.g. 30 or 0.5), got {text:?}"
        )),
    }
}
