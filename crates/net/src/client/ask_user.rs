//! The user answers at a terminal (`--ask`): what a server asks through
//! `sampling/createMessage` or `elicitation/create` (MCP 2025-11-25 `client/sampling`,
//! `client/elicitation`; the same questions arrive as MRTR `inputRequests` in
//! 2026-07-28) is shown, and the reply typed is sent back. The questions and prompts go
//! to the terminal itself (`/dev/tty`), not to stdout, so the wire view stays whole
//! and stdin stays free.
//!
//! Sampling: the messages are shown and the text typed is the assistant's reply (an
//! empty line declines: JSON-RPC error `-1`, as the spec's "User rejected sampling
//! request" example). Elicitation (form mode): accept, decline or cancel, then one
//! line per field of `requestedSchema`, typed as the schema says (string, number,
//! integer, boolean, an enum by value or number); an empty line keeps the field's
//! `default` or leaves it out.

use crate::jsonrpc::ErrorObject;
use crate::lock::Locked;
use serde_json::{Map, Value, json};
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

/// The terminal the questions are asked on (shared by every clone of the answers).
#[derive(Clone)]
pub struct Asker(Arc<Mutex<Terminal>>);

impl std::fmt::Debug for Asker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Asker")
    }
}

/// Where questions are written and answers read.
struct Terminal {
    /// The user's lines.
    input: Box<dyn BufRead + Send>,
    /// The questions and prompts.
    output: Box<dyn Write + Send>,
}

/// The most fields one form may ask before the rest are left out (a runaway schema
/// should not keep a user typing forever).
const MAX_FIELDS: usize = 64;

impl Asker {
    /// The process's controlling terminal, or why there is none.
    pub fn terminal() -> std::io::Result<Asker> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")?;
        let input = Box::new(std::io::BufReader::new(tty.try_clone()?));
        Ok(Asker::over(input, Box::new(tty)))
    }

    /// Questions on `output`, answers from `input` (a test's script).
    pub fn over(input: Box<dyn BufRead + Send>, output: Box<dyn Write + Send>) -> Asker {
        Asker(Arc::new(Mutex::new(Terminal { input, output })))
    }

    /// A `CreateMessageResult` typed by the user, or their refusal.
    pub fn sample(&self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        self.with(|t| {
            let p = params.cloned().unwrap_or(Value::Null);
            t.say("\n[mcp-raw] the server asks for a completion (sampling/createMessage)")?;
            if let Some(system) = p["systemPrompt"].as_str() {
                t.say(&format!("  system: {system}"))?;
            }
            for m in p["messages"].as_array().into_iter().flatten() {
                let role = m["role"].as_str().unwrap_or("?");
                t.say(&format!("  {role}: {}", content_text(&m["content"])))?;
            }
            let Some(reply) = t.ask("Your reply as the assistant (empty declines): ")? else {
                return Err(no_answer());
            };
            if reply.is_empty() {
                return Err(ErrorObject::new(-1, "User rejected sampling request"));
            }
            Ok(json!({
                "role": "assistant",
                "content": { "type": "text", "text": reply },
                "model": "mcp-raw-user",
                "stopReason": "endTurn",
            }))
        })
    }

    /// An `ElicitResult` for a form-mode `elicitation/create`, from the user.
    pub fn elicit(&self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        self.with(|t| {
            let p = params.cloned().unwrap_or(Value::Null);
            t.say("\n[mcp-raw] the server asks for input (elicitation/create)")?;
            t.say(&format!("  {}", p["message"].as_str().unwrap_or("")))?;
            let action = loop {
                let Some(line) = t.ask("accept, decline or cancel? [a/d/c]: ")? else {
                    return Err(no_answer());
                };
                match line.to_ascii_lowercase().as_str() {
                    "a" | "accept" => break "accept",
                    "d" | "decline" => break "decline",
                    "c" | "cancel" => break "cancel",
                    _ => t.say("  type a, d or c")?,
                }
            };
            if action != "accept" {
                return Ok(json!({ "action": action }));
            }
            let schema = &p["requestedSchema"];
            let required: Vec<&str> = schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let mut content = Map::new();
            let fields = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            for (name, field) in fields.iter().take(MAX_FIELDS) {
                let must = required.contains(&name.as_str());
                loop {
                    let prompt = field_prompt(name, field, must);
                    let Some(line) = t.ask(&prompt)? else {
                        return Err(no_answer());
                    };
                    match typed(&line, field) {
                        Ok(Some(v)) => _ = content.insert(name.clone(), v),
                        Ok(None) => match field.get("default") {
                            Some(d) => _ = content.insert(name.clone(), d.clone()),
                            None if must => {
                                t.say(&format!("  {name} is required"))?;
                                continue;
                            }
                            None => {}
                        },
                        Err(why) => {
                            t.say(&format!("  {why}"))?;
                            continue;
                        }
                    }
                    break;
                }
            }
            Ok(json!({ "action": "accept", "content": content }))
        })
    }

    /// Runs one exchange with the terminal held; blocking reads are moved off the
    /// async workers when there is a runtime to move them off.
    fn with<T>(
        &self,
        f: impl FnOnce(&mut Terminal) -> Result<T, ErrorObject>,
    ) -> Result<T, ErrorObject> {
        let run = || {
            let mut t = self.0.locked();
            f(&mut t)
        };
        match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
            Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(run),
            _ => run(),
        }
    }
}

