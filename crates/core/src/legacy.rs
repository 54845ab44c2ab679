//! Request dispatch in a legacy session: the method table, gated by the lifecycle
//! phase (MCP 2025-11-25 `basic/lifecycle` "Operation").

use super::context::{Env, Outcome};
use super::context::{Pending, Reply, log_rank};
use super::meta::Meta;
use super::{Phase, Session, lifecycle, methods, resources};
use crate::jsonrpc::{ErrorObject, Payload, Request, Response, code, kind};
use serde_json::{Value, json};

impl Session {
    /// Serves one request of this session.
    pub(super) fn legacy_request(&mut self, request: Request, meta: &Meta) -> Reply {
        let Request { id, method, params } = request;
        // Built into a `Value` only by the methods below that want one: `tools/call`
        // reads its two members where they lie.
        let sent = params.as_ref();
        let params = || sent.map(|p| &**p);
        let outcome = match (method.as_str(), self.phase) {
            ("initialize", _) => {
                let params = params();
                let result = lifecycle::initialize(&self.server, &mut self.phase, params);
                if result.is_ok() {
                    self.client_capabilities = std::sync::Arc::new(
                        params
                            .and_then(|p| p.get("capabilities"))
                            .cloned()
                            .unwrap_or(json!({})),
                    );
                }
                result.map(Payload::from)
            }
            ("ping", _) => Ok(json!({}).into()),
            (_, Phase::AwaitingInitialize | Phase::Initializing { .. }) => {
                Err(lifecycle::not_initialized(&method, self.phase))
            }
            ("logging/setLevel", _) if self.server.features.logging => {
                set_level(&mut self.log_level, params()).map(Payload::from)
            }
            ("resources/subscribe", _) if self.server.features.list_changed => {
                // The field itself, not `legacy_parts()`: `self.server` is borrowed beside it.
                let parts = self.legacy.get_or_insert_with(Default::default);
                resources::subscribe(&self.server.resources, &parts.filter, params())
                    .map(Payload::from)
            }
            ("resources/unsubscribe", _) if self.server.features.list_changed => {
                resources::unsubscribe(&self.legacy_parts().filter, params()).map(Payload::from)
            }
            (other, _) => {
                // The field itself, not `legacy_parts()`: the server is lent beside it.
                let parts = self.legacy.get_or_insert_with(Default::default);
                let env = Env {
                    peer: Some(&parts.peer),
                    progress_token: meta.progress_token(),
                    log_level: self.log_level,
                    client_capabilities: &self.client_capabilities,
                    modern: false,
                    hub: &self.server.hub,
                    // The extension is not defined before 2026-07-28 (SEP-2663
                    // "Backward Compatibility").
                    tasks: None,
                };
                match methods::shared(&self.server, other, sent, env) {
                    Some(Outcome::Now(result)) => result,
                    Some(Outcome::Later(future, outbox)) => {
                        return methods::later(&method, Pending::new(id, outbox, future));
                    }
                    None => Err(ErrorObject::new(
                        code::METHOD_NOT_FOUND,
                        format!("Method not found: {other}"),
                    )),
                }
            }
        };
        methods::now(
            &method,
            Response {
                id: Some(id),
                outcome,
                dress: None,
            },
        )
    }
}

/// `logging/setLevel {level}`: the least severe level this session wants to hear
/// (`server/utilities/logging`). The result is exactly `{}`.
fn set_level(current: &mut Option<usize>, params: Option<&Value>) -> Result<Value, ErrorObject> {
    let level = params.and_then(|p| p.get("level"));
    match level {
        Some(Value::String(l)) => match log_rank(l) {
            Some(rank) => {
                *current = Some(rank);
                Ok(json!({}))
            }
            None => Err(ErrorObject::invalid_params(format!(
                "logging/setLevel: unknown level {l:?}; one of {}",
                super::context::LOG_LEVELS.join(", ")
            ))),
        },
        Some(other) => Err(ErrorObject::invalid_params(format!(
            "logging/setLevel: params.level must be a string, got {}",
            kind(other)
        ))),
        None => Err(ErrorObject::invalid_params(
            "logging/setLevel: missing params.level",
        )),
    }
}
