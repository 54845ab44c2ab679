//! `subscriptions/listen` (MCP 2026-07-28 `basic/patterns/subscriptions`): the modern
//! era's one stream that stays open. Its filter is checked, acknowledged with what the
//! server will honor, and registered with the [`Hub`](super::subscriptions::Hub); every
//! change it asked for then travels on it, tagged with the listen request's id.

use super::context::{Out, Pending, Reply, now_or_later};
use super::subscriptions::{Filter, SUBSCRIPTION_ID};
use super::{Server, meta, tasks};
use crate::jsonrpc::{ErrorObject, RequestId, Response};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// `params.notifications` of `subscriptions/listen`: a required filter object whose
/// flags are booleans and whose `resourceSubscriptions` is an array of strings
/// (2026-07-28 `basic/patterns/subscriptions` "Notification Filter").
fn check_filter(params: Option<&Value>) -> Result<&Map<String, Value>, ErrorObject> {
    const METHOD: &str = "subscriptions/listen";
    let filter = super::params::object(METHOD, params, "notifications")?.ok_or_else(|| {
        ErrorObject::invalid_params(format!(
            "{METHOD}: missing params.notifications, the filter of what to hear"
        ))
    })?;
    for flag in [
        "toolsListChanged",
        "promptsListChanged",
        "resourcesListChanged",
    ] {
        if let Some(v) = filter.get(flag)
            && !v.is_boolean()
        {
            return Err(ErrorObject::invalid_params(format!(
                "{METHOD}: params.notifications.{flag} must be a boolean, got {}",
                crate::jsonrpc::kind(v)
            )));
        }
    }
    if let Some(v) = filter.get("resourceSubscriptions")
        && !v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
    {
        return Err(ErrorObject::invalid_params(format!(
            "{METHOD}: params.notifications.resourceSubscriptions must be an array of URI strings, got {v}"
        )));
    }
    Ok(filter)
}

/// `subscriptions/listen {notifications: {...}}`: a stream that stays open. Its first
/// message acknowledges the filter the server will honor; then every change the
/// filter asked for, tagged with this request's id, until the client closes the
/// stream (HTTP) or cancels the request (stdio). `taskIds` (tasks extension) asks for
/// `notifications/tasks` about those tasks.
pub(crate) fn listen(
    server: &Arc<Server>,
    id: RequestId,
    params: Option<&Value>,
    request_meta: &meta::RequestMeta,
) -> Reply {
    let wanted = match check_filter(params) {
        Ok(filter) => Value::Object(filter.clone()),
        Err(e) => return Reply::Now(Response::error(Some(id), e)),
    };
    let tag = serde_json::to_value(&id).unwrap_or(Value::Null);
    let (tx, outbox) = tokio::sync::mpsc::unbounded_channel();
    let capabilities = Value::Object(request_meta.client_capabilities.clone());
    let subscribed = subscribe(server.clone(), wanted, capabilities, tag, tx);
    // In memory the task ids are checked at once, so a refusal is an immediate error
    // response; a shared store checks them after its round trip.
    let stream = match now_or_later(subscribed) {
        Ok(Err(e)) => return Reply::Now(Response::error(Some(id), e)),
        Ok(Ok(())) => None,
        Err(later) => Some(later),
    };
    Reply::Later(Pending::new(id, outbox, async move {
        if let Some(subscribed) = stream {
            subscribed.await?;
        }
        std::future::pending().await
    }))
}

/// The filter honored: sends the acknowledgment on `tx`, then registers the listener
/// with the hub. Fails (sending nothing) when `taskIds` is refused.
async fn subscribe(
    server: Arc<Server>,
    wanted: Value,
    capabilities: Value,
    tag: Value,
    tx: tokio::sync::mpsc::UnboundedSender<Out>,
) -> Result<(), ErrorObject> {
    let task_ids = tasks::subscription(&server, wanted.get("taskIds"), &capabilities).await?;
    let flag = |k: &str| wanted.get(k).and_then(Value::as_bool).unwrap_or(false);
    let uris: Vec<String> = wanted
        .get("resourceSubscriptions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|u| u.as_str())
                .filter(|u| server.resources.knows(u))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let filter = Filter {
        tools: flag("toolsListChanged"),
        prompts: flag("promptsListChanged"),
        resources: flag("resourcesListChanged"),
        uris: std::sync::Mutex::new(uris.iter().cloned().collect()),
        task_ids: task_ids.iter().cloned().collect(),
    };
    // The acknowledgment names only what will be honored.
    let mut honored = Map::new();
    for (key, on) in [
        ("toolsListChanged", filter.tools),
        ("promptsListChanged", filter.prompts),
        ("resourcesListChanged", filter.resources),
    ] {
        if on {
            honored.insert(key.into(), json!(true));
        }
    }
    if !uris.is_empty() {
        honored.insert("resourceSubscriptions".into(), json!(uris));
    }
    if !task_ids.is_empty() {
        honored.insert("taskIds".into(), json!(task_ids));
    }
    let _ = tx.send(Out::Message(
        crate::jsonrpc::Notification::new(
            "notifications/subscriptions/acknowledged",
            Some(json!({ "_meta": { SUBSCRIPTION_ID: tag }, "notifications": honored })),
        )
        .to_value(),
    ));
    server.hub.listen(
        Arc::new(filter),
        Arc::new(move |m| tx.send(Out::Message(m)).is_ok()),
        Some(tag),
    );
    Ok(())
}
