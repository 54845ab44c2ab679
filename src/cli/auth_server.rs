//! `mcp-raw auth-server`: the flags → the loopback authorization server
//! (`mcp_raw::authserver`), its recorder, and the line that says where it is.

use super::args::AuthServerArgs;
use mcp_raw::authserver::{AuthServer, Config, serve};
use std::sync::Arc;

pub fn main(args: AuthServerArgs) -> anyhow::Result<()> {
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
    let recorder = super::record::recorder_for(
        "auth-server",
        "http",
        args.trace,
        args.record.as_deref(),
        mcp_raw::wire::decode::DEFAULT_MAX_MESSAGE,
        args.show_secrets,
    )?;
    let mut config = Config {
        clients: args.clients,
        token_ttl: args.token_ttl,
        code_ttl: args.code_ttl,
        max_clients: args.max_clients,
        max_codes: args.max_codes.max(1),
        max_refresh: args.max_refresh_tokens.max(1),
        refresh_ttl: args.refresh_ttl,
        max_body: args.max_body_bytes,
        header_timeout: args.header_timeout,
        ..Config::default()
    };
    if !args.scopes.is_empty() {
        config.scopes = args.scopes;
    }
    super::runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port))
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {}:{}: {e}", args.host, args.port))?;
        let addr = listener.local_addr()?;
        let server = Arc::new(AuthServer::new(format!("http://{addr}"), config)?);
        eprintln!(
            "[mcp-raw] authorization server listening on http://{addr} (metadata at http://{addr}/.well-known/oauth-authorization-server; it approves every request: demos and tests only)"
        );
        tokio::select! {
            r = serve(listener, server, recorder) => r?,
            _ = tokio::signal::ctrl_c() => eprintln!("[mcp-raw] interrupted: shutting down"),
        }
        Ok(())
    })
}
