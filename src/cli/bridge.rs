//! `mcp-raw bridge`: the flags → the forwarding core ([`mcp_raw_tools::bridge::Bridge`])
//! behind the same HTTP transport `serve --http` runs, its recorder (transcript role
//! `bridge`), and the listening line scripts read the port from.

use super::args::BridgeArgs;
use super::console::Console;
use mcp_raw_net::transport::http;
use mcp_raw_tools::bridge::{Bridge, child::Spawn, probe};

pub fn main(args: BridgeArgs, console: &Console) -> anyhow::Result<()> {
    let wanted = super::record::Wanted {
        trace: args.trace,
        color: args.style.color,
        record: args.record.as_deref(),
        queue: args.record_queue.policy(),
        max_message: args.max_message_bytes,
        show_secrets: args.show_secrets,
        redact_headers: &args.style.redact_headers,
    };
    let header = mcp_raw_wire::transcript::Header::new("bridge", "http");
    let mut page = super::ui::sinks(
        args.ui,
        &args.ui_page,
        &header,
        args.max_message_bytes,
        console,
    )?;
    // Reports what it sent when dropped, at the end of `main`.
    let _otlp = super::otlp::start(
        &args.otlp,
        false,
        &header,
        args.max_message_bytes,
        &mut page,
        console,
    )?;
    let metrics = super::metrics::add(&mut page, &args.metrics, args.max_message_bytes, console)?;
    let recorder = super::record::recorder(&header, wanted, page, console)?;
    let spawn = Spawn {
        command: args.command.clone(),
        recorder: recorder
            .clone()
            .unwrap_or_else(mcp_raw_wire::recorder::Recorder::none),
        max_line: args.max_body_bytes,
        exit_wait: args.exit_wait,
        echo_stderr: args.trace.is_none(),
        max_children: args.max_children.max(1),
        request_timeout: args.request_timeout,
        alive: Default::default(),
    };
    let mut config = http::Config {
        limits: args.limits.into_limits(args.max_body_bytes),
        allowed_hosts: http::guard::AllowedHosts::new(&args.allow_hosts),
        recorder,
        auth: args.protect.into_settings()?,
        session_id_prefix: Default::default(),
        tls: super::serve::tls_listen(&args.tls)?,
    };
    super::metrics::expire(metrics.as_ref(), &config.limits);
    super::serve::check_protection(&config)?;
    let (host, port) = (args.host.as_str(), args.port);
    super::runtime()?.block_on(async {
        let listener = http::listen::bind(host, port, config.limits.backlog)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {host}:{port}: {e}"))?;
        let addr = listener.local_addr()?;
        super::serve::check_remote(addr, args.allow_remote, &config)?;
        super::serve::protect_at(&mut config, addr, console);
        console.say(format_args!(
            "[mcp-raw] bridge listening on {}://{addr}{}, serving {}",
            super::serve::scheme(&config),
            mcp_raw_wire::http::ENDPOINT,
            args.command.join(" ")
        ));
        // Connections wait in the listen queue while one child lists its tools.
        let schemas = if args.probe_timeout.is_zero() {
            Vec::new()
        } else {
            match probe::tool_schemas(&spawn, args.probe_timeout, args.probe_pages).await {
                Ok(schemas) => {
                    console.say(format_args!(
                        "[mcp-raw] bridge: the server lists {} tool(s); their x-mcp-header annotations are checked",
                        schemas.len()
                    ));
                    schemas
                }
                Err(why) => {
                    console.say(format_args!(
                        "[mcp-raw] bridge: could not read the tools' schemas ({why}); Mcp-Param-* headers are not checked"
                    ));
                    Vec::new()
                }
            }
        };
        let shutdown = async {
            let how = super::stop::signalled().await;
            console.say(format_args!("[mcp-raw] bridge {how}: shutting down (children are killed)"));
        };
        let app = http::App::with_core(Bridge::new(spawn, schemas), config);
        http::serve(listener, app, shutdown).await?;
        Ok(())
    })
}
