// Over 500 lines: about 75 of them are its unit tests; the reader itself is one pass.
//! Bytes → the members of one message, in one pass. A JSON-RPC message has at most six
//! members that mean something (`jsonrpc`, `id`, `method`, `params`, `result`, `error`);
//! reading the top-level object straight into six slots, instead of into a
//! `serde_json::Map` that is then taken apart, saves a map (its table, an owned `String`
//! per key, a SipHash per insert and per lookup) on every message the server reads.
//! The JSON grammar is serde_json's either way: the same bytes are accepted and refused,
//! with the same `-32700` wording, whether they are read here or into a `Value`.

use super::raw::{Doc, Raw};
use super::spare::Tape;
use crate::jsonrpc::Lift;
use crate::jsonrpc::params::Params;
use serde::Deserialize;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
};
use serde_json::{Map, Value};
use std::fmt;
use std::marker::PhantomData;

/// The six members a JSON-RPC message may have, each as sent. A member named twice
/// keeps its last value, as reading the object into a map would. `M` is what
/// `params._meta` is read into when the read lifts it out of `params` ([`top`]).
#[derive(Debug)]
pub struct Members<M = Value> {
    /// Must be the string `"2.0"` (JSON-RPC 2.0 §4).
    pub jsonrpc: Option<Version>,
    /// A request's or response's id; absent on a notification.
    pub id: Option<Value>,
    /// A request's or notification's method name.
    pub method: Option<Value>,
    /// A request's or notification's parameters.
    pub params: Option<Params>,
    /// A success response's result.
    pub result: Option<Value>,
    /// An error response's error object.
    pub error: Option<Value>,
    /// `params._meta`, read typed, when the read lifted it out of `params` (then
    /// `params` holds every other member, as sent). `None`: not lifted, or absent.
    pub meta: Option<M>,
}

impl<M> Default for Members<M> {
    fn default() -> Self {
        Members {
            jsonrpc: None,
            id: None,
            method: None,
            params: None,
            result: None,
            error: None,
            meta: None,
        }
    }
}

impl Members {
    /// The members of an object already read into a map (a batch's items).
    pub fn from_map(mut obj: Map<String, Value>) -> Members {
        Members {
            jsonrpc: obj.remove("jsonrpc").map(Version::from),
            id: obj.remove("id"),
            method: obj.remove("method"),
            params: obj.remove("params").map(Params::Value),
            result: obj.remove("result"),
            error: obj.remove("error"),
            meta: None,
        }
    }
}

/// The `jsonrpc` member as sent: the one right value is told apart without keeping
/// it (every message carries it, and a `Value` of it is a `String` allocated and
/// freed each time); anything else is kept for the error that quotes it.
#[derive(Debug, PartialEq)]
pub enum Version {
    /// The string `"2.0"`.
    Two,
    /// Any other value.
    Other(Value),
}

