//! What a task's work holds while it runs: its id, and the way to ask the client
//! mid-flight (`input_required` until `tasks/update` answers) or to say how it is
//! going (`statusMessage`).

use super::{Store, internal};
use crate::jsonrpc::ErrorObject;
use serde_json::{Map, Value};
use std::sync::Arc;

/// What a task's work can do besides returning its outcome.
pub struct TaskContext {
    /// The task this work belongs to.
    pub(super) id: String,
    /// The store that holds its record (and the channel its answers come on).
    pub(super) store: Arc<Store>,
}

impl TaskContext {
    /// The `taskId`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Asks the client mid-flight: the task turns `input_required` and `tasks/get`
    /// shows `requests` (key → `{method, params}`, as MRTR's `inputRequests`) until
    /// `tasks/update` has answered every key; then the task is `working` again and
    /// this returns the answers by key. Keys must be new to this task.
    pub async fn ask(
        &self,
        requests: Map<String, Value>,
    ) -> Result<Map<String, Value>, ErrorObject> {
        if requests.is_empty() {
            return Ok(Map::new());
        }
        let answers = self.store.ask(&self.id, requests).await?;
        answers
            .await
            .map_err(|_| internal("the task stopped waiting for input (cancelled or expired)"))
    }

    /// Sets the `statusMessage` a `working` task shows (progress in words).
    pub async fn say(&self, message: impl Into<String>) {
        self.store.say(&self.id, message.into()).await;
    }
}
