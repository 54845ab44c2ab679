//! Asking the client, in either era. Legacy: a request on the response stream, and
//! the tool waits for the client's reply (2025-11-25). Modern: the tool answers
//! `input_required` and is called again with the reply in `inputResponses`
//! (2026-07-28 MRTR). The same tool code serves both.

use crate::context::Call;
use crate::jsonrpc::ErrorObject;
use crate::mrtr;
use serde_json::{Value, json};

/// What asking produced.
pub enum Asked {
    /// The client's result.
    Answer(Value),
    /// Modern: return this `InputRequiredResult`; the client will retry.
    Retry(Value),
}

/// Asks the client `method` with `params`; `key` names the question in MRTR.
pub async fn ask(
    call: &Call,
    key: &str,
    method: &str,
    params: Value,
) -> Result<Asked, ErrorObject> {
    if !call.modern {
        return call.ctx.ask_client(method, params).await.map(Asked::Answer);
    }
    if let Some(responses) = mrtr::responses(&call.params)?
        && let Some(answer) = mrtr::answer(responses, key)?
    {
        return Ok(Asked::Answer(Value::Object(answer.clone())));
    }
    Ok(Asked::Retry(mrtr::input_required(
        json!({ key: mrtr::request(method, params) }),
        None,
    )))
}

/// An `elicitation/create` form request.
pub fn elicit(message: &str, properties: Value, required: Value) -> Value {
    json!({
        "message": message,
        "requestedSchema": { "type": "object", "properties": properties, "required": required }
    })
}

/// A `sampling/createMessage` request for one user message.
pub fn sample(text: &str, max_tokens: u64) -> Value {
    json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
        "maxTokens": max_tokens
    })
}

/// The text of a `CreateMessageResult`.
pub fn sampled_text(result: &Value) -> &str {
    result["content"]["text"].as_str().unwrap_or("")
}
