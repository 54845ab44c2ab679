//! The command line: every subcommand and flag, as clap derives them. The `///`
//! comments are the `--help` text.

pub use super::record::TraceView;
use clap::{Parser, Subcommand};
use mcp_raw_core::Eras;
use mcp_raw_net::client::wire_print::{ColorChoice, Printer};
use mcp_raw_net::transport::http;
use mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE;
use mcp_raw_wire::transcript;
use std::path::PathBuf;
use std::time::Duration;

// Each subcommand's examples, one macro each ("Examples:" and its lines), so that
// what follows them in `--help` (the exit status) stays a text of its own, joined by
// `concat!` into one literal at compile time: nothing runs for it at start, whatever
// part of the command tree clap builds then.

/// `client --help`'s examples: the ones whose quoting people get wrong.
macro_rules! client_examples {
    () => {
        r#"Examples:
  mcp-raw client http://127.0.0.1:3100/mcp
  mcp-raw client --call add='{"a": 2, "b": 3}' -- mcp-raw serve
      (NAME=JSON is one shell word: single quotes around the JSON, double quotes inside)
  mcp-raw client --call echo='{"message": "hi"}' --record out.jsonl "npx -y @modelcontextprotocol/server-everything"
  mcp-raw client --method resources/read --params '{"uri": "test://static-text"}' -- mcp-raw serve --fixture conformance
  mcp-raw client --oneline --call get_current_time -- mcp-raw serve
      (a line per message instead of the whole JSON)"#
    };
}

/// `client --help`'s exit status.
macro_rules! client_exit {
    () => {
        "Exit status: 0 all went well; 1 a call failed or returned isError: true; 2 usage (a bad flag or TARGET); 3 the connection or the protocol failed."
    };
}

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

