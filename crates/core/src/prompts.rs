//! Prompts: what one is (a plain value: a name, a description, declared arguments,
//! and a function that turns arguments into messages), and `prompts/list` /
//! `prompts/get` (MCP `server/prompts`).

use super::context::{BoxFuture, Call, Env, Outcome};
use crate::jsonrpc::{ErrorObject, kind};
use serde_json::{Map, Value, json};

/// One argument a prompt declares.
pub struct Argument {
    /// The key in `prompts/get`'s `arguments`.
    pub name: &'static str,
    /// Tells the user what to put there.
    pub description: &'static str,
    /// A `prompts/get` without it is `-32602`.
    pub required: bool,
    /// Values `completion/complete` suggests for this argument.
    pub suggestions: &'static [&'static str],
}

/// How a prompt makes its messages.
pub enum Get {
    /// At once, from the arguments.
    Now(fn(&Map<String, Value>) -> Value),
    /// Possibly after asking the client (modern: an `InputRequiredResult`).
    Async(fn(Call) -> BoxFuture<Result<Value, ErrorObject>>),
}

/// One prompt, as a plain value.
pub struct Prompt {
    /// Unique key clients put in `params.name`.
    pub name: &'static str,
    /// Shown in `prompts/list` and echoed by `prompts/get`.
    pub description: &'static str,
    /// What `prompts/list` declares and `prompts/get` checks.
    pub arguments: Vec<Argument>,
    /// Makes the messages.
    pub get: Get,
}

/// The prompts a server offers.
#[derive(Default)]
pub struct PromptSet {
    /// In the order `prompts/list` shows them.
    pub prompts: Vec<Prompt>,
}

impl PromptSet {
    /// Does it offer no prompt (so no `prompts` capability)?
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

    /// The prompt called `name`.
    pub fn get(&self, name: &str) -> Option<&Prompt> {
        self.prompts.iter().find(|p| p.name == name)
    }

    /// `prompts/list`'s `prompts` array.
    pub fn listing(&self) -> Value {
        self.prompts
            .iter()
            .map(|p| {
                let args: Vec<Value> = p
                    .arguments
                    .iter()
                    .map(|a| json!({ "name": a.name, "description": a.description, "required": a.required }))
                    .collect();
                let mut v = json!({ "name": p.name, "description": p.description });
                if !args.is_empty() {
                    v["arguments"] = Value::Array(args);
                }
                v
            })
            .collect()
    }
}

/// The `prompts/list` result.
pub fn list(set: &PromptSet) -> Value {
    json!({ "prompts": set.listing() })
}

/// `prompts/get {name, arguments}` → `{description, messages}`. The arguments are
/// strings; a missing required one is `-32602` naming it.
pub fn get(set: &PromptSet, params: Option<&Value>, env: Env) -> Outcome {
    match find(set, params) {
        Err(e) => Outcome::Now(Err(e)),
        Ok((prompt, arguments)) => match prompt.get {
            Get::Now(f) => Outcome::value(Ok(
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
) -> Result<(&'a Prompt, Map<String, Value>), ErrorObject> {
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