impl Terminal {
    fn say(&mut self, line: &str) -> Result<(), ErrorObject> {
        writeln!(self.output, "{line}")
            .and_then(|_| self.output.flush())
            .map_err(terminal_error)
    }

    /// One line typed (its end trimmed), or `None` when the terminal closed.
    fn ask(&mut self, prompt: &str) -> Result<Option<String>, ErrorObject> {
        write!(self.output, "{prompt}")
            .and_then(|_| self.output.flush())
            .map_err(terminal_error)?;
        let mut line = String::new();
        let n = self.input.read_line(&mut line).map_err(terminal_error)?;
        Ok((n > 0).then(|| line.trim_end_matches(['\r', '\n']).to_owned()))
    }
}

/// `name (integer, default 3, one of: a | b) *: `
fn field_prompt(name: &str, field: &Value, required: bool) -> String {
    let mut hints = vec![field["type"].as_str().unwrap_or("string").to_owned()];
    if let Some(d) = field.get("default") {
        hints.push(format!("default {d}"));
    }
    let choices = choices(field);
    if !choices.is_empty() {
        let list: Vec<String> = choices
            .iter()
            .enumerate()
            .map(|(i, (v, title))| match title {
                Some(t) => format!("{} {v} ({t})", i + 1),
                None => format!("{} {v}", i + 1),
            })
            .collect();
        hints.push(format!("one of: {}", list.join(" | ")));
    }
    let title = field["title"].as_str().unwrap_or(name);
    let star = if required { " *" } else { "" };
    format!("  {title} [{}]{star}: ", hints.join(", "))
}

/// The allowed values of an enum field: `enum` (with `enumNames`), or `oneOf` of
/// `{const, title}` (2025-11-25 `client/elicitation` "Supported Schema Types").
fn choices(field: &Value) -> Vec<(String, Option<String>)> {
    if let Some(values) = field["enum"].as_array() {
        let names = field["enumNames"].as_array();
        return values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let title = names.and_then(|n| n.get(i)).and_then(Value::as_str);
                v.as_str().map(|s| (s.to_owned(), title.map(str::to_owned)))
            })
            .collect();
    }
    field["oneOf"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| {
            let v = o["const"].as_str()?;
            Some((v.to_owned(), o["title"].as_str().map(str::to_owned)))
        })
        .collect()
}

