//! The contract between the task store and a store replicas share: what any
//! implementation must do (`Records`: insert, read, compare-and-set, leases) and the
//! commands that cross replicas (`Command`). The core knows only this trait; the
//! Redis implementation lives in `mcp-raw-net` (`store::redis`), and the scenarios
//! every implementation must pass are `suite.rs` (feature `store-suite`).

use crate::future::BoxFuture;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// A store of task records reachable by every replica: the Redis backend
/// (`mcp_raw_net::store::redis`) is one. Records travel as JSON text; an error is the
/// store's own words, which become a `-32603` quoting them.
pub trait Records: Send + Sync + 'static {
    /// This replica's name, recorded as the owner of the tasks it runs.
    fn replica(&self) -> &str;
    /// How long a lease lasts without renewal.
    fn lease(&self) -> Duration;
    /// Stores a new record that expires after `ttl`, with this replica's lease on it.
    fn insert(&self, id: String, record: String, ttl: Duration) -> BoxFuture<Result<(), String>>;
    /// The record, and whether its owner's lease is still alive; `None`: no such task.
    fn read(&self, id: String) -> BoxFuture<Result<Option<Stored>, String>>;
    /// Replaces the record if it still is `old` (compare-and-set), keeping its expiry;
    /// `false` when it changed meanwhile (or is gone).
    fn swap(&self, id: String, old: String, new: String) -> BoxFuture<Result<bool, String>>;
    /// Renews this replica's lease on a task and returns its record (`None`: gone).
    fn renew(&self, id: String) -> BoxFuture<Result<Option<String>, String>>;
    /// Drops the lease of a task that finished here.
    fn release(&self, id: String) -> BoxFuture<Result<(), String>>;
    /// Sends a command to every replica (the owner acts on it); must not block.
    fn send(&self, command: &Command);
}

/// A record as read from the store.
pub struct Stored {
    /// The record's JSON text, compared on the next swap.
    pub text: String,
    /// Does the owner's lease still stand?
    pub lease_alive: bool,
}

/// What one replica asks the replica running a task.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `tasks/cancel` came elsewhere: abort the work.
    Cancel {
        /// The task.
        id: String,
    },
    /// `tasks/update` completed a round elsewhere: hand the answers to the work.
    Answers {
        /// The task.
        id: String,
        /// The answers by key.
        answers: Map<String, Value>,
    },
}

impl Command {
    /// The command as it travels: `{"command": "cancel"|"answers", "taskId", …}`.
    pub fn to_json(&self) -> Value {
        match self {
            Command::Cancel { id } => json!({"command": "cancel", "taskId": id}),
            Command::Answers { id, answers } => {
                json!({"command": "answers", "taskId": id, "answers": answers})
            }
        }
    }

    /// The command [`Command::to_json`] wrote; `None` for anything else.
    pub fn from_json(v: &Value) -> Option<Command> {
        let id = v.get("taskId")?.as_str()?.to_owned();
        match v.get("command")?.as_str()? {
            "cancel" => Some(Command::Cancel { id }),
            "answers" => Some(Command::Answers {
                id,
                answers: v.get("answers")?.as_object()?.clone(),
            }),
            _ => None,
        }
    }
}
