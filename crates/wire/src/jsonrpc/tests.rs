//! The message layer's unit tests: every shape, every refusal and its code, ids
//! echoed byte for byte, and `parse` against serde_json's reading.

use super::*;
use serde_json::json;

/// Lifting `params._meta` out while reading changes nothing else: the same bytes
/// are refused with the same error, and an accepted message is the plain read's,
/// its `params` without `_meta` (every other member in its place), its `_meta`
/// the plain read's `params._meta`.
#[test]
fn lifting_meta_changes_nothing_else() {
    let frames: &[&[u8]] = &[
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"a":{"b":[1,2]}},"arguments":{"m":"x"}}}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":1,"x":2,"_meta":{"k":"last"}}}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"k":1}},"params":{"y":3}}"#,
        br#"{"jsonrpc":"2.0","method":"n","params":{"_meta":"escaped name","z":null}}"#,
        br#"{"jsonrpc":"2.0","id":"s","method":"m","params":{"_meta":[1,{"_meta":2}]}}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":[{"_meta":{}}]}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":"_meta"}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m"}"#,
        br#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"r":1}},"params":{"_meta":{}}}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"x":1e400}}}"#,
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"x\":\"\xff\"}}}",
        br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"x":1,}}}"#,
        br#"[{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{}}}]"#,
        br#"7"#,
    ];
    for frame in frames {
        let shown = String::from_utf8_lossy(frame);
        match (parse(frame), parse_lifting::<Value>(frame)) {
            (Err(plain), Err(lifted)) => {
                assert_eq!(plain.to_bytes(), lifted.to_bytes(), "{shown}")
            }
            (Ok(Parsed::Batch(plain)), Ok(Lifted::Batch(lifted))) => {
                assert_eq!(plain, lifted, "{shown}")
            }
            (Ok(Parsed::One(plain)), Ok(Lifted::One(lifted, meta))) => {
                let mut want = plain.clone();
                let mut want_meta = None;
                if let Message::Request(Request { params, .. })
                | Message::Notification(Notification { params, .. }) = &mut want
                    && let Some(p) = params.take()
                {
                    let mut p = p.into_value();
                    if let Value::Object(m) = &mut p {
                        want_meta = m.shift_remove("_meta");
                    }
                    *params = Some(p.into());
                }
                assert_eq!(lifted, want, "{shown}");
                if !matches!(plain, Message::Response(_)) {
                    assert_eq!(meta, want_meta, "{shown}");
                }
            }
            (plain, lifted) => panic!("{shown}: {plain:?} against {lifted:?}"),
        }
    }
}

fn one(s: &str) -> Result<Message, Response> {
    match parse(s.as_bytes()) {
        Ok(Parsed::One(m)) => Ok(m),
        Ok(Parsed::Batch(_)) => panic!("unexpected batch"),
        Err(e) => Err(e),
    }
}

fn err_code(r: &Response) -> i64 {
    r.outcome.as_ref().unwrap_err().code
}

/// `params` read in place answers `get` as its value would: `_meta` gone once
/// lifted (and there otherwise), the last of a repeated member, escaped names
/// found; and it is built into that value only when asked.
#[test]
fn params_read_in_place_answer_as_their_value() {
    let frame = br#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"_meta":{"progressToken":7},"\u0062":"x","a":[2]}}"#;
    let Ok(Lifted::One(Message::Request(lifted), meta)) = parse_lifting::<Value>(frame) else {
        panic!("not a request")
    };
    let Ok(Parsed::One(Message::Request(plain))) = parse(frame) else {
        panic!("not a request")
    };
    let (Some(lifted), Some(plain)) = (lifted.params, plain.params) else {
        panic!("no params")
    };
    assert!(matches!(lifted, Params::Sent(_)) && matches!(plain, Params::Sent(_)));
    assert_eq!(meta, Some(serde_json::json!({"progressToken": 7})));
    assert!(lifted.get("_meta").is_none());
    assert_eq!(plain.get("_meta").map(|f| f.to_value().into_owned()), meta);
    for params in [&lifted, &plain] {
        assert_eq!(
            params.get("a").map(|f| f.to_string()).as_deref(),
            Some("[2]")
        );
        assert_eq!(
            params.get("b").and_then(|f| f.as_str()).as_deref(),
            Some("x")
        );
        assert!(params.get("c").is_none());
    }
    assert_eq!(*lifted, serde_json::json!({"a": [2], "b": "x"}));
    assert_eq!(
        *plain,
        serde_json::json!({"a": [2], "_meta": {"progressToken": 7}, "b": "x"})
    );
}

