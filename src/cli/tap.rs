//! `mcp-raw tap`: the flags → a stdio tap (the server's command after `--`) or an HTTP
//! tap (`--http --listen --target`), its recorder (transcript role `tap`), and the
//! exit status it ends with.

use super::args::TapArgs;
use super::console::Console;
// A mistake on the command line: exit status 2, as for clap's own.
use super::exit::usage;
#[cfg(unix)]
use mcp_raw_tools::tap::stdio;
use mcp_raw_tools::tap::{http, proxy, remote};
use std::net::SocketAddr;

/// Runs the tap; returns the process's exit status.
pub fn main(args: TapArgs, console: &Console) -> u8 {
    let remote_only =
        !args.headers.is_empty() || args.timeout.is_some() || args.max_response_bytes.is_some();
    let result = if args.remote.is_none() && remote_only {
        Err(usage(
            "--header, --timeout and --max-response-bytes are for the server of --remote URL",
        ))
    } else if args.trace_context && (args.proxy || args.http) {
        Err(usage(
            "--trace-context is for a stdio tap (tap -- SERVER) or --remote URL: an HTTP tap passes request bodies as they came",
        ))
    } else if args.remote.is_some() {
        run_remote(args, console)
    } else if args.proxy {
        run_proxy(args, console)
    } else if args.http {
        run_http(args, console)
    } else {
        run_stdio(args, console)
    };
    match result {
        Ok(code) => u8::try_from(code).unwrap_or(1),
        Err(e) => {
            super::exit::say("mcp-raw tap", &e, console);
            #[cfg(unix)]
            if let Some(spawn) = e.downcast_ref::<stdio::SpawnError>() {
                return spawn.exit_code() as u8;
            }
            super::exit::code(&e)
        }
    }
}

/// Elsewhere only the HTTP tap runs: the stdio one is built on Unix pipes and signals.
#[cfg(not(unix))]
fn run_stdio(_args: TapArgs, _console: &Console) -> anyhow::Result<i32> {
    Err(usage(
        "the stdio tap runs on Unix only (pipes, exit statuses and signals as Unix has them); use --http",
    ))
}

#[cfg(unix)]
fn run_stdio(args: TapArgs, console: &Console) -> anyhow::Result<i32> {
    if args.command.is_empty() {
        return Err(usage(
            "give the server's command after `--` (mcp-raw tap -- SERVER_CMD ARG…), or use --http",
        ));
    }
    let intercept = interceptor(&args)?;
    let (recorder, live, _otlp) = recorder(&args, "stdio", console)?;
    if let Some(i) = &intercept {
        super::ui::intercept_with(i.clone());
    }
    // The page resends into the server's stdin: a line between the client's,
    // through the same interceptor (a new one, holding nothing, without --intercept).
    let resend = args.ui.then(|| {
        let through = intercept.clone().unwrap_or_else(|| {
            std::sync::Arc::new(mcp_raw_tools::tap::intercept::Interceptor::new(
                None,
                args.intercept_timeout,
            ))
        });
        let lane = recorder.lane(mcp_raw_wire::event::LaneKind::Stdio);
        std::sync::Arc::new(mcp_raw_tools::tap::resend::Resender::new(
            recorder.clone(),
            through,
            lane,
        ))
    });
    if let Some(r) = &resend {
        super::ui::resend_into(std::sync::Arc::new(mcp_raw_tools::tap::resend::Shared(
            r.clone(),
        )));
    }
    let trace = trace_injector(&args)?;
    let status = stdio::run(stdio::Config {
        command: args.command,
        recorder,
        drain_timeout: args.drain_timeout,
        intercept,
        max_line: args.max_message_bytes,
        resend,
        trace,
    });
    if let Some(live) = live {
        live.finish();
    }
    status
}

