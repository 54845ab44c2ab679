//! Request dispatch in a legacy session: the method table, gated by the lifecycle
//! phase (MCP 2025-11-25 `basic/lifecycle` "Operation").

use super::{Phase, Server, lifecycle, tools};
use crate::jsonrpc::{ErrorObject, Request, Response, code};
use serde_json::Value;

pub fn handle(server: &Server, phase: &mut Phase, request: Request) -> Response {
    let Request { id, method, params } = request;
    let params = params.as_ref();
    let outcome = match (method.as_str(), *phase) {
        ("initialize", _) => lifecycle::initialize(server, phase, params),
        ("ping", _) => Ok(Value::Object(Default::default())),
        (_, Phase::AwaitingInitialize | Phase::Initializing { .. }) => {
            Err(lifecycle::not_initialized(&method, *phase))
        }
        ("tools/list", Phase::Ready { .. }) => Ok(tools::list(&server.tools)),
        ("tools/call", Phase::Ready { .. }) => tools::call(&server.tools, params),
        (other, Phase::Ready { .. }) => Err(ErrorObject::new(
            code::METHOD_NOT_FOUND,
            format!("Method not found: {other}"),
        )),
    };
    Response {
        id: Some(id),
        outcome,
    }
}
