//! What the fuzz targets assert about messages, in one place: the wire form of a
//! response, and a message's round trip through `jsonrpc::parse`.

use mcp_raw_wire::jsonrpc::{self, Message, Parsed, Response};
use serde_json::{Value, json};

/// Are two JSON values the same, up to the last bits of a float? (serde_json's
/// default float parser may be one ulp off, so a float need not survive a round trip
/// bit for bit; integers must.)
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                return x == y;
            }
            if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                return x == y;
            }
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The JSON a message is on the wire.
pub fn to_json(m: &Message) -> Value {
    match m {
        Message::Request(r) => {
            let mut v = json!({"jsonrpc": "2.0", "id": r.id, "method": r.method});
            if let Some(p) = &r.params {
                v["params"] = Value::clone(p);
            }
            v
        }
        Message::Notification(n) => {
            let mut v = json!({"jsonrpc": "2.0", "method": n.method});
            if let Some(p) = &n.params {
                v["params"] = Value::clone(p);
            }
            v
        }
        Message::Response(r) => serde_json::from_slice(&r.to_bytes()).expect("to_bytes is JSON"),
    }
}

/// A message the parser accepted: its parts are what the rules allow, and its JSON
/// parses back to the same message.
pub fn check_message(m: &Message) {
    match m {
        Message::Request(r) => {
            let id = serde_json::to_value(&r.id).unwrap();
            assert!(id.is_string() || id.is_i64() || id.is_u64(), "id {id}");
            assert!(r.params.as_deref().is_none_or(Value::is_object));
        }
        Message::Notification(n) => {
            assert!(n.params.as_deref().is_none_or(Value::is_object));
        }
        // An error response without an `id` member is accepted and goes out as
        // `"id": null`, which parses back too (fuzz/regressions/jsonrpc-error-without-id).
        Message::Response(r) => check_response(r),
    }
    let wire = serde_json::to_vec(&to_json(m)).unwrap();
    match jsonrpc::parse(&wire) {
        Ok(Parsed::One(back)) => assert!(
            same(&to_json(&back), &to_json(m)),
            "round trip changed the message: {m:?} -> {back:?}"
        ),
        other => panic!(
            "{m:?} serialized as {} and re-parsed as {other:?}",
            show(&wire)
        ),
    }
}

/// A response: `to_bytes` is one JSON object, `jsonrpc: "2.0"`, an `id`, and exactly
/// one of `result` / `error` (an error with an integer code and a string message).
/// It parses back as the same response, with or without an id (`"id": null` is the
/// answer to a message whose id could not be read, JSON-RPC 2.0 §5).
pub fn check_response(r: &Response) {
    let bytes = r.to_bytes();
    let v: Value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("to_bytes is not JSON ({e}): {}", show(&bytes)));
    let obj = v.as_object().expect("a response is an object");
    assert_eq!(obj.get("jsonrpc"), Some(&json!("2.0")));
    let id = obj.get("id").expect("a response always has an id member");
    match &r.id {
        None => assert!(id.is_null()),
        Some(_) => assert!(id.is_string() || id.is_i64() || id.is_u64(), "id {id}"),
    }
    assert_eq!(obj.len(), 3, "jsonrpc, id and one of result/error: {v}");
    match &r.outcome {
        Ok(_) => assert!(obj.contains_key("result")),
        Err(_) => {
            let e = obj.get("error").expect("an error member");
            assert!(e["code"].is_i64(), "code: {e}");
            assert!(e["message"].is_string(), "message: {e}");
        }
    }
    match jsonrpc::parse(&bytes) {
        Ok(Parsed::One(Message::Response(back))) => assert!(
            same(&to_json(&Message::Response(back.clone())), &v),
            "response changed in a round trip: {r:?} -> {back:?}"
        ),
        other => panic!("{} re-parsed as {other:?}", show(&bytes)),
    }
}

/// An error response the parser returned for bytes it refused: `-32700` (not JSON)
/// or `-32600` (not a JSON-RPC message), and a valid response on the wire.
pub fn check_refusal(r: &Response) {
    let code = r
        .outcome
        .as_ref()
        .err()
        .expect("a refusal is an error")
        .code;
    assert!(
        code == jsonrpc::code::PARSE_ERROR || code == jsonrpc::code::INVALID_REQUEST,
        "refusal code {code}"
    );
    check_response(r);
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
