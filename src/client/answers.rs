//! What the client answers when a server asks (MCP 2025-11-25 `client/*`; in
//! 2026-07-28 the same questions come as MRTR `inputRequests`): `ping` always,
//! `roots/list` from `--root`, `sampling/createMessage` and `elicitation/create` from
//! scripted answers (`--answer`, `--answers FILE`). What is not configured is refused
//! with a JSON-RPC error that says so; the capabilities the client declares follow
//! from what is configured, so a server never asks what has no answer.

use crate::jsonrpc::{ErrorObject, Request, Response, code};
use serde_json::{Map, Value, json};

/// The scripted answers of one client.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// `roots/list`: each `{uri, name}`; none configured means no `roots` capability.
    pub roots: Vec<Value>,
    /// The `CreateMessageResult` for every `sampling/createMessage`.
    pub sampling: Option<Value>,
    /// The `ElicitResult` for every `elicitation/create`.
    pub elicitation: Option<Value>,
}

impl Answers {
    /// A root for a local path: `file://` and the absolute path, named after its last
    /// component.
    pub fn root(path: &std::path::Path) -> Result<Value, String> {
        let abs =
            std::path::absolute(path).map_err(|e| format!("--root {}: {e}", path.display()))?;
        let text = abs
            .to_str()
            .ok_or_else(|| format!("--root {}: not UTF-8", path.display()))?;
        let name = abs
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(text)
            .to_owned();
        Ok(json!({ "uri": format!("file://{text}"), "name": name }))
    }

    /// Reads `--answer KIND=JSON` (`sampling` or `elicitation`, the JSON being the
    /// result object to send back).
    pub fn set(&mut self, spec: &str) -> Result<(), String> {
        let (kind, json) = spec.split_once('=').ok_or_else(|| {
            format!("--answer {spec:?}: expected sampling=JSON or elicitation=JSON")
        })?;
        let value: Value = serde_json::from_str(json)
            .map_err(|e| format!("--answer {kind}: not JSON ({e}): {json:?}"))?;
        self.set_kind(kind, value)
    }

    /// Reads `--answers FILE`: a JSON object with `sampling`, `elicitation` and
    /// `roots` (an array of `{uri, name}`) members, each optional.
    pub fn load(&mut self, text: &str, file: &str) -> Result<(), String> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| format!("--answers {file}: not JSON ({e})"))?;
        let Value::Object(m) = v else {
            return Err(format!("--answers {file}: expected a JSON object"));
        };
        for (kind, value) in m {
            if kind == "roots" {
                let Value::Array(roots) = value else {
                    return Err(format!("--answers {file}: \"roots\" must be an array"));
                };
                self.roots.extend(roots);
            } else {
                self.set_kind(&kind, value)
                    .map_err(|e| format!("--answers {file}: {e}"))?;
            }
        }
        Ok(())
    }

    fn set_kind(&mut self, kind: &str, value: Value) -> Result<(), String> {
        if !value.is_object() {
            return Err(format!(
                "the {kind} answer must be a JSON object (the result), got {value}"
            ));
        }
        match kind {
            "sampling" => self.sampling = Some(value),
            "elicitation" => self.elicitation = Some(value),
            other => {
                return Err(format!(
                    "unknown answer kind {other:?}: expected sampling or elicitation"
                ));
            }
        }
        Ok(())
    }

    /// The client capabilities these answers make true (`initialize`'s
    /// `capabilities`, or the modern `_meta` clientCapabilities).
    pub fn capabilities(&self) -> Value {
        let mut caps = Map::new();
        if !self.roots.is_empty() {
            caps.insert("roots".into(), json!({}));
        }
        if self.sampling.is_some() {
            caps.insert("sampling".into(), json!({}));
        }
        if self.elicitation.is_some() {
            caps.insert("elicitation".into(), json!({}));
        }
        Value::Object(caps)
    }

    /// The result for one question (its `params` shape some answers), or why there is
    /// none.
    pub fn result(&self, method: &str, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let missing = |what: &str, flag: &str| {
            ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!(
                    "Method not found: {method} (this client offers no {what}; give it {flag})"
                ),
            )
        };
        match method {
            "ping" => Ok(json!({})),
            "roots/list" if !self.roots.is_empty() => Ok(json!({ "roots": self.roots })),
            "roots/list" => Err(missing("roots", "--root PATH")),
            "sampling/createMessage" => self
                .sampling
                .clone()
                .ok_or_else(|| missing("sampling", "--answer sampling=JSON")),
            "elicitation/create" => self
                .elicitation
                .clone()
                .map(|answer| with_defaults(answer, params))
                .ok_or_else(|| missing("elicitation", "--answer elicitation=JSON")),
            other => Err(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: {other}"),
            )),
        }
    }

    /// The response to a server's request.
    pub fn respond(&self, request: &Request) -> Response {
        match self.result(&request.method, request.params.as_ref()) {
            Ok(result) => Response::success(request.id.clone(), result),
            Err(error) => Response::error(Some(request.id.clone()), error),
        }
    }
}

/// An accepted elicitation gets every field the form asks for with a `default`
/// that the scripted answer leaves out (2025-11-25 `client/elicitation`, SEP-1034:
/// the defaults are the values a user who just accepts would send).
fn with_defaults(mut answer: Value, params: Option<&Value>) -> Value {
    if answer["action"] != "accept" {
        return answer;
    }
    let Some(properties) = params.and_then(|p| p["requestedSchema"]["properties"].as_object())
    else {
        return answer;
    };
    if !answer["content"].is_object() {
        answer["content"] = json!({});
    }
    if let Some(content) = answer["content"].as_object_mut() {
        for (name, schema) in properties {
            if let Some(default) = schema.get("default")
                && !content.contains_key(name)
            {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_follow_the_answers_and_the_rest_is_refused() {
        let mut a = Answers::default();
        assert_eq!(a.capabilities(), json!({}));
        assert_eq!(a.result("ping", None).unwrap(), json!({}));
        let e = a.result("sampling/createMessage", None).unwrap_err();
        assert_eq!(e.code, -32601);
        assert!(
            e.message.contains("--answer sampling=JSON"),
            "{}",
            e.message
        );
        a.set(r#"sampling={"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}"#)
            .unwrap();
        a.roots.push(Answers::root("/tmp".as_ref()).unwrap());
        assert_eq!(a.capabilities(), json!({"roots": {}, "sampling": {}}));
        assert_eq!(
            a.result("roots/list", None).unwrap()["roots"][0]["uri"],
            "file:///tmp"
        );
        assert!(a.set("sampling=[]").unwrap_err().contains("JSON object"));
        assert!(
            a.set("bogus={}")
                .unwrap_err()
                .contains("unknown answer kind")
        );
        assert!(
            a.load(r#"{"elicitation":{"action":"accept","content":{}}}"#, "f")
                .is_ok()
        );
        assert!(a.elicitation.is_some());
    }
}