macro_rules! tap_examples {
    () => {
        "Examples:
  mcp-raw tap --record tap.jsonl -- npx -y @modelcontextprotocol/server-everything
      (give the client this command line in place of the server's)
  mcp-raw tap --http --listen 127.0.0.1:3200 --target http://127.0.0.1:3100/mcp --trace oneline
  mcp-raw tap --check -- mcp-raw serve
  mcp-raw tap --proxy --listen 127.0.0.1:8080 --decrypt-host '*.example.com' --record proxy.jsonl
      (then HTTPS_PROXY=http://127.0.0.1:8080 for the client; `mcp-raw ca` first)"
    };
}

macro_rules! ca_examples {
    () => {
        "Examples:
  mcp-raw ca
      (creates the CA in ~/.config/mcp-raw and prints how to trust it)
  mcp-raw ca show
  mcp-raw ca rotate --dir /tmp/mcp-raw-ca
  mcp-raw ca delete"
    };
}

macro_rules! bridge_examples {
    () => {
        "Examples:
  mcp-raw bridge --port 3300 -- npx -y @modelcontextprotocol/server-everything
  mcp-raw bridge --port 0 --trace oneline -- mcp-raw serve --fixture conformance"
    };
}

macro_rules! auth_server_examples {
    () => {
        "Examples:
  mcp-raw auth-server --port 3200 --scope mcp:tools
  mcp-raw serve --http --auth-server http://127.0.0.1:3200
      (in a second shell: a server protected by it)
  mcp-raw client http://127.0.0.1:3100/mcp
      (in a third: the client walks the OAuth flow, hop by hop)"
    };
}

macro_rules! completions_examples {
    () => {
        "Examples:
  mkdir -p ~/.local/share/bash-completion/completions
  mcp-raw completions bash > ~/.local/share/bash-completion/completions/mcp-raw
  mcp-raw completions fish > ~/.config/fish/completions/mcp-raw.fish"
    };
}

macro_rules! check_examples {
    () => {
        "Examples:
  mcp-raw check session.jsonl
  mcp-raw check --format junit session.jsonl > check.xml
  mcp-raw check --rules"
    };
}

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

macro_rules! diff_examples {
    () => {
        "Examples:
  mcp-raw diff before.jsonl after.jsonl
  mcp-raw diff --ignore result.serverInfo.version --format json before.jsonl after.jsonl"
    };
}

macro_rules! show_examples {
    () => {
        "Examples:
  mcp-raw show session.jsonl --oneline
  mcp-raw show session.jsonl --method tools/call --explain
  mcp-raw show session.jsonl --lane c2 --dir s2c --raw
  mcp-raw show session.jsonl --html session.html
  mcp-raw show --follow session.jsonl
      (from a second terminal, beside a running --record)"
    };
}

macro_rules! demo_examples {
    () => {
        "Examples:
  mcp-raw demo
  mcp-raw demo --era both --oneline
  mcp-raw demo --raw"
    };
}

macro_rules! demo_http_examples {
    () => {
        "Examples:
  mcp-raw demo-http --era modern
  mcp-raw demo-http --auth
  mcp-raw demo-http --port 0 --raw"
    };
}

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
// (The `clap::Args` structs below carry `//`, not `///`, comments: with `defer`, a
// struct's doc comment would replace its subcommand's about in `--help`.)
#[derive(Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Run the MCP server: stdio by default (one JSON-RPC message per line on
    /// stdin/stdout, logs on stderr), or Streamable HTTP on /mcp with --http.
    #[command(after_help = concat!(serve_examples!(), "\n\n", super::exit::serve_exit!()))]
    Serve {
        /// Serve Streamable HTTP instead of stdio.
        #[arg(long)]
        http: bool,
        /// Address to bind with --http. Loopback by default: a local server should
        /// not be reachable from the network.
        #[arg(long, default_value = "127.0.0.1", requires = "http")]
        host: String,
        /// Port to bind with --http (0 picks a free one; the log line says which).
        #[arg(short, long, default_value_t = 3100, requires = "http")]
        port: u16,
        /// Largest accepted message in bytes: an HTTP body (413 beyond it) or a stdio
        /// line (-32600 beyond it).
        #[arg(long, default_value_t = 4 * 1024 * 1024)]
        max_body_bytes: usize,
        /// On stdio with stderr a file or /dev/null, the most bytes of log lines
        /// waiting for the log's writer thread (it writes them every 20 ms); past it,
        /// lines are dropped and counted, and the answers never wait for stderr. (A
        /// pipe or terminal on stderr gets each line at once.)
        #[arg(long, value_name = "N", default_value_t = mcp_raw_net::transport::log::MAX_PENDING, conflicts_with = "http")]
        max_log_backlog: usize,
        /// With --http, also answer to this host name in Host and Origin (repeatable;
        /// loopback names are always accepted, any other is refused with 403 to stop
        /// DNS rebinding).
        #[arg(long = "allow-host", value_name = "NAME", requires = "http")]
        allow_hosts: Vec<String>,
        /// With --http, listen on a --host that is not loopback even without
        /// --auth-server (anyone who can reach it can use the server).
        #[arg(long, requires = "http")]
        allow_remote: bool,
        /// With --http, start every legacy session id with PREFIX (visible ASCII, at
        /// most 64 bytes), so a load balancer routes a session's requests to the replica
        /// that holds it by the id alone (deploy/nginx gives each replica its own).
        #[arg(long, value_name = "PREFIX", default_value = "", requires = "http",
              value_parser = |s: &str| http::sessions::IdPrefix::new(s))]
        session_id_prefix: http::sessions::IdPrefix,
        #[command(flatten)]
        limits: HttpLimits,
        #[command(flatten)]
        protect: ProtectArgs,
        #[command(flatten)]
        tls: TlsListen,
        /// Protocol eras to serve: legacy (initialize handshake, 2024-11-05 to
        /// 2025-11-25), modern (stateless 2026-07-28, per-request _meta), or both,
        /// chosen per request.
        #[arg(long, value_enum, default_value_t = EraArg::Both)]
        era: EraArg,
        /// What the server offers: demo (get_current_time, echo, add) or
        /// conformance (the tools, resources and prompts the official conformance
        /// suite checks).
        #[arg(long, value_enum, default_value_t = FixtureArg::Demo)]
        fixture: FixtureArg,
        /// With --fixture conformance: most tasks kept at once (the oldest finished one
        /// makes room; when all run, a call that would create one gets an error). With
        /// --store: most tasks running at once on this replica (finished ones stay in
        /// Redis until their TTL).
        #[arg(long, value_name = "N", default_value_t = mcp_raw_core::tasks::MAX_TASKS)]
        max_tasks: usize,
        /// With --fixture conformance: seconds a task stays readable after its creation
        /// (its ttlMs).
        #[arg(long, value_name = "SECS", default_value = "600", value_parser = secs)]
        task_ttl: Duration,
        /// Seal MRTR requestState with the key in FILE (at least 32 bytes; one trailing
        /// newline is dropped) instead of a key drawn per process, so every replica
        /// behind a load balancer opens what another sealed. Give all replicas the same
        /// file; `head -c 32 /dev/urandom > FILE` makes one.
        #[arg(long, value_name = "FILE", env = mcp_raw_core::state_key::ENV)]
        state_key_file: Option<PathBuf>,
        /// With --http and --fixture conformance: keep the tasks extension's records and
        /// the subscription hub's events in Redis (redis://HOST:PORT[/DB], or
        /// rediss://HOST:PORT[/DB] for TLS; never a password: see --store-auth-file),
        /// so replicas behind a load balancer serve each other's tasks and listeners.
        /// Without it, one process keeps both in memory.
        // Read by `serve` (store::redis::Target::parse), not by clap: clap's refusal
        // would print the value whole, a password with it.
        #[arg(long, value_name = "URL", requires = "http")]
        store: Option<String>,
        /// With --store: the prefix of every Redis key and of the pub/sub channel
        /// (PREFIX:task:ID, PREFIX:lease:ID, PREFIX:bus).
        #[arg(
            long,
            value_name = "PREFIX",
            default_value = "mcp-raw",
            requires = "store"
        )]
        store_prefix: String,
        /// With --store: seconds a connection to Redis or one command may take before
        /// the request gets a -32603 error quoting it.
        #[arg(long, value_name = "SECS", default_value = "5", value_parser = secs, requires = "store")]
        store_timeout: Duration,
        /// With --store: the largest Redis reply read (a task record holds its result).
        #[arg(long, value_name = "N", default_value_t = mcp_raw_net::store::redis::DEFAULT_MAX_REPLY, requires = "store")]
        store_max_reply_bytes: usize,
        /// With --store: seconds a replica's lease on a task it runs lasts without
        /// renewal (renewed every third of it); when it lapses (the replica died), the
        /// next reader turns the task failed.
        #[arg(long, value_name = "SECS", default_value = "10", value_parser = secs, requires = "store")]
        task_lease: Duration,
        /// With --store: print every byte to and from Redis on stderr, `[redis cmd] >`
        /// for a command and `<` for its reply (`[redis bus]` for the pub/sub
        /// connection), CR and LF escaped.
        #[arg(long, requires = "store")]
        store_trace: bool,
        /// With --store rediss://: a PEM file of CA certificates trusted for Redis's
        /// certificate, besides the system's store (repeatable). Default: the system's
        /// store only.
        #[arg(long, value_name = "FILE", requires = "store")]
        store_cacert: Vec<PathBuf>,
        /// With --store rediss://: a PEM client certificate (leaf first) presented to
        /// Redis, which asks for one unless it runs with `tls-auth-clients no`. Needs
        /// --store-key. Default: none.
        #[arg(long, value_name = "FILE", requires = "store")]
        store_cert: Option<PathBuf>,
        /// With --store-cert: its private key, PEM.
        #[arg(long, value_name = "FILE", requires = "store_cert")]
        store_key: Option<PathBuf>,
        /// With --store: a file holding Redis AUTH's credentials on one line,
        /// `user:password` (an ACL user) or `password` (the default user); never on
        /// the command line, never printed. Default: no AUTH.
        #[arg(long, value_name = "FILE", requires = "store")]
        store_auth_file: Option<PathBuf>,
        /// Print every byte in and out on stderr (never stdout) as it crosses, in the
        /// readable text view, or `--trace raw` for the bytes verbatim, or `--trace
        /// oneline` for a line per message.
        #[arg(long, value_enum, value_name = "VIEW", num_args = 0..=1, default_missing_value = "readable")]
        trace: Option<TraceView>,
        /// Write every byte in and out to FILE as a JSON Lines transcript (see the
        /// README's "Transcript format").
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
        /// With --trace or --record: the largest message (line, head, body, SSE event)
        /// the trace reads whole; a longer one is shown as too long, and recorded all
        /// the same.
        #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
        max_message_bytes: usize,
        /// With --trace or --record: show tokens and secrets (Authorization headers,
        /// OAuth token fields) as they are; by default they are masked with '*' on
        /// HTTP (stdio recordings are never masked).
        #[arg(long)]
        show_secrets: bool,
        /// Colour --trace: auto (only when stderr is a terminal and NO_COLOR is unset),
        /// always, or never [default: auto]
        #[arg(long, value_enum, value_name = "WHEN")]
        color: Option<ColorChoice>,
        /// With --trace or --record: also mask the value of this header (any case;
        /// repeatable), as Authorization, Cookie and X-Api-Key always are. HTTP only:
        /// stdio recordings are never masked.
        #[arg(long = "redact-header", value_name = "NAME")]
        redact_headers: Vec<String>,
    },
    /// Connect to any MCP server (an http:// or https:// URL, or a stdio server's command line),
    /// detect its era, list its tools, call some, and print the whole wire.
    #[command(after_help = concat!(client_examples!(), "\n\n", client_exit!()))]
    Client(ClientArgs),
    /// Stand between a real client and a real server, pass every byte on unchanged
    /// both ways, and record it: over stdio, `tap [FLAGS] -- SERVER_CMD ARG…` (the
    /// client runs this in place of the server); over HTTP, `tap --http --listen ADDR
    /// --target URL` (a reverse proxy); or, as a client's HTTPS_PROXY, `tap --proxy
    /// --listen ADDR` (a forward proxy that opens TLS with a local CA's leaves).
    #[command(
        after_help = concat!(tap_examples!(), "\n\n", "Exit status (stdio): the server's own, or 128 + the signal that killed it; \
127 the server's program was not found, 126 it could not be run; 2 usage.")
    )]
    Tap(TapArgs),
    /// The local certificate authority of `tap --proxy`: `ca` creates it (key 0600 in
    /// the user's config directory) and prints how each runtime trusts it; `ca show`,
    /// `ca rotate`, `ca delete`. Anyone holding its key can impersonate any site to the
    /// programs that trust it: delete it when done.
    #[command(after_help = concat!(ca_examples!(), "\n\n", super::exit::ca_exit!()))]
    Ca(CaArgs),
    /// Serve a stdio MCP server as Streamable HTTP on /mcp: `bridge --port PORT --
    /// SERVER_CMD ARG…`. Each legacy session gets its own child process (spawned at
    /// initialize, killed when the session ends); modern requests share one.
    #[command(after_help = concat!(bridge_examples!(), "\n\n", super::exit::bridge_exit!()))]
    Bridge(BridgeArgs),
    /// A small OAuth 2.1 authorization server on loopback, for trying `serve
    /// --auth-server` and the client's authorization: metadata, key set, dynamic
    /// registration, code + PKCE, refresh tokens, client_credentials. It approves
    /// every request without asking anyone: for demos and tests only.
    #[command(after_help = concat!(auth_server_examples!(), "\n\n", super::exit::auth_server_exit!()))]
    AuthServer(AuthServerArgs),
    /// Print a completion script for your shell: `mcp-raw completions bash >
    /// ~/.local/share/bash-completion/completions/mcp-raw` (zsh: a file `_mcp-raw` on
    /// your $fpath; fish: ~/.config/fish/completions/mcp-raw.fish).
    #[command(after_help = concat!(completions_examples!(), "\n\n", super::exit::completions_exit!()))]
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The client the official conformance suite drives (it passes the server URL and
    /// names the scenario in MCP_CONFORMANCE_SCENARIO). Not for people: hidden.
    #[command(hide = true)]
    ConformanceClient {
        /// The mock server's URL, appended by the suite.
        url: String,
        #[command(flatten)]
        view: View,
    },
    /// Check a recorded transcript against JSON-RPC 2.0 and MCP (in the era each
    /// conversation speaks): every violation, where it is, and the spec section.
    #[command(
        after_help = concat!(check_examples!(), "\n\n", "Exit status: 0 no errors (warnings allowed), 1 a rule was broken, 2 the file cannot be read. `mcp-raw check --rules` lists every rule.")
    )]
    Check {
        /// A JSON Lines transcript written by --record (`tap`, `serve`, `client`).
        #[arg(required_unless_present = "rules")]
        file: Option<PathBuf>,
        /// text (a line per finding, then a summary), json (one document) or junit
        /// (a test case per rule, for CI).
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
        /// List every rule the checker knows (id, severity, spec section) and exit.
        #[arg(long, conflicts_with = "file")]
        rules: bool,
        /// The largest message read whole; a longer one is skipped.
        #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
        max_message_bytes: usize,
        /// Colour the text report (error and warning marked): auto (only on a
        /// terminal, and not when NO_COLOR is set), always, or never.
        #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Serve a recording's server side to a live client (a mock server, over the
    /// transport it was recorded on), or with --against send its client side to a live
    /// server again, in order and with the recorded bytes, and show (and --record)
    /// what comes back; compare the two with `mcp-raw diff`.
    #[command(
        after_help = concat!(replay_examples!(), "\n\n", "Serving: a live request gets the reply recorded for the first unused recorded request with the same method and params (--ignore left out), its ids rewritten; one the recording does not hold gets -32601 or -32602 naming what it expected next. --against: the live server's session id replaces the recorded one; the recording's answers to server requests are sent when the live server asks (with its ids); its GET streams are followed, those resuming a recorded stream (Last-Event-ID) skipped. Exit status: 0 replayed, 1 the server failed or fell silent, 2 usage.")
    )]
    Replay {
        /// A JSON Lines transcript written by --record.
        file: PathBuf,
        /// The live server: an http:// URL, or a stdio server's command line (or give
        /// the command after `--`).
        #[arg(long, value_name = "TARGET")]
        against: Option<String>,
        /// The stdio server's program and arguments, after `--`.
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
        /// Seconds to wait for the server's next bytes of an answer (SSE keep-alive
        /// comments do not count: they cannot hold a wait open).
        #[arg(long, value_name = "SECS", default_value = "30", value_parser = secs)]
        timeout: Duration,
        /// Serving (no --against): over Streamable HTTP even when the recording was
        /// made over stdio (by default the mock speaks the transport recorded).
        #[arg(long, conflicts_with = "against")]
        http: bool,
        /// Serving over HTTP: the port (0 picks a free one; the first line on stderr
        /// says which).
        #[arg(short, long, value_name = "PORT", default_value_t = 3000)]
        port: u16,
        #[command(flatten)]
        tls: TlsListen,
        /// Serving: what to leave out when matching a live request to a recorded one
        /// (as for `diff --ignore`: id, time, uuid, or a path such as params._meta).
        /// Default: id, time, uuid.
        #[arg(long, value_name = "WHAT")]
        ignore: Vec<String>,
        #[command(flatten)]
        view: View,
    },
    /// Compare two recordings message by message (each direction in order), leaving
    /// out what --ignore names; exit 1 when they differ.
    #[command(
        after_help = concat!(diff_examples!(), "\n\n", "Exit status: 0 the same (but for what is ignored), 1 different, 2 a file cannot be read.")
    )]
    Diff {
        /// The recording expected (e.g. the one made once and kept).
        a: PathBuf,
        /// The recording to compare (e.g. `replay --against … --record B`).
        b: PathBuf,
        /// What to leave out: id (request ids and the ids that refer to them), time
        /// (RFC 3339 strings), uuid (strings holding one), or a field's path such as
        /// result.serverInfo.version or result.content[].text (repeatable). Default:
        /// id, time, uuid; --ignore none compares everything.
        #[arg(long, value_name = "WHAT")]
        ignore: Vec<String>,
        /// text (a line per difference, then a summary) or json.
        #[arg(long, value_parser = ["text", "json"], default_value = "text")]
        format: String,
        /// Show at most this many differences (the count is always complete).
        #[arg(long, value_name = "N", default_value_t = 20)]
        max_shown: usize,
        /// Colour the text output (each difference's place marked): auto (only on a
        /// terminal, and not when NO_COLOR is set), always, or never.
        #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Render a recorded transcript (from --record) again: the text view (readable, or
    /// --raw for every byte), or --pretty for one indented JSON document.
    #[command(after_help = concat!(show_examples!(), "\n\n", super::exit::show_exit!()))]
    Show {
        /// A JSON Lines transcript written by --record.
        file: PathBuf,
        /// Every byte verbatim, invisible ones marked.
        #[arg(long)]
        raw: bool,
        /// One pretty JSON document: each event with the facts read from it.
        #[arg(long, conflicts_with = "raw")]
        pretty: bool,
        /// text (a text view, the default), json (as --json) or pretty (as --pretty).
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<ShowFormat>,
        /// One line per message: direction, lane, time, shape, method (and a
        /// tools/call's tool), id, status, size in bytes, and the first line of a
        /// tool's result.
        #[arg(long, conflicts_with_all = ["raw", "pretty", "json", "explain", "html"])]
        oneline: bool,
        /// The largest message read whole; a longer one is shown as too long.
        #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
        max_message_bytes: usize,
        /// Colour: auto (on a terminal, NO_COLOR unset), always or never.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
        /// Only these lanes: `stdio`, `stderr`, `c1`, `c2`…, and a bridge's children's
        /// `stdio1`, `stderr1`… (repeatable).
        #[arg(long, value_name = "LANE")]
        lane: Vec<String>,
        /// Only one direction: c2s (what the client sent) or s2c (what the server sent).
        #[arg(long, value_name = "DIR", value_parser = ["c2s", "s2c"])]
        dir: Option<String>,
        /// Only messages of this method, and the responses to those requests
        /// (repeatable); heads, chunks and SSE framing are left out.
        #[arg(long, value_name = "METHOD")]
        method: Vec<String>,
        /// Only messages with this id (`3`, `abc`), requests and responses (repeatable).
        #[arg(long, value_name = "ID")]
        id: Vec<String>,
        /// Only messages that declare 2026-07-28 in `_meta` (modern), or that do not
        /// (legacy), and the responses to those requests.
        #[arg(long, value_name = "ERA", value_parser = ["legacy", "modern"])]
        era: Option<String>,
        /// The JSON Lines transcript of what is kept, on stdout (with a message
        /// filter: only the kept messages' fact lines).
        #[arg(long, conflicts_with_all = ["raw", "pretty", "explain"])]
        json: bool,
        /// Annotate each message and HTTP head with what it is and the spec rule that
        /// governs it (its shape, its era, its method's section).
        #[arg(long, conflicts_with_all = ["raw", "pretty"])]
        explain: bool,
        /// Keep reading as the file grows (from a second terminal, beside a running
        /// --record), until interrupted; waits for a file that does not exist yet.
        #[arg(long, conflicts_with = "pretty")]
        follow: bool,
        /// Write one self-contained HTML page (no network access) to OUT: a column per
        /// lane, a row per head, SSE event and message, each opening to its exact bytes
        /// and its explanation.
        #[arg(long, value_name = "OUT", conflicts_with_all = ["raw", "pretty", "json", "explain", "follow", "method", "id", "era"])]
        html: Option<PathBuf>,
    },
    /// Spawn `mcp-raw serve` as a child and drive one whole session over stdio,
    /// printing every message sent (>>>) and received (<<<).
    #[command(after_help = concat!(demo_examples!(), "\n\n", super::exit::demo_exit!()))]
    Demo {
        /// The wire to show: legacy (the original project's session), modern
        /// (stateless 2026-07-28), or both: the same call in each era, one after the other, against one dual-era server.
        #[arg(long, value_enum, default_value_t = EraArg::Legacy)]
        era: EraArg,
        #[command(flatten)]
        view: View,
    },
    /// Spawn `mcp-raw serve --http` and drive the same session with real HTTP
    /// requests, printing each request and response in full.
    #[command(after_help = concat!(demo_http_examples!(), "\n\n", super::exit::demo_exit!()))]
    DemoHttp {
        /// Port the spawned server listens on (0 picks a free one).
        #[arg(short, long, default_value_t = 3100)]
        port: u16,
        /// The wire to show: legacy (the original project's session), modern
        /// (stateless 2026-07-28), or both: the same call in each era, one after the other, against one dual-era server.
        #[arg(long, value_enum, default_value_t = EraArg::Legacy)]
        era: EraArg,
        /// Show authorization instead: spawn `mcp-raw auth-server` too, protect the
        /// server with it, and walk the OAuth flow hop by hop (401, metadata,
        /// registration, code + PKCE, token, refresh, 403, 401).
        #[arg(long, conflicts_with = "era")]
        auth: bool,
        #[command(flatten)]
        view: View,
    },
}

