//! `resources/list`, `resources/templates/list`, `resources/read`, and the legacy
//! `resources/subscribe` / `unsubscribe` (MCP `server/resources`).

use super::subscriptions::Filter;
use crate::jsonrpc::ErrorObject;
use crate::resources::ResourceSet;
use serde_json::{Value, json};

/// 2025-11-25 `server/resources` "Error Handling": resource not found is `-32002`.
/// 2026-07-28 retired that code for `-32602` (with `data.uri` either way).
pub const LEGACY_RESOURCE_NOT_FOUND: i64 = -32002;

pub fn list(set: &ResourceSet) -> Value {
    json!({ "resources": set.listing() })
}

pub fn templates(set: &ResourceSet) -> Value {
    json!({ "resourceTemplates": set.template_listing() })
}

/// `resources/read {uri}` → `{"contents": [{uri, mimeType, text | blob}]}`.
pub fn read(set: &ResourceSet, params: Option<&Value>, modern: bool) -> Result<Value, ErrorObject> {
    let uri = uri_param("resources/read", params)?;
    match set.read(uri) {
        Some(contents) => Ok(json!({ "contents": contents })),
        None => Err(not_found(uri, modern)),
    }
}

/// `resources/subscribe {uri}`: this session now hears `notifications/resources/updated`
/// for `uri`. The result is `{}`.
pub fn subscribe(
    set: &ResourceSet,
    filter: &Filter,
    params: Option<&Value>,
) -> Result<Value, ErrorObject> {
    let uri = uri_param("resources/subscribe", params)?;
    if !set.knows(uri) {
        return Err(not_found(uri, false));
    }
    filter
        .uris
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(uri.to_owned());
    Ok(json!({}))
}

/// `resources/unsubscribe {uri}`: no more updates for `uri`. The result is `{}`.
pub fn unsubscribe(filter: &Filter, params: Option<&Value>) -> Result<Value, ErrorObject> {
    let uri = uri_param("resources/unsubscribe", params)?;
    filter
        .uris
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(uri);
    Ok(json!({}))
}

fn uri_param<'a>(method: &str, params: Option<&'a Value>) -> Result<&'a str, ErrorObject> {
    super::params::string(method, params, "uri")
}

fn not_found(uri: &str, modern: bool) -> ErrorObject {
    let mut e = ErrorObject::invalid_params(format!("Resource not found: {uri}"));
    if !modern {
        e.code = LEGACY_RESOURCE_NOT_FOUND;
    }
    e.data = Some(json!({ "uri": uri }));
    e
}
