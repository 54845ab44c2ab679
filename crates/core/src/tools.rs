//! Tools: what one is (a plain value: a name, a description, a hand-written JSON Schema
//! and a function; everything an SDK's `#[tool]` macro or `registerTool()` builds for
//! you), and `tools/list` / `tools/call` (MCP 2025-11-25 / 2026-07-28 `server/tools`).
//! `tools/list` sends the first three, `tools/call` runs the fourth. This is where a
//! tool failure becomes a result with `isError: true` instead of a JSON-RPC error,
//! and where a tool that takes time becomes a [`Later`](Outcome::Later).

pub use super::arguments::Arguments;
use super::capabilities::{declares, missing_capabilities};
pub use super::context::Call;
use super::context::{BoxFuture, Env, Outcome};
use crate::jsonrpc::{ErrorObject, Params, Rendered};
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

/// A tool's outcome. `Err` is not a protocol error: it becomes a result with
/// `isError: true`, so the model sees what went wrong (MCP 2025-11-25
/// `server/tools` "Error Handling").
pub type ToolResult = Result<String, String>;

/// One tool, as a plain value.
pub struct Tool {
    /// Unique key clients put in `params.name`.
    pub name: &'static str,
    /// Tells the model what the tool does and when to use it.
    pub description: &'static str,
    /// JSON Schema of `arguments`, written by hand (what zod or schemars would emit).
    pub input_schema: Value,
    /// Runs the tool; never panics on bad arguments.
    pub handler: Handler,
    /// Client capabilities the tool cannot work without; a modern request that does
    /// not declare them gets `-32021` (2026-07-28 `basic/index` "_meta").
    pub requires: &'static [&'static str],
}

/// The three shapes a tool's code can take.
pub enum Handler {
    /// Text at once; `Err(message)` becomes an `isError` result.
    Text(fn(&Arguments<'_>) -> ToolResult),
    /// A whole `CallToolResult` at once (any content types, its own `isError`).
    Content(fn(&Arguments<'_>) -> Value),
    /// A result that takes time: it may report progress, log, or ask the client on
    /// the way. In the modern era it may also answer an `InputRequiredResult`.
    Async(fn(Call) -> BoxFuture<Result<Value, ErrorObject>>),
}

/// The tools a server offers, in the order `tools/list` shows them.
pub struct ToolSet {
    tools: Vec<Tool>,
    /// The `tools` array of `tools/list`, built at its first use.
    listing: OnceLock<Value>,
    /// The whole `tools/list` result, written at its first use: answering is a copy
    /// of its bytes, where a copy of `listing` walked and allocated every schema
    /// (callgrind: 40,000 instructions a `tools/list` of the three demo tools). Not
    /// at start: a server's first answer is an `initialize` (cold start, callgrind:
    /// ~30,000 instructions of ~980,000).
    result: OnceLock<Rendered>,
}

impl ToolSet {
    /// The set of `tools`, in the order `tools/list` shows them.
    pub fn new(tools: Vec<Tool>) -> Self {
        ToolSet {
            tools,
            listing: OnceLock::new(),
            result: OnceLock::new(),
        }
    }

    /// The tool definitions as they go on the wire.
    pub fn listing(&self) -> &Value {
        self.listing.get_or_init(|| {
            Value::Array(
                self.tools
                    .iter()
                    .map(|t| {
                        json!({
                            "name": t.name,
                            "description": t.description,
                            "inputSchema": t.input_schema,
                        })
                    })
                    .collect(),
            )
        })
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Every tool, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter()
    }

    /// Every tool's name, in order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.tools.iter().map(|t| t.name)
    }
}

/// `tools/list` → `{"tools":[{name, description, inputSchema}, ...]}`, as written once.
pub fn list(tools: &ToolSet) -> Rendered {
    tools
        .result
        .get_or_init(|| Rendered::default().member("tools", tools.listing()))
        .clone()
}

/// `tools/call` with `{"name": ..., "arguments": {...}}`. Protocol problems (no such
/// tool, malformed params) are `-32602` errors; the tool's own failure is a result.
pub fn call(tools: &ToolSet, params: Option<&Params>, env: Env) -> Outcome {
    let (tool, arguments) = match find(tools, params) {
        Ok(found) => found,
        Err(e) => return Outcome::Now(Err(e)),
    };
    // A modern request declares its capabilities itself; refuse what cannot work.
    let missing: Vec<&str> = tool
        .requires
        .iter()
        .copied()
        .filter(|c| env.modern && !declares(env.client_capabilities, c))
        .collect();
    if !missing.is_empty() {
        return Outcome::Now(Err(missing_capabilities(
            &missing,
            &format!("tool {}", tool.name),
        )));
    }
    match tool.handler {
        Handler::Text(f) => Outcome::Now(Ok(match f(&arguments) {
            Ok(text) => text_result(&text, false),
            // A tool's own failure is a result, not a JSON-RPC error (2025-11-25
            // `server/tools` "Error Handling": `isError: true`), so the model sees it.
            Err(message) => text_result(&message, true),
        }
        .into())),
        Handler::Content(f) => Outcome::value(Ok(f(&arguments))),
        Handler::Async(f) => {
            let (call, outbox) = env.call(params.map(|p| &**p), Map::clone(&arguments));
            Outcome::Later(f(call), outbox)
        }
    }
}

/// `{"content":[{"type":"text","text":…}]}`, with `"isError":true` after it for a
/// tool's failure (a `CallToolResult` holding one `TextContent`, 2025-11-25
/// `server/tools` "Tool Result"). Written straight into one buffer, the tool's text
/// escaped on the way ([`Rendered`]): this runs once per call, and as a `Value` it
/// took three maps' worth of allocations and hashing, then a walk to write and one
/// to free.
pub(super) fn text_result(text: &str, is_error: bool) -> Rendered {
    // The fixed parts as bytes; the text escaped by serde_json (into memory: it
    // cannot fail).
    let result = Rendered::with_capacity(text.len() + 48).member_with("content", |out| {
        out.extend_from_slice(br#"[{"type":"text","text":"#);
        let _ = serde_json::to_writer(&mut *out, text);
        out.extend_from_slice(b"}]");
    });
    if is_error {
        result.member("isError", &true)
    } else {
        result
    }
}

/// The tool named by `params.name` and its `arguments` (absent or `null`: `{}`),
/// both read where they lie.
fn find<'a>(
    tools: &'a ToolSet,
    params: Option<&'a Params>,
) -> Result<(&'a Tool, Arguments<'a>), ErrorObject> {
    let name = super::params::sent_string("tools/call", params, "name")?;
    let tool = tools.get(&name).ok_or_else(|| {
        let known: Vec<_> = tools.names().collect();
        ErrorObject::invalid_params(format!(
            "Unknown tool: {name} (this server has: {})",
            known.join(", ")
        ))
    })?;
    let arguments = super::params::sent_object("tools/call", params, "arguments")?;
    let arguments = match arguments {
        Some(field) => Arguments::of(field),
        None => Arguments::new(),
    };
    Ok((tool, arguments))
}
