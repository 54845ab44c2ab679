//! `completion/complete` (MCP `server/utilities/completion`): suggestions for a
//! prompt argument or a resource-template variable, filtered by what was typed.

use super::prompts::PromptSet;
use super::resources::ResourceSet;
use crate::jsonrpc::{ErrorObject, kind};
use serde_json::{Value, json};

pub fn complete(
    prompts: &PromptSet,
    resources: &ResourceSet,
    params: Option<&Value>,
) -> Result<Value, ErrorObject> {
    let bad = |what: &str| ErrorObject::invalid_params(format!("completion/complete: {what}"));
    let reference = params
        .and_then(|p| p.get("ref"))
        .ok_or_else(|| bad("missing params.ref"))?;
    let argument = params
        .and_then(|p| p.get("argument"))
        .ok_or_else(|| bad("missing params.argument"))?;
    let arg_name = argument["name"]
        .as_str()
        .ok_or_else(|| bad("params.argument.name must be a string"))?;
    let typed = match argument.get("value") {
        Some(Value::String(v)) => v.as_str(),
        Some(other) => {
            return Err(bad(&format!(
                "params.argument.value must be a string, got {}",
                kind(other)
            )));
        }
        None => "",
    };
    let suggestions: &[&str] = match reference["type"].as_str() {
        Some("ref/prompt") => {
            let name = reference["name"]
                .as_str()
                .ok_or_else(|| bad("params.ref.name must be a string"))?;
            let prompt = prompts
                .get(name)
                .ok_or_else(|| bad(&format!("unknown prompt {name:?}")))?;
            let arg = prompt
                .arguments
                .iter()
                .find(|a| a.name == arg_name)
                .ok_or_else(|| bad(&format!("prompt {name:?} has no argument {arg_name:?}")))?;
            arg.suggestions
        }
        Some("ref/resource") => {
            let uri = reference["uri"]
                .as_str()
                .ok_or_else(|| bad("params.ref.uri must be a string"))?;
            if !resources.templates.iter().any(|t| t.uri_template == uri) {
                return Err(bad(&format!("unknown resource template {uri:?}")));
            }
            &[]
        }
        _ => {
            return Err(bad(
                "params.ref.type must be \"ref/prompt\" or \"ref/resource\"",
            ));
        }
    };
    let values: Vec<&str> = suggestions
        .iter()
        .copied()
        .filter(|s| s.starts_with(typed))
        .collect();
    Ok(json!({ "completion": { "values": values, "total": values.len(), "hasMore": false } }))
}
