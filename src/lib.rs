//! `mcp-raw`: the command line, the top of the workspace. Every subcommand is a call into a
//! program in `src/cli/`, built on the crates below it like any program would be:
//! `mcp-raw-tools` (tap, check, replay, bridge, auth-server, wrap, sessions), `mcp-raw-net`
//! (transports, the client, OAuth), `mcp-raw-core` (the protocol) and `mcp-raw-wire`
//! (the bytes and their views).
//!
//! ```text
//! lib.rs                the subcommand parsed, its program called, its exit status
//! main.rs               the binary: the process's console, the logger, `run`
//! cli/                  the programs behind the command line
//!   mod.rs              the runtime they run on; secrets and recordings read; the list
//!   console.rs          where a program prints: the process's streams, or a test's buffers
//!   args/               every subcommand and flag (clap derive; `///` is the help)
//!     mod.rs            the subcommands, their closing text; what several share
//!     serve.rs          `serve`'s flags: transport, server, shared store, trace
//!     client.rs         `client`'s flags: target, calls, limits, TLS, OAuth
//!     tap.rs            `tap`'s flags: stdio, `--http`, `--proxy`, their clocks
//!     bridge.rs         `bridge`'s flags: serve's HTTP flags made unconditional
//!     auth_server.rs    `auth-server`'s flags: what it issues, its limits
//!     ca.rs             `ca`'s action and directory
//!     replay.rs         `replay`'s flags: the mock's transport or `--against`
//!     recordings.rs     `check`, `diff` and `show`: the flags of the readers
//!     record_queue.rs   `--record-buffer`, `--lossy-record`: the recording writer's queue
//!     contract.rs       `check --expect-tool`, `--max-latency`…, `--contract FILE`
//!     security.rs       `check --security`, `--baseline OLD`, `--allow RULE`
//!     stats.rs          `stats FILE…`: its formats
//!     load.rs           `load TARGET`: clients, mix, loop, bounds, format, thresholds
//!     pin.rs            `pin FILE`: where the hashes go
//!     har.rs            `export har FILE`, `import har FILE -o OUT`: a subcommand per format
//!     otlp.rs           `--otlp URL` and its companions; `export otlp FILE`'s flags
//!     demos.rs          `demo`, `demo-http`, `conformance-client`
//!     completions.rs    `completions SHELL`
//!     listener.rs       every HTTP listener's groups: TLS, OAuth, limits
//!     metrics.rs        `--metrics ADDR` and its listener's limits (serve, tap, bridge)
//!     ui.rs             `ui`'s flags, and where `--ui` serves its page
//!     view.rs           the flags of what a client-side program prints: text, raw, JSON
//!     wrap.rs           `wrap install|uninstall|status` and `sessions`: files, servers, state
//!   serve.rs            `serve`: the server, its transport, its recorder
//!   show.rs             `show FILE`: a transcript rendered again
//!   ui.rs               `ui FILE`, `--ui`: the live page on loopback, a recording streamed in
//!   check.rs            `check FILE`, `tap --check`: the spec's rules, reported
//!   stats.rs            `stats FILE…`: the library's figures, printed as text, JSON or CSV
//!   load.rs             `load TARGET`: the library's run, its progress, its figures, its gates
//!   pin.rs              `pin FILE`: a trusted recording's tools hashed, for `check --baseline`
//!   har.rs              `export har`, `import har`: the library's HAR read and written
//!   otlp.rs             `--otlp`, `export otlp`: the live exporter on the recorder, its report
//!   otlp_env.rs         the flags and OTEL_* variables read into the exporter's settings
//!   gate.rs             `check`'s contract, security rules and --allow; SARIF's lines
//!   diff.rs             `diff A B`: two recordings, message by message
//!   exit.rs             the one exit-status rule, and each subcommand's line of it
//!   replay.rs           `replay FILE --against TARGET`: the client side sent again
//!   record.rs           `--trace` and `--record`: the sinks a recorder feeds, drained at the end
//!   metrics.rs          `--metrics ADDR`: the watcher's sink and the /metrics listener
//!   printer.rs          a client-side program's printer, built from its view flags
//!   color.rs            `--color`: when to colour; the terminal question asked here
//!   client/             `client TARGET`: any server's wire
//!     mod.rs            connect, list, call, follow; the exit status
//!     target.rs         TARGET (a URL or a command line) and the link to it
//!     flags.rs          the calls, the methods in order, the answers
//!     oauth.rs          the OAuth flags, checked together
//!     resend.rs         --ui: the session kept open for the page's resends until Ctrl-C
//!   conformance_client.rs `conformance-client`: what the official suite drives
//!   completions.rs      `completions SHELL`: the script clap_complete writes
//!   demo_stdio.rs       `demo`: spawns `mcp-raw serve`, drives it over pipes
//!   demo_http.rs        `demo-http`: spawns `mcp-raw serve --http`
//!   listening.rs        the address a spawned server announces on stderr
//!   demo_auth.rs        `demo-http --auth`: spawns `auth-server` and a protected `serve --http`
//!   bridge.rs           `bridge -- SERVER_CMD`: the flags → a forwarding core behind the HTTP transport
//!   tap.rs              `tap`: the flags → a stdio tap, an HTTP tap or a proxy, and its exit status
//!   trace_context.rs    `--trace-context`: the trace to join, from TRACEPARENT/TRACESTATE
//!   ca.rs               `ca`: the local CA of `tap --proxy`: create, show, rotate, delete
//!   auth_server.rs      `auth-server`: the flags → the loopback authorization server
//!   script.rs           the sessions the demos drive, and what each reply must be
//!   stderr_log.rs       the libraries' reports (the `log` facade) written to stderr
//!   stop.rs             Ctrl-C or SIGTERM: where a long-running program stops
//!   sessions.rs         `sessions`: the flags → the library's listing, printed as text or JSON
//!   wrap.rs             `wrap`: the flags → the library's options, its report printed
//! ```
//!
//! The binary (`main.rs`) calls [`run`] with the process's arguments and its
//! [`cli::console::Console`]; a test calls it with a command line and two
//! buffers, and reads what the program printed and the status it returned.

