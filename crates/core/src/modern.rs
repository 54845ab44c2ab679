//! The modern, stateless era (MCP 2026-07-28): no `initialize`, no session. Each
//! request is checked on its own `_meta` ([`meta`]) and served on its own
//! (`subscriptions/listen`, the one stream that stays open, in `listen.rs`);
//! every result says what it is and names the server, dressed as it goes out
//! (`basic/index` "Result Responses", "Per-response protocol fields";
//! `server/utilities/caching`):
//!
//! ```text
//! {"resultType":"complete", …the result's own members…,
//!  "_meta":{…its own _meta members…,"io.modelcontextprotocol/serverInfo":{"name":…,"version":…}},
//!  "ttlMs":60000,"cacheScope":"public"}          ← cacheable methods, complete results only
//! ```
//!
//! `resultType` comes first so a reader sees at once what the result is (`"complete"`
//! unless the result says otherwise, e.g. `"input_required"`); `_meta` comes after the
//! result's members. The members are written as the response is serialized
//! ([`crate::jsonrpc::Dress`], [`Dressings`]), so the result's map is never rebuilt:
//! the wire is the same as if they had been inserted into it, in that order.

use super::context::{Env, Outcome, Pending, Reply, now_or_later};
use super::meta::SERVER_INFO;
use super::{Server, capabilities, listen, meta, methods, tasks};
use crate::jsonrpc::{Dress, Dressing, ErrorObject, Params, Payload, Rendered, Request, Response};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// Serves one modern request, its `_meta` read once into `meta`. Validation order:
/// `_meta` (`-32602`), version (`-32022`), method (`-32601`).
pub fn handle(server: &Arc<Server>, request: Request, meta: &meta::Meta) -> Reply {
    let Request { id, method, params } = request;
    let params = params.as_ref();
    let request_meta = if method == "initialize" && !meta.modern {
        Err(initialize_refused(params.map(|p| &**p)))
    } else {
        meta.judge()
    };
    let outcome = match request_meta {
        Err(e) => Err(e),
        Ok(request_meta) if method == "subscriptions/listen" && server.features.list_changed => {
            return listen::listen(server, id, params.map(|p| &**p), &request_meta);
        }
        Ok(request_meta) => match dispatch(server, &method, params, &request_meta, meta) {
            Outcome::Now(result) => result,
            Outcome::Later(future, outbox) => {
                let cache = methods::cacheable(&method);
                let declared = Value::Object(request_meta.client_capabilities.clone());
                let dressing = server.dressings.get(cache);
                return methods::later(
                    &method,
                    Pending::new(id, outbox, async move {
                        finish(&declared, future.await.map(Payload::from)).map(Payload::into_value)
                    })
                    .dressed(dressing),
                );
            }
        },
    };
    let dressing = server.dressings.get(methods::cacheable(&method));
    methods::now(
        &method,
        Response {
            id: Some(id),
            outcome,
            dress: Some(dressing),
        },
    )
}

fn dispatch(
    server: &Server,
    method: &str,
    params: Option<&Params>,
    request_meta: &meta::RequestMeta,
    meta: &meta::Meta,
) -> Outcome {
    // The declared capabilities, as the value `Env` and the `-32021` checks read.
    // Shared by `Env` and the checks below; a client that declared nothing (`{}`)
    // shares the one empty declaration, and allocates nothing for it.
    let capabilities = if request_meta.client_capabilities.is_empty() {
        super::no_capabilities()
    } else {
        Arc::new(Value::Object(request_meta.client_capabilities.clone()))
    };
    let now = |r: Result<Payload, ErrorObject>| Outcome::Now(finish(&capabilities, r));
    if method == "server/discover" {
        return now(Ok(discover(server).into()));
    }
    if server.features.tasks && method.starts_with("tasks/") {
        let (store, method, params, declared) = (
            server.tasks.clone(),
            method.to_owned(),
            params.map(|p| Value::clone(p)),
            capabilities.clone(),
        );
        let served = async move { tasks::serve(&store, &method, params.as_ref(), &declared).await };
        // In memory: answered now, as ever. A shared store: after its round trip.
        return match now_or_later(served) {
            Ok(result) => now(result.map(Payload::from)),
            Err(later) => Outcome::Later(later, tokio::sync::mpsc::unbounded_channel().1),
        };
    }
    let may_create_tasks =
        server.features.tasks && super::capabilities::declares(&capabilities, tasks::EXTENSION);
    let env = Env {
        peer: None,
        progress_token: meta.progress_token(),
        log_level: request_meta.log_level,
        client_capabilities: &capabilities,
        modern: true,
        hub: &server.hub,
        tasks: may_create_tasks.then_some(&server.tasks),
    };
    match methods::shared(server, method, params, env) {
        Some(Outcome::Now(r)) => now(r),
        Some(later) => later,
        None => now(Err(meta::method_not_found(method))),
    }
}

