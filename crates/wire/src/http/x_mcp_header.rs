//! `x-mcp-header` (MCP 2026-07-28 `server/tools` "x-mcp-header",
//! `basic/transports/streamable-http` "Custom Headers from Tool Parameters"): a tool
//! may mark arguments to be mirrored into `Mcp-Param-{Name}` headers. The client checks
//! every annotation when it lists tools, drops a tool with an invalid one (with a
//! warning), and adds the headers when it calls a valid one; the server checks that
//! the headers it receives match the arguments ([`check`]).

use super::mirror;
use serde_json::Value;

/// One annotated argument: its header name and its path of `properties` keys.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderParam {
    /// The `x-mcp-header` value: the header is `Mcp-Param-{name}`.
    pub name: String,
    /// `["a", "b"]` for `arguments.a.b`.
    pub path: Vec<String>,
}

/// Checks every `x-mcp-header` in a tool's `inputSchema`; the error names the first
/// violation. Rules: a non-empty RFC 9110 token; case-insensitively unique; only on
/// `string`, `integer` or `boolean` properties; reachable from the root through
/// `properties` keys alone (not through `items`, `anyOf`, `$ref`, ...).
pub fn header_params(input_schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    walk(input_schema, &mut Vec::new(), false, &mut found)?;
    for (i, a) in found.iter().enumerate() {
        if found[..i]
            .iter()
            .any(|b: &HeaderParam| b.name.eq_ignore_ascii_case(&a.name))
        {
            return Err(format!(
                "x-mcp-header {:?} is not unique (header names ignore case)",
                a.name
            ));
        }
    }
    Ok(found)
}

