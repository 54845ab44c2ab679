//! `mcp-raw`: the thin command line. Every subcommand is a call into the library.

use clap::{Parser, Subcommand};
use mcp_raw::client::{self, wire_print::ColorChoice};
use mcp_raw::protocol::{Eras, Server};
use mcp_raw::transport::{http, stdio};
use mcp_raw::wire::recorder::Recorder;
use mcp_raw::wire::transcript;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// A hand-written MCP server and client that shows every byte on the wire.
#[derive(Parser)]
#[command(name = "mcp-raw", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process: the size of the `serve` variant (all its limits) costs
// nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Run the MCP server: stdio by default (one JSON-RPC message per line on
    /// stdin/stdout, logs on stderr), or Streamable HTTP on /mcp with --http.
    Serve {
        /// Serve Streamable HTTP instead of stdio.
        #[arg(long)]
        http: bool,
        /// Address to bind with --http. Loopback by default: a local server should
        /// not be reachable from the network.
        #[arg(long, default_value = "127.0.0.1", requires = "http")]
        host: String,
        /// Port to bind with --http (0 picks a free one; the log line says which).
        #[arg(long, default_value_t = 3100, requires = "http")]
        port: u16,
        /// Largest accepted message in bytes: an HTTP body (413 beyond it) or a stdio
        /// line (-32600 beyond it).
        #[arg(long, default_value_t = 4 * 1024 * 1024)]
        max_body_bytes: usize,
        /// With --http, also answer to this host name in Host and Origin (repeatable;
        /// loopback names are always accepted, any other is refused with 403 to stop
        /// DNS rebinding).
        #[arg(long = "allow-host", value_name = "NAME", requires = "http")]
        allow_hosts: Vec<String>,
        #[command(flatten)]
        limits: HttpLimits,
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
        /// makes room; when all run, a call that would create one gets an error).
        #[arg(long, value_name = "N", default_value_t = mcp_raw::protocol::tasks::MAX_TASKS)]
        max_tasks: usize,
        /// With --fixture conformance: seconds a task stays readable after its creation
        /// (its ttlMs).
        #[arg(long, value_name = "SECS", default_value = "600", value_parser = secs)]
        task_ttl: Duration,
        /// Print every byte in and out on stderr (never stdout) as it crosses, in the
        /// readable text view, or `--trace raw` for the bytes verbatim.
        #[arg(long, value_enum, value_name = "VIEW", num_args = 0..=1, default_missing_value = "readable")]
        trace: Option<TraceView>,
        /// Write every byte in and out to FILE as a JSON Lines transcript (see the
        /// README's "Transcript format").
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
    },
    /// Connect to any MCP server (an http:// URL, or a stdio server's command line,
    /// quoted), detect its era, list its tools, call some, and print the whole wire.
    Client {
        /// `http://host:port/path`, or the command that starts a stdio server
        /// (split on spaces), e.g. "mcp-raw serve".
        target: String,
        /// Eras this client may speak: both probes with server/discover and falls back
        /// to initialize; modern or legacy insist on one.
        #[arg(long, value_enum, default_value_t = EraArg::Both)]
        era: EraArg,
        /// Call a tool after listing: NAME or NAME={"json":"arguments"} (repeatable).
        #[arg(long = "call", value_name = "NAME[=JSON]")]
        calls: Vec<String>,
        /// Seconds to wait for the server's next bytes of an answer (a response head,
        /// the next piece of its body, a stdio reply); a stream lives as long as it
        /// moves.
        #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs)]
        timeout: Duration,
        #[command(flatten)]
        view: View,
    },
    /// The client the official conformance suite drives (it passes the server URL and
    /// names the scenario in MCP_CONFORMANCE_SCENARIO).
    ConformanceClient {
        /// The mock server's URL, appended by the suite.
        url: String,
        #[command(flatten)]
        view: View,
    },
    /// Render a recorded transcript (from --record) again: the text view (readable, or
    /// --raw for every byte), or --pretty for one indented JSON document.
    Show {
        /// A JSON Lines transcript written by --record.
        file: PathBuf,
        /// Every byte verbatim, invisible ones marked.
        #[arg(long)]
        raw: bool,
        /// One pretty JSON document: each event with the facts read from it.
        #[arg(long, conflicts_with = "raw")]
        pretty: bool,
        /// Colour: auto (on a terminal, NO_COLOR unset), always or never.
        #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
        color: ColorChoice,
    },
    /// Spawn `mcp-raw serve` as a child and drive one whole session over stdio,
    /// printing every message sent (>>>) and received (<<<).
    Demo {
        /// The wire to show: legacy (the original project's session), modern
        /// (stateless 2026-07-28), or both side by side.
        #[arg(long, value_enum, default_value_t = EraArg::Legacy)]
        era: EraArg,
        #[command(flatten)]
        view: View,
    },
    /// Spawn `mcp-raw serve --http` and drive the same session with real HTTP
    /// requests, printing each request and response in full.
    DemoHttp {
        /// Port the spawned server listens on (0 picks a free one).
        #[arg(long, default_value_t = 3100)]
        port: u16,
        /// The wire to show: legacy (the original project's session), modern
        /// (stateless 2026-07-28), or both side by side.
        #[arg(long, value_enum, default_value_t = EraArg::Legacy)]
        era: EraArg,
        #[command(flatten)]
        view: View,
    },
}

