//! The tasks this client runs *for* a server (MCP 2025-11-25 `basic/utilities/tasks`,
//! the experimental client-side tasks). A server that saw `capabilities.tasks.requests`
//! in `initialize` may send `sampling/createMessage` or `elicitation/create` with a
//! `task` parameter; the client then answers with a `CreateTaskResult` at once and the
//! server polls `tasks/get`, fetches `tasks/result`, may `tasks/list` or `tasks/cancel`:
//!
//! ```text
//! ← sampling/createMessage {task: {ttl}, messages…}   → {task: {taskId, status: "completed", …}}
//! ← tasks/get {taskId}                                → {taskId, status: "completed", …}
//! ← tasks/result {taskId}                             → the CreateMessageResult, with
//!                                                       _meta["io.modelcontextprotocol/related-task"]
//! ```
//!
//! The answers are scripted, so a task is done the moment it is created: each one is
//! born `completed` with its result kept. The store is bounded ([`MAX_TASKS`]; the
//! oldest goes first) and every task lives `ttl` milliseconds (the server's ask, capped
//! at [`MAX_TTL_MS`]).

use crate::clock;
use crate::jsonrpc::{ErrorObject, code};
use crate::lock::Locked;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most tasks kept: a server that creates more loses the oldest.
pub const MAX_TASKS: usize = 256;

/// The longest a task is kept, whatever `ttl` the server asks: ten minutes.
pub const MAX_TTL_MS: u64 = 10 * 60 * 1000;

/// The `_meta` key that ties a message to its task (2025-11-25 `basic/utilities/tasks`
/// "Related Task Metadata").
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// One task: what `tasks/get` shows and what `tasks/result` returns.
#[derive(Debug, Clone)]
struct Task {
    /// The `Task` object, as `tasks/get` returns it.
    task: Value,
    /// The result of the request the task stands for (sampling or elicitation).
    result: Value,
    /// When the task may be forgotten (`ttl` after creation).
    expires: Instant,
}

/// The store, shared by every clone (the HTTP link answers from another task).
#[derive(Debug, Clone, Default)]
pub struct TaskStore(Arc<Mutex<VecDeque<Task>>>);

impl TaskStore {
    /// A task-augmented request answered with `result`: the task is stored, born
    /// `completed`, and the `CreateTaskResult` to send back is returned.
    pub fn create(&self, asked_ttl: Option<u64>, result: Value) -> Value {
        let ttl = asked_ttl.unwrap_or(MAX_TTL_MS).min(MAX_TTL_MS);
        let now = clock::now_rfc3339();
        let task = json!({
            "taskId": uuid::Uuid::new_v4().to_string(),
            "status": "completed",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttl": ttl,
            "pollInterval": 100,
        });
        let mut tasks = self.lock();
        tasks.retain(|t| t.expires > Instant::now());
        while tasks.len() >= MAX_TASKS {
            tasks.pop_front();
        }
        tasks.push_back(Task {
            task: task.clone(),
            result,
            expires: Instant::now() + Duration::from_millis(ttl),
        });
        json!({ "task": task })
    }

    /// `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` from the server.
    pub fn answer(&self, method: &str, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let mut tasks = self.lock();
        tasks.retain(|t| t.expires > Instant::now());
        if method == "tasks/list" {
            let all: Vec<Value> = tasks.iter().map(|t| t.task.clone()).collect();
            return Ok(json!({ "tasks": all }));
        }
        let id = params
            .and_then(|p| p["taskId"].as_str())
            .ok_or_else(|| invalid(format!("{method}: params.taskId (a string) is missing")))?;
        let task = tasks
            .iter()
            .find(|t| t.task["taskId"] == id)
            .ok_or_else(|| invalid(format!("{method}: no task {id:?} (unknown or expired)")))?;
        match method {
            "tasks/get" => Ok(task.task.clone()),
            "tasks/result" => {
                let mut result = task.result.clone();
                if let Some(r) = result.as_object_mut() {
                    let meta = r.entry("_meta").or_insert_with(|| json!({}));
                    meta[RELATED_TASK] = json!({ "taskId": id });
                }
                Ok(result)
            }
            // "Receivers MUST reject cancellation requests for tasks already in a
            // terminal status with -32602": every task here is completed.
            "tasks/cancel" => Err(invalid(format!(
                "tasks/cancel: task {id:?} is already completed and cannot be cancelled"
            ))),
            other => Err(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: {other}"),
            )),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Task>> {
        // A panic elsewhere cannot leave the queue half-changed: each change is one
        // push, pop or retain.
        self.0.locked()
    }
}

fn invalid(message: String) -> ErrorObject {
    ErrorObject::new(code::INVALID_PARAMS, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_is_born_completed_and_its_result_comes_back_tied_to_it() {
        let store = TaskStore::default();
        let created = store.create(Some(60_000), json!({"model": "m", "role": "assistant"}));
        let id = created["task"]["taskId"].as_str().unwrap().to_owned();
        assert_eq!(created["task"]["status"], "completed");
        assert_eq!(created["task"]["ttl"], 60_000);
        let p = json!({ "taskId": id });
        assert_eq!(store.answer("tasks/get", Some(&p)).unwrap()["taskId"], id);
        let result = store.answer("tasks/result", Some(&p)).unwrap();
        assert_eq!(result["model"], "m");
        assert_eq!(result["_meta"][RELATED_TASK]["taskId"], id);
        assert_eq!(
            store.answer("tasks/list", None).unwrap()["tasks"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            store.answer("tasks/cancel", Some(&p)).unwrap_err().code,
            code::INVALID_PARAMS
        );
        let e = store
            .answer("tasks/get", Some(&json!({"taskId": "nope"})))
            .unwrap_err();
        assert!(e.message.contains("\"nope\""), "{}", e.message);
        assert!(store.answer("tasks/get", None).is_err());
        // The ttl a server asks is capped.
        let long = store.create(Some(u64::MAX), json!({}));
        assert_eq!(long["task"]["ttl"], MAX_TTL_MS);
    }

    #[test]
    fn the_store_is_bounded() {
        let store = TaskStore::default();
        let first = store.create(None, json!({}));
        for _ in 0..MAX_TASKS {
            store.create(None, json!({}));
        }
        let p = json!({ "taskId": first["task"]["taskId"] });
        assert!(store.answer("tasks/get", Some(&p)).is_err());
        assert_eq!(
            store.answer("tasks/list", None).unwrap()["tasks"]
                .as_array()
                .unwrap()
                .len(),
            MAX_TASKS
        );
    }
}
