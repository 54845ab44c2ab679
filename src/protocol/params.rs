//! Reading fields of a request's `params`. Every refusal is `-32602` Invalid params
//! and names the method and the field, e.g. `tools/call: params.name must be a string,
//! got a number`.

use crate::jsonrpc::{ErrorObject, kind, member};
use serde_json::{Map, Value};

/// A required string field.
pub fn string<'a>(
    method: &str,
    params: Option<&'a Value>,
    field: &str,
) -> Result<&'a str, ErrorObject> {
    match params.and_then(|p| member(p, field)) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(ErrorObject::invalid_params(format!(
            "{method}: params.{field} must be a string, got {}",
            kind(other)
        ))),
        None => Err(ErrorObject::invalid_params(format!(
            "{method}: missing params.{field}"
        ))),
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
        Some(other) => Err(ErrorObject::invalid_params(format!(
            "{method}: params.{field} must be an object, got {}",
            kind(other)
        ))),
    }
}
