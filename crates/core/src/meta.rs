// Over 500 lines: about 110 of them are its unit tests; the rest is one job, `_meta` read once.
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
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value, json};
use std::fmt;

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
/// what the era rule and the progress machinery need, and the modern fields as
/// sent, checked when a modern request is served ([`Meta::fields`], [`Meta::judge`]).
///
/// A server reads `_meta` straight from the bytes into this (its `Deserialize`,
/// through [`crate::jsonrpc::parse_lifting`]): only the members below become values;
/// `_meta` itself is never built as a map. A message already read into a `Value` (a
/// batch's item) gives the same `Meta` through [`Meta::read`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    /// `_meta` holds one of the per-request protocol fields: the body's mark of a
    /// modern message (era rule 4). Other `io.modelcontextprotocol/` keys, such as a
    /// legacy task's `related-task`, do not count.
    pub modern: bool,
    /// What `_meta` was, with its modern fields as sent. Boxed: the envelope that
    /// carries a `Meta` is moved a few times per message, and most have no `_meta`.
    sent: Sent,
}

/// What `params._meta` was.
#[derive(Debug, Clone, Default, PartialEq)]
enum Sent {
    /// No `_meta` (or no `params`).
    #[default]
    Absent,
    /// An object: its modern members, unchecked (boxed: most messages carry none).
    Object(Box<Found>),
    /// Not an object: refused (`-32602`) when a modern request is served.
    Other(Box<Value>),
}

/// The members of `_meta` this server reads, as sent; a member named twice keeps its
/// last value, as a map would.
#[derive(Debug, Clone, Default, PartialEq)]
struct Found {
    protocol_version: Option<Value>,
    client_capabilities: Option<Value>,
    /// Only its kind is kept: `clientInfo` must be an object, and nothing here reads
    /// who the client says it is (a wire view shows it from the bytes).
    client_info: Option<&'static str>,
    log_level: Option<Value>,
    progress_token: Option<Value>,
}

/// The one table of the `_meta` members this server reads. The long
/// `io.modelcontextprotocol/…` names are compared as they come, never hashed.
#[derive(Clone, Copy)]
enum Field {
    ProtocolVersion,
    ClientCapabilities,
    ClientInfo,
    LogLevel,
    ProgressToken,
}

impl Field {
    fn of(key: &str) -> Option<Field> {
        Some(match key {
            PROTOCOL_VERSION => Field::ProtocolVersion,
            CLIENT_CAPABILITIES => Field::ClientCapabilities,
            CLIENT_INFO => Field::ClientInfo,
            LOG_LEVEL => Field::LogLevel,
            "progressToken" => Field::ProgressToken,
            _ => return None,
        })
    }
}

impl Found {
    /// Keeps `value` as `field`'s (`clientInfo`: its kind).
    fn set(&mut self, field: Field, value: Value) {
        let slot = match field {
            Field::ProtocolVersion => &mut self.protocol_version,
            Field::ClientCapabilities => &mut self.client_capabilities,
            Field::ClientInfo => {
                self.client_info = Some(kind(&value));
                return;
            }
            Field::LogLevel => &mut self.log_level,
            Field::ProgressToken => &mut self.progress_token,
        };
        *slot = Some(value);
    }
}

/// `-32602`: `_meta` lacks what every modern request declares.
fn missing(what: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!(
        "params._meta must carry {what}: in 2026-07-28 every request declares its protocol version and client capabilities (basic/index \"_meta\")"
    ))
}

/// `_meta`'s modern fields after the `-32602` checks, the version not yet judged;
/// borrowed from the [`Meta`] they were read into.
#[derive(Debug, Clone, PartialEq)]
pub struct Fields<'a> {
    /// The declared version, as sent: an HTTP server compares its header with it
    /// before [`Meta::judge`] says whether this server speaks it.
    pub protocol_version: &'a Value,
    /// What the client can do, declared per request (there is no `initialize`).
    pub client_capabilities: &'a Map<String, Value>,
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
    /// `io.modelcontextprotocol/logLevel` as a rank (see `context::LOG_LEVELS`):
    /// this request wants log messages at that level and above; `None`: none.
    pub log_level: Option<usize>,
}

impl Meta {
    /// Reads `params._meta` of a message already read into a `Value`: the same
    /// `Meta` as reading it from the bytes gives.
    pub fn read(params: Option<&Value>) -> Meta {
        match params.and_then(|p| p.get("_meta")) {
            None => Meta::default(),
            Some(Value::Object(meta)) => {
                let mut found = Found::default();
                for (key, value) in meta {
                    if let Some(field) = Field::of(key) {
                        found.set(field, value.clone());
                    }
                }
                Meta::of(found)
            }
            Some(other) => self::other(other.clone()),
        }
    }

