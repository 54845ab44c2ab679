//! Request metadata mirrored into HTTP headers (MCP 2026-07-28
//! `basic/transports/streamable-http` "Request Metadata"), so a load balancer can
//! route on `Mcp-Method` / `Mcp-Name` without parsing the body. Used by the server to
//! validate and by the client to build requests.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

/// The header of the protocol version (both eras).
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The header mirroring a modern request's method.
pub const METHOD: &str = "mcp-method";
/// The header mirroring a modern request's tool, prompt or resource name.
pub const NAME: &str = "mcp-name";
/// Prefix of the headers that mirror `x-mcp-header`-annotated tool arguments.
pub const PARAM_PREFIX: &str = "mcp-param-";

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// The body value `Mcp-Name` mirrors: `params.name` for `tools/call` and
/// `prompts/get`, `params.uri` for `resources/read`, `params.taskId` for `tasks/get`,
/// `tasks/update` and `tasks/cancel` (SEP-2663 "Routing Headers": so a load balancer
/// can send every poll to the instance holding the task); no header for other methods.
pub fn name_source<'a>(method: &str, params: Option<&'a Value>) -> Option<Option<&'a str>> {
    let field = name_field(method)?;
    Some(params.and_then(|p| p.get(field)).and_then(Value::as_str))
}

/// The member of `params` that `Mcp-Name` mirrors for `method` ([`name_source`]).
pub fn name_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// Does `MCP-Protocol-Version` name one of `versions`?
pub fn names_version(headers: &hyper::HeaderMap, versions: &[&str]) -> bool {
    headers.get(PROTOCOL_VERSION).is_some_and(|v| {
        versions
            .iter()
            .any(|known| v.as_bytes() == known.as_bytes())
    })
}

/// The headers any POST of a client carries, in either era: it accepts both answer
/// forms (`basic/transports` "Sending Messages", rule 2) and sends JSON.
pub fn post_headers() -> Vec<(String, String)> {
    vec![
        (
            "accept".to_owned(),
            "application/json, text/event-stream".to_owned(),
        ),
        ("content-type".to_owned(), "application/json".to_owned()),
    ]
}

/// The headers every modern POST carries: `Accept` and `Content-Type` as for any
/// POST, then the version, the method and (for the methods [`name_source`] lists)
/// the encoded name, all copied from the body.
pub fn standard_headers(
    version: &str,
    method: &str,
    params: Option<&Value>,
) -> Vec<(String, String)> {
    let mut h = post_headers();
    h.push((PROTOCOL_VERSION.to_owned(), version.to_owned()));
    h.push((METHOD.to_owned(), encode(method)));
    if let Some(Some(name)) = name_source(method, params) {
        h.push((NAME.to_owned(), encode(name)));
    }
    h
}

/// Encodes a value for a header ("Value Encoding"): as-is when every character is
/// visible ASCII or an inner space, with no leading or trailing whitespace, and it
/// does not itself look like the sentinel; otherwise `=?base64?<UTF-8 Base64>?=`.
pub fn encode(value: &str) -> String {
    let looks_encoded = value.starts_with(SENTINEL_START) && value.ends_with(SENTINEL_END);
    let plain = value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !looks_encoded;
    if plain {
        value.to_owned()
    } else {
        format!("{SENTINEL_START}{}{SENTINEL_END}", STANDARD.encode(value))
    }
}

/// Decodes a header value: a sentinel-wrapped value is Base64-decoded (and must be
/// UTF-8); anything else is taken literally. The error says what was wrong.
pub fn decode(value: &str) -> Result<String, String> {
    let Some(inner) = value
        .strip_prefix(SENTINEL_START)
        .and_then(|v| v.strip_suffix(SENTINEL_END))
    else {
        return Ok(value.to_owned());
    };
    let bytes = STANDARD
        .decode(inner)
        .map_err(|e| format!("invalid Base64 in {value:?}: {e}"))?;
    String::from_utf8(bytes).map_err(|_| format!("Base64 in {value:?} is not UTF-8"))
}

/// The header text of an `x-mcp-header` argument: strings encoded, integers in
/// decimal, booleans as `true`/`false`; `None` (omit the header) for null/absent.
pub fn param_value(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(encode(s)),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_examples_from_the_spec() {
        assert_eq!(encode("us-west1"), "us-west1");
        assert_eq!(encode("us west 1"), "us west 1");
        assert_eq!(encode("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(encode("\tindented"), "=?base64?CWluZGVudGVk?=");
        assert_eq!(encode(""), "");
    }

    #[test]
    fn decode_round_trips_and_rejects_bad_base64() {
        for v in ["plain", "Hello, 世界", " padded ", "=?base64?literal?="] {
            assert_eq!(decode(&encode(v)).unwrap(), v);
        }
        assert!(
            decode("=?base64?!!!?=")
                .unwrap_err()
                .contains("invalid Base64")
        );
        assert_eq!(decode("=?base64?no-end").unwrap(), "=?base64?no-end");
    }

    #[test]
    fn task_methods_mirror_the_task_id() {
        let p = serde_json::json!({ "taskId": "t-1" });
        for m in ["tasks/get", "tasks/update", "tasks/cancel"] {
            assert_eq!(name_source(m, Some(&p)), Some(Some("t-1")));
        }
        assert_eq!(name_source("tasks/get", None), Some(None));
        assert_eq!(name_source("server/discover", Some(&p)), None);
    }

    #[test]
    fn param_values() {
        assert_eq!(param_value(&serde_json::json!(42)), Some("42".into()));
        assert_eq!(param_value(&serde_json::json!(false)), Some("false".into()));
        assert_eq!(param_value(&serde_json::json!(null)), None);
        assert_eq!(param_value(&serde_json::json!(1.5)), None);
    }
}
