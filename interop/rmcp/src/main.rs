//! The official Rust SDK's client (rmcp) driving mcp-raw's server, for the client
//! matrix (scripts/client-matrix.sh). It only drives the client: what the client did
//! is read from the server's recording (scripts/client_matrix.py and
//! scripts/matrix_scenarios.py), never from what this prints.
//!
//!   mcp-raw-rmcp-client session|scenarios stdio SERVER   (rmcp spawns SERVER serve …)
//!   mcp-raw-rmcp-client session|scenarios http URL
//!
//! session: connect, tools/list, add 2+40, close (the demo fixture).
//! scenarios (the conformance fixture): test_reconnection (resumption), test_sampling
//! and test_elicitation answered with fixed results (server requests), test_error_handling
//! and an unknown tool, then tools/list (after errors). No tasks step: the driver asks
//! for none (the matrix's prose says so). Each step runs even when one before failed;
//! the exit status is 1 when a step that should succeed did not.

// rmcp marks sampling and roots deprecated (SEP-2577, a later revision); a 2025-11-25
// server still asks them, and answering them is the scenario.
#![allow(deprecated)]

use rmcp::model::{CallToolRequestParams, ClientConfig, CreateMessageRequestParams};
use rmcp::model::{CreateMessageResult, ElicitRequestParams, ElicitResult, ListRootsResult};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, ServiceExt};
use serde_json::{Value, json};

/// The client: it declares sampling, elicitation and roots, and answers each with a
/// fixed result.
#[derive(Clone)]
struct Matrix;

/// A model type from its JSON, as it travels.
fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

impl ClientHandler for Matrix {
    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        from_json(json!({
            "role": "assistant",
            "content": { "type": "text", "text": "a fixed answer" },
            "model": "matrix"
        }))
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        from_json(json!({
            "action": "accept",
            "content": { "username": "matrix", "email": "matrix@example.com" }
        }))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        from_json(json!({ "roots": [{ "uri": "file:///tmp", "name": "tmp" }] }))
    }

    /// The SDK's defaults (its protocol version among them: the era is its choice),
    /// with the three capabilities declared.
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.capabilities = serde_json::from_value(
            json!({ "sampling": {}, "elicitation": { "form": {} }, "roots": {} }),
        )
        .expect("ClientCapabilities from fixed JSON");
        config
    }
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    serde_json::from_value(json!({ "name": name, "arguments": arguments }))
        .expect("CallToolRequestParams from fixed JSON")
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [what, transport, target] = args.as_slice() else {
        eprintln!("usage: mcp-raw-rmcp-client session|scenarios stdio SERVER | … http URL");
        std::process::exit(2);
    };
    let fixture = if what == "scenarios" {
        "conformance"
    } else {
        "demo"
    };
    let connected = match transport.as_str() {
        "stdio" => {
            let mut command = tokio::process::Command::new(target);
            command.args(["serve", "--fixture", fixture]);
            match TokioChildProcess::new(command) {
                Ok(t) => Matrix.serve(t).await,
                Err(e) => {
                    eprintln!("spawning {target}: {e}");
                    std::process::exit(1);
                }
            }
        }
        "http" => {
            Matrix
                .serve(StreamableHttpClientTransport::from_uri(target.as_str()))
                .await
        }
        other => {
            eprintln!("unknown transport {other:?}: stdio or http");
            std::process::exit(2);
        }
    };
    let client = match connected {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rmcp-{transport}: connecting: {e}");
            std::process::exit(1);
        }
    };
    let mut failed = 0;
    let mut step = |name: &str, outcome: Result<String, String>, refused: bool| {
        match &outcome {
            Ok(text) => println!("{name}: {text}"),
            Err(e) => println!("{name}: {}: {e}", if refused { "raised" } else { "FAILED" }),
        }
        failed += usize::from(outcome.is_ok() == refused);
    };
    let peer = client.peer().clone();
    let show = |r: Result<rmcp::model::CallToolResult, rmcp::ServiceError>| {
        r.map(|r| serde_json::to_string(&r).unwrap_or_default())
            .map_err(|e| e.to_string())
    };
    if what == "scenarios" {
        step(
            "resumption",
            show(peer.call_tool(call("test_reconnection", json!({}))).await),
            false,
        );
        step(
            "sampling",
            show(
                peer.call_tool(call("test_sampling", json!({ "prompt": "Say hello" })))
                    .await,
            ),
            false,
        );
        step(
            "elicitation",
            show(
                peer.call_tool(call(
                    "test_elicitation",
                    json!({ "message": "Who are you?" }),
                ))
                .await,
            ),
            false,
        );
        step(
            "isError",
            show(peer.call_tool(call("test_error_handling", json!({}))).await),
            false,
        );
        step(
            "unknown tool",
            show(peer.call_tool(call("no_such_tool", json!({}))).await),
            true,
        );
    } else {
        step(
            "add 2+40",
            show(
                peer.call_tool(call("add", json!({ "a": 2, "b": 40 })))
                    .await,
            ),
            false,
        );
    }
    let listed = peer
        .list_tools(None)
        .await
        .map(|l| format!("{} tools", l.tools.len()))
        .map_err(|e| e.to_string());
    step("tools/list", listed, false);
    if let Err(e) = client.cancel().await {
        println!("closing: {e}");
    }
    std::process::exit(i32::from(failed > 0));
}
