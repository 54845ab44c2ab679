//! What a task looks like to the client, in either era, and when to ask for one: the
//! pure half of following a task ([`super::tasks`] has the polling loops). MCP
//! 2025-11-25 `basic/utilities/tasks` (a `CreateTaskResult`, `pollInterval`) and
//! 2026-07-28 `extensions/tasks` (`resultType: "task"`, `pollIntervalMs`).

use serde_json::Value;
use std::time::Duration;

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