/// Every modern result on its way out: an `input_required` one may only ask what the
/// request declared (else `-32021`, [`capabilities::check_input_requests`]). Its
/// response is then written dressed ([`Dressings`]).
fn finish(declared: &Value, result: Result<Payload, ErrorObject>) -> Result<Payload, ErrorObject> {
    let result = result?;
    // A rendered result names its members: without `resultType` it is complete, and
    // there is nothing to check (nor any reason to read it back into a value).
    if let Payload::Rendered(r) = &result
        && !r.has("resultType")
    {
        return Ok(result);
    }
    capabilities::check_input_requests(declared, &result)?;
    Ok(result)
}

/// `server/discover` (`server/discover`, a MUST): versions, capabilities, identity.
/// `supportedVersions` lists the revisions a request may name in its `_meta`; the
/// legacy ones are reached through `initialize`, not through `_meta`. The tasks
/// extension is declared here only: it does not exist in the legacy era.
fn discover(server: &Server) -> Value {
    let mut capabilities = server.capabilities();
    if server.features.tasks {
        tasks::advertise(&mut capabilities);
    }
    json!({
        "supportedVersions": meta::MODERN_VERSIONS,
        "capabilities": capabilities,
    })
}

/// What a legacy `initialize` gets from a server that serves only the modern era:
/// `-32022` naming the versions it does speak, the one diagnostic a legacy client
/// can show its user (`basic/versioning`, "Backward Compatibility": SHOULD).
pub fn initialize_refused(params: Option<&Value>) -> ErrorObject {
    let requested = params
        .and_then(|p| p.get("protocolVersion"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut e = meta::unsupported_version(&requested);
    e.message = format!(
        "This server speaks only protocol version {} (stateless, no initialize handshake); initialize asked for {requested}. Send each request with params._meta[\"{}\"] instead.",
        meta::MODERN_VERSIONS.join(", "),
        meta::PROTOCOL_VERSION
    );
    e
}

/// How long a client may reuse a list, read or discovery result: a minute
/// (`server/utilities/caching`). Clients that must see changes sooner listen with
/// `subscriptions/listen`.
pub const TTL_MS: u64 = 60_000;

/// The caching hints as a complete result without them ends: `ttlMs` then
/// `cacheScope`, each after a comma. `TTL_MS` written out: the test that dresses a
/// rendered result and its value alike fails if the two part.
const CACHE_HINTS: &str = ",\"ttlMs\":60000,\"cacheScope\":\"public\"";

/// The two dressings of one server: every result, and a cacheable method's result.
#[derive(Debug, Clone)]
pub struct Dressings {
    /// `resultType` and serverInfo.
    plain: Dressing,
    /// The same, plus the caching hints on a complete result.
    cacheable: Dressing,
}

impl Dressings {
    /// The dressings that name this server in every result's `_meta`.
    pub fn new(name: &'static str, version: &'static str) -> Dressings {
        let info = ServerInfo { name, version };
        // `"io.modelcontextprotocol/serverInfo":{"name":…,"version":…}`, rendered once:
        // the same bytes end every modern result this server writes.
        let mut server_info = serde_json::to_vec(SERVER_INFO).unwrap_or_default();
        server_info.push(b':');
        server_info.extend(serde_json::to_vec(&info).unwrap_or_default());
        let server_info: Arc<[u8]> = server_info.into();
        let modern = |cache| {
            Dressing(Arc::new(Modern {
                server_info: server_info.clone(),
                cache,
            }))
        };
        Dressings {
            plain: modern(false),
            cacheable: modern(true),
        }
    }

    /// The dressing of a result of a method whose results carry caching hints
    /// (`cache`) or not.
    pub fn get(&self, cache: bool) -> Dressing {
        if cache {
            self.cacheable.clone()
        } else {
            self.plain.clone()
        }
    }
}

/// The 2026-07-28 dressing.
#[derive(Debug)]
struct Modern {
    /// The `_meta` member naming this server (key, colon, value), as written.
    server_info: Arc<[u8]>,
    /// Add `ttlMs` and `cacheScope` to a complete result (a MUST on discover, list
    /// and read results; never on an `input_required` one).
    cache: bool,
}

impl Dress for Modern {
    fn write(&self, result: &Payload, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match result {
            // A rendered object without any member the dressing moves or sets: its
            // bytes go between the dressing's own, as they are.
            Payload::Rendered(r) if !r.names().any(|n| DRESSED.contains(&n)) => {
                self.write_rendered(r, out);
                Ok(())
            }
            other => self.write_value(other, out),
        }
    }
}

/// The members the modern dressing moves (`resultType`, `_meta`) or may set (the
/// caching hints).
const DRESSED: [&str; 4] = ["resultType", "_meta", "ttlMs", "cacheScope"];

impl Modern {
    /// A rendered result with none of [`DRESSED`]: `resultType` first, its members,
    /// then `_meta` with serverInfo and the caching hints, as [`Modern::write_value`]
    /// writes the same object.
    fn write_rendered(&self, result: &Rendered, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"resultType\":\"complete\"");
        if !result.members().is_empty() {
            out.push(b',');
            out.extend_from_slice(result.members());
        }
        out.extend_from_slice(b",\"_meta\":{");
        out.extend_from_slice(&self.server_info);
        out.push(b'}');
        if self.cache {
            out.extend_from_slice(CACHE_HINTS.as_bytes());
        }
        out.push(b'}');
    }

    fn write_value(&self, result: &Value, out: &mut Vec<u8>) -> serde_json::Result<()> {
        // A result that is not an object has no members to keep.
        let empty;
        let fields = match result.as_object() {
            Some(fields) => fields,
            None => {
                empty = Map::new();
                &empty
            }
        };
        // The two members the dressing moves, found in one pass (a result has a
        // handful of members: comparing them costs less than hashing two names).
        let (mut result_type, mut own_meta) = (None, None);
        for (key, value) in fields {
            match key.as_str() {
                "resultType" => result_type = Some(value),
                "_meta" => own_meta = Some(value),
                _ => {}
            }
        }
        let cache = self.cache && result_type.is_none_or(|t| t == "complete");
        out.extend_from_slice(b"{\"resultType\":");
        match result_type {
            Some(kind) => serde_json::to_writer(&mut *out, kind)?,
            None => out.extend_from_slice(b"\"complete\""),
        }
        // A caching hint the result already names is set where it stands (as an
        // insert into the map would); the others follow `_meta`.
        let (mut ttl_written, mut scope_written) = (false, false);
        for (key, value) in fields {
            match key.as_str() {
                "resultType" | "_meta" => continue,
                "ttlMs" if cache => {
                    member(out, key, &TTL_MS)?;
                    ttl_written = true;
                }
                "cacheScope" if cache => {
                    member(out, key, "public")?;
                    scope_written = true;
                }
                _ => member(out, key, value)?,
            }
        }
        out.extend_from_slice(b",\"_meta\":{");
        let mut first = true;
        let mut info_written = false;
        if let Some(Value::Object(meta)) = own_meta {
            for (key, value) in meta {
                if !std::mem::take(&mut first) {
                    out.push(b',');
                }
                if key == SERVER_INFO {
                    out.extend_from_slice(&self.server_info);
                    info_written = true;
                } else {
                    serde_json::to_writer(&mut *out, key)?;
                    out.push(b':');
                    serde_json::to_writer(&mut *out, value)?;
                }
            }
        }
        if !info_written {
            if !first {
                out.push(b',');
            }
            out.extend_from_slice(&self.server_info);
        }
        out.push(b'}');
        if cache && !ttl_written {
            member(out, "ttlMs", &TTL_MS)?;
        }
        if cache && !scope_written {
            member(out, "cacheScope", "public")?;
        }
        out.push(b'}');
        Ok(())
    }
}

/// `serverInfo`: who answered.
#[derive(Serialize)]
struct ServerInfo {
    name: &'static str,
    version: &'static str,
}

/// `,"key":value` (never the first member: `resultType` is).
fn member(
    out: &mut Vec<u8>,
    key: &str,
    value: &(impl Serialize + ?Sized),
) -> serde_json::Result<()> {
    out.push(b',');
    serde_json::to_writer(&mut *out, key)?;
    out.push(b':');
    serde_json::to_writer(&mut *out, value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{RequestId, Response};
    use serde_json::json;

    /// The dressing as map edits (what it is equivalent to): `resultType` to the
    /// front, `_meta` with serverInfo to the end, then the caching hints inserted.
    fn as_map_edits(result: &Value, cache: bool) -> Value {
        let mut fields = result.as_object().cloned().unwrap_or_default();
        let complete = fields.get("resultType").is_none_or(|t| t == "complete");
        let kind = fields
            .shift_remove("resultType")
            .unwrap_or_else(|| json!("complete"));
        fields.shift_insert(0, "resultType".into(), kind);
        let mut meta = match fields.shift_remove("_meta") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        meta.insert(SERVER_INFO.into(), json!({"name": "n", "version": "1"}));
        fields.insert("_meta".into(), Value::Object(meta));
        if cache && complete {
            fields.insert("ttlMs".into(), json!(TTL_MS));
            fields.insert("cacheScope".into(), json!("public"));
        }
        Value::Object(fields)
    }

    /// The bytes, as text, of the success answering id 7 with `result`, dressed with
    /// `dressing` when there is one.
    fn answer(result: impl Into<Payload>, dressing: Option<Dressing>) -> String {
        let mut response = Response::success(RequestId::from(7), result);
        response.dress = dressing;
        String::from_utf8(response.to_bytes()).unwrap()
    }

    #[test]
    fn the_bytes_are_those_of_the_edited_map() {
        let dressings = Dressings::new("n", "1");
        let results = [
            json!({"content": [{"type": "text", "text": "a\"b\n"}], "isError": false}),
            json!({}),
            json!({"resultType": "input_required", "inputRequests": {"k": {}}}),
            json!({"b": 1, "resultType": "complete", "a": 2}),
            json!({"_meta": {"x": 1, SERVER_INFO: "old", "y": [2]}, "z": null}),
            json!({"_meta": "not an object", "tools": []}),
            json!({"tools": [], "ttlMs": 5, "other": true}),
            json!({"cacheScope": "private", "tools": []}),
            json!("not an object"),
            json!(null),
        ];
        for result in &results {
            for cache in [false, true] {
                assert_eq!(
                    answer(result.clone(), Some(dressings.get(cache))),
                    answer(as_map_edits(result, cache), None),
                    "{result} cache={cache}"
                );
            }
        }
    }

    /// A rendered result is dressed into the bytes its value would be: members in
    /// order, `_meta` and the caching hints after them. One holding a member the
    /// dressing moves or sets is dressed through its value (the same edits).
    #[test]
    fn a_rendered_result_is_dressed_as_its_value() {
        let dressings = Dressings::new("n", "1");
        let rendered = [
            Rendered::default(),
            Rendered::default().member("content", &json!([{"type": "text", "text": "a\"é"}])),
            Rendered::default()
                .member("content", &json!([]))
                .member("isError", &true),
            Rendered::default()
                .member("tools", &json!([]))
                .member("ttlMs", &5),
            Rendered::default()
                .member("_meta", &json!({"x": 1}))
                .member("b", &2),
            Rendered::default()
                .member("resultType", &"input_required")
                .member("inputRequests", &json!({})),
            Rendered::default().member("cacheScope", &"private"),
        ];
        for result in rendered {
            let value = result.value().clone();
            for cache in [false, true] {
                assert_eq!(
                    answer(result.clone(), Some(dressings.get(cache))),
                    answer(value.clone(), Some(dressings.get(cache))),
                    "{value} cache={cache}"
                );
            }
        }
    }

    #[test]
    fn an_error_is_never_dressed() {
        let mut response = Response::error(
            Some(RequestId::from(1)),
            crate::jsonrpc::ErrorObject::new(-32601, "no"),
        );
        let plain = response.to_bytes();
        response.dress = Some(Dressings::new("n", "1").get(true));
        assert_eq!(response.to_bytes(), plain);
    }
}
