//! `mcp-raw auth-server`: the flags → the loopback authorization server
//! (`mcp_raw_tools::authserver`), its recorder, and the line that says where it is.

use super::args::AuthServerArgs;
use super::console::Console;
use mcp_raw_tools::authserver::{AuthServer, Config, serve};
use std::sync::Arc;

pub fn main(args: AuthServerArgs, console: &Console) -> anyhow::Result<()> {
    let loopback = args
        .host
        .parse::<std::net::IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
        || args.host == "localhost";
    if !loopback {
        anyhow::bail!(
            "auth-server approves every request without asking anyone, so it binds loopback only, not {:?}",
            args.host
        );
    }
    let wanted = super::record::Wanted {
        trace: args.trace,
        color: args.style.color,
        record: args.record.as_deref(),
        queue: args.record_queue.policy(),
        max_message: mcp_raw_wire::decode::DEFAULT_MAX_MESSAGE,
        show_secrets: args.show_secrets,
        redact_headers: &args.style.redact_headers,
    };
    let header = mcp_raw_wire::transcript::Header::new("auth-server", "http");
    let recorder = super::record::recorder(&header, wanted, Vec::new(), console)?;
    let clients = match &args.clients_file {
        None => args.clients,
        Some(path) => clients_from(path)?,
    };
    let mut config = Config {
        clients,
        token_ttl: args.token_ttl,
        code_ttl: args.code_ttl,
        max_clients: args.max_clients,
        max_codes: args.max_codes.max(1),
        max_refresh: args.max_refresh_tokens.max(1),
        refresh_ttl: args.refresh_ttl,
        max_body: args.max_body_bytes,
        // The same clocks as `serve --http`, with its defaults.
        listener: args.clocks.apply(mcp_raw_net::transport::http::Limits {
            header_timeout: args.header_timeout,
            ..Default::default()
        }),
        ..Config::default()
    };
    if !args.scopes.is_empty() {
        config.scopes = args.scopes;
    }
    let tls = super::serve::tls_listen(&args.tls)?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    super::runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port))
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {}:{}: {e}", args.host, args.port))?;
        let addr = listener.local_addr()?;
        let server = Arc::new(AuthServer::new(format!("{scheme}://{addr}"), config)?);
        console.say(format_args!(
            "[mcp-raw] authorization server listening on {scheme}://{addr} (metadata at {scheme}://{addr}/.well-known/oauth-authorization-server; it approves every request: demos and tests only)"
        ));
        tokio::select! {
            r = serve(listener, server, recorder, tls) => r?,
            how = super::stop::signalled() => console.say(format_args!("[mcp-raw] {how}: shutting down")),
        }
        Ok(())
    })
}

/// `--clients-file`: one `ID` or `ID:SECRET` a line; blank lines and `#` comments
/// skipped. Read through [`super::secret`], so the same refusals hold (unreadable,
/// empty, oversized).
fn clients_from(path: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let text = super::secret(None, "--clients-file", Some(path))?.unwrap_or_default();
    let clients: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    if let Some(bad) = clients.iter().find(|c| c.starts_with(':')) {
        let line = text
            .lines()
            .position(|l| l.trim() == bad)
            .map_or(0, |i| i + 1);
        anyhow::bail!(
            "--clients-file {} line {line}: a client is ID or ID:SECRET; this line has no ID",
            path.display()
        );
    }
    if clients.is_empty() {
        anyhow::bail!(
            "--clients-file {}: no client in it (one ID or ID:SECRET a line)",
            path.display()
        );
    }
    Ok(clients)
}
