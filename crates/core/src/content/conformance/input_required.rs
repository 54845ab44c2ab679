//! Fixture tools for the modern era's Multi Round-Trip Requests (2026-07-28
//! `basic/patterns/mrtr`): one question, several at once, several rounds, state the
//! server seals into `requestState`, and questions chosen by the client's declared
//! capabilities. In a legacy session they say so and do nothing.

use super::ask::{elicit, sample, sampled_text};
use super::payloads::text_result;
use super::tools::{no_args, tool};
use crate::context::{BoxFuture, Call};
use crate::jsonrpc::ErrorObject;
use crate::mrtr::{self, answer, input_required, request, responses};
use crate::tools::{Handler, Tool};
use serde_json::{Map, Value, json};

pub fn tools() -> Vec<Tool> {
    let mut missing_capability = tool(
        "test_missing_capability",
        "Needs the client's sampling capability; without it the request is refused (-32021).",
        no_args(),
        Handler::Content(|_| text_result("The client declared sampling.")),
    );
    missing_capability.requires = &["sampling"];
    vec![
        tool(
            "test_input_required_result_elicitation",
            "Asks the user's name with an InputRequiredResult, then greets them.",
            no_args(),
            Handler::Async(elicitation),
        ),
        tool(
            "test_input_required_result_sampling",
            "Asks the client's LLM a question with an InputRequiredResult.",
            no_args(),
            Handler::Async(sampling),
        ),
        tool(
            "test_input_required_result_list_roots",
            "Asks the client for its roots with an InputRequiredResult.",
            no_args(),
            Handler::Async(roots),
        ),
        tool(
            "test_input_required_result_request_state",
            "Asks for confirmation, carrying its own state in requestState.",
            no_args(),
            Handler::Async(request_state),
        ),
        tool(
            "test_input_required_result_tampered_state",
            "Like request_state; a requestState that fails its integrity check is refused.",
            no_args(),
            Handler::Async(request_state),
        ),
        tool(
            "test_input_required_result_multiple_inputs",
            "Asks three questions at once: elicitation, sampling and roots.",
            no_args(),
            Handler::Async(multiple_inputs),
        ),
        tool(
            "test_input_required_result_multi_round",
            "Asks two questions in two rounds, then answers.",
            no_args(),
            Handler::Async(multi_round),
        ),
        tool(
            "test_input_required_result_capabilities",
            "Asks only what the client's declared capabilities allow.",
            no_args(),
            Handler::Async(by_capabilities),
        ),
        missing_capability,
    ]
}

/// In a legacy session these tools have nothing to show.
fn legacy_only_note() -> Value {
    json!({
        "content": [{ "type": "text", "text": "This tool shows 2026-07-28 multi round-trip requests; call it with a modern request (params._meta)." }],
        "isError": true
    })
}

fn name_question() -> Value {
    request(
        "elicitation/create",
        elicit(
            "What is your name?",
            json!({ "name": { "type": "string" } }),
            json!(["name"]),
        ),
    )
}

fn confirm_question() -> Value {
    request(
        "elicitation/create",
        elicit(
            "Please confirm",
            json!({ "ok": { "type": "boolean" } }),
            json!(["ok"]),
        ),
    )
}

fn roots_question() -> Value {
    request("roots/list", json!({}))
}

/// The shared start of every MRTR tool: `None` in a legacy session; else the
/// `inputResponses` (an empty map when absent).
fn round(call: &Call) -> Result<Option<Map<String, Value>>, ErrorObject> {
    if !call.modern {
        return Ok(None);
    }
    Ok(Some(responses(&call.params)?.cloned().unwrap_or_default()))
}

fn elicitation(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let Some(got) = round(&call)? else {
            return Ok(legacy_only_note());
        };
        Ok(match answer(&got, "user_name")? {
            Some(a) => text_result(&format!(
                "Hello, {}!",
                a["content"]["name"].as_str().unwrap_or("stranger")
            )),
            // Absent, or the responses lacked this key: ask (again).
            None => input_required(json!({ "user_name": name_question() }), None),
        })
    })
}

