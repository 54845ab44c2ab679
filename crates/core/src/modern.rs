//! The modern, stateless era (MCP 2026-07-28): no `initialize`, no session. Each
//! request is checked on its own `_meta` ([`meta`]) and served on its own; every
//! result says what it is (`resultType`) and names the server in its `_meta`
//! (`basic/index` "Result Responses", "Per-response protocol fields").

use super::context::{Out, Pending, Reply, now_or_later};

use super::context::{Env, Outcome};
use super::subscriptions::{Filter, SUBSCRIPTION_ID};
use super::{Server, capabilities, meta, methods, tasks};
use crate::jsonrpc::{ErrorObject, Params, Payload, Request, RequestId, Response};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// Serves one modern request, its `_meta` read once into `meta`. Validation order:
/// `_meta` (`-32602`), version (`-32022`), method (`-32601`).
pub fn handle(server: &Arc<Server>, request: Request, meta: &meta::Meta) -> Reply {
    let Request { id, method, params } = request;
    let params = params.as_ref();
    let request_meta = if method == "initialize" && !meta.modern {
        Err(initialize_refused(params.map(|p| &**p)))
    } else {
        meta.judge()
    };
    let outcome = match request_meta {
        Err(e) => Err(e),
        Ok(request_meta) if method == "subscriptions/listen" && server.features.list_changed => {
            return listen(server, id, params.map(|p| &**p), &request_meta);
        }
        Ok(request_meta) => match dispatch(server, &method, params, &request_meta, meta) {
            Outcome::Now(result) => result,
            Outcome::Later(future, outbox) => {
                let cache = methods::cacheable(&method);
                let declared = Value::Object(request_meta.client_capabilities.clone());
                let dressing = server.dressings.get(cache);
                return methods::later(
                    &method,
                    Pending::new(id, outbox, async move {
                        finish(&declared, future.await.map(Payload::from)).map(Payload::into_value)
                    })
                    .dressed(dressing),
                );
            }
        },
    };
    let dressing = server.dressings.get(methods::cacheable(&method));
    methods::now(
        &method,
        Response {
            id: Some(id),
            outcome,
            dress: Some(dressing),
        },
    )
}

fn dispatch(
    server: &Server,
    method: &str,
    params: Option<&Params>,
    request_meta: &meta::RequestMeta,
    meta: &meta::Meta,
) -> Outcome {
    // The declared capabilities, as the value `Env` and the `-32021` checks read.
    // Shared by `Env` and the checks below; a client that declared nothing (`{}`)
    // shares the one empty declaration, and allocates nothing for it.
    let capabilities = if request_meta.client_capabilities.is_empty() {
        super::no_capabilities()
    } else {
        Arc::new(Value::Object(request_meta.client_capabilities.clone()))
    };
    let now = |r: Result<Payload, ErrorObject>| Outcome::Now(finish(&capabilities, r));
    if method == "server/discover" {
        return now(Ok(discover(server).into()));
    }
    if server.features.tasks && method.starts_with("tasks/") {
        let (store, method, params, declared) = (
            server.tasks.clone(),
            method.to_owned(),
            params.map(|p| Value::clone(p)),
            capabilities.clone(),
        );
        let served = async move { tasks::serve(&store, &method, params.as_ref(), &declared).await };
        // In memory: answered now, as ever. A shared store: after its round trip.
        return match now_or_later(served) {
            Ok(result) => now(result.map(Payload::from)),
            Err(later) => Outcome::Later(later, tokio::sync::mpsc::unbounded_channel().1),
        };
    }
    let may_create_tasks =
        server.features.tasks && super::capabilities::declares(&capabilities, tasks::EXTENSION);
    let env = Env {
        peer: None,
        progress_token: meta.progress_token(),
        log_level: request_meta.log_level,
        client_capabilities: &capabilities,
        modern: true,
        hub: &server.hub,
        tasks: may_create_tasks.then_some(&server.tasks),
    };
    match methods::shared(server, method, params, env) {
        Some(Outcome::Now(r)) => now(r),
        Some(later) => later,
        None => now(Err(meta::method_not_found(method))),
    }
}

/// Every modern result on its way out: an `input_required` one may only ask what the
/// request declared (else `-32021`, [`capabilities::check_input_requests`]). Its
/// response is then written dressed ([`super::dress`]).
fn finish(declared: &Value, result: Result<Payload, ErrorObject>) -> Result<Payload, ErrorObject> {
    let result = result?;
    // A rendered result names its members: without `resultType` it is complete, and
    // there is nothing to check (nor any reason to read it back into a value).
    if let Payload::Rendered(r) = &result
        && !r.has("resultType")
    {
        return Ok(result);
    }
    capabilities::check_input_requests(declared, &result)?;
    Ok(result)
}

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
fn listen(
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

/// `server/discover` (`server/discover`, a MUST): versions, capabilities, identity.
/// `supportedVersions` lists the revisions a request may name in its `_meta`; the
/// legacy ones are reached through `initialize`, not through `_meta`. The tasks
/// extension is declared here only: it does not exist in the legacy era.
fn discover(server: &Server) -> Value {
    let mut capabilities = server.capabilities();
    if server.features.tasks {
        tasks::advertise(&mut capabilities);
    }
    json!({
        "supportedVersions": meta::MODERN_VERSIONS,
        "capabilities": capabilities,
    })
}

/// What a legacy `initialize` gets from a server that serves only the modern era:
/// `-32022` naming the versions it does speak, the one diagnostic a legacy client
/// can show its user (`basic/versioning`, "Backward Compatibility": SHOULD).
pub fn initialize_refused(params: Option<&Value>) -> ErrorObject {
    let requested = params
        .and_then(|p| p.get("protocolVersion"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut e = meta::unsupported_version(&requested);
    e.message = format!(
        "This server speaks only protocol version {} (stateless, no initialize handshake); initialize asked for {requested}. Send each request with params._meta[\"{}\"] instead.",
        meta::MODERN_VERSIONS.join(", "),
        meta::PROTOCOL_VERSION
    );
    e
}
