//! A request, from either side: its id never reused while it is open nor, in a legacy
//! session, ever (MCP 2025-11-25 and 2026-07-28 `basic` "Requests"); a legacy
//! client's requests wait for the lifecycle (2025-11-25 `basic/lifecycle`
//! "Initialization": `initialize`, its result, `notifications/initialized`) and ask
//! only what the server declared; the server's ask only what the client declared,
//! and none in 2026-07-28.

use super::super::rules;
use super::super::{Finding, Spot};
use super::{Open, Phase, Scope, Token};
use crate::protocol::capabilities;
use crate::wire::event::Dir;
use serde_json::Value;

impl Scope {
    /// A request `from` one side: its id checked, then remembered until answered.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn request(
        &mut self,
        from: Dir,
        id: &Value,
        method: &str,
        params: Option<&Value>,
        modern: bool,
        at: &Spot,
        out: &mut Vec<Finding>,
    ) {
        let key = (from, id.to_string());
        if let Some(earlier) = self.open.get(&key) {
            out.push(at.finding(
                rules::DUPLICATE_ID,
                format!(
                    "request {method} reuses id {id}, and request {} ({}) with that id is still unanswered",
                    earlier.method, earlier.at
                ),
            ));
        } else if !modern && self.used.contains(&key) {
            out.push(at.finding(
                rules::DUPLICATE_ID,
                format!("request {method} reuses id {id}, used before in this session"),
            ));
        }
        self.modern |= modern;
        match from {
            Dir::ToServer if !modern => self.client_request(id, method, params, at, out),
            Dir::ToServer => {}
            Dir::ToClient => self.server_request(method, at, out),
        }
        let meta = params.and_then(|p| p.get("_meta"));
        let token = meta
            .and_then(|m| m.get("progressToken"))
            .map(Value::to_string);
        let task = params
            .and_then(|p| p.get("task"))
            .is_some_and(Value::is_object);
        if let Some(t) = &token {
            self.tokens.insert(
                (from, t.clone()),
                Token {
                    active: true,
                    last: None,
                },
            );
        }
        let declared = meta
            .and_then(|m| m.get(capabilities::CLIENT_CAPABILITIES))
            .cloned();
        self.used.insert(key.clone());
        self.open.insert(
            key,
            Open {
                method: method.to_owned(),
                at: at.clone(),
                token,
                task,
                modern,
                declared,
            },
        );
    }

    /// A legacy client's request: the lifecycle, then what the server declared.
    fn client_request(
        &mut self,
        id: &Value,
        method: &str,
        params: Option<&Value>,
        at: &Spot,
        out: &mut Vec<Finding>,
    ) {
        if method == "initialize" {
            self.legacy = true;
            self.phase = Phase::Initializing(id.to_string());
            self.client_caps = params.and_then(|p| p.get("capabilities")).cloned();
            return;
        }
        if method == "ping" || !self.from_start {
            return;
        }
        match self.phase {
            Phase::Start => self.once(
                rules::FIRST_NOT_INITIALIZE,
                at,
                format!("request {method} before any initialize"),
                out,
            ),
            Phase::Initializing(_) => out.push(at.finding(
                rules::BEFORE_INITIALIZE_RESULT,
                format!("request {method} while initialize is unanswered"),
            )),
            Phase::Initialized => self.once(
                rules::INITIALIZED_MISSING,
                at,
                format!("request {method} before notifications/initialized"),
                out,
            ),
            Phase::Operating => {}
        }
        if let (Some(caps), Some((capability, sub))) = (
            &self.server_caps,
            capabilities::server_capability_for(method),
        ) {
            let slot = caps.get(capability);
            let missing = match sub {
                None => !slot.is_some_and(Value::is_object),
                Some(sub) => slot.and_then(|s| s.get(sub)) != Some(&Value::Bool(true)),
            };
            if missing {
                let name = sub.map_or(capability.to_owned(), |s| format!("{capability}.{s}"));
                out.push(at.finding(
                    rules::SERVER_CAPABILITY,
                    format!("request {method}, but the server's initialize result declared no {name} capability"),
                ));
            }
        }
    }

    /// A request from the server: forbidden in 2026-07-28; else the lifecycle and what
    /// the client declared.
    fn server_request(&mut self, method: &str, at: &Spot, out: &mut Vec<Finding>) {
        if self.modern && !self.legacy {
            out.push(at.finding(
                rules::MODERN_SERVER_REQUEST,
                format!("the server sent request {method} to a 2026-07-28 client"),
            ));
            return;
        }
        if !self.from_start || method == "ping" {
            return;
        }
        if self.phase != Phase::Operating {
            out.push(at.finding(
                rules::SERVER_REQUEST_BEFORE_INITIALIZED,
                format!("request {method} before notifications/initialized"),
            ));
        }
        if let Some(caps) = &self.client_caps
            && let Err(e) = capabilities::may_ask(caps, method)
        {
            out.push(at.finding(rules::CLIENT_CAPABILITY, e.message));
        }
    }
}