#[test]
fn request_has_an_id() {
    let m = one(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#).unwrap();
    assert_eq!(
        m,
        Message::Request(Request {
            id: 1.into(),
            method: "tools/list".into(),
            params: Some(json!({}).into())
        })
    );
}

#[test]
fn string_and_integer_ids_are_kept_apart() {
    let Message::Request(a) = one(r#"{"jsonrpc":"2.0","id":"1","method":"m"}"#).unwrap() else {
        panic!()
    };
    assert_eq!(a.id, RequestId(json!("1")));
    assert_ne!(a.id, 1.into());
}

#[test]
fn notification_has_no_id_and_absent_params_stay_absent() {
    let m = one(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
    assert_eq!(
        m,
        Message::Notification(Notification {
            method: "notifications/initialized".into(),
            params: None
        })
    );
}

#[test]
fn responses_from_the_peer_are_messages() {
    let ok = one(r#"{"jsonrpc":"2.0","id":5,"result":{}}"#).unwrap();
    assert_eq!(
        ok,
        Message::Response(Response::success(5.into(), json!({})))
    );
    let e = one(r#"{"jsonrpc":"2.0","id":5,"error":{"code":-1,"message":"no"}}"#).unwrap();
    assert!(matches!(
        e,
        Message::Response(Response {
            outcome: Err(_),
            ..
        })
    ));
}

#[test]
fn malformed_json_is_a_parse_error_with_null_id() {
    let e = one("{not json").unwrap_err();
    assert_eq!(err_code(&e), code::PARSE_ERROR);
    assert_eq!(e.id, None);
    let wire: Value = serde_json::from_slice(&e.to_bytes()).unwrap();
    assert_eq!(wire["id"], Value::Null);
    assert_eq!(wire["error"]["code"], -32700);
}

#[test]
fn invalid_requests_keep_the_id_when_readable() {
    let e = one(r#"{"jsonrpc":"1.0","id":9,"method":"x"}"#).unwrap_err();
    assert_eq!(err_code(&e), code::INVALID_REQUEST);
    assert_eq!(e.id, Some(9.into()));
    assert!(e.outcome.as_ref().unwrap_err().message.contains("\"2.0\""));

    let e = one(r#"{"jsonrpc":"2.0","id":3,"method":42}"#).unwrap_err();
    assert_eq!(
        (err_code(&e), e.id),
        (code::INVALID_REQUEST, Some(3.into()))
    );

    let e = one(r#"{"jsonrpc":"2.0","id":3,"method":"x","params":"s"}"#).unwrap_err();
    assert_eq!(err_code(&e), code::INVALID_REQUEST);
}

#[test]
fn an_error_response_may_carry_a_null_id() {
    let bytes = Response::error(None, ErrorObject::new(code::PARSE_ERROR, "x")).to_bytes();
    match one(std::str::from_utf8(&bytes).unwrap()).unwrap() {
        Message::Response(r) => assert_eq!(r.id, None),
        other => panic!("{other:?}"),
    }
    // ... but no request, notification or success may.
    for s in [
        r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"x","error":{"code":1,"message":"m"}}"#,
    ] {
        assert_eq!(err_code(&one(s).unwrap_err()), code::INVALID_REQUEST, "{s}");
    }
}

#[test]
fn a_method_with_a_result_or_error_is_no_message() {
    for s in [
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized","result":{}}"#,
    ] {
        let e = one(s).unwrap_err();
        assert_eq!(err_code(&e), code::INVALID_REQUEST, "{s}");
        assert!(e.outcome.unwrap_err().message.contains("not both"), "{s}");
    }
}

#[test]
fn params_are_an_object_or_absent() {
    for (s, shown) in [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#,
            "an array []",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}"#,
            "null null",
        ),
        (r#"{"jsonrpc":"2.0","method":"n","params":7}"#, "a number 7"),
    ] {
        let e = one(s).unwrap_err();
        assert_eq!(err_code(&e), code::INVALID_REQUEST, "{s}");
        let message = e.outcome.unwrap_err().message;
        assert!(message.contains(shown), "{s}: {message}");
    }
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":["{}"]}}"#,
        "é".repeat(100)
    );
    let message = one(&long).unwrap_err().outcome.unwrap_err().message;
    assert!(message.len() < 200 && message.ends_with('…'), "{message}");
    assert!(one(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#).is_ok());
}

#[test]
fn null_and_fractional_ids_are_refused() {
    for s in [
        r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#,
        r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
    ] {
        let e = one(s).unwrap_err();
        assert_eq!(
            (err_code(&e), e.id.clone()),
            (code::INVALID_REQUEST, None),
            "{s}"
        );
    }
}

#[test]
fn non_objects_and_empty_objects_are_invalid() {
    assert_eq!(err_code(&one("42").unwrap_err()), code::INVALID_REQUEST);
    assert_eq!(
        err_code(&one(r#"{"jsonrpc":"2.0"}"#).unwrap_err()),
        code::INVALID_REQUEST
    );
    assert_eq!(
        err_code(&one(r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{}}"#).unwrap_err()),
        code::INVALID_REQUEST
    );
}

#[test]
fn arrays_are_batches() {
    assert!(matches!(parse(b"[1,2]"), Ok(Parsed::Batch(v)) if v.len() == 2));
}

#[test]
fn responses_serialize_in_wire_order() {
    let r = Response::success(1.into(), json!({"tools": []}));
    assert_eq!(
        r.to_bytes(),
        br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#
    );
    let e = Response::error(
        Some("a".to_owned().into_id()),
        ErrorObject::new(-32601, "Method not found: bogus"),
    );
    assert_eq!(
        e.to_bytes(),
        br#"{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"Method not found: bogus"}}"#
    );
}

/// Ids are written as they were read, integers of every size and sign and strings
/// with escapes; a response with no id says `null`.
#[test]
fn ids_are_written_as_sent() {
    for id in [
        "0",
        "7",
        "-1",
        "18446744073709551615",
        "-9223372036854775808",
        r#""abc""#,
        r#""a\"b\u0000""#,
    ] {
        let value: Value = serde_json::from_str(id).unwrap();
        let rid = RequestId::from_value(&value).unwrap();
        let mut out = Vec::new();
        rid.write_json(&mut out).unwrap();
        assert_eq!(out, serde_json::to_vec(&value).unwrap(), "{id}");
        let line = Response::success(rid, json!({})).to_bytes();
        assert_eq!(
            line,
            format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, value).into_bytes()
        );
    }
    let refused = Response::error(None, ErrorObject::new(-32700, "Parse error"));
    assert_eq!(
        refused.to_bytes(),
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
    );
}

/// A member found by comparing names is the one the map's hashed lookup finds,
/// in small objects and large, present or absent; anything not an object has none.
#[test]
fn members_are_found_as_by_the_map() {
    let mut large = Map::new();
    for i in 0..20 {
        large.insert(format!("k{i}"), json!(i));
    }
    for obj in [
        json!({}),
        json!({"name": "echo", "arguments": {}}),
        Value::Object(large),
    ] {
        let map = obj.as_object().unwrap();
        for key in ["name", "arguments", "k0", "k19", "k20", "", "nam"] {
            assert_eq!(member(&obj, key), map.get(key), "{key} in {obj}");
        }
    }
    assert_eq!(member(&json!([1]), "0"), None);
    assert_eq!(member(&json!("s"), "s"), None);
}

trait IntoId {
    fn into_id(self) -> RequestId;
}
impl IntoId for String {
    fn into_id(self) -> RequestId {
        RequestId(Value::String(self))
    }
}
