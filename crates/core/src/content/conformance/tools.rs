//! Fixture tools that work in both eras: every content type, an error result,
//! progress, logging, asking the client, and triggers for change notifications.

use super::ask::{self, Asked};
use super::payloads::{self, audio, image, resource, result, text, text_result};
use crate::context::{BoxFuture, Call};
use crate::jsonrpc::ErrorObject;
use crate::subscriptions::Event;
use crate::tools::{Handler, Tool};
use serde_json::{Value, json};
use std::time::Duration;

pub fn tool(
    name: &'static str,
    description: &'static str,
    input_schema: Value,
    handler: Handler,
) -> Tool {
    Tool {
        name,
        description,
        input_schema,
        handler,
        requires: &[],
    }
}

/// `{"type": "object", "properties": {}}`: a tool without arguments.
pub fn no_args() -> Value {
    json!({ "type": "object", "properties": {} })
}

/// The string argument `name` of a call, or `default` when it is absent.
pub fn arg(call: &Call, name: &str, default: &str) -> String {
    call.arguments
        .get(name)
        .and_then(|field| field.as_str())
        .map_or_else(|| default.to_owned(), |text| text.into_owned())
}

/// An object schema whose properties are all required strings.
pub fn string_args(names: &[&str]) -> Value {
    let props: serde_json::Map<String, Value> = names
        .iter()
        .map(|n| ((*n).to_owned(), json!({ "type": "string" })))
        .collect();
    json!({ "type": "object", "properties": props, "required": names })
}

pub fn tools() -> Vec<Tool> {
    vec![
        tool(
            "test_simple_text",
            "Returns a simple text response.",
            no_args(),
            Handler::Content(|_| text_result("This is a simple text response for testing.")),
        ),
        tool(
            "test_image_content",
            "Returns an image (a 1x1 PNG).",
            no_args(),
            Handler::Content(|_| result(vec![image()])),
        ),
        tool(
            "test_audio_content",
            "Returns audio (a short WAV).",
            no_args(),
            Handler::Content(|_| result(vec![audio()])),
        ),
        tool(
            "test_embedded_resource",
            "Returns an embedded text resource.",
            no_args(),
            Handler::Content(|_| {
                result(vec![resource(
                    "test://embedded-resource",
                    "text/plain",
                    "This is an embedded resource content.",
                )])
            }),
        ),
        tool(
            "test_multiple_content_types",
            "Returns text, an image and an embedded resource together.",
            no_args(),
            Handler::Content(|_| {
                result(vec![
                    text("Multiple content types test:"),
                    image(),
                    resource(
                        "test://mixed-content-resource",
                        "application/json",
                        r#"{"test":"data","value":123}"#,
                    ),
                ])
            }),
        ),
        tool(
            "test_error_handling",
            "Always fails: the failure is a result with isError, not a protocol error.",
            no_args(),
            Handler::Content(
                |_| json!({ "content": [text("This tool intentionally returns an error for testing")], "isError": true }),
            ),
        ),
        tool(
            "test_tool_with_progress",
            "Reports progress 0, 50, 100 (of 100), 50 ms apart, when the request carries a progressToken.",
            no_args(),
            Handler::Async(with_progress),
        ),
        tool(
            "test_tool_with_logging",
            "Sends three log messages (info) while it runs, 50 ms apart.",
            no_args(),
            Handler::Async(with_logging),
        ),
        tool(
            "test_logging_tool",
            "Logs only when the request asks for it (a log level), then returns.",
            no_args(),
            Handler::Async(with_logging),
        ),
        tool(
            "test_sampling",
            "Asks the client's LLM to answer the prompt (sampling/createMessage).",
            string_args(&["prompt"]),
            Handler::Async(sampling),
        ),
        tool(
            "test_elicitation",
            "Asks the user for a username and an email (elicitation/create).",
            string_args(&["message"]),
            Handler::Async(elicitation),
        ),
        tool(
            "test_elicitation_sep1034_defaults",
            "Asks the user a form whose fields all have defaults (SEP-1034).",
            no_args(),
            Handler::Async(elicitation_defaults),
        ),
        tool(
            "test_elicitation_sep1330_enums",
            "Asks the user a form with every enum style (SEP-1330).",
            no_args(),
            Handler::Async(elicitation_enums),
        ),
        tool(
            "test_streaming_elicitation",
            "Asks the user one question (elicitation), in whichever way the era uses.",
            no_args(),
            Handler::Async(streaming_elicitation),
        ),
        tool(
            "test_trigger_tool_change",
            "Announces that the tool list changed, to everyone listening.",
            no_args(),
            Handler::Async(|call| announce(call, Event::ToolsChanged)),
        ),
        tool(
            "test_trigger_prompt_change",
            "Announces that the prompt list changed, to everyone listening.",
            no_args(),
            Handler::Async(|call| announce(call, Event::PromptsChanged)),
        ),
        tool(
            "test_trigger_resource_update",
            "Announces that the resource at uri was updated, to its subscribers.",
            string_args(&["uri"]),
            Handler::Async(|call| {
                let uri = arg(&call, "uri", "");
                announce(call, Event::ResourceUpdated(uri))
            }),
        ),
        tool(
            "test_custom_header",
            "Echoes value; value is mirrored into the Mcp-Param-Value header (x-mcp-header).",
            json!({
                "type": "object",
                "properties": { "value": { "type": "string", "x-mcp-header": "Value" } },
                "required": ["value"]
            }),
            Handler::Text(|args| {
                Ok(args
                    .get("value")
                    .and_then(|value| value.as_str())
                    .unwrap_or_default()
                    .into_owned())
            }),
        ),
        tool(
            "test_reconnection",
            "Closes its SSE stream before answering (legacy HTTP): the client resumes with Last-Event-ID and gets the result.",
            no_args(),
            Handler::Async(reconnection),
        ),
        tool(
            "json_schema_2020_12_tool",
            "Has a JSON Schema 2020-12 input schema ($defs, $ref, allOf, if/then/else).",
            json_schema_2020_12(),
            Handler::Text(|_| Ok("Validated against a 2020-12 schema.".to_owned())),
        ),
    ]
}

