//! `load --mix-from FILE`: the mix a recorded session made. The requests the client
//! sent in the recording (the stats ledger pairs them, [`Ledger::read`]), each kind
//! (method and params; for `tools/call`, the tool and its arguments) weighted by how
//! often it was sent. Left out: what a load client does on its own (`initialize`,
//! `server/discover`, `logging/setLevel`, `subscriptions/listen`, following a task
//! with `tasks/*`), what is not a client's request (notifications, responses, the
//! server's requests), and the later rounds of a 2026-07-28 operation (a call echoing
//! `requestState` or carrying `inputResponses`: `basic/patterns/mrtr`, one operation,
//! counted once). `_meta` is dropped from params: each load client writes its own
//! (2026-07-28 puts the protocol version and capabilities there).

use super::mix::Call;
use crate::stats::ledger::Ledger;
use crate::wire::decode::{Decoder, Fact};
use crate::wire::event::{Dir, Event};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Methods a load client sends by itself, or that only follow another request: never
/// taken from a recording.
pub const LEFT_OUT: &[&str] = &[
    "initialize",
    "server/discover",
    "logging/setLevel",
    "subscriptions/listen",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/update",
    "tasks/cancel",
];

/// The mix of the client's requests in `events`, in the order each kind was first
/// sent; an error saying what was found when no request is usable.
pub fn mix_from(events: &[Event], max: usize) -> Result<Vec<Call>, String> {
    let ledger = Ledger::read(events, max);
    let sent = client_params(events, max);
    let mut calls: Vec<Call> = Vec::new();
    let mut index: HashMap<(String, Option<String>, String), usize> = HashMap::new();
    let mut skipped = 0usize;
    for call in &ledger.calls {
        if call.from != Dir::ToServer {
            continue;
        }
        if LEFT_OUT.contains(&call.method.as_str()) || call.state_in.is_some() {
            skipped += 1;
            continue;
        }
        // The ledger keeps params for some methods only (`ledger::KEEP`); the rest
        // come from the same message read again, found by its event and method.
        let params = call
            .params
            .clone()
            .or_else(|| sent.get(&(call.event, call.method.clone())).cloned())
            .unwrap_or_else(|| Value::Object(Map::new()));
        if params.get("inputResponses").is_some() {
            skipped += 1;
            continue;
        }
        let (tool, params) = match call.method.as_str() {
            "tools/call" => {
                let Some(name) = call.tool.clone() else {
                    skipped += 1;
                    continue;
                };
                let arguments = params
                    .get("arguments")
                    .filter(|a| a.is_object())
                    .cloned()
                    .unwrap_or_else(|| Value::Object(Map::new()));
                (Some(name), arguments)
            }
            _ => (None, without_meta(params)),
        };
        let key = (call.method.clone(), tool.clone(), params.to_string());
        match index.get(&key) {
            Some(&i) => calls[i].weight = calls[i].weight.saturating_add(1),
            None => {
                index.insert(key, calls.len());
                calls.push(Call {
                    method: call.method.clone(),
                    tool,
                    params,
                    weight: 1,
                });
            }
        }
    }
    if calls.is_empty() {
        let client = ledger
            .calls
            .iter()
            .filter(|c| c.from == Dir::ToServer)
            .count();
        return Err(format!(
            "no request to replay: {} events, {client} requests from the client, {skipped} of them left out (initialize, server/discover, logging/setLevel, subscriptions/listen, tasks/*, later rounds of an operation)",
            ledger.events
        ));
    }
    Ok(calls)
}

/// params without `_meta` (a non-object params is kept as it is).
fn without_meta(mut params: Value) -> Value {
    if let Some(map) = params.as_object_mut() {
        map.remove("_meta");
    }
    params
}

/// Every request the client sent, its params by (event number from 1, method): the
/// same framing the ledger reads, so the numbers match its `Call::event`.
fn client_params(events: &[Event], max: usize) -> HashMap<(usize, String), Value> {
    let mut decoder = Decoder::with_max(max);
    let mut out = HashMap::new();
    for (n, e) in events.iter().enumerate() {
        for fact in decoder.feed(e) {
            let Fact::Payload { bytes, class, .. } = fact else {
                continue;
            };
            if e.dir != Dir::ToServer || !class.is_message() {
                continue;
            }
            let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
                continue;
            };
            let items = match value {
                Value::Array(items) => items,
                one => vec![one],
            };
            for item in items {
                if let (Some(method), Some(params)) = (
                    item.get("method").and_then(Value::as_str),
                    item.get("params"),
                ) {
                    out.entry((n + 1, method.to_owned()))
                        .or_insert_with(|| params.clone());
                }
            }
        }
    }
    out
}