/// A typed line as the field's JSON value: `None` for an empty line.
fn typed(line: &str, field: &Value) -> Result<Option<Value>, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(None);
    }
    let choices = choices(field);
    if !choices.is_empty() {
        if let Some((v, _)) = choices.iter().find(|(v, _)| v == line) {
            return Ok(Some(json!(v)));
        }
        return match line.parse::<usize>() {
            Ok(i) if (1..=choices.len()).contains(&i) => Ok(Some(json!(choices[i - 1].0))),
            _ => Err(format!(
                "{line:?} is not one of the choices (type a value or its number)"
            )),
        };
    }
    match field["type"].as_str().unwrap_or("string") {
        "integer" => line
            .parse::<i64>()
            .map(|n| Some(json!(n)))
            .map_err(|_| format!("{line:?} is not an integer")),
        "number" => line
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(|n| Some(Value::Number(n)))
            .ok_or_else(|| format!("{line:?} is not a number")),
        "boolean" => match line.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Ok(Some(json!(true))),
            "n" | "no" | "false" => Ok(Some(json!(false))),
            _ => Err(format!("{line:?} is not yes or no")),
        },
        _ => Ok(Some(json!(line))),
    }
}

/// What a message's content shows as one line.
fn content_text(content: &Value) -> String {
    match content["type"].as_str() {
        Some("text") => content["text"].as_str().unwrap_or("").to_owned(),
        Some(other) => format!("[{other} content]"),
        None => content.to_string(),
    }
}

fn no_answer() -> ErrorObject {
    ErrorObject::new(
        crate::jsonrpc::code::INTERNAL_ERROR,
        "the user gave no answer (the terminal closed)",
    )
}

fn terminal_error(e: std::io::Error) -> ErrorObject {
    ErrorObject::new(
        crate::jsonrpc::code::INTERNAL_ERROR,
        format!("cannot ask the user at the terminal: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An asker fed these lines, whose questions land in the returned buffer.
    fn scripted(lines: &str) -> (Asker, Arc<Mutex<Vec<u8>>>) {
        #[derive(Clone)]
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let out = Shared(Arc::new(Mutex::new(Vec::new())));
        let input = Box::new(std::io::Cursor::new(lines.as_bytes().to_vec()));
        (Asker::over(input, Box::new(out.clone())), out.0)
    }

    #[test]
    fn a_form_is_filled_field_by_field_with_types_defaults_and_retries() {
        let params = json!({
            "message": "Who are you?",
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "age": {"type": "integer"},
                    "colour": {"type": "string", "enum": ["red", "blue"]},
                    "ok": {"type": "boolean", "default": true},
                },
                "required": ["name", "age"],
            }
        });
        // "x" is not an action; "" for a required field and "ten" for an integer are
        // refused and asked again; "2" picks the second choice; "" keeps the default.
        let (asker, out) = scripted("x\na\n\nAda\nten\n36\n2\n\n");
        let r = asker.elicit(Some(&params)).unwrap();
        assert_eq!(
            r,
            json!({"action": "accept", "content": {"name": "Ada", "age": 36, "colour": "blue", "ok": true}})
        );
        let shown = String::from_utf8(out.lock().unwrap().clone()).unwrap();
        assert!(shown.contains("Who are you?"), "{shown}");
        assert!(shown.contains("name is required"), "{shown}");
        assert!(shown.contains("\"ten\" is not an integer"), "{shown}");
        assert!(shown.contains("one of: 1 red | 2 blue"), "{shown}");
    }

    #[test]
    fn decline_sampling_replies_and_a_closed_terminal() {
        let (asker, _) = scripted("d\n");
        assert_eq!(asker.elicit(None).unwrap(), json!({"action": "decline"}));
        let params =
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi?"}}]});
        let (asker, out) = scripted("hello there\n\n");
        let r = asker.sample(Some(&params)).unwrap();
        assert_eq!(r["content"]["text"], "hello there");
        assert_eq!(r["role"], "assistant");
        assert!(String::from_utf8_lossy(&out.lock().unwrap()).contains("user: hi?"));
        assert_eq!(asker.sample(Some(&params)).unwrap_err().code, -1);
        assert_eq!(
            asker.sample(Some(&params)).unwrap_err().code,
            crate::jsonrpc::code::INTERNAL_ERROR
        );
    }
}