fn with_progress(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            call.ctx
                .progress(step, Some(100.0), Some(&format!("step {} of 3", i + 1)));
        }
        Ok(text_result("Progress test completed."))
    })
}

/// Legacy HTTP polling (SEP-1699): end this connection now, with a `retry` hint;
/// the result arrives on the client's resumed GET.
fn reconnection(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        call.ctx.pause(500);
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(text_result(
            "Reconnection test completed: the result came on the resumed stream.",
        ))
    })
}

fn with_logging(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        for (i, line) in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ]
        .into_iter()
        .enumerate()
        {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            call.ctx.log("info", json!(line));
        }
        Ok(text_result("Logging test completed."))
    })
}

fn sampling(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let prompt = arg(&call, "prompt", "Hello");
        Ok(
            match ask::ask(
                &call,
                "sampling",
                "sampling/createMessage",
                ask::sample(&prompt, 100),
            )
            .await?
            {
                Asked::Retry(irr) => irr,
                Asked::Answer(r) => {
                    text_result(&format!("LLM response: {}", ask::sampled_text(&r)))
                }
            },
        )
    })
}

fn elicitation(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let message = arg(&call, "message", "Please provide your details");
        let form = ask::elicit(
            &message,
            json!({ "username": { "type": "string" }, "email": { "type": "string" } }),
            json!(["username", "email"]),
        );
        elicited(&call, form).await
    })
}

fn elicitation_defaults(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let form = ask::elicit(
            "Please review the defaults",
            json!({
                "name": { "type": "string", "description": "Your name", "default": "John Doe" },
                "age": { "type": "integer", "description": "Your age", "default": 30 },
                "score": { "type": "number", "description": "Your score", "default": 95.5 },
                "status": { "type": "string", "description": "Status", "enum": ["active", "inactive", "pending"], "default": "active" },
                "verified": { "type": "boolean", "description": "Verified", "default": true }
            }),
            json!([]),
        );
        elicited(&call, form).await
    })
}

fn elicitation_enums(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let form = ask::elicit(
            "Pick some options",
            json!({
                "untitledSingle": { "type": "string", "enum": ["option1", "option2", "option3"] },
                "titledSingle": { "type": "string", "oneOf": [
                    { "const": "value1", "title": "First Option" },
                    { "const": "value2", "title": "Second Option" },
                    { "const": "value3", "title": "Third Option" }
                ] },
                "legacyEnum": { "type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"] },
                "untitledMulti": { "type": "array", "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
                "titledMulti": { "type": "array", "items": { "anyOf": [
                    { "const": "value1", "title": "First Choice" },
                    { "const": "value2", "title": "Second Choice" },
                    { "const": "value3", "title": "Third Choice" }
                ] } }
            }),
            json!([]),
        );
        elicited(&call, form).await
    })
}

fn streaming_elicitation(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let form = ask::elicit(
            "What should the tool do next?",
            json!({ "choice": { "type": "string" } }),
            json!(["choice"]),
        );
        elicited(&call, form).await
    })
}

/// Asks an elicitation form and reports what the user did.
async fn elicited(call: &Call, form: Value) -> Result<Value, ErrorObject> {
    Ok(
        match ask::ask(call, "elicitation", "elicitation/create", form).await? {
            Asked::Retry(irr) => irr,
            Asked::Answer(r) => text_result(&format!(
                "User response: action={}, content={}",
                r["action"].as_str().unwrap_or("?"),
                r.get("content").unwrap_or(&Value::Null)
            )),
        },
    )
}

fn announce(call: Call, event: Event) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let heard = call.ctx.hub.publish(&event);
        Ok(payloads::text_result(&format!(
            "Announced {event:?} to {heard} listener(s)."
        )))
    })
}

fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    })
}
