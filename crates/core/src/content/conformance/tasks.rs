//! Fixture tools for the tasks extension (SEP-2663), named as the conformance suite's
//! `tasks-*` scenarios expect. Each tool decides per request whether to answer with a
//! task (`resultType: "task"`): only when the request declared the extension
//! (`call.tasks` is `Some`) and the answer is not ready at once. Otherwise it answers
//! the ordinary way, so one tool shows both wires. A question asked inside a task goes
//! out in `tasks/get` `inputRequests` and comes back with `tasks/update`; the same
//! question outside a task is an MRTR `InputRequiredResult` (modern) or a request on
//! the response stream (legacy).

use super::ask::{Asked, elicit};
use super::payloads::{text, text_result};
use super::tools::{arg, no_args, string_args, tool};
use crate::context::{BoxFuture, Call};
use crate::jsonrpc::{ErrorObject, code};
use crate::mrtr;
use crate::tasks::EXTENSION;
use crate::tools::{Arguments, Handler, Tool};
use serde_json::{Map, Value, json};
use std::future::Future;
use std::time::Duration;

/// The longest `slow_compute` accepts, in seconds (well inside a task's TTL).
const MAX_SECONDS: f64 = 300.0;

pub fn tools() -> Vec<Tool> {
    // These two cannot run for a modern client without the extension: -32021.
    let mut failing_job = tool(
        "failing_job",
        "Task-only: fails after about a second with a tool error (isError), so its task ends completed, not failed.",
        no_args(),
        Handler::Async(failing_job),
    );
    failing_job.requires = &[EXTENSION];
    let mut with_task = tool(
        "test_tool_with_task",
        "Asks the user's name (MRTR), then answers with a task whose result greets them.",
        no_args(),
        Handler::Async(tool_with_task),
    );
    with_task.requires = &[EXTENSION];
    vec![
        tool(
            "greet",
            "Says hello to name, at once: never a task.",
            string_args(&["name"]),
            Handler::Text(greet),
        ),
        tool(
            "slow_compute",
            "Sleeps seconds (0 to 300), then reports label. A task when the client declares the tasks extension and seconds > 0.",
            json!({
                "type": "object",
                "properties": {
                    "seconds": { "type": "number", "minimum": 0, "maximum": MAX_SECONDS },
                    "label": { "type": "string" }
                }
            }),
            Handler::Async(slow_compute),
        ),
        failing_job,
        tool(
            "protocol_error_job",
            "Fails with a JSON-RPC internal error after half a second: as a task, the task is failed.",
            no_args(),
            Handler::Async(protocol_error_job),
        ),
        tool(
            "confirm_delete",
            "Asks the user to confirm deleting filename (nothing is deleted: a fixture).",
            string_args(&["filename"]),
            Handler::Async(confirm_delete),
        ),
        tool(
            "multi_input",
            "Asks two questions at once (a name and a confirmation), then reports both answers.",
            no_args(),
            Handler::Async(multi_input),
        ),
        with_task,
    ]
}

fn greet(args: &Arguments<'_>) -> crate::tools::ToolResult {
    args.get("name")
        .and_then(|name| name.as_str())
        .map(|name| format!("Hello, {name}!"))
        .ok_or_else(|| "greet needs the argument name (a string)".to_owned())
}

/// Runs `work` as a task when this request allows one, else here: the caller waits.
async fn task_if_allowed<Fut>(call: &Call, work: Fut) -> Result<Value, ErrorObject>
where
    Fut: Future<Output = Result<Value, ErrorObject>> + Send + 'static,
{
    match &call.tasks {
        Some(tasks) => tasks.create(|_| work).await,
        None => work.await,
    }
}

fn slow_compute(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let seconds = match call.arguments.get("seconds") {
            None => 1.0,
            Some(v) => match v.as_f64().filter(|s| (0.0..=MAX_SECONDS).contains(s)) {
                Some(s) => s,
                None => {
                    return Ok(json!({
                        "content": [text(&format!("slow_compute: seconds must be a number from 0 to {MAX_SECONDS}, got {v}"))],
                        "isError": true
                    }));
                }
            },
        };
        let label = arg(&call, "label", "job");
        let done = move || Ok(text_result(&format!("Computed {label} in {seconds} s.")));
        match &call.tasks {
            // Nothing to wait for: the result at once is a valid answer too.
            Some(tasks) if seconds > 0.0 => {
                tasks
                    .create(move |task| async move {
                        task.say(format!("Computing for {seconds} s.")).await;
                        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
                        done()
                    })
                    .await
            }
            _ => {
                tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
                done()
            }
        }
    })
}

fn failing_job(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        task_if_allowed(&call, async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Ok(json!({
                "content": [text("failing_job failed on purpose: the tool ran and reports an error")],
                "isError": true
            }))
        })
        .await
    })
}

