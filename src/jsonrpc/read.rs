//! Bytes → the members of one message, in one pass. A JSON-RPC message has at most six
//! members that mean something (`jsonrpc`, `id`, `method`, `params`, `result`, `error`);
//! reading the top-level object straight into six slots, instead of into a
//! `serde_json::Map` that is then taken apart, saves a map (its table, an owned `String`
//! per key, a SipHash per insert and per lookup) on every message the server reads.
//! The JSON grammar is serde_json's either way: the same bytes are accepted and refused,
//! with the same `-32700` wording, whether they are read here or into a `Value`.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// The six members a JSON-RPC message may have, each as sent. A member named twice
/// keeps its last value, as reading the object into a map would.
#[derive(Debug, Default)]
pub struct Members {
    /// Must be the string `"2.0"` (JSON-RPC 2.0 §4).
    pub jsonrpc: Option<Value>,
    /// A request's or response's id; absent on a notification.
    pub id: Option<Value>,
    /// A request's or notification's method name.
    pub method: Option<Value>,
    /// A request's or notification's parameters.
    pub params: Option<Value>,
    /// A success response's result.
    pub result: Option<Value>,
    /// An error response's error object.
    pub error: Option<Value>,
}

impl Members {
    /// The members of an object already read into a map (a batch's items).
    pub fn from_map(mut obj: Map<String, Value>) -> Members {
        Members {
            jsonrpc: obj.remove("jsonrpc"),
            id: obj.remove("id"),
            method: obj.remove("method"),
            params: obj.remove("params"),
            result: obj.remove("result"),
            error: obj.remove("error"),
        }
    }
}

/// What the top level of a frame is. It lives for one frame, on the stack of the
/// read: its size does not matter, and boxing `Members` would cost an allocation.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Top {
    /// An object: a message, or something that claims to be one.
    Object(Members),
    /// An array: a batch, its items still plain values.
    Array(Vec<Value>),
    /// Anything else (a string, a number, …): never a message.
    Scalar(Value),
}

/// Reads one frame's top level; a syntax error is serde_json's, word for word.
pub fn top(bytes: &[u8]) -> Result<Top, serde_json::Error> {
    serde_json::from_slice(bytes)
}

impl<'de> Deserialize<'de> for Top {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Top, D::Error> {
        d.deserialize_any(TopVisitor)
    }
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        let mut m = Members::default();
        while let Some(name) = map.next_key::<Name>()? {
            let slot = match name {
                Name::Jsonrpc => &mut m.jsonrpc,
                Name::Id => &mut m.id,
                Name::Method => &mut m.method,
                Name::Params => &mut m.params,
                Name::Result => &mut m.result,
                Name::Error => &mut m.error,
                // Read as a value, not skipped: serde_json checks a skipped string's
                // escapes but not its UTF-8, and a message with invalid UTF-8 anywhere
                // is a parse error, as it would be read into a map.
                Name::Other => {
                    map.next_value::<Value>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(Top::Object(m))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Top, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Top::Array(items))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Top, E> {
        Ok(Top::Scalar(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Top, E> {
        Ok(Top::Scalar(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Top, E> {
        Ok(Top::Scalar(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Top, E> {
        Ok(Top::Scalar(v.into()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Top, E> {
        Ok(Top::Scalar(v.into()))
    }

    fn visit_unit<E>(self) -> Result<Top, E> {
        Ok(Top::Scalar(Value::Null))
    }
}

/// A member's name, matched without allocating (serde_json lends the key's bytes when
/// it has no escapes).
enum Name {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        struct NameVisitor;
        impl Visitor<'_> for NameVisitor {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Name, E> {
                Ok(match v {
                    "jsonrpc" => Name::Jsonrpc,
                    "id" => Name::Id,
                    "method" => Name::Method,
                    "params" => Name::Params,
                    "result" => Name::Result,
                    "error" => Name::Error,
                    _ => Name::Other,
                })
            }
        }
        d.deserialize_identifier(NameVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The one-pass reader and a read into a `Value` agree on every member, and on
    /// which bytes are JSON at all (with the same error text).
    #[test]
    fn reads_what_a_value_read_would() {
        let frames: &[&[u8]] = &[
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#,
            br#"{"id":"a","id":7,"extra":{"deep":[1,2,{"x":null}]},"result":{}}"#,
            br#"{"jsonrpc":"2.0","method":"x","params":[1],"error":{"code":1}}"#,
            br#"{"\u0069d":3,"jsonrpc":"2.0","method":"ping"}"#,
            br#"{}"#,
        ];
        for frame in frames {
            let Ok(Top::Object(m)) = top(frame) else {
                panic!("not an object: {}", String::from_utf8_lossy(frame))
            };
            let Value::Object(map) = serde_json::from_slice::<Value>(frame).unwrap() else {
                unreachable!()
            };
            let want = Members::from_map(map);
            assert_eq!(format!("{m:?}"), format!("{want:?}"));
        }
        let bad: &[&[u8]] = &[
            b"{\"jsonrpc\":\"2.0\",\"x\":\"\xff\"}",
            b"{\"id\":1,}",
            b"{\"id\":1} trailing",
            b"",
            b"[1,",
        ];
        // Nested past serde_json's recursion limit (128), inside a member.
        let deep = format!("{{\"params\":{}{}}}", "[".repeat(200), "]".repeat(200));
        for frame in bad.iter().copied().chain([deep.as_bytes()]) {
            let want = serde_json::from_slice::<Value>(frame)
                .unwrap_err()
                .to_string();
            let got = top(frame).unwrap_err().to_string();
            assert_eq!(got, want, "{}", String::from_utf8_lossy(frame));
        }
    }

    #[test]
    fn arrays_and_scalars_are_told_apart() {
        assert!(
            matches!(top(b"[1,{}]"), Ok(Top::Array(items)) if items == vec![json!(1), json!({})])
        );
        for (frame, want) in [
            ("3", json!(3)),
            ("-1", json!(-1)),
            ("1.5", json!(1.5)),
            ("\"s\"", json!("s")),
            ("true", json!(true)),
            ("null", Value::Null),
        ] {
            assert!(
                matches!(top(frame.as_bytes()), Ok(Top::Scalar(v)) if v == want),
                "{frame}"
            );
        }
    }
}