fn run_http(args: TapArgs, console: &Console) -> anyhow::Result<i32> {
    if !args.command.is_empty() {
        return Err(usage(
            "--http relays to --target URL: a server command after `--` is for the stdio tap",
        ));
    }
    let target = args
        .target
        .as_deref()
        .ok_or_else(|| usage("--http needs --target http://HOST:PORT/PATH"))?;
    let target = http::Target::parse(target).map_err(usage)?;
    let listen = listen_addr(&args.listen, args.allow_remote).map_err(usage)?;
    let intercept = interceptor(&args)?;
    let (recorder, live, _otlp) = recorder(&args, "http", console)?;
    if let Some(i) = &intercept {
        super::ui::intercept_with(i.clone());
    }
    let listen_tls = super::serve::tls_listen(&args.tls)?;
    if !target.tls && (args.insecure || !args.cacert.is_empty()) {
        return Err(usage(
            "--cacert and --insecure are for an https:// --target",
        ));
    }
    let target_tls = mcp_raw_net::client::tls::Tls::new(mcp_raw_net::client::tls::TlsOptions {
        cacert: args.cacert.clone(),
        insecure: args.insecure,
        ..Default::default()
    })
    .map_err(|e| usage(format!("{e:#}")))?;
    if target.tls && args.insecure {
        console.say(format_args!(
            "[mcp-raw] tap: WARNING --insecure: the target's certificate is not required to verify; anyone on the path could be {}",
            target.url()
        ));
    }
    super::runtime()?.block_on(async {
        let (listener, addr) = bind(listen).await?;
        console.say(format_args!(
            "[mcp-raw] tap listening on {}://{addr}{}, forwarding to {}{}",
            if listen_tls.is_some() {
                "https"
            } else {
                "http"
            },
            target.path,
            target.url(),
            if args.rewrite_host {
                " (Host rewritten)"
            } else {
                ""
            }
        ));
        if listen_tls.is_none() {
            // The page resends through this listener (a TLS one would need the page
            // to be a TLS client of it: not offered).
            super::ui::resend_through(addr);
        }
        let config = http::Config {
            target,
            recorder,
            rewrite_host: args.rewrite_host,
            connect_timeout: args.connect_timeout,
            max_connections: args.max_connections,
            header_timeout: super::args::off_if_zero(args.header_timeout),
            idle_timeout: super::args::off_if_zero(args.idle_timeout),
            target_tls: std::sync::Arc::new(target_tls),
            listen_tls,
            intercept,
            intercept_max: args.intercept_max_bytes,
        };
        http::run(listener, config, interrupted(console)).await?;
        if let Some(live) = live {
            live.finish();
        }
        Ok(0)
    })
}

fn run_proxy(args: TapArgs, console: &Console) -> anyhow::Result<i32> {
    if !args.command.is_empty() {
        return Err(usage(
            "--proxy relays what clients ask for: a server command after `--` is for the stdio tap",
        ));
    }
    if args.target.is_some() || args.rewrite_host {
        return Err(usage(
            "--proxy takes its targets from each CONNECT (or absolute URL): --target and --rewrite-host are for --http",
        ));
    }
    let listen = listen_addr(&args.listen, args.allow_remote).map_err(usage)?;
    let intercept = interceptor(&args)?;
    let dir = match &args.ca_dir {
        Some(dir) => dir.clone(),
        None => mcp_raw_tools::tap::ca::default_dir()?,
    };
    let ca = mcp_raw_tools::tap::ca::Ca::load(&dir)?;
    if args.insecure {
        console.say(format_args!(
            "[mcp-raw] WARNING: --insecure: the real hosts' certificates are not verified; each lane's TLS facts say why one would have failed"
        ));
    }
    let tls = mcp_raw_net::client::tls::Tls::new(mcp_raw_net::client::tls::TlsOptions {
        cacert: args.cacert.clone(),
        insecure: args.insecure,
        ..Default::default()
    })?;
    let (recorder, live, _otlp) = recorder(&args, "http", console)?;
    if let Some(i) = &intercept {
        super::ui::intercept_with(i.clone());
    }
    super::runtime()?.block_on(async {
        let (listener, addr) = bind(listen).await?;
        console.say(format_args!(
            "[mcp-raw] tap proxy listening on http://{addr} (HTTPS_PROXY=http://{addr}), decrypting {} with the CA in {}",
            if args.decrypt_hosts.is_empty() {
                "every host".to_owned()
            } else {
                args.decrypt_hosts.join(", ")
            },
            dir.display()
        ));
        let config = proxy::Config {
            recorder,
            ca,
            decrypt: args.decrypt_hosts,
            tls,
            connect_timeout: args.connect_timeout,
            max_connections: args.max_connections,
            header_timeout: super::args::off_if_zero(args.header_timeout),
            max_head_bytes: args.max_head_bytes,
            idle_timeout: super::args::off_if_zero(args.idle_timeout),
            intercept,
            intercept_max: args.intercept_max_bytes,
        };
        proxy::run(listener, config, interrupted(console)).await?;
        if let Some(live) = live {
            live.finish();
        }
        Ok(0)
    })
}

