//! The three demo tools of the original project: `get_current_time`, `echo`, `add`.

use crate::clock;
use crate::tools::{Arguments, Handler, Tool, ToolResult, ToolSet};
use serde_json::json;

/// The default tool set of `mcp-raw serve`.
pub fn tool_set() -> ToolSet {
    ToolSet::new(vec![get_current_time(), echo(), add()])
}

/// `get_current_time`: the time now, RFC 3339, UTC.
pub fn get_current_time() -> Tool {
    Tool {
        name: "get_current_time",
        description: "Returns the current UTC time as an RFC 3339 timestamp.",
        input_schema: json!({ "type": "object", "properties": {} }),
        handler: Handler::Text(|_| Ok(clock::now_rfc3339())),
        requires: &[],
    }
}

/// `echo {message}`: the message back; a missing or non-string one is a tool error.
pub fn echo() -> Tool {
    Tool {
        name: "echo",
        description: "Echoes back the message it is given.",
        input_schema: json!({
            "type": "object",
            "properties": { "message": { "type": "string", "description": "Text to echo back" } },
            "required": ["message"]
        }),
        // Read where it lies in the request: no map of the arguments is built.
        handler: Handler::Text(|args| match args.get("message") {
            Some(found) => match found.as_str() {
                Some(message) => Ok(message.into_owned()),
                None => Err(format!(
                    "argument \"message\" must be a string, got {}",
                    found.kind()
                )),
            },
            None => Err("missing required argument \"message\"".to_owned()),
        }),
        requires: &[],
    }
}

/// `add {a, b}`: their sum; a missing or non-number one is a tool error.
pub fn add() -> Tool {
    Tool {
        name: "add",
        description: "Adds two numbers and returns the sum.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "a": { "type": "number", "description": "First addend" },
                "b": { "type": "number", "description": "Second addend" }
            },
            "required": ["a", "b"]
        }),
        handler: Handler::Text(add_handler),
        requires: &[],
    }
}

fn add_handler(args: &Arguments<'_>) -> ToolResult {
    let a = number(args, "a")?;
    let b = number(args, "b")?;
    let sum = a + b;
    // Integers print without a trailing ".0", as JavaScript would print them.
    Ok(if sum.fract() == 0.0 && sum.abs() < 1e15 {
        format!("{}", sum as i64)
    } else {
        format!("{sum}")
    })
}

fn number(args: &Arguments<'_>, name: &str) -> Result<f64, String> {
    match args.get(name) {
        Some(found) => found.as_f64().ok_or_else(|| {
            format!(
                "argument \"{name}\" must be a number, got {} ({found})",
                found.kind()
            )
        }),
        None => Err(format!("missing required argument \"{name}\"")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: serde_json::Value) -> Arguments<'static> {
        Arguments::from(v.as_object().cloned().unwrap())
    }

    fn text(tool: Tool) -> fn(&Arguments<'_>) -> ToolResult {
        match tool.handler {
            Handler::Text(f) => f,
            _ => panic!("not a text tool"),
        }
    }

    #[test]
    fn add_sums_and_names_the_bad_argument() {
        let add = text(add());
        assert_eq!(add(&args(json!({"a": 2, "b": 3}))), Ok("5".into()));
        assert_eq!(add(&args(json!({"a": 0.5, "b": 0.25}))), Ok("0.75".into()));
        let e = add(&args(json!({"a": "two", "b": 3}))).unwrap_err();
        assert!(e.contains("\"a\"") && e.contains("must be a number"), "{e}");
        let e = add(&args(json!({"a": 1}))).unwrap_err();
        assert!(e.contains("missing") && e.contains("\"b\""), "{e}");
    }

    #[test]
    fn echo_returns_its_message() {
        let echo = text(echo());
        assert_eq!(echo(&args(json!({"message": "hi"}))), Ok("hi".into()));
        assert!(echo(&args(json!({"message": 1}))).is_err());
        assert!(echo(&args(json!({}))).is_err());
    }

    #[test]
    fn current_time_is_rfc3339_utc() {
        let t = text(get_current_time())(&Arguments::new()).unwrap();
        assert!(clock::looks_like_rfc3339_utc(&t), "{t}");
    }

    #[test]
    fn listing_keeps_declaration_order() {
        let set = tool_set();
        let names: Vec<_> = set.names().collect();
        assert_eq!(names, ["get_current_time", "echo", "add"]);
        assert_eq!(
            set.listing()[2]["inputSchema"]["required"],
            json!(["a", "b"])
        );
    }
}
