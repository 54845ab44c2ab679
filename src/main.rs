//! `mcp-raw`: the binary, the top of the workspace. Every subcommand is a call into a
//! program in `src/cli/`, built on the crates below it like any program would be:
//! `mcp-raw-tools` (tap, check, replay, bridge, auth-server), `mcp-raw-net`
//! (transports, the client, OAuth), `mcp-raw-core` (the protocol) and `mcp-raw-wire`
//! (the bytes and their views).
//!
//! ```text
//! main.rs               the subcommand parsed, its program called, its exit status
//! cli/                  the programs behind the command line
//!   mod.rs              the runtime they run on; the list of programs
//!   args.rs             every subcommand and flag (clap derive; `///` is the help)
//!   serve.rs            `serve`: the server, its transport, its recorder
//!   show.rs             `show FILE`: a transcript rendered again
//!   check.rs            `check FILE`, `tap --check`: the spec's rules, reported
//!   diff.rs             `diff A B`: two recordings, message by message
//!   exit.rs             the one exit-status rule, and each subcommand's line of it
//!   replay.rs           `replay FILE --against TARGET`: the client side sent again
//!   record.rs           `--trace` and `--record`: the sinks a recorder feeds
//!   client.rs           `client TARGET`: any server's wire
//!   conformance_client.rs `conformance-client`: what the official suite drives
//!   demo_stdio.rs       `demo`: spawns `mcp-raw serve`, drives it over pipes
//!   demo_http.rs        `demo-http`: spawns `mcp-raw serve --http`
//!   demo_auth.rs        `demo-http --auth`: spawns `auth-server` and a protected `serve --http`
//!   bridge.rs           `bridge -- SERVER_CMD`: the flags → a forwarding core behind the HTTP transport
//!   tap.rs              `tap`: the flags → a stdio tap, an HTTP tap or a proxy, and its exit status
//!   ca.rs               `ca`: the local CA of `tap --proxy`: create, show, rotate, delete
//!   auth_server.rs      `auth-server`: the flags → the loopback authorization server
//!   script.rs           the sessions the demos drive, and what each reply must be
//!   stderr_log.rs       the libraries' reports (the `log` facade) written to stderr
//! ```

mod cli;

use clap::Parser;
use cli::args::{Cli, Command};
use cli::runtime;
use std::process::ExitCode;