/// `--remote URL`: the client's stdio relayed to a Streamable HTTP server.
fn run_remote(args: TapArgs, console: &Console) -> anyhow::Result<i32> {
    let url = args.remote.clone().unwrap_or_default();
    if !args.command.is_empty() {
        return Err(usage(
            "--remote URL is the server: a server command after `--` is for the stdio tap",
        ));
    }
    if args.intercept.is_some() || args.intercept_ui {
        return Err(usage(
            "--intercept holds messages on a stdio or --http tap; --remote passes each on as it comes",
        ));
    }
    let headers = args
        .headers
        .iter()
        .map(|h| super::header(h))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let tls = mcp_raw_net::client::tls::Tls::new(mcp_raw_net::client::tls::TlsOptions {
        cacert: args.cacert.clone(),
        insecure: args.insecure,
        ..Default::default()
    })
    .map_err(|e| usage(format!("{e:#}")))?;
    if args.insecure {
        console.say(format_args!(
            "[mcp-raw] tap: WARNING --insecure: {url}'s certificate is not required to verify; anyone on the path could answer for it"
        ));
    }
    let (recorder, live, _otlp) = recorder(&args, "stdio", console)?;
    let status = remote::run(remote::Config {
        // The client's stdio transport: this process's own stdin and stdout.
        input: Box::new(std::io::stdin()),
        output: Box::new(std::io::stdout()),
        url: url.clone(),
        headers,
        recorder,
        timeout: args
            .timeout
            .unwrap_or(mcp_raw_net::client::http_link::DEFAULT_TIMEOUT),
        max_body: args
            .max_response_bytes
            .unwrap_or(mcp_raw_net::client::http_link::DEFAULT_MAX_BODY),
        max_line: args.max_message_bytes,
        tls: std::sync::Arc::new(tls),
        trace: trace_injector(&args)?,
    })
    .map_err(|e| usage(format!("--remote {url:?}: {e:#}")))?;
    if let Some(live) = live {
        live.finish();
    }
    Ok(status)
}

/// The tap's recorder (`--trace`, `--record`, and `--check`'s live checker and
/// `--otlp`'s exporter as more sinks), for one transport; idle when none of them is
/// asked for. The exporter reports when dropped: keep it to the end.
fn recorder<'c>(
    args: &TapArgs,
    transport: &str,
    console: &'c Console,
) -> anyhow::Result<(
    mcp_raw_wire::recorder::Recorder,
    Option<super::check::Live>,
    super::otlp::Otlp<'c>,
)> {
    let live = args
        .check
        .then(|| super::check::Live::new(args.max_message_bytes, console));
    let wanted = super::record::Wanted {
        trace: args.trace,
        color: args.style.color,
        record: args.record.as_deref(),
        queue: args.record_queue.policy(),
        max_message: args.max_message_bytes,
        show_secrets: args.show_secrets,
        redact_headers: &args.style.redact_headers,
    };
    let mut sinks: Vec<Box<dyn mcp_raw_wire::recorder::Sink>> =
        live.iter().map(super::check::Live::sink).collect();
    let header = mcp_raw_wire::transcript::Header::new("tap", transport);
    // `--record-dir` is what `wrap` puts in a client's configuration: a directory it
    // cannot write to must not keep the client's server from starting, so the tap
    // says why on stderr (which clients keep in their logs) and relays unrecorded.
    if let Some(dir) = &args.record_dir {
        let session = mcp_raw_tools::sessions::start(
            dir,
            &args.name,
            args.record_dir_max_age,
            args.record_dir_max_bytes,
        )
        .and_then(|path| {
            super::record::record_file(
                &path,
                &header,
                args.max_message_bytes,
                args.record_queue.policy(),
            )
        });
        match session {
            Ok(sink) => sinks.push(sink),
            Err(e) => console.say(format_args!(
                "mcp-raw tap: {}; the server runs unrecorded",
                mcp_raw_wire::term::escape(&format!("{e:#}"))
            )),
        }
    }
    sinks.extend(super::ui::sinks(
        args.ui,
        &args.ui_page,
        &header,
        args.max_message_bytes,
        console,
    )?);
    let otlp = super::otlp::start(
        &args.otlp,
        args.trace_context,
        &header,
        args.max_message_bytes,
        &mut sinks,
        console,
    )?;
    // `--metrics`: the tap's server ends its sessions on its own clock, unknown here.
    super::metrics::add(&mut sinks, &args.metrics, args.max_message_bytes, console)?;
    let recorder = super::record::recorder(&header, wanted, sinks, console)?
        .unwrap_or_else(mcp_raw_wire::recorder::Recorder::none);
    Ok((recorder, live, otlp))
}