    /// The `Meta` of a `_meta` object whose members are `found`.
    fn of(found: Found) -> Meta {
        Meta {
            modern: found.protocol_version.is_some()
                || found.client_capabilities.is_some()
                || found.client_info.is_some(),
            sent: Sent::Object(Box::new(found)),
        }
    }

    /// `progressToken`: the client wants `notifications/progress` carrying it
    /// (`basic/utilities/progress`, both eras).
    pub fn progress_token(&self) -> Option<&Value> {
        match &self.sent {
            Sent::Object(found) => found.progress_token.as_ref(),
            _ => None,
        }
    }

    /// The `-32602` checks alone: `_meta` is an object holding a protocol version
    /// and a capabilities object (and, if present, a `clientInfo` object). Whether
    /// the version is one this server speaks is judged later, by [`Meta::judge`]: an
    /// HTTP server compares the `MCP-Protocol-Version` header with it in between.
    pub fn fields(&self) -> Result<Fields<'_>, ErrorObject> {
        let found = match &self.sent {
            Sent::Absent => {
                return Err(missing(&format!(
                    "\"{PROTOCOL_VERSION}\" and \"{CLIENT_CAPABILITIES}\""
                )));
            }
            Sent::Other(other) => return Err(not_object("_meta", kind(other))),
            Sent::Object(found) => found,
        };
        let protocol_version = found
            .protocol_version
            .as_ref()
            .ok_or_else(|| missing(&format!("\"{PROTOCOL_VERSION}\"")))?;
        let client_capabilities = match &found.client_capabilities {
            Some(Value::Object(c)) => c,
            Some(other) => {
                return Err(not_object(
                    &format!("_meta[\"{CLIENT_CAPABILITIES}\"]"),
                    kind(other),
                ));
            }
            None => return Err(missing(&format!("\"{CLIENT_CAPABILITIES}\""))),
        };
        match found.client_info {
            None | Some(OBJECT) => {}
            Some(other) => return Err(not_object(&format!("_meta[\"{CLIENT_INFO}\"]"), other)),
        }
        Ok(Fields {
            protocol_version,
            client_capabilities,
            log_level: found.log_level.as_ref(),
        })
    }

    /// Validates `_meta`: a missing required field is `-32602` Invalid params; a
    /// version this server does not speak is `-32022` with the versions it does;
    /// then the log level (`-32602`).
    pub fn judge(&self) -> Result<RequestMeta<'_>, ErrorObject> {
        let fields = self.fields()?;
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
            log_level,
        })
    }
}

/// `_meta` read from the bytes: each member's name compared where it stands, only
/// the members of `Field` kept (`clientInfo`: its kind). The others are read
/// through (checked as JSON must be, UTF-8 included) and dropped.
impl<'de> Deserialize<'de> for Meta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Meta, D::Error> {
        d.deserialize_any(MetaVisitor)
    }
}

/// `_meta` read where it lies in a checked frame: the same `Meta` as the
/// `Deserialize` below makes of the same bytes (only the members read become
/// values; `clientInfo` is looked at for its kind alone).
impl crate::jsonrpc::Lift for Meta {
    fn from_raw(raw: crate::jsonrpc::Raw<'_>) -> Option<Meta> {
        if !raw.is_object() {
            return Some(other(raw.to_value()));
        }
        let mut found = Found::default();
        for (name, value) in raw.members() {
            match Field::of(&name.as_str()) {
                Some(Field::ClientInfo) => found.client_info = Some(value.kind()),
                Some(field) => found.set(field, value.to_value()),
                None => {}
            }
        }
        Some(Meta::of(found))
    }
}

struct MetaVisitor;