fn protocol_error_job(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        task_if_allowed(&call, async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            Err(ErrorObject::new(
                code::INTERNAL_ERROR,
                "protocol_error_job: an internal error, on purpose (a JSON-RPC error, not a tool result)",
            ))
        })
        .await
    })
}

fn confirm_delete(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let filename = arg(&call, "filename", "the file");
        let questions = keyed([(
            "confirm",
            mrtr::request(
                "elicitation/create",
                elicit(
                    &format!("Delete {filename}?"),
                    json!({ "confirm": { "type": "boolean", "description": "Yes, delete it" } }),
                    json!(["confirm"]),
                ),
            ),
        )]);
        let outcome = move |answers: &Value| {
            let a = &answers["confirm"];
            if a["action"] == "accept" && a["content"]["confirm"] == true {
                text_result(&format!(
                    "Deleted {filename}. (A fixture: nothing was deleted.)"
                ))
            } else {
                text_result(&format!("Kept {filename}: the deletion was not confirmed."))
            }
        };
        ask_then(call, questions, outcome).await
    })
}

fn multi_input(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let questions = keyed([
            (
                "name",
                mrtr::request(
                    "elicitation/create",
                    elicit(
                        "What is your name?",
                        json!({ "name": { "type": "string" } }),
                        json!(["name"]),
                    ),
                ),
            ),
            (
                "confirm",
                mrtr::request(
                    "elicitation/create",
                    elicit(
                        "Shall I go on?",
                        json!({ "confirm": { "type": "boolean" } }),
                        json!(["confirm"]),
                    ),
                ),
            ),
        ]);
        let outcome = |answers: &Value| {
            text_result(&format!(
                "Received both inputs: name {} and confirm {}.",
                answers["name"]["content"]["name"], answers["confirm"]["content"]["confirm"]
            ))
        };
        ask_then(call, questions, outcome).await
    })
}

/// MRTR first, then a task (SEP-2663 "Composition with Multi Round-Trip Requests"): the
/// name is gathered synchronously, with `input_required` rounds on `tools/call`; only
/// the last round answers with a task, whose result carries the name.
fn tool_with_task(call: Call) -> BoxFuture<Result<Value, ErrorObject>> {
    Box::pin(async move {
        let question = keyed([(
            "user_name",
            mrtr::request(
                "elicitation/create",
                elicit(
                    "What is your name?",
                    json!({ "name": { "type": "string" } }),
                    json!(["name"]),
                ),
            ),
        )]);
        let answers = match ask_now(&call, question).await? {
            Asked::Answer(a) => a,
            Asked::Retry(input_required) => return Ok(input_required),
        };
        let name = answers["user_name"]["content"]["name"]
            .as_str()
            .unwrap_or("stranger")
            .to_owned();
        task_if_allowed(&call, async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(text_result(&format!(
                "Hello, {name}! (asked with MRTR, answered by a task)"
            )))
        })
        .await
    })
}

/// Asks `questions`, then answers `outcome(answers)`: inside a task when the request
/// allows one (the questions wait in `tasks/get` for `tasks/update`), else at once.
async fn ask_then(
    call: Call,
    questions: Map<String, Value>,
    outcome: impl FnOnce(&Value) -> Value + Send + 'static,
) -> Result<Value, ErrorObject> {
    match call.tasks.clone() {
        Some(tasks) => {
            tasks
                .create(move |task| async move {
                    let answers = task.ask(questions).await?;
                    Ok(outcome(&Value::Object(answers)))
                })
                .await
        }
        None => Ok(match ask_now(&call, questions).await? {
            Asked::Answer(answers) => outcome(&answers),
            Asked::Retry(input_required) => input_required,
        }),
    }
}

/// Asks every question outside a task. Legacy: one request on the stream after the
/// other. Modern: an `InputRequiredResult` with all of them, until the retry brings
/// every answer in `inputResponses`.
async fn ask_now(call: &Call, questions: Map<String, Value>) -> Result<Asked, ErrorObject> {
    let mut answers = Map::new();
    if !call.modern {
        for (key, q) in questions {
            let method = q["method"].as_str().unwrap_or_default();
            let answer = call.ctx.ask_client(method, q["params"].clone()).await?;
            answers.insert(key, answer);
        }
        return Ok(Asked::Answer(Value::Object(answers)));
    }
    if let Some(responses) = mrtr::responses(&call.params)? {
        for key in questions.keys() {
            if let Some(answer) = mrtr::answer(responses, key)? {
                answers.insert(key.clone(), Value::Object(answer.clone()));
            }
        }
    }
    Ok(if answers.len() == questions.len() {
        Asked::Answer(Value::Object(answers))
    } else {
        Asked::Retry(mrtr::input_required(Value::Object(questions), None))
    })
}

fn keyed<const N: usize>(entries: [(&str, Value); N]) -> Map<String, Value> {
    entries
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
}
