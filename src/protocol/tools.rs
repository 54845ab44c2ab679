//! `tools/list` and `tools/call` (MCP 2025-11-25 `server/tools`). This is where a tool
//! failure becomes a result with `isError: true` instead of a JSON-RPC error.

use crate::jsonrpc::{ErrorObject, kind};
use crate::tools::{Arguments, ToolSet};
use serde_json::{Value, json};

/// `tools/list` → `{"tools":[{name, description, inputSchema}, ...]}`.
pub fn list(tools: &ToolSet) -> Value {
    json!({ "tools": tools.listing() })
}

/// `tools/call` with `{"name": ..., "arguments": {...}}`. Protocol problems (no such
/// tool, malformed params) are `-32602` errors; the tool's own failure is a result.
pub fn call(tools: &ToolSet, params: Option<&Value>) -> Result<Value, ErrorObject> {
    let params = params.and_then(Value::as_object).ok_or_else(|| {
        ErrorObject::invalid_params("tools/call: params must be an object with a \"name\"")
    })?;
    let name = match params.get("name") {
        Some(Value::String(name)) => name,
        Some(other) => {
            return Err(ErrorObject::invalid_params(format!(
                "tools/call: params.name must be a string, got {}",
                kind(other)
            )));
        }
        None => {
            return Err(ErrorObject::invalid_params(
                "tools/call: missing params.name",
            ));
        }
    };
    let tool = tools.get(name).ok_or_else(|| {
        let known: Vec<_> = tools.names().collect();
        ErrorObject::invalid_params(format!(
            "Unknown tool: {name} (this server has: {})",
            known.join(", ")
        ))
    })?;
    let empty = Arguments::new();
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(args)) => args,
        Some(other) => {
            return Err(ErrorObject::invalid_params(format!(
                "tools/call: params.arguments must be an object, got {}",
                kind(other)
            )));
        }
    };
    Ok(match (tool.handler)(arguments) {
        Ok(text) => json!({ "content": [{ "type": "text", "text": text }] }),
        Err(message) => json!({
            "content": [{ "type": "text", "text": message }],
            "isError": true,
        }),
    })
}