/// `--intercept FILTER` (or `--intercept-ui`, a filter set from the page later):
/// the tap's holds, its filter read here so a bad one is refused before anything
/// starts. Holding needs someone to decide: the page (`--ui`).
fn interceptor(
    args: &TapArgs,
) -> anyhow::Result<Option<std::sync::Arc<mcp_raw_tools::tap::intercept::Interceptor>>> {
    use mcp_raw_tools::tap::intercept::{Filter, Interceptor};
    if args.intercept.is_none() && !args.intercept_ui {
        return Ok(None);
    }
    if !args.ui {
        return Err(usage(
            "--intercept holds messages for someone to decide on the page: add --ui",
        ));
    }
    let filter = match &args.intercept {
        Some(text) => Some(Filter::parse(text).map_err(|e| usage(format!("--intercept: {e}")))?),
        None => None,
    };
    Ok(Some(std::sync::Arc::new(Interceptor::new(
        filter,
        args.intercept_timeout,
    ))))
}

/// The HTTP tap's or the proxy's listener, and the address it got (port 0 picks one).
async fn bind(listen: SocketAddr) -> anyhow::Result<(tokio::net::TcpListener, SocketAddr)> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {listen}: {e}"))?;
    let addr = listener.local_addr()?;
    Ok((listener, addr))
}

/// Ctrl-C or SIGTERM, said on stderr: where the HTTP tap and the proxy stop.
async fn interrupted(console: &Console) {
    let how = super::stop::signalled().await;
    console.say(format_args!("[mcp-raw] tap {how}: shutting down"));
}

/// `--listen`: `ADDRESS:PORT` or a bare `PORT` (on 127.0.0.1). Only loopback, unless
/// `--allow-remote`: a tap relays anything to its target, for whoever can reach it.
fn listen_addr(text: &str, allow_remote: bool) -> Result<SocketAddr, String> {
    let addr: SocketAddr = match text.parse::<u16>() {
        Ok(port) => SocketAddr::from(([127, 0, 0, 1], port)),
        Err(_) => text.parse().map_err(|_| {
            format!("--listen {text:?}: expected ADDRESS:PORT (e.g. 127.0.0.1:3200) or a port")
        })?,
    };
    if !addr.ip().is_loopback() && !allow_remote {
        return Err(format!(
            "--listen {addr}: not a loopback address; add --allow-remote to listen there anyway"
        ));
    }
    Ok(addr)
}

/// `--trace-context`: the injector, joining the caller's trace or a new one.
fn trace_injector(args: &TapArgs) -> anyhow::Result<Option<mcp_raw_tools::tap::trace::Injector>> {
    if !args.trace_context {
        return Ok(None);
    }
    let (parent, state) = super::trace_context::from_env()?;
    Ok(Some(mcp_raw_tools::tap::trace::Injector::new(
        parent, state,
    )))
}
