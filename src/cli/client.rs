//! `mcp-raw client TARGET`: connect to any MCP server, learn its era, list its tools,
//! call some, and print every byte of it. TARGET is an `http://` URL, or the command
//! line of a stdio server.

use anyhow::{Context, bail};
use mcp_raw::client::http_link::HttpLink;
use mcp_raw::client::mcp_client::{EraCache, Link, McpClient, Options};
use mcp_raw::client::stdio_link::StdioLink;
use mcp_raw::client::wire_print::Printer;
use mcp_raw::protocol::Eras;
use serde_json::{Value, json};

/// Opens the link a TARGET names: `http://...` is Streamable HTTP; anything else is
/// split on whitespace and spawned as a stdio server.
pub fn open_link(target: &str, printer: &Printer) -> anyhow::Result<Link> {
    if target.starts_with("http://") || target.starts_with("https://") {
        return Ok(Link::Http(HttpLink::new(target, printer)?));
    }
    let mut words = target.split_whitespace();
    let program = words
        .next()
        .context("empty TARGET: give a URL or a command")?;
    let args: Vec<&str> = words.collect();
    Ok(Link::Stdio(StdioLink::spawn(
        program.as_ref(),
        &args,
        printer,
    )?))
}

/// Splits `NAME` or `NAME=JSON` (a `--call` value) into the tool and its arguments.
pub fn parse_call(spec: &str) -> anyhow::Result<(String, Value)> {
    match spec.split_once('=') {
        None => Ok((spec.to_owned(), json!({}))),
        Some((name, args)) => {
            let args: Value = serde_json::from_str(args)
                .with_context(|| format!("--call {name}: arguments are not JSON: {args:?}"))?;
            if !args.is_object() {
                bail!("--call {name}: arguments must be a JSON object, got {args}");
            }
            Ok((name.to_owned(), args))
        }
    }
}

pub async fn run(
    target: &str,
    eras: Eras,
    calls: &[String],
    timeout: std::time::Duration,
    listen: bool,
    printer: Printer,
) -> anyhow::Result<()> {
    let calls: Vec<(String, Value)> = calls
        .iter()
        .map(|c| parse_call(c))
        .collect::<Result<_, _>>()?;
    let mut link = open_link(target, &printer)?;
    if let Link::Http(http) = &mut link {
        http.timeout = timeout;
    }
    let options = Options {
        eras,
        timeout,
        ..Options::default()
    };
    printer.caption(&format!("Connecting to {target} (client eras: {eras:?})"));
    let mut client = McpClient::connect(link, target, options, &mut EraCache::default()).await?;
    printer.caption(&format!("The server speaks {}", client.spoken()));
    let tools = client.list_tools().await?;
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    printer.caption(&format!("{} tools: {}", names.len(), names.join(", ")));
    let mut failed = 0;
    for (name, args) in calls {
        match client.call_tool(&name, args).await? {
            Ok(result) if result["isError"] == json!(true) => {
                failed += 1;
                printer.caption(&format!("{name}: the tool failed (isError: true)"));
            }
            Ok(_) => printer.caption(&format!("{name}: ok")),
            Err(e) => {
                failed += 1;
                printer.caption(&format!("{name}: JSON-RPC error {e}"));
            }
        }
    }
    if listen {
        printer.caption(
            "Listening for what the server sends unprompted, shown as it arrives (Ctrl-C to stop)",
        );
        let ended = client
            .listen(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        printer.caption(&format!("Stopped listening: {ended}"));
    }
    client.close().await?;
    if failed > 0 {
        bail!("{failed} call(s) failed");
    }
    Ok(())
}