fn main() -> ExitCode {
    mcp_raw_net::memory::return_large_blocks_promptly();
    cli::stderr_log::install();
    let cli = Cli::parse_from(without_alias_separator(std::env::args_os().collect()));
    if let Some(n) = cli.max_unanswered {
        mcp_raw_wire::asked::set_max_unanswered(n);
    }
    let result = match cli.command {
        Command::Serve {
            http: false,
            max_body_bytes,
            max_log_backlog,
            era,
            fixture,
            max_tasks,
            task_ttl,
            state_key_file,
            trace,
            record,
            max_message_bytes,
            show_secrets,
            color,
            redact_headers,
            tls,
            ..
        } => apart(move || {
            if tls.tls_cert.is_some() {
                return Err(cli::client::Usage(
                    "--tls-cert and --tls-key need --http (stdio has no TLS)".into(),
                )
                .into());
            }
            cli::serve::install_state_key(state_key_file.as_deref())?;
            cli::record::recorder(
                "stdio",
                trace,
                color,
                record.as_deref(),
                max_message_bytes,
                cli::record::Secrets {
                    show: show_secrets,
                    headers: &redact_headers,
                },
            )
            .and_then(|recorder| {
                cli::serve::serve_stdio(
                    cli::serve::server(era, fixture, max_tasks, task_ttl),
                    max_body_bytes,
                    max_log_backlog,
                    recorder,
                )
            })
        }),
        Command::Serve {
            http: true,
            host,
            port,
            max_body_bytes,
            era,
            fixture,
            allow_hosts,
            allow_remote,
            limits,
            protect,
            max_tasks,
            task_ttl,
            state_key_file,
            session_id_prefix,
            store,
            store_prefix,
            store_timeout,
            store_max_reply_bytes,
            task_lease,
            store_trace,
            store_cacert,
            store_auth_file,
            store_cert,
            store_key,
            trace,
            record,
            max_message_bytes,
            show_secrets,
            color,
            redact_headers,
            tls,
            ..
        } => apart(move || {
            let tls = cli::serve::tls_listen(&tls)?;
            cli::serve::install_state_key(state_key_file.as_deref())?;
            cli::record::recorder(
                "http",
                trace,
                color,
                record.as_deref(),
                max_message_bytes,
                cli::record::Secrets {
                    show: show_secrets,
                    headers: &redact_headers,
                },
            )
            .and_then(|recorder| {
                cli::serve::serve_http(
                    cli::serve::Spec {
                        era,
                        fixture,
                        max_tasks,
                        task_ttl,
                        store: store.map(|url| cli::serve::StoreSpec {
                            url,
                            prefix: store_prefix,
                            timeout: store_timeout,
                            max_reply: store_max_reply_bytes,
                            lease: task_lease,
                            trace: store_trace,
                            cacert: store_cacert,
                            auth_file: store_auth_file,
                            cert: store_cert,
                            key: store_key,
                        }),
                    },
                    &host,
                    port,
                    allow_remote,
                    mcp_raw_net::transport::http::Config {
                        limits: limits.into_limits(max_body_bytes),
                        allowed_hosts: mcp_raw_net::transport::http::guard::AllowedHosts::new(
                            &allow_hosts,
                        ),
                        recorder,
                        auth: protect.into_settings()?,
                        session_id_prefix,
                        tls,
                    },
                )
            })
        }),
        Command::Client(args) => {
            let code = match apart(move || cli::client::main(args)) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("mcp-raw: {}", mcp_raw_wire::term::escape(&format!("{e:#}")));
                    cli::client::exit_code(&e)
                }
            };
            return ExitCode::from(code);
        }
        Command::Tap(args) => return ExitCode::from(apart(move || cli::tap::main(args))),
        Command::Ca(args) => apart(move || cli::ca::main(args)),
        Command::Bridge(args) => apart(move || cli::bridge::main(args)),
        Command::AuthServer(args) => apart(move || cli::auth_server::main(args)),
        Command::Completions { shell } => apart(move || {
            use clap::CommandFactory;
            // Hidden subcommands (`conformance-client`) are not offered: clap_complete
            // lists them all, so the command it reads is built without them.
            let full = Cli::command();
            let mut command = clap::Command::new("mcp-raw")
                .version(env!("CARGO_PKG_VERSION"))
                .subcommands(full.get_subcommands().filter(|c| !c.is_hide_set()).cloned());
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command, "mcp-raw", &mut script);
            if shell == clap_complete::Shell::Bash {
                // clap_complete 4.6's bash script escapes the `-` of `mcp-raw` one way
                // where it sets `cmd` (`mcp__raw__subcmd__serve`) and another in the
                // `case` that reads it (`mcp__subcmd__raw__subcmd__serve`), so no
                // subcommand's flags would complete: make the two agree.
                script = String::from_utf8_lossy(&script)
                    .replace("mcp__subcmd__raw__", "mcp__raw__")
                    .into_bytes();
            }
            // A closed pipe (`| head`) is the reader's choice, not an error.
            use std::io::Write;
            match std::io::stdout().write_all(&script) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other.map_err(anyhow::Error::from),
            }
        }),
        Command::ConformanceClient { url, view } => apart(move || {
            let printer = view.printer("http")?;
            runtime()?.block_on(cli::conformance_client::run(&url, printer))
        }),
        Command::Diff {
            a,
            b,
            ignore,
            format,
            max_shown,
            color,
        } => {
            return ExitCode::from(apart(move || {
                cli::diff::main(&a, &b, &ignore, &format, max_shown, color.enabled())
            }));
        }
        Command::Replay {
            file,
            against,
            command,
            timeout,
            http,
            port,
            tls,
            ignore,
            view,
        } => {
            return ExitCode::from(apart(move || {
                cli::replay::main(
                    &file,
                    cli::replay::Mode {
                        against,
                        command,
                        timeout,
                        http,
                        port,
                        tls,
                        ignore,
                    },
                    &view,
                )
            }));
        }
        Command::Check {
            file,
            format,
            rules,
            max_message_bytes,
            color,
        } => {
            return ExitCode::from(apart(move || {
                cli::check::main(
                    file.as_deref(),
                    format,
                    rules,
                    max_message_bytes,
                    color.enabled(),
                )
            }));
        }
        Command::Show {
            file,
            raw,
            pretty,
            format,
            oneline,
            json,
            explain,
            follow,
            html,
            max_message_bytes,
            color,
            lane,
            dir,
            method,
            id,
            era,
        } => {
            // `--format json|pretty` is `--json` or `--pretty`, and refused beside a
            // text view's flags the way those are.
            use cli::args::ShowFormat;
            let json = json || format == Some(ShowFormat::Json);
            let pretty = pretty || format == Some(ShowFormat::Pretty);
            if json || pretty {
                let text_flags = [
                    ("--raw", raw),
                    ("--oneline", oneline),
                    ("--explain", explain),
                ];
                if let Some((flag, _)) = text_flags.iter().find(|(_, on)| *on) {
                    use clap::CommandFactory;
                    Cli::command()
                        .error(
                            clap::error::ErrorKind::ArgumentConflict,
                            format!("{flag} shows a text view: it cannot go with --format json or pretty"),
                        )
                        .exit();
                }
            }
            return ExitCode::from(apart(move || {
                cli::show::main(
                    &file,
                    cli::show::Options {
                        raw,
                        pretty,
                        oneline,
                        json,
                        explain,
                        follow,
                        html,
                        color: color.enabled(),
                        max: max_message_bytes,
                        only: cli::show::Only {
                            lanes: lane,
                            dir: dir.as_deref().and_then(mcp_raw_wire::event::Dir::from_name),
                        },
                        select: mcp_raw_wire::select::Select::new(method, id, era),
                    },
                )
            }));
        }
        Command::Demo { era, view } => apart(move || {
            let printer = view.printer("stdio")?;
            runtime()?.block_on(cli::demo_stdio::run(era.into(), printer))
        }),
        Command::DemoHttp {
            port,
            auth: true,
            view,
            ..
        } => apart(move || {
            let printer = view.printer("http")?;
            runtime()?.block_on(cli::demo_auth::run(port, printer))
        }),
        Command::DemoHttp {
            port, era, view, ..
        } => apart(move || {
            let printer = view.printer("http")?;
            runtime()?.block_on(cli::demo_http::run(port, era.into(), printer))
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-raw: {}", mcp_raw_wire::term::escape(&format!("{e:#}")));
            ExitCode::from(cli::exit::code(&e))
        }
    }
}

/// Runs one subcommand in a stack frame of its own. `main` holds every subcommand's
/// locals otherwise (the futures `block_on` runs among them): a 63 KB frame whose
/// stack probe touches each of its 16 pages at every start, a page fault each (about
/// 4 µs apiece on these machines: a tenth of `serve`'s cold start, measured by
/// `perf record -e page-faults`). Apart, a start pays for the subcommand it runs.
#[inline(never)]
fn apart<T>(run: impl FnOnce() -> T) -> T {
    run()
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