// `mcp-raw client`'s arguments.
#[derive(clap::Args)]
pub struct ClientArgs {
    /// `http://host:port/path` or `https://host/path`, or the command line of a
    /// stdio server, split like a shell would (quotes and backslashes), e.g.
    /// "mcp-raw serve". Or leave it out and give the command after `--`.
    #[arg(required_unless_present = "command", conflicts_with = "command")]
    pub target: Option<String>,
    /// The stdio server's program and arguments, taken as they are: `-- CMD ARG…`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
    /// Eras this client may speak: both probes with server/discover and falls back
    /// to initialize; modern or legacy insist on one.
    #[arg(long, value_enum, default_value_t = EraArg::Both)]
    pub era: EraArg,
    /// Call a tool after listing: NAME or NAME={"json":"arguments"} (repeatable).
    #[arg(long = "call", value_name = "NAME[=JSON]")]
    pub calls: Vec<String>,
    /// Seconds to wait for the server's next bytes of an answer (a response head,
    /// the next piece of its body, a stdio reply); a stream lives as long as it
    /// moves, and SSE keep-alive comments do not count as moving.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs)]
    pub timeout: Duration,
    /// Seconds a server may take to give its first answer: to initialize, or (stdio)
    /// a late one to the era probe, which a server still starting sends once up.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = secs)]
    pub startup_timeout: Duration,
    /// Seconds a stdio server may take to exit after its stdin closes; then it gets
    /// SIGTERM, and as long again later SIGKILL.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = secs)]
    pub shutdown_timeout: Duration,
    /// Legacy HTTP: how many times a stream that closed before its response is resumed
    /// (GET with Last-Event-ID) before giving up.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub max_resumes: usize,
    /// Legacy HTTP: the longest retry: (seconds) honoured before resuming a stream.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = secs)]
    pub max_retry_wait: Duration,
    /// Modern: the most input_required rounds one request may take.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub max_input_rounds: usize,
    /// HTTP: the largest response body read whole (a JSON response, one request's
    /// event stream), and the largest single event of a long-lived stream; a bigger
    /// one ends the run with exit status 3.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_net::client::http_link::DEFAULT_MAX_BODY)]
    pub max_response_bytes: usize,
    /// OAuth: the largest body of a metadata document, registration or token response
    /// (read whole, then parsed); a bigger one ends the run with exit status 3.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_net::client::http_link::DEFAULT_MAX_DOCUMENT)]
    pub max_oauth_bytes: usize,
    /// An environment variable for the stdio server, NAME=VALUE (repeatable).
    #[arg(long = "env", value_name = "NAME=VALUE")]
    pub env: Vec<String>,
    /// The stdio server's working directory.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// An HTTP header sent with every request, 'Name: value' (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// https: trust the CA certificates in this PEM file too, besides the system's
    /// trust store (repeatable).
    #[arg(long = "cacert", value_name = "FILE")]
    pub cacert: Vec<PathBuf>,
    /// https: connect even when the server's certificate does not verify (expired,
    /// self-signed, another host's). Warns on every run; the transcript records it.
    #[arg(long)]
    pub insecure: bool,
    /// https: a client certificate (PEM, leaf first) for servers that require one
    /// (mTLS); needs --key.
    #[arg(long, value_name = "FILE", requires = "key")]
    pub cert: Option<PathBuf>,
    /// https: the private key of --cert (PEM).
    #[arg(long, value_name = "FILE", requires = "cert")]
    pub key: Option<PathBuf>,
    /// https: append each TLS session's secrets to FILE (NSS key log format, created
    /// 0600), so Wireshark can decrypt a capture of the same session. Off by default.
    #[arg(long, value_name = "FILE", env = "SSLKEYLOGFILE")]
    pub keylog: Option<PathBuf>,
    /// After the calls, keep reading what the server sends unprompted (list changes,
    /// resource updates) until the stream ends or Ctrl-C: GET /mcp in a legacy
    /// session, a subscriptions/listen request in the modern era. (Formerly
    /// `--listen`, still accepted: `--listen` elsewhere names an address to bind.)
    #[arg(long, alias = "listen")]
    pub follow: bool,
    /// A root to offer the server (roots/list), a local path (repeatable); declares
    /// the roots capability.
    #[arg(long = "root", value_name = "PATH")]
    pub roots: Vec<PathBuf>,
    /// What to answer when the server asks: sampling=JSON (a CreateMessageResult),
    /// elicitation=JSON (an ElicitResult for a form) or elicitation-url=JSON (for a
    /// URL-mode elicitation), repeatable; declares that capability. Unanswerable
    /// questions get a JSON-RPC error saying which flag is missing.
    #[arg(long = "answer", value_name = "KIND=JSON")]
    pub answer: Vec<String>,
    /// The answers from a file: {"sampling": …, "elicitation": …, "roots": […]}.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Ask the user at the terminal (/dev/tty) what no --answer scripts: sampling
    /// and form elicitation. auto: when stdin and stdout are a terminal; always
    /// (fails without one); never: unscripted questions are refused.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = AskWhen::Auto)]
    pub ask: AskWhen,
    /// Tasks: follow a tool a legacy server runs as a task also when the task is
    /// optional (one it requires always is), declare the modern tasks extension,
    /// and run the server's task-augmented sampling and elicitation as tasks.
    #[arg(long)]
    pub tasks: bool,
    /// OAuth (HTTP, on 401): a client id registered beforehand with the
    /// authorization server; without one the client uses --client-metadata-url where
    /// the server supports it, else dynamic client registration.
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// OAuth: the secret of --client-id, for a confidential client.
    #[arg(long, value_name = "SECRET", requires = "client_id")]
    pub client_secret: Option<String>,
    /// OAuth: --client-secret read from FILE instead (kept out of `ps` and the shell's
    /// history; one trailing newline is dropped).
    #[arg(
        long,
        value_name = "FILE",
        requires = "client_id",
        conflicts_with = "client_secret"
    )]
    pub client_secret_file: Option<PathBuf>,
    /// OAuth: an https URL of this client's metadata document, used as its client id
    /// where the authorization server supports client ID metadata documents.
    #[arg(long, value_name = "URL")]
    pub client_metadata_url: Option<String>,
    /// OAuth: the scope to ask for, instead of the one the server suggests (the
    /// 401's scope, else the resource's scopes_supported).
    #[arg(long, value_name = "SCOPE")]
    pub scope: Option<String>,
    /// OAuth: seconds to wait for the browser's redirect when the authorization
    /// server needs a person to approve (the URL to open is printed).
    #[arg(long, value_name = "SECS", default_value = "300", value_parser = secs)]
    pub auth_timeout: Duration,
    /// OAuth: the most authorization rounds one request may cause (a server that
    /// keeps refusing with 403 insufficient_scope must not loop the client).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub max_auth_rounds: usize,
    /// OAuth: how to get the token. authorization-code: a person approves in a
    /// browser (PKCE). client-credentials: the client acts for itself, with
    /// --client-id and --client-secret or --client-key (RFC 6749 §4.4).
    /// jwt-bearer: the JWT of --assertion is the grant (workload identity, RFC 7523
    /// §2.1). id-jag: enterprise-managed, the --id-token exchanged at the
    /// --idp-token-endpoint for an ID-JAG, then that as a jwt-bearer grant (RFC 8693).
    #[arg(long, value_enum, value_name = "GRANT", default_value_t = GrantArg::AuthorizationCode)]
    pub grant: GrantArg,
    /// OAuth: a PEM private key (PKCS#8; RSA also PKCS#1) whose public half the
    /// authorization server knows: the client authenticates with a signed
    /// client_assertion (private_key_jwt, RFC 7523 §2.2) instead of a secret.
    #[arg(long, value_name = "FILE", requires = "client_id")]
    pub client_key: Option<PathBuf>,
    /// OAuth: the JWS algorithm of --client-key (ES256, ES384, RS256, PS256, EdDSA…).
    #[arg(
        long,
        value_name = "ALG",
        default_value = "ES256",
        requires = "client_key"
    )]
    pub client_key_alg: String,
    /// OAuth: seconds a client assertion the client signs stays valid (its exp).
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs)]
    pub assertion_lifetime: Duration,
    /// OAuth, --grant jwt-bearer: a file holding the JWT to present (e.g. a workload
    /// identity token), read each time a token is needed, so a rotated one is used.
    #[arg(long, value_name = "FILE")]
    pub assertion: Option<PathBuf>,
    /// OAuth, --grant id-jag: a file holding the user's ID token from the identity
    /// provider.
    #[arg(long, value_name = "FILE")]
    pub id_token: Option<PathBuf>,
    /// OAuth, --grant id-jag: the identity provider's token endpoint, where the ID
    /// token is exchanged for an ID-JAG.
    #[arg(long, value_name = "URL")]
    pub idp_token_endpoint: Option<String>,
    /// OAuth, --grant id-jag: this client's id at the identity provider.
    #[arg(long, value_name = "ID")]
    pub idp_client_id: Option<String>,
    /// OAuth, --grant id-jag: its secret there (client_secret_basic).
    #[arg(long, value_name = "SECRET", requires = "idp_client_id")]
    pub idp_client_secret: Option<String>,
    /// OAuth, --grant id-jag: --idp-client-secret read from FILE instead.
    #[arg(
        long,
        value_name = "FILE",
        requires = "idp_client_id",
        conflicts_with = "idp_client_secret"
    )]
    pub idp_client_secret_file: Option<PathBuf>,
    /// OAuth: bind tokens to a key the client holds (DPoP, RFC 9449): a proof with
    /// the token request and with every request to the server. auto: when the
    /// server asks (a DPoP challenge, or dpop_bound_access_tokens_required).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = DpopArg::Auto)]
    pub dpop: DpopArg,
    /// Seconds a task a server runs for a tools/call is followed (polled, its result
    /// awaited) before the client cancels it and gives up.
    #[arg(long, value_name = "SECS", default_value = "300", value_parser = secs)]
    pub task_timeout: Duration,
    /// After the calls, send this request (any method: resources/read, prompts/get,
    /// ping, tasks/get…), repeatable, run in order; its params come from the
    /// --params that follows it.
    #[arg(long = "method", value_name = "NAME")]
    pub methods: Vec<String>,
    /// The params (a JSON object) of the --method before it; {} when left out.
    #[arg(long = "params", value_name = "JSON", requires = "methods")]
    pub params: Vec<String>,
    /// Ask for progress notifications: a progressToken on every request that does
    /// work.
    #[arg(long)]
    pub progress: bool,
    /// Ask for log messages at this level and above (debug, info, notice, warning,
    /// error, critical, alert, emergency): logging/setLevel in a legacy session, in
    /// each request's _meta in the modern era.
    #[arg(long, value_name = "LEVEL", value_parser = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])]
    pub log_level: Option<String>,
    #[command(flatten)]
    pub view: View,
}

