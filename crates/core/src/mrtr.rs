//! Multi Round-Trip Requests (MCP 2026-07-28 `basic/patterns/mrtr`): in the modern era
//! a server that needs the client (sampling, elicitation, roots) does not send it a
//! request; it answers `resultType: "input_required"` with `inputRequests`, and the
//! client retries the original request with `inputResponses` (and the opaque
//! `requestState` echoed). The server keeps no memory between the rounds: whatever
//! it must remember travels in `requestState`, sealed with an HMAC so a client cannot
//! forge or alter it. The key is [`super::state_key`]'s: per process, or a file every
//! replica shares.

use crate::jsonrpc::{ErrorObject, kind};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Map, Value, json};
use sha2::Sha256;

/// The largest `requestState` accepted back; anything longer is refused unread.
pub const MAX_STATE_BYTES: usize = 8 * 1024;

/// An `InputRequiredResult`: `requests` maps a key of the server's choosing to
/// `{method, params}`.
pub fn input_required(requests: Value, state: Option<String>) -> Value {
    let mut r = json!({ "resultType": "input_required", "inputRequests": requests });
    if let Some(s) = state {
        r["requestState"] = json!(s);
    }
    r
}

/// One input request: `{method, params}`.
pub fn request(method: &str, params: Value) -> Value {
    json!({ "method": method, "params": params })
}

/// `params.inputResponses`: `Ok(None)` when absent; `-32602` when present but not
/// an object (e.g. `null`).
pub fn responses(params: &Value) -> Result<Option<&Map<String, Value>>, ErrorObject> {
    match params.get("inputResponses") {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(other) => Err(ErrorObject::invalid_params(format!(
            "params.inputResponses must be an object keyed like the inputRequests, got {}",
            kind(other)
        ))),
    }
}

/// The client's answer under `key`, which must be an object (an `ElicitResult`,
/// `CreateMessageResult`, `ListRootsResult`).
pub fn answer<'a>(
    responses: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a Map<String, Value>>, ErrorObject> {
    match responses.get(key) {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(other) => Err(ErrorObject::invalid_params(format!(
            "params.inputResponses.{key} must be an object (the client's result), got {}",
            kind(other)
        ))),
    }
}

/// Seals `payload` into a `requestState`: Base64url(JSON) `.` Base64url(HMAC-SHA256).
pub fn seal(payload: &Value) -> String {
    let body = URL_SAFE_NO_PAD.encode(payload.to_string());
    let tag = URL_SAFE_NO_PAD.encode(mac(body.as_bytes()));
    format!("{body}.{tag}")
}

/// Opens a `requestState` from `params`: `Ok(None)` when absent; the payload when
/// intact; `-32602` when too long, malformed or not sealed with this process's key
/// (another replica's without a shared `--state-key-file`, or an earlier run's).
pub fn open(params: &Value) -> Result<Option<Value>, ErrorObject> {
    let state = match params.get("requestState") {
        None => return Ok(None),
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(ErrorObject::invalid_params(format!(
                "params.requestState must be the string the server sent, got {}",
                kind(other)
            )));
        }
    };
    let refuse = |why: &str| {
        ErrorObject::invalid_params(format!("requestState integrity check failed: {why}"))
    };
    if state.len() > MAX_STATE_BYTES {
        return Err(refuse(&format!("longer than {MAX_STATE_BYTES} bytes")));
    }
    let (body, tag) = state
        .split_once('.')
        .ok_or_else(|| refuse("not a sealed state"))?;
    let tag = URL_SAFE_NO_PAD
        .decode(tag)
        .map_err(|_| refuse("bad seal encoding"))?;
    let mut check = Hmac::<Sha256>::new_from_slice(secret()).map_err(|_| refuse("no key"))?;
    check.update(body.as_bytes());
    check.verify_slice(&tag).map_err(|_| {
        refuse(
            "the seal does not match (altered, forged, or sealed with another key: \
                 replicas must share one --state-key-file)",
        )
    })?;
    let json = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| refuse("bad body encoding"))?;
    serde_json::from_slice(&json)
        .map(Some)
        .map_err(|_| refuse("bad body"))
}

fn mac(data: &[u8]) -> Vec<u8> {
    let mut m = Hmac::<Sha256>::new_from_slice(secret()).expect("HMAC takes a key of any length");
    m.update(data);
    m.finalize().into_bytes().to_vec()
}

/// The process's sealing key (random, or the shared file's).
fn secret() -> &'static [u8] {
    super::state_key::current()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_state_opens_and_tampering_is_refused() {
        let s = seal(&json!({"step": 2, "name": "Alice"}));
        let p = json!({ "requestState": s });
        assert_eq!(open(&p).unwrap(), Some(json!({"step": 2, "name": "Alice"})));
        for bad in [
            format!("{s}-TAMPERED"),
            "x".into(),
            format!("e30.{}", s.split('.').nth(1).unwrap()),
            "a".repeat(MAX_STATE_BYTES + 1),
        ] {
            let e = open(&json!({ "requestState": bad })).unwrap_err();
            assert_eq!(e.code, -32602);
            assert!(e.message.contains("integrity"));
        }
        assert_eq!(open(&json!({})).unwrap(), None);
        assert!(open(&json!({"requestState": 5})).is_err());
    }

    #[test]
    fn responses_must_be_objects() {
        assert!(responses(&json!({"inputResponses": null})).is_err());
        let p = json!({"inputResponses": {"a": 1, "b": {"x": 1}}});
        let r = responses(&p).unwrap().unwrap();
        assert!(answer(r, "a").is_err());
        assert!(answer(r, "b").unwrap().is_some());
        assert!(answer(r, "c").unwrap().is_none());
    }
}
