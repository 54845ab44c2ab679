//! What a success response's `result` holds: a JSON value, or an object already
//! written out as the bytes that go on the wire ([`Rendered`]).
//!
//! A result the server builds on every call (a tool's text answer) costs, as a
//! `serde_json::Value` with its member order kept, two allocations per map, one per
//! key, a SipHash per member, then a walk to write it and another to free it: some
//! 4,000 instructions of a 13,500-instruction stdio `tools/call` (callgrind). Written
//! once as bytes it costs one buffer. Either way the wire sees the same bytes; a
//! reader that wants the value gets it through [`Payload`]'s `Deref`, which parses a
//! rendered object the first time it is asked (the client, tests and task store; never
//! the server's write path).

use serde::Serialize;
use serde_json::Value;
use std::sync::OnceLock;

/// A success response's `result`.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// A JSON value: what a peer's response is always read into, and what most
    /// results are built as.
    Value(Value),
    /// A JSON object written as it goes on the wire.
    Rendered(Rendered),
}

impl From<Value> for Payload {
    fn from(v: Value) -> Payload {
        Payload::Value(v)
    }
}

impl From<Rendered> for Payload {
    fn from(r: Rendered) -> Payload {
        Payload::Rendered(r)
    }
}

impl std::ops::Deref for Payload {
    type Target = Value;

    /// The result as a value (a rendered object is parsed once, on first use).
    fn deref(&self) -> &Value {
        match self {
            Payload::Value(v) => v,
            Payload::Rendered(r) => r.value(),
        }
    }
}

impl Payload {
    /// The result as an owned value.
    pub fn into_value(self) -> Value {
        match self {
            Payload::Value(v) => v,
            // Parsed already (a reader asked), or parsed now: never copied.
            Payload::Rendered(mut r) => r.value.take().map_or_else(|| r.parse(), |v| *v),
        }
    }

    /// Appends the result's JSON to `out`: the value serialized, or the rendered bytes.
    pub fn write_to(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match self {
            Payload::Value(v) => serde_json::to_writer(out, v),
            Payload::Rendered(r) => {
                out.push(b'{');
                out.extend_from_slice(&r.members);
                out.push(b'}');
                Ok(())
            }
        }
    }
}

impl PartialEq<Value> for Payload {
    fn eq(&self, other: &Value) -> bool {
        **self == *other
    }
}

/// A JSON object written member by member into one buffer. Its members' names are
/// kept, so an era that adds members of its own to every result (2026-07-28:
/// `resultType`, `_meta`) can tell whether this object already has them
/// ([`Rendered::names`]).
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// The members as written: `"name":value` joined by commas, without the braces.
    members: Vec<u8>,
    /// Each member's name, in order.
    names: Names,
    /// The object as a value, parsed from `members` the first time a reader asks
    /// (boxed: most results are never read back, and a response moves by value).
    value: OnceLock<Box<Value>>,
}

/// Member names in order: the first kept inline (a tool's result has one, or two
/// when it failed), so a result costs no allocation for them.
#[derive(Debug, Clone, Default)]
struct Names {
    /// The first name; empty while there is none.
    first: &'static str,
    /// The names after the first.
    more: Vec<&'static str>,
    /// How many names there are.
    len: usize,
}

impl Names {
    fn push(&mut self, name: &'static str) {
        if self.len == 0 {
            self.first = name;
        } else {
            self.more.push(name);
        }
        self.len += 1;
    }

    fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        let first = (self.len > 0).then_some(self.first);
        first.into_iter().chain(self.more.iter().copied())
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Rendered {
    /// An empty object with room for `bytes` of members.
    pub fn with_capacity(bytes: usize) -> Rendered {
        Rendered {
            members: Vec::with_capacity(bytes),
            names: Names::default(),
            value: OnceLock::new(),
        }
    }

    /// Appends the member `name`, its value serialized. A name given twice is written
    /// twice, so callers name each member once (as a map would hold it).
    pub fn member(self, name: &'static str, value: &(impl Serialize + ?Sized)) -> Rendered {
        // Serializing a value into memory cannot fail (no I/O; the values written
        // here are strings, booleans and derived structs).
        self.member_with(name, |out| {
            let _ = serde_json::to_writer(out, value);
        })
    }

    /// Appends the member `name`, its value written by `write`, which must append
    /// exactly one JSON value (a result built on every call, written as bytes).
    pub fn member_with(mut self, name: &'static str, write: impl FnOnce(&mut Vec<u8>)) -> Rendered {
        if !self.names.is_empty() {
            self.members.push(b',');
        }
        // A name the code chose: written as it is when it needs no escape.
        if name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
            self.members.push(b'"');
            self.members.extend_from_slice(name.as_bytes());
            self.members.extend_from_slice(b"\":");
        } else {
            let _ = serde_json::to_writer(&mut self.members, name);
            self.members.push(b':');
        }
        write(&mut self.members);
        self.names.push(name);
        self
    }

    /// The members as written, without the braces.
    pub fn members(&self) -> &[u8] {
        &self.members
    }

    /// The members' names, in order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.names.iter()
    }

    /// Does this object have a member `name`?
    pub fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// The object as a value.
    pub fn value(&self) -> &Value {
        self.value.get_or_init(|| Box::new(self.parse()))
    }

    /// Reads the members back into a value.
    fn parse(&self) -> Value {
        let mut text = Vec::with_capacity(self.members.len() + 2);
        text.push(b'{');
        text.extend_from_slice(&self.members);
        text.push(b'}');
        // Written by serde_json in `member`: always one JSON object.
        serde_json::from_slice(&text).unwrap_or(Value::Null)
    }
}

/// Two rendered objects are equal when their bytes are.
impl PartialEq for Rendered {
    fn eq(&self, other: &Rendered) -> bool {
        self.members == other.members
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The bytes of a rendered object are a value's compact JSON, member order kept,
    /// and the value read back is that value.
    #[test]
    fn rendered_is_what_the_value_would_write() {
        #[derive(Serialize)]
        struct Item<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            text: &'a str,
        }
        let rendered = Rendered::with_capacity(64)
            .member(
                "content",
                &[Item {
                    kind: "text",
                    text: "a \"quoted\"\nline é \u{1}",
                }],
            )
            .member("isError", &true);
        let want = json!({
            "content": [{"type": "text", "text": "a \"quoted\"\nline é \u{1}"}],
            "isError": true
        });
        let payload = Payload::from(rendered.clone());
        let mut out = Vec::new();
        payload.write_to(&mut out).unwrap();
        assert_eq!(out, serde_json::to_vec(&want).unwrap());
        assert_eq!(payload, want);
        assert_eq!(rendered.names().collect::<Vec<_>>(), ["content", "isError"]);
        assert!(rendered.has("isError") && !rendered.has("resultType"));
        // Taken once read, or read when taken.
        assert_eq!(payload.into_value(), want);
        assert_eq!(Payload::from(rendered).into_value(), want);
        let empty = Payload::from(Rendered::default());
        let mut out = Vec::new();
        empty.write_to(&mut out).unwrap();
        assert_eq!(out, b"{}");
        assert_eq!(empty, json!({}));
    }
}