/// `client --ask`: when the user at the terminal answers the server's questions.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum AskWhen {
    Auto,
    Always,
    Never,
}

/// `client --grant`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum GrantArg {
    AuthorizationCode,
    ClientCredentials,
    JwtBearer,
    IdJag,
}

impl From<GrantArg> for mcp_raw_net::client::auth::Grant {
    fn from(g: GrantArg) -> Self {
        use mcp_raw_net::client::auth::Grant;
        match g {
            GrantArg::AuthorizationCode => Grant::AuthorizationCode,
            GrantArg::ClientCredentials => Grant::ClientCredentials,
            GrantArg::JwtBearer => Grant::JwtBearer,
            GrantArg::IdJag => Grant::IdJag,
        }
    }
}

/// `client --dpop`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum DpopArg {
    Auto,
    Always,
    Never,
}

impl From<DpopArg> for mcp_raw_net::client::auth::DpopUse {
    fn from(d: DpopArg) -> Self {
        use mcp_raw_net::client::auth::DpopUse;
        match d {
            DpopArg::Auto => DpopUse::Auto,
            DpopArg::Always => DpopUse::Always,
            DpopArg::Never => DpopUse::Never,
        }
    }
}

/// `check --format`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
    Junit,
}

/// `--format` of the client, the demos and replay: the text view, or the transcript.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    Text,
    Json,
}