/// The limits of `serve --http` (each one's default is in `http::Limits`). A timeout
/// of 0 turns it off.
#[derive(clap::Args)]
struct HttpLimits {
    /// With --http: seconds a request head may take once begun (and a new connection
    /// before its first byte); then the connection is closed.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = secs, requires = "http")]
    header_timeout: Duration,
    /// With --http: largest request head (request line and headers) in bytes; larger
    /// gets 431.
    #[arg(long, value_name = "N", default_value_t = 64 * 1024, requires = "http")]
    max_header_bytes: usize,
    /// With --http: most header fields in one request; more gets 431.
    #[arg(long, value_name = "N", default_value_t = http::limits::DEFAULT_MAX_HEADERS, requires = "http")]
    max_headers: usize,
    /// With --http: seconds a keep-alive connection may sit idle between requests.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs, requires = "http")]
    idle_timeout: Duration,
    /// With --http: seconds a POST body may take to arrive in full; then 408.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs, requires = "http")]
    body_timeout: Duration,
    /// With --http: seconds a response write may wait on a client that reads nothing;
    /// then the connection is closed (long streams included).
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs, requires = "http")]
    write_timeout: Duration,
    /// With --http: seconds a legacy session may live without
    /// notifications/initialized; then it ends (its id gets 404).
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = secs, requires = "http")]
    init_timeout: Duration,
    /// With --http: seconds an initialized legacy session may go unused; then it ends.
    #[arg(long, value_name = "SECS", default_value = "3600", value_parser = secs, requires = "http")]
    session_timeout: Duration,
    /// With --http: most legacy sessions alive at once; initialize beyond gets 503.
    #[arg(long, value_name = "N", default_value_t = 10_000, requires = "http")]
    max_sessions: usize,
    /// With --http: connections the kernel may queue, completed but not yet accepted
    /// (the listen backlog; the kernel caps it at net.core.somaxconn).
    #[arg(long, value_name = "N", default_value_t = 1024, requires = "http")]
    backlog: u32,
    /// With --http: most connections open at once; one more gets 503 and is closed
    /// [default: half of the open-file limit (ulimit -n), at most 10000].
    #[arg(long, value_name = "N", requires = "http")]
    max_connections: Option<usize>,
    /// With --http: seconds the server keeps reading (and discarding) from a client
    /// still sending when it closes the connection, so the client sees the response
    /// (an early 413, say) instead of a reset; 0 closes at once.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = secs, requires = "http")]
    linger_timeout: Duration,
    /// With --http: most bytes discarded while lingering.
    #[arg(long, value_name = "N", default_value_t = 64 * 1024 * 1024, requires = "http")]
    linger_bytes: u64,
    /// With --http: events a legacy request's stream keeps for a client resuming with
    /// Last-Event-ID (older ones cannot be replayed).
    #[arg(long, value_name = "N", default_value_t = 1024, requires = "http")]
    resume_events: usize,
    /// With --http: finished streams a legacy session keeps for late resumers.
    #[arg(long, value_name = "N", default_value_t = 16, requires = "http")]
    resume_streams: usize,
}