fn sampling(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let Some(got) = round(&call)? else {
            return Ok(legacy_only_note());
        };
        Ok(match answer(&got, "capital_question")? {
            Some(a) => text_result(&format!(
                "Sampling result: {}",
                sampled_text(&Value::Object(a.clone()))
            )),
            None => input_required(
                json!({ "capital_question": request("sampling/createMessage", sample("What is the capital of France?", 100)) }),
                None,
            ),
        })
    })
}

fn roots(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let Some(got) = round(&call)? else {
            return Ok(legacy_only_note());
        };
        Ok(match answer(&got, "client_roots")? {
            Some(a) => text_result(&format!(
                "Found {} root(s)",
                a["roots"].as_array().map_or(0, Vec::len)
            )),
            None => input_required(json!({ "client_roots": roots_question() }), None),
        })
    })
}

/// Round 1 seals `{tool, step: 1}` into the state; round 2 must bring it back intact.
fn request_state(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let Some(got) = round(&call)? else {
            return Ok(legacy_only_note());
        };
        let state = mrtr::open(&call.params)?;
        Ok(match (state, answer(&got, "confirm")?) {
            (Some(s), Some(_)) if s["step"] == 1 => text_result("Confirmed: state-ok"),
            _ => input_required(
                json!({ "confirm": confirm_question() }),
                Some(mrtr::seal(&json!({ "tool": "request_state", "step": 1 }))),
            ),
        })
    })
}

fn multiple_inputs(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let Some(got) = round(&call)? else {
            return Ok(legacy_only_note());
        };
        let state = mrtr::open(&call.params)?;
        let all = ["user_name", "greeting", "client_roots"]
            .iter()
            .map(|k| answer(&got, k))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(match (state, all.iter().all(Option::is_some)) {
            (Some(_), true) => text_result("All three inputs received: name, greeting and roots."),
            _ => input_required(
                json!({
                    "user_name": name_question(),
                    "greeting": request("sampling/createMessage", sample("Generate a greeting", 50)),
                    "client_roots": roots_question()
                }),
                Some(mrtr::seal(&json!({ "tool": "multiple_inputs" }))),
            ),
        })
    })
}

/// Three rounds: name (state 1), then colour (state 2 carries the name), then done.
fn multi_round(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let Some(got) = round(&call)? else {
            return Ok(legacy_only_note());
        };
        let state = mrtr::open(&call.params)?.unwrap_or(Value::Null);
        let step1 = || {
            input_required(
                json!({ "step1": request("elicitation/create", elicit("Step 1: What is your name?", json!({ "name": { "type": "string" } }), json!(["name"]))) }),
                Some(mrtr::seal(&json!({ "round": 1 }))),
            )
        };
        Ok(match state["round"].as_i64() {
            Some(1) => match answer(&got, "step1")? {
                Some(a) => {
                    let name = a["content"]["name"].as_str().unwrap_or("someone");
                    input_required(
                        json!({ "step2": request("elicitation/create", elicit("Step 2: What is your favorite color?", json!({ "color": { "type": "string" } }), json!(["color"]))) }),
                        Some(mrtr::seal(&json!({ "round": 2, "name": name }))),
                    )
                }
                None => step1(),
            },
            Some(2) => match answer(&got, "step2")? {
                Some(a) => text_result(&format!(
                    "Multi-round complete for {} who likes {}",
                    state["name"].as_str().unwrap_or("someone"),
                    a["content"]["color"].as_str().unwrap_or("no colour")
                )),
                None => step1(),
            },
            _ => step1(),
        })
    })
}

/// Asks elicitation only if declared, sampling only if declared; neither: done.
fn by_capabilities(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let Some(got) = round(&call)? else {
            return Ok(legacy_only_note());
        };
        if !got.is_empty() {
            return Ok(text_result("Received the inputs the client could give."));
        }
        let mut asks = Map::new();
        if call.ctx.client_has("elicitation") {
            asks.insert("user_name".into(), name_question());
        }
        if call.ctx.client_has("sampling") {
            asks.insert(
                "greeting".into(),
                request("sampling/createMessage", sample("Generate a greeting", 50)),
            );
        }
        Ok(if asks.is_empty() {
            text_result("The client declared neither elicitation nor sampling: nothing to ask.")
        } else {
            input_required(Value::Object(asks), None)
        })
    })
}
