//! The address a spawned `mcp-raw` server announces: the demos start `serve --http`
//! (and `auth-server`) as children and learn where to connect from the child's first
//! "listening on" line on stderr, forwarding the rest of its stderr to the view.

use anyhow::{Context, bail};
use mcp_raw_net::client::wire_print::Printer;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

/// Reads the child's stderr until its "listening on http://ADDR/mcp" line, then keeps
/// forwarding the rest of its stderr to the printer.
pub async fn listening_address(child: &mut Child, printer: Printer) -> anyhow::Result<String> {
    let stderr = child.stderr.take().context("child stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    while let Some(line) = lines.next_line().await? {
        printer.server_stderr(&line);
        if let Some(rest) = line.split("listening on http://").nth(1) {
            let authority = rest
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_end_matches(mcp_raw_wire::http::ENDPOINT)
                .to_owned();
            tokio::spawn(async move {
                while let Ok(Some(line)) = lines.next_line().await {
                    printer.server_stderr(&line);
                }
            });
            return Ok(authority);
        }
    }
    bail!("the server exited before listening (is the port in use? try --port 0)")
}