/// `show --format`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShowFormat {
    Text,
    Json,
    Pretty,
}

// `mcp-raw tap`'s arguments.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("web").args(["http", "proxy"]).multiple(false)))]
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
    /// With --proxy: decrypt only hosts matching PATTERN (repeatable; a host name,
    /// `*` for any characters: `*.example.com`); others pass as opaque tunnels.
    /// [default: every host]
    #[arg(long = "decrypt-host", value_name = "PATTERN", requires = "proxy")]
    pub decrypt_hosts: Vec<String>,
    /// With --proxy: the directory of the CA made by `mcp-raw ca` [default:
    /// $XDG_CONFIG_HOME/mcp-raw, else ~/.config/mcp-raw]
    #[arg(long, value_name = "DIR", requires = "proxy")]
    pub ca_dir: Option<PathBuf>,
    /// With --proxy, or --http and an https:// --target: also trust the CA
    /// certificates in this PEM FILE (repeatable) for the real host's certificate,
    /// besides the system's trust store.
    #[arg(long = "cacert", value_name = "FILE", requires = "web")]
    pub cacert: Vec<PathBuf>,
    /// With --proxy, or --http and an https:// --target: relay even when the real
    /// host's certificate does not verify (warned on every run; each lane's tls event
    /// says why) [default: off].
    #[arg(long, requires = "web")]
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

