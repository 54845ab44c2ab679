//! `prompts/list` and `prompts/get` (MCP `server/prompts`).

use super::tools::{Env, Outcome};
use crate::jsonrpc::{ErrorObject, kind};
use crate::prompts::{Get, PromptSet};
use serde_json::{Map, Value, json};

pub fn list(set: &PromptSet) -> Value {
    json!({ "prompts": set.listing() })
}

/// `prompts/get {name, arguments}` → `{description, messages}`. The arguments are
/// strings; a missing required one is `-32602` naming it.
pub fn get(set: &PromptSet, params: Option<&Value>, env: Env) -> Outcome {
    match find(set, params) {
        Err(e) => Outcome::Now(Err(e)),
        Ok((prompt, arguments)) => match prompt.get {
            Get::Now(f) => Outcome::Now(Ok(
                json!({ "description": prompt.description, "messages": f(&arguments) }),
            )),
            Get::Async(f) => {
                // A prompt never becomes a task.
                let (call, outbox) = Env { tasks: None, ..env }.call(params, arguments);
                Outcome::Later(f(call), outbox)
            }
        },
    }
}

fn find<'a>(
    set: &'a PromptSet,
    params: Option<&Value>,
) -> Result<(&'a crate::prompts::Prompt, Map<String, Value>), ErrorObject> {
    let name = super::params::string("prompts/get", params, "name")?;
    let prompt = set.get(name).ok_or_else(|| {
        let known: Vec<_> = set.prompts.iter().map(|p| p.name).collect();
        ErrorObject::invalid_params(format!(
            "Unknown prompt: {name} (this server has: {})",
            known.join(", ")
        ))
    })?;
    let arguments = super::params::object("prompts/get", params, "arguments")?
        .cloned()
        .unwrap_or_default();
    for (k, v) in &arguments {
        if !v.is_string() {
            return Err(ErrorObject::invalid_params(format!(
                "prompts/get {name}: argument \"{k}\" must be a string, got {}",
                kind(v)
            )));
        }
    }
    if let Some(missing) = prompt
        .arguments
        .iter()
        .find(|a| a.required && !arguments.contains_key(a.name))
    {
        return Err(ErrorObject::invalid_params(format!(
            "prompts/get {name}: missing required argument \"{}\"",
            missing.name
        )));
    }
    Ok((prompt, arguments))
}
