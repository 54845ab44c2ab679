//! A response: to a request still open (else answered twice, or to nothing: JSON-RPC
//! 2.0 §5), `initialize`'s result setting the version and the server's capabilities
//! (MCP 2025-11-25 `basic/lifecycle`), `ping`'s empty result (`basic/utilities/ping`),
//! and a 2026-07-28 result's `resultType` (`basic` "Result Responses") and the input
//! it may ask for.

use super::super::rules;
use super::super::{Finding, Spot};
use super::{Phase, Scope, other, short};
use crate::jsonrpc;
use crate::protocol::capabilities;
use crate::wire::event::Dir;
use serde_json::Value;

impl Scope {
    /// A response `from` one side: the request it answers closed.
    pub(super) fn response(
        &mut self,
        from: Dir,
        id: &Value,
        outcome: Result<Value, jsonrpc::ErrorObject>,
        at: &Spot,
        out: &mut Vec<Finding>,
    ) {
        if from == Dir::ToServer && self.modern && !self.legacy {
            out.push(at.finding(
                rules::MODERN_CLIENT_RESPONSE,
                format!("the client sent a response (id {id}) to a 2026-07-28 server"),
            ));
        }
        let key = (other(from), id.to_string());
        let Some(open) = self.open.remove(&key) else {
            if self.answered.contains(&key) {
                out.push(at.finding(
                    rules::ANSWERED_TWICE,
                    format!("a second response to id {id}"),
                ));
            } else if self.from_start && !self.cancelled.contains(&key) {
                out.push(at.finding(
                    rules::RESPONSE_TO_NOTHING,
                    format!("a response to id {id}, which the peer never used for a request"),
                ));
            }
            return;
        };
        self.answered.insert(key);
        if let Some(t) = &open.token
            && !open.task
            && let Some(token) = self.tokens.get_mut(&(other(from), t.clone()))
        {
            token.active = false;
        }
        let Ok(result) = outcome else {
            if open.method == "initialize" {
                self.phase = Phase::Start;
            }
            return;
        };
        match open.method.as_str() {
            "initialize" if !open.modern => {
                self.phase = Phase::Initialized;
                self.server_caps = result.get("capabilities").cloned();
                self.version = result
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            "ping" => {
                let extra: Vec<&String> = result
                    .as_object()
                    .map(|o| {
                        o.keys()
                            .filter(|k| !matches!(k.as_str(), "_meta" | "resultType"))
                            .collect()
                    })
                    .unwrap_or_default();
                if !result.is_object() || !extra.is_empty() {
                    out.push(at.finding(
                        rules::PING_RESULT,
                        format!("ping answered with {}", short(&result)),
                    ));
                }
            }
            _ => {}
        }
        if open.modern && from == Dir::ToClient {
            if result.get("resultType").is_none() {
                out.push(at.finding(
                    rules::MODERN_RESULT_TYPE,
                    format!("the result of {} (id {id}) has no resultType", open.method),
                ));
            }
            if let Err(e) = capabilities::check_input_requests(
                open.declared.as_ref().unwrap_or(&Value::Null),
                &result,
            ) {
                out.push(at.finding(rules::CLIENT_CAPABILITY, e.message));
            }
        }
    }
}
