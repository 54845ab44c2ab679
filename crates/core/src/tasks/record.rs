//! A task's record: everything about a task that any replica may need to read or
//! change (status, message, timestamps, questions, answers, outcome, owner), with the
//! transitions SEP-2663 allows. It is plain data (serde), so the in-memory store keeps
//! it in a map and a shared store keeps it as JSON under one key; the running work
//! itself (its abort handle, the channel its answers arrive on) never leaves the
//! process that runs it.

use super::{POLL_INTERVAL_MS, Status, internal, waiting};
use crate::clock;
use crate::jsonrpc::{ErrorObject, kind};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// One task, as a store keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// `Task.status`.
    pub status: Status,
    /// `statusMessage`, when there is something to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `createdAt` (RFC 3339, UTC).
    pub created_at: String,
    /// `lastUpdatedAt`: moved by every change.
    pub updated_at: String,
    /// `ttlMs`: how long the task stays readable after creation.
    pub ttl_ms: u64,
    /// The outstanding server-to-client requests, key → `{method, params}`: the
    /// `inputRequests` of an `input_required` task.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub input_requests: Map<String, Value>,
    /// Every key this task has asked: a key is never reused within a task.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked: Vec<String>,
    /// Answers gathered for the current round, handed to the work once all have come.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub answers: Map<String, Value>,
    /// `result` of a `completed` task (already `resultType: "complete"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// `error` of a `failed` task (a JSON-RPC error object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// Shared stores only: the replica whose process runs the work, named in the
    /// message of a task whose lease lapsed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

/// What an answer to `tasks/update` did to the record.
#[derive(Debug, PartialEq)]
pub enum Taken {
    /// No key was outstanding: nothing changed.
    Nothing,
    /// Some answers taken; others still outstanding.
    Some,
    /// The round is complete: these answers go to the waiting work.
    All(Map<String, Value>),
}

impl Record {
    /// A `working` task created now, readable `ttl_ms`, run by `owner`.
    pub fn new(ttl_ms: u64, owner: Option<String>) -> Record {
        let now = clock::now_rfc3339();
        Record {
            status: Status::Working,
            message: None,
            created_at: now.clone(),
            updated_at: now,
            ttl_ms,
            input_requests: Map::new(),
            asked: Vec::new(),
            answers: Map::new(),
            result: None,
            error: None,
            owner,
        }
    }

    /// Moves to `status` with `message`, stamping `lastUpdatedAt`.
    pub fn set(&mut self, status: Status, message: Option<String>) {
        self.status = status;
        self.message = message;
        self.updated_at = clock::now_rfc3339();
    }