impl HttpLimits {
    fn into_limits(self, max_body: usize) -> http::Limits {
        http::Limits {
            max_body,
            max_header_bytes: self.max_header_bytes,
            max_headers: self.max_headers,
            header_timeout: off_if_zero(self.header_timeout),
            idle_timeout: off_if_zero(self.idle_timeout),
            body_timeout: off_if_zero(self.body_timeout),
            write_timeout: off_if_zero(self.write_timeout),
            init_timeout: off_if_zero(self.init_timeout),
            session_timeout: off_if_zero(self.session_timeout),
            max_sessions: self.max_sessions,
            backlog: self.backlog,
            max_connections: self
                .max_connections
                .unwrap_or_else(http::limits::default_max_connections),
            linger_timeout: self.linger_timeout,
            linger_bytes: self.linger_bytes,
            resume_events: self.resume_events,
            resume_streams: self.resume_streams,
        }
    }
}

/// A timeout of 0 turns that clock off (in practice: three years).
fn off_if_zero(d: Duration) -> Duration {
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
struct View {
    /// Print every byte exactly as it travelled (CR, chunk sizes, SSE fields, compact
    /// JSON) instead of the readable view.
    #[arg(long)]
    raw: bool,
    /// Print the JSON Lines transcript on stdout instead of the text view (captions go
    /// to stderr).
    #[arg(long, conflicts_with = "raw")]
    json: bool,
    /// Also write the JSON Lines transcript to FILE.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Colour the output: auto (only on a terminal, and not when NO_COLOR is set),
    /// always, or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

fn main() -> ExitCode {
    mcp_raw::memory::return_large_blocks_promptly();
    let cli = Cli::parse_from(without_alias_separator(std::env::args_os().collect()));
    let result = match cli.command {
        Command::Serve {
            http: false,
            max_body_bytes,
            era,
            fixture,
            max_tasks,
            task_ttl,
            trace,
            record,
            ..
        } => recorder("stdio", trace, record.as_deref()).and_then(|recorder| {
            serve_stdio(
                server(era, fixture, max_tasks, task_ttl),
                max_body_bytes,
                recorder,
            )
        }),
        Command::Serve {
            http: true,
            host,
            port,
            max_body_bytes,
            era,
            fixture,
            allow_hosts,
            limits,
            max_tasks,
            task_ttl,
            trace,
            record,
        } => recorder("http", trace, record.as_deref()).and_then(|recorder| {
            serve_http(
                server(era, fixture, max_tasks, task_ttl),
                &host,
                port,
                http::Config {
                    limits: limits.into_limits(max_body_bytes),
                    allowed_hosts: http::guard::AllowedHosts::new(&allow_hosts),
                    recorder,
                },
            )
        }),
        Command::Client {
            target,
            era,
            calls,
            timeout,
            view,
        } => {
            let transport = if target.starts_with("http") {
                "http"
            } else {
                "stdio"
            };
            view.printer(transport).and_then(|printer| {
                runtime()?.block_on(client::cli_client::run(
                    &target,
                    era.into(),
                    &calls,
                    timeout,
                    printer,
                ))
            })
        }
        Command::ConformanceClient { url, view } => view
            .printer("http")
            .and_then(|printer| runtime()?.block_on(client::conformance::run(&url, printer))),
        Command::Show {
            file,
            raw,
            pretty,
            color,
        } => show(&file, raw, pretty, color.enabled()),
        Command::Demo { era, view } => view
            .printer("stdio")
            .and_then(|printer| runtime()?.block_on(client::stdio_demo::run(era.into(), printer))),
        Command::DemoHttp { port, era, view } => view.printer("http").and_then(|printer| {
            runtime()?.block_on(client::http_demo::run(port, era.into(), printer))
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-raw: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo demo -- --era modern` reaches the binary as `demo -- --era modern` (the
/// alias already ends in `--`); drop that second `--` so the flags parse.
fn without_alias_separator(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let is_demo = args.get(1).is_some_and(|a| a == "demo" || a == "demo-http");
    if is_demo && args.get(2).is_some_and(|a| a == "--") {
        args.remove(2);
    }
    args
}

impl View {
    /// The client's printer: the text view (or `--json`'s transcript) on stdout, and
    /// the `--record` file.
    fn printer(&self, transport: &str) -> anyhow::Result<client::wire_print::Printer> {
        let header = transcript::Header::new("client", transport);
        let mut more = Vec::new();
        if let Some(path) = &self.record {
            more.push(record_file(path, &header)?);
        }
        if self.json {
            more.insert(
                0,
                Box::new(transcript::Writer::new(std::io::stdout(), &header)?) as _,
            );
            return Ok(client::wire_print::Printer::sinks_only(more));
        }
        Ok(client::wire_print::Printer::new(
            self.color.enabled(),
            self.raw,
            more,
        ))
    }
}

/// `mcp-raw show FILE`: a transcript rendered again.
fn show(file: &std::path::Path, raw: bool, pretty: bool, color: bool) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
    let (header, events) = transcript::read(&text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not a transcript mcp-raw can read: {e}",
            file.display()
        )
    })?;
    let out = if pretty {
        transcript::pretty(&header, &events) + "\n"
    } else {
        mcp_raw::wire::text::render(&events, raw, color)
    };
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    Ok(())
}

/// `serve --trace`: which text view goes to stderr.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum TraceView {
    Readable,
    Raw,
}

/// The server's recorder, if `--trace` or `--record` asks for one.
fn recorder(
    transport: &str,
    trace: Option<TraceView>,
    record: Option<&std::path::Path>,
) -> anyhow::Result<Option<Recorder>> {
    let mut sinks: Vec<Box<dyn mcp_raw::wire::recorder::Sink>> = Vec::new();
    if let Some(view) = trace {
        let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        sinks.push(Box::new(mcp_raw::wire::text::TextView::new(
            std::io::stderr(),
            color,
            view == TraceView::Raw,
        )));
    }
    if let Some(path) = record {
        sinks.push(record_file(
            path,
            &transcript::Header::new("server", transport),
        )?);
    }
    Ok((!sinks.is_empty()).then(|| Recorder::new(sinks)))
}

fn record_file(
    path: &std::path::Path,
    header: &transcript::Header,
) -> anyhow::Result<Box<dyn mcp_raw::wire::recorder::Sink>> {
    transcript::create(path, header)
        .map_err(|e| anyhow::anyhow!("--record {}: cannot write it: {e}", path.display()))
}

/// `--era` on the command line.
#[derive(Clone, Copy, clap::ValueEnum)]
enum EraArg {
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
enum FixtureArg {
    Demo,
    Conformance,
}

/// The server the command line asks for.
fn server(
    era: EraArg,
    fixture: FixtureArg,
    max_tasks: usize,
    task_ttl: Duration,
) -> std::sync::Arc<Server> {
    match fixture {
        FixtureArg::Demo => Server::new(mcp_raw::content::demo::tool_set(), era.into()),
        FixtureArg::Conformance => mcp_raw::content::conformance::server_with(
            era.into(),
            mcp_raw::protocol::tasks::TaskLimits {
                max: max_tasks.max(1),
                ttl: off_if_zero(task_ttl),
            },
        ),
    }
}

fn serve_stdio(
    server: std::sync::Arc<Server>,
    max_line: usize,
    recorder: Option<Recorder>,
) -> anyhow::Result<()> {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout();
    stdio::serve(server, stdin, stdout, std::io::stderr(), max_line, recorder)?;
    Ok(())
}

fn serve_http(
    server: std::sync::Arc<Server>,
    host: &str,
    port: u16,
    config: http::Config,
) -> anyhow::Result<()> {
    runtime()?.block_on(async {
        let listener = http::listen::bind(host, port, config.limits.backlog)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {host}:{port}: {e}"))?;
        let addr = listener.local_addr()?;
        eprintln!(
            "[mcp-raw] Streamable HTTP server listening on http://{addr}{}",
            mcp_raw::wire::http::ENDPOINT
        );
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
            eprintln!("[mcp-raw] interrupted: shutting down");
        };
        http::run(listener, server, config, shutdown).await?;
        Ok(())
    })
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}
