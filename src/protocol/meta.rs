//! Per-request metadata of the modern era (MCP 2026-07-28 `basic/index` "`_meta`"):
//! every request names its own protocol version, client capabilities and (optionally)
//! client identity in `params._meta`, because there is no handshake to remember them.
//!
//! ```json
//! "params": { "_meta": {
//!   "io.modelcontextprotocol/protocolVersion": "2026-07-28",
//!   "io.modelcontextprotocol/clientCapabilities": {},
//!   "io.modelcontextprotocol/clientInfo": { "name": "c", "version": "1" } } }
//! ```

use crate::jsonrpc::{ErrorObject, code, kind};
use serde_json::{Map, Value, json};

/// The `_meta` key of the protocol version a modern request speaks.
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub use super::capabilities::CLIENT_CAPABILITIES;
/// The `_meta` key of the client's name and version.
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The `_meta` key of the log level a modern request asks for.
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Put by the server in every modern result's `_meta`.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The stateless revisions this server speaks, newest first.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

use crate::jsonrpc::code::UNSUPPORTED_PROTOCOL_VERSION;

/// A message's `_meta`, read once when its envelope is built ([`super::Envelope`]):
/// what the era rule and the progress machinery need. The modern fields themselves
/// stay where they are, in the message's `params`, and are checked there when a
/// modern request is served ([`Meta::fields`], [`Meta::judge`]): nothing is copied.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// `_meta` holds one of the per-request protocol fields: the body's mark of a
    /// modern message (era rule 4). Other `io.modelcontextprotocol/` keys, such as a
    /// legacy task's `related-task`, do not count.
    pub modern: bool,
    /// `progressToken`: the client wants `notifications/progress` carrying it
    /// (`basic/utilities/progress`, both eras).
    pub progress_token: Option<Value>,
}

/// `_meta`'s modern fields after the `-32602` checks, the version not yet judged;
/// borrowed from the request's `params`.
#[derive(Debug, Clone, PartialEq)]
pub struct Fields<'a> {
    /// The declared version, as sent: an HTTP server compares its header with it
    /// before [`Meta::judge`] says whether this server speaks it.
    pub protocol_version: &'a Value,
    /// What the client can do, declared per request (there is no `initialize`).
    pub client_capabilities: &'a Map<String, Value>,
    /// Who the client is, if it says.
    pub client_info: Option<&'a Map<String, Value>>,
    /// `io.modelcontextprotocol/logLevel` as sent, judged after the version.
    log_level: Option<&'a Value>,
}

/// The per-request fields of a request this server serves.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta<'a> {
    /// A version of [`MODERN_VERSIONS`].
    pub protocol_version: &'static str,
    /// What the client declared it can do.
    pub client_capabilities: &'a Map<String, Value>,
    /// Who the client is, if it says.
    pub client_info: Option<&'a Map<String, Value>>,
    /// `io.modelcontextprotocol/logLevel` as a rank (see `context::LOG_LEVELS`):
    /// this request wants log messages at that level and above; `None`: none.
    pub log_level: Option<usize>,
}

impl Meta {
    /// Reads `params._meta`: the modern mark and the progress token.
    pub fn read(params: Option<&Value>) -> Meta {
        let Some(Value::Object(meta)) = params.and_then(|p| p.get("_meta")) else {
            return Meta::default();
        };
        let seen = Seen::of(meta);
        Meta {
            modern: seen.protocol_version.is_some()
                || seen.client_capabilities.is_some()
                || seen.client_info.is_some(),
            progress_token: seen.progress_token.cloned(),
        }
    }

    /// The `-32602` checks alone, on the `params` this `Meta` was read from: `_meta`
    /// is an object holding a protocol version and a capabilities object (and, if
    /// present, a `clientInfo` object). Whether the version is one this server speaks
    /// is judged later, by [`Meta::judge`]: an HTTP server compares the
    /// `MCP-Protocol-Version` header with it in between.
    pub fn fields<'a>(&self, params: Option<&'a Value>) -> Result<Fields<'a>, ErrorObject> {
        match params.and_then(|p| p.get("_meta")) {
            None => Err(missing(&format!(
                "\"{PROTOCOL_VERSION}\" and \"{CLIENT_CAPABILITIES}\""
            ))),
            Some(Value::Object(meta)) => Seen::of(meta).check(),
            Some(other) => Err(not_object("_meta", other)),
        }
    }

    /// Validates `_meta` of `params` (those this `Meta` was read from): a missing
    /// required field is `-32602` Invalid params; a version this server does not speak
    /// is `-32022` with the versions it does; then the log level (`-32602`).
    pub fn judge<'a>(&self, params: Option<&'a Value>) -> Result<RequestMeta<'a>, ErrorObject> {
        let fields = self.fields(params)?;
        let protocol_version = supported_version(fields.protocol_version)?;
        let log_level = match fields.log_level {
            None => None,
            Some(level) => Some(
                level
                    .as_str()
                    .and_then(super::context::log_rank)
                    .ok_or_else(|| ErrorObject::invalid_params(format!("params._meta[\"{LOG_LEVEL}\"] must be a log level such as \"info\", got {level}")))?,
            ),
        };
        Ok(RequestMeta {
            protocol_version,
            client_capabilities: fields.client_capabilities,
            client_info: fields.client_info,
            log_level,
        })
    }
}

fn missing(what: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "params._meta must carry {what}: in 2026-07-28 every request declares its protocol version and client capabilities (basic/index \"_meta\")"
    ))
}