    /// The task as `tasks/get` shows it (a `DetailedTask`): the common fields, then the
    /// one the status calls for.
    pub fn detailed(&self, id: &str) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("taskId".into(), json!(id));
        m.insert("status".into(), json!(self.status.as_str()));
        if let Some(message) = &self.message {
            m.insert("statusMessage".into(), json!(message));
        }
        m.insert("createdAt".into(), json!(self.created_at));
        m.insert("lastUpdatedAt".into(), json!(self.updated_at));
        m.insert("ttlMs".into(), json!(self.ttl_ms));
        m.insert("pollIntervalMs".into(), json!(POLL_INTERVAL_MS));
        match self.status {
            Status::InputRequired => {
                m.insert(
                    "inputRequests".into(),
                    Value::Object(self.input_requests.clone()),
                );
            }
            Status::Completed => {
                if let Some(result) = &self.result {
                    m.insert("result".into(), result.clone());
                }
            }
            Status::Failed => {
                if let Some(error) = &self.error {
                    m.insert("error".into(), error.clone());
                }
            }
            _ => {}
        }
        m
    }

    /// `tasks/update`: takes the answers to outstanding keys. Keys not outstanding
    /// (never asked, already answered) are ignored, as SEP-2663 says a server SHOULD;
    /// an answer that is not an object is refused before anything changes.
    pub fn take_answers(&mut self, responses: &Map<String, Value>) -> Result<Taken, ErrorObject> {
        for (key, answer) in responses {
            if self.input_requests.contains_key(key) && !answer.is_object() {
                return Err(ErrorObject::invalid_params(format!(
                    "params.inputResponses.{key} must be an object (the client's result), got {}",
                    kind(answer)
                )));
            }
        }
        let mut took = false;
        for (key, answer) in responses {
            if self.input_requests.remove(key).is_some() {
                self.answers.insert(key.clone(), answer.clone());
                took = true;
            }
        }
        if !took {
            return Ok(Taken::Nothing);
        }
        let left = self.input_requests.len();
        if left > 0 {
            self.set(Status::InputRequired, Some(waiting(left)));
            return Ok(Taken::Some);
        }
        self.set(Status::Working, None);
        Ok(Taken::All(self.answers.clone()))
    }

    /// The work asks the client: the task turns `input_required` with `requests`.
    /// Refused when the task is over, already waiting, or a key was asked before.
    pub fn begin_ask(&mut self, requests: Map<String, Value>) -> Result<(), ErrorObject> {
        if self.status.is_terminal() {
            return Err(internal("the task ended before it could ask the client"));
        }
        if self.status == Status::InputRequired {
            return Err(internal(
                "the task is already waiting for input; ask every question of a round at once",
            ));
        }
        if let Some(key) = requests.keys().find(|k| self.asked.contains(*k)) {
            return Err(internal(format!(
                "input request key {key:?} was used before by this task; a key is unique over a task's lifetime"
            )));
        }
        self.asked.extend(requests.keys().cloned());
        let n = requests.len();
        self.input_requests = requests;
        self.answers.clear();
        self.set(Status::InputRequired, Some(waiting(n)));
        Ok(())
    }

    /// `tasks/cancel`: a task still running becomes `cancelled`; `false` when it had
    /// already finished (then nothing changes).
    pub fn cancel(&mut self) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        self.input_requests.clear();
        self.set(
            Status::Cancelled,
            Some("Cancelled at the client's request (tasks/cancel).".into()),
        );
        true
    }

    /// The work ended: `completed` with its result (made `resultType: "complete"`), or
    /// `failed` with its error; `false` when the task was already over (cancelled).
    pub fn finish(&mut self, outcome: Result<Value, ErrorObject>) -> bool {
        if self.status.is_terminal() {
            return false;
        }
        self.input_requests.clear();
        match outcome.and_then(inline_result) {
            Ok(result) => {
                self.result = Some(result);
                self.set(Status::Completed, None);
            }
            Err(e) => self.fail(e),
        }
        true
    }

    /// `failed` with this error, its message as `statusMessage`.
    pub fn fail(&mut self, e: ErrorObject) {
        self.input_requests.clear();
        self.error = Some(serde_json::to_value(&e).unwrap_or_default());
        self.set(Status::Failed, Some(e.message));
    }

    /// `statusMessage` of a task still `working`; `false` otherwise.
    pub fn say(&mut self, message: String) -> bool {
        if self.status != Status::Working {
            return false;
        }
        self.set(Status::Working, Some(message));
        true
    }
}

/// A finished task's `result` is what the request would have returned synchronously,
/// so it says `resultType: "complete"` first. A task cannot answer `input_required`:
/// inside a task, input is asked with [`TaskContext::ask`].
pub(super) fn inline_result(result: Value) -> Result<Value, ErrorObject> {
    let mut out = Map::new();
    match result {
        Value::Object(fields) => {
            match fields.get("resultType").and_then(Value::as_str) {
                None | Some("complete") => {}
                Some(other) => {
                    return Err(internal(format!(
                        "the task's work answered resultType {other:?}; a task's result must be complete"
                    )));
                }
            }
            out.insert("resultType".into(), json!("complete"));
            out.extend(fields.into_iter().filter(|(k, _)| k != "resultType"));
            Ok(Value::Object(out))
        }
        other => Err(internal(format!(
            "the task's work returned {}, not a result object",
            kind(&other)
        ))),
    }
}
