//! The three tools this server offers, as plain values: a name, a description, a
//! JSON Schema for the arguments written out by hand, and a function.
//!
//! An SDK would derive the schema from a type; on the wire it is only this JSON
//! (2025-11-25 `server/tools` "Tool": `name`, `description`, `inputSchema`, where
//! `inputSchema` is a JSON Schema object whose `type` is `"object"`).

use crate::json::Json;

/// One tool: what `tools/list` shows of it, and what `tools/call` runs.
pub struct Tool {
    /// The name a client calls it by (`params.name` of `tools/call`).
    pub name: &'static str,
    /// A sentence for the model deciding whether to call it.
    pub description: &'static str,
    /// The JSON Schema of `arguments`.
    pub input_schema: fn() -> Json,
    /// Runs the tool: its text, or the text of its failure.
    pub run: fn(&Json) -> Result<String, String>,
}

/// Every tool, in the order `tools/list` gives them.
pub fn all() -> Vec<Tool> {
    let mut tools = vec![
        Tool {
            name: "get_current_time",
            description: "Returns the current UTC time as an RFC 3339 timestamp.",
            // No arguments: an object schema with no properties.
            input_schema: || {
                Json::object([("type", Json::str("object")), ("properties", Json::object([]))])
            },
            run: |_| Ok(now_rfc3339()),
        },
        Tool {
            name: "echo",
            description: "Echoes back the message it is given.",
            input_schema: || schema(&[("message", "string", "Text to echo back")]),
            run: |args| match args.get("message") {
                Some(Json::Str(message)) => Ok(message.clone()),
                Some(other) => {
                    Err(format!("argument \"message\" must be a string, got {}", other.kind()))
                }
                None => Err("missing required argument \"message\"".to_owned()),
            },
        },
        Tool {
            name: "add",
            description: "Adds two numbers and returns the sum.",
            input_schema: || {
                schema(&[("a", "number", "First addend"), ("b", "number", "Second addend")])
            },
            run: |args| {
                let sum = number(args, "a")? + number(args, "b")?;
                // A whole sum prints without ".0", as JavaScript prints numbers.
                Ok(if sum.fract() == 0.0 && sum.abs() < 1e15 {
                    format!("{}", sum as i64)
                } else {
                    format!("{sum}")
                })
            },
        },
    ];
    if CONFORMANCE_TOOLS.load(std::sync::atomic::Ordering::Relaxed) {
        tools.extend(conformance_tools());
    }
    tools
}

/// Whether [`all`] also offers the two tools the official conformance suite calls
/// (`demo-http serve --conformance-tools`; off by default, so the demo's list is
/// the seed's three).
pub static CONFORMANCE_TOOLS: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// The suite's `tools-call-simple-text` and `tools-call-error` scenarios call these.
fn conformance_tools() -> [Tool; 2] {
    let no_args =
        || Json::object([("type", Json::str("object")), ("properties", Json::object([]))]);
    [
        Tool {
            name: "test_simple_text",
            description: "Returns a simple text response.",
            input_schema: no_args,
            run: |_| Ok("This is a simple text response for testing.".into()),
        },
        Tool {
            name: "test_error_handling",
            description: "Always fails: the failure is a result with isError, not a protocol error.",
            input_schema: no_args,
            run: |_| Err("This tool intentionally returns an error for testing".into()),
        },
    ]
}

/// `{"type":"object","properties":{NAME:{"type":T,"description":D},…},"required":[NAME,…]}`:
/// every property listed is required.
fn schema(properties: &[(&str, &str, &str)]) -> Json {
    let props = properties.iter().map(|(name, kind, description)| {
        let property =
            Json::object([("type", Json::str(kind)), ("description", Json::str(description))]);
        (name.to_string(), property)
    });
    let required = properties.iter().map(|(name, _, _)| Json::str(name));
    Json::object([
        ("type", Json::str("object")),
        ("properties", Json::Object(props.collect())),
        ("required", Json::Array(required.collect())),
    ])
}

/// The argument `name` as a number, or the message the model will read.
fn number(args: &Json, name: &str) -> Result<f64, String> {
    match args.get(name) {
        Some(found @ Json::Number(_)) => found
            .as_f64()
            .ok_or_else(|| format!("argument \"{name}\" is not a finite number: {found}")),
        Some(found) => {
            Err(format!("argument \"{name}\" must be a number, got {} ({found})", found.kind()))
        }
        None => Err(format!("missing required argument \"{name}\"")),
    }
}

/// `tools/list` (`server/tools` "Listing Tools"): each tool's name, description and
/// schema. With three tools there is one page, so no `nextCursor`.
pub fn list() -> Json {
    let tools = all().into_iter().map(|t| {
        Json::object([
            ("name", Json::str(t.name)),
            ("description", Json::str(t.description)),
            ("inputSchema", (t.input_schema)()),
        ])
    });
    Json::object([("tools", Json::Array(tools.collect()))])
}

/// `tools/call {name, arguments}` (`server/tools` "Calling Tools").
pub fn call(params: Option<&Json>) -> Result<Json, (i64, String)> {
    let bad = |why: String| Err((crate::rpc::code::INVALID_PARAMS, why));
    let name = match params.and_then(|p| p.get("name")) {
        Some(Json::Str(name)) => name,
        Some(other) => {
            return bad(format!("tools/call: params.name must be a string, got {}", other.kind()));
        }
        None => return bad("tools/call: missing params.name".into()),
    };
    let all = all();
    // `server/tools` "Error Handling": an unknown tool is a protocol error, -32602.
    let Some(tool) = all.iter().find(|t| t.name == name) else {
        let names: Vec<_> = all.iter().map(|t| t.name).collect();
        return bad(format!("Unknown tool: {name} (this server has: {})", names.join(", ")));
    };
    let arguments = match params.and_then(|p| p.get("arguments")) {
        None | Some(Json::Null) => Json::object([]),
        Some(args @ Json::Object(_)) => args.clone(),
        Some(other) => {
            return bad(format!(
                "tools/call: params.arguments must be an object, got {}",
                other.kind()
            ));
        }
    };
    // The tool's answer is text content. Its failure is a *result* with
    // `isError: true`, not a JSON-RPC error ("Error Handling": tool execution
    // errors), so the model reads what went wrong and can try again.
    let (text, failed) = match (tool.run)(&arguments) {
        Ok(text) => (text, false),
        Err(text) => (text, true),
    };
    let content =
        Json::Array(vec![Json::object([("type", Json::str("text")), ("text", Json::Str(text))])]);
    Ok(if failed {
        Json::object([("content", content), ("isError", Json::Bool(true))])
    } else {
        Json::object([("content", content)])
    })
}

/// The time now as `2026-12-07T13:38:06.054Z` (RFC 3339, UTC, milliseconds).
pub fn now_rfc3339() -> String {
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let (days, secs) = (now.as_secs() / 86_400, now.as_secs() % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    let (h, min, s, ms) = (secs / 3600, secs % 3600 / 60, secs % 60, now.subsec_millis());
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{ms:03}Z")
}

/// Days since 1970-01-01 → (year, month, day), Howard Hinnant's `civil_from_days`.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_calendar_is_right_on_known_days() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        assert_eq!(super::civil_from_days(20_794), (2026, 12, 7));
        assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
    }
}
