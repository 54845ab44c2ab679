//! Following a task a server runs for a `tools/call`, in either era, automatically and
//! step by step on the wire (each poll is an ordinary request the view shows).
//!
//! Legacy (MCP 2025-11-25 `basic/utilities/tasks`, experimental): the client asks for a
//! task by adding `task: {ttl}` to `tools/call` — only when the server declared
//! `capabilities.tasks.requests.tools.call` ("clients MUST NOT attempt task
//! augmentation" otherwise), and the tool's `execution.taskSupport` is `required` (or
//! `optional` and `--tasks` was given). The answer is a `CreateTaskResult`; the client
//! polls `tasks/get` at the `pollInterval` until the task is terminal or
//! `input_required`, then `tasks/result`, which blocks until the end and carries the
//! server's questions (answered like any other request) before the result.
//!
//! ```text
//! → tools/call {name, arguments, task: {ttl}}   ← {task: {taskId, status: "working", pollInterval}}
//! → tasks/get {taskId}                          ← {taskId, status: "working", statusMessage}
//! → tasks/result {taskId}                       ← (elicitation/create …) then the CallToolResult
//! ```
//!
//! Modern (2026-07-28, the `io.modelcontextprotocol/tasks` extension): the client only
//! declares the extension (`--tasks`); the server decides, answering
//! `resultType: "task"`. The client polls `tasks/get`; the questions come in its
//! `inputRequests` and are answered with `tasks/update`; the outcome is inlined in the
//! terminal `tasks/get` (`result`, or `error` when `failed`).

use super::mcp_client::{McpClient, RpcError};
use super::task_handle::Seen;
use anyhow::{Context, bail};
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::time::{Duration, Instant};

impl McpClient {
    /// A legacy task, from its `CreateTaskResult` to its result: `tasks/get` until it
    /// is terminal or needs input, then `tasks/result`. Polling stops after `limit`
    /// (`--task-timeout`): the task is cancelled and the call fails.
    pub(crate) async fn follow_legacy_task(
        &mut self,
        mut seen: Seen,
        limit: Duration,
    ) -> anyhow::Result<Result<Value, RpcError>> {
        let started = Instant::now();
        // `input_required`: the questions are delivered on the `tasks/result` stream
        // (2025-11-25 "Input Required Status": the requestor "SHOULD call tasks/result").
        while !seen.is_terminal() && seen.status != "input_required" {
            if started.elapsed() > limit {
                return self.give_up(&seen.id, limit).await;
            }
            tokio::time::sleep(seen.poll).await;
            let task = self
                .request("tasks/get", json!({ "taskId": seen.id }))
                .await?
                .map_err(|e| anyhow::anyhow!("tasks/get {}: {e}", seen.id))?;
            seen = Seen::legacy(&task)
                .with_context(|| format!("tasks/get {}: not a Task: {task}", seen.id))?;
        }
        // It blocks until the task ends, so it may wait as long as the task may run.
        self.request_within("tasks/result", json!({ "taskId": seen.id }), limit)
            .await
    }

    /// A modern task, from its handle to its outcome: `tasks/get` until terminal,
    /// answering each new `inputRequests` entry once with `tasks/update`.
    pub(crate) async fn follow_modern_task(
        &mut self,
        mut seen: Seen,
        limit: Duration,
    ) -> anyhow::Result<Result<Value, RpcError>> {
        let started = Instant::now();
        // "Clients SHOULD deduplicate keys across consecutive polls": a question is
        // answered once even if it is still listed on the next poll.
        let mut answered: HashSet<String> = HashSet::new();
        let mut last = Value::Null;
        while !seen.is_terminal() {
            if started.elapsed() > limit {
                return self.give_up(&seen.id, limit).await;
            }
            if let Some(asked) = last["inputRequests"].as_object() {
                let mut responses = Map::new();
                for (key, request) in asked {
                    if answered.insert(key.clone()) {
                        let method = request["method"].as_str().unwrap_or("");
                        let answer = self
                            .answers()
                            .result(method, request.get("params"))
                            .map_err(|e| {
                                anyhow::anyhow!(
                                    "task {}: the server asks {method} (input {key:?}), which this client cannot answer: {}",
                                    seen.id,
                                    e.message
                                )
                            })?;
                        responses.insert(key.clone(), answer);
                    }
                }
                if !responses.is_empty() {
                    let params = json!({ "taskId": seen.id, "inputResponses": responses });
                    if let Err(e) = self.request("tasks/update", params).await? {
                        bail!("tasks/update {}: {e}", seen.id);
                    }
                    // Answered: look again at once rather than after a poll interval.
                    last = self.poll_modern(&seen.id).await?;
                    seen = Seen::modern(&last)
                        .with_context(|| format!("tasks/get {}: not a Task: {last}", seen.id))?;
                    continue;
                }
            }
            tokio::time::sleep(seen.poll).await;
            last = self.poll_modern(&seen.id).await?;
            seen = Seen::modern(&last)
                .with_context(|| format!("tasks/get {}: not a Task: {last}", seen.id))?;
        }
        match seen.status.as_str() {
            "completed" => Ok(Ok(last["result"].clone())),
            "failed" => Ok(Err(RpcError {
                code: last["error"]["code"].as_i64().unwrap_or(0),
                message: last["error"]["message"]
                    .as_str()
                    .unwrap_or("the task failed")
                    .to_owned(),
                data: last["error"].get("data").cloned(),
                status: None,
            })),
            _ => bail!("task {} was cancelled by the server", seen.id),
        }
    }

    async fn poll_modern(&mut self, id: &str) -> anyhow::Result<Value> {
        self.request("tasks/get", json!({ "taskId": id }))
            .await?
            .map_err(|e| anyhow::anyhow!("tasks/get {id}: {e}"))
    }

    /// The task ran past `--task-timeout`: ask the server to stop it, and fail.
    async fn give_up(
        &mut self,
        id: &str,
        limit: Duration,
    ) -> anyhow::Result<Result<Value, RpcError>> {
        let cancelled = self.request("tasks/cancel", json!({ "taskId": id })).await;
        let note = match cancelled {
            Ok(Ok(_)) => "cancelled it",
            _ => "tasks/cancel failed",
        };
        bail!("task {id} did not end within {limit:?} (--task-timeout); {note}")
    }
}