impl From<Value> for Version {
    fn from(v: Value) -> Version {
        match v {
            Value::String(s) if s == "2.0" => Version::Two,
            other => Version::Other(other),
        }
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Version, D::Error> {
        struct VersionVisitor;
        impl<'de> Visitor<'de> for VersionVisitor {
            type Value = Version;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Version, E> {
                Ok(match v {
                    "2.0" => Version::Two,
                    other => Version::Other(other.into()),
                })
            }
            fn visit_bool<E>(self, v: bool) -> Result<Version, E> {
                Ok(Version::Other(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Version, E> {
                Ok(Version::Other(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Version, E> {
                Ok(Version::Other(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Version, E> {
                Ok(Version::Other(v.into()))
            }
            fn visit_unit<E>(self) -> Result<Version, E> {
                Ok(Version::Other(Value::Null))
            }
            // An object or array: read as a value, as a map read would (its errors,
            // UTF-8 and depth checks included).
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Version, A::Error> {
                Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Version::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Version, A::Error> {
                Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Version::Other)
            }
        }
        d.deserialize_any(VersionVisitor)
    }
}

/// What the top level of a frame is. An object's members are written into the
/// [`Members`] the caller holds, not returned: they are some 460 bytes, and each
/// move of them on the way out cost a `memcpy` of all of it (callgrind).
#[derive(Debug)]
pub enum Top {
    /// An object: a message, or something that claims to be one (its members are
    /// in the caller's [`Members`]).
    Object,
    /// An array: a batch, its items still plain values.
    Array(Vec<Value>),
    /// Anything else (a string, a number, …): never a message.
    Scalar(Value),
}

/// Reads one frame's top level; a syntax error is serde_json's, word for word. When
/// `lift`, `params._meta` is read into an `M` instead of into `params` (the same
/// bytes are accepted and refused either way). An object's members go into `m`,
/// which starts out empty.
pub fn top_with<M: Lift>(
    bytes: &[u8],
    lift: bool,
    m: &mut Members<M>,
) -> Result<Top, serde_json::Error> {
    // One UTF-8 check of the whole frame (word at a time over ASCII), then a read
    // that trusts it: reading from bytes checks every string on its own, ~90
    // instructions a string and twenty strings in a 2026-07-28 request (callgrind).
    // A frame that is not UTF-8 is read from its bytes, so it gets the error and
    // position serde_json gives it (RFC 8259 §8.1: JSON text is UTF-8).
    match std::str::from_utf8(bytes) {
        // JSON as serde_json would read it: read where it lies. A `_meta` its type
        // refuses is left to the slow read below, which words that error.
        Ok(text) => {
            let mut tape = Tape::take();
            let read = if super::check::scan(text, &mut tape) {
                in_place(text, tape, lift, m)
            } else {
                None
            };
            match read {
                Some(top) => Ok(top),
                None => {
                    // Whatever the read in place wrote before it gave up goes.
                    *m = Members::default();
                    read_all(serde_json::Deserializer::from_str(text), lift, m)
                }
            }
        }
        Err(_) => read_all(serde_json::Deserializer::from_slice(bytes), lift, m),
    }
}

/// The top level of a frame that passed the check, read where it lies: the six
/// members found by hopping along the `tape`; `params`, when an object, kept as the
/// frame's text and tape ([`Params::sent`]), so no map is built for it; `None` when
/// `_meta` does not read as an `M` (the slow read then words the error).
fn in_place<M: Lift>(text: &str, tape: Tape, lift: bool, m: &mut Members<M>) -> Option<Top> {
    let top = Raw::top(text, &tape);
    match top.text().as_bytes().first() {
        Some(b'{') => {}
        Some(b'[') => {
            // A batch: its items as values (legacy revisions only; not a hot path).
            return match top.to_value() {
                Value::Array(items) => Some(Top::Array(items)),
                _ => None,
            };
        }
        _ => return Some(Top::Scalar(top.to_value())),
    }
    // The tape index of the `params` object that counts (the last one sent).
    let mut params_at = None;
    for (name, value) in top.members() {
        // A name without escapes is compared as it lies (no `Cow` to build and drop).
        let unescaped;
        let key = match name.plain() {
            Some(key) => key,
            None => {
                unescaped = name.as_str();
                &*unescaped
            }
        };
        let slot = match key {
            "jsonrpc" => {
                m.jsonrpc = Some(match value.text() {
                    "\"2.0\"" => Version::Two,
                    _ => Version::from(value.to_value()),
                });
                continue;
            }
            "id" => &mut m.id,
            "method" => &mut m.method,
            "params" if value.is_object() => {
                let meta = if lift { value.get("_meta") } else { None };
                m.meta = match meta {
                    Some(meta) => Some(M::from_raw(meta)?),
                    None => None,
                };
                params_at = Some(value.index());
                continue;
            }
            "params" => {
                m.meta = None;
                params_at = None;
                m.params = Some(Params::Value(value.to_value()));
                continue;
            }
            "result" => &mut m.result,
            "error" => &mut m.error,
            _ => continue,
        };
        *slot = Some(value.to_value());
    }
    if let Some(at) = params_at {
        m.params = Some(Params::sent(Doc::keep(text, tape, at), lift));
    }
    Some(Top::Object)
}

/// Reads the one value of a frame, then insists nothing but whitespace follows.
fn read_all<'de, R: serde_json::de::Read<'de>, M: DeserializeOwned>(
    mut de: serde_json::Deserializer<R>,
    lift: bool,
    members: &mut Members<M>,
) -> Result<Top, serde_json::Error> {
    let top = de.deserialize_any(TopVisitor { lift, members })?;
    de.end()?;
    Ok(top)
}

struct TopVisitor<'m, M> {
    /// Read `params._meta` into an `M`.
    lift: bool,
    /// Where an object's members go.
    members: &'m mut Members<M>,
}

impl<'de, M: DeserializeOwned> Visitor<'de> for TopVisitor<'_, M> {
    type Value = Top;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top, A::Error> {
        let m = self.members;
        while let Some(name) = map.next_key::<Name>()? {
            let slot = match name {
                Name::Jsonrpc => {
                    m.jsonrpc = Some(map.next_value()?);
                    continue;
                }
                Name::Id => &mut m.id,
                Name::Method => &mut m.method,
                Name::Params if self.lift => {
                    // A `params` named twice keeps its last value, `_meta` included.
                    let lifted = map.next_value_seed(LiftSeed::<M>(PhantomData))?;
                    m.params = Some(Params::Value(lifted.0));
                    m.meta = lifted.1;
                    continue;
                }
                Name::Params => {
                    m.params = Some(Params::Value(map.next_value()?));
                    continue;
                }
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
        Ok(Top::Object)
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

/// `params` with its `_meta` member read into an `M` and the rest into a `Value`, as
/// a plain read would have it. Only an object has members: any other `params` is
/// read as it is (and refused later, by the shape rules).
struct LiftSeed<M>(PhantomData<M>);

impl<'de, M: DeserializeOwned> DeserializeSeed<'de> for LiftSeed<M> {
    type Value = (Value, Option<M>);

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, M: DeserializeOwned> Visitor<'de> for LiftSeed<M> {
    type Value = (Value, Option<M>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut params = Map::new();
        let mut meta = None;
        while let Some(key) = map.next_key::<ParamKey>()? {
            match key {
                ParamKey::Meta => meta = Some(map.next_value::<M>()?),
                ParamKey::Other(key) => {
                    params.insert(key, map.next_value()?);
                }
            }
        }
        Ok((Value::Object(params), meta))
    }

    // Anything else is kept as the `Value` a plain read makes of it.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok((Value::Array(items), None))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok((Value::Bool(v), None))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok((v.into(), None))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok((v.into(), None))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok((v.into(), None))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok((v.into(), None))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok((Value::Null, None))
    }
}

/// A member name of `params`: `_meta`, or any other (kept, as a map key is).
enum ParamKey {
    Meta,
    Other(String),
}

impl<'de> Deserialize<'de> for ParamKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ParamKey, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = ParamKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ParamKey, E> {
                Ok(match v {
                    "_meta" => ParamKey::Meta,
                    other => ParamKey::Other(other.to_owned()),
                })
            }
        }
        d.deserialize_identifier(KeyVisitor)
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

    /// The plain read: `params` whole; an object's members with it.
    fn top(bytes: &[u8]) -> Result<(Top, Members), serde_json::Error> {
        let mut m = Members::default();
        top_with(bytes, false, &mut m).map(|top| (top, m))
    }

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
            let Ok((Top::Object, m)) = top(frame) else {
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
            // Read from a checked string or from bytes (not UTF-8): the same words.
            b"{\"id\":1,\"method\":\"\xc3\x28\"}",
            b"{\"id\":1}\xff",
            b"{\"x\":\"\\uD800\"}",
            b"{\"x\":\"a\nb\"}",
            b"{\"x\":\"\\q\"}",
            "{\"é\":1,,}".as_bytes(),
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
            matches!(top(b"[1,{}]"), Ok((Top::Array(items), _)) if items == vec![json!(1), json!({})])
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
                matches!(top(frame.as_bytes()), Ok((Top::Scalar(v), _)) if v == want),
                "{frame}"
            );
        }
    }
}
