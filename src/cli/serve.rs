//! `mcp-raw serve`: the server the flags ask for, on stdio or HTTP, with its
//! recorder when `--trace` or `--record` wants one.

use super::args::{EraArg, FixtureArg, off_if_zero};
use mcp_raw::protocol::Server;
use mcp_raw::transport::{http, stdio};
use mcp_raw::wire::recorder::Recorder;
use std::time::Duration;

/// The server the command line asks for.
pub fn server(
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

pub fn serve_stdio(
    server: std::sync::Arc<Server>,
    max_line: usize,
    recorder: Option<Recorder>,
) -> anyhow::Result<()> {
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout();
    stdio::serve(server, stdin, stdout, std::io::stderr(), max_line, recorder)?;
    Ok(())
}

pub fn serve_http(
    server: std::sync::Arc<Server>,
    host: &str,
    port: u16,
    config: http::Config,
) -> anyhow::Result<()> {
    super::runtime()?.block_on(async {
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
