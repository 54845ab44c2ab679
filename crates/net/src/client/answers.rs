//! What the client answers when a server asks (MCP 2025-11-25 `client/*`; in
//! 2026-07-28 the same questions come as MRTR `inputRequests`): `ping` always,
//! `roots/list` from `--root`, `sampling/createMessage` and `elicitation/create` from
//! scripted answers (`--answer`, `--answers FILE`), or from the user at a terminal
//! (`--ask`, [`super::ask_user`]). What is not configured is refused with a JSON-RPC
//! error that says so; the capabilities the client declares follow from what is
//! configured, so a server never asks what has no answer. With `--tasks` a
//! task-augmented question is answered as a task ([`TaskStore`]).

use super::ask_user::Asker;
use super::task_store::TaskStore;
use crate::jsonrpc::{ErrorObject, Request, Response, code};
use serde_json::{Map, Value, json};

/// The scripted answers of one client.
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// `roots/list`: each `{uri, name}`; none configured means no `roots` capability.
    pub roots: Vec<Value>,
    /// The `CreateMessageResult` for every `sampling/createMessage`.
    pub sampling: Option<Value>,
    /// The `ElicitResult` for every form-mode `elicitation/create`.
    pub elicitation: Option<Value>,
    /// The `ElicitResult` for every URL-mode `elicitation/create` (2025-11-25
    /// `client/elicitation` "URL Mode"); declares `elicitation.url`.
    pub elicitation_url: Option<Value>,
    /// `--tasks`: the tasks this client runs for the server (legacy client-side
    /// tasks); also what makes it declare the modern tasks extension.
    pub tasks: Option<TaskStore>,
    /// `--ask`: the user at a terminal answers what no script does.
    pub asker: Option<Asker>,
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
            format!("--answer {spec:?}: expected sampling=JSON, elicitation=JSON or elicitation-url=JSON")
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
            "elicitation-url" => self.elicitation_url = Some(value),
            other => {
                return Err(format!(
                    "unknown answer kind {other:?}: expected sampling, elicitation or elicitation-url"
                ));
            }
        }
        Ok(())
    }

    /// The client capabilities these answers make true: `initialize`'s
    /// `capabilities` (legacy), or the `_meta` client capabilities of each modern
    /// request (`modern`). They differ only in tasks: the 2025-11-25 experimental
    /// `tasks` capability, or the 2026-07-28 `io.modelcontextprotocol/tasks` extension.
    pub fn capabilities(&self, modern: bool) -> Value {
        let mut caps = Map::new();
        if !self.roots.is_empty() {
            caps.insert("roots".into(), json!({}));
        }
        let (sampling, form, url) = (
            self.sampling.is_some() || self.asker.is_some(),
            self.elicitation.is_some() || self.asker.is_some(),
            self.elicitation_url.is_some(),
        );
        if sampling {
            caps.insert("sampling".into(), json!({}));
        }
        // 2025-11-25 `client/elicitation` "Capabilities": an empty object means form
        // mode only; URL mode is declared by name.
        match (form, url) {
            (true, false) => _ = caps.insert("elicitation".into(), json!({})),
            (true, true) => _ = caps.insert("elicitation".into(), json!({"form": {}, "url": {}})),
            (false, true) => _ = caps.insert("elicitation".into(), json!({"url": {}})),
            (false, false) => {}
        }
        if self.tasks.is_some() {
            if modern {
                caps.insert(
                    "extensions".into(),
                    json!({ crate::protocol::tasks::EXTENSION: {} }),
                );
            } else {
                let mut requests = Map::new();
                if sampling {
                    requests.insert("sampling".into(), json!({"createMessage": {}}));
                }
                if form || url {
                    requests.insert("elicitation".into(), json!({"create": {}}));
                }
                caps.insert(
                    "tasks".into(),
                    json!({"list": {}, "cancel": {}, "requests": requests}),
                );
            }
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
        // A task-augmented question (2025-11-25 `basic/utilities/tasks`): answered
        // as a task when `--tasks` declared them, else as if plain (the spec lets a
        // receiver that does not support tasks ignore `task`).
        if let (Some(store), Some(task)) = (&self.tasks, params.and_then(|p| p.get("task")))
            && matches!(method, "sampling/createMessage" | "elicitation/create")
        {
            let result = self.plain(method, params, &missing)?;
            return Ok(store.create(task["ttl"].as_u64(), result));
        }
        self.plain(method, params, &missing)
    }

    fn plain(
        &self,
        method: &str,
        params: Option<&Value>,
        missing: &dyn Fn(&str, &str) -> ErrorObject,
    ) -> Result<Value, ErrorObject> {
        let url_mode = params.is_some_and(|p| p["mode"] == "url");
        match method {
            "ping" => Ok(json!({})),
            "roots/list" if !self.roots.is_empty() => Ok(json!({ "roots": self.roots })),
            "roots/list" => Err(missing("roots", "--root PATH")),
            "sampling/createMessage" => match (&self.sampling, &self.asker) {
                (Some(answer), _) => Ok(answer.clone()),
                (None, Some(asker)) => asker.sample(params),
                (None, None) => Err(missing("sampling", "--answer sampling=JSON or --ask")),
            },
            "elicitation/create" if url_mode => self
                .elicitation_url
                .clone()
                .ok_or_else(|| missing("URL-mode elicitation", "--answer elicitation-url=JSON")),
            "elicitation/create" => match (&self.elicitation, &self.asker) {
                (Some(answer), _) => Ok(with_defaults(answer.clone(), params)),
                (None, Some(asker)) => asker.elicit(params),
                (None, None) => Err(missing("elicitation", "--answer elicitation=JSON or --ask")),
            },
            "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" => match &self.tasks {
                Some(store) => store.answer(method, params),
                None => Err(missing("tasks", "--tasks")),
            },
            other => Err(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: {other}"),
            )),
        }
    }

    /// The response to a server's request.
    pub fn respond(&self, request: &Request) -> Response {
        match self.result(&request.method, request.params.as_deref()) {
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
        assert_eq!(a.capabilities(false), json!({}));
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
        assert_eq!(a.capabilities(false), json!({"roots": {}, "sampling": {}}));
        a.tasks = Some(TaskStore::default());
        assert_eq!(
            a.capabilities(false)["tasks"]["requests"],
            json!({"sampling": {"createMessage": {}}})
        );
        assert_eq!(
            a.capabilities(true)["extensions"],
            json!({"io.modelcontextprotocol/tasks": {}})
        );
        assert!(a.capabilities(true).get("tasks").is_none());
        let created = a
            .result(
                "sampling/createMessage",
                Some(&json!({"task": {"ttl": 1000}})),
            )
            .unwrap();
        let id = created["task"]["taskId"].clone();
        let back = a
            .result("tasks/result", Some(&json!({ "taskId": id })))
            .unwrap();
        assert_eq!(back["model"], "m");
        a.tasks = None;
        a.set(r#"elicitation-url={"action":"accept"}"#).unwrap();
        assert_eq!(a.capabilities(false)["elicitation"], json!({"url": {}}));
        let url = json!({"mode": "url", "url": "https://example.com", "message": "m", "elicitationId": "e"});
        assert_eq!(
            a.result("elicitation/create", Some(&url)).unwrap()["action"],
            "accept"
        );
        assert!(a.result("elicitation/create", None).is_err());
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