impl<'de> Visitor<'de> for MetaVisitor {
    type Value = Meta;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Meta, A::Error> {
        let mut found = Found::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                // Read through, for its kind: no map is built.
                Key(Some(Field::ClientInfo)) => {
                    found.client_info = Some(map.next_value::<Kind>()?.0);
                }
                Key(Some(field)) => found.set(field, map.next_value()?),
                // Another member: read (so checked) and not kept.
                Key(None) => {
                    map.next_value::<Kind>()?;
                }
            }
        }
        Ok(Meta::of(found))
    }

    // Not an object: kept as the value it is, for the error that quotes its kind.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Meta, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(other(Value::Array(items)))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Meta, E> {
        Ok(other(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Meta, E> {
        Ok(other(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Meta, E> {
        Ok(other(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Meta, E> {
        Ok(other(v.into()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Meta, E> {
        Ok(other(v.into()))
    }

    fn visit_unit<E>(self) -> Result<Meta, E> {
        Ok(other(Value::Null))
    }
}

/// The `Meta` of a `_meta` that is not an object.
fn other(value: Value) -> Meta {
    Meta {
        modern: false,
        sent: Sent::Other(Box::new(value)),
    }
}

/// A member name of `_meta`: one this server reads, or another.
struct Key(Option<Field>);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(Key(Field::of(v)))
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

/// `-32602`: a member that must be an object is not (it is `kind`).
fn not_object(key: &str, kind: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("params.{key} must be an object, got {kind}"))
}

/// What [`kind`] calls an object.
const OBJECT: &str = "an object";

/// Any JSON value, read through and not kept: only its kind ([`kind`]'s words). The
/// bytes are checked as reading them into a `Value` would check them (strings'
/// UTF-8 included: serde_json hands each string over as `&str`), with the same
/// errors, and nothing is allocated.
struct Kind(&'static str);

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        d.deserialize_any(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        while map.next_key::<Kind>()?.is_some() {
            map.next_value::<Kind>()?;
        }
        Ok(Kind(OBJECT))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        while seq.next_element::<Kind>()?.is_some() {}
        Ok(Kind("an array"))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Kind, E> {
        Ok(Kind("a boolean"))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Kind, E> {
        Ok(Kind("a number"))
    }

    fn visit_u64<E>(self, _: u64) -> Result<Kind, E> {
        Ok(Kind("a number"))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Kind, E> {
        Ok(Kind("a number"))
    }

    fn visit_str<E>(self, _: &str) -> Result<Kind, E> {
        Ok(Kind("a string"))
    }

    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind("null"))
    }
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
        let m = read.judge().unwrap();
        assert_eq!(m.protocol_version, "2026-07-28");
        assert!(read.modern);
    }

    /// `_meta` read from the bytes by serde_json (a frame the checker refused), where
    /// it lies in a checked frame (what a server does), and from a `Value` (a batch's
    /// item) is the same `Meta`, with the same verdict.
    #[test]
    fn read_from_the_bytes_or_from_a_value_is_the_same() {
        let metas: &[&str] = &[
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"x":{}},"io.modelcontextprotocol/logLevel":"debug","progressToken":7,"other":[1,{"x":null}]}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[],"io.modelcontextprotocol/clientInfo":"c"}"#,
            r#"{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":{}}"#,
            r#"{"io.modelcontextprotocol/clientInfo":{"name":"c"}}"#,
            r#"{"io.modelcontextprotocol/related-task":{"taskId":"t"}}"#,
            r#"{"progressToken":"t"}"#,
            r#"{"io.modelcontextprotocol/protocol\u0056ersion":"2026-07-28", "io.modelcontextprotocol/clientCapabilities" : { } }"#,
            r#"{}"#,
            r#""x""#,
            r#"5"#,
            r#"-1.5"#,
            r#"[1,{"a":2}]"#,
            r#"null"#,
            r#"true"#,
        ];
        for meta in metas {
            let from_bytes: Meta = serde_json::from_str(meta).unwrap();
            let p = params(serde_json::from_str(meta).unwrap());
            let from_value = Meta::read(Some(&p));
            assert_eq!(from_bytes, from_value, "{meta}");
            assert_eq!(from_bytes.judge(), from_value.judge(), "{meta}");
            let doc = crate::jsonrpc::Doc::parse(meta).unwrap();
            let in_place = <Meta as crate::jsonrpc::Lift>::from_raw(doc.root()).unwrap();
            assert_eq!(in_place, from_bytes, "{meta}");
        }
    }

    #[test]
    fn client_info_is_optional() {
        let p = params(json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}}));
        assert!(Meta::read(Some(&p)).judge().is_ok());
    }

    #[test]
    fn missing_fields_are_invalid_params() {
        for p in [
            json!({}),
            params(json!({CLIENT_CAPABILITIES: {}})),
            params(json!({PROTOCOL_VERSION: "2026-07-28"})),
            params(json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: []})),
            params(
                json!({PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {}, CLIENT_INFO: "c"}),
            ),
            params(json!("x")),
        ] {
            assert_eq!(
                Meta::read(Some(&p)).judge().unwrap_err().code,
                code::INVALID_PARAMS,
                "{p}"
            );
        }
        assert_eq!(
            Meta::read(None).judge().unwrap_err().code,
            code::INVALID_PARAMS
        );
    }

    #[test]
    fn unknown_versions_get_32022_with_data() {
        for v in [json!("v999.0.0"), json!("2025-11-25"), json!(7)] {
            let p = params(json!({PROTOCOL_VERSION: v.clone(), CLIENT_CAPABILITIES: {}}));
            let e = Meta::read(Some(&p)).judge().unwrap_err();
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
