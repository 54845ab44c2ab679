//! A request's or notification's `params`: a `Value` (built by code, or read the
//! slow way), or the text it was sent as, read where it lies ([`super::raw`]).
//! A handler that wants a `Value` gets one through `Deref`, built once on first use;
//! a handler that reads a member or two (`tools/call`'s `name` and `arguments`) reads
//! them from the text, and no map is ever built.

use super::tape::raw::{Doc, Raw};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::OnceLock;

/// `params`, an object (or, from the slow read, whatever was sent: the shape rules
/// refuse the rest before a handler sees it).
pub enum Params {
    /// A value in hand.
    Value(Value),
    /// An object's text, as sent, from a frame that passed the check.
    Sent(Sent),
}

/// `params` as sent.
pub struct Sent {
    /// The frame's text and tape, kept (the message outlives its frame), standing
    /// for the object.
    doc: Doc,
    /// `_meta` was read out of `params` into the envelope ([`super::parse_lifting`]):
    /// the members here leave it out, as the `Value` of a lifting read does.
    lifted: bool,
    /// The object as a `Value`, built on first use (boxed: most are never built,
    /// and a request moves by value).
    value: OnceLock<Box<Value>>,
}

impl Params {
    /// `params` as sent: `doc` stands for an object.
    pub(crate) fn sent(doc: Doc, lifted: bool) -> Params {
        Params::Sent(Sent {
            doc,
            lifted,
            value: OnceLock::new(),
        })
    }

    /// Is `params` an object? (Told without building it.)
    pub fn is_object(&self) -> bool {
        match self {
            Params::Value(v) => v.is_object(),
            Params::Sent(_) => true,
        }
    }

    /// The member `key`, read without building the rest.
    pub fn get(&self, key: &str) -> Option<Field<'_>> {
        match self {
            Params::Value(v) => super::member(v, key).map(Field::Value),
            Params::Sent(s) if s.lifted && key == "_meta" => None,
            Params::Sent(s) => s.doc.root().get(key).map(Field::Sent),
        }
    }

    /// The `Value`, moved out (built if it is still text).
    pub fn into_value(self) -> Value {
        match self {
            Params::Value(v) => v,
            Params::Sent(s) => match s.value.into_inner() {
                Some(v) => *v,
                None => build(&s.doc, s.lifted),
            },
        }
    }
}

/// The `Value` of an object's text, `_meta` left out when it was lifted.
fn build(doc: &Doc, lifted: bool) -> Value {
    let mut value = doc.root().to_value();
    if lifted && let Value::Object(map) = &mut value {
        map.shift_remove("_meta");
    }
    value
}

impl std::ops::Deref for Params {
    type Target = Value;

    fn deref(&self) -> &Value {
        match self {
            Params::Value(v) => v,
            Params::Sent(s) => s.value.get_or_init(|| Box::new(build(&s.doc, s.lifted))),
        }
    }
}

impl From<Value> for Params {
    fn from(v: Value) -> Params {
        Params::Value(v)
    }
}

impl Clone for Params {
    fn clone(&self) -> Params {
        match self {
            Params::Value(v) => Params::Value(v.clone()),
            Params::Sent(s) => Params::Sent(Sent {
                doc: s.doc.clone(),
                lifted: s.lifted,
                value: s.value.clone(),
            }),
        }
    }
}

/// Shown as its value: what was sent, whichever way it was read.
impl std::fmt::Debug for Params {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// Equal when their values are.
impl PartialEq for Params {
    fn eq(&self, other: &Params) -> bool {
        **self == **other
    }
}

/// One member of `params` (or of an object inside it), as [`Params::get`] finds it.
#[derive(Clone, Copy, Debug)]
pub enum Field<'a> {
    /// A member of a `Value`.
    Value(&'a Value),
    /// A member's text, as sent.
    Sent(Raw<'a>),
}

/// The field's compact JSON, whichever way it was read (for error messages that
/// quote it: the same message gets the same answer read either way).
impl std::fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Field::Value(v) => std::fmt::Display::fmt(v, f),
            Field::Sent(r) => std::fmt::Display::fmt(&r.to_value(), f),
        }
    }
}

impl<'a> Field<'a> {
    /// The JSON type name, for error messages.
    pub fn kind(self) -> &'static str {
        match self {
            Field::Value(v) => super::kind(v),
            Field::Sent(r) => r.kind(),
        }
    }

    /// Is this `null`?
    pub fn is_null(self) -> bool {
        match self {
            Field::Value(v) => v.is_null(),
            Field::Sent(r) => r.is_null(),
        }
    }

    /// Is this an object?
    pub fn is_object(self) -> bool {
        match self {
            Field::Value(v) => v.is_object(),
            Field::Sent(r) => r.is_object(),
        }
    }

    /// The string this is (lent when it can be).
    pub fn as_str(self) -> Option<Cow<'a, str>> {
        match self {
            Field::Value(v) => v.as_str().map(Cow::Borrowed),
            Field::Sent(r) => r.as_str(),
        }
    }

    /// The number this is, as an `f64`.
    pub fn as_f64(self) -> Option<f64> {
        match self {
            Field::Value(v) => v.as_f64(),
            Field::Sent(r) => r.as_f64(),
        }
    }

    /// The member `key` of this object.
    pub fn get(self, key: &str) -> Option<Field<'a>> {
        match self {
            Field::Value(v) => super::member(v, key).map(Field::Value),
            Field::Sent(r) => r.get(key).map(Field::Sent),
        }
    }

    /// The value, built (or borrowed, when it is one already).
    pub fn to_value(self) -> Cow<'a, Value> {
        match self {
            Field::Value(v) => Cow::Borrowed(v),
            Field::Sent(r) => Cow::Owned(r.to_value()),
        }
    }
}