pub mod cli;

use clap::Parser;
use cli::args::{Cli, Command};
use cli::console::Console;
use std::ffi::OsString;

/// Runs one command line (`args[0]` is the program's name, as in `std::env::args_os`)
/// to its end, printing on `console`; returns the exit status. A command line clap
/// refuses prints clap's message (usage errors on stderr, `--help` and `--version` on
/// stdout) and returns clap's status (2 or 0), as the binary exits with it.
pub fn run(args: Vec<OsString>, console: &Console) -> u8 {
    let args = without_alias_separator(args);
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => return cli::exit::clap_refused(e, console),
    };
    if let Some(n) = cli.max_unanswered {
        mcp_raw_wire::asked::set_max_unanswered(n);
    }
    // Each program returns either what went wrong (its exit status by `exit::code`) or
    // the exit status itself (those with statuses of their own: see each `--help`).
    let c = console;
    let result = match cli.command {
        Command::Serve(args) => apart(c, move || cli::serve::main(args, c)),
        Command::Client(parsed) => {
            // `--method` and `--params` pair by their order on the command line,
            // which the parsed flags do not keep.
            let argv = args
                .iter()
                .skip(2)
                .map(|a| a.to_string_lossy().into_owned());
            return apart(c, move || cli::client::main(parsed, argv.collect(), c));
        }
        Command::Tap(args) => return apart(c, move || cli::tap::main(args, c)),
        Command::Ca(args) => apart(c, move || cli::ca::main(args, c)),
        Command::Bridge(args) => apart(c, move || cli::bridge::main(args, c)),
        Command::AuthServer(args) => apart(c, move || cli::auth_server::main(args, c)),
        Command::Completions(args) => apart(c, move || cli::completions::main(args, c)),
        Command::ConformanceClient(args) => {
            apart(c, move || cli::conformance_client::main(args, c))
        }
        Command::Check(mut args) => {
            args.files = args
                .files
                .iter()
                .map(|f| mcp_raw_tools::sessions::resolve(f))
                .collect();
            return apart(c, move || cli::check::main(args, c));
        }
        Command::Stats(mut args) => {
            args.files = args
                .files
                .iter()
                .map(|f| mcp_raw_tools::sessions::resolve(f))
                .collect();
            return apart(c, move || cli::stats::main(args, c));
        }
        Command::Load(args) => {
            return apart(c, move || cli::load::main(args, c))
                .unwrap_or_else(|e| cli::exit::report("mcp-raw load", &e, c));
        }
        Command::Pin(mut args) => {
            args.file = mcp_raw_tools::sessions::resolve(&args.file);
            return apart(c, move || cli::pin::main(args, c));
        }
        Command::Export(args) => {
            return match args.format {
                cli::args::ExportFormat::Har(mut har) => {
                    har.file = mcp_raw_tools::sessions::resolve(&har.file);
                    apart(c, move || cli::har::export(har, c))
                }
                cli::args::ExportFormat::Otlp(mut otlp) => {
                    otlp.file = mcp_raw_tools::sessions::resolve(&otlp.file);
                    apart(c, move || cli::otlp::export(otlp, c))
                }
            };
        }
        Command::Import(args) => return apart(c, move || cli::har::import(args, c)),
        Command::Replay(args) => return apart(c, move || cli::replay::main(args, c)),
        Command::Diff(args) => return apart(c, move || cli::diff::main(args, c)),
        Command::Show(mut args) => {
            args.file = mcp_raw_tools::sessions::resolve(&args.file);
            return apart(c, move || cli::show::main(args, c));
        }
        Command::Ui(mut args) => {
            args.files = args
                .files
                .iter()
                .map(|f| mcp_raw_tools::sessions::resolve(f))
                .collect();
            apart(c, move || cli::ui::main(args, c))
        }
        Command::Wrap(args) => {
            return apart(c, move || cli::wrap::main(args, c))
                .unwrap_or_else(|e| cli::exit::report("mcp-raw wrap", &e, c));
        }
        Command::Sessions(args) => return apart(c, move || cli::sessions::main(args, c)),
        Command::Demo(args) => apart(c, move || cli::demo_stdio::main(args, c)),
        Command::DemoHttp(args) => apart(c, move || cli::demo_http::main(args, c)),
    };
    match result {
        Ok(()) => 0,
        Err(e) => cli::exit::report("mcp-raw", &e, c),
    }
}

/// Runs one subcommand in a stack frame of its own. `run` holds every subcommand's
/// locals otherwise (the futures `block_on` runs among them): a 63 KB frame whose
/// stack probe touches each of its 16 pages at every start, a page fault each (about
/// 4 µs apiece on these machines: a tenth of `serve`'s cold start, measured by
/// `perf record -e page-faults`). Apart, a start pays for the subcommand it runs.
#[inline(never)]
fn apart<T>(console: &Console, run: impl FnOnce() -> T) -> T {
    let out = run();
    // Every recording whole on disk before the program's last word.
    cli::record::drain(console);
    // With --ui, the page outlives the program's work (a client's session, a stdio
    // tap's server): it stays served until Ctrl-C.
    cli::ui::linger(console);
    out
}

/// `cargo demo -- --era modern` reaches the binary as `demo -- --era modern` (the
/// alias already ends in `--`); drop that second `--` so the flags parse.
fn without_alias_separator(mut args: Vec<OsString>) -> Vec<OsString> {
    let is_demo = args.get(1).is_some_and(|a| a == "demo" || a == "demo-http");
    if is_demo && args.get(2).is_some_and(|a| a == "--") {
        args.remove(2);
    }
    args
}
