//! Fixture prompts: plain, with arguments, with an embedded resource, with an image,
//! and one that asks the client first (modern: an InputRequiredResult).

use super::ask::{self, Asked};
use super::payloads::PNG;
use crate::context::{BoxFuture, Call};
use crate::jsonrpc::ErrorObject;
use crate::prompts::{Argument, Get, Prompt, PromptSet};
use serde_json::{Value, json};

fn user(content: Value) -> Value {
    json!({ "role": "user", "content": content })
}

fn text(t: &str) -> Value {
    json!({ "type": "text", "text": t })
}

fn arg(
    name: &'static str,
    description: &'static str,
    suggestions: &'static [&'static str],
) -> Argument {
    Argument {
        name,
        description,
        required: true,
        suggestions,
    }
}

pub fn prompts() -> PromptSet {
    PromptSet {
        prompts: vec![
            Prompt {
                name: "test_simple_prompt",
                description: "A prompt without arguments",
                arguments: vec![],
                get: Get::Now(|_| json!([user(text("This is a simple prompt for testing."))])),
            },
            Prompt {
                name: "test_prompt_with_arguments",
                description: "A prompt with two required arguments",
                arguments: vec![
                    arg("arg1", "First argument", &["test", "testValue1", "other"]),
                    arg("arg2", "Second argument", &["testValue2"]),
                ],
                get: Get::Now(|args| {
                    let a = |k: &str| {
                        args.get(k)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned()
                    };
                    json!([user(text(&format!(
                        "Prompt with arguments: arg1='{}', arg2='{}'",
                        a("arg1"),
                        a("arg2")
                    )))])
                }),
            },
            Prompt {
                name: "test_prompt_with_embedded_resource",
                description: "A prompt that embeds the resource it is given",
                arguments: vec![arg("resourceUri", "The URI to embed", &[])],
                get: Get::Now(|args| {
                    let uri = args
                        .get("resourceUri")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    json!([
                        user(
                            json!({ "type": "resource", "resource": { "uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing." } })
                        ),
                        user(text("Please process the embedded resource above."))
                    ])
                }),
            },
            Prompt {
                name: "test_prompt_with_image",
                description: "A prompt that carries an image",
                arguments: vec![],
                get: Get::Now(|_| {
                    json!([
                        user(json!({ "type": "image", "data": PNG, "mimeType": "image/png" })),
                        user(text("Please analyze the image above."))
                    ])
                }),
            },
            Prompt {
                name: "test_input_required_result_prompt",
                description: "A prompt that first asks the user for context",
                arguments: vec![],
                get: Get::Async(with_context),
            },
        ],
    }
}

fn with_context(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let form = ask::elicit(
            "What context should the prompt use?",
            json!({ "context": { "type": "string" } }),
            json!(["context"]),
        );
        Ok(
            match ask::ask(&call, "user_context", "elicitation/create", form).await? {
                Asked::Retry(irr) => irr,
                Asked::Answer(a) => {
                    let context = a["content"]["context"]
                        .as_str()
                        .unwrap_or("none")
                        .to_owned();
                    json!({
                        "description": "A prompt that first asks the user for context",
                        "messages": [user(text(&format!("Prompt with context: {context}")))]
                    })
                }
            },
        )
    })
}
