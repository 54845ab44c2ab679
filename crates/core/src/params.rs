//! Reading fields of a request's `params`. Every refusal is `-32602` Invalid params
//! and names the method and the field, e.g. `tools/call: params.name must be a string,
//! got a number`. `string` and `object` read a `Value`; `sent_string` and
//! `sent_object` read [`Params`] where they lie, building nothing.

use crate::jsonrpc::{ErrorObject, Field, Params, kind, member};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A required string field.
pub fn string<'a>(
    method: &str,
    params: Option<&'a Value>,
    field: &str,
) -> Result<&'a str, ErrorObject> {
    match params.and_then(|p| member(p, field)) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(wrong(method, field, "a string", kind(other))),
        None => Err(missing(method, field)),
    }
}

/// An optional object field; absent or `null` is `None`.
pub fn object<'a>(
    method: &str,
    params: Option<&'a Value>,
    field: &str,
) -> Result<Option<&'a Map<String, Value>>, ErrorObject> {
    match params.and_then(|p| member(p, field)) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(other) => Err(wrong(method, field, "an object", kind(other))),
    }
}

/// [`string`], read where it lies: lent when it has no escapes.
pub fn sent_string<'a>(
    method: &str,
    params: Option<&'a Params>,
    field: &str,
) -> Result<Cow<'a, str>, ErrorObject> {
    match params.and_then(|p| p.get(field)) {
        Some(found) => found
            .as_str()
            .ok_or_else(|| wrong(method, field, "a string", found.kind())),
        None => Err(missing(method, field)),
    }
}

/// [`object`], read where it lies: the object's field, not built.
pub fn sent_object<'a>(
    method: &str,
    params: Option<&'a Params>,
    field: &str,
) -> Result<Option<Field<'a>>, ErrorObject> {
    match params.and_then(|p| p.get(field)) {
        None => Ok(None),
        Some(found) if found.is_null() => Ok(None),
        Some(found) if found.is_object() => Ok(Some(found)),
        Some(other) => Err(wrong(method, field, "an object", other.kind())),
    }
}

/// `params.{field}` is there, and of the wrong type.
fn wrong(method: &str, field: &str, want: &str, got: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "{method}: params.{field} must be {want}, got {got}"
    ))
}

/// `params.{field}` is not there.
fn missing(method: &str, field: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("{method}: missing params.{field}"))
}
