//! mcp-raw's demo server (`get_current_time`, `echo`, `add`) written on rmcp, the
//! official Rust SDK, the way rmcp's own examples write a server. It exists to be
//! compared with mcp-raw's hand-written one: `docs/en/src/internals/sdk-vs-raw.md` maps each construct
//! below to the step of the wire it hides, and `compare/check.sh` records both.
//!
//! ```sh
//! cargo run                    # stdio: one JSON-RPC message per line on stdin/stdout
//! cargo run -- --http 3100     # Streamable HTTP on http://127.0.0.1:3100/mcp (0: any free port)
//! ```
//!
//! For `bench/`, rmcp at its fastest: `--stdio-pipes` (rmcp's non-blocking pipe
//! transport instead of tokio's thread-pool stdio) and `--http PORT --stateless-json`
//! (no legacy sessions, JSON answers instead of SSE, `TCP_NODELAY` on every socket).

use axum::serve::ListenerExt;
use rmcp::{
    ErrorData as McpError, ServerHandler, ServiceExt,
    handler::server::wrapper::Parameters,
    model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig},
    schemars, tool, tool_handler, tool_router,
    transport::{
        stdio, stdio_pipes,
        streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
        },
    },
};
use std::time::{SystemTime, UNIX_EPOCH};

/// `echo`'s arguments. The derive *is* the input schema: schemars turns this struct
/// into the `inputSchema` that mcp-raw writes by hand in `crates/core/src/content/demo.rs`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoRequest {
    /// Text to echo back
    message: String,
}

/// `add`'s arguments; `f64` makes schemars say `"type": "number"`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddRequest {
    /// First addend
    a: f64,
    /// Second addend
    b: f64,
}

/// The server: no state. Its tool table (names, schemas, handlers) is built by the
/// `#[tool_router]` macro, as `Demo::tool_router()`, from the methods marked `#[tool]`.
#[derive(Clone)]
struct Demo;

#[tool_router]
impl Demo {
    #[tool(description = "Returns the current UTC time as an RFC 3339 timestamp.")]
    fn get_current_time(&self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            now_rfc3339(),
        )]))
    }

    #[tool(description = "Echoes back the message it is given.")]
    fn echo(&self, Parameters(EchoRequest { message }): Parameters<EchoRequest>) -> String {
        message
    }

    #[tool(description = "Adds two numbers and returns the sum.")]
    fn add(&self, Parameters(AddRequest { a, b }): Parameters<AddRequest>) -> String {
        let sum = a + b;
        // Integers print without ".0", as mcp-raw (and JavaScript) print them.
        if sum.fract() == 0.0 && sum.abs() < 1e15 {
            format!("{}", sum as i64)
        } else {
            format!("{sum}")
        }
    }
}

/// `#[tool_handler]` fills in `list_tools` and `call_tool` from the router; `get_info`
/// is the `initialize` result (its protocol version is negotiated by rmcp).
#[tool_handler]
impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("mcp-raw-rmcp", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// Now as `YYYY-MM-DDTHH:MM:SSZ`, from the system clock (the civil-from-days
/// conversion, so no date crate is needed for one line).
fn now_rfc3339() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => serve_stdio(false).await,
        [flag] if flag == "--stdio-pipes" => serve_stdio(true).await,
        [flag, port] if flag == "--http" => serve_http(port.parse()?, false).await,
        [flag, port, fast] if flag == "--http" && fast == "--stateless-json" => {
            serve_http(port.parse()?, true).await
        }
        _ => {
            eprintln!("usage: mcp-raw-rmcp [--stdio-pipes | --http PORT [--stateless-json]]");
            std::process::exit(2);
        }
    }
}

/// stdio: rmcp's `stdio()` transport is the line loop of mcp-raw's `crates/net/src/transport/stdio.rs`.
/// `pipes`: rmcp's `stdio_pipes()`, which reads and writes pipes without tokio's
/// blocking thread pool.
async fn serve_stdio(pipes: bool) -> Result<(), Box<dyn std::error::Error>> {
    let running = if pipes {
        Demo.serve(stdio_pipes()).await?
    } else {
        Demo.serve(stdio()).await?
    };
    running.waiting().await?;
    Ok(())
}

/// Streamable HTTP: `StreamableHttpService` is the whole of mcp-raw's
/// `crates/net/src/transport/http/` (sessions, SSE, status codes), mounted at `/mcp` on axum.
/// `fast`: stateless (no legacy sessions), JSON answers, `TCP_NODELAY`.
async fn serve_http(port: u16, fast: bool) -> Result<(), Box<dyn std::error::Error>> {
    let config = if fast {
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
    } else {
        StreamableHttpServerConfig::default()
    };
    let service =
        StreamableHttpService::new(|| Ok(Demo), LocalSessionManager::default().into(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("listening on http://{}/mcp", listener.local_addr()?);
    let nodelay = fast;
    let listener = listener.tap_io(move |tcp| {
        if nodelay {
            let _ = tcp.set_nodelay(true);
        }
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}