/// Visits every object in the schema. `property` is true exactly for schemas reached
/// from the root through `properties` keys; `path` is that chain of keys.
fn walk(
    v: &Value,
    path: &mut Vec<String>,
    property: bool,
    found: &mut Vec<HeaderParam>,
) -> Result<(), String> {
    match v {
        Value::Array(items) => items.iter().try_for_each(|i| walk(i, path, false, found)),
        Value::Object(map) => {
            if let Some(annotation) = map.get("x-mcp-header") {
                let at = if path.is_empty() {
                    "the schema root".to_owned()
                } else {
                    path.join(".")
                };
                if !property {
                    return Err(format!(
                        "x-mcp-header at {at} is not reachable through properties alone"
                    ));
                }
                found.push(HeaderParam {
                    name: check_name(annotation)?,
                    path: path.clone(),
                });
                match map.get("type").and_then(Value::as_str) {
                    Some("string" | "integer" | "boolean") => {}
                    other => {
                        return Err(format!(
                            "x-mcp-header {annotation} on {at} needs type string, integer or boolean, got {}",
                            other.map_or("none".to_owned(), |t| format!("{t:?}"))
                        ));
                    }
                }
            }
            for (key, child) in map {
                if key == "properties"
                    && let Value::Object(props) = child
                    && (property || path.is_empty())
                {
                    for (name, schema) in props {
                        path.push(name.clone());
                        walk(schema, path, true, found)?;
                        path.pop();
                    }
                } else if key != "x-mcp-header" {
                    walk(child, path, false, found)?;
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A header name: 1*tchar (RFC 9110 §5.6.2), so no spaces, colons, controls or
/// non-ASCII.
fn check_name(annotation: &Value) -> Result<String, String> {
    let Value::String(name) = annotation else {
        return Err(format!("x-mcp-header must be a string, got {annotation}"));
    };
    if name.is_empty() {
        return Err("x-mcp-header must not be empty".to_owned());
    }
    let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    match name.chars().find(|c| !tchar(*c)) {
        Some(bad) => Err(format!(
            "x-mcp-header {name:?} contains {bad:?}, not allowed in a header name"
        )),
        None => Ok(name.clone()),
    }
}

/// The `Mcp-Param-*` headers for one call: each annotated argument that is present
/// and not `null`, encoded per "Value Encoding".
pub fn headers_for(params: &[HeaderParam], arguments: &Value) -> Vec<(String, String)> {
    params
        .iter()
        .filter_map(|p| {
            let value = p.path.iter().try_fold(arguments, |v, key| v.get(key))?;
            let text = mirror::param_value(value)?;
            Some((format!("Mcp-Param-{}", p.name), text))
        })
        .collect()
}

/// The server's check of one `tools/call`: every annotated argument present in the
/// body must arrive in its header, and the header (decoded) must equal it. `header`
/// looks a header up by name. The error says which header and why (`-32020`).
pub fn check<'h>(
    params: &[HeaderParam],
    arguments: &Value,
    header: impl Fn(&str) -> Option<&'h str>,
) -> Result<(), String> {
    for p in params {
        let name = format!("Mcp-Param-{}", p.name);
        let body = p
            .path
            .iter()
            .try_fold(arguments, |v, key| v.get(key))
            .filter(|v| !v.is_null());
        match (body, header(&name)) {
            (None, _) => {}
            (Some(_), None) => {
                return Err(format!(
                    "{name} is required: argument {} is in the body",
                    p.path.join(".")
                ));
            }
            (Some(v), Some(raw)) => {
                let got = mirror::decode(raw.trim_matches([' ', '\t']))
                    .map_err(|e| format!("{name}: {e}"))?;
                let same = match v {
                    Value::String(s) => *s == got,
                    Value::Bool(b) => got == b.to_string(),
                    // Numbers compare as numbers: 42 and 42.0 are equal.
                    Value::Number(n) => got.parse::<f64>().ok() == n.as_f64(),
                    _ => false,
                };
                if !same {
                    return Err(format!(
                        "{name} header value {got:?} does not match body value {v}"
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(props: Value) -> Value {
        json!({"type": "object", "properties": props})
    }

    #[test]
    fn valid_annotations_and_their_headers() {
        let s = schema(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "Priority"},
            "opts": {"type": "object", "properties": {"v": {"type": "boolean", "x-mcp-header": "Verbose"}}},
            "query": {"type": "string"}
        }));
        let params = header_params(&s).unwrap();
        assert_eq!(params.len(), 3);
        let args = json!({"region": "Hello, 世界", "n": 42, "opts": {"v": false}, "query": "q"});
        let headers = headers_for(&params, &args);
        assert_eq!(
            headers,
            [
                (
                    "Mcp-Param-Region".to_owned(),
                    "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()
                ),
                ("Mcp-Param-Priority".to_owned(), "42".to_owned()),
                ("Mcp-Param-Verbose".to_owned(), "false".to_owned())
            ]
        );
        assert!(headers_for(&params, &json!({"region": null})).is_empty());
    }

    #[test]
    fn the_server_check_compares_decoded_headers_with_the_body() {
        let params = header_params(&schema(json!({
            "value": {"type": "string", "x-mcp-header": "Value"},
            "n": {"type": "integer", "x-mcp-header": "N"}
        })))
        .unwrap();
        let args = json!({"value": "Hello", "n": 42});
        let ok = |v: &'static str, n: &'static str| {
            move |h: &str| match h {
                "Mcp-Param-Value" => Some(v),
                "Mcp-Param-N" => Some(n),
                _ => None,
            }
        };
        assert!(check(&params, &args, ok("Hello", "42")).is_ok());
        assert!(check(&params, &args, ok("=?base64?SGVsbG8=?=", "42.0")).is_ok());
        assert!(
            check(&params, &args, ok("=?base64?SGVsbG8?=", "42"))
                .unwrap_err()
                .contains("invalid Base64")
        );
        assert!(
            check(&params, &args, ok("Bye", "42"))
                .unwrap_err()
                .contains("does not match")
        );
        assert!(
            check(&params, &args, |_| None)
                .unwrap_err()
                .contains("required")
        );
        assert!(check(&params, &json!({"value": null}), |_| None).is_ok());
    }

    #[test]
    fn invalid_annotations_are_refused() {
        for (props, why) in [
            (
                json!({"a": {"type": "string", "x-mcp-header": ""}}),
                "empty",
            ),
            (
                json!({"a": {"type": "object", "x-mcp-header": "A"}}),
                "type",
            ),
            (json!({"a": {"type": "array", "x-mcp-header": "A"}}), "type"),
            (json!({"a": {"type": "null", "x-mcp-header": "A"}}), "type"),
            (
                json!({"a": {"type": "number", "x-mcp-header": "A"}}),
                "type",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "A"}}),
                "unique",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "MyField"}, "b": {"type": "string", "x-mcp-header": "myfield"}}),
                "unique",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "My Field"}}),
                "contains",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "My:Field"}}),
                "contains",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "Région"}}),
                "contains",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "Tab\there"}}),
                "contains",
            ),
            (
                json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}),
                "reachable",
            ),
            (
                json!({"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}}),
                "reachable",
            ),
        ] {
            let e = header_params(&schema(props.clone())).unwrap_err();
            assert!(e.contains(why), "{props}: {e}");
        }
        let root = json!({"type": "string", "x-mcp-header": "A"});
        assert!(header_params(&root).is_err());
    }
}