// `mcp-raw ca`'s arguments.
#[derive(clap::Args)]
pub struct CaArgs {
    /// create (when there is none), show, rotate (a new key and certificate), or
    /// delete.
    #[arg(value_enum, default_value = "create")]
    pub action: CaAction,
    /// The CA's directory [default: $XDG_CONFIG_HOME/mcp-raw, else ~/.config/mcp-raw]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// What `mcp-raw ca` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CaAction {
    /// Create the CA if there is none; print its path and how to trust it.
    Create,
    /// Print the certificate's subject, validity and SHA-256 fingerprint.
    Show,
    /// Replace the key and certificate with new ones.
    Rotate,
    /// Remove the key and certificate.
    Delete,
}

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
    /// With --trace or --record: the largest message the views read whole; a longer
    /// one is shown as too long, and recorded all the same.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
    /// With --trace or --record: show tokens and secrets as they crossed; by default
    /// they are masked with '*' on the HTTP connections (the children's stdio lanes
    /// are never masked).
    #[arg(long)]
    pub show_secrets: bool,
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

// `auth-server`: where it listens, what it issues, its limits.
#[derive(clap::Args)]
pub struct AuthServerArgs {
    /// Loopback address to bind (it approves everything, so it refuses any other).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to bind (0 picks a free one; the log line says which).
    #[arg(short, long, default_value_t = 3200)]
    pub port: u16,
    /// A scope it issues (repeatable); requests for others get invalid_scope
    /// [default: mcp:tools].
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scopes: Vec<String>,
    /// A pre-registered client, ID (public) or ID:SECRET (confidential; may use
    /// client_credentials); repeatable. Others register with POST /register.
    #[arg(long = "client", value_name = "ID[:SECRET]")]
    pub clients: Vec<String>,
    /// Pre-registered clients read from FILE, one ID or ID:SECRET a line (blank lines
    /// and lines starting with # skipped), so secrets stay out of `ps`; instead of
    /// --client.
    #[arg(long, value_name = "FILE", conflicts_with = "clients")]
    pub clients_file: Option<PathBuf>,
    /// Seconds an access token lasts.
    #[arg(long, value_name = "SECS", default_value = "3600", value_parser = secs)]
    pub token_ttl: Duration,
    /// Seconds an authorization code may wait for its exchange.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs)]
    pub code_ttl: Duration,
    /// Most clients registered at once; one more registration gets 503.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_clients: usize,
    /// Most authorization codes waiting for their exchange; one more /authorize is
    /// redirected back with error=temporarily_unavailable.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::authserver::MAX_CODES)]
    pub max_codes: usize,
    /// Most refresh tokens kept (used ones included, until they expire, to catch a
    /// replay); a grant that would issue one more gets 503 temporarily_unavailable.
    #[arg(long, value_name = "N", default_value_t = mcp_raw_tools::authserver::MAX_REFRESH)]
    pub max_refresh_tokens: usize,
    /// Seconds a refresh token lasts. Each is used once (rotated); one used twice
    /// revokes every refresh token of its family.
    #[arg(long, value_name = "SECS", default_value = "86400", value_parser = secs)]
    pub refresh_ttl: Duration,
    /// Largest request body in bytes; larger gets 413.
    #[arg(long, value_name = "N", default_value_t = 64 * 1024)]
    pub max_body_bytes: usize,
    /// Seconds a request head (or, with --tls-cert, the TLS handshake) may take to
    /// arrive; then the connection is closed.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = secs)]
    pub header_timeout: Duration,
    /// Print every byte in and out on stderr, as `serve --trace` does.
    #[arg(long, value_enum, value_name = "VIEW", num_args = 0..=1, default_missing_value = "readable")]
    pub trace: Option<TraceView>,
    /// Write every byte in and out to FILE as a JSON Lines transcript.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// With --trace or --record: show tokens, codes and secrets as they are.
    #[arg(long)]
    pub show_secrets: bool,
    /// Colour --trace: auto (only when stderr is a terminal and NO_COLOR is unset),
    /// always, or never [default: auto]
    #[arg(long, value_enum, value_name = "WHEN")]
    pub color: Option<ColorChoice>,
    /// With --trace or --record: also mask the value of this header (any case;
    /// repeatable), as Authorization, Cookie and X-Api-Key always are, for an API key
    /// under a name of its own. HTTP lanes only: stdio recordings are never masked.
    #[arg(long = "redact-header", value_name = "NAME")]
    pub redact_headers: Vec<String>,
    #[command(flatten)]
    pub tls: TlsListen,
}

// `--tls-cert FILE --tls-key FILE`: the listener speaks https:// (every listener that
// serves HTTP takes them).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TlsListen {
    /// Listen with TLS (https://): this PEM certificate chain, leaf first, is presented
    /// to clients; needs --tls-key. The handshake must end within --header-timeout.
    /// Default: plain http://.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert, PEM (PKCS#8, PKCS#1 or SEC1); needs --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// With --tls-cert: require a client certificate signed by a CA in this PEM FILE
    /// (mTLS); each lane's tls event then holds the client's chain. Default: none
    /// asked for.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_client_ca: Option<PathBuf>,
}

// `serve --http --auth-server URL`: the server as an OAuth protected resource
// (`http::auth::Settings` says what each one is for).
#[derive(clap::Args)]
pub struct ProtectArgs {
    /// With --http: protect /mcp with OAuth 2.1 bearer tokens issued by this
    /// authorization server (its issuer URL); serve the protected resource metadata
    /// at /.well-known/oauth-protected-resource/mcp naming it; answer 401 with
    /// WWW-Authenticate to a request without a valid token.
    #[arg(long, value_name = "URL", requires = "http")]
    pub auth_server: Option<String>,
    /// With --auth-server: this server's canonical URI, the audience tokens must name
    /// [default: http://ADDR/mcp, from the address bound].
    #[arg(long, value_name = "URL", requires = "auth_server")]
    pub resource: Option<String>,
    /// With --auth-server: a scope every request needs (repeatable); a token without
    /// it gets 403 insufficient_scope.
    #[arg(
        long = "required-scope",
        value_name = "SCOPE",
        requires = "auth_server"
    )]
    pub required_scopes: Vec<String>,
    /// With --auth-server: check tokens by RFC 7662 introspection at the
    /// authorization server, as this client, instead of verifying them as JWTs
    /// against its key set.
    #[arg(long, value_name = "ID", requires_all = ["auth_server", "introspection_secret"])]
    pub introspection_client_id: Option<String>,
    /// With --introspection-client-id: its secret.
    #[arg(
        long,
        value_name = "SECRET",
        requires = "introspection_client_id",
        group = "introspection_secret"
    )]
    pub introspection_client_secret: Option<String>,
    /// With --introspection-client-id: its secret, read from FILE (kept out of `ps`;
    /// one trailing newline is dropped).
    #[arg(
        long,
        value_name = "FILE",
        requires = "introspection_client_id",
        group = "introspection_secret"
    )]
    pub introspection_client_secret_file: Option<PathBuf>,
    /// With --auth-server: seconds each request to the authorization server may take
    /// (metadata, key set, introspection) [default: 10]
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub auth_fetch_timeout: Option<Duration>,
    /// With --auth-server: largest answer read from the authorization server, in bytes
    /// [default: 1048576]
    #[arg(long, value_name = "N")]
    pub auth_fetch_max_bytes: Option<usize>,
    /// With --auth-server: fewest seconds between two fetches of the key set (a token
    /// naming an unknown key refetches it, at most this often) [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub jwks_refresh: Option<Duration>,
    /// With --auth-server: seconds a failed request to the authorization server is
    /// remembered; meanwhile requests that need it get 503 at once, without waiting
    /// out a fetch of their own [default: 5]
    #[arg(long, value_name = "SECS", value_parser = secs)]
    pub auth_retry: Option<Duration>,
    /// With --auth-server: seconds of clock skew allowed on a token's exp and nbf [default: 30]
    #[arg(long, value_name = "SECS")]
    pub token_leeway: Option<u64>,
    /// With an https:// --auth-server: also trust the CA certificates in this PEM
    /// FILE (repeatable), besides the system's store [default: the system's only]
    #[arg(long, value_name = "FILE", requires = "auth_server")]
    pub auth_cacert: Vec<PathBuf>,
}

