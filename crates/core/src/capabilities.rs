//! What the client declared it can do, and the one refusal when it did not:
//! `-32021` MissingRequiredClientCapability. A tool that needs a capability
//! ([`crate::tools::Tool::requires`]), a request that needs an extension, and the
//! server asking the client something (sampling, elicitation, roots: in either era)
//! all end here. 2025-11-25 `client/sampling`, `client/elicitation`, `client/roots`:
//! the server MUST NOT send a request the client did not declare; 2026-07-28
//! `basic/index` "_meta": the request declares its capabilities itself.

use crate::jsonrpc::ErrorObject;
use serde_json::{Value, json};

/// The `_meta` key under which a 2026-07-28 request declares its capabilities.
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

use crate::jsonrpc::code::MISSING_CAPABILITY;

/// Does the client declare `capability`? A name with a `/` is an extension identifier
/// (`io.modelcontextprotocol/tasks`), looked up under `extensions`; any other name is a
/// core capability (`sampling`). Declared means: an object is there.
pub fn declares(client_capabilities: &Value, capability: &str) -> bool {
    let slot = if capability.contains('/') {
        client_capabilities
            .get("extensions")
            .and_then(|e| e.get(capability))
    } else {
        client_capabilities.get(capability)
    };
    slot.is_some_and(Value::is_object)
}

/// `-32021` for what `who` needs and the request did not declare. `data.requiredCapabilities`
/// is shaped like `ClientCapabilities`: `{"sampling": {}}`, or
/// `{"extensions": {"io.modelcontextprotocol/tasks": {}}}` for an extension.
pub fn missing_capabilities(missing: &[&str], who: &str) -> ErrorObject {
    let mut required = json!({});
    let mut shown = Vec::new();
    for c in missing {
        if c.contains('/') {
            required["extensions"][*c] = json!({});
            shown.push(format!("extensions[\"{c}\"]"));
        } else {
            required[*c] = json!({});
            shown.push((*c).to_owned());
        }
    }
    ErrorObject {
        code: MISSING_CAPABILITY,
        message: format!(
            "Missing required client capability: {} ({who} needs it; declare it in params._meta[\"{}\"] in 2026-07-28, in initialize's capabilities in 2025-11-25)",
            shown.join(", "),
            CLIENT_CAPABILITIES
        ),
        data: Some(json!({ "requiredCapabilities": required })),
    }
}

/// The capability a server-to-client request needs, for the methods that have one.
pub fn needed_for(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "elicitation/create" => Some("elicitation"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

/// The server capability a client request needs (2025-11-25 `basic/lifecycle`
/// "Capability Negotiation"): the capability, and the sub-capability that must be
/// `true` when one is named (`resources.subscribe`).
pub fn server_capability_for(method: &str) -> Option<(&'static str, Option<&'static str>)> {
    match method {
        "tools/list" | "tools/call" => Some(("tools", None)),
        "prompts/list" | "prompts/get" => Some(("prompts", None)),
        "resources/list" | "resources/read" | "resources/templates/list" => {
            Some(("resources", None))
        }
        "resources/subscribe" | "resources/unsubscribe" => Some(("resources", Some("subscribe"))),
        "logging/setLevel" => Some(("logging", None)),
        "completion/complete" => Some(("completions", None)),
        _ => None,
    }
}

/// May the server ask the client `method`? The one check both eras make: legacy
/// before it sends the request on the stream, modern before an `input_required`
/// result leaves the server. `Err` is the `-32021` to answer instead.
pub fn may_ask(declared: &Value, method: &str) -> Result<(), ErrorObject> {
    match needed_for(method) {
        Some(capability) if !declares(declared, capability) => Err(missing_capabilities(
            &[capability],
            &format!("asking the client {method}"),
        )),
        _ => Ok(()),
    }
}

/// Every question of an `InputRequiredResult` (2026-07-28 `basic/patterns/mrtr`:
/// `inputRequests` maps keys to `{method, params}`) must pass [`may_ask`]; any other
/// result passes unchecked.
pub fn check_input_requests(declared: &Value, result: &Value) -> Result<(), ErrorObject> {
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return Ok(());
    }
    let Some(requests) = result.get("inputRequests").and_then(Value::as_object) else {
        return Ok(());
    };
    for request in requests.values() {
        if let Some(method) = request.get("method").and_then(Value::as_str) {
            may_ask(declared, method)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_capabilities_and_extensions_are_both_declared_capabilities() {
        let caps = json!({"sampling": {}, "extensions": {"io.example/thing": {}}});
        assert!(declares(&caps, "sampling"));
        assert!(!declares(&caps, "elicitation"));
        assert!(declares(&caps, "io.example/thing"));
        assert!(!declares(&caps, "io.example/other"));
        assert!(!declares(&json!({"sampling": true}), "sampling"));
    }

    #[test]
    fn missing_capabilities_are_shaped_like_client_capabilities() {
        let e = missing_capabilities(&["sampling", "io.example/thing"], "tool t");
        assert_eq!(e.code, MISSING_CAPABILITY);
        assert_eq!(
            e.data,
            Some(json!({"requiredCapabilities": {
                "sampling": {}, "extensions": {"io.example/thing": {}}
            }}))
        );
        assert!(
            e.message
                .contains("sampling, extensions[\"io.example/thing\"]")
        );
        assert!(e.message.contains("tool t needs it"));
    }

    #[test]
    fn asking_needs_the_matching_capability() {
        let caps = json!({"sampling": {}});
        assert!(may_ask(&caps, "sampling/createMessage").is_ok());
        let e = may_ask(&caps, "elicitation/create").unwrap_err();
        assert_eq!(e.code, MISSING_CAPABILITY);
        assert!(e.message.contains("elicitation"), "{}", e.message);
        assert!(may_ask(&json!({}), "ping").is_ok());
        let irr = json!({"resultType": "input_required", "inputRequests": {
            "a": {"method": "sampling/createMessage", "params": {}},
            "b": {"method": "roots/list", "params": {}}
        }});
        let e = check_input_requests(&caps, &irr).unwrap_err();
        assert_eq!(e.data, Some(json!({"requiredCapabilities": {"roots": {}}})));
        assert!(check_input_requests(&json!({}), &json!({"content": []})).is_ok());
    }
}
