//! The programs behind the command line, outside the library: they use its public
//! API like any other program would.
//!
//! ```text
//! args.rs               every subcommand and flag (clap derive; `///` is the help)
//! serve.rs              `serve`: the server, its transport, its recorder
//! show.rs               `show FILE`: a transcript rendered again
//! check.rs              `check FILE`, `tap --check`: the spec's rules, reported
//! diff.rs               `diff A B`: two recordings, message by message
//! exit.rs               the one exit-status rule, and each subcommand's line of it
//! replay.rs             `replay FILE --against TARGET`: the client side sent again
//! record.rs             `--trace` and `--record`: the sinks a recorder feeds
//! client.rs             `client TARGET`: any server's wire
//! conformance_client.rs `conformance-client`: what the official suite drives
//! demo_stdio.rs         `demo`: spawns `mcp-raw serve`, drives it over pipes
//! demo_http.rs          `demo-http`: spawns `mcp-raw serve --http`
//! demo_auth.rs          `demo-http --auth`: spawns `auth-server` and a protected `serve --http`
//! bridge.rs             `bridge -- SERVER_CMD`: the flags → a forwarding core behind the HTTP transport
//! tap.rs                `tap`: the flags → a stdio tap, an HTTP tap or a proxy, and its exit status
//! ca.rs                 `ca`: the local CA of `tap --proxy`: create, show, rotate, delete
//! auth_server.rs        `auth-server`: the flags → the loopback authorization server
//! script.rs             the sessions the demos drive, and what each reply must be
//! ```

pub mod args;
pub mod auth_server;
pub mod bridge;
pub mod ca;
pub mod check;
pub mod client;
pub mod conformance_client;
pub mod demo_auth;
pub mod demo_http;
pub mod demo_stdio;
pub mod diff;
pub mod exit;
pub mod record;
pub mod replay;
pub mod script;
pub mod serve;
pub mod show;
pub mod tap;

/// The largest file a secret is read from: a secret, not a document.
pub const MAX_SECRET_FILE: u64 = 64 * 1024;

/// A secret given inline (`--client-secret S`) or in a file (`--client-secret-file
/// PATH`, so it stays out of `ps` and the shell's history); clap keeps the two
/// apart. The file holds the secret, one trailing newline (`\n` or `\r\n`) dropped;
/// an unreadable, empty, oversized or non-UTF-8 file is an error naming the flag and
/// the path (never the contents).
pub fn secret(
    inline: Option<&String>,
    file_flag: &str,
    file: Option<&std::path::Path>,
) -> anyhow::Result<Option<String>> {
    let Some(path) = file else {
        return Ok(inline.cloned());
    };
    let at = || format!("{file_flag} {}", path.display());
    let len = std::fs::metadata(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read it: {e}", at()))?
        .len();
    if len > MAX_SECRET_FILE {
        anyhow::bail!(
            "{}: {len} bytes; a secret file holds the secret alone (at most {MAX_SECRET_FILE} bytes)",
            at()
        );
    }
    let bytes =
        std::fs::read(path).map_err(|e| anyhow::anyhow!("{}: cannot read it: {e}", at()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{}: the secret is not UTF-8 text", at()))?;
    let text = text
        .strip_suffix('\n')
        .map_or(text.as_str(), |t| t.strip_suffix('\r').unwrap_or(t));
    if text.is_empty() {
        anyhow::bail!("{}: the file is empty; it should hold the secret", at());
    }
    Ok(Some(text.to_owned()))
}

/// A runtime for the async programs.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}
