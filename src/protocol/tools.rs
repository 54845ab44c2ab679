//! `tools/list` and `tools/call` (MCP 2025-11-25 / 2026-07-28 `server/tools`). This is
//! where a tool failure becomes a result with `isError: true` instead of a JSON-RPC
//! error, and where a tool that takes time becomes a [`Later`](Outcome::Later).

use super::capabilities::{declares, missing_capabilities};
use super::context::{BoxFuture, Call, Context, Peer};
use super::subscriptions::Hub;
use super::tasks::Store;
use crate::jsonrpc::ErrorObject;
use crate::tools::{Arguments, Handler, ToolSet};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::mpsc;

/// `tools/list` → `{"tools":[{name, description, inputSchema}, ...]}`.
pub fn list(tools: &ToolSet) -> Value {
    json!({ "tools": tools.listing() })
}

/// What a call produced: a result now, or one still running.
pub enum Outcome {
    Now(Result<Value, ErrorObject>),
    Later(
        BoxFuture<Result<Value, ErrorObject>>,
        mpsc::UnboundedReceiver<super::context::Out>,
    ),
}

/// The facts of the request a running tool may need (see [`Context`]).
pub struct Env {
    /// Legacy sessions: how to ask the client.
    pub peer: Option<Arc<Peer>>,
    /// `_meta.progressToken`, read once with the rest of `_meta`.
    pub progress_token: Option<Value>,
    /// The least severe log level to send; `None`: no log messages.
    pub log_level: Option<usize>,
    /// What the client declared (legacy: at `initialize`; modern: in `_meta`).
    pub client_capabilities: Value,
    /// A 2026-07-28 request: questions to the client become `InputRequiredResult`s.
    pub modern: bool,
    /// Server-wide change notifications.
    pub hub: Arc<Hub>,
    /// The task store, when this request may be answered with a task: a modern request
    /// that declared the tasks extension, to a server that offers it.
    pub tasks: Option<Arc<Store>>,
}

/// `tools/call` with `{"name": ..., "arguments": {...}}`. Protocol problems (no such
/// tool, malformed params) are `-32602` errors; the tool's own failure is a result.
pub fn call(tools: &ToolSet, params: Option<&Value>, env: Env) -> Outcome {
    let (tool, arguments) = match find(tools, params) {
        Ok(found) => found,
        Err(e) => return Outcome::Now(Err(e)),
    };
    // A modern request declares its capabilities itself; refuse what cannot work.
    let missing: Vec<&str> = tool
        .requires
        .iter()
        .copied()
        .filter(|c| env.modern && !declares(&env.client_capabilities, c))
        .collect();
    if !missing.is_empty() {
        return Outcome::Now(Err(missing_capabilities(
            &missing,
            &format!("tool {}", tool.name),
        )));
    }
    match tool.handler {
        Handler::Text(f) => Outcome::Now(Ok(match f(arguments) {
            Ok(text) => json!({ "content": [{ "type": "text", "text": text }] }),
            Err(message) => json!({
                "content": [{ "type": "text", "text": message }],
                "isError": true,
            }),
        })),
        Handler::Content(f) => Outcome::Now(Ok(f(arguments))),
        Handler::Async(f) => {
            let (call, outbox) = env.call(params, arguments.clone());
            Outcome::Later(f(call), outbox)
        }
    }
}

impl Env {
    /// The [`Call`] an asynchronous tool or prompt runs with, and the outbox its
    /// messages come out of.
    pub fn call(
        self,
        params: Option<&Value>,
        arguments: Arguments,
    ) -> (Call, mpsc::UnboundedReceiver<super::context::Out>) {
        let (ctx, outbox) = Context::new(
            self.peer,
            self.progress_token,
            self.log_level,
            self.client_capabilities,
            self.hub,
        );
        let call = Call {
            arguments,
            params: params.cloned().unwrap_or(Value::Null),
            ctx,
            modern: self.modern,
            tasks: self.tasks,
        };
        (call, outbox)
    }
}

/// The tool named by `params.name` and its `arguments` (absent or `null`: `{}`).
fn find<'a>(
    tools: &'a ToolSet,
    params: Option<&'a Value>,
) -> Result<(&'a crate::tools::Tool, &'a Arguments), ErrorObject> {
    static EMPTY: std::sync::OnceLock<Arguments> = std::sync::OnceLock::new();
    let name = super::params::string("tools/call", params, "name")?;
    let tool = tools.get(name).ok_or_else(|| {
        let known: Vec<_> = tools.names().collect();
        ErrorObject::invalid_params(format!(
            "Unknown tool: {name} (this server has: {})",
            known.join(", ")
        ))
    })?;
    let arguments = super::params::object("tools/call", params, "arguments")?;
    Ok((
        tool,
        arguments.unwrap_or_else(|| EMPTY.get_or_init(Arguments::new)),
    ))
}