impl ProtectArgs {
    /// The settings, when the server is to be protected (the resource is filled in
    /// once the address is bound, unless --resource gave it). A flag not given keeps
    /// the default of [`http::auth::Settings::new`]. An unreadable secret file is
    /// an error.
    pub fn into_settings(self) -> anyhow::Result<Option<http::auth::Settings>> {
        let Some(issuer) = self.auth_server else {
            return Ok(None);
        };
        let mut settings = http::auth::Settings::new(&issuer);
        settings.resource = self.resource.unwrap_or_default();
        settings.required_scopes = self.required_scopes;
        let secret = super::secret(
            self.introspection_client_secret.as_ref(),
            "--introspection-client-secret-file",
            self.introspection_client_secret_file.as_deref(),
        )?;
        settings.introspection =
            self.introspection_client_id
                .zip(secret)
                .map(
                    |(client_id, client_secret)| http::auth::introspect::Credentials {
                        client_id,
                        client_secret,
                    },
                );
        let given = |flag: Option<Duration>, default: Duration| flag.unwrap_or(default);
        settings.fetch_timeout = given(self.auth_fetch_timeout, settings.fetch_timeout);
        settings.fetch_max_bytes = self
            .auth_fetch_max_bytes
            .unwrap_or(settings.fetch_max_bytes);
        settings.jwks_refresh = given(self.jwks_refresh, settings.jwks_refresh);
        settings.retry = given(self.auth_retry, settings.retry);
        settings.leeway = self.token_leeway.unwrap_or(settings.leeway);
        if !self.auth_cacert.is_empty() {
            // Read now, so an unreadable file stops the server at start (exit 2).
            let tls = mcp_raw_net::client::tls::Tls::new(mcp_raw_net::client::tls::TlsOptions {
                cacert: self.auth_cacert,
                ..Default::default()
            })
            .map_err(|e| {
                super::client::Usage(format!("{e:#}").replacen("--cacert", "--auth-cacert", 1))
            })?;
            settings.tls = std::sync::Arc::new(tls);
        }
        Ok(Some(settings))
    }
}

// The limits of `serve --http`. Each one's default is in `http::Limits`, and its
// `--help` line says it: a flag with a clap default costs every start (stdio too)
// the parse of that default (about 4,000 instructions each, callgrind).
#[derive(clap::Args)]
pub struct HttpLimits {
    /// With --http: seconds a request head may take once begun (and a new connection
    /// before its first byte, or its TLS handshake with --tls-cert); then the
    /// connection is closed [default: 30]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    header_timeout: Option<Duration>,
    /// With --http: largest request head (request line and headers) in bytes; larger
    /// gets 431 [default: 65536]
    #[arg(long, value_name = "N", requires = "http")]
    max_header_bytes: Option<usize>,
    /// With --http: most header fields in one request; more gets 431 [default: 100]
    #[arg(long, value_name = "N", requires = "http")]
    max_headers: Option<usize>,
    /// With --http: seconds a keep-alive connection may sit idle between requests [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    idle_timeout: Option<Duration>,
    /// With --http: seconds a POST body may take to arrive in full; then 408 [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    body_timeout: Option<Duration>,
    /// With --http: seconds a response write may wait on a client that reads nothing;
    /// then the connection is closed (long streams included) [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    write_timeout: Option<Duration>,
    /// With --http: seconds a legacy session may live without
    /// notifications/initialized; then it ends (its id gets 404) [default: 60]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    init_timeout: Option<Duration>,
    /// With --http: seconds an initialized legacy session may go unused; then it ends
    /// [default: 3600]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    session_timeout: Option<Duration>,
    /// With --http: most legacy sessions alive at once; initialize beyond gets 503 [default: 10000]
    #[arg(long, value_name = "N", requires = "http")]
    max_sessions: Option<usize>,
    /// With --http: connections the kernel may queue, completed but not yet accepted
    /// (the listen backlog; the kernel caps it at net.core.somaxconn) [default: 1024]
    #[arg(long, value_name = "N", requires = "http")]
    backlog: Option<u32>,
    /// With --http: most connections open at once; one more gets 503 and is closed
    /// [default: half of the open-file limit (ulimit -n), at most 10000].
    #[arg(long, value_name = "N", requires = "http")]
    max_connections: Option<usize>,
    /// With --http: seconds the server keeps reading (and discarding) from a client
    /// still sending when it closes the connection, so the client sees the response
    /// (an early 413, say) instead of a reset; 0 closes at once [default: 5]
    #[arg(long, value_name = "SECS", value_parser = secs, requires = "http")]
    linger_timeout: Option<Duration>,
    /// With --http: most bytes discarded while lingering [default: 67108864]
    #[arg(long, value_name = "N", requires = "http")]
    linger_bytes: Option<u64>,
    /// With --http: events a legacy request's stream keeps for a client resuming with
    /// Last-Event-ID (older ones cannot be replayed) [default: 1024]
    #[arg(long, value_name = "N", requires = "http")]
    resume_events: Option<usize>,
    /// With --http: finished streams a legacy session keeps for late resumers [default: 16]
    #[arg(long, value_name = "N", requires = "http")]
    resume_streams: Option<usize>,
}

impl HttpLimits {
    /// The limits: each flag given, else the default of [`http::Limits`] (a timeout
    /// of 0 turns that clock off).
    pub fn into_limits(self, max_body: usize) -> http::Limits {
        let d = http::Limits::default();
        let timeout = |flag: Option<Duration>, default: Duration| flag.map_or(default, off_if_zero);
        http::Limits {
            max_body,
            max_header_bytes: self.max_header_bytes.unwrap_or(d.max_header_bytes),
            max_headers: self.max_headers.unwrap_or(d.max_headers),
            header_timeout: timeout(self.header_timeout, d.header_timeout),
            idle_timeout: timeout(self.idle_timeout, d.idle_timeout),
            body_timeout: timeout(self.body_timeout, d.body_timeout),
            write_timeout: timeout(self.write_timeout, d.write_timeout),
            init_timeout: timeout(self.init_timeout, d.init_timeout),
            session_timeout: timeout(self.session_timeout, d.session_timeout),
            max_sessions: self.max_sessions.unwrap_or(d.max_sessions),
            backlog: self.backlog.unwrap_or(d.backlog),
            max_connections: self.max_connections.unwrap_or(d.max_connections),
            linger_timeout: self.linger_timeout.unwrap_or(d.linger_timeout),
            linger_bytes: self.linger_bytes.unwrap_or(d.linger_bytes),
            resume_events: self.resume_events.unwrap_or(d.resume_events),
            resume_streams: self.resume_streams.unwrap_or(d.resume_streams),
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
fn secs(text: &str) -> Result<Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..1e9).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "expected a number of seconds (0 or more, e.g. 30 or 0.5), got {text:?}"
        )),
    }
}

