//! Notifications with rules: `notifications/cancelled` names a request its sender
//! sent, never `initialize` (MCP 2025-11-25 `basic/utilities/cancellation`), and
//! `notifications/progress` names a live token, its `progress` rising each time
//! (`basic/utilities/progress`). `notifications/initialized` moves the lifecycle on.

use super::super::rules;
use super::super::{Finding, Spot};
use super::{Phase, Scope, other};
use crate::wire::event::Dir;
use serde_json::Value;

impl Scope {
    /// A notification `from` one side.
    pub(super) fn notification(
        &mut self,
        from: Dir,
        method: &str,
        params: Option<&Value>,
        at: &Spot,
        out: &mut Vec<Finding>,
    ) {
        match method {
            "notifications/initialized"
                if from == Dir::ToServer && self.phase == Phase::Initialized =>
            {
                self.phase = Phase::Operating;
            }
            "notifications/cancelled" => {
                let Some(id) = params.and_then(|p| p.get("requestId")) else {
                    return;
                };
                let key = (from, id.to_string());
                if from == Dir::ToServer
                    && matches!(&self.phase, Phase::Initializing(init) if *init == key.1)
                {
                    out.push(at.finding(
                        rules::CANCEL_INITIALIZE,
                        format!("notifications/cancelled names initialize's id {id}"),
                    ));
                } else if self.from_start && !self.used.contains(&key) {
                    out.push(at.finding(
                        rules::CANCEL_UNKNOWN,
                        format!("notifications/cancelled names id {id}, which this side never sent a request with"),
                    ));
                }
                self.cancelled.insert(key);
            }
            "notifications/progress" => self.progress(from, params, at, out),
            _ => {}
        }
    }

    fn progress(&mut self, from: Dir, params: Option<&Value>, at: &Spot, out: &mut Vec<Finding>) {
        let Some(token) = params.and_then(|p| p.get("progressToken")) else {
            return;
        };
        let requester = other(from);
        let value = params
            .and_then(|p| p.get("progress"))
            .and_then(Value::as_f64);
        match self.tokens.get_mut(&(requester, token.to_string())) {
            None if self.from_start => out.push(at.finding(
                rules::PROGRESS_UNKNOWN_TOKEN,
                format!("progress token {token} was given by no request"),
            )),
            None => {}
            Some(t) => {
                if !t.active {
                    out.push(at.finding(
                        rules::PROGRESS_UNKNOWN_TOKEN,
                        format!("progress token {token}: its request was already answered"),
                    ));
                }
                if let (Some(last), Some(now)) = (t.last, value)
                    && now <= last
                {
                    out.push(at.finding(
                        rules::PROGRESS_NOT_INCREASING,
                        format!("progress {now} after {last} for token {token}"),
                    ));
                }
                t.last = value.or(t.last);
            }
        }
    }
}
