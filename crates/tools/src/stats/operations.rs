//! 2026-07-28 operations: a request answered `resultType: "input_required"` is retried
//! by the client with the `requestState` that answer carried (MCP 2026-07-28
//! `basic/patterns/mrtr`), until a final answer. An operation's latency runs from its
//! first attempt to that final answer.
//!
//! A retry is linked to the round before it by the exact `requestState` string, and
//! only when the link is unique: a state issued by two answers, or echoed by two
//! retries, could join the wrong rounds, so such a link is refused (each round then
//! stands alone) and counted.

use super::ledger::{Call, Outcome};
use std::collections::HashMap;
use std::time::Duration;

/// One operation: its rounds' indices in the ledger's calls, first to last.
#[derive(Debug, Clone)]
pub struct Operation {
    /// The calls, in order.
    pub rounds: Vec<usize>,
    /// First attempt sent to final answer; `None` when the last round was never
    /// answered or still asks for input.
    pub latency: Option<Duration>,
}

/// The operations among `calls` (only those with more than one round, or ending
/// after one), and how many links were refused as ambiguous.
pub fn link(calls: &[Call]) -> (Vec<Operation>, usize) {
    // Who issued each state, who echoed it.
    let mut issued: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut echoed: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, c) in calls.iter().enumerate() {
        if let Some(s) = &c.state_out {
            issued.entry(s).or_default().push(i);
        }
        if let Some(s) = &c.state_in {
            echoed.entry(s).or_default().push(i);
        }
    }
    let mut next: HashMap<usize, usize> = HashMap::new();
    let mut has_prev = vec![false; calls.len()];
    let mut ambiguous = 0;
    for (state, from) in &issued {
        let Some(to) = echoed.get(state) else {
            continue;
        };
        if from.len() != 1 || to.len() != 1 {
            ambiguous += 1;
            continue;
        }
        let (a, b) = (from[0], to[0]);
        // A retry comes after the answer that asked for it, with the same method.
        if calls[b].sent < calls[a].answered.unwrap_or(Duration::MAX)
            || calls[a].method != calls[b].method
        {
            ambiguous += 1;
            continue;
        }
        next.insert(a, b);
        has_prev[b] = true;
    }
    let mut ops = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        if has_prev[i] || !(c.modern && (c.state_out.is_some() || c.state_in.is_some())) {
            continue;
        }
        let mut rounds = vec![i];
        let mut at = i;
        while let Some(&n) = next.get(&at) {
            if rounds.contains(&n) {
                break;
            }
            rounds.push(n);
            at = n;
        }
        let last = &calls[at];
        let latency = match (&last.outcome, last.answered) {
            (Outcome::InputRequired | Outcome::Unanswered, _) | (_, None) => None,
            (_, Some(end)) => Some(end.saturating_sub(c.sent)),
        };
        ops.push(Operation { rounds, latency });
    }
    (ops, ambiguous)
}
