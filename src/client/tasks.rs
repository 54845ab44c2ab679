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
use anyhow::{Context, bail};
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// The `ttl` asked of a legacy task, in milliseconds: five minutes.
pub const TTL_MS: u64 = 5 * 60 * 1000;

/// The poll interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

/// The bounds put on a server's suggested interval: no busy loop, no long sleep.
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(5);

/// One look at a task.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    /// `taskId`: the only name of the task.
    pub id: String,
    /// `status`: `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// When to look again (the server's suggestion, bounded).
    pub poll: Duration,
}

impl Seen {
    /// `completed`, `failed` and `cancelled` do not change any more.
    pub fn is_terminal(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }

    /// A `Task` object; `interval` names its poll field in this era.
    fn of(task: &Value, interval: &str) -> Option<Seen> {
        let id = task["taskId"].as_str()?.to_owned();
        let status = task["status"].as_str()?.to_owned();
        let poll = task[interval]
            .as_u64()
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_POLL)
            .clamp(MIN_POLL, MAX_POLL);
        Some(Seen { id, status, poll })
    }

    /// A legacy `tools/call` answer that is a `CreateTaskResult` (`{task: Task}`).
    pub fn legacy_created(result: &Value) -> Option<Seen> {
        Seen::of(result.get("task")?, "pollInterval")
    }

    /// A legacy `tasks/get` answer (the Task fields at the top).
    pub fn legacy(task: &Value) -> Option<Seen> {
        Seen::of(task, "pollInterval")
    }

    /// A modern answer that is a task handle (`resultType: "task"`), or a `tasks/get`
    /// answer (the Task fields flat beside `resultType: "complete"`).
    pub fn modern(result: &Value) -> Option<Seen> {
        Seen::of(result, "pollIntervalMs")
    }
}

/// Whether a legacy `tools/call` of this tool asks for a task: the server must have
/// declared task-augmented `tools/call`, and the tool must want it (`required`) or
/// allow it (`optional`) with the user opting in.
pub fn augment_legacy(server: &Value, tool: Option<&Value>, opted_in: bool) -> bool {
    let declared = server["tasks"]["requests"]["tools"]["call"].is_object();
    let support = tool.and_then(|t| t["execution"]["taskSupport"].as_str());
    declared && (support == Some("required") || (support == Some("optional") && opted_in))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_is_asked_only_when_the_server_declared_it_and_the_tool_wants_it() {
        let server = json!({"tasks": {"requests": {"tools": {"call": {}}}}});
        let required = json!({"execution": {"taskSupport": "required"}});
        let optional = json!({"execution": {"taskSupport": "optional"}});
        assert!(augment_legacy(&server, Some(&required), false));
        assert!(!augment_legacy(&server, Some(&optional), false));
        assert!(augment_legacy(&server, Some(&optional), true));
        assert!(!augment_legacy(&server, Some(&json!({})), true));
        assert!(!augment_legacy(&json!({}), Some(&required), true));
    }

    #[test]
    fn tasks_are_read_in_either_era_and_the_interval_is_bounded() {
        let created = json!({"task": {"taskId": "t", "status": "working", "pollInterval": 1}});
        let seen = Seen::legacy_created(&created).unwrap();
        assert_eq!(seen.poll, MIN_POLL);
        assert!(!seen.is_terminal());
        let modern = json!({"resultType": "task", "taskId": "u", "status": "completed", "pollIntervalMs": 60_000});
        let seen = Seen::modern(&modern).unwrap();
        assert_eq!((seen.id.as_str(), seen.poll), ("u", MAX_POLL));
        assert!(seen.is_terminal());
        assert!(Seen::legacy_created(&json!({"content": []})).is_none());
    }
}
