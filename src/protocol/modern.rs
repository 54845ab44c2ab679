//! The modern, stateless era (MCP 2026-07-28): no `initialize`, no session. Each
//! request is checked on its own `_meta` ([`meta`]) and served on its own; every
//! result says `"resultType": "complete"` and names the server in its `_meta`
//! (`basic/index` "Result Responses", "Per-response protocol fields").

use super::context::{Pending, Reply};
use super::tools::{Env, Outcome};
use super::{Server, meta, tools};
use crate::jsonrpc::{ErrorObject, Request, Response};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// How long a client may reuse a list or discovery result: the demo tools never
/// change, so a minute is safe (`server/utilities/caching`).
pub const TTL_MS: u64 = 60_000;

/// Serves one modern request. Validation order: `_meta` (`-32602`), version
/// (`-32022`), method (`-32601`).
pub fn handle(server: &Arc<Server>, request: Request) -> Reply {
    let Request { id, method, params } = request;
    let params = params.as_ref();
    let outcome = if method == "initialize" && !meta::is_modern(params) {
        Err(initialize_refused(params))
    } else {
        match meta::parse(params) {
            Err(e) => Err(e),
            Ok(request_meta) => match dispatch(server, &method, params, &request_meta) {
                Outcome::Now(result) => result,
                Outcome::Later(future, outbox) => {
                    let server = server.clone();
                    return Reply::Later(Pending::new(id, outbox, async move {
                        future.await.map(|r| complete(&server, r))
                    }));
                }
            },
        }
    };
    Reply::Now(Response {
        id: Some(id),
        outcome,
    })
}

fn dispatch(
    server: &Server,
    method: &str,
    params: Option<&Value>,
    request_meta: &meta::RequestMeta,
) -> Outcome {
    let now = |r: Result<Value, ErrorObject>| Outcome::Now(r.map(|v| complete(server, v)));
    match method {
        "server/discover" => now(Ok(discover(server))),
        "tools/list" => now(Ok(cacheable(tools::list(&server.tools)))),
        "tools/call" => {
            let env = Env {
                peer: None,
                log_level: request_meta.log_level,
                client_capabilities: Value::Object(request_meta.client_capabilities.clone()),
                modern: true,
            };
            match tools::call(&server.tools, params, env) {
                Outcome::Now(r) => now(r),
                later => later,
            }
        }
        other => now(Err(meta::method_not_found(other))),
    }
}

/// `server/discover` (`server/discover`, a MUST): versions, capabilities, identity.
/// `supportedVersions` lists the revisions a request may name in its `_meta`; the
/// legacy ones are reached through `initialize`, not through `_meta`.
fn discover(server: &Server) -> Value {
    cacheable(json!({
        "supportedVersions": meta::MODERN_VERSIONS,
        "capabilities": server.capabilities(),
    }))
}

/// Adds `resultType` (first, so a reader sees it first; `"complete"` unless the
/// result already says, e.g. `"input_required"`) and `_meta.serverInfo`.
pub fn complete(server: &Server, result: Value) -> Value {
    let mut out = Map::new();
    let kind = result
        .get("resultType")
        .cloned()
        .unwrap_or(json!("complete"));
    out.insert("resultType".into(), kind);
    let mut meta = Map::new();
    if let Value::Object(fields) = result {
        for (k, v) in fields {
            match (k.as_str(), v) {
                ("resultType", _) => {}
                ("_meta", Value::Object(m)) => meta = m,
                (_, v) => {
                    out.insert(k, v);
                }
            }
        }
    }
    meta.insert(meta::SERVER_INFO.into(), server.info());
    out.insert("_meta".into(), Value::Object(meta));
    Value::Object(out)
}

/// Adds the caching hints `ttlMs` and `cacheScope` (`server/utilities/caching`:
/// MUST on discover and list results). `public`: the same for every caller.
fn cacheable(mut result: Value) -> Value {
    if let Value::Object(m) = &mut result {
        m.insert("ttlMs".into(), json!(TTL_MS));
        m.insert("cacheScope".into(), json!("public"));
    }
    result
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
