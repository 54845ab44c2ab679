//! The extension's methods on the wire (SEP-2663, spec docs `extensions/tasks`):
//! `tasks/get`, `tasks/update` and `tasks/cancel` served from the [`Store`], the
//! `notifications.taskIds` of a `subscriptions/listen`, and the extension declared in
//! `server/discover`. What each method reads from `params` is checked here, with
//! `-32602` naming the field; a client that did not declare the extension gets
//! `-32021`.

use super::{EXTENSION, MAX_ID_LEN, Store};
use crate::capabilities::{declares, missing_capabilities};
use crate::jsonrpc::{ErrorObject, code, kind};
use serde_json::{Map, Value, json};

/// Serves `tasks/*` for a server that offers the extension. `client_capabilities` are
/// the ones this request declared in its `_meta`. In memory the answer is ready on
/// the first poll; a shared store answers after its round trip.
pub async fn serve(
    store: &Store,
    method: &str,
    params: Option<&Value>,
    client_capabilities: &Value,
) -> Result<Value, ErrorObject> {
    let ack = |()| json!({});
    match method {
        "tasks/get" | "tasks/update" | "tasks/cancel"
            if !declares(client_capabilities, EXTENSION) =>
        {
            Err(missing_capabilities(&[EXTENSION], method))
        }
        "tasks/get" => store.get(task_id(method, params)?).await,
        "tasks/update" => store
            .update(task_id(method, params)?, input_responses(params)?)
            .await
            .map(ack),
        "tasks/cancel" => store.cancel(task_id(method, params)?).await.map(ack),
        "tasks/result" | "tasks/list" => Err(ErrorObject::new(
            code::METHOD_NOT_FOUND,
            format!(
                "Method not found: {method} (removed by SEP-2663: a finished task's result is inlined in tasks/get, and tasks are not listed)"
            ),
        )),
        _ => Err(ErrorObject::new(
            code::METHOD_NOT_FOUND,
            format!(
                "Method not found: {method} (the tasks extension has tasks/get, tasks/update and tasks/cancel)"
            ),
        )),
    }
}

/// `notifications.taskIds` of a `subscriptions/listen`: the ids this stream will hear
/// `notifications/tasks` for (those of tasks kept now). A client that asks for them
/// without declaring the extension gets `-32021` (SEP-2663 "Task Status
/// Notifications"); to a server without the extension the field means nothing.
pub async fn subscription(
    server: &crate::Server,
    requested: Option<&Value>,
    client_capabilities: &Value,
) -> Result<Vec<String>, ErrorObject> {
    let Some(requested) = requested.filter(|_| server.features.tasks) else {
        return Ok(Vec::new());
    };
    if !declares(client_capabilities, EXTENSION) {
        return Err(missing_capabilities(
            &[EXTENSION],
            "notifications.taskIds on subscriptions/listen",
        ));
    }
    let ids: Option<Vec<&str>> = requested
        .as_array()
        .and_then(|a| a.iter().map(Value::as_str).collect());
    let ids = ids.ok_or_else(|| {
        let got = if requested.is_array() {
            "an array with a non-string item"
        } else {
            kind(requested)
        };
        ErrorObject::invalid_params(format!(
            "params.notifications.taskIds must be an array of task id strings, got {got}"
        ))
    })?;
    server.tasks.known(&ids).await
}

/// Adds the extension to `server/discover` capabilities: `extensions: {"io.modelcontextprotocol/tasks": {}}`.
pub fn advertise(capabilities: &mut Value) {
    if let Value::Object(caps) = capabilities {
        let extensions = caps.entry("extensions").or_insert_with(|| json!({}));
        if let Value::Object(e) = extensions {
            e.insert(EXTENSION.into(), json!({}));
        }
    }
}

/// `params.taskId`: a non-empty string of sensible length.
fn task_id<'a>(method: &str, params: Option<&'a Value>) -> Result<&'a str, ErrorObject> {
    match params.and_then(|p| p.get("taskId")) {
        Some(Value::String(id)) if !id.is_empty() && id.len() <= MAX_ID_LEN => Ok(id),
        Some(Value::String(_)) => Err(ErrorObject::invalid_params(format!(
            "{method}: params.taskId must be a task id (1 to {MAX_ID_LEN} characters)"
        ))),
        Some(other) => Err(ErrorObject::invalid_params(format!(
            "{method}: params.taskId must be a string, got {}",
            kind(other)
        ))),
        None => Err(ErrorObject::invalid_params(format!(
            "{method}: missing params.taskId"
        ))),
    }
}

/// `params.inputResponses` of `tasks/update`: required, an object keyed like the
/// task's `inputRequests`.
fn input_responses(params: Option<&Value>) -> Result<&Map<String, Value>, ErrorObject> {
    match params.and_then(|p| p.get("inputResponses")) {
        Some(Value::Object(m)) => Ok(m),
        Some(other) => Err(ErrorObject::invalid_params(format!(
            "tasks/update: params.inputResponses must be an object keyed like the task's inputRequests, got {}",
            kind(other)
        ))),
        None => Err(ErrorObject::invalid_params(
            "tasks/update: missing params.inputResponses",
        )),
    }
}
