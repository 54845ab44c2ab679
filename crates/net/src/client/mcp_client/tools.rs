//! The tool methods: `tools/list` followed through `nextCursor`, and `tools/call`.
//! The listing is where the client learns each tool's `x-mcp-header` arguments
//! (modern HTTP mirrors them as headers; a tool whose annotation is invalid is
//! dropped and never called) and its `execution.taskSupport` (whether a legacy call
//! asks for a task). A call the server runs as a task is followed to its end.
//!
//! Enforces: 2026-07-28 `server/tools` "x-mcp-header" (an invalid annotation drops
//! the tool); 2025-11-25 `basic/utilities/tasks` (task augmentation only where the
//! server and the tool allow it); 2026-07-28 `resultType: "task"`.

use super::{McpClient, RpcError, Spoken};
use crate::client::task_handle as tasks;
use crate::wire::http::x_mcp_header;
use anyhow::bail;
use serde_json::{Value, json};

impl McpClient {
    /// `tools/list`, following `nextCursor`. On modern HTTP every tool's
    /// `x-mcp-header` annotations are checked; a tool with an invalid one is dropped
    /// with a warning on stderr, as the spec requires.
    pub async fn list_tools(&mut self) -> anyhow::Result<Vec<Value>> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let result = self
                .request("tools/list", params)
                .await?
                .map_err(|e| anyhow::anyhow!("tools/list failed: {e}"))?;
            tools.extend(result["tools"].as_array().cloned().unwrap_or_default());
            for tool in result["tools"].as_array().into_iter().flatten() {
                if let Some(name) = tool["name"].as_str() {
                    self.task_support
                        .insert(name.to_owned(), tool["execution"]["taskSupport"].clone());
                }
            }
            match result.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => break,
            }
        }
        if self.mirrors_headers() {
            tools.retain(|tool| {
                let name = tool["name"].as_str().unwrap_or_default().to_owned();
                match x_mcp_header::header_params(&tool["inputSchema"]) {
                    Ok(params) => {
                        self.header_params.insert(name, params);
                        true
                    }
                    Err(why) => {
                        log::warn!("[mcp-raw client] warning: dropping tool {name:?}: {why}");
                        self.excluded.insert(name, why);
                        false
                    }
                }
            });
        }
        Ok(tools)
    }

    /// Why `tools/list` dropped the tool `name` (an invalid `x-mcp-header`), if it
    /// did: such a tool is not called.
    pub fn excluded(&self, name: &str) -> Option<&str> {
        self.excluded.get(name).map(String::as_str)
    }

    /// `tools/call` with these arguments. A call the server runs as a task is
    /// followed to its end ([`crate::client::tasks`]): the result is the tool's. A tool
    /// [`excluded`](Self::excluded) by the listing is refused, not called.
    pub async fn call_tool(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> anyhow::Result<Result<Value, RpcError>> {
        // 2026-07-28 `server/tools` "x-mcp-header": a tool with an invalid
        // annotation is dropped from the list (its headers cannot be made right);
        // a dropped tool is not called either.
        if let Some(why) = self.excluded(name) {
            bail!("tool {name:?} was excluded by tools/list and is not called: {why}");
        }
        let mut params = json!({ "name": name, "arguments": arguments });
        let legacy = matches!(self.spoken, Spoken::Legacy { .. });
        let support = self
            .task_support
            .get(name)
            .map(|s| json!({ "execution": { "taskSupport": s } }));
        let opted_in = self.options.answers.tasks.is_some();
        if legacy && tasks::augment_legacy(&self.server_capabilities, support.as_ref(), opted_in) {
            params["task"] = json!({ "ttl": tasks::TTL_MS });
        }
        let result = match self.request("tools/call", params).await? {
            Ok(result) => result,
            Err(e) => return Ok(Err(e)),
        };
        let limit = self.options.task_timeout;
        if legacy && let Some(seen) = tasks::Seen::legacy_created(&result) {
            return self.follow_legacy_task(seen, limit).await;
        }
        if !legacy
            && result["resultType"] == "task"
            && let Some(seen) = tasks::Seen::modern(&result)
        {
            return self.follow_modern_task(seen, limit).await;
        }
        Ok(Ok(result))
    }
}