/// The members of `_meta` this server reads, found in one pass over its entries
/// (a handful of keys, each compared as it comes: no hashing of the long
/// `io.modelcontextprotocol/…` names, once per lookup, on every request).
#[derive(Default)]
struct Seen<'a> {
    protocol_version: Option<&'a Value>,
    client_capabilities: Option<&'a Value>,
    client_info: Option<&'a Value>,
    log_level: Option<&'a Value>,
    progress_token: Option<&'a Value>,
}

impl<'a> Seen<'a> {
    fn of(meta: &'a Map<String, Value>) -> Seen<'a> {
        let mut seen = Seen::default();
        for (key, value) in meta {
            let slot = match key.as_str() {
                PROTOCOL_VERSION => &mut seen.protocol_version,
                CLIENT_CAPABILITIES => &mut seen.client_capabilities,
                CLIENT_INFO => &mut seen.client_info,
                LOG_LEVEL => &mut seen.log_level,
                "progressToken" => &mut seen.progress_token,
                _ => continue,
            };
            *slot = Some(value);
        }
        seen
    }

    /// The checks of [`Meta::fields`], on a present `_meta` object.
    fn check(&self) -> Result<Fields<'a>, ErrorObject> {
        let protocol_version = self
            .protocol_version
            .ok_or_else(|| missing(&format!("\"{PROTOCOL_VERSION}\"")))?;
        let client_capabilities = match self.client_capabilities {
            Some(Value::Object(c)) => c,
            Some(other) => {
                return Err(not_object(
                    &format!("_meta[\"{CLIENT_CAPABILITIES}\"]"),
                    other,
                ));
            }
            None => return Err(missing(&format!("\"{CLIENT_CAPABILITIES}\""))),
        };
        let client_info = match self.client_info {
            None => None,
            Some(Value::Object(i)) => Some(i),
            Some(other) => return Err(not_object(&format!("_meta[\"{CLIENT_INFO}\"]"), other)),
        };
        Ok(Fields {
            protocol_version,
            client_capabilities,
            client_info,
            log_level: self.log_level,
        })
    }
}

/// `-32602`: a member that must be an object is not.
fn not_object(key: &str, v: &Value) -> ErrorObject {
    ErrorObject::invalid_params(format!("params.{key} must be an object, got {}", kind(v)))
}

/// The `-32022` error for a version this server does not serve statelessly, with
/// `data: {supported, requested}` so the client can retry with one it knows.
pub fn unsupported_version(requested: &Value) -> ErrorObject {
    let shown = requested
        .as_str()
        .map_or_else(|| requested.to_string(), str::to_owned);
    ErrorObject {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: format!(
            "Unsupported protocol version: {shown} (this server serves {} per request)",
            MODERN_VERSIONS.join(", ")
        ),
        data: Some(json!({ "supported": MODERN_VERSIONS, "requested": requested })),
    }
}

fn supported_version(requested: &Value) -> Result<&'static str, ErrorObject> {
    MODERN_VERSIONS
        .into_iter()
        .find(|v| requested.as_str() == Some(v))
        .ok_or_else(|| unsupported_version(requested))
}

/// The `-32601` answer, modern flavour.
pub fn method_not_found(method: &str) -> ErrorObject {
    let hint = match method {
        "initialize"
        | "ping"
        | "logging/setLevel"
        | "resources/subscribe"
        | "resources/unsubscribe" => {
            " (removed in 2026-07-28: there is no handshake or session; each request carries its own _meta)"
        }
        _ => "",
    };
    ErrorObject::new(
        code::METHOD_NOT_FOUND,
        format!("Method not found: {method}{hint}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(meta: Value) -> Value {
        json!({ "_meta": meta })
    }

    #[test]
    fn full_meta_parses() {
        let p = params(
            json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}, CLIENT_INFO: {"name": "c", "version": "1"}}),
        );
        let read = Meta::read(Some(&p));
        let m = read.judge(Some(&p)).unwrap();
        assert_eq!(m.protocol_version, "2026-07-28");
        assert!(m.client_info.is_some());
        assert!(read.modern);
    }

    #[test]
    fn client_info_is_optional() {
        let p = params(json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}}));
        assert_eq!(
            Meta::read(Some(&p)).judge(Some(&p)).unwrap().client_info,
            None
        );
    }

    #[test]
    fn missing_fields_are_invalid_params() {
        for p in [
            json!({}),
            params(json!({CLIENT_CAPABILITIES: {}})),
            params(json!({PROTOCOL_VERSION: "2026-07-28"})),
            params(json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: []})),
            params(json!("x")),
        ] {
            assert_eq!(
                Meta::read(Some(&p)).judge(Some(&p)).unwrap_err().code,
                code::INVALID_PARAMS,
                "{p}"
            );
        }
        assert_eq!(
            Meta::read(None).judge(None).unwrap_err().code,
            code::INVALID_PARAMS
        );
    }

    #[test]
    fn unknown_versions_get_32022_with_data() {
        for v in [json!("v999.0.0"), json!("2025-11-25"), json!(7)] {
            let p = params(json!({PROTOCOL_VERSION: v.clone(), CLIENT_CAPABILITIES: {}}));
            let e = Meta::read(Some(&p)).judge(Some(&p)).unwrap_err();
            assert_eq!(e.code, -32022);
            assert_eq!(
                e.data,
                Some(json!({"supported": ["2026-07-28"], "requested": v}))
            );
        }
    }

    #[test]
    fn only_per_request_fields_mark_a_request_modern() {
        let is_modern = |p: Option<&Value>| Meta::read(p).modern;
        assert!(!is_modern(None));
        assert!(!is_modern(Some(&json!({"_meta": {"progressToken": 1}}))));
        assert!(!is_modern(Some(&params(
            json!({"io.modelcontextprotocol/related-task": {}})
        ))));
        assert!(is_modern(Some(&params(json!({CLIENT_CAPABILITIES: {}})))));
    }
}
