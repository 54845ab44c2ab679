//! What `check` finds, as the page shows it: each finding of the same [`Checker`]
//! `mcp-raw check` runs, tied to the event it was found at, so an opened row lists
//! the rules its bytes broke and "findings only" keeps the rows that broke one.
//!
//! A finding's fields: `event` (the event's position, from 0: the `n` of the rows it
//! concerns), `rule` (`area/what`), `severity` (`error`, `warning`), `spec` (where the
//! rule is written), `text` (the rule in a line) and `message` (what was wrong there,
//! quoting the wire).

use crate::check::{Checker, Finding};
use crate::wire::event::Event;
use serde_json::{Value, json};

/// One finding as the page reads it.
pub fn json(f: &Finding) -> Value {
    json!({
        // Spot::event counts from 1 (as `check` prints it); the rows count from 0.
        "event": f.at.event.saturating_sub(1),
        "rule": f.rule.id,
        "severity": f.rule.severity.name(),
        "spec": f.rule.spec,
        "text": f.rule.text,
        "message": f.message,
    })
}

/// Every finding of a whole recording (what `check` would report), for the frozen
/// page of `show --html`.
pub fn of_recording(events: &[Event], max_message: usize) -> Vec<Value> {
    let mut checker = Checker::with_max(max_message);
    let mut out: Vec<Value> = events
        .iter()
        .flat_map(|e| checker.feed(e))
        .map(|f| json(&f))
        .collect();
    out.extend(checker.finish().iter().map(json));
    out
}