#[derive(clap::Args)]
pub struct View {
    /// Print every byte exactly as it travelled (CR, chunk sizes, SSE fields, compact
    /// JSON) instead of the readable view.
    #[arg(long)]
    raw: bool,
    /// Print the JSON Lines transcript on stdout instead of the text view (captions go
    /// to stderr); the same as --format json.
    #[arg(long, conflicts_with = "raw")]
    json: bool,
    /// text (a text view on stdout, the default) or json (the JSON Lines transcript
    /// on stdout, captions on stderr; as --json).
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<OutputFormat>,
    /// Print one line per message instead of the text view: direction, lane, time,
    /// shape, method (and a tools/call's tool), id, status, size in bytes, and the
    /// first line of a tool's result.
    #[arg(long, conflicts_with_all = ["raw", "json"])]
    pub oneline: bool,
    /// Also write the JSON Lines transcript to FILE.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// The largest message (stdio line, HTTP head, body, SSE event) read and shown
    /// whole; a longer one is skipped and shown as too long (the record keeps its
    /// bytes).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_MESSAGE)]
    pub max_message_bytes: usize,
    /// Colour the output: auto (only on a terminal, and not when NO_COLOR is set),
    /// always, or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Show tokens and secrets as they crossed. By default the view and the record
    /// mask them, same length, with `*`: Authorization/DPoP header values, token
    /// fields of OAuth JSON, and codes, verifiers and secrets in forms and URLs. Only
    /// HTTP is masked: a stdio server's wire is recorded as it crossed.
    #[arg(long)]
    pub show_secrets: bool,
    /// With --trace or --record: also mask the value of this header (any case;
    /// repeatable), as Authorization, Cookie and X-Api-Key always are, for an API key
    /// under a name of its own. HTTP lanes only: stdio recordings are never masked.
    #[arg(long = "redact-header", value_name = "NAME")]
    pub redact_headers: Vec<String>,
}

impl View {
    /// Is the transcript on stdout (`--json`, `--format json`)?
    pub fn json(&self) -> bool {
        self.json || self.format == Some(OutputFormat::Json)
    }

    /// The client's printer: the text view (or `--json`'s transcript) on stdout, and
    /// the `--record` file.
    pub fn printer(&self, transport: &str) -> anyhow::Result<Printer> {
        let printer = self.printer_unmasked(transport)?;
        printer.recorder().set_redaction(!self.show_secrets);
        printer.recorder().redact_headers(&self.redact_headers);
        Ok(printer)
    }

    fn printer_unmasked(&self, transport: &str) -> anyhow::Result<Printer> {
        let header = transcript::Header::new("client", transport);
        let mut more = Vec::new();
        if let Some(path) = &self.record {
            more.push(super::record::record_file(
                path,
                &header,
                self.max_message_bytes,
            )?);
        }
        if self.json() {
            if self.raw || self.oneline {
                let flag = if self.raw { "--raw" } else { "--oneline" };
                anyhow::bail!("{flag} shows a text view: it cannot go with --format json");
            }
            more.insert(
                0,
                Box::new(transcript::Writer::new(
                    std::io::stdout(),
                    &header,
                    self.max_message_bytes,
                )?) as _,
            );
            return Ok(Printer::sinks_only(more, self.max_message_bytes));
        }
        if self.oneline {
            return Ok(Printer::oneline(
                self.color.enabled(),
                more,
                self.max_message_bytes,
            ));
        }
        Ok(Printer::new(
            self.color.enabled(),
            self.raw,
            more,
            self.max_message_bytes,
        ))
    }
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

/// `--fixture` on the command line.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum FixtureArg {
    Demo,
    Conformance,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    /// A flag's paragraph of `serve --help`, its lines joined.
    fn help_of(help: &str, flag: &str) -> String {
        let at = help
            .find(&format!("--{flag} <"))
            .unwrap_or_else(|| panic!("--{flag} is not in serve --help"));
        let rest = &help[at..];
        let end = rest.find("\n\n").unwrap_or(rest.len());
        rest[..end].split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The HTTP-only flags carry no clap default (each would be parsed at every
    /// start, stdio too); their `--help` says the default in words. That default is
    /// the one the server uses: `http::Limits` and `http::auth::Settings`.
    #[test]
    fn serve_help_states_the_defaults_the_server_uses() {
        let limits = http::Limits::default();
        let auth = http::auth::Settings::new("https://issuer.example");
        let secs = |d: Duration| d.as_secs().to_string();
        let want = [
            ("header-timeout", secs(limits.header_timeout)),
            ("max-header-bytes", limits.max_header_bytes.to_string()),
            ("max-headers", limits.max_headers.to_string()),
            ("idle-timeout", secs(limits.idle_timeout)),
            ("body-timeout", secs(limits.body_timeout)),
            ("write-timeout", secs(limits.write_timeout)),
            ("init-timeout", secs(limits.init_timeout)),
            ("session-timeout", secs(limits.session_timeout)),
            ("max-sessions", limits.max_sessions.to_string()),
            ("backlog", limits.backlog.to_string()),
            ("linger-timeout", secs(limits.linger_timeout)),
            ("linger-bytes", limits.linger_bytes.to_string()),
            ("resume-events", limits.resume_events.to_string()),
            ("resume-streams", limits.resume_streams.to_string()),
            ("auth-fetch-timeout", secs(auth.fetch_timeout)),
            ("auth-fetch-max-bytes", auth.fetch_max_bytes.to_string()),
            ("jwks-refresh", secs(auth.jwks_refresh)),
            ("auth-retry", secs(auth.retry)),
            ("token-leeway", auth.leeway.to_string()),
        ];
        let mut cli = Cli::command();
        let help = cli
            .find_subcommand_mut("serve")
            .expect("serve")
            .render_long_help()
            .to_string();
        for (flag, value) in want {
            let text = help_of(&help, flag);
            assert!(
                text.contains(&format!("[default: {value}]")),
                "--{flag} should say [default: {value}]: {text}"
            );
        }
    }

    /// Left out, the flags give those defaults; given, they win (a timeout of 0
    /// turns its clock off).
    #[test]
    fn http_flags_left_out_keep_the_defaults_and_given_ones_win() {
        let serve = |args: &[&str]| {
            let mut argv = vec!["mcp-raw", "serve", "--http"];
            argv.extend_from_slice(args);
            match Cli::try_parse_from(argv).map(|c| c.command) {
                Ok(Command::Serve {
                    limits, protect, ..
                }) => (limits, protect),
                Ok(_) => panic!("not serve"),
                Err(e) => panic!("{e}"),
            }
        };
        let (limits, protect) = serve(&[]);
        let want = http::Limits {
            max_body: 7,
            ..http::Limits::default()
        };
        assert_eq!(format!("{:?}", limits.into_limits(7)), format!("{want:?}"));
        assert!(protect.into_settings().unwrap().is_none());

        let (limits, protect) = serve(&[
            "--idle-timeout",
            "2.5",
            "--header-timeout",
            "0",
            "--max-sessions",
            "3",
            "--auth-server",
            "https://issuer.example",
            "--token-leeway",
            "4",
        ]);
        let limits = limits.into_limits(7);
        assert_eq!(limits.idle_timeout, Duration::from_millis(2500));
        assert_eq!(limits.header_timeout, off_if_zero(Duration::ZERO));
        assert_eq!(limits.max_sessions, 3);
        assert_eq!(limits.body_timeout, http::Limits::default().body_timeout);
        let settings = protect.into_settings().unwrap().expect("protected");
        let mut want = http::auth::Settings::new("https://issuer.example");
        want.leeway = 4;
        assert_eq!(format!("{settings:?}"), format!("{want:?}"));
    }
}
