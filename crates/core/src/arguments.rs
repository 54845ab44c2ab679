//! What a tool receives, whichever kind of handler it is: the `params.arguments`
//! object of `tools/call` (MCP 2025-11-25 `server/tools` "Calling Tools"), read one
//! argument at a time where it lies in the request's bytes ([`Arguments::get`]), or
//! whole as a map when a handler wants one. A handler that answers at once borrows
//! them from the frame; one that takes time owns them ([`crate::context::Call`]).

use crate::jsonrpc::{Field, Raw, object_member};
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// What a tool handler receives: the `params.arguments` object of `tools/call` (an
/// empty object when the client sent none, or `null`). [`Arguments::get`] reads one
/// argument where it lies in the request's bytes and builds nothing; the whole map
/// (`Deref`) is built on first use.
pub struct Arguments<'a> {
    /// Where the arguments are.
    source: Source<'a>,
    /// The map, once built (from [`Source::Sent`]), or given ([`Source::Built`]).
    built: OnceLock<Map<String, Value>>,
}

/// Where a call's arguments are.
enum Source<'a> {
    /// In a `params` value.
    Value(&'a Map<String, Value>),
    /// As sent: the object's text.
    Sent(Raw<'a>),
    /// In `built` (given whole, or none sent).
    Built,
}

impl<'a> Arguments<'a> {
    /// No arguments.
    pub fn new() -> Arguments<'static> {
        Arguments::from(Map::new())
    }

    /// The arguments a `params.arguments` object holds (an object: see
    /// [`super::params::sent_object`]).
    pub(crate) fn of(field: Field<'a>) -> Arguments<'a> {
        let source = match field {
            Field::Value(Value::Object(m)) => Source::Value(m),
            Field::Sent(raw) => Source::Sent(raw),
            Field::Value(_) => Source::Built,
        };
        Arguments {
            source,
            built: OnceLock::new(),
        }
    }

    /// The argument `name`, read without building the others.
    pub fn get(&self, name: &str) -> Option<Field<'_>> {
        match &self.source {
            Source::Value(m) => object_member(m, name).map(Field::Value),
            Source::Sent(raw) => raw.get(name).map(Field::Sent),
            Source::Built => self
                .built
                .get()
                .and_then(|m| object_member(m, name))
                .map(Field::Value),
        }
    }
}

impl Default for Arguments<'static> {
    fn default() -> Self {
        Arguments::new()
    }
}

impl From<Map<String, Value>> for Arguments<'static> {
    fn from(map: Map<String, Value>) -> Self {
        Arguments {
            source: Source::Built,
            built: OnceLock::from(map),
        }
    }
}

impl std::ops::Deref for Arguments<'_> {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Map<String, Value> {
        match &self.source {
            Source::Value(m) => m,
            Source::Sent(raw) => self.built.get_or_init(|| match raw.to_value() {
                Value::Object(m) => m,
                _ => Map::new(),
            }),
            Source::Built => self.built.get_or_init(Map::new),
        }
    }
}
