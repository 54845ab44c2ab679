//! Prompts as plain values: a name, a description, declared arguments, and a function
//! that turns arguments into messages.

use crate::jsonrpc::ErrorObject;
use crate::protocol::context::{BoxFuture, Call};
use serde_json::{Map, Value, json};

pub struct Argument {
    pub name: &'static str,
    pub description: &'static str,
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

pub struct Prompt {
    pub name: &'static str,
    pub description: &'static str,
    pub arguments: Vec<Argument>,
    pub get: Get,
}

#[derive(Default)]
pub struct PromptSet {
    pub prompts: Vec<Prompt>,
}

impl PromptSet {
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }

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
