//! At start, the bridge asks one child for its tools (a legacy session:
//! `initialize`, `notifications/initialized`, `tools/list` page by page), then
//! kills it. What it learns is each tool's `inputSchema`: the HTTP transport checks
//! a modern request's `Mcp-Param-*` headers against its `x-mcp-header` annotations
//! (2026-07-28 `basic/transports/streamable-http` "Custom Headers from Tool
//! Parameters"), which it must know before the request reaches the child.

use super::Linked;
use super::child::Spawn;
use crate::jsonrpc::{Notification, Request, RequestId};
use crate::protocol::LATEST_VERSION;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// Each tool's name and `inputSchema`, as one child lists them within `timeout`, from
/// at most `max_pages` pages of `tools/list` (`--probe-pages`: a server whose cursors
/// never end cannot hold the bridge's start).
pub async fn tool_schemas(
    spawn: &Spawn,
    timeout: Duration,
    max_pages: usize,
) -> Result<Vec<(String, Value)>, String> {
    let linked = Linked::spawn(spawn, false, "reading the tools' schemas")?;
    let read = async {
        ask(
            &linked,
            0,
            "initialize",
            json!({
                "protocolVersion": LATEST_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "mcp-raw bridge", "version": env!("CARGO_PKG_VERSION")},
            }),
        )
        .await?;
        linked
            .child
            .send(Notification::new("notifications/initialized", None).to_bytes());
        let mut schemas = Vec::new();
        let mut cursor: Option<Value> = None;
        for page in 1..=max_pages.max(1) {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let result = ask(&linked, page as i64, "tools/list", params).await?;
            for tool in result
                .get("tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let (Some(name), Some(schema)) = (
                    tool.get("name").and_then(Value::as_str),
                    tool.get("inputSchema"),
                ) {
                    schemas.push((name.to_owned(), schema.clone()));
                }
            }
            cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if cursor.is_none() {
                break;
            }
        }
        Ok(schemas)
    };
    tokio::time::timeout(timeout, read)
        .await
        .map_err(|_| format!("no answer within {timeout:?} (--probe-timeout)"))?
}

/// One request to the probing child, and its result.
async fn ask(linked: &Arc<Linked>, id: i64, method: &str, params: Value) -> Result<Value, String> {
    let mut request = Request::new(RequestId::from(id), method, Some(params));
    let started = linked.routes().start(&mut request)?;
    linked.child.send(request.to_bytes());
    let response = started
        .answer
        .await
        .map_err(|_| format!("{method}: the child went away"))?;
    response
        .outcome
        .map(crate::jsonrpc::Payload::into_value)
        .map_err(|e| format!("{method} was refused: {} ({})", e.message, e.code))
}
